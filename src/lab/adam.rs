//! Adam (Kingma and Ba), the optimiser of both `train.rs` and `tune.rs`:
//! each parameter steps by its gradient's running mean over the running root
//! mean square, both corrected for their start at zero.

use std::ops::{Add, Div, Mul, Sub};

/// The float types Adam runs in: training's `f32`, tuning's `f64`.
pub(crate) trait Float:
    Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> + Div<Output = Self>
{
    const ZERO: Self;
    const ONE: Self;
    /// The mean's decay.
    const BETA1: Self;
    /// The mean square's decay.
    const BETA2: Self;
    fn sqrt(self) -> Self;
    fn powi(self, n: i32) -> Self;
}

macro_rules! float {
    ($($float:ty),*) => {$(
        impl Float for $float {
            const ZERO: $float = 0.0;
            const ONE: $float = 1.0;
            const BETA1: $float = 0.9;
            const BETA2: $float = 0.999;
            fn sqrt(self) -> $float {
                <$float>::sqrt(self)
            }
            fn powi(self, n: i32) -> $float {
                <$float>::powi(self, n)
            }
        }
    )*};
}

float!(f32, f64);

/// The running moments of every parameter of a model, numbered from 0.
pub(crate) struct Adam<F> {
    first: Vec<F>,
    second: Vec<F>,
    steps: i32,
    /// The moments' corrections for the current step.
    corrections: (F, F),
    /// Keeps the step finite where the mean square is zero.
    epsilon: F,
}

impl<F: Float> Adam<F> {
    pub fn new(parameters: usize, epsilon: F) -> Adam<F> {
        Adam {
            first: vec![F::ZERO; parameters],
            second: vec![F::ZERO; parameters],
            steps: 0,
            corrections: (F::ONE, F::ONE),
            epsilon,
        }
    }

    /// Begins the next step: [`Adam::change`] is this step's until the next call.
    pub fn begin_step(&mut self) {
        self.steps += 1;
        self.corrections = (
            F::ONE - F::BETA1.powi(self.steps),
            F::ONE - F::BETA2.powi(self.steps),
        );
    }

    /// What parameter `index` loses this step, given its `gradient`, at the step size `rate`.
    #[inline]
    pub fn change(&mut self, index: usize, gradient: F, rate: F) -> F {
        let (first, second) = (&mut self.first[index], &mut self.second[index]);
        *first = F::BETA1 * *first + (F::ONE - F::BETA1) * gradient;
        *second = F::BETA2 * *second + (F::ONE - F::BETA2) * gradient * gradient;
        let (correction1, correction2) = self.corrections;
        rate * (*first / correction1) / ((*second / correction2).sqrt() + self.epsilon)
    }
}
