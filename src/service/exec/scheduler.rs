//! The search queue's policy as a plain data structure: which waiting search
//! gets the next free slot, which is refused, and the wait a refused one is
//! told. It has no clock of its own (every call is told `now`), no locks and
//! no tasks; [`super::SearchPool`] keeps it behind a mutex and wakes the
//! searches whose stage it changes. A change of policy is a change here.
//!
//! The order in which waiting searches get a slot is fair between
//! connections, then shortest first:
//!
//! 1. a search's *turn* is the number of searches its connection has running
//!    plus those of its connection waiting ahead of it: a connection with
//!    fewer searches running or waiting goes before one with more, so one
//!    client flooding long searches holds at most its turn and never starves
//!    another client's calls;
//! 2. within a turn, the search expected to be shorter (its time budget, or
//!    its node cap at a pessimistic rate) goes first;
//! 3. then the one admitted first.
//!
//! Admission judges the start of a newcomer from the running searches and
//! the waiting ones that go before it, so a short search behind a flood is
//! admitted. When the book is full, the waiting search that comes last in
//! this order is refused (RESOURCE_EXHAUSTED with the wait worth trying)
//! to make room, unless that is the newcomer itself. Slots are never left
//! idle: one connection alone may use them all.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use super::ExecError;

/// A search that could start with less than this share (in percent) of its
/// time budget left before its deadline is refused instead.
pub const MIN_SHARE_PERCENT: u32 = 10;

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

/// The admitted searches and the slots they share.
#[derive(Debug)]
pub struct Scheduler {
    slots: usize,
    /// Searches running and waiting at the most.
    capacity: usize,
    next_id: u64,
    /// No searches are taken any more.
    closed: bool,
    entries: Vec<Entry>,
}

#[derive(Debug)]
struct Entry {
    id: u64,
    /// The connection the call came on (searches are shared out per connection).
    connection: u64,
    /// How long the search is expected to hold its slot.
    budget: Duration,
    /// Past this the search would have too little of its time left: it is
    /// refused rather than started.
    latest_start: Option<Instant>,
    stage: Stage,
}

impl Scheduler {
    /// A book of `max_running` slots (at least one) and `max_queued` more searches waiting.
    pub fn new(max_running: usize, max_queued: usize) -> Scheduler {
        let slots = max_running.max(1);
        Scheduler {
            slots,
            capacity: slots + max_queued,
            next_id: 0,
            closed: false,
            entries: Vec::new(),
        }
    }

