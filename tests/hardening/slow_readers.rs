//! Issue 21, problem 1: responses that are never read. Raw HTTP/2 clients
//! that shut their stream window (SETTINGS_INITIAL_WINDOW_SIZE 0) and never
//! read grew memory without bound: 64 connections × 128 LegalMoves (8 KB
//! answers) held 150 MB, 16 × 128 ValidateGame of a 4,096-ply game (135 KB
//! answers) 300 MB. Now the answers waiting count against
//! `--max-response-bytes(-per-connection)`, the calls past them end
//! RESOURCE_EXHAUSTED, and the connections are closed once they have left
//! their answers unread for `--send-timeout-ms`.

use std::io::Read;
use std::net::TcpStream;
use std::time::{Duration, Instant};

use prost::Message;
use tafl::service::pb;
use tonic::Code;

use crate::common::long_game::back_and_forth;
use crate::common::raw_h2::{
    DATA, END_HEADERS, END_STREAM, HEADERS, INITIAL_WINDOW_SIZE, RawConnection, frame,
    grpc_headers, grpc_message, unread_calls,
};
use tonic_types::StatusExt;

const CONNECTIONS: usize = 64;
const STREAMS: u32 = 128;
/// The server's budget here: 4 MiB, so that what it bounds shows.
const MAX_RESPONSE_BYTES: &str = "4194304";
/// Unbounded, the attack held 80 MB (10 KB an unread answer); bounded, the
/// budget and one answer per connection (about 5 MiB, twice that allocated)
/// plus what 8,192 calls' streams leave behind (about 15 MiB).
const RSS_GROWTH_BOUND_MIB: u64 = 50;
const SEND_TIMEOUT: Duration = Duration::from_secs(4);

fn long_tablut() -> pb::Game {
    pb::Game {
        variant: Some(pb::Variant {
            rules: pb::Rules::Tablut.into(),
            board_size: 0,
        }),
        start: String::new(),
        moves: back_and_forth(4096),
    }
}

/// A connection that takes nothing the server sends, with `STREAMS` calls of `path` on it.
fn slow_reader(addr: std::net::SocketAddr, path: &str, body: &[u8]) -> RawConnection {
    let mut connection =
        RawConnection::open_with(addr, &[(INITIAL_WINDOW_SIZE, 0)]).expect("connects");
    let mut calls = Vec::new();
    for n in 0..STREAMS {
        let id = 2 * n + 1;
        calls.extend(frame(HEADERS, END_HEADERS, id, &grpc_headers(path)));
        calls.extend(frame(DATA, END_STREAM, id, &grpc_message(0, body)));
    }
    // The server may close the connection before it has read it all.
    let _ = std::io::Write::write_all(&mut connection.stream, &calls);
    connection
}

