//! Every tunable number of the search and the evaluation, named, in one place.
//!
//! Scores are in "centipawns" of an attacker: one attacker on an open board is
//! worth [`ATTACKER_VALUE`]. Evaluation terms are computed from the attackers'
//! side and negated for the defenders. How they were set: by hand from tafl
//! strategy (the king's routes dominate), then nudged by self-play matches
//! (`tafl match`) between versions; see `levels.rs` for the match numbers.

// ---------------------------------------------------------------- scores

/// A won game: a win `n` plies ahead scores `WIN - n`.
pub const WIN: i32 = 1_000_000;
/// Scores at or beyond this (in absolute value) are forced wins or losses.
pub const WIN_BOUND: i32 = WIN - 1_000;
/// Static scores are clamped to this, well inside the +-900_000 promised.
pub const EVAL_LIMIT: i32 = 100_000;
/// Deepest ply the search reaches (iterations plus extensions).
pub const MAX_PLY: usize = 96;

// ---------------------------------------------------------------- material

/// One attacker. The reference unit.
pub const ATTACKER_VALUE: i32 = 100;
/// One defender: fewer and each one matters more to the king's escort.
pub const DEFENDER_VALUE: i32 = 190;
/// Attackers are worth more as they get scarce: each one below this count
/// adds [`SCARCE_ATTACKER_BONUS`] (a thin cordon leaks).
pub const SCARCE_ATTACKER_COUNT: i32 = 12;
pub const SCARCE_ATTACKER_BONUS: i32 = 25;

// ---------------------------------------------------------------- the king's routes

/// Per corner the king could reach in two moves through empty squares
/// (a square he can slide to, from which a corner is open): attackers must
/// keep answering these.
pub const KING_ROUTE_TWO_MOVES: i32 = 120;
/// A square in the king's reach from which two corners are open at once: a
/// double threat the attackers cannot block with one move.
pub const KING_DOUBLE_THREAT_SQUARE: i32 = 900;
/// An open corner line now with the attackers to move (they must block).
pub const KING_OPEN_ROUTE: i32 = 400;
/// Bonus for the king on each rank/file distance closer to his nearest corner
/// (the board's size minus the distance, times this).
pub const KING_CORNER_PROXIMITY: i32 = 6;

// ---------------------------------------------------------------- king freedom and danger

/// Per square the king can slide to this move.
pub const KING_MOBILITY: i32 = 8;
/// Per side of the king held by an attacker or a square hostile to him, when
/// the king can be captured there; index = number of such sides.
pub const KING_PRESSURE: [i32; 5] = [0, 20, 70, 220, 400];
/// The king shut in: no path of non-attacker squares from him to the edge.
pub const KING_ENCLOSED: i32 = 700;
/// With the king enclosed, per square of his pocket fewer than the board area
/// (a tight ring is closer to a capture).
pub const KING_POCKET_SQUARE: i32 = 4;

// ---------------------------------------------------------------- cordon and encirclement

/// Per defender (not the king) that can no longer reach the edge through
/// non-attacker squares (Copenhagen encircles all of them to win).
pub const DEFENDER_ENCLOSED: i32 = 60;
/// Per pair of attackers touching diagonally: the links a ring is made of.
pub const ATTACKER_DIAGONAL_LINK: i32 = 6;

// ---------------------------------------------------------------- corners

/// A corner the king cannot reach by any path of non-attacker squares.
pub const CORNER_SEALED: i32 = 120;
/// An attacker on the corner's sealing diagonal (a3, b2, c1 for a1): three
/// of them shut the corner for good.
pub const CORNER_GUARD: i32 = 25;
/// An attacker on the next diagonal out (b3, c2 for a1).
pub const CORNER_GUARD_OUTER: i32 = 12;
/// An attacker right next to a corner (a2, b1): capturable against it.
pub const CORNER_NEIGHBOUR: i32 = -25;

// ---------------------------------------------------------------- edge forts (Copenhagen)

/// The king on an edge square in Copenhagen (he cannot be captured there and
/// may build an exit fort).
pub const FORT_KING_ON_EDGE: i32 = 120;
/// Per defender next to (orthogonally or diagonally) an edge king in
/// Copenhagen: the fort's wall.
pub const FORT_WALL_DEFENDER: i32 = 45;
/// Per attacker next to an edge king in Copenhagen: a fort is not yet safe.
pub const FORT_ATTACKER_NEAR: i32 = 60;

// ---------------------------------------------------------------- side to move

/// Moving next is worth a little.
pub const TEMPO: i32 = 15;

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
/// Reverse futility (static beta) pruning: margin per ply, up to this depth.
pub const RFP_MARGIN: i32 = 150;
pub const RFP_MAX_DEPTH: i32 = 3;
/// Soft time: an iteration is not started once this share of max_time has
/// gone (per mille); the next one would rarely finish.
pub const START_ITERATION_PERMILLE: u32 = 450;

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
