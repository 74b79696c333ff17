//! The network's hidden layer before activation, kept up to date move by move.
//!
//! A move changes a handful of inputs (the piece that moved, the pieces it
//! took), so the child's accumulator is the parent's plus and minus a few
//! weight rows instead of a sum over every piece. The changed inputs are
//! found by comparing the two positions' bitboards, which is exact whatever
//! the move did (captures, the king taken) and needs no knowledge of the
//! rules. Rows are added with wrapping `i16` arithmetic over fixed-length
//! arrays, which the compiler turns into vector instructions: 256-bit ones in
//! the AVX2 build that `rules::cpu` runs where the CPU has it.

use super::features::{FeatureSet, piece_input, piece_inputs, term_inputs};
use super::network::{HIDDEN, Network};
use crate::rules::cpu::{self, Routine};
use crate::rules::{Bitboard, Piece, Position};
use crate::search::eval::classic::Mailbox;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Accumulator(pub [i16; HIDDEN]);

impl Accumulator {
    /// The accumulator of `position`, summed from scratch.
    pub fn new(network: &Network, position: &Position) -> Accumulator {
        let mut accumulator = Accumulator(*network.hidden_bias());
        for input in piece_inputs(position) {
            accumulator.add(network, input);
        }
        accumulator
    }

    /// `child`'s accumulator, from this one of `parent`, in the fastest build this CPU runs.
    #[inline]
    pub fn after(&self, network: &Network, parent: &Position, child: &Position) -> Accumulator {
        cpu::run(self.update(network, parent, child))
    }

    /// [`Accumulator::after`]'s work, for a build to run.
    pub(crate) fn update<'a>(
        &'a self,
        network: &'a Network,
        parent: &'a Position,
        child: &'a Position,
    ) -> Update<'a> {
        Update {
            accumulator: self,
            network,
            parent,
            child,
        }
    }

    /// Removes `piece` from the squares it stood on `before` and no longer does, and adds it
    /// where it stands `after` and did not.
    #[inline(always)]
    fn change(
        &mut self,
        network: &Network,
        piece: Piece,
        before: Bitboard,
        after: Bitboard,
        size: usize,
    ) {
        for square in before.minus(after).squares() {
            self.remove(network, piece_input(piece, square, size));
        }
        for square in after.minus(before).squares() {
            self.add(network, piece_input(piece, square, size));
        }
    }

    #[inline(always)]
    fn add(&mut self, network: &Network, input: usize) {
        for (value, weight) in self.0.iter_mut().zip(network.input_row(input)) {
            *value = value.wrapping_add(*weight);
        }
    }

    #[inline(always)]
    fn remove(&mut self, network: &Network, input: usize) {
        for (value, weight) in self.0.iter_mut().zip(network.input_row(input)) {
            *value = value.wrapping_sub(*weight);
        }
    }

    /// The score of `board` (the position of this accumulator) from the side to move's view: for a
    /// network that sees the terms, with their rows.
    #[inline]
    pub fn evaluate(&self, network: &Network, board: &Mailbox) -> i32 {
        match network.features() {
            FeatureSet::Pieces => network.output(&self.0, &[], board.side_to_move),
            FeatureSet::PiecesAndTerms => {
                network.output(&self.0, &term_inputs(board), board.side_to_move)
            }
        }
    }
}

/// A move's update of the accumulator: the rows of the inputs that changed, found by comparing
/// the two positions' bitboards.
pub(crate) struct Update<'a> {
    accumulator: &'a Accumulator,
    network: &'a Network,
    parent: &'a Position,
    child: &'a Position,
}

impl Routine for Update<'_> {
    type Output = Accumulator;

    #[inline(always)]
    fn run(self) -> Accumulator {
        let Update {
            accumulator,
            network,
            parent,
            child,
        } = self;
        let size = parent.variant().size.get() as usize;
        let king = |position: &Position| {
            position
                .king()
                .map_or(Bitboard::EMPTY, Bitboard::from_square)
        };
        let mut accumulator = *accumulator;
        for (piece, before, after) in [
            (Piece::Attacker, parent.attackers(), child.attackers()),
            (Piece::Defender, parent.defenders(), child.defenders()),
            (Piece::King, king(parent), king(child)),
        ] {
            accumulator.change(network, piece, before, after, size);
        }
        accumulator
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{BoardSize, Rules, Variant, splitmix};
    use crate::search::Provenance;

    /// Random games on every variant: after every move (and every pass) the incremental accumulator
    /// equals the one summed from scratch, and so does the evaluation with the terms, which also
    /// equals the output of the accumulator with the terms' rows added to it first. The update and
    /// the output in the fastest build this CPU runs (AVX2 where it has it) equal the portable ones.
    #[test]
    fn incremental_updates_equal_a_full_recomputation_on_every_variant() {
        let mut state = 5u64;
        let mut captures = 0;
        for rules in Rules::ALL {
            for size in [9, 11, 13] {
                let variant = Variant::new(rules, BoardSize::new(size).expect("size"));
                let network = Network::seeded(
                    variant,
                    FeatureSet::PiecesAndTerms,
                    u64::from(size),
                    Provenance {
                        generation: 0,
                        validation_loss: 0.0,
                        text: String::new(),
                    },
                );
                for _ in 0..12 {
                    let mut position = Position::start(variant);
                    let mut accumulator = Accumulator::new(&network, &position);
                    for _ in 0..250 {
                        let moves = position.legal_moves();
                        if moves.is_empty() || position.status().is_over() {
                            break;
                        }
                        state = splitmix(state);
                        let mv = moves[(state % moves.len() as u64) as usize];
                        let mut child = position;
                        if !child.play_unchecked(mv).is_empty() {
                            captures += 1;
                        }
                        let portable = accumulator.update(&network, &position, &child).run();
                        accumulator = accumulator.after(&network, &position, &child);
                        assert_eq!(accumulator, portable, "{child}: the update's builds differ");
                        let fresh = Accumulator::new(&network, &child);
                        assert_eq!(accumulator, fresh, "{child}");
                        let board = Mailbox::new(&child);
                        let score = accumulator.evaluate(&network, &board);
                        assert_eq!(score, fresh.evaluate(&network, &board));
                        let inputs = term_inputs(&board);
                        let routine =
                            network.output_routine(&accumulator.0, &inputs, board.side_to_move);
                        assert_eq!(score, routine.run(), "{child}: the output's builds differ");
                        let mut with_terms = fresh;
                        for input in term_inputs(&board) {
                            with_terms.add(&network, input);
                        }
                        assert_eq!(
                            score,
                            network.output(&with_terms.0, &[], board.side_to_move),
                            "{child}: the terms' rows added on the way must equal them added first"
                        );
                        let passed = child.passed();
                        assert_eq!(
                            accumulator.after(&network, &child, &passed),
                            Accumulator::new(&network, &passed)
                        );
                        position = child;
                    }
                }
            }
        }
        assert!(captures > 200, "only {captures} captures exercised");
    }
}
