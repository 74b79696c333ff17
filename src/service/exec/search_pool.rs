//! The bounded pools that blocking work runs on, never the async runtime's
//! threads (those answer health checks and every other call):
//!
//! - [`SearchPool`]: at most N searches at once and M waiting, admitted only
//!   if they can start early enough to use a fair share of their time before
//!   their deadline; refused at once otherwise, with the wait worth trying
//!   after. The queue is fair between connections and short searches go
//!   first (see [`SearchPool`]). At shutdown it tells the running searches to
//!   stop and answer.
//! - [`ReplayPool`]: the replays of long games (a few milliseconds each),
//!   at most one per core at once and a bounded number waiting.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tokio::sync::{Notify, Semaphore};

use crate::service::api::error::ServiceError;

/// A search that could start with less than this share (in percent) of its
/// time budget left before its deadline is refused instead.
pub const MIN_SHARE_PERCENT: u32 = 10;

/// Admits searches and runs them on blocking threads.
///
/// The order in which waiting searches get a slot is fair between
/// connections, then shortest first:
///
/// 1. a search's *turn* is the number of searches its connection has running
///    plus those of its connection waiting ahead of it: a connection with
///    fewer searches running or waiting goes before one with more, so one
///    client flooding long searches holds at most its turn and never starves
///    another client's calls;
/// 2. within a turn, the search expected to be shorter (its time budget, or
///    its node cap at a pessimistic rate) goes first;
/// 3. then the one admitted first.
///
/// Admission judges the start of a newcomer from the running searches and
/// the waiting ones that go before it, so a short search behind a flood is
/// admitted. When the pool is full, the waiting search that comes last in
/// this order is refused (RESOURCE_EXHAUSTED with the wait worth trying)
/// to make room, unless that is the newcomer itself. Slots are never left
/// idle: one connection alone may use them all.
#[derive(Debug)]
pub struct SearchPool {
    capacity: usize,
    book: Arc<Mutex<Book>>,
}

/// The admitted searches.
#[derive(Debug, Default)]
struct Book {
    slots: usize,
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
    stage: Stage,
    /// Raised to make it stop and answer with what it has.
    stop: Option<Arc<AtomicBool>>,
    /// Told when its stage changes.
    wake: Arc<Notify>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    Waiting,
    /// Holds a slot since then.
    Running(Instant),
    /// Made room for a search that comes before it.
    Refused,
}

/// One admitted search's place in the book: it leaves the book (and frees
/// its slot) when this is dropped, whether the search finished, failed or
/// the caller went away.
#[derive(Debug)]
pub struct Admission {
    id: u64,
    book: Arc<Mutex<Book>>,
    wake: Arc<Notify>,
    /// Past this the search would have too little of its time left: it is
    /// refused rather than started.
    latest_start: Option<Instant>,
}

impl Drop for Admission {
    fn drop(&mut self) {
        let mut book = lock(&self.book);
        book.entries.retain(|entry| entry.id != self.id);
        book.dispatch(Instant::now());
    }
}

fn lock(book: &Mutex<Book>) -> MutexGuard<'_, Book> {
    book.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Book {
    fn running(&self) -> usize {
        self.entries
            .iter()
            .filter(|entry| matches!(entry.stage, Stage::Running(_)))
            .count()
    }

    /// Searches admitted and not refused.
    fn admitted(&self) -> usize {
        self.entries
            .iter()
            .filter(|entry| entry.stage != Stage::Refused)
            .count()
    }

    /// The waiting searches (indices into `entries`) in the order they get a
    /// slot: by turn, then expected length, then admission (see [`SearchPool`]).
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
    fn busy(&self, now: Instant) -> ServiceError {
        let start = self.estimated_start(&self.waiting_order(), now);
        ServiceError::Busy {
            waiting: self.admitted(),
            retry_after: start - now,
        }
    }

    /// Gives free slots to the waiting searches, in order.
    fn dispatch(&mut self, now: Instant) {
        if self.closed {
            return;
        }
        while self.running() < self.slots {
            let Some(&first) = self.waiting_order().first() else {
                return;
            };
            let entry = &mut self.entries[first];
            entry.stage = Stage::Running(now);
            entry.wake.notify_one();
        }
    }

    fn remove(&mut self, id: u64) {
        self.entries.retain(|entry| entry.id != id);
    }
}

