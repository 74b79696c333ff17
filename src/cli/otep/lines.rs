//! OpenTafl's lines as the engine reads them: whole, bounded, and in UTF-8,
//! or said to be unreadable.

use std::io::{self, BufRead};
use std::sync::mpsc::Sender;

/// The longest line read from OpenTafl (its longest, a 13x13 `opponent-move`,
/// is a few hundred bytes); the rest of a longer one is skipped unread.
const MAX_LINE: usize = 64 * 1024;

/// One line from OpenTafl, or why it is none the engine can read.
#[derive(Debug)]
pub enum Input {
    Line(String),
    Unreadable(String),
}

/// Reads `input` line by line into `lines`, at most [`MAX_LINE`] bytes of
/// each, until its end or until nobody listens.
pub fn read_lines(mut input: impl BufRead, lines: &Sender<Input>) {
    let mut line = Vec::new();
    let mut too_long = false;
    loop {
        let (used, ended) = match input.fill_buf() {
            // The end: a last line without its newline is a line too.
            Ok([]) => (0, !line.is_empty() || too_long),
            Ok(buffer) => {
                let end = buffer.iter().position(|&byte| byte == b'\n');
                let chunk = &buffer[..end.unwrap_or(buffer.len())];
                too_long |= line.len() + chunk.len() > MAX_LINE;
                if !too_long {
                    line.extend_from_slice(chunk);
                }
                (chunk.len() + usize::from(end.is_some()), end.is_some())
            }
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => (0, false),
        };
        if used == 0 && !ended {
            return;
        }
        input.consume(used);
        if ended {
            let read = if std::mem::take(&mut too_long) {
                Input::Unreadable(format!("a line longer than {MAX_LINE} bytes"))
            } else {
                match String::from_utf8(std::mem::take(&mut line)) {
                    Ok(text) => Input::Line(text),
                    Err(error) => Input::Unreadable(format!(
                        "a line that is not UTF-8 (byte {})",
                        error.utf8_error().valid_up_to() + 1
                    )),
                }
            };
            line.clear();
            if lines.send(read).is_err() {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    fn read(bytes: &[u8]) -> Vec<String> {
        let (sender, lines) = mpsc::channel();
        read_lines(io::BufReader::with_capacity(16, bytes), &sender);
        drop(sender);
        lines
            .iter()
            .map(|input| match input {
                Input::Line(line) => line,
                Input::Unreadable(why) => format!("! {why}"),
            })
            .collect()
    }

    #[test]
    fn lines_are_read_whole_and_bad_ones_reported() {
        // A small buffer, so that lines span several reads.
        let mut bytes = b"play attackers\nclock 1 2\xff 0\n".to_vec();
        bytes.extend(std::iter::repeat_n(b'x', MAX_LINE + 1));
        bytes.extend(b"\ngoodbye\nunfinished");
        assert_eq!(
            read(&bytes),
            [
                "play attackers".to_owned(),
                "! a line that is not UTF-8 (byte 10)".to_owned(),
                format!("! a line longer than {MAX_LINE} bytes"),
                "goodbye".to_owned(),
                "unfinished".to_owned(),
            ]
        );
        // The longest line allowed is read.
        let longest = vec![b'y'; MAX_LINE];
        assert_eq!(read(&[&longest[..], b"\n"].concat())[0].len(), MAX_LINE);
    }
}
