//! Traces and metrics: a span for every `tafl.v1` call, joined to the
//! caller's W3C trace, exported over OTLP/gRPC when an endpoint is set;
//! readable logs on stderr always.
//!
//! [`init`] installs the process-wide subscriber (once, in `main` or a
//! test); [`layer`] is the tower layer the server wraps around its routes.
//! Each call gets a server span named after the method
//! (`tafl.v1.TaflService/ApplyMove`) with `rpc.*` attributes and the gRPC
//! status code; the handler's own span (variant, board size, ply, level,
//! depth, nodes ...) sits inside it. Every call also counts into four OTLP
//! metrics: `rpc.server.requests`, `rpc.server.errors` (any code but OK),
//! `rpc.server.faults` (the server's fault: see [`mark_server_fault`])
//! and the histogram `rpc.server.duration` (milliseconds), each by method
//! and code. And every call writes one line to the log once it is over, at
//! `info` under the target [`ACCESS_LOG`]: method, status code, latency,
//! peer address, no payload.
//!
//! Handlers record numbers as `i64`: tracing-opentelemetry exports unsigned
//! fields as strings, and a backend cannot then filter on `nodes > 1e6`.

use std::io::Write as _;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use opentelemetry::KeyValue;
use opentelemetry::metrics::{Counter, Histogram};
use opentelemetry::propagation::{Extractor, TextMapPropagator};
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::WithExportConfig;
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tonic::codegen::{BoxFuture, http};
use tracing::Instrument;
use tracing_opentelemetry::OpenTelemetrySpanExt;
use tracing_subscriber::Layer as _;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

use crate::service::log_fields::LogFields;
use crate::service::log_time::LogTime;
use crate::service::transport::held_body::{Held, HeldBody};

/// The environment variable the OpenTelemetry exporters read by convention.
pub const OTEL_ENDPOINT_VAR: &str = "OTEL_EXPORTER_OTLP_ENDPOINT";

/// The calls traced: the tafl service's. Health probes and reflection
/// would only drown them.
const TRACED_PREFIX: &str = "/tafl.v1.TaflService/";

