//! The static evaluation: a tafl position scored from the side to move's view.
//!
//! Terms (weights in `params.rs`), all computed for the attackers and negated
//! for the defenders:
//! - material, with attackers worth more once few are left;
//! - the king's routes to corners: open lines now, corners reachable in two
//!   moves, and squares giving a double threat (two corners open at once);
//! - king freedom (squares he can slide to) and his distance to a corner;
//! - king danger: sides held by attackers or hostile squares, where the
//!   ruleset lets him be captured (Tablut counts the edge, Copenhagen and
//!   Fetlar never capture an edge king);
//! - the attackers' cordon: diagonal links, the king or defenders cut off from
//!   the edge (encirclement pressure), and the size of the king's pocket;
//! - corners: sealed off from the king's region (no path of non-attacker
//!   squares from him), guards on the a3-b2-c1 diagonal and b3/c2, none on
//!   a2/b1 (capturable against the corner);
//! - edge forts in Copenhagen: the king on the edge walled by defenders.

use super::board::{ATTACKER, Board, DEFENDER, square_of};
use super::params::*;
use crate::rules::Bitboard;
use crate::rules::{Position, Rules, Side};

/// Static evaluation, side to move's view, within ±100,000 (never a won or lost score).
pub fn evaluate(position: &Position) -> i32 {
    evaluate_board(&Board::new(position))
}

pub(crate) fn evaluate_board(board: &Board) -> i32 {
    let for_attackers = attackers_view(board);
    let score = match board.side_to_move {
        Side::Attackers => for_attackers + TEMPO,
        Side::Defenders => -for_attackers + TEMPO,
    };
    score.clamp(-EVAL_LIMIT, EVAL_LIMIT)
}

fn attackers_view(board: &Board) -> i32 {
    let mut score = material(board);
    score += diagonal_links(board);
    if board.king.is_some() {
        let king_region = board.king_pocket();
        score += corner_guards(board, king_region);
        score -= king_routes(board);
        score += king_danger(board);
        score += encirclement(board, king_region);
        if board.rules == Rules::Copenhagen {
            score -= edge_fort(board);
        }
    } else {
        // The king is gone: the game is over; the search scores it. Keep it decisive anyway.
        score += EVAL_LIMIT / 2;
    }
    score
}

fn material(board: &Board) -> i32 {
    let mut score = board.attacker_count * ATTACKER_VALUE - board.defender_count * DEFENDER_VALUE;
    if board.attacker_count < SCARCE_ATTACKER_COUNT {
        score -= (SCARCE_ATTACKER_COUNT - board.attacker_count) * SCARCE_ATTACKER_BONUS;
    }
    score
}

/// What the king's mobility and routes are worth to the defenders.
fn king_routes(board: &Board) -> i32 {
    let king = board.king.expect("checked by the caller");
    let mut score = 0;
    let mut reach = 0;
    let mut corners_in_two = 0u8;
    let mut double_threats = 0;
    board.for_each_king_destination(|square| {
        reach += 1;
        let lines = board.open_corner_lines(square);
        corners_in_two |= lines;
        if lines.count_ones() >= 2 {
            double_threats += 1;
        }
    });
    score += reach * KING_MOBILITY;
    score += corners_in_two.count_ones() as i32 * KING_ROUTE_TWO_MOVES;
    if double_threats > 0 {
        // With the defenders to move this is a win in two unless the king can be taken; with the
        // attackers to move they get one move to spoil it.
        score += match board.side_to_move {
            Side::Defenders => 3 * KING_DOUBLE_THREAT_SQUARE,
            Side::Attackers => KING_DOUBLE_THREAT_SQUARE,
        };
    }
    score += board.open_corner_lines(king).count_ones() as i32 * KING_OPEN_ROUTE;
    let last = board.size - 1;
    let (file, rank) = (board.file(king), board.rank(king));
    let to_corner = file.min(last - file) + rank.min(last - rank);
    score += (board.size - to_corner.min(board.size)) as i32 * KING_CORNER_PROXIMITY;
    score
}

/// Attackers' hold on the king where he can be captured.
fn king_danger(board: &Board) -> i32 {
    match board.king_pressure() {
        Some((sides, _)) => KING_PRESSURE[sides.min(4) as usize],
        None => 0,
    }
}

/// The cordon: the king and defenders cut off from the edge.
fn encirclement(board: &Board, king_region: Bitboard) -> i32 {
    let open = board.open_to_edge();
    let mut score = board.defenders.minus(open).len() as i32 * DEFENDER_ENCLOSED;
    let king = board.king.expect("checked by the caller");
    if !open.contains(square_of(king)) {
        let area = (board.size * board.size) as i32;
        let pocket = king_region.len() as i32;
        score += KING_ENCLOSED + (area - pocket).max(0) * KING_POCKET_SQUARE;
    }
    score
}

/// Links of the attackers' chain: pairs touching diagonally.
fn diagonal_links(board: &Board) -> i32 {
    let up = board.attackers.north();
    let links = (board.attackers & up.east()).len() + (board.attackers & up.west()).len();
    links as i32 * ATTACKER_DIAGONAL_LINK
}

fn corner_guards(board: &Board, king_region: Bitboard) -> i32 {
    let last = board.size as i32 - 1;
    let mut score = 0;
    for (corner_file, corner_rank) in [(0, 0), (last, 0), (0, last), (last, last)] {
        if !king_region.contains(square_of(
            board.at(corner_file as usize, corner_rank as usize),
        )) {
            score += CORNER_SEALED;
        }
        // Steps pointing from the corner into the board.
        let toward_file = if corner_file == 0 { 1 } else { -1 };
        let toward_rank = if corner_rank == 0 { 1 } else { -1 };
        let held = |squares: &[(i32, i32)]| {
            squares
                .iter()
                .filter(|&&(dfile, drank)| {
                    let file = corner_file + dfile * toward_file;
                    let rank = corner_rank + drank * toward_rank;
                    board.cells[board.at(file as usize, rank as usize)] == ATTACKER
                })
                .count() as i32
        };
        score += held(&[(0, 2), (1, 1), (2, 0)]) * CORNER_GUARD;
        score += held(&[(1, 2), (2, 1)]) * CORNER_GUARD_OUTER;
        score += held(&[(0, 1), (1, 0)]) * CORNER_NEIGHBOUR;
    }
    score
}

/// Copenhagen's exit fort: an edge king walled by his defenders.
fn edge_fort(board: &Board) -> i32 {
    let king = board.king.expect("checked by the caller");
    if !board.is_edge(king) {
        return 0;
    }
    let mut score = FORT_KING_ON_EDGE;
    for dfile in -1..=1 {
        for drank in -1..=1 {
            if (dfile, drank) == (0, 0) {
                continue;
            }
            if let Some(next) = board.step(king, (dfile, drank)) {
                match board.cells[next] {
                    DEFENDER => score += FORT_WALL_DEFENDER,
                    ATTACKER => score -= FORT_ATTACKER_NEAR,
                    _ => {}
                }
            }
        }
    }
    score
}
