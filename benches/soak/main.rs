//! Soak: the release binary under every attack on its bounds and its fair
//! share at once, beside normal traffic, for 60 s (`SOAK_SECS` to
//! change it):
//!
//! - normal: 4 clients calling LegalMoves / ApplyMove on a real 60-ply game
//!   every 5 ms, a Health/Check probe every 50 ms, a SuggestMove (level 5,
//!   5 s deadline: the victim) every 500 ms;
//! - attacks: 2 connections opening 3,000 never-ending Watch streams each
//!   (again whenever closed), 200 silent TCP connections (again whenever
//!   closed), 4 clients replaying 4,096-ply Tablut games back to back, 24
//!   clients asking for 3 s searches with a 10 s deadline back to back;
//!   16 slow readers (stream window 0, never reading) with 128 ValidateGame
//!   calls of a 4,096-ply game each (again whenever closed), 2 connections
//!   keeping 6 Threats each on a costly position going, and one connection
//!   holding 2 Analyze streams without limits (again whenever they end).
//!
//! Then, beside the same normal traffic, the attacks on the
//! sharing of the processor, one after another (`sharing.rs`).
//!
//! Prints peak RSS, cheap-call and health p50/p99, searches answered and
//! refused, the victim's moves in each sharing attack, failed normal calls
//! (must be 0; a victim search refused counts as one), each named by its
//! call and its status, and the exit time after SIGTERM. `SOAK_PARTS`
//! (`attacks,sharing` by default) runs either part alone.
//! The server runs with deploy/k8s's settings (2 search threads, 64 MiB
//! tables, 16 queued searches).
//!
//! `cargo bench --bench soak`

use std::collections::BTreeMap;
use std::io::Write;
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use prost::Message;
use tafl::service::pb::tafl_service_client::TaflServiceClient;
use tafl::service::pb::{
    self, AnalyzeRequest, ApplyMoveRequest, LegalMovesRequest, SearchLimits, SuggestMoveRequest,
    ThreatsRequest, ValidateGameRequest,
};
use tokio::task::JoinSet;
use tonic::Code;
use tonic::transport::Channel;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_client::HealthClient;

mod sharing;

use common::client::connect;
use common::{costly_threats, long_game, process, raw_h2, real_game};

/// Clients asking for long searches back to back.
const FLOOD_SEARCHERS: u64 = 24;
/// Connections that never read their answers, and the calls on each.
const SLOW_READERS: usize = 16;
const SLOW_READER_CALLS: usize = 128;
/// Connections keeping Threats calls going, and the calls each keeps going.
const THREATS_CONNECTIONS: usize = 2;
const THREATS_PER_CONNECTION: usize = 6;
/// Analyze streams without limits held by one connection.
const ANALYSES: usize = 2;

/// What the run counts, shared by its tasks.
#[derive(Default)]
struct Tally {
    /// Failed normal calls, counted by what failed and how.
    normal_failed: Mutex<BTreeMap<String, usize>>,
    searches_ok: AtomicUsize,
    searches_refused: AtomicUsize,
    searches_other: AtomicUsize,
    flood_searches_ok: AtomicUsize,
    flood_searches_refused: AtomicUsize,
    flood_searches_other: AtomicUsize,
    long_replays: AtomicUsize,
    watch_streams_sent: AtomicUsize,
    silent_connections: AtomicUsize,
    slow_reader_connections: AtomicUsize,
    threats_ok: AtomicUsize,
    threats_refused: AtomicUsize,
    threats_other: AtomicUsize,
    analyses_started: AtomicUsize,
    peak_rss_kib: AtomicU64,
}

impl Tally {
    /// Counts a normal call that failed: `call` and how it failed.
    fn normal_failed(&self, call: &str, how: String) {
        *self
            .normal_failed
            .lock()
            .unwrap()
            .entry(format!("{call}: {how}"))
            .or_default() += 1;
    }
}

/// How a call failed, as its status says.
fn how(status: &tonic::Status) -> String {
    format!("{:?} {:?}", status.code(), status.message())
}

