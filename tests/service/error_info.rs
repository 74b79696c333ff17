//! Errors a program can read: every illegal-move reason from a real
//! position, on every ruleset and through every RPC that judges moves, and
//! ErrorInfo on every error class.

use std::collections::BTreeMap;

use tafl::rules::{Game, Move, PlayError, Square};
use tafl::service::pb::{
    self, AnalyzeRequest, ApplyMoveRequest, LegalMovesRequest, SuggestMoveRequest,
    ValidateGameRequest,
};
use tonic::Code;

use crate::common::random_games::Lcg;
use crate::common::server::*;
use crate::service::turn_support::*;

/// The reason each refusal of the rules is reported with.
fn reason_of(error: &PlayError) -> Option<&'static str> {
    match error {
        PlayError::NoPiece(_) => Some("NO_PIECE"),
        PlayError::NotYourPiece { .. } => Some("NOT_YOUR_PIECE"),
        PlayError::NotStraight(mv) if mv.from != mv.to => Some("NOT_STRAIGHT"),
        PlayError::Blocked { .. } => Some("BLOCKED"),
        PlayError::KingOnly { .. } | PlayError::ThroneInTheWay(_) => Some("RESTRICTED_SQUARE"),
        _ => None,
    }
}

/// One illegal move of each reason found along random games of `variant`:
/// reason -> (the moves before it, the move).
fn illegal_examples(
    variant: tafl::rules::Variant,
    rng: &mut Lcg,
) -> BTreeMap<&'static str, (Vec<String>, String)> {
    let size = variant.size.get();
    let squares: Vec<Square> = (0..size)
        .flat_map(|file| (0..size).map(move |rank| Square::new(file, rank).unwrap()))
        .collect();
    let mut found = BTreeMap::new();
    for _ in 0..20 {
        let (_, texts) = random_game(variant, 40, rng);
        let mut game = Game::new(variant);
        for (ply, text) in texts.iter().enumerate() {
            let position = *game.position();
            for &from in &squares {
                for &to in squares.iter().filter(|&&to| to != from) {
                    if let Err(error) = position.check(Move { from, to })
                        && let Some(reason) = reason_of(&error)
                    {
                        found
                            .entry(reason)
                            .or_insert_with(|| (texts[..ply].to_vec(), format!("{from}-{to}")));
                    }
                }
            }
            let legal = position.legal_moves()[0];
            let mut after = position;
            let captures = after.play(legal).unwrap().captures;
            // Claim a capture the move does not make, or none of those it makes.
            let claimed = if captures.is_empty() {
                format!("{}-{}x{}", legal.from, legal.to, legal.from)
            } else {
                format!("{}-{}", legal.from, legal.to) + "x" + &squares[0].to_string()
            };
            found
                .entry("CAPTURES_MISMATCH")
                .or_insert_with(|| (texts[..ply].to_vec(), claimed));
            found.entry("MALFORMED_MOVE").or_insert_with(|| {
                (
                    texts[..ply].to_vec(),
                    format!("{}-{}", legal.from, legal.from),
                )
            });
            game.play(text).unwrap();
        }
        if found.len() == 7 {
            break;
        }
    }
    found
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_illegal_move_reason_from_real_positions_through_every_rpc() {
    let mut server = TestServer::start().await;
    let client = &mut server.client;
    let mut rng = Lcg(11);
    for (rules, variant) in rulesets() {
        let examples = illegal_examples(variant, &mut rng);
        assert_eq!(
            examples.keys().copied().collect::<Vec<_>>(),
            [
                "BLOCKED",
                "CAPTURES_MISMATCH",
                "MALFORMED_MOVE",
                "NOT_STRAIGHT",
                "NOT_YOUR_PIECE",
                "NO_PIECE",
                "RESTRICTED_SQUARE"
            ],
            "{variant}"
        );
        for (reason, (before, text)) in examples {
            let context = format!("{variant}: {text} after {before:?}");
            let kind = if reason == "MALFORMED_MOVE" {
                "bad_request"
            } else {
                "illegal_move"
            };
            let ply = before.len();
            let status = client
                .apply_move(ApplyMoveRequest {
                    game: Some(proto_game(rules, variant, &before)),
                    next_move: text.clone(),
                    include_legal_moves: true,
                })
                .await
                .unwrap_err();
            let expected = |field: String| Info {
                code: Code::InvalidArgument,
                reason: reason.to_owned(),
                kind: kind.to_owned(),
                field: Some(field),
                ply: Some(ply.to_string()),
            };
            assert_eq!(info(&status), expected("next_move".into()), "{context}");
            let sentence = status
                .message()
                .strip_prefix("next_move: ")
                .unwrap()
                .to_owned();

            let mut planted = before.clone();
            planted.push(text.clone());
            let status = client
                .legal_moves(LegalMovesRequest {
                    game: Some(proto_game(rules, variant, &planted)),
                    square: String::new(),
                })
                .await
                .unwrap_err();
            assert_eq!(
                info(&status),
                expected(format!("game.moves[{ply}]")),
                "{context}"
            );

            planted.push("whatever follows".to_owned());
            let report = client
                .validate_game(ValidateGameRequest {
                    game: Some(proto_game(rules, variant, &planted)),
                })
                .await
                .unwrap()
                .into_inner();
            let error = report.first_error.expect("the planted ply is reported");
            assert_eq!(
                (error.index as usize, error.reason.as_str(), &error.message),
                (ply, reason, &sentence),
                "{context}"
            );
            assert_eq!(report.plies.len(), ply, "{context}");
        }
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_error_class_carries_error_info() {
    let mut server = TestServer::start_with(tafl::service::Config {
        caps: tafl::service::CapsConfig {
            max_game_plies: 20,
            ..test_config().caps
        },
        ..test_config()
    })
    .await;
    let client = &mut server.client;
    let legal = |game: pb::Game, square: &str| LegalMovesRequest {
        game: Some(game),
        square: square.to_owned(),
    };
    let expect = |code, reason: &str, kind: &str, field: &str, ply: Option<usize>| Info {
        code,
        reason: reason.to_owned(),
        kind: kind.to_owned(),
        field: Some(field.to_owned()),
        ply: ply.map(|ply| ply.to_string()),
    };
    let bad = |reason: &str, field: &str| {
        expect(Code::InvalidArgument, reason, "bad_request", field, None)
    };

    let mut bad_rules = copenhagen(&[]);
    bad_rules.variant.as_mut().unwrap().rules = 42;
    let status = client.legal_moves(legal(bad_rules, "")).await.unwrap_err();
    assert_eq!(info(&status), bad("BAD_VARIANT", "game.variant.rules"));

    let bad_size = game(pb::Rules::Copenhagen, 10, "", &[]);
    let status = client.legal_moves(legal(bad_size, "")).await.unwrap_err();
    assert_eq!(info(&status), bad("BAD_VARIANT", "game.variant.board_size"));

    let small_start = setup(9, &["a4"], &["e6"], "e5", 'a');
    let wrong_size = game(pb::Rules::Copenhagen, 11, &small_start, &[]);
    let status = client.legal_moves(legal(wrong_size, "")).await.unwrap_err();
    assert_eq!(info(&status), bad("BAD_VARIANT", "game.start"));

    let unreadable = game(pb::Rules::Copenhagen, 0, "no such position", &[]);
    let status = client.legal_moves(legal(unreadable, "")).await.unwrap_err();
    assert_eq!(info(&status), bad("MALFORMED_POSITION", "game.start"));

    let two_kings = setup(11, &["a4"], &["e5"], "f6", 'a').replace('T', "K");
    let impossible = game(pb::Rules::Copenhagen, 0, &two_kings, &[]);
    let status = client.legal_moves(legal(impossible, "")).await.unwrap_err();
    assert_eq!(info(&status), bad("IMPOSSIBLE_START", "game.start"));
    assert!(
        status
            .message()
            .starts_with(&format!("game.start: \"{}", &two_kings[..20])),
        "the sentence names the start: {}",
        status.message()
    );

    let status = client
        .legal_moves(legal(copenhagen(&[]), "e55"))
        .await
        .unwrap_err();
    assert_eq!(info(&status), bad("BAD_SQUARE", "square"));

    let status = client
        .suggest_move(SuggestMoveRequest {
            level: 11,
            ..SuggestMoveRequest::default()
        })
        .await
        .unwrap_err();
    assert_eq!(info(&status), bad("BAD_LIMITS", "level"));

    let status = client
        .analyze(AnalyzeRequest {
            multi_pv: 9,
            ..AnalyzeRequest::default()
        })
        .await
        .unwrap_err();
    assert_eq!(info(&status), bad("BAD_LIMITS", "multi_pv"));

    let too_long = copenhagen(&["d1-d2", "h6-i6", "d2-d1", "i6-h6"].repeat(6));
    let status = client.legal_moves(legal(too_long, "")).await.unwrap_err();
    assert_eq!(info(&status), bad("GAME_TOO_LONG", "game.moves"));
    let twenty: Vec<String> = real_games()
        .into_iter()
        .find(|moves| {
            let mut game = tafl::rules::Game::new(tafl::rules::Variant::standard(
                tafl::rules::Rules::Copenhagen,
            ));
            moves.len() > 20
                && moves[..20].iter().all(|text| game.play(text).is_ok())
                && !game.status().is_over()
        })
        .expect("a real game longer than 20 plies")[..20]
        .to_vec();
    let longest = copenhagen(&twenty.iter().map(String::as_str).collect::<Vec<_>>());
    let status = client
        .apply_move(ApplyMoveRequest {
            game: Some(longest),
            next_move: "a1-a2".to_owned(),
            include_legal_moves: false,
        })
        .await
        .unwrap_err();
    assert_eq!(
        info(&status),
        expect(
            Code::InvalidArgument,
            "GAME_TOO_LONG",
            "bad_request",
            "next_move",
            Some(20)
        )
    );

    for text in ["zz", "e1-e1", "a1-a12"] {
        let status = client
            .apply_move(ApplyMoveRequest {
                game: Some(copenhagen(&["d1-d2"])),
                next_move: text.to_owned(),
                include_legal_moves: false,
            })
            .await
            .unwrap_err();
        assert_eq!(
            info(&status),
            expect(
                Code::InvalidArgument,
                "MALFORMED_MOVE",
                "bad_request",
                "next_move",
                Some(1)
            ),
            "{text}"
        );
    }

    // A move after the end: in game.moves, in next_move, and SuggestMove.
    let escaped = setup(11, &["k6", "k7"], &[], "d1", 'd');
    let over = game(pb::Rules::Copenhagen, 0, &escaped, &["d1-a1", "k6-k5"]);
    let status = client.legal_moves(legal(over, "")).await.unwrap_err();
    let game_over = |field: &str, ply| {
        expect(
            Code::FailedPrecondition,
            "GAME_OVER",
            "game_over",
            field,
            ply,
        )
    };
    assert_eq!(info(&status), game_over("game.moves[1]", Some(1)));
    let over = game(pb::Rules::Copenhagen, 0, &escaped, &["d1-a1"]);
    let status = client
        .apply_move(ApplyMoveRequest {
            game: Some(over.clone()),
            next_move: "k6-k5".to_owned(),
            include_legal_moves: false,
        })
        .await
        .unwrap_err();
    assert_eq!(info(&status), game_over("next_move", Some(1)));
    let status = client
        .suggest_move(SuggestMoveRequest {
            game: Some(over),
            ..SuggestMoveRequest::default()
        })
        .await
        .unwrap_err();
    assert_eq!(info(&status), game_over("game", None));

    server.stop().await;
}
