//! The search pool: the [`Scheduler`] behind a mutex, a wake-up for each
//! admitted search, the places the searches hold, and the blocking threads
//! they run on, where they share the cores ([`CoreShare`]). What runs next
//! and what is refused is the scheduler's to decide, and who computes the
//! cores' to decide; this file only waits for their word and tells the
//! searches to stop at shutdown.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use super::core_share::{CoreShare, CoreTurn, CoreUsage};
use super::scheduler::{Scheduler, SearchId, Turn, Work};
use super::{ExecError, Pool, metrics};

/// Admits searches to its places and runs them on blocking threads, in the
/// order and with the refusals of [`Scheduler`] (see `exec/scheduler.rs`),
/// each computing on the cores it shares with every other search (see
/// `exec/cores.rs`). At shutdown it tells the running searches to stop and
/// answer.
#[derive(Debug)]
pub struct SearchPool {
    pool: Pool,
    book: Arc<Mutex<Book>>,
    cores: Arc<CoreShare>,
}

/// The scheduler and what reaches each admitted search.
#[derive(Debug)]
struct Book {
    scheduler: Scheduler,
    searches: HashMap<SearchId, Handles>,
}

#[derive(Debug)]
struct Handles {
    /// Told when the search's stage changes.
    wake: Arc<Notify>,
    /// Raised to make it stop and answer with what it has, once it runs.
    stop: Option<Arc<AtomicBool>>,
}

/// Reads a pool's load while it lasts (see [`SearchPool::load_reader`]).
pub type LoadReader = Box<dyn Fn() -> Option<(usize, usize)> + Send + Sync>;

impl Book {
    fn load(&self) -> (usize, usize) {
        let admitted = self.scheduler.admitted();
        let running = self.scheduler.running();
        (running, admitted - running)
    }

    fn wake(&self, searches: &[SearchId]) {
        for id in searches {
            if let Some(handles) = self.searches.get(id) {
                handles.wake.notify_one();
            }
        }
    }
}

/// One admitted search's place in the book: it leaves the book (and frees
/// its place) when this is dropped, whether the search finished, failed or
/// the caller went away.
#[derive(Debug)]
pub struct Admission {
    id: SearchId,
    book: Arc<Mutex<Book>>,
    wake: Arc<Notify>,
    /// The connection it came on: the cores are shared out per connection too.
    connection: u64,
    /// When it was admitted: its wait for a place is counted from here.
    admitted: Instant,
    /// Its call's deadline.
    deadline: Option<Instant>,
    /// The search ran to its end, not stopped: what it took is worth learning.
    ran_to_end: AtomicBool,
}

impl Drop for Admission {
    fn drop(&mut self) {
        let mut book = lock(&self.book);
        book.searches.remove(&self.id);
        let started = book.scheduler.leave(
            self.id,
            Instant::now(),
            self.ran_to_end.load(Ordering::Relaxed),
        );
        book.wake(&started);
    }
}

/// A place held: an admitted search whose turn has come. Its jobs run on
/// blocking threads ([`Place::run`]); the place is given back when the
/// last of the holder and its running job lets go of it, so a job the
/// caller left still holds its place until it ends.
#[derive(Debug)]
pub struct Place {
    admission: Arc<Admission>,
    cores: Arc<CoreShare>,
    /// How long the search waited for its place.
    queued: Duration,
}

/// What a job had of the pool: the wait for its place, and the cores.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    /// Time waiting for a place.
    pub queued: Duration,
    /// Time computing on a core, and waiting for one.
    pub cores: CoreUsage,
}

impl Usage {
    /// The whole wait: for a place and for the cores.
    pub fn waited(&self) -> Duration {
        self.queued + self.cores.waited
    }
}

