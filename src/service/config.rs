//! The server's configuration: one struct, read from flags and `TAFL_*`
//! environment variables, with defaults that work on a laptop.

use std::net::SocketAddr;
use std::num::NonZeroUsize;
use std::ops::RangeInclusive;
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

    /// Request bytes one connection's calls may hold at once (each call counts its message's
    /// length from when its first bytes arrive until it ends); past that, RESOURCE_EXHAUSTED.
    /// At least --max-message-bytes.
    #[arg(long, env = "TAFL_MAX_REQUEST_BYTES_PER_CONNECTION", default_value_t = 16 << 20)]
    pub max_request_bytes_per_connection: usize,

    /// Request bytes all calls may hold at once, as above. At least --max-message-bytes.
    #[arg(long, env = "TAFL_MAX_REQUEST_BYTES", default_value_t = 64 << 20)]
    pub max_request_bytes: usize,

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

    /// HTTP/2 streams (calls, Watch streams) one connection may hold open at once; past that
    /// the client must wait (a well-behaved client does) or its new streams are refused.
    #[arg(long, env = "TAFL_MAX_STREAMS_PER_CONNECTION", default_value_t = 128)]
    pub max_streams_per_connection: u32,

    /// Open connections the server holds at once; past that, new ones wait in the listen backlog.
    #[arg(long, env = "TAFL_MAX_CONNECTIONS", default_value_t = 512)]
    pub max_connections: usize,

    /// A new connection that has not started a call within this long (TLS handshake, HTTP/2
    /// preface and first request included) is closed (milliseconds).
    #[arg(long, env = "TAFL_HANDSHAKE_TIMEOUT_MS", default_value_t = 10_000)]
    pub handshake_timeout_ms: u64,

    /// A connection with no call open for this long is closed (milliseconds).
    #[arg(long, env = "TAFL_IDLE_TIMEOUT_MS", default_value_t = 300_000)]
    pub idle_timeout_ms: u64,

    /// How often the server pings a connection to check the peer is still there (milliseconds).
    #[arg(long, env = "TAFL_KEEPALIVE_INTERVAL_MS", default_value_t = 30_000)]
    pub keepalive_interval_ms: u64,

    /// A ping unanswered this long closes the connection (milliseconds).
    #[arg(long, env = "TAFL_KEEPALIVE_TIMEOUT_MS", default_value_t = 10_000)]
    pub keepalive_timeout_ms: u64,

    /// Long games (LegalMoves, ApplyMove ...) replayed at once on their own threads, away from
    /// the threads that answer health checks; 0: half the CPU cores, at least one.
    #[arg(long, env = "TAFL_REPLAY_THREADS", default_value_t = 0)]
    pub replay_threads: usize,

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
    /// The flags' own defaults, from the one place they are written (the
    /// `#[arg]` attributes above), whatever the environment says.
    fn default() -> Self {
        use clap::{Args, FromArgMatches};
        let command =
            Config::augment_args(clap::Command::new("tafl")).mut_args(|arg| arg.env(None::<&str>));
        let matches = command
            .try_get_matches_from(["tafl"])
            .expect("every flag has a default or is optional");
        Config::from_arg_matches(&matches).expect("the defaults parse")
    }
}

