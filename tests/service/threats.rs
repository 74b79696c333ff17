//! Threats against a brute-force check on random positions of every
//! ruleset: every move played out with `tafl::rules::Game`, every reply
//! looked at, the other side's moves tried on the same board with the
//! game's history.

use std::collections::BTreeMap;

use tafl::rules::{EndReason, Game, Move, MoveText, Position, PositionText, Rules, Side, Status};
use tafl::service::pb::{self, ThreatsRequest};

use crate::common::random_games::Lcg;
use crate::common::server::*;
use crate::service::turn_support::*;

/// The lists ThreatsResponse holds, as move texts.
#[derive(Debug, Default, PartialEq, Eq)]
struct Picture {
    winning_moves: Vec<String>,
    opponent_wins: Vec<String>,
    double_threats: Vec<String>,
    can_capture: BTreeMap<String, Vec<String>>,
    in_danger: BTreeMap<String, Vec<String>>,
}

fn texts(moves: &[pb::Move]) -> Vec<String> {
    moves.iter().map(|mv| mv.text.clone()).collect()
}

fn targets(threats: &[pb::CaptureThreat]) -> BTreeMap<String, Vec<String>> {
    threats
        .iter()
        .map(|threat| (threat.square.clone(), texts(&threat.by)))
        .collect()
}

fn picture_of(response: &pb::ThreatsResponse) -> Picture {
    Picture {
        winning_moves: texts(&response.winning_moves),
        opponent_wins: texts(&response.opponent_wins),
        double_threats: texts(&response.double_threats),
        can_capture: targets(&response.can_capture),
        in_danger: targets(&response.in_danger),
    }
}

fn wins(status: Status, side: Side) -> bool {
    matches!(status, Status::Won { winner, .. } if winner == side)
}

fn sorted_moves(position: &Position) -> Vec<Move> {
    let mut moves = position.legal_moves().to_vec();
    moves.sort();
    moves
}

fn text_of(mv: Move, captures: tafl::rules::Bitboard) -> String {
    MoveText {
        from: mv.from,
        to: mv.to,
        captures: Some(captures),
    }
    .to_string()
}

/// Rule 9 as RULES.md states it, for a position reached by the other side.
fn with_repetition(game: &Game, next: &Position, captured: bool, status: Status) -> Status {
    if captured
        || next.king().is_none()
        || status.is_over() && status.reason() != Some(EndReason::NoMoves)
    {
        return status;
    }
    let stood = 1 + game
        .reversible_history()
        .iter()
        .filter(|earlier| earlier.same_placement(next))
        .count();
    if stood < 3 {
        return status;
    }
    match next.variant().rules {
        Rules::Copenhagen => Status::Won {
            winner: Side::Attackers,
            reason: EndReason::Repetition,
        },
        Rules::Fetlar => Status::Drawn {
            reason: EndReason::Repetition,
        },
        Rules::Tablut => status,
    }
}

