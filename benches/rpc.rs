//! The service under load: LegalMoves and ApplyMove on a real 100-ply game
//! over real HTTP/2 (the in-process server on port 0, tonic clients on
//! several connections), calls per second and p50/p99 latency, against the
//! same work done in-process with `tafl::rules::Game` in the same run, so the
//! cost of gRPC shows as a ratio.
//!
//! `cargo bench --bench rpc` (`RPC_BENCH_SECONDS` sets each measurement's
//! length, 3 by default; `RPC_BENCH_BODIES=<dir>` only writes the two
//! requests as gRPC bodies there, the same on the empty game and the health
//! check's, for h2load). Server and clients share the machine's cores, as
//! they would with a load tool on the same host.
//!
//! `RPC_BENCH_H2LOAD=<rounds>` instead runs h2load (Debian's
//! `nghttp2-client`) against the `tafl` binary: the health check and
//! LegalMoves on the 100-ply game in turn, 4 connections × 8 streams, each
//! 5 s after a 1 s warm-up, and prints each round's calls per second and
//! their ratio: how close the cheapest real call is to the floor, with the
//! machine's load hitting both alike. LegalMoves runs twice a round: on the
//! server as it starts, which after the first call finds the game already
//! replayed (as a game backend's ApplyMove finds its LegalMoves' game), and
//! on a second server that keeps no game (`--replay-cache-mb 0`), which
//! replays it every call.

use common::client::connect;
use common::real_game;

use std::hint::black_box;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use prost::Message;
use tafl::rules::{Game, Rules, Variant};
use tafl::service::pb::tafl_service_client::TaflServiceClient;
use tafl::service::pb::{self, ApplyMoveRequest, LegalMovesRequest};
use tafl::service::{Config, ExecConfig, Server, TransportConfig, telemetry};
use tokio::task::JoinSet;
use tonic::transport::Channel;

const PLIES: usize = 100;
const CONNECTIONS: usize = 4;
/// Calls in flight at once under load (spread over the connections).
const CONCURRENT: usize = 32;

#[derive(Clone, Copy, Debug)]
enum Rpc {
    LegalMoves,
    ApplyMove,
}

/// One line of the table.
struct Measured {
    calls: usize,
    elapsed: Duration,
    latencies: Vec<Duration>,
}

impl Measured {
    fn rate(&self) -> f64 {
        self.calls as f64 / self.elapsed.as_secs_f64()
    }

    fn percentile(&self, share: f64) -> Duration {
        self.latencies[((self.latencies.len() - 1) as f64 * share) as usize]
    }
}

