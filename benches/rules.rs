//! Move generation and perft speed, on 9×9, 11×11 and 13×13, from the
//! standard starts and from middlegame positions; and, in the same run, the
//! slow reference move generator of the tests as a baseline, so the figures
//! read as ratios on a shared, noisy machine.
//!
//! `cargo bench --bench rules`; the perft groups report leaves per second.

// The tests' shared helpers (the slow reference engine among them).
#[path = "../tests/common/mod.rs"]
mod common;

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

fn sizes() -> [BoardSize; 3] {
    [BoardSize::Nine, BoardSize::Eleven, BoardSize::Thirteen]
}

fn move_generation(c: &mut Criterion) {
    let mut group = c.benchmark_group("legal_moves");
    for size in sizes() {
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

fn perft_leaves(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    for (size, depth) in [
        (BoardSize::Nine, 4),
        (BoardSize::Eleven, 4),
        (BoardSize::Thirteen, 3),
    ] {
        let start = Position::start(Variant::new(Rules::Copenhagen, size));
        group.throughput(Throughput::Elements(perft(&start, depth)));
        group.bench_function(format!("{size} start depth {depth}"), |b| {
            b.iter(|| perft(black_box(&start), depth))
        });
    }
    for size in sizes() {
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

criterion_group!(benches, move_generation, perft_leaves, reference_baseline);
criterion_main!(benches);
