//! Builds of the hot routines for newer x86-64 CPUs, chosen at run time, so
//! the crate builds for any x86-64 (no `-C target-cpu`) and runs on it: the
//! one module of the crate that uses `unsafe`, to call a function compiled
//! for CPU features after checking that this CPU has them.
//!
//! The builds: x86-64-v3 (AVX2 for the 256-bit bitboards and the evaluation
//! network's rows of sixteen `i16`, BMI and LZCNT for the line scans, POPCNT)
//! and, for perft's bulk count, v3 with the AVX-512 vector population count.
//! Every other CPU runs the portable code.

#![allow(unsafe_code)]

use super::perft_step::perft_portable;
use super::position::Position;

/// A routine worth a build of its own: all of its work is inlined into
/// [`Routine::run`], so a build compiled for newer CPU features compiles
/// all of it that way.
pub(crate) trait Routine {
    /// What the routine gives back.
    type Output;

    /// Does the work; implementations mark it `#[inline(always)]`.
    fn run(self) -> Self::Output;
}

/// Runs `routine` in the fastest build this CPU runs.
#[inline]
pub(crate) fn run<R: Routine>(routine: R) -> R::Output {
    #[cfg(target_arch = "x86_64")]
    if x86_64::has_v3() {
        // SAFETY: the CPU has every feature `run_v3` is compiled for.
        return unsafe { x86_64::run_v3(routine) };
    }
    routine.run()
}

/// Perft in the fastest build this CPU runs. The recursion stays in its
/// build, so each build is a function of its own rather than a [`Routine`].
pub(crate) fn perft(position: &Position, depth: u32) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if x86_64::has_v3() {
        if x86_64::has_vector_popcount() {
            // SAFETY: the CPU has every feature `perft_v4` is compiled for.
            return unsafe { x86_64::perft_v4(position, depth) };
        }
        // SAFETY: the CPU has every feature `perft_v3` is compiled for.
        return unsafe { x86_64::perft_v3(position, depth) };
    }
    perft_portable(position, depth)
}

#[cfg(target_arch = "x86_64")]
mod x86_64 {
    use super::super::perft_step::perft_step;
    use super::{Position, Routine};

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
    pub(super) fn run_v3<R: Routine>(routine: R) -> R::Output {
        routine.run()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{BoardSize, Game, Rules, Variant};

    /// Every build this CPU runs counts as the portable one does, on all
    /// nine variants, so the fallback is tested on any machine.
    #[test]
    fn every_perft_build_matches_the_portable_one() {
        for rules in Rules::ALL {
            for size in BoardSize::ALL {
                let start = Position::start(Variant::new(rules, size));
                let expected = perft_portable(&start, 3);
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
                assert_eq!(perft(&start, 3), expected);
            }
        }
    }

    /// Real games replayed by the v3 build (where this CPU has one) and by
    /// the portable one end in the same positions with the same refusals
    /// (each game's moves, then a move after its end).
    #[test]
    fn every_replay_build_matches_the_portable_one() {
        let games = include_str!("../../tests/data/copenhagen-games.csv");
        for line in games.lines().take(300) {
            let mut moves: Vec<&str> = line.split(',').next().unwrap().split_whitespace().collect();
            moves.push("a4-a3");
            let mut portable = Game::new(Variant::standard(Rules::Copenhagen));
            let refused = portable.replay_routine(moves.iter().copied()).run();
            #[cfg(target_arch = "x86_64")]
            if x86_64::has_v3() {
                let mut game = Game::new(Variant::standard(Rules::Copenhagen));
                // SAFETY: checked just above.
                let v3 = unsafe { x86_64::run_v3(game.replay_routine(moves.iter().copied())) };
                assert_eq!(v3, refused, "{line}");
                assert!(
                    game.position().same_placement(portable.position()),
                    "{line}"
                );
                assert_eq!(game.status(), portable.status(), "{line}");
                assert_eq!(game.repetitions(), portable.repetitions(), "{line}");
            }
        }
    }
}
