//! The network's inputs: each kind of piece on each square, one-hot.

use crate::rules::{Piece, Position, Square, Variant};

/// Inputs of a variant's network: each piece kind on each square.
pub(crate) fn input_count(variant: Variant) -> usize {
    let size = variant.size.get() as usize;
    Piece::ALL.len() * size * size
}

/// The input a piece on a square sets, on a board of `size` squares a side.
#[inline]
pub(crate) fn input_index(piece: Piece, square: Square, size: usize) -> usize {
    piece.index() * size * size + square.dense_index(size)
}

/// The inputs `position` sets, one per piece.
pub(crate) fn inputs(position: &Position) -> impl Iterator<Item = usize> + use<> {
    let size = position.variant().size.get() as usize;
    position
        .piece_squares()
        .map(move |(piece, square)| input_index(piece, square, size))
}
