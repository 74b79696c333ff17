//! `tafl serve` (and `tafl` alone): the gRPC server until SIGINT/SIGTERM,
//! configured by its flags and `TAFL_*` environment variables.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Context;
use tafl::service::shutdown::Signals;
use tafl::service::{
    CapsConfig, Config, ExecConfig, STOP_FLUSH, ServeError, Server, Setting, ShutdownConfig,
    TelemetryConfig, TlsConfig, TransportConfig, telemetry,
};

/// The service's defaults, which the flags default to.
fn defaults() -> Config {
    Config::default()
}

/// The duration flags' bounds, in milliseconds.
const HOUR_MS: u64 = 3_600_000;
const DAY_MS: u64 = 24 * HOUR_MS;

/// A value parser for a whole number from `low` to `high`: clap refuses any
/// other with a sentence naming the flag, the value and the range, and exits 2.
fn between<T>(low: u64, high: u64) -> impl clap::builder::TypedValueParser<Value = T>
where
    T: TryFrom<u64> + Clone + Send + Sync + 'static,
{
    move |text: &str| {
        let value: u64 = text.parse().map_err(|error| format!("{error}"))?;
        if !(low..=high).contains(&value) {
            return Err(format!("must be between {low} and {high}"));
        }
        T::try_from(value).map_err(|_| format!("{value} is too large for this machine"))
    }
}

/// Everything `tafl serve` can be told, each number within its range.
/// Flags win over environment variables, which win over the defaults.
#[derive(Clone, Debug, clap::Args)]
pub struct ServeArgs {
    /// Address to serve gRPC on.
    #[arg(long, env = "TAFL_LISTEN", default_value_t = defaults().transport.listen)]
    listen: SocketAddr,

    /// Cores the searches share (SuggestMove, Evaluate with limits, Analyze, Threats, ReviewGame): they compute on this many at once, in turns, each connection getting an equal share; 0: one per CPU core. Game reviews run two per core at most, no connection holding more than half of them.
    #[arg(long, env = "TAFL_SEARCH_THREADS", default_value_t = defaults().exec.search_threads, value_parser = between::<usize>(0, 1024))]
    search_threads: usize,

    /// Searches that run at once, sharing the cores in turns (each holds a thread, and a table of a quarter of --hash-mb unless the clock ends it); 0: four per search thread.
    #[arg(long, env = "TAFL_MAX_CONCURRENT_SEARCHES", default_value_t = defaults().exec.max_concurrent_searches, value_parser = between::<usize>(0, 1024))]
    max_concurrent_searches: usize,

    /// Searches that may wait for a free slot; past that, RESOURCE_EXHAUSTED at once.
    #[arg(long, env = "TAFL_MAX_QUEUED_SEARCHES", default_value_t = defaults().exec.max_queued_searches, value_parser = between::<usize>(0, 100_000))]
    max_queued_searches: usize,

    /// Transposition table in MiB that the searches the clock ends share; each other running search and each game review has one of a quarter of it.
    #[arg(long, env = "TAFL_HASH_MB", default_value_t = defaults().exec.hash_mb, value_parser = between::<usize>(1, 1 << 20))]
    hash_mb: usize,

    /// Most moves a request's game may hold (game.moves); more is INVALID_ARGUMENT.
    #[arg(long, env = "TAFL_MAX_GAME_PLIES", default_value_t = defaults().caps.max_game_plies, value_parser = between::<usize>(1, 100_000))]
    max_game_plies: usize,

    /// Largest request message in bytes; larger ones are refused before decoding.
    #[arg(long, env = "TAFL_MAX_MESSAGE_BYTES", default_value_t = defaults().transport.max_message_bytes, value_parser = between::<usize>(1024, 256 << 20))]
    max_message_bytes: usize,

    /// Bytes of messages over 64 KiB one connection's calls may hold at once (each call counts
    /// its message's length from when its first bytes arrive until it ends); past that,
    /// RESOURCE_EXHAUSTED. Smaller messages share 8 KiB per --max-calls. At least
    /// --max-message-bytes.
    #[arg(long, env = "TAFL_MAX_REQUEST_BYTES_PER_CONNECTION", default_value_t = defaults().transport.max_request_bytes_per_connection, value_parser = between::<usize>(1024, 1 << 40))]
    max_request_bytes_per_connection: usize,

    /// Bytes of messages over 64 KiB all calls may hold at once, as above. At least
    /// --max-message-bytes.
    #[arg(long, env = "TAFL_MAX_REQUEST_BYTES", default_value_t = defaults().transport.max_request_bytes, value_parser = between::<usize>(1024, 1 << 40))]
    max_request_bytes: usize,

