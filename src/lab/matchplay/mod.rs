//! Matches between two players (`tafl match` sets them up and prints the
//! games as they end).
//!
//! Games come in pairs: each opening ([`Openings`]) is played twice, each
//! player taking each side once. Game `k` of a match depends only on `k`
//! (its opening, who attacks, every seed), so [`play_match`] plays any range
//! of a match's games, on as many threads as it is given pairs of players,
//! and a match stopped after game `k` goes on with the games from `k + 1`. A player is whatever chooses its moves
//! ([`Contestant`]): this build's engine with some settings
//! ([`EnginePlayer`]), or for `tafl match` another build behind a server. The
//! referee is always the rules here: a player that answers with no move or an
//! illegal one forfeits the game; one that gives no answer at all (a server
//! down or too slow) abandons it, and an abandoned game is not scored. On a
//! clock ([`TimeControl`]) each side's time is kept here: a move's time runs
//! from the request to the answer, and a side whose clock runs out loses the
//! game on time. The score is player A's points (win 1, draw ½) with a 95%
//! confidence interval from the games' spread, and the Elo difference those
//! points mean.

mod openings;
mod summary;
mod time_control;

use std::ops::Range;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

pub use openings::{Openings, OpeningsError};
pub use summary::{MatchSummary, elo};
pub use time_control::{ClockUse, Clocks, MoveTime, OutOfTime, TimeControl};

use crate::lab::{GameRecord, RecordedResult};
use crate::rules::{Game, Move, Side, Status, splitmix};
use crate::search::{Clock, DEFAULT_MOVE_OVERHEAD, Engine, Level, Limits};

/// How one side of a match searches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Player {
    pub level: Level,
    pub max_depth: Option<u32>,
    pub max_nodes: Option<u64>,
    /// Its time a move, off the clock.
    pub movetime: Option<Duration>,
    /// Every move with this seed instead of the game's own (`seed=N`): a player that varies
    /// nothing from game to game.
    pub seed: Option<u64>,
    /// How it is given its time on a clock.
    pub clock: ClockUse,
}

impl Player {
    /// The seed this player searches with where the game's is `game_seed`.
    pub fn seed(&self, game_seed: u64) -> u64 {
        self.seed.unwrap_or(game_seed)
    }

    /// What this player searches within: its own bounds, and on `clock` the time the clock
    /// gives it (the engine's allocation, or a fraction player's fixed time) instead of its move
    /// time.
    pub fn limits(&self, clock: Option<&Clock>) -> Limits {
        let own = Limits {
            max_depth: self.max_depth,
            max_nodes: self.max_nodes,
            max_time: self.movetime,
            ..Limits::default()
        };
        let Some(clock) = clock else {
            return own;
        };
        let on_clock = match self.clock.fixed_time(clock) {
            Some(time) => Limits {
                max_time: Some(time),
                ..Limits::default()
            },
            None => Limits::on_clock(clock.allocate(DEFAULT_MOVE_OVERHEAD)),
        };
        Limits {
            max_time: None,
            ..own
        }
        .tightest(&on_clock)
    }
}

/// Player A attacks in even games and defends in odd ones (each opening twice).
pub fn a_attacks(index: u32) -> bool {
    index.is_multiple_of(2)
}

/// The seed both players get at `ply` of game `index`: a game's seeds are its own.
pub fn seed(index: u32, ply: usize) -> u64 {
    splitmix(u64::from(index) << 32 | ply as u64)
}

/// What a player is asked: a move in `game`, which is not over.
#[derive(Clone, Copy, Debug)]
pub struct Turn<'a> {
    pub game: &'a Game,
    /// The game's moves as text from the standard start.
    pub moves: &'a [String],
    /// Varies the choice between games and plies (both players get the same one at the same ply
    /// of the same game).
    pub seed: u64,
    /// The side to move's clock, on a timed match.
    pub clock: Option<Clock>,
}

