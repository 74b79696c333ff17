//! A bound on the request bytes held at once, per connection and in all:
//! each call's message length (from its gRPC length prefix, before the
//! message is read) is taken from a budget and given back when the call
//! ends. A large message takes it from its connection's budget and from the
//! server's; a small one from the server's budget of small messages, unless
//! it is its connection's only call (a client that makes one call at a time
//! is never refused). A call that does not fit is refused at once with
//! RESOURCE_EXHAUSTED and the wait worth trying after, before its message
//! is read.
//!
//! Without it one connection could hold its stream cap × `--max-message-bytes`
//! of requests being read and decoded at once (128 × 4 MiB = 512 MiB), and
//! the server its open calls × 64 KiB of small messages started and never
//! finished ((4,096 + 512) × 64 KiB = 288 MiB).
//! Waiting for room instead of refusing could deadlock a connection: the
//! waiting calls' unread bytes fill the HTTP/2 connection window that the
//! admitted calls need to finish.

use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use http_body::{Body as _, Frame};
use prost::bytes::Bytes;
use tokio::sync::OwnedSemaphorePermit;
use tonic::codegen::{BoxFuture, http};

use super::byte_budget::ByteBudget;
use super::held_body::{Held, HeldBody};
use crate::service::config::TransportConfig;
use crate::service::error::ServiceError;

/// The gRPC message prefix: a compressed flag and a 4-byte length.
const PREFIX_BYTES: usize = 5;

/// Messages up to this size are small: real requests are (a 4,096-ply game
/// is about 30 KiB). They have a budget of their own, so a budget full of
/// large messages never refuses the small calls beside them.
pub const SMALL_MESSAGE_BYTES: usize = 64 << 10;

/// The small messages' budget per call the server keeps open
/// (`--max-calls`): about eight times what a real request takes, so only
/// messages started and never finished fill it.
pub const SMALL_BYTES_PER_CALL: usize = 8 << 10;

/// How long a refused call is told to wait: large calls take milliseconds.
const RETRY_AFTER: Duration = Duration::from_millis(100);

/// The tower layer that takes each call's message bytes from the budgets.
#[derive(Clone, Debug)]
pub struct RequestBytesLayer {
    /// The server's budget of large messages, shared by all connections.
    total: ByteBudget,
    /// The server's budget of small messages.
    small: ByteBudget,
    /// What a compressed message is counted as (its decoded size is only
    /// known once decoded, and may be up to this).
    max_message_bytes: usize,
}

impl RequestBytesLayer {
    /// The layer with the server's budget of `--max-request-bytes`, and
    /// [`SMALL_BYTES_PER_CALL`] per `--max-calls` for small messages.
    pub fn new(config: &TransportConfig) -> RequestBytesLayer {
        RequestBytesLayer {
            total: ByteBudget::new(config.max_request_bytes),
            small: ByteBudget::new(config.max_calls.saturating_mul(SMALL_BYTES_PER_CALL)),
            max_message_bytes: config.max_message_bytes,
        }
    }
}

impl<S> tower::Layer<S> for RequestBytesLayer {
    type Service = RequestBytes<S>;

    fn layer(&self, inner: S) -> RequestBytes<S> {
        RequestBytes {
            inner,
            layer: self.clone(),
        }
    }
}

/// See [`RequestBytesLayer`].
#[derive(Clone, Debug)]
pub struct RequestBytes<S> {
    inner: S,
    layer: RequestBytesLayer,
}

/// A call's shares of the budgets, given back when its response is dropped.
impl Held for Vec<OwnedSemaphorePermit> {}

