//! The service over a real socket: a server on port 0, a generated tonic
//! client, every RPC on every ruleset, games to every ending, every error
//! class, hostile inputs, load, deadlines, health, reflection and shutdown.

#[path = "service/support.rs"]
mod support;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use tafl::service::pb::{
    self, ApplyMoveRequest, EndReason, EvaluateRequest, GameResult, LegalMovesRequest, Rules,
    SearchLimits, Side, SuggestMoveRequest,
};
use tonic::Code;

use support::*;

// ---------------------------------------------------------------- every RPC, every ruleset

/// (rules, board_size asked, board size played, legal moves from the start)
const VARIANTS: [(Rules, u32, u32, usize); 7] = [
    (Rules::Unspecified, 0, 11, 116),
    (Rules::Copenhagen, 0, 11, 116),
    (Rules::Copenhagen, 13, 13, 180),
    (Rules::Fetlar, 0, 11, 116),
    (Rules::Fetlar, 9, 9, 72),
    (Rules::Tablut, 0, 9, 72),
    (Rules::Tablut, 11, 11, 116),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_rpc_on_every_ruleset() {
    let mut server = TestServer::start().await;
    let client = &mut server.client;
    for (rules, asked, size, count) in VARIANTS {
        let start = game(rules, asked, "", &[]);
        let context = format!("{rules:?} {asked}");

        let legal = client
            .legal_moves(LegalMovesRequest {
                game: Some(start.clone()),
                square: String::new(),
            })
            .await
            .unwrap_or_else(|e| panic!("{context}: {e:?}"))
            .into_inner();
        assert_eq!(legal.moves.len(), count, "{context}");
        let position = legal.position.expect("position");
        assert_eq!(position.board_size, size, "{context}");
        assert_eq!(position.side_to_move(), Side::Attackers);
        assert_eq!(position.ply, 0);
        assert!(!position.king.is_empty());
        assert!(position.text.ends_with(" a"), "{}", position.text);
        assert_eq!(legal.status.unwrap().result(), GameResult::Ongoing);
        assert_sorted_squares(&position.attackers);
        assert_sorted_squares(&position.defenders);
        let keys: Vec<(Sq, Sq)> = legal
            .moves
            .iter()
            .map(|m| (sq(&m.from_square), sq(&m.to_square)))
            .collect();
        let mut sorted = keys.clone();
        sorted.sort();
        assert_eq!(keys, sorted, "{context}: moves sorted by from, then to");
        for mv in &legal.moves {
            assert_eq!(mv.text, format!("{}-{}", mv.from_square, mv.to_square));
        }

        // One square's moves are exactly those of the full list from it.
        let from = legal.moves[0].from_square.clone();
        let one = client
            .legal_moves(LegalMovesRequest {
                game: Some(start.clone()),
                square: from.to_uppercase(),
            })
            .await
            .unwrap()
            .into_inner();
        let expected: Vec<_> = legal
            .moves
            .iter()
            .filter(|m| m.from_square == from)
            .cloned()
            .collect();
        assert_eq!(one.moves, expected, "{context}");
        // A square without a piece of the side to move has no moves.
        let king_moves = client
            .legal_moves(LegalMovesRequest {
                game: Some(start.clone()),
                square: position.king.clone(),
            })
            .await
            .unwrap()
            .into_inner();
        assert!(king_moves.moves.is_empty(), "{context}");

        let first = legal.moves[0].text.clone();
        let applied = client
            .apply_move(ApplyMoveRequest {
                game: Some(start.clone()),
                next_move: first.clone(),
                include_legal_moves: false,
            })
            .await
            .unwrap()
            .into_inner();
        let after = applied.position.unwrap();
        assert_eq!(after.ply, 1);
        assert_eq!(after.side_to_move(), Side::Defenders);
        assert_eq!(after.board_size, size);
        assert_eq!(applied.played.unwrap().text, first);
        assert_eq!(applied.repetitions, 1);
        assert_eq!(applied.status.unwrap().result(), GameResult::Ongoing);

        let fixed = client
            .evaluate(EvaluateRequest {
                game: Some(start.clone()),
                limits: None,
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(fixed.depth, 0);
        assert!(fixed.pv.is_empty());
        assert!(fixed.score.abs() <= 900_000);

        let searched = client
            .evaluate(EvaluateRequest {
                game: Some(start.clone()),
                limits: Some(SearchLimits {
                    max_depth: 2,
                    ..SearchLimits::default()
                }),
            })
            .await
            .unwrap()
            .into_inner();
        assert!(
            searched.depth >= 1 && searched.depth <= 2,
            "{context}: {searched:?}"
        );
        assert!(!searched.pv.is_empty());
        assert!(searched.nodes > 0);
        assert!(
            legal
                .moves
                .iter()
                .any(|m| m.text == strip_captures(&searched.pv[0]))
        );

        let suggest = SuggestMoveRequest {
            game: Some(start.clone()),
            limits: None,
            level: 3,
            seed: 7,
        };
        let suggested = client
            .suggest_move(suggest.clone())
            .await
            .unwrap()
            .into_inner();
        let best = suggested.best_move.clone().unwrap();
        assert!(
            legal
                .moves
                .iter()
                .any(|m| m.from_square == best.from_square && m.to_square == best.to_square),
            "{context}: {best:?}"
        );
        assert_eq!(suggested.pv.first(), Some(&best.text));
        // The same request and seed, bounded by depth and nodes: the same move.
        let again = client.suggest_move(suggest).await.unwrap().into_inner();
        assert_eq!(again.best_move, suggested.best_move, "{context}");
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn board_size_zero_takes_the_start_size() {
    let mut server = TestServer::start().await;
    let thirteen = setup(13, &["a4", "m10"], &["g8"], "g7", 'a');
    let reply = server
        .client
        .legal_moves(LegalMovesRequest {
            game: Some(game(Rules::Copenhagen, 0, &thirteen, &[])),
            square: String::new(),
        })
        .await
        .unwrap()
        .into_inner();
    let position = reply.position.unwrap();
    assert_eq!(position.board_size, 13);
    assert_eq!(position.attackers, ["a4", "m10"]);
    assert_eq!(position.defenders, ["g8"]);
    assert_eq!(position.king, "g7");
    // The same start with its size named is fine; another size is not.
    server
        .client
        .legal_moves(LegalMovesRequest {
            game: Some(game(Rules::Copenhagen, 13, &thirteen, &[])),
            square: String::new(),
        })
        .await
        .unwrap();
    let status = server
        .client
        .legal_moves(LegalMovesRequest {
            game: Some(game(Rules::Tablut, 9, &thirteen, &[])),
            square: String::new(),
        })
        .await
        .unwrap_err();
    assert_invalid(&status, "game.start");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn apply_move_reports_captures_canonically() {
    let mut server = TestServer::start().await;
    // g5-f5 takes e5 between f5 and d5.
    let start = setup(11, &["d5", "g5", "b11"], &["e5", "h9"], "h8", 'a');
    let request = |next: &str| ApplyMoveRequest {
        game: Some(game(Rules::Copenhagen, 0, &start, &[])),
        next_move: next.to_owned(),
        include_legal_moves: false,
    };
    for given in ["g5-f5", "G5F5", "g5-f5xe5", "g5-f5xe5+"] {
        let reply = server
            .client
            .apply_move(request(given))
            .await
            .unwrap()
            .into_inner();
        let played = reply.played.unwrap();
        assert_eq!(played.text, "g5-f5xe5", "{given}");
        assert_eq!(played.from_square, "g5");
        assert_eq!(played.to_square, "f5");
        assert_eq!(reply.captured, ["e5"]);
        let position = reply.position.unwrap();
        assert_eq!(position.defenders, ["h9"]);
        assert_eq!(position.attackers, ["b11", "d5", "f5"]);
        assert_eq!(position.side_to_move(), Side::Defenders);
    }
    let status = server
        .client
        .apply_move(request("g5-f5xe6"))
        .await
        .unwrap_err();
    assert_invalid(&status, "next_move");
    let status = server
        .client
        .apply_move(request("g5-f5xd5"))
        .await
        .unwrap_err();
    assert_invalid(&status, "next_move");
    server.stop().await;
}

// ---------------------------------------------------------------- games to every ending

/// Plays `moves` one ApplyMove at a time (each request carrying the game so
/// far), checks the game goes on until the last, and returns the last reply.
async fn play_out(
    server: &mut TestServer,
    rules: Rules,
    start: &str,
    moves: &[&str],
) -> pb::ApplyMoveResponse {
    let mut played = Vec::new();
    let mut last = None;
    for (index, next) in moves.iter().enumerate() {
        let reply = server
            .client
            .apply_move(ApplyMoveRequest {
                game: Some(game(rules, 0, start, &played)),
                next_move: (*next).to_owned(),
                include_legal_moves: false,
            })
            .await
            .unwrap_or_else(|e| panic!("move {index} {next}: {e:?}"))
            .into_inner();
        let result = reply.status.unwrap().result();
        if index + 1 < moves.len() {
            assert_eq!(result, GameResult::Ongoing, "move {index} {next}");
        }
        assert_eq!(reply.position.as_ref().unwrap().ply as usize, index + 1);
        played.push(*next);
        last = Some(reply);
    }
    last.expect("at least one move")
}

/// After an ending: no move may follow, LegalMoves and Evaluate report it,
/// SuggestMove refuses.
async fn assert_finished(
    server: &mut TestServer,
    rules: Rules,
    start: &str,
    moves: &[&str],
    result: GameResult,
    reason: EndReason,
) {
    let finished = game(rules, 0, start, moves);
    let status = server
        .client
        .apply_move(ApplyMoveRequest {
            game: Some(finished.clone()),
            next_move: "this is not even a move".to_owned(),
            include_legal_moves: false,
        })
        .await
        .unwrap_err();
    assert_game_over(&status, "next_move");

    let mut longer = moves.to_vec();
    longer.push("a1-a2");
    longer.push("zz");
    let status = server
        .client
        .legal_moves(LegalMovesRequest {
            game: Some(game(rules, 0, start, &longer)),
            square: String::new(),
        })
        .await
        .unwrap_err();
    assert_game_over(&status, &format!("game.moves[{}]", moves.len()));

    let legal = server
        .client
        .legal_moves(LegalMovesRequest {
            game: Some(finished.clone()),
            square: String::new(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(legal.moves.is_empty());
    let status = legal.status.unwrap();
    assert_eq!((status.result(), status.reason()), (result, reason));

    let evaluated = server
        .client
        .evaluate(EvaluateRequest {
            game: Some(finished.clone()),
            limits: Some(SearchLimits {
                max_depth: 3,
                ..SearchLimits::default()
            }),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(evaluated.pv.is_empty());
    assert_eq!(evaluated.depth, 0);
    let side_to_move = legal.position.unwrap().side_to_move();
    let expected = match result {
        GameResult::Draw => 0,
        GameResult::AttackersWin if side_to_move == Side::Attackers => 1_000_000,
        GameResult::DefendersWin if side_to_move == Side::Defenders => 1_000_000,
        _ => -1_000_000,
    };
    assert_eq!(evaluated.score, expected);

    let status = server
        .client
        .suggest_move(SuggestMoveRequest {
            game: Some(finished),
            level: 1,
            ..SuggestMoveRequest::default()
        })
        .await
        .unwrap_err();
    assert_game_over(&status, "game");
}

async fn ending(
    rules: Rules,
    start: &str,
    moves: &[&str],
    result: GameResult,
    reason: EndReason,
) -> pb::ApplyMoveResponse {
    let mut server = TestServer::start().await;
    let last = play_out(&mut server, rules, start, moves).await;
    let status = last.status.unwrap();
    assert_eq!(
        (status.result(), status.reason()),
        (result, reason),
        "{last:?}"
    );
    assert_finished(&mut server, rules, start, moves, result, reason).await;
    server.stop().await;
    last
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copenhagen_king_escapes() {
    let start = setup(11, &["k6", "k7"], &[], "d1", 'd');
    let last = ending(
        Rules::Copenhagen,
        &start,
        &["d1-a1"],
        GameResult::DefendersWin,
        EndReason::KingEscaped,
    )
    .await;
    assert_eq!(last.position.unwrap().king, "a1");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copenhagen_king_captured() {
    let start = setup(11, &["d5", "f5", "e6", "e3", "b11"], &["h9"], "e5", 'a');
    let last = ending(
        Rules::Copenhagen,
        &start,
        &["e3-e4"],
        GameResult::AttackersWin,
        EndReason::KingCaptured,
    )
    .await;
    let position = last.position.unwrap();
    assert_eq!(position.king, "", "the king leaves the board");
    assert!(last.captured.is_empty(), "the king is never listed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copenhagen_encircled() {
    let start = setup(
        11,
        &["f8", "e7", "g7", "d6", "h6", "e5", "g5", "f3"],
        &["f7"],
        "f6",
        'a',
    );
    ending(
        Rules::Copenhagen,
        &start,
        &["f3-f4"],
        GameResult::AttackersWin,
        EndReason::Encircled,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copenhagen_exit_fort() {
    let start = setup(
        11,
        &["a6", "k6"],
        &["e1", "e2", "f2", "h2", "h1", "g3"],
        "f1",
        'd',
    );
    ending(
        Rules::Copenhagen,
        &start,
        &["g3-g2"],
        GameResult::DefendersWin,
        EndReason::ExitFort,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copenhagen_no_moves() {
    let start = setup(11, &["a2"], &["a3", "c2"], "f6", 'd');
    ending(
        Rules::Copenhagen,
        &start,
        &["c2-b2"],
        GameResult::DefendersWin,
        EndReason::NoMoves,
    )
    .await;
}

const SHUFFLE_11: [&str; 8] = [
    "d1-d2", "h6-i6", "d2-d1", "i6-h6", "d1-d2", "h6-i6", "d2-d1", "i6-h6",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copenhagen_repetition_is_an_attacker_win() {
    let last = ending(
        Rules::Copenhagen,
        "",
        &SHUFFLE_11,
        GameResult::AttackersWin,
        EndReason::Repetition,
    )
    .await;
    assert_eq!(last.repetitions, 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fetlar_repetition_is_a_draw() {
    let last = ending(
        Rules::Fetlar,
        "",
        &SHUFFLE_11,
        GameResult::Draw,
        EndReason::Repetition,
    )
    .await;
    assert_eq!(last.repetitions, 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fetlar_king_captured() {
    let start = setup(11, &["d5", "f5", "e6", "e3", "b11"], &["h9"], "e5", 'a');
    ending(
        Rules::Fetlar,
        &start,
        &["e3-e4"],
        GameResult::AttackersWin,
        EndReason::KingCaptured,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fetlar_blocked_side_with_pieces_draws() {
    let start = setup(11, &["a2"], &["a3", "c2"], "f6", 'd');
    ending(
        Rules::Fetlar,
        &start,
        &["c2-b2"],
        GameResult::Draw,
        EndReason::NoMoves,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tablut_king_escapes_to_a_corner() {
    let start = setup(9, &["i5", "i6"], &[], "d1", 'd');
    ending(
        Rules::Tablut,
        &start,
        &["d1-a1"],
        GameResult::DefendersWin,
        EndReason::KingEscaped,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tablut_king_captured_on_the_edge_by_three() {
    let start = setup(9, &["d1", "f1", "e3", "b9"], &["h8"], "e1", 'a');
    ending(
        Rules::Tablut,
        &start,
        &["e3-e2"],
        GameResult::AttackersWin,
        EndReason::KingCaptured,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tablut_has_no_repetition_rule() {
    let mut server = TestServer::start().await;
    let shuffle = [
        "d1-d2", "c5-c4", "d2-d1", "c4-c5", "d1-d2", "c5-c4", "d2-d1", "c4-c5", "d1-d2",
    ];
    let last = play_out(&mut server, Rules::Tablut, "", &shuffle).await;
    assert_eq!(last.status.unwrap().result(), GameResult::Ongoing);
    assert_eq!(last.repetitions, 3);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_start_without_moves_for_the_side_to_move_is_already_over() {
    let mut server = TestServer::start().await;
    // The attackers' only piece is boxed in at a2, and they are to move.
    let start = setup(11, &["a2"], &["a3", "b2"], "f6", 'a');
    let reply = server
        .client
        .legal_moves(LegalMovesRequest {
            game: Some(game(Rules::Copenhagen, 0, &start, &[])),
            square: String::new(),
        })
        .await
        .unwrap()
        .into_inner();
    let status = reply.status.unwrap();
    assert_eq!(status.result(), GameResult::DefendersWin);
    assert_eq!(status.reason(), EndReason::NoMoves);
    assert!(reply.moves.is_empty());
    server.stop().await;
}

// ---------------------------------------------------------------- every error class

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_error_class_has_its_code_and_field() {
    let mut server = TestServer::start_with(tafl::service::Config {
        max_game_plies: 20,
        ..test_config()
    })
    .await;
    let client = &mut server.client;

    // INVALID_ARGUMENT, one per field.
    let legal = |game: pb::Game, square: &str| LegalMovesRequest {
        game: Some(game),
        square: square.to_owned(),
    };
    let mut bad_rules = copenhagen(&[]);
    bad_rules.variant.as_mut().unwrap().rules = 42;
    assert_invalid(
        &client.legal_moves(legal(bad_rules, "")).await.unwrap_err(),
        "game.variant.rules",
    );
    let bad_size = game(Rules::Copenhagen, 10, "", &[]);
    assert_invalid(
        &client.legal_moves(legal(bad_size, "")).await.unwrap_err(),
        "game.variant.board_size",
    );
    let bad_start = game(Rules::Copenhagen, 0, "no such position", &[]);
    assert_invalid(
        &client.legal_moves(legal(bad_start, "")).await.unwrap_err(),
        "game.start",
    );
    let two_kings = game(
        Rules::Copenhagen,
        0,
        &setup(11, &["a4"], &["e5"], "f6", 'a').replace('T', "K"),
        &[],
    );
    assert_invalid(
        &client.legal_moves(legal(two_kings, "")).await.unwrap_err(),
        "game.start",
    );
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
    let too_long = copenhagen(&["d1-d2", "h6-i6", "d2-d1", "i6-h6"].repeat(6));
    assert_invalid(
        &client.legal_moves(legal(too_long, "")).await.unwrap_err(),
        "game.moves",
    );
    assert_invalid(
        &client
            .legal_moves(legal(copenhagen(&[]), "q7"))
            .await
            .unwrap_err(),
        "square",
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
    let status = client
        .suggest_move(SuggestMoveRequest {
            level: 11,
            ..SuggestMoveRequest::default()
        })
        .await
        .unwrap_err();
    assert_invalid(&status, "level");

    // FAILED_PRECONDITION: a move after the end, in game.moves or next_move, and SuggestMove.
    let escaped = setup(11, &["k6", "k7"], &[], "d1", 'd');
    let over = game(Rules::Copenhagen, 0, &escaped, &["d1-a1", "k6-k5"]);
    assert_game_over(
        &client.legal_moves(legal(over, "")).await.unwrap_err(),
        "game.moves[1]",
    );
    let over = game(Rules::Copenhagen, 0, &escaped, &["d1-a1"]);
    let status = client
        .apply_move(ApplyMoveRequest {
            game: Some(over.clone()),
            next_move: "k6-k5".to_owned(),
            include_legal_moves: false,
        })
        .await
        .unwrap_err();
    assert_game_over(&status, "next_move");
    let status = client
        .suggest_move(SuggestMoveRequest {
            game: Some(over),
            ..SuggestMoveRequest::default()
        })
        .await
        .unwrap_err();
    assert_game_over(&status, "game");

    // DEADLINE_EXCEEDED: not even depth 1 fits a 1 ms deadline.
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
        max_concurrent_searches: 1,
        max_queued_searches: 1,
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

// ---------------------------------------------------------------- load and deadlines

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cheap_calls_stay_fast_while_searches_run() {
    let _heavy = HEAVY.lock().await;
    let server = TestServer::start().await;
    let mut calls = Vec::new();
    for i in 0..200 {
        let mut client = server.client.clone();
        calls.push(tokio::spawn(async move {
            let started = Instant::now();
            let search = i % 12 == 0;
            let result = if search {
                client
                    .suggest_move(SuggestMoveRequest {
                        game: Some(copenhagen(&["d1-d2"])),
                        limits: Some(SearchLimits {
                            max_time_ms: 600,
                            ..SearchLimits::default()
                        }),
                        level: 10,
                        seed: i,
                    })
                    .await
                    .map(|_| ())
            } else if i % 2 == 0 {
                client
                    .legal_moves(LegalMovesRequest {
                        game: Some(copenhagen(&SHUFFLE_11[..4])),
                        square: String::new(),
                    })
                    .await
                    .map(|reply| assert_eq!(reply.into_inner().moves.len(), 116))
            } else {
                client
                    .apply_move(ApplyMoveRequest {
                        game: Some(copenhagen(&SHUFFLE_11[..3])),
                        next_move: "i6-h6".to_owned(),
                        include_legal_moves: false,
                    })
                    .await
                    .map(|reply| assert_eq!(reply.into_inner().repetitions, 2))
            };
            (search, result.map_err(|s| s.code()), started.elapsed())
        }));
    }
    let mut cheap = Vec::new();
    let mut searches = Vec::new();
    for call in calls {
        let (search, result, elapsed) = call.await.unwrap();
        assert_eq!(result, Ok(()), "search: {search}");
        if search { &mut searches } else { &mut cheap }.push(elapsed);
    }
    cheap.sort();
    searches.sort();
    let slowest_cheap = *cheap.last().unwrap();
    let slowest_search = *searches.last().unwrap();
    assert_eq!(cheap.len(), 183);
    // 17 searches of up to 600 ms on 2 slots take seconds; cheap calls never wait for them.
    assert!(
        slowest_search >= Duration::from_millis(1000),
        "{slowest_search:?}"
    );
    assert!(
        slowest_cheap < Duration::from_millis(1000) && slowest_cheap < slowest_search,
        "slowest cheap call {slowest_cheap:?}, slowest search {slowest_search:?}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn suggest_move_answers_within_a_100ms_deadline() {
    let _heavy = HEAVY.lock().await;
    let mut server = TestServer::start().await;
    for rules in [Rules::Copenhagen, Rules::Tablut] {
        let started = Instant::now();
        let reply = server
            .client
            .suggest_move(with_timeout(
                SuggestMoveRequest {
                    game: Some(game(rules, 0, "", &[])),
                    limits: None,
                    level: 0,
                    seed: 1,
                },
                Duration::from_millis(100),
            ))
            .await;
        let elapsed = started.elapsed();
        // A late answer would have been cut off by the deadline (DEADLINE_EXCEEDED/CANCELLED).
        let reply = reply
            .unwrap_or_else(|s| panic!("{rules:?} after {elapsed:?}: {s:?}"))
            .into_inner();
        assert!(reply.depth >= 1);
        assert!(reply.best_move.is_some());
        assert!(elapsed < Duration::from_millis(500), "{elapsed:?}");
    }
    server.stop().await;
}

// ---------------------------------------------------------------- health, reflection, shutdown

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_and_reflection_are_served() {
    use tonic::codegen::tokio_stream;
    use tonic_health::pb::health_client::HealthClient;
    use tonic_health::pb::{HealthCheckRequest, health_check_response::ServingStatus};
    use tonic_reflection::pb::v1::ServerReflectionRequest;
    use tonic_reflection::pb::v1::server_reflection_client::ServerReflectionClient;
    use tonic_reflection::pb::v1::server_reflection_request::MessageRequest;
    use tonic_reflection::pb::v1::server_reflection_response::MessageResponse;

    let server = TestServer::start().await;
    let channel = tonic::transport::Channel::from_shared(format!("http://{}", server.addr))
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut health = HealthClient::new(channel.clone());
    for service in ["", "tafl.v1.TaflService"] {
        let reply = health
            .check(HealthCheckRequest {
                service: service.to_owned(),
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(reply.status(), ServingStatus::Serving, "{service:?}");
    }

    let mut reflection = ServerReflectionClient::new(channel);
    let request = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::ListServices(String::new())),
    };
    let mut replies = reflection
        .server_reflection_info(tokio_stream::iter([request]))
        .await
        .unwrap()
        .into_inner();
    let reply = replies.message().await.unwrap().unwrap();
    let Some(MessageResponse::ListServicesResponse(list)) = reply.message_response else {
        panic!("{reply:?}");
    };
    let names: BTreeSet<String> = list.service.into_iter().map(|s| s.name).collect();
    for expected in ["tafl.v1.TaflService", "grpc.health.v1.Health"] {
        assert!(names.contains(expected), "{names:?}");
    }

    // Older tools speak v1alpha; it knows the same services and their files.
    use tonic_reflection::pb::v1alpha::server_reflection_client::ServerReflectionClient as AlphaClient;
    use tonic_reflection::pb::v1alpha::server_reflection_request::MessageRequest as AlphaRequest;
    use tonic_reflection::pb::v1alpha::server_reflection_response::MessageResponse as AlphaResponse;
    let channel = tonic::transport::Channel::from_shared(format!("http://{}", server.addr))
        .unwrap()
        .connect()
        .await
        .unwrap();
    let request = tonic_reflection::pb::v1alpha::ServerReflectionRequest {
        host: String::new(),
        message_request: Some(AlphaRequest::FileContainingSymbol(
            "tafl.v1.TaflService".to_owned(),
        )),
    };
    let mut replies = AlphaClient::new(channel)
        .server_reflection_info(tokio_stream::iter([request]))
        .await
        .unwrap()
        .into_inner();
    let reply = replies.message().await.unwrap().unwrap();
    let Some(AlphaResponse::FileDescriptorResponse(files)) = reply.message_response else {
        panic!("{reply:?}");
    };
    assert!(!files.file_descriptor_proto.is_empty());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_drains_then_lets_calls_finish() {
    use tonic_health::pb::health_client::HealthClient;
    use tonic_health::pb::{HealthCheckRequest, health_check_response::ServingStatus};

    let _heavy = HEAVY.lock().await;
    let mut server = TestServer::start_with(tafl::service::Config {
        drain_delay_ms: 400,
        ..test_config()
    })
    .await;
    let mut client = server.new_client().await;
    let search = tokio::spawn(async move {
        client
            .evaluate(EvaluateRequest {
                game: Some(copenhagen(&[])),
                limits: Some(SearchLimits {
                    max_time_ms: 1200,
                    ..SearchLimits::default()
                }),
            })
            .await
    });
    tokio::time::sleep(Duration::from_millis(150)).await;
    let addr = server.addr;
    let running = server.server.take().unwrap();
    let stopping = tokio::spawn(async move { running.shutdown().await });
    tokio::time::sleep(Duration::from_millis(100)).await;
    // Draining: health says NOT_SERVING, calls are still answered.
    let channel = tonic::transport::Channel::from_shared(format!("http://{addr}"))
        .unwrap()
        .connect()
        .await
        .unwrap();
    let reply = HealthClient::new(channel)
        .check(HealthCheckRequest {
            service: "tafl.v1.TaflService".to_owned(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(reply.status(), ServingStatus::NotServing);
    // The search in flight finishes with its answer.
    let evaluated = search.await.unwrap().expect("the in-flight call finishes");
    assert!(evaluated.into_inner().depth >= 1);
    stopping.await.unwrap().expect("clean shutdown");
    // And the port no longer takes calls.
    let after = tonic::transport::Channel::from_shared(format!("http://{addr}"))
        .unwrap()
        .connect_timeout(Duration::from_millis(500))
        .connect()
        .await;
    assert!(after.is_err(), "still accepting after shutdown");
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_binary_serves_and_exits_0_on_sigterm() {
    use tonic_health::pb::HealthCheckRequest;
    use tonic_health::pb::health_client::HealthClient;

    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_tafl"))
        .env("TAFL_LISTEN", format!("127.0.0.1:{port}"))
        .env("TAFL_HASH_MB", "4")
        .env("RUST_LOG", "warn")
        .spawn()
        .expect("tafl starts");
    let deadline = Instant::now() + Duration::from_secs(20);
    let channel = loop {
        match tonic::transport::Channel::from_shared(format!("http://127.0.0.1:{port}"))
            .unwrap()
            .connect()
            .await
        {
            Ok(channel) => break channel,
            Err(_) if Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(50)).await
            }
            Err(error) => panic!("tafl never listened: {error}"),
        }
    };
    HealthClient::new(channel)
        .check(HealthCheckRequest::default())
        .await
        .expect("health answers");
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "exit status {status:?}");
            break;
        }
        if started.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            panic!("tafl did not stop on SIGTERM");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

// ---------------------------------------------------------------- hostile inputs

/// One hostile call: the request, the code it must get, and the field named
/// (BadRequest for INVALID_ARGUMENT, PreconditionFailure for FAILED_PRECONDITION).
struct Hostile {
    name: &'static str,
    call: Call,
    code: Code,
    field: Option<&'static str>,
}

enum Call {
    Legal(LegalMovesRequest),
    Apply(ApplyMoveRequest),
    Evaluate(EvaluateRequest, Option<Duration>),
    Suggest(SuggestMoveRequest, Option<Duration>),
    /// Raw bytes sent as the body of a method.
    Raw(&'static str, Vec<u8>),
}

fn hostile(name: &'static str, call: Call, code: Code, field: Option<&'static str>) -> Hostile {
    Hostile {
        name,
        call,
        code,
        field,
    }
}

fn legal(game: pb::Game) -> Call {
    Call::Legal(LegalMovesRequest {
        game: Some(game),
        square: String::new(),
    })
}

fn apply(game: pb::Game, next: &str) -> Call {
    Call::Apply(ApplyMoveRequest {
        game: Some(game),
        next_move: next.to_owned(),
        include_legal_moves: false,
    })
}

fn hostile_table() -> Vec<Hostile> {
    use Code::*;
    let escaped = setup(11, &["k6", "k7"], &[], "d1", 'd');
    let finished = game(Rules::Copenhagen, 0, &escaped, &["d1-a1"]);
    let with_variant = |rules: i32, board_size: u32| pb::Game {
        variant: Some(pb::Variant { rules, board_size }),
        ..pb::Game::default()
    };
    let megabyte = "e".repeat(1 << 20);
    let shuffle: Vec<&str> = SHUFFLE_11[..4]
        .iter()
        .copied()
        .cycle()
        .take(20_000)
        .collect();
    vec![
        hostile(
            "empty LegalMoves",
            Call::Legal(LegalMovesRequest::default()),
            Ok,
            None,
        ),
        hostile(
            "empty ApplyMove",
            Call::Apply(ApplyMoveRequest::default()),
            InvalidArgument,
            Some("next_move"),
        ),
        hostile(
            "empty Evaluate",
            Call::Evaluate(EvaluateRequest::default(), None),
            Ok,
            None,
        ),
        hostile(
            "empty SuggestMove",
            Call::Suggest(SuggestMoveRequest::default(), None),
            Ok,
            None,
        ),
        hostile(
            "unknown rules 99",
            legal(with_variant(99, 0)),
            InvalidArgument,
            Some("game.variant.rules"),
        ),
        hostile(
            "negative rules",
            legal(with_variant(-1, 0)),
            InvalidArgument,
            Some("game.variant.rules"),
        ),
        hostile(
            "board size 10",
            legal(with_variant(1, 10)),
            InvalidArgument,
            Some("game.variant.board_size"),
        ),
        hostile(
            "board size 1",
            legal(with_variant(1, 1)),
            InvalidArgument,
            Some("game.variant.board_size"),
        ),
        hostile(
            "board size u32::MAX",
            legal(with_variant(3, u32::MAX)),
            InvalidArgument,
            Some("game.variant.board_size"),
        ),
        hostile("Copenhagen on 9x9", legal(with_variant(1, 9)), Ok, None),
        hostile(
            "20,000 moves",
            legal(copenhagen(&shuffle)),
            InvalidArgument,
            Some("game.moves"),
        ),
        hostile(
            "1 MB move string",
            legal(copenhagen(&[&megabyte])),
            InvalidArgument,
            Some("game.moves[0]"),
        ),
        hostile(
            "1 MB next_move",
            apply(copenhagen(&[]), &megabyte),
            InvalidArgument,
            Some("next_move"),
        ),
        hostile(
            "1 MB start",
            legal(game(Rules::Copenhagen, 0, &megabyte, &[])),
            InvalidArgument,
            Some("game.start"),
        ),
        hostile(
            "1 MB square",
            Call::Legal(LegalMovesRequest {
                game: None,
                square: megabyte.clone(),
            }),
            InvalidArgument,
            Some("square"),
        ),
        hostile(
            "5 MB message",
            legal(game(Rules::Copenhagen, 0, &"x".repeat(5 << 20), &[])),
            OutOfRange,
            None,
        ),
        hostile(
            "non-ASCII move",
            legal(copenhagen(&["é1-é4"])),
            InvalidArgument,
            Some("game.moves[0]"),
        ),
        hostile(
            "full-width digits",
            legal(copenhagen(&["ｄ１-ｄ２"])),
            InvalidArgument,
            Some("game.moves[0]"),
        ),
        hostile(
            "NUL inside a move",
            legal(copenhagen(&["d1\0-d2"])),
            InvalidArgument,
            Some("game.moves[0]"),
        ),
        hostile(
            "emoji start",
            legal(game(Rules::Copenhagen, 0, "🐉🐉🐉 a", &[])),
            InvalidArgument,
            Some("game.start"),
        ),
        hostile(
            "non-ASCII square",
            Call::Legal(LegalMovesRequest {
                game: None,
                square: "ё5".into(),
            }),
            InvalidArgument,
            Some("square"),
        ),
        hostile(
            "square off the board",
            Call::Legal(LegalMovesRequest {
                game: Some(game(Rules::Tablut, 0, "", &[])),
                square: "k1".into(),
            }),
            InvalidArgument,
            Some("square"),
        ),
        hostile(
            "square z99",
            Call::Legal(LegalMovesRequest {
                game: None,
                square: "z99".into(),
            }),
            InvalidArgument,
            Some("square"),
        ),
        hostile(
            "move to the same square",
            legal(copenhagen(&["d1-d1"])),
            InvalidArgument,
            Some("game.moves[0]"),
        ),
        hostile(
            "diagonal move",
            legal(copenhagen(&["d1-e2"])),
            InvalidArgument,
            Some("game.moves[0]"),
        ),
        hostile(
            "defenders first",
            legal(copenhagen(&["h6-i6"])),
            InvalidArgument,
            Some("game.moves[0]"),
        ),
        hostile(
            "move off a 9x9 board",
            legal(game(Rules::Tablut, 0, "", &["d1-d12"])),
            InvalidArgument,
            Some("game.moves[0]"),
        ),
        hostile(
            "empty move in the list",
            legal(copenhagen(&["d1-d2", ""])),
            InvalidArgument,
            Some("game.moves[1]"),
        ),
        hostile(
            "max_time_ms of a day",
            Call::Suggest(
                SuggestMoveRequest {
                    limits: Some(SearchLimits {
                        max_time_ms: 86_400_000,
                        ..SearchLimits::default()
                    }),
                    ..SuggestMoveRequest::default()
                },
                Some(Duration::from_millis(800)),
            ),
            Ok,
            None,
        ),
        hostile(
            "depth 1000",
            Call::Evaluate(
                EvaluateRequest {
                    game: None,
                    limits: Some(SearchLimits {
                        max_depth: 1000,
                        ..SearchLimits::default()
                    }),
                },
                Some(Duration::from_millis(800)),
            ),
            Ok,
            None,
        ),
        hostile(
            "max_nodes u64::MAX",
            Call::Evaluate(
                EvaluateRequest {
                    game: None,
                    limits: Some(SearchLimits {
                        max_nodes: u64::MAX,
                        max_depth: 2,
                        ..SearchLimits::default()
                    }),
                },
                None,
            ),
            Ok,
            None,
        ),
        hostile(
            "level 11",
            Call::Suggest(
                SuggestMoveRequest {
                    level: 11,
                    ..SuggestMoveRequest::default()
                },
                None,
            ),
            InvalidArgument,
            Some("level"),
        ),
        hostile(
            "level u32::MAX",
            Call::Suggest(
                SuggestMoveRequest {
                    level: u32::MAX,
                    ..SuggestMoveRequest::default()
                },
                None,
            ),
            InvalidArgument,
            Some("level"),
        ),
        hostile(
            "1 ms deadline",
            Call::Suggest(
                SuggestMoveRequest::default(),
                Some(Duration::from_millis(1)),
            ),
            DeadlineExceeded,
            None,
        ),
        hostile(
            "move after the end",
            apply(finished.clone(), "k6-k5"),
            FailedPrecondition,
            Some("next_move"),
        ),
        hostile(
            "garbage after the end",
            apply(finished.clone(), "\u{0}\u{ffff}"),
            FailedPrecondition,
            Some("next_move"),
        ),
        hostile(
            "moves after the end in the list",
            legal(game(
                Rules::Copenhagen,
                0,
                &escaped,
                &["d1-a1", "k6-k5", "??"],
            )),
            FailedPrecondition,
            Some("game.moves[1]"),
        ),
        hostile(
            "SuggestMove on a finished game",
            Call::Suggest(
                SuggestMoveRequest {
                    game: Some(finished.clone()),
                    ..SuggestMoveRequest::default()
                },
                None,
            ),
            FailedPrecondition,
            Some("game"),
        ),
        hostile(
            "LegalMoves on a finished game",
            legal(finished.clone()),
            Ok,
            None,
        ),
        hostile(
            "Evaluate on a finished game",
            Call::Evaluate(
                EvaluateRequest {
                    game: Some(finished),
                    limits: None,
                },
                None,
            ),
            Ok,
            None,
        ),
        hostile(
            "start with two kings",
            legal(game(
                Rules::Copenhagen,
                0,
                &setup(11, &["a4"], &[], "f6", 'a').replace('t', "K"),
                &[],
            )),
            InvalidArgument,
            Some("game.start"),
        ),
        hostile(
            "start without a king",
            legal(game(
                Rules::Copenhagen,
                0,
                "11/11/11/11/11/5t5/11/11/11/11/11 a",
                &[],
            )),
            InvalidArgument,
            Some("game.start"),
        ),
        hostile(
            "king on a corner",
            legal(game(
                Rules::Copenhagen,
                0,
                &setup(11, &["f5"], &[], "a1", 'a'),
                &[],
            )),
            InvalidArgument,
            Some("game.start"),
        ),
        hostile(
            "attacker on the throne",
            legal(game(
                Rules::Copenhagen,
                0,
                &setup(11, &["f6"], &[], "e5", 'a'),
                &[],
            )),
            InvalidArgument,
            Some("game.start"),
        ),
        hostile(
            "start with a short rank",
            legal(game(
                Rules::Copenhagen,
                0,
                "/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt2/ a",
                &[],
            )),
            InvalidArgument,
            Some("game.start"),
        ),
        hostile(
            "start without a side",
            legal(game(
                Rules::Copenhagen,
                0,
                "/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/",
                &[],
            )),
            InvalidArgument,
            Some("game.start"),
        ),
        hostile(
            "start of 11 with board size 13",
            legal(game(
                Rules::Fetlar,
                13,
                &setup(11, &["a4"], &[], "f6", 'a'),
                &[],
            )),
            InvalidArgument,
            Some("game.start"),
        ),
        hostile(
            "start of 10 ranks",
            legal(game(
                Rules::Copenhagen,
                0,
                "10/10/10/10/10/4K5/10/10/10/t9 a",
                &[],
            )),
            InvalidArgument,
            Some("game.start"),
        ),
        hostile(
            "garbage protobuf",
            Call::Raw("LegalMoves", vec![0xff, 0xff, 0xff, 0xff]),
            InvalidArgument,
            None,
        ),
        hostile(
            "invalid UTF-8 in a string",
            Call::Raw("LegalMoves", vec![0x12, 0x02, 0xc3, 0x28]),
            InvalidArgument,
            None,
        ),
        hostile(
            "unknown fields are ignored",
            Call::Raw("LegalMoves", vec![0xf8, 0x07, 0x01]),
            Ok,
            None,
        ),
    ]
}

/// Sends raw bytes as a request body and reads the reply as raw bytes.
async fn raw_call(
    addr: std::net::SocketAddr,
    method: &str,
    body: Vec<u8>,
) -> Result<(), tonic::Status> {
    use tonic::codegen::http::uri::PathAndQuery;
    let channel = tonic::transport::Channel::from_shared(format!("http://{addr}"))
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut grpc = tonic::client::Grpc::new(channel);
    grpc.ready()
        .await
        .map_err(|e| tonic::Status::unavailable(e.to_string()))?;
    let path = PathAndQuery::try_from(format!("/tafl.v1.TaflService/{method}")).unwrap();
    grpc.unary(tonic::Request::new(body), path, raw::RawCodec)
        .await
        .map(|_| ())
}

mod raw {
    use prost::bytes::{Buf, BufMut, Bytes};
    use tonic::Status;
    use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};

    /// Bytes in, bytes out: lets a test send what no generated client would.
    #[derive(Default)]
    pub struct RawCodec;
    pub struct RawEncoder;
    pub struct RawDecoder;

    impl Codec for RawCodec {
        type Encode = Vec<u8>;
        type Decode = Bytes;
        type Encoder = RawEncoder;
        type Decoder = RawDecoder;
        fn encoder(&mut self) -> RawEncoder {
            RawEncoder
        }
        fn decoder(&mut self) -> RawDecoder {
            RawDecoder
        }
    }

    impl Encoder for RawEncoder {
        type Item = Vec<u8>;
        type Error = Status;
        fn encode(&mut self, item: Vec<u8>, buf: &mut EncodeBuf<'_>) -> Result<(), Status> {
            buf.put_slice(&item);
            Ok(())
        }
    }

    impl Decoder for RawDecoder {
        type Item = Bytes;
        type Error = Status;
        fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<Bytes>, Status> {
            let len = buf.remaining();
            Ok(Some(buf.copy_to_bytes(len)))
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_inputs_get_their_codes_and_the_server_keeps_answering() {
    let _heavy = HEAVY.lock().await;
    let table = hostile_table();
    assert!(table.len() >= 30, "{} hostile inputs", table.len());
    let mut server = TestServer::start().await;
    for case in table {
        let name = case.name;
        let result = match case.call {
            Call::Legal(request) => server.client.legal_moves(request).await.map(|_| ()),
            Call::Apply(request) => server.client.apply_move(request).await.map(|_| ()),
            Call::Evaluate(request, timeout) => match timeout {
                Some(timeout) => server
                    .client
                    .evaluate(with_timeout(request, timeout))
                    .await
                    .map(|_| ()),
                None => server.client.evaluate(request).await.map(|_| ()),
            },
            Call::Suggest(request, timeout) => match timeout {
                Some(timeout) => server
                    .client
                    .suggest_move(with_timeout(request, timeout))
                    .await
                    .map(|_| ()),
                None => server.client.suggest_move(request).await.map(|_| ()),
            },
            Call::Raw(method, body) => raw_call(server.addr, method, body).await,
        };
        match (result, case.code) {
            (Ok(()), Code::Ok) => {}
            (Ok(()), code) => panic!("{name}: answered, expected {code:?}"),
            (Err(status), code) => {
                assert_ne!(status.code(), Code::Unknown, "{name}: {status:?}");
                assert_ne!(status.code(), Code::Internal, "{name}: {status:?}");
                if code == Code::DeadlineExceeded {
                    // The server's own deadline check or the transport's, whichever fires first.
                    assert!(
                        matches!(status.code(), Code::DeadlineExceeded | Code::Cancelled),
                        "{name}: {status:?}"
                    );
                } else {
                    assert_eq!(status.code(), code, "{name}: {status:?}");
                }
                match (code, case.field) {
                    (Code::InvalidArgument, Some(field)) => {
                        assert_eq!(bad_field(&status), field, "{name}")
                    }
                    (Code::FailedPrecondition, Some(field)) => {
                        assert_eq!(precondition_subject(&status), field, "{name}")
                    }
                    _ => {}
                }
                assert!(
                    status.message().len() < 400,
                    "{name}: the message stays short"
                );
            }
        }
        // The server still answers, on the same connection and a new one.
        let reply = server
            .client
            .legal_moves(LegalMovesRequest::default())
            .await
            .unwrap_or_else(|e| panic!("after {name}: {e:?}"));
        assert_eq!(reply.into_inner().moves.len(), 116, "after {name}");
    }
    server.assert_alive().await;
    server.stop().await;
}

// ---------------------------------------------------------------- helpers

type Sq = (u8, u8);

/// A square as (file, rank) for ordering checks.
fn sq(square: &str) -> Sq {
    let file = square.as_bytes()[0] - b'a';
    let rank: u8 = square[1..].parse().unwrap();
    (file, rank)
}

fn assert_sorted_squares(squares: &[String]) {
    let keys: Vec<Sq> = squares.iter().map(|s| sq(s)).collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted, "squares sorted by file, then rank");
}

fn strip_captures(text: &str) -> &str {
    text.split('x').next().unwrap()
}
