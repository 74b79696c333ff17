//! Connections: at most `--max-connections` open, an accept loop that backs
//! off when the process runs out of file descriptors, at most `--max-calls`
//! calls open in all, and every connection closed once it has had no call
//! open for too long (the handshake timeout before its first call, the idle
//! timeout after), once it has left responses unwritten for the send
//! timeout, or once it is older than its maximum age and grace.
//!
//! hyper closes nothing on its own: a silent TCP connection, a bare HTTP/2
//! preface or a half-done TLS handshake would hold a file descriptor and
//! memory forever. The accept wrapper here counts each connection's open
//! calls (through [`CallTrackingLayer`], which sees every request with its
//! connection) and fails the connection's next read once a limit passes,
//! which makes hyper drop it. It also meters what the connection writes:
//! the DATA bytes that leave its waiting response bytes
//! (`response_bytes.rs`), and sends what a turn of its task wrote in one
//! write (`outbox.rs`).

use std::future::Future as _;
use std::io;
use std::net::SocketAddr;
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
use tonic::codegen::{BoxFuture, http};
use tonic::transport::server::{Connected, TlsConnectInfo};

use super::byte_budget::ByteBudget;
use super::held_body::{Held, HeldBody};
use super::outbox::Outbox;
use super::response_bytes::{ResponseBudget, WaitingBytes};
use crate::service::config::TransportConfig;
use crate::service::error::ServiceError;

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
    /// How long response bytes may wait with no DATA written.
    pub send_timeout: Duration,
    /// From accept to the forced close (the maximum age, when GOAWAY is
    /// sent, and its grace).
    pub lifetime: Duration,
    /// The connection speaks plaintext HTTP/2, so its writes can be read as frames.
    pub plaintext: bool,
}

impl ConnectionLimits {
    /// The limits a configuration sets.
    pub fn from_config(config: &TransportConfig) -> ConnectionLimits {
        ConnectionLimits {
            max_connections: config.max_connections.max(1),
            handshake_timeout: config.handshake_timeout,
            idle_timeout: config.idle_timeout,
            request_bytes: config.max_request_bytes_per_connection,
            send_timeout: config.send_timeout,
            lifetime: config.max_connection_age + config.max_connection_age_grace,
            plaintext: config.tls.cert.is_none(),
        }
    }
}

/// The longest the accept loop waits after running out of file descriptors
/// (or memory) before it tries again.
const MAX_ACCEPT_BACKOFF: Duration = Duration::from_secs(1);
const FIRST_ACCEPT_BACKOFF: Duration = Duration::from_millis(5);

/// The accepted connections of `listener`, for `serve_with_incoming`, each
/// counting its waiting response bytes into `responses`. The accept loop
/// runs as its own task and stops (closing the listening socket) once the
/// stream is dropped.
pub fn incoming(
    listener: TcpListener,
    limits: ConnectionLimits,
    responses: ResponseBudget,
) -> ReceiverStream<io::Result<Connection>> {
    let (sender, receiver) = mpsc::channel(1);
    tokio::spawn(async move {
        tokio::select! {
            () = accept_loop(&listener, limits, &responses, &sender) => {}
            () = sender.closed() => {}
        }
    });
    ReceiverStream::new(receiver)
}

