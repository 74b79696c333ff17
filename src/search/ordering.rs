//! Move ordering: the table's move first (tried before any generation), then
//! wins and king-escape threats, blocks of an open corner line, captures,
//! killers, moves next to the king, and the history of quiet cut-offs.

use arrayvec::ArrayVec;

use super::eval::classic::{ATTACKER, CELLS, DEFENDER, EMPTY, KING, Mailbox, index_of, square_of};
use super::params::*;
use crate::rules::{Bitboard, BySide, MAX_MOVES, Move, MoveList, Side};

/// The history of quiet cut-offs: a score for each side's moves, by from and to square.
pub(crate) struct History(BySide<Box<[i32]>>);

impl History {
    pub fn new() -> History {
        History(BySide::from_fn(|_| {
            vec![0; CELLS * CELLS].into_boxed_slice()
        }))
    }

    /// Forgets every cut-off (a new search).
    pub fn clear(&mut self) {
        self.0.iter_mut().for_each(|moves| moves.fill(0));
    }

    #[inline]
    fn index(mv: Move) -> usize {
        index_of(mv.from) * CELLS + index_of(mv.to)
    }

    #[inline]
    pub fn score(&self, side: Side, mv: Move) -> i32 {
        self.0[side][History::index(mv)]
    }

    /// `mv` cut off after the quiet moves `tried`: it gains `bonus`, they lose half of it; past
    /// [`HISTORY_MAX`] every score is halved.
    pub fn reward(&mut self, side: Side, bonus: i32, mv: Move, tried: &[Move]) {
        let moves = &mut self.0[side];
        let index = History::index(mv);
        moves[index] += bonus;
        for &other in tried {
            let other = History::index(other);
            moves[other] = (moves[other] - bonus / 2).max(-HISTORY_MAX);
        }
        if moves[index] > HISTORY_MAX {
            self.0
                .iter_mut()
                .for_each(|moves| moves.iter_mut().for_each(|value| *value /= 2));
        }
    }
}

/// Moves with their ordering scores, handed out best first.
pub(crate) struct MovePicker {
    moves: ArrayVec<(i32, Move), MAX_MOVES>,
    next: usize,
}

/// Moves picked one by one before the rest are sorted at once (most nodes cut early).
const PICK_BEFORE_SORT: usize = 6;

impl MovePicker {
    pub fn new(
        board: &Mailbox,
        moves: &MoveList,
        skip: Option<Move>,
        killers: [Option<Move>; 2],
        history: &History,
        route_blocks: &[usize],
    ) -> MovePicker {
        let mut scored = ArrayVec::new();
        let side = board.side_to_move;
        let king_facts = KingFacts::new(board);
        for &mv in moves.iter() {
            if Some(mv) == skip {
                continue;
            }
            let mut score = static_order(board, &king_facts, mv, route_blocks);
            if score < ORDER_KILLER_SECOND {
                if Some(mv) == killers[0] {
                    score = ORDER_KILLER_FIRST;
                } else if Some(mv) == killers[1] {
                    score = ORDER_KILLER_SECOND;
                } else {
                    score += history.score(side, mv);
                }
            }
            scored.push((score, mv));
        }
        MovePicker {
            moves: scored,
            next: 0,
        }
    }

    /// The next move and its ordering score.
    #[inline]
    pub fn next(&mut self) -> Option<(i32, Move)> {
        let remaining = &mut self.moves[self.next..];
        if remaining.is_empty() {
            return None;
        }
        if self.next < PICK_BEFORE_SORT {
            let best =
                (0..remaining.len()).max_by_key(|&i| (remaining[i].0, std::cmp::Reverse(i)))?;
            remaining.swap(0, best);
        } else if self.next == PICK_BEFORE_SORT {
            remaining.sort_by_key(|scored| std::cmp::Reverse(scored.0));
        }
        self.next += 1;
        Some(self.moves[self.next - 1])
    }
}

