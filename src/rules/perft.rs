//! Perft: the number of move paths of a given length, the standard check
//! of a move generator.

use super::cpu;
use super::moves::Move;
use super::position::Position;

/// How many sequences of `depth` legal moves start from `position`.
///
/// Positions where the game has ended have no moves. Repetition is not
/// seen: a position has no history. The last ply is counted, not played.
///
/// ```
/// use tafl::rules::{perft, Position, Rules, Variant};
/// let start = Position::start(Variant::standard(Rules::Copenhagen));
/// assert_eq!(perft(&start, 2), 6_788);
/// ```
#[must_use]
pub fn perft(position: &Position, depth: u32) -> u64 {
    cpu::perft(position, depth)
}

/// Perft split by first move, in move order (by from, then to square).
#[must_use]
pub fn divide(position: &Position, depth: u32) -> Vec<(Move, u64)> {
    let mut moves = position.legal_moves();
    moves.sort_unstable_by_key(|mv| (mv.from, mv.to));
    moves
        .iter()
        .map(|&mv| {
            let mut child = *position;
            child.play_unchecked(mv);
            (mv, perft(&child, depth.saturating_sub(1)))
        })
        .collect()
}
