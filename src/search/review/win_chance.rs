//! The win-chance model: scores to chances of winning, and a move's class
//! and loss from the chances before and after it.

use super::classes::MoveClass;
use crate::rules::{BySide, Side};
use crate::search::params::EVAL_LIMIT;
use crate::search::score::Score;

/// The chance that the side to move wins, from a score: `1 / (1 + e^-(slope * s + intercept))`
/// with `s` the score in attackers (hundredths), one curve for each side to move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Logistic {
    pub slope: f64,
    pub intercept: f64,
}

impl Logistic {
    /// The chance at a score of `pawns` attackers.
    pub fn chance(self, pawns: f64) -> f64 {
        1.0 / (1.0 + (-(self.slope * pawns + self.intercept)).exp())
    }

    /// The score (in attackers) at which the chance is `chance`.
    fn pawns_at(self, chance: f64) -> f64 {
        ((chance / (1.0 - chance)).ln() - self.intercept) / self.slope
    }
}

/// Scores to chances of winning: a curve for each side to move (the attackers win 44% of the
/// real games, so the same score is worth more to the defenders). Forced wins and losses are
/// certain.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WinChanceModel {
    pub curves: BySide<Logistic>,
}

/// Scores beyond this many attackers are read as this many: the static evaluation's own bound.
const MAX_PAWNS: f64 = EVAL_LIMIT as f64 / 100.0;

impl WinChanceModel {
    /// Fitted on the 1,752 real Copenhagen 11×11 games (tests/data/copenhagen-games.csv) by
    /// `tafl fit-win-chance --games tests/data/copenhagen-games.csv --seed 1`: the calibration
    /// on the held-out half is in docs/review.md. Used for every variant (the others have no
    /// real games to fit on).
    pub const FITTED: WinChanceModel = WinChanceModel {
        curves: BySide {
            attackers: Logistic {
                slope: 0.2451,
                intercept: -1.4087,
            },
            defenders: Logistic {
                slope: 0.2445,
                intercept: 1.2703,
            },
        },
    };

    /// The chance, 0 to 1, that the side to move wins with `score` (its own view).
    pub fn chance(&self, score: Score, side_to_move: Side) -> f64 {
        if score.win_in().is_some() {
            return 1.0;
        }
        if score.loss_in().is_some() {
            return 0.0;
        }
        let pawns = (f64::from(score.as_i32()) / 100.0).clamp(-MAX_PAWNS, MAX_PAWNS);
        self.curves[side_to_move].chance(pawns)
    }

    /// A move's class and loss from the scores before it (best play) and after it, both from
    /// the view of `mover`; `engine_choice`: it is the move the engine chose. A move that keeps
    /// or starts a forced win, and the engine's choice, lose nothing; else the loss is the drop
    /// in the mover's chance (at least 0), and a move after which a forced win on the board is
    /// gone is a missed win.
    pub fn judge(
        &self,
        mover: Side,
        score_before: Score,
        score_after: Score,
        engine_choice: bool,
    ) -> (MoveClass, f64) {
        let won_before = score_before.win_in().is_some();
        if score_after.win_in().is_some() || (engine_choice && won_before) {
            return (MoveClass::FoundWin, 0.0);
        }
        if engine_choice {
            return (MoveClass::Best, 0.0);
        }
        let loss = (self.chance(score_before, mover) - self.chance(score_after, mover)).max(0.0);
        if won_before {
            (MoveClass::MissedWin, loss)
        } else {
            (MoveClass::of_loss(loss), loss)
        }
    }

    /// The lowest score (side to move's view) whose chance is at least `chance`; `None` when
    /// every score short of a forced loss has it.
    pub(super) fn score_at(&self, chance: f64, side_to_move: Side) -> Option<i32> {
        let curve = self.curves[side_to_move];
        if chance <= curve.chance(-MAX_PAWNS) {
            return None;
        }
        let pawns = curve.pawns_at(chance.min(curve.chance(MAX_PAWNS)));
        Some((pawns * 100.0).ceil() as i32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forced_results_are_certain_and_scores_in_between_are_not() {
        let model = WinChanceModel::FITTED;
        for side in [Side::Attackers, Side::Defenders] {
            assert_eq!(model.chance(Score::new(999_990), side), 1.0);
            assert_eq!(model.chance(Score::new(-999_990), side), 0.0);
            let even = model.chance(Score::new(0), side);
            assert!(0.0 < even && even < 1.0);
            assert!(model.chance(Score::new(300), side) > even);
            // The score found for a chance has at least that chance, and a point less has not.
            let target = even + 0.1;
            let score = model.score_at(target, side).expect("reachable");
            assert!(model.chance(Score::new(score), side) >= target - 1e-12);
            assert!(model.chance(Score::new(score - 1), side) < target);
        }
    }
}
