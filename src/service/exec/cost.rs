//! What searches cost, learned from what they took: a search whose length
//! its limits do not bound in time (a level's depth or node cap, Threats) is
//! expected to take the running mean of what searches of its class took
//! before, not what it claims. The scheduler (`scheduler.rs`) orders and
//! admits by these estimates and reports each finished search's time here.

use std::collections::HashMap;
use std::time::Duration;

/// A kind of search whose cost is learned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CostClass {
    /// Threats on a board of this size with about this many pieces
    /// (rounded down to a multiple of [`PIECES_PER_CLASS`]).
    Threats {
        /// 9, 11 or 13.
        board_size: u8,
        /// Pieces on the board, rounded down.
        pieces: u8,
    },
    /// Searches a depth or node cap ends rather than the clock, one after
    /// another (a reviewed position's searches: two where it is critical).
    Capped {
        /// Their depth cap, if any (a level's own).
        max_depth: Option<u8>,
        /// Their node cap, rounded up to a power of two: `log2` of it.
        nodes_log2: u8,
        /// How many, one after another (1 but for a review).
        searches: u8,
    },
}

/// Pieces are counted in steps of this many for [`CostClass::Threats`].
pub const PIECES_PER_CLASS: u8 = 4;

impl CostClass {
    /// Threats on a board of `board_size` with `pieces` pieces on it.
    pub fn threats(board_size: u8, pieces: usize) -> CostClass {
        let pieces = u8::try_from(pieces).unwrap_or(u8::MAX);
        CostClass::Threats {
            board_size,
            pieces: pieces - pieces % PIECES_PER_CLASS,
        }
    }

    /// `searches` searches capped at `max_nodes` nodes and perhaps
    /// `max_depth` plies.
    pub fn capped(max_depth: Option<u32>, max_nodes: u64, searches: u32) -> CostClass {
        CostClass::Capped {
            max_depth: max_depth.map(|depth| u8::try_from(depth).unwrap_or(u8::MAX)),
            nodes_log2: (u64::BITS - (max_nodes.max(1) - 1).leading_zeros()) as u8,
            searches: u8::try_from(searches).unwrap_or(u8::MAX),
        }
    }
}

/// The weight of a new sample in the running mean: 1/8, so that a few
/// calls of a new kind of position move the estimate and one odd call does not.
const NEW_SAMPLE_EIGHTHS: u32 = 1;

/// The running mean of what each class of search took.
#[derive(Debug, Default)]
pub struct CostModel {
    means: HashMap<CostClass, Duration>,
}

impl CostModel {
    /// What a search of `class` is expected to take: the mean of those
    /// before it, or `prior` until one has finished.
    pub fn estimate(&self, class: CostClass, prior: Duration) -> Duration {
        self.means.get(&class).copied().unwrap_or(prior)
    }

    /// A search of `class` held its slot for `took` (at most `bound`, the
    /// longest it could have been given, so one stalled thread cannot make a
    /// class look endless). A search its deadline `cut` short would have
    /// taken longer: it can only raise the estimate.
    pub fn record(&mut self, class: CostClass, took: Duration, bound: Duration, cut: bool) {
        let mut took = took.min(bound);
        if cut && let Some(&mean) = self.means.get(&class) {
            took = took.max(mean);
        }
        self.means
            .entry(class)
            .and_modify(|mean| {
                *mean = (*mean * (8 - NEW_SAMPLE_EIGHTHS) + took * NEW_SAMPLE_EIGHTHS) / 8;
            })
            .or_insert(took);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn the_estimate_is_the_prior_until_a_search_finishes_then_follows_what_they_took() {
        let mut costs = CostModel::default();
        let class = CostClass::threats(13, 37);
        assert_eq!(costs.estimate(class, 50 * MS), 50 * MS);
        costs.record(class, 95 * MS, 10_000 * MS, false);
        assert_eq!(costs.estimate(class, 50 * MS), 95 * MS);
        // One cut short by its deadline says only that it would have taken longer.
        costs.record(class, 30 * MS, 10_000 * MS, true);
        assert_eq!(costs.estimate(class, 50 * MS), 95 * MS);
        costs.record(class, 175 * MS, 10_000 * MS, true);
        assert_eq!(costs.estimate(class, 50 * MS), 105 * MS);
        // An eighth of the way to each new sample.
        costs.record(class, 25 * MS, 10_000 * MS, false);
        assert_eq!(costs.estimate(class, 50 * MS), 95 * MS);
        // Other classes keep their prior.
        assert_eq!(costs.estimate(CostClass::threats(9, 37), 50 * MS), 50 * MS);
    }

    #[test]
    fn a_sample_counts_at_most_its_bound() {
        let mut costs = CostModel::default();
        let class = CostClass::capped(Some(3), 50_000, 1);
        costs.record(class, Duration::from_secs(3600), 200 * MS, false);
        assert_eq!(costs.estimate(class, MS), 200 * MS);
    }

    #[test]
    fn classes_round_pieces_and_nodes() {
        assert_eq!(CostClass::threats(11, 37), CostClass::threats(11, 36));
        assert_ne!(CostClass::threats(11, 37), CostClass::threats(11, 35));
        assert_eq!(
            CostClass::capped(Some(3), 50_000, 1),
            CostClass::Capped {
                max_depth: Some(3),
                nodes_log2: 16,
                searches: 1
            }
        );
        assert_eq!(
            CostClass::capped(None, u64::MAX, 2),
            CostClass::Capped {
                max_depth: None,
                nodes_log2: 64,
                searches: 2
            }
        );
    }
}
