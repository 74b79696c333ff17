//! The AI: tactics, legality on every variant, time limits, clocks, levels.
//!
//! This is the `search` test binary: the deadline check of timed searches,
//! the searches on a game clock and the independent proof of the published
//! puzzles are its modules in tests/search/.

// The shared helpers (tests/common/), as `crate::common` for the modules below too.
pub use common;

/// In tests/search/.
mod search {
    mod clock;
    mod puzzles;
    mod timing;
}

use std::time::{Duration, Instant};

use tafl::rules::{BoardSize, Game, Move, Position, PositionText, Rules, Side, Status, Variant};
use tafl::search::{Engine, EngineConfig, Level, Limits, Score, SearchReport, evaluate};

const WIN: i32 = Score::WON.as_i32();

fn engine() -> Engine {
    Engine::new(EngineConfig {
        hash_mb: 4,
        ..EngineConfig::default()
    })
}

fn game_from(rules: Rules, text: &str) -> Game {
    let setup: PositionText = text.parse().expect("test position text");
    let variant = Variant::new(rules, setup.size());
    Game::from_position(Position::from_setup(&setup, variant).expect("test position"))
}

fn search(game: &Game, limits: Limits) -> SearchReport {
    engine()
        .search(game, &limits, Level::STRONGEST, 0)
        .expect("no deadline: depth 1 completes")
}

fn depth(plies: u32) -> Limits {
    Limits {
        max_depth: Some(plies),
        ..Limits::default()
    }
}

fn mv(text: &str) -> Move {
    let (from, to) = text.split_once('-').expect("a-b");
    Move {
        from: from.parse().expect("square"),
        to: to.parse().expect("square"),
    }
}

use common::random_games::{Lcg, all_variants, random_games};

#[test]
fn finds_a_king_escape_in_one() {
    // Copenhagen: king on d1, a1 open, k1 shut by h1.
    let game = game_from(
        Rules::Copenhagen,
        "/11/11/11/11/11/4t6/11/11/11/11/3K3t3/ d",
    );
    let report = search(&game, depth(3));
    assert_eq!(report.best_move, mv("d1-a1"));
    assert_eq!(report.score.as_i32(), WIN - 1);
    // Tablut, on 9x9: the corner escape.
    let game = game_from(Rules::Tablut, "/9/9/9/3t5/9/9/9/9/2K2t3/ d");
    let report = search(&game, depth(3));
    assert_eq!(report.best_move, mv("c1-a1"));
    assert_eq!(report.score.win_in(), Some(1));
}

#[test]
fn finds_a_double_threat_in_two() {
    // The king on e5 slides to a5 (a-file empty: a1 and a11 both open) or e1 (rank 1 empty); the attackers
    // can block only one line.
    let game = game_from(
        Rules::Copenhagen,
        "/11/5t3t1/11/8t2/11/11/11/4K6/11/11/11/ d",
    );
    let report = search(&game, depth(4));
    assert_eq!(
        report.score.win_in(),
        Some(3),
        "score {} pv {:?}",
        report.score,
        report.pv
    );
    let mut after = *game.position();
    after.play(report.best_move).expect("legal");
    assert_eq!(
        after
            .king()
            .expect("king")
            .file()
            .min(after.king().expect("king").rank()),
        0,
        "the king goes to the edge"
    );
}

#[test]
fn a_leaf_sees_the_kings_double_threat_coming() {
    // The position above with the attackers to move: whatever they play, the king slides to a fork
    // (a4, k4, e1 or e11, each with two open corner lines). A one-ply search ends on the defenders'
    // move, and its leaves look at the king's escape threats, so it already knows the game is lost.
    let game = game_from(
        Rules::Copenhagen,
        "/11/5t3t1/11/8t2/11/11/11/4K6/11/11/11/ a",
    );
    let report = search(&game, depth(1));
    assert!(
        report.score.loss_in().is_some(),
        "score {} pv {:?}",
        report.score,
        report.pv
    );
}

#[test]
fn blocks_a_one_move_escape() {
    // King on d1 with a1 open; the attackers (to move) must put a piece on b1 or c1.
    let game = game_from(
        Rules::Copenhagen,
        "/11/11/11/11/2t8/4t6/11/1t9/11/3t7/3K3t3/ a",
    );
    let report = search(&game, depth(4));
    assert!(
        ["b1", "c1"].contains(&report.best_move.to.to_string().as_str()),
        "played {}",
        report.best_move
    );
    assert!(report.score.loss_in().is_none(), "score {}", report.score);
}

#[test]
fn captures_the_king_when_it_can() {
    // King on c8 boxed by b8, d8, c9; c3-c7 closes the box.
    let game = game_from(
        Rules::Copenhagen,
        "/11/11/2t8/1tKt7/11/6T4/11/11/2t8/11/11/ a",
    );
    let report = search(&game, depth(3));
    assert_eq!(report.best_move, mv("c3-c7"));
    assert_eq!(report.score.win_in(), Some(1));
    // Tablut: the edge counts as a side, so three attackers take an edge king.
    let game = game_from(Rules::Tablut, "/9/9/9/9/9/9/9/2t6/1tK4t1/ a");
    let report = search(&game, depth(3));
    assert_eq!(report.best_move, mv("h1-d1"));
    assert_eq!(report.score.win_in(), Some(1));
}

