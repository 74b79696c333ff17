//! The levels' yardstick (`tafl levels`): how accurately people and the
//! engine's levels play, as game review judges them (docs/review.md), and
//! whether different seeds give different games.
//!
//! Every game is reviewed at one fixed node budget (node-bound, so a figure
//! is the same on any machine and under any load) and reduced to a row for
//! each side: who played it, the game, the side, its accuracy and its moves
//! by class ([`SideRow`], a CSV line). A file of rows grows game by game, so
//! a run stopped half-way resumes where it stopped. Rows come from game
//! records, the real games' (the people's) or a level's own games as
//! `tafl match --record` wrote them ([`review_records`]), or from games
//! played and reviewed at once ([`play_and_review`]); [`Summary`] reads rows
//! back: each player's accuracy distribution, and its error mix beside the
//! people's at the same accuracy. [`divergence`] plays pairs of games from
//! the start that differ only in their seeds and finds where they part.

mod rows;
mod summary;
mod variety;

pub use rows::{PEOPLE, RowError, SideRow, play_and_review, review_records};
pub use summary::{Distribution, ErrorMix, Summary};
pub use variety::{Divergence, divergence};
