//! `tafl levels`: the levels' yardstick (`tafl::lab::levels`). `people`
//! reviews the real games and `play` a player's games against a fixed
//! opponent, each into a file of rows (one a side and game) that a stopped
//! run resumes; `summary` reads rows back; `variety` finds where pairs of
//! games that differ only in their seeds part.

use std::collections::HashSet;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, bail};
use tafl::lab::levels::{PEOPLE, SideRow, Summary, divergence, play_and_review, review_records};
use tafl::lab::matchplay::{MatchConfig, Openings, Player};
use tafl::lab::real_games;
use tafl::rules::{Rules, Variant};
use tafl::search::{Engine, EngineConfig, Level, Limits, ReviewBudget};

use super::VariantArgs;
use super::game_records;
use super::matchplay::{Evaluation, PlayerSpec, Source};

/// `tafl levels` arguments.
#[derive(clap::Args, Debug)]
pub struct LevelsArgs {
    #[command(subcommand)]
    command: LevelsCommand,
}

#[derive(clap::Subcommand, Debug)]
enum LevelsCommand {
    /// Review every real game, appending a row for each side (player "people") to --out; or, with
    /// --games and --player, a level's own games as `tafl match --record` wrote them.
    People(PeopleArgs),
    /// Play A against B from real openings (both colours) and review each game from where its
    /// opening left it, appending a row for each side to --out.
    Play(PlayArgs),
    /// Read rows back: the people's accuracy (median, quartiles, range, a histogram) and error
    /// mix by accuracy, and each other player's accuracy, its place among the people and its
    /// error mix beside theirs at the same accuracy (Markdown tables).
    Summary(SummaryArgs),
    /// Play pairs of games from the start, the player on both sides, the two games of a pair
    /// seeded as two games of a match are, and count the pairs whose games part.
    Variety(VarietyArgs),
}

/// Where rows go and how each game is reviewed.
#[derive(clap::Args, Clone, Debug)]
struct RowsArgs {
    /// The rows' CSV file: appended to, and read first to skip the games it has.
    #[arg(long)]
    out: PathBuf,
    /// Each position's search in the review, nodes: one fixed budget, so a row is the same on
    /// any machine.
    #[arg(long, default_value_t = 20_000)]
    nodes: u64,
    /// Transposition table size, MiB.
    #[arg(long, default_value_t = 16)]
    hash_mb: usize,
}

#[derive(clap::Args, Clone, Debug)]
struct PeopleArgs {
    /// Game records, one a line (`moves,_,_,result`, Copenhagen 11×11); default: the real games
    /// built in (tests/data/copenhagen-games.csv).
    #[arg(long)]
    games: Option<PathBuf>,
    /// Who played both sides of every game, as the rows name it: `level=5` for a level's games
    /// against itself (the whole record, its real opening too).
    #[arg(long, default_value = PEOPLE)]
    player: String,
    #[command(flatten)]
    rows: RowsArgs,
}

#[derive(clap::Args, Clone, Debug)]
struct PlayArgs {
    /// The player measured, as `tafl match` takes it (`level=5`; this build's built-in
    /// evaluation only).
    #[arg(long)]
    a: PlayerSpec,
    /// The fixed opponent.
    #[arg(long, default_value = "level=10,nodes=5000")]
    b: PlayerSpec,
    /// Games to play (rounded up to an even number: both colours per opening).
    #[arg(long, default_value_t = 40)]
    games: u32,
    /// Plies of a real game each opening keeps (default: 4 to 8, in turn by opening).
    #[arg(long)]
    opening_plies: Option<usize>,
    /// A game still going after this many plies is a draw.
    #[arg(long, default_value_t = 300)]
    max_plies: usize,
    /// Games played at once, each on its own thread.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    #[command(flatten)]
    rows: RowsArgs,
}

#[derive(clap::Args, Clone, Debug)]
struct SummaryArgs {
    /// Files of rows.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Leave out a side with fewer judged moves (its accuracy says too little).
    #[arg(long, default_value_t = 10)]
    min_moves: u32,
}

#[derive(clap::Args, Clone, Debug)]
struct VarietyArgs {
    /// The player on every side, as `tafl match` takes it (`level=10,nodes=100000`).
    #[arg(long)]
    player: PlayerSpec,
    /// Pairs of games.
    #[arg(long, default_value_t = 100)]
    pairs: u32,
    /// Plies of each game compared.
    #[arg(long, default_value_t = 10)]
    plies: usize,
    #[command(flatten)]
    variant: VariantArgs,
    /// Transposition table size, MiB.
    #[arg(long, default_value_t = 16)]
    hash_mb: usize,
}

/// Runs the subcommand.
pub fn run(args: &LevelsArgs) -> anyhow::Result<()> {
    match &args.command {
        LevelsCommand::People(args) => people(args),
        LevelsCommand::Play(args) => play(args),
        LevelsCommand::Summary(args) => summary(args),
        LevelsCommand::Variety(args) => variety(args),
    }
}

fn engine(hash_mb: usize) -> Engine {
    Engine::new(EngineConfig {
        hash_mb,
        ..EngineConfig::default()
    })
}

/// Each position's search at `nodes`, without the criticality probe (a row does not need it).
fn review_budget(nodes: u64) -> ReviewBudget {
    let limits = Limits {
        max_nodes: Some(nodes),
        ..Limits::default()
    };
    ReviewBudget::new(&limits, Level::STRONGEST, 0).without_critical()
}

