//! LegalMoves' reply, encoded straight from the rules' types.
//!
//! A reply on a real game lists some 170 moves, each with two square names,
//! its text, its captures and its status after. Built as `pb::Move`s that is
//! about 500 strings, each allocated, copied into the response and freed:
//! most of the call's cost. [`LegalMovesReply`] writes the same bytes as
//! prost's encoding of `pb::LegalMovesResponse` (a test compares them on real
//! games): each move is encoded into one buffer as it is previewed.
//! build.rs gives it to the generated server as LegalMoves' response;
//! clients decode `pb::LegalMovesResponse` as before.

use arrayvec::ArrayString;
use prost::bytes::{Buf, BufMut};
use prost::encoding::{
    DecodeContext, WireType, encode_varint, encoded_len_varint, key_len, message, skip_field,
};
use prost::{DecodeError, Message};

use super::convert;
use crate::rules::{Game, MoveText, PlayedMove, Square, Status};
use crate::service::pb;

/// `LegalMovesResponse`'s field numbers (proto/tafl/v1/tafl.proto).
const POSITION: u32 = 1;
const STATUS: u32 = 2;
const MOVES: u32 = 3;
/// `Move`'s.
const FROM_SQUARE: u32 = 1;
const TO_SQUARE: u32 = 2;
const TEXT: u32 = 3;
const CAPTURES: u32 = 4;
const STATUS_AFTER: u32 = 5;

/// A LegalMoves answer, ready to encode as a `tafl.v1.LegalMovesResponse`.
#[derive(Debug)]
pub struct LegalMovesReply {
    position: pb::Position,
    status: pb::GameStatus,
    /// The `moves` field, every move with its key and length, as encoded.
    moves: Vec<u8>,
    move_count: usize,
}

impl LegalMovesReply {
    /// The game's position and status and its legal moves (of the piece on
    /// `square` if given), each previewed, as [`convert::legal_moves_to_proto`]
    /// lists them.
    pub fn new(game: &Game, square: Option<Square>) -> LegalMovesReply {
        let previewed = game.previewed_moves(square);
        let move_count = previewed.len();
        // About 24 bytes a move: most capture nothing.
        let mut moves = Vec::with_capacity(32 * move_count);
        // Most moves leave the game going on: that status is encoded once.
        let mut ongoing = Vec::new();
        message::encode(
            STATUS_AFTER,
            &convert::status_to_proto(Status::Ongoing),
            &mut ongoing,
        );
        let mut text = String::new();
        for played in previewed {
            put_move(&played, &ongoing, &mut text, &mut moves);
        }
        LegalMovesReply {
            position: convert::position_to_proto(game),
            status: convert::status_to_proto(game.status()),
            moves,
            move_count,
        }
    }

    /// How many moves it lists.
    pub fn move_count(&self) -> usize {
        self.move_count
    }
}

/// One entry of the `moves` field: its key, its length, and the `Move`'s
/// fields in prost's order. `ongoing` is the encoded status of a game that
/// goes on; `text` a buffer for the move's text.
fn put_move(played: &PlayedMove, ongoing: &[u8], text: &mut String, out: &mut Vec<u8>) {
    let (from, to) = (name(played.played.from), name(played.played.to));
    text.clear();
    MoveText {
        from: played.played.from,
        to: played.played.to,
        captures: Some(played.captures),
    }
    .write_text(text)
    .expect("a String takes any text");
    let status_after =
        (played.status != Status::Ongoing).then(|| convert::status_to_proto(played.status));
    let captures_len: usize = played
        .captures
        .iter()
        .map(|square| str_len(CAPTURES, name(square).len()))
        .sum();
    let status_len = status_after.map_or(ongoing.len(), |status| {
        message::encoded_len(STATUS_AFTER, &status)
    });
    let len = str_len(FROM_SQUARE, from.len())
        + str_len(TO_SQUARE, to.len())
        + str_len(TEXT, text.len())
        + captures_len
        + status_len;
    put_key(MOVES, out);
    put_varint(len, out);
    put_str(FROM_SQUARE, from.as_bytes(), out);
    put_str(TO_SQUARE, to.as_bytes(), out);
    put_str(TEXT, text.as_bytes(), out);
    for square in played.captures.iter() {
        put_str(CAPTURES, name(square).as_bytes(), out);
    }
    match status_after {
        None => out.extend_from_slice(ongoing),
        Some(status) => message::encode(STATUS_AFTER, &status, out),
    }
}

