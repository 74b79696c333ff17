//! Captures: custodial (docs/RULES.md rules 2–3) and the shieldwall (rule 4).

use super::bitboard::Bitboard;
use super::position::Position;
use super::side::Side;
use super::square::Square;

/// One step east, west, north and south, in bit indices.
const STEPS: [i32; 4] = [1, -1, 16, -16];

impl Position {
    /// The squares hostile to the pieces of the side not to move (rule 2):
    /// the mover's pieces (the king too), the corners and the throne when
    /// empty — or always, in Tablut.
    #[inline(always)]
    pub(super) fn hostile_to_victims(&self) -> Bitboard {
        let geometry = self.geometry();
        let throne = Bitboard::from_square(geometry.throne);
        let hostile_throne = if self.variant.rules.throne_always_hostile() {
            throne
        } else {
            throne.minus(self.occupied())
        };
        self.pieces(self.side_to_move) | geometry.corners | hostile_throne
    }

    /// The pieces a custodial capture can take from the side not to move:
    /// its soldiers (the king is taken only by rule 5).
    #[inline(always)]
    fn victims(&self) -> Bitboard {
        match self.side_to_move {
            Side::Attackers => self.defenders,
            Side::Defenders => self.attackers,
        }
    }

    /// What the piece that just arrived on `to` captures, all found on the
    /// board as it stands after the move and before any piece is removed.
    /// The side to move is still the mover's.
    #[inline(always)]
    pub(crate) fn captures_after(&self, to: Square) -> Bitboard {
        let victims = self.victims();
        let around = Bitboard::neighbours_of(to);
        // A victim one step from `to` with a hostile square one step
        // beyond, tested bit by bit: a step east or west off the board lands
        // in the padding files and one north or south off the 256 bits,
        // where no piece stands and nothing is hostile.
        let hostile = self.hostile_to_victims();
        let at = to.index() as i32;
        let mut captures = Bitboard::EMPTY;
        for step in STEPS {
            if victims.contains_index(at + step) && hostile.contains_index(at + 2 * step) {
                captures |= Bitboard::from_square(Square::from_index((at + step) as u32));
            }
        }
        let geometry = self.geometry();
        // A wall's run starts next to `to`, on the edge.
        if self.variant.rules.has_shieldwall()
            && geometry.edge.minus(geometry.corners).contains(to)
            && self
                .pieces(self.side_to_move.opponent())
                .intersects(around & geometry.edge)
        {
            captures |= self.shieldwall_captures(to);
        }
        captures
    }

    /// The empty squares a piece of the side to move would capture on by
    /// custodial capture (rule 3), were it to arrive there: a victim next to
    /// the square with a hostile square beyond. Exact before the move, as the
    /// piece's own first square can never be the hostile one beyond a victim
    /// (it would have had to slide through the victim).
    #[inline(always)]
    pub(super) fn custodial_capture_squares(&self) -> Bitboard {
        let victims = self.victims();
        let hostile = self.hostile_to_victims();
        let squares = (victims & hostile.west()).west()
            | (victims & hostile.east()).east()
            | (victims & hostile.south()).south()
            | (victims & hostile.north()).north();
        squares & self.geometry().board.minus(self.occupied())
    }

    /// The edge squares (corners aside) next to an enemy piece on the edge,
    /// where the rules have shieldwalls (rule 4): the only squares a move can
    /// close one on. Empty otherwise.
    #[inline(always)]
    pub(super) fn shieldwall_squares(&self) -> Bitboard {
        let geometry = self.geometry();
        if !self.variant.rules.has_shieldwall() {
            return Bitboard::EMPTY;
        }
        let edge = geometry.edge.minus(geometry.corners);
        let enemies = self.pieces(self.side_to_move.opponent()) & edge;
        let next_to = enemies.north() | enemies.south() | enemies.east() | enemies.west();
        next_to & edge.minus(self.occupied())
    }

    /// The pieces taken by a shieldwall the move onto the edge square `to`
    /// closes, looking along the edge both ways (rule 4). The edge and the
    /// line inside it are read as bits, so each way's run of walled enemies
    /// is one count of consecutive bits.
    fn shieldwall_captures(&self, to: Square) -> Bitboard {
        let geometry = self.geometry();
        let last = geometry.size - 1;
        // An edge along a rank holds its squares by file; one along a file,
        // by rank (on the transposed boards).
        let (along_file, edge, at) = match (to.file(), to.rank()) {
            (file, 0) => (false, 0, file),
            (file, rank) if rank == last => (false, last, file),
            (0, rank) => (true, 0, rank),
            (_, rank) => (true, last, rank),
        };
        let inner = if edge == 0 { 1 } else { edge - 1 };
        let mover = self.side_to_move;
        let enemies = self.line_bits(mover.opponent(), edge, along_file);
        let walled = enemies & self.line_bits(mover, inner, along_file);
        // The corners are the same squares on the transposed board.
        let closing =
            (self.line_bits(mover, edge, along_file) | geometry.corners.rank_bits(edge)) & !enemies;
        // `to` is no corner, so `at` is at least 1; the run down the line
        // stops before bit 0, a corner, where no enemy stands.
        let up = (walled >> (at + 1)).trailing_ones();
        let down = (walled << (32 - at)).leading_ones();
        let mut taken = 0u32;
        if up >= 2 && closing >> (u32::from(at) + 1 + up) & 1 != 0 {
            taken |= ((1 << up) - 1) << (at + 1);
        }
        if down >= 2 && down < u32::from(at) && closing >> (u32::from(at) - 1 - down) & 1 != 0 {
            taken |= ((1 << down) - 1) << (u32::from(at) - down);
        }
        let mut captures = Bitboard::EMPTY;
        while taken != 0 {
            let place = taken.trailing_zeros() as u8;
            let square = if along_file {
                Square::new(edge, place)
            } else {
                Square::new(place, edge)
            };
            captures = captures.with(square.expect("a run on the board"));
            taken &= taken - 1;
        }
        captures.minus(self.king)
    }