    /// Searches admitted and not refused.
    pub fn admitted(&self) -> usize {
        self.entries
            .iter()
            .filter(|entry| entry.stage != Stage::Refused)
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

    /// Admits a search from `connection` expected to take `budget`, or
    /// refuses it at once: when by the estimate it would start with less
    /// than [`MIN_SHARE_PERCENT`] of its time left before `deadline`, or when
    /// the book is full and it would come last (see the module's docs).
    ///
    /// # Errors
    /// `DeadlinePassed` when the deadline has passed already; `Busy`, with
    /// the estimated wait, when refused; `ShuttingDown` once closed.
    pub fn admit(
        &mut self,
        connection: u64,
        budget: Duration,
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
        let budget = deadline.map_or(budget, |deadline| budget.min(deadline - now));
        let latest_start = deadline.map(|deadline| deadline - budget * MIN_SHARE_PERCENT / 100);
        let id = self.next_id;
        self.next_id += 1;
        self.entries.push(Entry {
            id,
            connection,
            budget,
            latest_start,
            stage: Stage::Waiting,
        });
        let order = self.waiting_order();
        let place = order
            .iter()
            .position(|&i| self.entries[i].id == id)
            .unwrap_or(order.len());
        let start = self.estimated_start(&order[..place], now);
        if latest_start.is_some_and(|latest| start > latest) {
            self.remove(id);
            return Err(ExecError::Busy {
                waiting: self.admitted(),
                retry_after: start - now,
            });
        }
        let mut woken = Vec::new();
        if self.admitted() > self.capacity {
            // Full: the search that comes last makes room.
            let Some(&last) = order.last() else {
                self.remove(id);
                return Err(self.busy(now));
            };
            if self.entries[last].id == id {
                self.remove(id);
                return Err(self.busy(now));
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
            Stage::Refused => Turn::Refused(self.busy(now)),
            Stage::Waiting if entry.latest_start.is_some_and(|latest| latest <= now) => {
                Turn::Refused(self.busy(now))
            }
            Stage::Waiting => Turn::Wait(entry.latest_start),
        }
    }

    /// The search leaves the book (finished, failed or its caller gone);
    /// returns the searches that got its slot.
    pub fn leave(&mut self, id: SearchId, now: Instant) -> Vec<SearchId> {
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

    fn running(&self) -> usize {
        self.entries
            .iter()
            .filter(|entry| matches!(entry.stage, Stage::Running(_)))
            .count()
    }

    /// The waiting searches (indices into `entries`) in the order they get a
    /// slot: by turn, then expected length, then admission (see the module's docs).
    fn waiting_order(&self) -> Vec<usize> {
        let mut running: HashMap<u64, usize> = HashMap::new();
        for entry in &self.entries {
            if matches!(entry.stage, Stage::Running(_)) {
                *running.entry(entry.connection).or_default() += 1;
            }
        }
        let key = |i: usize| {
            let entry = &self.entries[i];
            (entry.connection, entry.budget, entry.id)
        };
        let mut waiting: Vec<usize> = (0..self.entries.len())
            .filter(|&i| self.entries[i].stage == Stage::Waiting)
            .collect();
        // By connection, shortest first: a search's place in its connection's run is the number
        // of that connection's searches waiting ahead of it.
        waiting.sort_unstable_by_key(|&i| key(i));
        let mut order: Vec<(usize, Duration, u64, usize)> = Vec::with_capacity(waiting.len());
        let mut turn = 0;
        for (place, &i) in waiting.iter().enumerate() {
            let (connection, budget, id) = key(i);
            let first_of_its_connection =
                place == 0 || self.entries[waiting[place - 1]].connection != connection;
            turn = if first_of_its_connection {
                running.get(&connection).copied().unwrap_or(0)
            } else {
                turn + 1
            };
            order.push((turn, budget, id, i));
        }
        order.sort_unstable();
        order.into_iter().map(|(.., i)| i).collect()
    }

    /// When the first search after the waiting ones in `ahead` could start:
    /// each slot is free once its search's budget is spent, and those ahead
    /// take the slots in turn.
    fn estimated_start(&self, ahead: &[usize], now: Instant) -> Instant {
        let mut free_at: Vec<Instant> = self
            .entries
            .iter()
            .filter_map(|entry| match entry.stage {
                Stage::Running(started) => Some((started + entry.budget).max(now)),
                _ => None,
            })
            .collect();
        free_at.resize(free_at.len().max(self.slots), now);
        for &waiting in ahead {
            let earliest = earliest_index(&free_at);
            free_at[earliest] += self.entries[waiting].budget;
        }
        free_at[earliest_index(&free_at)]
    }

    /// The error for a search refused now: busy, with the wait until a
    /// search behind all those waiting could start.
    fn busy(&self, now: Instant) -> ExecError {
        let start = self.estimated_start(&self.waiting_order(), now);
        ExecError::Busy {
            waiting: self.admitted(),
            retry_after: start - now,
        }
    }

    /// Gives free slots to the waiting searches, in order; returns those
    /// that got one.
    fn dispatch(&mut self, now: Instant) -> Vec<SearchId> {
        let mut started = Vec::new();
        if self.closed {
            return started;
        }
        while self.running() < self.slots {
            let Some(&first) = self.waiting_order().first() else {
                break;
            };
            let entry = &mut self.entries[first];
            entry.stage = Stage::Running(now);
            started.push(SearchId(entry.id));
        }
        started
    }

    fn remove(&mut self, id: u64) {
        self.entries.retain(|entry| entry.id != id);
    }
}

fn earliest_index(times: &[Instant]) -> usize {
    (0..times.len()).min_by_key(|&i| times[i]).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: Duration = Duration::from_secs(1);
    const FLOOD: u64 = 1;
    const OTHER: u64 = 2;

    fn admit(book: &mut Scheduler, connection: u64, budget: Duration, now: Instant) -> SearchId {
        book.admit(connection, budget, None, now)
            .expect("admitted")
            .id
    }

    fn is_running(book: &Scheduler, id: SearchId) -> bool {
        matches!(book.stage(id), Some(Stage::Running(_)))
    }

    #[test]
    fn a_full_book_refuses_at_once_with_the_wait_until_a_slot_frees() {
        let now = Instant::now();
        let mut book = Scheduler::new(1, 1);
        let running = admit(&mut book, FLOOD, SECOND, now);
        assert_eq!(book.turn(running, now), Turn::Run);
        let queued = admit(&mut book, FLOOD, SECOND, now);
        assert_eq!(book.turn(queued, now), Turn::Wait(None));
        // One second for the running search, one for the queued one.
        assert_eq!(
            book.admit(FLOOD, SECOND, None, now).unwrap_err(),
            ExecError::Busy {
                waiting: 2,
                retry_after: 2 * SECOND
            }
        );
        assert_eq!(book.leave(running, now + SECOND), [queued]);
        assert_eq!(book.turn(queued, now + SECOND), Turn::Run);
        assert!(book.leave(queued, now + SECOND).is_empty());
        assert_eq!(book.admitted(), 0);
    }

    #[test]
    fn a_search_that_would_start_too_late_is_refused_at_once() {
        let now = Instant::now();
        let mut book = Scheduler::new(1, 8);
        admit(&mut book, FLOOD, 3 * SECOND, now);
        // 3 s of search ahead, and 10 s of deadline: this one would start with 7 s left.
        let deadline = Some(now + 10 * SECOND);
        for _ in 0..3 {
            // The third starts in 9 s with 1 s left of 3 s: more than a tenth.
            book.admit(FLOOD, 3 * SECOND, deadline, now)
                .expect("admitted");
        }
        // Would start at 12 s, past the deadline.
        assert!(matches!(
            book.admit(FLOOD, 3 * SECOND, deadline, now),
            Err(ExecError::Busy { .. })
        ));
        // Without a deadline it may wait.
        book.admit(FLOOD, 3 * SECOND, None, now).expect("admitted");
    }

    #[test]
    fn waiting_past_the_latest_start_is_busy_not_deadline_passed() {
        let now = Instant::now();
        let mut book = Scheduler::new(1, 4);
        // Its budget says it ends at once, but it holds the slot.
        admit(&mut book, FLOOD, Duration::ZERO, now);
        let deadline = now + Duration::from_millis(50);
        let late = book
            .admit(FLOOD, SECOND, Some(deadline), now)
            .expect("admitted")
            .id;
        // The deadline leaves it 50 ms of budget, a tenth of which it must still have at its start.
        let latest = deadline - Duration::from_millis(5);
        assert_eq!(book.turn(late, now), Turn::Wait(Some(latest)));
        assert!(matches!(
            book.turn(late, latest),
            Turn::Refused(ExecError::Busy { .. })
        ));
        assert_eq!(
            book.admit(FLOOD, SECOND, Some(now), now).unwrap_err(),
            ExecError::DeadlinePassed
        );
    }

    #[test]
    fn another_connections_short_search_goes_before_a_flood_of_long_ones() {
        let now = Instant::now();
        let mut book = Scheduler::new(1, 8);
        let running = admit(&mut book, FLOOD, SECOND, now);
        let flood: Vec<SearchId> = (0..4)
            .map(|_| admit(&mut book, FLOOD, 3 * SECOND, now))
            .collect();
        // Behind 1 s + 12 s of searches in a first-come queue it could not
        // start in 2 s; it waits only for the running one.
        let short = book
            .admit(OTHER, SECOND / 10, Some(now + 2 * SECOND), now)
            .expect("admitted before the flood")
            .id;
        assert_eq!(book.leave(running, now + SECOND), [short]);
        assert!(is_running(&book, short));
        assert!(
            flood
                .iter()
                .all(|&id| book.stage(id) == Some(Stage::Waiting))
        );
    }

    #[test]
    fn within_a_turn_the_shorter_search_goes_first() {
        let now = Instant::now();
        let mut book = Scheduler::new(1, 8);
        let running = admit(&mut book, FLOOD, SECOND, now);
        let long = admit(&mut book, OTHER, 3 * SECOND, now);
        let short = admit(&mut book, 3, SECOND / 10, now);
        assert_eq!(book.leave(running, now + SECOND), [short]);
        assert_eq!(book.stage(long), Some(Stage::Waiting));
    }

    #[test]
    fn a_full_book_makes_room_by_refusing_the_floods_last_search() {
        let now = Instant::now();
        let mut book = Scheduler::new(1, 2);
        let running = admit(&mut book, FLOOD, SECOND, now);
        let first = admit(&mut book, FLOOD, SECOND, now);
        let last = admit(&mut book, FLOOD, SECOND, now);
        // The flood's own next search is refused...
        assert!(matches!(
            book.admit(FLOOD, SECOND, None, now),
            Err(ExecError::Busy { .. })
        ));
        // ...another connection's is taken, and the flood's last waiting one makes room.
        let other = book.admit(OTHER, SECOND / 2, None, now).expect("admitted");
        assert_eq!(other.woken, [last]);
        assert!(matches!(
            book.turn(last, now),
            Turn::Refused(ExecError::Busy { .. })
        ));
        assert_eq!(book.leave(running, now + SECOND), [other.id]);
        assert_eq!(book.stage(first), Some(Stage::Waiting));
        book.leave(last, now + SECOND);
        book.leave(first, now + SECOND);
        book.leave(other.id, now + SECOND);
        assert_eq!(book.admitted(), 0);
    }

    #[test]
    fn a_closed_book_takes_nothing_and_starts_nothing() {
        let now = Instant::now();
        let mut book = Scheduler::new(1, 1);
        let running = admit(&mut book, FLOOD, SECOND, now);
        let waiting = admit(&mut book, FLOOD, SECOND, now);
        book.close();
        assert!(book.is_closed());
        // The running one runs on (told to stop by the pool); the waiting one never starts.
        assert_eq!(book.turn(running, now), Turn::Run);
        assert!(book.leave(running, now).is_empty());
        assert_eq!(
            book.turn(waiting, now),
            Turn::Refused(ExecError::ShuttingDown)
        );
        assert_eq!(
            book.admit(FLOOD, SECOND, None, now).unwrap_err(),
            ExecError::ShuttingDown
        );
    }
}
