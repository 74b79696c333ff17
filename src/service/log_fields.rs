//! How the log writes fields: as tracing-subscriber's default does, less the
//! fields a call's span carries for the exported trace alone, and without
//! the formatting machinery for plain values.
//!
//! Each `tafl.v1` call's span (`rpc`, see [`telemetry`](super::telemetry))
//! holds OpenTelemetry's attributes: its name and kind for the exporter,
//! the constant `rpc.system` and `rpc.service`, and the status code, which
//! the access log's line gives. The log wrote every one of them into each
//! span's text when the span opened, for lines that nearly never come:
//! some 6,000 instructions of every call, 2% of a LegalMoves call. A line
//! logged inside a call still names it: `rpc{rpc.method="LegalMoves"}: …`.
//!
//! The fields that remain (a handler's variant and ply, the access line's
//! method and code) are written as the default visitor writes them, but a
//! number, a flag or a plain string goes out as text rather than through
//! `write!` with its colour wrappers: about 1,000 instructions a field
//! with tracing-subscriber's visitor, which wrote 8 of them a call. In
//! colour (a terminal), and for the message, errors and raw names, the
//! default visitor writes the field itself.

use std::fmt;

use arrayvec::ArrayString;

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

/// Whether a string's `Debug` form is the string in quotes: printable
/// ASCII with no quote or backslash to escape.
fn quotes_alone(text: &str) -> bool {
    text.bytes()
        .all(|byte| matches!(byte, b' '..=b'~') && byte != b'"' && byte != b'\\')
}

/// The fields the log writes, in tracing-subscriber's default format:
/// `name=value` with the value's `Debug`, a space between fields.
struct LoggedFields<'w> {
    writer: Writer<'w>,
    /// No field has been written yet (none before either).
    is_empty: bool,
    result: fmt::Result,
}

impl<'w> LoggedFields<'w> {
    fn new(writer: Writer<'w>, is_empty: bool) -> LoggedFields<'w> {
        LoggedFields {
            writer,
            is_empty,
            result: Ok(()),
        }
    }

    /// Whether the log writes a field plainly: not one left out, nor after
    /// an error, nor one the default visitor must write (see the module).
    fn writes_plainly(&self, field: &Field) -> bool {
        let name = field.name();
        self.result.is_ok()
            && !trace_only(field)
            && !self.writer.has_ansi_escapes()
            && name != "message"
            && !name.starts_with("r#")
            && !name.starts_with("log.")
    }

    /// Writes the separating space, `name=` and what `value` writes, if
    /// the field is written plainly, and says whether it was. The pieces are
    /// gathered on the stack and reach the log's text in one: each piece
    /// written there is a call through `dyn Write` and may grow its buffer.
    fn plain(&mut self, field: &Field, value: impl Fn(&mut dyn fmt::Write) -> fmt::Result) -> bool {
        if !self.writes_plainly(field) {
            return false;
        }
        let space = if self.is_empty { "" } else { " " };
        self.is_empty = false;
        let whole = |out: &mut dyn fmt::Write| {
            out.write_str(space)?;
            out.write_str(field.name())?;
            out.write_str("=")?;
            value(out)
        };
        let mut gathered = ArrayString::<128>::new();
        self.result = match whole(&mut gathered) {
            Ok(()) => self.writer.write_str(&gathered),
            // Too long for the stack.
            Err(fmt::Error) => whole(&mut self.writer),
        };
        true
    }

    /// Writes a field with tracing-subscriber's own visitor, unless it is
    /// left out.
    fn with_default(&mut self, field: &Field, record: impl FnOnce(&mut DefaultVisitor<'_>)) {
        if self.result.is_err() || trace_only(field) {
            return;
        }
        let mut visitor = DefaultVisitor::new(self.writer.by_ref(), self.is_empty);
        record(&mut visitor);
        self.result = visitor.finish();
        // It writes every field but the `log.` ones that came from `log`.
        self.is_empty &= field.name().starts_with("log.");
    }
}

impl Visit for LoggedFields<'_> {
    fn record_i64(&mut self, field: &Field, value: i64) {
        if !self.plain(field, |out| {
            out.write_str(itoa::Buffer::new().format(value))
        }) {
            self.with_default(field, |visitor| visitor.record_i64(field, value));
        }
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        if !self.plain(field, |out| {
            out.write_str(itoa::Buffer::new().format(value))
        }) {
            self.with_default(field, |visitor| visitor.record_u64(field, value));
        }
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        let text = if value { "true" } else { "false" };
        if !self.plain(field, |out| out.write_str(text)) {
            self.with_default(field, |visitor| visitor.record_bool(field, value));
        }
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        let quoted = |out: &mut dyn fmt::Write| {
            out.write_str("\"")?;
            out.write_str(value)?;
            out.write_str("\"")
        };
        if !(quotes_alone(value) && self.plain(field, quoted)) {
            self.with_default(field, |visitor| visitor.record_str(field, value));
        }
    }

    fn record_error(&mut self, field: &Field, value: &(dyn std::error::Error + 'static)) {
        self.with_default(field, |visitor| visitor.record_error(field, value));
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        if !self.plain(field, |out| write!(out, "{value:?}")) {
            self.with_default(field, |visitor| visitor.record_debug(field, value));
        }
    }
}

impl VisitOutput<fmt::Result> for LoggedFields<'_> {
    fn finish(self) -> fmt::Result {
        self.result
    }
}

impl<'w> FormatFields<'w> for LogFields {
    fn format_fields<R: RecordFields>(&self, writer: Writer<'w>, fields: R) -> fmt::Result {
        let mut visitor = LoggedFields::new(writer, true);
        fields.record(&mut visitor);
        visitor.finish()
    }