fn earliest_index(times: &[Instant]) -> usize {
    (0..times.len()).min_by_key(|&i| times[i]).unwrap_or(0)
}

impl SearchPool {
    /// A pool that runs `max_running` searches at once and lets `max_queued`
    /// more wait.
    pub fn new(max_running: usize, max_queued: usize) -> SearchPool {
        let slots = max_running.max(1);
        SearchPool {
            capacity: slots + max_queued,
            book: Arc::new(Mutex::new(Book {
                slots,
                ..Book::default()
            })),
        }
    }

    /// Searches running or waiting now.
    pub fn admitted(&self) -> usize {
        lock(&self.book).admitted()
    }

    /// Admits a search from `connection` expected to take `budget`, or
    /// refuses it at once: when by the estimate it would start with less
    /// than [`MIN_SHARE_PERCENT`] of its time left before `deadline`, or when
    /// the pool is full and it would come last (see [`SearchPool`]).
    ///
    /// # Errors
    /// `DeadlineTooShort` when the deadline has passed already; `Busy`, with
    /// the estimated wait, when refused; `ShuttingDown` once the server stops
    /// taking searches.
    pub fn admit(
        &self,
        connection: u64,
        budget: Duration,
        deadline: Option<Instant>,
    ) -> Result<Admission, ServiceError> {
        let now = Instant::now();
        if deadline.is_some_and(|deadline| deadline <= now) {
            return Err(ServiceError::DeadlineTooShort);
        }
        let mut book = lock(&self.book);
        if book.closed {
            return Err(ServiceError::ShuttingDown);
        }
        // A search cannot use more time than its deadline leaves.
        let budget = deadline.map_or(budget, |deadline| budget.min(deadline - now));
        let latest_start = deadline.map(|deadline| deadline - budget * MIN_SHARE_PERCENT / 100);
        let id = book.next_id;
        book.next_id += 1;
        let wake = Arc::new(Notify::new());
        book.entries.push(Entry {
            id,
            connection,
            budget,
            stage: Stage::Waiting,
            stop: None,
            wake: Arc::clone(&wake),
        });
        let order = book.waiting_order();
        let place = order
            .iter()
            .position(|&i| book.entries[i].id == id)
            .unwrap_or(order.len());
        let start = book.estimated_start(&order[..place], now);
        if latest_start.is_some_and(|latest| start > latest) {
            book.remove(id);
            return Err(ServiceError::Busy {
                waiting: book.admitted(),
                retry_after: start - now,
            });
        }
        if book.admitted() > self.capacity {
            // Full: the search that comes last makes room.
            let Some(&last) = order.last() else {
                book.remove(id);
                return Err(book.busy(now));
            };
            if book.entries[last].id == id {
                book.remove(id);
                return Err(book.busy(now));
            }
            book.entries[last].stage = Stage::Refused;
            book.entries[last].wake.notify_one();
        }
        book.dispatch(now);
        Ok(Admission {
            id,
            book: Arc::clone(&self.book),
            wake,
            latest_start,
        })
    }

