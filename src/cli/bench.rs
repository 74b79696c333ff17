//! `tafl bench`: the search's fingerprint (total nodes) and its speed; with
//! `--levels`, each level's answer time.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::Context;
use tafl::lab::bench::{BENCH_DEPTH, latency_positions, positions};
use tafl::rules::Game;
use tafl::search::{Engine, EngineConfig, Level, Limits, Network, Networks};

use super::game_records;

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
    /// Instead, time every level's answer (as `SuggestMove` with no limits gets it, the built-in
    /// networks, one search at a time) on 20 positions: ten middlegames of the real games, ten
    /// 13×13 openings. Prints each level's p50 and p99 (nearest rank: of 20, the slowest) in ms.
    #[arg(long)]
    pub levels: bool,
    /// The real games the latency positions come from, one a line (`moves,_,_,result`); default:
    /// the real games built in (tests/data/copenhagen-games.csv).
    #[arg(long)]
    pub games: Option<PathBuf>,
}

/// Searches every bench position, printing one line each, then the total nodes and nodes/s; with
/// `--net`, the comparison.
///
/// # Errors
/// The network file cannot be read.
pub fn run(args: &BenchArgs) -> anyhow::Result<()> {
    if args.levels {
        return time_levels(args);
    }
    let network = args
        .net
        .as_deref()
        .map(Network::read_file)
        .transpose()?
        .map(Arc::new);
    let games = positions();
    let (nodes, nodes_per_second) = search_all(args, &games, Networks::default());
    println!("{nodes} nodes {nodes_per_second:.0} nps");
    if let Some(network) = network {
        let variant = network.variant();
        let own: Vec<Game> = games
            .into_iter()
            .filter(|game| game.position().variant() == variant)
            .collect();
        let (classic_nodes, classic) = search_all(args, &own, Networks::default());
        let (network_nodes, with_network) = search_all(args, &own, Networks::from_iter([network]));
        println!(
            "{variant}: classic {classic_nodes} nodes {classic:.0} nps; network {network_nodes} nodes {with_network:.0} nps ({:.2}x the classic nodes/s)",
            with_network / classic.max(1e-9)
        );
    }
    Ok(())
}

/// Searches `games`, printing a line for each: the total nodes and nodes/s.
fn search_all(args: &BenchArgs, games: &[Game], networks: Networks) -> (u64, f64) {
    let engine = Engine::new(EngineConfig {
        hash_mb: args.hash_mb,
        networks,
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

/// Each level's answer times on the latency positions: a line per level, fastest level first.
fn time_levels(args: &BenchArgs) -> anyhow::Result<()> {
    let games = latency_positions(&game_records(args.games.as_deref()).context("--games")?);
    let engine = Engine::new(EngineConfig {
        hash_mb: args.hash_mb,
        ..EngineConfig::default()
    });
    println!(
        "{} positions; per level: answer time p50 and p99 (ms), depth reached, nodes p50 and p99",
        games.len()
    );
    for level in (1..=10).filter_map(Level::new) {
        let mut times = Vec::with_capacity(games.len());
        let mut depths = Vec::with_capacity(games.len());
        let mut nodes = Vec::with_capacity(games.len());
        for game in &games {
            let report = engine
                .search(game, &Limits::default(), level, 0)
                .context("a latency position is over")?;
            times.push(report.elapsed);
            depths.push(report.depth);
            nodes.push(report.nodes);
        }
        times.sort();
        nodes.sort();
        let (shallowest, deepest) = (depths.iter().min(), depths.iter().max());
        println!(
            "level {level:>2}: p50 {:>5} p99 {:>5} depth {}-{} nodes {} {}",
            nearest_rank(&times, 50).as_millis(),
            nearest_rank(&times, 99).as_millis(),
            shallowest.unwrap_or(&0),
            deepest.unwrap_or(&0),
            nearest_rank(&nodes, 50),
            nearest_rank(&nodes, 99),
        );
    }
    Ok(())
}

/// The `percent`-th percentile of `sorted` by nearest rank (the default for none).
fn nearest_rank<T: Copy + Default>(sorted: &[T], percent: usize) -> T {
    let rank = (sorted.len() * percent).div_ceil(100).max(1);
    sorted.get(rank - 1).copied().unwrap_or_default()
}
