//! Self-play training data for the evaluation network (`tafl datagen`).
//!
//! Each game starts from a varied opening (a real game's first plies, or a few
//! random plies from the start), then the engine plays both sides at a fixed
//! node budget. Every position it searched is kept with the search's score,
//! unless it is noisy: a forced result in sight, a win on the board for the
//! side to move, an open corner line the attackers must block, or a best move
//! that captures (the static evaluation should not have to guess tactics the
//! search resolves). When the game ends its result is written into every
//! record it kept.
//!
//! Recorded games (the real games, say) can be the source instead: each
//! position of each decided record is searched the same way and kept with the
//! search's score and the recorded result, so the data also holds positions
//! of play unlike the engine's own.
//!
//! Game `k` depends only on the seed and `k` (its opening and every search
//! are node-bound), and games are written in order of `k` whatever the
//! threads, so a file is the same bytes for the same seed; and a file cut
//! short (a killed run) resumes at the first game it lacks.
//!
//! The file format is [`record`]'s.

pub mod record;

use std::collections::BTreeMap;
use std::ops::RangeInclusive;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, mpsc};

pub use record::{DataError, MAGIC, RECORD_BYTES, Record, read_records, whole_games};

use crate::lab::{GameRecord, RecordedResult};
use crate::rules::{Game, Move, Position, Side, Status, Variant, splitmix};
use crate::search::eval::classic::Mailbox;
use crate::search::params::WIN_BOUND;
use crate::search::{Engine, EngineConfig, Level, Limits, Network};

/// How to generate.
#[derive(Clone, Debug)]
pub struct DatagenConfig {
    pub variant: Variant,
    /// Node budget of each move's search.
    pub nodes: u64,
    /// Games `first_game .. first_game + games` are played.
    pub first_game: u32,
    pub games: u32,
    pub threads: usize,
    pub seed: u64,
    /// A game still going after this many plies counts as drawn.
    pub max_plies: usize,
    pub source: Source,
    /// Transposition table per search, MiB.
    pub hash_mb: usize,
    /// The evaluation network both sides play with (generation N + 1 learns
    /// from generation N's games); `None`: the classic evaluation, as for
    /// generation 0. A network of another variant is not used (`tafl datagen` refuses one).
    pub network: Option<Arc<Network>>,
}

/// Where the games come from.
#[derive(Clone, Debug)]
pub enum Source {
    /// The engine plays both sides. `openings`: move texts of real games, whose first plies
    /// (as many as `real_plies` draws, at least 2) start `real_percent` of the games (played as
    /// far as they stay legal and the game goes on); the others, and all when `openings` is
    /// empty, start from random plies.
    SelfPlay {
        openings: Vec<Vec<String>>,
        real_percent: u8,
        real_plies: RangeInclusive<usize>,
    },
    /// Recorded games, replayed: game `k` is the `k`-th record, and each of its positions is
    /// searched and kept (if quiet) with the search's score and the recorded result. Games the
    /// record leaves undecided are written with no records.
    Records(Vec<GameRecord>),
}

/// What one game gave.
#[derive(Clone, Debug)]
pub struct GameData {
    pub game: u32,
    /// Its records, encoded.
    pub bytes: Vec<u8>,
    pub positions: usize,
    pub plies: usize,
    pub status: Status,
}

