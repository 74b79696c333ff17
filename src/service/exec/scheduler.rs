//! The search queue's policy as a plain data structure: which waiting search
//! gets the next free slot, which is refused, and the wait a refused one is
//! told. It has no clock of its own (every call is told `now`), no locks and
//! no tasks; [`super::SearchPool`] keeps it behind a mutex and wakes the
//! searches whose stage it changes. A change of policy is a change here.
//!
//! A free slot goes to a waiting search chosen in three steps:
//!
//! 1. *share*: while searches of more than one connection run or wait, a
//!    connection holding its share of the slots (the slots divided by those
//!    connections, rounded up) gets no more while another connection's
//!    search waits; so a newcomer waits for at most the first running search
//!    to end, whatever a flood holds. When every waiting connection holds
//!    its share, the first in line (step 3) takes the slot: slots are never
//!    left idle while a search could use them;
//! 2. *analyses*: analyses hold at most [`ANALYSIS_SHARE_PERCENT`] of the
//!    slots (at least one); a waiting analysis never takes a slot past that,
//!    so with two slots or more a search always finds one free of analyses;
//! 3. *line*: of those, the one ranked first, then the one admitted first. A
//!    search's rank is fixed when it is admitted: the moment, plus its
//!    expected length, plus the expected lengths of its connection's waiting
//!    searches no longer than it. Shorter searches go first, a connection's
//!    own backlog counts against it, and since every later search ranks
//!    after its own arrival, a waiting search's turn comes however many
//!    others arrive and whatever they claim (no starvation).
//!
//! The expected length is a search's time bound, or, for searches a time
//! bound does not hold (a level's depth or node cap, Threats), what searches
//! of its kind took before (`cost.rs`): a claim does not buy a place.
//!
//! Admission simulates this choice from the running searches and the
//! waiting ones, so a short search behind a flood is admitted. When the book
//! is full, the waiting search ranked last of the connection holding the
//! most searches is refused (RESOURCE_EXHAUSTED with the wait worth trying)
//! to make room, unless that is the newcomer itself.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use super::cost::{CostClass, CostModel};
use super::{Busy, ExecError, Pool, Refusal};

/// A search that could start with less than this share (in percent) of its
/// time budget left before its deadline is refused instead.
pub const MIN_SHARE_PERCENT: u32 = 10;

/// Analyses hold at most this share (in percent) of the slots, and at least one.
pub const ANALYSIS_SHARE_PERCENT: usize = 50;

/// An admitted search's number in the book.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SearchId(u64);

/// Where an admitted search stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// For a slot.
    Waiting,
    /// Holds a slot since then.
    Running(Instant),
    /// Made room for a search that comes before it.
    Refused,
}

/// What an admitted search is to do now.
#[derive(Debug, PartialEq, Eq)]
pub enum Turn {
    /// It holds a slot: run.
    Run,
    /// Wait to be woken, or until this moment, past which it is refused.
    Wait(Option<Instant>),
    /// Give up with this error.
    Refused(ExecError),
}

/// A search just admitted, and the searches whose stage its admission changed.
#[derive(Debug)]
pub struct Admitted {
    /// The newcomer.
    pub id: SearchId,
    /// To be woken: the searches that got a slot or were refused to make room.
    pub woken: Vec<SearchId>,
}

/// What a search asks of the pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Work {
    /// A search that answers once, or an analysis that streams.
    pub kind: WorkKind,
    /// The longest it may hold its slot: its time bound, or its node cap at a pessimistic speed.
    pub bound: Duration,
    /// How long it is expected to hold its slot.
    pub cost: Cost,
}

/// A search that answers once, or an analysis (which holds its slot for long).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WorkKind {
    /// SuggestMove, Evaluate, Threats.
    Search,
    /// Analyze.
    Analysis,
}

/// How long a search is expected to hold its slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cost {
    /// Its bound: a time limit holds it.
    Bound,
    /// What searches of this class took before; `prior` until one has finished.
    Learned {
        /// The kind of search.
        class: CostClass,
        /// The estimate before any sample.
        prior: Duration,
    },
}

