//! The kinds of piece.

/// A kind of piece. Its index ([`Piece::index`]) is its place in a table by
/// kind: the hash keys' and the evaluation network's input planes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Piece {
    /// An attacker (`t` in position text).
    Attacker = 0,
    /// A defender other than the king (`T`).
    Defender = 1,
    /// The king (`K`).
    King = 2,
}

impl Piece {
    /// Every kind, in the order of their indices.
    pub const ALL: [Piece; 3] = [Piece::Attacker, Piece::Defender, Piece::King];

    /// 0, 1, 2: attacker, defender, king.
    #[must_use]
    pub const fn index(self) -> usize {
        self as usize
    }
}
