//! Every RPC on every ruleset, and the shape of their answers.

use super::*;

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
            clock: None,
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

/// A game backend's turns on real games (LegalMoves, then ApplyMove of the
/// move played, then the same a move later, and a refused move between):
/// the same answers and errors from a server that keeps the games it
/// replayed as from one that replays every call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backends_turns_answer_the_same_with_games_kept_or_not() {
    let config = test_config();
    assert!(config.exec.replay_cache_mb > 0);
    let mut kept = TestServer::start_with(config.clone()).await;
    let mut replayed = TestServer::start_with(tafl::service::Config {
        exec: tafl::service::ExecConfig {
            replay_cache_mb: 0,
            ..config.exec
        },
        ..config
    })
    .await;
    for moves in common::real_game::real_games().iter().step_by(401) {
        for ply in 0..moves.len() {
            let game = copenhagen_moves(moves[..ply].to_vec());
            let legal = LegalMovesRequest {
                game: Some(game.clone()),
                square: String::new(),
            };
            let apply = |next_move: &str| ApplyMoveRequest {
                game: Some(game.clone()),
                next_move: next_move.to_owned(),
                include_legal_moves: true,
            };
            assert_eq!(
                answer(kept.client.legal_moves(legal.clone()).await),
                answer(replayed.client.legal_moves(legal).await),
                "LegalMoves at ply {ply}"
            );
            for next_move in ["a1-a11", moves[ply].as_str()] {
                assert_eq!(
                    answer(kept.client.apply_move(apply(next_move)).await),
                    answer(replayed.client.apply_move(apply(next_move)).await),
                    "ApplyMove {next_move} at ply {ply}"
                );
            }
        }
    }
}

/// A call's answer, or its error's code and message.
fn answer<T>(result: Result<tonic::Response<T>, tonic::Status>) -> Result<T, (Code, String)> {
    result
        .map(tonic::Response::into_inner)
        .map_err(|status| (status.code(), status.message().to_owned()))
}
