//! Puzzles mined from the real games at the default budget (5,000 nodes a
//! position, solutions of up to three solver moves), on one thread: every
//! 20th game of tests/data/copenhagen-games.csv (88 games; `PUZZLE_BENCH_EVERY`
//! sets another step, 1 for all 1,752). Prints the puzzles found per game,
//! the share of games giving at least one, and the time per game (mean,
//! median, 90th percentile) and per position.
//!
//! `cargo bench --bench puzzles`

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use tafl::lab::real_games;
use tafl::rules::{Game, Rules, Variant};
use tafl::search::{Control, Engine, EngineConfig, Limits, PuzzleBudget, find_puzzles};

/// Every this many games is mined, unless `PUZZLE_BENCH_EVERY` says otherwise.
const EVERY: usize = 20;

fn main() {
    let every = std::env::var("PUZZLE_BENCH_EVERY")
        .ok()
        .and_then(|step| step.parse().ok())
        .unwrap_or(EVERY)
        .max(1);
    let engine = Engine::new(EngineConfig {
        hash_mb: 16,
        ..EngineConfig::default()
    });
    let budget = PuzzleBudget::new(&Limits::default(), 0);
    let stop = AtomicBool::new(false);
    let (mut positions, mut puzzles, mut with_puzzle) = (0, 0, 0);
    let mut times: Vec<Duration> = Vec::new();
    for record in real_games().iter().step_by(every) {
        let start = Game::new(Variant::standard(Rules::Copenhagen));
        let mut game = start.clone();
        let moves: Vec<_> = record
            .moves
            .iter()
            .map_while(|text| {
                let played = (!game.status().is_over()).then(|| game.play(text).ok())??;
                Some(played.played)
            })
            .collect();
        let started = Instant::now();
        let mined = find_puzzles(&engine, &start, &moves, &budget, Control::new(&stop))
            .expect("legal plies");
        times.push(started.elapsed());
        positions += mined.positions;
        puzzles += mined.puzzles.len();
        with_puzzle += usize::from(!mined.puzzles.is_empty());
    }
    let games = times.len();
    let total: Duration = times.iter().sum();
    times.sort_unstable();
    let at = |share: f64| times[((games - 1) as f64 * share).round() as usize];
    println!(
        "puzzles: every {every}th real game, {games} games, {positions} positions, default budget"
    );
    println!(
        "  {puzzles} puzzles: {:.2} a game; {with_puzzle} games ({:.1}%) give at least one",
        puzzles as f64 / games as f64,
        100.0 * with_puzzle as f64 / games as f64
    );
    println!(
        "  time a game: mean {:.2} s, median {:.2} s, p90 {:.2} s; {:.1} ms a position",
        total.as_secs_f64() / games as f64,
        at(0.5).as_secs_f64(),
        at(0.9).as_secs_f64(),
        total.as_secs_f64() * 1000.0 / positions.max(1) as f64
    );
}
