//! Analyze: depths that increase, multi_pv lines with distinct first moves
//! best first, a final update, and a search that stops on cancel and on the
//! deadline, holding its pool slot meanwhile. Bounds are generous: a busy
//! machine must not fail a test (tight figures are in the benchmarks).

use std::collections::HashSet;
use std::time::{Duration, Instant};

use tafl::service::pb::{self, AnalyzeRequest, EvaluateRequest, SearchLimits};
use tonic::Code;

use crate::common::random_games::Lcg;
use crate::common::server::*;
use crate::service::turn_support::*;

/// Every update of an analysis, in order.
async fn collect(
    server: &TestServer,
    request: tonic::Request<AnalyzeRequest>,
) -> Vec<pb::AnalyzeResponse> {
    let mut client = server.new_client().await;
    let mut stream = client.analyze(request).await.unwrap().into_inner();
    let mut updates = Vec::new();
    while let Some(update) = stream.message().await.unwrap() {
        updates.push(update);
    }
    updates
}

fn assert_well_formed(updates: &[pb::AnalyzeResponse], lines: usize, context: &str) {
    let (last, before) = updates.split_last().expect("at least the final update");
    assert!(last.r#final, "{context}");
    assert!(before.iter().all(|update| !update.r#final), "{context}");
    assert!(
        before.windows(2).all(|pair| pair[0].depth < pair[1].depth),
        "{context}: depths increase"
    );
    assert!(
        before
            .last()
            .is_none_or(|previous| previous.depth <= last.depth)
    );
    for update in updates {
        assert_eq!(update.lines.len(), lines, "{context}");
        let firsts: HashSet<&str> = update
            .lines
            .iter()
            .map(|line| line.pv[0].as_str())
            .collect();
        assert_eq!(firsts.len(), lines, "{context}: distinct first moves");
        assert!(
            update
                .lines
                .windows(2)
                .all(|pair| pair[0].score >= pair[1].score),
            "{context}: best first"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn depths_increase_and_multi_pv_is_respected_on_every_ruleset() {
    let _heavy = HEAVY.lock().await;
    let server = TestServer::start().await;
    let mut rng = Lcg(17);
    for (rules, variant) in rulesets() {
        let (game, moves) = random_game(variant, 12, &mut rng);
        if game.status().is_over() {
            continue;
        }
        let legal = game.position().legal_moves().len();
        for multi_pv in [0, 3, 8] {
            let lines = (multi_pv.max(1) as usize).min(legal);
            let updates = collect(
                &server,
                tonic::Request::new(AnalyzeRequest {
                    game: Some(proto_game(rules, variant, &moves)),
                    limits: Some(SearchLimits {
                        max_depth: 3,
                        ..SearchLimits::default()
                    }),
                    multi_pv,
                }),
            )
            .await;
            let context = format!("{variant} multi_pv {multi_pv}");
            assert_well_formed(&updates, lines, &context);
            assert_eq!(updates.last().unwrap().depth, 3, "{context}");
            // Every line is a playable sequence.
            for line in &updates.last().unwrap().lines {
                let mut replay = game.clone();
                for text in &line.pv {
                    replay
                        .play(text)
                        .unwrap_or_else(|e| panic!("{context}: {e}"));
                }
            }
        }
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_game_gives_one_final_update_without_lines() {
    let server = TestServer::start().await;
    let escaped = setup(11, &["k6", "k7"], &[], "d1", 'd');
    let updates = collect(
        &server,
        tonic::Request::new(AnalyzeRequest {
            game: Some(game(pb::Rules::Copenhagen, 0, &escaped, &["d1-a1"])),
            multi_pv: 4,
            ..AnalyzeRequest::default()
        }),
    )
    .await;
    assert_eq!(updates.len(), 1);
    assert!(updates[0].r#final && updates[0].lines.is_empty());
    assert_eq!(
        updates[0].status.unwrap().result(),
        pb::GameResult::DefendersWin
    );
    server.stop().await;
}

async fn evaluate(server: &TestServer) -> Result<(), tonic::Status> {
    let mut client = server.new_client().await;
    client
        .evaluate(EvaluateRequest {
            game: Some(copenhagen(&[])),
            limits: Some(SearchLimits {
                max_depth: 1,
                ..SearchLimits::default()
            }),
        })
        .await
        .map(|_| ())
}

/// How long until the slot is free again (a search is admitted), polling.
async fn time_until_admitted(server: &TestServer, since: Instant) -> Duration {
    loop {
        match evaluate(server).await {
            Ok(()) => return since.elapsed(),
            Err(status) => {
                assert_eq!(status.code(), Code::ResourceExhausted);
                assert!(
                    since.elapsed() < Duration::from_secs(10),
                    "the slot never came free"
                );
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_stops_the_search_and_frees_its_slot() {
    let _heavy = HEAVY.lock().await;
    let server = one_slot_server().await;
    let mut client = server.new_client().await;
    let mut stream = client
        .analyze(AnalyzeRequest {
            game: Some(copenhagen(&[])),
            multi_pv: 2,
            ..AnalyzeRequest::default()
        })
        .await
        .unwrap()
        .into_inner();
    let first = stream.message().await.unwrap().expect("a first update");
    assert_eq!(first.depth, 1);
    // The analysis holds the only slot: another search is OVERLOADED.
    let status = evaluate(&server).await.unwrap_err();
    assert_eq!(status.code(), Code::ResourceExhausted);
    assert_eq!(info(&status).reason, "OVERLOADED");
    assert_eq!(info(&status).kind, "overloaded");
    let cancelled = Instant::now();
    drop(stream);
    drop(client);
    let freed = time_until_admitted(&server, cancelled).await;
    println!("slot free {freed:?} after the cancel");
    assert!(freed < Duration::from_secs(5), "{freed:?}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_deadline_ends_the_stream_with_a_final_update() {
    let _heavy = HEAVY.lock().await;
    let server = one_slot_server().await;
    let started = Instant::now();
    let updates = collect(
        &server,
        with_timeout(
            AnalyzeRequest {
                game: Some(copenhagen(&[])),
                multi_pv: 2,
                ..AnalyzeRequest::default()
            },
            Duration::from_millis(1500),
        ),
    )
    .await;
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_millis(1500), "{elapsed:?}");
    assert_well_formed(&updates, 2, "deadline");
    let freed = time_until_admitted(&server, Instant::now()).await;
    assert!(freed < Duration::from_secs(5), "{freed:?}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_limits_the_server_caps_the_time() {
    let _heavy = HEAVY.lock().await;
    let server = TestServer::start_with(tafl::service::Config {
        caps: tafl::service::CapsConfig {
            max_search_time: Duration::from_millis(300),
            ..test_config().caps
        },
        ..test_config()
    })
    .await;
    let started = Instant::now();
    let updates = collect(
        &server,
        tonic::Request::new(AnalyzeRequest {
            game: Some(copenhagen(&[])),
            ..AnalyzeRequest::default()
        }),
    )
    .await;
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_well_formed(&updates, 1, "capped");
    server.stop().await;
}
