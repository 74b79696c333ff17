//! The network: its shape, its quantised weights and its forward pass.

use std::fmt;

use super::features::FeatureSet;
use crate::rules::cpu::{self, Routine};
use crate::rules::{BySide, Side, Variant};

/// Hidden units.
pub const HIDDEN: usize = 256;
/// Quantisation of the input layer: an activation of 1.0.
pub const QA: i32 = 255;
/// Quantisation of the output weights: fine, since 256 rounding errors add up in the output (at 64
/// they cost several hundredths of an attacker).
pub const QB: i32 = 1024;
/// Float weights within ±this quantise within the stored limits (training's clip).
#[cfg(feature = "lab")]
pub const WEIGHT_CLIP: f32 = 1.98;

/// Stored weights beyond these are refused (a float weight within the clip never gets there).
pub(super) const INPUT_WEIGHT_LIMIT: i16 = 2 * QA as i16;
pub(super) const OUTPUT_WEIGHT_LIMIT: i16 = 2 * QB as i16;
pub(super) const OUTPUT_BIAS_LIMIT: i32 = 1 << 24;

/// Where a network came from, stored in its header.
#[derive(Clone, Debug, PartialEq)]
pub struct Provenance {
    pub generation: u32,
    pub validation_loss: f32,
    /// Free text: the data, the trainer's settings.
    pub text: String,
}

/// A quantised network, ready for inference.
#[derive(Clone, PartialEq)]
pub struct Network {
    pub(super) variant: Variant,
    pub(super) features: FeatureSet,
    /// Score per unit of output.
    pub(super) scale: i32,
    pub provenance: Provenance,
    /// `inputs × HIDDEN`, one row per input.
    pub(super) input_weights: Vec<i16>,
    pub(super) hidden_bias: [i16; HIDDEN],
    /// The output row of each side to move.
    pub(super) output_weights: BySide<[i16; HIDDEN]>,
    pub(super) output_bias: BySide<i32>,
}

impl fmt::Debug for Network {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Network")
            .field("variant", &self.variant)
            .field("features", &self.features)
            .field("scale", &self.scale)
            .field("provenance", &self.provenance)
            .finish_non_exhaustive()
    }
}

impl Network {
    /// A network from its parts: float weights (already clipped) are quantised here (training's
    /// last step).
    ///
    /// `input_weights` holds `features.input_count(variant) × HIDDEN` values, one row per input.
    #[cfg(feature = "lab")]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn quantise(
        variant: Variant,
        features: FeatureSet,
        scale: i32,
        provenance: Provenance,
        input_weights: &[f32],
        hidden_bias: &[f32; HIDDEN],
        output_weights: &BySide<[f32; HIDDEN]>,
        output_bias: &BySide<f32>,
    ) -> Network {
        let quantise = |value: f32, factor: i32, limit: i16| {
            ((value * factor as f32).round() as i32).clamp(-i32::from(limit), i32::from(limit))
                as i16
        };
        Network {
            variant,
            features,
            scale: scale.max(1),
            provenance,
            input_weights: input_weights
                .iter()
                .map(|&w| quantise(w, QA, INPUT_WEIGHT_LIMIT))
                .collect(),
            hidden_bias: hidden_bias.map(|b| quantise(b, QA, INPUT_WEIGHT_LIMIT)),
            output_weights: output_weights
                .map(|row| row.map(|w| quantise(w, QB, OUTPUT_WEIGHT_LIMIT))),
            output_bias: output_bias.map(|b| {
                ((b * (QA * QB) as f32).round() as i32).clamp(-OUTPUT_BIAS_LIMIT, OUTPUT_BIAS_LIMIT)
            }),
        }
    }

    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// What the network sees.
    pub fn features(&self) -> FeatureSet {
        self.features
    }

    /// Score (hundredths of an attacker) per unit of the network's output.
    pub fn scale(&self) -> i32 {
        self.scale
    }

    /// The row of input weights an input adds to the accumulator.
    #[inline(always)]
    pub(crate) fn input_row(&self, input: usize) -> &[i16; HIDDEN] {
        self.input_weights[input * HIDDEN..(input + 1) * HIDDEN]
            .try_into()
            .expect("a row of HIDDEN weights")
    }

    pub(crate) fn hidden_bias(&self) -> &[i16; HIDDEN] {
        &self.hidden_bias
    }

    /// The score of an accumulator with the rows of `inputs` added (the terms', which no move
    /// updates) and `side` to move, from that side's view, in the fastest build this CPU runs.
    #[inline]
    pub(crate) fn output(&self, accumulator: &[i16; HIDDEN], inputs: &[usize], side: Side) -> i32 {
        cpu::run(self.output_routine(accumulator, inputs, side))
    }

    /// [`Network::output`]'s work, for a build to run.
    pub(crate) fn output_routine<'a>(
        &'a self,
        accumulator: &'a [i16; HIDDEN],
        inputs: &'a [usize],
        side: Side,
    ) -> ForwardPass<'a> {
        ForwardPass {
            network: self,
            accumulator,
            inputs,
            side,
        }
    }
}

