//! FindPuzzles over a real socket: a planted double threat is found with its
//! key move and goal, a position where two moves win as fast gives no
//! puzzle, an illegal ply is refused as ValidateGame reports it, the
//! deadline gives a partial answer, and every theme is detected on a planted
//! example (built by hand, from the rules' own test cases, or taken from the
//! real games where the tactic occurred).

use std::time::Duration;

use tafl::service::pb::{self, FindPuzzlesRequest, PuzzleGoal, SearchLimits, ValidateGameRequest};
use tonic::Code;

use crate::common::real_game::real_game_moves;
use crate::common::server::*;
use crate::service::turn_support::info;

fn request(game: pb::Game) -> FindPuzzlesRequest {
    FindPuzzlesRequest {
        game: Some(game),
        limits: None,
        max_solver_moves: 0,
    }
}

/// The puzzles of `start` (11×11 Copenhagen unless `rules` and `size` say otherwise) where
/// `played` was played.
async fn puzzles_of(
    server: &TestServer,
    rules: pb::Rules,
    size: u32,
    start: &str,
    played: &str,
) -> Vec<pb::Puzzle> {
    let mut client = server.new_client().await;
    let answer = client
        .find_puzzles(request(game(rules, size, start, &[played])))
        .await
        .expect("mined")
        .into_inner();
    assert!(!answer.partial);
    answer.puzzles
}

/// The only puzzle of `start`, with its themes.
async fn the_puzzle(
    server: &TestServer,
    rules: pb::Rules,
    size: u32,
    start: &str,
    played: &str,
) -> pb::Puzzle {
    let puzzles = puzzles_of(server, rules, size, start, played).await;
    assert_eq!(puzzles.len(), 1, "{puzzles:#?}");
    puzzles.into_iter().next().expect("one")
}

