//! Every tunable number of the search, named, in one place (the
//! evaluation's weights are in `eval/classic/params.rs`).
//!
//! Scores are in hundredths of an attacker: one attacker on an open board is
//! worth 100.

use std::time::Duration;

// ---------------------------------------------------------------- scores

/// A won game: a win `n` plies ahead scores `WIN - n`.
pub const WIN: i32 = 1_000_000;
/// Scores at or beyond this (in absolute value) are forced wins or losses.
pub const WIN_BOUND: i32 = WIN - 1_000;
/// Static scores are clamped to this, well inside the +-900_000 promised.
pub const EVAL_LIMIT: i32 = 100_000;
/// Deepest ply the search reaches (iterations plus extensions).
pub const MAX_PLY: usize = 96;

// ---------------------------------------------------------------- search

/// Nodes between two looks at the clock and the stop flag.
pub const CHECK_EVERY_NODES: u64 = 128;
/// Aspiration window half-width around the last iteration's score.
pub const ASPIRATION_WINDOW: i32 = 60;
/// Iterations up to this depth search the full window.
pub const ASPIRATION_MIN_DEPTH: i32 = 4;
/// Null move: reduction (plus a ply per four of depth) and the least depth it is tried at.
pub const NULL_MOVE_REDUCTION: i32 = 2;
pub const NULL_MOVE_MIN_DEPTH: i32 = 3;
/// Late move reductions: least depth, moves searched in full first.
pub const LMR_MIN_DEPTH: i32 = 3;
pub const LMR_FULL_MOVES: usize = 3;
/// Beyond this many moves reduce one ply more.
pub const LMR_DEEP_MOVES: usize = 12;
/// Forcing plies a leaf searches past the horizon: captures, and the king's
/// moves that open a corner line (the attackers' forced blocks come free).
pub const QUIESCENCE_PLIES: u32 = 2;
/// Reverse futility (static beta) pruning: margin per ply, up to this depth.
pub const RFP_MARGIN: i32 = 150;
pub const RFP_MAX_DEPTH: i32 = 3;
/// Soft time: an iteration that is not expected to finish is still started
/// while more than this share of max_time (per mille) is left, so that on
/// average at least 90% of the time is used.
pub const UNUSED_TIME_PERMILLE: u32 = 100;
/// Bounds on how much longer the next iteration is expected to take than the
/// last (the ratio of the last two, clamped).
pub const ITERATION_GROWTH_MIN: f64 = 1.5;
pub const ITERATION_GROWTH_MAX: f64 = 6.0;
/// A search whose node bound would end it within its time at this speed (a
/// busy core's, a quarter of an idle one's), or whose depth bound is at most
/// this many plies, is one that depth or nodes end: it gets a table of its
/// own, so that it is repeatable (`Limits::ends_by_time`).
pub const REPEATABLE_NODES_PER_SECOND: u64 = 250_000;
pub const REPEATABLE_DEPTH: u32 = 12;

// ---------------------------------------------------------------- time allocation (clock.rs)

/// Main time is spread as if this many moves were left (or the moves to the
/// next time control, if fewer): a move's soft time is this share of what is
/// left, so the clock never runs dry however long the game goes on.
pub const CLOCK_MOVES_LEFT: u32 = 30;
/// Of each Fischer increment a move plans to spend this much (per mille);
/// the rest gathers for the moves that need more.
pub const INCREMENT_SPENT_PERMILLE: u32 = 800;
/// Of an overtime period (byo-yomi) a move plans to spend this much (per
/// mille): on top of its share of the main time, or all it has in overtime.
pub const OVERTIME_SPENT_PERMILLE: u32 = 500;
/// The hard time is at most this many soft times.
pub const HARD_PER_SOFT: u32 = 4;
/// Kept off the time a move may take before its side loses, besides the move
/// overhead: this share of it (per mille), and at least [`CLOCK_SAFETY_MIN`]
/// (a loaded machine wakes a search late, a look at the clock comes a little
/// after its end).
pub const CLOCK_SAFETY_PERMILLE: u32 = 50;
pub const CLOCK_SAFETY_MIN: Duration = Duration::from_millis(20);
/// A clock's times above this (a week) are read as this: more than any game
/// gives, and safe to compute with.
pub const CLOCK_TIME_CAP: Duration = Duration::from_secs(7 * 24 * 60 * 60);
/// The soft time is scaled by the square root of the side's main time over
/// the opponent's, within these bounds: a little more when ahead on the clock,
/// a little less when behind.
pub const OPPONENT_RATIO_MIN: f64 = 0.8;
pub const OPPONENT_RATIO_MAX: f64 = 1.25;
/// The time a move takes to reach the clock (network, the game server) when
/// the caller names none: taken off every allocation.
pub const DEFAULT_MOVE_OVERHEAD: Duration = Duration::from_millis(50);

// What the running search makes of the soft time (`TimePlan`): it plans
// `soft × stretch`, within the hard time, after each iteration.

/// The stretch when the best move has stood still for a while.
pub const STABLE_STRETCH: f64 = 0.7;
/// Added to the stretch per change of the best move between iterations, each
/// older change counting half as much as the one after it.
pub const BEST_MOVE_CHANGE_STRETCH: f64 = 0.7;
/// A score that fell this much (one attacker) or more since the last
/// iteration stretches the time by [`SCORE_FALL_STRETCH`] more; a smaller
/// fall in proportion.
pub const SCORE_FALL_FULL: i32 = 100;
pub const SCORE_FALL_STRETCH: f64 = 0.5;
/// A score this far from even (twenty attackers) decides the game: the move
/// gets [`DECIDED_STRETCH`] of its time. A forced win or loss found gets none
/// past the iteration that found it.
pub const DECIDED_SCORE: i32 = 2_000;
pub const DECIDED_STRETCH: f64 = 0.5;
/// The most the stretch grows the soft time (the hard time bounds it too).
pub const MAX_STRETCH: f64 = 3.0;

// ---------------------------------------------------------------- move ordering

pub const ORDER_WIN: i32 = 4_000_000;
pub const ORDER_KING_ESCAPE_THREAT: i32 = 2_000_000;
pub const ORDER_BLOCK_ROUTE: i32 = 1_500_000;
pub const ORDER_CAPTURE: i32 = 1_000_000;
pub const ORDER_CAPTURE_EACH: i32 = 50_000;
pub const ORDER_KILLER_FIRST: i32 = 900_000;
pub const ORDER_KILLER_SECOND: i32 = 800_000;
pub const ORDER_KING_NEIGHBOUR: i32 = 200_000;
/// History scores are kept within this (they are halved past it).
pub const HISTORY_MAX: i32 = 100_000;
