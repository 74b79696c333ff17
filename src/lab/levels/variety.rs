//! Whether different seeds give different games: pairs of games from the
//! standard start, one player on both sides of both, the two games of a pair
//! seeded as two games of a match are (and so differing in nothing else),
//! and the first ply where they part, as played and up to the board's eight
//! symmetries (the start has all eight, so a game mirrored is the same game
//! to a player).

use crate::lab::matchplay::{Contestant, EnginePlayer, Player, Turn, seed};
use crate::rules::{Game, Move, Square, Variant};
use crate::search::Engine;

/// Where the games of each pair parted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Divergence {
    /// The plies compared.
    pub plies: usize,
    /// For each pair, the first ply (from 1) at which its games differ; `None` when they agree
    /// throughout.
    pub parted: Vec<Option<usize>>,
    /// The same, a game and its mirror image counting as one.
    pub parted_up_to_symmetry: Vec<Option<usize>>,
}

impl Divergence {
    /// The pairs that parted within the plies: as played, and up to symmetry.
    pub fn parted_pairs(&self) -> (usize, usize) {
        let count = |parted: &[Option<usize>]| parted.iter().flatten().count();
        (count(&self.parted), count(&self.parted_up_to_symmetry))
    }
}

/// Plays `pairs` pairs of games of `plies` plies from `variant`'s start, `player` on every side
/// (pair `n` is games `2n` and `2n + 1` of a match), calling `progress` with the pairs done.
pub fn divergence(
    engine: &Engine,
    variant: Variant,
    player: &Player,
    pairs: u32,
    plies: usize,
    mut progress: impl FnMut(u32),
) -> Divergence {
    let mut divergence = Divergence {
        plies,
        parted: Vec::new(),
        parted_up_to_symmetry: Vec::new(),
    };
    for pair in 0..pairs {
        let [first, second] =
            [2 * pair, 2 * pair + 1].map(|index| opening(engine, variant, player, index, plies));
        let size = variant.size.get();
        let parted_under = |symmetry: u8| {
            let mirrored: Vec<Move> = first
                .iter()
                .map(|mv| Move {
                    from: image(mv.from, symmetry, size),
                    to: image(mv.to, symmetry, size),
                })
                .collect();
            parted_at(&mirrored, &second)
        };
        divergence.parted.push(parted_under(0));
        // The symmetry under which the games agree longest.
        divergence.parted_up_to_symmetry.push(
            (0..8)
                .map(parted_under)
                .max_by_key(|parted| parted.map_or(usize::MAX, |ply| ply))
                .flatten(),
        );
        progress(pair + 1);
    }
    divergence
}

/// The first `plies` moves of game `index` from the start (fewer if it ends sooner), `player`
/// on both sides.
fn opening(
    engine: &Engine,
    variant: Variant,
    player: &Player,
    index: u32,
    plies: usize,
) -> Vec<Move> {
    let mut contestant = EnginePlayer { player, engine };
    let mut game = Game::new(variant);
    let mut moves = Vec::with_capacity(plies);
    while moves.len() < plies && !game.status().is_over() {
        let mv = contestant
            .choose(&Turn {
                game: &game,
                moves: &[],
                seed: seed(index, game.ply()),
                clock: None,
            })
            .expect("a search without a deadline answers");
        game.play_move(mv).expect("the engine plays legal moves");
        moves.push(mv);
    }
    moves
}

/// The first ply (from 1) at which two games differ, `None` if they are the same.
fn parted_at(first: &[Move], second: &[Move]) -> Option<usize> {
    let common = first.iter().zip(second).take_while(|(a, b)| a == b).count();
    (common < first.len().max(second.len())).then_some(common + 1)
}

/// `square` under one of the board's eight symmetries: bit 0 mirrors the files, bit 1 the
/// ranks, bit 2 swaps files and ranks (0 leaves it).
fn image(square: Square, symmetry: u8, size: u8) -> Square {
    let (mut file, mut rank) = (square.file(), square.rank());
    if symmetry & 1 != 0 {
        file = size - 1 - file;
    }
    if symmetry & 2 != 0 {
        rank = size - 1 - rank;
    }
    if symmetry & 4 != 0 {
        std::mem::swap(&mut file, &mut rank);
    }
    Square::new(file, rank).expect("a square of the board")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::matchplay::ClockUse;
    use crate::rules::{Rules, Variant};
    use crate::search::{EngineConfig, Level};

    fn mv(text: &str) -> Move {
        let (from, to) = text.split_once('-').expect("a-b");
        Move {
            from: from.parse().expect("a square"),
            to: to.parse().expect("a square"),
        }
    }

    #[test]
    fn games_part_where_they_first_differ_and_a_mirrored_game_is_the_same() {
        let game = [mv("d1-d3"), mv("e5-e2")];
        assert_eq!(parted_at(&game, &game), None);
        assert_eq!(parted_at(&game, &[mv("d1-d3"), mv("f4-c4")]), Some(2));
        assert_eq!(parted_at(&game, &game[..1]), Some(2));
        // Mirrored left to right on 11×11: d1 is h1, e5 is g5.
        assert_eq!(
            image("d1".parse().expect("square"), 1, 11).to_string(),
            "h1"
        );
        assert_eq!(
            image("e5".parse().expect("square"), 4, 11).to_string(),
            "e5"
        );
        assert_eq!(
            image("d1".parse().expect("square"), 4, 11).to_string(),
            "a4"
        );
        let seen: std::collections::HashSet<Square> = (0..8)
            .map(|symmetry| image("b1".parse().expect("square"), symmetry, 11))
            .collect();
        assert_eq!(seen.len(), 8);
    }

    #[test]
    fn a_weak_level_s_seeds_part_its_games() {
        let engine = Engine::new(EngineConfig {
            hash_mb: 1,
            ..EngineConfig::default()
        });
        let player = Player {
            level: Level::new(1).expect("level"),
            max_depth: None,
            max_nodes: None,
            movetime: None,
            seed: None,
            clock: ClockUse::Native,
        };
        let divergence = divergence(
            &engine,
            Variant::standard(Rules::Copenhagen),
            &player,
            4,
            6,
            |_| {},
        );
        assert_eq!(divergence.parted.len(), 4);
        let (parted, up_to_symmetry) = divergence.parted_pairs();
        assert!(up_to_symmetry <= parted);
        assert!(up_to_symmetry >= 3, "{divergence:?}");
    }
}
