//! Proto messages <-> rules types.
//!
//! Every field a caller sends is parsed into a rules type here, and every
//! failure becomes an INVALID_ARGUMENT naming the field by its snake_case path
//! (`game.moves[17]`), or a FAILED_PRECONDITION for a move after the game
//! ended. No rule is decided here: the rules module judges, this file only
//! translates.

use crate::rules::{
    Bitboard, BoardSize, EndReason, Game, GameErrorKind, Move, MoveText, PlayError, PlayedMove,
    Position, PositionText, Rules, Side, Square, Status, Variant,
};

use super::caps::check_game_length;
use crate::service::error::{Reason, ServiceError, quote};
use crate::service::pb;

/// Longest move text read; real ones are at most a few dozen bytes
/// (`e10-e13xd13/e12/f13++`), so longer is refused without parsing.
pub const MAX_MOVE_TEXT_BYTES: usize = 64;
/// Longest position text read; a 13×13 position takes about 200 bytes.
pub const MAX_POSITION_TEXT_BYTES: usize = 512;
/// Longest square text read.
pub const MAX_SQUARE_TEXT_BYTES: usize = 8;

/// The ruleset a `Variant.rules` value names; UNSPECIFIED means Copenhagen.
///
/// # Errors
/// An enum value this server does not know.
pub fn rules_from_proto(value: i32) -> Result<Rules, ServiceError> {
    match pb::Rules::try_from(value) {
        Ok(pb::Rules::Unspecified | pb::Rules::Copenhagen) => Ok(Rules::Copenhagen),
        Ok(pb::Rules::Fetlar) => Ok(Rules::Fetlar),
        Ok(pb::Rules::Tablut) => Ok(Rules::Tablut),
        Err(_) => Err(ServiceError::invalid(
            "game.variant.rules",
            Reason::BadVariant,
            format!(
                "{value} is not a known ruleset: use RULES_COPENHAGEN (1), RULES_FETLAR (2) or RULES_TABLUT (3)"
            ),
        )),
    }
}

/// The board size `Variant.board_size` asks for; `None` for 0 (the default).
///
/// # Errors
/// A size other than 0, 9, 11 or 13.
pub fn board_size_from_proto(size: u32) -> Result<Option<BoardSize>, ServiceError> {
    if size == 0 {
        return Ok(None);
    }
    BoardSize::new(size).map(Some).ok_or_else(|| {
        ServiceError::invalid(
            "game.variant.board_size",
            Reason::BadVariant,
            format!("{size} is not a board size: use 9, 11 or 13, or 0 for the start's or the rules' own"),
        )
    })
}

/// A request's game as it came: `pb::Game`, or a game whose moves were
/// decoded into one buffer (`with_game`).
pub trait GameSent {
    fn variant(&self) -> Option<&pb::Variant>;
    /// The start's position text; empty for the variant's standard start.
    fn start(&self) -> &str;
    fn move_count(&self) -> usize;
    /// The moves' texts, in order.
    fn move_texts(&self) -> impl Iterator<Item = &str>;
}

impl GameSent for pb::Game {
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
        self.moves.iter().map(String::as_str)
    }
}

/// The game's start: the variant's standard start, or the caller's position.
///
/// # Errors
/// An unknown ruleset, a bad board size, an unreadable or impossible start,
/// or a start whose size differs from `variant.board_size`.
pub fn start_from_proto(game: &impl GameSent) -> Result<Game, ServiceError> {
    let default_variant = pb::Variant::default();
    let variant = game.variant().unwrap_or(&default_variant);
    let rules = rules_from_proto(variant.rules)?;
    let size = board_size_from_proto(variant.board_size)?;
    let start = game.start();
    if start.is_empty() {
        let size = size.unwrap_or(rules.default_size());
        return Ok(Game::new(Variant::new(rules, size)));
    }
    if start.len() > MAX_POSITION_TEXT_BYTES {
        return Err(ServiceError::invalid(
            "game.start",
            Reason::MalformedPosition,
            format!(
                "the start is {} bytes long; a position text is at most {MAX_POSITION_TEXT_BYTES}",
                start.len()
            ),
        ));
    }
    let text: PositionText = start.parse().map_err(|error| {
        ServiceError::invalid(
            "game.start",
            Reason::MalformedPosition,
            format!("{} is not a position: {error}", quote(start)),
        )
    })?;
    if let Some(size) = size
        && size != text.size()
    {
        return Err(ServiceError::invalid(
            "game.start",
            Reason::BadVariant,
            format!(
                "{} is a {n}×{n} position but game.variant.board_size is {m}",
                quote(start),
                n = text.size().get(),
                m = size.get()
            ),
        ));
    }
    let position =
        Position::from_setup(&text, Variant::new(rules, text.size())).map_err(|error| {
            ServiceError::invalid(
                "game.start",
                Reason::ImpossibleStart,
                format!("{} is not a possible start: {error}", quote(start)),
            )
        })?;
    Ok(Game::from_position(position))
}

