//! Helpers shared by the integration tests.

pub mod long_game;
pub mod process;
pub mod raw_h2;
pub mod reference;
