//! Replies that list legal moves (LegalMoves', ApplyMove's), encoded
//! straight from the rules' types.
//!
//! A reply on a real game lists some 170 moves, each with two square names,
//! its text, its captures and its status after. Built as `pb::Move`s that is
//! about 500 strings, each allocated, copied into the response and freed:
//! most of the call's cost, and the position's piece lists another string
//! a piece. [`WithLegalMoves`] writes the same bytes as prost's encoding of
//! the whole message (a test compares them on real games): the position's
//! fields, the rest of the message as prost encodes it, then each move,
//! encoded into one buffer as it is previewed. build.rs gives the generated
//! server these replies; clients decode the `pb::` messages as before.

use prost::bytes::{Buf, BufMut};
use prost::encoding::{
    DecodeContext, WireType, encode_key, encode_varint, encoded_len_varint, key_len, message,
    skip_field,
};
use prost::{DecodeError, Message};

use super::convert;
use crate::rules::{Game, Move, MoveText, PlayedMove, Square, Status};
use crate::service::pb;

/// `Move`'s field numbers (proto/tafl/v1/tafl.proto).
const FROM_SQUARE: u32 = 1;
const TO_SQUARE: u32 = 2;
const TEXT: u32 = 3;
const CAPTURES: u32 = 4;
const STATUS_AFTER: u32 = 5;

/// `Position`'s field numbers, and the field holding it in both replies.
const POSITION_TEXT: u32 = 1;
const POSITION_BOARD_SIZE: u32 = 2;
const POSITION_SIDE_TO_MOVE: u32 = 3;
const POSITION_ATTACKERS: u32 = 4;
const POSITION_DEFENDERS: u32 = 5;
const POSITION_KING: u32 = 6;
const POSITION_PLY: u32 = 7;
const POSITION: u32 = 1;

/// The field of the legal moves in `LegalMovesResponse` (`moves`) and in
/// `ApplyMoveResponse` (`legal_moves`): each message's last.
const LEGAL_MOVES_RESPONSE_MOVES: u32 = 3;
const APPLY_MOVE_RESPONSE_LEGAL_MOVES: u32 = 6;

/// LegalMoves' reply.
pub type LegalMovesReply = WithLegalMoves<pb::LegalMovesResponse>;
/// ApplyMove's reply.
pub type ApplyMoveReply = WithLegalMoves<pb::ApplyMoveResponse>;

/// A message with, as its first field, the game's position and, as its
/// last (the highest numbered, so that prost would write them first and
/// last too), the legal moves of the game, each previewed.
#[derive(Debug)]
pub struct WithLegalMoves<M> {
    /// `Position`'s fields as encoded, without the key and length of the
    /// field holding it; none once cleared (a position has a text always).
    position: Vec<u8>,
    /// The rest of the message; its own `position` is left empty.
    message: M,
    /// Every move with its field's key and its length, as encoded.
    moves: Vec<u8>,
    move_count: usize,
}

impl LegalMovesReply {
    /// The game's position, its status and its legal moves (of the piece on
    /// `square` if given).
    pub fn legal_moves(game: &Game, square: Option<Square>) -> LegalMovesReply {
        let message = pb::LegalMovesResponse {
            position: None,
            status: Some(convert::status_to_proto(game.status())),
            moves: Vec::new(),
        };
        WithLegalMoves::new(message, game).listing(LEGAL_MOVES_RESPONSE_MOVES, game, square)
    }
}

impl ApplyMoveReply {
    /// `response` (without position or legal moves) with the position of
    /// `game`, the game after the move, and its legal moves if `list_moves`:
    /// ApplyMove's `legal_moves`.
    pub fn apply_move(
        response: pb::ApplyMoveResponse,
        game: &Game,
        list_moves: bool,
    ) -> ApplyMoveReply {
        let reply = WithLegalMoves::new(response, game);
        if list_moves {
            reply.listing(APPLY_MOVE_RESPONSE_LEGAL_MOVES, game, None)
        } else {
            reply
        }
    }
}

