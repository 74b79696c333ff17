//! The bounded pools that blocking work runs on, never the async runtime's
//! threads (those answer health checks and every other call):
//!
//! - [`SearchPool`]: at most N searches at once and M waiting, admitted only
//!   if they can start early enough to use a fair share of their time before
//!   their deadline; refused at once otherwise, with the wait worth trying
//!   after. At shutdown it tells the running searches to stop and answer.
//! - [`ReplayPool`]: the replays of long games (a few milliseconds each),
//!   at most one per core at once and a bounded number waiting.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tokio::sync::Semaphore;

use super::error::ServiceError;

/// A search that could start with less than this share (in percent) of its
/// time budget left before its deadline is refused instead.
pub const MIN_SHARE_PERCENT: u32 = 10;

/// Admits searches and runs them on blocking threads.
#[derive(Debug)]
pub struct SearchPool {
    running: Arc<Semaphore>,
    slots: usize,
    capacity: usize,
    book: Arc<Mutex<Book>>,
}

/// The admitted searches, in the order they were admitted.
#[derive(Debug, Default)]
struct Book {
    next_id: u64,
    entries: Vec<Entry>,
}

#[derive(Debug)]
struct Entry {
    id: u64,
    /// How long the search is expected to hold its slot.
    budget: Duration,
    /// Set once it holds a slot.
    started: Option<Instant>,
    /// Raised to make it stop and answer with what it has.
    stop: Option<Arc<AtomicBool>>,
}

/// One admitted search's place in the book: it leaves the book when this is
/// dropped, whether the search finished, failed or the caller went away.
#[derive(Debug)]
pub struct Admission {
    id: u64,
    book: Arc<Mutex<Book>>,
    /// Past this the search would have too little of its time left: it is
    /// refused rather than started.
    latest_start: Option<Instant>,
}

impl Drop for Admission {
    fn drop(&mut self) {
        lock(&self.book).entries.retain(|entry| entry.id != self.id);
    }
}

