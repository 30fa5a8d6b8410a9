//! The key memo: a direct-mapped table of the entries recent batches found
//! in the LRU map, so a glyph drawn again (later in the batch, or in the next
//! frames) costs a compare instead of a hash-map probe and an LRU move.
//!
//! The table is made of groups, one cache line each, one group per (font,
//! glyph, size, mode): the sub-pixel bins of a glyph share its line, so text
//! drawn at 4 bins touches as many lines as at 1 bin. An entry is kept in a
//! compact form (10 bytes); entries that do not fit it (pages past 255,
//! bitmaps wider or taller than 255 texels, bearings past ±127 px, tiled
//! glyphs) are simply not remembered and are looked up in the map each time.
//!
//! A remembered entry is used only in the epoch it was remembered in (the
//! atlas's `memo_epoch`, bumped by a clear and by a page starting to
//! retire). An eviction or a relocation [`forget`](KeyMemo::forget)s only
//! its key: a churning atlas evicts every frame, and when each eviction
//! emptied the whole memo, every glyph of the next batch was looked up in
//! the map again.
//!
//! **Recency.** A hit here does not move the glyph in the LRU list; it marks
//! its group used in this frame (`touched`) and, once, *pending*. Before the
//! cache evicts anything it writes the pending groups back
//! ([`drain_pending`](KeyMemo::drain_pending): each of their glyphs gets
//! `last_used = touched` and moves to the front of the list), so eviction
//! never takes a glyph a frame in flight drew, and the LRU order is exact up
//! to the order among glyphs used since the last write-back. A pending group
//! that is about to be overwritten is written back first ([`put`](KeyMemo::put)
//! hands its glyphs out). Only the bins used since the last write-back are
//! handed back, each with its group's `touched`, the frame of its most
//! recently used bin.
//!
//! Epochs and frames are kept as their low 32 bits; the table is written back
//! and emptied when the high bits change, so a truncated value is never
//! mistaken for another.

use crate::atlas::entry::GlyphEntry;
use crate::key::{FontId, GlyphKey, GlyphSize, RenderMode};

const BITS: u32 = 12;
const GROUPS: usize = 1 << BITS;
/// Lines per set (a power of two).
const WAYS: usize = 4;
/// Bins a group holds: bin offsets 0, 64, 128 and 192 (the default 4 bins)
/// each have their own; with more bins, offsets share a place and the one
/// last looked up is kept.
const BINS: usize = 4;
const BIN_BITS: u8 = (1 << BINS) - 1;
const PENDING: u8 = 1 << 7;

/// An entry in 10 bytes, with the sub-pixel offset it was looked up at.
#[derive(Clone, Copy, Default)]
#[repr(C)]
struct Packed {
    x: u16,
    y: u16,
    page: u8,
    width: u8,
    height: u8,
    left: i8,
    top: i8,
    subpixel_x: u8,
}

impl Packed {
    #[inline]
    fn pack(e: &GlyphEntry, subpixel_x: u8) -> Option<Packed> {
        Some(Packed {
            x: e.x,
            y: e.y,
            page: u8::try_from(e.page).ok()?,
            width: u8::try_from(e.width).ok()?,
            height: u8::try_from(e.height).ok()?,
            left: i8::try_from(e.left).ok()?,
            top: i8::try_from(e.top).ok()?,
            subpixel_x,
        })
    }

    #[inline]
    fn unpack(self) -> GlyphEntry {
        GlyphEntry {
            page: self.page as u32,
            x: self.x,
            y: self.y,
            width: self.width as u16,
            height: self.height as u16,
            left: self.left as i32,
            top: self.top as i32,
        }
    }
}

/// One cache line: a glyph at one size and mode, and up to [`BINS`] of its
/// sub-pixel offsets.
#[derive(Clone, Copy, Default)]
#[repr(C, align(64))]
struct Group {
    /// Font (low half) and size (high half), as [`RunTag::font_size`].
    font_size: u64,
    /// Glyph (low 16 bits) and mode (above), as [`RunTag::glyph_mode`] makes it.
    glyph_mode: u32,
    epoch: u32,
    touched: u32,
    mode: RenderMode,
    /// Bit `b` (< [`BINS`]): `bins[b]` holds an entry (0: the group is
    /// empty); [`PENDING`]: used since the last write-back.
    valid: u8,
    /// Bit `b`: `bins[b]` was used since the last write-back (only those
    /// bins are handed back as used).
    used: u8,
    bins: [Packed; BINS],
}

