//! ReviewGame over a real socket: a blunder and a missed win are named as
//! such, the engine's own game is all best moves, the plies and the summary
//! agree with ValidateGame, an illegal ply is refused as ValidateGame reports
//! it, a cancel frees the search slot, and the deadline ends the review with
//! a partial summary. Bounds are generous: the machine is busy.

use std::time::{Duration, Instant};

use tafl::service::pb::{
    self, MoveClass, ReviewGameRequest, SearchLimits, SuggestMoveRequest, ValidateGameRequest,
    review_game_response::Update,
};
use tonic::Code;

use crate::common::server::*;
use crate::service::turn_support::*;

/// A forced result's score, or beyond (EvaluateResponse.score).
const WIN_BOUND: i32 = 999_000;

/// Each position's search: three plies (quick, and the same every time).
fn depth(plies: u32) -> Option<SearchLimits> {
    Some(SearchLimits {
        max_depth: plies,
        ..SearchLimits::default()
    })
}

fn request(game: pb::Game, limits: Option<SearchLimits>) -> ReviewGameRequest {
    ReviewGameRequest {
        game: Some(game),
        limits,
        level: 0,
        seed: 7,
    }
}

/// A whole review: its plies and its summary, checked to come in order and the summary once,
/// last.
async fn review(
    server: &TestServer,
    request: tonic::Request<ReviewGameRequest>,
) -> Result<(Vec<pb::PlyReview>, pb::ReviewSummary), tonic::Status> {
    let mut client = server.new_client().await;
    let mut stream = client.review_game(request).await?.into_inner();
    let mut plies = Vec::new();
    let mut summary = None;
    while let Some(update) = stream.message().await? {
        assert!(summary.is_none(), "nothing follows the summary");
        match update.update.expect("an update") {
            Update::Ply(ply) => {
                assert_eq!(ply.ply as usize, plies.len(), "plies come in order");
                plies.push(ply);
            }
            Update::Summary(last) => summary = Some(last),
        }
    }
    let summary = summary.expect("a summary, last");
    assert_eq!(summary.plies_reviewed as usize, plies.len());
    Ok((plies, summary))
}

