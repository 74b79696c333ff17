//! Sets of squares as 256-bit masks: one 16-bit lane per rank.

use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign};

use super::square::Square;

/// A set of squares of a board up to 13×13.
///
/// Bit `rank × 16 + file` stands for a square, so each rank is one 16-bit
/// lane: a whole rank reads in one shift, and files 13 to 15 are padding that
/// stays empty. That padding is what lets east and west shifts run without
/// masks between ranks.
///
/// ```
/// use tafl::rules::{Bitboard, Square};
/// let e5: Square = "e5".parse()?;
/// let set = Bitboard::EMPTY.with(e5).with("e10".parse()?).with("a1".parse()?);
/// assert!(set.contains(e5));
/// let names: Vec<String> = set.iter().map(|s| s.to_string()).collect();
/// assert_eq!(names, ["a1", "e5", "e10"]);
/// # Ok::<(), tafl::rules::ParseSquareError>(())
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Bitboard([u64; 4]);

/// The set of each square alone, by square index.
const SINGLE_SQUARES: [Bitboard; 256] = {
    let mut sets = [Bitboard::EMPTY; 256];
    let mut index = 0;
    while index < 256 {
        sets[index].0[index >> 6] = 1 << (index & 63);
        index += 1;
    }
    sets
};

/// The orthogonal neighbours of each square, by square index, unmasked as
/// [`Bitboard::neighbours`] gives them.
const NEIGHBOURS: [Bitboard; 256] = {
    let mut sets = [Bitboard::EMPTY; 256];
    let mut index = 0;
    while index < 256 {
        sets[index] = SINGLE_SQUARES[index].neighbours();
        index += 1;
    }
    sets
};

impl Bitboard {
    /// No squares.
    pub const EMPTY: Bitboard = Bitboard([0; 4]);

    /// The set holding `square` alone.
    #[must_use]
    #[inline(always)]
    pub const fn from_square(square: Square) -> Bitboard {
        // Read whole from a table, not written through an index: a set
        // written word by word and read back whole at once stalls the load
        // (the profile of a replay showed it).
        SINGLE_SQUARES[square.index() as usize]
    }

    /// The orthogonal neighbours of `square`, read from a table (unmasked:
    /// a square on the board's edge has some off it).
    #[inline(always)]
    pub(crate) const fn neighbours_of(square: Square) -> Bitboard {
        NEIGHBOURS[square.index() as usize]
    }

    /// This set with `square` added.
    #[must_use]
    pub const fn with(self, square: Square) -> Bitboard {
        let mut words = self.0;
        let index = square.index();
        words[(index >> 6) as usize] |= 1 << (index & 63);
        Bitboard(words)
    }

    /// This set with `square` taken out.
    #[must_use]
    pub const fn without(self, square: Square) -> Bitboard {
        let mut words = self.0;
        let index = square.index();
        words[(index >> 6) as usize] &= !(1 << (index & 63));
        Bitboard(words)
    }

    /// Whether `square` is in the set.
    #[must_use]
    pub const fn contains(&self, square: Square) -> bool {
        let index = square.index();
        self.0[(index >> 6) as usize] >> (index & 63) & 1 != 0
    }

    /// Whether the square with bit `index` is in the set; false for an
    /// index off the set's 256 bits, such as a step off the first or last
    /// rank.
    #[inline(always)]
    pub(crate) const fn contains_index(self, index: i32) -> bool {
        0 <= index && index < 256 && self.0[(index >> 6) as usize] >> (index & 63) & 1 != 0
    }

    /// How many squares the set holds.
    #[must_use]
    pub const fn len(self) -> u32 {
        self.0[0].count_ones()
            + self.0[1].count_ones()
            + self.0[2].count_ones()
            + self.0[3].count_ones()
    }

    /// Whether the set is empty.
    #[must_use]
    pub const fn is_empty(self) -> bool {
        self.0[0] | self.0[1] | self.0[2] | self.0[3] == 0
    }

    /// Whether the two sets share a square.
    #[must_use]
    pub fn intersects(self, other: Bitboard) -> bool {
        !(self & other).is_empty()
    }

    /// The squares in the service's order: by file, then rank.
    pub fn iter(self) -> impl Iterator<Item = Square> {
        ByFile(self & WIDEST_BOARD)
    }

    /// Writes the squares as the capture list of a move does: `e5/f5`.
    ///
    /// # Errors
    /// Only those of `out`; a `String` has none.
    pub fn write_squares<W: fmt::Write>(self, out: &mut W) -> fmt::Result {
        for (i, square) in self.iter().enumerate() {
            if i > 0 {
                out.write_char('/')?;
            }
            square.write_name(out)?;
        }
        Ok(())
    }

