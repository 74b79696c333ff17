//! Move ordering: the table's move first (tried before any generation), then
//! wins and king-escape threats, blocks of an open corner line, captures,
//! killers, moves next to the king, and the history of quiet cut-offs.

use arrayvec::ArrayVec;

use super::eval::classic::{ATTACKER, CELLS, EMPTY, KING, Mailbox, index_of, square_of};
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
    /// A picker with no moves yet. A picker is filled where it stands ([`MovePicker::fill`]):
    /// returned by value, its kilobytes of moves would be copied at every node.
    pub fn empty() -> MovePicker {
        MovePicker {
            moves: ArrayVec::new(),
            next: 0,
        }
    }

    /// Takes `moves` but `skip`, scored for ordering, in place of any it held.
    pub fn fill(
        &mut self,
        board: &Mailbox,
        moves: &MoveList,
        skip: Option<Move>,
        killers: [Option<Move>; 2],
        history: &History,
        route_blocks: &[usize],
    ) {
        let scored = &mut self.moves;
        scored.clear();
        self.next = 0;
        let side = board.side_to_move;
        let king_facts = KingFacts::new(board);
        let captures = CaptureSquares::new(board);
        for &mv in moves.iter() {
            if Some(mv) == skip {
                continue;
            }
            let mut score = static_order(board, &king_facts, &captures, mv, route_blocks);
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
    captures: &CaptureSquares,
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
    let captured = captures.count(board, from, to);
    if captured > 0 {
        score += ORDER_CAPTURE + captured * ORDER_CAPTURE_EACH;
    }
    score
}

/// The squares a piece of the side to move takes an enemy from, one set per direction (in
/// [`Mailbox::directions`]' order): an enemy soldier next to the square that way, and beyond it a
/// square hostile to him (a piece of the mover's side, a corner, the throne where it is hostile).
/// Found once per node with a few shifts; a move's captures are then a bit test per direction (an
/// estimate as before: shieldwalls and rule details are left to the rules).
pub(crate) struct CaptureSquares {
    by_direction: [Bitboard; 4],
    throne: usize,
}

impl CaptureSquares {
    pub fn new(board: &Mailbox) -> CaptureSquares {
        let throne = Bitboard::from_square(square_of(board.throne));
        let throne_empty = board.cell(board.throne) == EMPTY;
        let king = board.king.map_or(Bitboard::EMPTY, |king| {
            Bitboard::from_square(square_of(king))
        });
        let (victims, hostile) = match board.side_to_move {
            Side::Attackers => {
                let throne_hostile = throne_empty || board.rules.throne_always_hostile();
                let throne = if throne_hostile {
                    throne
                } else {
                    Bitboard::EMPTY
                };
                (board.defenders, board.attackers | board.corners | throne)
            }
            // The throne is hostile to attackers, empty or not.
            Side::Defenders => (
                board.attackers,
                board.defenders | king | board.corners | throne,
            ),
        };
        CaptureSquares {
            by_direction: [
                victims.west() & hostile.west().west(),
                victims.east() & hostile.east().east(),
                victims.south() & hostile.south().south(),
                victims.north() & hostile.north().north(),
            ],
            throne: board.throne,
        }
    }

    /// Enemies the move from `from` to `to` takes. The mover's own square is empty once he has
    /// left it, so it is hostile beyond a victim only if it is the throne (the king leaving it).
    #[inline]
    fn count(&self, board: &Mailbox, from: usize, to: usize) -> i32 {
        let mut count = 0;
        for (set, direction) in self.by_direction.iter().zip(Mailbox::directions()) {
            if set.contains(square_of(to))
                && (from == self.throne
                    || board
                        .step(to, direction)
                        .and_then(|victim| board.step(victim, direction))
                        != Some(from))
            {
                count += 1;
            }
        }
        count
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{BoardSize, Position, Rules, Variant, splitmix};
    use crate::search::eval::classic::DEFENDER;

    /// The captures of a move counted by walking the mailbox square by square, as the ordering
    /// did before the capture squares.
    fn walked_captures(board: &Mailbox, from: usize, to: usize) -> i32 {
        let mover_is_attacker = board.cell(from) == ATTACKER;
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
            let Some(beyond) = board.step(victim, direction) else {
                continue;
            };
            if !is_enemy {
                continue;
            }
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

    #[test]
    fn capture_squares_count_as_walking_the_board_does() {
        let mut state = 23u64;
        let mut captures = 0;
        for rules in Rules::ALL {
            for size in BoardSize::ALL {
                let variant = Variant::new(rules, size);
                for _ in 0..20 {
                    let mut position = Position::start(variant);
                    for _ in 0..200 {
                        let moves = position.legal_moves();
                        if moves.is_empty() || position.status().is_over() {
                            break;
                        }
                        let board = Mailbox::new(&position);
                        let squares = CaptureSquares::new(&board);
                        for &mv in moves.iter() {
                            let (from, to) = (index_of(mv.from), index_of(mv.to));
                            let expected = walked_captures(&board, from, to);
                            assert_eq!(
                                squares.count(&board, from, to),
                                expected,
                                "{position} {mv}"
                            );
                            captures += expected;
                        }
                        state = splitmix(state);
                        position.play_unchecked(moves[(state % moves.len() as u64) as usize]);
                    }
                }
            }
        }
        assert!(captures > 1000, "only {captures} captures seen");
    }
}
