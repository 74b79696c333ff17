//! `tafl bench`: the search's fingerprint (total nodes) and its speed.

use std::time::Instant;

use tafl::search::bench::{BENCH_DEPTH, positions};
use tafl::search::{Engine, EngineConfig, Level, Limits};

/// `tafl bench` arguments.
#[derive(clap::Args, Clone, Debug)]
pub struct BenchArgs {
    /// Plies to search each position to.
    #[arg(long, default_value_t = BENCH_DEPTH)]
    pub depth: u32,
    /// Transposition table size, MiB.
    #[arg(long, default_value_t = 16)]
    pub hash_mb: usize,
}

/// Searches every bench position, printing one line each, then the total nodes and nodes/s.
pub fn run(args: &BenchArgs) {
    let engine = Engine::new(EngineConfig {
        hash_mb: args.hash_mb,
        ..EngineConfig::default()
    });
    let limits = Limits {
        max_depth: Some(args.depth),
        ..Limits::default()
    };
    let mut nodes = 0;
    let started = Instant::now();
    for (index, game) in positions().iter().enumerate() {
        let variant = game.position().variant();
        let Some(report) = engine.search(game, &limits, Level::STRONGEST, 0) else {
            println!(
                "{:>2} {}: no search (game over)",
                index + 1,
                game.position()
            );
            continue;
        };
        nodes += report.nodes;
        println!(
            "{:>2} {:<10} {:>2}x{:<2} ply {:>2}: {} score {} nodes {} ({} ms)",
            index + 1,
            variant.rules.to_string(),
            variant.size.get(),
            variant.size.get(),
            game.ply(),
            report.best_move,
            report.score,
            report.nodes,
            report.elapsed.as_millis()
        );
    }
    let nodes_per_second = nodes as f64 / started.elapsed().as_secs_f64().max(1e-9);
    println!("{nodes} nodes {nodes_per_second:.0} nps");
}