    /// The squares in bit order (by rank, then file): the fast way round.
    #[inline(always)]
    pub(crate) fn squares(self) -> Squares {
        Squares {
            words: self.0,
            word: 0,
        }
    }

    /// The first square in bit order, if any.
    #[inline(always)]
    pub(crate) fn first(self) -> Option<Square> {
        // The word scan unrolled: the king's square is read on every move.
        let [a, b, c, d] = self.0;
        let index = if a != 0 {
            a.trailing_zeros()
        } else if b != 0 {
            64 + b.trailing_zeros()
        } else if c != 0 {
            128 + c.trailing_zeros()
        } else if d != 0 {
            192 + d.trailing_zeros()
        } else {
            return None;
        };
        Some(Square::from_index(index))
    }

    /// The squares of one rank as bits by file.
    #[inline(always)]
    pub(crate) const fn rank_bits(self, rank: u8) -> u32 {
        (self.0[(rank >> 2) as usize] >> ((rank & 3) * 16)) as u32 & 0xffff
    }

    /// Every square moved one rank up; the top rank falls off.
    #[inline(always)]
    pub(crate) const fn north(self) -> Bitboard {
        let [a, b, c, d] = self.0;
        Bitboard([
            a << 16,
            b << 16 | a >> 48,
            c << 16 | b >> 48,
            d << 16 | c >> 48,
        ])
    }

    /// Every square moved one rank down; rank 1 falls off.
    #[inline(always)]
    pub(crate) const fn south(self) -> Bitboard {
        let [a, b, c, d] = self.0;
        Bitboard([
            a >> 16 | b << 48,
            b >> 16 | c << 48,
            c >> 16 | d << 48,
            d >> 16,
        ])
    }

    /// Every square moved one file right, into the padding past the board's
    /// edge: mask with the board before use.
    #[inline(always)]
    pub(crate) const fn east(self) -> Bitboard {
        let [a, b, c, d] = self.0;
        Bitboard([a << 1, b << 1, c << 1, d << 1])
    }

    /// Every square moved one file left, into the padding of the rank
    /// below: mask with the board before use.
    #[inline(always)]
    pub(crate) const fn west(self) -> Bitboard {
        let [a, b, c, d] = self.0;
        Bitboard([a >> 1, b >> 1, c >> 1, d >> 1])
    }

    /// How many moves the pieces of this set have along their ranks, sliding
    /// like rooks through the squares of `open` and stopping only on those
    /// of `stops`. Files are counted the same way on a transposed board.
    ///
    /// The moves of one direction never share a destination, so each
    /// direction's count is the size of one set, found for every piece at
    /// once. East: subtracting the square beyond each piece from the
    /// blockers borrows through the empty squares up to the next blocker
    /// (the padding files block too, so a borrow never leaves its rank).
    /// West: a Kogge-Stone fill, four doublings covering up to 15 squares.
    #[inline(always)]
    pub(crate) fn count_rank_slides(self, open: Bitboard, stops: Bitboard) -> u32 {
        let targets = open & stops;
        let mut count = 0;
        for word in 0..4 {
            let (pieces, open) = (self.0[word], open.0[word]);
            let blockers = !open;
            let east = blockers ^ blockers.wrapping_sub(pieces << 1);
            let (mut reached, mut path) = (pieces, open);
            reached |= path & reached >> 1;
            path &= path >> 1;
            reached |= path & reached >> 2;
            path &= path >> 2;
            reached |= path & reached >> 4;
            path &= path >> 4;
            reached |= path & reached >> 8;
            let west = reached >> 1;
            count += (east & targets.0[word]).count_ones() + (west & targets.0[word]).count_ones();
        }
        count
    }

    /// The set with its orthogonal neighbours added (unmasked).
    #[inline(always)]
    pub(crate) const fn grow(self) -> Bitboard {
        self.or(self.north())
            .or(self.south())
            .or(self.east())
            .or(self.west())
    }

    /// Everything reachable from this set's squares inside `passable` by
    /// orthogonal steps through `passable` (the seeds outside it dropped).
    /// `passable` must hold squares of the board only (no padding file).
    ///
    /// Each round fills whole lines at once: along the ranks, then along the
    /// files, each a Kogge-Stone fill of four doublings (up to 15 squares), so
    /// a region is filled in as many rounds as its paths turn corners, where
    /// growing one step a round took as many rounds as its longest path.
    #[must_use]
    pub(crate) fn flood(self, passable: Bitboard) -> Bitboard {
        let mut region = self & passable;
        loop {
            let grown = region.fill_ranks(passable).fill_files(passable);
            if grown == region {
                return region;
            }
            region = grown;
        }
    }

