//! A bound on the response bytes the server holds for callers that do not
//! take them: bytes a response has handed to HTTP/2 and the socket has not
//! yet written, because the caller keeps its flow-control window shut or
//! does not read. hyper polls a response body as soon as it can, whatever
//! the window, and keeps the message until the window opens; without a
//! bound, 64 connections × 128 streams of unread ValidateGame answers held
//! 300 MB.
//!
//! Each connection counts what its calls' bodies hand to HTTP/2 (this
//! layer, as hyper takes each message) less the DATA its socket has written
//! (the connection's meter, `connection.rs`); the server adds up its
//! connections. A message that would take its connection over
//! `--max-response-bytes-per-connection` or the server over
//! `--max-response-bytes` is dropped and its call ends RESOURCE_EXHAUSTED
//! (in trailers, which need no window); a call that starts on a connection
//! whose budget is full is refused before it runs. A connection with nothing
//! waiting may always send a message of [`SMALL_RESPONSE_BYTES`], and one as
//! large as the server's budget allows, so callers that read are never
//! refused for the ones that do not. How long bytes may wait is bounded
//! too: a connection whose socket writes no DATA for `--send-timeout-ms`
//! while some wait is closed (`connection.rs`).

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use http_body::{Body, Frame};
use prost::bytes::Buf;
use tonic::codegen::{BoxFuture, http};

use crate::service::config::TransportConfig;
use crate::service::error::ServiceError;

/// A connection with nothing waiting may always send a message up to this
/// size (every answer but a long game's ValidateGame and Analyze's largest).
pub const SMALL_RESPONSE_BYTES: usize = 16 << 10;

/// How long a call refused for its connection's unread responses is told to
/// wait: until its caller reads them.
const RETRY_AFTER: Duration = Duration::from_millis(100);

/// Response bytes handed to HTTP/2 and not yet written, for one connection,
/// kept in the server's sum too; the connection's share leaves the sum when
/// the last of its calls and the connection itself are gone.
#[derive(Debug)]
pub struct WaitingBytes {
    connection: AtomicUsize,
    server: Arc<AtomicUsize>,
}

impl WaitingBytes {
    /// A connection's count, kept in `server`'s sum.
    pub fn new(server: Arc<AtomicUsize>) -> WaitingBytes {
        WaitingBytes {
            connection: AtomicUsize::new(0),
            server,
        }
    }

    /// Bytes handed to HTTP/2 and not written yet.
    pub fn waiting(&self) -> usize {
        self.connection.load(Ordering::Acquire)
    }

    fn handed(&self, bytes: usize) {
        self.connection.fetch_add(bytes, Ordering::AcqRel);
        self.server.fetch_add(bytes, Ordering::AcqRel);
    }

    /// The socket wrote `bytes` of response data.
    pub fn written(&self, bytes: usize) {
        let before = self
            .connection
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |waiting| {
                Some(waiting.saturating_sub(bytes))
            })
            .unwrap_or_default();
        self.server.fetch_sub(before.min(bytes), Ordering::AcqRel);
    }
}

impl Drop for WaitingBytes {
    fn drop(&mut self) {
        self.server
            .fetch_sub(*self.connection.get_mut(), Ordering::AcqRel);
    }
}

/// The server's budget of waiting response bytes and each connection's.
#[derive(Clone, Debug)]
pub struct ResponseBudget {
    /// What all connections have waiting (their [`WaitingBytes`] keep it).
    server: Arc<AtomicUsize>,
    max_total: usize,
    max_per_connection: usize,
}

impl ResponseBudget {
    /// The budgets a configuration sets, with nothing waiting.
    pub fn new(config: &TransportConfig) -> ResponseBudget {
        ResponseBudget {
            server: Arc::default(),
            max_total: config.max_response_bytes,
            max_per_connection: config.max_response_bytes_per_connection,
        }
    }

    /// A new connection's count, kept in this budget's sum.
    pub fn connection(&self) -> WaitingBytes {
        WaitingBytes::new(Arc::clone(&self.server))
    }

    /// Response bytes waiting in all.
    #[cfg(test)]
    fn waiting(&self) -> usize {
        self.server.load(Ordering::Acquire)
    }

    /// Whether a connection with `waiting` bytes waiting may hand over a message of `bytes`.
    fn admits(&self, waiting: usize, bytes: usize) -> bool {
        let server = self.server.load(Ordering::Acquire);
        let fits_server = server.saturating_add(bytes) <= self.max_total;
        let fits_connection =
            waiting == 0 || waiting.saturating_add(bytes) <= self.max_per_connection;
        (fits_server && fits_connection) || (waiting == 0 && bytes <= SMALL_RESPONSE_BYTES)
    }

    /// Whether a connection with `waiting` bytes waiting is refused new calls.
    fn full(&self, waiting: usize) -> bool {
        waiting >= self.max_per_connection
            || (waiting > 0 && self.server.load(Ordering::Acquire) >= self.max_total)
    }
}

/// The status a call cut or refused for unread responses ends with.
fn busy_sending() -> tonic::Status {
    tonic::Status::from(ServiceError::BusySending {
        retry_after: RETRY_AFTER,
    })
}

/// The tower layer that counts every response's messages against the budgets.
#[derive(Clone, Debug)]
pub struct ResponseBytesLayer {
    budget: ResponseBudget,
    waiting: WaitingOf,
}

impl ResponseBytesLayer {
    /// The layer over `budget` (the one the connections count into), each
    /// call's connection found by `waiting` (the connection's own lookup,
    /// given here so that this file need not import the connection's).
    pub fn new(budget: ResponseBudget, waiting: WaitingOf) -> ResponseBytesLayer {
        ResponseBytesLayer { budget, waiting }
    }
}

