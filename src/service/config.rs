//! The server's configuration: one plain struct in sections, with defaults
//! that work on a laptop. `tafl serve` fills it from its flags and `TAFL_*`
//! environment variables (src/cli/serve.rs); tests and embedders write it.

use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::time::Duration;

use crate::search::DEFAULT_MOVE_OVERHEAD;

/// Everything the server can be told.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Config {
    /// Where it listens and what a connection may hold.
    pub transport: TransportConfig,
    /// The most one call may ask of the server.
    pub caps: CapsConfig,
    /// Where the work runs: threads, slots, the queue, and the engine each search runs.
    pub exec: ExecConfig,
    /// How it stops.
    pub shutdown: ShutdownConfig,
    /// Where traces and metrics go.
    pub telemetry: TelemetryConfig,
}

/// The listening socket, TLS, and the limits on connections and their requests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TransportConfig {
    /// Address to serve gRPC on (port 0: any free port).
    pub listen: SocketAddr,
    /// The certificate files; none: plaintext.
    pub tls: TlsConfig,
    /// Open connections held at once; past that, new ones wait in the listen backlog.
    pub max_connections: usize,
    /// HTTP/2 streams (calls, Watch streams) one connection may hold open at once.
    pub max_streams_per_connection: u32,
    /// A new connection that has not started a call within this long is closed.
    pub handshake_timeout: Duration,
    /// A connection with no call open for this long is closed.
    pub idle_timeout: Duration,
    /// How often the server pings a connection to check the peer is still there.
    pub keepalive_interval: Duration,
    /// A ping unanswered this long closes the connection.
    pub keepalive_timeout: Duration,
    /// Largest request message in bytes; larger ones are refused before decoding.
    pub max_message_bytes: usize,
    /// Bytes of messages over 64 KiB one connection's calls may hold at once
    /// (no real request is that large: a 4,096-ply game is about 36 KiB).
    pub max_request_bytes_per_connection: usize,
    /// Bytes of messages over 64 KiB all calls may hold at once.
    pub max_request_bytes: usize,
    /// Response bytes one connection's calls may have waiting for the client to take them.
    pub max_response_bytes_per_connection: usize,
    /// Response bytes all calls may have waiting, as above.
    pub max_response_bytes: usize,
    /// A connection whose responses wait this long with no byte of them written is closed.
    pub send_timeout: Duration,
    /// Calls (Watch streams included) open at once on all connections.
    pub max_calls: usize,
    /// A connection this old is sent GOAWAY: it takes no new calls and closes once its calls end.
    pub max_connection_age: Duration,
    /// And is closed this long after its maximum age, calls open or not.
    pub max_connection_age_grace: Duration,
}

/// The PEM files TLS is served with. Only the paths are kept: the key is
/// read at start, handed to rustls and never logged.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TlsConfig {
    /// Certificate chain (needs `key`); none: plaintext.
    pub cert: Option<PathBuf>,
    /// Private key for `cert`.
    pub key: Option<PathBuf>,
    /// CA certificates clients must present a certificate signed by (mutual TLS).
    pub client_ca: Option<PathBuf>,
}

/// What one call may ask, whatever it asks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CapsConfig {
    /// Most moves a request's game may hold (`game.moves`).
    pub max_game_plies: usize,
    /// Deepest search, in plies.
    pub max_search_depth: u32,
    /// Longest a search may think.
    pub max_search_time: Duration,
    /// Most positions a search may visit.
    pub max_search_nodes: u64,
    /// Taken off a call's deadline (`grpc-timeout`) so the answer still arrives in time.
    pub deadline_margin: Duration,
    /// And this share of the deadline too (at most 250 ms).
    pub deadline_margin_percent: u32,
    /// The time a move takes to reach a game clock (the network, the game server): taken off
    /// every time a SuggestMove's clock gives its move.
    pub move_overhead: Duration,
    /// Longest a game review or a game's puzzle mining may take, whatever its deadline: then it
    /// ends with what it has.
    pub max_review_time: Duration,
}