    /// The set with every square of `passable` it reaches along a rank through `passable`. Within
    /// a word, the padding files (never passable) stop a shift from crossing into the next rank.
    #[inline(always)]
    fn fill_ranks(self, passable: Bitboard) -> Bitboard {
        let fill = |region: u64, open: u64| {
            let (mut east, mut east_open) = (region, open);
            let (mut west, mut west_open) = (region, open);
            for shift in [1, 2, 4, 8] {
                east |= east_open & (east << shift);
                east_open &= east_open << shift;
                west |= west_open & (west >> shift);
                west_open &= west_open >> shift;
            }
            east | west
        };
        let ([a, b, c, d], [p, q, r, s]) = (self.0, passable.0);
        Bitboard([fill(a, p), fill(b, q), fill(c, r), fill(d, s)])
    }

    /// The set with every square of `passable` it reaches along a file through `passable`.
    #[inline(always)]
    fn fill_files(self, passable: Bitboard) -> Bitboard {
        let (mut north, mut north_open) = (self, passable);
        let (mut south, mut south_open) = (self, passable);
        for ranks in [1, 2, 4, 8] {
            north |= north_open & north.up(ranks);
            north_open &= north_open.up(ranks);
            south |= south_open & south.down(ranks);
            south_open &= south_open.down(ranks);
        }
        north | south
    }

    /// Every square moved `ranks` ranks up (1 to 3 within the words, 4 and 8 by whole words);
    /// the top ones fall off.
    #[inline(always)]
    const fn up(self, ranks: u32) -> Bitboard {
        let [a, b, c, d] = self.0;
        match ranks {
            4 => Bitboard([0, a, b, c]),
            8 => Bitboard([0, 0, a, b]),
            _ => {
                let bits = 16 * ranks;
                Bitboard([
                    a << bits,
                    b << bits | a >> (64 - bits),
                    c << bits | b >> (64 - bits),
                    d << bits | c >> (64 - bits),
                ])
            }
        }
    }

    /// Every square moved `ranks` ranks down (as [`Bitboard::up`]); rank 1 falls off.
    #[inline(always)]
    const fn down(self, ranks: u32) -> Bitboard {
        let [a, b, c, d] = self.0;
        match ranks {
            4 => Bitboard([b, c, d, 0]),
            8 => Bitboard([c, d, 0, 0]),
            _ => {
                let bits = 16 * ranks;
                Bitboard([
                    a >> bits | b << (64 - bits),
                    b >> bits | c << (64 - bits),
                    c >> bits | d << (64 - bits),
                    d >> bits,
                ])
            }
        }
    }

    /// The orthogonal neighbours of the set's squares (unmasked, may include the set).
    #[inline(always)]
    pub(crate) const fn neighbours(self) -> Bitboard {
        self.north()
            .or(self.south())
            .or(self.east())
            .or(self.west())
    }

    pub(crate) const fn or(self, other: Bitboard) -> Bitboard {
        let (x, y) = (self.0, other.0);
        Bitboard([x[0] | y[0], x[1] | y[1], x[2] | y[2], x[3] | y[3]])
    }

    /// The squares of this set not in `other`.
    #[must_use]
    pub const fn minus(self, other: Bitboard) -> Bitboard {
        let (x, y) = (self.0, other.0);
        Bitboard([x[0] & !y[0], x[1] & !y[1], x[2] & !y[2], x[3] & !y[3]])
    }
}

/// Every square of a 13×13 board: files and ranks 0 to 12.
const WIDEST_BOARD: Bitboard = Bitboard([
    0x1fff_1fff_1fff_1fff,
    0x1fff_1fff_1fff_1fff,
    0x1fff_1fff_1fff_1fff,
    0x1fff,
]);

/// The squares of a set by file, then rank: [`Bitboard::iter`]. Each step
/// finds the lowest file, then its lowest rank, a few word operations with
/// no sorting: a set is a move's captures (mostly none) or a side's pieces.
struct ByFile(Bitboard);

impl Iterator for ByFile {
    type Item = Square;

    fn next(&mut self) -> Option<Square> {
        let words = &mut self.0.0;
        // Every rank's lane folded onto one: the files that hold a square.
        let lanes = words[0] | words[1] | words[2] | words[3];
        let files = (lanes | lanes >> 16 | lanes >> 32 | lanes >> 48) & 0xffff;
        if files == 0 {
            return None;
        }
        // The lowest file's bit in every lane: the first word holding one
        // holds its lowest rank.
        let column = 0x0001_0001_0001_0001_u64 << files.trailing_zeros();
        let word = words.iter().position(|&word| word & column != 0)?;
        let bit = (words[word] & column).trailing_zeros();
        words[word] ^= 1 << bit;
        Some(Square::from_index(word as u32 * 64 + bit))
    }
}

