//! Health, reflection, draining and shutdown, in-process and of the real binary.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_and_reflection_are_served() {
    use tonic::codegen::tokio_stream;
    use tonic_health::pb::health_client::HealthClient;
    use tonic_health::pb::{HealthCheckRequest, health_check_response::ServingStatus};
    use tonic_reflection::pb::v1::ServerReflectionRequest;
    use tonic_reflection::pb::v1::server_reflection_client::ServerReflectionClient;
    use tonic_reflection::pb::v1::server_reflection_request::MessageRequest;
    use tonic_reflection::pb::v1::server_reflection_response::MessageResponse;

    let server = TestServer::start().await;
    let channel = tonic::transport::Channel::from_shared(format!("http://{}", server.addr))
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut health = HealthClient::new(channel.clone());
    for service in ["", "tafl.v1.TaflService"] {
        let reply = health
            .check(HealthCheckRequest {
                service: service.to_owned(),
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(reply.status(), ServingStatus::Serving, "{service:?}");
    }

    let mut reflection = ServerReflectionClient::new(channel);
    let request = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::ListServices(String::new())),
    };
    let mut replies = reflection
        .server_reflection_info(tokio_stream::iter([request]))
        .await
        .unwrap()
        .into_inner();
    let reply = replies.message().await.unwrap().unwrap();
    let Some(MessageResponse::ListServicesResponse(list)) = reply.message_response else {
        panic!("{reply:?}");
    };
    let names: BTreeSet<String> = list.service.into_iter().map(|s| s.name).collect();
    for expected in ["tafl.v1.TaflService", "grpc.health.v1.Health"] {
        assert!(names.contains(expected), "{names:?}");
    }

    // Older tools speak v1alpha; it knows the same services and their files.
    use tonic_reflection::pb::v1alpha::server_reflection_client::ServerReflectionClient as AlphaClient;
    use tonic_reflection::pb::v1alpha::server_reflection_request::MessageRequest as AlphaRequest;
    use tonic_reflection::pb::v1alpha::server_reflection_response::MessageResponse as AlphaResponse;
    let channel = tonic::transport::Channel::from_shared(format!("http://{}", server.addr))
        .unwrap()
        .connect()
        .await
        .unwrap();
    let request = tonic_reflection::pb::v1alpha::ServerReflectionRequest {
        host: String::new(),
        message_request: Some(AlphaRequest::FileContainingSymbol(
            "tafl.v1.TaflService".to_owned(),
        )),
    };
    let mut replies = AlphaClient::new(channel)
        .server_reflection_info(tokio_stream::iter([request]))
        .await
        .unwrap()
        .into_inner();
    let reply = replies.message().await.unwrap().unwrap();
    let Some(AlphaResponse::FileDescriptorResponse(files)) = reply.message_response else {
        panic!("{reply:?}");
    };
    assert!(!files.file_descriptor_proto.is_empty());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_drains_then_lets_calls_finish() {
    use tonic_health::pb::health_client::HealthClient;
    use tonic_health::pb::{HealthCheckRequest, health_check_response::ServingStatus};

    let _heavy = HEAVY.lock().await;
    let mut server = TestServer::start_with(tafl::service::Config {
        shutdown: tafl::service::ShutdownConfig {
            drain_delay: Duration::from_millis(400),
            ..test_config().shutdown
        },
        ..test_config()
    })
    .await;
    let mut client = server.new_client().await;
    let search = tokio::spawn(async move {
        client
            .evaluate(EvaluateRequest {
                game: Some(copenhagen(&[])),
                limits: Some(SearchLimits {
                    max_time_ms: 1200,
                    ..SearchLimits::default()
                }),
            })
            .await
    });
    tokio::time::sleep(Duration::from_millis(150)).await;
    let addr = server.addr;
    let running = server.server.take().unwrap();
    let stopping = tokio::spawn(async move { running.shutdown().await });
    tokio::time::sleep(Duration::from_millis(100)).await;
    // Draining: health says NOT_SERVING, calls are still answered.
    let channel = tonic::transport::Channel::from_shared(format!("http://{addr}"))
        .unwrap()
        .connect()
        .await
        .unwrap();
    let reply = HealthClient::new(channel)
        .check(HealthCheckRequest {
            service: "tafl.v1.TaflService".to_owned(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(reply.status(), ServingStatus::NotServing);
    // The search in flight finishes with its answer.
    let evaluated = search.await.unwrap().expect("the in-flight call finishes");
    assert!(evaluated.into_inner().depth >= 1);
    stopping.await.unwrap().expect("clean shutdown");
    // And the port no longer takes calls.
    let after = tonic::transport::Channel::from_shared(format!("http://{addr}"))
        .unwrap()
        .connect_timeout(Duration::from_millis(500))
        .connect()
        .await;
    assert!(after.is_err(), "still accepting after shutdown");
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_binary_serves_and_exits_0_on_sigterm() {
    let mut tafl =
        common::process::Tafl::start(env!("CARGO_BIN_EXE_tafl"), &["--hash-mb", "4"], &[]);
    check_health_then_stop(&mut tafl).await;
}

/// Asks the binary for its health, then sends SIGTERM: it must exit 0.
#[cfg(unix)]
async fn check_health_then_stop(tafl: &mut common::process::Tafl) {
    use tonic_health::pb::HealthCheckRequest;
    use tonic_health::pb::health_client::HealthClient;

    let channel = tonic::transport::Channel::from_shared(format!("http://{}", tafl.addr))
        .unwrap()
        .connect()
        .await
        .expect("connects");
    HealthClient::new(channel)
        .check(HealthCheckRequest::default())
        .await
        .expect("health answers");
    tafl.sigterm();
    let status = tafl.wait(Duration::from_secs(20));
    assert!(status.success(), "exit status {status:?}");
}

/// The binary's log has one `info` line per `tafl.v1` call once it is over (method, status
/// code, latency, peer; a stream's when it ends), none for health checks, and `RUST_LOG`
/// silences them by their target.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_binary_logs_one_line_per_call_that_rust_log_can_silence() {
    for (rust_log, logs_calls) in [("info", true), ("info,tafl::access=off", false)] {
        let mut tafl = common::process::Tafl::start(
            env!("CARGO_BIN_EXE_tafl"),
            &["--hash-mb", "4"],
            &[("RUST_LOG", rust_log)],
        );
        let mut client = connect(tafl.addr).await;
        client
            .legal_moves(LegalMovesRequest {
                game: Some(copenhagen(&[])),
                ..LegalMovesRequest::default()
            })
            .await
            .expect("LegalMoves answers");
        client
            .apply_move(ApplyMoveRequest {
                game: Some(copenhagen(&[])),
                next_move: "a1-a2".to_owned(),
                ..ApplyMoveRequest::default()
            })
            .await
            .expect_err("no piece on a1");
        let mut updates = client
            .analyze(pb::AnalyzeRequest {
                game: Some(copenhagen(&[])),
                limits: Some(SearchLimits {
                    max_depth: 2,
                    ..SearchLimits::default()
                }),
                ..pb::AnalyzeRequest::default()
            })
            .await
            .expect("Analyze starts")
            .into_inner();
        while updates.message().await.expect("an update").is_some() {}
        // A stream its caller leaves: CANCELLED, as the caller sees it.
        let mut endless = client
            .analyze(pb::AnalyzeRequest {
                game: Some(copenhagen(&[])),
                ..pb::AnalyzeRequest::default()
            })
            .await
            .expect("Analyze starts")
            .into_inner();
        endless.message().await.expect("an update");
        drop(endless);
        check_health_then_stop(&mut tafl).await;

        let lines: Vec<String> = tafl
            .log()
            .into_iter()
            .filter(|line| line.contains("tafl::access"))
            .collect();
        if !logs_calls {
            assert!(lines.is_empty(), "RUST_LOG={rust_log}: {lines:#?}");
            continue;
        }
        assert_eq!(lines.len(), 4, "{lines:#?}");
        for (method, code) in [
            ("LegalMoves", "Ok"),
            ("ApplyMove", "InvalidArgument"),
            ("Analyze", "Ok"),
            ("Analyze", "Cancelled"),
        ] {
            let named = format!(" method={method} code={code} ");
            let line = lines
                .iter()
                .find(|line| line.contains(&named))
                .unwrap_or_else(|| panic!("no line for {method} {code}: {lines:#?}"));
            for part in [
                " INFO tafl::access: answered ",
                " elapsed_ms=",
                " peer=127.0.0.1:",
            ] {
                assert!(line.contains(part), "{part:?} not in {line}");
            }
        }
    }
}