/// The threads, slots and queues the work runs on, and the engine each search runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecConfig {
    /// Cores the searches share (their threads compute on this many at once); 0: one per CPU core.
    pub search_threads: usize,
    /// Searches that run at once, sharing those cores; 0: four per search thread.
    pub max_concurrent_searches: usize,
    /// Searches that may wait for a free slot.
    pub max_queued_searches: usize,
    /// Long games replayed at once on their own threads; 0: half the CPU cores, at least one.
    pub replay_threads: usize,
    /// Games replayed last, kept for the next call on the same moves, in MiB; 0: none kept.
    pub replay_cache_mb: usize,
    /// The transposition table the searches the clock ends share, in MiB; each other running
    /// search and each game review has one of a quarter of it ([`ExecConfig::own_hash_mb`]).
    pub hash_mb: usize,
    /// Evaluation network files, each used for games of its variant instead of the built-in one.
    pub eval_net: Vec<PathBuf>,
}

/// The graceful stop on SIGINT/SIGTERM.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShutdownConfig {
    /// How long health says NOT_SERVING while calls are still taken.
    pub drain_delay: Duration,
    /// How long in-flight calls may take to finish before the server exits anyway.
    pub grace: Duration,
}

/// Where traces and metrics are exported.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct TelemetryConfig {
    /// OTLP/gRPC collector (`http://host:4317`); none: `OTEL_EXPORTER_OTLP_ENDPOINT`, else logs only.
    pub otlp_endpoint: Option<String>,
}

impl std::fmt::Debug for TelemetryConfig {
    /// The endpoint without any credentials written into it (`user:password@`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TelemetryConfig")
            .field(
                "otlp_endpoint",
                &self.otlp_endpoint.as_deref().map(without_userinfo),
            )
            .finish()
    }
}

/// `scheme://user:password@host/...` as `scheme://…@host/...`.
fn without_userinfo(url: &str) -> String {
    let authority_start = url.find("://").map_or(0, |scheme| scheme + 3);
    let authority_end = url[authority_start..]
        .find('/')
        .map_or(url.len(), |path| authority_start + path);
    match url[authority_start..authority_end].rfind('@') {
        Some(at) => format!(
            "{}…{}",
            &url[..authority_start],
            &url[authority_start + at..]
        ),
        None => url.to_owned(),
    }
}

/// The defaults work on a laptop; `tafl serve`'s flags default to them.
impl Default for TransportConfig {
    fn default() -> Self {
        TransportConfig {
            listen: SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 50051)),
            tls: TlsConfig::default(),
            max_connections: 512,
            max_streams_per_connection: 128,
            handshake_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(300),
            keepalive_interval: Duration::from_secs(30),
            keepalive_timeout: Duration::from_secs(10),
            max_message_bytes: 4 << 20,
            max_request_bytes_per_connection: 8 << 20,
            max_request_bytes: 16 << 20,
            max_response_bytes_per_connection: 1 << 20,
            max_response_bytes: 16 << 20,
            send_timeout: Duration::from_secs(30),
            max_calls: 4096,
            max_connection_age: Duration::from_secs(30 * 60),
            max_connection_age_grace: Duration::from_secs(30),
        }
    }
}

impl Default for CapsConfig {
    fn default() -> Self {
        CapsConfig {
            max_game_plies: 4096,
            max_search_depth: 32,
            max_search_time: Duration::from_secs(10),
            max_search_nodes: 200_000_000,
            deadline_margin: Duration::from_millis(10),
            deadline_margin_percent: 15,
            move_overhead: DEFAULT_MOVE_OVERHEAD,
            max_review_time: Duration::from_secs(300),
        }
    }
}

impl Default for ExecConfig {
    fn default() -> Self {
        ExecConfig {
            search_threads: 0,
            max_concurrent_searches: 0,
            max_queued_searches: 64,
            replay_threads: 0,
            replay_cache_mb: 16,
            hash_mb: 64,
            eval_net: Vec::new(),
        }
    }
}

impl Default for ShutdownConfig {
    fn default() -> Self {
        ShutdownConfig {
            drain_delay: Duration::ZERO,
            grace: Duration::from_secs(15),
        }
    }
}

