//! The service over a real socket: a server on port 0, a generated tonic
//! client, every RPC on every ruleset, games to every ending, every error
//! class, hostile inputs, load, deadlines, game clocks, health, reflection
//! and shutdown; puzzles mined from planted and real positions; TLS, three
//! replicas behind nginx, and `tafl otep` on its stdin and stdout.

// The shared helpers (tests/common/), as `crate::common` for the modules below too.
pub use common;

/// In tests/service/.
mod service {
    // The cases' `use super::*` finds the helpers below through this.
    use super::*;

    mod analysis_progress;
    mod analyze;
    mod clock;
    mod endings;
    mod error_info;
    mod errors;
    mod hostile;
    mod load;
    mod load_balancing;
    mod operations;
    mod otep;
    mod previews;
    mod puzzles;
    mod review;
    mod rpcs;
    mod static_evaluation;
    mod threats;
    mod tls;
    mod turn_support;
    mod validate_game;
}

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use tafl::service::pb::{
    self, ApplyMoveRequest, EndReason, EvaluateRequest, GameResult, LegalMovesRequest, Rules,
    SearchLimits, Side, SuggestMoveRequest,
};
use tonic::Code;

use common::server::*;

/// Two pieces shuffling back and forth on 11×11: the start stands again every four plies.
const SHUFFLE_11: [&str; 8] = [
    "d1-d2", "h6-i6", "d2-d1", "i6-h6", "d1-d2", "h6-i6", "d2-d1", "i6-h6",
];

type Sq = (u8, u8);

/// A square as (file, rank) for ordering checks.
fn sq(square: &str) -> Sq {
    let file = square.as_bytes()[0] - b'a';
    let rank: u8 = square[1..].parse().unwrap();
    (file, rank)
}

fn assert_sorted_squares(squares: &[String]) {
    let keys: Vec<Sq> = squares.iter().map(|s| sq(s)).collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted, "squares sorted by file, then rank");
}

fn strip_captures(text: &str) -> &str {
    text.split('x').next().unwrap()
}
