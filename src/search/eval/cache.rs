//! The static scores of positions evaluated lately, by hash. A search meets
//! the same leaves again: in each iteration of iterative deepening, in every
//! re-search of a reduced or null-window move, and through transpositions.
//! A hit costs one load instead of counting the terms and a forward pass.
//! In `tafl bench --net` about one evaluation in five is a hit.
//!
//! A slot holds the position's full 64-bit hash and its score. A probe
//! answers only for the very hash stored; a different position under the
//! same 64-bit hash is as unlikely here as in the transposition table. The
//! score is the evaluator's alone, before a level's noise, so a cache holds
//! one evaluator's scores: the search clears it when it starts, since a
//! workspace serves every variant and evaluator.

/// Slots of a cache: 16 bytes each, 1 MiB.
const SLOTS: usize = 1 << 16;

#[derive(Clone, Copy)]
struct Slot {
    hash: u64,
    score: i32,
}

impl Slot {
    /// The empty slot at `index`: its hash never indexes it (its low bits differ from the
    /// index), so no probe finds it.
    fn empty(index: usize) -> Slot {
        Slot {
            hash: !(index as u64),
            score: 0,
        }
    }
}

pub(crate) struct ScoreCache {
    slots: Box<[Slot]>,
}

impl ScoreCache {
    pub fn new() -> ScoreCache {
        ScoreCache {
            slots: (0..SLOTS).map(Slot::empty).collect(),
        }
    }

    /// Forgets every score.
    pub fn clear(&mut self) {
        for (index, slot) in self.slots.iter_mut().enumerate() {
            *slot = Slot::empty(index);
        }
    }

    #[inline]
    pub fn get(&self, hash: u64) -> Option<i32> {
        let slot = self.slots[hash as usize % SLOTS];
        (slot.hash == hash).then_some(slot.score)
    }

    #[inline]
    pub fn insert(&mut self, hash: u64, score: i32) {
        self.slots[hash as usize % SLOTS] = Slot { hash, score };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A score comes back only for the hash it was stored under, until another hash of the same
    /// slot takes its place or the cache is cleared; an empty cache answers no hash, not even the
    /// ones an empty slot's filler could be mistaken for.
    #[test]
    fn a_score_comes_back_only_for_its_own_hash() {
        let mut cache = ScoreCache::new();
        for hash in [0, 1, u64::MAX, !1, SLOTS as u64, 0x9e37_79b9_7f4a_7c15] {
            assert_eq!(cache.get(hash), None, "{hash:#x} in an empty cache");
        }
        let hash = 0x9e37_79b9_7f4a_7c15;
        cache.insert(hash, -417);
        assert_eq!(cache.get(hash), Some(-417));
        let same_slot = hash ^ (1 << 40);
        assert_eq!(cache.get(same_slot), None);
        cache.insert(same_slot, 12);
        assert_eq!(cache.get(same_slot), Some(12));
        assert_eq!(
            cache.get(hash),
            None,
            "the slot's newer hash took its place"
        );
        cache.clear();
        assert_eq!(cache.get(same_slot), None);
    }
}
