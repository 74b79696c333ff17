//! Puzzles mined from a game: positions where one sequence reaches a goal
//! by force, each proven (docs/puzzles.md).
//!
//! Every position before a played move is searched by the engine within the
//! budget (`candidates.rs`); where its line wins the game or material within
//! the puzzle's length, an exhaustive proof (`proof.rs`) finds the fewest
//! solver moves that force the goal (`goal.rs`), checks that each solver
//! move is the only one that does so as fast (any at the last), and takes
//! the opponent's longest resistance. The puzzle's themes are read off its
//! solution (`themes.rs`), its rating from what makes it hard (`rating.rs`),
//! and the game keeps one puzzle per idea (`selection.rs`).
//!
//! Nothing here is random and every table is fresh for each position, so a
//! game mined with a node (or depth) budget gives the same puzzles every
//! time; a time budget or the deadline may not.

mod candidates;
mod goal;
mod proof;
mod rating;
mod selection;
mod themes;

use std::sync::atomic::Ordering;
use std::time::Instant;

use self::candidates::screen;
use self::goal::Aim;
use self::proof::{Cut, Prover};
use self::rating::{Difficulty, plausible_moves, rating};
use super::{Control, Engine, Limits};
use crate::rules::{Game, GameError, Move, PlayedMove, Position, Side};

pub use self::goal::{MATERIAL_GAIN, PuzzleGoal};
pub use self::proof::MAX_SOLVER_MOVES;
pub use self::themes::Theme;

/// Positions the engine searches in each position of a game when the budget
/// names no bound (node-bound, so the puzzles are the same every time).
pub const DEFAULT_PUZZLE_NODES: u64 = 5_000;

/// The longest solution looked for when none is asked, in solver moves.
pub const DEFAULT_SOLVER_MOVES: u32 = 3;

/// Positions one candidate's proof may play before it is given up.
const PROOF_NODES: u64 = 4_000_000;

/// A position from a game where one sequence reaches a goal by force.
#[derive(Clone, Debug)]
pub struct Puzzle {
    /// The position before the solver's first move (its variant, its side to move).
    pub start: Position,
    /// Index into the game's moves of the move played in this position.
    pub source_ply: usize,
    pub solver: Side,
    /// Solver first, the sides alternating; the last solver move reaches the goal.
    pub solution: Vec<PlayedMove>,
    pub goal: PuzzleGoal,
    /// In [`Theme`] order.
    pub themes: Vec<Theme>,
    /// Estimated difficulty on an Elo-like scale (docs/puzzles.md, "Rating").
    pub rating: u32,
    /// The player to move played the solution's first move in the game.
    pub found_in_game: bool,
}

/// What mining one game found.
#[derive(Clone, Debug, Default)]
pub struct MinedPuzzles {
    /// In ply order.
    pub puzzles: Vec<Puzzle>,
    /// Stopped (the flag or the deadline) before every position was mined.
    pub partial: bool,
    /// Positions mined to the end.
    pub positions: usize,
}

/// What mining spends on each position.
#[derive(Clone, Debug)]
pub struct PuzzleBudget {
    /// The engine's search of each position.
    limits: Limits,
    /// The longest solution, in solver moves.
    solver_moves: u32,
}

impl PuzzleBudget {
    /// `requested` for each position's search ([`DEFAULT_PUZZLE_NODES`] when it
    /// names no bound; its deadline bounds the whole game), solutions of up
    /// to `solver_moves` (0: [`DEFAULT_SOLVER_MOVES`]; at most [`MAX_SOLVER_MOVES`]).
    pub fn new(requested: &Limits, solver_moves: u32) -> PuzzleBudget {
        let mut limits = requested.clone();
        if limits.is_unbounded() {
            limits.max_nodes = Some(DEFAULT_PUZZLE_NODES);
        }
        let solver_moves = match solver_moves {
            0 => DEFAULT_SOLVER_MOVES,
            moves => moves.min(MAX_SOLVER_MOVES),
        };
        PuzzleBudget {
            limits,
            solver_moves,
        }
    }

