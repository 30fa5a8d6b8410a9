//! The outline store: glyph records in one arena of words with a budget,
//! least-recently-used eviction of outlines no frame in flight uses, and
//! deallocation of their ranges (coalesced), so space is reused.

use super::{pack, read::Curve, OutlineError};
use crate::FontId;
use std::ops::Range;

/// Which outline: a font (an instance or a face: each has its own id) and
/// a glyph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CurveKey {
    /// The font.
    pub font: FontId,
    /// The glyph.
    pub glyph: u16,
}

/// Where a glyph's record lies in the store's words, and its bounds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OutlineSlot {
    /// The record's first word.
    pub offset: u32,
    /// `xmin, ymin, xmax, ymax` in ems (y up).
    pub bounds: [f32; 4],
}

/// What the store did (cumulative) and holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CurveStoreStats {
    /// Outlines read from their face and packed.
    pub reads: u64,
    /// Lookups answered by a kept record.
    pub hits: u64,
    /// Records evicted to make room.
    pub evictions: u64,
    /// Records (blank glyphs included) held now.
    pub records: usize,
    /// Words the records hold now.
    pub used_words: usize,
}

#[derive(Clone, Debug)]
struct Entry {
    /// Empty for a glyph without an outline.
    range: Range<u32>,
    bounds: [f32; 4],
    /// The frame that used it last.
    used: u64,
}

/// Glyph outline records ([`pack`](super::pack)) in one arena of words, at
/// most `budget` words long. The arena's words are what a GPU buffer
/// mirrors: [`take_dirty`](Self::take_dirty) says which changed.
pub struct CurveStore {
    words: Vec<u32>,
    /// Free ranges of `words`, by start, none touching another.
    free: Vec<Range<u32>>,
    entries: lru::LruCache<CurveKey, Entry, foldhash::fast::RandomState>,
    budget: usize,
    dirty: Vec<Range<u32>>,
    stats: CurveStoreStats,
}

impl std::fmt::Debug for CurveStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CurveStore")
            .field("words", &self.words.len())
            .field("budget", &self.budget)
            .field("stats", &self.stats())
            .finish()
    }
}

/// The store's budget unless set: 16 MiB of words.
pub const DEFAULT_BUDGET_BYTES: u64 = 16 << 20;

impl Default for CurveStore {
    fn default() -> Self {
        CurveStore::new(DEFAULT_BUDGET_BYTES)
    }
}

impl CurveStore {
    /// An empty store of at most `budget_bytes` (whole words).
    pub fn new(budget_bytes: u64) -> CurveStore {
        CurveStore {
            words: Vec::new(),
            free: Vec::new(),
            entries: lru::LruCache::unbounded_with_hasher(foldhash::fast::RandomState::default()),
            budget: usize::try_from(budget_bytes / 4).unwrap_or(usize::MAX),
            dirty: Vec::new(),
            stats: CurveStoreStats::default(),
        }
    }

    /// The budget in bytes.
    pub fn budget_bytes(&self) -> u64 {
        self.budget as u64 * 4
    }

    /// Sets the budget (whole words). A smaller budget than the arena's
    /// length stops its growth; the records held stay until evicted.
    pub fn set_budget_bytes(&mut self, bytes: u64) {
        self.budget = usize::try_from(bytes / 4).unwrap_or(usize::MAX);
    }

    /// The record of `key`, read with `read` (the glyph's curves) and packed
    /// on a miss; `Ok(None)` for a glyph without an outline. The record is
    /// marked used by `frame`: it is not evicted while a frame up to
    /// `frame + in_flight` runs. A miss that finds no room evicts the least
    /// recently used records of older frames, deallocating their words; if
    /// that is not enough, [`OutlineError::Full`] (nothing held changes).
    pub fn get(
        &mut self, key: CurveKey, frame: u64, in_flight: u32,
        read: impl FnOnce() -> Result<Vec<Curve>, OutlineError>,
    ) -> Result<Option<OutlineSlot>, OutlineError> {
        if let Some(e) = self.entries.get_mut(&key) {
            e.used = frame;
            self.stats.hits += 1;
            return Ok(slot(e));
        }
        let curves = read()?;
        self.stats.reads += 1;
        let Some(record) = pack(&curves) else {
            let e = Entry { range: 0..0, bounds: [0.0; 4], used: frame };
            self.entries.put(key, e);
            return Ok(None);
        };
        let range = self.allocate(record.len(), frame, in_flight)?;
        self.words[range.start as usize..range.end as usize].copy_from_slice(&record);
        self.dirty.push(range.clone());
        let bounds = [0, 1, 2, 3].map(|i| f32::from_bits(record[i]));
        let e = Entry { range, bounds, used: frame };
        let out = slot(&e);
        self.entries.put(key, e);
        Ok(out)
    }

