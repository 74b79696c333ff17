//! Where the blocking work runs, never on the async runtime's threads (those
//! answer health checks and every other call):
//!
//! - the search pool: at most N searches at once and M waiting, admitted only
//!   if they can start early enough to use a fair share of their time before
//!   their deadline; refused at once otherwise, with the wait worth trying
//!   after. Its policy (a bounded share per connection, a bounded share for
//!   analyses, shortest first with aging, costs learned from what searches
//!   took) is the pure [`scheduler`] with its [`cost`] model; [`SearchPool`]
//!   is the async glue around it, and at shutdown tells the running searches
//!   to stop and answer.
//! - [`ReplayPool`]: the replays of long games, at most one per replay
//!   thread at once and a bounded number waiting.

mod core_share;
mod cores;
mod cost;
mod replay_pool;
mod scheduler;
mod search_pool;

use std::time::Duration;

pub use core_share::CoreShare;
pub use cost::CostClass;
pub use replay_pool::ReplayPool;
pub use scheduler::{Cost, Work, WorkKind};
pub use search_pool::{Admission, Place, SearchPool, Usage};

/// Why work did not run (the API turns it into the caller's status).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExecError {
    /// Refused: the pool is full, or the work could not start in time.
    #[error("busy: {waiting} running or waiting; worth trying again in {retry_after:?}")]
    Busy {
        /// Searches (or replays) running or waiting.
        waiting: usize,
        /// The wait worth trying after.
        retry_after: Duration,
    },
    /// The deadline had passed before the work was admitted.
    #[error("the deadline has passed")]
    DeadlinePassed,
    /// The pool takes no more work.
    #[error("shutting down")]
    ShuttingDown,
    /// The work panicked (a bug); the text says which.
    #[error("{0}")]
    Failed(String),
}