/// Why telemetry could not start.
#[derive(Debug, thiserror::Error)]
pub enum TelemetryError {
    /// The OTLP exporter could not be built (a malformed endpoint).
    #[error("otlp exporter: {0}")]
    Exporter(#[from] opentelemetry_otlp::ExporterBuildError),
    /// The access log's writing thread could not start.
    #[error("access log thread: {0}")]
    LogThread(std::io::Error),
    /// A global subscriber was installed already.
    #[error("tracing subscriber: {0}")]
    Subscriber(#[from] tracing_subscriber::util::TryInitError),
}

/// The installed exporters; flush or shut them down before the process ends,
/// or the last spans are lost.
#[derive(Debug, Default)]
pub struct Telemetry {
    tracer_provider: Option<SdkTracerProvider>,
    meter_provider: Option<SdkMeterProvider>,
    log_writer: Option<LogWriter>,
}

/// The OTLP endpoint to export to: `configured` (`--otlp-endpoint`,
/// `TAFL_OTLP_ENDPOINT`), else `OTEL_EXPORTER_OTLP_ENDPOINT`; none if
/// neither is set and non-empty.
pub fn otlp_endpoint(configured: Option<&str>) -> Option<String> {
    configured
        .map(str::to_owned)
        .or_else(|| std::env::var(OTEL_ENDPOINT_VAR).ok())
        .filter(|endpoint| !endpoint.trim().is_empty())
}

/// What the logs show: `RUST_LOG` (`info` when unset or unreadable), except
/// that the HTTP/2 library's warnings about a peer's misbehaviour show only
/// when `RUST_LOG` names `h2` itself: it writes one for every connection a
/// rapid-reset flood opens (thousands a minute), and the server has already
/// answered each with GOAWAY.
fn log_filter(rust_log: Option<&str>) -> tracing_subscriber::EnvFilter {
    let directives = rust_log.unwrap_or("info");
    let filter = tracing_subscriber::EnvFilter::try_new(directives)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let names_h2 = directives
        .split(',')
        .any(|directive| directive.trim_start().starts_with("h2"));
    match "h2=error".parse() {
        Ok(quiet_h2) if !names_h2 => filter.add_directive(quiet_h2),
        _ => filter,
    }
}

/// Installs the global subscriber: readable logs on stderr (filtered by
/// `RUST_LOG`, `info` by default) and, with an endpoint, OTLP/gRPC export
/// of the service's spans whatever `RUST_LOG` says (batched) and of metrics
/// (every 60 s, or `OTEL_METRIC_EXPORT_INTERVAL` ms). Call it inside the
/// tokio runtime: the exporter's channel lives there.
///
/// # Errors
/// The endpoint is malformed, or a global subscriber exists already.
pub fn init(endpoint: Option<&str>) -> Result<Telemetry, TelemetryError> {
    let filter = log_filter(std::env::var("RUST_LOG").ok().as_deref());
    // Colours only for a person at a terminal, not for a log collector.
    // RUST_LOG filters the logs only: quieter logs must not cost the traces.
    let log_writer = LogWriter::start().map_err(TelemetryError::LogThread)?;
    let logs = tracing_subscriber::fmt::layer()
        .with_writer(log_writer.clone())
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .fmt_fields(LogFields)
        .with_timer(LogTime)
        .with_filter(filter);
    let Some(endpoint) = endpoint else {
        tracing_subscriber::registry().with(logs).try_init()?;
        return Ok(Telemetry {
            log_writer: Some(log_writer),
            ..Telemetry::default()
        });
    };

    let resource = if std::env::var_os("OTEL_SERVICE_NAME").is_some() {
        Resource::builder().build()
    } else {
        Resource::builder().with_service_name("tafl").build()
    };
    let span_exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_tonic()
        .with_endpoint(endpoint)
        .build()?;
    let tracer_provider = SdkTracerProvider::builder()
        .with_resource(resource.clone())
        .with_batch_exporter(span_exporter)
        .build();
    let metric_exporter = opentelemetry_otlp::MetricExporter::builder()
        .with_tonic()
        .with_endpoint(endpoint)
        .build()?;
    let meter_provider = SdkMeterProvider::builder()
        .with_resource(resource)
        .with_periodic_exporter(metric_exporter)
        .build();
    opentelemetry::global::set_meter_provider(meter_provider.clone());
    // The service's spans, whatever RUST_LOG says.
    let traces = tracing_opentelemetry::layer()
        .with_tracer(tracer_provider.tracer("tafl"))
        .with_filter(Targets::new().with_target("tafl", tracing::Level::INFO));
    tracing_subscriber::registry()
        .with(logs)
        .with(traces)
        .try_init()?;
    tracing::info!(endpoint, "exporting traces and metrics over OTLP");
    Ok(Telemetry {
        tracer_provider: Some(tracer_provider),
        meter_provider: Some(meter_provider),
        log_writer: Some(log_writer),
    })
}

impl Telemetry {
    /// Whether spans and metrics are exported.
    pub fn is_exporting(&self) -> bool {
        self.tracer_provider.is_some()
    }

    /// Sends everything recorded so far. Blocks: from async code, call it
    /// on a blocking thread (`spawn_blocking`).
    pub fn flush(&self) {
        if let Some(writer) = &self.log_writer {
            writer.write_gathered();
        }
        if let Some(provider) = &self.tracer_provider
            && let Err(error) = provider.force_flush()
        {
            tracing::warn!(%error, "cannot flush spans");
        }
        if let Some(provider) = &self.meter_provider
            && let Err(error) = provider.force_flush()
        {
            tracing::warn!(%error, "cannot flush metrics");
        }
    }

    /// Flushes and stops the exporters. Blocks, like [`Telemetry::flush`].
    pub fn shutdown(self) {
        if let Some(writer) = &self.log_writer {
            writer.write_gathered();
        }
        if let Some(provider) = self.tracer_provider
            && let Err(error) = provider.shutdown_with_timeout(Duration::from_secs(5))
        {
            tracing::warn!(%error, "cannot flush spans at shutdown");
        }
        if let Some(provider) = self.meter_provider
            && let Err(error) = provider.shutdown()
        {
            tracing::warn!(%error, "cannot flush metrics at shutdown");
        }
    }
}

/// How long an access-log line waits in memory at most before it is written.
const ACCESS_LOG_WAIT: Duration = Duration::from_millis(50);

/// How many bytes of access-log lines wait at most: beyond, they are written at once.
const ACCESS_LOG_GATHERED: usize = 64 * 1024;

/// The logs' writer: stderr, the access log's lines gathered in memory and
/// written together every [`ACCESS_LOG_WAIT`]: one write for many calls, where
/// a system call per call answered took 7 of an ApplyMove's 52 µs of CPU.
/// Any other line writes the gathered ones first, so the log keeps its order.
#[derive(Clone, Debug, Default)]
struct LogWriter {
    gathered: Arc<Mutex<Vec<u8>>>,
}

impl LogWriter {
    /// A writer, with the thread that writes what it gathers for as long
    /// as the writer lives.
    fn start() -> std::io::Result<LogWriter> {
        let writer = LogWriter::default();
        let gathered = Arc::downgrade(&writer.gathered);
        std::thread::Builder::new()
            .name("access-log".to_owned())
            .spawn(move || {
                loop {
                    std::thread::sleep(ACCESS_LOG_WAIT);
                    let Some(gathered) = gathered.upgrade() else {
                        return;
                    };
                    LogWriter { gathered }.write_gathered();
                }
            })?;
        Ok(writer)
    }

    /// Writes the gathered lines out, if there are any.
    fn write_gathered(&self) {
        let mut gathered = self.gathered.lock().unwrap_or_else(PoisonError::into_inner);
        if !gathered.is_empty() {
            write_out(&mut gathered, &[]);
        }
    }
}

/// Writes `gathered`, then `line`, to stderr; a log that cannot be written
/// is dropped, as stderr's own writer would.
fn write_out(gathered: &mut Vec<u8>, line: &[u8]) {
    let mut stderr = std::io::stderr().lock();
    let _ = stderr.write_all(gathered);
    let _ = stderr.write_all(line);
    gathered.clear();
}

/// One line's writer: [`LogWriter`]'s buffer for the access log's, stderr for the others.
struct LogLine<'w> {
    writer: &'w LogWriter,
    gather: bool,
}

impl<'w> MakeWriter<'w> for LogWriter {
    type Writer = LogLine<'w>;