/// A request's game, its start read but no move played yet.
///
/// # Errors
/// INVALID_ARGUMENT for a bad variant or start, or more moves than `max_plies`.
pub fn unplayed_game_from_proto(
    game: Option<&impl GameSent>,
    max_plies: usize,
) -> Result<Game, ServiceError> {
    let Some(game) = game else {
        return start_from_proto(&pb::Game::default());
    };
    check_game_length(game.move_count(), None, max_plies)?;
    start_from_proto(game)
}

/// Replays a request's game: its start, then every move, as the rules judge
/// them.
///
/// # Errors
/// INVALID_ARGUMENT for a bad variant or start, more moves than
/// `max_plies`, or an unreadable or illegal move (`game.moves[i]`);
/// FAILED_PRECONDITION for the first move after the game ended, readable or not.
pub fn game_from_proto(
    game: Option<&impl GameSent>,
    max_plies: usize,
) -> Result<Game, ServiceError> {
    let mut replay = unplayed_game_from_proto(game, max_plies)?;
    let Some(game) = game else {
        return Ok(replay);
    };
    let moves = game.move_count();
    // At full speed up to the first move the rules refuse or that is too
    // long to read; that one is played again by `play`, for the error a
    // caller reads. A replay starts at ply 0, so the ply is the index of the
    // next move.
    loop {
        let short = game
            .move_texts()
            .skip(replay.ply())
            .map_while(|text| (text.len() <= MAX_MOVE_TEXT_BYTES).then_some(text));
        if replay.play_all(short).is_ok() && replay.ply() == moves {
            return Ok(replay);
        }
        let index = replay.ply();
        let text = game
            .move_texts()
            .nth(index)
            .expect("a replay stops before the last move");
        play(&mut replay, text, MoveSource::GameMoves(index))?;
    }
}

/// Where a move text came from: the field an error about it names, and its
/// ply (its index into `game.moves`; for `next_move`, the game's length).
#[derive(Clone, Copy, Debug)]
pub enum MoveSource {
    /// `game.moves[index]`.
    GameMoves(usize),
    /// `next_move`, after so many moves.
    NextMove(usize),
}

impl MoveSource {
    /// The field path: `game.moves[3]`, `next_move`.
    pub fn field(self) -> String {
        match self {
            MoveSource::GameMoves(index) => format!("game.moves[{index}]"),
            MoveSource::NextMove(_) => "next_move".to_owned(),
        }
    }

    /// The index into `game.moves` the move would have.
    pub fn ply(self) -> usize {
        match self {
            MoveSource::GameMoves(ply) | MoveSource::NextMove(ply) => ply,
        }
    }
}