impl<S> tower::Layer<S> for ResponseBytesLayer {
    type Service = ResponseBytes<S>;

    fn layer(&self, inner: S) -> ResponseBytes<S> {
        ResponseBytes {
            inner,
            budget: self.budget.clone(),
            waiting: self.waiting,
        }
    }
}

/// See [`ResponseBytesLayer`].
#[derive(Clone, Debug)]
pub struct ResponseBytes<S> {
    inner: S,
    budget: ResponseBudget,
    waiting: WaitingOf,
}

/// The waiting response bytes of the connection a call came on, from its
/// request's extensions.
pub type WaitingOf = fn(&http::Extensions) -> Option<Arc<WaitingBytes>>;

impl<S, B, R> tower::Service<http::Request<B>> for ResponseBytes<S>
where
    S: tower::Service<http::Request<B>, Response = http::Response<R>>,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
    R: Default + Send + 'static,
{
    /// The body counts its messages as hyper takes them.
    type Response = http::Response<MeteredBody<R>>;
    type Error = S::Error;
    type Future = BoxFuture<Self::Response, S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        let meter = (self.waiting)(request.extensions()).map(|waiting| Meter {
            waiting,
            budget: self.budget.clone(),
        });
        if let Some(meter) = &meter
            && meter.budget.full(meter.waiting.waiting())
        {
            let refused = busy_sending().into_http::<R>();
            return Box::pin(std::future::ready(Ok(
                refused.map(|body| MeteredBody::new(body, None))
            )));
        }
        let answer = self.inner.call(request);
        Box::pin(async move {
            let response = answer.await?;
            Ok(response.map(|body| MeteredBody::new(body, meter)))
        })
    }
}

/// What a body counts its messages against.
#[derive(Debug)]
struct Meter {
    waiting: Arc<WaitingBytes>,
    budget: ResponseBudget,
}

pin_project_lite::pin_project! {
    /// A response body whose messages count as waiting from when hyper
    /// takes them until the socket writes them; one that does not fit ends
    /// the call RESOURCE_EXHAUSTED instead.
    pub struct MeteredBody<B> {
        #[pin]
        inner: B,
        meter: Option<Meter>,
        cut: bool,
    }
}

/// An empty body counted against nothing, for the answers the layers give themselves.
impl<B: Default> Default for MeteredBody<B> {
    fn default() -> Self {
        MeteredBody::new(B::default(), None)
    }
}

impl<B> MeteredBody<B> {
    fn new(inner: B, meter: Option<Meter>) -> MeteredBody<B> {
        MeteredBody {
            inner,
            meter,
            cut: false,
        }
    }
}

impl<B: Body> Body for MeteredBody<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<B::Data>, B::Error>>> {
        let this = self.project();
        if *this.cut {
            return Poll::Ready(None);
        }
        let frame = std::task::ready!(this.inner.poll_frame(cx));
        if let (Some(Ok(frame)), Some(meter)) = (&frame, this.meter.as_ref())
            && let Some(data) = frame.data_ref()
        {
            let bytes = data.remaining();
            if !meter.budget.admits(meter.waiting.waiting(), bytes) {
                *this.cut = true;
                let mut trailers = http::HeaderMap::new();
                // A Status built here always renders as headers.
                let _ = busy_sending().add_header(&mut trailers);
                return Poll::Ready(Some(Ok(Frame::trailers(trailers))));
            }
            meter.waiting.handed(bytes);
        }
        Poll::Ready(frame)
    }

    fn is_end_stream(&self) -> bool {
        self.cut || self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget(per_connection: usize, total: usize) -> ResponseBudget {
        ResponseBudget {
            server: Arc::default(),
            max_total: total,
            max_per_connection: per_connection,
        }
    }

    #[test]
    fn a_connection_counts_what_it_handed_until_written_and_the_server_sums_them() {
        let budget = budget(1 << 20, 4 << 20);
        let first = budget.connection();
        let second = budget.connection();
        first.handed(100_000);
        second.handed(50_000);
        assert_eq!(budget.waiting(), 150_000);
        first.written(30_000);
        assert_eq!((first.waiting(), budget.waiting()), (70_000, 120_000));
        // Writes beyond what was handed (a bug, or bytes counted twice) never go below zero.
        second.written(80_000);
        assert_eq!((second.waiting(), budget.waiting()), (0, 70_000));
        drop(first);
        assert_eq!(budget.waiting(), 0);
    }

    #[test]
    fn messages_fit_both_budgets_unless_their_connection_has_nothing_waiting() {
        let budget = budget(100_000, 300_000);
        let slow = budget.connection();
        slow.handed(90_000);
        // The slow connection may not add what would take it over its own budget...
        assert!(budget.admits(slow.waiting(), 5_000));
        assert!(!budget.admits(slow.waiting(), 20_000));
        assert!(budget.full(100_000));
        // ...while one with nothing waiting may send a message larger than a connection's budget.
        assert!(budget.admits(0, 200_000));
        let others: Vec<WaitingBytes> = (0..3).map(|_| budget.connection()).collect();
        for other in &others {
            other.handed(70_000);
        }
        // The server's budget is full: only what has nothing waiting sends a small message.
        assert!(!budget.admits(0, 200_000));
        assert!(budget.admits(0, SMALL_RESPONSE_BYTES));
        assert!(!budget.admits(70_000, 1));
        assert!(budget.full(70_000));
        assert!(!budget.full(0));
    }
}