impl ExecConfig {
    /// Search threads with 0 resolved to the number of CPU cores.
    pub fn search_threads(&self) -> usize {
        if self.search_threads > 0 {
            self.search_threads
        } else {
            cpu_cores()
        }
    }

    /// Concurrent searches with 0 resolved to four per search thread: more searches run than
    /// there are cores, which they share in turns, so a short search never waits for a long
    /// one to end.
    pub fn max_concurrent_searches(&self) -> usize {
        if self.max_concurrent_searches > 0 {
            self.max_concurrent_searches
        } else {
            SEARCHES_PER_THREAD * self.search_threads()
        }
    }

    /// Game reviews that may run at once, each keeping its game's table between its
    /// searches: two per search thread.
    pub fn max_active_reviews(&self) -> usize {
        REVIEWS_PER_THREAD * self.search_threads()
    }

    /// The table of a search that depth or nodes end (a repeatable one) and of a game review,
    /// in MiB: a quarter of `--hash-mb`, at least 1.
    pub fn own_hash_mb(&self) -> usize {
        (self.hash_mb / OWN_TABLE_FRACTION).max(1)
    }

    /// The transposition tables that may exist at once, in MiB: the shared one, and one of
    /// [`ExecConfig::own_hash_mb`] for each running search and each running review.
    pub fn tables_mb(&self) -> u64 {
        let own_tables = as_u64(self.max_concurrent_searches())
            .saturating_add(as_u64(self.max_active_reviews()));
        as_u64(self.hash_mb).saturating_add(as_u64(self.own_hash_mb()).saturating_mul(own_tables))
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
}

impl Config {
    /// Checks what no value says on its own: that each request budget holds
    /// a message of the largest size, and that the transposition tables fit
    /// in the memory there is. Each value's own range is its front end's to
    /// check (`tafl serve`'s flags refuse a value out of range).
    ///
    /// # Errors
    /// The first check that fails, naming the settings at fault.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let transport = &self.transport;
        for (budget, bytes) in [
            (
                Setting::MaxRequestBytesPerConnection,
                transport.max_request_bytes_per_connection,
            ),
            (Setting::MaxRequestBytes, transport.max_request_bytes),
        ] {
            if bytes < transport.max_message_bytes {
                return Err(ConfigError::BudgetBelowMessage {
                    budget,
                    bytes,
                    max_message_bytes: transport.max_message_bytes,
                });
            }
        }
        let available = available_memory();
        check_tables_fit(&self.exec, available)?;
        check_cache_fits(&self.exec, available)
    }
}

/// The games kept replayed ([`ExecConfig::replay_cache_mb`]) must fit in
/// `available` bytes beside all the tables.
fn check_cache_fits(exec: &ExecConfig, available: Option<u64>) -> Result<(), ConfigError> {
    let (cache_mb, tables_mb) = (as_u64(exec.replay_cache_mb), exec.tables_mb());
    match available {
        Some(available)
            if cache_mb.saturating_add(tables_mb).saturating_mul(1 << 20) > available =>
        {
            Err(ConfigError::CacheTooLarge {
                cache_mb,
                tables_mb,
                available_mb: available >> 20,
            })
        }
        _ => Ok(()),
    }
}

/// The shared table, and the table each running search and each running
/// game review may hold ([`ExecConfig::tables_mb`]): all of them at once must
/// fit in `available` bytes, or the first busy moment aborts the process.
fn check_tables_fit(exec: &ExecConfig, available: Option<u64>) -> Result<(), ConfigError> {
    let needed_mb = exec.tables_mb();
    match available {
        Some(available) if needed_mb.saturating_mul(1 << 20) > available => {
            Err(ConfigError::TablesTooLarge {
                hash_mb: exec.hash_mb,
                searches: as_u64(exec.max_concurrent_searches()),
                reviews: as_u64(exec.max_active_reviews()),
                needed_mb,
                available_mb: available >> 20,
            })
        }
        _ => Ok(()),
    }
}