fn lock(book: &Mutex<Book>) -> MutexGuard<'_, Book> {
    book.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Book {
    /// When a search admitted now could start: each slot is free once its
    /// search's budget is spent, and the searches admitted before take the
    /// slots in turn.
    fn estimated_start(&self, slots: usize, now: Instant) -> Instant {
        let mut free_at: Vec<Instant> = self
            .entries
            .iter()
            .filter_map(|entry| {
                entry
                    .started
                    .map(|started| (started + entry.budget).max(now))
            })
            .collect();
        free_at.resize(free_at.len().max(slots), now);
        for waiting in self.entries.iter().filter(|entry| entry.started.is_none()) {
            let earliest = earliest_index(&free_at);
            free_at[earliest] += waiting.budget;
        }
        free_at[earliest_index(&free_at)]
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
            running: Arc::new(Semaphore::new(slots)),
            slots,
            capacity: slots + max_queued,
            book: Arc::default(),
        }
    }

    /// Searches running or waiting now.
    pub fn admitted(&self) -> usize {
        lock(&self.book).entries.len()
    }

    /// Admits a search expected to take `budget`, or refuses it at once:
    /// when the pool is full, or when by the estimate it would start with
    /// less than [`MIN_SHARE_PERCENT`] of its time left before `deadline`.
    ///
    /// # Errors
    /// `DeadlineTooShort` when the deadline has passed already; `Busy`, with
    /// the estimated wait, when refused.
    pub fn admit(
        &self,
        budget: Duration,
        deadline: Option<Instant>,
    ) -> Result<Admission, ServiceError> {
        let now = Instant::now();
        if deadline.is_some_and(|deadline| deadline <= now) {
            return Err(ServiceError::DeadlineTooShort);
        }
        let mut book = lock(&self.book);
        let start = book.estimated_start(self.slots, now);
        let busy = || ServiceError::Busy {
            waiting: book.entries.len(),
            retry_after: start - now,
        };
        if book.entries.len() >= self.capacity {
            return Err(busy());
        }
        // A search cannot use more time than its deadline leaves.
        let latest_start = deadline.map(|deadline| {
            let budget = budget.min(deadline - now);
            deadline - budget * MIN_SHARE_PERCENT / 100
        });
        if latest_start.is_some_and(|latest| start > latest) {
            return Err(busy());
        }
        let id = book.next_id;
        book.next_id += 1;
        book.entries.push(Entry {
            id,
            budget: deadline.map_or(budget, |deadline| budget.min(deadline - now)),
            started: None,
            stop: None,
        });
        Ok(Admission {
            id,
            book: Arc::clone(&self.book),
            latest_start,
        })
    }

    /// Runs `job` on a blocking thread once a slot is free; `stop` is raised
    /// if the server shuts down while it runs.
    ///
    /// # Errors
    /// `Busy` when no slot came free early enough after all;
    /// `ShuttingDown` when the server stops taking searches.
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
        let acquire = Arc::clone(&self.running).acquire_owned();
        let permit = match admission.latest_start {
            Some(latest_start) => tokio::time::timeout_at(latest_start.into(), acquire)
                .await
                .map_err(|_| {
                    let book = lock(&self.book);
                    let now = Instant::now();
                    ServiceError::Busy {
                        waiting: book.entries.len(),
                        retry_after: book.estimated_start(self.slots, now) - now,
                    }
                })?,
            None => acquire.await,
        }
        .map_err(|_| ServiceError::ShuttingDown)?;
        if let Some(entry) = lock(&self.book)
            .entries
            .iter_mut()
            .find(|entry| entry.id == admission.id)
        {
            entry.started = Some(Instant::now());
            entry.stop = Some(stop);
        }
        // The slot and the admission live as long as the search, even if the caller leaves.
        let task = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            let _admission = admission;
            job()
        });
        task.await
            .map_err(|error| ServiceError::Internal(format!("search task failed: {error}")))
    }

    /// Takes no more searches, and tells the running ones to stop now and
    /// answer with the best move found so far.
    pub fn stop_all(&self) {
        self.running.close();
        for entry in &lock(&self.book).entries {
            if let Some(stop) = &entry.stop {
                stop.store(true, Ordering::Relaxed);
            }
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

    fn flag() -> Arc<AtomicBool> {
        Arc::default()
    }

    /// Starts a search that runs until released; returns once it holds a slot.
    async fn hold_slot(
        pool: &Arc<SearchPool>,
        budget: Duration,
    ) -> (std::sync::mpsc::Sender<()>, tokio::task::JoinHandle<()>) {
        let (release, wait) = std::sync::mpsc::channel::<()>();
        let admission = pool.admit(budget, None).expect("admitted");
        let running = Arc::clone(pool);
        let before = pool.running.available_permits();
        let task = tokio::spawn(async move {
            running
                .run(admission, flag(), move || {
                    let _ = wait.recv();
                })
                .await
                .expect("runs");
        });
        while pool.running.available_permits() == before {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        (release, task)
    }

    #[tokio::test]
    async fn full_pool_refuses_at_once() {
        let pool = Arc::new(SearchPool::new(1, 1));
        let (release, slow) = hold_slot(&pool, SECOND).await;
        let queued = pool.admit(SECOND, None).expect("one may wait");
        let refused = pool.admit(SECOND, None);
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
        let (release, slow) = hold_slot(&pool, 3 * SECOND).await;
        // 3 s of search ahead, and 10 s of deadline: this one would start with 7 s left.
        let deadline = Instant::now() + 10 * SECOND;
        let second = pool.admit(3 * SECOND, Some(deadline)).expect("admitted");
        let third = pool.admit(3 * SECOND, Some(deadline)).expect("admitted");
        // Starts in ~9 s with ~1 s left of 3 s: more than a tenth.
        let fourth = pool.admit(3 * SECOND, Some(deadline)).expect("admitted");
        // Would start at ~12 s, past the deadline.
        assert!(matches!(
            pool.admit(3 * SECOND, Some(deadline)),
            Err(ServiceError::Busy { .. })
        ));
        // Without a deadline it may wait.
        let patient = pool.admit(3 * SECOND, None).expect("admitted");
        drop((second, third, fourth, patient));
        release.send(()).unwrap();
        slow.await.unwrap();
    }

    #[tokio::test]
    async fn waiting_past_the_latest_start_is_busy_not_deadline_exceeded() {
        let pool = Arc::new(SearchPool::new(1, 4));
        // Its budget says it ends at once, but it holds the slot.
        let (release, slow) = hold_slot(&pool, Duration::ZERO).await;
        let deadline = Instant::now() + Duration::from_millis(50);
        let admission = pool.admit(SECOND, Some(deadline)).expect("admitted");
        let late = pool.run(admission, flag(), || 1).await;
        assert!(matches!(late, Err(ServiceError::Busy { .. })), "{late:?}");
        assert!(Instant::now() < deadline, "refused before the deadline");
        release.send(()).unwrap();
        slow.await.unwrap();
    }

    #[tokio::test]
    async fn stop_all_raises_the_running_searches_flags() {
        let pool = Arc::new(SearchPool::new(1, 1));
        let stop = flag();
        let admission = pool.admit(SECOND, None).unwrap();
        let running = Arc::clone(&pool);
        let watched = Arc::clone(&stop);
        let search = tokio::spawn(async move {
            running
                .run(admission, watched.clone(), move || {
                    while !watched.load(Ordering::Relaxed) {
                        std::thread::sleep(Duration::from_millis(1));
                    }
                    "stopped"
                })
                .await
        });
        while pool.running.available_permits() > 0 {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        pool.stop_all();
        assert_eq!(search.await.unwrap().unwrap(), "stopped");
        let after = pool.admit(SECOND, None).unwrap();
        assert!(matches!(
            pool.run(after, flag(), || ()).await,
            Err(ServiceError::ShuttingDown)
        ));
    }
}