#[test]
fn never_returns_an_illegal_move() {
    let engine = engine();
    let mut rng = Lcg(7);
    let mut searched = 0;
    for variant in all_variants() {
        for (index, game) in random_games(variant, 120, 120, &mut rng)
            .into_iter()
            .enumerate()
        {
            let limits = Limits {
                max_depth: Some(1 + (index % 2) as u32),
                max_nodes: Some(400),
                ..Limits::default()
            };
            let level = Level::new(1 + (index % 10) as u32).expect("level");
            let report = engine
                .search(&game, &limits, level, index as u64)
                .expect("no deadline");
            let legal = game.position().legal_moves();
            assert!(
                legal.contains(&report.best_move),
                "{} in {}",
                report.best_move,
                game.position()
            );
            assert_eq!(report.pv.first(), Some(&report.best_move));
            assert!(report.score.as_i32().abs() <= WIN);
            searched += 1;
        }
    }
    assert_eq!(searched, 9 * 120);
}

/// The classic evaluation and the engine's own (its networks on their boards) never score a
/// position as won or lost.
#[test]
fn static_evaluation_stays_in_bounds() {
    let engine = engine();
    let mut rng = Lcg(11);
    for variant in all_variants() {
        for game in random_games(variant, 60, 200, &mut rng) {
            let position = game.position();
            for score in [evaluate(position), engine.static_eval(position).as_i32()] {
                assert!(score.abs() < 900_000, "{score} for {position}");
            }
        }
    }
}

#[test]
fn a_past_deadline_gives_no_answer() {
    let game = Game::new(Variant::standard(Rules::Copenhagen));
    let limits = Limits {
        deadline: Some(Instant::now()),
        ..Limits::default()
    };
    assert!(
        engine()
            .search(&game, &limits, Level::STRONGEST, 0)
            .is_none()
    );
}

#[test]
fn depth_one_completes_past_max_time() {
    let game = Game::new(Variant::new(
        Rules::Copenhagen,
        BoardSize::new(13).expect("13"),
    ));
    let limits = Limits {
        max_time: Some(Duration::ZERO),
        ..Limits::default()
    };
    let report = engine()
        .search(&game, &limits, Level::STRONGEST, 0)
        .expect("depth 1 always completes");
    assert_eq!(report.depth, 1);
}

/// A search bound only by time thinks for at least nine tenths of it (it stops early only when the
/// next iteration would not finish and less than a tenth is left). A lower bound: a loaded machine
/// can only make it later, and the timing test bounds that.
#[test]
fn a_time_bound_search_uses_at_least_nine_tenths_of_its_time() {
    let max_time = Duration::from_millis(300);
    let mut games = vec![Game::new(Variant::standard(Rules::Copenhagen))];
    games.extend(random_games(
        Variant::standard(Rules::Copenhagen),
        3,
        20,
        &mut Lcg(9),
    ));
    for game in games {
        let limits = Limits {
            max_time: Some(max_time),
            ..Limits::default()
        };
        let started = Instant::now();
        let report = search(&game, limits);
        let elapsed = started.elapsed();
        if report.score.win_in().is_none() && report.score.loss_in().is_none() {
            assert!(elapsed * 10 >= max_time * 9, "{elapsed:?} of {max_time:?}");
        }
    }
}

#[test]
fn levels_are_deterministic_per_seed() {
    let mut rng = Lcg(5);
    let shared = engine();
    let mut compared = 0;
    for variant in [
        Variant::standard(Rules::Copenhagen),
        Variant::standard(Rules::Tablut),
    ] {
        for game in random_games(variant, 4, 30, &mut rng) {
            for level in 1..=9 {
                let level = Level::new(level).expect("level");
                let limits = Limits::default();
                let first = shared.search(&game, &limits, level, 42).expect("answer");
                // Another search in between must not change the next answer (tables are per search).
                shared.search(&game, &limits, level, 7).expect("answer");
                let again = shared.search(&game, &limits, level, 42).expect("answer");
                let fresh = engine().search(&game, &limits, level, 42).expect("answer");
                // A busy machine may make the level's time cap bind, and then time decides.
                let cap = level.time_cap().expect("levels 1-9 have one") * 9 / 10;
                if [&first, &again, &fresh].iter().any(|r| r.elapsed >= cap) {
                    continue;
                }
                compared += 1;
                for other in [&again, &fresh] {
                    assert_eq!(first.best_move, other.best_move, "level {level}");
                    assert_eq!(first.nodes, other.nodes, "level {level}");
                    assert_eq!(first.score, other.score, "level {level}");
                }
            }
        }
    }
    assert!(
        compared >= 40,
        "only {compared} of 72 searches within their time caps"
    );
}

