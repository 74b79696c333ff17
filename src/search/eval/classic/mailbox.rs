//! A view of a position for the evaluation, the move ordering and the
//! search's tactical shortcuts.
//!
//! Built at every node from the rules' bitboards (a copy of a few words),
//! it answers "what stands on this square" ([`Mailbox::cell`]) with a bit
//! test or two, which the ray walks of the evaluation want, and keeps each
//! side as a bitset for the flood fills of the cordon terms. Its cells are
//! numbered as the bitboards' bits ([`Square`]'s index: rank × 16 + file), so
//! a step is an addition and a file or rank a mask, never a division. It
//! knows only the geometry the rules publish (throne, corners, edge, who may
//! pass what), never the rules' logic.

use arrayvec::ArrayVec;

use crate::rules::{Bitboard, Position, Rules, Side, Square};

pub(crate) const EMPTY: u8 = 0;
pub(crate) const ATTACKER: u8 = 1;
pub(crate) const DEFENDER: u8 = 2;
pub(crate) const KING: u8 = 3;

/// Cells of the 16-wide layout (13 ranks).
pub(crate) const CELLS: usize = 13 * 16;

/// Steps of the four directions as (file, rank) deltas.
const DIRECTIONS: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];

#[derive(Clone)]
pub(crate) struct Mailbox {
    pub size: usize,
    pub king: Option<usize>,
    pub rules: Rules,
    pub side_to_move: Side,
    pub attackers: Bitboard,
    /// The defenders, not the king.
    pub defenders: Bitboard,
    /// Every piece, the king among them.
    occupied: Bitboard,
    pub attacker_count: i32,
    pub defender_count: i32,
    pub throne: usize,
    /// Every square of the board.
    pub on_board: Bitboard,
    pub edge: Bitboard,
    pub corners: Bitboard,
}

/// The cell of a square: its bit in a [`Bitboard`].
#[inline]
pub(crate) fn index_of(square: Square) -> usize {
    square.index() as usize
}

/// The square of a cell.
#[inline]
pub(crate) fn square_of(index: usize) -> Square {
    Square::from_index(index as u32)
}

impl Mailbox {
    pub fn new(position: &Position) -> Mailbox {
        let variant = position.variant();
        let size = variant.size.get() as usize;
        let geometry = position.geometry();
        Mailbox {
            size,
            occupied: position.attackers()
                | position.defenders()
                | position
                    .king()
                    .map_or(Bitboard::EMPTY, Bitboard::from_square),
            king: position.king().map(index_of),
            rules: variant.rules,
            side_to_move: position.side_to_move(),
            attackers: position.attackers(),
            defenders: position.defenders(),
            attacker_count: position.attackers().len() as i32,
            defender_count: position.defenders().len() as i32,
            throne: (size / 2) * 16 + size / 2,
            on_board: geometry.board,
            edge: geometry.edge,
            corners: geometry.corners,
        }
    }

    /// What stands on cell `index`: [`EMPTY`], [`ATTACKER`], [`DEFENDER`] or [`KING`].
    #[inline]
    pub fn cell(&self, index: usize) -> u8 {
        let square = square_of(index);
        if !self.occupied.contains(square) {
            EMPTY
        } else if self.attackers.contains(square) {
            ATTACKER
        } else if self.defenders.contains(square) {
            DEFENDER
        } else {
            KING
        }
    }

    #[inline]
    pub fn file(&self, index: usize) -> usize {
        index & 15
    }

    #[inline]
    pub fn rank(&self, index: usize) -> usize {
        index >> 4
    }

    #[inline]
    pub fn is_edge(&self, index: usize) -> bool {
        self.edge.contains(square_of(index))
    }

    #[inline]
    pub fn is_corner(&self, index: usize) -> bool {
        let last = self.size - 1;
        let (file, rank) = (self.file(index), self.rank(index));
        (file == 0 || file == last) && (rank == 0 || rank == last)
    }

    /// The neighbour of `index` one step in `direction`, if on the board.
    #[inline]
    pub fn step(&self, index: usize, (dfile, drank): (i32, i32)) -> Option<usize> {
        let file = self.file(index) as i32 + dfile;
        let rank = self.rank(index) as i32 + drank;
        let size = self.size as i32;
        if file < 0 || rank < 0 || file >= size || rank >= size {
            None
        } else {
            Some((rank * 16 + file) as usize)
        }
    }