/// The squares of a [`Bitboard`] in bit order.
pub(crate) struct Squares {
    words: [u64; 4],
    word: usize,
}

impl Iterator for Squares {
    type Item = Square;

    #[inline(always)]
    fn next(&mut self) -> Option<Square> {
        while self.word < 4 {
            let bits = self.words[self.word];
            if bits != 0 {
                self.words[self.word] = bits & (bits - 1);
                return Some(Square::from_index(
                    self.word as u32 * 64 + bits.trailing_zeros(),
                ));
            }
            self.word += 1;
        }
        None
    }
}

macro_rules! set_operator {
    ($trait:ident, $method:ident, $assign_trait:ident, $assign_method:ident, $op:tt) => {
        impl $trait for Bitboard {
            type Output = Bitboard;
            #[inline(always)]
            fn $method(self, other: Bitboard) -> Bitboard {
                let (x, y) = (self.0, other.0);
                Bitboard([x[0] $op y[0], x[1] $op y[1], x[2] $op y[2], x[3] $op y[3]])
            }
        }
        impl $assign_trait for Bitboard {
            #[inline(always)]
            fn $assign_method(&mut self, other: Bitboard) {
                *self = *self $op other;
            }
        }
    };
}

set_operator!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
set_operator!(BitOr, bitor, BitOrAssign, bitor_assign, |);
set_operator!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl FromIterator<Square> for Bitboard {
    fn from_iter<I: IntoIterator<Item = Square>>(squares: I) -> Bitboard {
        squares.into_iter().fold(Bitboard::EMPTY, Bitboard::with)
    }
}

impl fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set()
            .entries(self.iter().map(|s| s.to_string()))
            .finish()
    }
}

/// Lists the squares as the capture list of a move does: `e5/f5`.
impl fmt::Display for Bitboard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_squares(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{BoardSize, splitmix};

    /// The flood grown one step a round, as it was: what the line fills must equal.
    fn flood_by_steps(seeds: Bitboard, passable: Bitboard) -> Bitboard {
        let mut region = seeds & passable;
        loop {
            let grown = region.grow() & passable;
            if grown == region {
                return region;
            }
            region = grown;
        }
    }

    #[test]
    fn iter_lists_any_set_by_file_then_rank_and_nothing_off_the_widest_board() {
        let mut state = 11u64;
        for density in [0, 2, 10, 50, 100] {
            for _ in 0..200 {
                let mut words = [0u64; 4];
                for word in &mut words {
                    for bit in 0..64 {
                        state = splitmix(state);
                        if state % 100 < density {
                            *word |= 1 << bit;
                        }
                    }
                }
                let set = Bitboard(words);
                let by_file: Vec<Square> = (0..13)
                    .flat_map(|file| (0..13).filter_map(move |rank| Square::new(file, rank)))
                    .filter(|&square| set.contains(square))
                    .collect();
                assert_eq!(set.iter().collect::<Vec<_>>(), by_file, "{set:?}");
            }
        }
    }

    #[test]
    fn the_line_fill_floods_as_growing_step_by_step_does() {
        let mut state = 7u64;
        for size in BoardSize::ALL {
            let board = size.geometry().board;
            let squares: Vec<Square> = board.iter().collect();
            for density in [10, 30, 50, 70, 90] {
                for _ in 0..300 {
                    let mut passable = Bitboard::EMPTY;
                    let mut seeds = Bitboard::EMPTY;
                    for &square in &squares {
                        state = splitmix(state);
                        if state % 100 < density {
                            passable = passable.with(square);
                        }
                        if (state >> 32).is_multiple_of(40) {
                            seeds = seeds.with(square);
                        }
                    }
                    assert_eq!(
                        seeds.flood(passable),
                        flood_by_steps(seeds, passable),
                        "{size:?} seeds {seeds:?} in {passable:?}"
                    );
                }
            }
            // A winding corridor: the longest path a board has.
            let corridor: Bitboard = squares
                .iter()
                .copied()
                .filter(|square| {
                    square.rank() % 2 == 0 || square.file() == 0 || square.file() == size.get() - 1
                })
                .collect();
            let start = Bitboard::from_square(squares[0]);
            assert_eq!(start.flood(corridor), flood_by_steps(start, corridor));
        }
    }
}