fn main() {
    let seconds: f64 = std::env::var("RPC_BENCH_SECONDS")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(3.0);
    let duration = Duration::from_secs_f64(seconds);
    let moves = real_game::real_game_moves(PLIES);
    if let Some(dir) = std::env::var_os("RPC_BENCH_BODIES") {
        write_bodies(Path::new(&dir), &moves);
        return;
    }
    if let Ok(rounds) = std::env::var("RPC_BENCH_H2LOAD") {
        let rounds = rounds
            .parse()
            .expect("RPC_BENCH_H2LOAD: a number of rounds");
        h2load_against_health(&moves, rounds);
        return;
    }

    let in_process = [
        (
            Rpc::LegalMoves,
            in_process_rate(Rpc::LegalMoves, &moves, duration),
        ),
        (
            Rpc::ApplyMove,
            in_process_rate(Rpc::ApplyMove, &moves, duration),
        ),
    ];

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let over_grpc = runtime.block_on(async {
        // Logs as `tafl serve` has them without a collector.
        let _telemetry = telemetry::init(None).expect("telemetry");
        let server = Server::start(Config {
            transport: TransportConfig {
                listen: SocketAddr::from(([127, 0, 0, 1], 0)),
                ..TransportConfig::default()
            },
            exec: ExecConfig {
                hash_mb: 1,
                ..ExecConfig::default()
            },
            ..Config::default()
        })
        .await
        .expect("server starts");
        let mut channels = Vec::new();
        for _ in 0..CONNECTIONS {
            channels.push(connect(server.local_addr()).await);
        }
        let mut results = Vec::new();
        for rpc in [Rpc::LegalMoves, Rpc::ApplyMove] {
            for concurrent in [1, CONCURRENT] {
                // Warm the connections and the allocator first.
                measure(rpc, &channels, &moves, concurrent, duration / 5).await;
                let measured = measure(rpc, &channels, &moves, concurrent, duration).await;
                results.push((rpc, concurrent, measured));
            }
        }
        let sizes = message_sizes(&channels[0], &moves).await;
        server.shutdown().await.expect("clean shutdown");
        (results, sizes)
    });
    let (over_grpc, sizes) = over_grpc;

    println!(
        "\n{PLIES}-ply real Copenhagen game, {} cores, {seconds} s per line",
        std::thread::available_parallelism().map_or(0, usize::from)
    );
    println!(
        "{:<11} {:>9} {:>11} {:>9} {:>9} {:>9} {:>22}",
        "rpc", "in flight", "calls/s", "p50 µs", "p99 µs", "max µs", "in-process/gRPC rate"
    );
    for (rpc, concurrent, measured) in &over_grpc {
        let local = in_process
            .iter()
            .find(|(kind, _)| std::mem::discriminant(kind) == std::mem::discriminant(rpc))
            .map_or(f64::NAN, |(_, rate)| *rate);
        println!(
            "{:<11} {:>9} {:>11.0} {:>9} {:>9} {:>9} {:>21.1}×",
            format!("{rpc:?}"),
            concurrent,
            measured.rate(),
            measured.percentile(0.50).as_micros(),
            measured.percentile(0.99).as_micros(),
            measured.latencies.last().map_or(0, Duration::as_micros),
            local / measured.rate(),
        );
    }
    for (rpc, (request, reply)) in [Rpc::LegalMoves, Rpc::ApplyMove].iter().zip(sizes) {
        println!(
            "{:<11} messages: request {request} bytes, reply {reply} bytes",
            format!("{rpc:?}")
        );
    }
    for (rpc, rate) in &in_process {
        println!(
            "{:<11} in-process, one thread: {rate:>9.0} per second ({:.1} µs each)",
            format!("{rpc:?}"),
            1e6 / rate
        );
    }
}

/// The handler's work without gRPC: replay the game from its move texts, then
/// list the legal moves (sorted, as the service sends them) or judge one more.
fn in_process_rate(rpc: Rpc, moves: &[String], duration: Duration) -> f64 {
    let (history, next) = moves.split_at(PLIES);
    let work = || {
        let mut game = Game::new(Variant::standard(Rules::Copenhagen));
        for text in history {
            game.play(text).expect("a recorded move");
        }
        match rpc {
            Rpc::LegalMoves => {
                let mut legal = game
                    .position()
                    .legal_moves()
                    .iter()
                    .copied()
                    .collect::<Vec<_>>();
                legal.sort_unstable_by_key(|mv| (mv.from, mv.to));
                black_box(legal.len());
            }
            Rpc::ApplyMove => {
                black_box(game.play(&next[0]).expect("the next recorded move"));
            }
        }
    };
    for _ in 0..100 {
        work();
    }
    let started = Instant::now();
    let mut calls = 0usize;
    while started.elapsed() < duration {
        for _ in 0..100 {
            work();
        }
        calls += 100;
    }
    calls as f64 / started.elapsed().as_secs_f64()
}

