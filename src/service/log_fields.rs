//! How the log writes fields: as tracing-subscriber's default does, less the
//! fields a call's span carries for the exported trace alone.
//!
//! Each `tafl.v1` call's span (`rpc`, see [`telemetry`](super::telemetry))
//! holds OpenTelemetry's attributes: its name and kind for the exporter,
//! the constant `rpc.system` and `rpc.service`, and the status code, which
//! the access log's line gives. The log wrote every one of them into each
//! span's text when the span opened, for lines that nearly never come:
//! some 6,000 instructions of every call, 2% of a LegalMoves call. A line
//! logged inside a call still names it: `rpc{rpc.method="LegalMoves"}: …`.

use std::fmt;

use tracing::field::{Field, Visit};
use tracing_subscriber::field::{RecordFields, VisitOutput};
use tracing_subscriber::fmt::FormatFields;
use tracing_subscriber::fmt::FormattedFields;
use tracing_subscriber::fmt::format::{DefaultVisitor, Writer};

/// The log's field formatter ([`FormatFields`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct LogFields;

/// Whether a field is meant for the exported trace only.
fn trace_only(field: &Field) -> bool {
    let name = field.name();
    name.starts_with("otel.")
        || matches!(name, "rpc.system" | "rpc.service" | "rpc.grpc.status_code")
}

/// tracing-subscriber's own visitor, shown only the fields the log writes.
struct LoggedFields<'w>(DefaultVisitor<'w>);

impl Visit for LoggedFields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        if !trace_only(field) {
            self.0.record_str(field, value);
        }
    }

    fn record_error(&mut self, field: &Field, value: &(dyn std::error::Error + 'static)) {
        if !trace_only(field) {
            self.0.record_error(field, value);
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        if !trace_only(field) {
            self.0.record_debug(field, value);
        }
    }
}

impl<'w> FormatFields<'w> for LogFields {
    fn format_fields<R: RecordFields>(&self, writer: Writer<'w>, fields: R) -> fmt::Result {
        let mut visitor = LoggedFields(DefaultVisitor::new(writer, true));
        fields.record(&mut visitor);
        visitor.0.finish()
    }

    /// Fields recorded later join the span's text, a space before them only
    /// when one is written.
    fn add_fields(
        &self,
        current: &'w mut FormattedFields<Self>,
        fields: &tracing::span::Record<'_>,
    ) -> fmt::Result {
        let is_empty = current.fields.is_empty();
        let mut visitor = LoggedFields(DefaultVisitor::new(current.as_writer(), is_empty));
        fields.record(&mut visitor);
        visitor.0.finish()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use tracing_subscriber::fmt::MakeWriter;
    use tracing_subscriber::layer::SubscriberExt;

    use super::*;

    /// The log's lines, kept.
    #[derive(Clone, Default)]
    struct Lines(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Lines {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl MakeWriter<'_> for Lines {
        type Writer = Lines;

        fn make_writer(&self) -> Lines {
            self.clone()
        }
    }

    #[test]
    fn a_line_in_a_call_names_its_method_without_the_trace_only_fields() {
        let lines = Lines::default();
        let subscriber = tracing_subscriber::registry().with(
            tracing_subscriber::fmt::layer()
                .with_writer(lines.clone())
                .with_ansi(false)
                .without_time()
                .fmt_fields(LogFields),
        );
        tracing::subscriber::with_default(subscriber, || {
            let span = tracing::info_span!(
                "rpc",
                otel.name = "tafl.v1.TaflService/LegalMoves",
                otel.kind = "server",
                rpc.system = "grpc",
                rpc.method = "LegalMoves",
                rpc.grpc.status_code = tracing::field::Empty,
            );
            let _entered = span.enter();
            span.record("rpc.grpc.status_code", 0);
            let error = std::io::Error::other("disk full");
            tracing::warn!(ply = 3, %error, "message \"quoted\"");
        });
        let text = String::from_utf8(lines.0.lock().unwrap().clone()).unwrap();
        assert_eq!(
            text,
            " WARN rpc{rpc.method=\"LegalMoves\"}: tafl::service::log_fields::tests: \
             message \"quoted\" ply=3 error=disk full\n"
        );
    }
}
