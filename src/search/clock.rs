//! A game clock, and the time a move is given by it: the engine's one time
//! allocation, used by SuggestMove and `tafl otep` alike.
//!
//! [`Clock::allocate`] turns the side to move's clock into a soft time (what
//! the move should normally take) and a hard time (the most it may take).
//! Main time is spread as if [`CLOCK_MOVES_LEFT`] moves were left (fewer when
//! the next time control is closer), so each move takes a share of what is
//! left and the clock never runs dry; most of an increment or of an overtime
//! period comes on top. The hard time is a few soft times, and never more
//! than the clock holds less the move overhead and a safety margin. A clock
//! with nothing on it gets nothing: the search still completes depth 1, so a
//! legal move comes at once.
//!
//! While the search runs, [`TimePlan`] turns the soft time into the time it
//! plans to take, after each iteration: longer while the best move changes
//! or the score falls, shorter when the score is decided, none past the
//! first iteration when the move is forced or a forced result is found.

use std::time::Duration;

use super::params::{
    BEST_MOVE_CHANGE_STRETCH, CLOCK_MOVES_LEFT, CLOCK_SAFETY_MIN, CLOCK_SAFETY_PERMILLE,
    CLOCK_TIME_CAP, DECIDED_SCORE, DECIDED_STRETCH, HARD_PER_SOFT, INCREMENT_SPENT_PERMILLE,
    MAX_STRETCH, OPPONENT_RATIO_MAX, OPPONENT_RATIO_MIN, OVERTIME_SPENT_PERMILLE, SCORE_FALL_FULL,
    SCORE_FALL_STRETCH, STABLE_STRETCH, WIN_BOUND,
};
use crate::rules::Move;

/// A game clock as the game server keeps it, for the side to move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    /// Main time left, as the clock shows it now.
    pub remaining: Duration,
    /// The other side's main time left; zero: not known.
    pub opponent_remaining: Duration,
    /// Added after each move (Fischer): never counted for the move it follows.
    pub increment: Duration,
    /// One overtime period (byo-yomi): once the main time is spent, a move
    /// that ends within a period keeps every period left; zero: none.
    pub overtime: Duration,
    /// Overtime periods left to the side to move.
    pub overtime_periods: u32,
    /// Moves to the next time control; zero: the rest of the game.
    pub moves_to_go: u32,
}

/// What a clock gives one move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeAllocation {
    /// What the move should normally take: the search starts no iteration
    /// past it, as the running search's `TimePlan` stretches or shrinks it.
    pub soft: Duration,
    /// The most the move may take (depth 1 always completes).
    pub hard: Duration,
}

impl TimeAllocation {
    /// Neither time above `cap` (a server's longest search).
    #[must_use]
    pub fn at_most(self, cap: Duration) -> TimeAllocation {
        TimeAllocation {
            soft: self.soft.min(cap),
            hard: self.hard.min(cap),
        }
    }
}

impl Clock {
    /// The time this clock gives the move, `move_overhead` (the time a move
    /// takes to reach the clock) taken off. Any values, however absurd, give
    /// an allocation: times above a week (`CLOCK_TIME_CAP`) are read as it.
    #[must_use]
    pub fn allocate(&self, move_overhead: Duration) -> TimeAllocation {
        let (remaining, increment) = (capped(self.remaining), capped(self.increment));
        let overhead = capped(move_overhead);
        let overtime = self.overtime_now();
        let usable = self.usable(move_overhead);
        let moves_left = match self.moves_to_go {
            0 => CLOCK_MOVES_LEFT,
            moves => moves.min(CLOCK_MOVES_LEFT),
        };
        // Every move to come loses its overhead too.
        let main_share = remaining.saturating_sub(overhead * moves_left) / moves_left;
        let soft = (main_share
            + increment * INCREMENT_SPENT_PERMILLE / 1000
            + overtime * OVERTIME_SPENT_PERMILLE / 1000)
            .mul_f64(self.opponent_factor())
            .min(usable);
        TimeAllocation {
            soft,
            hard: (soft * HARD_PER_SOFT).min(usable),
        }
    }

    /// The most any move may take on this clock: what it holds now, less
    /// `move_overhead` and a safety margin (a share of it, and at least
    /// `CLOCK_SAFETY_MIN`). [`Clock::allocate`]'s hard time never passes it.
    #[must_use]
    pub fn usable(&self, move_overhead: Duration) -> Duration {
        let available = capped(self.remaining) + self.overtime_now();
        let safety = (available * CLOCK_SAFETY_PERMILLE / 1000).max(CLOCK_SAFETY_MIN);
        available.saturating_sub(capped(move_overhead) + safety)
    }

