//! A game: a start, the moves played since, and the repetition rule that
//! needs them.

use std::fmt;

use super::bitboard::Bitboard;
use super::cpu::{self, Routine};
use super::hash_index::HashIndex;
use super::moves::{Move, MoveList};
use super::notation::{MoveText, ParseMoveError};
use super::position::{PlayError, Position};
use super::quiet::QuietMoves;
use super::square::Square;
use super::status::{EndReason, Status};
use super::variant::Variant;

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
    /// What repetition knows of each position of `history`, index for index.
    seen: Vec<Seen>,
    /// Where the positions that can still repeat begin: a capture makes
    /// every earlier position unreachable.
    since_capture: usize,
    /// The latest position of each hash since `since_capture`, as an index
    /// into `history`: the head of that hash's chain in `seen`.
    latest_by_hash: HashIndex,
    status: Status,
}

/// Plies a game is made room for at its start (real games run 50 to 150).
const TYPICAL_PLIES: usize = 128;

/// Positions between two captures a game is made room for at its start
/// (the repetition map grows beyond, but it is cleared at every capture).
const TYPICAL_PLIES_BETWEEN_CAPTURES: usize = 32;

/// Repetition's record of one position of a game.
#[derive(Clone, Copy, Debug)]
struct Seen {
    /// How often this placement has stood since the last capture, this time included.
    count: u32,
    /// The latest earlier position since the last capture with the same
    /// hash but another placement: a hash collision, so almost always `None`.
    other_placement: Option<usize>,
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
        // Room for a typical game, so a replay seldom reallocates.
        let mut history = Vec::with_capacity(TYPICAL_PLIES);
        history.push(start);
        let mut seen = Vec::with_capacity(TYPICAL_PLIES);
        seen.push(Seen {
            count: 1,
            other_placement: None,
        });
        let mut latest_by_hash = HashIndex::with_capacity(TYPICAL_PLIES_BETWEEN_CAPTURES);
        latest_by_hash.insert(start.hash(), 0);
        Game {
            history,
            seen,
            since_capture: 0,
            latest_by_hash,
            status: start.status(),
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

    /// The bytes the game holds beyond its own size (its history and
    /// repetition's record): what a cache of games counts.
    #[must_use]
    pub fn heap_bytes(&self) -> usize {
        self.history.capacity() * size_of::<Position>()
            + self.seen.capacity() * size_of::<Seen>()
            + self.latest_by_hash.heap_bytes()
    }

    /// How often the current position has stood in this game, counting the start once.
    #[must_use]
    pub fn repetitions(&self) -> u32 {
        self.seen.last().expect("a game always has its start").count
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
        self.play_text(text)
    }

    /// Plays moves given as text one after another, each as [`Game::play`]
    /// would, in the fastest build this CPU runs: a game replayed from its
    /// record, as every service call does.
    ///
    /// ```
    /// use tafl::rules::{Game, Rules, Variant};
    /// let mut game = Game::new(Variant::standard(Rules::Copenhagen));
    /// let refused = game.play_all(["f2-f3", "f4-e4", "f3-f5"]).unwrap_err();
    /// assert_eq!(refused.index, 2);
    /// assert_eq!(game.ply(), 2);
    /// # Ok::<(), tafl::rules::GameError>(())
    /// ```
    ///
    /// # Errors
    /// The first refused move's [`GameError`], as [`Game::play`] gives it;
    /// the moves before it stay played.
    pub fn play_all<'t>(
        &mut self,
        texts: impl IntoIterator<Item = &'t str>,
    ) -> Result<(), GameError> {
        cpu::run(self.replay_routine(texts))
    }

