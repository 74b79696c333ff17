//! The bounded pool searches run on: never the async runtime's threads, at
//! most N at once, at most M waiting; past that RESOURCE_EXHAUSTED at once.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use tokio::sync::Semaphore;

use super::error::ServiceError;

/// Admits searches and runs them on blocking threads.
#[derive(Debug)]
pub struct SearchPool {
    running: Arc<Semaphore>,
    admitted: Arc<AtomicUsize>,
    capacity: usize,
}

/// One admitted search: the count goes down when it is dropped, whether the
/// search finished, failed or the caller went away.
struct Ticket(Arc<AtomicUsize>);

impl Drop for Ticket {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl SearchPool {
    /// A pool that runs `max_running` searches at once and lets `max_queued`
    /// more wait.
    pub fn new(max_running: usize, max_queued: usize) -> SearchPool {
        let max_running = max_running.max(1);
        SearchPool {
            running: Arc::new(Semaphore::new(max_running)),
            admitted: Arc::new(AtomicUsize::new(0)),
            capacity: max_running + max_queued,
        }
    }

    /// Searches running or waiting now.
    pub fn admitted(&self) -> usize {
        self.admitted.load(Ordering::Acquire)
    }

    /// Runs `job` on a blocking thread once a slot is free.
    ///
    /// # Errors
    /// `Busy` at once when the pool is full; `DeadlineTooShort` when the
    /// deadline passes while the search still waits for a slot.
    pub async fn run<F, R>(&self, deadline: Option<Instant>, job: F) -> Result<R, ServiceError>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        let before = self.admitted.fetch_add(1, Ordering::AcqRel);
        let ticket = Ticket(Arc::clone(&self.admitted));
        if before >= self.capacity {
            return Err(ServiceError::Busy { waiting: before });
        }
        let acquire = Arc::clone(&self.running).acquire_owned();
        let permit = match deadline {
            Some(deadline) => tokio::time::timeout_at(deadline.into(), acquire)
                .await
                .map_err(|_| ServiceError::DeadlineTooShort)?,
            None => acquire.await,
        }
        .map_err(|_| ServiceError::ShuttingDown)?;
        // The permit and ticket live as long as the search, even if the caller leaves.
        let task = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            let _ticket = ticket;
            job()
        });
        task.await
            .map_err(|error| ServiceError::Internal(format!("search task failed: {error}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn full_pool_refuses_at_once() {
        let pool = Arc::new(SearchPool::new(1, 1));
        let (release, wait) = std::sync::mpsc::channel::<()>();
        let slow = {
            let pool = Arc::clone(&pool);
            tokio::spawn(async move { pool.run(None, move || wait.recv().ok()).await })
        };
        while pool.admitted() < 1 {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        let queued = {
            let pool = Arc::clone(&pool);
            tokio::spawn(async move { pool.run(None, || 2).await })
        };
        while pool.admitted() < 2 {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        let refused = pool.run(None, || 3).await;
        assert!(matches!(refused, Err(ServiceError::Busy { .. })));
        release.send(()).unwrap();
        assert!(slow.await.unwrap().is_ok());
        assert_eq!(queued.await.unwrap().unwrap(), 2);
        assert_eq!(pool.admitted(), 0);
    }

    #[tokio::test]
    async fn waiting_past_the_deadline_is_deadline_exceeded() {
        let pool = Arc::new(SearchPool::new(1, 4));
        let (release, wait) = std::sync::mpsc::channel::<()>();
        let slow = {
            let pool = Arc::clone(&pool);
            tokio::spawn(async move { pool.run(None, move || wait.recv().ok()).await })
        };
        while pool.admitted() < 1 {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        let deadline = Instant::now() + Duration::from_millis(20);
        let late = pool.run(Some(deadline), || 1).await;
        assert!(matches!(late, Err(ServiceError::DeadlineTooShort)));
        release.send(()).unwrap();
        slow.await.unwrap().unwrap();
    }
}