/// Plays one move given as text, reporting errors against its source (the
/// field's path is only written out for an error).
///
/// # Errors
/// FAILED_PRECONDITION if the game is already over (checked first, so the
/// text need not even be readable), else INVALID_ARGUMENT for a move that is
/// unreadable, illegal or whose capture list is wrong, with its [`Reason`].
pub fn play(game: &mut Game, text: &str, source: MoveSource) -> Result<PlayedMove, ServiceError> {
    let status = game.status();
    if status.is_over() {
        return Err(game_over(&source.field(), status).at_ply(source.ply()));
    }
    let malformed = |why: String| {
        ServiceError::invalid(
            source.field(),
            Reason::MalformedMove,
            format!("{} is not a move: {why}", quote(text)),
        )
        .at_ply(source.ply())
    };
    if text.len() > MAX_MOVE_TEXT_BYTES {
        return Err(malformed(format!(
            "{} bytes is too long for one",
            text.len()
        )));
    }
    game.play(text).map_err(|error| match error.kind {
        GameErrorKind::Parse(parse) => malformed(parse.to_string()),
        GameErrorKind::Play(PlayError::GameOver) => {
            game_over(&source.field(), game.status()).at_ply(source.ply())
        }
        GameErrorKind::Play(refused) => match text.parse::<MoveText>() {
            // The same square twice is unreadable as a move, whatever stands
            // there (the rules refuse it whatever stands there, so only a
            // refused move is read again to tell).
            Ok(parsed) if parsed.from == parsed.to => {
                malformed(format!("it names {} twice", parsed.from))
            }
            _ => {
                let reason = illegal_move_reason(&refused);
                let description = format!("{} is not legal here: {refused}", quote(text));
                ServiceError::invalid(source.field(), reason, description).at_ply(source.ply())
            }
        },
    })
}

/// The reason a move the rules refuse is reported with.
fn illegal_move_reason(error: &PlayError) -> Reason {
    match error {
        PlayError::GameOver => Reason::GameOver,
        PlayError::OffBoard { .. } => Reason::MalformedMove,
        PlayError::NoPiece(_) => Reason::NoPiece,
        PlayError::NotYourPiece { .. } => Reason::NotYourPiece,
        PlayError::NotStraight(_) => Reason::NotStraight,
        PlayError::Blocked { .. } => Reason::Blocked,
        PlayError::ThroneInTheWay(_) | PlayError::KingOnly { .. } => Reason::RestrictedSquare,
        PlayError::CaptureMismatch { .. } => Reason::CapturesMismatch,
    }
}

/// The FAILED_PRECONDITION for a move or search after the end.
pub fn game_over(subject: &str, status: Status) -> ServiceError {
    ServiceError::game_over(
        subject,
        format!(
            "the game is already over ({}); no move may follow",
            describe_status(status)
        ),
    )
}

/// A status in words: "attackers won: the king was captured".
pub fn describe_status(status: Status) -> String {
    match status {
        Status::Ongoing => "the game goes on".to_owned(),
        Status::Won { winner, reason } => format!("{winner} won: {reason}"),
        Status::Drawn { reason } => format!("drawn: {reason}"),
    }
}

/// The optional square of a LegalMoves request, checked against the board.
///
/// # Errors
/// Text that is not a square, or a square off this board.
pub fn square_from_proto(text: &str, size: BoardSize) -> Result<Option<Square>, ServiceError> {
    if text.is_empty() {
        return Ok(None);
    }
    if text.len() > MAX_SQUARE_TEXT_BYTES {
        return Err(ServiceError::invalid(
            "square",
            Reason::BadSquare,
            format!("{} is not a square: too long", quote(text)),
        ));
    }
    let square: Square = text.parse().map_err(|error| {
        ServiceError::invalid(
            "square",
            Reason::BadSquare,
            format!("{} is not a square: {error}", quote(text)),
        )
    })?;
    let n = size.get();
    if square.file() >= n || square.rank() >= n {
        return Err(ServiceError::invalid(
            "square",
            Reason::BadSquare,
            format!("{square} is off the {n}×{n} board"),
        ));
    }
    Ok(Some(square))
}

/// The variant as the proto names it.
impl From<Variant> for pb::Variant {
    fn from(variant: Variant) -> pb::Variant {
        let rules = match variant.rules {
            Rules::Copenhagen => pb::Rules::Copenhagen,
            Rules::Fetlar => pb::Rules::Fetlar,
            Rules::Tablut => pb::Rules::Tablut,
        };
        pb::Variant {
            rules: rules.into(),
            board_size: u32::from(variant.size.get()),
        }
    }
}

/// The proto side.
pub fn side_to_proto(side: Side) -> pb::Side {
    match side {
        Side::Attackers => pb::Side::Attackers,
        Side::Defenders => pb::Side::Defenders,
    }
}

