//! Captures: custodial (docs/RULES.md rules 2–3) and the shieldwall (rule 4).

use super::bitboard::Bitboard;
use super::position::Position;
use super::side::Side;
use super::square::Square;

/// One step east, west, north and south, in bit indices.
pub(crate) const STEPS: [i32; 4] = [1, -1, 16, -16];

impl Position {
    /// Square at (`file`, `rank`) if it is on this board.
    #[inline]
    fn square_at(&self, file: i8, rank: i8) -> Option<Square> {
        let size = self.geometry().size as i8;
        if (0..size).contains(&file) && (0..size).contains(&rank) {
            Square::new(file as u8, rank as u8)
        } else {
            None
        }
    }

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
        if self.variant.rules.has_shieldwall() && geometry.edge.minus(geometry.corners).contains(to)
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
    /// closes, looking along the edge both ways (rule 4).
    fn shieldwall_captures(&self, to: Square) -> Bitboard {
        let geometry = self.geometry();
        let last = geometry.size as i8 - 1;
        let friends = self.pieces(self.side_to_move);
        let enemies = self.pieces(self.side_to_move.opponent());
        let (file, rank) = (to.file() as i8, to.rank() as i8);
        let (along, inward) = match (file, rank) {
            (_, 0) => ((1, 0), (0, 1)),
            (_, r) if r == last => ((1, 0), (0, -1)),
            (0, _) => ((0, 1), (1, 0)),
            _ => ((0, 1), (-1, 0)),
        };
        let mut captures = Bitboard::EMPTY;
        for sign in [1, -1] {
            let mut run = Bitboard::EMPTY;
            let mut distance = 1;
            while let Some(square) = self.square_at(
                file + distance * sign * along.0,
                rank + distance * sign * along.1,
            ) {
                if !enemies.contains(square) {
                    let closed = friends.contains(square) || geometry.corners.contains(square);
                    if closed && run.len() >= 2 {
                        captures |= run.minus(self.king);
                    }
                    break;
                }
                let inner = self
                    .square_at(
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
}
