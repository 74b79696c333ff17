//! A budget of request bytes, shared by the calls that hold some of it: one
//! per connection (kept with the connection) and one for the whole server
//! (kept by the request-bytes layer).

use std::sync::Arc;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// A budget of request bytes (tokio semaphores count at most `u32::MAX` per acquire).
#[derive(Clone, Debug)]
pub struct ByteBudget(Arc<Semaphore>);

impl ByteBudget {
    /// A budget of `bytes`.
    pub fn new(bytes: usize) -> ByteBudget {
        ByteBudget(Arc::new(Semaphore::new(bytes.min(Semaphore::MAX_PERMITS))))
    }

    /// `bytes` of the budget, held until the permit is dropped; `None` when they do not fit now.
    pub fn try_take(&self, bytes: u32) -> Option<OwnedSemaphorePermit> {
        Arc::clone(&self.0).try_acquire_many_owned(bytes).ok()
    }
}