/// The proto status: never UNSPECIFIED, except the reason while the game goes on.
pub fn status_to_proto(status: Status) -> pb::GameStatus {
    let result = match status {
        Status::Ongoing => pb::GameResult::Ongoing,
        Status::Won {
            winner: Side::Attackers,
            ..
        } => pb::GameResult::AttackersWin,
        Status::Won {
            winner: Side::Defenders,
            ..
        } => pb::GameResult::DefendersWin,
        Status::Drawn { .. } => pb::GameResult::Draw,
    };
    let reason = match status.reason() {
        None => pb::EndReason::Unspecified,
        Some(EndReason::KingEscaped) => pb::EndReason::KingEscaped,
        Some(EndReason::ExitFort) => pb::EndReason::ExitFort,
        Some(EndReason::KingCaptured) => pb::EndReason::KingCaptured,
        Some(EndReason::Encircled) => pb::EndReason::Encircled,
        Some(EndReason::NoMoves) => pb::EndReason::NoMoves,
        Some(EndReason::Repetition) => pb::EndReason::Repetition,
    };
    pb::GameStatus {
        result: result.into(),
        reason: reason.into(),
    }
}

/// Text written into a `String` made `capacity` long, without the
/// formatting machinery `to_string` goes through: a LegalMoves reply writes
/// hundreds of texts.
fn text_of(capacity: usize, write: impl FnOnce(&mut String) -> std::fmt::Result) -> String {
    let mut text = String::with_capacity(capacity);
    write(&mut text).expect("a String takes any text");
    text
}

/// A square's name: "e10".
fn square_name(square: Square) -> String {
    text_of(3, |text| square.write_name(text))
}

/// Squares as text, sorted by file, then rank.
pub fn squares_to_proto(squares: Bitboard) -> Vec<String> {
    squares.iter().map(square_name).collect()
}

/// The game's current position, spelled out.
pub fn position_to_proto(game: &Game) -> pb::Position {
    let position = game.position();
    pb::Position {
        text: position_text(position),
        board_size: u32::from(position.variant().size.get()),
        side_to_move: side_to_proto(position.side_to_move()).into(),
        attackers: squares_to_proto(position.attackers()),
        defenders: squares_to_proto(position.defenders()),
        king: position.king().map(square_name).unwrap_or_default(),
        ply: u32::try_from(game.ply()).unwrap_or(u32::MAX),
    }
}

/// A position's text, in a `String` as long as the longest text on its
/// board (a slash, each rank's squares and slash, a space and the side to
/// move).
pub fn position_text(position: &Position) -> String {
    let size = usize::from(position.variant().size.get());
    text_of(1 + size * (size + 1) + 2, |text| {
        PositionText::from(position).write_text(text)
    })
}

/// A move's text with its captures, "e1-e4xe5/f5" (just "e1-e4" without).
pub fn move_text(mv: Move, captures: Bitboard) -> String {
    let text = MoveText {
        from: mv.from,
        to: mv.to,
        captures: Some(captures),
    };
    // Room for two squares and a dash, and each capture with its mark.
    let capacity = 7 + 4 * captures.len() as usize;
    text_of(capacity, |out| text.write_text(out))
}

/// The proto move with its captures and the status it leads to.
pub fn move_to_proto(mv: Move, captures: Bitboard, status_after: Status) -> pb::Move {
    pb::Move {
        from_square: square_name(mv.from),
        to_square: square_name(mv.to),
        text: move_text(mv, captures),
        captures: squares_to_proto(captures),
        status_after: Some(status_to_proto(status_after)),
    }
}

/// The proto move of a move the game judged (played or previewed).
pub fn played_to_proto(played: &PlayedMove) -> pb::Move {
    move_to_proto(played.played, played.captures, played.status)
}