    /// The square at `file`, `rank` (both on the board).
    #[inline]
    pub fn at(&self, file: usize, rank: usize) -> usize {
        rank * 16 + file
    }

    pub fn directions() -> [(i32, i32); 4] {
        DIRECTIONS
    }

    /// Is `index` empty for the king sliding from `from` (his own square counts as empty)?
    #[inline]
    fn free_for_king(&self, index: usize, from: usize) -> bool {
        self.cell(index) == EMPTY || self.cell(index) == KING || index == from
    }

    /// Corners the king would have an open line to if he stood on `from`
    /// (his real square counted as empty), as a 4-bit mask by corner.
    pub fn open_corner_lines(&self, from: usize) -> u8 {
        let mut mask = 0u8;
        if !self.is_edge(from) {
            return 0;
        }
        let last = self.size - 1;
        let (file, rank) = (self.file(from), self.rank(from));
        // Only lines along an edge reach a corner.
        if rank == 0 || rank == last {
            for (dfile, corner_file) in [(-1i32, 0usize), (1, last)] {
                if self.line_clear(from, (dfile, 0)) {
                    mask |= self.corner_bit(corner_file, rank);
                }
            }
        }
        if file == 0 || file == last {
            for (drank, corner_rank) in [(-1i32, 0usize), (1, last)] {
                if self.line_clear(from, (0, drank)) {
                    mask |= self.corner_bit(file, corner_rank);
                }
            }
        }
        mask
    }

    fn corner_bit(&self, file: usize, rank: usize) -> u8 {
        let last = self.size - 1;
        match (file == last, rank == last) {
            (false, false) => 1,
            (true, false) => 2,
            (false, true) => 4,
            (true, true) => 8,
        }
    }

    /// Every square from `from` (exclusive) to the board's end in `direction` is free for the king,
    /// and `from` is not itself the end.
    fn line_clear(&self, from: usize, direction: (i32, i32)) -> bool {
        let mut current = from;
        let mut moved = false;
        while let Some(next) = self.step(current, direction) {
            if !self.free_for_king(next, from) {
                return false;
            }
            current = next;
            moved = true;
        }
        moved
    }

    /// The squares strictly between the king and each corner he has an open line to
    /// (the squares an attacker must block).
    pub fn route_block_squares(&self, out: &mut ArrayVec<usize, 32>) {
        out.clear();
        let Some(king) = self.king else { return };
        if !self.is_edge(king) {
            return;
        }
        for direction in DIRECTIONS {
            let mut line_len = 0;
            let mut current = king;
            let mut open = true;
            while let Some(next) = self.step(current, direction) {
                if self.cell(next) != EMPTY {
                    open = false;
                    break;
                }
                current = next;
                line_len += 1;
            }
            if open && line_len > 0 && self.is_corner(current) {
                let mut square = king;
                for _ in 0..line_len - 1 {
                    square = self.step(square, direction).expect("on the line");
                    out.push(square);
                }
            }
        }
    }

    /// Calls `visit` with every square the king can slide to this move.
    #[inline]
    pub fn for_each_king_destination(&self, mut visit: impl FnMut(usize)) {
        let Some(king) = self.king else { return };
        for direction in DIRECTIONS {
            let mut current = king;
            while let Some(next) = self.step(current, direction) {
                if self.cell(next) != EMPTY {
                    break;
                }
                visit(next);
                current = next;
            }
        }
    }

    /// Can an attacker slide to the empty square `target` this move?
    pub fn attacker_can_reach(&self, target: usize) -> bool {
        if self.cell(target) != EMPTY || self.is_corner(target) || target == self.throne {
            return false;
        }
        for direction in DIRECTIONS {
            let mut current = target;
            while let Some(next) = self.step(current, direction) {
                match self.cell(next) {
                    ATTACKER => return true,
                    EMPTY if next == self.throne && !self.rules.throne_bars_soldiers() => {
                        current = next;
                    }
                    EMPTY if next == self.throne || self.is_corner(next) => break,
                    EMPTY => current = next,
                    _ => break,
                }
            }
        }
        false
    }

    /// Is `neighbour` (next to the king) hostile to him for capture purposes?
    #[inline]
    fn hostile_to_king(&self, neighbour: Option<usize>) -> bool {
        match neighbour {
            // Tablut counts the board's edge as a side; elsewhere an edge king is safe (checked by the caller).
            None => !self.rules.edge_shields_king(),
            Some(index) => {
                self.cell(index) == ATTACKER
                    || (index == self.throne && self.cell(index) == EMPTY)
                    || (!self.rules.edge_shields_king() && self.is_corner(index))
            }
        }
    }