impl<M> WithLegalMoves<M> {
    /// The position of `game`, then `message`; no moves.
    fn new(message: M, game: &Game) -> WithLegalMoves<M> {
        WithLegalMoves {
            position: position_fields(game),
            message,
            moves: Vec::new(),
            move_count: 0,
        }
    }

    /// The reply with field `tag`: the legal moves of `game` (of the piece
    /// on `square` if given), each previewed, sorted as the rules list them.
    fn listing(self, tag: u32, game: &Game, square: Option<Square>) -> WithLegalMoves<M> {
        let previewed = game.previewed_moves(square);
        let move_count = previewed.len();
        // 21 to 25 bytes a quiet move, nearly every one, each appended 32 at
        // once and cut back: room for all without growing.
        let mut moves = Vec::with_capacity(32 * move_count);
        let mut text = String::new();
        for played in previewed {
            put_move(tag, &played, &mut text, &mut moves);
        }
        WithLegalMoves {
            moves,
            move_count,
            ..self
        }
    }

    /// How many moves it lists.
    pub fn move_count(&self) -> usize {
        self.move_count
    }
}

/// `Position`'s fields for `game`, as prost encodes what
/// [`convert::position_to_proto`] gives (proto3: zeros and empty strings
/// are not written), without a string a square.
fn position_fields(game: &Game) -> Vec<u8> {
    let position = game.position();
    let text = convert::position_text(position);
    let pieces = (position.attackers() | position.defenders()).len() as usize + 1;
    // The text, at most 5 bytes a piece's name, and the numbers.
    let mut fields = Vec::with_capacity(text.len() + 5 * pieces + 16);
    put_str(POSITION_TEXT, text.as_bytes(), &mut fields);
    put_number(
        POSITION_BOARD_SIZE,
        u64::from(position.variant().size.get()),
        &mut fields,
    );
    put_number(
        POSITION_SIDE_TO_MOVE,
        convert::side_to_proto(position.side_to_move()) as u64,
        &mut fields,
    );
    for square in position.attackers().iter() {
        put_name(POSITION_ATTACKERS, square, &mut fields);
    }
    for square in position.defenders().iter() {
        put_name(POSITION_DEFENDERS, square, &mut fields);
    }
    if let Some(king) = position.king() {
        put_name(POSITION_KING, king, &mut fields);
    }
    put_number(
        POSITION_PLY,
        u64::from(u32::try_from(game.ply()).unwrap_or(u32::MAX)),
        &mut fields,
    );
    fields
}

/// A varint field (an unsigned number, an enum), unless zero.
#[inline]
fn put_number(tag: u32, value: u64, out: &mut Vec<u8>) {
    if value != 0 {
        encode_key(tag, WireType::Varint, out);
        encode_varint(value, out);
    }
}

/// One entry of field `tag`: its key, its length, and the `Move`'s fields
/// in prost's order. `text` is a buffer for the move's text.
#[inline(always)]
fn put_move(tag: u32, played: &PlayedMove, text: &mut String, out: &mut Vec<u8>) {
    if played.captures.is_empty() && played.status == Status::Ongoing {
        put_quiet_move(tag, played.played, out);
    } else {
        put_eventful_move(tag, played, text, out);
    }
}