/// One side of a match: chooses the moves of the games it plays.
pub trait Contestant {
    /// The move to play.
    ///
    /// # Errors
    /// [`NoMove`], saying whether the player forfeits or the game is abandoned.
    fn choose(&mut self, turn: &Turn<'_>) -> Result<Move, NoMove>;
}

/// Why a player gave no move.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NoMove {
    /// It answered, but with nothing it could play (no move, an unreadable
    /// one): it loses the game.
    #[error("{0}")]
    Unplayable(String),
    /// It did not answer (unreachable, failed, too slow): the game is
    /// abandoned, its result unknown.
    #[error("{0}")]
    Unanswered(String),
}

/// This build's engine, searching as `player` says.
#[derive(Clone, Copy)]
pub struct EnginePlayer<'e> {
    pub player: &'e Player,
    pub engine: &'e Engine,
}

impl Contestant for EnginePlayer<'_> {
    fn choose(&mut self, turn: &Turn<'_>) -> Result<Move, NoMove> {
        let limits = self.player.limits(turn.clock.as_ref());
        self.engine
            .search(
                turn.game,
                &limits,
                self.player.level,
                self.player.seed(turn.seed),
            )
            .map(|report| report.best_move)
            .ok_or_else(|| NoMove::Unanswered("the search stopped without a move".to_string()))
    }
}

/// How a game of a match ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// On the board, or at the move limit (`Status::Ongoing`, a draw).
    Board(Status),
    /// `loser`'s player answered with no move or an illegal one.
    Forfeit { loser: Side, reason: String },
    /// `loser`'s clock ran out.
    OutOfTime { loser: Side, out: OutOfTime },
    /// `side`'s player did not answer; the game is not scored.
    Abandoned { side: Side, reason: String },
}

impl Ending {
    /// How the game ended, in words: `(KingEscaped)`, `(forfeit: ...)`;
    /// empty at the move limit.
    pub fn reason(&self) -> String {
        match self {
            Ending::Board(Status::Won { reason, .. } | Status::Drawn { reason }) => {
                format!("({reason:?})")
            }
            Ending::Board(Status::Ongoing) => String::new(),
            Ending::Forfeit { loser, reason } => format!("(the {loser} forfeit: {reason})"),
            Ending::OutOfTime { loser, out } => format!(
                "(the {loser} lost on time: {} ms used of {} ms)",
                out.used.as_millis(),
                out.had.as_millis()
            ),
            Ending::Abandoned { side, reason } => format!("(the {side} gave no move: {reason})"),
        }
    }

    /// What a game record says of it: a forfeit is the other side's win, an
    /// abandoned game is still going.
    pub fn recorded_result(&self) -> RecordedResult {
        match self {
            Ending::Board(status) => RecordedResult::of(*status),
            Ending::Forfeit { loser, .. } | Ending::OutOfTime { loser, .. } => {
                RecordedResult::Won(loser.opponent())
            }
            Ending::Abandoned { .. } => RecordedResult::Ongoing,
        }
    }
}

/// A game of a match as played.
#[derive(Clone, Debug)]
pub struct PlayedGame {
    /// Where it stopped: over, at the move limit, or where a player gave no
    /// (legal) move.
    pub game: Game,
    /// The ply its opening left it at.
    pub start_ply: usize,
    /// Every move from the standard start, as text.
    pub moves: Vec<String>,
    /// The time of each move the players chose (from `start_ply` on), and of the last asked for
    /// when a player gave none.
    pub move_times: Vec<MoveTime>,
    pub ending: Ending,
}

impl PlayedGame {
    /// The game as a line of a record file.
    #[must_use]
    pub fn record(&self) -> GameRecord {
        GameRecord {
            moves: self.moves.clone(),
            timed_out: matches!(self.ending, Ending::OutOfTime { .. }),
            result: self.ending.recorded_result(),
        }
    }
}

