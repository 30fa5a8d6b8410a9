//! One face's flattened outlines, kept by glyph and size class, bounded
//! in bytes and dropped when unread.

use super::flat::FlatOutline;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Arc, Mutex};

/// Most bytes of points, contour starts and edges one face's store keeps
/// (3 MiB: about 2^18 points with their edges, as many outlines as the
/// store held when it counted 2^19 points and edges of 8 bytes each, at
/// a little over half their memory); past it the store starts over.
const STORE_BYTES: usize = 3 << 20;
/// Frames an outline stays in the store unread: a glyph drawn once (a
/// message's rare ideograph that has scrolled away) gives back its
/// outline's memory after ten seconds at 60 fps, so the store holds the
/// outlines of the text being drawn, not of all text ever drawn. Rasters
/// again of what is on screen (another sub-pixel offset, a glyph evicted
/// and drawn anew) read it well within that.
const IDLE_FRAMES: u64 = 600;
/// Frames between two sweeps of outlines gone idle.
const SWEEP_EVERY: u64 = 60;

/// One face's flattened outlines by glyph and size class, bounded to
/// [`STORE_BYTES`] (it starts over when a new outline
/// would pass that: memory is bounded by the glyphs drawn, never by the
/// face), and each dropped once unread for [`IDLE_FRAMES`] frames of the
/// caches that draw from the face ([`tick`](Self::tick)).
#[derive(Debug, Default)]
pub(crate) struct OutlineStore {
    inner: Mutex<Stored>,
}

#[derive(Debug, Default)]
struct Stored {
    /// Each outline by glyph and size class.
    map: HashMap<(u16, u8), Kept, BuildHasherDefault<KeyHasher>>,
    /// Bytes of the outlines kept ([`FlatOutline::size`]).
    bytes: usize,
    /// The latest frame a cache drawing from the face has ended, and the
    /// frame of the last sweep of idle outlines.
    now: u64,
    swept: u64,
}

/// An outline kept (`None`: the glyph has none) and the frame it was last
/// read or kept in.
type Kept = (Option<Arc<FlatOutline>>, u64);

/// A hasher for (glyph, class) keys: they are small integers chosen by the
/// fonts drawn, not by an adversary, and a lookup is on every raster's
/// path, so one multiply instead of SipHash.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    /// (The key's integers arrive here as their bytes.)
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | u64::from(b);
        }
    }

    fn finish(&self) -> u64 {
        // (A product's high bits mix every bit of the key, its low bits
        // only the key's low bits: the high half is folded into the low,
        // which choose the bucket.)
        let p = self.0.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        p ^ (p >> 32)
    }
}

impl OutlineStore {
    /// The outline kept for `glyph` at size class `class`: `None` if none
    /// is kept, `Some(None)` for a glyph known to have none. A read keeps
    /// it [`IDLE_FRAMES`] longer.
    pub(crate) fn get(&self, glyph: u16, class: u8) -> Option<Option<Arc<FlatOutline>>> {
        let mut stored = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let now = stored.now;
        stored.map.get_mut(&(glyph, class)).map(|(outline, read)| {
            *read = now;
            outline.clone()
        })
    }

    /// Keeps `outline` for `glyph` at size class `class`.
    pub(crate) fn insert(&self, glyph: u16, class: u8, outline: Option<Arc<FlatOutline>>) {
        let n = outline.as_ref().map_or(0, |o| o.size());
        let mut stored = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if stored.bytes + n > STORE_BYTES {
            stored.map.clear();
            stored.bytes = 0;
        }
        let now = stored.now;
        if n <= STORE_BYTES {
            let before = stored.map.insert((glyph, class), (outline, now));
            let replaced = before.and_then(|(o, _)| o).map_or(0, |o| o.size());
            stored.bytes = stored.bytes + n - replaced;
        }
    }

