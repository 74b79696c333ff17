//! Scores the evaluation already gave in this search, by position hash.
//!
//! A search meets the same leaf many times (each iteration of the deepening
//! revisits the last one's leaves, and transpositions reach a position by
//! several move orders), and counting the terms at a leaf costs more than
//! the rest of its node. The cache is a direct-mapped table of the last
//! score stored at each slot; a search gets a fresh salt, so what an earlier
//! search stored (perhaps with another evaluation) never matches.

/// Slots in a cache: 512 KiB, small enough to stay near the core.
const SLOTS: usize = 1 << 15;

/// Static scores by position hash, for one search at a time.
pub(crate) struct EvalCache {
    slots: Box<[(u64, i32)]>,
    salt: u64,
}

impl EvalCache {
    /// An empty cache.
    pub fn new() -> EvalCache {
        EvalCache {
            slots: vec![(0, 0); SLOTS].into_boxed_slice(),
            salt: 0,
        }
    }

    /// Forgets every score stored so far: the next search's keys differ from them all.
    pub fn new_search(&mut self) {
        self.salt = crate::rules::splitmix(self.salt);
    }

    /// The score stored for the position of `hash` in this search, else `evaluate()`'s, stored.
    #[inline]
    pub fn get_or_insert(&mut self, hash: u64, evaluate: impl FnOnce() -> i32) -> i32 {
        let key = hash ^ self.salt;
        let slot = &mut self.slots[hash as usize & (SLOTS - 1)];
        if slot.0 == key {
            return slot.1;
        }
        let score = evaluate();
        *slot = (key, score);
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_score_is_kept_within_a_search_and_forgotten_by_the_next() {
        let mut cache = EvalCache::new();
        cache.new_search();
        assert_eq!(cache.get_or_insert(7, || 10), 10);
        assert_eq!(cache.get_or_insert(7, || unreachable!("cached")), 10);
        // Another position in the same slot takes it over.
        assert_eq!(cache.get_or_insert(7 + SLOTS as u64, || 20), 20);
        assert_eq!(cache.get_or_insert(7, || 30), 30);
        cache.new_search();
        assert_eq!(cache.get_or_insert(7, || 40), 40);
    }
}
