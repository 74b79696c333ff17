//! The transposition table, keyed by the rules' Zobrist hash.
//!
//! Sharing: one table per running search, never shared between concurrent
//! requests. The engine keeps a pool of tables ([`super::Engine`]); a search
//! takes one (or makes one, if all are busy), uses it alone, and gives it
//! back. That keeps levels 1–9 deterministic per seed — a table shared with
//! other requests would make the answer depend on what else ran — and costs
//! little: the service is stateless, so concurrent requests are almost always
//! different games with nothing to share. No table is cleared per search:
//! each entry carries the 14-bit epoch of the search that wrote it, and an
//! entry of another epoch counts as empty for probing *and* replacement, so a
//! search sees exactly what it would see in a fresh table. Only when the epoch
//! wraps (every 16,383 searches of one table) is the table zeroed. A review
//! keeps one table for a whole game (`review/`): one epoch for all its
//! searches, so each position's search starts from what the earlier ones found.
//!
//! An entry is two words: the key xor the data (so a mismatched entry fails
//! the check) and the data: move (16 bits), score (24), depth (8), bound (2),
//! epoch (14). Buckets hold two entries: one kept by depth, one always
//! replaced.

use std::sync::atomic::{AtomicU64, Ordering};

use zerocopy::FromZeros;

use crate::rules::{Move, Square};

use super::params::WIN_BOUND;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Bound {
    Exact = 1,
    /// Fail high: the score is at least this.
    Lower = 2,
    /// Fail low: the score is at most this.
    Upper = 3,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    pub best_move: Option<Move>,
    pub score: i32,
    pub depth: i32,
    pub bound: Bound,
}

#[derive(Clone, Copy)]
struct Slot {
    check: u64,
    data: u64,
}

impl Slot {
    fn epoch(self) -> u64 {
        self.data >> EPOCH_SHIFT
    }
    fn depth(self) -> i32 {
        ((self.data >> 40) & 0xff) as i32
    }
    fn holds(self, hash: u64, epoch: u64) -> bool {
        self.epoch() == epoch && self.check ^ self.data == hash
    }
}

pub(crate) struct Table {
    /// Buckets of two slots, each slot two words (check, data): zeroed memory straight from the
    /// allocator, so pages are touched only when used. Atomic words, so that searches on several
    /// threads may share one table; a slot torn by two writers fails its check and is a miss.
    words: Vec<AtomicU64>,
    /// A private table: the epoch of the search using it (entries of others count as empty). A
    /// shared one: the age stamped on what is written now (older entries are replaced first).
    epoch: AtomicU64,
    sharing: Sharing,
}

/// Whether one search uses a table at a time, or several at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sharing {
    /// One search at a time, each seeing an empty table: same request, same search.
    Private,
    /// Any number of searches at once, each seeing what the others wrote.
    Shared,
}

const BUCKET_WORDS: usize = 4;
const EPOCH_SHIFT: u32 = 50;
const EPOCH_MAX: u64 = (1 << 14) - 1;
const SCORE_BITS: u32 = 24;

pub(crate) fn pack_move(mv: Move) -> u16 {
    let pack = |square: Square| ((square.file() as u16) << 4) | square.rank() as u16;
    (pack(mv.from) << 8) | pack(mv.to)
}

pub(crate) fn unpack_move(bits: u16) -> Option<Move> {
    let square = |byte: u16| Square::new((byte >> 4) as u8 & 0xf, byte as u8 & 0xf);
    let (from, to) = (square(bits >> 8)?, square(bits & 0xff)?);
    (from != to).then_some(Move { from, to })
}

impl Table {
    /// A table of `megabytes` MiB (at least 32 KiB).
    pub fn new(megabytes: usize, sharing: Sharing) -> Table {
        let buckets = ((megabytes.max(1) << 20) / (8 * BUCKET_WORDS)).max(1024);
        Table {
            // Zeroed by the allocator: an allocation failure here is an out-of-memory abort,
            // as for any other vector.
            words: AtomicU64::new_vec_zeroed(buckets * BUCKET_WORDS)
                .unwrap_or_else(|_| std::alloc::handle_alloc_error(layout(buckets))),
            epoch: AtomicU64::new(match sharing {
                Sharing::Private => 0,
                Sharing::Shared => 1,
            }),
            sharing,
        }
    }

