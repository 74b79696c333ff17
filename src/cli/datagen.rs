//! `tafl datagen`: self-play training data for the evaluation network, appended to a file
//! (the format: `tafl::lab::datagen::Record`). A file cut short resumes at the first game it lacks.

use std::io::{Seek, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::Context;
use clap::builder::{OsStringValueParser, TypedValueParser};
use tafl::lab::datagen::{self, DatagenConfig, GameData, Source};
use tafl::rules::{Rules, Variant};
use tafl::search::{Network, Networks};

use super::{VariantArgs, game_records};

#[derive(Debug, clap::Args)]
pub struct DatagenArgs {
    /// The data file: created, or resumed at the first game it lacks.
    #[arg(long)]
    out: PathBuf,
    #[command(flatten)]
    variant: VariantArgs,
    /// Games the file should hold when done.
    #[arg(long, default_value_t = 1000)]
    games: u32,
    /// Play shard K of the seed's games: games K × `--games` up to (K + 1) × `--games` (so
    /// `--games` counts one shard's), the games one run of the seed would play there. The shards
    /// of one seed, each in its own file on its own machine, together hold one run's games, each
    /// once (a Kubernetes Indexed Job's pods: deploy/k8s/datagen/).
    #[arg(long)]
    shard: Option<u32>,
    /// Node budget of each move's search.
    #[arg(long, default_value_t = 5000)]
    nodes: u64,
    /// Games played at once.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// A game still going after this many plies counts as drawn.
    #[arg(long, default_value_t = 300)]
    max_plies: usize,
    /// Real games (`moves,_,_,result` a line) whose openings start `--real-openings` percent of
    /// the games; only for Copenhagen 11x11. Default: the real games built in
    /// (tests/data/copenhagen-games.csv); an empty path: random openings only.
    #[arg(long, value_parser = OsStringValueParser::new().map(PathBuf::from))]
    openings: Option<PathBuf>,
    /// Percent of the games that start from a real game's first plies (the others from random
    /// plies).
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u8).range(0..=100))]
    real_openings: u8,
    /// A real opening is the real game's first `--real-opening-min-plies` to this many plies
    /// (drawn per game); more reach into the middlegame, where the humans' cordons and forts
    /// stand.
    #[arg(long, default_value_t = 12, value_parser = clap::value_parser!(u16).range(2..=1000))]
    real_opening_plies: u16,
    /// The fewest plies of a real opening: a deeper start plays on from a game's later
    /// positions (a long game's endgame), as far as the game goes.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(2..=1000))]
    real_opening_min_plies: u16,
    /// Instead of self-play, replay these recorded games (`moves,_,_,result` a line, e.g.
    /// tests/data/copenhagen-games.csv): game k is the k-th line, each position searched and kept
    /// with the recorded result.
    #[arg(long, conflicts_with = "openings")]
    records: Option<PathBuf>,
    /// Transposition table per search, MiB.
    #[arg(long, default_value_t = 4)]
    hash_mb: usize,
    /// Play with this network file instead of the built-in one.
    #[arg(long, conflicts_with = "classic")]
    net: Option<PathBuf>,
    /// Play with the classic evaluation (how generation 0's data was made).
    #[arg(long)]
    classic: bool,
}

