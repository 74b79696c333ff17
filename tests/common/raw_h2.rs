//! HTTP/2 by hand, for the tests that must behave as no well-mannered
//! client would: frames written straight to a TCP socket (HPACK literals
//! only), and the server's frames read back by type; and [`grpc_call`], a
//! call with whatever headers a test gives, whose status is the server's
//! own (no client-side timer).

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// The client connection preface.
pub const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

pub const DATA: u8 = 0x0;
pub const HEADERS: u8 = 0x1;
pub const RST_STREAM: u8 = 0x3;
pub const SETTINGS: u8 = 0x4;
pub const PING: u8 = 0x6;
pub const GOAWAY: u8 = 0x7;

pub const END_STREAM: u8 = 0x1;
pub const ACK: u8 = 0x1;
pub const END_HEADERS: u8 = 0x4;

/// SETTINGS_MAX_CONCURRENT_STREAMS.
pub const MAX_CONCURRENT_STREAMS: u16 = 0x3;
/// SETTINGS_INITIAL_WINDOW_SIZE: what the server may send on each stream before the client says more.
pub const INITIAL_WINDOW_SIZE: u16 = 0x4;
/// The RST_STREAM code for a stream the server would not open.
pub const REFUSED_STREAM: u32 = 0x7;

/// One frame as read from the wire.
#[derive(Debug, Clone)]
pub struct Frame {
    pub kind: u8,
    pub flags: u8,
    pub stream: u32,
    pub payload: Vec<u8>,
}

impl Frame {
    /// The error code of a RST_STREAM or GOAWAY frame.
    pub fn error_code(&self) -> Option<u32> {
        let at = match self.kind {
            RST_STREAM => 0,
            GOAWAY => 4,
            _ => return None,
        };
        let bytes = self.payload.get(at..at + 4)?;
        Some(u32::from_be_bytes(bytes.try_into().ok()?))
    }

    /// A SETTINGS frame's parameters.
    pub fn settings(&self) -> Vec<(u16, u32)> {
        self.payload
            .chunks_exact(6)
            .map(|chunk| {
                (
                    u16::from_be_bytes([chunk[0], chunk[1]]),
                    u32::from_be_bytes([chunk[2], chunk[3], chunk[4], chunk[5]]),
                )
            })
            .collect()
    }
}

/// A frame's bytes.
pub fn frame(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
    let length = payload.len() as u32;
    let mut bytes = length.to_be_bytes()[1..].to_vec();
    bytes.extend([kind, flags]);
    bytes.extend((stream & 0x7fff_ffff).to_be_bytes());
    bytes.extend(payload);
    bytes
}

/// An HPACK string literal, not Huffman-coded (short strings only).
fn literal(text: &str, out: &mut Vec<u8>) {
    assert!(text.len() < 127, "long HPACK literals are not needed here");
    out.push(text.len() as u8);
    out.extend(text.as_bytes());
}

/// The request headers of a gRPC call to `path`, as HPACK literals without indexing.
pub fn grpc_headers(path: &str) -> Vec<u8> {
    let mut block = Vec::new();
    for (name, value) in [
        (":method", "POST"),
        (":scheme", "http"),
        (":path", path),
        (":authority", "localhost"),
        ("content-type", "application/grpc"),
        ("te", "trailers"),
    ] {
        block.push(0x00);
        literal(name, &mut block);
        literal(value, &mut block);
    }
    block
}

/// A SETTINGS frame's payload.
pub fn settings(parameters: &[(u16, u32)]) -> Vec<u8> {
    parameters
        .iter()
        .flat_map(|(id, value)| id.to_be_bytes().into_iter().chain(value.to_be_bytes()))
        .collect()
}

/// A gRPC message frame: the compressed flag, the length, the bytes.
pub fn grpc_message(compressed: u8, message: &[u8]) -> Vec<u8> {
    let mut bytes = vec![compressed];
    bytes.extend((message.len() as u32).to_be_bytes());
    bytes.extend(message);
    bytes
}

/// One HTTP/2 connection, written and read by hand.
pub struct RawConnection {
    pub stream: TcpStream,
}

impl RawConnection {
    /// Connects and sends the preface and an empty SETTINGS frame.
    pub fn open(addr: SocketAddr) -> io::Result<RawConnection> {
        RawConnection::open_with(addr, &[])
    }

    /// Connects and sends the preface and a SETTINGS frame of `parameters`.
    pub fn open_with(addr: SocketAddr, parameters: &[(u16, u32)]) -> io::Result<RawConnection> {
        let mut stream = TcpStream::connect(addr)?;
        stream.set_nodelay(true)?;
        stream.write_all(PREFACE)?;
        stream.write_all(&frame(SETTINGS, 0, 0, &settings(parameters)))?;
        Ok(RawConnection { stream })
    }

    /// Opens stream `id` with a gRPC call to `path` and sends `body`, ending the stream.
    pub fn call(&mut self, id: u32, path: &str, body: &[u8]) -> io::Result<()> {
        let mut bytes = frame(HEADERS, END_HEADERS, id, &grpc_headers(path));
        bytes.extend(frame(DATA, END_STREAM, id, body));
        self.stream.write_all(&bytes)
    }