/// `concurrent` client loops, each calling back to back for `duration`.
async fn measure(
    rpc: Rpc,
    channels: &[TaflServiceClient<Channel>],
    moves: &[String],
    concurrent: usize,
    duration: Duration,
) -> Measured {
    let (legal, apply) = requests(moves, PLIES);
    let started = Instant::now();
    let end = started + duration;
    let mut tasks = JoinSet::new();
    for index in 0..concurrent {
        let mut client = channels[index % channels.len()].clone();
        let (legal, apply) = (legal.clone(), apply.clone());
        tasks.spawn(async move {
            let mut latencies = Vec::new();
            while Instant::now() < end {
                let call = Instant::now();
                match rpc {
                    Rpc::LegalMoves => {
                        let reply = client.legal_moves(legal.clone()).await.expect("LegalMoves");
                        black_box(reply);
                    }
                    Rpc::ApplyMove => {
                        let reply = client.apply_move(apply.clone()).await.expect("ApplyMove");
                        black_box(reply);
                    }
                }
                latencies.push(call.elapsed());
            }
            latencies
        });
    }
    let mut latencies: Vec<Duration> = tasks.join_all().await.into_iter().flatten().collect();
    let elapsed = started.elapsed();
    latencies.sort_unstable();
    Measured {
        calls: latencies.len(),
        elapsed,
        latencies,
    }
}

/// The LegalMoves and ApplyMove requests the load is made of: the game after `plies` plies, and
/// the next recorded move.
fn requests(moves: &[String], plies: usize) -> (LegalMovesRequest, ApplyMoveRequest) {
    let legal = LegalMovesRequest {
        game: Some(game_proto(&moves[..plies])),
        square: String::new(),
    };
    let apply = ApplyMoveRequest {
        game: Some(game_proto(&moves[..plies])),
        next_move: moves[plies].clone(),
        include_legal_moves: false,
    };
    (legal, apply)
}

/// The encoded (request, reply) sizes of one LegalMoves and one ApplyMove.
async fn message_sizes(
    client: &TaflServiceClient<Channel>,
    moves: &[String],
) -> [(usize, usize); 2] {
    let mut client = client.clone();
    let (legal, apply) = requests(moves, PLIES);
    let legal_reply = client.legal_moves(legal.clone()).await.expect("LegalMoves");
    let apply_reply = client.apply_move(apply.clone()).await.expect("ApplyMove");
    [
        (legal.encoded_len(), legal_reply.get_ref().encoded_len()),
        (apply.encoded_len(), apply_reply.get_ref().encoded_len()),
    ]
}

/// The two requests as gRPC message bodies (a 5-byte frame header, then the
/// protobuf), for an HTTP/2 load tool: `legal_moves.bin`, `apply_move.bin`,
/// the same calls on the empty game (`*_empty.bin`: its first move), the
/// rate a replay is measured against, and the health check's empty request
/// (`health.bin`), the floor a call is measured against.
fn write_bodies(dir: &Path, moves: &[String]) {
    let (legal, apply) = requests(moves, PLIES);
    let (legal_empty, apply_empty) = requests(moves, 0);
    for (name, message) in [
        ("legal_moves.bin", legal.encode_to_vec()),
        ("apply_move.bin", apply.encode_to_vec()),
        ("legal_moves_empty.bin", legal_empty.encode_to_vec()),
        ("apply_move_empty.bin", apply_empty.encode_to_vec()),
        ("health.bin", Vec::new()),
    ] {
        let length = u32::try_from(message.len()).expect("a small message");
        let mut body = vec![0u8];
        body.extend_from_slice(&length.to_be_bytes());
        body.extend_from_slice(&message);
        let path = dir.join(name);
        std::fs::write(&path, body).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
        println!("wrote {}", path.display());
    }
}

/// The moves played so far as the service takes a game.
fn game_proto(moves: &[String]) -> pb::Game {
    pb::Game {
        variant: Some(pb::Variant {
            rules: pb::Rules::Copenhagen.into(),
            board_size: 0,
        }),
        start: String::new(),
        moves: moves.to_vec(),
    }
}

