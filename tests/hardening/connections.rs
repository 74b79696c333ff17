//! Problem 2: connections are closed when they carry no call: a silent TCP
//! connection, a bare HTTP/2 preface and a half-done TLS handshake within
//! the handshake timeout, a connection whose calls are done within the idle
//! timeout; one with an open Watch stream stays. At the file-descriptor
//! limit the accept loop backs off instead of spinning.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::process::{Tafl, command};
use crate::common::raw_h2::{ACK, PING, RawConnection, frame, grpc_message};

const HANDSHAKE_MS: u64 = 300;
const IDLE_MS: u64 = 600;
/// How long a closed connection may take to show as closed, beyond its timeout.
const SLACK: Duration = Duration::from_secs(3);

/// Reads until the server closes `stream`; when that was, or `None` if it
/// was still open after `limit`.
fn closed_at(stream: &mut TcpStream, limit: Duration) -> Option<Instant> {
    let started = Instant::now();
    let mut buffer = [0u8; 4096];
    while let Some(left) = limit.checked_sub(started.elapsed()) {
        stream
            .set_read_timeout(Some(left.max(Duration::from_millis(1))))
            .unwrap();
        match stream.read(&mut buffer) {
            Ok(0) => return Some(Instant::now()),
            Ok(_) => {}
            Err(error)
                if matches!(
                    error.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return None;
            }
            Err(_) => return Some(Instant::now()),
        }
    }
    None
}

fn timeouts() -> Vec<String> {
    vec![
        "--handshake-timeout-ms".into(),
        HANDSHAKE_MS.to_string(),
        "--idle-timeout-ms".into(),
        IDLE_MS.to_string(),
    ]
}

fn start(extra: &[&str]) -> Tafl {
    let args = timeouts();
    let mut args: Vec<&str> = args.iter().map(String::as_str).collect();
    args.extend(extra);
    crate::tafl(&args)
}

/// The server closes `stream`, opened (or last used) at `since`, about `timeout_ms` later.
fn assert_closed_in_time(what: &str, stream: &mut TcpStream, since: Instant, timeout_ms: u64) {
    let closed = closed_at(stream, Duration::from_millis(timeout_ms) + SLACK)
        .unwrap_or_else(|| panic!("{what}: still open"))
        - since;
    println!("{what}: closed after {closed:?} (timeout {timeout_ms} ms)");
    assert!(
        closed >= Duration::from_millis(timeout_ms * 2 / 3),
        "{what}: closed too early, after {closed:?}"
    );
}

#[test]
fn connections_without_a_call_are_closed() {
    let server = start(&[]);
    let opened = Instant::now();
    let mut silent = TcpStream::connect(server.addr).unwrap();
    let mut preface_only = RawConnection::open(server.addr).unwrap().stream;
    assert_closed_in_time("silent TCP", &mut silent, opened, HANDSHAKE_MS);
    assert_closed_in_time(
        "HTTP/2 preface only",
        &mut preface_only,
        opened,
        HANDSHAKE_MS,
    );

    // A call answered, then nothing: closed an idle timeout after the call.
    let mut after_call = RawConnection::open(server.addr).unwrap();
    after_call
        .call(1, "/grpc.health.v1.Health/Check", &grpc_message(0, &[]))
        .unwrap();
    let called = Instant::now();
    assert_closed_in_time("idle after a call", &mut after_call.stream, called, IDLE_MS);
}

#[test]
fn a_connection_with_an_open_watch_stays() {
    let server = start(&[]);
    let mut watching = RawConnection::open(server.addr).unwrap();
    watching
        .call(1, "/grpc.health.v1.Health/Watch", &grpc_message(0, &[]))
        .unwrap();
    std::thread::sleep(Duration::from_millis(IDLE_MS * 2 + HANDSHAKE_MS));
    // Still there: a PING is answered.
    watching
        .stream
        .write_all(&frame(PING, 0, 0, b"stillhere"[..8].as_ref()))
        .unwrap();
    let acked = std::iter::from_fn(|| watching.read_frame(Duration::from_secs(5)))
        .any(|frame| frame.kind == PING && frame.flags & ACK != 0);
    assert!(acked, "the watching connection was closed");
}

/// A self-signed certificate for `localhost` in a fresh directory.
fn certificate() -> (std::path::PathBuf, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("tafl-hardening-tls-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let certified = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    std::fs::write(&cert, certified.cert.pem()).unwrap();
    std::fs::write(&key, certified.signing_key.serialize_pem()).unwrap();
    (cert, key)
}

#[test]
fn a_half_done_tls_handshake_is_closed() {
    let (cert, key) = certificate();
    let server = start(&[
        "--tls-cert",
        cert.to_str().unwrap(),
        "--tls-key",
        key.to_str().unwrap(),
    ]);
    let opened = Instant::now();
    let mut stalled = TcpStream::connect(server.addr).unwrap();
    // The first bytes of a ClientHello record, and no more.
    stalled
        .write_all(&[0x16, 0x03, 0x01, 0x02, 0x00, 0x01])
        .unwrap();
    assert_closed_in_time("half a TLS handshake", &mut stalled, opened, HANDSHAKE_MS);
    let _ = std::fs::remove_dir_all(cert.parent().unwrap());
}

/// Connects `n` times, keeping what connected.
fn connect_many(addr: SocketAddr, n: usize) -> Vec<TcpStream> {
    (0..n)
        .filter_map(|_| TcpStream::connect(addr).ok())
        .collect()
}

#[test]
fn the_accept_loop_backs_off_at_the_file_descriptor_limit() {
    // 40 descriptors: the runtime takes a dozen, so the rest run out soon.
    let binary = env!("CARGO_BIN_EXE_tafl");
    let tafl_command = command(
        std::path::Path::new(binary),
        &["--hash-mb", "4", "--handshake-timeout-ms", "60000"],
        &[],
    );
    let mut limited = Command::new("sh");
    limited
        .arg("-c")
        .arg("ulimit -n 40 && exec \"$0\" \"$@\"")
        .arg(tafl_command.get_program())
        .args(tafl_command.get_args());
    for (name, value) in tafl_command.get_envs() {
        match value {
            Some(value) => limited.env(name, value),
            None => limited.env_remove(name),
        };
    }
    let server = Tafl::spawn(limited);
    let held = connect_many(server.addr, 80);
    std::thread::sleep(Duration::from_millis(300));
    let cpu_before = server.cpu_time();
    std::thread::sleep(Duration::from_secs(1));
    let cpu = server.cpu_time() - cpu_before;
    println!(
        "{} connections pending at the descriptor limit: {cpu:?} of CPU in 1 s",
        held.len()
    );
    assert!(
        cpu < Duration::from_millis(300),
        "the accept loop spins: {cpu:?} of CPU in 1 s"
    );
    drop(held);
    tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(crate::assert_serving(server.addr));
}