    /// The same budget with at most `cap` nodes a search.
    #[must_use]
    pub fn at_most_nodes(mut self, cap: u64) -> PuzzleBudget {
        self.limits.max_nodes = Some(self.limits.max_nodes.map_or(cap, |nodes| nodes.min(cap)));
        self
    }

    /// Each position's search.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The longest solution looked for, in solver moves.
    pub fn solver_moves(&self) -> u32 {
        self.solver_moves
    }
}

/// The mining was stopped.
struct Stopped;

/// The puzzles of the game `plies` play from `start` (every position before
/// one of them), until `stop` is set or the budget's deadline passes (then
/// partial, with the puzzles of the positions mined to the end).
///
/// # Errors
/// The first ply the rules refuse.
pub fn find_puzzles(
    engine: &Engine,
    start: &Game,
    plies: &[Move],
    budget: &PuzzleBudget,
    control: Control<'_>,
) -> Result<MinedPuzzles, GameError> {
    let mut game = start.clone();
    let mut found = Vec::new();
    let mut mined = MinedPuzzles::default();
    for (index, &played) in plies.iter().enumerate() {
        match mine_position(engine, &game, index, played, budget, control) {
            Ok(puzzle) => found.extend(puzzle),
            Err(Stopped) => {
                mined.partial = true;
                break;
            }
        }
        mined.positions += 1;
        game.play_move(played)?;
    }
    mined.puzzles = selection::distinct(found);
    Ok(mined)
}

/// The puzzle of the game's position, where `played` (ply `index`) was
/// played, if it makes one.
fn mine_position(
    engine: &Engine,
    game: &Game,
    index: usize,
    played: Move,
    budget: &PuzzleBudget,
    control: Control<'_>,
) -> Result<Option<Puzzle>, Stopped> {
    let deadline = budget.limits.deadline;
    let stopped = || {
        control.stop.load(Ordering::Relaxed) || deadline.is_some_and(|end| Instant::now() >= end)
    };
    let screened = screen(engine, game, &budget.limits, budget.solver_moves, control);
    if stopped() {
        return Err(Stopped);
    }
    let Some(screened) = screened else {
        return Ok(None);
    };
    let Some(goal) = screened.goal else {
        return Ok(None);
    };
    let start = *game.position();
    let solver = start.side_to_move();
    let mut prover = Prover::new(Aim { goal, solver }, PROOF_NODES, control, deadline);
    let solution = match prove(&mut prover, &start, budget.solver_moves) {
        Ok(Some(solution)) => solution,
        Ok(None) | Err(Cut::OutOfNodes) => return Ok(None),
        Err(Cut::Stopped) => return Err(Stopped),
    };
    let key = solution[0];
    // Not trivial: a goal reached in one move is a puzzle only where the player missed it.
    if solution.len() == 1 && reaches_at_once(&prover, &start, played) {
        return Ok(None);
    }
    let themes = themes::themes(&start, &solution);
    let difficulty = Difficulty {
        solver_moves: solution.len().div_ceil(2) as u32,
        plausible: plausible_moves(&start),
        depth_to_find: screened.depth_to_find(key),
        sacrifice: themes.contains(&Theme::Sacrifice),
        quiet: themes.contains(&Theme::QuietMove),
    };
    let mut replay = Game::from_position(start);
    let solution = solution
        .iter()
        .map(|&mv| replay.play_move(mv))
        .collect::<Result<Vec<_>, _>>()
        .expect("a proven solution is legal");
    Ok(Some(Puzzle {
        start,
        source_ply: index,
        solver,
        solution,
        goal,
        themes,
        rating: rating(difficulty),
        found_in_game: played == key,
    }))
}

/// The solution of the fewest solver moves, if it is unique.
fn prove(prover: &mut Prover<'_>, start: &Position, max: u32) -> Result<Option<Vec<Move>>, Cut> {
    match prover.shortest(start, 0, max)? {
        Some(moves) => prover.line(start, 0, moves),
        None => Ok(None),
    }
}

/// Does `mv` reach the prover's goal from `start` at once?
fn reaches_at_once(prover: &Prover<'_>, start: &Position, mv: Move) -> bool {
    let mut after = *start;
    let taken = after.play_unchecked(mv).len() as i32;
    prover.aim().reached(&after, taken)
}
