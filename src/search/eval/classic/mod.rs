//! The classic evaluation: hand-set terms, counted on a mailbox copy of the
//! position and weighed.
//!
//! Files: `term.rs` (what it counts), `counting.rs` (counting it, and the
//! score), `params.rs` (the built-in weight of every term), `weights.rs`
//! (weights as a table that prints, reads back and can be tuned),
//! `mailbox.rs` (the copy of the position the terms, the move ordering and
//! the search's tactical shortcuts read).

mod counting;
mod mailbox;
mod params;
mod term;
mod weights;

pub use counting::evaluate;
pub(crate) use counting::{TermCounts, evaluate_board};
#[cfg(test)]
pub(crate) use mailbox::DEFENDER;
pub(crate) use mailbox::{ATTACKER, CELLS, EMPTY, KING, Mailbox, index_of, square_of};
pub use term::Term;
pub use weights::{Weights, WeightsError};
