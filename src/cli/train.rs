//! `tafl train`: trains an evaluation network on `tafl datagen` data, printing each epoch's losses
//! and throughput, and writes the network file.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use tafl::lab::datagen::{Record, read_records};
use tafl::lab::train::{TrainConfig, TrainingData, train};
use tafl::search::FeatureSet;

use super::VariantArgs;

#[derive(Debug, clap::Args)]
pub struct TrainArgs {
    /// Data files written by `tafl datagen`, or directories of them (every file in one, by
    /// name: the shards of a Kubernetes datagen Job); repeat to join several. Their targets
    /// take the game result at `--result-weight`.
    #[arg(long, required = true)]
    data: Vec<PathBuf>,
    /// More data, as `--data`, whose targets take the game result at `--result-data-weight`:
    /// self-play whose results say what its search scores cannot (won cordons that close and
    /// those that do not, which the search scores alike).
    #[arg(long)]
    result_data: Vec<PathBuf>,
    /// The game result's share of `--result-data`'s targets.
    #[arg(long, default_value_t = 0.5, value_parser = share)]
    result_data_weight: f32,
    /// The network file to write.
    #[arg(long)]
    out: PathBuf,
    /// The variant whose positions are trained on.
    #[command(flatten)]
    variant: VariantArgs,
    /// What the network sees: the pieces and the classic evaluation's counts of the king's
    /// routes, the attackers' ring and the edge fort (a version 2 file), or the pieces alone
    /// (version 1, as generations 0 and 1 of Copenhagen 11×11 and Tablut 9×9 were trained).
    #[arg(long, value_enum, default_value_t = Features::PiecesAndTerms)]
    features: Features,
    #[arg(long, default_value_t = 8)]
    epochs: u32,
    #[arg(long, default_value_t = 1024)]
    batch_size: usize,
    /// Adam's step size at the start (it decays to a tenth by the last epoch).
    #[arg(long, default_value_t = 0.002)]
    learning_rate: f32,
    /// The game result's share of the target; the search score has the rest. 0 by default: where
    /// one side wins most self-play games the result mostly teaches that side's name (docs/ai.md).
    #[arg(long, default_value_t = 0.0, value_parser = share)]
    result_weight: f32,
    /// Score (hundredths of an attacker) per unit of output: the logistic curve's scale.
    #[arg(long, default_value_t = 400.0)]
    scale: f32,
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// One game in this many is held out for the validation loss.
    #[arg(long, default_value_t = 10)]
    held_out_every: u32,
    /// Train on each position as it stands only, not in the board's eight orientations.
    #[arg(long)]
    no_symmetries: bool,
    /// The network's generation (0: learnt from the classic evaluation's games).
    #[arg(long, default_value_t = 0)]
    generation: u32,
    /// Where the data came from, in words, for the network's header.
    #[arg(long, default_value = "")]
    note: String,
}

/// `--features`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Features {
    Pieces,
    PiecesAndTerms,
}

/// A share of the target, 0 to 1.
fn share(text: &str) -> Result<f32, String> {
    match text.parse::<f32>() {
        Ok(share) if (0.0..=1.0).contains(&share) => Ok(share),
        _ => Err(format!("{text:?} is not a share from 0 to 1")),
    }
}

/// The records in the files `given` names (as `--data` takes them), and how many files.
fn read_data(flag: &str, given: &[PathBuf]) -> anyhow::Result<(Vec<Record>, usize)> {
    let files = data_files(flag, given)?;
    let mut records = Vec::new();
    for path in &files {
        let bytes = std::fs::read(path).with_context(|| format!("{flag} {}", path.display()))?;
        records.extend(read_records(&bytes).with_context(|| format!("{flag} {}", path.display()))?);
    }
    Ok((records, files.len()))
}

