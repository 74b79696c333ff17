//! The evaluation: how the search scores a leaf. Two rooms: `classic/`
//! (hand-set terms and their weights, and the mailbox they are counted on)
//! and `nnue/` (the network: features, weights, the accumulator, the file
//! format). Either knows nothing of the search around it. Beside them,
//! `cache.rs` keeps the scores of positions evaluated lately, by hash.

pub(crate) mod cache;
pub(crate) mod classic;
pub(crate) mod nnue;

use crate::rules::Position;
use crate::search::params::EVAL_LIMIT;
use classic::{Mailbox, Weights, evaluate_board};
use nnue::{Accumulator, Network};

/// How a search scores its leaves.
#[derive(Clone, Copy)]
pub(crate) enum Evaluator<'a> {
    Classic(&'a Weights),
    /// The network (of the searched variant).
    Network(&'a Network),
}

impl Evaluator<'_> {
    /// The score of `position` counted afresh, side to move's view: what a search scores it with at
    /// a quiet leaf, where it keeps the network's accumulator up to date move by move instead.
    pub fn evaluate(self, position: &Position) -> i32 {
        let board = Mailbox::new(position);
        match self {
            Evaluator::Classic(weights) => evaluate_board(&board, weights),
            Evaluator::Network(network) => {
                network_score(network, &Accumulator::new(network, position), &board)
            }
        }
    }
}

/// A network's score of `board` from its position's accumulator, side to move's view, within the
/// bounds of the classic evaluation's (±[`EVAL_LIMIT`]).
#[inline]
pub(crate) fn network_score(network: &Network, accumulator: &Accumulator, board: &Mailbox) -> i32 {
    accumulator
        .evaluate(network, board)
        .clamp(-EVAL_LIMIT, EVAL_LIMIT)
}