    /// Runs `job` on a blocking thread once the search holds a slot; `stop`
    /// is raised if the server shuts down while it runs.
    ///
    /// # Errors
    /// `Busy` when no slot came free early enough after all, or the search
    /// made room for one that comes before it; `ShuttingDown` when the server
    /// stops taking searches.
    pub async fn run<F, R>(
        &self,
        admission: Admission,
        stop: Arc<AtomicBool>,
        job: F,
    ) -> Result<R, ServiceError>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        loop {
            let woken = admission.wake.notified();
            {
                let mut book = lock(&self.book);
                let now = Instant::now();
                let closed = book.closed;
                let Some(entry) = book
                    .entries
                    .iter_mut()
                    .find(|entry| entry.id == admission.id)
                else {
                    return Err(ServiceError::ShuttingDown);
                };
                match entry.stage {
                    Stage::Running(_) => {
                        if closed {
                            stop.store(true, Ordering::Relaxed);
                        }
                        entry.stop = Some(stop);
                        break;
                    }
                    Stage::Waiting if closed => return Err(ServiceError::ShuttingDown),
                    Stage::Refused => return Err(book.busy(now)),
                    Stage::Waiting
                        if admission.latest_start.is_some_and(|latest| latest <= now) =>
                    {
                        return Err(book.busy(now));
                    }
                    Stage::Waiting => {}
                }
            }
            match admission.latest_start {
                Some(latest) => {
                    let _ = tokio::time::timeout_at(latest.into(), woken).await;
                }
                None => woken.await,
            }
        }
        // The slot and the admission live as long as the search, even if the caller leaves.
        let task = tokio::task::spawn_blocking(move || {
            let _admission = admission;
            job()
        });
        task.await
            .map_err(|error| ServiceError::Internal(format!("search task failed: {error}")))
    }

    /// Takes no more searches, refuses the waiting ones, and tells the
    /// running ones to stop now and answer with the best move found so far.
    pub fn stop_all(&self) {
        let mut book = lock(&self.book);
        book.closed = true;
        for entry in &mut book.entries {
            if let Some(stop) = &entry.stop {
                stop.store(true, Ordering::Relaxed);
            }
            entry.wake.notify_one();
        }
    }
}

/// Runs replays of long games on blocking threads, a bounded number at once
/// and a bounded number waiting.
#[derive(Debug)]
pub struct ReplayPool {
    running: Arc<Semaphore>,
    admitted: Arc<AtomicUsize>,
    capacity: usize,
}

/// Counts a replay as admitted until dropped.
struct Ticket(Arc<AtomicUsize>);

impl Drop for Ticket {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// How long a refused replay is told to wait before trying again.
const REPLAY_RETRY_AFTER: Duration = Duration::from_millis(100);

impl ReplayPool {
    /// A pool that runs `threads` replays at once and lets `max_queued` more wait.
    pub fn new(threads: usize, max_queued: usize) -> ReplayPool {
        let threads = threads.max(1);
        ReplayPool {
            running: Arc::new(Semaphore::new(threads)),
            admitted: Arc::new(AtomicUsize::new(0)),
            capacity: threads + max_queued,
        }
    }