/// [`put_move`] for a move that captures or ends the game, a few a reply:
/// kept out of the loop that writes the others.
#[inline(never)]
fn put_eventful_move(tag: u32, played: &PlayedMove, text: &mut String, out: &mut Vec<u8>) {
    text.clear();
    MoveText {
        from: played.played.from,
        to: played.played.to,
        captures: Some(played.captures),
    }
    .write_text(text)
    .expect("a String takes any text");
    let (from, to) = (played.played.from.name(), played.played.to.name());
    let status_after =
        (played.status != Status::Ongoing).then(|| convert::status_to_proto(played.status));
    let captures_len: usize = played
        .captures
        .iter()
        .map(|square| str_len(CAPTURES, square.name().len()))
        .sum();
    let status_len = status_after.map_or(ONGOING.len(), |status| {
        message::encoded_len(STATUS_AFTER, &status)
    });
    let len = str_len(FROM_SQUARE, from.len())
        + str_len(TO_SQUARE, to.len())
        + str_len(TEXT, text.len())
        + captures_len
        + status_len;
    put_key(tag, out);
    put_varint(len, out);
    put_name(FROM_SQUARE, played.played.from, out);
    put_name(TO_SQUARE, played.played.to, out);
    put_str(TEXT, text.as_bytes(), out);
    for square in played.captures.iter() {
        put_name(CAPTURES, square, out);
    }
    match status_after {
        None => out.extend_from_slice(&ONGOING),
        Some(status) => message::encode(STATUS_AFTER, &status, out),
    }
}

/// [`put_move`] for a move that captures nothing and leaves the game going
/// on, nearly every move: its entry is put together on the stack from its
/// squares' [`NameChunks`], 8 bytes a store, and copied once; its text
/// `from-to` as [`MoveText`] writes it (the tests compare the bytes with
/// prost's). Its keys and lengths are one byte each.
#[inline(always)]
fn put_quiet_move(tag: u32, mv: Move, out: &mut Vec<u8>) {
    let from = &NAME_CHUNKS[mv.from.index() as usize];
    let to = &NAME_CHUNKS[mv.to.index() as usize];
    let (from_len, to_len) = (usize::from(from.name_len), usize::from(to.name_len));
    let text_len = from_len + 1 + to_len;
    let len = 2 + from_len + 2 + to_len + 2 + text_len + ONGOING.len();
    let mut entry = Entry::default();
    entry.put(
        u64::from(key(tag)) | (len as u64) << 8 | (from.field | u64::from(key(FROM_SQUARE))) << 16,
        2 + 2 + from_len,
    );
    entry.put(to.field | u64::from(key(TO_SQUARE)), 2 + to_len);
    entry.put(from.text_start + ((to_len as u64) << 8), 3 + from_len);
    entry.put(to.text_end, to_len + ONGOING.len());
    entry.append_to(out);
}

/// `status_after` of a move that leaves the game going on, as prost
/// encodes [`convert::status_to_proto`]'s status: the key, the length, and
/// the one field that is not zero, `result` (a test compares them).
const ONGOING: [u8; 4] = [
    key(STATUS_AFTER),
    2,
    (GAME_STATUS_RESULT << 3) as u8 | WireType::Varint as u8,
    pb::GameResult::Ongoing as u8,
];

/// `GameStatus`'s field `result`.
const GAME_STATUS_RESULT: u32 = 1;

/// The pieces of the fields that name a square, and of a quiet move's entry,
/// that one square gives: little endian, each a store's 8 bytes of which
/// the first few count.
struct NameChunks {
    /// The name's length, 2 or 3.
    name_len: u8,
    /// A field naming the square, without its key: a zero, the length, the
    /// name.
    field: u64,
    /// As the square moved from, the text field's start: its key, its
    /// length less the other name's, the name and the dash.
    text_start: u64,
    /// As the square moved to, the rest of the entry: the name ending the
    /// text, then [`ONGOING`].
    text_end: u64,
}

/// Every square's [`NameChunks`], by [`Square::index`] (a byte: no bound
/// check); those off every board are never read.
static NAME_CHUNKS: [NameChunks; 256] = {
    const NONE: NameChunks = NameChunks {
        name_len: 0,
        field: 0,
        text_start: 0,
        text_end: 0,
    };
    let [status_key, status_len, result_key, result] = ONGOING;
    let status = u64::from_le_bytes([status_key, status_len, result_key, result, 0, 0, 0, 0]);
    let mut chunks = [NONE; 256];
    let mut index = 0;
    while index < chunks.len() {
        let name = Square::from_index(index as u32).name();
        let [first, second, third] = name.padded();
        let name_bytes = u64::from_le_bytes([first, second, third, 0, 0, 0, 0, 0]);
        let len = name.len() as u64;
        chunks[index] = NameChunks {
            name_len: len as u8,
            field: len << 8 | name_bytes << 16,
            text_start: key(TEXT) as u64
                | (len + 1) << 8
                | name_bytes << 16
                | (b'-' as u64) << (8 * (2 + len)),
            text_end: name_bytes | status << (8 * len),
        };
        index += 1;
    }
    chunks
};