    /// Starts a search. Private: every entry written before is forgotten. Shared: what is
    /// written from now on is newer than what was (and so replaced last).
    pub fn new_search(&mut self) {
        let epoch = self.epoch.get_mut();
        if *epoch == EPOCH_MAX {
            if self.sharing == Sharing::Private {
                self.words.iter_mut().for_each(|word| *word.get_mut() = 0);
            }
            *epoch = 0;
        }
        *epoch += 1;
    }

    /// A search starts on a table shared with others: see [`Table::new_search`].
    pub fn new_shared_search(&self) {
        // Ages run 1..=EPOCH_MAX, so a written slot never has age 0.
        let _ = self
            .epoch
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |age| {
                Some(age % EPOCH_MAX + 1)
            });
    }

    #[inline]
    fn slots(&self, index: usize) -> [Slot; 2] {
        let word = |offset: usize| self.words[index + offset].load(Ordering::Relaxed);
        [
            Slot {
                check: word(0),
                data: word(1),
            },
            Slot {
                check: word(2),
                data: word(3),
            },
        ]
    }

    #[inline]
    fn bucket(&self, hash: u64) -> usize {
        let buckets = self.words.len() / BUCKET_WORDS;
        ((hash as u128 * buckets as u128) >> 64) as usize * BUCKET_WORDS
    }

    /// Whether `slot` holds `hash` for a search stamping `epoch`.
    #[inline]
    fn holds(&self, slot: Slot, hash: u64, epoch: u64) -> bool {
        match self.sharing {
            Sharing::Private => slot.holds(hash, epoch),
            Sharing::Shared => slot.epoch() != 0 && slot.check ^ slot.data == hash,
        }
    }

    /// Scores of wins are stored relative to the node, read back relative to the root.
    #[inline]
    pub fn probe(&self, hash: u64, ply: usize) -> Option<Entry> {
        let epoch = self.epoch.load(Ordering::Relaxed);
        let bucket = self.slots(self.bucket(hash));
        let slot = bucket.iter().find(|&&slot| self.holds(slot, hash, epoch))?;
        let data = slot.data;
        let bound = match (data >> 48) & 3 {
            1 => Bound::Exact,
            2 => Bound::Lower,
            _ => Bound::Upper,
        };
        let raw_score = (((data >> 16) as u32) << (32 - SCORE_BITS)) as i32 >> (32 - SCORE_BITS);
        Some(Entry {
            best_move: unpack_move(data as u16),
            score: score_from_table(raw_score, ply),
            depth: slot.depth(),
            bound,
        })
    }

    #[inline]
    pub fn store(&self, hash: u64, ply: usize, entry: Entry) {
        let epoch = self.epoch.load(Ordering::Relaxed);
        let index = self.bucket(hash);
        let bucket = self.slots(index);
        let packed_move = entry.best_move.map_or(0, pack_move) as u64;
        let score = (score_to_table(entry.score, ply) as u32 as u64) & ((1 << SCORE_BITS) - 1);
        let depth = entry.depth.clamp(0, 255) as u64;
        let mut data = packed_move
            | (score << 16)
            | (depth << 40)
            | ((entry.bound as u64) << 48)
            | (epoch << EPOCH_SHIFT);
        let slot = if let Some(own) = (0..2).find(|&i| self.holds(bucket[i], hash, epoch)) {
            if packed_move == 0 {
                // Keep the move learnt earlier for this position.
                data |= bucket[own].data & 0xffff;
            }
            own
        } else if bucket[0].epoch() != epoch || entry.depth >= bucket[0].depth() {
            0
        } else {
            1
        };
        self.words[index + 2 * slot].store(hash ^ data, Ordering::Relaxed);
        self.words[index + 2 * slot + 1].store(data, Ordering::Relaxed);
    }
}

/// A search's use of a table: a private table as it is, or the shared one
/// with the hashes salted by the game's variant, so that the same board
/// under other rules (Copenhagen and Fetlar on 11×11) is another entry.
#[derive(Clone, Copy)]
pub(crate) struct TableView<'a> {
    table: &'a Table,
    salt: u64,
}

