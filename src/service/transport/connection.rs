//! Connections: at most `--max-connections` open, an accept loop that backs
//! off when the process runs out of file descriptors, and every connection
//! closed once it has had no call open for too long (the handshake timeout
//! before its first call, the idle timeout after).
//!
//! hyper closes nothing on its own: a silent TCP connection, a bare HTTP/2
//! preface or a half-done TLS handshake would hold a file descriptor and
//! memory forever. The accept wrapper here counts each connection's open
//! calls (through [`CallTrackingLayer`], which sees every request with its
//! connection) and fails the connection's next read once the limit passes
//! with none open, which makes hyper drop it.

use std::future::Future as _;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};
use tokio::time::{Instant, Sleep};
use tokio_stream::wrappers::ReceiverStream;
use tonic::codegen::http;
use tonic::transport::server::{Connected, TlsConnectInfo};

use super::byte_budget::ByteBudget;
use super::held_body::HeldBody;
use crate::service::config::TransportConfig;

/// How long connections may stay open without a call, and how many there may be.
#[derive(Clone, Copy, Debug)]
pub struct ConnectionLimits {
    /// Connections open at once.
    pub max_connections: usize,
    /// From accept to the first call.
    pub handshake_timeout: Duration,
    /// From the end of the last call to the next one.
    pub idle_timeout: Duration,
    /// Request bytes the connection's calls may hold at once.
    pub request_bytes: usize,
}

impl ConnectionLimits {
    /// The limits a configuration sets.
    pub fn from_config(config: &TransportConfig) -> ConnectionLimits {
        ConnectionLimits {
            max_connections: config.max_connections.max(1),
            handshake_timeout: config.handshake_timeout,
            idle_timeout: config.idle_timeout,
            request_bytes: config.max_request_bytes_per_connection,
        }
    }
}

/// The longest the accept loop waits after running out of file descriptors
/// (or memory) before it tries again.
const MAX_ACCEPT_BACKOFF: Duration = Duration::from_secs(1);
const FIRST_ACCEPT_BACKOFF: Duration = Duration::from_millis(5);

/// The accepted connections of `listener`, for `serve_with_incoming`. The
/// accept loop runs as its own task and stops (closing the listening socket)
/// once the stream is dropped.
pub fn incoming(
    listener: TcpListener,
    limits: ConnectionLimits,
) -> ReceiverStream<io::Result<Connection>> {
    let (sender, receiver) = mpsc::channel(1);
    tokio::spawn(async move {
        tokio::select! {
            () = accept_loop(&listener, limits, &sender) => {}
            () = sender.closed() => {}
        }
    });
    ReceiverStream::new(receiver)
}

async fn accept_loop(
    listener: &TcpListener,
    limits: ConnectionLimits,
    sender: &mpsc::Sender<io::Result<Connection>>,
) {
    let open = Arc::new(Semaphore::new(limits.max_connections));
    let mut backoff = FIRST_ACCEPT_BACKOFF;
    loop {
        // At the cap, new clients wait in the kernel's backlog, not in our memory.
        let Ok(permit) = Arc::clone(&open).acquire_owned().await else {
            return;
        };
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(error) if is_per_connection(&error) => continue,
            Err(error) => {
                // Out of file descriptors or memory: retrying at once would spin a core.
                if backoff == FIRST_ACCEPT_BACKOFF {
                    tracing::warn!(%error, "cannot accept connections; backing off");
                }
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(MAX_ACCEPT_BACKOFF);
                continue;
            }
        };
        backoff = FIRST_ACCEPT_BACKOFF;
        // Calls are small request/response pairs: send them at once.
        let _ = stream.set_nodelay(true);
        if sender
            .send(Ok(Connection::new(stream, limits, permit)))
            .await
            .is_err()
        {
            return;
        }
    }
}

/// Errors about one connection that went away before it was accepted; the
/// listener itself is fine.
fn is_per_connection(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionRefused
            | io::ErrorKind::Interrupted
            | io::ErrorKind::WouldBlock
    )
}

/// What a connection's calls tell its idle check.
#[derive(Debug)]
pub struct Activity {
    /// Names the connection for the search pool's fair share.
    id: u64,
    /// What its calls' messages may hold at once.
    request_bytes: ByteBudget,
    open_calls: AtomicUsize,
    any_call: AtomicBool,
    /// When the last call ended (or the connection was accepted).
    idle_since: Mutex<Instant>,
}

impl Activity {
    fn new(request_bytes: usize) -> Activity {
        static NEXT_ID: AtomicU64 = AtomicU64::new(1);
        Activity {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            request_bytes: ByteBudget::new(request_bytes),
            open_calls: AtomicUsize::new(0),
            any_call: AtomicBool::new(false),
            idle_since: Mutex::new(Instant::now()),
        }
    }

    fn call_started(self: &Arc<Self>) -> OpenCall {
        self.any_call.store(true, Ordering::Relaxed);
        self.open_calls.fetch_add(1, Ordering::AcqRel);
        OpenCall(Arc::clone(self))
    }

    /// When the connection, idle now, must close; `None` while a call is open.
    fn closes_at(&self, limits: ConnectionLimits) -> Option<Instant> {
        if self.open_calls.load(Ordering::Acquire) > 0 {
            return None;
        }
        let since = *self
            .idle_since
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let limit = if self.any_call.load(Ordering::Relaxed) {
            limits.idle_timeout
        } else {
            limits.handshake_timeout
        };
        Some(since + limit)
    }
}

/// A call open on a connection, until its response (body included) is dropped.
#[derive(Debug)]
pub struct OpenCall(Arc<Activity>);