/// A setting a [`ConfigError`] names. Each front end names it its own way
/// (`tafl serve` by its flag); [`Setting::field`] is its place in [`Config`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, strum::EnumIter)]
pub enum Setting {
    /// `exec.hash_mb`.
    HashMb,
    /// `exec.max_concurrent_searches`.
    MaxConcurrentSearches,
    /// `transport.max_message_bytes`.
    MaxMessageBytes,
    /// `transport.max_request_bytes_per_connection`.
    MaxRequestBytesPerConnection,
    /// `transport.max_request_bytes`.
    MaxRequestBytes,
    /// `exec.replay_cache_mb`.
    ReplayCacheMb,
}

impl Setting {
    /// Its place in [`Config`]: `"exec.hash_mb"`.
    pub fn field(self) -> &'static str {
        match self {
            Setting::HashMb => "exec.hash_mb",
            Setting::MaxConcurrentSearches => "exec.max_concurrent_searches",
            Setting::MaxMessageBytes => "transport.max_message_bytes",
            Setting::MaxRequestBytesPerConnection => "transport.max_request_bytes_per_connection",
            Setting::MaxRequestBytes => "transport.max_request_bytes",
            Setting::ReplayCacheMb => "exec.replay_cache_mb",
        }
    }
}

/// A configuration the server will not start with: values each fine alone,
/// but not together or not on this machine.
#[derive(Debug, PartialEq, Eq)]
pub enum ConfigError {
    /// A request budget smaller than the largest message: a message of that
    /// size could never be read.
    BudgetBelowMessage {
        /// The budget.
        budget: Setting,
        /// Its value, in bytes.
        bytes: usize,
        /// The largest message, in bytes.
        max_message_bytes: usize,
    },
    /// The transposition tables of the searches that may run at once, and of as many game
    /// reviews, do not fit in memory.
    TablesTooLarge {
        /// The table size asked for, in MiB.
        hash_mb: usize,
        /// Searches that may run at once.
        searches: u64,
        /// Game reviews that may run at once.
        reviews: u64,
        /// What the shared table, the searches' and the reviews' would need together, in MiB.
        needed_mb: u64,
        /// What the machine (or the container's limit) has, in MiB.
        available_mb: u64,
    },
    /// The games kept replayed do not fit in memory beside the tables.
    CacheTooLarge {
        /// The cache's size asked for, in MiB.
        cache_mb: u64,
        /// What the tables may need, in MiB.
        tables_mb: u64,
        /// What the machine (or the container's limit) has, in MiB.
        available_mb: u64,
    },
}

impl ConfigError {
    /// The sentence, each setting called what `name` calls it (`tafl serve`:
    /// its flag); [`Display`](std::fmt::Display) calls it by its [`Setting::field`].
    pub fn describe(&self, name: impl Fn(Setting) -> String) -> String {
        match self {
            ConfigError::BudgetBelowMessage {
                budget,
                bytes,
                max_message_bytes,
            } => format!(
                "{} {bytes}: must be at least {} ({max_message_bytes}), or a message of the \
                 largest size could never be read",
                name(*budget),
                name(Setting::MaxMessageBytes),
            ),
            ConfigError::TablesTooLarge {
                hash_mb,
                searches,
                reviews,
                needed_mb,
                available_mb,
            } => {
                let (table, concurrent) =
                    (name(Setting::HashMb), name(Setting::MaxConcurrentSearches));
                format!(
                    "{table} {hash_mb}: its shared table, and a quarter of it for each of {searches} \
                     searches and {reviews} game reviews at once, would need {needed_mb} MiB of \
                     transposition tables, but only {available_mb} MiB of memory is available; \
                     lower {table} or {concurrent}"
                )
            }
            ConfigError::CacheTooLarge {
                cache_mb,
                tables_mb,
                available_mb,
            } => format!(
                "{} {cache_mb}: the games kept replayed, beside {tables_mb} MiB of transposition \
                 tables, would need more than the {available_mb} MiB of memory available; lower it",
                name(Setting::ReplayCacheMb)
            ),
        }
    }
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe(|setting| setting.field().to_owned()))
    }
}

