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

    /// What playing `mv` now would do, without playing it: the captures, the
    /// status after it (repetition included) and the repetition count. A
    /// board UI previews each legal move with it.
    ///
    /// # Errors
    /// [`PlayError`] as [`Position::check`] gives it.
    pub fn preview(&self, mv: Move) -> Result<PlayedMove, PlayError> {
        self.look_ahead().preview(mv)
    }

    /// A look a few plies ahead from the current position, each move judged
    /// with the game's history and the line's own positions, without copying
    /// the game.
    #[must_use]
    pub fn look_ahead(&self) -> LookAhead<'_> {
        LookAhead::new(self, *self.position())
    }

    /// [`Game::look_ahead`] as if the other side were to move now on the
    /// same board: the threats the side to move must parry.
    #[must_use]
    pub fn look_ahead_for_opponent(&self) -> LookAhead<'_> {
        LookAhead::new(self, self.position().passed())
    }

    /// The status once a move has led to `next`, and how often `next` has
    /// then stood (rule 9): counted over the game's reversible history if it
    /// is still reachable, and over `earlier` positions of a line looked ahead.
    fn judge(
        &self,
        next: &Position,
        history_reachable: bool,
        earlier: &[Position],
    ) -> (Status, u32) {
        let history: &[Position] = if history_reachable {
            &self.history[self.since_capture..]
        } else {
            &[]
        };
        let repetitions = 1 + history
            .iter()
            .chain(earlier)
            .filter(|position| position.same_placement(next))
            .count() as u32;
        let status = next.status();
        let decided_before_repetition =
            matches!(status.reason(), Some(reason) if reason != EndReason::NoMoves);
        if repetitions < 3 || decided_before_repetition {
            return (status, repetitions);
        }
        let status = match next.variant().rules {
            Rules::Copenhagen => Status::Won {
                winner: Side::Attackers,
                reason: EndReason::Repetition,
            },
            Rules::Fetlar => Status::Drawn {
                reason: EndReason::Repetition,
            },
            Rules::Tablut => status,
        };
        (status, repetitions)
    }

    /// Records the position after an accepted move.
    fn push(&mut self, played: Move, next: Position, captures: Bitboard) -> PlayedMove {
        let irreversible = !captures.is_empty() || next.king().is_none();
        let (status, repetitions) = self.judge(&next, !irreversible, &[]);
        if irreversible {
            self.since_capture = self.history.len();
        }
        self.history.push(next);
        self.status = status;
        self.repetitions = repetitions;
        PlayedMove {
            played,
            captures,
            status,
            repetitions,
        }
    }
}

/// Moves played ahead of a game without changing it ([`Game::look_ahead`]):
/// each judged as [`Game::play`] would judge it, repetition included.
#[derive(Clone, Debug)]
pub struct LookAhead<'g> {
    game: &'g Game,
    position: Position,
    status: Status,
    /// The line's positions that can still repeat.
    reachable: Vec<Position>,
    /// Whether the game's own reversible history can still repeat (no
    /// capture on the line yet).
    history_reachable: bool,
}

impl<'g> LookAhead<'g> {
    fn new(game: &'g Game, position: Position) -> LookAhead<'g> {
        LookAhead {
            game,
            position,
            status: game.status,
            reachable: Vec::new(),
            history_reachable: true,
        }
    }

    /// The position the line has reached.
    #[must_use]
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// Plays `mv` on the line.
    ///
    /// # Errors
    /// [`PlayError`] as [`Position::check`] gives it (`GameOver` once the
    /// line has ended the game); the line is then unchanged.
    pub fn play(&mut self, mv: Move) -> Result<PlayedMove, PlayError> {
        let (next, played) = self.judge(mv)?;
        if !played.captures.is_empty() || next.king().is_none() {
            self.history_reachable = false;
            self.reachable.clear();
        }
        self.reachable.push(next);
        self.position = next;
        self.status = played.status;
        Ok(played)
    }

    /// What `mv` would do on the line, without playing it.
    ///
    /// # Errors
    /// As [`LookAhead::play`].
    pub fn preview(&self, mv: Move) -> Result<PlayedMove, PlayError> {
        self.judge(mv).map(|(_, played)| played)
    }

    fn judge(&self, mv: Move) -> Result<(Position, PlayedMove), PlayError> {
        if self.status.is_over() {
            return Err(PlayError::GameOver);
        }
        let mut next = self.position;
        let outcome = next.play(mv)?;
        let irreversible = !outcome.captures.is_empty() || next.king().is_none();
        let (status, repetitions) = if irreversible {
            self.game.judge(&next, false, &[])
        } else {
            self.game
                .judge(&next, self.history_reachable, &self.reachable)
        };
        let played = PlayedMove {
            played: mv,
            captures: outcome.captures,
            status,
            repetitions,
        };
        Ok((next, played))
    }
}