impl<S, R> tower::Service<http::Request<tonic::body::Body>> for RequestBytes<S>
where
    S: tower::Service<http::Request<tonic::body::Body>, Response = http::Response<R>>
        + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
    R: Default + Send + 'static,
{
    /// The body holds the call's share of the budgets until it is dropped.
    type Response = http::Response<HeldBody<R, Vec<OwnedSemaphorePermit>>>;
    type Error = S::Error;
    type Future = BoxFuture<Self::Response, S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<tonic::body::Body>) -> Self::Future {
        // The service that was polled ready serves this call; a clone waits for the next.
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        let layer = self.layer.clone();
        Box::pin(async move {
            let connection = super::connection::connection_budget(request.extensions());
            let only_call = super::connection::is_only_call(request.extensions());
            let (parts, mut body) = request.into_parts();
            let (head, length) = read_prefix(&mut body).await;
            let counted = length.map(|length| {
                let counted = match length {
                    Length::Plain(bytes) => bytes,
                    Length::Compressed => layer.max_message_bytes,
                };
                // Past the message cap tonic refuses it (OUT_OF_RANGE) without reading it all.
                u32::try_from(counted.min(layer.max_message_bytes)).unwrap_or(u32::MAX)
            });
            let taken = match counted {
                None => Some(Vec::new()),
                Some(bytes) if bytes as usize > SMALL_MESSAGE_BYTES => {
                    [connection.as_ref(), Some(&layer.total)]
                        .into_iter()
                        .flatten()
                        .map(|budget| budget.try_take(bytes))
                        .collect::<Option<Vec<_>>>()
                }
                Some(bytes) => match layer.small.try_take(bytes) {
                    Some(permit) => Some(vec![permit]),
                    None => only_call.then(Vec::new),
                },
            };
            let Some(held) = taken else {
                let status = tonic::Status::from(ServiceError::BusyReading {
                    retry_after: RETRY_AFTER,
                });
                let refused = status.into_http::<R>();
                return Ok(refused.map(|body| HeldBody::new(body, Vec::new())));
            };
            let body = tonic::body::Body::new(Replayed { head, rest: body });
            let response = inner.call(http::Request::from_parts(parts, body)).await?;
            Ok(response.map(|body| HeldBody::new(body, held)))
        })
    }
}

/// A message's length as its prefix gives it.
enum Length {
    Plain(usize),
    /// Compressed: its decoded length is not known yet.
    Compressed,
}

/// Reads the body's first frames until the message prefix is in; returns
/// them (to be read again) and the length, `None` when the body ends or
/// fails first (tonic answers that as it would have).
async fn read_prefix(
    body: &mut tonic::body::Body,
) -> (
    VecDeque<Result<Frame<Bytes>, tonic::Status>>,
    Option<Length>,
) {
    let mut head = VecDeque::new();
    let mut prefix = [0u8; PREFIX_BYTES];
    let mut filled = 0;
    while filled < PREFIX_BYTES {
        let frame = std::future::poll_fn(|cx| Pin::new(&mut *body).poll_frame(cx)).await;
        let Some(frame) = frame else { break };
        let failed = frame.is_err();
        if let Ok(data) = frame.as_ref().map(Frame::data_ref)
            && let Some(data) = data
        {
            let taken = (PREFIX_BYTES - filled).min(data.len());
            prefix[filled..filled + taken].copy_from_slice(&data[..taken]);
            filled += taken;
        }
        let trailers = frame.as_ref().is_ok_and(Frame::is_trailers);
        head.push_back(frame);
        if failed || trailers {
            break;
        }
    }
    if filled < PREFIX_BYTES {
        return (head, None);
    }
    let length = u32::from_be_bytes([prefix[1], prefix[2], prefix[3], prefix[4]]) as usize;
    let length = if prefix[0] == 0 {
        Length::Plain(length)
    } else {
        Length::Compressed
    };
    (head, Some(length))
}

pin_project_lite::pin_project! {
    /// The request body with its first frames put back in front.
    struct Replayed {
        head: VecDeque<Result<Frame<Bytes>, tonic::Status>>,
        #[pin]
        rest: tonic::body::Body,
    }
}

impl http_body::Body for Replayed {
    type Data = Bytes;
    type Error = tonic::Status;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, tonic::Status>>> {
        let this = self.project();
        if let Some(frame) = this.head.pop_front() {
            return Poll::Ready(Some(frame));
        }
        this.rest.poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.head.is_empty() && self.rest.is_end_stream()
    }
}
