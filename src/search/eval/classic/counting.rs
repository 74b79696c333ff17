//! Counting the terms: a tafl position scored from the side to move's view.
//!
//! The evaluation is a weighted sum: it counts [`Term`]s in the position (how
//! many attackers, how many corners the king reaches in two moves, ...) and
//! multiplies each count by its weight (`params.rs`, [`WEIGHTS`]). Counts are
//! taken from the attackers' view: a term that favours the defenders counts
//! negative. Being linear in the weights is what lets `tafl tune` fit them to
//! real games (`lab/tune.rs` counts into a tally of its own).
//!
//! The terms, in groups:
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
//! - edge forts in Copenhagen: the king on the edge walled by defenders;
//! - the tempo: moving next.

use super::mailbox::{ATTACKER, DEFENDER, Mailbox, square_of};
use super::params::{SCARCE_ATTACKER_COUNT, WEIGHTS};
use strum::EnumCount;

use super::term::Term;
use super::weights::Weights;
use crate::rules::{Bitboard, Position, Side};
use crate::search::params::EVAL_LIMIT;

/// Where the evaluation puts each term's count: a running score, or the counts themselves.
trait Tally {
    /// `count` of `term`, from the attackers' view (negative for what favours the defenders).
    fn add(&mut self, term: Term, count: i32);
}

/// The weighted sum, as the search wants it.
struct Score<'a> {
    weights: &'a Weights,
    total: i32,
}

impl Tally for Score<'_> {
    #[inline]
    fn add(&mut self, term: Term, count: i32) {
        self.total += self.weights[term] * count;
    }
}

/// Every term's count in one position, from the attackers' view: what the tuner fits weights to
/// and what a network of [`FeatureSet::PiecesAndTerms`](crate::search::eval::nnue::FeatureSet)
/// sees besides the pieces.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct TermCounts(pub [i32; Term::COUNT]);

impl TermCounts {
    /// The counts of `board`.
    pub fn of(board: &Mailbox) -> TermCounts {
        let mut counts = TermCounts::default();
        count_terms(board, &mut counts);
        counts
    }
}

impl Tally for TermCounts {
    #[inline]
    fn add(&mut self, term: Term, count: i32) {
        self.0[term as usize] += count;
    }
}

/// Static evaluation with the built-in weights, side to move's view, within ±100,000 (never a won
/// or lost score).
pub fn evaluate(position: &Position) -> i32 {
    evaluate_board(&Mailbox::new(position), &WEIGHTS)
}

/// Static evaluation of `board` with `weights`, side to move's view.
pub(crate) fn evaluate_board(board: &Mailbox, weights: &Weights) -> i32 {
    let mut score = Score { weights, total: 0 };
    count_terms(board, &mut score);
    let for_side_to_move = match board.side_to_move {
        Side::Attackers => score.total,
        Side::Defenders => -score.total,
    };
    for_side_to_move.clamp(-EVAL_LIMIT, EVAL_LIMIT)
}

/// Counts every term of `board` into `tally`, from the attackers' view.
fn count_terms(board: &Mailbox, tally: &mut impl Tally) {
    tally.add(
        Term::Tempo,
        match board.side_to_move {
            Side::Attackers => 1,
            Side::Defenders => -1,
        },
    );
    material(board, tally);
    diagonal_links(board, tally);
    if board.king.is_some() {
        let king_region = board.king_pocket();
        corner_guards(board, king_region, tally);
        king_routes(board, tally);
        king_danger(board, tally);
        encirclement(board, king_region, tally);
        if board.rules.has_exit_fort() {
            edge_fort(board, tally);
        }
    }
}

fn material(board: &Mailbox, tally: &mut impl Tally) {
    tally.add(Term::Attacker, board.attacker_count);
    tally.add(Term::Defender, -board.defender_count);
    tally.add(
        Term::ScarceAttacker,
        -(SCARCE_ATTACKER_COUNT - board.attacker_count).max(0),
    );
}