impl std::error::Error for ConfigError {}

/// Searches that may run at once for each search thread (core), by default.
const SEARCHES_PER_THREAD: usize = 4;
/// Game reviews that may run at once for each search thread.
const REVIEWS_PER_THREAD: usize = 2;
/// The table of a search that depth or nodes end, and of a review, is this fraction of the
/// shared one.
const OWN_TABLE_FRACTION: usize = 4;

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

    #[test]
    fn defaults_are_valid() {
        let defaults = Config::default();
        assert_eq!(
            defaults.transport.listen,
            SocketAddr::from(([127, 0, 0, 1], 50051))
        );
        assert_eq!(defaults.caps.max_game_plies, 4096);
        assert_eq!(defaults.telemetry.otlp_endpoint, None);
        assert_eq!(defaults.validate(), Ok(()));
    }

    #[test]
    fn a_request_budget_must_hold_the_largest_message() {
        let mut config = Config::default();
        config.transport.max_request_bytes_per_connection = 1 << 20;
        let error = config.validate().unwrap_err();
        assert_eq!(
            error,
            ConfigError::BudgetBelowMessage {
                budget: Setting::MaxRequestBytesPerConnection,
                bytes: 1 << 20,
                max_message_bytes: 4 << 20,
            }
        );
        let message = error.to_string();
        assert!(
            message.starts_with(
                "transport.max_request_bytes_per_connection 1048576: must be at least \
                 transport.max_message_bytes (4194304)"
            ),
            "{message}"
        );
        // A front end names the settings its own way.
        let named = error.describe(|setting| format!("<{setting:?}>"));
        assert!(
            named.starts_with(
                "<MaxRequestBytesPerConnection> 1048576: must be at least <MaxMessageBytes>"
            ),
            "{named}"
        );
        let mut config = Config::default();
        config.transport.max_request_bytes = 1 << 20;
        assert!(matches!(
            config.validate(),
            Err(ConfigError::BudgetBelowMessage {
                budget: Setting::MaxRequestBytes,
                ..
            })
        ));
    }

    #[test]
    fn tables_must_fit_in_memory() {
        let exec = ExecConfig {
            hash_mb: 64,
            search_threads: 2,
            max_concurrent_searches: 8,
            ..ExecConfig::default()
        };
        // 64 shared, and 16 for each of 8 searches and 4 reviews.
        assert_eq!(exec.tables_mb(), 256);
        assert_eq!(check_tables_fit(&exec, Some(256 << 20)), Ok(()));
        assert_eq!(check_tables_fit(&exec, None), Ok(()));
        let message = check_tables_fit(&exec, Some(255 << 20))
            .unwrap_err()
            .to_string();
        assert!(
            message.starts_with(
                "exec.hash_mb 64: its shared table, and a quarter of it for each of 8 searches \
                 and 4 game reviews at once, would need 256 MiB"
            ),
            "{message}"
        );
        // The games kept go beside the tables.
        let exec = ExecConfig {
            replay_cache_mb: 16,
            ..exec
        };
        assert_eq!(check_cache_fits(&exec, Some(272 << 20)), Ok(()));
        let message = check_cache_fits(&exec, Some(271 << 20))
            .unwrap_err()
            .to_string();
        assert_eq!(
            message,
            "exec.replay_cache_mb 16: the games kept replayed, beside 256 MiB of transposition \
             tables, would need more than the 271 MiB of memory available; lower it"
        );
    }

    #[test]
    fn credentials_in_the_otlp_endpoint_stay_out_of_debug() {
        let telemetry = TelemetryConfig {
            otlp_endpoint: Some("https://tafl:s3cret@collector:4317/v1".to_owned()),
        };
        let shown = format!("{telemetry:?}");
        assert!(!shown.contains("s3cret"), "{shown}");
        assert!(shown.contains("https://…@collector:4317/v1"), "{shown}");
        assert_eq!(
            without_userinfo("http://collector:4317"),
            "http://collector:4317"
        );
        assert_eq!(without_userinfo("collector:4317/a@b"), "collector:4317/a@b");
    }
}