    /// Runs `job` on a blocking thread once a slot is free.
    ///
    /// # Errors
    /// `Busy` at once when the pool is full.
    pub async fn run<F, R>(&self, job: F) -> Result<R, ServiceError>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        let before = self.admitted.fetch_add(1, Ordering::AcqRel);
        let ticket = Ticket(Arc::clone(&self.admitted));
        if before >= self.capacity {
            return Err(ServiceError::Busy {
                waiting: before,
                retry_after: REPLAY_RETRY_AFTER,
            });
        }
        let permit = Arc::clone(&self.running)
            .acquire_owned()
            .await
            .map_err(|_| ServiceError::ShuttingDown)?;
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            let _ticket = ticket;
            job()
        })
        .await
        .map_err(|error| ServiceError::Internal(format!("replay task failed: {error}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: Duration = Duration::from_secs(1);
    const FLOOD: u64 = 1;
    const OTHER: u64 = 2;

    fn flag() -> Arc<AtomicBool> {
        Arc::default()
    }

    fn stage(pool: &SearchPool, admission: &Admission) -> Option<Stage> {
        lock(&pool.book)
            .entries
            .iter()
            .find(|entry| entry.id == admission.id)
            .map(|entry| entry.stage)
    }

    /// Starts a search from `connection` that runs until released; returns
    /// once it runs.
    async fn hold_slot(
        pool: &Arc<SearchPool>,
        connection: u64,
        budget: Duration,
    ) -> (std::sync::mpsc::Sender<()>, tokio::task::JoinHandle<()>) {
        let (release, wait) = std::sync::mpsc::channel::<()>();
        let (started, running) = tokio::sync::oneshot::channel::<()>();
        let admission = pool.admit(connection, budget, None).expect("admitted");
        let pool = Arc::clone(pool);
        let task = tokio::spawn(async move {
            pool.run(admission, flag(), move || {
                let _ = started.send(());
                let _ = wait.recv();
            })
            .await
            .expect("runs");
        });
        running.await.expect("the search starts");
        (release, task)
    }

    #[tokio::test]
    async fn full_pool_refuses_at_once() {
        let pool = Arc::new(SearchPool::new(1, 1));
        let (release, slow) = hold_slot(&pool, FLOOD, SECOND).await;
        let queued = pool.admit(FLOOD, SECOND, None).expect("one may wait");
        let refused = pool.admit(FLOOD, SECOND, None);
        match refused {
            Err(ServiceError::Busy { retry_after, .. }) => {
                assert!(retry_after > Duration::from_millis(1500), "{retry_after:?}");
            }
            other => panic!("{other:?}"),
        }
        release.send(()).unwrap();
        slow.await.unwrap();
        let answer = pool.run(queued, flag(), || 2).await.unwrap();
        assert_eq!(answer, 2);
        assert_eq!(pool.admitted(), 0);
    }

    #[tokio::test]
    async fn a_search_that_would_start_too_late_is_refused_at_once() {
        let pool = Arc::new(SearchPool::new(1, 8));
        let (release, slow) = hold_slot(&pool, FLOOD, 3 * SECOND).await;
        // 3 s of search ahead, and 10 s of deadline: this one would start with 7 s left.
        let deadline = Instant::now() + 10 * SECOND;
        let second = pool
            .admit(FLOOD, 3 * SECOND, Some(deadline))
            .expect("admitted");
        let third = pool
            .admit(FLOOD, 3 * SECOND, Some(deadline))
            .expect("admitted");
        // Starts in ~9 s with ~1 s left of 3 s: more than a tenth.
        let fourth = pool
            .admit(FLOOD, 3 * SECOND, Some(deadline))
            .expect("admitted");
        // Would start at ~12 s, past the deadline.
        assert!(matches!(
            pool.admit(FLOOD, 3 * SECOND, Some(deadline)),
            Err(ServiceError::Busy { .. })
        ));
        // Without a deadline it may wait.
        let patient = pool.admit(FLOOD, 3 * SECOND, None).expect("admitted");
        drop((second, third, fourth, patient));
        release.send(()).unwrap();
        slow.await.unwrap();
    }

    #[tokio::test]
    async fn waiting_past_the_latest_start_is_busy_not_deadline_exceeded() {
        let pool = Arc::new(SearchPool::new(1, 4));
        // Its budget says it ends at once, but it holds the slot.
        let (release, slow) = hold_slot(&pool, FLOOD, Duration::ZERO).await;
        let deadline = Instant::now() + Duration::from_millis(50);
        let admission = pool.admit(FLOOD, SECOND, Some(deadline)).expect("admitted");
        // It gives up before its deadline by design; when exactly the
        // refusal arrives depends on the scheduler, so only the order holds.
        let latest = admission.latest_start.expect("a deadline");
        assert!(latest < deadline);
        let late = pool.run(admission, flag(), || 1).await;
        assert!(matches!(late, Err(ServiceError::Busy { .. })), "{late:?}");
        assert!(Instant::now() >= latest, "it waited for its chance");
        release.send(()).unwrap();
        slow.await.unwrap();
    }

    #[tokio::test]
    async fn another_connections_short_search_goes_before_a_flood_of_long_ones() {
        let pool = Arc::new(SearchPool::new(1, 8));
        let (release, slow) = hold_slot(&pool, FLOOD, SECOND).await;
        let flood: Vec<Admission> = (0..4)
            .map(|_| pool.admit(FLOOD, 3 * SECOND, None).expect("admitted"))
            .collect();
        // Behind 1 s + 12 s of searches in a first-come queue it could not
        // start in 2 s; it waits only for the running one.
        let deadline = Instant::now() + 2 * SECOND;
        let short = pool
            .admit(OTHER, SECOND / 10, Some(deadline))
            .expect("admitted before the flood");
        release.send(()).unwrap();
        slow.await.unwrap();
        assert!(matches!(stage(&pool, &short), Some(Stage::Running(_))));
        assert!(
            flood
                .iter()
                .all(|admission| stage(&pool, admission) == Some(Stage::Waiting))
        );
        assert_eq!(pool.run(short, flag(), || 5).await.unwrap(), 5);
    }

    #[tokio::test]
    async fn within_a_turn_the_shorter_search_goes_first() {
        let pool = Arc::new(SearchPool::new(1, 8));
        let (release, slow) = hold_slot(&pool, FLOOD, SECOND).await;
        let long = pool.admit(OTHER, 3 * SECOND, None).expect("admitted");
        let short = pool.admit(3, SECOND / 10, None).expect("admitted");
        release.send(()).unwrap();
        slow.await.unwrap();
        assert!(matches!(stage(&pool, &short), Some(Stage::Running(_))));
        assert_eq!(stage(&pool, &long), Some(Stage::Waiting));
    }

    #[tokio::test]
    async fn a_full_pool_makes_room_by_refusing_the_floods_last_search() {
        let pool = Arc::new(SearchPool::new(1, 2));
        let (release, slow) = hold_slot(&pool, FLOOD, SECOND).await;
        let first = pool.admit(FLOOD, SECOND, None).expect("admitted");
        let last = pool.admit(FLOOD, SECOND, None).expect("admitted");
        // The flood's own next search is refused...
        assert!(matches!(
            pool.admit(FLOOD, SECOND, None),
            Err(ServiceError::Busy { .. })
        ));
        // ...another connection's is taken, and the flood's last waiting one makes room.
        let other = pool.admit(OTHER, SECOND / 2, None).expect("admitted");
        let refused = pool.run(last, flag(), || ()).await;
        assert!(
            matches!(refused, Err(ServiceError::Busy { .. })),
            "{refused:?}"
        );
        release.send(()).unwrap();
        slow.await.unwrap();
        assert!(matches!(stage(&pool, &other), Some(Stage::Running(_))));
        drop((first, other));
        assert_eq!(pool.admitted(), 0);
    }

    #[tokio::test]
    async fn stop_all_raises_the_running_searches_flags() {
        let pool = Arc::new(SearchPool::new(1, 1));
        let stop = flag();
        let admission = pool.admit(FLOOD, SECOND, None).unwrap();
        let waiting = pool.admit(FLOOD, SECOND, None).unwrap();
        let running = Arc::clone(&pool);
        let watched = Arc::clone(&stop);
        let (started, running_now) = tokio::sync::oneshot::channel::<()>();
        let search = tokio::spawn(async move {
            running
                .run(admission, watched.clone(), move || {
                    let _ = started.send(());
                    while !watched.load(Ordering::Relaxed) {
                        std::thread::sleep(Duration::from_millis(1));
                    }
                    "stopped"
                })
                .await
        });
        running_now.await.unwrap();
        pool.stop_all();
        assert_eq!(search.await.unwrap().unwrap(), "stopped");
        assert!(matches!(
            pool.run(waiting, flag(), || ()).await,
            Err(ServiceError::ShuttingDown)
        ));
        assert!(matches!(
            pool.admit(FLOOD, SECOND, None),
            Err(ServiceError::ShuttingDown)
        ));
    }
}
