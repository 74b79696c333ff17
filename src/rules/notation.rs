//! Text in and out: moves (`e1-e4xe5/f5`) and positions (`/3ttttt3/.../ a`).
//!
//! Parsing here checks syntax only and needs no board: whether a square is
//! on the board, or a move legal, is the position's question.

use std::fmt;
use std::str::FromStr;

use super::bitboard::Bitboard;
use super::board_size::BoardSize;
use super::side::Side;
use super::square::{MAX_BOARD_SIZE, ParseSquareError, Square, write_number};

/// How much of a caller's text an error message quotes.
const QUOTE_LIMIT: usize = 16;

fn quote(text: &str) -> String {
    let mut quoted: String = text.chars().take(QUOTE_LIMIT).collect();
    if text.chars().nth(QUOTE_LIMIT).is_some() {
        quoted.push('…');
    }
    quoted
}

/// A move as written: two squares, and the captures the writer claims, if
/// any. Whether the squares share a rank or file is the position's
/// question, asked after whose piece it is (docs/RULES.md rule 11).
///
/// ```
/// use tafl::rules::MoveText;
/// let text: MoveText = "E1E4xe5xf5xe5+".parse()?;
/// assert_eq!(text.to_string(), "e1-e4xe5/f5");
/// assert!("e1-".parse::<MoveText>().is_err());
/// # Ok::<(), tafl::rules::ParseMoveError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveText {
    /// Where the piece starts.
    pub from: Square,
    /// Where it stops.
    pub to: Square,
    /// The captures named after `x`, if any were: they must match exactly.
    pub captures: Option<Bitboard>,
}

/// Why text is not a move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseMoveError {
    /// No text at all.
    Empty,
    /// The first square is unreadable.
    From(ParseSquareError),
    /// The second square is unreadable.
    To(ParseSquareError),
    /// A square of the capture list is unreadable (or an `x` ends the text).
    Capture(ParseSquareError),
    /// Text after the move that is not a capture list or a mark.
    Trailing(String),
}

impl fmt::Display for ParseMoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseMoveError::Empty => {
                f.write_str("the move is empty: expected a move such as e1-e4")
            }
            ParseMoveError::From(error) => write!(f, "the square the move starts from: {error}"),
            ParseMoveError::To(error) => write!(f, "the square the move goes to: {error}"),
            ParseMoveError::Capture(error) => write!(f, "the capture list: {error}"),
            ParseMoveError::Trailing(rest) => {
                write!(
                    f,
                    "unexpected {:?} after the move: only a capture list and +, ++, -, -- may follow",
                    quote(rest)
                )
            }
        }
    }
}

impl std::error::Error for ParseMoveError {}

impl FromStr for MoveText {
    type Err = ParseMoveError;

    // Inlined, a replay keeps the move in registers instead of reading it
    // back from memory it has only just written.
    #[inline(always)]
    fn from_str(text: &str) -> Result<MoveText, ParseMoveError> {
        // Most moves of a game are two short names and a dash, read at once.
        if let [from_file, from_rank, b'-', to_file, to_rank] = *text.as_bytes()
            && let Some(from) = Square::from_short_name(from_file, from_rank)
            && let Some(to) = Square::from_short_name(to_file, to_rank)
        {
            return Ok(MoveText {
                from,
                to,
                captures: None,
            });
        }
        if text.is_empty() {
            return Err(ParseMoveError::Empty);
        }
        let (from, rest) = Square::parse_prefix(text).map_err(ParseMoveError::From)?;
        let rest = rest.strip_prefix('-').unwrap_or(rest);
        let (to, mut rest) = Square::parse_prefix(rest).map_err(ParseMoveError::To)?;
        let mut captures = None;
        if rest.starts_with(['x', 'X']) {
            let mut set = Bitboard::EMPTY;
            while let Some(after) = rest.strip_prefix(['x', 'X', '/']) {
                let (square, after) =
                    Square::parse_prefix(after).map_err(ParseMoveError::Capture)?;
                set = set.with(square);
                rest = after;
            }
            captures = Some(set);
        }
        if !matches!(rest, "" | "+" | "++" | "-" | "--") {
            return Err(ParseMoveError::Trailing(rest.to_owned()));
        }
        Ok(MoveText { from, to, captures })
    }
}

