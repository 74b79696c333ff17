//! What bounds one search: depth, nodes, time (a clock's soft and hard time),
//! a hard deadline and a stop flag; and the running search's stopwatch.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::clock::{TimeAllocation, TimePlan};
use super::params::{
    CHECK_EVERY_NODES, ITERATION_GROWTH_MAX, ITERATION_GROWTH_MIN, MAX_PLY, REPEATABLE_DEPTH,
    REPEATABLE_NODES_PER_SECOND, UNUSED_TIME_PERMILLE,
};
use crate::rules::Move;

/// Every bound given applies; the tightest wins.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Plies.
    pub max_depth: Option<u32>,
    pub max_nodes: Option<u64>,
    /// No iteration goes on past it, but depth 1 always completes (a clock's hard time).
    pub max_time: Option<Duration>,
    /// What the move should normally take (a clock's soft time): no iteration starts past it, as
    /// the search stretches it while its best move changes or its score falls (within
    /// `max_time`) and shrinks it when the game is decided or the move forced.
    pub soft_time: Option<Duration>,
    /// Hard: never answer later (the gRPC deadline minus a margin); if depth 1 has not completed by
    /// then the search returns `None`.
    pub deadline: Option<Instant>,
}

impl Limits {
    /// A clock's allocation as limits: its hard time ends the search, its soft time is the plan.
    pub fn on_clock(allocation: TimeAllocation) -> Limits {
        Limits {
            max_time: Some(allocation.hard),
            soft_time: Some(allocation.soft),
            ..Limits::default()
        }
    }

    /// Nothing but the deadline bounds the search (so the level's own budget applies).
    pub fn is_unbounded(&self) -> bool {
        self.max_depth.is_none()
            && self.max_nodes.is_none()
            && self.max_time.is_none()
            && self.soft_time.is_none()
    }

    /// Whether the clock, not a depth or node bound, is what ends the search: its answer then
    /// depends on the machine's speed. A node bound counts when it would end the search within
    /// its time at `REPEATABLE_NODES_PER_SECOND` (a busy core's speed), a depth bound when it
    /// is at most `REPEATABLE_DEPTH` plies.
    pub fn ends_by_time(&self) -> bool {
        let Some(time) = self.max_time.or(self.soft_time) else {
            return false;
        };
        let nodes_end_it = self.max_nodes.is_some_and(|nodes| {
            nodes.saturating_mul(1000) / REPEATABLE_NODES_PER_SECOND
                <= u64::try_from(time.as_millis()).unwrap_or(u64::MAX)
        });
        let depth_ends_it = self
            .max_depth
            .is_some_and(|depth| depth <= REPEATABLE_DEPTH);
        !nodes_end_it && !depth_ends_it
    }

    /// Both sets of bounds at once.
    pub fn tightest(&self, other: &Limits) -> Limits {
        fn min<T: Ord>(a: Option<T>, b: Option<T>) -> Option<T> {
            match (a, b) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            }
        }
        Limits {
            max_depth: min(self.max_depth, other.max_depth),
            max_nodes: min(self.max_nodes, other.max_nodes),
            max_time: min(self.max_time, other.max_time),
            soft_time: min(self.soft_time, other.soft_time),
            deadline: min(self.deadline, other.deadline),
        }
    }
}

/// How a search shares the processor with other searches (the service runs
/// more searches than it has cores, and shares the cores between them). The
/// search calls it at every look at its clock.
pub trait Share {
    /// Returns at once, or once the search has waited its turn on the
    /// processor, or once `stop` is raised or `until` comes (the search then
    /// stops at once).
    fn take_turn(&self, until: Option<Instant>, stop: &AtomicBool);
}

/// A search with the processor to itself: it never waits.
#[derive(Clone, Copy, Debug, Default)]
pub struct Alone;

impl Share for Alone {
    fn take_turn(&self, _until: Option<Instant>, _stop: &AtomicBool) {}
}

