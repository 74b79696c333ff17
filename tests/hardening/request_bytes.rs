//! Large requests held at once are bounded per connection and in all: a
//! client that opens many calls declaring messages of 3 MiB has two of them
//! held on its connection (8 MiB budget) and the others refused at once,
//! before their bytes are read; with the server's budget (12 MiB) full, a
//! large call on another connection is refused RESOURCE_EXHAUSTED while
//! small calls are still answered.

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

/// Opens `STREAMS` LegalMoves calls that declare a 3 MiB message and send
/// only its prefix; returns the connection and the streams answered at
/// once (a trailers-only refusal ends the stream).
fn hold_large_calls(addr: std::net::SocketAddr) -> (RawConnection, HashSet<u32>) {
    let mut connection = RawConnection::open(addr).expect("connects");
    let mut bytes = Vec::new();
    for n in 0..STREAMS {
        let id = 2 * n + 1;
        let path = "/tafl.v1.TaflService/LegalMoves";
        bytes.extend(frame(HEADERS, END_HEADERS, id, &grpc_headers(path)));
        let mut prefix = vec![0u8];
        prefix.extend((DECLARED as u32).to_be_bytes());
        bytes.extend(frame(DATA, 0, id, &prefix));
    }
    connection.stream.write_all(&bytes).expect("sends");
    let mut answered = HashSet::new();
    let waited = Instant::now();
    // All but two are answered; generous for a loaded machine.
    while answered.len() < (STREAMS - 2) as usize && waited.elapsed() < Duration::from_secs(10) {
        if let Some(frame) = connection.read_frame(Duration::from_millis(200))
            && frame.kind == HEADERS
            && frame.flags & END_STREAM != 0
        {
            answered.insert(frame.stream);
        }
    }
    // The two held are never answered while their bytes are missing.
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
        let (connection, refused) = tokio::task::spawn_blocking(move || hold_large_calls(addr))
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