/// The king's mobility and routes (the defenders' terms).
fn king_routes(board: &Mailbox, tally: &mut impl Tally) {
    let king = board.king.expect("checked by the caller");
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
    tally.add(Term::KingMobility, -reach);
    tally.add(
        Term::KingRouteTwoMoves,
        -(corners_in_two.count_ones() as i32),
    );
    if double_threats > 0 {
        // With the defenders to move this is a win in two unless the king can be taken; with the
        // attackers to move they get one move to spoil it.
        let term = match board.side_to_move {
            Side::Defenders => Term::KingDoubleThreatToMove,
            Side::Attackers => Term::KingDoubleThreatWaiting,
        };
        tally.add(term, -1);
    }
    tally.add(
        Term::KingOpenRoute,
        -(board.open_corner_lines(king).count_ones() as i32),
    );
    let last = board.size - 1;
    let (file, rank) = (board.file(king), board.rank(king));
    let to_corner = file.min(last - file) + rank.min(last - rank);
    tally.add(
        Term::KingCornerProximity,
        -((board.size - to_corner.min(board.size)) as i32),
    );
}

/// Attackers' hold on the king where he can be captured.
fn king_danger(board: &Mailbox, tally: &mut impl Tally) {
    const BY_SIDES_HELD: [Term; 4] = [
        Term::KingPressureOne,
        Term::KingPressureTwo,
        Term::KingPressureThree,
        Term::KingPressureFour,
    ];
    if let Some((sides, _)) = board.king_pressure()
        && sides > 0
    {
        tally.add(BY_SIDES_HELD[sides.min(4) as usize - 1], 1);
    }
}

/// The cordon: the king and defenders cut off from the edge.
fn encirclement(board: &Mailbox, king_region: Bitboard, tally: &mut impl Tally) {
    let open = board.open_to_edge(king_region);
    tally.add(
        Term::DefenderEnclosed,
        board.defenders.minus(open).len() as i32,
    );
    let king = board.king.expect("checked by the caller");
    if !open.contains(square_of(king)) {
        let area = (board.size * board.size) as i32;
        let pocket = king_region.len() as i32;
        tally.add(Term::KingEnclosed, 1);
        tally.add(Term::KingPocketSquare, (area - pocket).max(0));
    }
}

/// Links of the attackers' chain: pairs touching diagonally.
fn diagonal_links(board: &Mailbox, tally: &mut impl Tally) {
    let up = board.attackers.north();
    let links = (board.attackers & up.east()).len() + (board.attackers & up.west()).len();
    tally.add(Term::AttackerDiagonalLink, links as i32);
}

fn corner_guards(board: &Mailbox, king_region: Bitboard, tally: &mut impl Tally) {
    let last = board.size as i32 - 1;
    for (corner_file, corner_rank) in [(0, 0), (last, 0), (0, last), (last, last)] {
        if !king_region.contains(square_of(
            board.at(corner_file as usize, corner_rank as usize),
        )) {
            tally.add(Term::CornerSealed, 1);
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
                    board.cell(board.at(file as usize, rank as usize)) == ATTACKER
                })
                .count() as i32
        };
        tally.add(Term::CornerGuard, held(&[(0, 2), (1, 1), (2, 0)]));
        tally.add(Term::CornerGuardOuter, held(&[(1, 2), (2, 1)]));
        tally.add(Term::CornerNeighbour, held(&[(0, 1), (1, 0)]));
    }
}

/// Copenhagen's exit fort: an edge king walled by his defenders.
fn edge_fort(board: &Mailbox, tally: &mut impl Tally) {
    let king = board.king.expect("checked by the caller");
    if !board.is_edge(king) {
        return;
    }
    tally.add(Term::FortKingOnEdge, -1);
    for dfile in -1..=1 {
        for drank in -1..=1 {
            if (dfile, drank) == (0, 0) {
                continue;
            }
            if let Some(next) = board.step(king, (dfile, drank)) {
                match board.cell(next) {
                    DEFENDER => tally.add(Term::FortWallDefender, -1),
                    ATTACKER => tally.add(Term::FortAttackerNear, 1),
                    _ => {}
                }
            }
        }
    }
}