    /// [`Game::play_all`]'s work, for a build to run.
    pub(crate) fn replay_routine<'t, T: IntoIterator<Item = &'t str>>(
        &mut self,
        texts: T,
    ) -> Replay<'_, T::IntoIter> {
        Replay {
            game: self,
            texts: texts.into_iter(),
        }
    }

    /// [`Game::play`], inlined into every build of [`Game::play_all`].
    #[inline(always)]
    fn play_text(&mut self, text: &str) -> Result<PlayedMove, GameError> {
        let index = self.ply();
        let error = |kind| GameError { index, kind };
        if self.status.is_over() {
            return Err(error(GameErrorKind::Play(PlayError::GameOver)));
        }
        let text: MoveText = text.parse().map_err(|e| error(GameErrorKind::Parse(e)))?;
        let mv = text
            .to_move(self.position())
            .map_err(|e| error(GameErrorKind::Play(e)))?;
        // The move is made on the history's own copy: one copy a ply.
        self.history.extend_from_within(self.history.len() - 1..);
        let next = self.history.last_mut().expect("just pushed");
        let captures = next.play_unchecked(mv);
        if let Some(given) = text.captures.filter(|&given| given != captures) {
            self.history.pop();
            return Err(error(GameErrorKind::Play(PlayError::CaptureMismatch {
                mv,
                given,
                actual: captures,
            })));
        }
        Ok(self.record(mv, captures))
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
        self.history.push(next);
        Ok(self.record(mv, outcome.captures))
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

    /// Every legal move now (of the piece on `from`, if given), each with
    /// what it would do as [`Game::preview`] tells, in the order the service
    /// lists them ([`Position::legal_moves_by_file`]); none once the game is
    /// over, repetition included. A board UI asks for them every turn, so
    /// the moves the generator made are not checked again, and those known
    /// to be quiet before they are played (no capture, the game goes on,
    /// the position new: nearly all) are not played out.
    pub fn previewed_moves(
        &self,
        from: Option<Square>,
    ) -> impl ExactSizeIterator<Item = PlayedMove> + '_ {
        let position = self.position();
        let moves = match from {
            _ if self.status.is_over() => MoveList::new(),
            Some(square) => position.legal_moves_from(square),
            None => position.legal_moves_by_file(),
        };
        let look_ahead = self.look_ahead();
        let quiet = position.quiet_moves();
        let mut next = *position;
        moves.into_iter().map(move |mv| {
            look_ahead
                .judge_quiet(&quiet, mv)
                .unwrap_or_else(|| look_ahead.judge_legal(mv, &mut next))
        })
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
    /// is still reachable (in constant time, through the hash map), and over
    /// `earlier` positions of a line looked ahead.
    fn judge(
        &self,
        next: &Position,
        history_reachable: bool,
        earlier: &[Position],
    ) -> (Status, u32) {
        let in_history = if history_reachable {
            self.standings(next)
        } else {
            0
        };
        let on_line = earlier
            .iter()
            .filter(|position| position.same_placement(next))
            .count() as u32;
        let repetitions = 1 + in_history + on_line;
        (verdict(next, repetitions), repetitions)
    }

    /// How often `next`'s placement has stood since the last capture: the
    /// count at its latest standing, found by hash and confirmed by board.
    fn standings(&self, next: &Position) -> u32 {
        let mut link = self.latest_by_hash.get(next.hash());
        while let Some(earlier) = link {
            if self.history[earlier].same_placement(next) {
                return self.seen[earlier].count;
            }
            link = self.seen[earlier].other_placement;
        }
        0
    }

    /// Records an accepted move whose position the history has just taken
    /// in, and judges repetition (rule 9) in constant time: the hash finds
    /// the earlier standings of the placement, and a board comparison
    /// confirms them, so a hash collision never changes a verdict.
    #[inline(always)]
    fn record(&mut self, played: Move, captures: Bitboard) -> PlayedMove {
        let index = self.history.len() - 1;
        let next = &self.history[index];
        if !captures.is_empty() || next.king.is_empty() {
            self.since_capture = index;
            self.latest_by_hash.clear();
        }
        let head = self.latest_by_hash.insert(next.hash(), index);
        // Walk the hash's chain (one link per distinct placement) to this
        // placement's latest standing, and take that standing out of the
        // chain: the new one replaces it.
        let (mut previous, mut link): (Option<usize>, _) = (None, head);
        let mut seen = Seen {
            count: 1,
            other_placement: head,
        };
        while let Some(earlier) = link {
            let earlier_seen = self.seen[earlier];
            if self.history[earlier].same_placement(next) {
                seen.count = earlier_seen.count + 1;
                match previous {
                    None => seen.other_placement = earlier_seen.other_placement,
                    Some(previous) => {
                        self.seen[previous].other_placement = earlier_seen.other_placement;
                    }
                }
                break;
            }
            (previous, link) = (Some(earlier), earlier_seen.other_placement);
        }
        self.seen.push(seen);
        self.status = verdict(next, seen.count);
        PlayedMove {
            played,
            captures,
            status: self.status,
            repetitions: seen.count,
        }
    }
}