/// The player a spec names, if it plays with this build's built-in evaluation.
fn local_player(spec: &PlayerSpec) -> anyhow::Result<Player> {
    match &spec.source {
        Source::Local {
            weights: None,
            evaluation: Evaluation::Default,
        } => Ok(spec.player.clone()),
        _ => bail!("{spec}: tafl levels plays this build's built-in evaluation only"),
    }
}

/// The rows a file holds (none when it does not exist yet).
fn read_rows(path: &Path) -> anyhow::Result<Vec<SideRow>> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(error).with_context(|| format!("cannot read {}", path.display())),
    };
    let header = SideRow::header();
    text.lines()
        .enumerate()
        .filter(|(_, line)| *line != header)
        .map(|(index, line)| {
            line.parse()
                .with_context(|| format!("{} line {}", path.display(), index + 1))
        })
        .collect()
}

/// The rows `args.out` already holds, and the file opened to append to (its header written when
/// it is new).
fn open_rows(args: &RowsArgs) -> anyhow::Result<(Vec<SideRow>, File)> {
    let rows = read_rows(&args.out)?;
    let new = !args.out.exists();
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&args.out)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    if new {
        writeln!(file, "{}", SideRow::header())?;
    }
    Ok((rows, file))
}

/// The games `rows` holds for `player`.
fn games_of(rows: &[SideRow], player: &str) -> HashSet<u32> {
    rows.iter()
        .filter(|row| row.player == player)
        .map(|row| row.game)
        .collect()
}

/// Appends a game's rows, each line whole.
fn append(file: &mut File, rows: &[SideRow]) {
    let text: String = rows.iter().map(|row| format!("{row}\n")).collect();
    if let Err(error) = file.write_all(text.as_bytes()) {
        eprintln!("cannot write a game's rows: {error}");
    }
}

fn people(args: &PeopleArgs) -> anyhow::Result<()> {
    let records = game_records(args.games.as_deref()).context("--games")?;
    let (done, mut file) = open_rows(&args.rows)?;
    let done = games_of(&done, &args.player);
    let engine = engine(args.rows.hash_mb);
    let started = Instant::now();
    let mut reviewed = done.len();
    review_records(
        &engine,
        &records,
        &args.player,
        &review_budget(args.rows.nodes),
        |game| done.contains(&game),
        |_, rows| {
            append(&mut file, &rows);
            reviewed += 1;
            if reviewed.is_multiple_of(50) || reviewed == records.len() {
                eprintln!(
                    "{reviewed}/{} games reviewed ({:.0} s)",
                    records.len(),
                    started.elapsed().as_secs_f64()
                );
            }
        },
    );
    Ok(())
}

fn play(args: &PlayArgs) -> anyhow::Result<()> {
    let players = [local_player(&args.a)?, local_player(&args.b)?];
    let names = [args.a.to_string(), args.b.to_string()];
    let (done, mut file) = open_rows(&args.rows)?;
    let done = games_of(&done, &names[0]);
    let games = args.games.div_ceil(2) * 2;
    // A match plays a range of games: from the first not done (any done after it is skipped).
    let first = (1..=games)
        .find(|game| !done.contains(game))
        .unwrap_or(games + 1)
        - 1;
    let variant = Variant::standard(Rules::Copenhagen);
    let config = MatchConfig {
        openings: Openings::real(variant, &real_games(), args.opening_plies)?,
        games: first..games,
        max_plies: args.max_plies,
        time_control: None,
    };
    let engine = engine(args.rows.hash_mb);
    let started = Instant::now();
    let summary = play_and_review(
        &engine,
        &config,
        [(&players[0], &names[0]), (&players[1], &names[1])],
        args.threads,
        &review_budget(args.rows.nodes),
        |game| done.contains(&game),
        |game, rows| {
            append(&mut file, &rows);
            let accuracies: Vec<String> = rows
                .iter()
                .map(|row| format!("{} ({}) {:.1}", row.player, row.side, row.accuracy))
                .collect();
            eprintln!(
                "game {game}/{games}: {} ({:.0} s)",
                accuracies.join(", "),
                started.elapsed().as_secs_f64()
            );
        },
    );
    println!(
        "{} against {}: {:.1}/{} games",
        names[0],
        names[1],
        summary.points(),
        summary.games
    );
    Ok(())
}

fn summary(args: &SummaryArgs) -> anyhow::Result<()> {
    let mut rows = Vec::new();
    for path in &args.files {
        rows.extend(read_rows(path)?);
    }
    print!("{}", Summary::new(rows, args.min_moves));
    Ok(())
}

fn variety(args: &VarietyArgs) -> anyhow::Result<()> {
    let player = local_player(&args.player)?;
    let engine = engine(args.hash_mb);
    let started = Instant::now();
    let divergence = divergence(
        &engine,
        args.variant.variant(),
        &player,
        args.pairs,
        args.plies,
        |pairs| {
            if pairs % 10 == 0 {
                eprintln!(
                    "{pairs}/{} pairs ({:.0} s)",
                    args.pairs,
                    started.elapsed().as_secs_f64()
                );
            }
        },
    );
    let (parted, up_to_symmetry) = divergence.parted_pairs();
    let plies_of = |parted: &[Option<usize>]| -> String {
        (1..=args.plies)
            .map(|ply| {
                parted
                    .iter()
                    .filter(|&&at| at == Some(ply))
                    .count()
                    .to_string()
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    println!(
        "{}: {} pairs, {parted} parted within {} plies, {up_to_symmetry} up to the board's symmetries",
        args.player, args.pairs, args.plies
    );
    println!(
        "pairs parting at plies 1..={}: {}",
        args.plies,
        plies_of(&divergence.parted)
    );
    println!(
        "up to symmetry: {}",
        plies_of(&divergence.parted_up_to_symmetry)
    );
    Ok(())
}