    /// A period of overtime while one is left (zero otherwise): a move that
    /// ends within it loses none, so it is this move's too.
    fn overtime_now(&self) -> Duration {
        if self.overtime_periods > 0 {
            capped(self.overtime)
        } else {
            Duration::ZERO
        }
    }

    /// More time when ahead on the clock, less when behind, within bounds; 1
    /// when the opponent's time is not known.
    fn opponent_factor(&self) -> f64 {
        if self.opponent_remaining.is_zero() {
            return 1.0;
        }
        let ratio =
            capped(self.remaining).as_secs_f64() / capped(self.opponent_remaining).as_secs_f64();
        ratio.sqrt().clamp(OPPONENT_RATIO_MIN, OPPONENT_RATIO_MAX)
    }
}

/// Times above a week (`CLOCK_TIME_CAP`) are read as it.
fn capped(time: Duration) -> Duration {
    time.min(CLOCK_TIME_CAP)
}

/// The running search's use of a soft time: after each iteration, how long
/// the move is now planned to take.
#[derive(Clone, Debug)]
pub(crate) struct TimePlan {
    soft: Duration,
    /// The best move's changes between iterations, each older one halved.
    changes: f64,
    /// The last iteration's best move and score.
    last: Option<(Move, i32)>,
    /// One legal move: nothing to think about.
    forced: bool,
}

impl TimePlan {
    pub fn new(soft: Duration) -> TimePlan {
        TimePlan {
            soft,
            changes: 0.0,
            last: None,
            forced: false,
        }
    }

    /// The move is forced: no time past the first iteration.
    pub fn force(&mut self) {
        self.forced = true;
    }

    /// The time planned before any iteration has completed.
    pub fn planned(&self) -> Duration {
        if self.forced {
            Duration::ZERO
        } else {
            self.soft
        }
    }

