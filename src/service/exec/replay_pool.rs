//! The replays of long games (a few milliseconds each), at most a few at
//! once and a bounded number waiting, on blocking threads.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::sync::Semaphore;

use super::{Busy, ExecError, Pool, Refusal};

/// Runs replays of long games on blocking threads, a bounded number at once
/// and a bounded number waiting.
#[derive(Debug)]
pub struct ReplayPool {
    running: Arc<Semaphore>,
    admitted: Arc<AtomicUsize>,
    capacity: usize,
    /// Replays run at once.
    threads: usize,
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
            threads,
        }
    }

    /// Runs `job` on a blocking thread once a slot is free.
    ///
    /// # Errors
    /// `Busy` at once when the pool is full.
    pub async fn run<F, R>(&self, job: F) -> Result<R, ExecError>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        let before = self.admitted.fetch_add(1, Ordering::AcqRel);
        let ticket = Ticket(Arc::clone(&self.admitted));
        if before >= self.capacity {
            let running = self.threads.min(before);
            return Err(ExecError::Busy(Busy {
                pool: Pool::Replays,
                why: Refusal::Full,
                running,
                waiting: before - running,
                retry_after: REPLAY_RETRY_AFTER,
            }));
        }
        let permit = Arc::clone(&self.running)
            .acquire_owned()
            .await
            .map_err(|_| ExecError::ShuttingDown)?;
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            let _ticket = ticket;
            job()
        })
        .await
        .map_err(|error| ExecError::Failed(format!("replay task failed: {error}")))
    }
}
