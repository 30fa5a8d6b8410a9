//! The one record of glyph uses not yet written into an atlas's LRU map
//! ([`Uses`]), and what feeds it:
//! - the key memo (memo.rs): a hit marks its group used in O(1); the
//!   group's glyphs are handed in when the memo is drained, synced to new
//!   high bits, or the group is overwritten;
//! - retained runs (retain.rs, [`RunUse`]): a run drawn from its record
//!   stamps its frame and is marked pending in O(1). kerf-wgpu's area stamps
//!   decide only whether instances are uploaded again; an area drawn as
//!   last time is drawn through its retained run, so its uses arrive here.
//!
//! Before the atlas evicts or trims anything, [`Uses::write_back`] writes
//! every recorded use into the map (the glyph's `last_used` = the frame it
//! was last drawn in, and it moves to the front of the list), so eviction
//! sees every use. Eviction and the trim are the only drains.

use crate::atlas::entry::Slot;
use crate::atlas::memo::KeyMemo;
use crate::key::GlyphKey;
use lru::LruCache;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Weak};

/// Glyph uses waiting to be written into the LRU map (see the module docs):
/// the retained runs registered with the atlas, and the uses handed in.
#[derive(Debug, Default)]
pub(crate) struct Uses {
    runs: RunUses,
    /// Uses handed in (glyph, frame last drawn in), not yet in the map.
    queue: Vec<(GlyphKey, u64)>,
}

impl Uses {
    /// Where the key memo hands in its glyphs' uses.
    #[inline]
    pub(crate) fn queue(&mut self) -> &mut Vec<(GlyphKey, u64)> {
        &mut self.queue
    }

    /// Records `run` in this atlas (see [`RunUses::register`]).
    pub(crate) fn register(&mut self, run: &Arc<RunUse>) {
        self.runs.register(run);
    }

    /// Records that `run` (registered here) was drawn from its record in `frame`.
    #[inline]
    pub(crate) fn run_used(&mut self, run: &RunUse, frame: u64) {
        self.runs.used(run, frame);
    }

    /// True when uses not yet in the map are recorded here or in `memo`.
    #[inline]
    pub(crate) fn pending(&self, memo: &KeyMemo) -> bool {
        !self.queue.is_empty() || memo.has_pending() || self.runs.has_pending()
    }

    /// Records kept: queued uses, `memo`'s pending groups and registered
    /// runs (dropped ones included until the next prune).
    pub(crate) fn records(&self, memo: &KeyMemo) -> usize {
        self.queue.len() + memo.pending() + self.runs.len()
    }

    /// Writes every recorded use (`memo`'s, the runs', the queue's) into `map`.
    pub(crate) fn write_back(&mut self, memo: &mut KeyMemo, map: &mut LruCache<GlyphKey, Slot>) {
        memo.drain_pending(&mut self.queue);
        self.runs.drain_pending(&mut self.queue);
        self.apply(map);
    }

    /// Writes the queued uses into `map`: each glyph still there gets the
    /// later of its `last_used` and the use's frame, and moves to the front
    /// of the list (least recent first, so the most recent end up in front).
    #[inline]
    pub(crate) fn apply(&mut self, map: &mut LruCache<GlyphKey, Slot>) {
        if self.queue.is_empty() {
            return;
        }
        self.queue.sort_by_key(|&(_, frame)| frame);
        for (key, frame) in self.queue.drain(..) {
            if let Some(slot) = map.get_mut(&key) {
                slot.last_used = slot.last_used.max(frame);
            }
        }
    }
}

/// A run's keys in one atlas (each once), and when it was last drawn from
/// its record: shared by the run and the atlas's [`RunUses`].
#[derive(Debug)]
pub(crate) struct RunUse {
    keys: Vec<GlyphKey>,
    color: bool,
    last_used: AtomicU64,
    /// Drawn from its record since the atlas last wrote its keys back.
    pending: AtomicBool,
}

/// The runs recorded in one atlas: [`Uses`]'s record of retained runs.
#[derive(Debug, Default)]
pub(crate) struct RunUses {
    list: Vec<Weak<RunUse>>,
    /// A run was drawn from its record since the last write-back.
    pending: bool,
    /// The list's length after it was last pruned of dropped runs.
    live: usize,
}

impl RunUses {
    /// Adds `run` (dropped runs are forgotten as the list grows).
    pub(crate) fn register(&mut self, run: &Arc<RunUse>) {
        if self.list.len() >= 2 * self.live.max(16) {
            self.list.retain(|w| w.strong_count() > 0);
            self.live = self.list.len();
        }
        self.list.push(Arc::downgrade(run));
    }

