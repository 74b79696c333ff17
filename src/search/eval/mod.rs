//! The evaluation: how the search scores a leaf. Two rooms: `classic/`
//! (hand-set terms and their weights, and the mailbox they are counted on)
//! and `nnue/` (the network: features, weights, the accumulator, the file
//! format). Either knows nothing of the search around it. Beside them,
//! `cache.rs` keeps the scores of positions evaluated lately, by hash.

pub(crate) mod cache;
pub(crate) mod classic;
pub(crate) mod nnue;

use classic::Weights;
use nnue::Network;

/// How a search scores its leaves.
#[derive(Clone, Copy)]
pub(crate) enum Evaluator<'a> {
    Classic(&'a Weights),
    /// The network (of the searched variant).
    Network(&'a Network),
}
