//! The AI: iterative-deepening PVS over the rules engine, with a tafl
//! evaluation, a transposition table, move ordering, limits and strength
//! levels.
//!
//! ```no_run
//! use tafl::rules::{Game, Rules, Variant};
//! use tafl::search::{Engine, EngineConfig, Level, Limits};
//! use std::time::Duration;
//!
//! let engine = Engine::new(EngineConfig { hash_mb: 16, ..EngineConfig::default() });
//! let game = Game::new(Variant::standard(Rules::Copenhagen));
//! let limits = Limits { max_time: Some(Duration::from_millis(100)), ..Limits::default() };
//! let report = engine.search(&game, &limits, Level::STRONGEST, 0).expect("no deadline given");
//! println!("{} scores {}", report.best_move, report.score.as_i32());
//! ```
//!
//! Files: this one (the engine, its configuration and reports, and the one
//! place a search is set up), `alphabeta.rs` (the search), `tt.rs` (the
//! table, and how it is shared), `ordering.rs` (move ordering and the
//! history), `limits.rs` (what bounds a search), `levels.rs` (what each
//! level does), `params.rs` (every tunable number of the search),
//! `analysis.rs` (multi-line analysis, one report per depth), `threats.rs`
//! (the tactical picture: wins, threats, captures), `review.rs` (a whole
//! game judged ply by ply, and the win-chance model), `puzzles/` (tactics
//! mined from a game, each proven); and the evaluation in
//! `eval/`: `eval/classic/` (the hand-set terms, their weights, the mailbox)
//! and `eval/nnue/` (the network: features, weights, accumulator, file
//! format), and `eval/cache.rs` (the latest scores, by hash). What grows
//! and measures the engine (self-play data, training, tuning, matches, the
//! bench positions) is `crate::lab`, which this module never uses.

mod alphabeta;
mod analysis;
pub(crate) mod eval;
mod levels;
mod limits;
mod ordering;
pub(crate) mod params;
mod puzzles;
mod review;
mod threats;
mod tt;

use std::fmt;
use std::sync::Mutex;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

pub use analysis::{AnalysisLine, AnalysisUpdate, MAX_LINES};
pub use eval::classic::{Term, Weights, WeightsError, evaluate};
pub use eval::nnue::{
    FeatureSet, Network, NetworkError, NetworkFileError, NetworkFileErrorKind, Networks, Provenance,
};
pub use levels::Level;
pub use limits::Limits;
pub use puzzles::{
    DEFAULT_PUZZLE_NODES, DEFAULT_SOLVER_MOVES, MATERIAL_GAIN, MAX_SOLVER_MOVES, MinedPuzzles,
    PROOF_NODES, Puzzle, PuzzleBudget, PuzzleGoal, Theme, find_puzzles,
};
pub use review::{
    ClassCounts, DEFAULT_REVIEW_NODES, Logistic, MoveClass, PlyReview, Review, ReviewBudget,
    ReviewStopped, ReviewSummary, WinChanceModel, move_accuracy,
};
pub use threats::{Threats, threats, threats_until};

use crate::rules::{Game, Move, Position, Status};
use alphabeta::{Searcher, Workspace};
use eval::Evaluator;
use eval::classic::{Mailbox, evaluate_board};
use limits::Clock;
use params::{WIN, WIN_BOUND};

/// A search score from the side to move's view: a win `n` plies ahead is
/// `1_000_000 - n`, a loss `-(1_000_000 - n)`, a draw 0; others stay within
/// ±900,000.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Score(i32);

impl Score {
    /// A game won now, for the winner (lost: its negation).
    pub const WON: Score = Score(WIN);

    pub const fn new(score: i32) -> Score {
        Score(score)
    }

    pub const fn as_i32(self) -> i32 {
        self.0
    }

    /// Plies to a forced win, if one was found.
    pub fn win_in(self) -> Option<u32> {
        (self.0 >= WIN_BOUND).then(|| (WIN - self.0) as u32)
    }

    /// Plies to a forced loss, if one was found.
    pub fn loss_in(self) -> Option<u32> {
        (self.0 <= -WIN_BOUND).then(|| (WIN + self.0) as u32)
    }
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(plies) = self.win_in() {
            write!(f, "win in {plies}")
        } else if let Some(plies) = self.loss_in() {
            write!(f, "loss in {plies}")
        } else {
            write!(f, "{}", self.0)
        }
    }
}

/// What a search found: the last completed iteration.
#[derive(Clone, Debug)]
pub struct SearchReport {
    pub best_move: Move,
    /// Side to move's view.
    pub score: Score,
    /// `pv[0] == best_move`.
    pub pv: Vec<Move>,
    /// The last completed iteration.
    pub depth: u32,
    pub nodes: u64,
    pub elapsed: Duration,
}

/// Engine configuration.
#[derive(Clone, Debug)]
pub struct EngineConfig {
    /// Size of each search's transposition table, in MiB. A table is used by one search at a time,
    /// so memory is this times the most searches running at once.
    pub hash_mb: usize,
    /// The classic evaluation's weights (default: the built-in ones).
    pub weights: Weights,
    /// The evaluation networks, each used for games of its variant (the others get the classic
    /// evaluation). Default: the built-in ones ([`Networks::built_in`]); none: the classic
    /// evaluation everywhere.
    pub networks: Networks,
}

impl Default for EngineConfig {
    fn default() -> EngineConfig {
        EngineConfig {
            hash_mb: 64,
            weights: Weights::default(),
            networks: Networks::built_in(),
        }
    }
}

/// The AI. `Send + Sync`: one engine serves many threads at once, each search with its own table
/// taken from a pool (see `tt.rs` for why tables are not shared).
pub struct Engine {
    config: EngineConfig,
    idle: Mutex<Vec<Workspace>>,
}