    /// `len` words: the first free range that holds them, else the arena
    /// grown (within the budget), else room made by evicting records no
    /// frame in flight uses.
    fn allocate(
        &mut self, len: usize, frame: u64, in_flight: u32,
    ) -> Result<Range<u32>, OutlineError> {
        let full = OutlineError::Full { need: len, budget: self.budget };
        if len > self.budget || len > u32::MAX as usize {
            return Err(full);
        }
        loop {
            if let Some(r) = self.first_fit(len) {
                return Ok(r);
            }
            // Grow: from the free range at the arena's end, if there is one.
            let tail = self.free.last().filter(|r| r.end as usize == self.words.len());
            let start = tail.map_or(self.words.len(), |r| r.start as usize);
            if start + len <= self.budget {
                if tail.is_some() {
                    self.free.pop();
                }
                self.words.resize(self.words.len().max(start + len), 0);
                return Ok(start as u32..(start + len) as u32);
            }
            let evictable =
                self.entries.peek_lru().is_some_and(|(_, e)| e.used + u64::from(in_flight) < frame);
            if !evictable {
                return Err(full);
            }
            if let Some((_, e)) = self.entries.pop_lru() {
                self.stats.evictions += 1;
                self.release(e.range);
            }
        }
    }

    /// Takes `len` words from the first free range long enough.
    fn first_fit(&mut self, len: usize) -> Option<Range<u32>> {
        let i = self.free.iter().position(|r| r.len() >= len)?;
        let r = &mut self.free[i];
        let out = r.start..r.start + len as u32;
        r.start = out.end;
        if r.start == r.end {
            self.free.remove(i);
        }
        Some(out)
    }

    /// Gives `range` back, merged with the free ranges it touches.
    fn release(&mut self, range: Range<u32>) {
        if range.is_empty() {
            return;
        }
        let i = self.free.partition_point(|r| r.start < range.start);
        let mut r = range;
        if i < self.free.len() && self.free[i].start == r.end {
            r.end = self.free.remove(i).end;
        }
        if i > 0 && self.free[i - 1].end == r.start {
            self.free[i - 1].end = r.end;
        } else {
            self.free.insert(i, r);
        }
    }

    /// Every word of the arena (a GPU buffer mirrors them).
    pub fn words(&self) -> &[u32] {
        &self.words
    }

    /// The ranges of words written since the last call, sorted and merged.
    pub fn take_dirty(&mut self) -> Vec<Range<u32>> {
        let mut d = std::mem::take(&mut self.dirty);
        d.sort_by_key(|r| r.start);
        let mut out: Vec<Range<u32>> = Vec::with_capacity(d.len());
        for r in d {
            match out.last_mut() {
                Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
                _ => out.push(r),
            }
        }
        out
    }

    /// Forgets every record of `font` (a font removed or replaced).
    pub fn forget_font(&mut self, font: FontId) {
        let keys: Vec<CurveKey> =
            self.entries.iter().filter(|(k, _)| k.font == font).map(|(k, _)| *k).collect();
        for k in keys {
            if let Some(e) = self.entries.pop(&k) {
                self.release(e.range);
            }
        }
    }

    /// What the store did and holds.
    pub fn stats(&self) -> CurveStoreStats {
        CurveStoreStats {
            records: self.entries.len(),
            used_words: self.entries.iter().map(|(_, e)| e.range.len()).sum(),
            ..self.stats
        }
    }

    /// Checks the store's invariant: the records' ranges and the free
    /// ranges cover the arena exactly once, free ranges sorted and apart.
    /// (For tests; `Err` says what is wrong.)
    pub fn check(&self) -> Result<(), String> {
        let mut all: Vec<Range<u32>> =
            self.entries.iter().map(|(_, e)| e.range.clone()).filter(|r| !r.is_empty()).collect();
        if self.free.windows(2).any(|w| w[0].end >= w[1].start) {
            return Err(format!("free ranges overlap or touch: {:?}", self.free));
        }
        all.extend(self.free.iter().cloned());
        all.sort_by_key(|r| r.start);
        let mut at = 0;
        for r in &all {
            if r.start != at {
                return Err(format!("gap or overlap at {at}: {r:?}"));
            }
            at = r.end;
        }
        if at as usize != self.words.len() {
            return Err(format!("covered {at} of {} words", self.words.len()));
        }
        Ok(())
    }
}