/// The picture by brute force.
fn brute_force(game: &Game) -> Picture {
    let mut picture = Picture::default();
    if game.status().is_over() {
        return picture;
    }
    let position = *game.position();
    let side = position.side_to_move();
    for mv in sorted_moves(&position) {
        let mut after = game.clone();
        let played = after.play_move(mv).unwrap();
        let text = played.to_string();
        if wins(played.status, side) {
            picture.winning_moves.push(text.clone());
        }
        for square in played.captures.iter() {
            picture
                .can_capture
                .entry(square.to_string())
                .or_default()
                .push(text.clone());
        }
        let forced = !played.status.is_over()
            && sorted_moves(after.position()).into_iter().all(|reply| {
                let mut replied = after.clone();
                let answer = replied.play_move(reply).unwrap();
                if answer.status.is_over() {
                    return wins(answer.status, side);
                }
                // Game::preview is checked against ApplyMove in previews.rs.
                sorted_moves(replied.position())
                    .into_iter()
                    .any(|win| wins(replied.preview(win).unwrap().status, side))
            });
        if forced {
            picture.double_threats.push(text);
        }
    }
    // The other side to move on the same board.
    let mut flipped_text = position.to_string();
    let side_char = flipped_text.pop().unwrap();
    flipped_text.push(if side_char == 'a' { 'd' } else { 'a' });
    let setup: PositionText = flipped_text.parse().unwrap();
    let flipped = Position::from_setup(&setup, position.variant()).unwrap();
    for mv in sorted_moves(&flipped) {
        let mut next = flipped;
        let outcome = next.play(mv).unwrap();
        let text = text_of(mv, outcome.captures);
        let status = with_repetition(game, &next, !outcome.captures.is_empty(), outcome.status);
        if wins(status, side.opponent()) {
            picture.opponent_wins.push(text.clone());
        }
        for square in outcome.captures.iter() {
            picture
                .in_danger
                .entry(square.to_string())
                .or_default()
                .push(text.clone());
        }
    }
    picture
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn threats_agree_with_brute_force_on_random_positions_of_every_ruleset() {
    let mut server = TestServer::start().await;
    let mut rng = Lcg(23);
    let mut seen = Picture::default();
    let mut positions = 0;
    let (mut rpc_time, mut brute_time) = (std::time::Duration::ZERO, std::time::Duration::ZERO);
    for (rules, variant) in rulesets() {
        for _ in 0..50 {
            let (game, moves) = if positions % 2 == 0 {
                near_the_end(variant, 150, &mut rng)
            } else {
                random_game(variant, 60, &mut rng)
            };
            let asked = std::time::Instant::now();
            let response = server
                .client
                .threats(ThreatsRequest {
                    game: Some(proto_game(rules, variant, &moves)),
                })
                .await
                .unwrap()
                .into_inner();
            rpc_time += asked.elapsed();
            let picture = picture_of(&response);
            let forced = std::time::Instant::now();
            let expected = brute_force(&game);
            brute_time += forced.elapsed();
            assert_eq!(picture, expected, "{variant} after {moves:?}");
            assert_eq!(response.position.unwrap().text, game.position().to_string());
            seen.winning_moves.extend(picture.winning_moves);
            seen.opponent_wins.extend(picture.opponent_wins);
            seen.double_threats.extend(picture.double_threats);
            seen.can_capture.extend(picture.can_capture);
            seen.in_danger.extend(picture.in_danger);
            positions += 1;
        }
    }
    // The sample shows every kind of threat, so the comparison means something.
    println!(
        "{positions} positions: {} wins, {} opponent wins, {} double threats; Threats {rpc_time:?}, brute force {brute_time:?}",
        seen.winning_moves.len(),
        seen.opponent_wins.len(),
        seen.double_threats.len()
    );
    assert!(!seen.winning_moves.is_empty());
    assert!(!seen.opponent_wins.is_empty());
    assert!(!seen.double_threats.is_empty());
    assert!(!seen.can_capture.is_empty() && !seen.in_danger.is_empty());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_king_opening_two_corner_lines_is_a_double_threat() {
    let mut server = TestServer::start().await;
    let start = setup(11, &["k6", "j9"], &["c7"], "e5", 'd');
    let response = server
        .client
        .threats(ThreatsRequest {
            game: Some(game(pb::Rules::Copenhagen, 0, &start, &[])),
        })
        .await
        .unwrap()
        .into_inner();
    let picture = picture_of(&response);
    assert!(
        picture.double_threats.contains(&"e5-a5".to_owned()),
        "{picture:?}"
    );
    assert!(picture.winning_moves.is_empty());
    let setup_text: PositionText = start.parse().unwrap();
    let position = Position::from_setup(
        &setup_text,
        tafl::rules::Variant::standard(Rules::Copenhagen),
    )
    .unwrap();
    assert_eq!(picture, brute_force(&Game::from_position(position)));
    // From the attackers' side, the same picture is the threats to parry.
    let escaped = setup(11, &["k6", "j9"], &["c7"], "a5", 'a');
    let response = server
        .client
        .threats(ThreatsRequest {
            game: Some(game(pb::Rules::Copenhagen, 0, &escaped, &[])),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(texts(&response.opponent_wins), ["a5-a1", "a5-a11"]);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_game_has_no_threats() {
    let mut server = TestServer::start().await;
    let escaped = setup(11, &["k6", "k7"], &[], "d1", 'd');
    let response = server
        .client
        .threats(ThreatsRequest {
            game: Some(game(pb::Rules::Copenhagen, 0, &escaped, &["d1-a1"])),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(picture_of(&response), Picture::default());
    assert_eq!(
        response.status.unwrap().result(),
        pb::GameResult::DefendersWin
    );
    server.stop().await;
}
