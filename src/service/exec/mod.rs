//! Where the blocking work runs, never on the async runtime's threads: the
//! search pool and the replay pool.

mod search_pool;

pub use search_pool::{Admission, ReplayPool, SearchPool};
