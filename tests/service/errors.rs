//! Every error class with its code and the field it names.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_error_class_has_its_code_and_field() {
    let mut server = TestServer::start().await;
    let client = &mut server.client;

    // INVALID_ARGUMENT: the moves of the game and the next move.
    let legal = |game: pb::Game, square: &str| LegalMovesRequest {
        game: Some(game),
        square: square.to_owned(),
    };
    // The variant, the start, the square, the level and a game too long:
    // tests/service/error_info.rs checks their code, field and reason.
    let unreadable = copenhagen(&["d1-d2", "h6-i6", "nonsense"]);
    assert_invalid(
        &client.legal_moves(legal(unreadable, "")).await.unwrap_err(),
        "game.moves[2]",
    );
    let illegal = copenhagen(&["d1-d2", "h6-h1"]);
    let status = client.legal_moves(legal(illegal, "")).await.unwrap_err();
    assert_invalid(&status, "game.moves[1]");
    assert!(
        status.message().starts_with("game.moves[1]: "),
        "{}",
        status.message()
    );
    let wrong_captures = copenhagen(&["d1-d2xe5"]);
    assert_invalid(
        &client
            .legal_moves(legal(wrong_captures, ""))
            .await
            .unwrap_err(),
        "game.moves[0]",
    );
    let status = client
        .apply_move(ApplyMoveRequest {
            game: Some(copenhagen(&[])),
            next_move: "f6-f3".to_owned(),
            include_legal_moves: false,
        })
        .await
        .unwrap_err();
    assert_invalid(&status, "next_move");

    // FAILED_PRECONDITION (a move after the end, in game.moves or
    // next_move, and SuggestMove): tests/service/error_info.rs checks the
    // code, field, ply and reason of each.

    // DEADLINE_EXCEEDED: not even depth 1 fits a 1 ms deadline (or the
    // tonic client's own 1 ms timer answers CANCELLED first).
    let status = client
        .suggest_move(with_timeout(
            SuggestMoveRequest::default(),
            Duration::from_millis(1),
        ))
        .await
        .unwrap_err();
    assert!(
        matches!(status.code(), Code::DeadlineExceeded | Code::Cancelled),
        "{status:?}"
    );
    server.assert_alive().await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_search_queue_is_resource_exhausted_at_once() {
    let _heavy = HEAVY.lock().await;
    let server = TestServer::start_with(tafl::service::Config {
        exec: tafl::service::ExecConfig {
            max_concurrent_searches: 1,
            max_queued_searches: 1,
            ..test_config().exec
        },
        ..test_config()
    })
    .await;
    let mut calls = Vec::new();
    for _ in 0..6 {
        let mut client = server.new_client().await;
        calls.push(tokio::spawn(async move {
            let started = Instant::now();
            let reply = client
                .evaluate(EvaluateRequest {
                    game: Some(copenhagen(&[])),
                    limits: Some(SearchLimits {
                        max_time_ms: 700,
                        max_depth: 30,
                        ..SearchLimits::default()
                    }),
                })
                .await;
            (reply.map(|_| ()).map_err(|s| s.code()), started.elapsed())
        }));
    }
    let mut ok = 0;
    let mut exhausted = 0;
    for call in calls {
        match call.await.unwrap() {
            (Ok(()), _) => ok += 1,
            (Err(Code::ResourceExhausted), elapsed) => {
                exhausted += 1;
                assert!(
                    elapsed < Duration::from_millis(600),
                    "refused at once, not after {elapsed:?}"
                );
            }
            (Err(code), _) => panic!("unexpected {code:?}"),
        }
    }
    assert!(ok >= 2, "one running and one queued search finish ({ok})");
    assert!(exhausted >= 1, "the rest are refused ({exhausted})");
    server.assert_alive().await;
    server.stop().await;
}
