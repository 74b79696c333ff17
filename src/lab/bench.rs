//! The bench: a fixed set of positions searched to a fixed depth (`tafl bench`).
//!
//! The total node count is the search's fingerprint: any change to search or
//! evaluation that changes the tree changes it. State it in the commit message
//! of every such change; nodes/second shows speed regressions.
//!
//! The latency positions (`tafl bench --levels`) are where each level's
//! answer time is measured: middlegames of real Copenhagen 11×11 games and
//! 13×13 openings, the two boards the ladder is measured on.

use super::matchplay::Openings;
use crate::lab::GameRecord;
use crate::rules::{BoardSize, Game, Rules, Variant};

/// The depth every bench position is searched to.
pub const BENCH_DEPTH: u32 = 5;

/// The bench positions: variant, then moves from its start (real Copenhagen games and short
/// openings elsewhere).
const POSITIONS: &[(Rules, u32, &str)] = &[
    (Rules::Copenhagen, 11, ""),
    (
        Rules::Copenhagen,
        11,
        "h1-h3 f4-i4 g1-i1 g5-g3 h3-i3 f5-i5 d1-d3 g3-g2 f2-c2 g2-i2xi3 j6-j2 f6-f3 k4-k3 g6-g1",
    ),
    (
        Rules::Copenhagen,
        11,
        "d1-d3 f8-i8 j6-j9 e7-e10 j9-e9xe10 d6-d9 f10-f9 g7-g10 e9-e10 h6-h9 k8-j8 g6-g9 k6-i6 f6-h6",
    ),
    (
        Rules::Copenhagen,
        11,
        "d1-d3 e5-c5 a4-c4 e7-e9 a8-a9 f8-f9 h11-h9 d6-c6 d11-d6xc6 c5-c6xd6 d3-d6xc6 e6-e3 a5-a3 f7-b7 c4-c7xb7 g5-i5 k8-f8xf9 e9-f9 f8-i8 g7-g8",
    ),
    (Rules::Copenhagen, 13, ""),
    (Rules::Copenhagen, 13, "d1-d3 g5-c5 m6-k6 j7-j11"),
    (Rules::Fetlar, 11, ""),
    (Rules::Fetlar, 11, "d1-d3 e5-c5 a4-c4 e7-e9"),
    (Rules::Tablut, 9, ""),
    (Rules::Tablut, 9, "d1-d3 e4-h4 a4-b4 c5-c2"),
    (Rules::Copenhagen, 9, ""),
];

/// The bench's games, each at its position.
///
/// # Panics
/// Never: the positions are fixed legal games (a test replays them).
pub fn positions() -> Vec<Game> {
    POSITIONS
        .iter()
        .map(|&(rules, size, moves)| {
            let size = BoardSize::new(size).expect("bench sizes are 9, 11 or 13");
            let mut game = Game::new(Variant::new(rules, size));
            for text in moves.split_whitespace() {
                game.play(text)
                    .expect("the bench positions are legal games");
            }
            game
        })
        .collect()
}

/// Latency positions of each kind: real 11×11 middlegames, then 13×13 openings.
pub const LATENCY_POSITIONS_EACH: usize = 10;

/// The plies of a real game the `k`-th latency middlegame is taken at: 10, 13, .., 37, where
/// searches are slowest (the board still full, the king's lines opening).
fn latency_ply(k: usize) -> usize {
    10 + 3 * k
}

/// The latency positions: for k in 0..10, the next real game of `records` (after the one
/// taken for k − 1) still going at ply `10 + 3k` by legal moves, at that ply; then 13×13 Copenhagen's seeded
/// random openings 1..=10 (2 to 4 plies from the start, as `tafl match` plays them). Fewer
/// real middlegames when `records` has fewer such games.
#[must_use]
pub fn latency_positions(records: &[GameRecord]) -> Vec<Game> {
    let copenhagen = Variant::standard(Rules::Copenhagen);
    let mut games = records.iter();
    let mut positions = Vec::with_capacity(2 * LATENCY_POSITIONS_EACH);
    for k in 0..LATENCY_POSITIONS_EACH {
        let plies = latency_ply(k);
        let found = games.by_ref().find_map(|record| {
            let mut game = Game::new(copenhagen);
            for text in record.moves.get(..plies)? {
                game.play(text).ok()?;
            }
            (!game.status().is_over()).then_some(game)
        });
        positions.extend(found);
    }
    let thirteen = Openings::random(Variant::new(Rules::Copenhagen, BoardSize::Thirteen));
    positions.extend((1..=LATENCY_POSITIONS_EACH as u32).map(|n| thirteen.opening(n).0));
    positions
}

#[cfg(test)]
mod tests {
    use crate::rules::Variant;

    #[test]
    fn the_latency_positions_are_real_middlegames_and_13x13_openings() {
        let positions = super::latency_positions(&crate::lab::real_games());
        assert_eq!(positions.len(), 2 * super::LATENCY_POSITIONS_EACH);
        let (real, thirteen) = positions.split_at(super::LATENCY_POSITIONS_EACH);
        for (k, game) in real.iter().enumerate() {
            assert_eq!(game.ply(), super::latency_ply(k));
            assert_eq!(
                game.position().variant(),
                Variant::standard(crate::rules::Rules::Copenhagen)
            );
        }
        assert!(
            thirteen
                .iter()
                .all(|game| game.position().variant().size.get() == 13)
        );
        assert!(positions.iter().all(|game| !game.status().is_over()));
    }

    #[test]
    fn every_bench_position_replays_and_goes_on() {
        let games = super::positions();
        assert_eq!(games.len(), super::POSITIONS.len());
        assert!(games.iter().all(|game| !game.status().is_over()));
    }
}
