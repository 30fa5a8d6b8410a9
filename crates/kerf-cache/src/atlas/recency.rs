//! Uses waiting to be written into an atlas's LRU map, besides the key
//! memo's (memo.rs): retained runs' (retain.rs). A run drawn from its
//! record stamps its frame on its [`RunUse`] and marks it pending, in O(1);
//! before the atlas evicts or trims anything, [`RunUses::drain_pending`]
//! hands out every pending run's keys with that frame, and the atlas writes
//! them into its map with the memo's (`Atlas::write_back_recency`).

use crate::key::GlyphKey;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Weak};

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

/// The runs recorded in one atlas, whose uses it writes into its LRU map
/// before it evicts or trims anything (see the module docs).
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