async fn accept_loop(
    listener: &TcpListener,
    limits: ConnectionLimits,
    responses: &ResponseBudget,
    sender: &mpsc::Sender<io::Result<Connection>>,
) {
    let open = Arc::new(Semaphore::new(limits.max_connections));
    let mut backoff = FIRST_ACCEPT_BACKOFF;
    loop {
        // At the cap, new clients wait in the kernel's backlog, not in our memory.
        let Ok(permit) = Arc::clone(&open).acquire_owned().await else {
            return;
        };
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
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
        let waiting = responses.connection();
        if sender
            .send(Ok(Connection::new(stream, peer, limits, permit, waiting)))
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
    /// The client's address, for the access log.
    peer: SocketAddr,
    /// What its calls' messages may hold at once.
    request_bytes: ByteBudget,
    /// What its calls' responses have handed to HTTP/2 and the socket has not written.
    responses: Arc<WaitingBytes>,
    open_calls: AtomicUsize,
    any_call: AtomicBool,
    /// When the last call ended (or the connection was accepted).
    idle_since: Mutex<Instant>,
}

impl Activity {
    fn new(peer: SocketAddr, request_bytes: usize, responses: WaitingBytes) -> Activity {
        static NEXT_ID: AtomicU64 = AtomicU64::new(1);
        Activity {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            peer,
            request_bytes: ByteBudget::new(request_bytes),
            responses: Arc::new(responses),
            open_calls: AtomicUsize::new(0),
            any_call: AtomicBool::new(false),
            idle_since: Mutex::new(Instant::now()),
        }
    }

    fn call_started(self: &Arc<Self>, server: &Arc<AtomicUsize>) -> OpenCall {
        self.any_call.store(true, Ordering::Relaxed);
        self.open_calls.fetch_add(1, Ordering::AcqRel);
        server.fetch_add(1, Ordering::AcqRel);
        OpenCall {
            activity: Arc::clone(self),
            server: Arc::clone(server),
        }
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

/// A call open on a connection, until its response (body included) is
/// dropped; counted in the server's open calls too.
#[derive(Debug)]
pub struct OpenCall {
    activity: Arc<Activity>,
    server: Arc<AtomicUsize>,
}

impl Held for OpenCall {}

impl Drop for OpenCall {
    fn drop(&mut self) {
        *self
            .activity
            .idle_since
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = Instant::now();
        self.activity.open_calls.fetch_sub(1, Ordering::AcqRel);
        self.server.fetch_sub(1, Ordering::AcqRel);
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

/// The client address of the connection a call came on.
pub fn peer_addr(extensions: &http::Extensions) -> Option<SocketAddr> {
    activity(extensions).map(|activity| activity.peer)
}

/// The request byte budget of the connection a call came on.
pub fn connection_budget(extensions: &http::Extensions) -> Option<ByteBudget> {
    activity(extensions).map(|activity| activity.request_bytes.clone())
}

/// Whether a call is the only one open on its connection (true when the
/// connection is unknown: a server not started by
/// [`crate::service::Server::start`]).
pub fn is_only_call(extensions: &http::Extensions) -> bool {
    activity(extensions).is_none_or(|activity| activity.open_calls.load(Ordering::Acquire) <= 1)
}

/// The waiting response bytes of the connection a call came on.
pub fn waiting_responses(extensions: &http::Extensions) -> Option<Arc<WaitingBytes>> {
    activity(extensions).map(|activity| Arc::clone(&activity.responses))
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

/// An accepted TCP connection that ends itself when idle too long, when it
/// leaves responses unwritten too long, or when it has lived too long.
#[derive(Debug)]
pub struct Connection {
    stream: TcpStream,
    activity: Arc<Activity>,
    limits: ConnectionLimits,
    idle_check: Pin<Box<Sleep>>,
    /// What the server writes, read as HTTP/2 frames (plaintext only).
    frames: FrameMeter,
    send_check: Pin<Box<Sleep>>,
    /// When response DATA was last written, or nothing was found waiting.
    sent_at: Instant,
    /// The end of its maximum age and grace.
    end_of_life: Pin<Box<Sleep>>,
    /// Set once the server has closed its side: how long it still reads.
    linger: Option<Pin<Box<Sleep>>>,
    /// What HTTP/2 wrote and the socket has not yet taken.
    outbox: Outbox,
    /// Whether the socket took nothing when last given the outbox: it wakes
    /// the task once it can take more.
    socket_full: bool,
    _slot: OwnedSemaphorePermit,
}

/// How long a connection the server has closed (its last frames and FIN
/// sent) still reads what the client sends, waiting for the client to close
/// too. Closing a socket with unread bytes in it makes the kernel send a
/// reset, and a reset can destroy data the client has not read yet: a
/// Watch stream's last NOT_SERVING at shutdown, a call's last answer.
pub const LINGER: Duration = Duration::from_millis(250);

/// How often, within the send timeout, a connection looks whether its responses still wait.
const SEND_CHECKS_PER_TIMEOUT: u32 = 4;

impl Connection {
    fn new(
        stream: TcpStream,
        peer: SocketAddr,
        limits: ConnectionLimits,
        slot: OwnedSemaphorePermit,
        responses: WaitingBytes,
    ) -> Connection {
        let now = Instant::now();
        Connection {
            stream,
            activity: Arc::new(Activity::new(peer, limits.request_bytes, responses)),
            limits,
            idle_check: Box::pin(tokio::time::sleep(limits.handshake_timeout)),
            frames: FrameMeter::default(),
            send_check: Box::pin(tokio::time::sleep(send_check_every(limits))),
            sent_at: now,
            end_of_life: Box::pin(tokio::time::sleep(limits.lifetime)),
            linger: None,
            outbox: Outbox::default(),
            socket_full: false,
            _slot: slot,
        }
    }

    /// Polls the connection's other limits: an error once responses have
    /// waited the send timeout with no DATA written, or once the connection
    /// has outlived its maximum age and grace (GOAWAY went out at its age).
    fn poll_limits(&mut self, cx: &mut Context<'_>) -> io::Result<()> {
        self.poll_idle(cx)?;
        if self.end_of_life.as_mut().poll(cx).is_ready() {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "connection past its maximum age and grace",
            ));
        }
        while self.send_check.as_mut().poll(cx).is_ready() {
            let now = Instant::now();
            if self.activity.responses.waiting() == 0 {
                self.sent_at = now;
            } else if now >= self.sent_at + self.limits.send_timeout {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "responses left unread for the send timeout",
                ));
            }
            self.send_check
                .as_mut()
                .reset(now + send_check_every(self.limits));
        }
        Ok(())
    }

    /// Hands the outbox to the socket, metering what of it was response
    /// DATA: that leaves the connection's waiting bytes.
    fn poll_send(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        loop {
            let waiting = self.outbox.waiting();
            if waiting.is_empty() {
                return Poll::Ready(Ok(()));
            }
            let written = match Pin::new(&mut self.stream).poll_write(cx, waiting) {
                Poll::Ready(written) => written?,
                Poll::Pending => {
                    self.socket_full = true;
                    return Poll::Pending;
                }
            };
            self.socket_full = false;
            if written == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            let data = if self.limits.plaintext {
                self.frames.data_bytes(&waiting[..written])
            } else {
                // Encrypted: every byte written counts (see docs/operations.md).
                written
            };
            self.outbox.sent(written);
            if data > 0 {
                self.activity.responses.written(data);
                self.sent_at = Instant::now();
            }
        }
    }

    /// Takes what HTTP/2 writes into the outbox, sending the outbox first
    /// when it is full.
    fn poll_take(
        &mut self,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        if self.outbox.is_full() {
            std::task::ready!(self.poll_send(cx))?;
        }
        Poll::Ready(Ok(self.outbox.take(bufs)))
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

fn send_check_every(limits: ConnectionLimits) -> Duration {
    (limits.send_timeout / SEND_CHECKS_PER_TIMEOUT).max(Duration::from_millis(1))
}

/// Reads the bytes a connection writes as HTTP/2 frames (the server writes
/// nothing else, from its first byte), to count the DATA payload among them.
#[derive(Debug, Default)]
struct FrameMeter {
    header: [u8; FRAME_HEADER_BYTES],
    header_len: usize,
    payload_left: usize,
    payload_is_data: bool,
}

const FRAME_HEADER_BYTES: usize = 9;
const DATA_FRAME: u8 = 0x0;

impl FrameMeter {
    /// The DATA payload bytes among `bytes`, the next bytes written.
    fn data_bytes(&mut self, mut bytes: &[u8]) -> usize {
        let mut data = 0;
        while !bytes.is_empty() {
            if self.payload_left > 0 {
                let taken = self.payload_left.min(bytes.len());
                if self.payload_is_data {
                    data += taken;
                }
                self.payload_left -= taken;
                bytes = &bytes[taken..];
                continue;
            }
            let taken = (FRAME_HEADER_BYTES - self.header_len).min(bytes.len());
            self.header[self.header_len..self.header_len + taken].copy_from_slice(&bytes[..taken]);
            self.header_len += taken;
            bytes = &bytes[taken..];
            if self.header_len == FRAME_HEADER_BYTES {
                let [a, b, c, kind, ..] = self.header;
                self.payload_left = u32::from_be_bytes([0, a, b, c]) as usize;
                self.payload_is_data = kind == DATA_FRAME;
                self.header_len = 0;
            }
        }
        data
    }
}

impl AsyncRead for Connection {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        // What the last turn wrote leaves first; a socket that takes none
        // now wakes the task when it can.
        if let Poll::Ready(Err(error)) = self.poll_send(cx) {
            return Poll::Ready(Err(error));
        }
        self.poll_limits(cx)?;
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

/// Writes go to the outbox; the socket takes them when the task next reads.
impl AsyncWrite for Connection {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.poll_take(cx, &[io::IoSlice::new(buf)])
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.poll_take(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    /// Leaves the outbox as it is and wakes the task: whatever else this
    /// turn writes joins it, and the next turn's read sends it all (HTTP/2
    /// reads at the start of every turn; the outbox is also sent before the
    /// connection closes, [`Connection::poll_shutdown`]). While the socket
    /// is full the socket wakes the task instead: every turn ends with a
    /// flush, and waking it from here would spin.
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if !self.outbox.waiting().is_empty() && !self.socket_full {
            cx.waker().wake_by_ref();
        }
        Poll::Ready(Ok(()))
    }

    /// Sends the outbox and FIN, then reads (and drops) what the client
    /// still sends until it closes too, or for [`LINGER`] at most: see there.
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.linger.is_none() {
            std::task::ready!(self.poll_send(cx))?;
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

/// The tower layer that tells each connection when its calls start and
/// end, and refuses a call past `--max-calls` open in all, unless it is
/// its connection's only one (a health probe on a new connection is always
/// answered).
#[derive(Clone, Debug)]
pub struct CallTrackingLayer {
    /// Calls open on all connections.
    open: Arc<AtomicUsize>,
    max_calls: usize,
}

impl CallTrackingLayer {
    /// The layer of a configuration's `--max-calls`.
    pub fn new(config: &TransportConfig) -> CallTrackingLayer {
        CallTrackingLayer {
            open: Arc::default(),
            max_calls: config.max_calls,
        }
    }
}

impl<S> tower::Layer<S> for CallTrackingLayer {
    type Service = CallTracking<S>;

    fn layer(&self, inner: S) -> CallTracking<S> {
        CallTracking {
            inner,
            layer: self.clone(),
        }
    }
}

/// How long a call refused for the server's open calls is told to wait.
const CALLS_RETRY_AFTER: Duration = Duration::from_millis(100);

/// See [`CallTrackingLayer`].
#[derive(Clone, Debug)]
pub struct CallTracking<S> {
    inner: S,
    layer: CallTrackingLayer,
}

impl<S, B, R> tower::Service<http::Request<B>> for CallTracking<S>
where
    S: tower::Service<http::Request<B>, Response = http::Response<R>>,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
    R: Default + Send + 'static,
{
    /// The body keeps its call counted as open until it is dropped (a Watch
    /// stream stays open for as long as it streams).
    type Response = http::Response<HeldBody<R, Option<OpenCall>>>;
    type Error = S::Error;
    type Future = BoxFuture<Self::Response, S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        let connection = activity(request.extensions());
        if connection.is_some_and(|activity| activity.open_calls.load(Ordering::Acquire) > 0)
            && self.layer.open.load(Ordering::Acquire) >= self.layer.max_calls
        {
            let status = tonic::Status::from(ServiceError::BusyCalls {
                retry_after: CALLS_RETRY_AFTER,
            });
            let refused = status.into_http::<R>();
            return Box::pin(std::future::ready(Ok(
                refused.map(|body| HeldBody::new(body, None))
            )));
        }
        let open_call = connection.map(|activity| activity.call_started(&self.layer.open));
        let call = self.inner.call(request);
        Box::pin(async move {
            let response = call.await?;
            Ok(response.map(|body| HeldBody::new(body, open_call)))
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;
    use std::task::{Wake, Waker};

    use tokio::io::AsyncReadExt;
    use tokio::net::TcpSocket;

    use super::*;
    use crate::service::config::TransportConfig;

    /// A task's waker that counts its wakes.
    #[derive(Default)]
    struct Wakes(AtomicUsize);

    impl Wake for Wakes {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    impl Wakes {
        fn count(&self) -> usize {
            self.0.load(Ordering::SeqCst)
        }
    }

    /// A server's connection to a client whose receive buffer is as small as
    /// the kernel allows, and the client's end.
    async fn connection_to_a_narrow_client() -> (Connection, TcpStream) {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("binds");
        let client = TcpSocket::new_v4().expect("a socket");
        client.set_recv_buffer_size(1).expect("a receive buffer");
        let client = client
            .connect(listener.local_addr().expect("an address"))
            .await
            .expect("connects");
        let (stream, peer) = listener.accept().await.expect("accepts");
        let config = TransportConfig::default();
        let slot = Arc::new(Semaphore::new(1))
            .acquire_owned()
            .await
            .expect("a slot");
        let responses = ResponseBudget::new(&config).connection();
        let limits = ConnectionLimits::from_config(&config);
        (
            Connection::new(stream, peer, limits, slot, responses),
            client,
        )
    }

    /// A flush with bytes unsent wakes the task so that its next turn sends
    /// them, except while the socket is full: then the socket wakes it once
    /// it can take more, and a flush (which ends every turn) must not, or
    /// the task would spin.
    #[tokio::test]
    async fn a_flush_wakes_the_task_unless_the_socket_is_full() {
        let (mut connection, mut client) = connection_to_a_narrow_client().await;
        let wakes = Arc::new(Wakes::default());
        let waker = Waker::from(Arc::clone(&wakes));
        let mut cx = Context::from_waker(&waker);
        let mut connection = Pin::new(&mut connection);
        // An empty DATA frame's header, over and over.
        let frames = [0u8; 9 * 1024];
        assert!(matches!(
            connection.as_mut().poll_write(&mut cx, &frames),
            Poll::Ready(Ok(9216))
        ));
        assert!(connection.as_mut().poll_flush(&mut cx).is_ready());
        assert_eq!(wakes.count(), 1, "a flush with bytes unsent wakes the task");
        // Written until the socket takes no more and the outbox is full.
        let mut written = 0;
        while let Poll::Ready(taken) = connection.as_mut().poll_write(&mut cx, &frames) {
            written += taken.expect("writes");
            assert!(written < 64 << 20, "the socket never filled");
        }
        let before = wakes.count();
        assert!(connection.as_mut().poll_flush(&mut cx).is_ready());
        assert_eq!(
            wakes.count(),
            before,
            "a flush on a full socket woke the task"
        );
        // The client reads: the socket wakes the task.
        let mut scratch = vec![0u8; 1 << 20];
        let deadline = Instant::now() + Duration::from_secs(10);
        while wakes.count() == before {
            assert!(Instant::now() < deadline, "the socket never woke the task");
            let _ =
                tokio::time::timeout(Duration::from_millis(50), client.read(&mut scratch)).await;
        }
    }
}
