//! Where a match's games start. Opening `n` starts games `2n` and `2n + 1`,
//! one with each player attacking.
//!
//! Random openings: opening 0 is the standard start, the others the start
//! plus two to four random legal plies, seeded by `n`. Real openings: the
//! first plies of real Copenhagen games, positions strong humans reached, so
//! a match measures play in the positions that occur rather than in random
//! ones.

use std::collections::HashSet;
use std::ops::RangeInclusive;

use crate::lab::GameRecord;
use crate::rules::{Game, Move, Rules, Variant, splitmix};

/// Plies of a real game an opening keeps when the caller fixes none: opening
/// `n` keeps `4 + n % 5`. Four plies leave the start's most trodden lines;
/// past eight the game is no longer an opening but a middlegame.
const REAL_OPENING_PLIES: RangeInclusive<usize> = 4..=8;

/// The starts of a match's games.
///
/// ```
/// use tafl::lab::GameRecord;
/// use tafl::lab::matchplay::Openings;
/// use tafl::rules::{Rules, Variant};
///
/// let records = GameRecord::parse_all("d1-d3 e5-e2 g1-g3 f4-c4 g3-e3xe2 f6-f4,1,0,Black\n").unwrap();
/// let openings = Openings::real(Variant::standard(Rules::Copenhagen), &records, Some(5)).unwrap();
/// let (game, moves) = openings.opening(0);
/// assert_eq!(moves, ["d1-d3", "e5-e2", "g1-g3", "f4-c4", "g3-e3"]);
/// assert_eq!(game.ply(), 5);
/// ```
#[derive(Clone, Debug)]
pub struct Openings {
    variant: Variant,
    kind: Kind,
}

#[derive(Clone, Debug)]
enum Kind {
    Random,
    /// Distinct real openings, one list per number of plies kept; opening
    /// `n` is the `n`-th of list `n % len` (so consecutive openings come
    /// from different games).
    Real(Vec<Vec<Vec<Move>>>),
}

/// Why real openings cannot be had.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OpeningsError {
    #[error("real openings are Copenhagen 11×11 games, not {0}")]
    Variant(Variant),
    #[error("no real game is still going after {plies} legal plies")]
    NoGame { plies: usize },
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

    /// Real games' first plies: `plies` of them, or 4 to 8 in turn (opening
    /// `n` keeps `4 + n % 5`). Opening `n` is the `n`-th distinct position
    /// that the games reach, legally and with the game still going, after
    /// that many plies (counting from the first game again once they run
    /// out).
    ///
    /// # Errors
    /// [`OpeningsError`] when the variant is not Copenhagen 11×11 (the real
    /// games are), or when no game is still going after that many plies.
    pub fn real(
        variant: Variant,
        records: &[GameRecord],
        plies: Option<usize>,
    ) -> Result<Openings, OpeningsError> {
        if variant != Variant::standard(Rules::Copenhagen) {
            return Err(OpeningsError::Variant(variant));
        }
        let counts = plies.map_or(REAL_OPENING_PLIES, |plies| plies..=plies);
        let lists = counts
            .map(|plies| {
                let openings = distinct_openings(variant, records, plies);
                if openings.is_empty() {
                    Err(OpeningsError::NoGame { plies })
                } else {
                    Ok(openings)
                }
            })
            .collect::<Result<_, _>>()?;
        Ok(Openings {
            variant,
            kind: Kind::Real(lists),
        })
    }

    /// Opening `n`: the game so far, never over, and its moves as text.
    #[must_use]
    pub fn opening(&self, n: u32) -> (Game, Vec<String>) {
        match &self.kind {
            Kind::Random => random_opening(self.variant, n),
            Kind::Real(lists) => {
                let n = n as usize;
                let list = &lists[n % lists.len()];
                let chosen = &list[n % list.len()];
                let mut game = Game::new(self.variant);
                for &mv in chosen {
                    game.play_move(mv)
                        .expect("real openings were checked when they were chosen");
                }
                (game, chosen.iter().map(Move::to_string).collect())
            }
        }
    }
}

/// The first `plies` moves of each record that plays them legally and leaves
/// the game going, in file order, each position once.
fn distinct_openings(variant: Variant, records: &[GameRecord], plies: usize) -> Vec<Vec<Move>> {
    let mut seen = HashSet::new();
    records
        .iter()
        .filter(|record| record.moves.len() >= plies)
        .filter_map(|record| {
            let mut game = Game::new(variant);
            let mut moves = Vec::with_capacity(plies);
            for text in &record.moves[..plies] {
                moves.push(game.play(text).ok()?.played);
            }
            let fresh = !game.status().is_over() && seen.insert(game.position().hash());
            fresh.then_some(moves)
        })
        .collect()
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
    use crate::lab::real_games;
    use crate::rules::BoardSize;

    fn copenhagen() -> Variant {
        Variant::standard(Rules::Copenhagen)
    }

    #[test]
    fn real_openings_are_repeatable_legal_going_and_varied() {
        let records = real_games();
        let openings = Openings::real(copenhagen(), &records, None).expect("openings");
        let again = Openings::real(copenhagen(), &records, None).expect("openings");
        let mut positions = HashSet::new();
        for n in 0..200 {
            let (game, moves) = openings.opening(n);
            assert_eq!(again.opening(n).1, moves, "opening {n} is repeatable");
            assert_eq!(moves.len(), 4 + n as usize % 5, "opening {n}");
            assert!(!game.status().is_over(), "opening {n}");
            let mut replayed = Game::new(copenhagen());
            replayed
                .play_all(moves.iter().map(String::as_str))
                .expect("legal");
            assert_eq!(replayed.position().hash(), game.position().hash());
            positions.insert(game.position().hash());
        }
        assert_eq!(positions.len(), 200, "every opening is its own position");
        let (_, first) = openings.opening(0);
        assert_eq!(
            first,
            records[0].moves[..4],
            "opening 0 is the first game's"
        );
    }

    #[test]
    fn fixed_plies_hold_and_impossible_ones_are_refused() {
        let records = real_games();
        let openings = Openings::real(copenhagen(), &records, Some(6)).expect("openings");
        assert!((0..20).all(|n| openings.opening(n).1.len() == 6));
        assert_eq!(
            Openings::real(copenhagen(), &records, Some(100_000)).unwrap_err(),
            OpeningsError::NoGame { plies: 100_000 }
        );
        let tablut = Variant::new(Rules::Tablut, BoardSize::Nine);
        let error = Openings::real(tablut, &records, None).unwrap_err();
        assert_eq!(error, OpeningsError::Variant(tablut));
        assert_eq!(
            error.to_string(),
            "real openings are Copenhagen 11×11 games, not tablut 9×9"
        );
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
