//! A small map from a position's Zobrist hash to an index into a game's
//! history: repetition's constant-time look-up.
//!
//! The keys are Zobrist hashes, already uniformly random, so their low bits
//! pick the slot with no further hashing, and collisions go to the next
//! slot (linear probing). Entries are never removed one by one, only all at
//! once after a capture, which a generation number does without touching
//! the slots.

/// Hash → history index, for the positions since the last capture.
#[derive(Clone, Debug)]
pub(crate) struct HashIndex {
    /// A power of two long, at most half full.
    slots: Vec<Slot>,
    len: usize,
    /// The generation of the live slots: the others are empty.
    generation: u32,
}

#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    hash: u64,
    index: u32,
    generation: u32,
}

impl HashIndex {
    /// An empty map with room for `capacity` entries before it grows.
    pub(crate) fn with_capacity(capacity: usize) -> HashIndex {
        HashIndex {
            slots: vec![Slot::default(); (2 * capacity).next_power_of_two().max(8)],
            len: 0,
            generation: 1,
        }
    }

    /// The bytes its slots take.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.slots.capacity() * size_of::<Slot>()
    }

    /// The index stored for `hash`, if any.
    #[inline]
    pub(crate) fn get(&self, hash: u64) -> Option<usize> {
        let mask = self.slots.len() - 1;
        let mut at = hash as usize & mask;
        loop {
            let slot = self.slots[at];
            if slot.generation != self.generation {
                return None;
            }
            if slot.hash == hash {
                return Some(slot.index as usize);
            }
            at = (at + 1) & mask;
        }
    }

    /// Stores `index` for `hash`, returning the index it replaces.
    #[inline]
    pub(crate) fn insert(&mut self, hash: u64, index: usize) -> Option<usize> {
        if 2 * (self.len + 1) > self.slots.len() {
            self.grow();
        }
        let index = u32::try_from(index).expect("a game of fewer than 2³² plies");
        let mask = self.slots.len() - 1;
        let mut at = hash as usize & mask;
        loop {
            let slot = &mut self.slots[at];
            if slot.generation != self.generation {
                *slot = Slot {
                    hash,
                    index,
                    generation: self.generation,
                };
                self.len += 1;
                return None;
            }
            if slot.hash == hash {
                return Some(std::mem::replace(&mut slot.index, index) as usize);
            }
            at = (at + 1) & mask;
        }
    }

    /// Forgets every entry.
    #[inline]
    pub(crate) fn clear(&mut self) {
        self.len = 0;
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            // After 2³² clears, slots of generation 0 are empty again.
            self.slots.fill(Slot::default());
            self.generation = 1;
        }
    }

    fn grow(&mut self) {
        let doubled = vec![Slot::default(); 2 * self.slots.len()];
        let old = std::mem::replace(&mut self.slots, doubled);
        let generation = self.generation;
        self.len = 0;
        for slot in old.into_iter().filter(|slot| slot.generation == generation) {
            self.insert(slot.hash, slot.index as usize);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::HashIndex;

    #[test]
    fn stores_replaces_grows_and_clears() {
        let mut map = HashIndex::with_capacity(2);
        // Hashes that share their low bits collide on purpose.
        let hashes: Vec<u64> = (0..100).map(|i| i << 40 | 5).collect();
        for (index, &hash) in hashes.iter().enumerate() {
            assert_eq!(map.insert(hash, index), None);
        }
        for (index, &hash) in hashes.iter().enumerate() {
            assert_eq!(map.get(hash), Some(index));
        }
        assert_eq!(map.insert(hashes[7], 1000), Some(7));
        assert_eq!(map.get(hashes[7]), Some(1000));
        assert_eq!(map.get(6), None);
        map.clear();
        assert!(hashes.iter().all(|&hash| map.get(hash).is_none()));
        assert_eq!(map.insert(hashes[3], 1), None);
        assert_eq!(map.get(hashes[3]), Some(1));
    }

    #[test]
    fn clears_after_the_generations_wrap() {
        let mut map = HashIndex::with_capacity(4);
        map.insert(9, 1);
        map.generation = u32::MAX;
        map.insert(10, 2);
        map.clear();
        assert_eq!(map.get(9), None);
        assert_eq!(map.get(10), None);
        map.insert(11, 3);
        assert_eq!(map.get(11), Some(3));
    }
}
