//! Games played to every ending over ApplyMove; what each RPC says afterwards.

use super::*;

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
