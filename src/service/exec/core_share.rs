//! The cores as the search threads share them: [`Cores`] behind a mutex, a
//! condition variable to wake the searches it gives a core to, and each
//! search's [`CoreTurn`], which the search consults at every look at its
//! clock (`search::Share`). Who computes next is the pure structure's to
//! decide; this file only blocks and wakes threads.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::cores::{Cores, QUANTUM, TakerId};
use crate::search::Share;

/// A parked search looks at its stop flag at least this often (a call that
/// goes away raises it, and nobody else would wake the search to see it).
const STOP_POLL: Duration = Duration::from_millis(20);

/// The cores the searches share, fairly between connections (see `cores.rs`).
#[derive(Debug)]
pub struct CoreShare {
    book: Mutex<Cores>,
    /// Told whenever a core changes hands.
    handed_on: Condvar,
    /// Searches waiting for a core: a search that sees none goes on without taking the lock.
    waiting: AtomicUsize,
}

/// What a search had of the cores: the time it computed on one, and the time it waited for one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CoreUsage {
    /// Time holding a core.
    pub cpu: Duration,
    /// Time waiting for a core.
    pub waited: Duration,
}

/// One search's turns on the cores: it holds a core from when it is made
/// (or waits for one there) until dropped, giving way to the others at its
/// looks at the clock ([`Share::take_turn`]). One thread uses it.
#[derive(Debug)]
pub struct CoreTurn {
    share: Arc<CoreShare>,
    id: TakerId,
    /// Since when it holds a core; `None` while it waits (or gave up waiting).
    holding_since: Cell<Option<Instant>>,
    usage: Cell<CoreUsage>,
}

fn lock(book: &Mutex<Cores>) -> MutexGuard<'_, Cores> {
    book.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl CoreShare {
    /// `cores` cores (at least one) to share.
    pub fn new(cores: usize) -> Arc<CoreShare> {
        Arc::new(CoreShare {
            book: Mutex::new(Cores::new(cores)),
            handed_on: Condvar::new(),
            waiting: AtomicUsize::new(0),
        })
    }

    /// Searches holding a core, and waiting for one.
    pub fn load(&self) -> (usize, usize) {
        let book = lock(&self.book);
        (book.holding(), book.waiting())
    }

    /// A search of `connection` takes its turn: returns once it holds a
    /// core, or once `stop` is raised or `until` has come (it must then stop
    /// at once; it has no core).
    pub fn join(
        self: &Arc<CoreShare>,
        connection: u64,
        until: Option<Instant>,
        stop: &AtomicBool,
    ) -> CoreTurn {
        let now = Instant::now();
        let id = {
            let mut book = lock(&self.book);
            let (id, started) = book.join(connection, now);
            self.handed_on_to(&book, &started);
            id
        };
        let turn = CoreTurn {
            share: Arc::clone(self),
            id,
            holding_since: Cell::new(None),
            usage: Cell::new(CoreUsage::default()),
        };
        turn.wait(now, until, stop);
        turn
    }

    /// After a change in the book: the count the searches read without the
    /// lock, and a wake-up when cores went to waiting searches.
    fn handed_on_to(&self, book: &Cores, started: &[TakerId]) {
        self.waiting.store(book.waiting(), Ordering::Relaxed);
        if !started.is_empty() {
            self.handed_on.notify_all();
        }
    }
}

impl CoreTurn {
    /// What the search has had of the cores so far.
    pub fn usage(&self) -> CoreUsage {
        let mut usage = self.usage.get();
        if let Some(since) = self.holding_since.get() {
            usage.cpu += since.elapsed();
        }
        usage
    }

    fn add(&self, cpu: Duration, waited: Duration) {
        let usage = self.usage.get();
        self.usage.set(CoreUsage {
            cpu: usage.cpu + cpu,
            waited: usage.waited + waited,
        });
    }

    /// Waits, from `since`, until the book gives this search a core, `stop`
    /// is raised or `until` comes.
    fn wait(&self, since: Instant, until: Option<Instant>, stop: &AtomicBool) {
        let mut book = lock(&self.share.book);
        loop {
            let now = Instant::now();
            if book.holds(self.id) {
                self.holding_since.set(Some(now));
                break;
            }
            if stop.load(Ordering::Relaxed) || until.is_some_and(|until| now >= until) {
                break;
            }
            let poll = until.map_or(STOP_POLL, |until| (until - now).min(STOP_POLL));
            book = self
                .share
                .handed_on
                .wait_timeout(book, poll)
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .0;
        }
        self.add(Duration::ZERO, since.elapsed());
    }
}

