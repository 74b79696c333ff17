//! The stream a long call answers with (Analyze, ReviewGame): the updates its
//! work sends, as they come. The stream owns the work's stop flag, so the
//! work stops when the stream goes away (the caller cancelled, or the
//! transport cut the call at its deadline).

use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::sync::mpsc;
use tonic::Status;
use tonic::codegen::tokio_stream::Stream;

use super::run_search::StopOnDrop;

/// The updates of one long call; dropping it stops the work.
pub struct UpdateStream<T> {
    updates: mpsc::Receiver<Result<T, Status>>,
    _stop: StopOnDrop,
}

impl<T> UpdateStream<T> {
    /// What `updates` receives, raising `stop` when dropped.
    pub fn new(updates: mpsc::Receiver<Result<T, Status>>, stop: StopOnDrop) -> UpdateStream<T> {
        UpdateStream {
            updates,
            _stop: stop,
        }
    }
}

impl<T> Stream for UpdateStream<T> {
    type Item = Result<T, Status>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.updates.poll_recv(cx)
    }
}