impl Work {
    /// A search held by its time `bound`.
    pub fn bounded(kind: WorkKind, bound: Duration) -> Work {
        Work {
            kind,
            bound,
            cost: Cost::Bound,
        }
    }
}

/// The admitted searches and the slots they share.
#[derive(Debug)]
pub struct Scheduler {
    /// What it schedules, as its refusals say.
    pool: Pool,
    slots: usize,
    /// Analyses running at the most.
    analysis_slots: usize,
    /// Searches running and waiting at the most.
    capacity: usize,
    /// Slots one connection may hold at the most, whatever else waits.
    connection_cap: usize,
    next_id: u64,
    /// No searches are taken any more.
    closed: bool,
    entries: Vec<Entry>,
    costs: CostModel,
}

#[derive(Debug)]
struct Entry {
    id: u64,
    /// The connection the call came on (searches are shared out per connection).
    connection: u64,
    kind: WorkKind,
    /// What its time is learned under, if it is.
    class: Option<CostClass>,
    /// The longest it may hold its slot.
    bound: Duration,
    /// How long it is expected to hold its slot.
    expected: Duration,
    /// Its place in line (see the module's docs); fixed at admission.
    rank: Instant,
    /// Past this the search would have too little of its time left: it is
    /// refused rather than started.
    latest_start: Option<Instant>,
    /// Its call's deadline: a search still running then was cut short.
    deadline: Option<Instant>,
    stage: Stage,
}

/// A slot as the simulation of the line sees it.
#[derive(Clone, Copy, Debug)]
struct Slot {
    free_at: Instant,
    connection: u64,
    kind: WorkKind,
}

impl Scheduler {
    /// A book of `max_running` slots (at least one) and `max_queued` more searches waiting.
    pub fn new(pool: Pool, max_running: usize, max_queued: usize) -> Scheduler {
        let slots = max_running.max(1);
        Scheduler {
            pool,
            slots,
            analysis_slots: (slots * ANALYSIS_SHARE_PERCENT / 100).max(1),
            capacity: slots + max_queued,
            connection_cap: slots,
            next_id: 0,
            closed: false,
            entries: Vec::new(),
            costs: CostModel::default(),
        }
    }

    /// No connection holds more than `cap` slots (at least one), even when nothing else waits.
    pub fn cap_connections(&mut self, cap: usize) {
        self.connection_cap = cap.max(1);
    }

    /// Searches admitted and not refused.
    pub fn admitted(&self) -> usize {
        self.entries
            .iter()
            .filter(|entry| entry.stage != Stage::Refused)
            .count()
    }

    /// Searches holding a slot.
    pub fn running(&self) -> usize {
        self.entries
            .iter()
            .filter(|entry| matches!(entry.stage, Stage::Running(_)))
            .count()
    }

    /// Whether the book takes no more searches.
    pub fn is_closed(&self) -> bool {
        self.closed
    }

    /// Where the search stands; `None` once it has left.
    #[cfg(test)]
    pub fn stage(&self, id: SearchId) -> Option<Stage> {
        self.entry(id).map(|entry| entry.stage)
    }

    /// How long a search of `class` is now expected to take, with `prior` before any finished.
    #[cfg(test)]
    pub fn estimate(&self, class: CostClass, prior: Duration) -> Duration {
        self.costs.estimate(class, prior)
    }

