//! Deterministic random games on every variant, for the search tests.

use tafl::rules::{BoardSize, Game, Rules, Variant};

/// A tiny deterministic generator, so every run sees the same positions.
pub struct Lcg(pub u64);

impl Lcg {
    pub fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

/// Positions from random games on `variant`: each one a game still going after 0..`max_plies` random moves.
pub fn random_games(variant: Variant, count: usize, max_plies: usize, rng: &mut Lcg) -> Vec<Game> {
    let mut games = Vec::with_capacity(count);
    while games.len() < count {
        let mut game = Game::new(variant);
        let plies = rng.below(max_plies + 1);
        for _ in 0..plies {
            let moves = game.position().legal_moves();
            if moves.is_empty() {
                break;
            }
            let chosen = moves[rng.below(moves.len())];
            game.play_move(chosen).expect("a generated move is legal");
            if game.status().is_over() {
                break;
            }
        }
        if !game.status().is_over() {
            games.push(game);
        }
    }
    games
}

pub fn all_variants() -> Vec<Variant> {
    let mut variants = Vec::new();
    for rules in [Rules::Copenhagen, Rules::Fetlar, Rules::Tablut] {
        for size in [9, 11, 13] {
            variants.push(Variant::new(rules, BoardSize::new(size).expect("size")));
        }
    }
    variants
}
