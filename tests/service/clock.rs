//! SuggestMove on a game clock, over a real socket: absurd clocks still get
//! a legal move, a forced move is answered at depth 1, a clock the server
//! cannot read is refused with ErrorInfo, and a level's search on a clock is
//! the one it makes without (the clock only shortens it). How much time the
//! engine takes is the allocation's unit tests' concern (src/search/clock.rs,
//! src/service/api/caps.rs); nothing here asserts a timing.

use tafl::service::pb::{self, ApplyMoveRequest, Clock, SuggestMoveRequest};
use tafl::service::{CapsConfig, Config};

use crate::common::server::*;
use crate::service::turn_support::*;

/// Three minutes each and two seconds a move.
const LONG_GAME: Clock = Clock {
    remaining_ms: 180_000,
    opponent_remaining_ms: 180_000,
    increment_ms: 2000,
    overtime_ms: 0,
    overtime_periods: 0,
    moves_to_go: 0,
};

fn on_clock(game: pb::Game, level: u32, clock: Clock) -> SuggestMoveRequest {
    SuggestMoveRequest {
        game: Some(game),
        level,
        clock: Some(clock),
        ..SuggestMoveRequest::default()
    }
}

#[tokio::test]
async fn an_absurd_clock_still_gets_a_legal_move() {
    let _heavy = HEAVY.lock().await;
    // Huge values are capped by the server's longest search: a short one here.
    let server = TestServer::start_with(Config {
        caps: CapsConfig {
            max_search_time: std::time::Duration::from_millis(300),
            ..test_config().caps
        },
        ..test_config()
    })
    .await;
    let mut client = server.new_client().await;
    let absurd = [
        ("empty", Clock::default()),
        (
            "increment only",
            Clock {
                increment_ms: 5000,
                ..Clock::default()
            },
        ),
        (
            "overtime only",
            Clock {
                overtime_ms: 1000,
                overtime_periods: 1,
                ..Clock::default()
            },
        ),
        (
            "one move to go",
            Clock {
                remaining_ms: 400,
                moves_to_go: 1,
                ..Clock::default()
            },
        ),
        (
            "huge",
            Clock {
                remaining_ms: u64::MAX,
                opponent_remaining_ms: u64::MAX,
                increment_ms: u64::MAX,
                overtime_ms: u64::MAX,
                overtime_periods: u32::MAX,
                moves_to_go: u32::MAX,
            },
        ),
    ];
    let game = copenhagen(&["d1-d3", "h6-i6"]);
    for (name, clock) in absurd {
        for level in [0, 5, 10] {
            let answer = client
                .suggest_move(on_clock(game.clone(), level, clock))
                .await
                .unwrap_or_else(|status| panic!("{name} at level {level}: {status:?}"))
                .into_inner();
            assert!(answer.depth >= 1, "{name} at level {level}");
            let best = answer.best_move.expect("a move");
            client
                .apply_move(ApplyMoveRequest {
                    game: Some(game.clone()),
                    next_move: best.text.clone(),
                    include_legal_moves: false,
                })
                .await
                .unwrap_or_else(|status| panic!("{name}: {} refused: {status:?}", best.text));
        }
    }
    server.stop().await;
}

#[tokio::test]
async fn a_forced_move_on_a_clock_is_answered_at_depth_one() {
    let server = TestServer::start().await;
    let mut client = server.new_client().await;
    // The attackers' one piece can go only to a3: a1 is a corner, a4 and b2 are taken.
    let start = setup(11, &["a2"], &["a4", "b2"], "f6", 'a');
    let game = game(pb::Rules::Copenhagen, 11, &start, &[]);
    for level in [0, 10] {
        let answer = client
            .suggest_move(on_clock(game.clone(), level, LONG_GAME))
            .await
            .expect("a move")
            .into_inner();
        assert_eq!(answer.best_move.expect("a move").text, "a2-a3");
        assert_eq!(answer.depth, 1, "level {level}");
    }
    server.stop().await;
}

#[tokio::test]
async fn overtime_periods_of_no_length_are_refused() {
    let server = TestServer::start().await;
    let mut client = server.new_client().await;
    let clock = Clock {
        overtime_periods: 2,
        ..LONG_GAME
    };
    let status = client
        .suggest_move(on_clock(copenhagen(&[]), 0, clock))
        .await
        .expect_err("periods of nothing");
    assert_eq!(
        info(&status),
        Info {
            code: tonic::Code::InvalidArgument,
            reason: "BAD_LIMITS".to_owned(),
            kind: "bad_request".to_owned(),
            field: Some("clock.overtime_ms".to_owned()),
            ply: None,
        }
    );
    assert_eq!(
        status.message(),
        "clock.overtime_ms: 0 ms, but 2 overtime periods are left: give the period's length, \
         or 0 periods"
    );
    server.stop().await;
}

/// Levels 1-9 end by depth or nodes: a long clock changes nothing of their search, so the same
/// seed gets the same move and nodes with it and without (unless the machine is so loaded that
/// a level's time cap ends one of them: then time decides, and the pair is not compared).
#[tokio::test]
async fn a_levels_search_on_a_long_clock_is_its_search_without() {
    let _heavy = HEAVY.lock().await;
    let server = TestServer::start().await;
    let mut client = server.new_client().await;
    let game = copenhagen(&["d1-d3", "h6-i6", "k4-i4"]);
    let mut compared = 0;
    for level in [2, 4, 6] {
        let cap = tafl::search::Level::new(level)
            .and_then(tafl::search::Level::time_cap)
            .expect("a capped level");
        let with = on_clock(game.clone(), level, LONG_GAME);
        let without = SuggestMoveRequest {
            clock: None,
            ..with.clone()
        };
        let mut answers = Vec::new();
        for request in [with, without] {
            answers.push(
                client
                    .suggest_move(request)
                    .await
                    .expect("a move")
                    .into_inner(),
            );
        }
        let [on_clock, off_clock] = &answers[..] else {
            unreachable!()
        };
        let cap_ms = u32::try_from(cap.as_millis()).expect("ms") * 9 / 10;
        if on_clock.time_ms >= cap_ms || off_clock.time_ms >= cap_ms {
            continue;
        }
        compared += 1;
        assert_eq!(on_clock.best_move, off_clock.best_move, "level {level}");
        assert_eq!(on_clock.nodes, off_clock.nodes, "level {level}");
    }
    assert!(compared >= 1, "every level's time cap bound");
    server.stop().await;
}