/// The forward pass of one position: the rows of the terms are added block by block on the way
/// to the output, never into a copy of the accumulator.
pub(crate) struct ForwardPass<'a> {
    network: &'a Network,
    accumulator: &'a [i16; HIDDEN],
    inputs: &'a [usize],
    side: Side,
}

impl Routine for ForwardPass<'_> {
    type Output = i32;

    #[inline(always)]
    fn run(self) -> i32 {
        const LANES: usize = 16;
        let ForwardPass {
            network,
            accumulator,
            inputs,
            side,
        } = self;
        let weights = &network.output_weights[side];
        // Clipped in i16 and widened per product: the compiler's multiply-add of i16 pairs.
        let mut sums = [0i32; LANES];
        for start in (0..HIDDEN).step_by(LANES) {
            let block = start..start + LANES;
            let mut values: [i16; LANES] = accumulator[block.clone()]
                .try_into()
                .expect("a block of the accumulator");
            for &input in inputs {
                let row = &network.input_row(input)[block.clone()];
                for (value, weight) in values.iter_mut().zip(row) {
                    *value = value.wrapping_add(*weight);
                }
            }
            for ((sum, value), weight) in sums.iter_mut().zip(values).zip(&weights[block]) {
                *sum += i32::from(value.clamp(0, QA as i16)) * i32::from(*weight);
            }
        }
        let sum: i32 = sums.iter().sum();
        let output = i64::from(sum + network.output_bias[side]);
        (output * i64::from(network.scale) / i64::from(QA * QB)) as i32
    }
}

#[cfg(test)]
impl Network {
    /// A network of small seeded weights, for the tests of what reads or runs one.
    pub(crate) fn seeded(
        variant: Variant,
        features: FeatureSet,
        seed: u64,
        provenance: Provenance,
    ) -> Network {
        let mut state = seed;
        let mut within = |spread: i16| {
            state = crate::rules::splitmix(state);
            (state % (2 * spread as u64 + 1)) as i16 - spread
        };
        Network {
            variant,
            features,
            scale: 400,
            provenance,
            input_weights: (0..features.input_count(variant) * HIDDEN)
                .map(|_| within(QA as i16 / 10))
                .collect(),
            hidden_bias: std::array::from_fn(|_| QA as i16 / 4 + within(QA as i16 / 4)),
            output_weights: BySide::from_fn(|_| std::array::from_fn(|_| within(QB as i16 / 10))),
            output_bias: BySide::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Game, Rules};
    use crate::search::{Control, Engine, EngineConfig, Level, Limits, Networks};
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;

    /// The search uses a network for its own variant (the tree changes) and the classic evaluation
    /// elsewhere (the tree is the classic engine's); both the search and the analysis play legal moves.
    #[test]
    fn an_engine_uses_its_network_on_its_variant_only() {
        let network = Network::seeded(
            Variant::standard(Rules::Tablut),
            FeatureSet::PiecesAndTerms,
            9,
            Provenance {
                generation: 3,
                validation_loss: 0.0625,
                text: "test data, seed 1".into(),
            },
        );
        let with_network = Engine::new(EngineConfig {
            hash_mb: 1,
            networks: Networks::from_iter([Arc::new(network)]),
            ..EngineConfig::default()
        });
        let classic = Engine::new(EngineConfig {
            hash_mb: 1,
            networks: Networks::default(),
            ..EngineConfig::default()
        });
        let limits = Limits {
            max_depth: Some(4),
            ..Limits::default()
        };
        for rules in [Rules::Tablut, Rules::Copenhagen] {
            let game = Game::new(Variant::standard(rules));
            let ours = with_network
                .search(&game, &limits, Level::STRONGEST, 0)
                .expect("a move");
            let theirs = classic
                .search(&game, &limits, Level::STRONGEST, 0)
                .expect("a move");
            assert!(game.position().legal_moves().contains(&ours.best_move));
            let same_tree = (ours.nodes, ours.score) == (theirs.nodes, theirs.score);
            assert_eq!(same_tree, rules != Rules::Tablut, "{rules}");
            let analysis = with_network
                .analyse(
                    &game,
                    &limits,
                    2,
                    Control::new(&AtomicBool::new(false)),
                    |_| {},
                )
                .expect("an analysis");
            assert_eq!(analysis.lines.len(), 2);
        }
    }
}
