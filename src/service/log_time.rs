//! The log's timestamps: tracing-subscriber's own (RFC 3339 in UTC, to the
//! microsecond), with the date and the time of day formatted once a second
//! per thread rather than once a line. Its clock formats a whole date with
//! `write!` for each line, some 2,400 instructions of every call's access
//! line.

use std::cell::RefCell;
use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

use arrayvec::ArrayString;
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::time::{self, FormatTime};

/// The log's clock ([`FormatTime`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct LogTime;

/// `2026-12-06T01:02:03`: a timestamp to the second, before its fraction.
const TO_THE_SECOND: usize = 19;

/// A second and its timestamp up to the fraction, as this thread last wrote it.
#[derive(Default)]
struct Second {
    since_epoch: u64,
    text: ArrayString<TO_THE_SECOND>,
}

thread_local! {
    static LAST_SECOND: RefCell<Second> = RefCell::default();
}

impl FormatTime for LogTime {
    fn format_time(&self, writer: &mut Writer<'_>) -> fmt::Result {
        let Ok(now) = SystemTime::now().duration_since(UNIX_EPOCH) else {
            return time::SystemTime.format_time(writer);
        };
        let second = now.as_secs();
        LAST_SECOND.with_borrow_mut(|last| {
            if last.text.is_empty() || last.since_epoch != second {
                // tracing-subscriber's clock reads the time again, maybe
                // already in the next second (then its text is written as
                // it is), and may write a year outside four digits.
                let mut text = String::new();
                time::SystemTime.format_time(&mut Writer::new(&mut text))?;
                let same_second = text
                    .get(TO_THE_SECOND - 2..TO_THE_SECOND)
                    .and_then(|seconds| seconds.parse::<u64>().ok())
                    == Some(second % 60);
                match ArrayString::from(text.get(..TO_THE_SECOND).unwrap_or_default()) {
                    Ok(to_the_second) if same_second && text.len() == TO_THE_SECOND + 8 => {
                        *last = Second {
                            since_epoch: second,
                            text: to_the_second,
                        };
                    }
                    _ => return writer.write_str(&text),
                }
            }
            writer.write_str(&last.text)?;
            let mut fraction = *b".000000Z";
            let mut micros = now.subsec_micros();
            for digit in fraction[1..7].iter_mut().rev() {
                *digit = b'0' + (micros % 10) as u8;
                micros /= 10;
            }
            writer.write_str(std::str::from_utf8(&fraction).map_err(|_| fmt::Error)?)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(clock: impl FormatTime) -> String {
        let mut text = String::new();
        clock.format_time(&mut Writer::new(&mut text)).unwrap();
        text
    }

    /// The same text as tracing-subscriber's clock to the second, and a
    /// fraction of six digits, whether the second was cached or not.
    #[test]
    fn writes_what_the_default_clock_writes() {
        for _ in 0..3 {
            let (theirs, ours, again) = (
                written(time::SystemTime),
                written(LogTime),
                written(LogTime),
            );
            if theirs[..TO_THE_SECOND] != again[..TO_THE_SECOND] {
                continue; // a second went by
            }
            for text in [&ours, &again] {
                assert_eq!(text[..TO_THE_SECOND], theirs[..TO_THE_SECOND]);
                assert_eq!(text.len(), theirs.len(), "{text} against {theirs}");
                assert!(text.ends_with('Z'));
                assert!(
                    text[TO_THE_SECOND + 1..text.len() - 1]
                        .bytes()
                        .all(|b| b.is_ascii_digit())
                );
            }
            return;
        }
        panic!("three seconds went by in three readings of the clock");
    }
}
