//! Games already replayed, kept for the next call about the same game.
//!
//! A game backend asks about each game several times a turn with the same
//! moves (LegalMoves to show the player's choices, ApplyMove to judge the
//! one played) and again once the next move is played. Every request
//! carries the whole game, and replaying it is most of what such a call
//! costs, so the games replayed last are kept, each under the bytes that
//! name it: its variant, its start and its move texts, exactly as sent. A
//! request whose moves are all there takes the game as it is; one whose
//! moves but the last are there plays that one move on a copy. Anything
//! else is replayed from the start and kept. Only games the rules accepted
//! are kept, so an error is always found by a replay, the same as without
//! the cache.
//!
//! The cache holds at most `--replay-cache-mb` of games (each counted by
//! what it holds, its history of positions mostly, and the bytes naming
//! it), dropping the games least asked for; 0 turns it off. The counter
//! `tafl.replay.found` (by `found`: `game`, `all_but_last`, `nothing`) tells
//! an operator how often a call found its game there.

use std::sync::{Arc, OnceLock};

use opentelemetry::KeyValue;
use opentelemetry::metrics::Counter;
use prost::Message as _;
use quick_cache::Weighter;

use super::convert::{self, GameSent, MoveSource};
use crate::rules::Game;
use crate::service::error::ServiceError;

/// A game of about 100 moves, as the cache counts it: what its number of
/// games is first sized for.
const TYPICAL_GAME_BYTES: u64 = 32 * 1024;

/// The games replayed last, by the bytes naming them.
pub struct ReplayCache {
    games: Option<quick_cache::sync::Cache<Box<[u8]>, Arc<Game>, ByBytes>>,
}

impl std::fmt::Debug for ReplayCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (games, bytes) = self
            .games
            .as_ref()
            .map_or((0, 0), |games| (games.len(), games.weight()));
        f.debug_struct("ReplayCache")
            .field("games", &games)
            .field("bytes", &bytes)
            .finish()
    }
}

/// Counts a kept game by what it holds and the bytes naming it.
#[derive(Clone, Copy, Debug)]
struct ByBytes;

impl Weighter<Box<[u8]>, Arc<Game>> for ByBytes {
    fn weight(&self, name: &Box<[u8]>, game: &Arc<Game>) -> u64 {
        (name.len() + size_of::<Game>() + game.heap_bytes()) as u64
    }
}

impl ReplayCache {
    /// A cache of at most `megabytes` MiB of games; none at 0.
    pub fn new(megabytes: usize) -> ReplayCache {
        let bytes = u64::try_from(megabytes)
            .unwrap_or(u64::MAX)
            .saturating_mul(1 << 20);
        let games = (bytes > 0).then(|| {
            let typical_games = (bytes / TYPICAL_GAME_BYTES).max(1);
            quick_cache::sync::Cache::with_weighter(
                usize::try_from(typical_games).unwrap_or(usize::MAX),
                bytes,
                ByBytes,
            )
        });
        ReplayCache { games }
    }

    /// The game a request sent, as [`convert::game_from_proto`] replays it:
    /// kept from an earlier call when one sent the same moves, or those but
    /// the last.
    ///
    /// # Errors
    /// As [`convert::game_from_proto`].
    pub fn game(
        &self,
        sent: Option<&impl GameSent>,
        max_plies: usize,
    ) -> Result<Arc<Game>, ServiceError> {
        let (Some(games), Some(sent)) = (&self.games, sent) else {
            return convert::game_from_proto(sent, max_plies).map(Arc::new);
        };
        let moves = sent.move_count();
        if moves > max_plies {
            // Refused as the replay refuses it, and never kept.
            return convert::game_from_proto(Some(sent), max_plies).map(Arc::new);
        }
        let (name, before_last) = name_of(sent);
        if let Some(game) = games.get(&name[..]) {
            count_found("game");
            return Ok(game);
        }
        let last = before_last.and_then(|before_last| {
            let previous = games.get(&name[..before_last])?;
            let text = sent.move_texts().last()?;
            Some((previous, text))
        });
        count_found(if last.is_some() {
            "all_but_last"
        } else {
            "nothing"
        });
        let game = match last {
            Some((previous, text)) => {
                let mut game = Game::clone(&previous);
                convert::play(&mut game, text, MoveSource::GameMoves(moves - 1))?;
                game
            }
            None => convert::game_from_proto(Some(sent), max_plies)?,
        };
        let game = Arc::new(game);
        games.insert(name.into_boxed_slice(), Arc::clone(&game));
        Ok(game)
    }
}

/// Counts a call that found `what` of its game in the cache.
fn count_found(what: &'static str) {
    static FOUND: OnceLock<Counter<u64>> = OnceLock::new();
    FOUND
        .get_or_init(|| {
            opentelemetry::global::meter("tafl")
                .u64_counter("tafl.replay.found")
                .with_description(
                    "calls that found their game, or it but its last move, already replayed",
                )
                .build()
        })
        .add(1, &[KeyValue::new("found", what)]);
}

