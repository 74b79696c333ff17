//! Previewed moves: what LegalMoves says each move takes and leads to is
//! what ApplyMove then says, along real games and random games of every
//! ruleset; one call per turn with include_legal_moves; SuggestMove's move
//! and position after it.

use tafl::service::pb::{
    self, ApplyMoveRequest, LegalMovesRequest, SuggestMoveRequest, ValidateGameRequest,
};

use crate::common::random_games::Lcg;
use crate::common::server::*;
use crate::service::turn_support::*;

/// Every move LegalMoves lists for the game, against ApplyMove for it.
async fn assert_previews_hold(server: &mut TestServer, game: pb::Game, context: &str) -> usize {
    let client = &mut server.client;
    let listed = client
        .legal_moves(LegalMovesRequest {
            game: Some(game.clone()),
            square: String::new(),
        })
        .await
        .unwrap()
        .into_inner()
        .moves;
    for preview in &listed {
        let applied = client
            .apply_move(ApplyMoveRequest {
                game: Some(game.clone()),
                next_move: preview.text.clone(),
                include_legal_moves: false,
            })
            .await
            .unwrap_or_else(|e| panic!("{context}: {} refused: {e:?}", preview.text))
            .into_inner();
        let played = applied.played.unwrap();
        assert_eq!(preview, &played, "{context}");
        assert_eq!(preview.captures, applied.captured, "{context}");
        assert_eq!(preview.status_after, applied.status, "{context}");
    }
    listed.len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legal_moves_preview_what_apply_move_says() {
    let mut server = TestServer::start().await;
    let games = real_games();
    let mut checked = 0;
    // A sample of real positions: every move there through ApplyMove.
    for (number, moves) in games.iter().enumerate().step_by(97) {
        let ply = number % moves.len().max(1);
        let game = copenhagen(&moves[..ply].iter().map(String::as_str).collect::<Vec<_>>());
        checked +=
            assert_previews_hold(&mut server, game, &format!("game {number} ply {ply}")).await;
    }
    // Random games of every ruleset, where captures and endings come often.
    let mut rng = Lcg(5);
    for (rules, variant) in rulesets() {
        for _ in 0..3 {
            let (_, texts) = random_game(variant, 60, &mut rng);
            let ply = texts.len().saturating_sub(1);
            let game = proto_game(rules, variant, &texts[..ply]);
            checked +=
                assert_previews_hold(&mut server, game, &format!("{variant} ply {ply}")).await;
        }
    }
    assert!(checked > 1500, "{checked} moves checked");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_played_move_of_the_real_games_was_previewed_as_played() {
    let mut server = TestServer::start_with(tafl::service::Config {
        caps: tafl::service::CapsConfig {
            max_game_plies: 5000,
            ..test_config().caps
        },
        ..test_config()
    })
    .await;
    let client = &mut server.client;
    for (number, moves) in real_games().into_iter().enumerate().step_by(25) {
        let report = client
            .validate_game(ValidateGameRequest {
                game: Some(copenhagen(
                    &moves.iter().map(String::as_str).collect::<Vec<_>>(),
                )),
            })
            .await
            .unwrap()
            .into_inner();
        // A recorded game may go on past a move the rules refuse: check what is accepted.
        let moves = &moves[..report.plies.len()];
        // One call per turn: ApplyMove with the next side's moves.
        let mut offered: Option<Vec<pb::Move>> = None;
        for (ply, annotation) in report.plies.iter().enumerate() {
            let played = annotation.played.as_ref().unwrap();
            let applied = client
                .apply_move(ApplyMoveRequest {
                    game: Some(copenhagen(
                        &moves[..ply].iter().map(String::as_str).collect::<Vec<_>>(),
                    )),
                    next_move: moves[ply].clone(),
                    include_legal_moves: true,
                })
                .await
                .unwrap()
                .into_inner();
            assert_eq!(
                applied.played.as_ref(),
                Some(played),
                "game {number} ply {ply}"
            );
            if let Some(offered) = &offered {
                assert!(
                    offered.contains(played),
                    "game {number} ply {ply}: {played:?}"
                );
            }
            let ongoing = applied.status.unwrap().result() == pb::GameResult::Ongoing;
            assert_eq!(!applied.legal_moves.is_empty(), ongoing, "game {number}");
            offered = Some(applied.legal_moves);
        }
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn suggest_move_says_what_its_move_does() {
    let mut server = TestServer::start().await;
    let mut rng = Lcg(9);
    for (rules, variant) in rulesets() {
        let (_, texts) = random_game(variant, 20, &mut rng);
        let ply = texts.len().saturating_sub(1);
        let game = proto_game(rules, variant, &texts[..ply]);
        let client = &mut server.client;
        let suggested = client
            .suggest_move(SuggestMoveRequest {
                game: Some(game.clone()),
                level: 3,
                seed: 1,
                ..SuggestMoveRequest::default()
            })
            .await
            .unwrap()
            .into_inner();
        let best = suggested.best_move.unwrap();
        let applied = client
            .apply_move(ApplyMoveRequest {
                game: Some(game),
                next_move: best.text.clone(),
                include_legal_moves: false,
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(Some(best), applied.played, "{variant}");
        assert_eq!(suggested.position_after, applied.position, "{variant}");
        assert_eq!(suggested.status_after, applied.status, "{variant}");
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_that_repeats_a_position_a_third_time_is_previewed_as_the_end() {
    let mut server = TestServer::start().await;
    let shuffle = [
        "d1-d2", "h6-i6", "d2-d1", "i6-h6", "d1-d2", "h6-i6", "d2-d1",
    ];
    for (rules, result) in [
        (pb::Rules::Copenhagen, pb::GameResult::AttackersWin),
        (pb::Rules::Fetlar, pb::GameResult::Draw),
    ] {
        let moves = server
            .client
            .legal_moves(LegalMovesRequest {
                game: Some(game(rules, 11, "", &shuffle)),
                square: "i6".to_owned(),
            })
            .await
            .unwrap()
            .into_inner()
            .moves;
        let back = moves.iter().find(|mv| mv.text == "i6-h6").unwrap();
        let status = back.status_after.unwrap();
        assert_eq!(
            (status.result(), status.reason()),
            (result, pb::EndReason::Repetition),
            "{rules:?}"
        );
        assert_previews_hold(&mut server, game(rules, 11, "", &shuffle), "shuffle").await;
    }
    server.stop().await;
}
