//! The server's configuration: one struct, read from flags and `TAFL_*`
//! environment variables, with defaults that work on a laptop.

use std::net::SocketAddr;
use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::time::Duration;

/// Everything `tafl serve` can be told. Flags win over environment variables,
/// which win over the defaults.
#[derive(Clone, Debug, clap::Args)]
pub struct Config {
    /// Address to serve gRPC on.
    #[arg(long, env = "TAFL_LISTEN", default_value = "127.0.0.1:50051")]
    pub listen: SocketAddr,

    /// Threads that run searches (Evaluate with limits, SuggestMove); 0: one per CPU core.
    #[arg(long, env = "TAFL_SEARCH_THREADS", default_value_t = 0)]
    pub search_threads: usize,

    /// Searches that run at once; 0: as many as there are search threads.
    #[arg(long, env = "TAFL_MAX_CONCURRENT_SEARCHES", default_value_t = 0)]
    pub max_concurrent_searches: usize,

    /// Searches that may wait for a free slot; past that, RESOURCE_EXHAUSTED at once.
    #[arg(long, env = "TAFL_MAX_QUEUED_SEARCHES", default_value_t = 64)]
    pub max_queued_searches: usize,

    /// Transposition table size in MiB, for each running search.
    #[arg(long, env = "TAFL_HASH_MB", default_value_t = 64)]
    pub hash_mb: usize,

    /// Most moves a request's game may hold (game.moves); more is INVALID_ARGUMENT.
    #[arg(long, env = "TAFL_MAX_GAME_PLIES", default_value_t = 4096)]
    pub max_game_plies: usize,

    /// Largest request message in bytes; larger ones are refused before decoding.
    #[arg(long, env = "TAFL_MAX_MESSAGE_BYTES", default_value_t = 4 << 20)]
    pub max_message_bytes: usize,

    /// Deepest search the server runs, whatever a caller asks (plies).
    #[arg(long, env = "TAFL_MAX_SEARCH_DEPTH", default_value_t = 32)]
    pub max_search_depth: u32,

    /// Longest a search may think, whatever a caller asks (milliseconds).
    #[arg(long, env = "TAFL_MAX_SEARCH_TIME_MS", default_value_t = 10_000)]
    pub max_search_time_ms: u64,

    /// Most positions a search may visit, whatever a caller asks.
    #[arg(long, env = "TAFL_MAX_SEARCH_NODES", default_value_t = 200_000_000)]
    pub max_search_nodes: u64,

    /// Taken off a call's deadline (grpc-timeout) so the answer still arrives in time (milliseconds).
    #[arg(long, env = "TAFL_DEADLINE_MARGIN_MS", default_value_t = 10)]
    pub deadline_margin_ms: u64,

    /// And this share of the deadline too, at most 250 ms: a search looks at the clock only now and then.
    #[arg(long, env = "TAFL_DEADLINE_MARGIN_PERCENT", default_value_t = 15)]
    pub deadline_margin_percent: u32,

    /// On SIGINT/SIGTERM: how long health says NOT_SERVING while calls are still taken,
    /// so load balancers can drain this replica (milliseconds).
    #[arg(long, env = "TAFL_DRAIN_DELAY_MS", default_value_t = 0)]
    pub drain_delay_ms: u64,

    /// On SIGINT/SIGTERM: how long in-flight calls may take to finish before the server exits anyway (milliseconds).
    #[arg(long, env = "TAFL_SHUTDOWN_GRACE_MS", default_value_t = 15_000)]
    pub shutdown_grace_ms: u64,

    /// OTLP/gRPC collector to export traces and metrics to (`http://host:4317`);
    /// unset: OTEL_EXPORTER_OTLP_ENDPOINT, and if that is unset too, logs only.
    #[arg(long, env = "TAFL_OTLP_ENDPOINT")]
    pub otlp_endpoint: Option<String>,

    /// PEM certificate chain to serve TLS with (needs --tls-key); unset: plaintext.
    #[arg(long, env = "TAFL_TLS_CERT", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,

    /// PEM private key for --tls-cert. Only the path is kept: the key is read at start and never logged.
    #[arg(long, env = "TAFL_TLS_KEY", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,

    /// PEM CA certificates: clients must present a certificate signed by one (mutual TLS).
    #[arg(long, env = "TAFL_TLS_CLIENT_CA", requires = "tls_cert")]
    pub tls_client_ca: Option<PathBuf>,

    /// Evaluation network file (as `tafl train` writes it), used for games of its variant; unset:
    /// the engine's default evaluation. A file that cannot be read stops the server at start.
    #[arg(long, env = "TAFL_EVAL_NET")]
    pub eval_net: Option<PathBuf>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            listen: SocketAddr::from(([127, 0, 0, 1], 50051)),
            search_threads: 0,
            max_concurrent_searches: 0,
            max_queued_searches: 64,
            hash_mb: 64,
            max_game_plies: 4096,
            max_message_bytes: 4 << 20,
            max_search_depth: 32,
            max_search_time_ms: 10_000,
            max_search_nodes: 200_000_000,
            deadline_margin_ms: 10,
            deadline_margin_percent: 15,
            drain_delay_ms: 0,
            shutdown_grace_ms: 15_000,
            otlp_endpoint: None,
            tls_cert: None,
            tls_key: None,
            tls_client_ca: None,
            eval_net: None,
        }
    }
}

impl Config {
    /// Search threads with 0 resolved to the number of CPU cores.
    pub fn search_threads(&self) -> usize {
        if self.search_threads > 0 {
            self.search_threads
        } else {
            std::thread::available_parallelism().map_or(2, NonZeroUsize::get)
        }
    }

    /// Concurrent searches with 0 resolved to the number of search threads.
    pub fn max_concurrent_searches(&self) -> usize {
        if self.max_concurrent_searches > 0 {
            self.max_concurrent_searches
        } else {
            self.search_threads()
        }
    }

    /// How long health reports NOT_SERVING before the server stops accepting calls.
    pub fn drain_delay(&self) -> Duration {
        Duration::from_millis(self.drain_delay_ms)
    }

    /// How long in-flight calls may take after shutdown starts.
    pub fn shutdown_grace(&self) -> Duration {
        Duration::from_millis(self.shutdown_grace_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        config: Config,
    }

    fn parse(args: &[&str]) -> Config {
        Cli::try_parse_from(std::iter::once("tafl").chain(args.iter().copied()))
            .expect("parses")
            .config
    }

    #[test]
    fn flag_defaults_match_default() {
        // Unless the environment sets them (CI does not).
        if std::env::vars().any(|(name, _)| name.starts_with("TAFL_")) {
            return;
        }
        let parsed = format!("{:?}", parse(&[]));
        assert_eq!(parsed, format!("{:?}", Config::default()));
    }

    #[test]
    fn flags_override() {
        let config = parse(&[
            "--listen",
            "0.0.0.0:9000",
            "--max-game-plies",
            "12",
            "--search-threads",
            "3",
        ]);
        assert_eq!(config.listen, SocketAddr::from(([0, 0, 0, 0], 9000)));
        assert_eq!(config.max_game_plies, 12);
        assert_eq!(config.search_threads(), 3);
        assert_eq!(config.max_concurrent_searches(), 3);
    }

    #[test]
    fn bad_flags_are_refused() {
        assert!(Cli::try_parse_from(["tafl", "--listen", "nowhere"]).is_err());
        assert!(Cli::try_parse_from(["tafl", "--max-game-plies", "-1"]).is_err());
    }
}
