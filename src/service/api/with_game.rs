//! Requests that carry a game (LegalMoves', ApplyMove's), decoded without a
//! string per move.
//!
//! prost decodes `Game.moves` into one `String` a move: a 100-ply game is
//! 100 allocations, filled, replayed once, then freed, a sixth of a
//! LegalMoves call. [`WithGame`] decodes the game's moves into one buffer,
//! a short text straight from the request's bytes and anything else through
//! prost's own string decoding (its checks, its errors), and the rest of the
//! request as prost does. build.rs gives the generated server these
//! requests; clients send the `pb::` messages as before.

use std::ops::Range;

use prost::bytes::{Buf, BufMut};
use prost::encoding::{
    DecodeContext, WireType, encode_key, encode_varint, encoded_len_varint, key_len, message,
    skip_field, string,
};
use prost::{DecodeError, Message};

use super::convert::GameSent;
use crate::service::pb;

/// `Game`'s field numbers (proto/tafl/v1/tafl.proto), and the game's in the
/// requests.
const VARIANT: u32 = 1;
const START: u32 = 2;
const MOVES: u32 = 3;
const GAME: u32 = 1;

/// A request whose field 1 is its game.
pub trait GameFirst: Message + Default {
    /// The message's name, for decoding errors: `LegalMovesRequest.game: …`.
    const NAME: &'static str;
}

impl GameFirst for pb::LegalMovesRequest {
    const NAME: &'static str = "LegalMovesRequest";
}

impl GameFirst for pb::ApplyMoveRequest {
    const NAME: &'static str = "ApplyMoveRequest";
}

/// LegalMoves' request.
pub type LegalMovesQuery = WithGame<pb::LegalMovesRequest>;
/// ApplyMove's request.
pub type ApplyMoveQuery = WithGame<pb::ApplyMoveRequest>;

/// A request: its game, and its other fields in `rest` (whose own `game`
/// stays empty).
#[derive(Debug, Default)]
pub struct WithGame<M> {
    pub game: Option<GameMessage>,
    pub rest: M,
}

/// A `tafl.v1.Game` with its moves in one buffer.
#[derive(Debug, Default)]
pub struct GameMessage {
    pub variant: Option<pb::Variant>,
    pub start: String,
    /// The moves' texts: runs of the request's bytes as they came (the
    /// keys and lengths between the texts are ASCII), and the texts prost
    /// decoded; move `i` is `texts[moves[i]]`.
    texts: String,
    moves: Vec<Range<u32>>,
    /// The move being decoded.
    decoding: String,
    /// How many bytes the buffer has left once this game's are read, when
    /// the request that holds it could tell: the moves read ahead stop there.
    rest_after: Option<usize>,
}

impl GameSent for GameMessage {
    fn variant(&self) -> Option<&pb::Variant> {
        self.variant.as_ref()
    }

    fn start(&self) -> &str {
        &self.start
    }

    fn move_count(&self) -> usize {
        self.moves.len()
    }

    fn move_texts(&self) -> impl Iterator<Item = &str> {
        MoveTexts {
            texts: &self.texts,
            moves: self.moves.iter(),
        }
    }
}

/// A game's move texts in order, each a range into its buffer. Its own
/// type rather than a `map` over the ranges: the replay drives it with
/// `try_for_each`, and `Iterator`'s own `try_fold` over this `next` inlines
/// into the replay's AVX2 build where `Map`'s did not (callgrind, the
/// 100-ply game: 71 k instructions for the replay, 55 k so).
struct MoveTexts<'g> {
    texts: &'g str,
    moves: std::slice::Iter<'g, Range<u32>>,
}

impl<'g> Iterator for MoveTexts<'g> {
    type Item = &'g str;

    #[inline]
    fn next(&mut self) -> Option<&'g str> {
        let text = self.moves.next()?;
        Some(&self.texts[text.start as usize..text.end as usize])
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.moves.size_hint()
    }
}

