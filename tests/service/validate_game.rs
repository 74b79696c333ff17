//! ValidateGame: every real game judged in one call as a ply-by-ply replay
//! judges it, and a planted illegal ply reported at its index with the
//! reason ApplyMove gives it.

use tafl::rules::{Game, Rules, Variant};
use tafl::service::pb::{self, ApplyMoveRequest, ValidateGameRequest};
use tonic::Code;

use crate::common::random_games::Lcg;
use crate::common::server::*;
use crate::service::turn_support::*;

/// The report against a replay with `tafl::rules::Game`, ply by ply.
fn assert_matches_replay(report: &pb::ValidateGameResponse, variant: Variant, moves: &[String]) {
    let mut game = Game::new(variant);
    let mut accepted = 0;
    for (index, text) in moves.iter().enumerate() {
        let Ok(played) = game.play(text) else { break };
        let annotation = &report.plies[index];
        assert_eq!(annotation.index as usize, index);
        let shown = annotation.played.as_ref().unwrap();
        assert_eq!(shown.text, played.to_string(), "ply {index}");
        assert_eq!(annotation.repetitions, played.repetitions, "ply {index}");
        assert_eq!(annotation.status, shown.status_after, "ply {index}");
        accepted += 1;
    }
    assert_eq!(report.plies.len(), accepted);
    assert_eq!(report.first_error.is_none(), accepted == moves.len());
    let position = report.position.as_ref().unwrap();
    assert_eq!(position.text, game.position().to_string());
    assert_eq!(position.ply as usize, accepted);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_real_game_is_judged_as_its_replay() {
    let mut server = TestServer::start().await;
    let client = &mut server.client;
    let variant = Variant::standard(Rules::Copenhagen);
    let games = real_games();
    assert!(games.len() > 1700, "{}", games.len());
    for moves in &games {
        let report = client
            .validate_game(ValidateGameRequest {
                game: Some(proto_game(pb::Rules::Copenhagen, variant, moves)),
            })
            .await
            .unwrap()
            .into_inner();
        assert_matches_replay(&report, variant, moves);
    }
    let mut rng = Lcg(3);
    for (rules, variant) in rulesets() {
        for _ in 0..10 {
            let (_, moves) = random_game(variant, 200, &mut rng);
            let report = client
                .validate_game(ValidateGameRequest {
                    game: Some(proto_game(rules, variant, &moves)),
                })
                .await
                .unwrap()
                .into_inner();
            assert_matches_replay(&report, variant, &moves);
        }
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_planted_illegal_ply_is_reported_at_its_index_with_its_reason() {
    let mut server = TestServer::start().await;
    let client = &mut server.client;
    let variant = Variant::standard(Rules::Copenhagen);
    let mut reasons = std::collections::BTreeSet::new();
    for (number, moves) in real_games().into_iter().enumerate().step_by(50) {
        if moves.len() < 4 {
            continue;
        }
        let index = moves.len() / 2;
        // The other side's next move, a move off the board's pieces, or garbage.
        let planted = match number % 3 {
            0 => moves[index + 1].clone(),
            1 => "a2-a3".to_owned(),
            _ => moves[index - 1].clone(),
        };
        let mut game = moves.clone();
        game[index] = planted.clone();
        let report = client
            .validate_game(ValidateGameRequest {
                game: Some(proto_game(pb::Rules::Copenhagen, variant, &game)),
            })
            .await
            .unwrap()
            .into_inner();
        let status = client
            .apply_move(ApplyMoveRequest {
                game: Some(proto_game(pb::Rules::Copenhagen, variant, &moves[..index])),
                next_move: planted.clone(),
                include_legal_moves: false,
            })
            .await;
        match status {
            Ok(_) => assert!(
                report
                    .first_error
                    .as_ref()
                    .is_none_or(|e| e.index as usize > index)
            ),
            Err(status) => {
                let error = report.first_error.expect("the planted ply is reported");
                let expected = info(&status);
                assert_eq!(error.index as usize, index, "game {number}");
                assert_eq!(error.reason, expected.reason, "game {number}");
                assert_eq!(
                    format!("next_move: {}", error.message),
                    status.message(),
                    "game {number}"
                );
                assert_eq!(report.plies.len(), index);
                reasons.insert(error.reason);
            }
        }
    }
    assert!(reasons.len() >= 2, "{reasons:?}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_variant_the_start_and_the_length_are_errors() {
    let mut server = TestServer::start_with(tafl::service::Config {
        caps: tafl::service::CapsConfig {
            max_game_plies: 4,
            ..test_config().caps
        },
        ..test_config()
    })
    .await;
    let client = &mut server.client;
    let status = client
        .validate_game(ValidateGameRequest {
            game: Some(copenhagen(&["d1-d2"; 5])),
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::InvalidArgument);
    assert_eq!(info(&status).reason, "GAME_TOO_LONG");
    let report = client
        .validate_game(ValidateGameRequest {
            game: Some(copenhagen(&["d1-d2", "nonsense", "d2-d1"])),
        })
        .await
        .unwrap()
        .into_inner();
    let error = report.first_error.unwrap();
    assert_eq!((error.index, error.reason.as_str()), (1, "MALFORMED_MOVE"));
    assert_eq!(report.plies.len(), 1);
    // Moves after the end: the first one is GAME_OVER.
    let escaped = setup(11, &["k6", "k7"], &[], "d1", 'd');
    let report = client
        .validate_game(ValidateGameRequest {
            game: Some(game(
                pb::Rules::Copenhagen,
                0,
                &escaped,
                &["d1-a1", "k6-k5"],
            )),
        })
        .await
        .unwrap()
        .into_inner();
    let error = report.first_error.unwrap();
    assert_eq!((error.index, error.reason.as_str()), (1, "GAME_OVER"));
    let status = report.status.unwrap();
    assert_eq!(status.result(), pb::GameResult::DefendersWin);
    server.stop().await;
}