impl MoveText {
    /// Writes the canonical text, as `Display` does, but character by
    /// character: into a `String`, without the formatting machinery.
    ///
    /// # Errors
    /// Only those of `out`; a `String` has none.
    pub fn write_text<W: fmt::Write>(&self, out: &mut W) -> fmt::Result {
        self.from.write_name(out)?;
        out.write_char('-')?;
        self.to.write_name(out)?;
        match self.captures {
            Some(captures) if !captures.is_empty() => {
                out.write_char('x')?;
                captures.write_squares(out)
            }
            _ => Ok(()),
        }
    }
}

impl fmt::Display for MoveText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_text(f)
    }
}

/// A board and side to move as written in position text, before any rule
/// has looked at it: [`Position::from_setup`](super::Position::from_setup)
/// checks that it is a position the rules can start from.
///
/// ```
/// use tafl::rules::{BoardSize, PositionText, Side};
/// let text: PositionText = "3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3ttt3 d".parse()?;
/// assert_eq!(text.size(), BoardSize::Nine);
/// assert_eq!(text.side_to_move(), Side::Defenders);
/// assert_eq!(text.to_string(), "/3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3ttt3/ d");
/// # Ok::<(), tafl::rules::ParsePositionError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PositionText {
    pub(crate) size: BoardSize,
    pub(crate) attackers: Bitboard,
    pub(crate) defenders: Bitboard,
    /// Every `K`: more or fewer than one is for the setup check to refuse.
    pub(crate) kings: Bitboard,
    pub(crate) side_to_move: Side,
}

impl PositionText {
    /// An empty board of `size`, `side_to_move` to move: a setup to fill.
    pub(crate) const fn empty(size: BoardSize, side_to_move: Side) -> PositionText {
        PositionText {
            size,
            attackers: Bitboard::EMPTY,
            defenders: Bitboard::EMPTY,
            kings: Bitboard::EMPTY,
            side_to_move,
        }
    }

    /// The board's size: how many ranks the text has.
    #[must_use]
    pub const fn size(&self) -> BoardSize {
        self.size
    }

    /// The side to move.
    #[must_use]
    pub const fn side_to_move(&self) -> Side {
        self.side_to_move
    }
}

/// Why text is not a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParsePositionError {
    /// No text at all.
    Empty,
    /// The ranks are not followed by a side to move.
    MissingSide,
    /// The side to move is not `a` or `d`.
    Side(String),
    /// More text after the side to move.
    Trailing(String),
    /// The number of ranks is not 9, 11 or 13.
    RankCount(usize),
    /// A character that is not `t`, `T`, `K` or a digit (rank counted from 1).
    Character { rank: usize, found: char },
    /// A run of empty squares that is 0, starts with 0 or is longer than any board.
    Run { rank: usize },
    /// A rank whose squares do not add up to the board's size.
    RankLength {
        rank: usize,
        squares: usize,
        expected: usize,
    },
}

impl fmt::Display for ParsePositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParsePositionError::Empty => f.write_str("the position text is empty"),
            ParsePositionError::MissingSide => {
                f.write_str("the position text has no side to move: end it with a space and a or d")
            }
            ParsePositionError::Side(side) => {
                write!(
                    f,
                    "{:?} is not a side to move: expected a or d",
                    quote(side)
                )
            }
            ParsePositionError::Trailing(rest) => {
                write!(f, "unexpected {:?} after the side to move", quote(rest))
            }
            ParsePositionError::RankCount(count) => {
                write!(f, "the board has {count} ranks: it must have 9, 11 or 13")
            }
            ParsePositionError::Character { rank, found } => {
                write!(f, "rank {rank}: {found:?} is not t, T, K or a number")
            }
            ParsePositionError::Run { rank } => {
                write!(
                    f,
                    "rank {rank}: a run of empty squares must be a number from 1 to 13"
                )
            }
            ParsePositionError::RankLength {
                rank,
                squares,
                expected,
            } => {
                write!(f, "rank {rank} has {squares} squares, expected {expected}")
            }
        }
    }
}

impl std::error::Error for ParsePositionError {}

impl FromStr for PositionText {
    type Err = ParsePositionError;

