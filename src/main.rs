//! `tafl`: serves the gRPC service (the default), and the tools around it.
//! A thin dispatcher: each subcommand lives in the library.

use anyhow::Context;
use clap::{Parser, Subcommand};
use std::time::Instant;

use tafl::rules::{BoardSize, Position, PositionText, Rules, Variant, divide};
use tafl::service::{Config, Server, telemetry};

/// The rules arbiter and AI of an online tafl (Viking chess) site.
#[derive(Debug, Parser)]
#[command(name = "tafl", version, about, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,

    /// With no subcommand, `tafl` serves: these are `tafl serve`'s flags.
    #[command(flatten)]
    serve: Config,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve tafl.v1.TaflService, health and reflection over gRPC (the default).
    Serve(Config),
    /// Count the move paths of a given length (the move generator's check);
    /// the last line printed is the count.
    Perft(PerftArgs),
    /// Search a fixed set of positions to a fixed depth; prints total nodes (the search's fingerprint) and nodes/s.
    Bench(tafl::search::bench::BenchArgs),
    /// Self-play between two engine settings from the standard start and varied openings; prints the score
    /// with a 95% confidence interval and the Elo difference.
    Match(tafl::search::selfplay::MatchArgs),
    /// Fit the evaluation's weights to real game records (Texel's method); prints the losses
    /// before and after and every weight.
    Tune(tafl::search::tune::TuneArgs),
    /// Self-play training data for the evaluation network, appended to a file (resumable).
    Datagen(DatagenArgs),
    /// Train an evaluation network on `tafl datagen` data; prints the losses of every epoch and
    /// writes the network file.
    Train(TrainArgs),
}

#[derive(Debug, clap::Args)]
struct PerftArgs {
    /// copenhagen, fetlar or tablut.
    #[arg(long, default_value = "copenhagen")]
    rules: Rules,
    /// 9, 11 or 13; default: the start's size, else the rules' own board.
    #[arg(long)]
    size: Option<u32>,
    /// Plies to count.
    #[arg(long)]
    depth: u32,
    /// A position text to start from instead of the standard start.
    #[arg(long)]
    start: Option<String>,
    /// Also print the count below each first move.
    #[arg(long)]
    divide: bool,
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let command = cli.command.unwrap_or(Command::Serve(cli.serve));
    if !matches!(command, Command::Serve(_)) {
        // `serve` sets up its own, exporting over OTLP when configured.
        telemetry::init(None)?;
    }
    match command {
        Command::Serve(config) => serve(config),
        Command::Perft(args) => perft(&args),
        Command::Bench(args) => {
            let network = args.net.as_deref().map(load_network).transpose()?;
            tafl::search::bench::run(&args, network);
            Ok(())
        }
        Command::Match(args) => tafl::search::selfplay::run(&args)
            .map(|_| ())
            .context("tafl match"),
        Command::Tune(args) => tafl::search::tune::run(&args)
            .map(|_| ())
            .context("tafl tune"),
        Command::Datagen(args) => datagen(&args).context("tafl datagen"),
        Command::Train(args) => train(&args).context("tafl train"),
    }
}

#[derive(Debug, clap::Args)]
struct DatagenArgs {
    /// The data file: created, or resumed at the first game it lacks.
    #[arg(long)]
    out: std::path::PathBuf,
    /// copenhagen, fetlar or tablut.
    #[arg(long, default_value = "copenhagen")]
    rules: Rules,
    /// 9, 11 or 13; default: the rules' own board.
    #[arg(long)]
    size: Option<u32>,
    /// Games the file should hold when done.
    #[arg(long, default_value_t = 1000)]
    games: u32,
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
    /// Real games (`moves,_,_,result` a line) whose openings start half the games; only for
    /// Copenhagen 11x11. Empty: random openings only.
    #[arg(long, default_value = "tests/data/copenhagen-games.csv")]
    openings: String,
    /// Transposition table per search, MiB.
    #[arg(long, default_value_t = 4)]
    hash_mb: usize,
}

