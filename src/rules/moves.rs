//! A move, and a list of them on the stack.

use std::fmt;

use arrayvec::ArrayVec;

use super::square::Square;

/// A move: a piece from one square to another along a rank or file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move {
    /// Where the piece starts.
    pub from: Square,
    /// Where it stops.
    pub to: Square,
}

impl Move {
    /// The squares the piece crosses, in order, ending with `to`.
    pub(crate) fn path(self) -> impl Iterator<Item = Square> {
        let (file, rank) = (i32::from(self.from.file()), i32::from(self.from.rank()));
        let step_file = (i32::from(self.to.file()) - file).signum();
        let step_rank = (i32::from(self.to.rank()) - rank).signum();
        let steps = (i32::from(self.to.file()) - file)
            .abs()
            .max((i32::from(self.to.rank()) - rank).abs());
        (1..=steps).filter_map(move |k| {
            Square::new((file + k * step_file) as u8, (rank + k * step_rank) as u8)
        })
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.from, self.to)
    }
}

/// Enough room for every move of any position: an empty square can be
/// reached from at most four pieces.
pub const MAX_MOVES: usize = 4 * 13 * 13;

/// The legal moves of a position, on the stack.
pub type MoveList = ArrayVec<Move, MAX_MOVES>;