/// What a match plays.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    pub openings: Openings,
    /// The games to play, by index: `0..2n` is a whole match of `n` openings.
    pub games: Range<u32>,
    /// A game still going after this many plies is a draw.
    pub max_plies: usize,
    /// Both sides' clock; `None`: no clock (the players' own time a move).
    pub time_control: Option<TimeControl>,
}

/// A game of a match as it ended, with the match's score so far.
#[derive(Debug)]
pub struct FinishedGame<'m> {
    pub index: u32,
    pub played: PlayedGame,
    /// What the game means for player A, in words (`A wins`).
    pub result: &'static str,
    /// The score with this game counted.
    pub summary: &'m MatchSummary,
}

/// The players a thread of a match plays its games with: A, then B.
pub type PlayerPair<'p> = [Box<dyn Contestant + Send + 'p>; 2];

/// Plays the games of `config`, each pair of players on a thread of its own
/// taking the next game not yet begun, and hands each game to `finished` as
/// it ends (one at a time, so it may print or write); returns the score.
pub fn play_match(
    config: &MatchConfig,
    pairs: Vec<PlayerPair<'_>>,
    finished: impl FnMut(FinishedGame<'_>) + Send,
) -> MatchSummary {
    let next_game = AtomicU32::new(config.games.start);
    // The score and `finished` under one lock: each game is counted and handed on in turn.
    let scored = Mutex::new((MatchSummary::default(), finished));
    std::thread::scope(|scope| {
        for [mut a, mut b] in pairs {
            let (next_game, scored) = (&next_game, &scored);
            scope.spawn(move || {
                loop {
                    let index = next_game.fetch_add(1, Ordering::Relaxed);
                    if index >= config.games.end {
                        break;
                    }
                    let played = play_game(config, index, [&mut *a, &mut *b]);
                    let mut scored = scored.lock().unwrap_or_else(PoisonError::into_inner);
                    let (summary, finished) = &mut *scored;
                    let result = summary.record(index, &played.ending);
                    finished(FinishedGame {
                        index,
                        played,
                        result,
                        summary,
                    });
                }
            });
        }
    });
    scored
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner)
        .0
}

