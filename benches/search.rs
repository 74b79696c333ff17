//! Search speed: the static evaluation per position, and the `tafl bench`
//! positions searched to a fixed depth, reported as nodes per second.
//!
//! `cargo bench --bench search`. The node count of the fixed-depth search is
//! the engine's fingerprint (`tafl bench` prints it); this measures time.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use tafl::lab::bench::positions;
use tafl::search::{Engine, EngineConfig, Level, Limits, evaluate};

fn evaluation(c: &mut Criterion) {
    let games = positions();
    let mut group = c.benchmark_group("evaluate");
    group.throughput(Throughput::Elements(games.len() as u64));
    group.bench_function("bench positions", |b| {
        b.iter(|| {
            games
                .iter()
                .map(|game| evaluate(black_box(game.position())))
                .sum::<i32>()
        })
    });
    group.finish();
}

fn fixed_depth(c: &mut Criterion) {
    let games = positions();
    let engine = Engine::new(EngineConfig {
        hash_mb: 16,
        ..EngineConfig::default()
    });
    let limits = Limits {
        max_depth: Some(4),
        ..Limits::default()
    };
    let nodes: u64 = games
        .iter()
        .filter_map(|game| engine.search(game, &limits, Level::STRONGEST, 0))
        .map(|report| report.nodes)
        .sum();
    let mut group = c.benchmark_group("search");
    group.sample_size(10);
    group.throughput(Throughput::Elements(nodes));
    group.bench_function("bench positions depth 4 (nodes/s)", |b| {
        b.iter(|| {
            games
                .iter()
                .filter_map(|game| engine.search(black_box(game), &limits, Level::STRONGEST, 0))
                .map(|report| report.nodes)
                .sum::<u64>()
        })
    });
    group.finish();
}

criterion_group!(benches, evaluation, fixed_depth);
criterion_main!(benches);