impl Drop for OpenCall {
    fn drop(&mut self) {
        *self
            .0
            .idle_since
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = Instant::now();
        self.0.open_calls.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The connection's handle on its [`Activity`], put into every request's
/// extensions by tonic (its connect info).
#[derive(Clone, Debug)]
pub struct ConnectionActivity(Arc<Activity>);

/// The connection a call came on, as a number no other connection of this
/// process has had; 0 when unknown (a server not started by
/// [`crate::service::Server::start`]).
pub fn connection_id(extensions: &http::Extensions) -> u64 {
    activity(extensions).map_or(0, |activity| activity.id)
}

/// The request byte budget of the connection a call came on.
pub fn connection_budget(extensions: &http::Extensions) -> Option<ByteBudget> {
    activity(extensions).map(|activity| activity.request_bytes.clone())
}

fn activity(extensions: &http::Extensions) -> Option<&Arc<Activity>> {
    extensions
        .get::<ConnectionActivity>()
        .or_else(|| {
            extensions
                .get::<TlsConnectInfo<ConnectionActivity>>()
                .map(TlsConnectInfo::get_ref)
        })
        .map(|activity| &activity.0)
}

/// An accepted TCP connection that ends itself when idle too long.
#[derive(Debug)]
pub struct Connection {
    stream: TcpStream,
    activity: Arc<Activity>,
    limits: ConnectionLimits,
    idle_check: Pin<Box<Sleep>>,
    /// Set once the server has closed its side: how long it still reads.
    linger: Option<Pin<Box<Sleep>>>,
    _slot: OwnedSemaphorePermit,
}

/// How long a connection the server has closed (its last frames and FIN
/// sent) still reads what the client sends, waiting for the client to close
/// too. Closing a socket with unread bytes in it makes the kernel send a
/// reset, and a reset can destroy data the client has not read yet: a
/// Watch stream's last NOT_SERVING at shutdown, a call's last answer.
pub const LINGER: Duration = Duration::from_millis(250);

impl Connection {
    fn new(stream: TcpStream, limits: ConnectionLimits, slot: OwnedSemaphorePermit) -> Connection {
        Connection {
            stream,
            activity: Arc::new(Activity::new(limits.request_bytes)),
            limits,
            idle_check: Box::pin(tokio::time::sleep(limits.handshake_timeout)),
            linger: None,
            _slot: slot,
        }
    }

    /// Polls the idle check: an error once the connection has been idle too
    /// long, else the check rearmed (hyper always has a read pending, so the
    /// check is polled for as long as the connection lives).
    fn poll_idle(&mut self, cx: &mut Context<'_>) -> io::Result<()> {
        while self.idle_check.as_mut().poll(cx).is_ready() {
            let now = Instant::now();
            match self.activity.closes_at(self.limits) {
                Some(closes_at) if closes_at <= now => {
                    return Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "connection idle too long",
                    ));
                }
                Some(closes_at) => self.idle_check.as_mut().reset(closes_at),
                // A call is open: look again an idle timeout later.
                None => self
                    .idle_check
                    .as_mut()
                    .reset(now + self.limits.idle_timeout),
            }
        }
        Ok(())
    }
}

impl AsyncRead for Connection {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.poll_idle(cx)?;
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for Connection {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    /// Sends FIN, then reads (and drops) what the client still sends until
    /// it closes too, or for [`LINGER`] at most: see there.
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.linger.is_none() {
            std::task::ready!(Pin::new(&mut self.stream).poll_shutdown(cx))?;
            self.linger = Some(Box::pin(tokio::time::sleep(LINGER)));
        }
        let mut scratch = [0u8; 4096];
        loop {
            if let Some(linger) = self.linger.as_mut()
                && linger.as_mut().poll(cx).is_ready()
            {
                return Poll::Ready(Ok(()));
            }
            let mut buf = ReadBuf::new(&mut scratch);
            match Pin::new(&mut self.stream).poll_read(cx, &mut buf) {
                Poll::Ready(Ok(())) if buf.filled().is_empty() => return Poll::Ready(Ok(())),
                Poll::Ready(Ok(())) => {}
                // The client is gone: nothing is left to protect.
                Poll::Ready(Err(_)) => return Poll::Ready(Ok(())),
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}

impl Connected for Connection {
    type ConnectInfo = ConnectionActivity;

    fn connect_info(&self) -> ConnectionActivity {
        ConnectionActivity(Arc::clone(&self.activity))
    }
}

/// The tower layer that tells each connection when its calls start and end.
#[derive(Clone, Copy, Debug, Default)]
pub struct CallTrackingLayer;

impl<S> tower::Layer<S> for CallTrackingLayer {
    type Service = CallTracking<S>;

    fn layer(&self, inner: S) -> CallTracking<S> {
        CallTracking { inner }
    }
}

/// See [`CallTrackingLayer`].
#[derive(Clone, Debug)]
pub struct CallTracking<S> {
    inner: S,
}

type BoxFuture<T> = Pin<Box<dyn std::future::Future<Output = T> + Send>>;

impl<S, B, R> tower::Service<http::Request<B>> for CallTracking<S>
where
    S: tower::Service<http::Request<B>, Response = http::Response<R>>,
    S::Future: Send + 'static,
{
    /// The body keeps its call counted as open until it is dropped (a Watch
    /// stream stays open for as long as it streams).
    type Response = http::Response<HeldBody<R, Option<OpenCall>>>;
    type Error = S::Error;
    type Future = BoxFuture<Result<Self::Response, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        let open_call = activity(request.extensions()).map(Activity::call_started);
        let call = self.inner.call(request);
        Box::pin(async move {
            let response = call.await?;
            Ok(response.map(|body| HeldBody::new(body, open_call)))
        })
    }
}
