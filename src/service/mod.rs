//! The gRPC service: `tafl.v1.TaflService` (proto/tafl/v1/tafl.proto) with
//! `grpc.health.v1` health and server reflection, over the rules and the search.
//!
//! [`Server::start`] binds and serves in the background, so both `main` and
//! the integration tests (on port 0) run the very same server:
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use tafl::service::{Config, Server, shutdown::Signals};
//! // Watch first: a SIGTERM that comes once the server answers must find the handler.
//! let signals = Signals::watch()?;
//! let server = Server::start(Config::default()).await?;
//! println!("serving on {}", server.local_addr());
//! signals.received().await;
//! server.shutdown().await?;
//! # Ok(())
//! # }
//! ```

// Internals: callers use the re-exports below, the generated `pb` types,
// `telemetry` (a binary sets up its own) and `shutdown::Signals`.
mod api;
mod config;
mod error;
mod exec;
mod log_fields;
mod log_time;
pub mod telemetry;
mod transport;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tonic_health::ServingStatus;
use tonic_health::server::HealthReporter;

pub use api::{State, TaflApi};
pub use config::{
    CapsConfig, Config, ConfigError, ExecConfig, Setting, ShutdownConfig, TelemetryConfig,
    TlsConfig, TransportConfig,
};
pub use error::ServiceError;
pub use transport::shutdown;
use transport::{connection, deadline, health, request_bytes, response_bytes, tls};

/// The generated protobuf types, server and client of `tafl.v1`.
#[allow(missing_docs, clippy::all, clippy::pedantic)]
pub mod pb {
    tonic::include_proto!("tafl.v1");
    // The server's trait and router (build.rs: its LegalMoves reply is ours).
    include!(concat!(env!("OUT_DIR"), "/server/tafl.v1.rs"));

    /// The encoded descriptors of `tafl.v1`, for reflection.
    pub const FILE_DESCRIPTOR_SET: &[u8] =
        include_bytes!(concat!(env!("OUT_DIR"), "/tafl_descriptor.bin"));
}

/// The full name health reports the service under.
pub const SERVICE_NAME: &str = "tafl.v1.TaflService";