    /// Admits `work` from `connection`, or refuses it at once: when by the
    /// simulated line it would start with less than [`MIN_SHARE_PERCENT`] of
    /// its time left before `deadline`, or when the book is full and it
    /// would be the one to make room (see the module's docs).
    ///
    /// # Errors
    /// `DeadlinePassed` when the deadline has passed already; `Busy`, with
    /// the estimated wait, when refused; `ShuttingDown` once closed.
    pub fn admit(
        &mut self,
        connection: u64,
        work: Work,
        deadline: Option<Instant>,
        now: Instant,
    ) -> Result<Admitted, ExecError> {
        if deadline.is_some_and(|deadline| deadline <= now) {
            return Err(ExecError::DeadlinePassed);
        }
        if self.closed {
            return Err(ExecError::ShuttingDown);
        }
        // A search cannot use more time than its deadline leaves.
        let bound = deadline.map_or(work.bound, |deadline| work.bound.min(deadline - now));
        let (class, expected) = match work.cost {
            Cost::Bound => (None, bound),
            Cost::Learned { class, prior } => {
                (Some(class), self.costs.estimate(class, prior).min(bound))
            }
        };
        let latest_start = deadline.map(|deadline| deadline - expected * MIN_SHARE_PERCENT / 100);
        let backlog: Duration = self
            .entries
            .iter()
            .filter(|entry| {
                entry.connection == connection
                    && entry.stage == Stage::Waiting
                    && entry.expected <= expected
            })
            .map(|entry| entry.expected)
            .sum();
        let id = self.next_id;
        self.next_id += 1;
        self.entries.push(Entry {
            id,
            connection,
            kind: work.kind,
            class,
            bound,
            expected,
            rank: now + expected + backlog,
            latest_start,
            deadline,
            stage: Stage::Waiting,
        });
        let start = self.simulated_start(Some(id), now);
        if latest_start.is_some_and(|latest| start > latest) {
            self.remove(id);
            return Err(self.busy_for(Refusal::Late, start - now));
        }
        let mut woken = Vec::new();
        if self.admitted() > self.capacity {
            // Full: the last in line of the connection holding the most makes room.
            let Some(last) = self.last_in_line() else {
                self.remove(id);
                return Err(self.busy(Refusal::Full, now));
            };
            if self.entries[last].id == id {
                self.remove(id);
                return Err(self.busy(Refusal::Full, now));
            }
            self.entries[last].stage = Stage::Refused;
            woken.push(SearchId(self.entries[last].id));
        }
        woken.extend(self.dispatch(now));
        Ok(Admitted {
            id: SearchId(id),
            woken,
        })
    }

    /// What the search is to do now: run once it holds a slot; wait, but
    /// not past its latest start; give up when refused or closed.
    pub fn turn(&self, id: SearchId, now: Instant) -> Turn {
        let Some(entry) = self.entry(id) else {
            return Turn::Refused(ExecError::ShuttingDown);
        };
        match entry.stage {
            Stage::Running(_) => Turn::Run,
            Stage::Waiting if self.closed => Turn::Refused(ExecError::ShuttingDown),
            Stage::Refused => Turn::Refused(self.busy(Refusal::Full, now)),
            Stage::Waiting if entry.latest_start.is_some_and(|latest| latest <= now) => {
                Turn::Refused(self.busy(Refusal::Late, now))
            }
            Stage::Waiting => Turn::Wait(entry.latest_start),
        }
    }

    /// The search leaves the book (finished, failed or its caller gone);
    /// when it ran to its end (or its deadline's), what it took is learned
    /// for its class. Returns the searches that got its slot.
    pub fn leave(&mut self, id: SearchId, now: Instant, ran_to_end: bool) -> Vec<SearchId> {
        if let Some(entry) = self.entry(id)
            && let (Stage::Running(started), Some(class), true) =
                (entry.stage, entry.class, ran_to_end)
        {
            let cut = entry.deadline.is_some_and(|deadline| now >= deadline);
            let bound = entry.bound;
            self.costs.record(class, now - started, bound, cut);
        }
        self.remove(id.0);
        self.dispatch(now)
    }

    /// Takes no more searches and gives no more slots; the waiting ones are
    /// refused at their next [`Scheduler::turn`].
    pub fn close(&mut self) {
        self.closed = true;
    }

    fn entry(&self, id: SearchId) -> Option<&Entry> {
        self.entries.iter().find(|entry| entry.id == id.0)
    }

