//! Issue 21, problems 2 and 4: a connection cannot starve another's
//! searches. Two connections each keeping six Threats calls going (each
//! claimed 50 ms; when one ended, its connection's next tied with the
//! victim and won on its claim) left another client's level-5 SuggestMove
//! 0 answers of 7; two Analyze streams without limits held both slots for
//! 10 s at a time. Now a connection holding its share waits while another's
//! search does, analyses hold at most half the slots, and waiting searches
//! age; the victim's moves are answered within their deadline.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tafl::service::pb::{AnalyzeRequest, SuggestMoveRequest, ThreatsRequest};
use tokio::task::JoinSet;
use tonic::Code;

const FLOOD_CONNECTIONS: usize = 2;
const THREATS_PER_CONNECTION: usize = 6;
const ANALYSES: usize = 2;
const VICTIM_CALLS: usize = 10;
/// Seconds, not milliseconds: a loaded machine must not fail the test.
const VICTIM_TIMEOUT: Duration = Duration::from_secs(5);
/// The share of the victim's calls that must be answered within their deadline.
const ANSWERED_PERCENT: usize = 80;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_threats_flood_and_analysis_streams_leave_another_connections_moves_answered() {
    let server = crate::tafl(&["--search-threads", "2"]);
    let running = Arc::new(AtomicBool::new(true));
    let threats_answered = Arc::new(AtomicUsize::new(0));
    let mut hogs = JoinSet::new();
    for _ in 0..FLOOD_CONNECTIONS {
        let client = crate::client(server.addr).await;
        for _ in 0..THREATS_PER_CONNECTION {
            let (mut client, running) = (client.clone(), Arc::clone(&running));
            let answered = Arc::clone(&threats_answered);
            hogs.spawn(async move {
                while running.load(Ordering::Relaxed) {
                    // The standard opening, as the flood sent.
                    match client.threats(ThreatsRequest::default()).await {
                        Ok(_) => {
                            answered.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(status) if status.code() == Code::ResourceExhausted => {
                            tokio::time::sleep(Duration::from_millis(20)).await;
                        }
                        Err(status) => panic!("a flood Threats ended {status:?}"),
                    }
                }
            });
        }
    }
    let analyst = crate::client(server.addr).await;
    for _ in 0..ANALYSES {
        let (mut client, running) = (analyst.clone(), Arc::clone(&running));
        hogs.spawn(async move {
            // No limits: each holds its slot for the server's 10 s; reopened when it ends.
            while running.load(Ordering::Relaxed) {
                let Ok(stream) = client.analyze(AnalyzeRequest::default()).await else {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                };
                let mut stream = stream.into_inner();
                while running.load(Ordering::Relaxed) {
                    match tokio::time::timeout(Duration::from_millis(200), stream.message()).await {
                        Ok(Ok(Some(_))) | Err(_) => {}
                        Ok(_) => break,
                    }
                }
            }
        });
    }
    // Let the hogs take the slots and fill the queue first.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut victim = crate::client(server.addr).await;
    let mut outcomes = Vec::new();
    for seed in 0..VICTIM_CALLS as u64 {
        let mut request = tonic::Request::new(SuggestMoveRequest {
            game: None,
            limits: None,
            level: 5,
            seed,
            clock: None,
        });
        request.set_timeout(VICTIM_TIMEOUT);
        let started = Instant::now();
        let outcome = victim.suggest_move(request).await.map(|_| ());
        outcomes.push((outcome.map_err(|status| status.code()), started.elapsed()));
    }
    running.store(false, Ordering::Relaxed);
    hogs.join_all().await;
    let answered = outcomes
        .iter()
        .filter(|(outcome, took)| outcome.is_ok() && *took < VICTIM_TIMEOUT)
        .count();
    println!(
        "victim's level-5 moves beside {FLOOD_CONNECTIONS}×{THREATS_PER_CONNECTION} Threats and {ANALYSES} analyses: {answered} of {VICTIM_CALLS} answered ({outcomes:?}); {} Threats answered",
        threats_answered.load(Ordering::Relaxed)
    );
    assert!(
        answered * 100 >= VICTIM_CALLS * ANSWERED_PERCENT,
        "{answered} of {VICTIM_CALLS} answered: {outcomes:?}"
    );
    assert!(
        threats_answered.load(Ordering::Relaxed) > 0,
        "the flood ran"
    );
}
