//! Every tunable number of the search, named, in one place (the
//! evaluation's weights are in `eval/classic/params.rs`).
//!
//! Scores are in hundredths of an attacker: one attacker on an open board is
//! worth 100.

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