    fn waiting(&self) -> Vec<usize> {
        (0..self.entries.len())
            .filter(|&i| self.entries[i].stage == Stage::Waiting)
            .collect()
    }

    /// The running searches as slots that free when their expected length is spent.
    fn running_slots(&self, now: Instant) -> Vec<Slot> {
        self.entries
            .iter()
            .filter_map(|entry| match entry.stage {
                Stage::Running(started) => Some(Slot {
                    free_at: (started + entry.expected).max(now),
                    connection: entry.connection,
                    kind: entry.kind,
                }),
                _ => None,
            })
            .collect()
    }

    /// Which of `waiting` (indices into `entries`) takes a free slot beside
    /// `running`, as a place in `waiting`; `None` when none may (analyses at
    /// their share). See the module's docs.
    fn choose(&self, running: &[Slot], waiting: &[usize]) -> Option<usize> {
        let analyses = running
            .iter()
            .filter(|slot| slot.kind == WorkKind::Analysis)
            .count();
        let mut holding: HashMap<u64, usize> = HashMap::new();
        for slot in running {
            *holding.entry(slot.connection).or_default() += 1;
        }
        let connections: HashSet<u64> = running
            .iter()
            .map(|slot| slot.connection)
            .chain(waiting.iter().map(|&i| self.entries[i].connection))
            .collect();
        let share = self.slots.div_ceil(connections.len().max(1));
        let may_start = |&(_, &i): &(usize, &usize)| {
            let entry = &self.entries[i];
            let held = holding.get(&entry.connection).copied().unwrap_or(0);
            (entry.kind == WorkKind::Search || analyses < self.analysis_slots)
                && held < self.connection_cap
        };
        let in_line = |&(_, &i): &(usize, &usize)| (self.entries[i].rank, self.entries[i].id);
        let within_share = waiting
            .iter()
            .enumerate()
            .filter(may_start)
            .filter(|&(_, &i)| {
                holding
                    .get(&self.entries[i].connection)
                    .is_none_or(|&held| held < share)
            })
            .min_by_key(in_line);
        within_share
            .or_else(|| {
                waiting
                    .iter()
                    .enumerate()
                    .filter(may_start)
                    .min_by_key(in_line)
            })
            .map(|(place, _)| place)
    }

    /// When the search `target` would start if every search took its
    /// expected length and each free slot went as [`Scheduler::choose`]
    /// says; with no target, when a slot would be free for a search behind
    /// all those waiting.
    fn simulated_start(&self, target: Option<u64>, now: Instant) -> Instant {
        let mut running = self.running_slots(now);
        let mut waiting = self.waiting();
        let mut time = now;
        loop {
            if running.len() < self.slots {
                if let Some(place) = self.choose(&running, &waiting) {
                    let entry = &self.entries[waiting.swap_remove(place)];
                    if Some(entry.id) == target {
                        return time;
                    }
                    running.push(Slot {
                        free_at: time + entry.expected,
                        connection: entry.connection,
                        kind: entry.kind,
                    });
                    continue;
                }
                if target.is_none() && waiting.is_empty() {
                    return time;
                }
            }
            // Every waiting search may start on an empty pool, so one is running here.
            let Some(next) = (0..running.len()).min_by_key(|&i| running[i].free_at) else {
                return time;
            };
            time = time.max(running.swap_remove(next).free_at);
        }
    }

    /// The waiting search that makes room when the book is full: the one
    /// ranked last of the connection holding the most searches.
    fn last_in_line(&self) -> Option<usize> {
        let mut held: HashMap<u64, usize> = HashMap::new();
        for entry in &self.entries {
            if entry.stage != Stage::Refused {
                *held.entry(entry.connection).or_default() += 1;
            }
        }
        self.waiting().into_iter().max_by_key(|&i| {
            let entry = &self.entries[i];
            (held[&entry.connection], entry.rank, entry.id)
        })
    }

    /// The error for a search refused now: busy, with the wait until a
    /// search behind all those waiting could start.
    fn busy(&self, why: Refusal, now: Instant) -> ExecError {
        self.busy_for(why, self.simulated_start(None, now) - now)
    }

