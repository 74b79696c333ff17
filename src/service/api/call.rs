//! A call's parts, taken once per request: when it must be answered (its
//! `grpc-timeout` less a safety margin), the connection it came on, and its
//! message.

use std::time::{Duration, Instant};

use tonic::Request;
use tonic::metadata::MetadataMap;

use super::state::State;
use crate::service::config::CapsConfig;
use crate::service::error::ServiceError;
use crate::service::exec::{Admission, Work};
use crate::service::transport::connection::connection_id;
use crate::service::transport::deadline::call_timeout;

/// One request, taken apart.
#[derive(Debug)]
pub struct Call<M> {
    /// When the answer must be ready; `None` when the caller set no deadline.
    pub deadline: Option<Instant>,
    /// The connection it came on (searches are shared out per connection).
    pub connection: u64,
    /// What the caller sent.
    pub message: M,
}

impl<M> Call<M> {
    /// The parts of `request`, its deadline counted from now.
    pub fn take(request: Request<M>, caps: &CapsConfig) -> Call<M> {
        let deadline = call_deadline(request.metadata(), Instant::now(), caps);
        let connection = connection_id(request.extensions());
        Call {
            deadline,
            connection,
            message: request.into_inner(),
        }
    }

    /// Admits this call's search, or refuses it at once (see the search
    /// pool); done before the game is replayed where the work does not
    /// depend on the position, so that a refusal costs nothing.
    ///
    /// # Errors
    /// RESOURCE_EXHAUSTED, DEADLINE_EXCEEDED or UNAVAILABLE as the pool refuses.
    pub fn admit(&self, state: &State, work: Work) -> Result<Admission, ServiceError> {
        Ok(state.pool.admit(self.connection, work, self.deadline)?)
    }
}

/// The most the proportional part of the deadline margin takes.
const MAX_PROPORTIONAL_MARGIN: Duration = Duration::from_millis(250);

/// What is taken off a call's timeout so the answer still arrives in time:
/// `fixed`, plus `percent` of the timeout up to [`MAX_PROPORTIONAL_MARGIN`]
/// (a search only looks at the clock now and then, so it may run a little over).
fn deadline_margin(timeout: Duration, fixed: Duration, percent: u32) -> Duration {
    let proportional = timeout * percent.min(100) / 100;
    fixed + proportional.min(MAX_PROPORTIONAL_MARGIN)
}

/// When the answer must be ready: the call's `grpc-timeout` from `received`,
/// less the margin; `None` when the caller set no deadline.
fn call_deadline(metadata: &MetadataMap, received: Instant, caps: &CapsConfig) -> Option<Instant> {
    let timeout = call_timeout(metadata.as_ref())?;
    let margin = deadline_margin(timeout, caps.deadline_margin, caps.deadline_margin_percent);
    Some(received + timeout.saturating_sub(margin))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deadline_takes_off_the_margin() {
        let mut metadata = MetadataMap::new();
        metadata.insert("grpc-timeout", "100m".parse().unwrap());
        let caps = CapsConfig {
            deadline_margin: Duration::from_millis(10),
            deadline_margin_percent: 15,
            ..CapsConfig::default()
        };
        let now = Instant::now();
        let deadline = call_deadline(&metadata, now, &caps).unwrap();
        assert_eq!(deadline - now, Duration::from_millis(75));
        assert!(call_deadline(&MetadataMap::new(), now, &caps).is_none());
        metadata.insert("grpc-timeout", "99999999H".parse().unwrap());
        assert!(call_deadline(&metadata, now, &caps).is_some());
    }

    #[test]
    fn proportional_margin_is_capped() {
        let margin = deadline_margin(Duration::from_secs(60), Duration::from_millis(10), 15);
        assert_eq!(margin, Duration::from_millis(260));
    }
}