    /// Response bytes one connection's calls may have handed over and its client not yet taken
    /// (a shut HTTP/2 window, a client that does not read); past that its calls end
    /// RESOURCE_EXHAUSTED. A connection with nothing waiting may always send one answer.
    #[arg(long, env = "TAFL_MAX_RESPONSE_BYTES_PER_CONNECTION", default_value_t = defaults().transport.max_response_bytes_per_connection, value_parser = between::<usize>(1024, 1 << 40))]
    max_response_bytes_per_connection: usize,

    /// Response bytes all calls may have waiting, as above.
    #[arg(long, env = "TAFL_MAX_RESPONSE_BYTES", default_value_t = defaults().transport.max_response_bytes, value_parser = between::<usize>(1024, 1 << 40))]
    max_response_bytes: usize,

    /// A connection whose responses wait this long with no byte of them taken by the client
    /// is closed (milliseconds).
    #[arg(long, env = "TAFL_SEND_TIMEOUT_MS", default_value_t = millis(defaults().transport.send_timeout), value_parser = between::<u64>(1, HOUR_MS))]
    send_timeout_ms: u64,

    /// Calls (Watch streams included) open at once on all connections; past that a
    /// connection's new calls are RESOURCE_EXHAUSTED, unless it has none open.
    #[arg(long, env = "TAFL_MAX_CALLS", default_value_t = defaults().transport.max_calls, value_parser = between::<usize>(1, 10_000_000))]
    max_calls: usize,

    /// A connection this old gets GOAWAY: no new calls, closed once its calls end (milliseconds).
    #[arg(long, env = "TAFL_MAX_CONNECTION_AGE_MS", default_value_t = millis(defaults().transport.max_connection_age), value_parser = between::<u64>(1, 365 * DAY_MS))]
    max_connection_age_ms: u64,

    /// And is closed this long after its maximum age, calls open or not (milliseconds).
    #[arg(long, env = "TAFL_MAX_CONNECTION_AGE_GRACE_MS", default_value_t = millis(defaults().transport.max_connection_age_grace), value_parser = between::<u64>(0, DAY_MS))]
    max_connection_age_grace_ms: u64,

    /// Deepest search the server runs, whatever a caller asks (plies).
    #[arg(long, env = "TAFL_MAX_SEARCH_DEPTH", default_value_t = defaults().caps.max_search_depth, value_parser = between::<u32>(1, 255))]
    max_search_depth: u32,

    /// Longest a search may think, whatever a caller asks (milliseconds).
    #[arg(long, env = "TAFL_MAX_SEARCH_TIME_MS", default_value_t = millis(defaults().caps.max_search_time), value_parser = between::<u64>(1, HOUR_MS))]
    max_search_time_ms: u64,

    /// Most positions a search may visit, whatever a caller asks.
    #[arg(long, env = "TAFL_MAX_SEARCH_NODES", default_value_t = defaults().caps.max_search_nodes, value_parser = between::<u64>(1, u64::MAX))]
    max_search_nodes: u64,

    /// Longest a game review (ReviewGame) or a game's puzzle mining (FindPuzzles) may take,
    /// whatever its deadline: it then ends with what it has, marked partial (milliseconds).
    #[arg(long, env = "TAFL_MAX_REVIEW_TIME_MS", default_value_t = millis(defaults().caps.max_review_time), value_parser = between::<u64>(1, DAY_MS))]
    max_review_time_ms: u64,

    /// Taken off a call's deadline (grpc-timeout) so the answer still arrives in time (milliseconds).
    #[arg(long, env = "TAFL_DEADLINE_MARGIN_MS", default_value_t = millis(defaults().caps.deadline_margin), value_parser = between::<u64>(0, 60_000))]
    deadline_margin_ms: u64,

    /// And this share of the deadline too, at most 250 ms: a search looks at the clock only now and then.
    #[arg(long, env = "TAFL_DEADLINE_MARGIN_PERCENT", default_value_t = defaults().caps.deadline_margin_percent, value_parser = between::<u32>(0, 100))]
    deadline_margin_percent: u32,

    /// The time a move takes to reach a game clock (the network, the game server), taken off
    /// every time a SuggestMove's clock gives its move (milliseconds).
    #[arg(long, env = "TAFL_MOVE_OVERHEAD_MS", default_value_t = millis(defaults().caps.move_overhead), value_parser = between::<u64>(0, 60_000))]
    move_overhead_ms: u64,

