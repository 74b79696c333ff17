//! A response body that keeps something alive until the response has been
//! sent or dropped: a call counted as open, a share of a byte budget.

use std::pin::Pin;
use std::task::{Context, Poll};

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

impl<B: http_body::Body, T> http_body::Body for HeldBody<B, T> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<B::Data>, B::Error>>> {
        self.project().inner.poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}
