//! Perft numbers pinned in tests/data/perft.txt: the engine's counts, the
//! reference's own shallow counts, and the standard starts of every board;
//! and the bulk count of the last ply against the listed moves.

use crate::common;

use std::time::Instant;

use common::reference::{self, Rng};
use tafl::rules::{BoardSize, Position, PositionText, Rules, Variant, perft};

struct PerftLine {
    rules: String,
    size: u32,
    depth: u32,
    count: u64,
}

fn perft_table() -> Vec<PerftLine> {
    let text = include_str!("../data/perft.txt");
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            assert_eq!(fields.len(), 4, "perft.txt: {line:?}");
            PerftLine {
                rules: fields[0].to_string(),
                size: fields[1].parse().expect("a size"),
                depth: fields[2].parse().expect("a depth"),
                count: fields[3].parse().expect("a count"),
            }
        })
        .collect()
}

fn variant(rules: &str, size: u32) -> Variant {
    let rules: Rules = rules.parse().expect("a ruleset");
    Variant::new(rules, BoardSize::new(size).expect("a board size"))
}

/// Checks the engine against every line counting at most `max_count` leaves.
fn check_engine_perft(max_count: u64) {
    let mut failures = Vec::new();
    for line in perft_table()
        .into_iter()
        .filter(|line| line.count <= max_count)
    {
        let start = Position::start(variant(&line.rules, line.size));
        let clock = Instant::now();
        let count = perft(&start, line.depth);
        println!(
            "{} {} {} {count} ({} ms)",
            line.rules,
            line.size,
            line.depth,
            clock.elapsed().as_millis()
        );
        if count != line.count {
            failures.push(format!(
                "{} {}x{} depth {}: engine {count}, expected {}",
                line.rules, line.size, line.size, line.depth, line.count
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "perft mismatches:\n{}",
        failures.join("\n")
    );
}

/// Depth 4 on 9x9 and 11x11 takes about 1.5 s in all with `[profile.test]
/// opt-level = 3`; 13x13 depth 4 (430 million leaves each) is left to the
/// ignored test below.
#[test]
fn engine_perft_matches_the_table() {
    check_engine_perft(100_000_000);
}

/// Every line of the table, however slow (`cargo test --release -- --ignored`).
#[test]
#[ignore = "slow: every depth-4 line"]
fn engine_perft_matches_the_whole_table() {
    check_engine_perft(u64::MAX);
}

/// The table's shallow lines are the reference's own numbers; this keeps
/// the two files honest with each other.
#[test]
fn reference_perft_matches_the_table_to_depth_2() {
    for line in perft_table().into_iter().filter(|line| line.depth <= 2) {
        let start = reference::start_text(line.size as usize);
        assert_eq!(
            reference::perft(&start, &line.rules, line.depth),
            line.count,
            "{} {} {}",
            line.rules,
            line.size,
            line.depth
        );
    }
}

#[test]
#[ignore = "slow: the reference at depth 3 and 4"]
fn reference_perft_matches_the_whole_table() {
    for line in perft_table() {
        let start = reference::start_text(line.size as usize);
        assert_eq!(
            reference::perft(&start, &line.rules, line.depth),
            line.count,
            "{} {} {}",
            line.rules,
            line.size,
            line.depth
        );
    }
}

#[test]
fn engine_start_positions_match_the_boards_table() {
    for rules in ["copenhagen", "fetlar", "tablut"] {
        for size in [9, 11, 13] {
            let start = Position::start(variant(rules, size));
            assert_eq!(
                start.to_string(),
                reference::start_text(size as usize),
                "{rules} {size}"
            );
        }
    }
}

/// Perft that lists the moves at the last ply instead of counting them in bulk.
fn perft_by_listing(position: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    position
        .legal_moves()
        .iter()
        .map(|&mv| {
            let mut child = *position;
            child.play_unchecked(mv);
            perft_by_listing(&child, depth - 1)
        })
        .sum()
}

/// The bulk count of the last ply (all soldiers' moves at once, by
/// direction) equals the listed moves' number: on all nine variants, from
/// the starts, from random midgames and from random custom setups (kings on
/// the edge, empty thrones, crowded corners), at every node of a small tree.
#[test]
fn bulk_move_count_matches_the_listed_moves() {
    let mut rng = Rng::new(13);
    let mut positions = 0;
    for rules in ["copenhagen", "fetlar", "tablut"] {
        for size in [9, 11, 13] {
            let variant = variant(rules, size as u32);
            let start = Position::start(variant);
            assert_eq!(
                perft(&start, 3),
                perft_by_listing(&start, 3),
                "{variant} start"
            );
            let mut setups = vec![start];
            for _ in 0..12 {
                let text: PositionText = reference::random_setup(&mut rng, size)
                    .parse()
                    .expect("a setup");
                if let Ok(position) = Position::from_setup(&text, variant) {
                    setups.push(position);
                }
            }
            for setup in setups {
                let mut position = setup;
                for ply in 0..60 {
                    let moves = position.legal_moves();
                    assert_eq!(
                        position.count_legal_moves(),
                        moves.len() as u64,
                        "{variant} {position}"
                    );
                    if ply % 6 == 0 {
                        assert_eq!(
                            perft(&position, 2),
                            perft_by_listing(&position, 2),
                            "{variant} {position}"
                        );
                    }
                    positions += 1;
                    if moves.is_empty() {
                        break;
                    }
                    position.play_unchecked(moves[rng.next() as usize % moves.len()]);
                }
            }
        }
    }
    assert!(positions > 3_000, "only {positions} positions compared");
}
