//! A puzzle's rating: an estimate of its difficulty on an Elo-like scale,
//! from what makes a tactic hard to see (docs/puzzles.md, "Rating"). It is a
//! starting point: a site adjusts each puzzle's rating with its players'
//! results (Glicko, as chess sites do), as a player's is adjusted.

use super::themes::threatens_nothing;
use crate::rules::Position;

/// What the rating is made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Difficulty {
    /// Solver moves in the solution.
    pub solver_moves: u32,
    /// The solver's plausible moves at the start ([`plausible_moves`]).
    pub plausible: u32,
    /// The depth from which the engine's iterative deepening chose the key
    /// move and kept it.
    pub depth_to_find: u32,
    /// A solver move of the solution gives material.
    pub sacrifice: bool,
    /// The key move takes nothing and threatens nothing at once.
    pub quiet: bool,
}

/// The rating of the easiest puzzle: one move, the only plausible one, seen at depth 1.
const BASE: f64 = 600.0;
/// Each solver move past the first.
const PER_SOLVER_MOVE: f64 = 250.0;
/// Each doubling of the plausible moves (a choice among 16 adds 600).
const PER_DOUBLING_OF_CHOICES: f64 = 150.0;
/// Each ply more the engine needed before it settled on the key move.
const PER_PLY_TO_FIND: f64 = 60.0;
/// A sacrifice, or a quiet key move: what players overlook most.
const SACRIFICE: f64 = 150.0;
const QUIET: f64 = 150.0;
/// The scale's ends.
const LOWEST: f64 = 400.0;
const HIGHEST: f64 = 3000.0;

/// `600 + 250 (moves - 1) + 150 log2(plausible) + 60 (depth - 1) + 150
/// sacrifice + 150 quiet`, rounded to 10 and kept within 400..=3000.
pub(super) fn rating(difficulty: Difficulty) -> u32 {
    let rating = BASE
        + PER_SOLVER_MOVE * f64::from(difficulty.solver_moves.saturating_sub(1))
        + PER_DOUBLING_OF_CHOICES * f64::from(difficulty.plausible.max(1)).log2()
        + PER_PLY_TO_FIND * f64::from(difficulty.depth_to_find.saturating_sub(1))
        + if difficulty.sacrifice { SACRIFICE } else { 0.0 }
        + if difficulty.quiet { QUIET } else { 0.0 };
    ((rating.clamp(LOWEST, HIGHEST) / 10.0).round() * 10.0) as u32
}

/// The moves a player would look at first: those that end the game, take
/// a piece, move the king, or threaten at once (a win, or a capture that was
/// not there before, were the mover to move again).
pub(super) fn plausible_moves(position: &Position) -> u32 {
    let king = position.king();
    position
        .legal_moves()
        .iter()
        .filter(|&&mv| {
            let mut after = *position;
            let captures = after.play_unchecked(mv);
            Some(mv.from) == king
                || !captures.is_empty()
                || after.status().is_over()
                || !threatens_nothing(position, &after.passed())
        })
        .count() as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn difficulty(solver_moves: u32, plausible: u32, depth_to_find: u32) -> Difficulty {
        Difficulty {
            solver_moves,
            plausible,
            depth_to_find,
            sacrifice: false,
            quiet: false,
        }
    }

    #[test]
    fn the_formula_as_documented() {
        assert_eq!(rating(difficulty(1, 1, 1)), 600);
        // 600 + 250 + 150 * 4 + 60 * 2 = 1570.
        assert_eq!(rating(difficulty(2, 16, 3)), 1570);
        let hard = Difficulty {
            sacrifice: true,
            quiet: true,
            ..difficulty(2, 16, 3)
        };
        assert_eq!(rating(hard), 1870);
        assert_eq!(rating(difficulty(4, 400, 30)), 3000);
    }

    #[test]
    fn harder_in_every_input() {
        let base = rating(difficulty(2, 8, 2));
        assert!(rating(difficulty(3, 8, 2)) > base);
        assert!(rating(difficulty(2, 9, 2)) > base);
        assert!(rating(difficulty(2, 8, 3)) > base);
    }
}