/// A quiet move's entry as it is put together: bytes on the stack and how
/// many are written, kept in registers (bytes stored into a Vec could be
/// its own length for all the compiler knows, so each push reads it again).
struct Entry {
    /// At most 25 bytes an entry; room for a store's 8 at any end below 32.
    bytes: [u8; 40],
    len: usize,
}

impl Default for Entry {
    fn default() -> Entry {
        Entry {
            bytes: [0; 40],
            len: 0,
        }
    }
}

impl Entry {
    /// Stores the 8 bytes of `chunk` at the end, of which `len` count (the
    /// rest the next store overwrites). The end stays below 32, so masking
    /// it changes nothing but shows the compiler the store fits, without a
    /// bound check.
    #[inline(always)]
    fn put(&mut self, chunk: u64, len: usize) {
        let at = self.len % 32;
        self.bytes[at..at + 8].copy_from_slice(&chunk.to_le_bytes());
        self.len += len;
    }

    /// Appends the bytes written: the first 32 copied at once (a copy of a
    /// length known only at run time is a call to `memcpy`, slow for so
    /// few bytes), the rest cut off again.
    #[inline(always)]
    fn append_to(&self, out: &mut Vec<u8>) {
        let end = out.len() + self.len;
        out.extend_from_slice(&self.bytes[..32]);
        out.truncate(end);
    }
}

/// The one-byte key of length-delimited field `tag` (below 16).
#[inline(always)]
const fn key(tag: u32) -> u8 {
    (tag << 3 | WireType::LengthDelimited as u32) as u8
}

/// The encoded length of a string field `len` bytes long.
#[inline]
fn str_len(tag: u32, len: usize) -> usize {
    key_len(tag) + encoded_len_varint(len as u64) + len
}

/// A string field holding a square's name, stored 8 bytes at once from
/// its [`NameChunks`] and cut back to the field's.
#[inline]
fn put_name(tag: u32, square: Square, out: &mut Vec<u8>) {
    let chunks = &NAME_CHUNKS[square.index() as usize];
    let end = out.len() + 2 + usize::from(chunks.name_len);
    out.extend_from_slice(&(chunks.field | u64::from(key(tag))).to_le_bytes());
    out.truncate(end);
}

/// A string field: its key, its length, its bytes.
#[inline]
fn put_str(tag: u32, text: &[u8], out: &mut Vec<u8>) {
    put_key(tag, out);
    put_varint(text.len(), out);
    put_bytes(text, out);
}

/// Bytes of names and move texts, a few at a time, copied one by one
/// rather than through `memcpy`.
#[inline]
fn put_bytes(bytes: &[u8], out: &mut Vec<u8>) {
    for &byte in bytes {
        out.push(byte);
    }
}

/// The key of a length-delimited field.
#[inline]
fn put_key(tag: u32, out: &mut Vec<u8>) {
    put_varint(
        ((tag << 3) | WireType::LengthDelimited as u32) as usize,
        out,
    );
}

/// A varint; every key and nearly every length here is below 128, one byte.
#[inline]
fn put_varint(value: usize, out: &mut Vec<u8>) {
    match u8::try_from(value) {
        Ok(byte) if byte < 0x80 => out.push(byte),
        _ => encode_varint(value as u64, out),
    }
}

