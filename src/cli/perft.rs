//! `tafl perft`: counts the move paths of a given length, the move
//! generator's check against published numbers.

use std::time::Instant;

use anyhow::Context;
use tafl::rules::{BoardSize, Position, PositionText, Rules, Variant, divide, perft};

use super::board_size;

/// `tafl perft` arguments.
#[derive(Debug, clap::Args)]
pub struct PerftArgs {
    /// copenhagen, fetlar or tablut.
    #[arg(long, default_value = "copenhagen")]
    rules: Rules,
    /// 9, 11 or 13; default: the start's size, else the rules' own board.
    #[arg(long, value_parser = board_size)]
    size: Option<BoardSize>,
    /// Plies to count.
    #[arg(long)]
    depth: u32,
    /// A position text to start from instead of the standard start.
    #[arg(long)]
    start: Option<PositionText>,
    /// Also print the count below each first move.
    #[arg(long)]
    divide: bool,
}

/// Counts, printing the count last (and each first move's count with `--divide`); the speed goes
/// to stderr.
pub fn run(args: &PerftArgs) -> anyhow::Result<()> {
    let size = args
        .size
        .or(args.start.as_ref().map(PositionText::size))
        .unwrap_or(args.rules.default_size());
    let variant = Variant::new(args.rules, size);
    let position = match &args.start {
        Some(setup) => Position::from_setup(setup, variant).context("--start")?,
        None => Position::start(variant),
    };
    let started = Instant::now();
    let count = if args.divide {
        let split = divide(&position, args.depth);
        for (mv, count) in &split {
            println!("{mv}: {count}");
        }
        split.iter().map(|(_, count)| count).sum()
    } else {
        perft(&position, args.depth)
    };
    let seconds = started.elapsed().as_secs_f64();
    eprintln!(
        "{variant}, depth {}: {seconds:.3} s, {:.1} M leaves/s",
        args.depth,
        count as f64 / seconds / 1e6
    );
    println!("{count}");
    Ok(())
}
