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
pub mod metrics;
mod replay_pool;
mod scheduler;
mod search_pool;

use std::time::Duration;

pub use core_share::CoreShare;
pub use cost::CostClass;
pub use replay_pool::ReplayPool;
pub use scheduler::{Cost, Work, WorkKind};
pub use search_pool::{Admission, Place, SearchPool, Usage};

/// A pool of work, as a refusal names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, strum::Display, strum::IntoStaticStr)]
pub enum Pool {
    /// SuggestMove, Evaluate, Analyze, Threats and FindPuzzles.
    #[strum(to_string = "searches")]
    Searches,
    /// ReviewGame.
    #[strum(to_string = "game reviews")]
    Reviews,
    /// The replays of long games.
    #[strum(to_string = "replays of long games")]
    Replays,
}

/// Why work was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, strum::IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
pub enum Refusal {
    /// No room to wait, or its place went to work that comes before it.
    Full,
    /// It could not start early enough to use its time before its deadline.
    Late,
}

/// A refusal for now: what the pool holds, and the wait worth trying after.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{pool}: {running} running and {waiting} waiting; worth trying again in {retry_after:?}")]
pub struct Busy {
    /// The pool that refused.
    pub pool: Pool,
    /// Why.
    pub why: Refusal,
    /// Its work running now.
    pub running: usize,
    /// Its work waiting to run.
    pub waiting: usize,
    /// The wait worth trying after.
    pub retry_after: Duration,
}

/// Why work did not run (the API turns it into the caller's status).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExecError {
    /// Refused: the pool is full, or the work could not start in time.
    #[error("busy: {0}")]
    Busy(Busy),
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
