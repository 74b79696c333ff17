//! A response body that keeps something alive until the response has been
//! sent or dropped: a call counted as open, a share of a byte budget, a
//! call's line in the access log (which the trailers tell the call's status).

use std::pin::Pin;
use std::task::{Context, Poll};

use tonic::codegen::http;

/// What a [`HeldBody`] holds: told of the response's trailers as they go out.
pub trait Held {
    /// The trailers (a call's status) are going out.
    fn trailers(&mut self, _trailers: &http::HeaderMap) {}
}

impl<T: Held> Held for Option<T> {
    fn trailers(&mut self, trailers: &http::HeaderMap) {
        if let Some(held) = self {
            held.trailers(trailers);
        }
    }
}

pin_project_lite::pin_project! {
    /// `inner`, holding `held` for as long as it lives.
    pub struct HeldBody<B, T> {
        #[pin]
        inner: B,
        held: T,
    }
}

/// An empty body holding nothing, for the answers the layers give themselves.
impl<B: Default, T: Default> Default for HeldBody<B, T> {
    fn default() -> Self {
        HeldBody::new(B::default(), T::default())
    }
}

impl<B, T> HeldBody<B, T> {
    /// `inner`, holding `held`.
    pub fn new(inner: B, held: T) -> HeldBody<B, T> {
        HeldBody { inner, held }
    }
}

impl<B: http_body::Body, T: Held> http_body::Body for HeldBody<B, T> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<B::Data>, B::Error>>> {
        let this = self.project();
        let frame = std::task::ready!(this.inner.poll_frame(cx));
        if let Some(Ok(frame)) = &frame
            && let Some(trailers) = frame.trailers_ref()
        {
            this.held.trailers(trailers);
        }
        Poll::Ready(frame)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}