impl<M: GameFirst> Message for WithGame<M> {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        if let Some(game) = &self.game {
            message::encode(GAME, game, buf);
        }
        self.rest.encode_raw(buf);
    }

    fn encoded_len(&self) -> usize {
        self.game
            .as_ref()
            .map_or(0, |game| message::encoded_len(GAME, game))
            + self.rest.encoded_len()
    }

    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        if tag != GAME {
            return self.rest.merge_field(tag, wire_type, buf, ctx);
        }
        let game = self.game.get_or_insert_with(GameMessage::default);
        game.rest_after = rest_after_message(buf);
        message::merge(wire_type, game, buf, ctx).map_err(|mut error| {
            error.push(M::NAME, "game");
            error
        })
    }

    fn clear(&mut self) {
        self.game = None;
        self.rest.clear();
    }
}

/// An offset into a game's texts, which hold no more than the request's
/// bytes: a gRPC message is under 4 GiB (its length prefix has 32 bits).
fn offset(at: usize) -> u32 {
    u32::try_from(at).expect("a gRPC message is under 4 GiB")
}

/// The key of a move: field `MOVES`, length-delimited.
const MOVES_KEY: u8 = (MOVES << 3 | WireType::LengthDelimited as u32) as u8;

/// How many bytes `buf` has left after the length-delimited message that
/// starts it (its length, then its bytes), if its length can be read at a
/// glance.
fn rest_after_message(buf: &impl Buf) -> Option<usize> {
    let mut chunk = buf.chunk();
    let len = prost::encoding::decode_varint(&mut chunk).ok()?;
    let header = buf.chunk().len() - chunk.len();
    buf.remaining()
        .checked_sub(header)?
        .checked_sub(usize::try_from(len).ok()?)
}

impl GameMessage {
    /// Takes the next move's text straight from the buffer when it is the
    /// common case (its length one byte, the whole text in the buffer's
    /// current chunk, UTF-8), and with it every move that follows it in the
    /// same form inside the game, validated as UTF-8 all at once and copied
    /// as one run: the per-field decoding, a validation call and a copy a
    /// move cost more than the rest of its decoding. Anything else is left
    /// for prost's string decoding, with its errors.
    fn take_short_moves(&mut self, buf: &mut impl Buf) -> bool {
        let chunk = buf.chunk();
        let Some(&first) = chunk.first().filter(|&&len| len < 0x80) else {
            return false;
        };
        // This move's length and text, then the key, length and text of
        // each move after it, up to the game's end.
        let game_bytes = self
            .rest_after
            .map_or(0, |rest| buf.remaining().saturating_sub(rest))
            .min(chunk.len());
        let mut run_end = 1 + usize::from(first);
        loop {
            match chunk.get(run_end..game_bytes).unwrap_or_default() {
                [MOVES_KEY, len, text @ ..] if *len < 0x80 && usize::from(*len) <= text.len() => {
                    run_end += 2 + usize::from(*len);
                }
                _ => break,
            }
        }
        let Some(run) = chunk.get(..run_end) else {
            return false;
        };
        // Keys and lengths are ASCII, so the run is UTF-8 up to where a text is not.
        let run = match std::str::from_utf8(run) {
            Ok(run) => run,
            Err(error) => std::str::from_utf8(&run[..error.valid_up_to()]).unwrap_or_default(),
        };
        // `taken`: the end of the last text taken; a move's length comes
        // right there for the first, after its key for the others.
        let (mut taken, mut length_at) = (0, 0);
        let run_start = self.texts.len();
        while let Some(&len) = run.as_bytes().get(length_at) {
            let start = length_at + 1;
            let end = start + usize::from(len);
            if end > run.len() {
                break;
            }
            self.moves
                .push(offset(run_start + start)..offset(run_start + end));
            taken = end;
            length_at = taken + 1;
        }
        if taken == 0 {
            return false;
        }
        self.texts.push_str(&run[..taken]);
        buf.advance(taken);
        true
    }
}

