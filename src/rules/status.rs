//! How a game stands: going on, won (by whom and why) or drawn.

use std::fmt;

use super::side::Side;

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// The king reached a corner.
    KingEscaped,
    /// The king stands in an unbreakable fort on the edge (Copenhagen).
    ExitFort,
    /// The attackers surrounded the king.
    KingCaptured,
    /// The attackers sealed every defender away from the edge (Copenhagen).
    Encircled,
    /// The side to move had no legal move.
    NoMoves,
    /// A position stood for the third time.
    Repetition,
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EndReason::KingEscaped => "the king escaped",
            EndReason::ExitFort => "exit fort",
            EndReason::KingCaptured => "the king was captured",
            EndReason::Encircled => "the defenders are encircled",
            EndReason::NoMoves => "no legal move",
            EndReason::Repetition => "the position stood for the third time",
        })
    }
}

/// Whether the game goes on, and if not, how it ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Status {
    /// The game goes on.
    #[default]
    Ongoing,
    /// `winner` won.
    Won {
        /// The side that won.
        winner: Side,
        /// How.
        reason: EndReason,
    },
    /// Nobody won.
    Drawn {
        /// How.
        reason: EndReason,
    },
}

impl Status {
    /// Whether the game has ended.
    #[must_use]
    pub const fn is_over(self) -> bool {
        !matches!(self, Status::Ongoing)
    }

    /// Why the game ended, if it has.
    #[must_use]
    pub const fn reason(self) -> Option<EndReason> {
        match self {
            Status::Ongoing => None,
            Status::Won { reason, .. } | Status::Drawn { reason } => Some(reason),
        }
    }

    /// The winner, if there is one.
    #[must_use]
    pub const fn winner(self) -> Option<Side> {
        match self {
            Status::Won { winner, .. } => Some(winner),
            _ => None,
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Status::Ongoing => f.write_str("ongoing"),
            Status::Won { winner, reason } => write!(f, "{winner} win: {reason}"),
            Status::Drawn { reason } => write!(f, "draw: {reason}"),
        }
    }
}