    /// Fields recorded later join the span's text, a space before them only
    /// when one is written.
    fn add_fields(
        &self,
        current: &'w mut FormattedFields<Self>,
        fields: &tracing::span::Record<'_>,
    ) -> fmt::Result {
        let is_empty = current.fields.is_empty();
        // Room for a few fields at once (a handler records its game's).
        if is_empty {
            current.fields.reserve(64);
        }
        let mut visitor = LoggedFields::new(current.as_writer(), is_empty);
        fields.record(&mut visitor);
        visitor.finish()
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

    /// The lines that `log` writes through a formatter of `fields`, in
    /// colour or not.
    fn logged<F>(fields: F, ansi: bool, log: impl FnOnce()) -> String
    where
        F: for<'w> FormatFields<'w> + Send + Sync + 'static,
    {
        let lines = Lines::default();
        let subscriber = tracing_subscriber::registry().with(
            tracing_subscriber::fmt::layer()
                .with_writer(lines.clone())
                .with_ansi(ansi)
                .without_time()
                .fmt_fields(fields),
        );
        tracing::subscriber::with_default(subscriber, log);
        String::from_utf8(lines.0.lock().unwrap().clone()).unwrap()
    }

    /// Fields of every kind, in spans and events: the values written as
    /// text and those that need escaping, formatting or colour.
    fn fields_of_every_kind() {
        let span = tracing::info_span!(
            "LegalMoves",
            variant = "copenhagen",
            board_size = 11_u64,
            ply = tracing::field::Empty,
            moves = tracing::field::Empty,
        );
        let _entered = span.enter();
        span.record("ply", 100_i64);
        span.record("moves", -3_i64);
        let error = std::io::Error::other("disk \"full\"");
        tracing::info!(
            plain = "text with spaces",
            quoted = "say \"hi\"",
            backslash = "a\\b",
            control = "tab\there",
            unicode = "sk\u{f6}ldr",
            empty = "",
            long = "a move, and a move, and a move, and ".repeat(5).as_str(),
            long_debug = ?"a debug value ".repeat(10),
            yes = true,
            no = false,
            small = i64::MIN,
            large = u64::MAX,
            float = 0.25_f64,
            r#type = "raw",
            display = %"shown as is",
            debug = ?Some(1),
            elapsed = format_args!("{:.3}", 1.5_f64),
            %error,
            "message with \"quotes\""
        );
        tracing::warn!(ply = 3);
    }

    #[test]
    fn fields_are_written_as_the_default_visitor_writes_them() {
        for ansi in [false, true] {
            assert_eq!(
                logged(LogFields, ansi, fields_of_every_kind),
                logged(
                    tracing_subscriber::fmt::format::DefaultFields::new(),
                    ansi,
                    fields_of_every_kind
                ),
                "in colour: {ansi}"
            );
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