#[test]
fn weak_levels_vary_with_the_seed() {
    let game = Game::new(Variant::standard(Rules::Copenhagen));
    let engine = engine();
    let level = Level::new(1).expect("level");
    let moves: std::collections::HashSet<Move> = (0..8)
        .map(|seed| {
            engine
                .search(&game, &Limits::default(), level, seed)
                .expect("answer")
                .best_move
        })
        .collect();
    assert!(moves.len() > 1, "level 1 always plays {moves:?}");
}

/// Full strength with a nonzero seed chooses among the root moves its search scores alike: seeds
/// part its games from the start on a node-bound search, the same seed (0, which asks for no
/// variety, too) repeats its move, and no seed trades a win.
#[test]
fn full_strength_varies_with_a_nonzero_seed_and_repeats_with_the_same() {
    let engine = engine();
    let limits = Limits {
        max_nodes: Some(20_000),
        ..Limits::default()
    };
    let search = |game: &Game, seed: u64| {
        engine
            .search(game, &limits, Level::STRONGEST, seed)
            .expect("no deadline")
    };
    let start = Game::new(Variant::standard(Rules::Copenhagen));
    let moves: std::collections::HashSet<Move> =
        (1..=8).map(|seed| search(&start, seed).best_move).collect();
    assert!(moves.len() > 1, "level 10 always plays {moves:?}");
    for seed in [0, 3] {
        let [first, again] = [search(&start, seed), search(&start, seed)];
        assert_eq!(
            (first.best_move, first.score, first.nodes),
            (again.best_move, again.score, again.nodes),
            "seed {seed}"
        );
    }
    let escape = game_from(
        Rules::Copenhagen,
        "/11/11/11/11/11/4t6/11/11/11/11/3K3t3/ d",
    );
    for seed in 0..8 {
        let report = search(&escape, seed);
        assert_eq!(report.best_move, mv("d1-a1"), "seed {seed}");
        assert_eq!(report.score.as_i32(), WIN - 1, "seed {seed}");
    }
}

/// Does playing `mv` let the opponent win at once?
fn allows_win_in_one(position: &Position, mv: Move) -> bool {
    let mut child = *position;
    child.play(mv).expect("legal");
    if child.status().is_over() {
        return false;
    }
    let opponent = child.side_to_move();
    child.legal_moves().iter().any(|&reply| {
        let mut grandchild = child;
        grandchild.play(reply).expect("legal");
        matches!(grandchild.status(), Status::Won { winner, .. } if winner == opponent)
    })
}

#[test]
fn weak_levels_do_not_hang_the_king() {
    let engine = engine();
    let mut rng = Lcg(13);
    let mut checked = 0;
    for variant in [
        Variant::standard(Rules::Copenhagen),
        Variant::standard(Rules::Tablut),
    ] {
        for (index, game) in random_games(variant, 60, 80, &mut rng)
            .into_iter()
            .enumerate()
        {
            let position = game.position();
            let moves = position.legal_moves();
            if moves.iter().all(|&mv| allows_win_in_one(position, mv)) {
                continue;
            }
            let level = Level::new(1 + (index % 3) as u32).expect("level");
            let report = engine
                .search(&game, &Limits::default(), level, index as u64)
                .expect("answer");
            assert!(
                !allows_win_in_one(position, report.best_move),
                "{} hangs in {}",
                report.best_move,
                position
            );
            checked += 1;
        }
    }
    assert!(checked > 50);
}

#[test]
fn evaluate_is_from_the_side_to_move() {
    // The king one step from an open corner is good for the defenders, whoever is to move.
    let defenders = game_from(
        Rules::Copenhagen,
        "/11/11/11/11/11/4t6/11/11/11/11/3K3t3/ d",
    );
    let attackers = game_from(
        Rules::Copenhagen,
        "/11/11/11/11/11/4t6/11/11/11/11/3K3t3/ a",
    );
    assert!(evaluate(defenders.position()) > 0);
    assert!(evaluate(attackers.position()) < 0);
    let _ = Side::Attackers;
}

#[test]
#[ignore = "a strength match: minutes"]
fn higher_levels_beat_lower_ones() {
    let engine = engine();
    let mut points = 0.0;
    let games = 8;
    for index in 0..games {
        let mut game = Game::new(Variant::standard(Rules::Copenhagen));
        let strong_side = if index % 2 == 0 {
            Side::Attackers
        } else {
            Side::Defenders
        };
        while !game.status().is_over() && game.ply() < 300 {
            let side = game.position().side_to_move();
            let level = Level::new(if side == strong_side { 6 } else { 1 }).expect("level");
            let report = engine
                .search(
                    &game,
                    &Limits::default(),
                    level,
                    index * 1000 + game.ply() as u64,
                )
                .expect("answer");
            game.play_move(report.best_move).expect("legal");
        }
        points += match game.status() {
            Status::Won { winner, .. } if winner == strong_side => 1.0,
            Status::Won { .. } => 0.0,
            _ => 0.5,
        };
    }
    println!("level 6 vs level 1: {points}/{games}");
    assert!(points > games as f64 / 2.0);
}
