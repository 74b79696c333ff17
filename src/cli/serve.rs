//! `tafl serve` (and `tafl` alone): the gRPC server until SIGINT/SIGTERM.

use std::time::Instant;

use anyhow::Context;
use tafl::service::shutdown::Signals;
use tafl::service::{Config, STOP_FLUSH, Server, telemetry};

/// Runs the server until SIGINT/SIGTERM, then drains and exits 0, within the
/// drain delay + the grace period + [`STOP_FLUSH`] + a few milliseconds. A
/// configuration value out of range exits 2 with a sentence naming the flag
/// (as clap does for a value it cannot parse).
pub fn run(config: Config) -> anyhow::Result<()> {
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
            let signals = Signals::watch().context("cannot watch SIGINT and SIGTERM")?;
            let server = Server::start(config.clone()).await?;
            signals.received().await;
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
