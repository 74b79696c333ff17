//! What every search and evaluation reports: a score from the side to move's view.

use std::fmt;

use super::params::{WIN, WIN_BOUND};

/// A search score from the side to move's view: a win `n` plies ahead is
/// `1_000_000 - n`, a loss `-(1_000_000 - n)`, a draw 0; others stay within
/// ±900,000.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Score(i32);

impl Score {
    /// A game won now, for the winner (lost: its negation).
    pub const WON: Score = Score(WIN);

    pub const fn new(score: i32) -> Score {
        Score(score)
    }

    pub const fn as_i32(self) -> i32 {
        self.0
    }

    /// Plies to a forced win, if one was found.
    pub fn win_in(self) -> Option<u32> {
        (self.0 >= WIN_BOUND).then(|| (WIN - self.0) as u32)
    }

    /// Plies to a forced loss, if one was found.
    pub fn loss_in(self) -> Option<u32> {
        (self.0 <= -WIN_BOUND).then(|| (WIN + self.0) as u32)
    }
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(plies) = self.win_in() {
            write!(f, "win in {plies}")
        } else if let Some(plies) = self.loss_in() {
            write!(f, "loss in {plies}")
        } else {
            write!(f, "{}", self.0)
        }
    }
}
