//! Perft's recursion, generic over the build that runs it: the code every
//! build of perft in `cpu.rs` compiles, and the portable count beside them.

use super::position::Position;

/// Perft for any CPU: the fallback when no faster build can run.
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