    fn from_str(text: &str) -> Result<PositionText, ParsePositionError> {
        let mut words = text.split_whitespace();
        let board = words.next().ok_or(ParsePositionError::Empty)?;
        let side_to_move = match words.next() {
            None => return Err(ParsePositionError::MissingSide),
            Some("a" | "A") => Side::Attackers,
            Some("d" | "D") => Side::Defenders,
            Some(other) => return Err(ParsePositionError::Side(other.to_owned())),
        };
        if let Some(rest) = words.next() {
            return Err(ParsePositionError::Trailing(rest.to_owned()));
        }
        let board = board.strip_prefix('/').unwrap_or(board);
        let board = board.strip_suffix('/').unwrap_or(board);
        let rank_count = board.split('/').count();
        let size = u32::try_from(rank_count)
            .ok()
            .and_then(BoardSize::new)
            .ok_or(ParsePositionError::RankCount(rank_count))?;
        let mut position = PositionText::empty(size, side_to_move);
        for (row, rank_text) in board.split('/').enumerate() {
            position.read_rank(rank_count - 1 - row, rank_text)?;
        }
        Ok(position)
    }
}

impl PositionText {
    /// Places the pieces of one rank (from 0), checking it fills the board's width.
    fn read_rank(&mut self, rank: usize, text: &str) -> Result<(), ParsePositionError> {
        let width = usize::from(self.size.get());
        let rank_name = rank + 1;
        let mut file = 0;
        let mut chars = text.char_indices().peekable();
        while let Some((start, c)) = chars.next() {
            if c.is_ascii_digit() {
                let mut end = start + 1;
                while let Some(&(index, d)) = chars.peek() {
                    if !d.is_ascii_digit() {
                        break;
                    }
                    end = index + 1;
                    chars.next();
                }
                let digits = &text[start..end];
                match digits.parse::<usize>() {
                    Ok(run @ 1..=13) if !digits.starts_with('0') => file += run,
                    _ => return Err(ParsePositionError::Run { rank: rank_name }),
                }
                continue;
            }
            let set = match c {
                't' => &mut self.attackers,
                'T' => &mut self.defenders,
                'K' => &mut self.kings,
                found => {
                    return Err(ParsePositionError::Character {
                        rank: rank_name,
                        found,
                    });
                }
            };
            if file < width {
                // Both below 13: checked by the size and the guard above.
                *set = set.with(Square::new(file as u8, rank as u8).expect("on the board"));
            }
            file += 1;
        }
        if file == width {
            Ok(())
        } else {
            Err(ParsePositionError::RankLength {
                rank: rank_name,
                squares: file,
                expected: width,
            })
        }
    }

    /// Writes the text, as `Display` does, but character by character: into
    /// a `String`, without the formatting machinery (every LegalMoves and
    /// ApplyMove reply carries its position's text).
    ///
    /// # Errors
    /// Only those of `out`; a `String` has none.
    pub fn write_text<W: fmt::Write>(&self, out: &mut W) -> fmt::Result {
        let size = self.size.get();
        let on_board = (1 << size) - 1;
        out.write_str("/")?;
        for rank in (0..size).rev() {
            let (attackers, defenders) = (
                self.attackers.rank_bits(rank),
                self.defenders.rank_bits(rank),
            );
            // The rank's pieces found bit by bit, the empty squares between
            // them counted at once rather than looked at one by one.
            let mut pieces = (attackers | defenders | self.kings.rank_bits(rank)) & on_board;
            let mut file = 0;
            while pieces != 0 {
                let piece_file = pieces.trailing_zeros() as u8;
                if piece_file > file {
                    write_number(out, piece_file - file)?;
                }
                let piece = if attackers >> piece_file & 1 != 0 {
                    't'
                } else if defenders >> piece_file & 1 != 0 {
                    'T'
                } else {
                    'K'
                };
                out.write_char(piece)?;
                pieces &= pieces - 1;
                file = piece_file + 1;
            }
            if size > file {
                write_number(out, size - file)?;
            }
            out.write_str("/")?;
        }
        out.write_char(' ')?;
        out.write_char(self.side_to_move.letter())
    }
}

impl fmt::Display for PositionText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_text(f)
    }
}

const _: () = assert!(
    MAX_BOARD_SIZE == 13,
    "the run check in read_rank assumes 13"
);
