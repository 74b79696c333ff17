//! What a played move was: its class by the chance it gave away, the count
//! of each class, and a move's accuracy.

use strum::{EnumCount, EnumIter, IntoEnumIterator};

/// What a played move was, judged by the drop in the mover's chance of winning (its loss).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, EnumCount, EnumIter, strum::IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
pub enum MoveClass {
    /// The engine's own choice, or a loss below 1 point of chance.
    Best,
    Excellent,
    Good,
    Inaccuracy,
    Mistake,
    Blunder,
    /// A forced win was on the board and the move let it go.
    MissedWin,
    /// The move keeps or starts a forced win.
    FoundWin,
}

/// The least loss (in chance of winning, 0 to 1) of each class past best; see docs/review.md
/// for why these.
const EXCELLENT_FROM: f64 = 0.01;
const GOOD_FROM: f64 = 0.03;
pub(super) const INACCURACY_FROM: f64 = 0.06;
pub(super) const MISTAKE_FROM: f64 = 0.12;
const BLUNDER_FROM: f64 = 0.25;

impl MoveClass {
    /// The class of an ordinary move (no forced win before or after) by its loss.
    pub fn of_loss(loss: f64) -> MoveClass {
        match loss {
            loss if loss >= BLUNDER_FROM => MoveClass::Blunder,
            loss if loss >= MISTAKE_FROM => MoveClass::Mistake,
            loss if loss >= INACCURACY_FROM => MoveClass::Inaccuracy,
            loss if loss >= GOOD_FROM => MoveClass::Good,
            loss if loss >= EXCELLENT_FROM => MoveClass::Excellent,
            _ => MoveClass::Best,
        }
    }

    /// A mistake of some size: what an evaluation graph marks.
    pub fn is_error(self) -> bool {
        match self {
            MoveClass::Inaccuracy
            | MoveClass::Mistake
            | MoveClass::Blunder
            | MoveClass::MissedWin => true,
            MoveClass::Best | MoveClass::Excellent | MoveClass::Good | MoveClass::FoundWin => false,
        }
    }

    /// Its name in words: `"missed_win"`.
    pub fn name(self) -> &'static str {
        self.into()
    }
}

/// One move's accuracy, 0 to 100, from its loss: lichess's curve, 100 at no loss,
/// `100 - 103.1668 * (1 - e^(-0.04354 * d))` with `d` the loss in points of percentage.
pub fn move_accuracy(loss: f64) -> f64 {
    let points = 100.0 * loss.max(0.0);
    (100.0 - 103.1668 * (1.0 - (-0.04354 * points).exp())).clamp(0.0, 100.0)
}

/// Moves per class.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClassCounts([u32; MoveClass::COUNT]);

impl ClassCounts {
    pub fn get(&self, class: MoveClass) -> u32 {
        self.0[class as usize]
    }

    /// Every class and its count, in class order.
    pub fn iter(&self) -> impl Iterator<Item = (MoveClass, u32)> + '_ {
        MoveClass::iter().map(|class| (class, self.get(class)))
    }

    pub(super) fn add(&mut self, class: MoveClass) {
        self.0[class as usize] += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_follow_the_loss() {
        assert_eq!(MoveClass::of_loss(0.0), MoveClass::Best);
        assert_eq!(MoveClass::of_loss(EXCELLENT_FROM), MoveClass::Excellent);
        assert_eq!(MoveClass::of_loss(GOOD_FROM), MoveClass::Good);
        assert_eq!(MoveClass::of_loss(INACCURACY_FROM), MoveClass::Inaccuracy);
        assert_eq!(MoveClass::of_loss(MISTAKE_FROM), MoveClass::Mistake);
        assert_eq!(MoveClass::of_loss(0.9), MoveClass::Blunder);
        assert_eq!(MoveClass::MissedWin.name(), "missed_win");
    }

    #[test]
    fn accuracy_is_100_without_loss_and_falls_with_it() {
        assert_eq!(move_accuracy(0.0), 100.0);
        let five = move_accuracy(0.05);
        assert!((five - 79.8).abs() < 0.1, "{five}");
        assert!(move_accuracy(0.3) < move_accuracy(0.2));
        assert_eq!(move_accuracy(1.0), 0.0);
    }
}