impl Share for CoreTurn {
    fn take_turn(&self, until: Option<Instant>, stop: &AtomicBool) {
        if self.share.waiting.load(Ordering::Relaxed) == 0 {
            return;
        }
        let now = Instant::now();
        match self.holding_since.get() {
            Some(since) if now.saturating_duration_since(since) < QUANTUM => return,
            Some(_) => {}
            // It gave up waiting (its end came): it is stopping, and needs no core for that.
            None => return,
        }
        {
            let mut book = lock(&self.share.book);
            let (started, held) = book.give_way(self.id, now);
            self.share.handed_on_to(&book, &started);
            if held.is_zero() {
                return;
            }
            self.add(held, Duration::ZERO);
            self.holding_since.set(None);
        }
        self.wait(now, until, stop);
    }
}

impl Drop for CoreTurn {
    fn drop(&mut self) {
        let mut book = lock(&self.share.book);
        let (started, held) = book.leave(self.id, Instant::now());
        self.share.handed_on_to(&book, &started);
        self.add(held, Duration::ZERO);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

    /// Spins on its turns for `run`, looking at the clock as a search does; the core time it had.
    fn busy(share: &Arc<CoreShare>, connection: u64, run: Duration) -> CoreUsage {
        let stop = AtomicBool::new(false);
        let turn = share.join(connection, None, &stop);
        let end = Instant::now() + run;
        while Instant::now() < end {
            turn.take_turn(None, &stop);
        }
        let usage = turn.usage();
        drop(turn);
        usage
    }

    #[test]
    fn a_short_search_beside_long_ones_gets_its_core_within_a_few_quanta() {
        let share = CoreShare::new(1);
        let stop = Arc::new(AtomicBool::new(false));
        let long = std::thread::spawn({
            let share = Arc::clone(&share);
            let stop = Arc::clone(&stop);
            move || {
                let turn = share.join(1, None, &stop);
                while !stop.load(Ordering::Relaxed) {
                    turn.take_turn(None, &stop);
                }
            }
        });
        // Wait until the long one computes.
        while share.load().0 == 0 {
            std::thread::yield_now();
        }
        let usage = busy(&share, 2, Duration::from_millis(30));
        stop.store(true, Ordering::Relaxed);
        long.join().unwrap();
        assert!(usage.cpu > Duration::ZERO, "{usage:?}");
        assert_eq!(share.load(), (0, 0));
    }

    #[test]
    fn a_waiting_search_gives_up_at_its_end_or_its_stop() {
        let share = CoreShare::new(1);
        let never = AtomicBool::new(false);
        let holder = share.join(1, None, &never);
        let until = Instant::now() + Duration::from_millis(30);
        let late = share.join(2, Some(until), &never);
        assert!(Instant::now() >= until);
        assert!(late.holding_since.get().is_none());
        // Its turns cost nothing now: it is stopping.
        late.take_turn(Some(until), &never);
        drop(late);
        let raised = AtomicBool::new(true);
        let stopped = share.join(3, None, &raised);
        assert!(stopped.holding_since.get().is_none());
        drop(stopped);
        drop(holder);
        assert_eq!(share.load(), (0, 0));
    }

    #[test]
    fn connections_get_equal_core_time_however_many_searches_they_run() {
        let share = CoreShare::new(1);
        let per_connection: Arc<[AtomicU64; 2]> = Arc::new([AtomicU64::new(0), AtomicU64::new(0)]);
        let threads: Vec<_> = [0usize, 0, 0, 1]
            .into_iter()
            .map(|connection| {
                let share = Arc::clone(&share);
                let totals = Arc::clone(&per_connection);
                std::thread::spawn(move || {
                    let usage = busy(&share, connection as u64, Duration::from_millis(300));
                    totals[connection].fetch_add(usage.cpu.as_micros() as u64, Ordering::Relaxed);
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
        let (flood, alone) = (
            per_connection[0].load(Ordering::Relaxed) as f64,
            per_connection[1].load(Ordering::Relaxed) as f64,
        );
        // The flood's three searches had about what the lone search had (a busy machine's
        // scheduler blurs it, hence the wide margin; `cores.rs` tests the exact shares).
        assert!(alone > flood * 0.5, "flood {flood} µs, alone {alone} µs");
    }
}
