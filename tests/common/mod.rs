//! Helpers shared by the integration tests and benchmarks. Each test binary
//! declares `mod common;` and uses what it needs; the rest is never built
//! into it, hence the `dead_code` allowance.
#![allow(dead_code)]

pub mod captures;
pub mod client;
pub mod costly_threats;
pub mod long_game;
pub mod process;
pub mod random_games;
pub mod raw_h2;
pub mod real_game;
pub mod reference;
pub mod server;
