//! Searches on a game clock's allocation: every clock, however absurd, gets
//! a legal move; a clock with nothing on it, or a forced move, gets it from
//! depth 1 alone; a search never answers past its hard time by more than a
//! loaded machine's lateness (bounded here generously: no timing is
//! asserted tighter than what always holds).

use std::time::{Duration, Instant};

use tafl::rules::{Game, Position, PositionText, Rules, Variant};
use tafl::search::{Clock, DEFAULT_MOVE_OVERHEAD, Engine, EngineConfig, Level, Limits};

use crate::common::random_games::{Lcg, all_variants, random_games};

fn engine() -> Engine {
    Engine::new(EngineConfig {
        hash_mb: 4,
        ..EngineConfig::default()
    })
}

/// The clocks a careless or hostile caller may send.
fn absurd_clocks() -> Vec<(&'static str, Clock)> {
    let ms = Duration::from_millis;
    vec![
        ("zero", Clock::default()),
        (
            "increment only",
            Clock {
                increment: ms(2000),
                ..Clock::default()
            },
        ),
        (
            "overtime only",
            Clock {
                overtime: ms(300),
                overtime_periods: 5,
                ..Clock::default()
            },
        ),
        (
            "one move to go",
            Clock {
                remaining: ms(250),
                moves_to_go: 1,
                ..Clock::default()
            },
        ),
        (
            "huge",
            Clock {
                remaining: Duration::MAX,
                opponent_remaining: Duration::MAX,
                increment: Duration::MAX,
                overtime: Duration::MAX,
                overtime_periods: u32::MAX,
                moves_to_go: u32::MAX,
            },
        ),
    ]
}

#[test]
fn every_clock_gets_a_legal_move_and_an_empty_one_depth_one() {
    let engine = engine();
    let mut rng = Lcg(17);
    // A caller's cap on the huge clock's time, as a server's longest search is.
    let cap = Duration::from_millis(150);
    for variant in all_variants() {
        for game in random_games(variant, 2, 40, &mut rng) {
            for (name, clock) in absurd_clocks() {
                let allocation = clock.allocate(DEFAULT_MOVE_OVERHEAD).at_most(cap);
                assert!(allocation.soft <= allocation.hard, "{name}: {allocation:?}");
                let started = Instant::now();
                let report = engine
                    .search(&game, &Limits::on_clock(allocation), Level::STRONGEST, 0)
                    .unwrap_or_else(|| panic!("{name}: no move in {}", game.position()));
                assert!(
                    game.position().legal_moves().contains(&report.best_move),
                    "{name}: {} in {}",
                    report.best_move,
                    game.position()
                );
                if allocation.hard.is_zero() {
                    assert_eq!(report.depth, 1, "{name}");
                }
                // Far past the hard time only if the machine stalls the search for seconds.
                assert!(
                    started.elapsed() < allocation.hard + Duration::from_secs(5),
                    "{name}"
                );
            }
        }
    }
}

#[test]
fn a_forced_move_on_a_clock_is_played_after_depth_one() {
    // The attackers' one piece can go only to a3: a1 is a corner, a4 and b2 are taken.
    let setup: PositionText = "/11/11/11/11/11/5K5/11/T10/11/tT9/11/ a"
        .parse()
        .expect("a position");
    let variant = Variant::new(Rules::Copenhagen, setup.size());
    let game = Game::from_position(Position::from_setup(&setup, variant).expect("legal"));
    assert_eq!(game.position().legal_moves().len(), 1);
    let long_game = Clock {
        remaining: Duration::from_secs(180),
        increment: Duration::from_secs(2),
        ..Clock::default()
    };
    let limits = Limits::on_clock(long_game.allocate(DEFAULT_MOVE_OVERHEAD));
    for level in [Level::STRONGEST, Level::new(9).expect("a level")] {
        let report = engine().search(&game, &limits, level, 0).expect("a move");
        assert_eq!(report.best_move.to_string(), "a2-a3");
        assert_eq!(report.depth, 1, "level {level}");
    }
}
