//! `tafl`: serves the gRPC service (the default), and the tools around it.
//! A thin dispatcher: each subcommand lives in the library.

use anyhow::Context;
use clap::{Parser, Subcommand};
use std::time::Instant;

use tafl::rules::{BoardSize, Position, PositionText, Rules, Variant, divide};
use tafl::service::{Config, STOP_FLUSH, Server, shutdown, telemetry};

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
            tafl::search::bench::run(&args);
            Ok(())
        }
        Command::Match(args) => tafl::search::selfplay::run(&args)
            .map(|_| ())
            .context("tafl match"),
        Command::Tune(args) => tafl::search::tune::run(&args)
            .map(|_| ())
            .context("tafl tune"),
    }
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

/// Runs the server until SIGINT/SIGTERM, then drains and exits 0, within the
/// drain delay + the grace period + a few tens of milliseconds. A
/// configuration value out of range exits 2 with a sentence naming the flag
/// (as clap does for a value it cannot parse).
fn serve(config: Config) -> anyhow::Result<()> {
    if let Err(error) = config.validate() {
        clap::Error::raw(
            clap::error::ErrorKind::ValueValidation,
            format!("{error}\n"),
        )
        .exit();
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        // Searches and long replays are the only blocking work: one thread each, and one
        // for the last telemetry flush.
        .max_blocking_threads(config.search_threads() + config.replay_threads() + 1)
        .build()
        .context("cannot start the async runtime")?;
    let served = runtime.block_on(async {
        // Inside the runtime: the OTLP exporter's channel lives there.
        let endpoint = telemetry::otlp_endpoint(config.otlp_endpoint.as_deref());
        let telemetry = telemetry::init(endpoint.as_deref())?;
        let mut exit_by = None;
        let served = async {
            let server = Server::start(config.clone()).await?;
            shutdown::signal().await;
            exit_by =
                Some(Instant::now() + config.drain_delay() + config.shutdown_grace() + STOP_FLUSH);
            server.shutdown().await?;
            anyhow::Ok(())
        }
        .await;
        // The last spans, those of the drain, go out before the process ends, if
        // there is time left for them.
        let flush = tokio::task::spawn_blocking(move || telemetry.shutdown());
        match exit_by {
            Some(exit_by) => {
                if tokio::time::timeout_at(exit_by.into(), flush)
                    .await
                    .is_err()
                {
                    tracing::warn!("no time left to send the last telemetry");
                }
            }
            None => flush.await?,
        }
        served
    });
    // Whatever still runs on a blocking thread is not waited for.
    runtime.shutdown_background();
    served
}