fn main() {
    let seconds: u64 = std::env::var("SOAK_SECS")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(60);
    let run = Duration::from_secs(seconds);
    let parts = std::env::var("SOAK_PARTS").unwrap_or_else(|_| "attacks,sharing".to_owned());
    let mut server = process::Tafl::start(
        env!("CARGO_BIN_EXE_tafl"),
        &[
            "--search-threads",
            "2",
            "--hash-mb",
            "64",
            "--max-queued-searches",
            "16",
            "--shutdown-grace-ms",
            "15000",
        ],
        &[],
    );
    let addr = server.addr;
    let idle_kib = server.rss_kib();
    let tally = Arc::new(Tally::default());
    let stop = Arc::new(AtomicBool::new(false));
    let raw_stop = Arc::new(AtomicBool::new(!parts.contains("attacks")));

    // Memory, sampled from outside.
    let sampler = {
        let (tally, stop, pid) = (Arc::clone(&tally), Arc::clone(&stop), server.pid());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                if let Some(kib) = rss_kib(pid) {
                    tally.peak_rss_kib.fetch_max(kib, Ordering::Relaxed);
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        })
    };
    // The raw attacks run on threads of their own.
    let raw_attacks: Vec<_> = (0..2)
        .map(|_| spawn_watch_flood(addr, Arc::clone(&tally), Arc::clone(&raw_stop)))
        .chain([spawn_silent_connections(
            addr,
            Arc::clone(&tally),
            Arc::clone(&raw_stop),
        )])
        .collect();

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let (cheap, health) = runtime.block_on(async {
        if !parts.contains("attacks") {
            return (Vec::new(), Vec::new());
        }
        let until = Instant::now() + run;
        let mut attacks = JoinSet::new();
        for _ in 0..4 {
            attacks.spawn(long_games(connect(addr).await, until, Arc::clone(&tally)));
        }
        for _ in 0..SLOW_READERS {
            attacks.spawn(slow_reader(addr, until, Arc::clone(&tally)));
        }
        for _ in 0..THREATS_CONNECTIONS {
            let client = connect(addr).await;
            for _ in 0..THREATS_PER_CONNECTION {
                attacks.spawn(threats_flood(client.clone(), until, Arc::clone(&tally)));
            }
        }
        let analyst = connect(addr).await;
        for _ in 0..ANALYSES {
            attacks.spawn(analysis_hog(analyst.clone(), until, Arc::clone(&tally)));
        }
        let flood_client = connect(addr).await;
        for seed in 0..FLOOD_SEARCHERS {
            attacks.spawn(long_searches(
                flood_client.clone(),
                seed,
                until,
                Arc::clone(&tally),
            ));
        }
        let mut normal = JoinSet::new();
        for index in 0..4 {
            normal.spawn(cheap_calls(
                connect(addr).await,
                index,
                until,
                Arc::clone(&tally),
            ));
        }
        let health = tokio::spawn(health_probes(addr, until, Arc::clone(&tally)));
        let searches = tokio::spawn(normal_searches(
            connect(addr).await,
            until,
            Arc::clone(&tally),
        ));
        let cheap: Vec<Duration> = normal.join_all().await.into_iter().flatten().collect();
        let health = health.await.expect("probes");
        searches.await.expect("searches");
        attacks.join_all().await;
        (cheap, health)
    });
    raw_stop.store(true, Ordering::Relaxed);
    for attack in raw_attacks {
        attack.join().expect("attack thread");
    }
    if parts.contains("sharing") {
        println!("soak, part 2: the sharing of the processor, beside normal traffic");
        runtime.block_on(async {
            let mut normal = JoinSet::new();
            let until = Instant::now() + Duration::from_secs(3600);
            for index in 0..4 {
                let client = connect(addr).await;
                normal.spawn(cheap_calls(client, index, until, Arc::clone(&tally)));
            }
            normal.spawn(health_probes(addr, until, Arc::clone(&tally)));
            sharing::run(addr, Arc::clone(&tally)).await;
            normal.abort_all();
        });
    }
    // The clients' connections (the slow readers' among them) close before the server is stopped.
    drop(runtime);
    stop.store(true, Ordering::Relaxed);
    sampler.join().expect("sampler");

    let sigterm = Instant::now();
    server.sigterm();
    let status = server.wait(Duration::from_secs(60));
    let exit = sigterm.elapsed();

    let count = |counter: &AtomicUsize| counter.load(Ordering::Relaxed);
    println!("soak: {seconds} s against the release binary (2 search threads, 64 MiB tables)");
    println!(
        "  peak RSS {} MiB (idle {} MiB)",
        tally.peak_rss_kib.load(Ordering::Relaxed) / 1024,
        idle_kib / 1024
    );
    println!("  cheap calls: {}", summary(cheap));
    println!("  Health/Check: {}", summary(health));
    println!(
        "  victim searches (level 5, 5 s deadline): {} OK, {} refused, {} other",
        count(&tally.searches_ok),
        count(&tally.searches_refused),
        count(&tally.searches_other)
    );
    println!(
        "  Threats flood: {} OK, {} refused, {} other; {} analyses started",
        count(&tally.threats_ok),
        count(&tally.threats_refused),
        count(&tally.threats_other),
        count(&tally.analyses_started)
    );
    println!(
        "  flood searches: {} OK, {} refused, {} other",
        count(&tally.flood_searches_ok),
        count(&tally.flood_searches_refused),
        count(&tally.flood_searches_other)
    );
    println!(
        "  attacks: {} replays of 4,096 plies, {} Watch streams asked for, {} silent connections, {} slow-reader connections",
        count(&tally.long_replays),
        count(&tally.watch_streams_sent),
        count(&tally.silent_connections),
        count(&tally.slow_reader_connections)
    );
    let failed = tally.normal_failed.lock().unwrap();
    println!("  failed normal calls: {}", failed.values().sum::<usize>());
    for (what, times) in failed.iter() {
        println!("    {times} × {what}");
    }
    println!("  exit {exit:?} after SIGTERM, {status}");
}

fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

fn summary(mut latencies: Vec<Duration>) -> String {
    if latencies.is_empty() {
        return "none".to_owned();
    }
    latencies.sort_unstable();
    let at = |share: f64| latencies[((latencies.len() - 1) as f64 * share) as usize];
    format!(
        "{} calls, p50 {:?}, p99 {:?}, max {:?}",
        latencies.len(),
        at(0.5),
        at(0.99),
        latencies[latencies.len() - 1]
    )
}

/// Normal traffic: the game backend's calls on a real 60-ply game.
async fn cheap_calls(
    mut client: TaflServiceClient<Channel>,
    index: usize,
    until: Instant,
    tally: Arc<Tally>,
) -> Vec<Duration> {
    let moves = real_game::real_game_moves(60);
    let game = pb::Game {
        variant: None,
        start: String::new(),
        moves: moves[..60].to_vec(),
    };
    let mut latencies = Vec::new();
    let mut tick = tokio::time::interval(Duration::from_millis(5));
    for call in index.. {
        tick.tick().await;
        if Instant::now() >= until {
            break;
        }
        let started = Instant::now();
        let answer = if call % 2 == 0 {
            let request = LegalMovesRequest {
                game: Some(game.clone()),
                square: String::new(),
            };
            ("LegalMoves", client.legal_moves(request).await.map(drop))
        } else {
            let request = ApplyMoveRequest {
                game: Some(game.clone()),
                next_move: moves[60].clone(),
                ..ApplyMoveRequest::default()
            };
            ("ApplyMove", client.apply_move(request).await.map(drop))
        };
        match answer {
            (_, Ok(())) => latencies.push(started.elapsed()),
            (call, Err(status)) => tally.normal_failed(call, how(&status)),
        }
    }
    latencies
}

