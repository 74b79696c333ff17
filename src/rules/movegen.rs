//! Move generation: every piece slides like a rook.

use super::bitboard::Bitboard;
use super::moves::{Move, MoveList};
use super::position::Position;
use super::side::Side;
use super::square::Square;

/// The squares a rook at `at` reaches along a line whose pieces are the bits
/// of `occupied`, on a board `width` squares wide.
#[inline(always)]
fn line_reach(occupied: u32, at: u32, width: u32) -> u32 {
    // Upwards: everything between `at` and the first blocker (or the edge).
    let above = (occupied | 1 << width) & !((2 << at) - 1);
    let up = (above & above.wrapping_neg()) - (2 << at);
    // Downwards: a sentinel below square 0 stands in for the edge.
    let below = ((occupied << 1) | 1) & ((2 << at) - 1);
    let blocker = 31 - below.leading_zeros();
    let down = (1 << at) - (1 << blocker);
    up | down
}

impl Position {
    /// The squares a piece on `square` may move to, as bits of its rank (by
    /// file) and of its file (by rank).
    #[inline(always)]
    pub(crate) fn reach(&self, square: Square, occupied: Bitboard, is_king: bool) -> (u32, u32) {
        let (file, rank) = (square.file(), square.rank());
        (
            self.reach_in_line(occupied.rank_bits(rank), file, rank, is_king),
            self.reach_in_line(self.occupied_by_file.rank_bits(file), rank, file, is_king),
        )
    }

    /// The squares a piece may move to along one line: `pieces` are the
    /// line's pieces as bits, `at` is the piece's place in it and `line` the
    /// line's own index (a rank, or a file read on the transposed board,
    /// which has the same throne and corners).
    #[inline(always)]
    pub(crate) fn reach_in_line(&self, mut pieces: u32, at: u8, line: u8, is_king: bool) -> u32 {
        let geometry = self.geometry();
        let width = u32::from(geometry.size);
        if is_king {
            return line_reach(pieces, u32::from(at), width);
        }
        if self.variant.rules.throne_bars_soldiers() {
            pieces |= geometry.throne_in_line[line as usize];
        }
        line_reach(pieces, u32::from(at), width) & !geometry.restricted_in_line[line as usize]
    }

    /// Every legal move of the side to move; none once the game is over.
    #[must_use]
    #[inline(always)]
    pub fn legal_moves(&self) -> MoveList {
        let mut moves = MoveList::new();
        if self.status.is_over() {
            return moves;
        }
        let occupied = self.occupied();
        for from in self.pieces(self.side_to_move).squares() {
            self.push_moves_from(from, occupied, &mut moves);
        }
        moves
    }

    /// [`Position::legal_moves`] in the order the service lists them: by
    /// the square moved from, then the square moved to, each by file, then
    /// rank. Listed in that order rather than sorted after.
    #[must_use]
    pub fn legal_moves_by_file(&self) -> MoveList {
        self.moves_by_file(self.pieces(self.side_to_move))
    }

    /// The legal moves of the piece on `from`, if it belongs to the side to
    /// move and the game goes on, by the square moved to's file, then rank.
    #[must_use]
    pub fn legal_moves_from(&self, from: Square) -> MoveList {
        self.moves_by_file(self.pieces(self.side_to_move) & Bitboard::from_square(from))
    }

    /// The legal moves of `pieces`, the side to move's, in the service's order.
    fn moves_by_file(&self, pieces: Bitboard) -> MoveList {
        let mut moves = MoveList::new();
        if !self.status.is_over() {
            let occupied = self.occupied();
            for from in pieces.iter() {
                self.push_moves_by_file(from, occupied, &mut moves);
            }
        }
        moves
    }

    /// Every legal move of the side to move that takes at least one piece,
    /// by custodial capture or a shieldwall: exactly the moves whose
    /// [`Position::play`] reports captures (taking the king ends the game and
    /// is the status's business, not a capture). A search follows these past
    /// its horizon. Found without listing the other moves: only the
    /// destinations where a capture can happen are looked at.
    ///
    /// ```
    /// use tafl::rules::{Game, Rules, Variant};
    ///
    /// let mut game = Game::new(Variant::standard(Rules::Copenhagen));
    /// assert!(game.position().capturing_moves().is_empty());
    /// for text in ["d1-d3", "e5-e2", "g1-g3", "f4-c4"] {
    ///     game.play(text)?;
    /// }
    /// let captures: Vec<String> = game.position().capturing_moves().iter().map(|mv| mv.to_string()).collect();
    /// assert_eq!(captures, ["d3-e3", "d3-d2", "g3-e3"]); // each takes the defender on e2
    /// # Ok::<(), tafl::rules::GameError>(())
    /// ```
    #[must_use]
    pub fn capturing_moves(&self) -> MoveList {
        let mut moves = MoveList::new();
        if self.status.is_over() {
            return moves;
        }
        let custodial = self.custodial_capture_squares();
        let shieldwall = self.shieldwall_squares();
        let targets = custodial | shieldwall;
        if targets.is_empty() {
            return moves;
        }
        let occupied = self.occupied();
        for from in self.pieces(self.side_to_move).squares() {
            let (along_rank, along_file) = self.reach(from, occupied, self.king.contains(from));
            let mut consider = |to: Square| {
                let mv = Move { from, to };
                if custodial.contains(to)
                    || (shieldwall.contains(to) && !{ *self }.play_unchecked(mv).is_empty())
                {
                    moves.push(mv);
                }
            };
            for_each_bit(along_rank & targets.rank_bits(from.rank()), |file| {
                consider(Square::new(file, from.rank()).expect("on the board"));
            });
            for_each_bit(along_file, |rank| {
                let to = Square::new(from.file(), rank).expect("on the board");
                if targets.contains(to) {
                    consider(to);
                }
            });
        }
        moves
    }

