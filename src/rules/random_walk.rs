//! Positions along seeded random games, for the crate's unit tests.

use super::position::Position;
use super::variant::Variant;
use super::zobrist::splitmix;

/// The positions along random games of `variant` from its start, each move
/// drawn from `seed`'s stream, a new game from the start whenever one ends
/// (the start itself is not among them).
pub(crate) fn random_walk(variant: Variant, seed: u64) -> impl Iterator<Item = Position> {
    let mut state = seed;
    let mut position = Position::start(variant);
    std::iter::from_fn(move || {
        loop {
            let moves = position.legal_moves();
            if moves.is_empty() || position.status().is_over() {
                position = Position::start(variant);
                continue;
            }
            state = splitmix(state);
            position.play_unchecked(moves[(state % moves.len() as u64) as usize]);
            return Some(position);
        }
    })
}
