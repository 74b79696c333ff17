//! What a request's seed varies in a search: the noise a level below full
//! strength adds to every static score, and full strength's variety, a
//! seeded bonus to each root move's score.
//!
//! Why the variety is sound. Each root move's score is raised by a bonus in
//! 0..=margin drawn from the seed and the position the move leads to, and the
//! root plays the best total; so by the search's own scores the move played
//! is never more than the margin below the best (best ≤ played + its bonus −
//! the best's bonus ≤ played + margin). A won or lost score gets no bonus, so
//! no win is traded and no loss taken for one. The moves are searched as
//! ever, within the root's window less their bonus ([`without_bonus`]), so
//! every position below the root stores its own value in the table, and the
//! root stores a value without bonus too ([`seed_free`]): a table shared with
//! other requests' searches, seeded otherwise, gets nothing of this seed but
//! the root's move hint.

use super::params::WIN_BOUND;
use super::tt::Bound;
use crate::rules::splitmix;

/// How a search's scores vary with its seed.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Variation {
    /// Each static score moves by a number in ±`noise` (levels below full strength).
    pub noise: i32,
    /// Each root move's score is raised by 0..=`variety_margin` (full strength, seed not 0).
    pub variety_margin: i32,
    pub seed: u64,
}

impl Variation {
    /// Nothing varies with the seed.
    pub const NONE: Variation = Variation {
        noise: 0,
        variety_margin: 0,
        seed: 0,
    };

    /// The noise on the static score of the position with `hash`.
    #[inline]
    pub fn noise(self, hash: u64) -> i32 {
        if self.noise == 0 {
            return 0;
        }
        let span = (2 * self.noise + 1) as u64;
        (splitmix(hash ^ self.seed) % span) as i32 - self.noise
    }

    /// The bonus of the move at `ply` that leads to the position with `hash`: root moves only.
    #[inline]
    pub fn move_bonus(self, ply: usize, hash: u64) -> i32 {
        if self.variety_margin == 0 || ply > 0 {
            return 0;
        }
        (splitmix(hash ^ self.seed) % (self.variety_margin as u64 + 1)) as i32
    }
}

/// A root move's score with its bonus; a won or lost score gets none.
#[inline]
pub(crate) fn with_bonus(score: i32, bonus: i32) -> i32 {
    if score.abs() < WIN_BOUND {
        score + bonus
    } else {
        score
    }
}

/// A bound of the root's window as the move's own search sees it: [`with_bonus`] undone. Scores
/// stay within ±900,000 short of a win or loss, far more than any bonus below `WIN_BOUND`, so
/// a score is above the bound exactly when its total is above the root's.
#[inline]
pub(crate) fn without_bonus(bound: i32, bonus: i32) -> i32 {
    if bound.abs() < WIN_BOUND {
        bound - bonus
    } else {
        bound
    }
}

/// What the root stores in the table for its best total `best`, whose move's bonus was `bonus`:
/// the position's own value, which lies between that move's own score and the best total.
pub(crate) fn seed_free(best: i32, bonus: i32, bound: Bound) -> (i32, Bound) {
    match bound {
        Bound::Exact | Bound::Lower if bonus > 0 => (best - bonus, Bound::Lower),
        _ => (best, bound),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::params::WIN;

    #[test]
    fn a_bonus_stays_within_the_margin_and_never_touches_a_decided_score() {
        let variation = Variation {
            variety_margin: 10,
            seed: 42,
            ..Variation::NONE
        };
        let bonuses: Vec<i32> = (0..200).map(|hash| variation.move_bonus(0, hash)).collect();
        assert!(bonuses.iter().all(|bonus| (0..=10).contains(bonus)));
        assert!(bonuses.contains(&0) && bonuses.contains(&10));
        assert_eq!(variation.move_bonus(1, 5), 0);
        assert!((0..200).all(|hash| Variation::NONE.move_bonus(0, hash) == 0));
        for score in [-WIN + 3, WIN - 5, WIN, -WIN] {
            assert_eq!(with_bonus(score, 7), score);
            assert_eq!(without_bonus(score, 7), score);
        }
        for score in [-900_000, -12, 0, 35, 900_000] {
            assert_eq!(without_bonus(with_bonus(score, 7), 7), score);
        }
        // The root's own value: at least the chosen move's score, at most the best total.
        assert_eq!(seed_free(50, 7, Bound::Exact), (43, Bound::Lower));
        assert_eq!(seed_free(50, 7, Bound::Lower), (43, Bound::Lower));
        assert_eq!(seed_free(50, 7, Bound::Upper), (50, Bound::Upper));
        assert_eq!(seed_free(50, 0, Bound::Exact), (50, Bound::Exact));
    }
}
