//! Problem 8: what the transport answers to broken gRPC framing (the gRPC spec
//! wants INTERNAL for some of it), exactly, and that telemetry counts none
//! of it as the server's fault.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use tonic::Code;
use tonic::codegen::http;
use tonic_types::StatusExt;
use tower::Service;

use crate::common::process::Tafl;
use crate::common::raw_h2::grpc_message;

/// Sends `body` as a LegalMoves request, as it is; the answer's code and message.
async fn send(addr: SocketAddr, body: Vec<u8>) -> (Code, String) {
    let mut channel = crate::channel(addr).await;
    let request = http::Request::builder()
        .method("POST")
        .uri(format!("http://{addr}/tafl.v1.TaflService/LegalMoves"))
        .header("content-type", "application/grpc")
        .header("te", "trailers")
        .body(tonic::body::Body::new(http_body_util::Full::new(
            bytes::Bytes::from(body),
        )))
        .unwrap();
    std::future::poll_fn(|cx| channel.poll_ready(cx))
        .await
        .expect("ready");
    let response = channel.call(request).await.expect("an HTTP/2 answer");
    let (parts, body) = response.into_parts();
    let collected = http_body_util::BodyExt::collect(body)
        .await
        .expect("the body");
    let trailers = collected.trailers().cloned().unwrap_or_default();
    let status = tonic::Status::from_header_map(&parts.headers)
        .or_else(|| tonic::Status::from_header_map(&trailers))
        .expect("a grpc-status");
    (status.code(), status.message().to_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn broken_framing_gets_the_documented_code_and_is_no_server_fault() {
    let server = Tafl::start(
        env!("CARGO_BIN_EXE_tafl"),
        &["--hash-mb", "4", "--max-message-bytes", "1024"],
        &[],
    );
    let cases = [
        ("no message at all", Vec::new(), Code::Internal),
        (
            "a frame cut short",
            grpc_message(0, &[0x0a; 10])[..8].to_vec(),
            Code::Internal,
        ),
        (
            "the compressed flag without grpc-encoding",
            grpc_message(1, &[]),
            Code::Internal,
        ),
        (
            "a compressed flag of 2",
            grpc_message(2, &[]),
            Code::Internal,
        ),
        (
            "bytes that are not protobuf",
            grpc_message(0, &[0xff; 8]),
            Code::InvalidArgument,
        ),
        (
            "a message over --max-message-bytes",
            grpc_message(0, &[0; 2048]),
            Code::OutOfRange,
        ),
    ];
    let mut wrong = Vec::new();
    for (what, body, expected) in &cases {
        let (code, message) = send(server.addr, body.clone()).await;
        println!("{what}: {code:?} \"{message}\"");
        if code != *expected {
            wrong.push(format!("{what}: {code:?} ({message}), not {expected:?}"));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");

    // Each call's access-log line says whether it was our fault: never here.
    let started = Instant::now();
    let answered = loop {
        let answered: Vec<String> = server
            .log()
            .into_iter()
            .filter(|line| line.contains(" answered "))
            .collect();
        if answered.len() >= cases.len() || started.elapsed() > Duration::from_secs(5) {
            break answered;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(answered.len(), cases.len(), "{answered:#?}");
    assert!(
        answered.iter().all(|line| line.contains("fault=false")),
        "{answered:#?}"
    );
}

/// Issue 42, item 4: bytes that are not the request's protobuf are the caller's mistake, and
/// like every caller's mistake they carry the ErrorInfo the proto promises.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_that_is_not_protobuf_carries_error_info() {
    let server = Tafl::start(env!("CARGO_BIN_EXE_tafl"), &["--hash-mb", "4"], &[]);
    let answer = crate::common::raw_h2::grpc_call(
        server.addr,
        "/tafl.v1.TaflService/ApplyMove",
        &[],
        &[0xff; 8],
    )
    .await;
    assert_eq!(answer.status.code(), Code::InvalidArgument);
    assert!(
        answer
            .status
            .message()
            .starts_with("the message is not valid protobuf: "),
        "{}",
        answer.status.message()
    );
    let info = answer
        .status
        .get_details_error_info()
        .expect("an ErrorInfo");
    assert_eq!(
        (info.reason.as_str(), info.domain.as_str()),
        ("MALFORMED_MESSAGE", "tafl.v1")
    );
    assert_eq!(info.metadata["kind"], "bad_request");
}
