//! `tafl`: serves the gRPC service (the default), and the tools around it.
//! A thin dispatcher: each subcommand lives in the library.

use anyhow::Context;
use clap::{Parser, Subcommand};
use tafl::service::{Config, Server};

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
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .init();
    match cli.command.unwrap_or(Command::Serve(cli.serve)) {
        Command::Serve(config) => serve(config),
    }
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
        let server = Server::start(config).await?;
        server.run_until_signal().await?;
        anyhow::Ok(())
    })
}