    /// Reads the next frame; `None` at the end of the connection or after `timeout` of silence.
    pub fn read_frame(&mut self, timeout: Duration) -> Option<Frame> {
        read_frame(&mut self.stream, timeout)
    }
}

/// Reads one frame from `stream`; `None` at its end, on an error, or after
/// `timeout` of silence.
pub fn read_frame(stream: &mut TcpStream, timeout: Duration) -> Option<Frame> {
    stream.set_read_timeout(Some(timeout)).ok()?;
    let mut header = [0u8; 9];
    stream.read_exact(&mut header).ok()?;
    let length = u32::from_be_bytes([0, header[0], header[1], header[2]]) as usize;
    let mut payload = vec![0; length];
    stream.read_exact(&mut payload).ok()?;
    Some(Frame {
        kind: header[3],
        flags: header[4],
        stream: u32::from_be_bytes([header[5], header[6], header[7], header[8]]) & 0x7fff_ffff,
        payload,
    })
}

/// What the server answered a [`grpc_call`]: its status (from the trailers,
/// or the headers of a trailers-only answer) and the message bytes.
#[derive(Debug)]
pub struct Answer {
    pub status: tonic::Status,
    pub body: Vec<u8>,
}

/// A gRPC call to `path` on a connection of its own, with `headers` added
/// and `message` as its one message. A tonic client keeps a `grpc-timeout`
/// itself too and may answer before the server does; this one waits for the
/// server's answer, however long.
pub async fn grpc_call(
    addr: SocketAddr,
    path: &str,
    headers: &[(&str, &str)],
    message: &[u8],
) -> Answer {
    let tcp = tokio::net::TcpStream::connect(addr)
        .await
        .expect("connects");
    let (client, connection) = h2::client::handshake(tcp).await.expect("HTTP/2");
    tokio::spawn(connection);
    let mut request = tonic::codegen::http::Request::post(format!("http://{addr}{path}"))
        .header("content-type", "application/grpc")
        .header("te", "trailers");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let mut client = client.ready().await.expect("ready");
    let (response, mut sending) = client
        .send_request(request.body(()).expect("a request"), false)
        .expect("sent");
    // The server may answer before it has read the message (a deadline passed, a budget full).
    let _ = sending.send_data(grpc_message(0, message).into(), true);
    let (head, mut body) = response.await.expect("an answer").into_parts();
    if let Some(status) = tonic::Status::from_header_map(&head.headers) {
        return Answer {
            status,
            body: Vec::new(),
        };
    }
    let mut bytes = Vec::new();
    while let Some(chunk) = body.data().await {
        let chunk = chunk.expect("data");
        let _ = body.flow_control().release_capacity(chunk.len());
        bytes.extend_from_slice(&chunk);
    }
    let trailers = body.trailers().await.expect("trailers").unwrap_or_default();
    Answer {
        status: tonic::Status::from_header_map(&trailers).expect("a grpc-status"),
        body: bytes,
    }
}

/// `count` calls of `path` on one connection that never takes what the
/// server sends (its stream window shut: SETTINGS_INITIAL_WINDOW_SIZE 0).
/// Each call's status if the server ends it within `wait` (an answer in
/// trailers alone needs no window), `None` while its answer waits for the
/// window; and the connection's task, which ends when the server closes it.
pub async fn unread_calls(
    addr: SocketAddr,
    path: &str,
    message: &[u8],
    count: usize,
    wait: Duration,
) -> (Vec<Option<tonic::Status>>, tokio::task::JoinHandle<()>) {
    let tcp = tokio::net::TcpStream::connect(addr)
        .await
        .expect("connects");
    let (client, connection) = h2::client::Builder::new()
        .initial_window_size(0)
        .handshake::<_, prost::bytes::Bytes>(tcp)
        .await
        .expect("HTTP/2");
    let connection = tokio::spawn(async move {
        let _ = connection.await;
    });
    let mut answers = Vec::new();
    for _ in 0..count {
        let mut client = client.clone().ready().await.expect("ready");
        let request = tonic::codegen::http::Request::post(format!("http://{addr}{path}"))
            .header("content-type", "application/grpc")
            .header("te", "trailers")
            .body(())
            .expect("a request");
        let (response, mut sending) = client.send_request(request, false).expect("sent");
        let _ = sending.send_data(grpc_message(0, message).into(), true);
        answers.push(tokio::spawn(async move {
            let (head, mut body) = response.await.ok()?.into_parts();
            if let Some(status) = tonic::Status::from_header_map(&head.headers) {
                return Some(status);
            }
            // Holds the stream (and its unread answer) until the connection ends.
            let ended = body.data().await.is_none();
            let trailers = body.trailers().await.ok().flatten();
            ended.then(|| trailers.as_ref().and_then(tonic::Status::from_header_map))?
        }));
    }
    tokio::time::sleep(wait).await;
    let mut statuses = Vec::new();
    for answer in answers {
        // An unfinished one is left running: it holds its stream open.
        statuses.push(if answer.is_finished() {
            answer.await.ok().flatten()
        } else {
            None
        });
    }
    (statuses, connection)
}
