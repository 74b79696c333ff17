//! `tafl bench`: a fixed set of positions searched to a fixed depth.
//!
//! The total node count is the search's fingerprint: any change to search or
//! evaluation that changes the tree changes it. State it in the commit message
//! of every such change; nodes/second shows speed regressions.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{Engine, EngineConfig, Level, Limits, Network};
use crate::rules::{BoardSize, Game, Rules, Variant};

/// The depth every bench position is searched to.
pub const BENCH_DEPTH: u32 = 5;

/// `tafl bench` arguments.
#[derive(clap::Args, Clone, Debug)]
pub struct BenchArgs {
    /// Plies to search each position to.
    #[arg(long, default_value_t = BENCH_DEPTH)]
    pub depth: u32,
    /// Transposition table size, MiB.
    #[arg(long, default_value_t = 16)]
    pub hash_mb: usize,
    /// Also search the positions of this network's variant with it, and print its nodes/s beside the
    /// classic evaluation's on the same positions.
    #[arg(long)]
    pub net: Option<std::path::PathBuf>,
}

/// The bench positions: variant, then moves from its start (real Copenhagen games and short
/// openings elsewhere).
const POSITIONS: &[(Rules, u32, &str)] = &[
    (Rules::Copenhagen, 11, ""),
    (
        Rules::Copenhagen,
        11,
        "h1-h3 f4-i4 g1-i1 g5-g3 h3-i3 f5-i5 d1-d3 g3-g2 f2-c2 g2-i2xi3 j6-j2 f6-f3 k4-k3 g6-g1",
    ),
    (
        Rules::Copenhagen,
        11,
        "d1-d3 f8-i8 j6-j9 e7-e10 j9-e9xe10 d6-d9 f10-f9 g7-g10 e9-e10 h6-h9 k8-j8 g6-g9 k6-i6 f6-h6",
    ),
    (
        Rules::Copenhagen,
        11,
        "d1-d3 e5-c5 a4-c4 e7-e9 a8-a9 f8-f9 h11-h9 d6-c6 d11-d6xc6 c5-c6xd6 d3-d6xc6 e6-e3 a5-a3 f7-b7 c4-c7xb7 g5-i5 k8-f8xf9 e9-f9 f8-i8 g7-g8",
    ),
    (Rules::Copenhagen, 13, ""),
    (Rules::Copenhagen, 13, "d1-d3 g5-c5 m6-k6 j7-j11"),
    (Rules::Fetlar, 11, ""),
    (Rules::Fetlar, 11, "d1-d3 e5-c5 a4-c4 e7-e9"),
    (Rules::Tablut, 9, ""),
    (Rules::Tablut, 9, "d1-d3 e4-h4 a4-b4 c5-c2"),
    (Rules::Copenhagen, 9, ""),
];

/// What the bench measured.
#[derive(Clone, Debug)]
pub struct BenchSummary {
    pub nodes: u64,
    pub elapsed: Duration,
}

impl BenchSummary {
    pub fn nodes_per_second(&self) -> u64 {
        (self.nodes as f64 / self.elapsed.as_secs_f64().max(1e-9)) as u64
    }
}

/// The bench's games, each at its position (a move that fails to replay is reported and stops there).
pub fn positions() -> Vec<Game> {
    POSITIONS
        .iter()
        .map(|&(rules, size, moves)| {
            let size = BoardSize::new(size).expect("bench sizes are 9, 11 or 13");
            let mut game = Game::new(Variant::new(rules, size));
            for text in moves.split_whitespace() {
                if let Err(error) = game.play(text) {
                    eprintln!("bench position {rules} {moves:?}: {error}");
                    break;
                }
            }
            game
        })
        .collect()
}

/// Runs the bench, printing one line per position and the totals; with a network, then the
/// positions of its variant searched with the network and with the classic evaluation.
pub fn run(args: &BenchArgs, network: Option<Arc<Network>>) -> BenchSummary {
    let games = positions();
    let summary = search_all(args, &games, None);
    println!("{} nodes {} nps", summary.nodes, summary.nodes_per_second());
    if let Some(network) = network {
        let variant = network.variant();
        let own: Vec<Game> = games
            .into_iter()
            .filter(|game| game.position().variant() == variant)
            .collect();
        let classic = search_all(args, &own, None);
        let with_network = search_all(args, &own, Some(network));
        println!(
            "{variant}: classic {} nodes {} nps; network {} nodes {} nps ({:.2}x the classic nodes/s)",
            classic.nodes,
            classic.nodes_per_second(),
            with_network.nodes,
            with_network.nodes_per_second(),
            with_network.nodes_per_second() as f64 / classic.nodes_per_second().max(1) as f64
        );
    }
    summary
}

/// Searches `games`, printing a line for each.
fn search_all(args: &BenchArgs, games: &[Game], network: Option<Arc<Network>>) -> BenchSummary {
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
            game.position().variant().rules.to_string(),
            game.position().variant().size.get(),
            game.position().variant().size.get(),
            game.ply(),
            report.best_move,
            report.score,
            report.nodes,
            report.elapsed.as_millis()
        );
    }
    BenchSummary {
        nodes,
        elapsed: started.elapsed(),
    }
}
