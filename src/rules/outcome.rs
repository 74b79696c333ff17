//! How a game stands: going on, won (by whom and why) or drawn.

use std::fmt;

use super::bitboard::Bitboard;
use super::position::Position;
use super::side::Side;
use super::square::Square;
use super::variant::Rules;
use super::zobrist::Piece;

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

impl Position {
    /// Judges the game after `mover` brought `piece` to `to`, with the
    /// captures removed and the turn already passed (docs/RULES.md rule 11).
    pub(crate) fn status_after(&mut self, mover: Side, piece: Piece, to: Square) -> Status {
        let geometry = self.geometry();
        let copenhagen = self.variant.rules == Rules::Copenhagen;
        if piece == Piece::King && geometry.corners.contains(to) {
            return Status::Won {
                winner: Side::Defenders,
                reason: EndReason::KingEscaped,
            };
        }
        match mover {
            Side::Attackers => {
                if let Some(king) = self.captured_king(to) {
                    self.toggle_piece(Piece::King, king);
                    return Status::Won {
                        winner: Side::Attackers,
                        reason: EndReason::KingCaptured,
                    };
                }
                if copenhagen && self.defenders_encircled() {
                    return Status::Won {
                        winner: Side::Attackers,
                        reason: EndReason::Encircled,
                    };
                }
            }
            Side::Defenders => {
                if copenhagen && self.king_in_exit_fort() {
                    return Status::Won {
                        winner: Side::Defenders,
                        reason: EndReason::ExitFort,
                    };
                }
            }
        }
        self.no_move_status()
    }

    /// Rule 10 and its Fetlar/Tablut form: what it means that the side to
    /// move has no legal move.
    pub(crate) fn no_move_status(&self) -> Status {
        if self.has_legal_move() {
            return Status::Ongoing;
        }
        let stuck = self.side_to_move;
        let has_pieces = !self.pieces(stuck).is_empty();
        match self.variant.rules {
            Rules::Fetlar | Rules::Tablut if has_pieces => Status::Drawn {
                reason: EndReason::NoMoves,
            },
            _ => Status::Won {
                winner: stuck.opponent(),
                reason: EndReason::NoMoves,
            },
        }
    }

    /// The king's square if the attacker that just arrived on `to` captured
    /// him (rule 5; Tablut's edge-assisted form).
    fn captured_king(&self, to: Square) -> Option<Square> {
        let king = self.king.first()?;
        if !Bitboard::from_square(to).neighbours().contains(king) {
            return None;
        }
        let geometry = self.geometry();
        let around = Bitboard::from_square(king).neighbours() & geometry.board;
        let throne = Bitboard::from_square(geometry.throne);
        let sides = match self.variant.rules {
            Rules::Copenhagen | Rules::Fetlar if geometry.edge.contains(king) => return None,
            // The throne is empty: only the king may stand there.
            Rules::Copenhagen | Rules::Fetlar => self.attackers | throne,
            // Off-board sides count by not being in `around`.
            Rules::Tablut => self.attackers | throne | geometry.corners,
        };
        around.minus(sides).is_empty().then_some(king)
    }

    /// Rule 8: no defender can reach the edge through squares free of attackers.
    fn defenders_encircled(&self) -> bool {
        let geometry = self.geometry();
        let mut region = self.defenders | self.king;
        let passable = geometry.board.minus(self.attackers);
        loop {
            if region.intersects(geometry.edge) {
                return false;
            }
            let grown = region.grow() & passable;
            if grown == region {
                return true;
            }
            region = grown;
        }
    }

    /// Rule 7: the king on the edge, able to move, in a space no attacker
    /// touches, walled by defenders the attackers can never break.
    fn king_in_exit_fort(&self) -> bool {
        let geometry = self.geometry();
        let Some(king) = self.king.first() else {
            return false;
        };
        if !geometry.edge.contains(king) {
            return false;
        }
        let empty = geometry.board.minus(self.occupied());
        let space = self.king.neighbours().flood(empty);
        if space.is_empty() {
            return false;
        }
        let fort = space | self.king;
        let touching = fort.neighbours() & geometry.board;
        if touching.intersects(self.attackers) {
            return false;
        }
        let mut safe = self.defenders;
        loop {
            let threats = geometry.board.minus(fort | safe);
            let pinched = (threats.east() & threats.west()) | (threats.north() & threats.south());
            let broken = safe & pinched;
            if broken.is_empty() {
                break;
            }
            safe = safe.minus(broken);
        }
        (touching & self.defenders).minus(safe).is_empty()
    }
}