/// Whether the server closes `stream` within `limit` (what it sends is read and dropped).
fn closed_within(stream: &mut TcpStream, limit: Duration) -> bool {
    let started = Instant::now();
    let mut scratch = [0u8; 16 << 10];
    stream
        .set_read_timeout(Some(Duration::from_millis(100)))
        .expect("a timeout");
    while started.elapsed() < limit {
        match stream.read(&mut scratch) {
            Ok(0) => return true,
            Ok(_) => {}
            Err(error)
                if matches!(
                    error.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => return true,
        }
    }
    false
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unread_answers_leave_memory_bounded_and_other_clients_answered() {
    let timeout_ms = SEND_TIMEOUT.as_millis().to_string();
    let server = crate::tafl(&[
        "--send-timeout-ms",
        &timeout_ms,
        "--max-response-bytes",
        MAX_RESPONSE_BYTES,
    ]);
    let idle_kib = server.rss_kib();
    // The start's legal moves, each previewed: an 8 KB answer.
    let body = pb::LegalMovesRequest::default().encode_to_vec();
    let mut readers: Vec<RawConnection> = (0..CONNECTIONS)
        .map(|_| slow_reader(server.addr, "/tafl.v1.TaflService/LegalMoves", &body))
        .collect();
    let attacked = Instant::now();
    // While they hold their answers: memory stays bounded, other clients are answered.
    let mut peak_kib = idle_kib;
    let mut client = crate::client(server.addr).await;
    let moves = crate::common::real_game::real_game_moves(60);
    let mut answered = 0;
    while attacked.elapsed() < SEND_TIMEOUT * 2 / 3 {
        peak_kib = peak_kib.max(server.rss_kib());
        let reply = client
            .legal_moves(pb::LegalMovesRequest {
                game: Some(pb::Game {
                    variant: None,
                    start: String::new(),
                    moves: moves[..60].to_vec(),
                }),
                square: String::new(),
            })
            .await
            .expect("another client's call is answered");
        assert!(!reply.into_inner().moves.is_empty());
        answered += 1;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let growth_mib = peak_kib.saturating_sub(idle_kib) / 1024;
    println!(
        "{CONNECTIONS} × {STREAMS} unread LegalMoves answers: RSS {} → peak {} MiB; {answered} LegalMoves answered meanwhile",
        idle_kib / 1024,
        peak_kib / 1024
    );
    assert!(
        growth_mib < RSS_GROWTH_BOUND_MIB,
        "RSS grew {growth_mib} MiB"
    );
    // The send timeout closes the connections that leave their answers unread...
    for reader in &mut readers {
        assert!(
            closed_within(&mut reader.stream, SEND_TIMEOUT * 4),
            "a slow reader's connection stays open"
        );
    }
    println!(
        "slow readers closed {:?} after they called",
        attacked.elapsed()
    );
    // ...and with their answers gone, a long game's answer fits again.
    let reply = client
        .validate_game(pb::ValidateGameRequest {
            game: Some(long_tablut()),
        })
        .await
        .expect("a fresh ValidateGame is answered");
    assert_eq!(reply.into_inner().plies.len(), 4096);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_past_a_full_budget_end_resource_exhausted_and_a_reader_is_not_closed() {
    // A budget of two long answers per connection.
    let server = crate::tafl(&[
        "--max-response-bytes-per-connection",
        "300000",
        "--send-timeout-ms",
        "1500",
    ]);
    let body = pb::ValidateGameRequest {
        game: Some(long_tablut()),
    }
    .encode_to_vec();
    let (statuses, connection) = unread_calls(
        server.addr,
        "/tafl.v1.TaflService/ValidateGame",
        &body,
        20,
        Duration::from_secs(1),
    )
    .await;
    let waiting = statuses.iter().filter(|status| status.is_none()).count();
    for status in statuses.iter().flatten() {
        assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
        assert!(
            status.message().contains("responses waiting to be read"),
            "{status:?}"
        );
        assert!(status.get_details_retry_info().is_some());
    }
    println!("20 unread ValidateGame calls: {waiting} answers wait, the rest RESOURCE_EXHAUSTED");
    assert!((1..=3).contains(&waiting), "{waiting} answers wait");
    // A client that reads is never closed, however long it keeps calling.
    let mut reader = crate::client(server.addr).await;
    let started = Instant::now();
    let mut calls = 0;
    while started.elapsed() < Duration::from_millis(2500) {
        let reply = reader
            .validate_game(pb::ValidateGameRequest {
                game: Some(long_tablut()),
            })
            .await
            .unwrap_or_else(|status| panic!("a reader's call after {calls}: {status:?}"));
        assert_eq!(reply.into_inner().plies.len(), 4096);
        calls += 1;
    }
    // The slow one was closed once its answers had waited the send timeout.
    tokio::time::timeout(Duration::from_secs(10), connection)
        .await
        .expect("the slow reader's connection is closed")
        .expect("its task");
    println!("a reader made {calls} ValidateGame calls meanwhile, and was not closed");
}
