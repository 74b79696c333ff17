//! `grpc.health.v1`, as tonic-health serves it, except that at shutdown
//! every `Watch` stream ends right after it has said NOT_SERVING: an open
//! Watch (client-side health checking keeps one per connection) would
//! otherwise hold the graceful shutdown for its whole grace period.

use std::pin::Pin;

use tokio::sync::{mpsc, watch};
use tokio_stream::Stream;
use tokio_stream::StreamExt as _;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_server::{Health, HealthServer};
use tonic_health::pb::{HealthCheckRequest, HealthCheckResponse};
use tonic_health::server::{HealthReporter, HealthService};

/// The health service and the means to end its Watch streams.
pub fn service(reporter: &HealthReporter) -> (HealthServer<DrainingHealth>, HealthDrain) {
    let (shutting_down, watched) = watch::channel(false);
    let service = DrainingHealth {
        inner: HealthService::from_health_reporter(reporter.clone()),
        shutting_down: watched,
    };
    (HealthServer::new(service), HealthDrain(shutting_down))
}

/// Ends every Watch stream, now and to come, once it has sent NOT_SERVING.
#[derive(Debug)]
pub struct HealthDrain(watch::Sender<bool>);

impl HealthDrain {
    /// Call once health reports NOT_SERVING.
    pub fn end_watches(&self) {
        self.0.send_replace(true);
    }
}

/// See [`service`].
#[derive(Debug)]
pub struct DrainingHealth {
    inner: HealthService,
    shutting_down: watch::Receiver<bool>,
}

type WatchStream = Pin<Box<dyn Stream<Item = Result<HealthCheckResponse, Status>> + Send>>;

#[tonic::async_trait]
impl Health for DrainingHealth {
    async fn check(
        &self,
        request: Request<HealthCheckRequest>,
    ) -> Result<Response<HealthCheckResponse>, Status> {
        self.inner.check(request).await
    }

    type WatchStream = WatchStream;

    async fn watch(
        &self,
        request: Request<HealthCheckRequest>,
    ) -> Result<Response<WatchStream>, Status> {
        let mut updates = self.inner.watch(request).await?.into_inner();
        let mut shutting_down = self.shutting_down.clone();
        let (sender, receiver) = mpsc::channel(1);
        tokio::spawn(async move {
            let not_serving = ServingStatus::NotServing as i32;
            let mut last_sent = None;
            loop {
                tokio::select! {
                    update = updates.next() => {
                        let Some(update) = update else { return };
                        last_sent = update.as_ref().ok().map(|response| response.status);
                        if sender.send(update).await.is_err() {
                            return;
                        }
                    }
                    () = until_shutdown(&mut shutting_down) => {
                        if last_sent != Some(not_serving) {
                            let _ = sender
                                .send(Ok(HealthCheckResponse { status: not_serving }))
                                .await;
                        }
                        return;
                    }
                    () = sender.closed() => return,
                }
            }
        });
        Ok(Response::new(Box::pin(ReceiverStream::new(receiver))))
    }
}

/// Resolves once the shutdown has begun (or the server is gone).
async fn until_shutdown(shutting_down: &mut watch::Receiver<bool>) {
    let _ = shutting_down.wait_for(|stopping| *stopping).await;
}
