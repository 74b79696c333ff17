//! What a connection has written and not yet handed to its socket, so that
//! everything HTTP/2 writes in one turn of the connection's task leaves in
//! one system call.
//!
//! h2 writes a DATA frame of more than 256 bytes from the response's own
//! buffer instead of copying it, and must flush it before it can queue the
//! next frame. Written straight to the socket, a LegalMoves answer (4 KB)
//! left as two writes, its headers and DATA, then its trailers alone: two
//! TCP segments and two wakeups of the client for every call, where small
//! answers share one. Through the outbox the connection sends what a turn
//! wrote when its task next runs (`transport/connection.rs`); on one server
//! with h2load (4 connections × 8 streams), LegalMoves went from 1.8 writes
//! a call to 0.4, and its server and client system time per call fell by
//! half or more (docs/operations.md, "Writes").

use std::io::IoSlice;

/// At most this much waits: h2's own write buffer. A connection that writes
/// more in one turn sends the outbox first.
pub const OUTBOX_BYTES: usize = 16 * 1024;

/// Bytes written and not yet sent, and how much of them the socket took.
#[derive(Debug, Default)]
pub struct Outbox {
    bytes: Vec<u8>,
    sent: usize,
}

impl Outbox {
    /// Copies as much of `bufs` as there is room for, in order; how many
    /// bytes it took (none once full).
    pub fn take(&mut self, bufs: &[IoSlice<'_>]) -> usize {
        let mut taken = 0;
        for buf in bufs {
            let room = OUTBOX_BYTES - self.bytes.len();
            let part = &buf[..buf.len().min(room)];
            self.bytes.extend_from_slice(part);
            taken += part.len();
            if part.len() < buf.len() {
                break;
            }
        }
        taken
    }

    /// Whether it can take no more.
    pub fn is_full(&self) -> bool {
        self.bytes.len() == OUTBOX_BYTES
    }

    /// What the socket has still to take.
    pub fn waiting(&self) -> &[u8] {
        &self.bytes[self.sent..]
    }

    /// The socket took `sent` more bytes of [`Outbox::waiting`].
    pub fn sent(&mut self, sent: usize) {
        self.sent += sent;
        if self.sent == self.bytes.len() {
            self.bytes.clear();
            self.sent = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_in_order_up_to_its_size_and_empties_once_sent() {
        let mut outbox = Outbox::default();
        let big = vec![7u8; OUTBOX_BYTES];
        assert_eq!(
            outbox.take(&[IoSlice::new(b"head"), IoSlice::new(&big)]),
            OUTBOX_BYTES
        );
        assert!(outbox.is_full());
        assert_eq!(outbox.take(&[IoSlice::new(b"more")]), 0);
        assert_eq!(&outbox.waiting()[..5], b"head\x07");
        outbox.sent(4);
        assert_eq!(outbox.waiting().len(), OUTBOX_BYTES - 4);
        outbox.sent(OUTBOX_BYTES - 4);
        assert!(outbox.waiting().is_empty());
        assert_eq!(outbox.take(&[IoSlice::new(b"ab"), IoSlice::new(b"c")]), 3);
        assert_eq!(outbox.waiting(), b"abc");
    }
}