impl Message for GameMessage {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        if let Some(variant) = &self.variant {
            message::encode(VARIANT, variant, buf);
        }
        if !self.start.is_empty() {
            string::encode(START, &self.start, buf);
        }
        for text in self.move_texts() {
            encode_key(MOVES, WireType::LengthDelimited, buf);
            encode_varint(text.len() as u64, buf);
            buf.put_slice(text.as_bytes());
        }
    }

    fn encoded_len(&self) -> usize {
        let moves: usize = self
            .move_texts()
            .map(|text| {
                let len = text.len();
                key_len(MOVES) + encoded_len_varint(len as u64) + len
            })
            .sum();
        self.variant
            .as_ref()
            .map_or(0, |variant| message::encoded_len(VARIANT, variant))
            + if self.start.is_empty() {
                0
            } else {
                string::encoded_len(START, &self.start)
            }
            + moves
    }

    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        let (field, result) = match tag {
            VARIANT => (
                "variant",
                message::merge(
                    wire_type,
                    self.variant.get_or_insert_with(pb::Variant::default),
                    buf,
                    ctx,
                ),
            ),
            START => ("start", string::merge(wire_type, &mut self.start, buf, ctx)),
            MOVES => {
                // Into the one buffer, made room for once: the rest of the
                // request bounds the moves still to come. Their ranges get
                // room for moves of a typical length (`a1-a2`, its key and
                // length: 7 bytes); more grow the list.
                if self.texts.is_empty() {
                    self.texts.reserve(buf.remaining());
                    self.moves.reserve(buf.remaining() / 7);
                }
                if wire_type == WireType::LengthDelimited && self.take_short_moves(buf) {
                    return Ok(());
                }
                let result = string::merge(wire_type, &mut self.decoding, buf, ctx);
                if result.is_ok() {
                    let start = offset(self.texts.len());
                    self.texts.push_str(&self.decoding);
                    self.moves.push(start..offset(self.texts.len()));
                }
                ("moves", result)
            }
            _ => return skip_field(wire_type, tag, buf, ctx),
        };
        result.map_err(|mut error| {
            error.push("Game", field);
            error
        })
    }

    fn clear(&mut self) {
        *self = GameMessage::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::real_games;

    fn game_of(moves: Vec<String>) -> pb::Game {
        pb::Game {
            variant: Some(pb::Variant {
                rules: pb::Rules::Copenhagen.into(),
                board_size: 11,
            }),
            start: String::new(),
            moves,
        }
    }

    /// What prost decodes, read the same, and written back byte for byte.
    #[test]
    fn decodes_what_prost_decodes() {
        for record in real_games().into_iter().step_by(101) {
            let request = pb::ApplyMoveRequest {
                game: Some(game_of(record.moves)),
                next_move: "a4-a3".to_owned(),
                include_legal_moves: true,
            };
            let bytes = request.encode_to_vec();
            let decoded = ApplyMoveQuery::decode(bytes.as_slice()).unwrap();
            let game = decoded.game.as_ref().unwrap();
            let sent = request.game.as_ref().unwrap();
            assert_eq!(game.variant, sent.variant);
            assert_eq!(game.move_count(), sent.moves.len());
            assert!(game.move_texts().eq(sent.moves.iter().map(String::as_str)));
            assert_eq!(decoded.rest.next_move, "a4-a3");
            assert!(decoded.rest.include_legal_moves);
            assert_eq!(decoded.encode_to_vec(), bytes);
        }
    }

    /// Real requests with bytes overwritten at random: whatever prost makes
    /// of them (a request, or an error and its words), so does `WithGame`.
    #[test]
    fn damaged_requests_decode_as_prost_decodes_them() {
        let games = real_games();
        let record = games
            .iter()
            .find(|record| record.moves.len() >= 40)
            .unwrap();
        let bytes = pb::LegalMovesRequest {
            game: Some(game_of(record.moves[..40].to_vec())),
            square: "e5".to_owned(),
        }
        .encode_to_vec();
        let mut state = 1_u64;
        for _ in 0..20_000 {
            let mut damaged = bytes.clone();
            for _ in 0..3 {
                state = crate::rules::splitmix(state);
                let at = (state % damaged.len() as u64) as usize;
                damaged[at] = (state >> 32) as u8;
            }
            let ours = LegalMovesQuery::decode(damaged.as_slice());
            match pb::LegalMovesRequest::decode(damaged.as_slice()) {
                Ok(prost) => {
                    let ours = ours.expect("prost decodes it");
                    assert_eq!(ours.rest.square, prost.square);
                    let game = prost.game.unwrap_or_default();
                    let ours_game = ours.game.unwrap_or_default();
                    assert_eq!(ours_game.variant, game.variant);
                    assert_eq!(ours_game.start, game.start);
                    assert_eq!(ours_game.move_count(), game.moves.len());
                    assert!(
                        ours_game
                            .move_texts()
                            .eq(game.moves.iter().map(String::as_str))
                    );
                }
                Err(prost) => assert_eq!(ours.unwrap_err().to_string(), prost.to_string()),
            }
        }
    }

    /// A move that is not UTF-8 among others, where the moves are read
    /// ahead together, is refused as prost refuses it.
    #[test]
    fn a_move_among_others_that_is_not_utf8_is_refused_as_prost_refuses_it() {
        let moves = ["d1-d2", "e1-e2", "\u{e9}1-e2", "f1-f2"]
            .map(str::to_owned)
            .to_vec();
        let mut bytes = pb::LegalMovesRequest {
            game: Some(game_of(moves)),
            square: String::new(),
        }
        .encode_to_vec();
        let at = bytes.iter().position(|&byte| byte == 0xc3).unwrap();
        bytes[at] = 0xff;
        let ours = LegalMovesQuery::decode(bytes.as_slice()).unwrap_err();
        let prost = pb::LegalMovesRequest::decode(bytes.as_slice()).unwrap_err();
        assert_eq!(ours.to_string(), prost.to_string());
    }

    /// A field that looks like a move right after the game, in the request
    /// itself, is no move of the game: the moves read ahead stop at the
    /// game's end, and the field is what prost makes of it (unknown and
    /// skipped in LegalMoves' request, a boolean of the wrong wire type in
    /// ApplyMove's).
    #[test]
    fn the_moves_read_ahead_stop_at_the_games_end() {
        let game = game_of(["d1-d2", "e1-e2"].map(str::to_owned).to_vec());
        let mut legal = pb::LegalMovesRequest {
            game: Some(game.clone()),
            square: String::new(),
        }
        .encode_to_vec();
        legal.extend_from_slice(&[MOVES_KEY, 5]);
        legal.extend_from_slice(b"f1-f2");
        let ours = LegalMovesQuery::decode(legal.as_slice()).unwrap();
        let prost = pb::LegalMovesRequest::decode(legal.as_slice()).unwrap();
        let prost_moves = prost.game.unwrap().moves;
        assert!(
            ours.game
                .unwrap()
                .move_texts()
                .eq(prost_moves.iter().map(String::as_str))
        );
        assert_eq!(prost_moves.len(), 2);
        let mut apply = pb::ApplyMoveRequest {
            game: Some(game),
            next_move: String::new(),
            include_legal_moves: false,
        }
        .encode_to_vec();
        apply.extend_from_slice(&[MOVES_KEY, 5]);
        apply.extend_from_slice(b"f1-f2");
        let ours = ApplyMoveQuery::decode(apply.as_slice()).unwrap_err();
        let prost = pb::ApplyMoveRequest::decode(apply.as_slice()).unwrap_err();
        assert_eq!(ours.to_string(), prost.to_string());
    }

    #[test]
    fn a_move_that_is_not_utf8_is_refused_as_prost_refuses_it() {
        let mut bytes = pb::LegalMovesRequest {
            game: Some(game_of(vec!["d1-d2".to_owned(), "e1-e2".to_owned()])),
            square: String::new(),
        }
        .encode_to_vec();
        let last = bytes.len() - 1;
        bytes[last] = 0xff;
        let ours = LegalMovesQuery::decode(bytes.as_slice()).unwrap_err();
        let prost = pb::LegalMovesRequest::decode(bytes.as_slice()).unwrap_err();
        assert_eq!(ours.to_string(), prost.to_string());
    }
}
