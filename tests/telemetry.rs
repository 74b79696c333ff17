//! Telemetry over a real socket: a real OTLP receiver (the collector's
//! trace and metrics services, generated from the published protos) and the
//! real server exporting to it. A call carrying a W3C `traceparent` must
//! come out as spans of that trace, under the caller's span, with the
//! call's attributes; the calls must be counted as metrics.
//!
//! A binary of its own: the subscriber and the meter provider that
//! `telemetry::init` installs are process-wide (one test here installs them),
//! and its exact call counts would count any other server in the process.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use opentelemetry_proto::tonic::collector::metrics::v1::metrics_service_server::{
    MetricsService, MetricsServiceServer,
};
use opentelemetry_proto::tonic::collector::metrics::v1::{
    ExportMetricsServiceRequest, ExportMetricsServiceResponse,
};
use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::{
    TraceService, TraceServiceServer,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::{KeyValue, any_value};
use opentelemetry_proto::tonic::metrics::v1::{Metric, metric};
use opentelemetry_proto::tonic::trace::v1::{Span, span};
use tafl::service::pb::tafl_service_client::TaflServiceClient;
use tafl::service::pb::{self, Game, Rules, Variant};
use tafl::service::{Config, ExecConfig, Server, TransportConfig, telemetry};
use tokio::net::TcpListener;
use tonic::transport::server::TcpIncoming;
use tonic::{Code, Request, Response, Status};

/// What the receiver has been sent.
#[derive(Clone, Default)]
struct Received {
    spans: Arc<Mutex<Vec<Span>>>,
    metrics: Arc<Mutex<Vec<Metric>>>,
}

#[tonic::async_trait]
impl TraceService for Received {
    async fn export(
        &self,
        request: Request<ExportTraceServiceRequest>,
    ) -> Result<Response<ExportTraceServiceResponse>, Status> {
        let spans = request
            .into_inner()
            .resource_spans
            .into_iter()
            .flat_map(|resource| resource.scope_spans)
            .flat_map(|scope| scope.spans);
        self.spans.lock().unwrap().extend(spans);
        Ok(Response::new(ExportTraceServiceResponse::default()))
    }
}

#[tonic::async_trait]
impl MetricsService for Received {
    async fn export(
        &self,
        request: Request<ExportMetricsServiceRequest>,
    ) -> Result<Response<ExportMetricsServiceResponse>, Status> {
        let metrics = request
            .into_inner()
            .resource_metrics
            .into_iter()
            .flat_map(|resource| resource.scope_metrics)
            .flat_map(|scope| scope.metrics);
        self.metrics.lock().unwrap().extend(metrics);
        Ok(Response::new(ExportMetricsServiceResponse::default()))
    }
}

async fn start_receiver(received: Received) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(
        tonic::transport::Server::builder()
            .add_service(TraceServiceServer::new(received.clone()))
            .add_service(MetricsServiceServer::new(received))
            .serve_with_incoming(TcpIncoming::from(listener)),
    );
    addr
}

fn attributes(attributes: &[KeyValue]) -> HashMap<String, any_value::Value> {
    attributes
        .iter()
        .filter_map(|kv| Some((kv.key.clone(), kv.value.clone()?.value?)))
        .collect()
}

fn string(value: &str) -> any_value::Value {
    any_value::Value::StringValue(value.to_owned())
}

