//! The search pool: the [`Scheduler`] behind a mutex, a wake-up for each
//! admitted search, and the blocking threads the searches run on. What
//! runs next and what is refused is the scheduler's to decide; this file
//! only waits for its word and tells the searches to stop at shutdown.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use tokio::sync::Notify;

use super::ExecError;
use super::scheduler::{Scheduler, SearchId, Turn, Work};

/// Admits searches and runs them on blocking threads, in the order and
/// with the refusals of [`Scheduler`] (see `exec/scheduler.rs`). At shutdown
/// it tells the running searches to stop and answer.
#[derive(Debug)]
pub struct SearchPool {
    book: Arc<Mutex<Book>>,
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

impl Book {
    fn wake(&self, searches: &[SearchId]) {
        for id in searches {
            if let Some(handles) = self.searches.get(id) {
                handles.wake.notify_one();
            }
        }
    }
}

/// One admitted search's place in the book: it leaves the book (and frees
/// its slot) when this is dropped, whether the search finished, failed or
/// the caller went away.
#[derive(Debug)]
pub struct Admission {
    id: SearchId,
    book: Arc<Mutex<Book>>,
    wake: Arc<Notify>,
    /// The search ran to its end, not stopped: what it took is worth learning.
    ran_to_end: bool,
}

impl Drop for Admission {
    fn drop(&mut self) {
        let mut book = lock(&self.book);
        book.searches.remove(&self.id);
        let started = book
            .scheduler
            .leave(self.id, Instant::now(), self.ran_to_end);
        book.wake(&started);
    }
}

fn lock(book: &Mutex<Book>) -> MutexGuard<'_, Book> {
    book.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl SearchPool {
    /// A pool that runs `max_running` searches at once and lets `max_queued`
    /// more wait.
    pub fn new(max_running: usize, max_queued: usize) -> SearchPool {
        SearchPool {
            book: Arc::new(Mutex::new(Book {
                scheduler: Scheduler::new(max_running, max_queued),
                searches: HashMap::new(),
            })),
        }
    }

    /// Searches running or waiting now.
    pub fn admitted(&self) -> usize {
        lock(&self.book).scheduler.admitted()
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
        let admitted = book
            .scheduler
            .admit(connection, work, deadline, Instant::now())?;
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
            ran_to_end: false,
        })
    }

    /// Runs `job` on a blocking thread once the search holds a slot; `stop`
    /// is raised if the server shuts down while it runs. A job that ends
    /// with `stop` down ran to its end: its time is learned for its kind.
    ///
    /// # Errors
    /// `Busy` when no slot came free early enough after all, or the search
    /// made room for one that comes before it; `ShuttingDown` when the server
    /// stops taking searches; `Failed` when the job panicked.
    pub async fn run<F, R>(
        &self,
        admission: Admission,
        stop: Arc<AtomicBool>,
        job: F,
    ) -> Result<R, ExecError>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
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
                            handles.stop = Some(Arc::clone(&stop));
                        }
                        break;
                    }
                    Turn::Refused(error) => return Err(error),
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
        // The slot and the admission live as long as the search, even if the caller leaves.
        let watched = Arc::clone(&stop);
        let task = tokio::task::spawn_blocking(move || {
            let mut admission = admission;
            let answer = job();
            admission.ran_to_end = !watched.load(Ordering::Relaxed);
            answer
        });
        task.await
            .map_err(|error| ExecError::Failed(format!("search task failed: {error}")))
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

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
        let queued = pool
            .admit(FLOOD, search(SECOND), None)
            .expect("one may wait");
        let refused = pool.admit(FLOOD, search(SECOND), None);
        match refused {
            Err(ExecError::Busy { retry_after, .. }) => {
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
    async fn waiting_past_the_latest_start_is_busy_not_deadline_exceeded() {
        let pool = Arc::new(SearchPool::new(1, 4));
        // Its budget says it ends at once, but it holds the slot.
        let (release, slow) = hold_slot(&pool, FLOOD, Duration::ZERO).await;
        let deadline = Instant::now() + Duration::from_millis(50);
        let admission = pool
            .admit(FLOOD, search(SECOND), Some(deadline))
            .expect("admitted");
        // It gives up before its deadline by design (exec/scheduler.rs tests
        // when); when exactly the refusal arrives depends on the runtime.
        let late = pool.run(admission, flag(), || 1).await;
        assert!(matches!(late, Err(ExecError::Busy { .. })), "{late:?}");
        assert!(
            Instant::now() >= deadline - Duration::from_millis(5),
            "it waited for its chance"
        );
        release.send(()).unwrap();
        slow.await.unwrap();
    }

    #[tokio::test]
    async fn a_search_refused_to_make_room_is_told_at_once() {
        let pool = Arc::new(SearchPool::new(1, 1));
        let (release, slow) = hold_slot(&pool, FLOOD, SECOND).await;
        let last = pool.admit(FLOOD, search(SECOND), None).expect("admitted");
        let waiting = tokio::spawn({
            let pool = Arc::clone(&pool);
            async move { pool.run(last, flag(), || ()).await }
        });
        // Another connection's search takes its place; the waiting one is woken to hear so.
        let other = pool.admit(2, search(SECOND / 2), None).expect("admitted");
        let refused = waiting.await.unwrap();
        assert!(
            matches!(refused, Err(ExecError::Busy { .. })),
            "{refused:?}"
        );
        release.send(()).unwrap();
        slow.await.unwrap();
        assert_eq!(pool.run(other, flag(), || 3).await.unwrap(), 3);
    }

    #[tokio::test]
    async fn stop_all_raises_the_running_searches_flags() {
        let pool = Arc::new(SearchPool::new(1, 1));
        let stop = flag();
        let admission = pool.admit(FLOOD, search(SECOND), None).unwrap();
        let waiting = pool.admit(FLOOD, search(SECOND), None).unwrap();
        let running = Arc::clone(&pool);
        let watched = Arc::clone(&stop);
        let (started, running_now) = tokio::sync::oneshot::channel::<()>();
        let running_search = tokio::spawn(async move {
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
        assert_eq!(running_search.await.unwrap().unwrap(), "stopped");
        assert!(matches!(
            pool.run(waiting, flag(), || ()).await,
            Err(ExecError::ShuttingDown)
        ));
        assert!(matches!(
            pool.admit(FLOOD, search(SECOND), None),
            Err(ExecError::ShuttingDown)
        ));
    }
}
