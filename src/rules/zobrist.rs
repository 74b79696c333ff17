//! Zobrist keys: a position's hash is the XOR of one key per piece on its
//! square, and one more when the defenders are to move, so a move updates it
//! with a few XORs.

use super::piece::Piece;
use super::side::Side;
use super::square::Square;

/// splitmix64's increment: the stream of seed `s` is `splitmix(s)`, `splitmix(s + GAMMA)`, ...
const GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// splitmix64's output for `x`: a fixed, well-mixed function, so hashes are the same on every run
/// (the search's noise and the lab's seeded choices draw from it too).
pub(crate) const fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(GAMMA);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

const KEYS: [[u64; 256]; 3] = {
    let mut keys = [[0; 256]; 3];
    let mut state = 0x7af1_u64;
    let mut piece = 0;
    while piece < 3 {
        let mut index = 0;
        while index < 256 {
            keys[piece][index] = splitmix(state);
            state = state.wrapping_add(GAMMA);
            index += 1;
        }
        piece += 1;
    }
    keys
};

const DEFENDERS_TO_MOVE: u64 = splitmix(0xdefe_d0e5);

/// The key of `piece` standing on `square`.
#[inline]
pub(crate) fn piece_key(piece: Piece, square: Square) -> u64 {
    KEYS[piece.index()][square.index() as usize]
}

/// The key of the side to move (zero for the attackers).
#[inline]
pub(crate) const fn side_key(side: Side) -> u64 {
    match side {
        Side::Attackers => 0,
        Side::Defenders => DEFENDERS_TO_MOVE,
    }
}