fn lock(book: &Mutex<Book>) -> MutexGuard<'_, Book> {
    book.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl SearchPool {
    /// A pool of `pool`'s work: `places` searches running at once and `max_queued` more
    /// waiting, computing on `cores`.
    pub fn new(pool: Pool, places: usize, max_queued: usize, cores: Arc<CoreShare>) -> SearchPool {
        SearchPool {
            pool,
            book: Arc::new(Mutex::new(Book {
                scheduler: Scheduler::new(pool, places, max_queued),
                searches: HashMap::new(),
            })),
            cores,
        }
    }

    /// No connection holds more than `cap` of the places (see [`Scheduler::with_connection_cap`]).
    pub fn with_connection_cap(self, cap: usize) -> SearchPool {
        lock(&self.book).scheduler.cap_connections(cap);
        self
    }

    /// Searches running or waiting now.
    pub fn admitted(&self) -> usize {
        lock(&self.book).scheduler.admitted()
    }

    /// Searches holding a place, and waiting for one.
    pub fn load(&self) -> (usize, usize) {
        lock(&self.book).load()
    }

    /// What work it runs.
    pub fn pool(&self) -> Pool {
        self.pool
    }

    /// Reads [`SearchPool::load`] later, while the pool lasts, without keeping it.
    pub fn load_reader(&self) -> LoadReader {
        let book = Arc::downgrade(&self.book);
        Box::new(move || book.upgrade().map(|book| lock(&book).load()))
    }

    /// Admits `work` from `connection`, or refuses it at once (see
    /// [`Scheduler::admit`]).
    ///
    /// # Errors
    /// As [`Scheduler::admit`].
    pub fn admit(
        &self,
        connection: u64,
        work: Work,
        deadline: Option<Instant>,
    ) -> Result<Admission, ExecError> {
        let mut book = lock(&self.book);
        let now = Instant::now();
        let admitted = book
            .scheduler
            .admit(connection, work, deadline, now)
            .inspect_err(|error| metrics::record_refusal(self.pool, error))?;
        let wake = Arc::new(Notify::new());
        book.searches.insert(
            admitted.id,
            Handles {
                wake: Arc::clone(&wake),
                stop: None,
            },
        );
        book.wake(&admitted.woken);
        Ok(Admission {
            id: admitted.id,
            book: Arc::clone(&self.book),
            wake,
            connection,
            admitted: now,
            deadline,
            ran_to_end: AtomicBool::new(false),
        })
    }

    /// Waits for the search's place; `stop` is raised if the server shuts
    /// down while it holds it.
    ///
    /// # Errors
    /// `Busy` when no place came free early enough after all, or the search
    /// made room for one that comes before it; `ShuttingDown` when the
    /// server stops taking searches.
    pub async fn hold(
        &self,
        admission: Admission,
        stop: &Arc<AtomicBool>,
    ) -> Result<Place, ExecError> {
        loop {
            let woken = admission.wake.notified();
            let latest_start = {
                let mut book = lock(&self.book);
                match book.scheduler.turn(admission.id, Instant::now()) {
                    Turn::Run => {
                        if book.scheduler.is_closed() {
                            stop.store(true, Ordering::Relaxed);
                        }
                        if let Some(handles) = book.searches.get_mut(&admission.id) {
                            handles.stop = Some(Arc::clone(stop));
                        }
                        break;
                    }
                    Turn::Refused(error) => {
                        metrics::record_refusal(self.pool, &error);
                        return Err(error);
                    }
                    Turn::Wait(latest_start) => latest_start,
                }
            };
            match latest_start {
                Some(latest) => {
                    let _ = tokio::time::timeout_at(latest.into(), woken).await;
                }
                None => woken.await,
            }
        }
        Ok(Place {
            queued: admission.admitted.elapsed(),
            admission: Arc::new(admission),
            cores: Arc::clone(&self.cores),
        })
    }

    /// Runs `job` on a blocking thread once the search holds a place (see
    /// [`Place::run`]), and gives the place back. A job that ends with `stop`
    /// down ran to its end: its time is learned for its kind.
    ///
    /// # Errors
    /// As [`SearchPool::hold`]; `Failed` when the job panicked.
    pub async fn run<F, R>(
        &self,
        admission: Admission,
        stop: Arc<AtomicBool>,
        job: F,
    ) -> Result<(R, Usage), ExecError>
    where
        F: FnOnce(&CoreTurn) -> R + Send + 'static,
        R: Send + 'static,
    {
        let place = self.hold(admission, &stop).await?;
        let (answer, cores) = place.run(stop, job).await?;
        Ok((
            answer,
            Usage {
                queued: place.queued(),
                cores,
            },
        ))
    }

    /// Takes no more searches, refuses the waiting ones, and tells the
    /// running ones to stop now and answer with the best move found so far.
    pub fn stop_all(&self) {
        let mut book = lock(&self.book);
        book.scheduler.close();
        for handles in book.searches.values() {
            if let Some(stop) = &handles.stop {
                stop.store(true, Ordering::Relaxed);
            }
            handles.wake.notify_one();
        }
    }
}

impl Place {
    /// How long the search waited for its place.
    pub fn queued(&self) -> Duration {
        self.queued
    }

