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
//! down or too slow) abandons it, and an abandoned game is not scored. The
//! score is player A's points (win 1, draw ½) with a 95% confidence interval
//! from the games' spread, and the Elo difference those points mean.

mod openings;
mod summary;

use std::ops::Range;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

pub use openings::{Openings, OpeningsError};
pub use summary::{MatchSummary, elo};

use crate::lab::{GameRecord, RecordedResult};
use crate::rules::{Game, Move, Side, Status, splitmix};
use crate::search::{Engine, Level, Limits};

/// How one side of a match searches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Player {
    pub level: Level,
    pub max_depth: Option<u32>,
    pub max_nodes: Option<u64>,
    pub movetime: Option<Duration>,
}

/// Player A attacks in even games and defends in odd ones (each opening twice).
pub fn a_attacks(index: u32) -> bool {
    index.is_multiple_of(2)
}

/// One side of a match: chooses the moves of the games it plays.
pub trait Contestant {
    /// The move to play in `game`, which is not over. `moves` are the game's
    /// moves as text from the standard start; `seed` varies the choice
    /// between games and plies (both players get the same one at the same
    /// ply of the same game).
    ///
    /// # Errors
    /// [`NoMove`], saying whether the player forfeits or the game is abandoned.
    fn choose(&mut self, game: &Game, moves: &[String], seed: u64) -> Result<Move, NoMove>;
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
    fn choose(&mut self, game: &Game, _moves: &[String], seed: u64) -> Result<Move, NoMove> {
        let limits = Limits {
            max_depth: self.player.max_depth,
            max_nodes: self.player.max_nodes,
            max_time: self.player.movetime,
            ..Limits::default()
        };
        self.engine
            .search(game, &limits, self.player.level, seed)
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
            Ending::Abandoned { side, reason } => format!("(the {side} gave no move: {reason})"),
        }
    }

    /// What a game record says of it: a forfeit is the other side's win, an
    /// abandoned game is still going.
    pub fn recorded_result(&self) -> RecordedResult {
        match self {
            Ending::Board(status) => RecordedResult::of(*status),
            Ending::Forfeit { loser, .. } => RecordedResult::Won(loser.opponent()),
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
    pub ending: Ending,
}

impl PlayedGame {
    /// The game as a line of a record file.
    #[must_use]
    pub fn record(&self) -> GameRecord {
        GameRecord {
            moves: self.moves.clone(),
            timed_out: false,
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
                    let played = play_game(
                        &config.openings,
                        index,
                        [&mut *a, &mut *b],
                        config.max_plies,
                    );
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
/// or a player's failure to give a legal move.
pub fn play_game(
    openings: &Openings,
    index: u32,
    [a, b]: [&mut dyn Contestant; 2],
    max_plies: usize,
) -> PlayedGame {
    let (mut game, mut moves) = openings.opening(index / 2);
    let start_ply = game.ply();
    let mut players = [a, b];
    let ending = loop {
        if game.status().is_over() || game.ply() >= max_plies {
            break Ending::Board(game.status());
        }
        let to_move = game.position().side_to_move();
        let b_to_move = (to_move == Side::Attackers) != a_attacks(index);
        let player = &mut players[usize::from(b_to_move)];
        let seed = splitmix(u64::from(index) << 32 | game.ply() as u64);
        let mv = match player.choose(&game, &moves, seed) {
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
        ending,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Rules, Variant};
    use crate::search::EngineConfig;

    /// Plays the first legal move, until `answers` runs out; then gives `then`.
    struct Scripted {
        answers: usize,
        then: fn() -> Result<Move, NoMove>,
    }

    impl Contestant for Scripted {
        fn choose(&mut self, game: &Game, _: &[String], _: u64) -> Result<Move, NoMove> {
            if self.answers == 0 {
                return (self.then)();
            }
            self.answers -= 1;
            let mut moves = game.position().legal_moves();
            moves.sort();
            Ok(moves[0])
        }
    }

    fn copenhagen() -> Openings {
        Openings::random(Variant::standard(Rules::Copenhagen))
    }

    /// Game `index` between a player that always answers and one that stops after `answers`.
    fn against_scripted(
        index: u32,
        answers: usize,
        then: fn() -> Result<Move, NoMove>,
    ) -> PlayedGame {
        let mut steady = Scripted {
            answers: usize::MAX,
            then,
        };
        let mut failing = Scripted { answers, then };
        play_game(&copenhagen(), index, [&mut steady, &mut failing], 100)
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
        let played = play_game(&copenhagen(), 2, [&mut a, &mut b], 30);
        assert!(matches!(played.ending, Ending::Board(_)));
        assert_eq!(played.moves.len(), played.game.ply());
        assert!(played.game.status().is_over() || played.game.ply() == 30);
    }
}