/// What the keys of a run of glyphs in one font, size and mode share: their
/// groups' tag and hash but for the glyph, worked out once per run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct RunTag {
    font_size: u64,
    mode: RenderMode,
    /// `(size << 16 | mode << 40 | font << 44) · K1`: a key's hash is this
    /// plus `glyph · K1` (the glyph fills the bits below 16).
    hash: u64,
}

const K1: u64 = 0x9E37_79B9_7F4A_7C15;
const K2: u64 = 0xBF58_476D_1CE4_E5B9;

impl RunTag {
    /// The tag of `font` at `size` in `mode`.
    #[inline]
    pub(crate) fn new(font: FontId, size: GlyphSize, mode: RenderMode) -> RunTag {
        let rest = (size.0 as u64) << 16 | (mode as u64) << 40 | (font.0 as u64) << 44;
        RunTag {
            font_size: font.0 as u64 | (size.0 as u64) << 32,
            mode,
            hash: rest.wrapping_mul(K1),
        }
    }

    #[inline]
    fn of(key: &GlyphKey) -> RunTag {
        RunTag::new(key.font, key.size, key.mode)
    }

    #[inline]
    fn glyph_mode(&self, glyph: u16) -> u32 {
        glyph as u32 | (self.mode as u32) << 16
    }

    /// The home line of `glyph` in this run: the packed (font, glyph, size,
    /// mode) mixed (multiply, fold the high half down, multiply) so nearby
    /// glyphs and sizes spread out.
    #[inline]
    fn index(&self, glyph: u16) -> usize {
        let h = (glyph as u64).wrapping_mul(K1).wrapping_add(self.hash);
        ((h ^ (h >> 29)).wrapping_mul(K2) >> (64 - BITS)) as usize
    }
}

impl Group {
    #[inline]
    fn holds(&self, tag: &RunTag, glyph: u16, epoch: u32) -> bool {
        self.font_size == tag.font_size
            && self.glyph_mode == tag.glyph_mode(glyph)
            && self.epoch == epoch
    }
}

impl Group {
    /// Hands out the group's glyphs with the frame it was last used in, if
    /// it is pending, and clears its pending mark.
    fn write_back(&mut self, high_frame: u32, out: &mut Vec<(GlyphKey, u64)>) {
        if self.valid & PENDING == 0 {
            return;
        }
        self.valid &= !PENDING;
        let used = std::mem::take(&mut self.used);
        let frame = (high_frame as u64) << 32 | self.touched as u64;
        for (b, p) in self.bins.iter().enumerate() {
            if self.valid & used & (1 << b) != 0 {
                let key = GlyphKey {
                    font: FontId(self.font_size as u32),
                    glyph: self.glyph_mode as u16,
                    size: GlyphSize((self.font_size >> 32) as u32),
                    mode: self.mode,
                    subpixel_x: p.subpixel_x,
                };
                out.push((key, frame));
            }
        }
    }
}

/// See the module docs.
#[derive(Default)]
pub(crate) struct KeyMemo {
    groups: Box<[Group]>,
    /// Indices of the groups marked pending (each once).
    pending: Vec<u32>,
    /// The high 32 bits of the epoch and of the frame the entries were made in.
    high: (u32, u32),
}

impl KeyMemo {
    /// Groups marked pending (their recency not yet written back).
    pub(crate) fn pending(&self) -> usize {
        self.pending.len()
    }

    #[cfg(test)]
    fn index(key: &GlyphKey) -> usize {
        RunTag::of(key).index(key.glyph)
    }

    #[inline]
    fn bin(subpixel_x: u8) -> usize {
        (subpixel_x as usize * BINS) >> 8
    }

    /// Empties the table when the epoch's or frame's high bits changed since
    /// its entries were made, handing the pending glyphs to `write_back`
    /// first. Call before the lookups of a batch.
    #[inline]
    pub(crate) fn sync(&mut self, epoch: u64, frame: u64, write_back: &mut Vec<(GlyphKey, u64)>) {
        let high = ((epoch >> 32) as u32, (frame >> 32) as u32);
        if high != self.high {
            self.drain_pending(write_back);
            self.high = high;
            self.groups.iter_mut().for_each(|g| g.valid = 0);
        }
    }

