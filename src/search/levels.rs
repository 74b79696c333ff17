//! Strength levels 1 (beginner) ..= 10 (full strength).
//!
//! Every level searches with the same engine and the same evaluation. Lower
//! levels are weaker by three knobs: a shallower depth cap, a node cap (which
//! also keeps them fast and deterministic), and noise added to every static
//! score: a pseudo-random number in ±`noise`, drawn from the position's hash
//! and the request's seed, so the same request with the same seed always gets
//! the same move, while another seed plays differently. Noise never touches
//! won or lost scores and every level searches at least two plies, so no level
//! misses a win in one or leaves the king to be taken (or to escape) in one
//! move.
//!
//! | level | depth cap | node cap | noise (± attacker units/100) | roughly |
//! |---|---|---|---|---|
//! | 1 | 2 | 3,000 | 600 | moves almost at random among the non-losing |
//! | 2 | 2 | 6,000 | 350 | sees captures, little else |
//! | 3 | 2 | 10,000 | 200 | |
//! | 4 | 3 | 20,000 | 150 | |
//! | 5 | 3 | 40,000 | 100 | club player |
//! | 6 | 4 | 80,000 | 60 | |
//! | 7 | 4 | 160,000 | 35 | |
//! | 8 | 5 | 350,000 | 20 | |
//! | 9 | 6 | 800,000 | 10 | strong |
//! | 10 | none | none (1 s without limits) | 0 | full strength, time-bound |
//!
//! Measured with `tafl match` (A's score, 95% interval; both colours from the
//! standard start and seeded openings; a shared, loaded 2-core machine):
//!
//! | match | variant | games | A's score | Elo A − B |
//! |---|---|---|---|---|
//! | 4 vs 1 | Copenhagen 11 | 20 | 82.5% ± 14.7% | +269 (+129 .. +616) |
//! | 7 vs 4 | Copenhagen 11 | 20 | 77.5% ± 15.0% | +215 (+88 .. +437) |
//! | 7 vs 4 | Tablut 9 | 20 | 72.5% ± 19.4% | +168 (+21 .. +423) |
//! | 7 vs 4 | Fetlar 11 | 20 | 67.5% ± 10.7% | +127 (+47 .. +222) |
//! | 7 vs 4 | Copenhagen 13 | 10 | 90.0% ± 13.1% | +382 (+209 .. +798) |
//! | 8 vs 6 | Copenhagen 11 | 10 | 60.0% ± 28.5% | +70 (−135 .. +354) |
//! | 10 (100 ms/move) vs 7 | Copenhagen 11 | 60 (4 runs) | 56.7% | about +45, not yet significant |
//!
//! Level 10 at 100 ms a move reaches only a ply or two deeper than level 7
//! on this machine; in every match most wins are the defenders' (attackers at
//! these depths lose to double threats and exit forts), so a stronger player
//! gains mainly by holding as the attackers.

use std::time::Duration;

use super::limits::Limits;

/// A strength level, 1 (beginner) ..= 10 (full strength).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Level(u8);

/// What a level does, for the search.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LevelSettings {
    pub max_depth: Option<u32>,
    pub max_nodes: Option<u64>,
    pub noise: i32,
    /// The time spent when the caller gives no bound at all.
    pub default_time: Duration,
}

const TABLE: [(u32, u64, i32); 9] = [
    (2, 3_000, 600),
    (2, 6_000, 350),
    (2, 10_000, 200),
    (3, 20_000, 150),
    (3, 40_000, 100),
    (4, 80_000, 60),
    (4, 160_000, 35),
    (5, 350_000, 20),
    (6, 800_000, 10),
];

/// Full strength's own budget when a request gives no bound.
const STRONGEST_DEFAULT_TIME: Duration = Duration::from_millis(1000);

impl Level {
    pub const WEAKEST: Level = Level(1);
    pub const STRONGEST: Level = Level(10);

    /// `None` outside 1..=10.
    pub fn new(level: u32) -> Option<Level> {
        (1..=10).contains(&level).then_some(Level(level as u8))
    }

    pub fn get(self) -> u32 {
        self.0 as u32
    }

    pub(crate) fn settings(self) -> LevelSettings {
        match self.0 {
            1..=9 => {
                let (depth, nodes, noise) = TABLE[self.0 as usize - 1];
                LevelSettings {
                    max_depth: Some(depth),
                    max_nodes: Some(nodes),
                    noise,
                    default_time: STRONGEST_DEFAULT_TIME,
                }
            }
            _ => LevelSettings {
                max_depth: None,
                max_nodes: None,
                noise: 0,
                default_time: STRONGEST_DEFAULT_TIME,
            },
        }
    }

    /// The request's limits combined with the level's own: the tightest wins; with no bound at all
    /// the level's default time applies.
    pub(crate) fn limits(self, requested: &Limits) -> Limits {
        let settings = self.settings();
        let own = Limits {
            max_depth: settings.max_depth,
            max_nodes: settings.max_nodes,
            max_time: None,
            deadline: None,
        };
        let mut limits = requested.tightest(&own);
        if requested.is_unbounded() && settings.max_depth.is_none() {
            limits.max_time = Some(settings.default_time);
        }
        limits
    }
}

impl Default for Level {
    fn default() -> Level {
        Level::STRONGEST
    }
}

impl std::fmt::Display for Level {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}