    /// The pieces of `side` (the king among the defenders) on one line, as
    /// bits: rank `line` by file or, `along_file`, file `line` by rank.
    #[inline(always)]
    fn line_bits(&self, side: Side, line: u8, along_file: bool) -> u32 {
        if !along_file {
            return self.pieces(side).rank_bits(line);
        }
        match side {
            Side::Attackers => self.attackers_by_file.rank_bits(line),
            Side::Defenders => {
                let king = self
                    .king()
                    .filter(|king| king.file() == line)
                    .map_or(0, |king| 1 << king.rank());
                self.defenders_by_file.rank_bits(line) | king
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::notation::PositionText;
    use crate::rules::{Bitboard, BoardSize, Position, Rules, Side, Square, Variant, splitmix};

    /// The shieldwall found square by square along the edge, as it was: what
    /// the line's bits find must equal.
    fn shieldwall_by_squares(position: &Position, to: Square) -> Bitboard {
        let geometry = position.geometry();
        let size = geometry.size as i8;
        let square_at = |file: i8, rank: i8| {
            if (0..size).contains(&file) && (0..size).contains(&rank) {
                Square::new(file as u8, rank as u8)
            } else {
                None
            }
        };
        let friends = position.pieces(position.side_to_move);
        let enemies = position.pieces(position.side_to_move.opponent());
        let (file, rank) = (to.file() as i8, to.rank() as i8);
        let (along, inward) = match (file, rank) {
            (_, 0) => ((1, 0), (0, 1)),
            (_, r) if r == size - 1 => ((1, 0), (0, -1)),
            (0, _) => ((0, 1), (1, 0)),
            _ => ((0, 1), (-1, 0)),
        };
        let mut captures = Bitboard::EMPTY;
        for sign in [1, -1] {
            let mut run = Bitboard::EMPTY;
            let mut distance = 1;
            while let Some(square) = square_at(
                file + distance * sign * along.0,
                rank + distance * sign * along.1,
            ) {
                if !enemies.contains(square) {
                    let closed = friends.contains(square) || geometry.corners.contains(square);
                    if closed && run.len() >= 2 {
                        captures |= run.minus(position.king);
                    }
                    break;
                }
                let inner = square_at(
                    square.file() as i8 + inward.0,
                    square.rank() as i8 + inward.1,
                )
                .expect("the edge's inner row is on the board");
                if !friends.contains(inner) {
                    break;
                }
                run = run.with(square);
                distance += 1;
            }
        }
        captures
    }

    #[test]
    fn the_line_bits_find_the_shieldwalls_walking_the_edge_finds() {
        let mut state = 3u64;
        let mut walls = 0;
        for size in BoardSize::ALL {
            let geometry = size.geometry();
            let squares: Vec<Square> = geometry.board.iter().collect();
            // Dense on the edge and the row inside it, where walls stand.
            let near_edge = geometry.board.minus(
                geometry
                    .board
                    .minus(geometry.edge)
                    .minus(geometry.edge.north() | geometry.edge.south())
                    .minus(geometry.edge.east() | geometry.edge.west()),
            );
            for _ in 0..3000 {
                let mut setup = PositionText::empty(size, Side::Attackers);
                let free = |square: Square| {
                    !geometry.corners.contains(square) && square != geometry.throne
                };
                for &square in squares.iter().filter(|&&square| free(square)) {
                    state = splitmix(state);
                    let percent = if near_edge.contains(square) { 90 } else { 30 };
                    if state % 100 < percent {
                        if state >> 32 & 1 == 0 {
                            setup.attackers = setup.attackers.with(square);
                        } else {
                            setup.defenders = setup.defenders.with(square);
                        }
                    }
                }
                state = splitmix(state);
                let king = squares[(state % squares.len() as u64) as usize];
                if !free(king) {
                    continue;
                }
                setup.attackers = setup.attackers.without(king);
                setup.defenders = setup.defenders.without(king);
                setup.kings = Bitboard::from_square(king);
                for side in [Side::Attackers, Side::Defenders] {
                    setup.side_to_move = side;
                    let variant = Variant::new(Rules::Copenhagen, size);
                    let position = Position::from_setup(&setup, variant).expect("a valid setup");
                    for to in geometry.edge.minus(geometry.corners).iter() {
                        let expected = shieldwall_by_squares(&position, to);
                        walls += u32::from(!expected.is_empty());
                        assert_eq!(
                            position.shieldwall_captures(to),
                            expected,
                            "{position} to {to}"
                        );
                    }
                }
            }
        }
        assert!(walls > 1000, "only {walls} walls were tried");
    }
}
