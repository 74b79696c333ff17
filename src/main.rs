//! `tafl`: serves the gRPC service (the default), and the tools around it.
//! Parses the command line and hands it to `cli/`.

mod cli;

use clap::Parser;

fn main() -> anyhow::Result<()> {
    cli::Cli::parse().run()
}
