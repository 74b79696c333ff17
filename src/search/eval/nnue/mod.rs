//! The evaluation network (NNUE): one hidden layer over one-hot inputs,
//! updated move by move.
//!
//! One network serves one variant (rules and board size). Inputs are one-hot:
//! each piece kind (attacker, defender, king) on each square, `3 × size²` of
//! them, a few dozen set in a position, and for a network of
//! [`FeatureSet::PiecesAndTerms`] 59 more: the classic evaluation's counts of
//! the king's routes, the attackers' ring and the edge fort, in buckets
//! (`features.rs`). They feed one hidden layer of [`HIDDEN`] clipped-ReLU
//! units, kept as an `i16` accumulator that a move updates by adding and
//! removing the rows of the pieces that changed (`accumulator.rs`); the
//! terms' few rows are added where a position is evaluated. The side to move picks one of two output rows (an
//! output bucket per side), so the accumulator does not change when the move
//! passes. The output, times the network's `scale`, is the score in
//! hundredths of an attacker from the side to move's view (`network.rs`).
//!
//! Quantisation: float input weights and biases are stored times `QA` (so
//! an activation of 1.0 is `QA`), output weights times `QB`, the output
//! bias times `QA × QB`. Float weights within ±`WEIGHT_CLIP` give stored
//! ones within a bound the loader checks: the output sum can never overflow
//! an `i32`. The accumulator adds with wrapping `i16` arithmetic, which no
//! realistic position reaches, and which makes an incremental update equal a
//! full recomputation even for a nonsense position.
//!
//! The file format (`format.rs`) is our own. An engine holds one network per
//! variant at most (`networks.rs`); the built-in ones are `nets/RULES-NxN.nnue`,
//! each named by its variant.

mod accumulator;
mod features;
mod format;
mod network;
mod networks;

pub(crate) use accumulator::Accumulator;
pub use features::FeatureSet;
pub use format::{NetworkError, NetworkFileError, NetworkFileErrorKind};
pub(crate) use network::HIDDEN;
pub use network::{Network, Provenance};
pub use networks::Networks;
// What training builds a network from (`crate::lab::train`): compiled with the lab only.
#[cfg(feature = "lab")]
pub(crate) use {
    features::{piece_input, term_inputs},
    network::WEIGHT_CLIP,
};