    /// On SIGINT/SIGTERM: how long health says NOT_SERVING while calls are still taken,
    /// so load balancers can drain this replica (milliseconds).
    #[arg(long, env = "TAFL_DRAIN_DELAY_MS", default_value_t = millis(defaults().shutdown.drain_delay), value_parser = between::<u64>(0, HOUR_MS))]
    drain_delay_ms: u64,

    /// On SIGINT/SIGTERM: how long in-flight calls may take to finish before the server exits anyway (milliseconds).
    #[arg(long, env = "TAFL_SHUTDOWN_GRACE_MS", default_value_t = millis(defaults().shutdown.grace), value_parser = between::<u64>(0, HOUR_MS))]
    shutdown_grace_ms: u64,

    /// HTTP/2 streams (calls, Watch streams) one connection may hold open at once; past that
    /// the client must wait (a well-behaved client does) or its new streams are refused.
    #[arg(long, env = "TAFL_MAX_STREAMS_PER_CONNECTION", default_value_t = defaults().transport.max_streams_per_connection, value_parser = between::<u32>(1, 10_000))]
    max_streams_per_connection: u32,

    /// Open connections the server holds at once; past that, new ones wait in the listen backlog.
    #[arg(long, env = "TAFL_MAX_CONNECTIONS", default_value_t = defaults().transport.max_connections, value_parser = between::<usize>(1, 1_000_000))]
    max_connections: usize,

    /// A new connection that has not started a call within this long (TLS handshake, HTTP/2
    /// preface and first request included) is closed (milliseconds).
    #[arg(long, env = "TAFL_HANDSHAKE_TIMEOUT_MS", default_value_t = millis(defaults().transport.handshake_timeout), value_parser = between::<u64>(1, HOUR_MS))]
    handshake_timeout_ms: u64,

    /// A connection with no call open for this long is closed (milliseconds).
    #[arg(long, env = "TAFL_IDLE_TIMEOUT_MS", default_value_t = millis(defaults().transport.idle_timeout), value_parser = between::<u64>(1, DAY_MS))]
    idle_timeout_ms: u64,

    /// How often the server pings a connection to check the peer is still there (milliseconds).
    #[arg(long, env = "TAFL_KEEPALIVE_INTERVAL_MS", default_value_t = millis(defaults().transport.keepalive_interval), value_parser = between::<u64>(1, DAY_MS))]
    keepalive_interval_ms: u64,

    /// A ping unanswered this long closes the connection (milliseconds).
    #[arg(long, env = "TAFL_KEEPALIVE_TIMEOUT_MS", default_value_t = millis(defaults().transport.keepalive_timeout), value_parser = between::<u64>(1, HOUR_MS))]
    keepalive_timeout_ms: u64,

    /// Long games (LegalMoves, ApplyMove ...) replayed at once on their own threads, away from
    /// the threads that answer health checks; 0: half the CPU cores, at least one.
    #[arg(long, env = "TAFL_REPLAY_THREADS", default_value_t = defaults().exec.replay_threads, value_parser = between::<usize>(0, 1024))]
    replay_threads: usize,

    /// Games replayed last, kept for the next call on the same moves (a game backend's
    /// LegalMoves, then ApplyMove, then LegalMoves a move later), in MiB; 0: none kept.
    #[arg(long, env = "TAFL_REPLAY_CACHE_MB", default_value_t = defaults().exec.replay_cache_mb, value_parser = between::<usize>(0, 1 << 20))]
    replay_cache_mb: usize,

    /// OTLP/gRPC collector to export traces and metrics to (`http://host:4317`);
    /// unset: OTEL_EXPORTER_OTLP_ENDPOINT, and if that is unset too, logs only.
    #[arg(long, env = "TAFL_OTLP_ENDPOINT")]
    otlp_endpoint: Option<String>,

    /// PEM certificate chain to serve TLS with (needs --tls-key); unset: plaintext.
    #[arg(long, env = "TAFL_TLS_CERT", requires = "tls_key")]
    tls_cert: Option<PathBuf>,

    /// PEM private key for --tls-cert. Only the path is kept: the key is read at start and never logged.
    #[arg(long, env = "TAFL_TLS_KEY", requires = "tls_cert")]
    tls_key: Option<PathBuf>,

    /// PEM CA certificates: clients must present a certificate signed by one (mutual TLS).
    #[arg(long, env = "TAFL_TLS_CLIENT_CA", requires = "tls_cert")]
    tls_client_ca: Option<PathBuf>,