/// The king on e5 alone; attackers on c5 and g5 bar his rank, and e7 his way up (when
/// `barred_up`). Running to e1 opens a1 and k1 at once: the attackers can block only one.
fn double_threat(barred_up: bool) -> String {
    let mut attackers = vec!["c5", "g5", "i9", "b9"];
    if barred_up {
        attackers.push("e7");
    }
    setup(11, &attackers, &[], "e5", 'd')
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_planted_double_threat_is_found_with_its_key_move_and_goal() {
    let server = TestServer::start().await;
    let start = double_threat(true);
    let puzzle = the_puzzle(&server, pb::Rules::Copenhagen, 11, &start, "e5-e1").await;
    assert_eq!(puzzle.start, start);
    assert_eq!(puzzle.source_ply, 0);
    assert_eq!(puzzle.solver(), pb::Side::Defenders);
    assert_eq!(puzzle.goal(), PuzzleGoal::KingEscapes);
    let solution: Vec<&str> = puzzle.solution.iter().map(|mv| mv.text.as_str()).collect();
    assert_eq!(solution.len(), 3, "{solution:?}");
    assert_eq!(solution[0], "e5-e1");
    assert!(["e1-a1", "e1-k1"].contains(&solution[2]), "{solution:?}");
    let last = puzzle.solution[2].status_after.expect("a status");
    assert_eq!(last.result(), pb::GameResult::DefendersWin);
    assert_eq!(puzzle.themes, ["corner_double_threat"]);
    assert!(puzzle.found_in_game);
    assert!((400..=3000).contains(&puzzle.rating), "{}", puzzle.rating);
    assert_eq!(
        puzzle.variant,
        Some(pb::Variant {
            rules: pb::Rules::Copenhagen.into(),
            board_size: 11
        })
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_position_where_two_moves_win_as_fast_gives_no_puzzle() {
    let server = TestServer::start().await;
    // Both e5-e1 and e5-e11 open two corners.
    let start = double_threat(false);
    let puzzles = puzzles_of(&server, pb::Rules::Copenhagen, 11, &start, "e5-e4").await;
    assert!(puzzles.is_empty(), "{puzzles:#?}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_illegal_ply_is_refused_as_validate_game_reports_it() {
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
        let refused = client
            .find_puzzles(request(game))
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
    // A solution longer than any proof looks at.
    let mut too_long = request(copenhagen(&[]));
    too_long.max_solver_moves = 5;
    let refused = client.find_puzzles(too_long).await.expect_err("refused");
    assert_invalid(&refused, "max_solver_moves");
    assert_eq!(info(&refused).reason, "BAD_LIMITS");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_deadline_gives_a_partial_answer() {
    let _heavy = HEAVY.lock().await;
    let server = TestServer::start().await;
    let mut client = server.new_client().await;
    let moves = real_game_moves(60);
    let texts: Vec<&str> = moves.iter().map(String::as_str).collect();
    let mut slow = request(copenhagen(&texts));
    // Far more than a second's work: a million positions a search.
    slow.limits = Some(SearchLimits {
        max_nodes: 1_000_000,
        ..SearchLimits::default()
    });
    let answer = client
        .find_puzzles(with_timeout(slow, Duration::from_millis(1500)))
        .await
        .expect("an answer before the deadline")
        .into_inner();
    assert!(answer.partial);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_theme_is_detected_on_a_planted_example() {
    let server = TestServer::start().await;
    let copenhagen = pb::Rules::Copenhagen;
    // (rules, size, start, the move played there, the goal, the theme).
    let cases = [
        // The exit fort of tests/data/rules/exit-fort.txt: e5-e3 closes it (e5-b5 missed it).
        (
            copenhagen,
            11,
            setup(
                11,
                &["c9", "b7", "j5"],
                &["e5", "f3", "e2", "g2", "e1", "g1"],
                "f1",
                'd',
            ),
            "e5-b5",
            PuzzleGoal::KingEscapes,
            "edge_fort",
        ),
        // The king on the throne, closed on three sides: f3-f5 takes him (a4-a3 missed it).
        (
            copenhagen,
            11,
            setup(11, &["e6", "g6", "f7", "f3", "a4"], &["b2"], "f6", 'a'),
            "a4-a3",
            PuzzleGoal::KingCaptured,
            "throne_capture",
        ),
        // Tablut: the king on the edge threatens c1-a1, but b5-b1 takes him first (h8-h7
        // missed it).
        (
            pb::Rules::Tablut,
            9,
            setup(9, &["d1", "c2", "b5", "h8"], &["g7"], "c1", 'a'),
            "h8-h7",
            PuzzleGoal::KingCaptured,
            "defence",
        ),
        // Real games (copenhagen-games.csv, line:ply), with the move played there: 56:45
        // j2-k2 closes a wall on the edge; 51:49 d11-c11 takes b11 against a11; 9:13 f6-c6
        // lets c7's defender be taken; 44:29 j11-i11 only opens the j-file for the king.
        (
            copenhagen,
            11,
            "/3t1t5/5t5/9t1/t3t1tt2t/t9t/tt1T4t2/t6T2K/8TTt/6T1TTt/1t2T2ttT1/3t5t1/ d".to_owned(),
            "g3-g1",
            PuzzleGoal::WinMaterial,
            "shieldwall",
        ),
        (
            copenhagen,
            11,
            "/4T3t2/t1TK5t1/tt5T1t1/9t1/2t1T3T2/10t/t3TT5/2t2T2t2/3T3t3/5t5/3tttt4/ d".to_owned(),
            "d10-d11",
            PuzzleGoal::KingEscapes,
            "blocked_corner",
        ),
        (
            copenhagen,
            11,
            "/1t3tt4/5t5/3t7/3T6t/tT3TTt2t/T4KTT1tt/tT3TT3t/t4T4t/11/5t5/1t2tttt3/ d".to_owned(),
            "g5-g3",
            PuzzleGoal::KingEscapes,
            "sacrifice",
        ),
        (
            copenhagen,
            11,
            "/5ttt1T1/4t4Kt/11/10t/t3TT5/tt1TT5t/t3TT3t1/t4T2t2/3t2T3t/7t1T1/4tttt3/ d".to_owned(),
            "j11-i11",
            PuzzleGoal::KingEscapes,
            "quiet_move",
        ),
    ];
    for (rules, size, start, played, goal, theme) in cases {
        let puzzle = the_puzzle(&server, rules, size, &start, played).await;
        assert_eq!(puzzle.goal(), goal, "{theme}: {puzzle:#?}");
        assert!(
            puzzle.themes.iter().any(|found| found == theme),
            "{theme}: {puzzle:#?}"
        );
    }
    server.stop().await;
}