    /// The error for a search refused now, worth trying again after `retry_after`.
    fn busy_for(&self, why: Refusal, retry_after: Duration) -> ExecError {
        let running = self.running();
        ExecError::Busy(Busy {
            pool: self.pool,
            why,
            running,
            waiting: self.admitted() - running,
            retry_after,
        })
    }

    /// Gives free slots to the waiting searches as [`Scheduler::choose`]
    /// says; returns those that got one.
    fn dispatch(&mut self, now: Instant) -> Vec<SearchId> {
        let mut started = Vec::new();
        if self.closed {
            return started;
        }
        loop {
            let running = self.running_slots(now);
            if running.len() >= self.slots {
                break;
            }
            let waiting = self.waiting();
            let Some(place) = self.choose(&running, &waiting) else {
                break;
            };
            let entry = &mut self.entries[waiting[place]];
            entry.stage = Stage::Running(now);
            started.push(SearchId(entry.id));
        }
        started
    }

    fn remove(&mut self, id: u64) {
        self.entries.retain(|entry| entry.id != id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: Duration = Duration::from_secs(1);
    const MS: Duration = Duration::from_millis(1);
    const FLOOD: u64 = 1;
    const OTHER: u64 = 2;

    fn search(bound: Duration) -> Work {
        Work::bounded(WorkKind::Search, bound)
    }

    fn analysis(bound: Duration) -> Work {
        Work::bounded(WorkKind::Analysis, bound)
    }

    /// A Threats-like search: learned, `prior` before any sample.
    fn learned(prior: Duration) -> Work {
        Work {
            kind: WorkKind::Search,
            bound: 10 * SECOND,
            cost: Cost::Learned {
                class: CostClass::threats(13, 37),
                prior,
            },
        }
    }

    fn admit(book: &mut Scheduler, connection: u64, work: Work, now: Instant) -> SearchId {
        book.admit(connection, work, None, now)
            .expect("admitted")
            .id
    }

    fn is_running(book: &Scheduler, id: SearchId) -> bool {
        matches!(book.stage(id), Some(Stage::Running(_)))
    }

    #[test]
    fn a_full_book_refuses_at_once_with_the_wait_until_a_slot_frees() {
        let now = Instant::now();
        let mut book = Scheduler::new(Pool::Searches, 1, 1);
        let running = admit(&mut book, FLOOD, search(SECOND), now);
        assert_eq!(book.turn(running, now), Turn::Run);
        let queued = admit(&mut book, FLOOD, search(SECOND), now);
        assert_eq!(book.turn(queued, now), Turn::Wait(None));
        // One second for the running search, one for the queued one.
        assert_eq!(
            book.admit(FLOOD, search(SECOND), None, now).unwrap_err(),
            ExecError::Busy(Busy {
                pool: Pool::Searches,
                why: Refusal::Full,
                running: 1,
                waiting: 1,
                retry_after: 2 * SECOND
            })
        );
        assert_eq!(book.leave(running, now + SECOND, true), [queued]);
        assert_eq!(book.turn(queued, now + SECOND), Turn::Run);
        assert!(book.leave(queued, now + SECOND, true).is_empty());
        assert_eq!(book.admitted(), 0);
    }

    #[test]
    fn a_search_that_would_start_too_late_is_refused_at_once() {
        let now = Instant::now();
        let mut book = Scheduler::new(Pool::Searches, 1, 8);
        admit(&mut book, FLOOD, search(3 * SECOND), now);
        // 3 s of search ahead, and 10 s of deadline: this one would start with 7 s left.
        let deadline = Some(now + 10 * SECOND);
        for _ in 0..3 {
            // The third starts in 9 s with 1 s left of 3 s: more than a tenth.
            book.admit(FLOOD, search(3 * SECOND), deadline, now)
                .expect("admitted");
        }
        // Would start at 12 s, past the deadline.
        assert!(matches!(
            book.admit(FLOOD, search(3 * SECOND), deadline, now),
            Err(ExecError::Busy(_))
        ));
        // Without a deadline it may wait.
        book.admit(FLOOD, search(3 * SECOND), None, now)
            .expect("admitted");
    }

    #[test]
    fn waiting_past_the_latest_start_is_busy_not_deadline_passed() {
        let now = Instant::now();
        let mut book = Scheduler::new(Pool::Searches, 1, 4);
        // Its budget says it ends at once, but it holds the slot.
        admit(&mut book, FLOOD, search(Duration::ZERO), now);
        let deadline = now + 50 * MS;
        let late = book
            .admit(FLOOD, search(SECOND), Some(deadline), now)
            .expect("admitted")
            .id;
        // The deadline leaves it 50 ms of budget, a tenth of which it must still have at its start.
        let latest = deadline - 5 * MS;
        assert_eq!(book.turn(late, now), Turn::Wait(Some(latest)));
        assert!(matches!(
            book.turn(late, latest),
            Turn::Refused(ExecError::Busy(_))
        ));
        assert_eq!(
            book.admit(FLOOD, search(SECOND), Some(now), now)
                .unwrap_err(),
            ExecError::DeadlinePassed
        );
    }

    #[test]
    fn another_connections_short_search_goes_before_a_flood_of_long_ones() {
        let now = Instant::now();
        let mut book = Scheduler::new(Pool::Searches, 1, 8);
        let running = admit(&mut book, FLOOD, search(SECOND), now);
        let flood: Vec<SearchId> = (0..4)
            .map(|_| admit(&mut book, FLOOD, search(3 * SECOND), now))
            .collect();
        // Behind 1 s + 12 s of searches in a first-come queue it could not
        // start in 2 s; it waits only for the running one.
        let short = book
            .admit(OTHER, search(SECOND / 10), Some(now + 2 * SECOND), now)
            .expect("admitted before the flood")
            .id;
        assert_eq!(book.leave(running, now + SECOND, true), [short]);
        assert!(is_running(&book, short));
        assert!(
            flood
                .iter()
                .all(|&id| book.stage(id) == Some(Stage::Waiting))
        );
    }

    #[test]
    fn the_shorter_search_goes_first() {
        let now = Instant::now();
        let mut book = Scheduler::new(Pool::Searches, 1, 8);
        let running = admit(&mut book, FLOOD, search(SECOND), now);
        let long = admit(&mut book, OTHER, search(3 * SECOND), now);
        let short = admit(&mut book, 3, search(SECOND / 10), now);
        assert_eq!(book.leave(running, now + SECOND, true), [short]);
        assert_eq!(book.stage(long), Some(Stage::Waiting));
        // Within one connection too: a level-1 move is not stuck behind its own long searches.
        let mut book = Scheduler::new(Pool::Searches, 1, 8);
        let running = admit(&mut book, FLOOD, search(SECOND), now);
        let long = admit(&mut book, FLOOD, search(3 * SECOND), now);
        let short = admit(&mut book, FLOOD, search(SECOND / 10), now);
        assert_eq!(book.leave(running, now + SECOND, true), [short]);
        assert_eq!(book.stage(long), Some(Stage::Waiting));
    }

    #[test]
    fn no_search_starves_however_many_shorter_ones_keep_coming() {
        // One slot; a 1 s search waits while two connections keep 6 searches of 10 ms each waiting.
        let start = Instant::now();
        let mut book = Scheduler::new(Pool::Searches, 1, 32);
        let mut now = start;
        let mut running = admit(&mut book, FLOOD, search(10 * MS), now);
        let long = admit(&mut book, 3, search(SECOND), now);
        let mut waiting = Vec::new();
        for _ in 0..6 {
            for connection in [FLOOD, OTHER] {
                waiting.push(admit(&mut book, connection, search(10 * MS), now));
            }
        }
        while !is_running(&book, long) {
            now += 10 * MS;
            assert!(now - start < 2 * SECOND, "the long search still waits");
            let started = book.leave(running, now, true);
            assert_eq!(started.len(), 1);
            running = started[0];
            // The flood sends another whenever one of its searches gets a slot.
            if let Some(place) = waiting.iter().position(|&id| id == running) {
                waiting.swap_remove(place);
                let connection = if waiting.len() % 2 == 0 { FLOOD } else { OTHER };
                waiting.push(admit(&mut book, connection, search(10 * MS), now));
            }
        }
        // Its rank came due after its own second plus the few ranked before it.
        assert!(now - start <= SECOND + 200 * MS, "{:?}", now - start);
    }

    #[test]
    fn a_connection_holding_its_share_waits_while_another_connections_search_does() {
        let now = Instant::now();
        let mut book = Scheduler::new(Pool::Searches, 2, 16);
        let first = admit(&mut book, FLOOD, search(SECOND), now);
        let second = admit(&mut book, FLOOD, search(SECOND), now);
        assert!(is_running(&book, first) && is_running(&book, second));
        // The flood's waiting searches were admitted first and claim less.
        let flood: Vec<SearchId> = (0..6)
            .map(|_| admit(&mut book, FLOOD, search(10 * MS), now))
            .collect();
        let other = admit(&mut book, OTHER, search(SECOND), now + MS);
        // Two connections want the two slots: one each. The flood holds one, so the other goes.
        assert_eq!(book.leave(first, now + SECOND, true), [other]);
        // Once the other holds its share, the flood takes the next slot.
        assert_eq!(book.leave(second, now + SECOND, true), [flood[0]]);
    }

    #[test]
    fn a_flood_of_searches_that_claim_little_does_not_starve_another_connection() {
        // The case: two connections keep six Threats each admitted
        // (each claims 50 ms and takes 95 ms); a level-5 move (200 ms) from a
        // third connection with a 2 s deadline is admitted and soon runs.
        let start = Instant::now();
        let mut book = Scheduler::new(Pool::Searches, 2, 64);
        let threats = learned(50 * MS);
        let mut now = start;
        let mut flood: Vec<(u64, SearchId)> = Vec::new();
        for connection in [FLOOD, OTHER] {
            for _ in 0..6 {
                flood.push((connection, admit(&mut book, connection, threats, now)));
            }
        }
        let mut victim: Option<(SearchId, Instant)> = None;
        let waited = loop {
            now += 95 * MS;
            assert!(now - start < 10 * SECOND, "the victim never ran");
            let ending: Vec<(u64, SearchId)> = flood
                .iter()
                .copied()
                .filter(|&(_, id)| is_running(&book, id))
                .collect();
            for (connection, id) in ending {
                book.leave(id, now, true);
                flood.retain(|&(_, other)| other != id);
                // Each flooding caller sends its next Threats at once.
                flood.push((connection, admit(&mut book, connection, threats, now)));
            }
            match victim {
                None if now - start >= SECOND => {
                    let admitted = book
                        .admit(3, search(200 * MS), Some(now + 2 * SECOND), now)
                        .expect("admitted");
                    victim = Some((admitted.id, now));
                }
                Some((id, admitted)) if is_running(&book, id) => break now - admitted,
                _ => {}
            }
        };
        assert_eq!(
            book.estimate(CostClass::threats(13, 37), 50 * MS),
            95 * MS,
            "what Threats take, not what they claim"
        );
        // It waits for the flood's searches that waited longer than it, a few slot turns.
        assert!(waited <= 5 * 95 * MS, "the victim waited {waited:?}");
    }

    #[test]
    fn analyses_hold_at_most_half_the_slots() {
        let now = Instant::now();
        let mut book = Scheduler::new(Pool::Searches, 2, 8);
        let first = admit(&mut book, FLOOD, analysis(10 * SECOND), now);
        let second = admit(&mut book, FLOOD, analysis(10 * SECOND), now);
        assert!(is_running(&book, first));
        // The second slot stays free of analyses...
        assert_eq!(book.stage(second), Some(Stage::Waiting));
        // ...so a search takes it at once.
        let search = admit(&mut book, OTHER, search(SECOND), now);
        assert!(is_running(&book, search));
        // The waiting analysis gets the analysis slot when the first ends, not the search's.
        assert!(book.leave(search, now + SECOND, true).is_empty());
        assert_eq!(book.leave(first, now + 10 * SECOND, true), [second]);
        // One slot: an analysis may hold it (there is nothing to share).
        let mut book = Scheduler::new(Pool::Searches, 1, 8);
        let alone = admit(&mut book, FLOOD, analysis(SECOND), now);
        assert!(is_running(&book, alone));
    }

    #[test]
    fn admission_counts_the_analysis_share() {
        let now = Instant::now();
        let mut book = Scheduler::new(Pool::Searches, 2, 8);
        admit(&mut book, FLOOD, analysis(10 * SECOND), now);
        // The other slot is free, but not for an analysis: this one would start in 10 s.
        assert!(matches!(
            book.admit(OTHER, analysis(SECOND), Some(now + 5 * SECOND), now),
            Err(ExecError::Busy(busy)) if busy.retry_after == 10 * SECOND
        ));
    }

    #[test]
    fn learning_counts_only_searches_that_ran_to_their_end() {
        let now = Instant::now();
        let mut book = Scheduler::new(Pool::Searches, 1, 8);
        let class = CostClass::threats(13, 37);
        let cancelled = admit(&mut book, FLOOD, learned(50 * MS), now);
        book.leave(cancelled, now + MS, false);
        assert_eq!(book.estimate(class, 50 * MS), 50 * MS);
        let finished = admit(&mut book, FLOOD, learned(50 * MS), now);
        book.leave(finished, now + 95 * MS, true);
        assert_eq!(book.estimate(class, 50 * MS), 95 * MS);
    }

    #[test]
    fn a_full_book_makes_room_by_refusing_the_floods_last_search() {
        let now = Instant::now();
        let mut book = Scheduler::new(Pool::Searches, 1, 2);
        let running = admit(&mut book, FLOOD, search(SECOND), now);
        let first = admit(&mut book, FLOOD, search(SECOND), now);
        let last = admit(&mut book, FLOOD, search(SECOND), now);
        // The flood's own next search is refused...
        assert!(matches!(
            book.admit(FLOOD, search(SECOND), None, now),
            Err(ExecError::Busy(_))
        ));
        // ...another connection's is taken, and the flood's last waiting one makes room.
        let other = book
            .admit(OTHER, search(SECOND / 2), None, now)
            .expect("admitted");
        assert_eq!(other.woken, [last]);
        assert!(matches!(
            book.turn(last, now),
            Turn::Refused(ExecError::Busy(_))
        ));
        assert_eq!(book.leave(running, now + SECOND, true), [other.id]);
        assert_eq!(book.stage(first), Some(Stage::Waiting));
        book.leave(last, now + SECOND, false);
        book.leave(first, now + SECOND, false);
        book.leave(other.id, now + SECOND, false);
        assert_eq!(book.admitted(), 0);
    }

    #[test]
    fn a_closed_book_takes_nothing_and_starts_nothing() {
        let now = Instant::now();
        let mut book = Scheduler::new(Pool::Searches, 1, 1);
        let running = admit(&mut book, FLOOD, search(SECOND), now);
        let waiting = admit(&mut book, FLOOD, search(SECOND), now);
        book.close();
        assert!(book.is_closed());
        // The running one runs on (told to stop by the pool); the waiting one never starts.
        assert_eq!(book.turn(running, now), Turn::Run);
        assert!(book.leave(running, now, false).is_empty());
        assert_eq!(
            book.turn(waiting, now),
            Turn::Refused(ExecError::ShuttingDown)
        );
        assert_eq!(
            book.admit(FLOOD, search(SECOND), None, now).unwrap_err(),
            ExecError::ShuttingDown
        );
    }
}