/// Game `index` of the match, from its opening to its end, the move limit,
/// a player's failure to give a legal move, or a clock that runs out.
pub fn play_game(config: &MatchConfig, index: u32, [a, b]: [&mut dyn Contestant; 2]) -> PlayedGame {
    let (mut game, mut moves) = config.openings.opening(index / 2);
    let start_ply = game.ply();
    let mut players = [a, b];
    let mut clocks = config.time_control.map(Clocks::new);
    let mut move_times = Vec::new();
    let ending = loop {
        if game.status().is_over() || game.ply() >= config.max_plies {
            break Ending::Board(game.status());
        }
        let to_move = game.position().side_to_move();
        let b_to_move = (to_move == Side::Attackers) != a_attacks(index);
        let player = &mut players[usize::from(b_to_move)];
        let turn = Turn {
            game: &game,
            moves: &moves,
            seed: seed(index, game.ply()),
            clock: clocks.as_ref().map(|clocks| clocks.of(to_move)),
        };
        let asked = Instant::now();
        let chosen = player.choose(&turn);
        let used = asked.elapsed();
        let left = match clocks.as_mut().map(|clocks| clocks.charge(to_move, used)) {
            Some(Err(out)) => {
                move_times.push(MoveTime {
                    used,
                    left: Some(Duration::ZERO),
                });
                break Ending::OutOfTime {
                    loser: to_move,
                    out,
                };
            }
            Some(Ok(left)) => Some(left),
            None => None,
        };
        move_times.push(MoveTime { used, left });
        let mv = match chosen {
            Ok(mv) => mv,
            Err(NoMove::Unplayable(reason)) => {
                break Ending::Forfeit {
                    loser: to_move,
                    reason,
                };
            }
            Err(NoMove::Unanswered(reason)) => {
                break Ending::Abandoned {
                    side: to_move,
                    reason,
                };
            }
        };
        if let Err(error) = game.play_move(mv) {
            let reason = format!("illegal move at {error}");
            break Ending::Forfeit {
                loser: to_move,
                reason,
            };
        }
        moves.push(mv.to_string());
    };
    PlayedGame {
        game,
        start_ply,
        moves,
        move_times,
        ending,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Rules, Variant};
    use crate::search::EngineConfig;

    /// Plays the first legal move after `delay`, until `answers` runs out; then gives `then`.
    /// Keeps the clocks it was told.
    struct Scripted {
        answers: usize,
        then: fn() -> Result<Move, NoMove>,
        delay: Duration,
        clocks: Vec<Clock>,
    }

    impl Scripted {
        fn new(answers: usize, then: fn() -> Result<Move, NoMove>) -> Scripted {
            Scripted {
                answers,
                then,
                delay: Duration::ZERO,
                clocks: Vec::new(),
            }
        }
    }

    impl Contestant for Scripted {
        fn choose(&mut self, turn: &Turn<'_>) -> Result<Move, NoMove> {
            self.clocks.extend(turn.clock);
            std::thread::sleep(self.delay);
            if self.answers == 0 {
                return (self.then)();
            }
            self.answers -= 1;
            let mut moves = turn.game.position().legal_moves();
            moves.sort();
            Ok(moves[0])
        }
    }

    /// A match of Copenhagen's random openings, `max_plies` long, perhaps on a clock.
    fn copenhagen(max_plies: usize, time_control: Option<TimeControl>) -> MatchConfig {
        MatchConfig {
            openings: Openings::random(Variant::standard(Rules::Copenhagen)),
            games: 0..2,
            max_plies,
            time_control,
        }
    }

    /// Game `index` between a player that always answers and one that stops after `answers`.
    fn against_scripted(
        index: u32,
        answers: usize,
        then: fn() -> Result<Move, NoMove>,
    ) -> PlayedGame {
        let mut steady = Scripted::new(usize::MAX, then);
        let mut failing = Scripted::new(answers, then);
        play_game(&copenhagen(100, None), index, [&mut steady, &mut failing])
    }

    #[test]
    fn a_player_that_overruns_its_clock_loses_on_time() {
        let never = || Err(NoMove::Unplayable("unreachable".to_string()));
        let mut quick = Scripted::new(usize::MAX, never);
        // A second on the clock, and 400 ms a move: the third runs it out.
        let mut slow = Scripted {
            delay: Duration::from_millis(400),
            ..Scripted::new(usize::MAX, never)
        };
        let control = TimeControl {
            main: Duration::from_secs(1),
            increment: Duration::ZERO,
        };
        // Game 0: A (quick) attacks and moves first; B (slow) defends.
        let played = play_game(&copenhagen(100, Some(control)), 0, [&mut quick, &mut slow]);
        let Ending::OutOfTime { loser, out } = played.ending else {
            panic!("{:?}", played.ending);
        };
        assert_eq!(loser, Side::Defenders);
        assert!(out.used > out.had, "{out:?}");
        assert_eq!(
            played.moves.len() - played.start_ply,
            5,
            "B's third move never came"
        );
        assert_eq!(played.move_times.len(), 6);
        assert_eq!(played.move_times[5].left, Some(Duration::ZERO));
        // Each was told its own clock and the other's, less what it used.
        assert_eq!(slow.clocks.len(), 3);
        assert_eq!(slow.clocks[0].remaining, control.main);
        assert!(slow.clocks[2].remaining <= Duration::from_millis(200));
        assert!(quick.clocks[2].opponent_remaining <= Duration::from_millis(600));
        let record = played.record();
        assert!(record.timed_out);
        assert_eq!(record.result, RecordedResult::Won(Side::Attackers));
        let mut summary = MatchSummary::default();
        assert_eq!(summary.record(0, &played.ending), "A wins");
        assert_eq!((summary.games, summary.time_losses_by_b), (1, 1));
    }

    #[test]
    fn an_illegal_move_forfeits_and_the_other_player_wins() {
        let illegal = || {
            let square = |text: &str| text.parse().expect("a square");
            Ok(Move {
                from: square("a1"),
                to: square("a2"),
            })
        };
        // Game 0: A attacks, so B (the failing player) defends.
        let played = against_scripted(0, 3, illegal);
        assert_eq!(played.moves.len(), 7, "B's fourth move is the one refused");
        assert_eq!(played.game.ply(), 7);
        let Ending::Forfeit { loser, reason } = &played.ending else {
            panic!("{:?}", played.ending);
        };
        assert_eq!(*loser, Side::Defenders);
        assert!(
            reason.starts_with("illegal move at ply 8: a1-a2"),
            "{reason}"
        );
        assert_eq!(
            played.ending.recorded_result(),
            RecordedResult::Won(Side::Attackers)
        );
        let mut summary = MatchSummary::default();
        assert_eq!(summary.record(0, &played.ending), "A wins");
        assert_eq!(
            (summary.games, summary.wins, summary.forfeits_by_b),
            (1, 1, 1)
        );
    }

    #[test]
    fn a_player_giving_no_answer_abandons_the_game_unscored() {
        let silent = || Err(NoMove::Unanswered("connection refused".to_string()));
        let played = against_scripted(1, 0, silent);
        // Game 1: B attacks and moves first.
        assert_eq!(
            played.ending,
            Ending::Abandoned {
                side: Side::Attackers,
                reason: "connection refused".to_string()
            }
        );
        assert_eq!(played.ending.recorded_result(), RecordedResult::Ongoing);
        let mut summary = MatchSummary::default();
        assert_eq!(summary.record(1, &played.ending), "abandoned");
        assert_eq!((summary.games, summary.abandoned), (0, 1));
    }

    /// A small engine, and a player that searches one ply with it.
    fn small_engine_at_depth_one() -> (Engine, Player) {
        let engine = Engine::new(EngineConfig {
            hash_mb: 1,
            ..EngineConfig::default()
        });
        let player = Player {
            level: Level::STRONGEST,
            max_depth: Some(1),
            max_nodes: None,
            movetime: None,
            seed: None,
            clock: ClockUse::Native,
        };
        (engine, player)
    }

    #[test]
    fn a_match_on_two_threads_plays_each_game_of_its_range_once() {
        let (engine, player) = small_engine_at_depth_one();
        let pair = || -> PlayerPair<'_> {
            let engine_player = EnginePlayer {
                player: &player,
                engine: &engine,
            };
            [Box::new(engine_player), Box::new(engine_player)]
        };
        let config = MatchConfig {
            openings: Openings::random(Variant::standard(Rules::Tablut)),
            games: 3..8,
            max_plies: 20,
            time_control: None,
        };
        let mut seen = Vec::new();
        let summary = play_match(&config, vec![pair(), pair()], |game| {
            seen.push(game.index);
            assert_eq!(game.summary.games, u32::try_from(seen.len()).unwrap());
            assert_eq!(game.played.record().moves, game.played.moves);
        });
        seen.sort_unstable();
        assert_eq!(seen, [3, 4, 5, 6, 7]);
        assert_eq!(summary.games, 5);
        assert_eq!(summary.wins + summary.draws + summary.losses, 5);
    }

    #[test]
    fn engine_players_play_a_game_to_its_end_or_the_limit() {
        let (engine, player) = small_engine_at_depth_one();
        let [mut a, mut b] = [EnginePlayer {
            player: &player,
            engine: &engine,
        }; 2];
        let played = play_game(&copenhagen(30, None), 2, [&mut a, &mut b]);
        assert!(matches!(played.ending, Ending::Board(_)));
        assert_eq!(played.moves.len(), played.game.ply());
        assert!(played.game.status().is_over() || played.game.ply() == 30);
    }
}
