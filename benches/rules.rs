//! Move generation and perft speed, on 9×9, 11×11 and 13×13, from the
//! standard starts and from middlegame positions; and, in the same run, the
//! slow reference move generator of the tests as a baseline, so the figures
//! read as ratios on a shared, noisy machine. The moves that capture are
//! timed beside the slow way of finding them (every legal move played).
//!
//! `cargo bench --bench rules`; the perft groups report leaves per second.

use common::captures::captures_by_playing;
use common::reference;

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use tafl::rules::{BoardSize, Game, Position, Rules, Variant, perft};

const REAL_GAMES: &str = include_str!("../tests/data/copenhagen-games.csv");

/// Middlegame positions: 11×11 ones from the real games (after 30 plies),
/// 9×9 and 13×13 ones from fixed pseudo-random play.
fn middlegames(size: BoardSize) -> Vec<Position> {
    if size == BoardSize::Eleven {
        return REAL_GAMES
            .lines()
            .filter_map(|line| {
                let mut game = Game::new(Variant::standard(Rules::Copenhagen));
                for text in line.split(',').next()?.split_whitespace().take(30) {
                    game.play(text).ok()?;
                }
                (game.ply() == 30 && !game.status().is_over()).then(|| *game.position())
            })
            .take(8)
            .collect();
    }
    let mut rng = reference::Rng::new(size.get().into());
    let mut positions = Vec::new();
    while positions.len() < 8 {
        let mut game = Game::new(Variant::new(Rules::Copenhagen, size));
        for _ in 0..30 {
            let moves = game.position().legal_moves();
            if moves.is_empty() {
                break;
            }
            let mv = moves[rng.next() as usize % moves.len()];
            game.play_move(mv).expect("a generated move");
        }
        if !game.status().is_over() {
            positions.push(*game.position());
        }
    }
    positions
}

fn move_generation(c: &mut Criterion) {
    let mut group = c.benchmark_group("legal_moves");
    for size in BoardSize::ALL {
        let mut positions = vec![Position::start(Variant::new(Rules::Copenhagen, size))];
        positions.extend(middlegames(size));
        let moves: u64 = positions.iter().map(|p| p.legal_moves().len() as u64).sum();
        group.throughput(Throughput::Elements(moves));
        group.bench_function(format!("{size} start+middlegames"), |b| {
            b.iter(|| {
                positions
                    .iter()
                    .map(|p| black_box(p).legal_moves().len())
                    .sum::<usize>()
            });
        });
    }
    group.finish();
}

/// The moves that capture, as the search's leaves ask for them, against
/// the baseline of playing every legal move and keeping those that capture.
fn capture_generation(c: &mut Criterion) {
    let mut group = c.benchmark_group("capturing_moves");
    for size in BoardSize::ALL {
        let positions = middlegames(size);
        group.throughput(Throughput::Elements(positions.len() as u64));
        group.bench_function(format!("{size} middlegames"), |b| {
            b.iter(|| {
                positions
                    .iter()
                    .map(|p| black_box(p).capturing_moves().len())
                    .sum::<usize>()
            });
        });
        group.bench_function(format!("{size} middlegames, moves played"), |b| {
            b.iter(|| {
                positions
                    .iter()
                    .map(|p| captures_by_playing(black_box(p)).len())
                    .sum::<usize>()
            });
        });
    }
    group.finish();
}

fn perft_leaves(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    for rules in [Rules::Copenhagen, Rules::Fetlar, Rules::Tablut] {
        for (size, depth) in [
            (BoardSize::Nine, 4),
            (BoardSize::Eleven, 4),
            (BoardSize::Thirteen, 3),
        ] {
            let variant = Variant::new(rules, size);
            let start = Position::start(variant);
            group.throughput(Throughput::Elements(perft(&start, depth)));
            group.bench_function(format!("{variant} start depth {depth}"), |b| {
                b.iter(|| perft(black_box(&start), depth))
            });
        }
    }
    for size in BoardSize::ALL {
        let positions = middlegames(size);
        group.throughput(Throughput::Elements(
            positions.iter().map(|p| perft(p, 3)).sum(),
        ));
        group.bench_function(format!("{size} middlegames depth 3"), |b| {
            b.iter(|| {
                positions
                    .iter()
                    .map(|p| perft(black_box(p), 3))
                    .sum::<u64>()
            });
        });
    }
    group.finish();
}

/// The baseline: the tests' plain-grid reference engine, same positions.
fn reference_baseline(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft reference");
    group.sample_size(10);
    let start = Position::start(Variant::standard(Rules::Copenhagen));
    let text = start.to_string();
    for depth in [2, 3] {
        group.throughput(Throughput::Elements(perft(&start, depth)));
        group.bench_function(format!("11×11 start depth {depth}, reference"), |b| {
            b.iter(|| reference::perft(black_box(&text), "copenhagen", depth));
        });
        group.bench_function(format!("11×11 start depth {depth}, engine"), |b| {
            b.iter(|| perft(black_box(&start), depth))
        });
    }
    group.finish();
}

/// Replaying games from their move texts, as every service call does: the
/// first 100 plies of each real game long enough (per game), and a legal
/// 4,096-ply Tablut game that only shuffles back and forth (no capture ever
/// clears its repetition record).
fn replay(c: &mut Criterion) {
    let mut group = c.benchmark_group("replay");
    let games: Vec<Vec<&str>> = REAL_GAMES
        .lines()
        .filter_map(|line| {
            let moves: Vec<&str> = line.split(',').next()?.split_whitespace().collect();
            let mut game = Game::new(Variant::standard(Rules::Copenhagen));
            for text in moves.iter().take(101) {
                game.play(text).ok()?;
            }
            (game.ply() == 101 && !game.status().is_over()).then(|| moves[..100].to_vec())
        })
        .take(16)
        .collect();
    group.throughput(Throughput::Elements(games.len() as u64));
    group.bench_function("100 plies of a real 11×11 game", |b| {
        b.iter(|| {
            for moves in &games {
                let mut game = Game::new(Variant::standard(Rules::Copenhagen));
                game.play_all(moves.iter().map(|text| black_box(*text)))
                    .expect("recorded moves");
                black_box(game.repetitions());
            }
        });
    });
    group.bench_function("100 plies of a real 11×11 game, move by move", |b| {
        b.iter(|| {
            for moves in &games {
                let mut game = Game::new(Variant::standard(Rules::Copenhagen));
                for text in moves {
                    game.play(black_box(text)).expect("a recorded move");
                }
                black_box(game.repetitions());
            }
        });
    });
    let shuffle: Vec<&str> = ["d1-d2", "e3-d3", "d2-d1", "d3-e3"]
        .into_iter()
        .cycle()
        .take(4096)
        .collect();
    group.throughput(Throughput::Elements(1));
    group.bench_function("4,096-ply Tablut shuffle", |b| {
        b.iter(|| {
            let mut game = Game::new(Variant::standard(Rules::Tablut));
            game.play_all(shuffle.iter().map(|text| black_box(*text)))
                .expect("a legal shuffle");
            black_box(game.repetitions())
        });
    });
    group.finish();
}

criterion_group!(
    benches,
    move_generation,
    capture_generation,
    perft_leaves,
    reference_baseline,
    replay
);
criterion_main!(benches);
