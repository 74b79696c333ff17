//! Squares of the board, named `a1` (bottom left) to `m13`.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

/// The widest board tafl plays on; squares of every smaller board fit in it.
pub const MAX_BOARD_SIZE: u8 = 13;

/// A square of a board up to 13×13, by file (`a` = 0) and rank (`1` = 0).
///
/// A square knows nothing of the board it is on: whether `l12` exists is the
/// variant's question. Squares order by file, then rank (`e5` before `e10`
/// before `f1`), the order in which the service lists them.
///
/// ```
/// use tafl::rules::Square;
/// let square: Square = "E10".parse()?;
/// assert_eq!((square.file(), square.rank()), (4, 9));
/// assert_eq!(square.to_string(), "e10");
/// # Ok::<(), tafl::rules::ParseSquareError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Square(u8);

impl Square {
    /// The square at `file` and `rank` (both from 0), if both are below 13.
    #[must_use]
    pub const fn new(file: u8, rank: u8) -> Option<Square> {
        if file < MAX_BOARD_SIZE && rank < MAX_BOARD_SIZE {
            Some(Square(rank << 4 | file))
        } else {
            None
        }
    }

    /// The square with bit `index` in a [`Bitboard`](super::Bitboard): rank × 16 + file.
    pub(crate) const fn from_index(index: u32) -> Square {
        Square(index as u8)
    }

    /// The bit of this square in a [`Bitboard`](super::Bitboard).
    pub(crate) const fn index(self) -> u32 {
        self.0 as u32
    }

    /// The file, from 0 (`a`).
    #[must_use]
    pub const fn file(self) -> u8 {
        self.0 & 15
    }

    /// The rank, from 0 (rank `1`).
    #[must_use]
    pub const fn rank(self) -> u8 {
        self.0 >> 4
    }

    /// The square with file and rank swapped, on the transposed board.
    #[inline(always)]
    pub(crate) const fn transposed(self) -> Square {
        // Both below 13, so the swap is a square: the nibbles rotated.
        Square(self.0.rotate_left(4))
    }

    /// The square's number on a board of `size` squares a side, rank by rank: `rank × size +
    /// file` (the numbering of the network's inputs and of the training data's boards; a bitboard
    /// leaves 16 a rank).
    #[must_use]
    pub const fn dense_index(self, size: usize) -> usize {
        self.rank() as usize * size + self.file() as usize
    }
}

impl Ord for Square {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.file(), self.rank()).cmp(&(other.file(), other.rank()))
    }
}

impl PartialOrd for Square {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Square {
    /// Writes the square's name (`e10`) character by character: written
    /// into a `String`, it costs a few stores, where `Display` goes through
    /// the formatting machinery (a LegalMoves reply names hundreds of squares).
    ///
    /// # Errors
    /// Only those of `out`; a `String` has none.
    #[inline]
    pub fn write_name<W: fmt::Write>(self, out: &mut W) -> fmt::Result {
        self.name()
            .as_bytes()
            .iter()
            .try_for_each(|&byte| out.write_char(char::from(byte)))
    }

    /// The square's name (`e10`) as bytes held in place, for writers that
    /// are no [`fmt::Write`]: an encoder copies them where they go.
    ///
    /// ```
    /// use tafl::rules::Square;
    /// let square: Square = "e10".parse()?;
    /// assert_eq!(square.name().as_bytes(), b"e10");
    /// assert_eq!(Square::new(0, 0).unwrap().name().len(), 2);
    /// # Ok::<(), tafl::rules::ParseSquareError>(())
    /// ```
    #[inline]
    #[must_use]
    pub const fn name(self) -> SquareName {
        let (file, rank) = (b'a' + self.file(), self.rank() + 1);
        if rank >= 10 {
            SquareName {
                bytes: [file, b'0' + rank / 10, b'0' + rank % 10],
                len: 3,
            }
        } else {
            SquareName {
                bytes: [file, b'0' + rank, 0],
                len: 2,
            }
        }
    }
}

/// A square's name as bytes ([`Square::name`]): two or three ASCII characters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SquareName {
    bytes: [u8; 3],
    len: u8,
}