    #[inline(always)]
    fn push_moves_from(&self, from: Square, occupied: Bitboard, moves: &mut MoveList) {
        let (along_rank, along_file) = self.reach(from, occupied, self.king.contains(from));
        for_each_bit(along_rank, |file| {
            moves.push(Move {
                from,
                to: Square::new(file, from.rank()).expect("on the board"),
            });
        });
        for_each_bit(along_file, |rank| {
            moves.push(Move {
                from,
                to: Square::new(from.file(), rank).expect("on the board"),
            });
        });
    }

    /// [`Position::push_moves_from`] by the square moved to's file, then
    /// rank: along the rank to the west, along the file, then to the east.
    fn push_moves_by_file(&self, from: Square, occupied: Bitboard, moves: &mut MoveList) {
        let (along_rank, along_file) = self.reach(from, occupied, self.king.contains(from));
        let west = along_rank & ((1 << from.file()) - 1);
        let mut push = |file, rank| {
            let to = Square::new(file, rank).expect("on the board");
            moves.push(Move { from, to });
        };
        for_each_bit(west, |file| push(file, from.rank()));
        for_each_bit(along_file, |rank| push(from.file(), rank));
        for_each_bit(along_rank & !west, |file| push(file, from.rank()));
    }

    /// How many legal moves the side to move has (0 once the game is over).
    ///
    /// Counted without listing them: the soldiers' moves all at once by
    /// direction (`Bitboard::count_rank_slides`, on the board and on its
    /// transposed copy), the king's apart, as he alone may cross or stop on
    /// the throne and the corners.
    #[must_use]
    #[inline(always)]
    pub fn count_legal_moves(&self) -> u64 {
        if self.status.is_over() {
            return 0;
        }
        let geometry = self.geometry();
        let occupied = self.occupied();
        // The board, its corners and throne are the same transposed.
        let mut open = geometry.board.minus(occupied);
        let mut open_by_file = geometry.board.minus(self.occupied_by_file);
        if self.variant.rules.throne_bars_soldiers() {
            open = open.without(geometry.throne);
            open_by_file = open_by_file.without(geometry.throne);
        }
        let (soldiers, soldiers_by_file) = match self.side_to_move {
            Side::Attackers => (self.attackers, self.attackers_by_file),
            Side::Defenders => (self.defenders, self.defenders_by_file),
        };
        let mut count = soldiers.count_rank_slides(open, geometry.soldier_stops)
            + soldiers_by_file.count_rank_slides(open_by_file, geometry.soldier_stops);
        if self.side_to_move == Side::Defenders
            && let Some(king) = self.king.first()
        {
            let (along_rank, along_file) = self.reach(king, occupied, true);
            count += along_rank.count_ones() + along_file.count_ones();
        }
        u64::from(count)
    }

    /// The empty squares one step east or west of `pieces` where any piece
    /// may stop: each a move of theirs, found for all at once (those shifts
    /// stay inside each rank's lane: the cheapest test of a side's moves).
    #[inline(always)]
    pub(crate) fn sideways_steps(&self, pieces: Bitboard) -> Bitboard {
        (pieces.east() | pieces.west()) & self.geometry().soldier_stops.minus(self.occupied())
    }

    /// Whether the side to move has a legal move, whatever the status says.
    #[inline(always)]
    pub(crate) fn has_legal_move(&self) -> bool {
        let occupied = self.occupied();
        let pieces = self.pieces(self.side_to_move);
        // Almost always some piece can step east or west.
        if !self.sideways_steps(pieces).is_empty() {
            return true;
        }
        pieces.squares().any(|square| {
            let (along_rank, along_file) = self.reach(square, occupied, self.king.contains(square));
            along_rank | along_file != 0
        })
    }
}

#[inline(always)]
fn for_each_bit(mut bits: u32, mut f: impl FnMut(u8)) {
    while bits != 0 {
        f(bits.trailing_zeros() as u8);
        bits &= bits - 1;
    }
}