/// A principal variation as move texts with captures, played out from
/// `position`. Stops early at a move the rules refuse (a search bug: logged).
pub fn pv_to_proto(position: &Position, pv: &[Move]) -> Vec<String> {
    let mut position = *position;
    let mut texts = Vec::with_capacity(pv.len());
    for &mv in pv {
        match position.play(mv) {
            Ok(outcome) => texts.push(move_text(mv, outcome.captures)),
            Err(error) => {
                tracing::warn!(%mv, %error, "search returned an illegal principal variation");
                break;
            }
        }
    }
    texts
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A Copenhagen game of `moves` from the standard start.
    pub(in crate::service::api) fn game_of(moves: &[&str]) -> pb::Game {
        pb::Game {
            moves: moves.iter().map(|m| (*m).to_owned()).collect(),
            ..pb::Game::default()
        }
    }

    fn field_of(error: ServiceError) -> String {
        match error {
            ServiceError::InvalidArgument { field, .. } => field,
            ServiceError::GameOver { subject, .. } => format!("over:{subject}"),
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn unknown_rules_value_names_the_field() {
        assert_eq!(
            field_of(rules_from_proto(7).unwrap_err()),
            "game.variant.rules"
        );
        assert_eq!(rules_from_proto(0).unwrap(), Rules::Copenhagen);
    }

    #[test]
    fn board_size_ten_is_refused() {
        assert_eq!(
            field_of(board_size_from_proto(10).unwrap_err()),
            "game.variant.board_size"
        );
        assert_eq!(board_size_from_proto(0).unwrap(), None);
    }

    #[test]
    fn empty_game_is_the_copenhagen_start() {
        let game = game_from_proto(None::<&pb::Game>, 10).unwrap();
        assert_eq!(
            game.position().variant(),
            Variant::standard(Rules::Copenhagen)
        );
    }

    #[test]
    fn bad_move_is_named_by_index() {
        let error = game_from_proto(Some(&game_of(&["d1-d2", "zz"])), 10).unwrap_err();
        assert_eq!(field_of(error), "game.moves[1]");
    }

    #[test]
    fn too_many_moves_is_refused_before_replay() {
        let error = game_from_proto(Some(&game_of(&["nonsense"; 11])), 10).unwrap_err();
        assert_eq!(field_of(error), "game.moves");
    }

    #[test]
    fn squares_sort_by_file_then_rank() {
        let squares: Bitboard = ["e10", "e5", "a11"]
            .iter()
            .map(|s| s.parse::<Square>().unwrap())
            .collect();
        assert_eq!(squares_to_proto(squares), ["a11", "e5", "e10"]);
    }

    #[test]
    fn square_off_a_small_board_is_refused() {
        assert_eq!(
            field_of(square_from_proto("k1", BoardSize::Nine).unwrap_err()),
            "square"
        );
        assert!(square_from_proto("i9", BoardSize::Nine).unwrap().is_some());
        assert!(square_from_proto("", BoardSize::Nine).unwrap().is_none());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

        /// Whatever a caller sends, conversion answers with a game or an error naming a field.
        #[test]
        fn any_input_converts_or_names_a_field(
            rules in -2i32..6,
            size in proptest::prop_oneof![0u32..15, proptest::prelude::any::<u32>()],
            start in proptest::prop_oneof![
                proptest::prelude::Just(String::new()),
                "[tTK0-9/ ad]{0,60}",
                proptest::prelude::any::<String>(),
            ],
            moves in proptest::collection::vec(
                proptest::prop_oneof!["[a-m][0-9]{1,2}-?[a-m][0-9]{1,2}(x[a-m][0-9]{1,2})?", proptest::prelude::any::<String>()],
                0..8,
            ),
            square in proptest::prop_oneof!["[a-n][0-9]{1,2}", proptest::prelude::any::<String>()],
        ) {
            let game = pb::Game {
                variant: Some(pb::Variant { rules, board_size: size }),
                start,
                moves,
            };
            match game_from_proto(Some(&game), 100) {
                Ok(game) => {
                    let _ = square_from_proto(&square, game.position().variant().size);
                    let _ = position_to_proto(&game);
                }
                Err(ServiceError::InvalidArgument { field, .. }) => {
                    proptest::prop_assert!(field.starts_with("game."), "{}", field);
                }
                Err(ServiceError::GameOver { subject, .. }) => {
                    proptest::prop_assert!(subject.starts_with("game.moves["), "{}", subject);
                }
                Err(other) => proptest::prop_assert!(false, "unexpected {:?}", other),
            }
        }
    }
}
