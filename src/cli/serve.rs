//! `tafl serve` (and `tafl` alone): the gRPC server until SIGINT/SIGTERM.

use anyhow::Context;
use tafl::service::{Config, Server, telemetry};

/// Runs the server until SIGINT/SIGTERM, then drains and exits 0.
pub fn run(config: Config) -> anyhow::Result<()> {
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
