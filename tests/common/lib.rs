//! The helpers tafl's integration tests and benchmarks share, as a dev-only
//! crate that both name `common` (Cargo.toml's dev-dependencies), so that
//! neither includes the other's files by path.
//!
//! The helpers that run the service (a server in the test's process, a
//! client, HTTP/2 by hand, a game for Threats) come with the feature
//! `service`, which tafl's own `service` turns on: without it, as for the
//! library alone, this is the rules' helpers only.

pub mod captures;
#[cfg(feature = "service")]
pub mod client;
#[cfg(feature = "service")]
pub mod costly_threats;
pub mod long_game;
pub mod previews;
pub mod process;
pub mod random_games;
#[cfg(feature = "service")]
pub mod raw_h2;
pub mod real_game;
pub mod reference;
#[cfg(feature = "service")]
pub mod server;
