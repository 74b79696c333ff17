//! Which proven puzzles a game publishes: the same idea once, at its first
//! appearance (docs/puzzles.md, "Selection").

use super::Puzzle;

/// The puzzles in ply order without repeats: a puzzle repeats an earlier
/// one's idea when the same side solves it, its key move is one of the
/// earlier solution's solver moves, and it starts no later than the solver's
/// first turn after that solution would have ended (the same combination a
/// move or two on, played or missed again).
pub(super) fn distinct(found: Vec<Puzzle>) -> Vec<Puzzle> {
    let mut kept: Vec<Puzzle> = Vec::with_capacity(found.len());
    for puzzle in found {
        let repeats = kept.iter().any(|earlier| repeats(&puzzle, earlier));
        if !repeats {
            kept.push(puzzle);
        }
    }
    kept
}

fn repeats(later: &Puzzle, earlier: &Puzzle) -> bool {
    let span_end = earlier.source_ply + earlier.solution.len() + 1;
    let key = later.solution[0].played;
    later.solver == earlier.solver
        && later.source_ply <= span_end
        && earlier
            .solution
            .iter()
            .step_by(2)
            .any(|played| played.played == key)
}