    /// Evaluation network file (as `tafl train` writes it), played on games of its variant; repeat
    /// for other variants (one file each; the variable takes a comma-separated list). Unset: the
    /// built-in networks on Copenhagen 11×11 and 13×13, Fetlar 11×11 and Tablut 9×9, the classic
    /// evaluation on every other variant. A file that cannot be read or is no network this build
    /// runs, or a second file for one variant, stops the server at start (exit code 2).
    #[arg(long, env = "TAFL_EVAL_NET", value_delimiter = ',')]
    eval_net: Vec<PathBuf>,
}

impl From<ServeArgs> for Config {
    fn from(args: ServeArgs) -> Config {
        let ms = Duration::from_millis;
        Config {
            transport: TransportConfig {
                listen: args.listen,
                tls: TlsConfig {
                    cert: args.tls_cert,
                    key: args.tls_key,
                    client_ca: args.tls_client_ca,
                },
                max_connections: args.max_connections,
                max_streams_per_connection: args.max_streams_per_connection,
                handshake_timeout: ms(args.handshake_timeout_ms),
                idle_timeout: ms(args.idle_timeout_ms),
                keepalive_interval: ms(args.keepalive_interval_ms),
                keepalive_timeout: ms(args.keepalive_timeout_ms),
                max_message_bytes: args.max_message_bytes,
                max_request_bytes_per_connection: args.max_request_bytes_per_connection,
                max_request_bytes: args.max_request_bytes,
                max_response_bytes_per_connection: args.max_response_bytes_per_connection,
                max_response_bytes: args.max_response_bytes,
                send_timeout: ms(args.send_timeout_ms),
                max_calls: args.max_calls,
                max_connection_age: ms(args.max_connection_age_ms),
                max_connection_age_grace: ms(args.max_connection_age_grace_ms),
            },
            caps: CapsConfig {
                max_game_plies: args.max_game_plies,
                max_search_depth: args.max_search_depth,
                max_search_time: ms(args.max_search_time_ms),
                max_search_nodes: args.max_search_nodes,
                deadline_margin: ms(args.deadline_margin_ms),
                deadline_margin_percent: args.deadline_margin_percent,
                move_overhead: ms(args.move_overhead_ms),
                max_review_time: ms(args.max_review_time_ms),
            },
            exec: ExecConfig {
                search_threads: args.search_threads,
                max_concurrent_searches: args.max_concurrent_searches,
                max_queued_searches: args.max_queued_searches,
                replay_threads: args.replay_threads,
                replay_cache_mb: args.replay_cache_mb,
                hash_mb: args.hash_mb,
                eval_net: args.eval_net,
            },
            shutdown: ShutdownConfig {
                drain_delay: ms(args.drain_delay_ms),
                grace: ms(args.shutdown_grace_ms),
            },
            telemetry: TelemetryConfig {
                otlp_endpoint: args.otlp_endpoint,
            },
        }
    }
}