    /// Sides of the king that hold an attacker or count as hostile, and one empty side, when he can be
    /// captured where he stands at all; `None` when he cannot (Copenhagen and Fetlar: on the edge; or no
    /// king).
    pub fn king_pressure(&self) -> Option<(u32, Option<usize>)> {
        let king = self.king?;
        if self.rules.edge_shields_king() && self.is_edge(king) {
            return None;
        }
        let mut hostile = 0;
        let mut open = None;
        for direction in DIRECTIONS {
            let neighbour = self.step(king, direction);
            if self.hostile_to_king(neighbour) {
                hostile += 1;
            } else if let Some(index) = neighbour
                && self.cell(index) == EMPTY
            {
                open = Some(index);
            }
        }
        Some((hostile, open))
    }

    /// The one empty square next to the king an attacker could take him from, if three sides are closed.
    pub fn king_capture_square(&self) -> Option<usize> {
        match self.king_pressure() {
            Some((3, open)) => open,
            _ => None,
        }
    }

    /// Can the attackers (to move) capture the king with their next move?
    pub fn king_capturable_now(&self) -> bool {
        self.king_capture_square()
            .is_some_and(|square| self.attacker_can_reach(square))
    }

    /// Does the side to move win with its next move, as the board sees without playing it: the
    /// king's open corner line (defenders), or his capture (attackers)?
    pub fn side_to_move_wins_now(&self) -> bool {
        let Some(king) = self.king else { return false };
        match self.side_to_move {
            Side::Defenders => self.open_corner_lines(king) != 0,
            Side::Attackers => self.king_capturable_now(),
        }
    }

    /// Squares reachable from the edge by orthogonal steps through squares holding no attacker,
    /// given the king's pocket ([`Mailbox::king_pocket`]): that is one region, open if it touches
    /// the edge, so only the rest of the board is flooded (nothing, when the attackers have not
    /// split it yet, or a few corner pockets).
    #[inline]
    pub fn open_to_edge(&self, king_pocket: Bitboard) -> Bitboard {
        let rest = self
            .edge
            .flood(self.on_board.minus(self.attackers | king_pocket));
        if king_pocket.intersects(self.edge) {
            rest | king_pocket
        } else {
            rest
        }
    }

    /// The king's pocket: squares he reaches by orthogonal steps through squares holding no attacker.
    pub fn king_pocket(&self) -> Bitboard {
        let seed = self.king.map_or(Bitboard::EMPTY, |king| {
            Bitboard::from_square(square_of(king))
        });
        seed.flood(self.on_board.minus(self.attackers))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{BoardSize, Game, Status, Variant};

    /// Random games on every variant; the quick tactical tests must agree with playing every move.
    #[test]
    fn tactical_shortcuts_agree_with_the_rules() {
        let mut state = 17u64;
        let mut next = |n: usize| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 33) % n as u64) as usize
        };
        let mut checked = 0;
        for rules in Rules::ALL {
            for size in [9, 11, 13] {
                let variant = Variant::new(rules, BoardSize::new(size).expect("size"));
                for _ in 0..40 {
                    let mut game = Game::new(variant);
                    for _ in 0..300 {
                        let position = *game.position();
                        let board = Mailbox::new(&position);
                        let moves = position.legal_moves();
                        let wins = |mv| {
                            let mut child = position;
                            child.play_unchecked(mv);
                            matches!(child.status(), Status::Won { winner, reason: crate::rules::EndReason::KingCaptured | crate::rules::EndReason::KingEscaped } if winner == position.side_to_move())
                        };
                        let winning = moves.iter().any(|&mv| wins(mv));
                        let shortcut = match position.side_to_move() {
                            Side::Attackers => board.king_capturable_now(),
                            Side::Defenders => board
                                .king
                                .is_some_and(|king| board.open_corner_lines(king) != 0),
                        };
                        assert_eq!(winning, shortcut, "{position}");
                        let open = board.edge.flood(board.on_board.minus(board.attackers));
                        assert_eq!(board.open_to_edge(board.king_pocket()), open, "{position}");
                        checked += 1;
                        let mv = moves[next(moves.len())];
                        game.play_move(mv).expect("legal");
                        if game.status().is_over() {
                            break;
                        }
                    }
                }
            }
        }
        assert!(checked > 1000);
    }
}
