//! The network's inputs: each kind of piece on each square, one-hot, and for
//! a network of [`FeatureSet::PiecesAndTerms`] what decides tafl games,
//! which no single piece's square says: the classic evaluation's counts of
//! the king's routes to the corners, his mobility, the sides held around
//! him, the attackers' ring (defenders and king cut off from the edge, the
//! king's pocket, diagonal links, sealed corners) and the edge fort, each
//! count one-hot in a few buckets.
//!
//! The pieces' inputs are kept up to date move by move (`accumulator.rs`);
//! the terms' are counted where a position is evaluated, on the mailbox the
//! search builds at every node anyway, and their few rows added then.

use arrayvec::ArrayVec;

use crate::rules::{Piece, Position, Square, Variant};
use crate::search::eval::classic::{Mailbox, Term, TermCounts};

/// What a network sees: its file's format version says which.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FeatureSet {
    /// Each kind of piece on each square (format version 1).
    Pieces,
    /// The pieces, and the terms below in buckets (format version 2).
    PiecesAndTerms,
}

/// The terms a [`FeatureSet::PiecesAndTerms`] network sees, each as `buckets` inputs of which a
/// count sets one: counts 1..=`unit` the first, the next `unit` the second, and so on, the last
/// taking every larger count; a count of 0 sets none. Counts are taken by size (each term favours
/// one side, so the sign says nothing). Material, the tempo and the corner guards are left out:
/// the pieces' squares and the side to move already say them.
const TERM_INPUTS: [(Term, u8, u8); 16] = [
    (Term::KingMobility, 2, 8),
    (Term::KingRouteTwoMoves, 1, 4),
    (Term::KingDoubleThreatToMove, 1, 1),
    (Term::KingDoubleThreatWaiting, 1, 1),
    (Term::KingOpenRoute, 1, 2),
    (Term::KingPressureOne, 1, 1),
    (Term::KingPressureTwo, 1, 1),
    (Term::KingPressureThree, 1, 1),
    (Term::KingPressureFour, 1, 1),
    (Term::DefenderEnclosed, 1, 8),
    (Term::KingEnclosed, 1, 1),
    (Term::KingPocketSquare, 14, 8),
    (Term::AttackerDiagonalLink, 2, 8),
    (Term::CornerSealed, 1, 4),
    (Term::FortWallDefender, 1, 5),
    (Term::FortAttackerNear, 1, 5),
];

/// Inputs the terms add.
pub(crate) const TERM_INPUT_COUNT: usize = {
    let mut count = 0;
    let mut index = 0;
    while index < TERM_INPUTS.len() {
        count += TERM_INPUTS[index].2 as usize;
        index += 1;
    }
    count
};

/// The term inputs a position sets, at most one per term.
pub(crate) type TermInputs = ArrayVec<usize, { TERM_INPUTS.len() }>;

impl FeatureSet {
    /// Inputs of a network of this set for `variant`.
    pub(crate) fn input_count(self, variant: Variant) -> usize {
        let size = variant.size.get() as usize;
        let pieces = Piece::ALL.len() * size * size;
        match self {
            FeatureSet::Pieces => pieces,
            FeatureSet::PiecesAndTerms => pieces + TERM_INPUT_COUNT,
        }
    }
}

/// The input a piece on a square sets, on a board of `size` squares a side.
#[inline]
pub(crate) fn piece_input(piece: Piece, square: Square, size: usize) -> usize {
    piece.index() * size * size + square.dense_index(size)
}

/// The piece inputs `position` sets, one per piece.
pub(crate) fn piece_inputs(position: &Position) -> impl Iterator<Item = usize> + use<> {
    let size = position.variant().size.get() as usize;
    position
        .piece_squares()
        .map(move |(piece, square)| piece_input(piece, square, size))
}

/// The term inputs `board` sets (numbered after the pieces' inputs).
#[inline]
pub(crate) fn term_inputs(board: &Mailbox) -> TermInputs {
    let counts = TermCounts::of(board);
    let mut inputs = TermInputs::new();
    let mut first = Piece::ALL.len() * board.size * board.size;
    for (term, unit, buckets) in TERM_INPUTS {
        let count = counts.0[term as usize].unsigned_abs() as usize;
        if count > 0 {
            inputs.push(first + ((count - 1) / usize::from(unit)).min(usize::from(buckets) - 1));
        }
        first += usize::from(buckets);
    }
    inputs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{BoardSize, Rules, random_walk};

    /// Along random games on every board every term input lies in its term's range, and none is
    /// set twice: what the network's rows are laid out for.
    #[test]
    fn term_inputs_lie_after_the_pieces_one_per_term() {
        let mut seen = [false; TERM_INPUT_COUNT];
        for rules in Rules::ALL {
            for size in BoardSize::ALL {
                let variant = Variant::new(rules, size);
                let pieces = FeatureSet::Pieces.input_count(variant);
                for position in random_walk(variant, 3).take(400) {
                    let inputs = term_inputs(&Mailbox::new(&position));
                    let mut first = pieces;
                    let mut found = inputs.iter().peekable();
                    for (_, _, buckets) in TERM_INPUTS {
                        let range = first..first + usize::from(buckets);
                        if let Some(&&input) = found.peek()
                            && range.contains(&input)
                        {
                            seen[input - pieces] = true;
                            found.next();
                        }
                        first = range.end;
                    }
                    assert!(found.next().is_none(), "{position}: {inputs:?}");
                    assert_eq!(first, FeatureSet::PiecesAndTerms.input_count(variant));
                }
            }
        }
        let unseen = seen.iter().filter(|seen| !**seen).count();
        assert!(
            unseen < TERM_INPUT_COUNT / 2,
            "{unseen} of {TERM_INPUT_COUNT} term inputs never set"
        );
    }
}