/// A default duration as the flags write it, in milliseconds.
fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// Runs the server until SIGINT/SIGTERM, then drains and exits 0, within the
/// drain delay + the grace period + [`STOP_FLUSH`] + a few milliseconds.
/// Values that do not fit together (or on this machine), or an `--eval-net`
/// file the server cannot use, exit 2 with a sentence naming the flags (as
/// clap does for a value out of range).
pub fn run(args: ServeArgs) -> anyhow::Result<()> {
    let config = Config::from(args);
    if let Err(error) = config.validate() {
        refuse(&error.describe(flag));
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        // Searches, reviews and long replays are the only blocking work: a thread for each
        // that may run at once (the searches and reviews share the cores in turns), and one
        // for the last telemetry flush.
        .max_blocking_threads(
            config.exec.max_concurrent_searches()
                + config.exec.max_active_reviews()
                + config.exec.replay_threads()
                + 1,
        )
        .build()
        .context("cannot start the async runtime")?;
    let served = runtime.block_on(async {
        // Inside the runtime: the OTLP exporter's channel lives there.
        let endpoint = telemetry::otlp_endpoint(config.telemetry.otlp_endpoint.as_deref());
        let telemetry = telemetry::init(endpoint.as_deref())?;
        let mut exit_by = None;
        let served = async {
            let signals = Signals::watch().context("cannot watch SIGINT and SIGTERM")?;
            let server = Server::start(config.clone()).await?;
            signals.received().await;
            exit_by = Some(
                Instant::now() + config.shutdown.drain_delay + config.shutdown.grace + STOP_FLUSH,
            );
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
    if let Err(error) = &served
        && let Some(ServeError::Network { path, reason }) = error.downcast_ref()
    {
        refuse(&format!(
            "{} {}: {reason}",
            long_flag("eval_net"),
            path.display()
        ));
    }
    served
}

/// The flag that sets `setting`.
fn flag(setting: Setting) -> String {
    long_flag(match setting {
        Setting::HashMb => "hash_mb",
        Setting::MaxConcurrentSearches => "max_concurrent_searches",
        Setting::MaxMessageBytes => "max_message_bytes",
        Setting::MaxRequestBytesPerConnection => "max_request_bytes_per_connection",
        Setting::MaxRequestBytes => "max_request_bytes",
        Setting::ReplayCacheMb => "replay_cache_mb",
    })
}

/// The flag of the [`ServeArgs`] field `id`, as clap declares it: `--hash-mb` for `hash_mb`.
fn long_flag(id: &str) -> String {
    let command = <ServeArgs as clap::Args>::augment_args(clap::Command::new("tafl"));
    let long = command
        .get_arguments()
        .find(|arg| arg.get_id() == id)
        .and_then(clap::Arg::get_long);
    format!("--{}", long.unwrap_or(id))
}

/// Exits 2 with `sentence`, as clap does for a value it cannot parse.
fn refuse(sentence: &str) -> ! {
    clap::Error::raw(
        clap::error::ErrorKind::ValueValidation,
        format!("{sentence}\n"),
    )
    .exit()
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{Args, FromArgMatches, Parser};

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        serve: ServeArgs,
    }

    fn parse(args: &[&str]) -> Config {
        Cli::try_parse_from(std::iter::once("tafl").chain(args.iter().copied()))
            .expect("parses")
            .serve
            .into()
    }

    #[test]
    fn defaults_are_the_services_own() {
        // Whatever the environment says.
        let command = ServeArgs::augment_args(clap::Command::new("tafl"))
            .mut_args(|arg| arg.env(None::<&str>));
        let matches = command
            .try_get_matches_from(["tafl"])
            .expect("every flag has a default or is optional");
        let args = ServeArgs::from_arg_matches(&matches).expect("the defaults parse");
        assert_eq!(Config::from(args), Config::default());
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
            "--shutdown-grace-ms",
            "250",
            "--replay-cache-mb",
            "0",
        ]);
        assert_eq!(
            config.transport.listen,
            SocketAddr::from(([0, 0, 0, 0], 9000))
        );
        assert_eq!(config.caps.max_game_plies, 12);
        assert_eq!(config.exec.search_threads(), 3);
        assert_eq!(config.exec.max_concurrent_searches(), 12);
        assert_eq!(config.exec.max_active_reviews(), 6);
        assert_eq!(config.shutdown.grace, Duration::from_millis(250));
        assert_eq!(config.exec.replay_cache_mb, 0);
    }

    #[test]
    fn bad_flags_are_refused() {
        assert!(Cli::try_parse_from(["tafl", "--listen", "nowhere"]).is_err());
        assert!(Cli::try_parse_from(["tafl", "--max-game-plies", "-1"]).is_err());
    }

    #[test]
    fn values_out_of_range_are_refused_naming_the_flag_and_the_range() {
        let refused = |args: &[&str]| {
            let Err(error) =
                Cli::try_parse_from(std::iter::once("tafl").chain(args.iter().copied()))
            else {
                panic!("{args:?} parses");
            };
            assert_eq!(error.exit_code(), 2);
            error.to_string()
        };
        let message = refused(&["--hash-mb", "0"]);
        assert!(
            message.contains("'0' for '--hash-mb <HASH_MB>': must be between 1 and 1048576"),
            "{message}"
        );
        let message = refused(&["--drain-delay-ms", "18446744073709551615"]);
        assert!(message.contains("--drain-delay-ms"), "{message}");
        assert!(
            message.contains("must be between 0 and 3600000"),
            "{message}"
        );
        let message = refused(&["--max-search-nodes", "18446744073709551616"]);
        assert!(message.contains("--max-search-nodes"), "{message}");
        // The bounds themselves are in range.
        let config = parse(&["--hash-mb", "1048576", "--max-search-depth", "255"]);
        assert_eq!(config.exec.hash_mb, 1 << 20);
    }

    #[test]
    fn every_setting_a_config_error_names_has_its_flag() {
        use strum::IntoEnumIterator;
        let command = <ServeArgs as Args>::augment_args(clap::Command::new("tafl"));
        let longs: Vec<String> = command
            .get_arguments()
            .filter_map(clap::Arg::get_long)
            .map(|long| format!("--{long}"))
            .collect();
        for setting in Setting::iter() {
            assert!(
                longs.contains(&flag(setting)),
                "{setting:?}: {}",
                flag(setting)
            );
        }
        assert_eq!(flag(Setting::HashMb), "--hash-mb");
        assert!(longs.contains(&long_flag("eval_net")));
    }
}