/// A square's name ("e10") without allocating.
#[inline]
fn name(square: Square) -> ArrayString<3> {
    let mut name = ArrayString::new();
    square
        .write_name(&mut name)
        .expect("a square's name is at most 3 characters");
    name
}

/// The encoded length of a string field `len` bytes long.
#[inline]
fn str_len(tag: u32, len: usize) -> usize {
    key_len(tag) + encoded_len_varint(len as u64) + len
}

/// A string field: its key, its length, its bytes. Names and move texts are
/// a few bytes, copied one by one rather than through `memcpy`.
#[inline]
fn put_str(tag: u32, text: &[u8], out: &mut Vec<u8>) {
    put_key(tag, out);
    put_varint(text.len(), out);
    for &byte in text {
        out.push(byte);
    }
}

/// The key of a length-delimited field.
#[inline]
fn put_key(tag: u32, out: &mut Vec<u8>) {
    put_varint(((tag << 3) | WireType::LengthDelimited as u32) as usize, out);
}

/// A varint; every key and nearly every length here is below 128, one byte.
#[inline]
fn put_varint(value: usize, out: &mut Vec<u8>) {
    match u8::try_from(value) {
        Ok(byte) if byte < 0x80 => out.push(byte),
        _ => encode_varint(value as u64, out),
    }
}

impl Message for LegalMovesReply {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        message::encode(POSITION, &self.position, buf);
        message::encode(STATUS, &self.status, buf);
        buf.put_slice(&self.moves);
    }

    fn encoded_len(&self) -> usize {
        message::encoded_len(POSITION, &self.position)
            + message::encoded_len(STATUS, &self.status)
            + self.moves.len()
    }

    /// The server only writes replies; a client decodes them as
    /// `pb::LegalMovesResponse`. Decoding into this type keeps nothing.
    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        skip_field(wire_type, tag, buf, ctx)
    }

    fn clear(&mut self) {
        self.position = pb::Position::default();
        self.status = pb::GameStatus::default();
        self.moves.clear();
        self.move_count = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::real_games;
    use crate::rules::{Rules, Variant};

    /// What prost writes for the same answer built as `pb::` messages.
    fn prost_bytes(game: &Game, square: Option<Square>) -> Vec<u8> {
        pb::LegalMovesResponse {
            position: Some(convert::position_to_proto(game)),
            status: Some(convert::status_to_proto(game.status())),
            moves: convert::legal_moves_to_proto(game, square),
        }
        .encode_to_vec()
    }

    fn assert_same_bytes(game: &Game, square: Option<Square>) {
        let reply = LegalMovesReply::new(game, square);
        let bytes = reply.encode_to_vec();
        assert_eq!(bytes.len(), reply.encoded_len());
        assert_eq!(bytes, prost_bytes(game, square), "{}", game.position());
    }

    /// Every ply of real games, captures and endings included, and each
    /// board's start, whole and square by square.
    #[test]
    fn encodes_what_prost_encodes() {
        for record in real_games().iter().step_by(97) {
            let mut game = Game::new(Variant::standard(Rules::Copenhagen));
            assert_same_bytes(&game, None);
            for text in &record.moves {
                if game.play(text).is_err() {
                    break;
                }
                assert_same_bytes(&game, None);
            }
        }
        for variant in [
            Variant::standard(Rules::Copenhagen),
            Variant::standard(Rules::Fetlar),
            Variant::standard(Rules::Tablut),
            Variant::new(Rules::Copenhagen, crate::rules::BoardSize::new(13).unwrap()),
        ] {
            let game = Game::new(variant);
            assert_same_bytes(&game, None);
            let position = game.position();
            for square in (position.attackers() | position.defenders()).iter() {
                assert_same_bytes(&game, Some(square));
            }
        }
    }

    #[test]
    fn decoding_keeps_nothing() {
        let game = Game::new(Variant::standard(Rules::Copenhagen));
        let bytes = LegalMovesReply::new(&game, None).encode_to_vec();
        let mut reply = LegalMovesReply::new(&game, None);
        reply.merge(bytes.as_slice()).unwrap();
        assert_eq!(reply.move_count(), LegalMovesReply::new(&game, None).move_count());
        reply.clear();
        assert_eq!(reply.move_count(), 0);
    }
}
