//! The arbiter: the rules of Copenhagen Hnefatafl, Fetlar Hnefatafl and
//! Standard Tablut on 9×9, 11×11 and 13×13 boards, exactly as docs/RULES.md
//! states them. Knows nothing of gRPC or search.
//!
//! Three layers of trust: text ([`MoveText`], [`PositionText`]) is checked
//! for syntax alone; a setup becomes a [`Position`] once the rules accept it;
//! a [`Move`] is played once the position accepts it. A [`Game`] adds the
//! history that repetition needs.

mod bitboard;
mod board_size;
mod capture;
pub(crate) mod cpu;
mod game;
mod hash_index;
mod movegen;
mod moves;
mod notation;
mod outcome;
mod perft;
mod perft_step;
mod piece;
mod position;
mod quiet;
#[cfg(test)]
mod random_walk;
mod side;
mod square;
mod status;
mod variant;
mod zobrist;

pub use bitboard::Bitboard;
pub use board_size::BoardSize;
pub use game::{Game, GameError, GameErrorKind, LookAhead, PlayedMove};
pub use moves::{MAX_MOVES, Move, MoveList};
pub use notation::{MoveText, ParseMoveError, ParsePositionError, PositionText};
pub use perft::{divide, perft};
pub use piece::Piece;
pub(crate) use position::PASS_HASH;
pub use position::{MoveOutcome, PlayError, Position, PositionError};
#[cfg(test)]
pub(crate) use random_walk::random_walk;
pub use side::{BySide, Side};
pub use square::{MAX_BOARD_SIZE, ParseSquareError, Square, SquareName};
pub use status::{EndReason, Status};
pub use variant::{ParseRulesError, Rules, Variant};
pub(crate) use zobrist::splitmix;
