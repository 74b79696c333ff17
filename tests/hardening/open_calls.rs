//! Issue 21, problem 1 (what an open call costs): every open call holds
//! about 10 KB (its task, its stream, tonic's encode buffer), and 512
//! connections × 128 streams of never-ending Watch streams would hold
//! 650 MB; `--max-calls` caps the calls open on all connections, and a
//! connection with no call open is still served (a health probe on a new
//! connection).

use std::collections::HashMap;
use std::io::Write;
use std::time::Duration;

use crate::common::raw_h2::{
    DATA, END_HEADERS, END_STREAM, HEADERS, RawConnection, frame, grpc_headers, grpc_message,
};

const MAX_CALLS: usize = 16;
const STREAMS: u32 = 40;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_past_the_servers_cap_are_refused_but_a_new_connection_is_served() {
    let server = crate::tafl(&["--max-calls", &MAX_CALLS.to_string()]);
    let mut connection = RawConnection::open(server.addr).expect("connects");
    let mut flood = Vec::new();
    for n in 0..STREAMS {
        let id = 2 * n + 1;
        flood.extend(frame(
            HEADERS,
            END_HEADERS,
            id,
            &grpc_headers("/grpc.health.v1.Health/Watch"),
        ));
        flood.extend(frame(DATA, END_STREAM, id, &grpc_message(0, &[])));
    }
    connection.stream.write_all(&flood).expect("sent");
    // Each stream's first HEADERS: the end of the stream with it is a refusal
    // (trailers only), without it a Watch that goes on.
    let mut first_headers: HashMap<u32, bool> = HashMap::new();
    while let Some(frame) = connection.read_frame(Duration::from_secs(1)) {
        if frame.kind == HEADERS {
            first_headers
                .entry(frame.stream)
                .or_insert(frame.flags & END_STREAM != 0);
        }
    }
    let refused = first_headers.values().filter(|&&ended| ended).count();
    let open = first_headers.len() - refused;
    println!(
        "{STREAMS} Watch streams on one connection, --max-calls {MAX_CALLS}: {open} open, {refused} refused"
    );
    assert_eq!(
        first_headers.len(),
        STREAMS as usize,
        "every stream answered"
    );
    assert_eq!(open, MAX_CALLS);
    // The server is full, yet a health probe on a connection of its own is answered.
    crate::assert_serving(server.addr).await;
    drop(connection);
}
