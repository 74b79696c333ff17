//! Below the API: connections and their limits, request and response byte
//! budgets, the calls' deadlines, the codec, TLS, health and the shutdown
//! signals.

pub(super) mod byte_budget;
pub(super) mod codec;
pub(super) mod connection;
pub(super) mod deadline;
pub(super) mod health;
pub(super) mod held_body;
pub(super) mod outbox;
pub(super) mod request_bytes;
pub(super) mod response_bytes;
pub mod shutdown;
pub(super) mod tls;
