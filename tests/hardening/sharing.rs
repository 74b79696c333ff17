//! Issue 42: the cores are shared while searches run, not only when they
//! start. A started search used to keep its core until it ended, so two
//! clients' 10 s searches held up a third client's 5 ms move for 10 s; two
//! connections that never read held every review place; and a flood of long
//! searches starved a review. Each attack here would have made its victim
//! wait for the attackers' searches to end (10 s and more); the bounds are
//! far below that and far above what a busy machine needs, so the machine's
//! load cannot fail them (the soak benchmark has the tight figures).

use std::time::{Duration, Instant};

use prost::Message;
use tafl::service::pb::{ReviewGameRequest, SuggestMoveRequest, review_game_response::Update};
use tokio::task::JoinSet;

use crate::common::raw_h2::unread_calls;
use crate::common::real_game::real_game_moves;
use crate::common::server::{copenhagen_moves, real_game_review};

/// The attackers' searches: 10 s each, as the probe's.
const LONG_SEARCH_MS: u32 = 10_000;
/// Far under the attackers' 10 s, far over a level-5 move on a loaded machine.
const VICTIM_BOUND: Duration = Duration::from_secs(5);

fn level_5_move(seed: u64) -> tonic::Request<SuggestMoveRequest> {
    let mut request = tonic::Request::new(SuggestMoveRequest {
        game: Some(copenhagen_moves(real_game_moves(20))),
        limits: None,
        level: 5,
        seed,
        clock: None,
    });
    request.set_timeout(VICTIM_BOUND);
    request
}

/// Long searches on `connections` connections of their own, one after another on each, until
/// the returned set is dropped.
async fn long_searches(addr: std::net::SocketAddr, connections: u64) -> JoinSet<()> {
    let mut flood = JoinSet::new();
    for seed in 0..connections {
        let mut client = crate::client(addr).await;
        flood.spawn(async move {
            loop {
                let request = crate::timed_search(seed, LONG_SEARCH_MS, None);
                let _ = client.suggest_move(request).await;
            }
        });
    }
    // Let them start.
    tokio::time::sleep(Duration::from_millis(500)).await;
    flood
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_short_move_is_not_held_up_by_two_clients_long_searches() {
    let server = crate::tafl(&["--search-threads", "2"]);
    let _attackers = long_searches(server.addr, 2).await;
    let mut victim = crate::client(server.addr).await;
    let mut took = Vec::new();
    for seed in 0..5 {
        let started = Instant::now();
        let answer = victim.suggest_move(level_5_move(seed)).await;
        took.push(started.elapsed());
        let answer = answer.unwrap_or_else(|status| panic!("the victim's move: {status:?}"));
        assert!(answer.into_inner().best_move.is_some());
    }
    println!("level-5 moves beside two 10 s searches took {took:?}");
    assert!(took.iter().all(|&took| took < VICTIM_BOUND), "{took:?}");
}

/// A whole review on a connection of its own within `timeout`: the plies judged and whether
/// the summary says partial.
async fn review(
    addr: std::net::SocketAddr,
    request: ReviewGameRequest,
    timeout: Duration,
) -> (usize, bool) {
    let mut client = crate::client(addr).await;
    let mut request = tonic::Request::new(request);
    request.set_timeout(timeout);
    let mut stream = client
        .review_game(request)
        .await
        .unwrap_or_else(|status| panic!("the review was refused: {status:?}"))
        .into_inner();
    let mut plies = 0;
    while let Some(update) = stream.message().await.expect("the review's updates") {
        match update.update.expect("an update") {
            Update::Ply(_) => plies += 1,
            Update::Summary(summary) => return (plies, summary.partial),
        }
    }
    panic!("the review ended without a summary");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_that_never_read_do_not_hold_the_review_places() {
    // One core: two review places, at most one for each connection.
    let server = crate::tafl(&["--search-threads", "1"]);
    let attack = real_game_review(200, 2_000).encode_to_vec();
    let mut attackers = Vec::new();
    for _ in 0..2 {
        let (statuses, connection) = unread_calls(
            server.addr,
            "/tafl.v1.TaflService/ReviewGame",
            &attack,
            2,
            Duration::from_millis(200),
        )
        .await;
        assert!(statuses.iter().all(Option::is_none), "{statuses:?}");
        attackers.push(connection);
    }
    // The attackers' reviews fill their buffers and wait for readers that never read.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let started = Instant::now();
    let (plies, partial) = review(
        server.addr,
        real_game_review(39, 2_000),
        Duration::from_secs(60),
    )
    .await;
    println!(
        "a review of 40 plies beside two unread connections' reviews took {:?}",
        started.elapsed()
    );
    assert_eq!((plies, partial), (40, false));
    for attacker in attackers {
        attacker.abort();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_connection_cannot_hold_every_review_place() {
    let server = crate::tafl(&["--search-threads", "1"]);
    let mut greedy = JoinSet::new();
    let greedy_client = crate::client(server.addr).await;
    for _ in 0..3 {
        let mut client = greedy_client.clone();
        greedy.spawn(async move {
            let mut request = tonic::Request::new(real_game_review(200, 50_000));
            request.set_timeout(Duration::from_secs(120));
            // Read to the end: a review whose stream is dropped stops.
            if let Ok(stream) = client.review_game(request).await {
                let mut stream = stream.into_inner();
                while let Ok(Some(_)) = stream.message().await {}
            }
        });
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (plies, partial) = review(
        server.addr,
        real_game_review(19, 2_000),
        Duration::from_secs(60),
    )
    .await;
    assert_eq!((plies, partial), (20, false));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_review_progresses_beside_a_flood_of_long_searches() {
    let server = crate::tafl(&["--search-threads", "2"]);
    // More connections flooding than there are search places.
    let _flood = long_searches(server.addr, 8).await;
    let started = Instant::now();
    let (plies, partial) = review(
        server.addr,
        real_game_review(29, 5_000),
        Duration::from_secs(60),
    )
    .await;
    println!(
        "a review of 30 plies beside 8 connections' 10 s searches took {:?}",
        started.elapsed()
    );
    assert_eq!((plies, partial), (30, false));
}
