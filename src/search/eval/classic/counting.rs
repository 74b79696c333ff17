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

/// The classic evaluation with the built-in weights, side to move's view, within ±100,000 (never a
/// won or lost score). The engine's own static evaluation, which scores with its network where it
/// has one for the variant, is [`Engine::static_eval`](crate::search::Engine::static_eval).
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

/// The cordon: the king and defenders cut off from the edge. The king's pocket is one region,
/// open if it touches the edge; the rest of the board is flooded only for defenders outside it.
fn encirclement(board: &Mailbox, king_region: Bitboard, tally: &mut impl Tally) {
    let king_open = king_region.intersects(board.edge);
    let outside = board.defenders.minus(king_region);
    let enclosed_outside = if outside.is_empty() {
        0
    } else {
        outside.minus(board.open_to_edge(king_region)).len()
    };
    let enclosed_inside = if king_open {
        0
    } else {
        (board.defenders & king_region).len()
    };
    tally.add(
        Term::DefenderEnclosed,
        (enclosed_inside + enclosed_outside) as i32,
    );
    if !king_open {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{BoardSize, Game, PositionText, Rules, Square, Variant, splitmix};

    /// `encirclement`'s counts against their plain definition: the defenders and the king that no
    /// path of squares without attackers links to the edge. Returns the defenders cut off.
    fn check_the_cordon(position: &Position) -> i32 {
        let board = Mailbox::new(position);
        let Some(king) = board.king else { return 0 };
        let mut counts = TermCounts::default();
        encirclement(&board, board.king_pocket(), &mut counts);
        let open = board.edge.flood(board.on_board.minus(board.attackers));
        let cut_off = board.defenders.minus(open).len() as i32;
        assert_eq!(
            counts.0[Term::DefenderEnclosed as usize],
            cut_off,
            "{position}"
        );
        let king_cut_off = !open.contains(square_of(king));
        assert_eq!(
            counts.0[Term::KingEnclosed as usize],
            i32::from(king_cut_off),
            "{position}"
        );
        cut_off
    }

    /// The cordon, which floods the rest of the board only for defenders outside the king's
    /// pocket, equals its plain definition in the real games and on random placements on every
    /// board, dense enough in attackers to close many cordons.
    #[test]
    fn the_cordon_equals_its_plain_definition() {
        let games = include_str!("../../../../tests/data/copenhagen-games.csv");
        for line in games.lines() {
            let mut game = Game::new(Variant::standard(Rules::Copenhagen));
            for text in line
                .split(',')
                .next()
                .unwrap_or_default()
                .split_whitespace()
            {
                check_the_cordon(game.position());
                if game.play(text).is_err() {
                    break;
                }
            }
        }
        let mut state = 11u64;
        let mut cut_off = 0;
        for size in BoardSize::ALL {
            let variant = Variant::new(Rules::Copenhagen, size);
            let geometry = size.geometry();
            let squares: Vec<Square> = geometry
                .board
                .minus(geometry.corners)
                .without(geometry.throne)
                .iter()
                .collect();
            for _ in 0..2000 {
                let mut setup = PositionText::empty(size, Side::Attackers);
                for &square in &squares {
                    state = splitmix(state);
                    match state % 20 {
                        0..=8 => setup.attackers = setup.attackers.with(square),
                        9..=11 => setup.defenders = setup.defenders.with(square),
                        _ => {}
                    }
                }
                state = splitmix(state);
                let king = squares[(state % squares.len() as u64) as usize];
                setup.attackers = setup.attackers.without(king);
                setup.defenders = setup.defenders.without(king);
                setup.kings = Bitboard::from_square(king);
                if let Ok(position) = Position::from_setup(&setup, variant) {
                    cut_off += check_the_cordon(&position);
                }
            }
        }
        assert!(cut_off > 1000, "only {cut_off} cut-off defenders met");
    }
}