fn datagen(args: &DatagenArgs) -> anyhow::Result<()> {
    use std::io::{Seek, Write};
    use tafl::search::datagen::{self, DatagenConfig, GameData};

    let size = match args.size {
        Some(n) => BoardSize::new(n)
            .with_context(|| format!("--size {n}: the board must be 9, 11 or 13"))?,
        None => args.rules.default_size(),
    };
    let variant = Variant::new(args.rules, size);
    let openings = if args.openings.is_empty() || variant != Variant::standard(Rules::Copenhagen) {
        Vec::new()
    } else {
        std::fs::read_to_string(&args.openings)
            .with_context(|| format!("--openings {}", args.openings))?
            .lines()
            .filter_map(|line| line.split(',').next())
            .map(|moves| moves.split_whitespace().map(str::to_string).collect())
            .collect()
    };
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&args.out)
        .with_context(|| format!("--out {}", args.out.display()))?;
    let existing = std::fs::read(&args.out)?;
    let (end, first_game) =
        datagen::whole_games(&existing).with_context(|| format!("--out {}", args.out.display()))?;
    file.set_len(end as u64)?;
    file.seek(std::io::SeekFrom::End(0))?;
    if end == 0 {
        file.write_all(&datagen::MAGIC)?;
    }
    let config = DatagenConfig {
        variant,
        nodes: args.nodes,
        first_game,
        games: args.games.saturating_sub(first_game),
        threads: args.threads,
        seed: args.seed,
        max_plies: args.max_plies,
        openings,
        hash_mb: args.hash_mb,
    };
    println!(
        "{variant}: games {first_game}..{} at {} nodes a move, seed {}",
        args.games, args.nodes, args.seed
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

/// A network file, read and checked.
fn load_network(path: &std::path::Path) -> anyhow::Result<std::sync::Arc<tafl::search::Network>> {
    let bytes = std::fs::read(path).with_context(|| format!("network file {}", path.display()))?;
    let network = tafl::search::Network::from_bytes(&bytes)
        .with_context(|| format!("network file {}", path.display()))?;
    Ok(std::sync::Arc::new(network))
}

fn perft(args: &PerftArgs) -> anyhow::Result<()> {
    let setup = args
        .start
        .as_deref()
        .map(str::parse::<PositionText>)
        .transpose()
        .context("--start")?;
    let size = match (args.size, &setup) {
        (Some(n), _) => BoardSize::new(n)
            .with_context(|| format!("--size {n}: the board must be 9, 11 or 13"))?,
        (None, Some(setup)) => setup.size(),
        (None, None) => args.rules.default_size(),
    };
    let variant = Variant::new(args.rules, size);
    let position = match &setup {
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
        tafl::rules::perft(&position, args.depth)
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

/// Runs the server until SIGINT/SIGTERM, then drains and exits 0.
fn serve(config: Config) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        // Searches are the only blocking work: one thread each.
        .max_blocking_threads(config.search_threads())
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async {
        // Inside the runtime: the OTLP exporter's channel lives there.
        let endpoint = telemetry::otlp_endpoint(config.otlp_endpoint.as_deref());
        let telemetry = telemetry::init(endpoint.as_deref())?;
        let served = async {
            let server = Server::start(config).await?;
            server.run_until_signal().await?;
            anyhow::Ok(())
        }
        .await;
        // The last spans, those of the drain, go out before the process ends.
        tokio::task::spawn_blocking(move || telemetry.shutdown()).await?;
        served
    })
}

#[derive(Debug, clap::Args)]
struct TrainArgs {
    /// Data files written by `tafl datagen` (repeat to join several).
    #[arg(long, required = true)]
    data: Vec<std::path::PathBuf>,
    /// The network file to write.
    #[arg(long)]
    out: std::path::PathBuf,
    /// copenhagen, fetlar or tablut: the variant whose positions are trained on.
    #[arg(long, default_value = "copenhagen")]
    rules: Rules,
    /// 9, 11 or 13; default: the rules' own board.
    #[arg(long)]
    size: Option<u32>,
    #[arg(long, default_value_t = 12)]
    epochs: u32,
    #[arg(long, default_value_t = 1024)]
    batch_size: usize,
    /// Adam's step size at the start (it decays to a tenth by the last epoch).
    #[arg(long, default_value_t = 0.002)]
    learning_rate: f32,
    /// The game result's share of the target; the search score has the rest.
    #[arg(long, default_value_t = 0.3)]
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

fn train(args: &TrainArgs) -> anyhow::Result<()> {
    use tafl::search::datagen::read_records;
    use tafl::search::train::{TrainConfig, train};

    let size = match args.size {
        Some(n) => BoardSize::new(n)
            .with_context(|| format!("--size {n}: the board must be 9, 11 or 13"))?,
        None => args.rules.default_size(),
    };
    let variant = Variant::new(args.rules, size);
    let mut records = Vec::new();
    for path in &args.data {
        let bytes = std::fs::read(path).with_context(|| format!("--data {}", path.display()))?;
        records.extend(read_records(&bytes).with_context(|| format!("--data {}", path.display()))?);
    }
    let files: Vec<String> = args
        .data
        .iter()
        .map(|path| path.display().to_string())
        .collect();
    let provenance = format!(
        "{}; data {} ({} records); {} epochs, batch {}, learning rate {}, result weight {}, scale {}, seed {}, symmetries {}; tafl {}",
        args.note,
        files.join(" "),
        records.len(),
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
        epochs: args.epochs,
        batch_size: args.batch_size,
        learning_rate: args.learning_rate,
        result_weight: args.result_weight,
        scale: args.scale,
        seed: args.seed,
        held_out_every: args.held_out_every,
        symmetries: !args.no_symmetries,
        generation: args.generation,
        provenance,
    };
    let started = Instant::now();
    let summary = train(&records, &config, |epoch| {
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