/// A kubelet's probe: Health/Check with a 1 s timeout, on a new connection each time.
async fn health_probes(addr: SocketAddr, until: Instant, tally: Arc<Tally>) -> Vec<Duration> {
    let mut latencies = Vec::new();
    while Instant::now() < until {
        let started = Instant::now();
        let probe = async {
            let channel = Channel::from_shared(format!("http://{addr}"))
                .expect("uri")
                .connect()
                .await
                .map_err(|error| format!("cannot connect: {error}"))?;
            HealthClient::new(channel)
                .check(HealthCheckRequest::default())
                .await
                .map_err(|status| how(&status))
        };
        match tokio::time::timeout(Duration::from_secs(1), probe).await {
            Ok(Ok(_)) => latencies.push(started.elapsed()),
            Ok(Err(how)) => tally.normal_failed("Health/Check", how),
            Err(_) => tally.normal_failed(
                "Health/Check",
                "no answer within the probe's 1 s, connecting included".to_owned(),
            ),
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    latencies
}

/// The matchmaking server: a level-5 move with a 5 s deadline every 500 ms.
async fn normal_searches(
    mut client: TaflServiceClient<Channel>,
    until: Instant,
    tally: Arc<Tally>,
) {
    let mut tick = tokio::time::interval(Duration::from_millis(500));
    for seed in 0.. {
        tick.tick().await;
        if Instant::now() >= until {
            break;
        }
        let mut request = tonic::Request::new(SuggestMoveRequest {
            game: None,
            limits: None,
            level: 5,
            seed,
            clock: None,
        });
        request.set_timeout(Duration::from_secs(5));
        let answer = client.suggest_move(request).await;
        let counter = match &answer {
            Ok(_) => &tally.searches_ok,
            Err(status) if status.code() == Code::ResourceExhausted => &tally.searches_refused,
            Err(_) => &tally.searches_other,
        };
        counter.fetch_add(1, Ordering::Relaxed);
        // One client's flood must not starve another's searches: a refusal is a failure here.
        if let Err(status) = answer {
            tally.normal_failed("SuggestMove", how(&status));
        }
    }
}

/// Attack: the longest legal games, replayed back to back.
async fn long_games(mut client: TaflServiceClient<Channel>, until: Instant, tally: Arc<Tally>) {
    let game = pb::Game {
        variant: Some(pb::Variant {
            rules: pb::Rules::Tablut.into(),
            board_size: 0,
        }),
        start: String::new(),
        moves: long_game::back_and_forth(4096),
    };
    while Instant::now() < until {
        let request = LegalMovesRequest {
            game: Some(game.clone()),
            square: String::new(),
        };
        if client.legal_moves(request).await.is_ok() {
            tally.long_replays.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Attack: 3 s searches with a 10 s deadline, back to back.
async fn long_searches(
    mut client: TaflServiceClient<Channel>,
    seed: u64,
    until: Instant,
    tally: Arc<Tally>,
) {
    while Instant::now() < until {
        let mut request = tonic::Request::new(SuggestMoveRequest {
            game: None,
            limits: Some(SearchLimits {
                max_time_ms: 3000,
                ..SearchLimits::default()
            }),
            level: 10,
            seed,
            clock: None,
        });
        request.set_timeout(Duration::from_secs(10));
        let counters = [
            &tally.flood_searches_ok,
            &tally.flood_searches_refused,
            &tally.flood_searches_other,
        ];
        let answer = client.suggest_move(request).await;
        count_attack(answer, counters, Duration::from_millis(100)).await;
    }
}

/// Attack: Threats on a costly position, back to back.
async fn threats_flood(mut client: TaflServiceClient<Channel>, until: Instant, tally: Arc<Tally>) {
    while Instant::now() < until {
        let request = ThreatsRequest {
            game: Some(costly_threats::costly_threats_game()),
        };
        let counters = [
            &tally.threats_ok,
            &tally.threats_refused,
            &tally.threats_other,
        ];
        let answer = client.threats(request).await;
        count_attack(answer, counters, Duration::from_millis(20)).await;
    }
}

/// Counts an attack's answer as OK, refused or other; a refused caller
/// waits `pause` before its next call, as one told to come back later does.
async fn count_attack<T>(
    answer: Result<T, tonic::Status>,
    [ok, refused, other]: [&AtomicUsize; 3],
    pause: Duration,
) {
    let counter = match answer {
        Ok(_) => ok,
        Err(status) if status.code() == Code::ResourceExhausted => {
            tokio::time::sleep(pause).await;
            refused
        }
        Err(_) => other,
    };
    counter.fetch_add(1, Ordering::Relaxed);
}

/// Attack: an Analyze stream without limits (the server's 10 s cap), again whenever it ends.
async fn analysis_hog(mut client: TaflServiceClient<Channel>, until: Instant, tally: Arc<Tally>) {
    while Instant::now() < until {
        let Ok(stream) = client.analyze(AnalyzeRequest::default()).await else {
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        tally.analyses_started.fetch_add(1, Ordering::Relaxed);
        let mut stream = stream.into_inner();
        while Instant::now() < until {
            match tokio::time::timeout(Duration::from_millis(500), stream.message()).await {
                Ok(Ok(Some(_))) | Err(_) => {}
                Ok(_) => break,
            }
        }
    }
}

/// Attack: a connection that shuts its stream window and never reads, with
/// 128 ValidateGame calls of a 4,096-ply game (135 KB answers) on it, again
/// whenever the server closes it.
async fn slow_reader(addr: SocketAddr, until: Instant, tally: Arc<Tally>) {
    let game = pb::Game {
        variant: Some(pb::Variant {
            rules: pb::Rules::Tablut.into(),
            board_size: 0,
        }),
        start: String::new(),
        moves: long_game::back_and_forth(4096),
    };
    let body = ValidateGameRequest { game: Some(game) }.encode_to_vec();
    while Instant::now() < until {
        let (_, connection) = raw_h2::unread_calls(
            addr,
            "/tafl.v1.TaflService/ValidateGame",
            &body,
            SLOW_READER_CALLS,
            Duration::from_millis(100),
        )
        .await;
        tally
            .slow_reader_connections
            .fetch_add(1, Ordering::Relaxed);
        // Held until the server closes it (its send timeout) or the run ends.
        let left = until.saturating_duration_since(Instant::now());
        let _ = tokio::time::timeout(left, connection).await;
    }
}

/// Attack: one connection opening 3,000 Watch streams at once, again whenever closed.
fn spawn_watch_flood(
    addr: SocketAddr,
    tally: Arc<Tally>,
    stop: Arc<AtomicBool>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let mut flood = Vec::new();
        for n in 0..3000u32 {
            let id = 2 * n + 1;
            flood.extend(raw_h2::frame(
                raw_h2::HEADERS,
                raw_h2::END_HEADERS,
                id,
                &raw_h2::grpc_headers("/grpc.health.v1.Health/Watch"),
            ));
            flood.extend(raw_h2::frame(
                raw_h2::DATA,
                raw_h2::END_STREAM,
                id,
                &raw_h2::grpc_message(0, &[]),
            ));
        }
        while !stop.load(Ordering::Relaxed) {
            let Ok(mut connection) = raw_h2::RawConnection::open(addr) else {
                std::thread::sleep(Duration::from_millis(100));
                continue;
            };
            let _ = connection.stream.write_all(&flood);
            tally.watch_streams_sent.fetch_add(3000, Ordering::Relaxed);
            // Held until the server closes it or the run ends.
            while !stop.load(Ordering::Relaxed) {
                if connection.read_frame(Duration::from_millis(200)).is_none()
                    && is_closed(&connection.stream)
                {
                    break;
                }
            }
        }
    })
}

/// Attack: 200 silent TCP connections, each reopened once the server closes it.
fn spawn_silent_connections(
    addr: SocketAddr,
    tally: Arc<Tally>,
    stop: Arc<AtomicBool>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let mut open: Vec<TcpStream> = Vec::new();
        while !stop.load(Ordering::Relaxed) {
            open.retain(|stream| !is_closed(stream));
            while open.len() < 200 {
                match TcpStream::connect(addr) {
                    Ok(stream) => {
                        tally.silent_connections.fetch_add(1, Ordering::Relaxed);
                        open.push(stream);
                    }
                    Err(_) => break,
                }
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    })
}

/// Whether the server has closed `stream`: reads what it sent (its SETTINGS)
/// until a read would block, or sees the end.
fn is_closed(stream: &TcpStream) -> bool {
    let _ = stream.set_nonblocking(true);
    let mut reader = stream;
    let mut buffer = [0u8; 4096];
    let closed = loop {
        match std::io::Read::read(&mut reader, &mut buffer) {
            Ok(0) => break true,
            Ok(_) => {}
            Err(error) => break error.kind() != std::io::ErrorKind::WouldBlock,
        }
    };
    let _ = stream.set_nonblocking(false);
    closed
}
