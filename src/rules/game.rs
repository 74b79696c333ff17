//! A game: a start, the moves played since, and the repetition rule that
//! needs them.

use std::fmt;

use super::bitboard::Bitboard;
use super::movegen::Move;
use super::notation::{MoveText, ParseMoveError};
use super::outcome::{EndReason, Status};
use super::position::{PlayError, Position};
use super::side::Side;
use super::variant::{Rules, Variant};

/// A game from its start: judges each move, counts repetitions, and refuses
/// moves once it has ended.
///
/// ```
/// use tafl::rules::{Game, Rules, Status, Variant};
/// let mut game = Game::new(Variant::standard(Rules::Copenhagen));
/// let played = game.play("f2-f3")?;
/// assert_eq!(played.to_string(), "f2-f3");
/// assert_eq!(played.status, Status::Ongoing);
/// let error = game.play("f3-f5").unwrap_err();
/// assert_eq!(error.to_string(), "ply 2: f3-f5: the piece on f3 is not one of the defenders, who are to move");
/// # Ok::<(), tafl::rules::GameError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Game {
    /// Every position since the start, the current one last.
    history: Vec<Position>,
    /// Where the positions that can still repeat begin: a capture makes
    /// every earlier position unreachable.
    since_capture: usize,
    status: Status,
    repetitions: u32,
}

/// What one accepted move did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlayedMove {
    /// The move.
    pub played: Move,
    /// The pieces it took (never the king).
    pub captures: Bitboard,
    /// How the game stands after it, repetition included.
    pub status: Status,
    /// How often the position after it (board and side to move) has now
    /// stood in this game, counting the start once.
    pub repetitions: u32,
}

/// The move as canonical text with its captures: `e1-e4xe5/f5`.
impl fmt::Display for PlayedMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = MoveText {
            from: self.played.from,
            to: self.played.to,
            captures: Some(self.captures),
        };
        text.fmt(f)
    }
}

/// Why a move of a game was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameError {
    /// The move's index in the game, from 0 (its ply is `index + 1`).
    pub index: usize,
    /// What was wrong with it.
    pub kind: GameErrorKind,
}

/// What was wrong with a refused move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GameErrorKind {
    /// The text is not a move.
    Parse(ParseMoveError),
    /// The move cannot be played (or the game is over).
    Play(PlayError),
}

impl GameError {
    /// Whether the move came after the game had ended.
    #[must_use]
    pub fn is_game_over(&self) -> bool {
        self.kind == GameErrorKind::Play(PlayError::GameOver)
    }
}

impl fmt::Display for GameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ply {}: ", self.index + 1)?;
        match &self.kind {
            GameErrorKind::Parse(error) => error.fmt(f),
            GameErrorKind::Play(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for GameError {}

impl Game {
    /// A game from `variant`'s standard start.
    #[must_use]
    pub fn new(variant: Variant) -> Game {
        Game::from_position(Position::start(variant))
    }

    /// A game from a custom start: ply 0 and the first position counted for
    /// repetition.
    #[must_use]
    pub fn from_position(start: Position) -> Game {
        Game {
            history: vec![start],
            since_capture: 0,
            status: start.status(),
            repetitions: 1,
        }
    }

    /// The position now.
    #[must_use]
    pub fn position(&self) -> &Position {
        self.history.last().expect("a game always has its start")
    }

    /// The position the game started from.
    #[must_use]
    pub fn start(&self) -> &Position {
        &self.history[0]
    }

    /// How the game stands, repetition included.
    #[must_use]
    pub const fn status(&self) -> Status {
        self.status
    }

    /// Moves played since the start.
    #[must_use]
    pub fn ply(&self) -> usize {
        self.history.len() - 1
    }

    /// How often the current position has stood in this game, counting the start once.
    #[must_use]
    pub const fn repetitions(&self) -> u32 {
        self.repetitions
    }

    /// The positions since the last capture, oldest first, the current one
    /// last: the only ones that can still come back. A search uses them to
    /// see repetitions coming.
    #[must_use]
    pub fn reversible_history(&self) -> &[Position] {
        &self.history[self.since_capture..]
    }

    /// Plays a move given as text (docs/RULES.md, "Notation"), checking its
    /// capture list if it has one.
    ///
    /// # Errors
    /// [`GameError`] naming the ply and why: the game is over (checked
    /// first, before the text is read), the text is no move, the move is
    /// illegal, or its capture list is wrong. The game is then unchanged.
    pub fn play(&mut self, text: &str) -> Result<PlayedMove, GameError> {
        let index = self.ply();
        let error = |kind| GameError { index, kind };
        if self.status.is_over() {
            return Err(error(GameErrorKind::Play(PlayError::GameOver)));
        }
        let text: MoveText = text.parse().map_err(|e| error(GameErrorKind::Parse(e)))?;
        let mv = text
            .to_move(self.position())
            .map_err(|e| error(GameErrorKind::Play(e)))?;
        let mut next = *self.position();
        let captures = next.play_unchecked(mv);
        if let Some(given) = text.captures.filter(|&given| given != captures) {
            return Err(error(GameErrorKind::Play(PlayError::CaptureMismatch {
                mv,
                given,
                actual: captures,
            })));
        }
        Ok(self.push(mv, next, captures))
    }

    /// Plays a move.
    ///
    /// # Errors
    /// [`GameError`] naming the ply and why: the game is over or the move is illegal.
    pub fn play_move(&mut self, mv: Move) -> Result<PlayedMove, GameError> {
        let index = self.ply();
        let mut next = *self.position();
        let outcome = next.play(mv).map_err(|e| GameError {
            index,
            kind: GameErrorKind::Play(e),
        })?;
        Ok(self.push(mv, next, outcome.captures))
    }

    /// Records the position after an accepted move and judges repetition (rule 9).
    fn push(&mut self, played: Move, next: Position, captures: Bitboard) -> PlayedMove {
        if !captures.is_empty() || next.king().is_none() {
            self.since_capture = self.history.len();
        }
        self.history.push(next);
        let repeats = &self.history[self.since_capture..];
        self.repetitions = repeats
            .iter()
            .filter(|earlier| earlier.same_placement(&next))
            .count() as u32;
        self.status = next.status();
        let decided_before_repetition =
            matches!(self.status.reason(), Some(reason) if reason != EndReason::NoMoves);
        if self.repetitions >= 3 && !decided_before_repetition {
            match next.variant().rules {
                Rules::Copenhagen => {
                    self.status = Status::Won {
                        winner: Side::Attackers,
                        reason: EndReason::Repetition,
                    };
                }
                Rules::Fetlar => {
                    self.status = Status::Drawn {
                        reason: EndReason::Repetition,
                    }
                }
                Rules::Tablut => {}
            }
        }
        PlayedMove {
            played,
            captures,
            status: self.status,
            repetitions: self.repetitions,
        }
    }
}