    /// Adds group `i` to the pending list. A group written back by `put`
    /// stays in the list until the next drain and may be added again: the
    /// list is compacted when it outgrows the table.
    fn mark_pending(&mut self, i: usize) {
        if self.pending.len() >= 2 * GROUPS {
            let groups = &self.groups;
            self.pending
                .retain(|&j| groups.get(j as usize).is_some_and(|g| g.valid & PENDING != 0));
            self.pending.sort_unstable();
            self.pending.dedup();
        }
        self.pending.push(i as u32);
    }

    /// True when glyphs were used here since the last write-back.
    #[inline]
    pub(crate) fn has_pending(&self) -> bool {
        !self.pending.is_empty()
    }

    /// Hands out every pending group's glyphs with the frame they were last
    /// used in (for the cache to write into the LRU map), and clears the marks.
    pub(crate) fn drain_pending(&mut self, out: &mut Vec<(GlyphKey, u64)>) {
        let high_frame = self.high.1;
        for i in std::mem::take(&mut self.pending) {
            if let Some(g) = self.groups.get_mut(i as usize) {
                g.write_back(high_frame, out);
            }
        }
    }

    /// `key`'s entry, if remembered since the map last changed (`epoch`);
    /// marks it used in `frame`.
    #[cfg(test)]
    pub(crate) fn get(&mut self, key: &GlyphKey, epoch: u64, frame: u64) -> Option<GlyphEntry> {
        self.get_in(&RunTag::of(key), key.glyph, key.subpixel_x, epoch, frame)
    }

    /// The entry of `glyph` at `subpixel_x` in the run `tag`, if remembered
    /// since the map last changed (`epoch`); marks it used in `frame`.
    #[inline(always)]
    pub(crate) fn get_in(
        &mut self, tag: &RunTag, glyph: u16, subpixel_x: u8, epoch: u64, frame: u64,
    ) -> Option<GlyphEntry> {
        let (i, b) = self.held(tag, glyph, subpixel_x, epoch)?;
        let g = self.groups.get_mut(i)?;
        let entry = g.bins[b].unpack();
        g.used |= 1 << b;
        let frame = frame as u32;
        if g.touched != frame {
            g.touched = frame;
            if g.valid & PENDING == 0 {
                g.valid |= PENDING;
                self.mark_pending(i);
            }
        }
        Some(entry)
    }

    /// The group and bin holding `glyph` at `subpixel_x` of the run `tag`
    /// in this `epoch`, if any.
    #[inline(always)]
    fn held(&self, tag: &RunTag, glyph: u16, subpixel_x: u8, epoch: u64) -> Option<(usize, usize)> {
        let i = self.find(tag, glyph, epoch as u32)?;
        let g = self.groups.get(i)?;
        let b = Self::bin(subpixel_x);
        (g.valid & (1 << b) != 0 && g.bins[b].subpixel_x == subpixel_x).then_some((i, b))
    }

    /// The group holding `glyph` of the run `tag` in this epoch: the table
    /// is [`WAYS`]-way set-associative (a key's group is at its index or one
    /// of the other lines of its aligned set, its own index looked at
    /// first), so glyphs whose indices collide do not keep evicting each other.
    #[inline(always)]
    fn find(&self, tag: &RunTag, glyph: u16, epoch: u32) -> Option<usize> {
        let i = tag.index(glyph);
        if self.groups.get(i)?.holds(tag, glyph, epoch) {
            return Some(i);
        }
        self.find_in_set(tag, glyph, epoch, i)
    }

    /// [`find`](Self::find) in the set's other lines (rarely needed: kept
    /// out of line so the common case stays small).
    #[inline(never)]
    fn find_in_set(&self, tag: &RunTag, glyph: u16, epoch: u32, i: usize) -> Option<usize> {
        (1..WAYS)
            .map(|w| i ^ w)
            .find(|&j| self.groups.get(j).is_some_and(|g| g.holds(tag, glyph, epoch)))
    }

    /// Forgets `key`'s entry, if remembered in this `epoch` (the glyph left
    /// the map: its slot may go to another glyph). Its group's other bins
    /// stay.
    pub(crate) fn forget(&mut self, key: &GlyphKey, epoch: u64) {
        if let Some((i, b)) = self.held(&RunTag::of(key), key.glyph, key.subpixel_x, epoch) {
            if let Some(g) = self.groups.get_mut(i) {
                g.valid &= !(1 << b);
            }
        }
    }