/// Why the server could not start or stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// Configuration values that do not fit together.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The listen address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// Why not.
        source: std::io::Error,
    },
    /// The reflection service could not be built from the descriptors.
    #[error("reflection: {0}")]
    Reflection(#[from] tonic_reflection::server::Error),
    /// A TLS file could not be read.
    #[error(transparent)]
    TlsFile(#[from] tls::TlsFileError),
    /// The transport failed (or refused the TLS certificate or key).
    #[error("transport: {0}")]
    Transport(#[from] tonic::transport::Error),
    /// The evaluation network file could not be read or was refused.
    #[error("evaluation network {path}: {reason}")]
    Network {
        /// The file.
        path: std::path::PathBuf,
        /// Why not.
        reason: String,
    },
    /// The serving task panicked or was cancelled.
    #[error("server task: {0}")]
    Task(#[from] tokio::task::JoinError),
}

/// `tafl.v1.TaflService` with the request size limit from `config`, ready
/// to add to a tonic router.
pub fn service(state: Arc<State>) -> pb::tafl_service_server::TaflServiceServer<TaflApi> {
    let max_message_bytes = state.config.transport.max_message_bytes;
    pb::tafl_service_server::TaflServiceServer::new(TaflApi::new(state))
        .max_decoding_message_size(max_message_bytes)
}

/// A running server: its address, and the means to stop it gracefully.
#[derive(Debug)]
pub struct Server {
    local_addr: SocketAddr,
    state: Arc<State>,
    health: HealthReporter,
    health_drain: health::HealthDrain,
    stop: oneshot::Sender<()>,
    task: JoinHandle<Result<(), tonic::transport::Error>>,
}

impl Server {
    /// Binds `config.transport.listen` (port 0 picks a free port) and serves in the
    /// background: the tafl service, health and reflection v1 and v1alpha.
    ///
    /// # Errors
    /// The configuration's values do not fit together ([`Config::validate`]),
    /// the address cannot be bound, or the reflection descriptors are broken.
    pub async fn start(config: Config) -> Result<Server, ServeError> {
        config.validate()?;
        let transport = &config.transport;
        let listener = TcpListener::bind(transport.listen)
            .await
            .map_err(|source| ServeError::Bind {
                addr: transport.listen,
                source,
            })?;
        let local_addr = listener.local_addr().map_err(|source| ServeError::Bind {
            addr: transport.listen,
            source,
        })?;

        let health = HealthReporter::new();
        let (health_service, health_drain) = health::service(&health);
        health.set_service_status("", ServingStatus::Serving).await;
        health
            .set_service_status(SERVICE_NAME, ServingStatus::Serving)
            .await;

        // Reflection describes the error details too, so that tools such as `buf curl` decode them.
        let reflection = || {
            tonic_reflection::server::Builder::configure()
                .register_encoded_file_descriptor_set(pb::FILE_DESCRIPTOR_SET)
                .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
                .register_encoded_file_descriptor_set(tonic_types::pb::FILE_DESCRIPTOR_SET)
        };
        let reflection_v1 = reflection().build_v1()?;
        let reflection_v1alpha = reflection().build_v1alpha()?;

        let networks = eval_networks(&config)?;
        let state = Arc::new(State::new(config, networks));
        let (stop, stopped) = oneshot::channel::<()>();
        let transport = &state.config.transport;
        let responses = response_bytes::ResponseBudget::new(transport);
        let incoming = connection::incoming(
            listener,
            connection::ConnectionLimits::from_config(transport),
            responses.clone(),
        );
        // GOAWAY at the maximum age; the connection closes itself at the end of the grace.
        let mut builder = tonic::transport::Server::builder()
            .max_concurrent_streams(transport.max_streams_per_connection)
            .http2_keepalive_interval(Some(transport.keepalive_interval))
            .http2_keepalive_timeout(Some(transport.keepalive_timeout))
            .max_connection_age(transport.max_connection_age);
        if let Some(tls) = tls::server_config(transport)? {
            builder = builder.tls_config(tls)?;
        }
        let router = builder
            .layer(connection::CallTrackingLayer::new(transport))
            .layer(telemetry::layer(connection::peer_addr))
            .layer(deadline::DeadlineLayer)
            .layer(response_bytes::ResponseBytesLayer::new(
                responses,
                connection::waiting_responses,
            ))
            .layer(request_bytes::RequestBytesLayer::new(transport))
            .add_service(health_service)
            .add_service(reflection_v1)
            .add_service(reflection_v1alpha)
            .add_service(service(Arc::clone(&state)));
        let task = tokio::spawn(router.serve_with_incoming_shutdown(incoming, async {
            // A dropped sender stops the server too.
            let _ = stopped.await;
        }));
        tracing::info!(
            %local_addr,
            transport = tls::mode(transport),
            "serving tafl.v1.TaflService, health and reflection"
        );
        Ok(Server {
            local_addr,
            state,
            health,
            health_drain,
            stop,
            task,
        })
    }

    /// The address the server listens on (the real port when asked for port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// Stops gracefully: health turns NOT_SERVING and Watch streams end
    /// (calls are still taken for the drain delay), then no new calls, and
    /// in-flight calls get the grace period to finish. At its end running
    /// searches are told to stop and answer with their best move so far;
    /// [`STOP_FLUSH`] later the server stops whatever still runs.
    ///
    /// # Errors
    /// The transport failed.
    pub async fn shutdown(self) -> Result<(), ServeError> {
        tracing::info!("shutting down: health NOT_SERVING");
        self.health
            .set_service_status("", ServingStatus::NotServing)
            .await;
        self.health
            .set_service_status(SERVICE_NAME, ServingStatus::NotServing)
            .await;
        self.health_drain.end_watches();
        let shutdown = &self.state.config.shutdown;
        tokio::time::sleep(shutdown.drain_delay).await;
        let _ = self.stop.send(());
        let mut task = self.task;
        if let Ok(result) = tokio::time::timeout(shutdown.grace, &mut task).await {
            result??;
            tracing::info!("all calls finished; stopped");
            return Ok(());
        }
        tracing::warn!(
            grace_ms = shutdown.grace.as_millis() as u64,
            "calls still running after the grace period; searches answer with what they have"
        );
        self.state.pool.stop_all();
        if let Ok(result) = tokio::time::timeout(STOP_FLUSH, &mut task).await {
            result??;
            tracing::info!("the last calls finished; stopped");
        } else {
            tracing::warn!("calls still running; stopping anyway");
            task.abort();
        }
        Ok(())
    }
}

/// How long, past the grace period, stopped searches have to send their
/// answers before the server stops anyway: `tafl serve` ends within the
/// drain delay + the grace period + this + a few milliseconds.
pub const STOP_FLUSH: Duration = Duration::from_millis(80);

/// The built-in networks with the files `config.exec.eval_net` names in their variants' places.
///
/// # Errors
/// [`ServeError::Network`] when a file cannot be read, is not a network this build runs, or is a
/// second for one variant.
fn eval_networks(config: &Config) -> Result<crate::search::Networks, ServeError> {
    crate::search::Networks::built_in_replaced_by(&config.exec.eval_net).map_err(|error| {
        ServeError::Network {
            path: error.path,
            reason: error.kind.to_string(),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unreadable_or_foreign_network_file_is_refused_naming_it() {
        let mut missing = Config::default();
        missing.exec.eval_net = vec!["/nonexistent/net.nnue".into()];
        let error = eval_networks(&missing).expect_err("no such file");
        assert!(
            error.to_string().contains("/nonexistent/net.nnue"),
            "{error}"
        );
        let path = std::env::temp_dir().join(format!("tafl-not-a-net-{}", std::process::id()));
        std::fs::write(&path, b"not a network").expect("a temporary file");
        let mut foreign = Config::default();
        foreign.exec.eval_net = vec![path.clone()];
        let error = eval_networks(&foreign).expect_err("not a network");
        std::fs::remove_file(&path).expect("remove the temporary file");
        assert!(error.to_string().contains("magic"), "{error}");
        let built_in = eval_networks(&Config::default()).expect("no file named");
        assert_eq!(
            built_in.iter().count(),
            crate::search::Networks::built_in().iter().count()
        );
    }
}
