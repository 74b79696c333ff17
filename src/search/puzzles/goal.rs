//! What a puzzle's solver must reach, and whether a position after one of
//! its moves has reached it (docs/puzzles.md, "Goals").
//!
//! A puzzle starts from a bare position (its text carries no history), so
//! repetition never decides one: no line of a few moves can bring a position
//! back three times from a start that has stood once.

use crate::rules::{Position, Side, Status};

/// Pieces the solver must be ahead by, since the puzzle's start, for
/// [`PuzzleGoal::WinMaterial`]: one piece is an exchange a player makes every
/// few moves, two are a tactic.
pub const MATERIAL_GAIN: i32 = 2;

/// What the solver reaches by force.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, strum::IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
pub enum PuzzleGoal {
    /// The defenders win the game: the king reaches a corner or an exit fort
    /// (or, rarely, the attackers are left without a move).
    KingEscapes,
    /// The attackers win the game: the king is taken (or, rarely, the
    /// defenders are left without a move or encircled).
    KingCaptured,
    /// The solver ends up [`MATERIAL_GAIN`] pieces ahead, counted after the
    /// opponent's best reply to its last move (or it wins the game).
    WinMaterial,
}

impl PuzzleGoal {
    /// The goal of winning the game, for `solver`.
    pub fn win_for(solver: Side) -> PuzzleGoal {
        match solver {
            Side::Attackers => PuzzleGoal::KingCaptured,
            Side::Defenders => PuzzleGoal::KingEscapes,
        }
    }

    /// Its name in words: `"king_escapes"`.
    pub fn name(self) -> &'static str {
        self.into()
    }
}

/// A goal as one side pursues it: what the proof asks after each of the
/// solver's moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Aim {
    pub goal: PuzzleGoal,
    pub solver: Side,
}

impl Aim {
    /// Has the solver's move that led to `after` reached the goal, `net` being
    /// the pieces it has taken less those it has lost since the start?
    pub fn reached(self, after: &Position, net: i32) -> bool {
        match after.status() {
            Status::Won { winner, .. } => winner == self.solver,
            Status::Drawn { .. } => false,
            Status::Ongoing => self.goal == PuzzleGoal::WinMaterial && self.gain_holds(after, net),
        }
    }

    /// At least [`MATERIAL_GAIN`] ahead whatever the opponent (to move in
    /// `after`) replies: no reply ends the game against the solver or takes
    /// back enough to bring the gain under it.
    fn gain_holds(self, after: &Position, net: i32) -> bool {
        if net < MATERIAL_GAIN {
            return false;
        }
        after.legal_moves().iter().all(|&reply| {
            let mut replied = *after;
            let retaken = replied.play_unchecked(reply).len() as i32;
            let ends_against =
                replied.status().is_over() && replied.status().winner() != Some(self.solver);
            !ends_against && net - retaken >= MATERIAL_GAIN
        })
    }
}