    /// Runs registered and not yet pruned (dropped ones included).
    pub(crate) fn len(&self) -> usize {
        self.list.len()
    }

    /// True when a run was drawn from its record since the last write-back.
    pub(crate) fn has_pending(&self) -> bool {
        self.pending
    }

    /// Records that `run` (registered here) was drawn from its record in `frame`.
    pub(crate) fn used(&mut self, run: &RunUse, frame: u64) {
        run.last_used.store(frame, Ordering::Relaxed);
        run.pending.store(true, Ordering::Relaxed);
        self.pending = true;
    }

    /// Hands out the keys of every run drawn from its record since the last
    /// write-back, with the frame it was last drawn in; forgets dropped runs.
    pub(crate) fn drain_pending(&mut self, out: &mut Vec<(GlyphKey, u64)>) {
        if !std::mem::take(&mut self.pending) {
            return;
        }
        self.list.retain(|w| {
            let Some(run) = w.upgrade() else { return false };
            if run.pending.swap(false, Ordering::Relaxed) {
                let frame = run.last_used.load(Ordering::Relaxed);
                out.extend(run.keys.iter().map(|&k| (k, frame)));
            }
            true
        });
        self.live = self.list.len();
    }
}

impl RunUse {
    /// The use record of `keys` (unique) in the colour atlas or the coverage one.
    pub(crate) fn new(keys: Vec<GlyphKey>, color: bool) -> RunUse {
        RunUse { keys, color, last_used: AtomicU64::new(0), pending: AtomicBool::new(false) }
    }

    /// Whether its keys are the colour atlas's.
    pub(crate) fn color(&self) -> bool {
        self.color
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::atlas::entry::GlyphEntry;
    use crate::key::{FontId, GlyphSize};

    fn key(glyph: u16) -> GlyphKey {
        GlyphKey::new(FontId(0), glyph, GlyphSize::from_px(16.0, 1024.0).unwrap())
    }

    /// Uses handed in (as the memo hands them) and a run's reuse reach the
    /// map: each glyph's `last_used` becomes its latest use and the most
    /// recent glyph ends up at the front; a use older than the slot's own
    /// never moves `last_used` back.
    #[test]
    fn recorded_uses_are_written_into_the_map_in_order() {
        let mut map: LruCache<GlyphKey, Slot> = LruCache::unbounded();
        for g in 1..=4 {
            map.put(key(g), Slot { entry: GlyphEntry::BLANK, alloc: None, last_used: 1 });
        }
        map.get_mut(&key(4)).unwrap().last_used = 9;
        let mut uses = Uses::default();
        let mut memo = KeyMemo::default();
        let run = Arc::new(RunUse::new(vec![key(2)], false));
        uses.register(&run);
        uses.queue().extend([(key(3), 7), (key(1), 5), (key(4), 2)]);
        uses.run_used(&run, 6);
        assert!(uses.pending(&memo));
        assert_eq!(uses.records(&memo), 4, "three handed in, one run");
        uses.write_back(&mut memo, &mut map);
        assert!(!uses.pending(&memo));
        let last: Vec<(u16, u64)> = map.iter().map(|(k, s)| (k.glyph, s.last_used)).collect();
        // Front to back: written least recent first, so 3 (frame 7) is in front.
        assert_eq!(last, [(3, 7), (2, 6), (1, 5), (4, 9)]);
        assert_eq!(uses.records(&memo), 1, "the run stays registered");
    }

    /// Pruning dropped runs as the list grows keeps the live ones: a live
    /// run registered before forty dropped ones still has its use written.
    #[test]
    fn pruning_keeps_live_runs() {
        let mut map: LruCache<GlyphKey, Slot> = LruCache::unbounded();
        map.put(key(7), Slot { entry: GlyphEntry::BLANK, alloc: None, last_used: 1 });
        let (mut uses, mut memo) = (Uses::default(), KeyMemo::default());
        let live = Arc::new(RunUse::new(vec![key(7)], false));
        uses.register(&live);
        for g in 0..40 {
            uses.register(&Arc::new(RunUse::new(vec![key(100 + g)], false)));
        }
        assert!(uses.records(&memo) < 40, "dropped runs are pruned");
        uses.run_used(&live, 9);
        uses.write_back(&mut memo, &mut map);
        assert_eq!(map.peek(&key(7)).map(|s| s.last_used), Some(9));
    }
}
