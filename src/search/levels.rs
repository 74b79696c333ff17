//! Strength levels 1 (beginner) ..= 10 (full strength).
//!
//! Every level searches with the same engine and the same evaluation. Lower
//! levels are weaker by design: each one searches a ply shallower than the
//! next, or (levels 1 and 3) as deep as the next but with more noise added to
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
//! Level 10 adds no noise; with a nonzero seed it varies its games at the
//! root alone: each root move's score gets a bonus in 0..=`variety_margin`
//! drawn from the seed and the move, and the best total wins. So it never
//! plays a move its own search scores more than the margin below its best,
//! never for a won or lost score (those get no bonus), and what its search
//! stores for other searches carries no bonus (`alphabeta.rs`). Seed 0, the
//! contract's default, plays the best move, as level 10 always did.
//!
//! A time cap bounds every level's answer on a busy machine, where the same
//! depth and nodes take longer: no level thinks past its cap (depth 1 always
//! completes, as for any search), and each cap is at most the next level's,
//! level 9's 800 ms a fifth under level 10's second (room for a loaded
//! machine's late wake-ups), so no level is slower than the one above it. On a quiet machine the depth or the node cap stops the
//! search first in nearly every position, so levels 1–9 play the same move
//! for the same request there; a cap that binds (a loaded machine, or level
//! 9 in the slowest 13×13 positions) makes the move depend on the machine's
//! speed, as level 10's always does.
//!
//! | level | depth | node cap | time cap | noise (± hundredths of an attacker) | roughly |
//! |---|---|---|---|---|---|
//! | 1 | 1 | 20,000 | 100 ms | 400 | a beginner: legal, never hangs the game in one, little else |
//! | 2 | 1 | 20,000 | 100 ms | 200 | the same, half as erratic |
//! | 3 | 2 | 20,000 | 100 ms | 100 | sees the replies to its move |
//! | 4 | 2 | 20,000 | 100 ms | 60 | |
//! | 5 | 3 | 50,000 | 150 ms | 20 | a club player |
//! | 6 | 4 | 100,000 | 250 ms | 20 | |
//! | 7 | 5 | 250,000 | 400 ms | 10 | |
//! | 8 | 6 | 400,000 | 600 ms | 10 | strong |
//! | 9 | 7 | 800,000 | 800 ms | 5 | |
//! | 10 | as deep as time allows | none | none | 0 (a root bonus of 0..=5 with a nonzero seed) | full strength: 1 s a move unless the request bounds it |
//!
//! What each step is worth, measured with `tafl match` (docs/ai.md has the table).

use std::time::Duration;

use super::clock::TimeAllocation;
use super::limits::Limits;
use super::variation::Variation;

/// A strength level, 1 (beginner) ..= 10 (full strength).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Level(u8);

/// What a level does, for the search.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LevelSettings {
    pub max_depth: Option<u32>,
    pub max_nodes: Option<u64>,
    pub max_time: Option<Duration>,
    pub noise: i32,
    /// With a nonzero seed, the most a root move's score is raised by its seeded bonus (full
    /// strength's variety; 0: none).
    pub variety_margin: i32,
}

/// Full strength's variety margin, in hundredths of an attacker: a twentieth of an attacker,
/// the noise level 9 adds to every score, so it moves the choice only among root moves the
/// search cannot tell apart (even a margin of 1 parts 20 pairs of 20 from the start; 5 gives
/// the games more room to differ later, still far inside the evaluation's own error).
const VARIETY_MARGIN: i32 = 5;

/// Levels 1..=9: depth, node cap, time cap (ms) and noise (the table above).
const TABLE: [LevelSettings; 9] = [
    level(1, 20_000, 100, 400),
    level(1, 20_000, 100, 200),
    level(2, 20_000, 100, 100),
    level(2, 20_000, 100, 60),
    level(3, 50_000, 150, 20),
    level(4, 100_000, 250, 20),
    level(5, 250_000, 400, 10),
    level(6, 400_000, 600, 10),
    level(7, 800_000, 800, 5),
];

/// A row of [`TABLE`].
const fn level(depth: u32, nodes: u64, time_cap_ms: u64, noise: i32) -> LevelSettings {
    LevelSettings {
        max_depth: Some(depth),
        max_nodes: Some(nodes),
        max_time: Some(Duration::from_millis(time_cap_ms)),
        noise,
        variety_margin: 0,
    }
}