    /// Remembers `key`'s entry, found in the map in `frame` (which marked
    /// it used then). A pending group this replaces hands its glyphs to
    /// `write_back` first.
    #[inline]
    pub(crate) fn put(
        &mut self, key: &GlyphKey, entry: &GlyphEntry, frame: u64, epoch: u64,
        write_back: &mut Vec<(GlyphKey, u64)>,
    ) {
        let Some(p) = Packed::pack(entry, key.subpixel_x) else { return };
        if self.groups.is_empty() {
            self.groups = vec![Group::default(); GROUPS].into_boxed_slice();
        }
        let high_frame = self.high.1;
        let (epoch, frame) = (epoch as u32, frame as u32);
        let tag = RunTag::of(key);
        let i = match self.find(&tag, key.glyph, epoch) {
            Some(i) => i,
            None => {
                // An empty or outdated way, else the one used least recently.
                let home = tag.index(key.glyph);
                let unused = |g: &Group| g.valid & BIN_BITS == 0 || g.epoch != epoch;
                let ways = (0..WAYS).map(|w| home ^ w);
                let i = match ways.clone().find(|&j| unused(&self.groups[j])) {
                    Some(j) => j,
                    None => ways
                        .max_by_key(|&j| (frame.wrapping_sub(self.groups[j].touched), j == home))
                        .unwrap_or(home),
                };
                let g = &mut self.groups[i];
                g.write_back(high_frame, write_back);
                *g = Group {
                    font_size: tag.font_size,
                    glyph_mode: tag.glyph_mode(key.glyph),
                    epoch,
                    touched: frame,
                    mode: key.mode,
                    valid: 0,
                    used: 0,
                    bins: g.bins,
                };
                i
            }
        };
        let g = &mut self.groups[i];
        // Frames only grow: a group used in this frame stays so.
        g.touched = frame;
        let b = Self::bin(key.subpixel_x);
        g.bins[b] = p;
        g.valid |= 1 << b;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(x: u16) -> GlyphEntry {
        GlyphEntry { page: 1, x, y: 3, width: 4, height: 5, left: -6, top: 7 }
    }

    #[test]
    fn entries_last_until_the_map_changes() {
        let mut m = KeyMemo::default();
        let mut back = Vec::new();
        let k = GlyphKey::new(FontId(3), 40, GlyphSize(1024));
        assert_eq!(m.get(&k, 0, 7), None);
        m.put(&k, &entry(2), 7, 2, &mut back);
        assert_eq!(m.get(&k, 2, 7), Some(entry(2)));
        assert_eq!(m.get(&k, 2, 900), Some(entry(2)), "frames later, while nothing was evicted");
        assert_eq!(
            m.get(&GlyphKey { subpixel_x: 64, ..k }, 2, 900),
            None,
            "another offset is another key"
        );
        assert_eq!(m.get(&GlyphKey { glyph: 41, ..k }, 2, 900), None);
        assert_eq!(m.get(&GlyphKey { mode: RenderMode::Lcd, ..k }, 2, 900), None);
        assert_eq!(m.get(&k, 3, 900), None, "the map changed since");
        assert!(back.is_empty());
    }

    #[test]
    fn a_forgotten_key_goes_and_nothing_else() {
        let mut m = KeyMemo::default();
        let mut back = Vec::new();
        let k = GlyphKey::new(FontId(3), 40, GlyphSize(1024));
        let at = |s: u8| GlyphKey { subpixel_x: s, ..k };
        let other = GlyphKey { glyph: 41, ..k };
        for (i, key) in [at(0), at(64), other].iter().enumerate() {
            m.put(key, &entry(i as u16), 7, 2, &mut back);
        }
        m.forget(&at(64), 2);
        assert_eq!(m.get(&at(64), 2, 8), None, "forgotten");
        assert_eq!(m.get(&at(0), 2, 8), Some(entry(0)), "its other bin stays");
        assert_eq!(m.get(&other, 2, 8), Some(entry(2)), "another glyph stays");
        // A key sharing its place with the one held (8 bins) is not that one.
        m.forget(&at(32), 2);
        assert_eq!(m.get(&at(0), 2, 8), Some(entry(0)));
        // Nothing remembered in another epoch is touched.
        m.forget(&at(0), 3);
        assert_eq!(m.get(&at(0), 2, 8), Some(entry(0)));
        // A used, then forgotten, bin is not handed back as used.
        assert!(m.get(&other, 2, 9).is_some());
        m.forget(&other, 2);
        m.drain_pending(&mut back);
        assert!(back.iter().all(|(key, _)| *key != other), "{back:?}");
    }

    #[test]
    fn uses_are_handed_back_once_with_their_last_frame() {
        let mut m = KeyMemo::default();
        let mut back = Vec::new();
        let k = GlyphKey::new(FontId(0), 9, GlyphSize(640));
        let at = |s: u8| GlyphKey { subpixel_x: s, ..k };
        m.put(&at(0), &entry(10), 5, 0, &mut back);
        m.put(&at(64), &entry(20), 5, 0, &mut back);
        assert!(!m.has_pending(), "a lookup in the map marked them used already");
        assert_eq!(m.get(&at(64), 0, 8), Some(entry(20)));
        assert_eq!(m.get(&at(64), 0, 9), Some(entry(20)));
        assert!(m.has_pending());
        m.drain_pending(&mut back);
        back.sort_by_key(|(k, _)| k.subpixel_x);
        // Only the bin used comes back, with its group's last use (the
        // other was marked used by its lookup in the map).
        assert_eq!(back, vec![(at(64), 9)]);
        back.clear();
        m.drain_pending(&mut back);
        assert!(back.is_empty() && !m.has_pending());
        // Offsets that share a place (8 bins): only the last is kept.
        m.put(&at(32), &entry(40), 10, 0, &mut back);
        assert_eq!(m.get(&at(32), 0, 10), Some(entry(40)));
        assert_eq!(m.get(&at(0), 0, 10), None);
    }

    #[test]
    fn a_replaced_pending_group_is_handed_back_first() {
        let mut m = KeyMemo::default();
        let mut back = Vec::new();
        let k = GlyphKey::new(FontId(0), 9, GlyphSize(640));
        m.put(&k, &entry(1), 5, 0, &mut back);
        assert!(m.get(&k, 0, 6).is_some());
        // Fill every way of k's set with other glyphs: k's group goes.
        let set = KeyMemo::index(&k) & !(WAYS - 1);
        let others: Vec<GlyphKey> = (0..u16::MAX)
            .map(|g| GlyphKey { glyph: g, ..k })
            .filter(|o| o.glyph != k.glyph && KeyMemo::index(o) & !(WAYS - 1) == set)
            .take(WAYS)
            .collect();
        for (n, o) in others.iter().enumerate() {
            m.put(o, &entry(2 + n as u16), 7 + n as u64, 0, &mut back);
        }
        assert_eq!(back, vec![(k, 6)]);
        assert_eq!(m.get(&k, 0, 20), None);
        for (n, o) in others.iter().enumerate() {
            assert_eq!(
                m.get(o, 0, 20),
                Some(entry(2 + n as u16)),
                "the glyphs of one set are kept together"
            );
        }
    }

    #[test]
    fn entries_that_do_not_fit_are_not_remembered() {
        let mut m = KeyMemo::default();
        let mut back = Vec::new();
        let k = GlyphKey::new(FontId(0), 1, GlyphSize(64 * 300));
        for e in [
            GlyphEntry { page: 300, x: 0, y: 0, width: 1, height: 1, left: 0, top: 0 },
            GlyphEntry { page: 0, x: 0, y: 0, width: 256, height: 1, left: 0, top: 0 },
            GlyphEntry { page: 0, x: 0, y: 0, width: 1, height: 1, left: 0, top: 200 },
        ] {
            m.put(&k, &e, 1, 0, &mut back);
            assert_eq!(m.get(&k, 0, 1), None, "{e:?}");
        }
    }

    #[test]
    fn truncated_epochs_and_frames_never_alias() {
        let mut m = KeyMemo::default();
        let mut back = Vec::new();
        let k = GlyphKey::new(FontId(0), 1, GlyphSize(640));
        m.sync(5, 7, &mut back);
        m.put(&k, &entry(1), 7, 5, &mut back);
        assert!(m.get(&k, 5, 8).is_some());
        let (epoch, frame) = (5 + (1u64 << 32), 7 + (1u64 << 32));
        m.sync(epoch, frame, &mut back);
        assert_eq!(back, vec![(k, 8)], "pending uses are handed back before the table is emptied");
        assert_eq!(m.get(&k, epoch, frame), None);
        // Either one crossing alone empties the table too.
        for (e, f) in [(epoch, frame + (1u64 << 32)), (epoch + (1u64 << 32), frame)] {
            m.put(&k, &entry(1), frame, epoch, &mut back);
            assert!(m.get(&k, epoch, frame).is_some());
            m.sync(e, f, &mut back);
            assert_eq!(m.get(&k, e, f), None, "epoch {e:#x}, frame {f:#x}");
            m.sync(epoch, frame, &mut back);
        }
    }
}
