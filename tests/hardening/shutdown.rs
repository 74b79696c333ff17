//! Problem 4: the grace period bounds the exit: searches still running when it ends
//! are told to stop and answer OK with their best move so far.
//! Problem 6: an open `Health/Watch` stream ends right after NOT_SERVING and does
//! not hold the shutdown for the grace period.

use std::time::{Duration, Instant};

use tokio::task::JoinSet;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

const GRACE_MS: u64 = 1000;
/// The searches would think for this long if not stopped.
const SEARCH_MS: u32 = 8000;
/// Generous, for a loaded machine: the promise is grace + 100 ms (printed).
const EXIT_SLACK: Duration = Duration::from_millis(1500);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_grace_period_bounds_the_exit_and_searches_answer() {
    let mut server = crate::tafl(&[
        "--search-threads",
        "2",
        "--max-concurrent-searches",
        "2",
        "--shutdown-grace-ms",
        &GRACE_MS.to_string(),
    ]);
    let client = crate::client(server.addr).await;
    let mut searches = JoinSet::new();
    for seed in 0..2 {
        let mut client = client.clone();
        searches.spawn(async move {
            client
                .suggest_move(crate::timed_search(seed, SEARCH_MS, None))
                .await
        });
    }
    // Both searches hold the two slots (they take 8 s) once a short search
    // with a deadline is refused as unable to start in time: asked that way,
    // however slow the machine is.
    let mut probe = client.clone();
    let waited = Instant::now();
    loop {
        let request = crate::timed_search(0, 100, Some(Duration::from_millis(500)));
        let refused = probe
            .suggest_move(request)
            .await
            .is_err_and(|status| status.code() == tonic::Code::ResourceExhausted);
        if refused {
            break;
        }
        assert!(
            waited.elapsed() < Duration::from_secs(30),
            "the searches never ran"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let sigterm = Instant::now();
    server.sigterm();
    for answer in searches.join_all().await {
        match answer {
            Ok(answer) => assert!(answer.into_inner().best_move.is_some()),
            Err(status) => panic!(
                "a search cut by the grace period answered {status:?}; log: {:#?}",
                server.log()
            ),
        }
    }
    let answered = sigterm.elapsed();
    let status = server.wait(Duration::from_millis(GRACE_MS) + Duration::from_secs(10));
    let exited = sigterm.elapsed();
    println!(
        "grace {GRACE_MS} ms: searches answered {answered:?} and the process exited {exited:?} after SIGTERM"
    );
    assert!(status.success(), "{status:?}");
    assert!(
        answered >= Duration::from_millis(GRACE_MS * 9 / 10),
        "the searches were stopped before the grace period ended: {answered:?}"
    );
    assert!(
        exited < Duration::from_millis(GRACE_MS) + EXIT_SLACK,
        "exited {exited:?} after SIGTERM with a grace of {GRACE_MS} ms"
    );
}

/// Watch clients, each on its own connection: about one in ten missed the
/// last NOT_SERVING before, so with this many one run catches it.
const WATCHERS: usize = 20;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_watches_see_not_serving_and_do_not_hold_the_shutdown() {
    const LONG_GRACE_MS: u64 = 5000;
    let drain_ms = std::env::var("WATCH_DRAIN_MS").unwrap_or_else(|_| "0".to_owned());
    let mut server = crate::tafl(&[
        "--shutdown-grace-ms",
        &LONG_GRACE_MS.to_string(),
        "--drain-delay-ms",
        &drain_ms,
    ]);
    let mut watches = Vec::new();
    for _ in 0..WATCHERS {
        let mut health = HealthClient::new(crate::channel(server.addr).await);
        let mut watch = health
            .watch(HealthCheckRequest::default())
            .await
            .expect("Watch opens")
            .into_inner();
        let first = watch.message().await.expect("an update").expect("open");
        assert_eq!(first.status, ServingStatus::Serving as i32);
        watches.push(watch);
    }

    let sigterm = Instant::now();
    server.sigterm();
    let mut ends = JoinSet::new();
    for mut watch in watches {
        ends.spawn(async move {
            let mut statuses = Vec::new();
            let end = loop {
                match watch.message().await {
                    Ok(Some(update)) => statuses.push(update.status),
                    Ok(None) => break Ok(()),
                    Err(status) => break Err(status),
                }
            };
            (statuses, end)
        });
    }
    let ended = tokio::time::timeout(Duration::from_secs(10), ends.join_all()).await;
    let ended = ended.expect("every Watch stream ends");
    let status = server.wait(Duration::from_secs(20));
    let exited = sigterm.elapsed();
    println!("{WATCHERS} open Watches: exited {exited:?} after SIGTERM (grace {LONG_GRACE_MS} ms)");
    for (statuses, end) in &ended {
        assert_eq!(
            statuses,
            &[ServingStatus::NotServing as i32],
            "a Watch stream ended {end:?} after {statuses:?}"
        );
        assert!(end.is_ok(), "a Watch stream ended {end:?}");
    }
    assert!(status.success(), "{status:?}");
    assert!(
        exited < Duration::from_millis(LONG_GRACE_MS / 2),
        "the Watch streams held the shutdown: exited {exited:?} after SIGTERM"
    );
}
