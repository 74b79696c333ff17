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
    if let Some(count) = cpu::perft(position, depth) {
        return count;
    }
    perft_portable(position, depth)
}

/// Perft for any CPU: the fallback when the faster build cannot run.
pub(super) fn perft_portable(position: &Position, depth: u32) -> u64 {
    perft_step(position, depth, perft_portable)
}

/// One node of perft, with the recursion handed in so that each build
/// inlines it all under its own target features.
#[inline(always)]
pub(super) fn perft_step(
    position: &Position,
    depth: u32,
    recurse: impl Fn(&Position, u32) -> u64,
) -> u64 {
    match depth {
        0 => 1,
        1 => position.count_legal_moves(),
        _ => position
            .legal_moves()
            .iter()
            .map(|&mv| {
                let mut child = *position;
                if depth == 2 {
                    child.play_to_count(mv);
                } else {
                    child.play_unchecked(mv);
                }
                recurse(&child, depth - 1)
            })
            .sum(),
    }
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
