//! Game review against the release binary with one search thread (and one
//! search slot, 16 searches queued):
//!
//! 1. a 100-ply real game (line 1172 of tests/data/copenhagen-games.csv)
//!    reviewed alone at the default budget: wall time, and per position;
//! 2. a SuggestMove flood alone for as long: 16 clients, as many as the
//!    queue holds, each asking for a level-5 move with a 5 s deadline back
//!    to back: answered, refused, p50 and p99;
//! 3. the same review beside the same flood: the review's wall time, and the
//!    flood's answered and refused calls (fair share: the review and the
//!    flood share the slot's time, and none of the flood's calls is refused
//!    on the review's account).
//!
//! `cargo bench --bench review`

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use tafl::service::pb::{
    self, ReviewGameRequest, SuggestMoveRequest, review_game_response::Update,
};
use tokio::task::JoinSet;
use tonic::Code;

use common::client::connect;
use common::{process, real_game};

/// The reviewed game's line in the real games (100 plies).
const GAME_LINE: usize = 1172;
/// As many as the queue holds: the flood alone fills it, so a refusal beside
/// the review is the review's doing.
const FLOOD_CLIENTS: u64 = 16;

fn main() {
    let server = process::Tafl::start(
        env!("CARGO_BIN_EXE_tafl"),
        &[
            "--search-threads",
            "1",
            "--max-queued-searches",
            "16",
            "--hash-mb",
            "64",
        ],
        &[],
    );
    let addr = server.addr;
    let moves = real_game::real_games()[GAME_LINE - 1].clone();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        println!(
            "review: a {}-ply real game (line {GAME_LINE}) at the default budget, one search thread",
            moves.len()
        );
        let (alone, plies, partial) = review(addr, &moves).await;
        println!(
            "  alone: {plies} plies in {:.1} s ({:.0} ms a position){}",
            alone.as_secs_f64(),
            alone.as_secs_f64() * 1000.0 / (plies + 1) as f64,
            if partial { ", partial" } else { "" }
        );
        let flood = flood(addr, alone, None).await;
        println!("  flood alone for as long: {flood}");
        let stop = Arc::new(AtomicBool::new(false));
        let beside = tokio::spawn(flood_until_stopped(addr, Arc::clone(&stop)));
        let (with_flood, plies, partial) = review(addr, &moves).await;
        stop.store(true, Ordering::Relaxed);
        let flood = beside.await.expect("flood");
        println!(
            "  beside the flood: {plies} plies in {:.1} s{}; flood: {flood}",
            with_flood.as_secs_f64(),
            if partial { ", partial" } else { "" }
        );
    });
}

/// Reviews `moves` at the default budget: the wall time, the plies judged, whether partial.
async fn review(addr: SocketAddr, moves: &[String]) -> (Duration, usize, bool) {
    let mut client = connect(addr).await;
    let started = Instant::now();
    let mut stream = client
        .review_game(ReviewGameRequest {
            game: Some(pb::Game {
                variant: None,
                start: String::new(),
                moves: moves.to_vec(),
            }),
            ..ReviewGameRequest::default()
        })
        .await
        .expect("review starts")
        .into_inner();
    let mut plies = 0;
    let mut partial = true;
    while let Some(update) = stream.message().await.expect("review goes on") {
        match update.update {
            Some(Update::Ply(_)) => plies += 1,
            Some(Update::Summary(summary)) => partial = summary.partial,
            None => {}
        }
    }
    (started.elapsed(), plies, partial)
}

/// What a flood's calls came to.
#[derive(Default)]
struct FloodTally {
    answered: Vec<Duration>,
    refused: usize,
    other: usize,
}

impl std::fmt::Display for FloodTally {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut latencies = self.answered.clone();
        latencies.sort_unstable();
        let at = |share: f64| {
            latencies
                .get(((latencies.len().max(1) - 1) as f64 * share) as usize)
                .copied()
                .unwrap_or_default()
        };
        write!(
            f,
            "{} SuggestMove answered (p50 {:?}, p99 {:?}), {} refused, {} other errors",
            latencies.len(),
            at(0.5),
            at(0.99),
            self.refused,
            self.other
        )
    }
}

/// The flood for `length`, or until `stop` is raised.
async fn flood(addr: SocketAddr, length: Duration, stop: Option<Arc<AtomicBool>>) -> FloodTally {
    let until = Instant::now() + length;
    let client = connect(addr).await;
    let mut clients = JoinSet::new();
    for seed in 0..FLOOD_CLIENTS {
        let (mut client, stop) = (client.clone(), stop.clone());
        clients.spawn(async move {
            let mut tally = FloodTally::default();
            for round in 0.. {
                let stopped = stop
                    .as_ref()
                    .is_some_and(|stop| stop.load(Ordering::Relaxed));
                if stopped || (stop.is_none() && Instant::now() >= until) {
                    break;
                }
                let mut request = tonic::Request::new(SuggestMoveRequest {
                    game: None,
                    limits: None,
                    level: 5,
                    seed: seed * 1000 + round,
                    clock: None,
                });
                request.set_timeout(Duration::from_secs(5));
                let started = Instant::now();
                match client.suggest_move(request).await {
                    Ok(_) => tally.answered.push(started.elapsed()),
                    Err(status) if status.code() == Code::ResourceExhausted => tally.refused += 1,
                    Err(_) => tally.other += 1,
                }
            }
            tally
        });
    }
    let mut total = FloodTally::default();
    for tally in clients.join_all().await {
        total.answered.extend(tally.answered);
        total.refused += tally.refused;
        total.other += tally.other;
    }
    total
}

async fn flood_until_stopped(addr: SocketAddr, stop: Arc<AtomicBool>) -> FloodTally {
    flood(addr, Duration::ZERO, Some(stop)).await
}
