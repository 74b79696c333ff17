//! A position: the board, the side to move, and what the rules say of it.

use std::fmt;
use std::sync::OnceLock;

use super::bitboard::Bitboard;
use super::board_size::BoardSize;
use super::moves::Move;
use super::notation::{MoveText, PositionText};
use super::piece::Piece;
use super::side::Side;
use super::square::Square;
use super::status::Status;
use super::variant::{Geometry, Rules, Variant};
use super::zobrist::{piece_key, side_key};

/// How a position's hash changes when only the side to move does.
pub(crate) const PASS_HASH: u64 = side_key(Side::Defenders);

/// A position of a game: the pieces, the side to move and whether the game
/// has ended here.
///
/// A position has no history, so it knows nothing of repetition: that is
/// [`Game`](super::Game)'s part. It is `Copy` and holds no heap memory, so a
/// search copies it to make a move.
///
/// ```
/// use tafl::rules::{Position, Rules, Variant};
/// let mut position = Position::start(Variant::standard(Rules::Copenhagen));
/// assert_eq!(position.legal_moves().len(), 116);
/// let mv = "f2-f3".parse::<tafl::rules::MoveText>()?.to_move(&position)?;
/// let outcome = position.play(mv)?;
/// assert!(outcome.captures.is_empty());
/// assert_eq!(position.to_string(),
///     "/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/5t5/11/3ttttt3/ d");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Position {
    pub(crate) attackers: Bitboard,
    /// The defenders, without the king.
    pub(crate) defenders: Bitboard,
    /// The king's square, or empty once he is captured.
    pub(crate) king: Bitboard,
    /// Every piece, by file then rank (transposed), to read a file as one lane.
    pub(crate) occupied_by_file: Bitboard,
    /// The attackers and the defenders (without the king) transposed, to
    /// count moves along files as moves along ranks.
    pub(crate) attackers_by_file: Bitboard,
    pub(crate) defenders_by_file: Bitboard,
    pub(crate) side_to_move: Side,
    pub(crate) status: Status,
    pub(crate) variant: Variant,
    /// Whether the defenders may be encircled without the rules having
    /// judged it: true from a setup until the first attacker move is
    /// judged in full, false once they were seen to reach the edge (which
    /// only an attacker move can undo).
    pub(crate) escape_unproven: bool,
    pub(crate) hash: u64,
}

/// Why a setup is not a position the rules can start from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionError {
    /// The text's board is not the variant's.
    Size { text: BoardSize, variant: BoardSize },
    /// No king, or more than one.
    KingCount(u32),
    /// The king stands on a corner: the game would be over before it began.
    KingOnCorner(Square),
    /// A soldier stands on the throne, where only the king may.
    SoldierOnThrone(Square),
    /// A soldier stands on a corner, where only the king may.
    SoldierOnCorner(Square),
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionError::Size { text, variant } => {
                write!(
                    f,
                    "the position is {text} but the game is played on {variant}"
                )
            }
            PositionError::KingCount(0) => {
                f.write_str("there is no king: there must be exactly one")
            }
            PositionError::KingCount(n) => {
                write!(f, "there are {n} kings: there must be exactly one")
            }
            PositionError::KingOnCorner(square) => {
                write!(
                    f,
                    "the king stands on the corner {square}: the game would already be over"
                )
            }
            PositionError::SoldierOnThrone(square) => {
                write!(
                    f,
                    "a soldier stands on the throne {square}, where only the king may stand"
                )
            }
            PositionError::SoldierOnCorner(square) => {
                write!(
                    f,
                    "a soldier stands on the corner {square}, where only the king may stand"
                )
            }
        }
    }
}

impl std::error::Error for PositionError {}