    /// Runs `job` on a blocking thread, computing on the cores in turn with
    /// the other searches (the job gives its [`CoreTurn`] to the search);
    /// `stop` stops a wait for a core too. What it had of the cores comes
    /// back with its answer; a job that ends with `stop` down ran to its end.
    ///
    /// # Errors
    /// `Failed` when the job panicked.
    pub async fn run<F, R>(
        &self,
        stop: Arc<AtomicBool>,
        job: F,
    ) -> Result<(R, CoreUsage), ExecError>
    where
        F: FnOnce(&CoreTurn) -> R + Send + 'static,
        R: Send + 'static,
    {
        // The place and the admission live as long as the job, even if the caller leaves.
        let admission = Arc::clone(&self.admission);
        let cores = Arc::clone(&self.cores);
        let task = tokio::task::spawn_blocking(move || {
            let turn = cores.join(admission.connection, admission.deadline, &stop);
            let answer = job(&turn);
            admission
                .ran_to_end
                .store(!stop.load(Ordering::Relaxed), Ordering::Relaxed);
            let usage = turn.usage();
            drop(turn);
            (answer, usage)
        });
        task.await
            .map_err(|error| ExecError::Failed(format!("search task failed: {error}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::exec::Busy;

    const SECOND: Duration = Duration::from_secs(1);
    const FLOOD: u64 = 1;

    fn search(bound: Duration) -> Work {
        Work::bounded(crate::service::exec::WorkKind::Search, bound)
    }

    fn flag() -> Arc<AtomicBool> {
        Arc::default()
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
        let admission = pool
            .admit(connection, search(budget), None)
            .expect("admitted");
        let pool = Arc::clone(pool);
        let task = tokio::spawn(async move {
            pool.run(admission, flag(), move |_| {
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
        let pool = Arc::new(SearchPool::new(Pool::Searches, 1, 1, CoreShare::new(1)));
        let (release, slow) = hold_slot(&pool, FLOOD, SECOND).await;
        let queued = pool
            .admit(FLOOD, search(SECOND), None)
            .expect("one may wait");
        let refused = pool.admit(FLOOD, search(SECOND), None);
        match refused {
            Err(ExecError::Busy(Busy { retry_after, .. })) => {
                assert!(retry_after > Duration::from_millis(1500), "{retry_after:?}");
            }
            other => panic!("{other:?}"),
        }
        release.send(()).unwrap();
        slow.await.unwrap();
        let (answer, _) = pool.run(queued, flag(), |_| 2).await.unwrap();
        assert_eq!(answer, 2);
        assert_eq!(pool.admitted(), 0);
    }

    #[tokio::test]
    async fn waiting_past_the_latest_start_is_busy_not_deadline_exceeded() {
        let pool = Arc::new(SearchPool::new(Pool::Searches, 1, 4, CoreShare::new(1)));
        // Its budget says it ends at once, but it holds the slot.
        let (release, slow) = hold_slot(&pool, FLOOD, Duration::ZERO).await;
        let deadline = Instant::now() + Duration::from_millis(50);
        let admission = pool
            .admit(FLOOD, search(SECOND), Some(deadline))
            .expect("admitted");
        // It gives up before its deadline by design (exec/scheduler.rs tests
        // when); when exactly the refusal arrives depends on the runtime.
        let late = pool.run(admission, flag(), |_| 1).await;
        assert!(matches!(late, Err(ExecError::Busy(_))), "{late:?}");
        assert!(
            Instant::now() >= deadline - Duration::from_millis(5),
            "it waited for its chance"
        );
        release.send(()).unwrap();
        slow.await.unwrap();
    }

    #[tokio::test]
    async fn a_search_refused_to_make_room_is_told_at_once() {
        let pool = Arc::new(SearchPool::new(Pool::Searches, 1, 1, CoreShare::new(1)));
        let (release, slow) = hold_slot(&pool, FLOOD, SECOND).await;
        let last = pool.admit(FLOOD, search(SECOND), None).expect("admitted");
        let waiting = tokio::spawn({
            let pool = Arc::clone(&pool);
            async move { pool.run(last, flag(), |_| ()).await }
        });
        // Another connection's search takes its place; the waiting one is woken to hear so.
        let other = pool.admit(2, search(SECOND / 2), None).expect("admitted");
        let refused = waiting.await.unwrap();
        assert!(matches!(refused, Err(ExecError::Busy(_))), "{refused:?}");
        release.send(()).unwrap();
        slow.await.unwrap();
        assert_eq!(pool.run(other, flag(), |_| 3).await.unwrap().0, 3);
    }

    #[tokio::test]
    async fn stop_all_raises_the_running_searches_flags() {
        let pool = Arc::new(SearchPool::new(Pool::Searches, 1, 1, CoreShare::new(1)));
        let stop = flag();
        let admission = pool.admit(FLOOD, search(SECOND), None).unwrap();
        let waiting = pool.admit(FLOOD, search(SECOND), None).unwrap();
        let running = Arc::clone(&pool);
        let watched = Arc::clone(&stop);
        let (started, running_now) = tokio::sync::oneshot::channel::<()>();
        let running_search = tokio::spawn(async move {
            running
                .run(admission, watched.clone(), move |_| {
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
        assert_eq!(running_search.await.unwrap().unwrap().0, "stopped");
        assert!(matches!(
            pool.run(waiting, flag(), |_| ()).await,
            Err(ExecError::ShuttingDown)
        ));
        assert!(matches!(
            pool.admit(FLOOD, search(SECOND), None),
            Err(ExecError::ShuttingDown)
        ));
    }
}
