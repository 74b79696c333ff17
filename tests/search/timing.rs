//! A search with a time budget answers, and always before the call's
//! deadline. This asserts only what must hold on any machine, however
//! loaded: how close answers come to `max_time_ms` is a figure, measured by
//! `cargo bench --bench lateness`.

use crate::common;

use std::time::{Duration, Instant};

use tafl::search::{Engine, EngineConfig, Level, Limits};

use common::random_games::{Lcg, all_variants, random_games};

#[test]
fn every_search_answers_before_the_deadline() {
    let engine = Engine::new(EngineConfig {
        hash_mb: 4,
        ..EngineConfig::default()
    });
    let mut rng = Lcg(3);
    let max_time = Duration::from_millis(20);
    // Fifty times the budget: a search that ignored its budget would run into it.
    let timeout = max_time * 50;
    let mut searches = 0;
    for variant in all_variants() {
        for game in random_games(variant, 23, 60, &mut rng) {
            let started = Instant::now();
            let deadline = started + timeout;
            let limits = Limits {
                max_time: Some(max_time),
                deadline: Some(deadline),
                ..Limits::default()
            };
            let report = engine
                .search(&game, &limits, Level::STRONGEST, 0)
                .unwrap_or_else(|| panic!("no answer in {}", game.position()));
            let answered = Instant::now();
            assert!(report.depth >= 1);
            assert!(
                answered < deadline,
                "answered {:?} after the start, past the {timeout:?} deadline, in {}",
                answered - started,
                game.position()
            );
            searches += 1;
        }
    }
    assert!(searches >= 200);
}
