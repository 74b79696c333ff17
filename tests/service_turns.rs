//! The contract's second part over a real socket: machine-readable errors,
//! previewed moves, whole games, live analysis and threats. (Becomes modules
//! of tests/service/main.rs once that binary exists.)

#[path = "support/random_games.rs"]
#[allow(dead_code)]
mod random_games;
#[path = "service/support.rs"]
mod support;

#[path = "service/analyze.rs"]
mod analyze;
#[path = "service/error_info.rs"]
mod error_info;
#[path = "service/previews.rs"]
mod previews;
#[path = "service/threats.rs"]
mod threats;
#[path = "service/turn_support.rs"]
mod turn_support;
#[path = "service/validate_game.rs"]
mod validate_game;
