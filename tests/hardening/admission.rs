//! Problem 5: searches are admitted only if they can start in time: a flood of long
//! searches with deadlines on a 2-slot server gets RESOURCE_EXHAUSTED at
//! once, with RetryInfo and `grpc-retry-pushback-ms`, for what would not
//! start early enough, and no call ends DEADLINE_EXCEEDED.

use std::time::{Duration, Instant};

use tafl::service::pb::SuggestMoveRequest;
use tokio::task::JoinSet;
use tonic::Code;
use tonic_types::StatusExt;

const SLOTS: usize = 2;
const SEARCHES: usize = 20;
const SEARCH_MS: u32 = 1000;
const TIMEOUT: Duration = Duration::from_secs(3);
/// Generous, for a loaded machine: the target is 50 ms (printed).
const REFUSAL_BOUND: Duration = Duration::from_millis(500);

/// A server running as many searches at once as it has cores: what admission decides is then
/// who starts, not how the cores are shared (`tests/hardening/sharing.rs`).
fn slots_server() -> crate::Tafl {
    let slots = SLOTS.to_string();
    crate::tafl(&[
        "--search-threads",
        &slots,
        "--max-concurrent-searches",
        &slots,
    ])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn searches_that_cannot_start_in_time_are_refused_at_once() {
    let server = slots_server();
    let client = crate::client(server.addr).await;
    let mut calls = JoinSet::new();
    for seed in 0..SEARCHES as u64 {
        let mut client = client.clone();
        calls.spawn(async move {
            let request = crate::timed_search(seed, SEARCH_MS, Some(TIMEOUT));
            let started = Instant::now();
            let result = client.suggest_move(request).await;
            (result, started.elapsed())
        });
    }
    let mut answered = Vec::new();
    let mut refused = Vec::new();
    for (result, elapsed) in calls.join_all().await {
        match result {
            Ok(reply) => {
                assert!(reply.into_inner().best_move.is_some());
                answered.push(elapsed);
            }
            Err(status) if status.code() == Code::ResourceExhausted => {
                let retry = status.get_details_retry_info().expect("RetryInfo");
                assert!(
                    retry
                        .retry_delay
                        .is_some_and(|delay| delay > Duration::ZERO)
                );
                let pushback = status
                    .metadata()
                    .get("grpc-retry-pushback-ms")
                    .expect("the pushback trailer");
                assert!(pushback.to_str().unwrap().parse::<u64>().unwrap() > 0);
                refused.push(elapsed);
            }
            Err(status) => panic!("a search ended {status:?} after {elapsed:?}"),
        }
    }
    answered.sort_unstable();
    refused.sort_unstable();
    println!(
        "{} answered (slowest {:?}), {} refused (slowest refusal {:?})",
        answered.len(),
        answered.last(),
        refused.len(),
        refused.last()
    );
    // Three rounds of two fit in the 3 s deadline; the others cannot start in time.
    assert!(answered.len() >= SLOTS, "{} answered", answered.len());
    assert!(refused.len() >= SEARCHES / 2, "{} refused", refused.len());
    assert!(
        *refused.last().unwrap() < REFUSAL_BOUND,
        "the slowest refusal took {:?}",
        refused.last().unwrap()
    );
    assert!(answered.iter().all(|elapsed| *elapsed < TIMEOUT));
}

/// The flooding client's searches: 1 s each with an 8 s deadline, so that
/// a first-come queue would hold several seconds of them.
const FLOOD_SEARCH_MS: u32 = 1000;
const FLOOD_TIMEOUT: Duration = Duration::from_secs(8);
const FLOODERS: u64 = 32;
/// The other client's searches: level 3 (a node cap of 20,000) with a 3 s
/// deadline, which a first-come queue behind the flood could not meet.
const SHORT_SEARCHES: usize = 5;
const SHORT_TIMEOUT: Duration = Duration::from_secs(3);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_client_flooding_long_searches_does_not_starve_another() {
    let server = slots_server();
    let flood_client = crate::client(server.addr).await;
    let flooding = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let mut flood = JoinSet::new();
    for seed in 0..FLOODERS {
        let mut client = flood_client.clone();
        let flooding = std::sync::Arc::clone(&flooding);
        flood.spawn(async move {
            let (mut answered, mut refused) = (0, 0);
            while flooding.load(std::sync::atomic::Ordering::Relaxed) {
                let request = crate::timed_search(seed, FLOOD_SEARCH_MS, Some(FLOOD_TIMEOUT));
                match client.suggest_move(request).await {
                    Ok(_) => answered += 1,
                    Err(status) if status.code() == Code::ResourceExhausted => {
                        refused += 1;
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                    Err(status) => panic!("a flood search ended {status:?}"),
                }
            }
            (answered, refused)
        });
    }
    // Let the flood fill the slots and the queue first.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut other = crate::client(server.addr).await;
    let mut waits = Vec::new();
    for seed in 0..SHORT_SEARCHES as u64 {
        let mut request = tonic::Request::new(SuggestMoveRequest {
            game: None,
            limits: None,
            level: 3,
            seed,
            clock: None,
        });
        request.set_timeout(SHORT_TIMEOUT);
        let started = Instant::now();
        let reply = other.suggest_move(request).await;
        waits.push(started.elapsed());
        let reply = reply.unwrap_or_else(|status| {
            panic!("short search {seed} behind the flood ended {status:?}")
        });
        assert!(reply.into_inner().best_move.is_some());
    }
    flooding.store(false, std::sync::atomic::Ordering::Relaxed);
    let (answered, refused) = flood
        .join_all()
        .await
        .into_iter()
        .fold((0, 0), |(a, r), (answered, refused)| {
            (a + answered, r + refused)
        });
    println!(
        "short searches behind the flood took {waits:?}; flood: {answered} answered, {refused} refused"
    );
    assert!(
        refused > 0,
        "the flood was never refused: it did not fill the queue"
    );
}
