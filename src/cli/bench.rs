//! `tafl bench`: the search's fingerprint (total nodes) and its speed.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use tafl::lab::bench::{BENCH_DEPTH, positions};
use tafl::rules::Game;
use tafl::search::{Engine, EngineConfig, Level, Limits, Network};

/// `tafl bench` arguments.
#[derive(clap::Args, Clone, Debug)]
pub struct BenchArgs {
    /// Plies to search each position to.
    #[arg(long, default_value_t = BENCH_DEPTH)]
    pub depth: u32,
    /// Transposition table size, MiB.
    #[arg(long, default_value_t = 16)]
    pub hash_mb: usize,
    /// Then search the positions of this network's variant with the classic evaluation and with
    /// the network, and print both nodes/s (measured in one run).
    #[arg(long)]
    pub net: Option<PathBuf>,
}

/// Searches every bench position, printing one line each, then the total nodes and nodes/s; with
/// `--net`, the comparison.
///
/// # Errors
/// The network file cannot be read.
pub fn run(args: &BenchArgs) -> anyhow::Result<()> {
    let network = args
        .net
        .as_deref()
        .map(Network::read_file)
        .transpose()?
        .map(Arc::new);
    let games = positions();
    let (nodes, nodes_per_second) = search_all(args, &games, None);
    println!("{nodes} nodes {nodes_per_second:.0} nps");
    if let Some(network) = network {
        let variant = network.variant();
        let own: Vec<Game> = games
            .into_iter()
            .filter(|game| game.position().variant() == variant)
            .collect();
        let (classic_nodes, classic) = search_all(args, &own, None);
        let (network_nodes, with_network) = search_all(args, &own, Some(network));
        println!(
            "{variant}: classic {classic_nodes} nodes {classic:.0} nps; network {network_nodes} nodes {with_network:.0} nps ({:.2}x the classic nodes/s)",
            with_network / classic.max(1e-9)
        );
    }
    Ok(())
}

/// Searches `games`, printing a line for each: the total nodes and nodes/s.
fn search_all(args: &BenchArgs, games: &[Game], network: Option<Arc<Network>>) -> (u64, f64) {
    let engine = Engine::new(EngineConfig {
        hash_mb: args.hash_mb,
        network,
        ..EngineConfig::default()
    });
    let limits = Limits {
        max_depth: Some(args.depth),
        ..Limits::default()
    };
    let mut nodes = 0;
    let started = Instant::now();
    for (index, game) in games.iter().enumerate() {
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
    (
        nodes,
        nodes as f64 / started.elapsed().as_secs_f64().max(1e-9),
    )
}