/// The bytes naming a game: its variant as protobuf, its start and each of
/// its moves, each text after its length; and where its last move begins
/// (none without a move).
fn name_of(sent: &impl GameSent) -> (Vec<u8>, Option<usize>) {
    let start = sent.start();
    let mut name = Vec::with_capacity(16 + start.len() + 8 * sent.move_count());
    if let Some(variant) = sent.variant() {
        variant
            .encode_length_delimited(&mut name)
            .expect("a Vec grows");
    } else {
        name.push(0xff);
    }
    push_text(&mut name, start);
    let mut before_last = None;
    for text in sent.move_texts() {
        before_last = Some(name.len());
        push_text(&mut name, text);
    }
    (name, before_last)
}

/// Appends `text` after its length, so that no two lists of texts give the same bytes.
fn push_text(name: &mut Vec<u8>, text: &str) {
    prost::encoding::encode_varint(text.len() as u64, name);
    name.extend_from_slice(text.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::real_games;
    use crate::service::api::convert::tests::game_of;
    use crate::service::api::with_legal_moves::LegalMovesReply;
    use crate::service::pb;

    #[test]
    fn a_game_sent_again_is_the_same_game() {
        let cache = ReplayCache::new(1);
        let sent = game_of(&["d1-d3", "f4-f3"]);
        let first = cache.game(Some(&sent), 100).unwrap();
        let again = cache.game(Some(&sent), 100).unwrap();
        assert!(Arc::ptr_eq(&first, &again));
    }

    #[test]
    fn one_move_more_is_played_on_a_copy() {
        let cache = ReplayCache::new(1);
        let before = cache.game(Some(&game_of(&["d1-d3"])), 100).unwrap();
        let after = cache
            .game(Some(&game_of(&["d1-d3", "f4-f3"])), 100)
            .unwrap();
        assert_eq!(before.ply(), 1);
        assert_eq!(after.ply(), 2);
        let replayed = convert::game_from_proto(Some(&game_of(&["d1-d3", "f4-f3"])), 100).unwrap();
        assert_eq!(after.position().hash(), replayed.position().hash());
    }

    /// Every ply of real games, each found in the cache but its last move,
    /// and the whole game found again: the same reply as a replay's,
    /// position, status, repetition and legal moves.
    #[test]
    fn real_games_read_as_a_replay_reads_them() {
        let cache = ReplayCache::new(1);
        let answer = |game: &Game| LegalMovesReply::legal_moves(game, None).encode_to_vec();
        // The same answer or the same error; whether the game was accepted.
        let same = |sent: &pb::Game| {
            let replayed = convert::game_from_proto(Some(sent), 4096);
            let cached = cache.game(Some(sent), 4096);
            match (&replayed, &cached) {
                (Ok(replayed), Ok(cached)) => assert_eq!(answer(cached), answer(replayed)),
                _ => assert_eq!(format!("{cached:?}"), format!("{replayed:?}")),
            }
            replayed.is_ok()
        };
        for record in real_games().iter().step_by(61) {
            let moves: Vec<&str> = record.moves.iter().map(String::as_str).collect();
            let accepted = (0..=moves.len()).take_while(|&ply| same(&game_of(&moves[..ply])));
            // Past the first move refused, one more: after an error nothing is kept.
            let refused_at = accepted.last().map_or(0, |ply| ply + 1);
            if refused_at < moves.len() {
                same(&game_of(&moves[..=refused_at]));
            }
            same(&game_of(&moves));
        }
    }

    #[test]
    fn errors_are_the_replays() {
        let cache = ReplayCache::new(1);
        cache.game(Some(&game_of(&["d1-d3"])), 100).unwrap();
        for moves in [
            &["d1-d3", "d3-d1"][..],
            &["d1-d3", "zz"],
            &["d1-d3", "f4-f3"],
        ] {
            let sent = game_of(moves);
            for max_plies in [1, 100] {
                let expected =
                    convert::game_from_proto(Some(&sent), max_plies).map(|game| game.ply());
                let cached = cache.game(Some(&sent), max_plies).map(|game| game.ply());
                assert_eq!(format!("{cached:?}"), format!("{expected:?}"), "{moves:?}");
            }
        }
    }

    #[test]
    fn names_tell_apart_what_a_replay_tells_apart() {
        let (split, _) = name_of(&game_of(&["d1-d3f4", "-f3"]));
        let (whole, before_last) = name_of(&game_of(&["d1-d3", "f4-f3"]));
        assert_ne!(split, whole);
        let (one, _) = name_of(&game_of(&["d1-d3"]));
        assert_eq!(before_last, Some(one.len()));
        let fetlar = pb::Game {
            variant: Some(pb::Variant {
                rules: pb::Rules::Fetlar as i32,
                board_size: 0,
            }),
            ..game_of(&["d1-d3"])
        };
        assert_ne!(name_of(&fetlar).0, one);
    }

    #[test]
    fn a_cache_of_nothing_replays_every_time() {
        let cache = ReplayCache::new(0);
        let sent = game_of(&["d1-d3"]);
        let first = cache.game(Some(&sent), 100).unwrap();
        assert!(!Arc::ptr_eq(&first, &cache.game(Some(&sent), 100).unwrap()));
    }
}