impl<'a> TableView<'a> {
    /// A search's own table.
    pub fn own(table: &'a Table) -> TableView<'a> {
        TableView { table, salt: 0 }
    }

    /// The shared table, for a search of a game keyed `salt`.
    pub fn shared(table: &'a Table, salt: u64) -> TableView<'a> {
        TableView { table, salt }
    }

    #[inline]
    pub fn probe(self, hash: u64, ply: usize) -> Option<Entry> {
        self.table.probe(hash ^ self.salt, ply)
    }

    #[inline]
    pub fn store(self, hash: u64, ply: usize, entry: Entry) {
        self.table.store(hash ^ self.salt, ply, entry);
    }
}

/// The layout of a table of `buckets` buckets (for the allocation-failure report).
fn layout(buckets: usize) -> std::alloc::Layout {
    std::alloc::Layout::array::<u64>(buckets * BUCKET_WORDS)
        .unwrap_or(std::alloc::Layout::new::<u64>())
}

fn score_to_table(score: i32, ply: usize) -> i32 {
    if score >= WIN_BOUND {
        score + ply as i32
    } else if score <= -WIN_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn score_from_table(score: i32, ply: usize) -> i32 {
    if score >= WIN_BOUND {
        score - ply as i32
    } else if score <= -WIN_BOUND {
        score + ply as i32
    } else {
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(score: i32, depth: i32) -> Entry {
        let mv = Move {
            from: Square::new(3, 0).expect("d1"),
            to: Square::new(3, 2).expect("d3"),
        };
        Entry {
            best_move: Some(mv),
            score,
            depth,
            bound: Bound::Lower,
        }
    }

    #[test]
    fn stores_and_reads_back() {
        let mut table = Table::new(1, Sharing::Private);
        table.new_search();
        table.store(0xdead_beef, 3, entry(-1234, 7));
        let read = table.probe(0xdead_beef, 3).expect("stored");
        assert_eq!(
            (read.score, read.depth, read.bound),
            (-1234, 7, Bound::Lower)
        );
        assert_eq!(
            read.best_move.map(|mv| mv.to.to_string()),
            Some("d3".to_string())
        );
        assert!(table.probe(0xdead_bef0, 3).is_none());
    }

    #[test]
    fn win_scores_are_relative_to_the_node() {
        let mut table = Table::new(1, Sharing::Private);
        table.new_search();
        // A win 5 plies from the root, found at ply 2: 3 plies from that node.
        table.store(42, 2, entry(WIN_BOUND + 995, 4));
        assert_eq!(table.probe(42, 4).expect("stored").score, WIN_BOUND + 993);
    }

    #[test]
    fn a_new_search_forgets_everything() {
        let mut table = Table::new(1, Sharing::Private);
        table.new_search();
        table.store(42, 0, entry(10, 9));
        table.new_search();
        assert!(table.probe(42, 0).is_none());
        // The stale deep entry does not keep the new shallow one out of the first slot.
        table.store(42, 0, entry(20, 1));
        assert_eq!(table.probe(42, 0).expect("stored").score, 20);
    }

    #[test]
    fn a_shared_table_keeps_what_every_search_wrote() {
        let table = Table::new(1, Sharing::Shared);
        table.new_shared_search();
        table.store(42, 0, entry(10, 9));
        table.new_shared_search();
        assert_eq!(table.probe(42, 0).expect("kept").score, 10);
        // In its bucket (42 and 43 share one), an older entry gives way to a newer one, however
        // deep: the shallow newcomer takes the depth-kept slot, and the old entry is gone.
        assert_eq!(table.bucket(42), table.bucket(43));
        table.store(43, 0, entry(30, 1));
        assert_eq!(table.probe(43, 0).expect("stored").score, 30);
        assert!(table.probe(42, 0).is_none());
        assert!(table.probe(0, 0).is_none());
    }

    #[test]
    fn a_table_is_shared_across_threads() {
        let table = Table::new(1, Sharing::Shared);
        std::thread::scope(|scope| {
            for thread in 0..4u64 {
                let table = &table;
                scope.spawn(move || {
                    for i in 0..10_000u64 {
                        let hash = splitmix_for_test(thread * 1_000_000 + i);
                        table.store(hash, 0, entry(i as i32 % 1000, 3));
                        if let Some(read) = table.probe(hash, 0) {
                            // Whatever another thread did to the bucket, a hit is this entry.
                            assert_eq!(read.score, i as i32 % 1000);
                        }
                    }
                });
            }
        });
    }

    fn splitmix_for_test(x: u64) -> u64 {
        crate::rules::splitmix(x)
    }
}