    fn make_writer(&'w self) -> LogLine<'w> {
        LogLine {
            writer: self,
            gather: false,
        }
    }

    fn make_writer_for(&'w self, meta: &tracing::Metadata<'_>) -> LogLine<'w> {
        LogLine {
            writer: self,
            gather: meta.target() == ACCESS_LOG,
        }
    }
}

impl std::io::Write for LogLine<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let mut gathered = self
            .writer
            .gathered
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if !self.gather {
            write_out(&mut gathered, bytes);
        } else {
            gathered.extend_from_slice(bytes);
            if gathered.len() >= ACCESS_LOG_GATHERED {
                write_out(&mut gathered, &[]);
            }
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The per-call instruments, made from the global meter provider (set by
/// [`init`]; without it they record nothing).
#[derive(Debug)]
struct Instruments {
    requests: Counter<u64>,
    errors: Counter<u64>,
    faults: Counter<u64>,
    duration_ms: Histogram<f64>,
}

impl Instruments {
    fn new() -> Instruments {
        let meter = opentelemetry::global::meter("tafl");
        Instruments {
            requests: meter
                .u64_counter("rpc.server.requests")
                .with_description("tafl.v1 calls answered")
                .build(),
            errors: meter
                .u64_counter("rpc.server.errors")
                .with_description("tafl.v1 calls answered with a code other than OK")
                .build(),
            faults: meter
                .u64_counter("rpc.server.faults")
                .with_description(
                    "tafl.v1 calls that failed by the server's fault, not the caller's",
                )
                .build(),
            duration_ms: meter
                .f64_histogram("rpc.server.duration")
                .with_unit("ms")
                .with_description("time from request headers to response headers")
                .build(),
        }
    }
}

/// The log target of the access log, one line per `tafl.v1` call:
/// `RUST_LOG=info,tafl::access=off` silences it.
pub const ACCESS_LOG: &str = "tafl::access";

/// Finds the peer address of the connection a call came on, from its
/// request's extensions (the connection's own lookup, given to [`layer`] so
/// that this file need not import the connection's).
pub type PeerOf = fn(&http::Extensions) -> Option<SocketAddr>;

/// The tower layer that traces, counts and logs every `tafl.v1` call; add
/// it with `tonic::transport::Server::builder().layer(telemetry::layer(peer_of))`
/// after [`init`].
pub fn layer(peer_of: PeerOf) -> RpcTelemetryLayer {
    RpcTelemetryLayer {
        instruments: Arc::new(Instruments::new()),
        peer_of,
    }
}

/// See [`layer`].
#[derive(Clone, Debug)]
pub struct RpcTelemetryLayer {
    instruments: Arc<Instruments>,
    peer_of: PeerOf,
}

impl<S> tower::Layer<S> for RpcTelemetryLayer {
    type Service = RpcTelemetry<S>;

    fn layer(&self, inner: S) -> RpcTelemetry<S> {
        RpcTelemetry {
            inner,
            layer: self.clone(),
        }
    }
}

/// The service [`RpcTelemetryLayer`] wraps around the routes.
#[derive(Clone, Debug)]
pub struct RpcTelemetry<S> {
    inner: S,
    layer: RpcTelemetryLayer,
}

impl<S, B, R> tower::Service<http::Request<B>> for RpcTelemetry<S>
where
    S: tower::Service<http::Request<B>, Response = http::Response<R>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: std::fmt::Display,
    B: Send + 'static,
{
    /// The body writes the call's access-log line once the call is over.
    type Response = http::Response<HeldBody<R, Option<AccessEntry>>>;
    type Error = S::Error;
    type Future = BoxFuture<Self::Response, S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        // The clone that was polled ready serves this call (tower's rule).
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        let Some(method) = request.uri().path().strip_prefix(TRACED_PREFIX) else {
            let call = inner.call(request);
            // Not listed in the access log.
            return Box::pin(async move { Ok(call.await?.map(|body| HeldBody::new(body, None))) });
        };
        let method = method.to_owned();
        let name = format!("tafl.v1.TaflService/{method}");
        let span = tracing::info_span!(
            "rpc",
            otel.name = name.as_str(),
            otel.kind = "server",
            otel.status_code = tracing::field::Empty,
            rpc.system = "grpc",
            rpc.service = "tafl.v1.TaflService",
            rpc.method = method.as_str(),
            rpc.grpc.status_code = tracing::field::Empty,
        );
        let parent = TraceContextPropagator::new().extract(&HeaderExtractor(request.headers()));
        // Fails only when no OpenTelemetry layer is installed: then there is no trace to join.
        let _ = span.set_parent(parent);
        let instruments = Arc::clone(&self.layer.instruments);
        let marked_fault = Arc::new(AtomicBool::new(false));
        let mut entry = AccessEntry {
            method: method.clone(),
            peer: (self.layer.peer_of)(request.extensions()),
            started: Instant::now(),
            code: None,
            marked_fault: Arc::clone(&marked_fault),
        };
        let call = SERVER_FAULT.scope(
            Arc::clone(&marked_fault),
            inner.call(request).instrument(span.clone()),
        );
        Box::pin(async move {
            let result = call.await;
            // A unary call's error comes back trailers-only, its status in the
            // headers; the others' status follows in the trailers.
            entry.code = match &result {
                Ok(response) => grpc_status(response.headers()),
                Err(_) => Some(tonic::Code::Unknown),
            };
            let code = entry.code.unwrap_or(tonic::Code::Ok) as i32;
            let elapsed_ms = entry.started.elapsed().as_secs_f64() * 1e3;
            span.record("rpc.grpc.status_code", code);
            let fault = is_server_fault(code, marked_fault.load(Ordering::Relaxed));
            if fault {
                span.record("otel.status_code", "ERROR");
            }
            let attributes = [
                KeyValue::new("rpc.method", method),
                KeyValue::new("rpc.grpc.status_code", i64::from(code)),
            ];
            instruments.requests.add(1, &attributes);
            if code != 0 {
                instruments.errors.add(1, &attributes);
            }
            if fault {
                instruments.faults.add(1, &attributes);
            }
            instruments.duration_ms.record(elapsed_ms, &attributes);
            Ok(result?.map(|body| HeldBody::new(body, Some(entry))))
        })
    }
}

/// The status a response's headers or trailers carry, if they carry one.
fn grpc_status(headers: &http::HeaderMap) -> Option<tonic::Code> {
    let code = headers
        .get("grpc-status")?
        .to_str()
        .ok()?
        .parse::<i32>()
        .ok()?;
    Some(tonic::Code::from_i32(code))
}

/// One call's line in the access log, held by its response body and written
/// when that is dropped: once the call's status has gone out in the
/// trailers, or unfinished (the caller cancelled, the connection closed).
#[derive(Debug)]
pub struct AccessEntry {
    method: String,
    peer: Option<SocketAddr>,
    started: Instant,
    /// The status sent; none yet: the call was cut short, CANCELLED.
    code: Option<tonic::Code>,
    marked_fault: Arc<AtomicBool>,
}

impl Held for AccessEntry {
    fn trailers(&mut self, trailers: &http::HeaderMap) {
        self.code = grpc_status(trailers).or(self.code);
    }
}

impl Drop for AccessEntry {
    fn drop(&mut self) {
        let code = self.code.unwrap_or(tonic::Code::Cancelled);
        let fault = is_server_fault(code as i32, self.marked_fault.load(Ordering::Relaxed));
        // Milliseconds to three places, from the microseconds rounded:
        // integers format in a fraction of a float's time.
        let elapsed = self.started.elapsed();
        let elapsed_us = elapsed.as_secs().saturating_mul(1_000_000)
            + u64::from((elapsed.subsec_nanos() + 500) / 1000);
        // No parent: the line is for the log, not an event of the exported trace.
        tracing::info!(
            target: ACCESS_LOG,
            parent: None,
            method = %self.method,
            code = ?code,
            fault,
            elapsed_ms = format_args!("{}.{:03}", elapsed_us / 1000, elapsed_us % 1000),
            peer = self.peer.map(tracing::field::display),
            "answered"
        );
    }
}

tokio::task_local! {
    /// Raised by [`mark_server_fault`] while the call it belongs to runs.
    static SERVER_FAULT: Arc<AtomicBool>;
}

/// Marks the call being answered as failed by our fault (a bug), not the
/// caller's: its INTERNAL then counts in `rpc.server.faults` and marks the span.
pub fn mark_server_fault() {
    let _ = SERVER_FAULT.try_with(|fault| fault.store(true, Ordering::Relaxed));
}

/// Whether a call answered with `code` failed by the server's fault, as
/// OpenTelemetry's gRPC conventions mark server spans. INTERNAL only when the
/// service itself said so ([`mark_server_fault`]): the transport answers
/// INTERNAL to a caller's broken framing too (an empty body, a truncated
/// message, an unknown compressed flag), as the gRPC spec requires, and that
/// is the caller's fault.
fn is_server_fault(code: i32, marked: bool) -> bool {
    use tonic::Code;
    if code == Code::Internal as i32 {
        return marked;
    }
    [
        Code::Unknown,
        Code::DeadlineExceeded,
        Code::Unimplemented,
        Code::Unavailable,
        Code::DataLoss,
    ]
    .iter()
    .any(|fault| *fault as i32 == code)
}

/// Reads `traceparent` and `tracestate` from the request's HTTP/2 headers
/// (gRPC metadata).
struct HeaderExtractor<'a>(&'a http::HeaderMap);

impl Extractor for HeaderExtractor<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|value| value.to_str().ok())
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(http::HeaderName::as_str).collect()
    }
}
