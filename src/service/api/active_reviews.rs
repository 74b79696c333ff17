//! The game reviews in progress, counted so that the tables they hold between
//! their searches stay bounded: the shared state holds the count, the review
//! handler takes a place in it.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Reviews in progress, each holding its game's transposition table between its searches: at
/// most [`ExecConfig::max_active_reviews`](crate::service::config::ExecConfig::max_active_reviews).
#[derive(Debug, Default)]
pub struct ActiveReviews(Arc<AtomicUsize>);

/// A review's place among the active ones, given back when dropped.
#[derive(Debug)]
pub(super) struct ReviewPlace(Arc<AtomicUsize>);

impl Drop for ReviewPlace {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl ActiveReviews {
    /// A place if fewer than `most` reviews are active.
    pub(super) fn enter(&self, most: usize) -> Option<ReviewPlace> {
        self.0
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |active| {
                (active < most).then_some(active + 1)
            })
            .ok()
            .map(|_| ReviewPlace(Arc::clone(&self.0)))
    }
}
