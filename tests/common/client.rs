//! A client of a server on a real socket, as the tests and benchmarks make one.

use std::net::SocketAddr;
use std::time::Duration;

use tafl::service::pb::tafl_service_client::TaflServiceClient;
use tonic::transport::Channel;

/// A plaintext HTTP/2 channel to `addr`, connected now; panics unless it
/// connects within 5 s.
pub async fn channel(addr: SocketAddr) -> Channel {
    Channel::from_shared(format!("http://{addr}"))
        .expect("uri")
        .connect_timeout(Duration::from_secs(5))
        .connect()
        .await
        .expect("connects")
}

/// The service's client over [`channel`].
pub async fn connect(addr: SocketAddr) -> TaflServiceClient<Channel> {
    TaflServiceClient::new(channel(addr).await)
}
