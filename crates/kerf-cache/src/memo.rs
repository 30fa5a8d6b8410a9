//! The key memo: a direct-mapped table of the keys recent batches found in
//! the LRU map, with the frame of that lookup, so a glyph drawn again (later
//! in the batch, or in the next frames) costs a compare instead of a
//! hash-map probe and an LRU move.
//!
//! A remembered key is used without touching the map only while the lookup
//! that remembered it still protects the glyph
//! (`touched + frames_in_flight >= frame`: no eviction can take it), and only while nothing was removed
//! from or moved in the map since (the cache's `epoch`, bumped by every
//! eviction, relocation, clear and page retirement). Otherwise the key is
//! looked up again, which marks it used and moves it to the front of the
//! LRU list, as every lookup did before: recency is kept to within the
//! frames in flight.

use crate::cache::GlyphEntry;
use crate::key::{FontId, GlyphKey, GlyphSize};

const BITS: u32 = 12;
const SLOTS: usize = 1 << BITS;

#[derive(Clone, Copy)]
struct Slot {
    key: GlyphKey,
    entry: GlyphEntry,
    /// The frame of the map lookup that remembered it (0: empty).
    touched: u64,
    epoch: u64,
}

/// See the module docs.
#[derive(Default)]
pub(crate) struct KeyMemo {
    slots: Box<[Slot]>,
}

impl KeyMemo {
    #[inline]
    fn index(key: &GlyphKey) -> usize {
        let h = (key.glyph as u32).wrapping_mul(0x9E37_79B1)
            ^ key.size.0.wrapping_mul(0x85EB_CA77)
            ^ (key.subpixel_x as u32).wrapping_mul(0xC2B2_AE3D)
            ^ key.font.0.wrapping_mul(0x27D4_EB2F)
            ^ key.mode as u32;
        (h.wrapping_mul(0x1656_67B1) >> (32 - BITS)) as usize
    }

    /// `key`'s entry and the frame it was last looked up in, if remembered
    /// since the map last changed (`epoch`).
    #[inline]
    pub(crate) fn get(&self, key: &GlyphKey, epoch: u64) -> Option<(GlyphEntry, u64)> {
        let s = self.slots.get(Self::index(key))?;
        (s.touched != 0 && s.epoch == epoch && s.key == *key).then_some((s.entry, s.touched))
    }

    /// Remembers `key`'s entry, found in the map in frame `touched` (≥ 1).
    #[inline]
    pub(crate) fn put(&mut self, key: GlyphKey, entry: GlyphEntry, touched: u64, epoch: u64) {
        if self.slots.is_empty() {
            let blank = Slot { key: GlyphKey::new(FontId(0), 0, GlyphSize(1)), entry: GlyphEntry::BLANK, touched: 0, epoch: 0 };
            self.slots = vec![blank; SLOTS].into_boxed_slice();
        }
        if let Some(s) = self.slots.get_mut(Self::index(&key)) {
            *s = Slot { key, entry, touched, epoch };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_last_until_the_map_changes() {
        let mut m = KeyMemo::default();
        let k = GlyphKey::new(FontId(3), 40, GlyphSize(1024));
        let e = GlyphEntry { page: 1, x: 2, y: 3, width: 4, height: 5, left: 6, top: 7 };
        assert_eq!(m.get(&k, 0), None);
        m.put(k, e, 7, 2);
        assert_eq!(m.get(&k, 2), Some((e, 7)));
        assert_eq!(m.get(&GlyphKey { subpixel_x: 64, ..k }, 2), None, "another offset is another key");
        assert_eq!(m.get(&k, 3), None, "the map changed since");
    }
}