pub fn run(args: &DatagenArgs) -> anyhow::Result<()> {
    let (fewest, most) = (args.real_opening_min_plies, args.real_opening_plies);
    if fewest > most {
        anyhow::bail!(
            "--real-opening-min-plies {fewest} is more than --real-opening-plies {most}: \
             a real opening could have no length"
        );
    }
    let variant = args.variant.variant();
    let no_openings = args
        .openings
        .as_ref()
        .is_some_and(|path| path.as_os_str().is_empty());
    let source = match &args.records {
        Some(path) => Source::Records(game_records(Some(path))?),
        None if no_openings || variant != Variant::standard(Rules::Copenhagen) => {
            Source::SelfPlay {
                openings: Vec::new(),
                real_percent: 0,
                real_plies: 0..=0,
            }
        }
        None => Source::SelfPlay {
            openings: game_records(args.openings.as_deref())?
                .into_iter()
                .map(|record| record.moves)
                .collect(),
            real_percent: args.real_openings,
            real_plies: usize::from(args.real_opening_min_plies)
                ..=usize::from(args.real_opening_plies),
        },
    };
    let recorded = match &source {
        Source::Records(records) => Some(records.len()),
        Source::SelfPlay { .. } => None,
    };
    let std::ops::Range { start, end } = game_range(args.shard, args.games, recorded);
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&args.out)
        .with_context(|| format!("--out {}", args.out.display()))?;
    let existing = std::fs::read(&args.out)?;
    let (whole, next_game) =
        datagen::whole_games(&existing).with_context(|| format!("--out {}", args.out.display()))?;
    let first_game = next_game.max(start);
    file.set_len(whole as u64)?;
    file.seek(std::io::SeekFrom::End(0))?;
    if whole == 0 {
        file.write_all(&datagen::MAGIC)?;
    }
    let config = DatagenConfig {
        variant,
        nodes: args.nodes,
        first_game,
        games: end.saturating_sub(first_game),
        threads: args.threads,
        seed: args.seed,
        max_plies: args.max_plies,
        source,
        hash_mb: args.hash_mb,
        network: match &args.net {
            _ if args.classic => None,
            Some(path) => Some(Arc::new(
                Network::read_file_for(path, variant)
                    .with_context(|| format!("--net {}", path.display()))?,
            )),
            None => Networks::built_in().get(variant).cloned(),
        },
    };
    println!(
        "{variant}: games {first_game}..{end} at {} nodes a move, seed {}",
        args.nodes, args.seed
    );
    let started = Instant::now();
    let mut positions = 0;
    datagen::generate(&config, |data: GameData| {
        file.write_all(&data.bytes)?;
        file.flush()?;
        positions += data.positions;
        let seconds = started.elapsed().as_secs_f64();
        println!(
            "game {}: {} plies, {:?}, {} positions kept; {positions} in {seconds:.0} s ({:.1}/s)",
            data.game,
            data.plies,
            data.status,
            data.positions,
            positions as f64 / seconds.max(1e-9)
        );
        anyhow::Ok(())
    })
}

/// The games the file should hold: `0..games`, or shard K's `K × games .. (K + 1) × games`; no
/// further than the last of `recorded` games when replaying records.
fn game_range(shard: Option<u32>, games: u32, recorded: Option<usize>) -> std::ops::Range<u32> {
    let start = shard.map_or(0, |shard| shard.saturating_mul(games));
    let end = start.saturating_add(games);
    let last = recorded.map_or(u32::MAX, |records| {
        u32::try_from(records).unwrap_or(u32::MAX)
    });
    start..end.min(last)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Cli, Command};
    use clap::Parser;

    #[test]
    fn an_empty_openings_path_is_read_as_no_real_openings() {
        let parsed = Cli::try_parse_from(["tafl", "datagen", "--out", "d.bin", "--openings", ""]);
        let Some(Command::Datagen(args)) = parsed.expect("parses").command else {
            panic!("not datagen");
        };
        assert_eq!(args.openings, Some(PathBuf::new()));
    }

    #[test]
    fn a_real_opening_is_never_shorter_than_its_fewest_plies_allow() {
        let parsed = Cli::try_parse_from([
            "tafl",
            "datagen",
            "--out",
            "d.bin",
            "--real-opening-min-plies",
            "150",
        ]);
        let Some(Command::Datagen(args)) = parsed.expect("parses").command else {
            panic!("not datagen");
        };
        let error = run(&args).expect_err("150 fewest, 12 most");
        assert_eq!(
            error.to_string(),
            "--real-opening-min-plies 150 is more than --real-opening-plies 12: a real opening \
             could have no length"
        );
        assert!(!std::path::Path::new("d.bin").exists());
    }

    #[test]
    fn a_shard_is_its_slice_of_the_seeds_games() {
        assert_eq!(game_range(None, 1000, None), 0..1000);
        assert_eq!(game_range(Some(0), 900, None), 0..900);
        assert_eq!(game_range(Some(15), 900, None), 13_500..14_400);
        // Recorded games end where the records do; a shard past them plays none.
        assert_eq!(game_range(Some(1), 900, Some(1752)), 900..1752);
        assert!(game_range(Some(2), 900, Some(1752)).is_empty());
        assert_eq!(game_range(Some(u32::MAX), 2, None), u32::MAX..u32::MAX);
    }
}
