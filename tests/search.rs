//! The AI: tactics, legality, limits and levels.

use tafl::search::bench::{BenchArgs, run};

#[test]
#[ignore = "prints the bench figures; run with --ignored --nocapture"]
fn bench_prints_nodes() {
    let summary = run(&BenchArgs {
        depth: 5,
        hash_mb: 16,
    });
    assert!(summary.nodes > 0);
}