/// The health check and LegalMoves on the 100-ply game from h2load, in turn
/// for `rounds` rounds, on `tafl serve` (this build's binary, its log in a
/// file as a collector would take it), LegalMoves also on a server that keeps
/// no replayed game: each round's calls per second and the ratios, the
/// machine's load average beside them.
fn h2load_against_health(moves: &[String], rounds: usize) {
    let dir = std::env::temp_dir().join(format!("tafl-rpc-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    write_bodies(&dir, moves);
    let (mut server, addr) = serve(&dir.join("server.log"), &[]);
    let (mut uncached, uncached_addr) =
        serve(&dir.join("uncached.log"), &["--replay-cache-mb", "0"]);
    let rate = |name: &str, addr: SocketAddr, path: &str, body: &str| {
        h2load_rate(&format!("http://{addr}/{path}"), &dir.join(body))
            .unwrap_or_else(|error| panic!("{name}: {error}"))
    };
    let legal_moves = "tafl.v1.TaflService/LegalMoves";
    println!("\nh2load -c 4 -m 8 -D 5 --warm-up-time 1 against {addr}, {PLIES}-ply game");
    println!("(uncached: a second server, --replay-cache-mb 0, on {uncached_addr})");
    println!(
        "{:>5} {:>10} {:>14} {:>7} {:>14} {:>7} {:>9}",
        "round", "health/s", "LegalMoves/s", "ratio", "uncached/s", "ratio", "load avg"
    );
    let (mut ratios, mut uncached_ratios) = (Vec::new(), Vec::new());
    for round in 1..=rounds {
        let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
        let health = rate("health", addr, "grpc.health.v1.Health/Check", "health.bin");
        let legal = rate("LegalMoves", addr, legal_moves, "legal_moves.bin");
        let replayed = rate(
            "LegalMoves uncached",
            uncached_addr,
            legal_moves,
            "legal_moves.bin",
        );
        ratios.push(legal / health);
        uncached_ratios.push(replayed / health);
        println!(
            "{round:>5} {health:>10.0} {legal:>14.0} {:>7.3} {replayed:>14.0} {:>7.3} {:>9}",
            legal / health,
            replayed / health,
            load.split_whitespace().next().unwrap_or("?")
        );
    }
    for ratios in [&mut ratios, &mut uncached_ratios] {
        ratios.sort_by(f64::total_cmp);
    }
    println!(
        "median LegalMoves/health: {:.3} (uncached {:.3})",
        ratios[ratios.len() / 2],
        uncached_ratios[uncached_ratios.len() / 2]
    );
    for server in [&mut server, &mut uncached] {
        let _ = server.kill();
        let _ = server.wait();
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// This build's `tafl serve` with `flags` on a free port, its log in `log`,
/// once it listens.
fn serve(log: &Path, flags: &[&str]) -> (std::process::Child, SocketAddr) {
    // A free port, given back for the server to take.
    let addr = TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port");
    let listen = addr.to_string();
    let args: Vec<&str> = ["--listen", &listen]
        .into_iter()
        .chain(flags.iter().copied())
        .collect();
    let log = std::fs::File::create(log).expect("the server's log");
    let server = common::process::command(Path::new(env!("CARGO_BIN_EXE_tafl")), &args, &[])
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .expect("tafl serve starts");
    let started = Instant::now();
    while TcpStream::connect(addr).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "tafl serve does not listen"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    (server, addr)
}

/// One h2load run's calls per second, every call answered with HTTP 200 (a
/// gRPC error is a 200 too: check one call's `grpc-status` first).
fn h2load_rate(url: &str, body: &Path) -> Result<f64, String> {
    let output = Command::new("h2load")
        .args(["-c", "4", "-m", "8", "-D", "5", "--warm-up-time", "1", "-d"])
        .arg(body)
        .args([
            "-H",
            "content-type: application/grpc",
            "-H",
            "te: trailers",
            url,
        ])
        .output()
        .map_err(|error| format!("h2load ({error}): apt-get install nghttp2-client"))?;
    let report = String::from_utf8_lossy(&output.stdout);
    let field = |prefix: &str, suffix: &str| {
        report.lines().find_map(|line| {
            let rest = line.strip_prefix(prefix)?;
            rest.split(", ")
                .find_map(|part| part.strip_suffix(suffix)?.trim().parse::<f64>().ok())
        })
    };
    let rate = field("finished in ", " req/s");
    let all_answered = field("requests: ", " failed") == Some(0.0);
    match rate {
        Some(rate) if all_answered => Ok(rate),
        _ => Err(format!("h2load reported:\n{report}")),
    }
}
