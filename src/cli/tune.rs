//! `tafl tune`: fits the evaluation's weights to game record files and prints
//! the losses before and after and every weight.

use std::path::PathBuf;

use anyhow::Context;
use tafl::lab::tune::tune;

/// `tafl tune` arguments.
#[derive(clap::Args, Clone, Debug)]
pub struct TuneArgs {
    /// Game records, one a line: `moves,_,_,result` with result `Black` (attackers won), `White`
    /// (defenders won), `Draw` or `Ongoing` (left out); Copenhagen 11×11 from the standard start.
    /// Repeat to join several files (e.g. tests/data/copenhagen-games.csv and `tafl match --record`
    /// games).
    #[arg(long, required = true)]
    pub games: Vec<PathBuf>,
    /// Gradient steps.
    #[arg(long, default_value_t = 4000)]
    pub iterations: u32,
    /// Strength of the pull toward the built-in weights (loss per 100² of squared difference).
    #[arg(long, default_value_t = 0.0005)]
    pub prior: f64,
    /// Also write the tuned weights to this file (for `tafl match --a weights=FILE`).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// Reads the records, fits, prints the report and the weights, and writes them if asked.
pub fn run(args: &TuneArgs) -> anyhow::Result<()> {
    let mut records = String::new();
    for path in &args.games {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the game records {}", path.display()))?;
        records.push_str(&text);
        if !records.ends_with('\n') {
            records.push('\n');
        }
    }
    let report = tune(&records, args.iterations, args.prior)?;
    print!("{report}");
    if let Some(path) = &args.out {
        std::fs::write(path, report.after.to_string())
            .with_context(|| format!("cannot write the weights to {}", path.display()))?;
    }
    Ok(())
}