pub fn run(args: &TrainArgs) -> anyhow::Result<()> {
    let variant = args.variant.variant();
    let (records, files) = read_data("--data", &args.data)?;
    let (result_records, result_files) = read_data("--result-data", &args.result_data)?;
    println!("{} records from {files} files", records.len());
    if !args.result_data.is_empty() {
        println!(
            "{} records from {result_files} files at result weight {}",
            result_records.len(),
            args.result_data_weight
        );
    }
    let named = |given: &[PathBuf]| {
        given
            .iter()
            .map(|path| path.display().to_string())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let result_provenance = if args.result_data.is_empty() {
        String::new()
    } else {
        format!(
            "; result data {} ({result_files} files, {} records, result weight {})",
            named(&args.result_data),
            result_records.len(),
            args.result_data_weight
        )
    };
    let provenance = format!(
        "{}; data {} ({files} files, {} records){result_provenance}; features {:?}, {} epochs, batch {}, learning rate {}, result weight {}, scale {}, seed {}, symmetries {}; tafl {}",
        args.note,
        named(&args.data),
        records.len(),
        args.features,
        args.epochs,
        args.batch_size,
        args.learning_rate,
        args.result_weight,
        args.scale,
        args.seed,
        !args.no_symmetries,
        env!("CARGO_PKG_VERSION")
    );
    let config = TrainConfig {
        variant,
        features: match args.features {
            Features::Pieces => FeatureSet::Pieces,
            Features::PiecesAndTerms => FeatureSet::PiecesAndTerms,
        },
        epochs: args.epochs,
        batch_size: args.batch_size,
        learning_rate: args.learning_rate,
        scale: args.scale,
        seed: args.seed,
        held_out_every: args.held_out_every,
        symmetries: !args.no_symmetries,
        generation: args.generation,
        provenance,
    };
    let started = Instant::now();
    let data = [
        TrainingData {
            records: &records,
            result_weight: args.result_weight,
        },
        TrainingData {
            records: &result_records,
            result_weight: args.result_data_weight,
        },
    ];
    let summary = train(&data, &config, |epoch| {
        println!(
            "epoch {:>3}: train loss {:.6}, validation loss {:.6}, {:.0} positions/s",
            epoch.epoch, epoch.train_loss, epoch.validation_loss, epoch.positions_per_second
        );
    })?;
    println!(
        "{} training and {} validation positions of {variant} in {:.0} s",
        summary.train_positions,
        summary.validation_positions,
        started.elapsed().as_secs_f64()
    );
    std::fs::write(&args.out, summary.network.to_bytes())
        .with_context(|| format!("--out {}", args.out.display()))?;
    println!("wrote {}", args.out.display());
    Ok(())
}

/// The files `flag` names: a file as given, a directory as every file in it, sorted by name.
fn data_files(flag: &str, given: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for path in given {
        if !path.is_dir() {
            files.push(path.clone());
            continue;
        }
        let mut inside = Vec::new();
        for entry in
            std::fs::read_dir(path).with_context(|| format!("{flag} {}", path.display()))?
        {
            let entry = entry.with_context(|| format!("{flag} {}", path.display()))?;
            if entry.file_type()?.is_file() {
                inside.push(entry.path());
            }
        }
        anyhow::ensure!(
            !inside.is_empty(),
            "{flag} {}: an empty directory",
            path.display()
        );
        inside.sort();
        files.extend(inside);
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn a_directory_gives_its_files_by_name_and_a_file_itself() {
        let directory = std::env::temp_dir().join(format!("tafl-shards-{}", std::process::id()));
        std::fs::create_dir_all(directory.join("nested")).expect("a temporary directory");
        for name in ["shard-1.bin", "shard-0.bin"] {
            std::fs::write(directory.join(name), b"").expect("a temporary file");
        }
        let single = Path::new("single.bin").to_path_buf();
        let files = data_files("--data", &[directory.clone(), single.clone()]);
        std::fs::remove_dir_all(&directory).expect("remove the temporary directory");
        assert_eq!(
            files.expect("two shards and a file"),
            [
                directory.join("shard-0.bin"),
                directory.join("shard-1.bin"),
                single
            ]
        );
    }
}
