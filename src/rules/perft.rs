//! Perft: the number of move paths of a given length, the standard check
//! of a move generator.

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
    #[cfg(target_arch = "x86_64")]
    if let Some(count) = x86_64::perft(position, depth) {
        return count;
    }
    perft_portable(position, depth)
}

/// Perft for any CPU: the fallback when the faster build cannot run.
fn perft_portable(position: &Position, depth: u32) -> u64 {
    perft_step(position, depth, perft_portable)
}

/// Perft compiled for newer x86-64 CPUs, whose population count
/// instruction and vector units the bulk count at the last ply leans on:
/// x86-64-v3 (AVX2, BMI) and, where there is one, a vector population count
/// (AVX-512 VPOPCNTDQ). Chosen at run time, so the crate builds for any
/// x86-64 and runs on it.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod x86_64 {
    use super::{Position, perft_step};

    /// Perft by the fastest build this CPU runs; `None` if it runs neither.
    pub(super) fn perft(position: &Position, depth: u32) -> Option<u64> {
        if !has_v3() {
            return None;
        }
        if has_vector_popcount() {
            // SAFETY: the CPU has every feature `perft_v4` is compiled for.
            return Some(unsafe { perft_v4(position, depth) });
        }
        // SAFETY: the CPU has every feature `perft_v3` is compiled for.
        Some(unsafe { perft_v3(position, depth) })
    }

    pub(super) fn has_v3() -> bool {
        std::arch::is_x86_feature_detected!("popcnt")
            && std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("bmi1")
            && std::arch::is_x86_feature_detected!("bmi2")
            && std::arch::is_x86_feature_detected!("lzcnt")
    }

    pub(super) fn has_vector_popcount() -> bool {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512vl")
            && std::arch::is_x86_feature_detected!("avx512vpopcntdq")
    }

    #[target_feature(enable = "popcnt,avx2,bmi1,bmi2,lzcnt")]
    pub(super) fn perft_v3(position: &Position, depth: u32) -> u64 {
        perft_step(position, depth, |child, depth| perft_v3(child, depth))
    }

    #[target_feature(enable = "popcnt,avx2,bmi1,bmi2,lzcnt,avx512f,avx512vl,avx512vpopcntdq")]
    pub(super) fn perft_v4(position: &Position, depth: u32) -> u64 {
        perft_step(position, depth, |child, depth| perft_v4(child, depth))
    }
}

/// One node of perft, with the recursion handed in so that each build
/// inlines it all under its own target features.
#[inline(always)]
fn perft_step(position: &Position, depth: u32, recurse: impl Fn(&Position, u32) -> u64) -> u64 {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{BoardSize, Rules, Variant};

    /// Every build this CPU runs counts as the portable one does, on all
    /// nine variants, so the fallback is tested on any machine.
    #[test]
    #[allow(unsafe_code)]
    fn every_build_matches_the_portable_one() {
        for rules in Rules::ALL {
            for size in BoardSize::ALL {
                let start = Position::start(Variant::new(rules, size));
                let expected = perft_portable(&start, 3);
                assert_eq!(perft(&start, 3), expected, "{rules} {size}");
                #[cfg(target_arch = "x86_64")]
                if x86_64::has_v3() {
                    // SAFETY: checked just above.
                    let v3 = unsafe { x86_64::perft_v3(&start, 3) };
                    assert_eq!(v3, expected, "{rules} {size}");
                    if x86_64::has_vector_popcount() {
                        // SAFETY: checked just above.
                        let v4 = unsafe { x86_64::perft_v4(&start, 3) };
                        assert_eq!(v4, expected, "{rules} {size}");
                    }
                }
            }
        }
    }
}