/// A replay of moves given as text ([`Game::play_all`]), as a routine
/// that each CPU build compiles whole.
pub(crate) struct Replay<'g, T> {
    game: &'g mut Game,
    texts: T,
}

impl<'t, T: Iterator<Item = &'t str>> Routine for Replay<'_, T> {
    type Output = Result<(), GameError>;

    #[inline(always)]
    fn run(mut self) -> Result<(), GameError> {
        // Driven from inside the iterator (`try_for_each`, not a `for`
        // loop): a caller's chain of adapters then compiles into this
        // build's loop instead of being called once a move, provided its
        // innermost iterator's `try_fold` inlines (see the service's
        // `MoveTexts`).
        self.texts
            .try_for_each(|text| self.game.play_text(text).map(drop))
    }
}

/// The status after a move led to `next`, which has now stood
/// `repetitions` times: the rules' verdict, unless the ruleset ends the game
/// on a third standing and nothing but a lack of moves decided it first.
fn verdict(next: &Position, repetitions: u32) -> Status {
    let status = next.status();
    let decided_before_repetition =
        matches!(status.reason(), Some(reason) if reason != EndReason::NoMoves);
    if repetitions >= 3
        && !decided_before_repetition
        && let Some(outcome) = next.variant().rules.repetition_outcome()
    {
        return outcome;
    }
    status
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
        self.position.check(mv)?;
        let mut next = self.position;
        let played = self.judge_legal(mv, &mut next);
        Ok((next, played))
    }

    /// [`LookAhead::judge_legal`] of a legal move known to be quiet before
    /// it is played, when its position never stood before on the game or
    /// the line (nearly always): it captures nothing, the game goes on, and
    /// its position stands for the first time. `None` for any other move.
    #[inline(always)]
    fn judge_quiet(&self, quiet: &QuietMoves, mv: Move) -> Option<PlayedMove> {
        if !quiet.contains(mv) || !self.reachable.is_empty() {
            return None;
        }
        if self.history_reachable && self.game.latest_by_hash.get(quiet.hash_after(mv)).is_some() {
            return None;
        }
        Some(PlayedMove {
            played: mv,
            captures: Bitboard::EMPTY,
            status: Status::Ongoing,
            repetitions: 1,
        })
    }

    /// [`LookAhead::judge`] of a move known to be legal on the line, played
    /// on `next`, where the line's position is copied first: once a move,
    /// where a position returned would be copied again.
    #[inline]
    fn judge_legal(&self, mv: Move, next: &mut Position) -> PlayedMove {
        *next = self.position;
        let captures = next.play_unchecked(mv);
        let irreversible = !captures.is_empty() || next.king().is_none();
        let (status, repetitions) = if irreversible {
            self.game.judge(next, false, &[])
        } else {
            self.game
                .judge(next, self.history_reachable, &self.reachable)
        };
        PlayedMove {
            played: mv,
            captures,
            status,
            repetitions,
        }
    }
}