/// Why a move cannot be played in a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlayError {
    /// The game has already ended.
    GameOver,
    /// A square is not on this board.
    OffBoard {
        mv: Move,
        square: Square,
        size: BoardSize,
    },
    /// No piece stands on the move's first square.
    NoPiece(Move),
    /// The piece there belongs to the side not to move.
    NotYourPiece { mv: Move, side_to_move: Side },
    /// The squares share neither rank nor file, or are the same square.
    NotStraight(Move),
    /// A piece stands in the way.
    Blocked { mv: Move, at: Square },
    /// A soldier would cross the throne where the rules forbid it (Tablut).
    ThroneInTheWay(Move),
    /// A soldier would stop on the throne or a corner.
    KingOnly { mv: Move, square: Square },
    /// The capture list given does not name exactly what the move captures.
    CaptureMismatch {
        mv: Move,
        given: Bitboard,
        actual: Bitboard,
    },
}

impl fmt::Display for PlayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayError::GameOver => f.write_str("the game is over: no move may follow"),
            PlayError::OffBoard { mv, square, size } => {
                write!(f, "{mv}: {square} is not on the {size} board")
            }
            PlayError::NoPiece(mv) => write!(f, "{mv}: there is no piece on {}", mv.from),
            PlayError::NotYourPiece { mv, side_to_move } => {
                write!(
                    f,
                    "{mv}: the piece on {} is not one of the {side_to_move}, who are to move",
                    mv.from
                )
            }
            PlayError::NotStraight(mv) if mv.from == mv.to => write!(f, "{mv} does not move"),
            PlayError::NotStraight(mv) => write!(f, "{mv} is not along a rank or a file"),
            PlayError::Blocked { mv, at } => write!(f, "{mv} is blocked at {at}"),
            PlayError::ThroneInTheWay(mv) => {
                write!(
                    f,
                    "{mv} crosses the throne: only the king may pass through it"
                )
            }
            PlayError::KingOnly { mv, square } => {
                write!(
                    f,
                    "{mv} ends on {square}: only the king may stop on the throne or a corner"
                )
            }
            PlayError::CaptureMismatch { mv, given, actual } => {
                let given = if given.is_empty() {
                    "nothing".to_owned()
                } else {
                    given.to_string()
                };
                if actual.is_empty() {
                    write!(
                        f,
                        "{mv} captures nothing, but the move says it captures {given}"
                    )
                } else {
                    write!(
                        f,
                        "{mv} captures {actual}, but the move says it captures {given}"
                    )
                }
            }
        }
    }
}

impl std::error::Error for PlayError {}

/// What one move did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveOutcome {
    /// The pieces the move took (never the king).
    pub captures: Bitboard,
    /// How the game stands after the move (without repetition, which only a
    /// [`Game`](super::Game) sees).
    pub status: Status,
}

impl Position {
    /// The standard start of `variant`: its board's layout, attackers to move.
    #[must_use]
    pub fn start(variant: Variant) -> Position {
        // Set up once per variant: every replay of a game begins here.
        static STARTS: OnceLock<[[Position; 3]; 3]> = OnceLock::new();
        let starts = STARTS.get_or_init(|| {
            Rules::ALL.map(|rules| {
                BoardSize::ALL.map(|size| {
                    let variant = Variant::new(rules, size);
                    Position::from_setup(size.geometry().start_layout(), variant)
                        .expect("the standard layouts are valid")
                })
            })
        });
        starts[usize::from(variant.rules.code())][variant.size as usize]
    }

