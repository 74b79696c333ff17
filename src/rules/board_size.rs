//! The board sizes tafl is played on.

use std::fmt;

use super::square::Square;

/// The board sizes tafl is played on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoardSize {
    /// 9×9, Tablut's board.
    Nine,
    /// 11×11, the Hnefatafl board.
    Eleven,
    /// 13×13.
    Thirteen,
}

impl BoardSize {
    /// Every board, smallest first.
    pub const ALL: [BoardSize; 3] = [BoardSize::Nine, BoardSize::Eleven, BoardSize::Thirteen];

    /// The size with `n` squares a side, if it is 9, 11 or 13.
    #[must_use]
    pub const fn new(n: u32) -> Option<BoardSize> {
        match n {
            9 => Some(BoardSize::Nine),
            11 => Some(BoardSize::Eleven),
            13 => Some(BoardSize::Thirteen),
            _ => None,
        }
    }

    /// Squares a side.
    #[must_use]
    pub const fn get(self) -> u8 {
        match self {
            BoardSize::Nine => 9,
            BoardSize::Eleven => 11,
            BoardSize::Thirteen => 13,
        }
    }

    /// Whether `square` lies on a board of this size.
    #[must_use]
    pub const fn contains(self, square: Square) -> bool {
        square.file() < self.get() && square.rank() < self.get()
    }
}

impl fmt::Display for BoardSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{0}×{0}", self.get())
    }
}
