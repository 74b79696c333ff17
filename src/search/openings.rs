//! Where a match's games start. Opening `n` starts games `2n` and `2n + 1`,
//! one with each player attacking.
//!
//! Random openings: opening 0 is the standard start, the others the start
//! plus two to four random legal plies, seeded by `n`.

use super::tt::splitmix;
use crate::rules::{Game, Variant};

/// The starts of a match's games.
///
/// ```
/// use tafl::rules::{Rules, Variant};
/// use tafl::search::selfplay::Openings;
///
/// let openings = Openings::random(Variant::standard(Rules::Copenhagen));
/// assert_eq!(openings.opening(0).0.ply(), 0);
/// let (game, moves) = openings.opening(1);
/// assert_eq!(game.ply(), moves.len());
/// ```
#[derive(Clone, Debug)]
pub struct Openings {
    variant: Variant,
    kind: Kind,
}

#[derive(Clone, Debug)]
enum Kind {
    Random,
}

impl Openings {
    /// The standard start, then the start plus a few seeded random plies.
    #[must_use]
    pub fn random(variant: Variant) -> Openings {
        Openings {
            variant,
            kind: Kind::Random,
        }
    }

    /// Opening `n`: the game so far, never over, and its moves as text.
    #[must_use]
    pub fn opening(&self, n: u32) -> (Game, Vec<String>) {
        match &self.kind {
            Kind::Random => random_opening(self.variant, n),
        }
    }
}

/// The standard start for `n` = 0, else the start plus two to four seeded
/// random plies that do not end the game.
fn random_opening(variant: Variant, n: u32) -> (Game, Vec<String>) {
    let mut game = Game::new(variant);
    let mut moves = Vec::new();
    if n == 0 {
        return (game, moves);
    }
    let mut state = splitmix(u64::from(n) ^ 0x5eed);
    let plies = 2 + (state % 3) as usize;
    for _ in 0..plies {
        let mut choices = game.position().legal_moves();
        choices.sort();
        state = splitmix(state);
        let mv = choices[(state % choices.len() as u64) as usize];
        let mut trial = game.clone();
        if trial.play_move(mv).is_ok() && !trial.status().is_over() {
            game = trial;
            moves.push(mv.to_string());
        }
    }
    (game, moves)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;

    fn copenhagen() -> Variant {
        Variant::standard(Rules::Copenhagen)
    }

    #[test]
    fn random_openings_start_from_the_standard_start_then_vary() {
        let openings = Openings::random(copenhagen());
        assert!(openings.opening(0).1.is_empty());
        let (game, moves) = openings.opening(3);
        assert!((2..=4).contains(&moves.len()) && game.ply() == moves.len());
        assert_eq!(openings.opening(3).1, moves);
    }
}
