//! A call's `grpc-timeout` kept by the server itself: a call whose answer
//! is not ready when its timeout ends is answered DEADLINE_EXCEEDED, with a
//! sentence and ErrorInfo, and its handler is dropped (which stops its
//! search). Without this, tonic's own timer (its server's `grpc-timeout`
//! handling, outside every layer) would answer CANCELLED "Timeout expired";
//! this layer sits inside it and answers [`LEAD`] before it.
//!
//! The handlers aim earlier (the call's deadline less a margin, api/call.rs),
//! so a search answers with its best move before this fires. A call is
//! polled once before the deadline is looked at, so what the runtime answers
//! at once (a short game's LegalMoves) is answered even past its deadline.
//! Streams (Analyze, Watch) end their own way; this covers the wait for
//! their first answer.

use std::task::{Context, Poll};
use std::time::Duration;

use tonic::codegen::{BoxFuture, http};

use crate::service::error::ServiceError;

/// How much earlier than tonic's own timer the server answers: its timer
/// starts a few microseconds before this layer's, in the same call chain.
pub const LEAD: Duration = Duration::from_millis(1);

/// A timeout of years would overflow an `Instant`; no call lasts that long anyway.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(365 * 24 * 3600);

/// Reads a `grpc-timeout` value: at most 8 digits and a unit
/// (`H`, `M`, `S`, `m`, `u`, `n`).
pub fn parse_grpc_timeout(value: &str) -> Option<Duration> {
    if value.len() < 2 || value.len() > 9 {
        return None;
    }
    let (digits, unit) = value.split_at(value.len() - 1);
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let amount: u64 = digits.parse().ok()?;
    Some(match unit {
        "H" => Duration::from_secs(amount * 3600),
        "M" => Duration::from_secs(amount * 60),
        "S" => Duration::from_secs(amount),
        "m" => Duration::from_millis(amount),
        "u" => Duration::from_micros(amount),
        "n" => Duration::from_nanos(amount),
        _ => return None,
    })
}

/// The call's timeout, as its `grpc-timeout` header gives it (at most [`MAX_TIMEOUT`]).
pub fn call_timeout(headers: &http::HeaderMap) -> Option<Duration> {
    let timeout = parse_grpc_timeout(headers.get("grpc-timeout")?.to_str().ok()?)?;
    Some(timeout.min(MAX_TIMEOUT))
}

/// The tower layer that answers DEADLINE_EXCEEDED when a call's timeout ends.
#[derive(Clone, Copy, Debug, Default)]
pub struct DeadlineLayer;

impl<S> tower::Layer<S> for DeadlineLayer {
    type Service = Deadline<S>;

    fn layer(&self, inner: S) -> Deadline<S> {
        Deadline { inner }
    }
}

/// See [`DeadlineLayer`].
#[derive(Clone, Debug)]
pub struct Deadline<S> {
    inner: S,
}

impl<S, B, R> tower::Service<http::Request<B>> for Deadline<S>
where
    S: tower::Service<http::Request<B>, Response = http::Response<R>>,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
    R: Default + Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = BoxFuture<S::Response, S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        // Counted from here, as tonic counts its own timer.
        let cut = call_timeout(request.headers())
            .map(|timeout| tokio::time::Instant::now() + timeout.saturating_sub(LEAD));
        let answer = self.inner.call(request);
        let Some(cut) = cut else {
            return Box::pin(answer);
        };
        Box::pin(async move {
            let mut answer = std::pin::pin!(answer);
            // Polled once first: an answer ready at once is sent even past the deadline.
            let first = std::future::poll_fn(|cx| Poll::Ready(answer.as_mut().poll(cx))).await;
            let expired = || Ok(tonic::Status::from(ServiceError::DeadlineExpired).into_http());
            if let Poll::Ready(answered) = first {
                return answered;
            }
            // The timer fires on the next millisecond tick: a deadline already gone is answered now.
            if tokio::time::Instant::now() >= cut {
                return expired();
            }
            tokio::time::timeout_at(cut, answer)
                .await
                .unwrap_or_else(|_| expired())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grpc_timeout_values() {
        assert_eq!(parse_grpc_timeout("100m"), Some(Duration::from_millis(100)));
        assert_eq!(parse_grpc_timeout("2S"), Some(Duration::from_secs(2)));
        assert_eq!(
            parse_grpc_timeout("99999999H"),
            Some(Duration::from_secs(99_999_999 * 3600))
        );
        assert_eq!(parse_grpc_timeout("m"), None);
        assert_eq!(parse_grpc_timeout("123456789m"), None);
        assert_eq!(parse_grpc_timeout("-1m"), None);
        assert_eq!(parse_grpc_timeout("10x"), None);
    }
}