/// A search's bounds at a level, worked out once ([`Level::limits`]): the request's limits with the
/// level's own applied. A search is given them as they are, and plays with the level's noise.
#[derive(Clone, Debug)]
pub struct LevelLimits {
    level: Level,
    limits: Limits,
}

impl LevelLimits {
    pub fn level(&self) -> Level {
        self.level
    }

    /// What bounds the search.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// These limits within a clock's allocation: the clock only ever shortens them, so a level
    /// never thinks past its own budget (full strength's: the request's bound, or its second).
    #[must_use]
    pub fn within(self, allocation: TimeAllocation) -> LevelLimits {
        LevelLimits {
            limits: self.limits.tightest(&Limits::on_clock(allocation)),
            ..self
        }
    }
}

impl Level {
    pub const STRONGEST: Level = Level(10);

    /// Full strength's own time when a request gives no bound (the other levels' table bounds
    /// them).
    pub const STRONGEST_DEFAULT_TIME: Duration = Duration::from_millis(1000);

    /// `None` outside 1..=10.
    pub fn new(level: u32) -> Option<Level> {
        (1..=10).contains(&level).then_some(Level(level as u8))
    }

    pub fn get(self) -> u32 {
        self.0 as u32
    }

    /// The longest this level thinks whatever the request asks (levels 1–9; depth 1 always
    /// completes); `None` for full strength, bounded by the request or its own second.
    pub fn time_cap(self) -> Option<Duration> {
        self.settings().max_time
    }

    /// What `seed` varies in this level's searches: its noise, or full strength's variety. Seed
    /// 0, the contract's default, asks full strength for its best move, as it always played.
    pub(crate) fn variation(self, seed: u64) -> Variation {
        let settings = self.settings();
        Variation {
            noise: settings.noise,
            variety_margin: if seed == 0 {
                0
            } else {
                settings.variety_margin
            },
            seed,
        }
    }

    pub(crate) fn settings(self) -> LevelSettings {
        match self.0 {
            1..=9 => TABLE[self.0 as usize - 1],
            _ => LevelSettings {
                max_depth: None,
                max_nodes: None,
                max_time: None,
                noise: 0,
                variety_margin: VARIETY_MARGIN,
            },
        }
    }

    /// The request's limits combined with the level's own: the tightest wins; with no bound at all
    /// full strength gets its default time.
    pub fn limits(self, requested: &Limits) -> LevelLimits {
        let settings = self.settings();
        let own = Limits {
            max_depth: settings.max_depth,
            max_nodes: settings.max_nodes,
            max_time: settings.max_time,
            ..Limits::default()
        };
        let mut limits = requested.tightest(&own);
        if requested.is_unbounded() && settings.max_depth.is_none() {
            limits.max_time = Some(Level::STRONGEST_DEFAULT_TIME);
        }
        LevelLimits {
            level: self,
            limits,
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every level below 10 has a time cap, none above the next level's, level 9's within level
    /// 10's own second; a request's longer time does not lift it, a shorter one wins.
    #[test]
    fn every_level_is_capped_in_time_no_later_than_the_level_above() {
        let caps: Vec<Duration> = (1..=9)
            .map(|n| Level::new(n).unwrap().time_cap().unwrap())
            .collect();
        assert_eq!(Level::STRONGEST.time_cap(), None);
        assert!(caps.windows(2).all(|pair| pair[0] <= pair[1]), "{caps:?}");
        assert!(caps[8] <= Level::STRONGEST_DEFAULT_TIME);
        let unbounded = Level::new(9).unwrap().limits(&Limits::default());
        assert_eq!(unbounded.limits().max_time, Some(caps[8]));
        assert_eq!(
            Level::STRONGEST
                .limits(&Limits::default())
                .limits()
                .max_time,
            Some(Level::STRONGEST_DEFAULT_TIME)
        );
        let long = Limits {
            max_time: Some(Duration::from_secs(30)),
            ..Limits::default()
        };
        let short = Limits {
            max_time: Some(Duration::from_millis(20)),
            ..Limits::default()
        };
        let nine = Level::new(9).unwrap();
        assert_eq!(nine.limits(&long).limits().max_time, Some(caps[8]));
        assert_eq!(nine.limits(&short).limits().max_time, short.max_time);
    }
}
