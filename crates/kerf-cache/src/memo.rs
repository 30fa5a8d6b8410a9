//! The batch memo: a small direct-mapped table of the keys a batch has
//! already found in the LRU map, so a glyph repeated within one `prepare`
//! (most of a paragraph's glyphs) costs a compare instead of a hash-map probe
//! and an LRU move.
//!
//! Entries are valid for one batch only (a generation number per batch): a
//! key found in this batch was promoted and marked used in this frame, so it
//! is protected from eviction, and nothing moves in the map until the batch
//! has looked every key up.

use crate::cache::GlyphEntry;
use crate::key::{FontId, GlyphKey, GlyphSize};

const BITS: u32 = 10;
const SLOTS: usize = 1 << BITS;

#[derive(Clone, Copy)]
struct Slot {
    generation: u32,
    key: GlyphKey,
    entry: GlyphEntry,
}

/// See the module docs.
pub(crate) struct BatchMemo {
    slots: Box<[Slot]>,
    generation: u32,
}

impl Default for BatchMemo {
    fn default() -> Self {
        BatchMemo { slots: Box::new([]), generation: 0 }
    }
}

impl BatchMemo {
    /// Starts a batch: every earlier entry becomes invalid.
    #[inline]
    pub(crate) fn begin(&mut self) {
        if self.slots.is_empty() {
            let blank = Slot { generation: 0, key: GlyphKey::new(FontId(0), 0, GlyphSize(1)), entry: GlyphEntry::BLANK };
            self.slots = vec![blank; SLOTS].into_boxed_slice();
        }
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            // Wrapped: clear so no entry of 2^32 batches ago looks current.
            self.slots.iter_mut().for_each(|s| s.generation = 0);
            self.generation = 1;
        }
    }

    #[inline]
    fn index(key: &GlyphKey) -> usize {
        let h = (key.glyph as u32).wrapping_mul(0x9E37_79B1)
            ^ key.size.0.wrapping_mul(0x85EB_CA77)
            ^ (key.subpixel_x as u32).wrapping_mul(0xC2B2_AE3D)
            ^ key.font.0.wrapping_mul(0x27D4_EB2F)
            ^ key.mode as u32;
        (h.wrapping_mul(0x1656_67B1) >> (32 - BITS)) as usize
    }

    /// The entry `key` was found with earlier in this batch.
    #[inline]
    pub(crate) fn get(&self, key: &GlyphKey) -> Option<GlyphEntry> {
        let s = self.slots.get(Self::index(key))?;
        (s.generation == self.generation && s.key == *key).then_some(s.entry)
    }

    /// Remembers `key`'s entry for the rest of the batch.
    #[inline]
    pub(crate) fn put(&mut self, key: GlyphKey, entry: GlyphEntry) {
        let generation = self.generation;
        if let Some(s) = self.slots.get_mut(Self::index(&key)) {
            *s = Slot { generation, key, entry };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_last_one_batch() {
        let mut m = BatchMemo::default();
        m.begin();
        let k = GlyphKey::new(FontId(3), 40, GlyphSize(1024));
        let e = GlyphEntry { page: 1, x: 2, y: 3, width: 4, height: 5, left: 6, top: 7 };
        assert_eq!(m.get(&k), None);
        m.put(k, e);
        assert_eq!(m.get(&k), Some(e));
        assert_eq!(m.get(&GlyphKey { subpixel_x: 64, ..k }), None, "another offset is another key");
        m.begin();
        assert_eq!(m.get(&k), None, "the next batch starts empty");
    }
}
