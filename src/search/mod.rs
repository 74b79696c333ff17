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
//! Files: this one (the modules and what they show), `engine.rs` (the
//! engine, its configuration and reports, and the one place a search is set
//! up), `score.rs` (the score every search reports), `alphabeta.rs` (the
//! search), `tt.rs` (the table, and how it is shared), `ordering.rs` (move
//! ordering and the history), `limits.rs` (what bounds a search, and the
//! running search's stopwatch), `clock.rs` (a game clock and the time a move
//! is given by it),
//! `levels.rs` (what each level does), `variation.rs` (what a request's seed
//! varies: the levels' noise, full strength's choice among near-equal
//! moves), `params.rs` (every tunable number of the search), `analysis.rs` (multi-line analysis, one report per depth),
//! `threats.rs` (the tactical picture: wins, threats, captures), `review/`
//! (a whole game judged ply by ply: the win-chance model, the move classes,
//! the reviewer), `puzzles/` (tactics mined from a game, each proven); and
//! the evaluation in `eval/`: `eval/classic/` (the hand-set terms, their
//! weights, the mailbox)
//! and `eval/nnue/` (the network: features, weights, accumulator, file
//! format), and `eval/cache.rs` (the latest scores, by hash). What grows
//! and measures the engine (self-play data, training, tuning, matches, the
//! bench positions) is `crate::lab`, which this module never uses.

mod alphabeta;
mod analysis;
mod clock;
mod engine;
pub(crate) mod eval;
mod levels;
mod limits;
mod ordering;
pub(crate) mod params;
mod puzzles;
mod review;
mod score;
mod threats;
mod tt;
mod variation;

pub use analysis::{AnalysisLine, AnalysisUpdate, MAX_LINES};
pub use clock::{Clock, TimeAllocation};
pub use engine::{Engine, EngineConfig, SearchReport};
pub use eval::classic::{Term, Weights, WeightsError, evaluate};
pub use eval::nnue::{
    FeatureSet, Network, NetworkError, NetworkFileError, NetworkFileErrorKind, Networks, Provenance,
};
pub use levels::{Level, LevelLimits};
pub use limits::{Alone, Control, Limits, Share};
pub use params::DEFAULT_MOVE_OVERHEAD;
pub use puzzles::{
    DEFAULT_PUZZLE_NODES, DEFAULT_SOLVER_MOVES, MATERIAL_GAIN, MAX_SOLVER_MOVES, MinedPuzzles,
    Puzzle, PuzzleBudget, PuzzleGoal, Theme, find_puzzles,
};
pub use review::{
    ClassCounts, DEFAULT_REVIEW_NODES, Logistic, MoveClass, PlyReview, Review, ReviewBudget,
    ReviewStopped, ReviewSummary, WinChanceModel, move_accuracy,
};
pub use score::Score;
pub use threats::{Threats, threats, threats_until};