/// What reaches a running search from outside it: a stop flag, which any
/// thread may raise to make it answer at once with what it has (as at a
/// deadline), and the processor it shares with other searches.
#[derive(Clone, Copy)]
pub struct Control<'a> {
    pub stop: &'a AtomicBool,
    pub share: &'a dyn Share,
}

impl<'a> Control<'a> {
    /// A search stopped by `stop`, with the processor to itself.
    pub fn new(stop: &'a AtomicBool) -> Control<'a> {
        Control {
            stop,
            share: &Alone,
        }
    }

    /// The same, sharing the processor through `share`.
    pub fn sharing(self, share: &'a dyn Share) -> Control<'a> {
        Control { share, ..self }
    }
}

/// The running search's view of its limits. Checked every [`CHECK_EVERY_NODES`] nodes, so an answer is
/// never more than a few hundred microseconds past a bound.
pub(crate) struct Stopwatch<'a> {
    started: Instant,
    max_depth: u32,
    max_nodes: u64,
    /// `max_time`: what the soft end never passes.
    max_time: Option<Duration>,
    /// A clock's soft time, as the search makes use of it.
    plan: Option<TimePlan>,
    /// No iteration goes on past it once depth 1 is done: `max_time`, or with a soft time the
    /// time planned (within `max_time`).
    soft_end: Option<Instant>,
    hard_end: Option<Instant>,
    control: Control<'a>,
    /// Depth 1 completed: from now on the soft end may stop the search.
    pub may_stop_soft: bool,
    stopped: bool,
    /// The stop came from the clock (soft end or deadline), not the stop flag or a bound.
    timed_out: bool,
    next_check: u64,
    /// When the iteration now running started, and how long the one before it took.
    iteration_started: Instant,
    last_iteration: Duration,
}

impl<'a> Stopwatch<'a> {
    pub fn new(limits: &Limits, control: Control<'a>) -> Stopwatch<'a> {
        let started = Instant::now();
        let plan = limits.soft_time.map(TimePlan::new);
        let mut stopwatch = Stopwatch {
            started,
            max_depth: limits
                .max_depth
                .unwrap_or(MAX_PLY as u32 / 2)
                .clamp(1, MAX_PLY as u32 / 2),
            max_nodes: limits.max_nodes.unwrap_or(u64::MAX).max(1),
            max_time: limits.max_time,
            plan,
            soft_end: None,
            hard_end: limits.deadline,
            control,
            may_stop_soft: false,
            stopped: false,
            timed_out: false,
            next_check: CHECK_EVERY_NODES,
            iteration_started: started,
            last_iteration: Duration::ZERO,
        };
        stopwatch.set_soft_end(stopwatch.plan.as_ref().map(TimePlan::planned));
        stopwatch
    }

    /// The soft end `planned` after the start (a clock's), within `max_time`; with no plan,
    /// `max_time`. A time too long to be an instant is no end.
    fn set_soft_end(&mut self, planned: Option<Duration>) {
        let time = match (planned, self.max_time) {
            (Some(planned), Some(max_time)) => Some(planned.min(max_time)),
            (planned, max_time) => planned.or(max_time),
        };
        self.soft_end = time.and_then(|time| self.started.checked_add(time));
    }

    /// The move is forced (one legal move): with a soft time, the search ends with depth 1.
    pub fn forced_move(&mut self) {
        if let Some(plan) = self.plan.as_mut() {
            plan.force();
            let planned = plan.planned();
            self.set_soft_end(Some(planned));
        }
    }

    pub fn started(&self) -> Instant {
        self.started
    }

    /// Must the search stop now? Cheap: only looks at the clock every few thousand nodes. Once true,
    /// stays true.
    #[inline]
    pub fn should_stop(&mut self, nodes: u64) -> bool {
        if self.stopped {
            return true;
        }
        if self.may_stop_soft && nodes >= self.max_nodes {
            self.stopped = true;
            return true;
        }
        if nodes >= self.next_check {
            self.next_check = nodes + CHECK_EVERY_NODES;
            self.take_turn();
            if self.control.stop.load(Ordering::Relaxed) {
                self.stopped = true;
            } else {
                self.timed_out = self.past_time();
                self.stopped = self.timed_out;
            }
        }
        self.stopped
    }

    /// Gives the processor to other searches if it is their turn (see [`Share`]), and takes it
    /// back; the search's own looks at the clock do so.
    pub fn take_turn(&self) {
        self.control.share.take_turn(self.end(), self.control.stop);
    }

    /// When the search must stop whatever it has found: its deadline, and its soft end once
    /// depth 1 is done.
    fn end(&self) -> Option<Instant> {
        let soft = self.soft_end.filter(|_| self.may_stop_soft);
        match (soft, self.hard_end) {
            (Some(soft), Some(hard)) => Some(soft.min(hard)),
            (soft, hard) => soft.or(hard),
        }
    }

    fn past_time(&self) -> bool {
        let now = Instant::now();
        if self.hard_end.is_some_and(|end| now >= end) {
            return true;
        }
        self.may_stop_soft && self.soft_end.is_some_and(|end| now >= end)
    }

    /// The search was stopped by the clock: the unfinished iteration's best root move so far, searched
    /// in full, may stand for it.
    pub fn timed_out(&self) -> bool {
        self.timed_out
    }

    /// The hard deadline (or the stop flag) has come.
    pub fn past_deadline(&self) -> bool {
        self.control.stop.load(Ordering::Relaxed)
            || self.hard_end.is_some_and(|end| Instant::now() >= end)
    }

    /// Is another iteration worth starting after `depth` completed with `nodes` spent, its best
    /// move `best_move` scoring `score` (side to move's view)? Called once at the end of each
    /// iteration.
    pub fn may_start_iteration(
        &mut self,
        depth: u32,
        nodes: u64,
        best_move: Move,
        score: i32,
    ) -> bool {
        if let Some(plan) = self.plan.as_mut() {
            let planned = plan.after_iteration(best_move, score);
            self.set_soft_end(Some(planned));
        }
        let now = Instant::now();
        let iteration = now.saturating_duration_since(self.iteration_started);
        let growth = if self.last_iteration.is_zero() {
            (ITERATION_GROWTH_MIN + ITERATION_GROWTH_MAX) / 2.0
        } else {
            (iteration.as_secs_f64() / self.last_iteration.as_secs_f64())
                .clamp(ITERATION_GROWTH_MIN, ITERATION_GROWTH_MAX)
        };
        self.iteration_started = now;
        self.last_iteration = iteration;
        if depth >= self.max_depth || nodes >= self.max_nodes || self.stopped {
            return false;
        }
        if self.control.stop.load(Ordering::Relaxed) {
            return false;
        }
        if let Some(end) = self.soft_end {
            let budget = end.saturating_duration_since(self.started);
            let used = now.saturating_duration_since(self.started);
            if !worth_starting(used, budget, iteration.mul_f64(growth)) {
                return false;
            }
        }
        self.hard_end.is_none_or(|end| now < end)
    }
}

/// With `used` of the soft `budget` gone and the next iteration predicted to take `next`: start it
/// when it should finish in time, or when stopping now would leave more than
/// [`UNUSED_TIME_PERMILLE`] of the budget unused (an unfinished iteration is not wasted: its best
/// root move so far is played).
pub(crate) fn worth_starting(used: Duration, budget: Duration, next: Duration) -> bool {
    used + next <= budget || used * 1000 < budget * (1000 - UNUSED_TIME_PERMILLE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_iteration_starts_when_it_should_finish_or_too_much_time_is_left() {
        let ms = Duration::from_millis;
        // Fits: start.
        assert!(worth_starting(ms(500), ms(1000), ms(400)));
        // Does not fit, but stopping would waste more than a tenth: start and use what it finds.
        assert!(worth_starting(ms(500), ms(1000), ms(900)));
        // Does not fit, and nine tenths are used: stop.
        assert!(!worth_starting(ms(920), ms(1000), ms(200)));
        // Fits exactly at the end.
        assert!(worth_starting(ms(920), ms(1000), ms(80)));
    }
}
