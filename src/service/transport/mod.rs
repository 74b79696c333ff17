//! Below the API: connections and their limits, request byte budgets, the
//! codec, TLS, health and the shutdown signals.

pub(crate) mod codec;
pub mod connection;
pub mod health;
pub mod held_body;
pub mod request_bytes;
pub mod shutdown;
pub mod tls;