    /// A cache drawing from the face has ended `frame` (its own count;
    /// caches sharing a face move one clock, the furthest along): every
    /// [`SWEEP_EVERY`] frames, outlines unread for more than
    /// [`IDLE_FRAMES`] are dropped.
    pub(crate) fn tick(&self, frame: u64) {
        let mut stored = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        stored.now = stored.now.max(frame);
        if stored.now < stored.swept + SWEEP_EVERY {
            return;
        }
        let now = stored.now;
        stored.swept = now;
        if stored.map.is_empty() {
            return;
        }
        let mut dropped = 0;
        stored.map.retain(|_, (outline, read)| {
            let keep = now - *read <= IDLE_FRAMES;
            if !keep {
                dropped += outline.as_ref().map_or(0, |o| o.size());
            }
            keep
        });
        stored.bytes -= dropped;
        if stored.map.is_empty() {
            // (Its table's memory too, when nothing is drawn from the face.)
            stored.map.shrink_to_fit();
        }
    }

    /// Bytes kept (for the bound's test).
    #[cfg(test)]
    pub(crate) fn bytes(&self) -> usize {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The store's hasher tells keys apart, and spreads a face's glyphs of
    /// one class over the low bits that choose a bucket (as a random hash
    /// would: 4,096 keys into 4,096 buckets fill about 63% of them).
    #[test]
    fn the_key_hasher_is_one_to_one_and_spreads_keys_over_buckets() {
        use std::hash::BuildHasher;
        let h = BuildHasherDefault::<KeyHasher>::default();
        let mut all = std::collections::HashSet::new();
        for glyph in (0..=u16::MAX).step_by(7) {
            for class in 0..=16u8 {
                assert!(all.insert(h.hash_one((glyph, class))), "({glyph}, {class}) collides");
            }
        }
        for class in [4u8, 5] {
            let buckets: std::collections::HashSet<u64> =
                (0..4096u16).map(|g| h.hash_one((g, class)) & 4095).collect();
            assert!(buckets.len() > 2400, "class {class}: {} buckets", buckets.len());
        }
    }

    #[test]
    fn outlines_unread_for_longer_than_the_idle_frames_are_dropped() {
        let s = OutlineStore::default();
        // (Outlines of n level points in one contour: no edge but the spare.)
        let b = |n| bytes(n, 1, 0);
        let sized = |n| Some(Arc::new(FlatOutline::new(vec![(0.0, 0.0); n], vec![0])));
        s.tick(1);
        s.insert(1, 4, sized(10));
        s.insert(2, 4, sized(20));
        s.insert(3, 4, None);
        assert_eq!(s.bytes(), b(10) + b(20));
        // Frame 500: a sweep (none idle yet); glyph 2 is read.
        s.tick(500);
        assert!(s.get(2, 4).is_some());
        // Frame 601: glyphs 1 and 3 unread for exactly IDLE_FRAMES: kept.
        s.tick(1 + IDLE_FRAMES);
        assert!(s.get(1, 4).is_some() && matches!(s.get(3, 4), Some(None)));
        // Read again at 601, so the next sweep (at 661) keeps them; glyph 2
        // was read at 500.
        s.tick(1 + IDLE_FRAMES + SWEEP_EVERY);
        assert_eq!(s.bytes(), b(10) + b(20));
        // A sweep at 1090 (glyph 2 unread for 590); none at 1120, where
        // glyph 2 has been unread for 620; at 1150 it goes.
        s.tick(1090);
        s.tick(1090 + SWEEP_EVERY / 2);
        assert_eq!(s.bytes(), b(10) + b(20));
        s.tick(1090 + SWEEP_EVERY);
        assert_eq!(s.bytes(), b(10));
        // Glyphs 1 and 3, read at 601, go at the sweep after 1201.
        s.tick(1210);
        assert!(s.get(1, 4).is_none() && s.get(2, 4).is_none() && s.get(3, 4).is_none());
        assert_eq!(s.bytes(), 0);
        // A clock never runs back: another cache's earlier frame is no sweep.
        s.insert(5, 4, sized(7));
        s.tick(3);
        s.insert(9, 4, sized(4));
        s.tick(1210 + SWEEP_EVERY);
        assert_eq!(s.bytes(), b(7) + b(4), "both kept at 1210, unread for 60 frames");
        s.tick(1210 + IDLE_FRAMES + SWEEP_EVERY);
        assert_eq!(s.bytes(), 0, "unread for 660 frames");
        // An outline kept again under its key counts once.
        s.insert(6, 4, sized(8));
        s.insert(6, 4, sized(9));
        assert_eq!(s.bytes(), b(9));
    }

    #[test]
    fn the_store_keeps_what_it_was_given_and_starts_over_past_its_bound() {
        let s = OutlineStore::default();
        let big = |n| Some(Arc::new(FlatOutline::new(vec![(0.0, 0.0); n], vec![0])));
        assert!(s.get(3, 4).is_none());
        s.insert(3, 4, None);
        assert!(matches!(s.get(3, 4), Some(None)));
        // A triangle of 3 points and 3 edges (2 slanted, 1 vertical), and
        // an outline of `fill` level points in one contour (no edge but
        // the spare) that with it comes to the bound exactly.
        let triangle =
            || Some(Arc::new(FlatOutline::new(vec![(0.0, 0.0), (1.0, 1.0), (0.0, 2.0)], vec![0])));
        let fill = (STORE_BYTES - bytes(3, 1, 3) - 8 - 8) / 8;
        assert_eq!(bytes(fill, 1, 0) + bytes(3, 1, 3), STORE_BYTES);
        s.insert(5, 4, big(fill));
        assert_eq!(s.get(5, 4).unwrap().unwrap().points.len(), fill);
        assert!(s.get(5, 5).is_none(), "another class is another outline");
        assert_eq!(s.bytes(), bytes(fill, 1, 0));
        // Up to the bound exactly: kept.
        s.insert(8, 4, triangle());
        assert!(s.get(5, 4).is_some() && s.get(8, 4).is_some());
        assert_eq!(s.bytes(), STORE_BYTES);
        // Past the bound: everything goes, the new outline stays.
        s.insert(6, 4, big(11));
        assert!(s.get(5, 4).is_none() && s.get(3, 4).is_none() && s.get(8, 4).is_none());
        assert_eq!(s.bytes(), bytes(11, 1, 0));
        // One outline larger than the whole bound is not kept.
        s.insert(7, 4, big(STORE_BYTES / 8));
        assert!(s.get(7, 4).is_none());
        assert_eq!(s.bytes(), 0);
        // An outline counts its points, its starts and its edges: a
        // square's 4 points and 2 vertical edges (the level ones are not
        // kept), a triangle's 3 points and 2 slanted edges.
        let square =
            FlatOutline::new(vec![(0.0, 0.0), (0.0, 1.0), (1.0, 1.0), (1.0, 0.0)], vec![0]);
        let triangle = FlatOutline::new(vec![(0.0, 0.0), (1.0, 2.0), (2.0, 0.0)], vec![0]);
        s.insert(1, 4, Some(Arc::new(square)));
        s.insert(2, 4, Some(Arc::new(triangle)));
        assert_eq!(s.bytes(), bytes(4, 1, 2) + bytes(3, 1, 2));
    }

    /// The bytes an outline of `points` points, `starts` contour starts
    /// and `edges` kept edges holds, as [`FlatOutline::size`] and
    /// [`Edges`] document them: 8 bytes a point (two f32) and a start (a
    /// usize on 64-bit targets), 4 an edge (two 16-bit indices; 8, two
    /// 32-bit ones, past 2^16 points), and the edge list's one spare entry.
    fn bytes(points: usize, starts: usize, edges: usize) -> usize {
        let edge = if points <= 1 << 16 { 4 } else { 8 };
        8 * points + size_of::<usize>() * starts + edge * (edges + 1)
    }
}