/// Plays the configured games on `threads` threads and hands each one to `sink` in order of its
/// number (so the output is the same for any thread count). The sink writes; returning an error
/// stops the run after the games in flight.
///
/// # Errors
/// The first error `sink` returned.
pub fn generate<E>(
    config: &DatagenConfig,
    mut sink: impl FnMut(GameData) -> Result<(), E>,
) -> Result<(), E> {
    let engine = Engine::new(EngineConfig {
        hash_mb: config.hash_mb,
        networks: config.network.iter().cloned().collect(),
        ..EngineConfig::default()
    });
    let next = AtomicU32::new(config.first_game);
    let end = config.first_game.saturating_add(config.games);
    let stop = std::sync::atomic::AtomicBool::new(false);
    let (sender, receiver) = mpsc::channel::<GameData>();
    std::thread::scope(|scope| {
        for _ in 0..config.threads.max(1) {
            let sender = sender.clone();
            let (engine, next, stop) = (&engine, &next, &stop);
            scope.spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let game = next.fetch_add(1, Ordering::Relaxed);
                    if game >= end || sender.send(game_data(engine, config, game)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        let mut pending = BTreeMap::new();
        let mut expected = config.first_game;
        let mut outcome = Ok(());
        for data in receiver {
            pending.insert(data.game, data);
            while outcome.is_ok()
                && let Some(data) = pending.remove(&expected)
            {
                outcome = sink(data);
                expected += 1;
            }
            if outcome.is_err() {
                stop.store(true, Ordering::Relaxed);
            }
        }
        outcome
    })
}

/// The opening of game `game`: a real game's first plies, as many as drawn from `real_plies`
/// (`real_percent` of the time, when there are openings), or 2-8 random plies from the start;
/// never ending the game.
fn opening(config: &DatagenConfig, game: u32) -> Game {
    let mut state = splitmix(config.seed ^ splitmix(u64::from(game)));
    let mut random = |n: usize| {
        state = splitmix(state);
        (state % n.max(1) as u64) as usize
    };
    let mut current = Game::new(config.variant);
    let (openings, real_percent, real_plies) = match &config.source {
        Source::SelfPlay {
            openings,
            real_percent,
            real_plies,
        } => (
            openings.as_slice(),
            usize::from(*real_percent),
            real_plies.clone(),
        ),
        Source::Records(_) => (&[][..], 0, 0..=0),
    };
    if !openings.is_empty() && random(100) < real_percent {
        let moves = &openings[random(openings.len())];
        let fewest = (*real_plies.start()).max(2);
        let plies = fewest + random((real_plies.end() + 1).saturating_sub(fewest));
        for text in moves.iter().take(plies) {
            let mut trial = current.clone();
            if trial.play(text).is_err() || trial.status().is_over() {
                break;
            }
            current = trial;
        }
        return current;
    }
    for _ in 0..2 + random(7) {
        let mut moves = current.position().legal_moves();
        moves.sort();
        let mut trial = current.clone();
        let mv = moves[random(moves.len())];
        if trial.play_move(mv).is_ok() && !trial.status().is_over() {
            current = trial;
        }
    }
    current
}

/// Is this position one the evaluation should learn from?
fn quiet(position: &Position, score: i32, best: Move) -> bool {
    if score.abs() >= WIN_BOUND {
        return false;
    }
    let board = Mailbox::new(position);
    let king_line_open = board
        .king
        .is_some_and(|king| board.open_corner_lines(king) != 0);
    if king_line_open || board.side_to_move_wins_now() {
        return false;
    }
    let mut child = *position;
    child.play_unchecked(best).is_empty()
}

/// Game `game` of the run, played or replayed.
fn game_data(engine: &Engine, config: &DatagenConfig, game: u32) -> GameData {
    match &config.source {
        Source::SelfPlay { .. } => self_play(engine, config, game),
        Source::Records(records) => replay(engine, config, game, &records[game as usize]),
    }
}

/// The records kept while searching each position `positions` yields before its move (the search's
/// move for self-play); the game as it ended.
struct Searched {
    records: Vec<[u8; RECORD_BYTES]>,
    start_ply: usize,
    game: Game,
}

impl Searched {
    fn new(game: Game) -> Searched {
        Searched {
            records: Vec::new(),
            start_ply: game.ply(),
            game,
        }
    }

    /// Searches the current position, keeps it if quiet, and returns the search's move.
    fn search(&mut self, engine: &Engine, config: &DatagenConfig, number: u32) -> Option<Move> {
        let limits = Limits {
            max_nodes: Some(config.nodes),
            ..Limits::default()
        };
        let report = engine.search(&self.game, &limits, Level::STRONGEST, 0)?;
        let position = *self.game.position();
        let score = report.score.as_i32();
        if quiet(&position, score, report.best_move) {
            let ply = self.game.ply();
            self.records
                .push(Record::encode(number, &position, score, ply));
        }
        Some(report.best_move)
    }

    /// The records with `result` and the last-record flag filled in.
    fn finish(self, number: u32, result: i8) -> GameData {
        let count = self.records.len();
        let mut bytes = Vec::with_capacity(count * RECORD_BYTES);
        for (index, mut record) in self.records.into_iter().enumerate() {
            Record::seal(&mut record, result, index + 1 == count);
            bytes.extend_from_slice(&record);
        }
        GameData {
            game: number,
            bytes,
            positions: count,
            plies: self.game.ply() - self.start_ply,
            status: self.game.status(),
        }
    }
}

/// The result for the attackers: 1 won, 0 drawn or unfinished, -1 lost.
fn attackers_result(result: RecordedResult) -> i8 {
    match result {
        RecordedResult::Won(Side::Attackers) => 1,
        RecordedResult::Won(Side::Defenders) => -1,
        RecordedResult::Draw | RecordedResult::Ongoing => 0,
    }
}

/// Plays game `game` to its end or the ply cap.
fn self_play(engine: &Engine, config: &DatagenConfig, game: u32) -> GameData {
    let mut searched = Searched::new(opening(config, game));
    while !searched.game.status().is_over() && searched.game.ply() < config.max_plies {
        let Some(best) = searched.search(engine, config, game) else {
            break;
        };
        if searched.game.play_move(best).is_err() {
            break;
        }
    }
    let result = attackers_result(RecordedResult::of(searched.game.status()));
    searched.finish(game, result)
}

/// Replays `record` as far as the rules accept it, searching each position before its move. An
/// undecided record gives no records (its result would teach nothing).
fn replay(engine: &Engine, config: &DatagenConfig, game: u32, record: &GameRecord) -> GameData {
    let mut searched = Searched::new(Game::new(config.variant));
    if record.result.attackers_score().is_some() {
        for text in &record.moves {
            if searched.game.status().is_over() || searched.search(engine, config, game).is_none() {
                break;
            }
            if searched.game.play(text).is_err() {
                break;
            }
        }
    }
    searched.finish(game, attackers_result(record.result))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;

    fn config(threads: usize) -> DatagenConfig {
        DatagenConfig {
            variant: Variant::standard(Rules::Tablut),
            nodes: 300,
            first_game: 0,
            games: 4,
            threads,
            seed: 7,
            max_plies: 60,
            source: Source::SelfPlay {
                openings: vec![vec!["d1-d3".into(), "e4-h4".into()]],
                real_percent: 50,
                real_plies: 2..=12,
            },
            hash_mb: 1,
            network: None,
        }
    }

    fn run(config: &DatagenConfig) -> Vec<u8> {
        let mut bytes = MAGIC.to_vec();
        generate(config, |data| {
            bytes.extend_from_slice(&data.bytes);
            Ok::<(), ()>(())
        })
        .expect("no sink error");
        bytes
    }

    #[test]
    fn the_same_seed_gives_the_same_bytes_on_any_thread_count() {
        let one = run(&config(1));
        assert!(one.len() > MAGIC.len() + 10 * RECORD_BYTES);
        assert_eq!(one, run(&config(2)));
        let other = run(&DatagenConfig {
            seed: 8,
            ..config(1)
        });
        assert_ne!(one, other);
    }

    #[test]
    fn the_real_openings_share_picks_the_opening_kind() {
        let with_share = |real_percent| DatagenConfig {
            source: Source::SelfPlay {
                openings: vec![vec!["d1-d3".into(), "e4-h4".into()]],
                real_percent,
                real_plies: 2..=12,
            },
            ..config(1)
        };
        let mut real = Game::new(config(1).variant);
        real.play_all(["d1-d3", "e4-h4"]).expect("legal");
        let starts_real = |config: &DatagenConfig, game| {
            opening(config, game).position().hash() == real.position().hash()
        };
        assert!((0..40).all(|game| starts_real(&with_share(100), game)));
        assert!((0..40).all(|game| !starts_real(&with_share(0), game)));
        let half = (0..200)
            .filter(|&game| starts_real(&with_share(50), game))
            .count();
        assert!((70..=130).contains(&half), "{half} of 200 real at 50%");
    }

    #[test]
    fn real_openings_reach_as_deep_as_their_plies_allow() {
        let mut long = Game::new(config(1).variant);
        let mut texts = Vec::new();
        while texts.len() < 40 {
            let mut moves = long.position().legal_moves();
            moves.sort();
            let mv = moves
                .into_iter()
                .find(|&mv| {
                    let mut trial = long.clone();
                    trial.play_move(mv).is_ok() && !trial.status().is_over()
                })
                .expect("a move that goes on");
            long.play_move(mv).expect("legal");
            texts.push(mv.to_string());
        }
        let deepest = |real_plies| {
            let config = DatagenConfig {
                source: Source::SelfPlay {
                    openings: vec![texts.clone()],
                    real_percent: 100,
                    real_plies,
                },
                ..config(1)
            };
            (0..100)
                .map(|game| opening(&config, game).ply())
                .fold((usize::MAX, 0), |(low, high), ply| {
                    (low.min(ply), high.max(ply))
                })
        };
        assert_eq!(deepest(2..=12), (2, 12));
        let (low, high) = deepest(2..=40);
        assert_eq!(low, 2);
        assert!((30..=40).contains(&high), "deepest real opening {high}");
        // Started deeper, and no deeper than the game goes.
        assert_eq!(deepest(20..=30), (20, 30));
        assert_eq!(deepest(50..=60), (40, 40));
    }

    #[test]
    fn a_run_cut_short_resumes_where_it_stopped() {
        let whole = run(&config(1));
        let records = read_records(&whole).expect("our own data");
        let (end, next) = whole_games(&whole).expect("our own data");
        assert_eq!(end, whole.len());
        assert_eq!(next, records.last().expect("records").game + 1);
        // Cut inside the last game's records: resume from that game.
        let last_game = records.last().expect("records").game;
        let cut = whole.len() - RECORD_BYTES - 3;
        let (end, next) = whole_games(&whole[..cut]).expect("our own data");
        assert!(next <= last_game);
        let mut resumed = whole[..end].to_vec();
        resumed.extend_from_slice(
            &run(&DatagenConfig {
                first_game: next,
                games: 4 - next,
                ..config(1)
            })[MAGIC.len()..],
        );
        assert_eq!(resumed, whole);
    }

    /// `tafl datagen --shard K` plays games K × n .. (K + 1) × n: the shards' files, one after
    /// the other, are one run's file.
    #[test]
    fn the_shards_of_a_seed_together_are_one_run() {
        let shard = |first_game| {
            run(&DatagenConfig {
                first_game,
                games: 2,
                ..config(1)
            })
        };
        let mut joined = shard(0);
        joined.extend_from_slice(&shard(2)[MAGIC.len()..]);
        assert_eq!(joined, run(&config(1)));
    }

    #[test]
    fn recorded_games_give_their_positions_with_the_recorded_result() {
        let records = GameRecord::parse_all(
            "d1-d3 e5-e2 timeout,1,0,White\nd1-d3 e5-e2,0,0,Ongoing\nh1-h3 f8-i8 f10-i10,0,0,Black\n",
        )
        .expect("records");
        let bytes = run(&DatagenConfig {
            variant: Variant::standard(Rules::Copenhagen),
            games: 3,
            source: Source::Records(records),
            ..config(2)
        });
        let records = read_records(&bytes).expect("our own data");
        let games: Vec<(u32, i8, u16)> =
            records.iter().map(|r| (r.game, r.result, r.ply)).collect();
        assert_eq!(
            games,
            [(0, -1, 0), (0, -1, 1), (2, 1, 0), (2, 1, 1), (2, 1, 2)]
        );
    }
}
