//! Finding the positions of a game worth a proof: the engine searches each
//! within the budget, and a position is a candidate when its line wins the
//! game, or wins material, within the puzzle's length. The search is only a
//! sieve (the proof decides), and it also says how deep the engine had to
//! look before it chose each move, which the rating uses.

use super::goal::{MATERIAL_GAIN, PuzzleGoal};
use crate::rules::{Game, Move, Position};
use crate::search::{Control, Engine, Limits};

/// What the engine's search of one position found.
#[derive(Clone, Debug)]
pub(super) struct Screened {
    /// The goal worth proving here, if any.
    pub goal: Option<PuzzleGoal>,
    /// The engine's choice at each completed depth, depth 1 first.
    pub choices: Vec<Move>,
}

impl Screened {
    /// The depth from which the engine chose `mv` and kept it to its last
    /// completed depth; one past the last when it never settled on it.
    pub fn depth_to_find(&self, mv: Move) -> u32 {
        let kept = self
            .choices
            .iter()
            .rev()
            .take_while(|&&choice| choice == mv)
            .count();
        (self.choices.len() - kept) as u32 + 1
    }
}

/// Searches the game's position within `limits`; `None` when stopped (or
/// the game is over). `solver_moves`: the longest solution looked for.
pub(super) fn screen(
    engine: &Engine,
    game: &Game,
    limits: &Limits,
    solver_moves: u32,
    control: Control<'_>,
) -> Option<Screened> {
    let mut choices = Vec::new();
    let last = engine.analyse(game, limits, 1, control, |update| {
        if let Some(&first) = update.lines.first().and_then(|line| line.pv.first()) {
            choices.push(first);
        }
    })?;
    let line = last.lines.first()?;
    let plies = 2 * solver_moves - 1;
    let goal = if line.score.win_in().is_some_and(|win| win <= plies) {
        Some(PuzzleGoal::win_for(game.position().side_to_move()))
    } else if wins_material(game.position(), &line.pv, plies as usize) {
        Some(PuzzleGoal::WinMaterial)
    } else {
        None
    };
    Some(Screened { goal, choices })
}

/// Does the side to move in `start` come [`MATERIAL_GAIN`] pieces ahead
/// within the first `plies` of `line`, after one of its own moves?
fn wins_material(start: &Position, line: &[Move], plies: usize) -> bool {
    let mut position = *start;
    let mut net = 0;
    for (ply, &mv) in line.iter().take(plies).enumerate() {
        if position.check(mv).is_err() {
            return false;
        }
        let taken = position.play_unchecked(mv).len() as i32;
        let ours = ply % 2 == 0;
        net += if ours { taken } else { -taken };
        if ours && net >= MATERIAL_GAIN {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Square;

    fn mv(from: (u8, u8), to: (u8, u8)) -> Move {
        Move {
            from: Square::new(from.0, from.1).unwrap(),
            to: Square::new(to.0, to.1).unwrap(),
        }
    }

    #[test]
    fn the_depth_to_find_a_move_is_where_the_engine_chose_it_for_good() {
        let (a, b) = (mv((0, 3), (0, 5)), mv((3, 0), (3, 2)));
        let screened = Screened {
            goal: None,
            choices: vec![a, b, a, b, b],
        };
        assert_eq!(screened.depth_to_find(b), 4);
        assert_eq!(screened.depth_to_find(a), 6);
        let at_once = Screened {
            goal: None,
            choices: vec![a, a],
        };
        assert_eq!(at_once.depth_to_find(a), 1);
    }
}