/// What move ordering needs to know of the king, found once per node.
pub(crate) struct KingFacts {
    /// The square that would complete his capture, with three sides closed.
    capture_square: Option<usize>,
    /// His neighbours (`usize::MAX` where off the board), when he can be captured where he stands.
    neighbours: [usize; 4],
    /// Squares the king can slide to from which two corners (`double`) or one (`single`) are open:
    /// attackers who stand there take the threat away.
    double_threats: Bitboard,
    single_threats: Bitboard,
}

impl KingFacts {
    pub fn new(board: &Mailbox) -> KingFacts {
        let mut neighbours = [usize::MAX; 4];
        if board.king_pressure().is_some()
            && let Some(king) = board.king
        {
            for (slot, direction) in neighbours.iter_mut().zip(Mailbox::directions()) {
                *slot = board.step(king, direction).unwrap_or(usize::MAX);
            }
        }
        let (mut double_threats, mut single_threats) = (Bitboard::EMPTY, Bitboard::EMPTY);
        if board.side_to_move == Side::Attackers {
            board.for_each_king_destination(|square| {
                match board.open_corner_lines(square).count_ones() {
                    0 => {}
                    1 => single_threats = single_threats.with(square_of(square)),
                    _ => double_threats = double_threats.with(square_of(square)),
                }
            });
        }
        KingFacts {
            capture_square: board.king_capture_square(),
            neighbours,
            double_threats,
            single_threats,
        }
    }
}

/// Everything known about a move without the killers and history.
pub(crate) fn static_order(
    board: &Mailbox,
    king: &KingFacts,
    mv: Move,
    route_blocks: &[usize],
) -> i32 {
    let from = index_of(mv.from);
    let to = index_of(mv.to);
    let piece = board.cell(from);
    let mut score = 0;
    if piece == KING {
        if board.is_corner(to) {
            return ORDER_WIN;
        }
        let lines = board.open_corner_lines(to).count_ones() as i32;
        if lines > 0 {
            score += ORDER_KING_ESCAPE_THREAT + lines * ORDER_CAPTURE_EACH;
        }
    }
    if piece == ATTACKER {
        if king.capture_square == Some(to) {
            return ORDER_WIN;
        }
        if route_blocks.contains(&to) || king.double_threats.contains(square_of(to)) {
            score += ORDER_BLOCK_ROUTE;
        } else if king.single_threats.contains(square_of(to)) {
            score += ORDER_KING_NEIGHBOUR;
        }
        if king.neighbours.contains(&to) {
            score += ORDER_KING_NEIGHBOUR;
        }
    }
    let captured = count_captures(board, piece, from, to);
    if captured > 0 {
        score += ORDER_CAPTURE + captured * ORDER_CAPTURE_EACH;
    }
    score
}

/// Custodial captures the move would make, as the rules take them (an estimate: shieldwalls and
/// rule details are left to the rules).
fn count_captures(board: &Mailbox, piece: u8, from: usize, to: usize) -> i32 {
    let mover_is_attacker = piece == ATTACKER;
    let mut count = 0;
    for direction in Mailbox::directions() {
        let Some(victim) = board.step(to, direction) else {
            continue;
        };
        let victim_piece = board.cell(victim);
        let is_enemy = if mover_is_attacker {
            victim_piece == DEFENDER
        } else {
            victim_piece == ATTACKER
        };
        if !is_enemy {
            continue;
        }
        let Some(beyond) = board.step(victim, direction) else {
            continue;
        };
        let beyond_piece = if beyond == from {
            EMPTY
        } else {
            board.cell(beyond)
        };
        let hostile = if mover_is_attacker {
            beyond_piece == ATTACKER
        } else {
            beyond_piece == DEFENDER || beyond_piece == KING
        } || board.is_corner(beyond)
            || (beyond == board.throne
                && (beyond_piece == EMPTY
                    || board.rules.throne_always_hostile()
                    || victim_piece == ATTACKER));
        if hostile {
            count += 1;
        }
    }
    count
}
