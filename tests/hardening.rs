//! Regression tests for what a hostile or overloaded client could do to a
//! replica (issue "Hardened"), each against the real `tafl` binary over a
//! real socket: one module per problem. Bounds on time are generous (the
//! tests must pass on a loaded 2-core machine); the tight figures are
//! printed here and measured by `cargo bench --bench soak`. Overload
//! (searches far past the queue beside cheap calls) runs its server in this
//! process.

// The shared helpers (tests/common/), as `crate::common` for the modules below too.
pub use common;

/// The cases, in tests/hardening/ (the crate root's own directory holds the
/// other test binaries).
mod hardening {
    mod admission;
    mod config;
    mod connection_age;
    mod connections;
    mod deadlines;
    mod fair_share;
    mod open_calls;
    mod overload;
    mod replay_flood;
    mod request_bytes;
    mod sharing;
    mod shutdown;
    mod slow_readers;
    mod streams;
    mod threats_deadline;
    mod transport_errors;
}

use std::net::SocketAddr;
use std::time::Duration;

use common::process::Tafl;
use tafl::service::pb::{SearchLimits, SuggestMoveRequest};
use tonic_health::pb::health_client::HealthClient;
use tonic_health::pb::{HealthCheckRequest, health_check_response::ServingStatus};

/// `tafl serve` with `args` (and a small transposition table).
fn tafl(args: &[&str]) -> Tafl {
    let mut all = vec!["--hash-mb", "4"];
    all.extend(args);
    Tafl::start(env!("CARGO_BIN_EXE_tafl"), &all, &[])
}

use common::client::{channel, connect as client};

/// Asks `Health/Check` on a new connection; panics unless SERVING within 5 s.
async fn assert_serving(addr: SocketAddr) {
    let check = async {
        HealthClient::new(channel(addr).await)
            .check(HealthCheckRequest::default())
            .await
            .expect("Health/Check answers")
            .into_inner()
            .status
    };
    let status = tokio::time::timeout(Duration::from_secs(5), check)
        .await
        .expect("Health/Check within 5 s");
    assert_eq!(status, ServingStatus::Serving as i32);
}

/// A full-strength SuggestMove that thinks `max_time_ms`, with a deadline if given.
fn timed_search(
    seed: u64,
    max_time_ms: u32,
    timeout: Option<Duration>,
) -> tonic::Request<SuggestMoveRequest> {
    let mut request = tonic::Request::new(SuggestMoveRequest {
        game: None,
        limits: Some(SearchLimits {
            max_time_ms,
            ..SearchLimits::default()
        }),
        level: 10,
        seed,
        clock: None,
    });
    if let Some(timeout) = timeout {
        request.set_timeout(timeout);
    }
    request
}

/// The `share` percentile of sorted `values`.
fn percentile(values: &[Duration], share: f64) -> Duration {
    values[((values.len() - 1) as f64 * share).round() as usize]
}