impl SquareName {
    /// The name's bytes.
    #[inline]
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len()]
    }

    /// How many bytes the name has: 2 or 3.
    #[inline]
    #[must_use]
    #[allow(clippy::len_without_is_empty)]
    pub const fn len(&self) -> usize {
        self.len as usize
    }

    /// The name's bytes and, after a two-byte name, a zero: three bytes to
    /// copy at once, of which [`SquareName::len`] count.
    #[inline]
    #[must_use]
    pub const fn padded(&self) -> [u8; 3] {
        self.bytes
    }
}

/// Writes a number below 100 (a rank, a run of empty squares) in decimal.
#[inline]
pub(crate) fn write_number<W: fmt::Write>(out: &mut W, number: u8) -> fmt::Result {
    if number >= 10 {
        out.write_char(char::from(b'0' + number / 10))?;
    }
    out.write_char(char::from(b'0' + number % 10))
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_name(f)
    }
}

/// Why text is not a square.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseSquareError {
    /// Nothing where a square was expected.
    Missing,
    /// The first character is not one of the files `a` to `m`.
    File(char),
    /// No rank, or a rank outside 1 to 13.
    Rank(String),
}

impl fmt::Display for ParseSquareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseSquareError::Missing => f.write_str("expected a square such as e4"),
            ParseSquareError::File(c) => write!(f, "{c:?} is not a file: files run from a to m"),
            ParseSquareError::Rank(r) if r.is_empty() => f.write_str("the square has no rank"),
            ParseSquareError::Rank(r) => write!(f, "{r:?} is not a rank: ranks run from 1 to 13"),
        }
    }
}

impl std::error::Error for ParseSquareError {}

impl Square {
    /// Reads a square from the front of `text`, returning it and the rest.
    /// Byte by byte and without allocating, unless the text is wrong.
    #[inline(always)]
    pub(crate) fn parse_prefix(text: &str) -> Result<(Square, &str), ParseSquareError> {
        let bytes = text.as_bytes();
        let Some(&letter) = bytes.first() else {
            return Err(ParseSquareError::Missing);
        };
        let Some(file) = file_of_letter(letter) else {
            return Err(file_error(text));
        };
        let digit = |at: usize| {
            bytes
                .get(at)
                .map(|byte| byte.wrapping_sub(b'0'))
                .filter(|&value| value < 10)
        };
        let (rank, length) = match (digit(1), digit(2), digit(3)) {
            (Some(units @ 1..=9), None, _) => (units, 2),
            (Some(1), Some(units @ 0..=3), None) => (10 + units, 3),
            _ => return Err(rank_error(&text[1..])),
        };
        Ok((Square((rank - 1) << 4 | file), &text[length..]))
    }
}

impl Square {
    /// The square a file letter and a rank digit from 1 to 9 name (`e`, `4`),
    /// if they do: a short name, read without looking at the text around it.
    #[inline(always)]
    pub(crate) fn from_short_name(letter: u8, digit: u8) -> Option<Square> {
        let file = file_of_letter(letter)?;
        let rank = digit.wrapping_sub(b'1');
        (rank < 9).then_some(Square(rank << 4 | file))
    }
}

/// The file a letter names (`a` to `m`, either case).
#[inline(always)]
fn file_of_letter(letter: u8) -> Option<u8> {
    // Lower case is upper case with bit 5 set; nothing else lands on a–m.
    let file = (letter | 0x20).wrapping_sub(b'a');
    (file < MAX_BOARD_SIZE).then_some(file)
}

/// The error for text whose first character is not a file.
#[cold]
fn file_error(text: &str) -> ParseSquareError {
    let letter = text.chars().next().expect("the text is not empty");
    ParseSquareError::File(letter.to_ascii_lowercase())
}

/// The error for `after_file`, whose leading digits are no rank from 1 to 13.
#[cold]
fn rank_error(after_file: &str) -> ParseSquareError {
    let digits = after_file.bytes().take_while(u8::is_ascii_digit).count();
    ParseSquareError::Rank(after_file[..digits].chars().take(8).collect())
}

impl FromStr for Square {
    type Err = ParseSquareError;

    fn from_str(text: &str) -> Result<Square, ParseSquareError> {
        match Square::parse_prefix(text)? {
            (square, "") => Ok(square),
            (_, rest) => Err(ParseSquareError::Rank(
                text[1..text.len() - rest.len()]
                    .chars()
                    .chain(rest.chars())
                    .take(8)
                    .collect(),
            )),
        }
    }
}
