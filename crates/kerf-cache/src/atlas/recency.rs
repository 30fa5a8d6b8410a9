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

    /// The keys of the run holding `owner` are to be written into `slot`
    /// (the one [`record`](Self::record) returns): its run's slot from an
    /// earlier record if it still holds it, else a new one. The keys there
    /// before are handed in first if the run was drawn from them since the
    /// last write-back (those uses happened).
    pub(crate) fn record(&mut self, owner: &Arc<()>, slot: Option<u32>) -> u32 {
        self.runs.record(owner, slot, &mut self.queue)
    }

    /// The keys of `slot` (see [`record`](Self::record)), empty after it.
    pub(crate) fn slot_keys(&mut self, slot: u32) -> &mut Vec<GlyphKey> {
        &mut self.runs.slots[slot as usize].keys
    }

    /// Records that the run holding `owner` was drawn from its record in
    /// `frame`; false (nothing recorded) when `slot` is not its.
    #[inline]
    pub(crate) fn run_used(&mut self, owner: &Arc<()>, slot: u32, frame: u64) -> bool {
        self.runs.used(owner, slot, frame)
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

/// A retained run's keys in one atlas (each once), and when it was last
/// drawn from its record. Held in the atlas's [`RunUses`] for as long as
/// the run holds its owner token (an `Arc<()>`; the slot keeps a `Weak`):
/// a run drawn again stamps a slot in one dense list, and a run recorded
/// anew writes its keys over its own slot's, allocating nothing.
#[derive(Debug)]
struct RunSlot {
    keys: Vec<GlyphKey>,
    last_used: u64,
    /// Drawn from its record since the atlas last wrote its keys back.
    pending: bool,
    /// The run's token; dead once the run is dropped (or records elsewhere).
    owner: Weak<()>,
    /// Not in the free list.
    held: bool,
}

impl RunSlot {
    /// Hands its keys' use to `queue` if it was drawn since the last
    /// write-back.
    fn hand_in(&mut self, queue: &mut Vec<(GlyphKey, u64)>) {
        if std::mem::take(&mut self.pending) {
            queue.extend(self.keys.iter().map(|&k| (k, self.last_used)));
        }
    }
}

/// The runs recorded in one atlas: [`Uses`]'s record of retained runs.
#[derive(Debug, Default)]
pub(crate) struct RunUses {
    slots: Vec<RunSlot>,
    /// Slots whose runs were dropped, free for the next.
    free: Vec<u32>,
    /// A run was drawn from its record since the last write-back.
    pending: bool,
    /// Slots held by live runs after the last prune.
    live: usize,
}

impl RunUses {
    /// See [`Uses::record`]: uses of the slot's old keys go to `queue`.
    fn record(
        &mut self, owner: &Arc<()>, slot: Option<u32>, queue: &mut Vec<(GlyphKey, u64)>,
    ) -> u32 {
        if let Some((i, s)) = slot.and_then(|i| Some((i, self.own_slot(owner, i)?))) {
            s.hand_in(queue);
            s.keys.clear();
            return i;
        }
        if self.free.is_empty() && self.slots.len() >= 2 * self.live.max(16) {
            self.prune(queue);
        }
        let fresh = RunSlot {
            keys: Vec::new(),
            last_used: 0,
            pending: false,
            owner: Arc::downgrade(owner),
            held: true,
        };
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = fresh;
                i
            }
            None => {
                self.slots.push(fresh);
                (self.slots.len() - 1) as u32
            }
        }
    }

    /// Frees the slots of dropped runs, handing their pending uses to `queue`.
    fn prune(&mut self, queue: &mut Vec<(GlyphKey, u64)>) {
        self.live = 0;
        for (i, s) in self.slots.iter_mut().enumerate().filter(|(_, s)| s.held) {
            if s.owner.strong_count() > 0 {
                self.live += 1;
                continue;
            }
            s.hand_in(queue);
            (s.keys, s.held) = (Vec::new(), false);
            self.free.push(i as u32);
        }
    }

    /// Slots held (those of dropped runs included until the next prune).
    pub(crate) fn len(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// True when a run was drawn from its record since the last write-back.
    pub(crate) fn has_pending(&self) -> bool {
        self.pending
    }

    /// See [`Uses::run_used`].
    #[inline]
    fn used(&mut self, owner: &Arc<()>, slot: u32, frame: u64) -> bool {
        let Some(s) = self.own_slot(owner, slot) else { return false };
        (s.last_used, s.pending) = (frame, true);
        self.pending = true;
        true
    }

    /// Slot `slot` if it is the run's holding `owner` (its `Weak` pins the
    /// token's allocation, so no other token has that address).
    #[inline]
    fn own_slot(&mut self, owner: &Arc<()>, slot: u32) -> Option<&mut RunSlot> {
        self.slots
            .get_mut(slot as usize)
            .filter(|s| std::ptr::eq(s.owner.as_ptr(), Arc::as_ptr(owner)))
    }

    /// Hands out the keys of every run drawn from its record since the last
    /// write-back, with the frame it was last drawn in; frees dropped runs'
    /// slots.
    pub(crate) fn drain_pending(&mut self, out: &mut Vec<(GlyphKey, u64)>) {
        if !std::mem::take(&mut self.pending) {
            return;
        }
        for s in &mut self.slots {
            s.hand_in(out);
        }
        self.prune(out);
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

    /// A map of glyphs 1..=4 (and `extra`), each last used in frame 1.
    fn map_of(extra: &[u16]) -> LruCache<GlyphKey, Slot> {
        let mut map: LruCache<GlyphKey, Slot> = LruCache::unbounded();
        for &g in [1, 2, 3, 4].iter().chain(extra) {
            map.put(key(g), Slot { entry: GlyphEntry::BLANK, alloc: None, last_used: 1 });
        }
        map
    }

    fn last_used(map: &LruCache<GlyphKey, Slot>, g: u16) -> Option<u64> {
        map.peek(&key(g)).map(|s| s.last_used)
    }

    /// A run's slot, holding `keys`.
    fn recorded(uses: &mut Uses, owner: &Arc<()>, slot: Option<u32>, keys: &[u16]) -> u32 {
        let slot = uses.record(owner, slot);
        assert!(uses.slot_keys(slot).is_empty(), "a slot is handed out empty");
        uses.slot_keys(slot).extend(keys.iter().map(|&g| key(g)));
        slot
    }

    /// Uses handed in (as the memo hands them) and a run's reuse reach the
    /// map: each glyph's `last_used` becomes its latest use and the most
    /// recent glyph ends up at the front; a use older than the slot's own
    /// never moves `last_used` back.
    #[test]
    fn recorded_uses_are_written_into_the_map_in_order() {
        let mut map = map_of(&[]);
        map.get_mut(&key(4)).unwrap().last_used = 9;
        let mut uses = Uses::default();
        let mut memo = KeyMemo::default();
        let run = Arc::new(());
        let slot = recorded(&mut uses, &run, None, &[2]);
        uses.queue().extend([(key(3), 7), (key(1), 5), (key(4), 2)]);
        assert!(uses.run_used(&run, slot, 6));
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
    /// run recorded before forty dropped ones still has its use written,
    /// and the dropped runs' slots are reused.
    #[test]
    fn pruning_keeps_live_runs() {
        let mut map = map_of(&[7]);
        let (mut uses, mut memo) = (Uses::default(), KeyMemo::default());
        let live = Arc::new(());
        let slot = recorded(&mut uses, &live, None, &[7]);
        let mut most = 0;
        for g in 0..40 {
            most = most.max(recorded(&mut uses, &Arc::new(()), None, &[100 + g]));
        }
        assert!(uses.records(&memo) < 40, "dropped runs are pruned");
        assert!(most < 40, "and their slots reused: slot {most}");
        assert!(uses.run_used(&live, slot, 9));
        uses.write_back(&mut memo, &mut map);
        assert_eq!(last_used(&map, 7), Some(9));
    }

    /// A run drawn from its record and then recorded anew (its glyphs
    /// changed) keeps its slot, and the old keys' use is still written:
    /// those glyphs were drawn in that frame.
    #[test]
    fn a_run_recorded_anew_keeps_its_old_keys_use() {
        let mut map = map_of(&[]);
        let (mut uses, mut memo) = (Uses::default(), KeyMemo::default());
        let run = Arc::new(());
        let slot = recorded(&mut uses, &run, None, &[2]);
        assert!(uses.run_used(&run, slot, 6));
        assert_eq!(recorded(&mut uses, &run, Some(slot), &[3]), slot, "its own slot again");
        assert!(uses.pending(&memo), "the old keys' use waits to be written");
        uses.write_back(&mut memo, &mut map);
        assert_eq!((last_used(&map, 2), last_used(&map, 3)), (Some(6), Some(1)));
        assert!(uses.run_used(&run, slot, 8));
        uses.write_back(&mut memo, &mut map);
        assert_eq!((last_used(&map, 2), last_used(&map, 3)), (Some(6), Some(8)));
    }

    /// A run dropped after it was drawn from its record still has that use
    /// written, and its slot is freed for the next run.
    #[test]
    fn a_dropped_runs_use_is_written_and_its_slot_freed() {
        let mut map = map_of(&[]);
        let (mut uses, mut memo) = (Uses::default(), KeyMemo::default());
        let run = Arc::new(());
        let slot = recorded(&mut uses, &run, None, &[2, 4]);
        assert!(uses.run_used(&run, slot, 5));
        drop(run);
        uses.write_back(&mut memo, &mut map);
        assert_eq!((last_used(&map, 2), last_used(&map, 4)), (Some(5), Some(5)));
        assert_eq!(uses.records(&memo), 0, "the slot is freed");
        assert_eq!(recorded(&mut uses, &Arc::new(()), None, &[1]), slot, "and reused");
    }

    /// A slot is only its own run's: another run's token (or a slot never
    /// handed out) records nothing, and recording with it gets a new slot.
    #[test]
    fn a_slot_is_only_its_runs() {
        let (mut uses, memo) = (Uses::default(), KeyMemo::default());
        let (a, b) = (Arc::new(()), Arc::new(()));
        let slot = recorded(&mut uses, &a, None, &[2]);
        assert!(!uses.run_used(&b, slot, 3));
        assert!(!uses.run_used(&a, slot + 1, 3));
        assert!(!uses.pending(&memo));
        assert_ne!(recorded(&mut uses, &b, Some(slot), &[3]), slot);
        assert_eq!(uses.slot_keys(slot), &[key(2)], "a's keys untouched");
    }
}