impl Config {
    /// Search threads with 0 resolved to the number of CPU cores.
    pub fn search_threads(&self) -> usize {
        if self.search_threads > 0 {
            self.search_threads
        } else {
            cpu_cores()
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

    /// Replay threads with 0 resolved to half the CPU cores (at least one): a
    /// flood of long games then leaves the other half to the async runtime.
    pub fn replay_threads(&self) -> usize {
        if self.replay_threads > 0 {
            self.replay_threads
        } else {
            (cpu_cores() / 2).max(1)
        }
    }

    /// Checks every value against what makes sense, the transposition tables
    /// against the memory there is, and every duration against an upper bound.
    ///
    /// # Errors
    /// The first value out of range, with a sentence naming its flag.
    pub fn validate(&self) -> Result<(), ConfigError> {
        const HOUR_MS: u64 = 3_600_000;
        let message = as_u64(self.max_message_bytes);
        let counts: [(&'static str, u64, RangeInclusive<u64>); 13] = [
            ("--search-threads", as_u64(self.search_threads), 0..=1024),
            (
                "--max-concurrent-searches",
                as_u64(self.max_concurrent_searches),
                0..=1024,
            ),
            (
                "--max-queued-searches",
                as_u64(self.max_queued_searches),
                0..=100_000,
            ),
            ("--hash-mb", as_u64(self.hash_mb), 1..=1 << 20),
            ("--max-game-plies", as_u64(self.max_game_plies), 1..=100_000),
            (
                "--max-message-bytes",
                as_u64(self.max_message_bytes),
                1024..=256 << 20,
            ),
            (
                "--max-search-depth",
                u64::from(self.max_search_depth),
                1..=255,
            ),
            ("--max-search-nodes", self.max_search_nodes, 1..=u64::MAX),
            (
                "--max-streams-per-connection",
                u64::from(self.max_streams_per_connection),
                1..=10_000,
            ),
            (
                "--max-connections",
                as_u64(self.max_connections),
                1..=1_000_000,
            ),
            ("--replay-threads", as_u64(self.replay_threads), 0..=1024),
            (
                "--max-request-bytes-per-connection",
                as_u64(self.max_request_bytes_per_connection),
                message..=1 << 40,
            ),
            (
                "--max-request-bytes",
                as_u64(self.max_request_bytes),
                message..=1 << 40,
            ),
        ];
        let durations: [(&'static str, u64, RangeInclusive<u64>); 9] = [
            ("--max-search-time-ms", self.max_search_time_ms, 1..=HOUR_MS),
            ("--deadline-margin-ms", self.deadline_margin_ms, 0..=60_000),
            ("--drain-delay-ms", self.drain_delay_ms, 0..=HOUR_MS),
            ("--shutdown-grace-ms", self.shutdown_grace_ms, 0..=HOUR_MS),
            (
                "--handshake-timeout-ms",
                self.handshake_timeout_ms,
                1..=HOUR_MS,
            ),
            ("--idle-timeout-ms", self.idle_timeout_ms, 1..=24 * HOUR_MS),
            (
                "--keepalive-interval-ms",
                self.keepalive_interval_ms,
                1..=24 * HOUR_MS,
            ),
            (
                "--keepalive-timeout-ms",
                self.keepalive_timeout_ms,
                1..=HOUR_MS,
            ),
            (
                "--deadline-margin-percent",
                u64::from(self.deadline_margin_percent),
                0..=100,
            ),
        ];
        for (flag, value, range) in counts.into_iter().chain(durations) {
            if !range.contains(&value) {
                return Err(ConfigError::OutOfRange {
                    flag,
                    value,
                    low: *range.start(),
                    high: *range.end(),
                });
            }
        }
        self.check_tables_fit(available_memory())
    }

    /// Every running search holds a table of `--hash-mb`: all of them at once
    /// must fit in `available` bytes, or the first busy moment aborts the process.
    fn check_tables_fit(&self, available: Option<u64>) -> Result<(), ConfigError> {
        let searches = as_u64(self.max_concurrent_searches());
        let needed = as_u64(self.hash_mb)
            .saturating_mul(1 << 20)
            .saturating_mul(searches);
        match available {
            Some(available) if needed > available => Err(ConfigError::TablesTooLarge {
                hash_mb: self.hash_mb,
                searches,
                needed_mb: needed >> 20,
                available_mb: available >> 20,
            }),
            _ => Ok(()),
        }
    }
}

/// A configuration value the server will not start with.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ConfigError {
    /// A value outside the range that makes sense for its flag.
    #[error("{flag} {value}: must be between {low} and {high}")]
    OutOfRange {
        /// The flag, as typed on the command line.
        flag: &'static str,
        /// The value given.
        value: u64,
        /// The least value allowed.
        low: u64,
        /// The greatest value allowed.
        high: u64,
    },
    /// The transposition tables of the searches that may run at once do not fit in memory.
    #[error(
        "--hash-mb {hash_mb}: {searches} searches at once would need {needed_mb} MiB of \
         transposition tables, but only {available_mb} MiB of memory is available; \
         lower --hash-mb or --max-concurrent-searches"
    )]
    TablesTooLarge {
        /// The table size asked for, in MiB.
        hash_mb: usize,
        /// Searches that may run at once.
        searches: u64,
        /// What they would need together, in MiB.
        needed_mb: u64,
        /// What the machine (or the container's limit) has, in MiB.
        available_mb: u64,
    },
}

fn as_u64(value: usize) -> u64 {
    u64::try_from(value).unwrap_or(u64::MAX)
}

fn cpu_cores() -> usize {
    std::thread::available_parallelism().map_or(2, NonZeroUsize::get)
}

/// The memory this process may still use, in bytes: the machine's available
/// memory, or the container's limit (cgroup v2, then v1) if that is lower;
/// `None` where neither can be read.
fn available_memory() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok();
    let machine = meminfo.as_deref().and_then(|text| {
        let line = text
            .lines()
            .find(|line| line.starts_with("MemAvailable:"))?;
        let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kib.saturating_mul(1024))
    });
    // "max" (no limit) and unreadable files give no number, so only a real limit counts.
    let container = [
        "/sys/fs/cgroup/memory.max",
        "/sys/fs/cgroup/memory/memory.limit_in_bytes",
    ]
    .iter()
    .find_map(|path| {
        std::fs::read_to_string(path)
            .ok()?
            .trim()
            .parse::<u64>()
            .ok()
    });
    match (machine, container) {
        (Some(machine), Some(container)) => Some(machine.min(container)),
        (machine, container) => machine.or(container),
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
    fn defaults_are_the_flags_own_and_valid() {
        let defaults = Config::default();
        assert_eq!(defaults.listen, SocketAddr::from(([127, 0, 0, 1], 50051)));
        assert_eq!(defaults.max_game_plies, 4096);
        assert_eq!(defaults.otlp_endpoint, None);
        assert_eq!(defaults.validate(), Ok(()));
    }

    #[test]
    fn values_out_of_range_name_their_flag() {
        let refused = |config: Config| config.validate().unwrap_err().to_string();
        let message = refused(Config {
            drain_delay_ms: u64::MAX,
            ..Config::default()
        });
        assert!(message.starts_with("--drain-delay-ms 18446744073709551615: must be between"));
        let message = refused(Config {
            max_streams_per_connection: 0,
            ..Config::default()
        });
        assert!(
            message.starts_with("--max-streams-per-connection 0:"),
            "{message}"
        );
        let message = refused(Config {
            hash_mb: usize::MAX,
            ..Config::default()
        });
        assert!(message.starts_with("--hash-mb "), "{message}");
    }

    #[test]
    fn tables_must_fit_in_memory() {
        let config = Config {
            hash_mb: 64,
            max_concurrent_searches: 4,
            ..Config::default()
        };
        assert_eq!(config.check_tables_fit(Some(256 << 20)), Ok(()));
        assert_eq!(config.check_tables_fit(None), Ok(()));
        let message = config
            .check_tables_fit(Some(255 << 20))
            .unwrap_err()
            .to_string();
        assert!(
            message.starts_with("--hash-mb 64: 4 searches at once would need 256 MiB"),
            "{message}"
        );
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
