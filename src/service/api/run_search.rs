//! A call's search on the bounded pool, stopped if the call goes away.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::rules::Game;
use crate::search::{Control, LevelLimits, SearchReport};

use super::convert;
use super::state::State;
use crate::service::error::ServiceError;
use crate::service::exec::{Admission, Usage, metrics};

/// Raises a search's stop flag when dropped: a handler holds one while its
/// search runs, so a call that goes away (cancelled by the client, or cut
/// off by the transport at its deadline) frees its search thread.
#[derive(Debug, Default)]
pub struct StopOnDrop(Arc<AtomicBool>);

impl StopOnDrop {
    /// The flag the search watches.
    pub fn flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.0)
    }
}

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Records what a search had of the pool in the call's span (its wait for a
/// place and for the cores, and its time on the cores, in milliseconds) and
/// in the pools' metrics, under the span's name: the method.
pub fn record_usage(usage: &Usage) {
    let span = tracing::Span::current();
    span.record("wait_ms", usage.waited().as_secs_f64() * 1000.0);
    span.record("cpu_ms", usage.cores.cpu.as_secs_f64() * 1000.0);
    let kind = span
        .metadata()
        .map_or("unknown", |metadata| metadata.name());
    metrics::record_search(kind, usage);
}

/// Searches the game's position on the pool within `limits` (the caller's,
/// capped, with the deadline and the level's own), stopping if the call goes
/// away or the server stops; returns the report and its pv as move texts
/// with captures.
///
/// # Errors
/// The pool's refusals; DEADLINE_EXCEEDED when not even depth 1 completed.
pub async fn run_search(
    state: &Arc<State>,
    admission: Admission,
    game: Game,
    limits: LevelLimits,
    seed: u64,
) -> Result<(SearchReport, Vec<String>), ServiceError> {
    let worker = Arc::clone(state);
    // Stops the search if this call goes away (cancelled, or cut off by its deadline).
    let stop = StopOnDrop::default();
    let stop_flag = stop.flag();
    let (found, usage) = state
        .pool
        .run(admission, stop.flag(), move |turn| {
            let control = Control::new(&stop_flag).sharing(turn);
            let report = worker.engine.search_with(&game, &limits, seed, control)?;
            let pv = convert::pv_to_proto(game.position(), &report.pv);
            Some((report, pv))
        })
        .await?;
    record_usage(&usage);
    found.ok_or(ServiceError::DeadlineTooShort)
}
