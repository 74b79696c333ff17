//! A mailbox copy of a position for the evaluation and the tactical tests.
//!
//! Built once per evaluated node from the rules' bitboards (a few dozen
//! pieces), it answers "what stands on this square" in one load, which the
//! ray walks of the evaluation want. It knows only the geometry the rules
//! publish (throne, corners, edge, who may pass what), never the rules' logic.

use arrayvec::ArrayVec;

use crate::rules::{Position, Rules, Side, Square};

pub(crate) const EMPTY: u8 = 0;
pub(crate) const ATTACKER: u8 = 1;
pub(crate) const DEFENDER: u8 = 2;
pub(crate) const KING: u8 = 3;

/// Largest board area (13×13).
pub(crate) const MAX_CELLS: usize = 169;

/// Steps of the four directions as (file, rank) deltas.
const DIRECTIONS: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];

#[derive(Clone)]
pub(crate) struct Board {
    pub size: usize,
    pub cells: [u8; MAX_CELLS],
    pub king: Option<usize>,
    pub rules: Rules,
    pub side_to_move: Side,
    pub attacker_count: i32,
    pub defender_count: i32,
    pub throne: usize,
}

/// Index of a square on a board of `size`: rank-major.
pub(crate) fn index_of(square: Square, size: usize) -> usize {
    square.rank() as usize * size + square.file() as usize
}

impl Board {
    pub fn new(position: &Position) -> Board {
        let variant = position.variant();
        let size = variant.size.get() as usize;
        let mut board = Board {
            size,
            cells: [EMPTY; MAX_CELLS],
            king: None,
            rules: variant.rules,
            side_to_move: position.side_to_move(),
            attacker_count: 0,
            defender_count: 0,
            throne: (size / 2) * size + size / 2,
        };
        for square in position.attackers().iter() {
            board.cells[index_of(square, size)] = ATTACKER;
            board.attacker_count += 1;
        }
        for square in position.defenders().iter() {
            board.cells[index_of(square, size)] = DEFENDER;
            board.defender_count += 1;
        }
        if let Some(square) = position.king() {
            let index = index_of(square, size);
            board.cells[index] = KING;
            board.king = Some(index);
        }
        board
    }

    #[inline]
    pub fn file(&self, index: usize) -> usize {
        index % self.size
    }

    #[inline]
    pub fn rank(&self, index: usize) -> usize {
        index / self.size
    }

    #[inline]
    pub fn is_edge(&self, index: usize) -> bool {
        let (file, rank) = (self.file(index), self.rank(index));
        file == 0 || rank == 0 || file == self.size - 1 || rank == self.size - 1
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
            Some((rank * size + file) as usize)
        }
    }

    pub fn directions() -> [(i32, i32); 4] {
        DIRECTIONS
    }

    /// Is `index` empty for the king sliding from `from` (his own square counts as empty)?
    #[inline]
    fn free_for_king(&self, index: usize, from: usize) -> bool {
        self.cells[index] == EMPTY || self.cells[index] == KING || index == from
    }

    /// Corners the king would have an open line to if he stood on `from`
    /// (his real square counted as empty), as a 4-bit mask by corner order.
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
    /// (the squares an attacker must block), as a list.
    pub fn route_block_squares(&self, out: &mut ArrayVec<usize, 32>) {
        out.clear();
        let Some(king) = self.king else { return };
        for direction in DIRECTIONS {
            let mut line_len = 0;
            let mut current = king;
            let mut open = true;
            while let Some(next) = self.step(current, direction) {
                if self.cells[next] != EMPTY {
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
                if self.cells[next] != EMPTY {
                    break;
                }
                visit(next);
                current = next;
            }
        }
    }

    /// Can an attacker slide to the empty square `target` this move?
    pub fn attacker_can_reach(&self, target: usize) -> bool {
        if self.cells[target] != EMPTY || self.is_corner(target) || target == self.throne {
            return false;
        }
        for direction in DIRECTIONS {
            let mut current = target;
            while let Some(next) = self.step(current, direction) {
                match self.cells[next] {
                    ATTACKER => return true,
                    EMPTY if next == self.throne && self.rules != Rules::Tablut => current = next,
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
            None => self.rules == Rules::Tablut,
            Some(index) => {
                self.cells[index] == ATTACKER
                    || (index == self.throne && self.cells[index] == EMPTY)
                    || (self.rules == Rules::Tablut && self.is_corner(index))
            }
        }
    }

    /// Sides of the king that hold an attacker or count as hostile, when he can be captured where he
    /// stands at all; `None` when he cannot (Copenhagen and Fetlar: on the edge; or no king).
    pub fn king_pressure(&self) -> Option<(u32, Option<usize>)> {
        let king = self.king?;
        if self.rules != Rules::Tablut && self.is_edge(king) {
            return None;
        }
        let mut hostile = 0;
        let mut open = None;
        for direction in DIRECTIONS {
            let neighbour = self.step(king, direction);
            if self.hostile_to_king(neighbour) {
                hostile += 1;
            } else if let Some(index) = neighbour
                && self.cells[index] == EMPTY
            {
                open = Some(index);
            }
        }
        Some((hostile, open))
    }

    /// Can the attackers (to move) capture the king with their next move?
    pub fn king_capturable_now(&self) -> bool {
        match self.king_pressure() {
            Some((3, Some(open))) => self.attacker_can_reach(open),
            _ => false,
        }
    }

    /// Marks every square reachable from the `sources` by orthogonal steps through squares holding no
    /// attacker. Returns the number marked.
    pub fn flood_without_attackers(
        &self,
        sources: impl Iterator<Item = usize>,
        seen: &mut [bool; MAX_CELLS],
    ) -> usize {
        let mut stack = [0u8; MAX_CELLS];
        let mut top = 0;
        let mut count = 0;
        for source in sources {
            if !seen[source] && self.cells[source] != ATTACKER {
                seen[source] = true;
                stack[top] = source as u8;
                top += 1;
                count += 1;
            }
        }
        while top > 0 {
            top -= 1;
            let index = stack[top] as usize;
            for direction in DIRECTIONS {
                if let Some(next) = self.step(index, direction)
                    && !seen[next]
                    && self.cells[next] != ATTACKER
                {
                    seen[next] = true;
                    stack[top] = next as u8;
                    top += 1;
                    count += 1;
                }
            }
        }
        count
    }

    /// All edge squares' indices.
    pub fn edge_squares(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.size * self.size).filter(|&index| self.is_edge(index))
    }
}
