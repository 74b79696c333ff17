//! Overload: far more long searches than the pool takes, all at once, while a
//! steady stream of cheap calls (LegalMoves, ApplyMove on a real 60-ply game)
//! goes on. The searches past the queue are refused at once, the admitted
//! ones finish, and the cheap calls all succeed with a low p99.

use crate::common;

use std::time::{Duration, Instant};

use tafl::service::pb::{
    ApplyMoveRequest, EvaluateRequest, LegalMovesRequest, SearchLimits, SuggestMoveRequest,
};
use tafl::service::{Config, ExecConfig};
use tokio::task::JoinSet;
use tonic::Code;

use common::real_game;
use common::server::{TestServer, connect, copenhagen, test_config};

const RUNNING: usize = 2;
const QUEUED: usize = 4;
const SEARCHES: usize = 40;
const SEARCH_MS: u32 = 1500;
/// Cheap calls: this many clients, each on its own connection, one call per tick.
const CHEAP_CLIENTS: usize = 4;
const CHEAP_TICK: Duration = Duration::from_millis(10);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn searches_past_the_queue_are_refused_and_cheap_calls_stay_fast() {
    let server = TestServer::start_with(Config {
        exec: ExecConfig {
            max_concurrent_searches: RUNNING,
            max_queued_searches: QUEUED,
            ..test_config().exec
        },
        ..test_config()
    })
    .await;
    let moves = real_game::real_game_moves(60);
    let moves: Vec<&str> = moves.iter().map(String::as_str).collect();
    let game = copenhagen(&moves[..60]);
    let next_move = moves[60].to_owned();
    // The searches start from the opening, where no search of 1.5 s finds a forced result and
    // stops early (at ply 60 one side is lost in ten plies, which a warm table finds in 0.3 s).
    let opening = copenhagen(&[]);

    // Connections first, so the searches below start together.
    let mut search_clients = Vec::new();
    for _ in 0..4 {
        search_clients.push(connect(server.addr).await);
    }
    let mut cheap_clients = Vec::new();
    for _ in 0..CHEAP_CLIENTS {
        cheap_clients.push(connect(server.addr).await);
    }

    let mut searches = JoinSet::new();
    for i in 0..SEARCHES {
        let mut client = search_clients[i % search_clients.len()].clone();
        let game = opening.clone();
        let limits = Some(SearchLimits {
            max_time_ms: SEARCH_MS,
            ..SearchLimits::default()
        });
        searches.spawn(async move {
            let started = Instant::now();
            let result = if i % 2 == 0 {
                client
                    .suggest_move(SuggestMoveRequest {
                        game: Some(game),
                        limits,
                        level: 10,
                        seed: i as u64,
                        clock: None,
                    })
                    .await
                    .map(|reply| assert!(reply.into_inner().best_move.is_some()))
            } else {
                client
                    .evaluate(EvaluateRequest {
                        game: Some(game),
                        limits,
                    })
                    .await
                    .map(|reply| assert!(reply.into_inner().depth >= 1))
            };
            (result.map_err(|status| status.code()), started.elapsed())
        });
    }

    // The cheap stream runs until every search has answered.
    let (done, stopped) = tokio::sync::watch::channel(false);
    let mut cheap = JoinSet::new();
    for (index, mut client) in cheap_clients.into_iter().enumerate() {
        let game = game.clone();
        let next_move = next_move.clone();
        let mut stopped = stopped.clone();
        cheap.spawn(async move {
            let mut latencies = Vec::new();
            let mut tick = tokio::time::interval(CHEAP_TICK);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            for call in 0usize.. {
                tokio::select! {
                    _ = tick.tick() => {}
                    _ = stopped.changed() => break,
                }
                let started = Instant::now();
                if (call + index) % 2 == 0 {
                    let reply = client
                        .legal_moves(LegalMovesRequest {
                            game: Some(game.clone()),
                            square: String::new(),
                        })
                        .await
                        .unwrap_or_else(|status| panic!("LegalMoves: {status:?}"))
                        .into_inner();
                    assert_eq!(reply.position.unwrap().ply, 60);
                    assert!(!reply.moves.is_empty());
                } else {
                    let reply = client
                        .apply_move(ApplyMoveRequest {
                            game: Some(game.clone()),
                            next_move: next_move.clone(),
                            include_legal_moves: false,
                        })
                        .await
                        .unwrap_or_else(|status| panic!("ApplyMove: {status:?}"))
                        .into_inner();
                    assert_eq!(reply.position.unwrap().ply, 61);
                }
                latencies.push(started.elapsed());
            }
            latencies
        });
    }

    let mut accepted = Vec::new();
    let mut refused = Vec::new();
    while let Some(search) = searches.join_next().await {
        match search.expect("search task") {
            (Ok(()), elapsed) => accepted.push(elapsed),
            (Err(Code::ResourceExhausted), elapsed) => refused.push(elapsed),
            (Err(code), elapsed) => panic!("a search failed with {code:?} after {elapsed:?}"),
        }
    }
    done.send(true).expect("the cheap clients listen");
    let mut latencies: Vec<Duration> = cheap.join_all().await.into_iter().flatten().collect();
    latencies.sort_unstable();
    refused.sort_unstable();
    accepted.sort_unstable();

    let percentile = |share: f64| latencies[((latencies.len() - 1) as f64 * share) as usize];
    let (p50, p99, max) = (
        percentile(0.50),
        percentile(0.99),
        latencies[latencies.len() - 1],
    );
    println!(
        "searches: {} accepted (slowest {:?}), {} refused (slowest refusal {:?})",
        accepted.len(),
        accepted.last().copied().unwrap_or_default(),
        refused.len(),
        refused.last().copied().unwrap_or_default(),
    );
    println!(
        "cheap calls: {} during the searches, p50 {p50:?}, p99 {p99:?}, max {max:?}",
        latencies.len()
    );

    // All arrive within milliseconds and none finishes before 1.5 s: exactly
    // the running and queued ones are taken, in three rounds of two.
    assert_eq!(accepted.len(), RUNNING + QUEUED, "accepted searches");
    assert_eq!(
        refused.len(),
        SEARCHES - RUNNING - QUEUED,
        "refused searches"
    );
    assert!(
        refused.last().unwrap() < &Duration::from_millis(200),
        "refusals answer at once, the slowest took {:?}",
        refused.last().unwrap()
    );
    let rounds = (RUNNING + QUEUED).div_ceil(RUNNING) as u32;
    assert!(
        accepted.last().unwrap() >= &(Duration::from_millis(SEARCH_MS.into()) * (rounds - 1)),
        "the queued searches waited their turn: {accepted:?}"
    );
    // A 10 ms tick for 4 clients over at least 3 s of searching.
    assert!(latencies.len() >= 600, "{} cheap calls", latencies.len());
    assert!(
        p99 < Duration::from_millis(250),
        "cheap calls slowed by the searches: p99 {p99:?}"
    );
    server.stop().await;
}