    /// The time planned for the move now that an iteration found `best_move`
    /// scoring `score` (the side to move's view).
    pub fn after_iteration(&mut self, best_move: Move, score: i32) -> Duration {
        let (changed, fall) = match self.last {
            Some((last_move, last_score)) => (last_move != best_move, last_score - score),
            None => (false, 0),
        };
        self.last = Some((best_move, score));
        self.changes = self.changes / 2.0 + f64::from(u8::from(changed));
        if self.forced || score.abs() >= WIN_BOUND {
            return Duration::ZERO;
        }
        let mut stretch = STABLE_STRETCH + self.changes * BEST_MOVE_CHANGE_STRETCH;
        if fall > 0 {
            stretch *= 1.0
                + SCORE_FALL_STRETCH * f64::from(fall.min(SCORE_FALL_FULL))
                    / f64::from(SCORE_FALL_FULL);
        }
        if score.abs() >= DECIDED_SCORE {
            stretch *= DECIDED_STRETCH;
        }
        self.soft.mul_f64(stretch.min(MAX_STRETCH))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::params::{DEFAULT_MOVE_OVERHEAD, WIN};

    const MS: Duration = Duration::from_millis(1);

    fn main_time(remaining_ms: u32, increment_ms: u32) -> Clock {
        Clock {
            remaining: remaining_ms * MS,
            increment: increment_ms * MS,
            ..Clock::default()
        }
    }

    #[test]
    fn main_time_is_shared_out_and_most_of_the_increment_spent() {
        // A minute: a thirtieth of it less each move's overhead, hard four times that.
        let minute = main_time(60_000, 0).allocate(DEFAULT_MOVE_OVERHEAD);
        assert_eq!(minute.soft, 1950 * MS);
        assert_eq!(minute.hard, 7800 * MS);
        // Plus four fifths of a second's increment.
        let with_increment = main_time(60_000, 1000).allocate(DEFAULT_MOVE_OVERHEAD);
        assert_eq!(with_increment.soft, 2750 * MS);
        // Ten moves to the control: a tenth.
        let control = Clock {
            moves_to_go: 10,
            ..main_time(60_000, 0)
        };
        assert_eq!(control.allocate(DEFAULT_MOVE_OVERHEAD).soft, 5950 * MS);
    }

    #[test]
    fn the_hard_time_keeps_the_overhead_and_a_margin_off_the_clock() {
        // The last move before the control may take nearly all, never all.
        let last = Clock {
            moves_to_go: 1,
            ..main_time(10_000, 0)
        };
        let allocation = last.allocate(DEFAULT_MOVE_OVERHEAD);
        // 10 s less 50 ms overhead and a 500 ms (5%) margin.
        assert_eq!(allocation.hard, 9450 * MS);
        assert_eq!(allocation.soft, allocation.hard);
        // Nearly spent: what is left less the overhead and the least margin.
        let nearly = main_time(100, 100).allocate(DEFAULT_MOVE_OVERHEAD);
        assert_eq!(nearly.hard, 30 * MS);
        assert!(nearly.soft <= nearly.hard);
    }

    #[test]
    fn overtime_is_the_moves_own_while_a_period_is_left() {
        // In overtime: half a period planned, the period less the overhead and margin at most.
        let overtime = Clock {
            overtime: 10_000 * MS,
            overtime_periods: 3,
            ..Clock::default()
        };
        let allocation = overtime.allocate(DEFAULT_MOVE_OVERHEAD);
        assert_eq!(allocation.soft, 5000 * MS);
        assert_eq!(allocation.hard, 9450 * MS);
        // No period left: the period's length is no time at all.
        let spent = Clock {
            overtime_periods: 0,
            ..overtime
        };
        assert_eq!(spent.allocate(DEFAULT_MOVE_OVERHEAD).hard, Duration::ZERO);
    }

    #[test]
    fn an_absurd_clock_gets_an_allocation_within_the_clock() {
        let nothing = Clock::default().allocate(DEFAULT_MOVE_OVERHEAD);
        assert_eq!(
            (nothing.soft, nothing.hard),
            (Duration::ZERO, Duration::ZERO)
        );
        // Increment only: nothing on the clock now, the increment comes after the move.
        let increment_only = main_time(0, 5000).allocate(DEFAULT_MOVE_OVERHEAD);
        assert_eq!(increment_only.hard, Duration::ZERO);
        let huge = Clock {
            remaining: Duration::MAX,
            opponent_remaining: Duration::from_millis(1),
            increment: Duration::MAX,
            overtime: Duration::MAX,
            overtime_periods: u32::MAX,
            moves_to_go: u32::MAX,
        };
        let allocation = huge.allocate(Duration::MAX);
        assert!(allocation.soft <= allocation.hard);
        let generous = huge.allocate(Duration::ZERO);
        assert!(generous.hard <= 2 * CLOCK_TIME_CAP);
        assert!(generous.soft > Duration::from_secs(3600));
        let capped = generous.at_most(Duration::from_secs(10));
        assert_eq!(capped.hard, Duration::from_secs(10));
    }

    #[test]
    fn ahead_on_the_clock_a_move_takes_a_little_more() {
        let even = main_time(60_000, 0);
        let ahead = Clock {
            opponent_remaining: 15_000 * MS,
            ..even
        };
        let behind = Clock {
            opponent_remaining: 240_000 * MS,
            ..even
        };
        let soft = |clock: Clock| clock.allocate(DEFAULT_MOVE_OVERHEAD).soft;
        assert_eq!(soft(ahead), soft(even).mul_f64(OPPONENT_RATIO_MAX));
        assert_eq!(soft(behind), soft(even).mul_f64(OPPONENT_RATIO_MIN));
    }

    #[test]
    fn the_plan_stretches_while_unsure_and_shrinks_when_sure() {
        let square = |text: &str| text.parse().expect("a square");
        let (a, b) = (
            Move {
                from: square("d1"),
                to: square("d3"),
            },
            Move {
                from: square("h1"),
                to: square("h3"),
            },
        );
        let soft = 1000 * MS;
        let mut steady = TimePlan::new(soft);
        steady.after_iteration(a, 10);
        let stable = steady.after_iteration(a, 10);
        assert!(stable < soft);
        // The best move changed: more than the soft time.
        let mut unsure = TimePlan::new(soft);
        unsure.after_iteration(a, 10);
        let changed = unsure.after_iteration(b, 10);
        assert!(changed > soft, "{changed:?}");
        // And more again when the score fell too.
        let mut falling = TimePlan::new(soft);
        falling.after_iteration(a, 10);
        assert!(falling.after_iteration(b, -200) > changed);
        // Decided, forced win, forced move.
        let mut decided = TimePlan::new(soft);
        assert!(decided.after_iteration(a, 3000) < stable);
        assert_eq!(decided.after_iteration(a, WIN - 5), Duration::ZERO);
        let mut forced = TimePlan::new(soft);
        forced.force();
        assert_eq!(forced.planned(), Duration::ZERO);
        assert_eq!(forced.after_iteration(a, 0), Duration::ZERO);
        // Never more than the most stretch.
        let mut wild = TimePlan::new(soft);
        for score in 0..20 {
            let best = if score % 2 == 0 { a } else { b };
            assert!(wild.after_iteration(best, -100 * score) <= soft.mul_f64(MAX_STRETCH));
        }
    }
}
