//! Watching for the signals that stop the server.

use std::io;

/// SIGINT (Ctrl-C) and, on Unix, SIGTERM (what Kubernetes sends), watched
/// from the moment [`Signals::watch`] returns.
///
/// Watch before the server starts serving: until then a SIGTERM takes its
/// default action and kills the process, so a signal that came right after
/// the first call was answered (a fast rolling update, a test) would end it
/// without the graceful shutdown.
#[derive(Debug)]
pub struct Signals {
    #[cfg(unix)]
    interrupt: tokio::signal::unix::Signal,
    #[cfg(unix)]
    terminate: tokio::signal::unix::Signal,
}

impl Signals {
    /// Starts watching. Must be called inside a Tokio runtime.
    ///
    /// # Errors
    /// The signal handlers cannot be installed.
    pub fn watch() -> io::Result<Signals> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Ok(Signals {
                interrupt: signal(SignalKind::interrupt())?,
                terminate: signal(SignalKind::terminate())?,
            })
        }
        #[cfg(not(unix))]
        Ok(Signals {})
    }

    /// Resolves on the first signal since the watch began.
    pub async fn received(mut self) {
        #[cfg(unix)]
        tokio::select! {
            _ = self.interrupt.recv() => tracing::info!("SIGINT received"),
            _ = self.terminate.recv() => tracing::info!("SIGTERM received"),
        }
        #[cfg(not(unix))]
        {
            // Ctrl-C is watched from the first poll here (there is no SIGTERM).
            if let Err(error) = tokio::signal::ctrl_c().await {
                tracing::error!(%error, "cannot watch Ctrl-C");
                std::future::pending::<()>().await;
            }
            tracing::info!("Ctrl-C received");
        }
    }
}
