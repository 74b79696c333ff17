//! Requests held at once are bounded per connection and in all: a client
//! that opens many calls declaring messages of 3 MiB has two of them held
//! on its connection (8 MiB budget) and the others refused at once, before
//! their bytes are read; with the server's budget (12 MiB) full, a large
//! call on another connection is refused RESOURCE_EXHAUSTED while small
//! calls are still answered. Small messages started and never finished fill
//! a budget of their own (8 KiB per `--max-calls`), past which a call is
//! refused unless it is its connection's only one.

use std::collections::HashSet;
use std::io::Write;
use std::time::{Duration, Instant};

use tafl::service::pb::{Game, LegalMovesRequest};
use tonic::Code;

use crate::common::raw_h2::{
    DATA, END_HEADERS, END_STREAM, HEADERS, RawConnection, frame, grpc_headers,
};

const MIB: usize = 1 << 20;
const DECLARED: usize = 3 * MIB;
const STREAMS: u32 = 10;
/// Per connection: two 3 MiB messages fit.
const PER_CONNECTION: usize = 8 * MIB;
/// In all: two connections' two.
const TOTAL: usize = 12 * MIB;

/// Opens `STREAMS` LegalMoves calls that declare a message of `declared`
/// bytes and send only its prefix; returns the connection and the streams
/// answered at once (a trailers-only refusal ends the stream), waiting
/// until all but `held` are.
fn hold_calls(
    addr: std::net::SocketAddr,
    declared: usize,
    held: u32,
) -> (RawConnection, HashSet<u32>) {
    let mut connection = RawConnection::open(addr).expect("connects");
    let mut bytes = Vec::new();
    for n in 0..STREAMS {
        let id = 2 * n + 1;
        let path = "/tafl.v1.TaflService/LegalMoves";
        bytes.extend(frame(HEADERS, END_HEADERS, id, &grpc_headers(path)));
        let mut prefix = vec![0u8];
        prefix.extend((declared as u32).to_be_bytes());
        bytes.extend(frame(DATA, 0, id, &prefix));
    }
    connection.stream.write_all(&bytes).expect("sends");
    let mut answered = HashSet::new();
    let waited = Instant::now();
    // All but those held are answered; generous for a loaded machine.
    while answered.len() < (STREAMS - held) as usize && waited.elapsed() < Duration::from_secs(10) {
        if let Some(frame) = connection.read_frame(Duration::from_millis(200))
            && frame.kind == HEADERS
            && frame.flags & END_STREAM != 0
        {
            answered.insert(frame.stream);
        }
    }
    // Those held are never answered while their bytes are missing.
    while let Some(frame) = connection.read_frame(Duration::from_millis(300)) {
        if frame.kind == HEADERS && frame.flags & END_STREAM != 0 {
            answered.insert(frame.stream);
        }
    }
    (connection, answered)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn large_requests_held_at_once_are_bounded_per_connection_and_in_all() {
    let server = crate::tafl(&[
        "--max-request-bytes-per-connection",
        &PER_CONNECTION.to_string(),
        "--max-request-bytes",
        &TOTAL.to_string(),
    ]);
    let addr = server.addr;
    // Two connections, each with two calls held: the server's budget is full.
    let mut held = Vec::new();
    for _ in 0..2 {
        let (connection, refused) =
            tokio::task::spawn_blocking(move || hold_calls(addr, DECLARED, 2))
                .await
                .unwrap();
        assert_eq!(refused.len(), (STREAMS - 2) as usize, "{refused:?}");
        held.push(connection);
    }

    // A large call elsewhere is refused, a small one answered.
    let mut client = crate::client(addr).await;
    let large = LegalMovesRequest {
        game: Some(Game {
            start: "x".repeat(DECLARED),
            ..Game::default()
        }),
        square: String::new(),
    };
    let refused = client.legal_moves(large).await.expect_err("no room");
    assert_eq!(refused.code(), Code::ResourceExhausted, "{refused:?}");
    assert!(refused.metadata().get("grpc-retry-pushback-ms").is_some());
    client
        .legal_moves(LegalMovesRequest::default())
        .await
        .expect("a small call is answered");
    crate::assert_serving(addr).await;
    drop(held);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn small_requests_never_finished_are_bounded_and_a_lone_call_is_answered() {
    // 32 calls × 8 KiB: a budget of 256 KiB, four messages of 60 KiB.
    let server = crate::tafl(&["--max-calls", "32"]);
    let addr = server.addr;
    let (held, refused) = tokio::task::spawn_blocking(move || hold_calls(addr, 60 << 10, 4))
        .await
        .unwrap();
    assert_eq!(refused.len(), (STREAMS - 4) as usize, "{refused:?}");

    // A client making one call at a time is answered all the same.
    let mut client = crate::client(addr).await;
    for _ in 0..3 {
        client
            .legal_moves(LegalMovesRequest::default())
            .await
            .expect("a connection's only call is answered");
    }
    crate::assert_serving(addr).await;
    drop(held);
}
