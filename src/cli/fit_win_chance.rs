//! `tafl fit-win-chance`: fits game review's win-chance model to real games
//! and prints its calibration on the held-out half and the constants for
//! src/search/review/win_chance.rs.

use std::path::PathBuf;

use tafl::lab::win_chance::{FitConfig, fit, review_games};

use super::game_records;

/// `tafl fit-win-chance` arguments.
#[derive(clap::Args, Clone, Debug)]
pub struct FitWinChanceArgs {
    /// Game records, one a line (`moves,_,_,result`, as `tafl tune` reads them): Copenhagen
    /// 11×11 from the standard start.
    #[arg(long)]
    pub games: PathBuf,
    /// Each position's search budget, in nodes.
    #[arg(long, default_value_t = 5_000)]
    pub nodes: u64,
    /// Picks the held-out half of the games.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Each game's transposition table, MiB.
    #[arg(long, default_value_t = 16)]
    pub hash_mb: usize,
    /// Use only the first this many decided games (a quick look).
    #[arg(long)]
    pub max_games: Option<usize>,
}

/// Reviews the games on one thread (progress on stderr), fits and prints the report.
pub fn run(args: &FitWinChanceArgs) -> anyhow::Result<()> {
    let records = game_records(Some(&args.games))?;
    let config = FitConfig {
        nodes: args.nodes,
        seed: args.seed,
        hash_mb: args.hash_mb,
        max_games: args.max_games,
    };
    let started = std::time::Instant::now();
    let reviewed = review_games(&records, &config, |done, games| {
        if done % 100 == 0 || done == games {
            eprintln!(
                "{done}/{games} games reviewed ({:.0} s)",
                started.elapsed().as_secs_f64()
            );
        }
    })?;
    print!("{}", fit(&reviewed, &config)?);
    Ok(())
}