impl<M: Message> Message for WithLegalMoves<M> {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        if !self.position.is_empty() {
            encode_key(POSITION, WireType::LengthDelimited, buf);
            encode_varint(self.position.len() as u64, buf);
            buf.put_slice(&self.position);
        }
        self.message.encode_raw(buf);
        buf.put_slice(&self.moves);
    }

    fn encoded_len(&self) -> usize {
        let position = if self.position.is_empty() {
            0
        } else {
            key_len(POSITION) + encoded_len_varint(self.position.len() as u64) + self.position.len()
        };
        position + self.message.encoded_len() + self.moves.len()
    }

    /// The server only writes replies; a client decodes them as the `pb::`
    /// message. Decoding into this type keeps nothing.
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
        self.position.clear();
        self.message.clear();
        self.moves.clear();
        self.move_count = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::real_games;
    use crate::rules::{BoardSize, Rules, Variant};

    /// The moves as `pb::Move`s, the way prost would be given them.
    fn proto_moves(game: &Game, square: Option<Square>) -> Vec<pb::Move> {
        game.previewed_moves(square)
            .map(|played| convert::played_to_proto(&played))
            .collect()
    }

    fn assert_encodes_as<M: Message>(reply: &WithLegalMoves<M>, expected: &impl Message) {
        let bytes = reply.encode_to_vec();
        assert_eq!(bytes.len(), reply.encoded_len());
        assert_eq!(bytes, expected.encode_to_vec());
    }

    fn assert_legal_moves_as_prost(game: &Game, square: Option<Square>) {
        let expected = pb::LegalMovesResponse {
            position: Some(convert::position_to_proto(game)),
            status: Some(convert::status_to_proto(game.status())),
            moves: proto_moves(game, square),
        };
        assert_encodes_as(&LegalMovesReply::legal_moves(game, square), &expected);
    }

    /// ApplyMove's reply for the game's last move, with and without the
    /// next side's moves.
    fn assert_apply_move_as_prost(game: &Game, played: &PlayedMove) {
        let response = pb::ApplyMoveResponse {
            position: None,
            status: Some(convert::status_to_proto(game.status())),
            played: Some(convert::played_to_proto(played)),
            captured: convert::squares_to_proto(played.captures),
            repetitions: played.repetitions,
            legal_moves: Vec::new(),
        };
        let without = pb::ApplyMoveResponse {
            position: Some(convert::position_to_proto(game)),
            ..response.clone()
        };
        let reply = ApplyMoveReply::apply_move(response.clone(), game, false);
        assert_encodes_as(&reply, &without);
        let with = pb::ApplyMoveResponse {
            legal_moves: proto_moves(game, None),
            ..without
        };
        assert_encodes_as(&ApplyMoveReply::apply_move(response, game, true), &with);
    }

    /// Every ply of real games, captures and endings included, and each
    /// board's start, whole and square by square.
    #[test]
    fn encodes_what_prost_encodes() {
        for record in real_games().iter().step_by(97) {
            let mut game = Game::new(Variant::standard(Rules::Copenhagen));
            assert_legal_moves_as_prost(&game, None);
            for text in &record.moves {
                let Ok(played) = game.play(text) else { break };
                assert_legal_moves_as_prost(&game, None);
                assert_apply_move_as_prost(&game, &played);
            }
        }
        for variant in [
            Variant::standard(Rules::Copenhagen),
            Variant::standard(Rules::Fetlar),
            Variant::standard(Rules::Tablut),
            Variant::new(Rules::Copenhagen, BoardSize::new(13).unwrap()),
        ] {
            let game = Game::new(variant);
            assert_legal_moves_as_prost(&game, None);
            let position = game.position();
            for square in (position.attackers() | position.defenders()).iter() {
                assert_legal_moves_as_prost(&game, Some(square));
            }
        }
    }

    #[test]
    fn decoding_keeps_nothing() {
        let game = Game::new(Variant::standard(Rules::Copenhagen));
        let mut reply = LegalMovesReply::legal_moves(&game, None);
        let bytes = reply.encode_to_vec();
        reply.merge(bytes.as_slice()).unwrap();
        assert_eq!(reply.encode_to_vec(), bytes);
        reply.clear();
        assert_eq!(reply.move_count(), 0);
        assert!(reply.encode_to_vec().is_empty());
    }
}
