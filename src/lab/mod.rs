//! The lab (feature `lab`): what grows and measures the AI, around the
//! engine and never inside it. The `tafl` binary's tools run it; a library
//! user of the rules and the search never compiles it.
//!
//! - [`GameRecord`]: the real games' format, one game a line, and the real
//!   games themselves, built in ([`real_games`]);
//! - [`datagen`]: self-play training data for the evaluation network, and its
//!   record format (`datagen/record.rs`);
//! - [`train`]: training a network on that data (the float network);
//! - [`tune`]: fitting the classic evaluation's weights to real games
//!   (Texel's method);
//! - [`matchplay`]: matches between two players (openings, the games on
//!   threads, the score);
//! - [`win_chance`]: fitting game review's win-chance model to real games;
//! - [`levels`]: the levels' yardstick: how accurately people and levels
//!   play, by review, and how far different seeds' games run alike;
//! - [`bench`](mod@bench): the bench positions, whose node count is the search's
//!   fingerprint.
//!
//! Training and tuning share one optimiser (`adam.rs`). The lab uses
//! `crate::rules` and `crate::search`; neither uses the lab.

mod adam;
pub mod bench;
pub mod datagen;
mod game_record;
pub mod levels;
pub mod matchplay;
pub mod train;
pub mod tune;
pub mod win_chance;

pub use game_record::{GameRecord, RecordError, RecordedResult, real_games};