/// The king on e11, caged by attackers on d10, e10 and f10, his way along the top edge to
/// a11 and k11 blocked on b11 and h11 (when `blocked_left`), with many attackers about.
fn caged_king(blocked_left: bool, side: char) -> String {
    let mut attackers = vec![
        "h11", "d10", "e10", "f10", "b5", "c3", "d3", "e3", "g3", "h3", "i3", "c5", "i5", "k6",
        "a6",
    ];
    if blocked_left {
        attackers.push("b11");
    }
    setup(11, &attackers, &["f7"], "e11", side)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ply_that_lets_the_king_escape_next_move_is_a_blunder() {
    let server = TestServer::start().await;
    // The b11 attacker leaves the top edge: the king runs to a11 next.
    let game = game(
        pb::Rules::Copenhagen,
        0,
        &caged_king(true, 'a'),
        &["b11-b9"],
    );
    let (plies, summary) = review(&server, tonic::Request::new(request(game, depth(3))))
        .await
        .expect("reviewed");
    let ply = &plies[0];
    assert_eq!(ply.side(), pb::Side::Attackers);
    assert!(ply.score_after <= -WIN_BOUND, "{ply:?}");
    assert_eq!(ply.win_chance_after, 0.0);
    assert_eq!(ply.classification(), MoveClass::Blunder, "{ply:?}");
    assert_ne!(ply.best_move.as_ref().unwrap().text, "b11-b9");
    assert_eq!(summary.attackers_classes["MOVE_CLASS_BLUNDER"], 1);
    assert_eq!(summary.turning_points, [0]);
    assert!(summary.attackers_accuracy < 50.0, "{summary:?}");
    assert!(!summary.partial);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ply_that_misses_a_win_in_one_is_a_missed_win_and_the_escape_a_found_win() {
    let server = TestServer::start().await;
    // The king could run e11-a11; the defenders move another piece and the attackers block.
    let start = caged_king(false, 'd');
    let missed = game(pb::Rules::Copenhagen, 0, &start, &["f7-f8"]);
    let (plies, _) = review(&server, tonic::Request::new(request(missed, depth(3))))
        .await
        .expect("reviewed");
    let ply = &plies[0];
    assert!(ply.score_before >= WIN_BOUND, "{ply:?}");
    assert_eq!(ply.win_chance_before, 1.0);
    assert_eq!(ply.best_move.as_ref().unwrap().text, "e11-a11");
    assert_eq!(ply.classification(), MoveClass::MissedWin, "{ply:?}");
    assert!(ply.win_chance_loss > 0.0);
    // The escape itself ends the game: a found win, and the summary says how it ended.
    let escaped = game(pb::Rules::Copenhagen, 0, &start, &["e11-a11"]);
    let (plies, summary) = review(&server, tonic::Request::new(request(escaped, depth(3))))
        .await
        .expect("reviewed");
    assert_eq!(plies[0].classification(), MoveClass::FoundWin);
    assert_eq!(plies[0].win_chance_loss, 0.0);
    let status = summary.status.unwrap();
    assert_eq!(status.result(), pb::GameResult::DefendersWin);
    assert_eq!(status.reason(), pb::EndReason::KingEscaped);
    assert_eq!(summary.defenders_accuracy, 100.0);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_engines_own_game_is_all_best_moves_at_full_accuracy() {
    let _heavy = HEAVY.lock().await;
    let server = TestServer::start().await;
    let mut client = server.new_client().await;
    // Grow the game move by move: review it with one more (any legal) move, and play the move
    // the review names best in its last position. The review searches the positions in the same
    // order with the same table whatever follows, so its choice there is its choice in the end.
    let mut moves: Vec<String> = Vec::new();
    for _ in 0..10 {
        let legal = client
            .legal_moves(pb::LegalMovesRequest {
                game: Some(copenhagen_of(&moves)),
                square: String::new(),
            })
            .await
            .unwrap()
            .into_inner();
        let Some(any) = legal.moves.first() else {
            break;
        };
        let mut probe = moves.clone();
        probe.push(any.text.clone());
        let (plies, _) = review(
            &server,
            tonic::Request::new(request(copenhagen_of(&probe), depth(3))),
        )
        .await
        .expect("reviewed");
        let best = plies.last().unwrap().best_move.clone().unwrap();
        moves.push(best.text);
        if best.status_after.unwrap().result() != pb::GameResult::Ongoing {
            break;
        }
    }
    let (plies, summary) = review(
        &server,
        tonic::Request::new(request(copenhagen_of(&moves), depth(3))),
    )
    .await
    .expect("reviewed");
    assert_eq!(plies.len(), moves.len());
    for ply in &plies {
        assert!(
            matches!(ply.classification(), MoveClass::Best | MoveClass::FoundWin),
            "{ply:?}"
        );
        assert_eq!(ply.win_chance_loss, 0.0);
        assert_eq!(
            &ply.best_move.as_ref().unwrap().text,
            &ply.played.as_ref().unwrap().text
        );
    }
    assert_eq!(summary.attackers_accuracy, 100.0);
    assert_eq!(summary.defenders_accuracy, 100.0);
    for classes in [&summary.attackers_classes, &summary.defenders_classes] {
        for class in [
            MoveClass::Inaccuracy,
            MoveClass::Mistake,
            MoveClass::Blunder,
            MoveClass::MissedWin,
        ] {
            assert_eq!(classes[class.as_str_name()], 0, "{summary:?}");
        }
    }
    assert!(summary.turning_points.is_empty());
    server.stop().await;
}

fn copenhagen_of(moves: &[String]) -> pb::Game {
    proto_game(
        pb::Rules::Copenhagen,
        tafl::rules::Variant::standard(tafl::rules::Rules::Copenhagen),
        moves,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plies_and_summary_agree_with_validate_game() {
    let server = TestServer::start().await;
    let mut client = server.new_client().await;
    // A real game's first 40 plies, captures among them, and a game that ends on the board.
    let real: Vec<String> = real_games()
        .into_iter()
        .find(|moves| {
            moves.len() > 40 && moves[..40].iter().filter(|m| m.contains('x')).count() >= 3
        })
        .expect("a real game with captures")[..40]
        .to_vec();
    let escape = game(
        pb::Rules::Copenhagen,
        0,
        &caged_king(false, 'a'),
        &["k6-k7", "e11-a11"],
    );
    for game in [copenhagen_of(&real), escape] {
        let judged = client
            .validate_game(ValidateGameRequest {
                game: Some(game.clone()),
            })
            .await
            .unwrap()
            .into_inner();
        assert!(judged.first_error.is_none());
        let (plies, summary) = review(&server, tonic::Request::new(request(game, depth(2))))
            .await
            .expect("reviewed");
        assert_eq!(plies.len(), judged.plies.len());
        for (ply, annotation) in plies.iter().zip(&judged.plies) {
            assert_eq!(ply.ply, annotation.index);
            assert_eq!(ply.played, annotation.played, "ply {}", ply.ply);
            let side = if ply.ply % 2 == 0 {
                pb::Side::Attackers
            } else {
                pb::Side::Defenders
            };
            assert_eq!(ply.side(), side);
        }
        assert_eq!(summary.status, judged.status);
        assert!(!summary.partial);
        // Every class is counted, and every ply once.
        let counted: u32 = summary
            .attackers_classes
            .values()
            .chain(summary.defenders_classes.values())
            .sum();
        assert_eq!(counted as usize, plies.len());
        assert_eq!(summary.attackers_classes.len(), 8);
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_illegal_ply_is_refused_before_any_update_as_validate_game_reports_it() {
    let server = TestServer::start().await;
    let mut client = server.new_client().await;
    for moves in [
        &["d1-d3", "e5-e2", "d3-d9"][..],
        &["d1-d3", "zz"][..],
        &["d1-d3", "d3-d4"][..],
    ] {
        let game = copenhagen(moves);
        let judged = client
            .validate_game(ValidateGameRequest {
                game: Some(game.clone()),
            })
            .await
            .unwrap()
            .into_inner();
        let error = judged.first_error.expect("a refused ply");
        // No stream at all: the status comes instead of the first update.
        let refused = client
            .review_game(request(game, depth(2)))
            .await
            .expect_err("refused");
        assert_eq!(refused.code(), Code::InvalidArgument);
        let refused_info = info(&refused);
        assert_eq!(refused_info.reason, error.reason);
        assert_eq!(refused_info.ply, Some(error.index.to_string()));
        let field = format!("game.moves[{}]", error.index);
        assert_eq!(refused_info.field.as_deref(), Some(field.as_str()));
        assert_eq!(refused.message(), format!("{field}: {}", error.message));
    }
    // A ply after the end: FAILED_PRECONDITION, as ValidateGame's GAME_OVER.
    let over = game(
        pb::Rules::Copenhagen,
        0,
        &caged_king(false, 'd'),
        &["e11-a11", "k6-k7"],
    );
    let refused = client
        .review_game(request(over, depth(2)))
        .await
        .expect_err("refused");
    assert_eq!(refused.code(), Code::FailedPrecondition);
    assert_eq!(info(&refused).reason, "GAME_OVER");
    assert_eq!(info(&refused).ply.as_deref(), Some("1"));
    // And a level above 10.
    let mut bad_level = request(copenhagen(&[]), None);
    bad_level.level = 11;
    let refused = client.review_game(bad_level).await.expect_err("refused");
    assert_invalid(&refused, "level");
    server.stop().await;
}

async fn suggest(server: &TestServer) -> Result<pb::SuggestMoveResponse, tonic::Status> {
    let mut client = server.new_client().await;
    client
        .suggest_move(SuggestMoveRequest {
            game: Some(copenhagen(&[])),
            level: 1,
            ..SuggestMoveRequest::default()
        })
        .await
        .map(tonic::Response::into_inner)
}

/// A long real game at a second a position: a review that would run for minutes.
fn long_review() -> ReviewGameRequest {
    let moves: Vec<String> = real_games()
        .into_iter()
        .find(|moves| moves.len() >= 80)
        .expect("a long real game")[..80]
        .to_vec();
    request(
        copenhagen_of(&moves),
        Some(SearchLimits {
            max_time_ms: 1000,
            ..SearchLimits::default()
        }),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_stops_the_review_and_frees_its_search_slot() {
    let _heavy = HEAVY.lock().await;
    let server = one_slot_server().await;
    let mut client = server.new_client().await;
    let mut stream = client
        .review_game(long_review())
        .await
        .unwrap()
        .into_inner();
    let first = stream.message().await.unwrap().expect("a first ply");
    assert!(matches!(first.update, Some(Update::Ply(_))));
    drop(stream);
    drop(client);
    // Stopped within a few milliseconds of the cancel; the margin is the busy machine's.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let answer = suggest(&server).await.expect("the slot is free again");
    assert!(answer.best_move.is_some());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_deadline_ends_the_review_with_a_partial_summary() {
    let _heavy = HEAVY.lock().await;
    let server = one_slot_server().await;
    let timeout = Duration::from_millis(3000);
    let started = Instant::now();
    let (plies, summary) = review(&server, with_timeout(long_review(), timeout))
        .await
        .expect("a partial review, not an error");
    let elapsed = started.elapsed();
    assert!(elapsed < timeout + Duration::from_secs(2), "{elapsed:?}");
    assert!(summary.partial);
    assert!(plies.len() < 80, "{} plies", plies.len());
    assert_eq!(summary.plies_reviewed as usize, plies.len());
    // And the slot is free again.
    assert!(suggest(&server).await.is_ok());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_review_gives_its_slot_to_a_waiting_suggestion_between_positions() {
    let _heavy = HEAVY.lock().await;
    // One slot, and room for a few to wait.
    let server = TestServer::start_with(tafl::service::Config {
        exec: tafl::service::ExecConfig {
            max_concurrent_searches: 1,
            max_queued_searches: 4,
            ..test_config().exec
        },
        ..test_config()
    })
    .await;
    let mut client = server.new_client().await;
    let mut stream = client
        .review_game(long_review())
        .await
        .unwrap()
        .into_inner();
    stream.message().await.unwrap().expect("a first ply");
    // The review holds the slot a position at a time; the suggestion waits for the end of one
    // and goes before the review's next (the pool's order), instead of waiting for the review.
    let since = Instant::now();
    let answered = suggest(&server)
        .await
        .expect("answered while the review goes on");
    assert!(answered.best_move.is_some());
    assert!(
        since.elapsed() < Duration::from_secs(10),
        "{:?}",
        since.elapsed()
    );
    assert!(
        stream.message().await.unwrap().is_some(),
        "the review goes on"
    );
    server.stop().await;
}