fn slot(e: &Entry) -> Option<OutlineSlot> {
    (!e.range.is_empty()).then_some(OutlineSlot { offset: e.range.start, bounds: e.bounds })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// `n` curves stacked up: a record of a length that grows with `n`.
    fn curves(n: usize, seed: f32) -> Vec<Curve> {
        (0..n)
            .map(|i| {
                let y = i as f32 + seed;
                [0.0, y, 0.5, y + 0.5, 1.0, y + 1.0]
            })
            .collect()
    }

    proptest! {
        /// Under any sequence of lookups over frames, a small budget keeps
        /// the arena covered exactly once, never grows past the budget,
        /// evicts only records no frame in flight uses, and every record
        /// handed out holds its own glyph's words.
        #[test]
        fn the_store_stays_consistent(ops in proptest::collection::vec((0u16..40, any::<bool>()), 1..300)) {
            let budget_words = 1500usize;
            let mut store = CurveStore::new(budget_words as u64 * 4);
            let mut frame = 1u64;
            let mut used_this_frame: Vec<(CurveKey, u32)> = Vec::new();
            for (glyph, next) in ops {
                if next {
                    frame += 1;
                    used_this_frame.clear();
                }
                let key = CurveKey { font: FontId(0), glyph };
                // A glyph's curve count is its own (the same every read).
                let n = glyph as usize % 29 + 1;
                let before = store.stats();
                match store.get(key, frame, 1, || Ok(curves(n, glyph as f32))) {
                    Ok(Some(slot)) => {
                        let want = pack(&curves(n, glyph as f32)).unwrap();
                        let at = slot.offset as usize;
                        prop_assert_eq!(&store.words()[at..at + want.len()], &want[..]);
                        used_this_frame.push((key, slot.offset));
                    }
                    Ok(None) => prop_assert!(false, "every test glyph has curves"),
                    Err(OutlineError::Full { .. }) => {
                        // Nothing changed, and room was short though every
                        // evictable record went.
                        prop_assert!(store.stats().records <= before.records);
                    }
                    Err(e) => prop_assert!(false, "{e}"),
                }
                prop_assert!(store.words().len() <= budget_words);
                store.check().map_err(TestCaseError::fail)?;
                // This frame's records are still where they were handed out.
                for (k, offset) in &used_this_frame {
                    let e = store.entries.peek(k);
                    prop_assert_eq!(e.map(|e| e.range.start), Some(*offset));
                }
            }
        }
    }

    #[test]
    fn evicted_space_is_reused_and_dirty_ranges_merge() {
        let mut store = CurveStore::new(4 * 400);
        let key = |g| CurveKey { font: FontId(0), glyph: g };
        let a = store.get(key(1), 1, 0, || Ok(curves(20, 0.0))).unwrap().unwrap();
        let len = pack(&curves(20, 0.0)).unwrap().len();
        assert!(len > 150 && len < 300, "{len}");
        let b = store.get(key(2), 1, 0, || Ok(curves(20, 1.0))).unwrap().unwrap();
        assert_eq!(b.offset as usize, len);
        assert_eq!(store.take_dirty(), vec![0..2 * len as u32]);
        // A third does not fit beside them: the least recent of an older
        // frame goes, and the third takes its words.
        let c = store.get(key(3), 2, 0, || Ok(curves(20, 2.0))).unwrap().unwrap();
        assert_eq!(c.offset, a.offset);
        assert_eq!(store.stats().evictions, 1);
        // In frame 2 both held records are in use: a fourth finds no room,
        // and nothing held changes.
        store.get(key(2), 2, 0, || unreachable!("kept")).unwrap();
        assert_eq!(store.stats().hits, 1);
        let full = store.get(key(4), 2, 0, || Ok(curves(20, 3.0)));
        assert!(matches!(full, Err(OutlineError::Full { .. })), "{full:?}");
        assert_eq!(store.stats().records, 2);
        store.check().unwrap();
        store.forget_font(FontId(0));
        assert_eq!(store.stats().records, 0);
        store.check().unwrap();
    }
}
