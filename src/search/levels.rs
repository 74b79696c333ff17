//! Strength levels 1 (beginner) ..= 10 (full strength).
//!
//! Every level searches with the same engine and the same evaluation. Lower
//! levels are weaker by design: each one searches a ply shallower than the
//! next, or (levels 2 and 3) as deep as the next but with more noise added to
//! every static score: a pseudo-random number in ±`noise`, drawn from the position's
//! hash and the request's seed, so the same request with the same seed always
//! gets the same move while another seed plays differently. A node cap keeps
//! each level's time bounded in wide-open positions. Depth, not noise, is what
//! separates players in tafl (a double threat or an exit fort shows up a ply
//! or two ahead), so the ladder climbs mostly by plies. Noise never touches won
//! or lost scores, and every level below 10 refuses a move that lets the
//! opponent win at once when another move does not (`guard_against_blunder`),
//! so no level leaves the king to be taken, or to escape, in one move.
//!
//! | level | depth | node cap | noise (± hundredths of an attacker) | roughly |
//! |---|---|---|---|---|
//! | 1 | 1 | 20,000 | 400 | a beginner: legal, never hangs the game in one, little else |
//! | 2 | 2 | 20,000 | 400 | sees captures and the replies to its move |
//! | 3 | 2 | 20,000 | 100 | |
//! | 4 | 2 | 20,000 | 20 | |
//! | 5 | 3 | 50,000 | 20 | a club player |
//! | 6 | 4 | 100,000 | 20 | |
//! | 7 | 5 | 250,000 | 10 | |
//! | 8 | 6 | 400,000 | 10 | strong |
//! | 9 | 7 | 800,000 | 5 | |
//! | 10 | as deep as time allows | none | 0 | full strength: 1 s a move unless the request bounds it |
//!
//! What each step is worth, measured with `tafl match` (docs/ai.md has the table).

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
}

/// Depth, node cap and noise of levels 1..=9 (the table above).
const TABLE: [(u32, u64, i32); 9] = [
    (1, 20_000, 400),
    (2, 20_000, 400),
    (2, 20_000, 100),
    (2, 20_000, 20),
    (3, 50_000, 20),
    (4, 100_000, 20),
    (5, 250_000, 10),
    (6, 400_000, 10),
    (7, 800_000, 5),
];

/// Full strength's own budget when a request gives no bound (the other levels' depth bounds them).
const STRONGEST_DEFAULT_TIME: Duration = Duration::from_millis(1000);

impl Level {
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
                }
            }
            _ => LevelSettings {
                max_depth: None,
                max_nodes: None,
                noise: 0,
            },
        }
    }

    /// The request's limits combined with the level's own: the tightest wins; with no bound at all
    /// full strength gets its default time.
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
            limits.max_time = Some(STRONGEST_DEFAULT_TIME);
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