impl Engine {
    pub fn new(config: EngineConfig) -> Engine {
        Engine {
            config,
            idle: Mutex::new(Vec::new()),
        }
    }

    /// Searches the game's current position (the game's history is there for repetition).
    ///
    /// `None` only when the deadline came before depth 1 completed, or the game is over (the caller
    /// must not ask then). Never panics.
    pub fn search(
        &self,
        game: &Game,
        limits: &Limits,
        level: Level,
        seed: u64,
    ) -> Option<SearchReport> {
        self.search_with_stop(game, limits, level, seed, &AtomicBool::new(false))
    }

    /// [`Engine::search`] that also stops, as at a deadline, once `stop` is set (from any thread).
    pub fn search_with_stop(
        &self,
        game: &Game,
        limits: &Limits,
        level: Level,
        seed: u64,
        stop: &AtomicBool,
    ) -> Option<SearchReport> {
        let settings = level.settings();
        let (outcome, started) = self.with_searcher(
            game,
            &level.limits(limits),
            stop,
            settings.noise,
            seed,
            |searcher| Some((searcher.iterate(game.position())?, searcher.clock.started())),
        )?;
        let mut report = SearchReport {
            best_move: outcome.best_move,
            score: Score(outcome.score),
            pv: outcome.pv,
            depth: outcome.depth,
            nodes: outcome.nodes,
            elapsed: started.elapsed(),
        };
        if settings.noise > 0 {
            guard_against_blunder(game.position(), &self.config.weights, &mut report);
        }
        Some(report)
    }

    /// Runs `search` with a searcher set up for the game's position: the table and scratch memory
    /// taken from the pool (and given back), the clock started, the evaluation for its variant.
    /// `None` without a search when the game is over.
    fn with_searcher<T>(
        &self,
        game: &Game,
        limits: &Limits,
        stop: &AtomicBool,
        noise: i32,
        seed: u64,
        search: impl FnOnce(&mut Searcher<'_>) -> Option<T>,
    ) -> Option<T> {
        let mut workspace = self.take_workspace();
        // A search from the pool sees nothing of the searches the table served before.
        workspace.table.new_search();
        let found = self.search_in(&mut workspace, game, limits, stop, noise, seed, search);
        self.give_back_workspace(workspace);
        found
    }

    /// [`Engine::with_searcher`] on a workspace the caller keeps, whose table still holds what
    /// its earlier searches found (a review keeps one for a whole game).
    #[allow(clippy::too_many_arguments)]
    fn search_in<T>(
        &self,
        workspace: &mut Workspace,
        game: &Game,
        limits: &Limits,
        stop: &AtomicBool,
        noise: i32,
        seed: u64,
        search: impl FnOnce(&mut Searcher<'_>) -> Option<T>,
    ) -> Option<T> {
        let root = game.position();
        if root.status().is_over() || game.status().is_over() {
            return None;
        }
        search(&mut Searcher::new(
            workspace,
            Clock::new(limits, stop),
            root.variant().rules,
            game_hashes(game),
            self.evaluator(root),
            noise,
            seed,
        ))
    }

    /// The network for the root's variant, if the engine has one; else the classic evaluation.
    fn evaluator(&self, root: &Position) -> Evaluator<'_> {
        match self.config.networks.get(root.variant()) {
            Some(network) => Evaluator::Network(network),
            None => Evaluator::Classic(&self.config.weights),
        }
    }

    fn take_workspace(&self) -> Workspace {
        let idle = self
            .idle
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .pop();
        idle.unwrap_or_else(|| Workspace::new(self.config.hash_mb))
    }

    fn give_back_workspace(&self, workspace: Workspace) {
        self.idle
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .push(workspace);
    }
}

/// The hashes of the game's positions since the last capture, before the
/// current one: what the search counts repetitions against.
fn game_hashes(game: &Game) -> Vec<u64> {
    let history = game.reversible_history();
    history[..history.len().saturating_sub(1)]
        .iter()
        .map(Position::hash)
        .collect()
}

impl Default for Engine {
    fn default() -> Engine {
        Engine::new(EngineConfig::default())
    }
}

/// Does playing `mv` let the opponent win with his very next move?
fn allows_win_in_one(position: &Position, mv: Move) -> bool {
    let mut child = *position;
    child.play_unchecked(mv);
    if child.status().is_over() {
        return false;
    }
    let opponent = child.side_to_move();
    child.legal_moves().iter().any(|&reply| {
        let mut grandchild = child;
        grandchild.play_unchecked(reply);
        matches!(grandchild.status(), Status::Won { winner, .. } if winner == opponent)
    })
}

/// Weak levels: never hand the opponent a win in one when another move avoids it (the noise may
/// lead a shallow search astray; this keeps it from the absurd).
fn guard_against_blunder(root: &Position, weights: &Weights, report: &mut SearchReport) {
    if report.score.win_in().is_some() || !allows_win_in_one(root, report.best_move) {
        return;
    }
    let mut moves = root.legal_moves();
    moves.sort();
    // The safe move the evaluation likes best one ply on (ties: the first in square order).
    let after = |mv: Move| {
        let mut child = *root;
        child.play_unchecked(mv);
        -evaluate_board(&Mailbox::new(&child), weights)
    };
    let safe = moves
        .iter()
        .filter(|&&mv| !allows_win_in_one(root, mv))
        .map(|&mv| (after(mv), mv))
        .fold(None, |best: Option<(i32, Move)>, (score, mv)| match best {
            Some((best_score, _)) if best_score >= score => best,
            _ => Some((score, mv)),
        });
    if let Some((_, safe)) = safe {
        report.best_move = safe;
        report.pv = vec![safe];
    }
}
