//! Problem 1: streams per connection are capped: a client that opens thousands of
//! never-ending `Health/Watch` streams on one connection gets the excess
//! refused, and the server's memory stays bounded.

use std::collections::HashSet;
use std::io::Write;
use std::time::Duration;

use crate::common::raw_h2::{
    DATA, END_HEADERS, END_STREAM, Frame, GOAWAY, HEADERS, MAX_CONCURRENT_STREAMS, REFUSED_STREAM,
    RST_STREAM, RawConnection, SETTINGS, frame, grpc_headers, grpc_message, read_frame,
};

const CAP: u32 = 100;
const CONNECTIONS: usize = 4;
/// Streams each connection tries to open: uncapped, the four would hold
/// 12,000 Watch streams (about 100 MB).
const STREAMS: u32 = 3000;

#[test]
fn streams_past_the_cap_are_refused_and_memory_stays_bounded() {
    let server = crate::tafl(&["--max-streams-per-connection", &CAP.to_string()]);
    let before_kib = server.rss_kib();
    let mut readers = Vec::new();
    let mut connections = Vec::new();
    for _ in 0..CONNECTIONS {
        let mut connection = RawConnection::open(server.addr).expect("connects");
        let mut reading = connection.stream.try_clone().unwrap();
        // Reads until the server closes, or stays silent for a second.
        readers.push(std::thread::spawn(move || {
            std::iter::from_fn(|| read_frame(&mut reading, Duration::from_secs(1)))
                .collect::<Vec<Frame>>()
        }));
        let mut flood = Vec::new();
        for n in 0..STREAMS {
            let id = 2 * n + 1;
            let path = "/grpc.health.v1.Health/Watch";
            flood.extend(frame(HEADERS, END_HEADERS, id, &grpc_headers(path)));
            flood.extend(frame(DATA, END_STREAM, id, &grpc_message(0, &[])));
        }
        // The server may close the connection before it has read it all.
        let _ = connection.stream.write_all(&flood);
        connections.push(connection);
    }
    std::thread::sleep(Duration::from_millis(500));
    let during_kib = server.rss_kib();

    for reader in readers {
        let frames = reader.join().expect("reader");
        let advertised = frames
            .iter()
            .filter(|frame| frame.kind == SETTINGS)
            .flat_map(Frame::settings)
            .find(|(id, _)| *id == MAX_CONCURRENT_STREAMS);
        assert_eq!(advertised, Some((MAX_CONCURRENT_STREAMS, CAP)));
        let answered: HashSet<u32> = frames
            .iter()
            .filter(|frame| frame.kind == HEADERS)
            .map(|frame| frame.stream)
            .collect();
        let refused = frames
            .iter()
            .filter(|frame| frame.kind == RST_STREAM && frame.error_code() == Some(REFUSED_STREAM))
            .count();
        let goaway = frames.iter().any(|frame| frame.kind == GOAWAY);
        println!(
            "one connection: {} Watch streams answered, {refused} refused, goaway: {goaway}",
            answered.len()
        );
        assert!(!answered.is_empty(), "some Watch streams are served");
        assert!(
            answered.len() <= CAP as usize,
            "{} streams open at once on one connection",
            answered.len()
        );
        assert!(refused > 0 || goaway, "the excess is refused");
    }
    let grown_mib = during_kib.saturating_sub(before_kib) / 1024;
    println!(
        "RSS {} MiB before, {} MiB with {CONNECTIONS} x {STREAMS} streams asked for",
        before_kib / 1024,
        during_kib / 1024
    );
    assert!(grown_mib < 64, "RSS grew by {grown_mib} MiB");
    drop(connections);
    tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(crate::assert_serving(server.addr));
}

/// Issue 42, item 6: an HTTP/2 rapid reset (streams opened and reset at once, again and again,
/// on many connections) is answered with GOAWAY and writes no log line: the HTTP/2 library's
/// warning, one per attacking connection, flooded the log (7,889 lines in 20 s).
#[test]
fn a_rapid_reset_flood_does_not_flood_the_log() {
    const CONNECTIONS: usize = 20;
    const RESETS: u32 = 2000;
    let server = crate::tafl(&[]);
    let before = server.log().len();
    let mut goaways = 0;
    for _ in 0..CONNECTIONS {
        let mut connection = RawConnection::open(server.addr).expect("connects");
        let mut flood = Vec::new();
        for n in 0..RESETS {
            let id = 2 * n + 1;
            let path = "/grpc.health.v1.Health/Check";
            flood.extend(frame(HEADERS, END_HEADERS, id, &grpc_headers(path)));
            // CANCEL (8).
            flood.extend(frame(RST_STREAM, 0, id, &8u32.to_be_bytes()));
        }
        // The server closes the connection when it has seen enough.
        let _ = connection.stream.write_all(&flood);
        let frames: Vec<Frame> =
            std::iter::from_fn(|| connection.read_frame(Duration::from_secs(2))).collect();
        goaways += usize::from(frames.iter().any(|frame| frame.kind == GOAWAY));
    }
    std::thread::sleep(Duration::from_millis(200));
    let lines: Vec<String> = server.log().into_iter().skip(before).collect();
    println!("{goaways} of {CONNECTIONS} connections got GOAWAY; the log grew by {lines:#?}");
    assert!(goaways > 0, "the flood was not seen as one");
    assert!(
        lines.iter().all(|line| !line.contains("WARN")),
        "{lines:#?}"
    );
    tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(crate::assert_serving(server.addr));
}