    /// The position `setup` describes, to be played by `variant`'s rules.
    ///
    /// The setup is taken as it stands, with one exception: if the side to
    /// move has no legal move, the game ends at once (docs/RULES.md, "Boards").
    ///
    /// # Errors
    /// [`PositionError`] when the board is not the variant's size, there is
    /// not exactly one king, the king stands on a corner, or a soldier on the
    /// throne or a corner.
    pub fn from_setup(setup: &PositionText, variant: Variant) -> Result<Position, PositionError> {
        if setup.size != variant.size {
            return Err(PositionError::Size {
                text: setup.size,
                variant: variant.size,
            });
        }
        let geometry = variant.size.geometry();
        if setup.kings.len() != 1 {
            return Err(PositionError::KingCount(setup.kings.len()));
        }
        if let Some(square) = (setup.kings & geometry.corners).first() {
            return Err(PositionError::KingOnCorner(square));
        }
        let soldiers = setup.attackers | setup.defenders;
        if soldiers.contains(geometry.throne) {
            return Err(PositionError::SoldierOnThrone(geometry.throne));
        }
        if let Some(square) = (soldiers & geometry.corners).first() {
            return Err(PositionError::SoldierOnCorner(square));
        }
        let mut position = Position {
            attackers: Bitboard::EMPTY,
            defenders: Bitboard::EMPTY,
            king: Bitboard::EMPTY,
            occupied_by_file: Bitboard::EMPTY,
            attackers_by_file: Bitboard::EMPTY,
            defenders_by_file: Bitboard::EMPTY,
            side_to_move: setup.side_to_move,
            status: Status::Ongoing,
            variant,
            escape_unproven: true,
            hash: side_key(setup.side_to_move),
        };
        for (set, piece) in [
            (setup.attackers, Piece::Attacker),
            (setup.defenders, Piece::Defender),
            (setup.kings, Piece::King),
        ] {
            for square in set.squares() {
                position.toggle_piece(piece, square);
            }
        }
        position.status = position.no_move_status();
        Ok(position)
    }

    /// The ruleset and board.
    #[must_use]
    pub const fn variant(&self) -> Variant {
        self.variant
    }

    /// The side whose turn it is (after a game-ending move: the side that
    /// would have moved next).
    #[must_use]
    pub const fn side_to_move(&self) -> Side {
        self.side_to_move
    }

    /// Whether the rules ended the game here (repetition aside).
    #[must_use]
    pub const fn status(&self) -> Status {
        self.status
    }

    /// The attackers' squares.
    #[must_use]
    pub const fn attackers(&self) -> Bitboard {
        self.attackers
    }

    /// The defenders' squares, not counting the king.
    #[must_use]
    pub const fn defenders(&self) -> Bitboard {
        self.defenders
    }

    /// The king's square; `None` once he has been captured.
    #[must_use]
    pub fn king(&self) -> Option<Square> {
        self.king.first()
    }

    /// Every piece with its square: the attackers, the defenders, then the king, each side's by
    /// file, then rank.
    pub fn piece_squares(&self) -> impl Iterator<Item = (Piece, Square)> + use<> {
        let attackers = self
            .attackers
            .iter()
            .map(|square| (Piece::Attacker, square));
        let defenders = self
            .defenders
            .iter()
            .map(|square| (Piece::Defender, square));
        let king = self.king().map(|square| (Piece::King, square));
        attackers.chain(defenders).chain(king)
    }

    /// The Zobrist hash of the board and the side to move.
    #[must_use]
    pub const fn hash(&self) -> u64 {
        self.hash
    }

    /// The same board with the other side to move: the "null move" of a
    /// search, which no game ever plays. The status is not judged again.
    #[must_use]
    pub(crate) fn passed(&self) -> Position {
        let mut passed = *self;
        passed.side_to_move = self.side_to_move.opponent();
        passed.hash ^= PASS_HASH;
        passed
    }

    /// Whether the two positions have the same pieces on the same squares
    /// and the same side to move: the sameness that repetition counts.
    #[must_use]
    pub fn same_placement(&self, other: &Position) -> bool {
        self.hash == other.hash
            && self.side_to_move == other.side_to_move
            && self.attackers == other.attackers
            && self.defenders == other.defenders
            && self.king == other.king
    }

