//! A match on a clock: the time control, each side's clock as the runner
//! keeps it (the time a move used is measured from the request to the
//! answer, the increment added after it; a clock that runs out loses the
//! game), and how a player is given its time.

use std::time::Duration;

use crate::rules::{BySide, Side};
use crate::search::{Clock, DEFAULT_MOVE_OVERHEAD};

/// A match's time control: each side's clock starts at `main` and gains
/// `increment` after each of its moves (Fischer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    pub main: Duration,
    pub increment: Duration,
}

/// How a player on a clock is given its time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ClockUse {
    /// The clock itself: the engine's own allocation decides (a server is sent the clock).
    #[default]
    Native,
    /// A fixed time a move: a `n`th of what is left, plus the increment, within what the clock
    /// holds less the engine's move overhead and safety margin (for a build that knows no clock: a
    /// server is sent that time as its limit).
    Fraction(u32),
}

impl ClockUse {
    /// The time a fraction player searches on `clock`; `None` for the clock's own allocation.
    /// The increment comes only after the move, so late in a game a share plus the increment
    /// would be more than the clock holds: the player never asks for more than the engine's own
    /// hard time could be.
    pub fn fixed_time(self, clock: &Clock) -> Option<Duration> {
        match self {
            ClockUse::Native => None,
            ClockUse::Fraction(n) => Some(
                (clock.remaining / n.max(1) + clock.increment)
                    .min(clock.usable(DEFAULT_MOVE_OVERHEAD)),
            ),
        }
    }
}

/// One move's time: what it used, and what its side's clock held after it
/// (with the increment; `None` untimed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveTime {
    pub used: Duration,
    pub left: Option<Duration>,
}

/// Both sides' clocks in a game.
#[derive(Clone, Debug)]
pub struct Clocks {
    control: TimeControl,
    left: BySide<Duration>,
}

/// A side whose clock ran out: the time its move used, and what its clock held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutOfTime {
    pub used: Duration,
    pub had: Duration,
}

impl Clocks {
    /// Both clocks at the start of a game.
    pub fn new(control: TimeControl) -> Clocks {
        Clocks {
            control,
            left: BySide {
                attackers: control.main,
                defenders: control.main,
            },
        }
    }

    /// `side`'s clock as a player is told it.
    pub fn of(&self, side: Side) -> Clock {
        Clock {
            remaining: self.left[side],
            opponent_remaining: self.left[side.opponent()],
            increment: self.control.increment,
            ..Clock::default()
        }
    }

    /// Charges `side` the time its move `used`, then adds the increment; what its clock holds
    /// after.
    ///
    /// # Errors
    /// [`OutOfTime`] when the move used more than the clock held: the side loses the game.
    pub fn charge(&mut self, side: Side, used: Duration) -> Result<Duration, OutOfTime> {
        let had = self.left[side];
        if used > had {
            return Err(OutOfTime { used, had });
        }
        self.left[side] = had - used + self.control.increment;
        Ok(self.left[side])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn a_clock_pays_each_move_gains_the_increment_and_runs_out() {
        let mut clocks = Clocks::new(TimeControl {
            main: 1000 * MS,
            increment: 100 * MS,
        });
        assert_eq!(clocks.charge(Side::Attackers, 300 * MS), Ok(800 * MS));
        assert_eq!(
            clocks.of(Side::Defenders),
            Clock {
                remaining: 1000 * MS,
                opponent_remaining: 800 * MS,
                increment: 100 * MS,
                ..Clock::default()
            }
        );
        // All of it, exactly, is still in time.
        assert_eq!(clocks.charge(Side::Defenders, 1000 * MS), Ok(100 * MS));
        assert_eq!(
            clocks.charge(Side::Defenders, 101 * MS),
            Err(OutOfTime {
                used: 101 * MS,
                had: 100 * MS
            })
        );
    }

    #[test]
    fn a_fraction_player_takes_its_share_and_the_increment() {
        let clock = Clock {
            remaining: 60_000 * MS,
            increment: 1000 * MS,
            ..Clock::default()
        };
        assert_eq!(ClockUse::Fraction(30).fixed_time(&clock), Some(3000 * MS));
        // All of it (read as a first) is capped: less 50 ms overhead and a 3 s (5%) margin.
        assert_eq!(ClockUse::Fraction(0).fixed_time(&clock), Some(56_950 * MS));
        assert_eq!(ClockUse::Native.fixed_time(&clock), None);
    }

    #[test]
    fn a_fraction_player_never_asks_for_more_than_the_clock_holds() {
        // A long game's end on 1 min + 1 s: a thirtieth plus the increment would be 1,034 ms.
        let clock = Clock {
            remaining: 1022 * MS,
            increment: 1000 * MS,
            ..Clock::default()
        };
        // Less the 50 ms overhead and a 51.1 ms (5%) margin.
        assert_eq!(
            ClockUse::Fraction(30).fixed_time(&clock),
            Some(Duration::from_micros(920_900))
        );
        let empty = Clock::default();
        assert_eq!(
            ClockUse::Fraction(30).fixed_time(&empty),
            Some(Duration::ZERO)
        );
    }
}
