//! Game review: every ply of a game judged by the engine, as chess sites
//! judge chess games: the score before and after the move, the drop in the
//! mover's chance of winning, a class, the critical positions, each side's
//! accuracy and the moments the game turned (docs/review.md).
//!
//! One search per position: the position after ply k is the position before
//! ply k+1, so the search of position k+1 gives both ply k's score after
//! (`score_after(k) = -score_before(k+1)`) and ply k+1's score before. A game
//! of N plies takes N+1 searches (none for a finished last position), and a
//! ply is judged once the position after it has been searched. The searches
//! of one game share one transposition table ([`Review`] keeps it; each of
//! its searches starts from what the earlier ones found), so a review is
//! deterministic for a given game and budget whenever depth or nodes, not
//! time, bound the budget.
//!
//! Scores become chances through [`WinChanceModel::FITTED`], fitted on the
//! 1,752 real Copenhagen games by `tafl fit-win-chance` (src/lab/win_chance.rs).

mod classes;
mod reviewer;
mod win_chance;

pub use classes::{ClassCounts, MoveClass, move_accuracy};
pub use reviewer::{
    DEFAULT_REVIEW_NODES, PlyReview, Review, ReviewBudget, ReviewStopped, ReviewSummary,
};
pub use win_chance::{Logistic, WinChanceModel};