fn int(value: i64) -> any_value::Value {
    any_value::Value::IntValue(value)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// A request with the caller's trace context in its metadata.
fn traced<T>(message: T, trace_id: &str, parent_span_id: &str) -> Request<T> {
    let mut request = Request::new(message);
    request.metadata_mut().insert(
        "traceparent",
        format!("00-{trace_id}-{parent_span_id}-01")
            .parse()
            .unwrap(),
    );
    request
}

/// The server span of `rpc` in `trace_id` and the handler span inside it.
fn spans_of(spans: &[Span], trace_id: &str, rpc: &str) -> Option<(Span, Span)> {
    let in_trace = || spans.iter().filter(|span| hex(&span.trace_id) == trace_id);
    let server = in_trace().find(|span| span.name == format!("tafl.v1.TaflService/{rpc}"))?;
    let handler =
        in_trace().find(|span| span.name == rpc && span.parent_span_id == server.span_id)?;
    Some((server.clone(), handler.clone()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_are_exported_as_spans_of_the_callers_trace_and_counted() {
    let received = Received::default();
    let receiver = start_receiver(received.clone()).await;
    let telemetry =
        Arc::new(telemetry::init(Some(&format!("http://{receiver}"))).expect("telemetry starts"));
    assert!(telemetry.is_exporting());

    let server = Server::start(Config {
        transport: TransportConfig {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            ..TransportConfig::default()
        },
        exec: ExecConfig {
            search_threads: 2,
            hash_mb: 4,
            ..ExecConfig::default()
        },
        ..Config::default()
    })
    .await
    .expect("server starts");
    let mut client = TaflServiceClient::connect(format!("http://{}", server.local_addr()))
        .await
        .unwrap();

    // The caller's trace: its id and the caller's own span.
    let legal_trace = "0af7651916cd43dd8448eb211c80319c";
    let suggest_trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    let apply_trace = "5c0f2a1b3d4e5f60718293a4b5c6d7e8";
    let caller_span = "b7ad6b7169203331";

    let tablut_game = |moves: &[&str]| Game {
        variant: Some(Variant {
            rules: Rules::Tablut as i32,
            board_size: 0,
        }),
        start: String::new(),
        moves: moves.iter().map(|m| (*m).to_owned()).collect(),
    };
    let legal = client
        .legal_moves(traced(
            pb::LegalMovesRequest {
                game: Some(tablut_game(&["d1-d3", "e3-f3"])),
                square: String::new(),
            },
            legal_trace,
            caller_span,
        ))
        .await;
    let legal = legal.expect("LegalMoves answers").into_inner();
    assert_eq!(legal.position.unwrap().ply, 2);
    let suggested = client
        .suggest_move(traced(
            pb::SuggestMoveRequest {
                game: Some(tablut_game(&[])),
                limits: Some(pb::SearchLimits {
                    max_depth: 3,
                    max_time_ms: 0,
                    max_nodes: 0,
                }),
                level: 5,
                seed: 1,
                clock: None,
            },
            suggest_trace,
            caller_span,
        ))
        .await
        .expect("SuggestMove answers")
        .into_inner();
    let refused = client
        .apply_move(traced(
            pb::ApplyMoveRequest {
                game: Some(tablut_game(&[])),
                next_move: "a1-a2".to_owned(),
                include_legal_moves: false,
            },
            apply_trace,
            caller_span,
        ))
        .await
        .expect_err("an illegal move is refused");
    assert_eq!(refused.code(), Code::InvalidArgument);

    // Flush (blocking: off the runtime's workers), then wait for the receiver.
    let mut found = None;
    for _ in 0..50 {
        let flushed = tokio::task::spawn_blocking({
            let spans = Arc::clone(&received.spans);
            let telemetry = Arc::clone(&telemetry);
            move || {
                telemetry.flush();
                spans.lock().unwrap().clone()
            }
        });
        let spans = flushed.await.unwrap();
        let all = (
            spans_of(&spans, legal_trace, "LegalMoves"),
            spans_of(&spans, suggest_trace, "SuggestMove"),
            spans_of(&spans, apply_trace, "ApplyMove"),
        );
        if let (Some(legal), Some(suggest), Some(apply)) = all {
            found = Some((legal, suggest, apply));
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (
        (legal_server, legal_handler),
        (suggest_server, suggest_handler),
        (apply_server, apply_handler),
    ) = found.unwrap_or_else(|| {
        let names: Vec<_> = received
            .spans
            .lock()
            .unwrap()
            .iter()
            .map(|span| format!("{} {}", span.name, hex(&span.trace_id)))
            .collect();
        panic!("the three calls' spans never arrived; got {names:?}")
    });

    // The server span hangs under the caller's span, in the caller's trace.
    for server_span in [&legal_server, &suggest_server, &apply_server] {
        assert_eq!(hex(&server_span.parent_span_id), caller_span);
        assert_eq!(server_span.kind, span::SpanKind::Server as i32);
        let attrs = attributes(&server_span.attributes);
        assert_eq!(attrs["rpc.system"], string("grpc"));
        assert_eq!(attrs["rpc.service"], string("tafl.v1.TaflService"));
    }
    let attrs = attributes(&legal_server.attributes);
    assert_eq!(attrs["rpc.method"], string("LegalMoves"));
    assert_eq!(attrs["rpc.grpc.status_code"], int(0));

    let attrs = attributes(&legal_handler.attributes);
    assert_eq!(attrs["variant"], string("tablut"));
    assert_eq!(attrs["board_size"], int(9));
    assert_eq!(attrs["ply"], int(2));
    assert_eq!(attrs["moves"], int(legal.moves.len() as i64));

    let attrs = attributes(&suggest_handler.attributes);
    assert_eq!(attrs["variant"], string("tablut"));
    assert_eq!(attrs["board_size"], int(9));
    assert_eq!(attrs["ply"], int(0));
    assert_eq!(attrs["level"], int(5));
    assert_eq!(attrs["depth"], int(i64::from(suggested.depth)));
    assert_eq!(attrs["nodes"], int(suggested.nodes as i64));
    // What the search had of the pool: its wait, and its time on the cores.
    for field in ["wait_ms", "cpu_ms"] {
        assert!(
            matches!(attrs.get(field), Some(any_value::Value::DoubleValue(ms)) if *ms >= 0.0),
            "{field}: {attrs:?}"
        );
    }
    assert_eq!(
        attributes(&suggest_server.attributes)["rpc.method"],
        string("SuggestMove")
    );

    // The caller's mistake is recorded by code, and is not the server's error.
    let attrs = attributes(&apply_server.attributes);
    assert_eq!(
        attrs["rpc.grpc.status_code"],
        int(Code::InvalidArgument as i64)
    );
    assert_ne!(
        apply_server.status.as_ref().map(|status| status.code),
        Some(opentelemetry_proto::tonic::trace::v1::status::StatusCode::Error as i32)
    );
    assert_eq!(
        attributes(&apply_handler.attributes)["variant"],
        string("tablut")
    );

    // Metrics: every call counted by method and code, the error as an error,
    // each with a latency.
    let metrics = received.metrics.lock().unwrap().clone();
    let sum_of = |name: &str, method: &str| -> i64 {
        metrics
            .iter()
            .filter(|metric| metric.name == name)
            .filter_map(|metric| match &metric.data {
                Some(metric::Data::Sum(sum)) => Some(sum.data_points.clone()),
                _ => None,
            })
            .flatten()
            .filter(|point| attributes(&point.attributes)["rpc.method"] == string(method))
            .map(|point| match point.value {
                Some(opentelemetry_proto::tonic::metrics::v1::number_data_point::Value::AsInt(
                    n,
                )) => n,
                _ => 0,
            })
            .max()
            .unwrap_or(0)
    };
    assert_eq!(sum_of("rpc.server.requests", "LegalMoves"), 1);
    assert_eq!(sum_of("rpc.server.requests", "SuggestMove"), 1);
    assert_eq!(sum_of("rpc.server.requests", "ApplyMove"), 1);
    assert_eq!(sum_of("rpc.server.errors", "ApplyMove"), 1);
    assert_eq!(sum_of("rpc.server.errors", "LegalMoves"), 0);
    let latencies: u64 = metrics
        .iter()
        .filter(|metric| metric.name == "rpc.server.duration")
        .filter_map(|metric| match &metric.data {
            Some(metric::Data::Histogram(histogram)) => Some(histogram.data_points.clone()),
            _ => None,
        })
        .flatten()
        .map(|point| point.count)
        .max()
        .unwrap_or(0);
    assert!(latencies >= 1, "no latency recorded: {metrics:?}");
    // The search pool's metrics: the search's wait and core time by kind, the gauges by pool.
    let search_waits: u64 = metrics
        .iter()
        .filter(|metric| metric.name == "tafl.search.wait")
        .filter_map(|metric| match &metric.data {
            Some(metric::Data::Histogram(histogram)) => Some(histogram.data_points.clone()),
            _ => None,
        })
        .flatten()
        .filter(|point| attributes(&point.attributes)["kind"] == string("SuggestMove"))
        .map(|point| point.count)
        .max()
        .unwrap_or(0);
    assert_eq!(search_waits, 1, "{metrics:?}");
    let cpu_kinds: Vec<HashMap<String, any_value::Value>> = metrics
        .iter()
        .filter(|metric| metric.name == "tafl.search.cpu")
        .filter_map(|metric| match &metric.data {
            Some(metric::Data::Sum(sum)) => Some(sum.data_points.clone()),
            _ => None,
        })
        .flatten()
        .map(|point| attributes(&point.attributes))
        .collect();
    assert!(
        cpu_kinds
            .iter()
            .any(|kind| kind["kind"] == string("SuggestMove")),
        "{cpu_kinds:?}"
    );
    for gauge in [
        "tafl.search.running",
        "tafl.search.queued",
        "tafl.cores.computing",
        "tafl.cores.waiting",
    ] {
        assert!(
            metrics.iter().any(|metric| metric.name == gauge),
            "no {gauge} among {:?}",
            metrics
                .iter()
                .map(|metric| &metric.name)
                .collect::<Vec<_>>()
        );
    }

    server.shutdown().await.unwrap();
    let telemetry = Arc::into_inner(telemetry).expect("no other owner");
    tokio::task::spawn_blocking(move || telemetry.shutdown())
        .await
        .unwrap();
}

/// The binary as deployed: `OTEL_EXPORTER_OTLP_ENDPOINT` alone turns export
/// on, and the spans still batched at SIGTERM go out before it exits.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_binary_exports_to_the_environments_collector_and_flushes_on_sigterm() {
    let received = Received::default();
    let receiver = start_receiver(received.clone()).await;
    let endpoint = format!("http://{receiver}");
    let mut tafl = common::process::Tafl::start(
        env!("CARGO_BIN_EXE_tafl"),
        &["--hash-mb", "1"],
        &[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint.as_str()),
            ("OTEL_SERVICE_NAME", "tafl-under-test"),
        ],
    );
    let mut client = TaflServiceClient::connect(format!("http://{}", tafl.addr))
        .await
        .expect("connects");
    let trace_id = "6e0c63257de34c92bf9efcd03927272e";
    client
        .legal_moves(traced(
            pb::LegalMovesRequest::default(),
            trace_id,
            "00f067aa0ba902b7",
        ))
        .await
        .expect("LegalMoves answers");

    tafl.sigterm();
    let status = tafl.wait(Duration::from_secs(20));
    assert!(status.success(), "exit status {status:?}");
    // The export finished before the process exited: no waiting needed.
    let spans = received.spans.lock().unwrap().clone();
    let (server_span, handler_span) = spans_of(&spans, trace_id, "LegalMoves")
        .expect("the call's spans were exported before exit");
    assert_eq!(hex(&server_span.parent_span_id), "00f067aa0ba902b7");
    assert_eq!(
        attributes(&handler_span.attributes)["variant"],
        string("copenhagen")
    );
}