    #[inline(always)]
    pub(crate) fn geometry(&self) -> &'static Geometry {
        self.variant.size.geometry()
    }

    /// Every piece on the board.
    #[inline(always)]
    pub(crate) fn occupied(&self) -> Bitboard {
        self.attackers | self.defenders | self.king
    }

    /// The pieces of `side`, the king among the defenders.
    #[inline(always)]
    pub(crate) fn pieces(&self, side: Side) -> Bitboard {
        match side {
            Side::Attackers => self.attackers,
            Side::Defenders => self.defenders | self.king,
        }
    }

    /// Adds or removes one piece, keeping the hash and the transposed board.
    #[inline(always)]
    pub(crate) fn toggle_piece(&mut self, piece: Piece, square: Square) {
        self.toggle_pieces(
            piece,
            Bitboard::from_square(square),
            Bitboard::from_square(square.transposed()),
            piece_key(piece, square),
        );
    }

    /// Moves a piece from `from` to the empty square `to`: both squares
    /// toggled at once.
    #[inline(always)]
    fn move_piece(&mut self, piece: Piece, from: Square, to: Square) {
        self.toggle_pieces(
            piece,
            Bitboard::from_square(from) | Bitboard::from_square(to),
            Bitboard::from_square(from.transposed()) | Bitboard::from_square(to.transposed()),
            piece_key(piece, from) ^ piece_key(piece, to),
        );
    }

    /// Flips `squares` for `piece`, given the same squares transposed and
    /// the XOR of their keys.
    #[inline(always)]
    fn toggle_pieces(&mut self, piece: Piece, squares: Bitboard, transposed: Bitboard, keys: u64) {
        match piece {
            Piece::Attacker => {
                self.attackers ^= squares;
                self.attackers_by_file ^= transposed;
            }
            Piece::Defender => {
                self.defenders ^= squares;
                self.defenders_by_file ^= transposed;
            }
            Piece::King => self.king ^= squares,
        }
        self.occupied_by_file ^= transposed;
        self.hash ^= keys;
    }

    /// The kind of piece on `square`, if any.
    #[inline(always)]
    pub(crate) fn piece_at(&self, square: Square) -> Option<Piece> {
        if self.attackers.contains(square) {
            Some(Piece::Attacker)
        } else if self.defenders.contains(square) {
            Some(Piece::Defender)
        } else if self.king.contains(square) {
            Some(Piece::King)
        } else {
            None
        }
    }

    /// Checks that `mv` is legal here.
    ///
    /// # Errors
    /// [`PlayError`] saying why not, in the order of docs/RULES.md rule 11: the
    /// game is over, a square is off the board, no piece of the side to move
    /// stands on the first square, the move is not along a line, the path is
    /// blocked, or a soldier would stop on (or, in Tablut, cross) the
    /// throne or stop on a corner.
    #[inline(always)]
    pub fn check(&self, mv: Move) -> Result<(), PlayError> {
        if self.reaches(mv) {
            return Ok(());
        }
        self.why_illegal(mv)
    }

    /// Whether `mv` is legal here, by the move generator's masks: the fast
    /// path of [`Position::check`].
    #[inline(always)]
    fn reaches(&self, mv: Move) -> bool {
        if self.status.is_over() {
            return false;
        }
        // Each set is read where it stands, none built whole.
        let is_king = self.king.contains(mv.from);
        let is_mover = match self.side_to_move {
            Side::Attackers => self.attackers.contains(mv.from),
            Side::Defenders => is_king || self.defenders.contains(mv.from),
        };
        if !is_mover {
            return false;
        }
        let (file, rank) = (mv.from.file(), mv.from.rank());
        // Only the line the move runs along is looked at.
        if rank == mv.to.rank() {
            let pieces = self.attackers.rank_bits(rank)
                | self.defenders.rank_bits(rank)
                | self.king.rank_bits(rank);
            self.reach_in_line(pieces, file, rank, is_king) >> mv.to.file() & 1 != 0
        } else if file == mv.to.file() {
            let pieces = self.occupied_by_file.rank_bits(file);
            self.reach_in_line(pieces, rank, file, is_king) >> mv.to.rank() & 1 != 0
        } else {
            false
        }
    }

    /// Why `mv`, which [`Position::reaches`] refused, is illegal: the slow
    /// path of [`Position::check`], square by square.
    fn why_illegal(&self, mv: Move) -> Result<(), PlayError> {
        if self.status.is_over() {
            return Err(PlayError::GameOver);
        }
        let size = self.variant.size;
        for square in [mv.from, mv.to] {
            if !size.contains(square) {
                return Err(PlayError::OffBoard { mv, square, size });
            }
        }
        let piece = self.piece_at(mv.from).ok_or(PlayError::NoPiece(mv))?;
        if !self.pieces(self.side_to_move).contains(mv.from) {
            return Err(PlayError::NotYourPiece {
                mv,
                side_to_move: self.side_to_move,
            });
        }
        if mv.from == mv.to || (mv.from.file() != mv.to.file() && mv.from.rank() != mv.to.rank()) {
            return Err(PlayError::NotStraight(mv));
        }
        let occupied = self.occupied();
        let geometry = self.geometry();
        for square in mv.path() {
            if occupied.contains(square) {
                return Err(PlayError::Blocked { mv, at: square });
            }
            if piece != Piece::King
                && square == geometry.throne
                && square != mv.to
                && self.variant.rules.throne_bars_soldiers()
            {
                return Err(PlayError::ThroneInTheWay(mv));
            }
        }
        if piece != Piece::King && (geometry.corners.contains(mv.to) || mv.to == geometry.throne) {
            return Err(PlayError::KingOnly { mv, square: mv.to });
        }
        Ok(())
    }

    /// Plays `mv` after checking it: moves the piece, removes the captures,
    /// judges the game and passes the turn.
    ///
    /// # Errors
    /// [`PlayError`] as [`Position::check`] gives it; the position is then unchanged.
    pub fn play(&mut self, mv: Move) -> Result<MoveOutcome, PlayError> {
        self.check(mv)?;
        let captures = self.play_unchecked(mv);
        Ok(MoveOutcome {
            captures,
            status: self.status,
        })
    }

    /// Plays `mv` without checking it, returning the captures. For search
    /// and perft, whose moves come from [`Position::legal_moves`].
    ///
    /// # Panics
    /// May panic, or leave a position no game can reach, when `mv` is not
    /// legal here.
    #[inline(always)]
    pub fn play_unchecked(&mut self, mv: Move) -> Bitboard {
        self.play_judged::<true>(mv)
    }

    /// [`Position::play_unchecked`] for a position whose moves will only be
    /// counted: a side left without a move stays "ongoing", as its zero
    /// moves count the same, which spares perft's last ply that question.
    #[inline(always)]
    pub(crate) fn play_to_count(&mut self, mv: Move) {
        self.play_judged::<false>(mv);
    }

    #[inline(always)]
    fn play_judged<const JUDGE_NO_MOVES: bool>(&mut self, mv: Move) -> Bitboard {
        let mover = self.side_to_move;
        // A legal move's piece is the mover's: only the defenders need a look.
        let piece = match mover {
            Side::Attackers => Piece::Attacker,
            Side::Defenders if self.king.contains(mv.from) => Piece::King,
            Side::Defenders => Piece::Defender,
        };
        self.move_piece(piece, mv.from, mv.to);
        let captures = self.captures_after(mv.to);
        let victim = match mover {
            Side::Attackers => Piece::Defender,
            Side::Defenders => Piece::Attacker,
        };
        if !captures.is_empty() {
            for square in captures.squares() {
                self.toggle_piece(victim, square);
            }
        }
        self.side_to_move = mover.opponent();
        self.hash ^= side_key(Side::Defenders);
        self.status =
            self.status_after::<JUDGE_NO_MOVES>(mover, piece, mv.to, !captures.is_empty());
        captures
    }
}

impl From<&Position> for PositionText {
    fn from(position: &Position) -> PositionText {
        PositionText {
            size: position.variant.size,
            attackers: position.attackers,
            defenders: position.defenders,
            kings: position.king,
            side_to_move: position.side_to_move,
        }
    }
}

/// The position text (docs/RULES.md, "Notation").
impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        PositionText::from(self).fmt(f)
    }
}

impl MoveText {
    /// The move this text names, if it is legal in `position`.
    ///
    /// The capture list is not checked here: only playing the move shows
    /// what it captures ([`Game::play`](super::Game::play) does both).
    ///
    /// # Errors
    /// [`PlayError`] as [`Position::check`] gives it.
    #[inline(always)]
    pub fn to_move(&self, position: &Position) -> Result<Move, PlayError> {
        let mv = Move {
            from: self.from,
            to: self.to,
        };
        position.check(mv)?;
        Ok(mv)
    }
}
