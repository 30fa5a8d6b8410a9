//! Evict-to-fit for MaxRects: when a request does not fit, find the set of
//! live allocations whose removal opens a hole for it at the least total
//! cost (for a cache: the least recently used ones), instead of evicting in
//! LRU order until something happens to fit.

use crate::error::AllocError;
use crate::geom::Rect;
use crate::maxrects::MaxRects;
use crate::slots::{AllocId, Allocation};
use alloc::vec::Vec;

/// A proposal of [`MaxRects::evict_to_fit`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Eviction {
    /// The allocations to free (empty when the request fits already).
    pub victims: Vec<AllocId>,
    /// The sum of the victims' costs.
    pub cost: u64,
    /// Where the request fits once they are freed (padding included, in the
    /// packer's coordinates; the request may still be placed elsewhere).
    pub hole: Rect,
    /// True when the hole holds the request turned by 90°.
    pub rotated: bool,
}

/// How holes compare: cost, victim count, top, left, rotated (smaller is better).
type HoleKey = (u64, usize, u32, u32, bool);

struct Slot {
    rect: Rect,
    id: AllocId,
    /// `None`: must not be evicted.
    cost: Option<u64>,
}

impl MaxRects {
    /// Proposes the cheapest set of live allocations to free so that a
    /// `w × h` request fits. `cost` prices each live allocation (for LRU, its
    /// last use: older is cheaper); `None` marks one that must stay (a glyph
    /// in use this frame). Returns `Ok(None)` when no hole avoids every
    /// allocation that must stay, and the request's error when it is invalid.
    ///
    /// The search is exact over all hole positions: a cheapest hole can be
    /// slid left and up without gaining a victim until its left edge is 0 or
    /// some allocation's right edge, and its top edge 0 or some allocation's
    /// bottom edge. The left edges are swept in order with the allocations
    /// under the hole's columns held in a segment tree over the top edges, so
    /// a call costs `O(n log n)` for `n` live allocations. Ties go to fewer
    /// victims, then the top-most, then the left-most hole. Because MaxRects
    /// tracks every maximal free rectangle, freeing the victims always lets
    /// `allocate(w, h)` succeed. With 2²⁰ or more live allocations it
    /// proposes nothing (`Ok(None)`): its packed weights count no further.
    pub fn evict_to_fit(
        &self,
        w: u32,
        h: u32,
        mut cost: impl FnMut(&Allocation) -> Option<u64>,
    ) -> Result<Option<Eviction>, AllocError> {
        let (pw, ph) = self.core.request(w, h)?;
        if self.core.slots.len() >= 1 << COUNT_BITS {
            return Ok(None); // beyond what the packed weights can count
        }
        if let Some((i, rotated)) = self.fits_now(pw, ph) {
            let f = self.maximal_free_rects()[i];
            let (hw, hh) = if rotated { (ph, pw) } else { (pw, ph) };
            return Ok(Some(Eviction { victims: Vec::new(), cost: 0, hole: Rect::new(f.x, f.y, hw, hh), rotated }));
        }
        let mut slots: Vec<Slot> = self
            .core
            .slots
            .iter()
            .map(|l| Slot { rect: l.slot, id: l.alloc.id, cost: cost(&l.alloc) })
            .collect();
        slots.sort_unstable_by_key(|s| s.rect.x);
        let rotate = self.core.opts.allow_rotation && pw != ph;
        let mut best: Option<(HoleKey, Rect)> = None;
        for rotated in [false, true] {
            if rotated && !rotate {
                continue;
            }
            let (ww, wh) = if rotated { (ph, pw) } else { (pw, ph) };
            if let Some((key, hole)) = self.cheapest_hole(&slots, ww, wh, rotated) {
                if best.as_ref().is_none_or(|(k, _)| key < *k) {
                    best = Some((key, hole));
                }
            }
        }
        Ok(best.map(|((cost, _, _, _, rotated), hole)| Eviction {
            victims: slots.iter().filter(|s| s.rect.intersects(&hole)).map(|s| s.id).collect(),
            cost,
            hole,
            rotated,
        }))
    }

    /// The cheapest `w × h` hole: `((cost, victims, y, x, rotated), hole)`.
    ///
    /// Sweeps the candidate left edges in order, keeping the slots that
    /// overlap the current columns in a segment tree over the candidate top
    /// edges: a slot adds its (pinned, cost, 1) to every top edge at which a
    /// hole would cross it, and the tree answers the cheapest top edge.
    fn cheapest_hole(&self, slots: &[Slot], w: u32, h: u32, rotated: bool) -> Option<(HoleKey, Rect)> {
        let (iw, ih) = self.core.inner();
        if w > iw || h > ih {
            return None;
        }
        let mut xs: Vec<u32> = core::iter::once(0).chain(slots.iter().map(|s| s.rect.right())).filter(|&x| x + w <= iw).collect();
        xs.sort_unstable();
        xs.dedup();
        // Top edges: 0 and every slot's bottom, where the hole stays inside.
        let mut ys: Vec<u32> = core::iter::once(0).chain(slots.iter().map(|s| s.rect.bottom())).filter(|&y| y + h <= ih).collect();
        ys.sort_unstable();
        ys.dedup();
        let mut tree = MinAddTree::new(ys.len());
        // A hole at top edge y crosses slot s when s.y < y + h and y < s.bottom.
        let span = |s: &Slot| {
            let lo = ys.partition_point(|&y| y + h <= s.rect.y);
            let hi = ys.partition_point(|&y| y < s.rect.bottom());
            (lo, hi)
        };
        let weight = |s: &Slot| Weight::of(s.cost);
        // Slots enter when their left edge is left of the hole's right edge
        // (`slots` is sorted by left edge) and leave when their right edge is
        // at or left of the hole's left edge.
        let mut by_right: Vec<usize> = (0..slots.len()).collect();
        by_right.sort_unstable_by_key(|&i| slots[i].rect.right());
        let (mut entered, mut left) = (0, 0);
        let mut best: Option<(HoleKey, Rect)> = None;
        for &x in &xs {
            while entered < slots.len() && slots[entered].rect.x < x + w {
                let (lo, hi) = span(&slots[entered]);
                tree.add(lo, hi, weight(&slots[entered]));
                entered += 1;
            }
            while left < by_right.len() && slots[by_right[left]].rect.right() <= x {
                let s = &slots[by_right[left]];
                let (lo, hi) = span(s);
                tree.add(lo, hi, weight(s).neg());
                left += 1;
            }
            let (m, at) = tree.min();
            if m.pinned() {
                continue;
            }
            let cost = u64::try_from(m.cost()).unwrap_or(u64::MAX);
            let key = (cost, m.count(), ys[at], x, rotated);
            if best.as_ref().is_none_or(|(k, _)| key < *k) {
                best = Some((key, Rect::new(x, ys[at], w, h)));
            }
        }
        best
    }
}

/// What a set of crossed slots weighs, packed so that one `u128` compares as
/// (pinned count, cost, victim count): bits 108.. count pinned slots, bits
/// 20..108 the cost, bits 0..20 the victims. Removal adds the two's
/// complement, so any add/remove order sums to the true packed total.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
struct Weight(u128);

const COUNT_BITS: u32 = 20;
const PINNED_SHIFT: u32 = 108;

impl Weight {
    fn of(cost: Option<u64>) -> Weight {
        match cost {
            Some(c) => Weight(((c as u128) << COUNT_BITS) | 1),
            None => Weight(1 << PINNED_SHIFT),
        }
    }
    fn neg(self) -> Weight {
        Weight(self.0.wrapping_neg())
    }
    fn plus(self, o: Weight) -> Weight {
        Weight(self.0.wrapping_add(o.0))
    }
    fn pinned(self) -> bool {
        self.0 >> PINNED_SHIFT != 0
    }
    fn cost(self) -> u128 {
        (self.0 & ((1 << PINNED_SHIFT) - 1)) >> COUNT_BITS
    }
    fn count(self) -> usize {
        (self.0 & ((1 << COUNT_BITS) - 1)) as usize
    }
}

/// A segment tree over positions `0..n`: add a weight to a range, and find
/// the smallest total (left-most on ties).
struct MinAddTree {
    n: usize,
    min: Vec<(Weight, usize)>,
    lazy: Vec<Weight>,
}

impl MinAddTree {
    fn new(n: usize) -> Self {
        let size = 4 * n.max(1);
        let mut t = MinAddTree { n, min: alloc::vec![(Weight::default(), 0); size], lazy: alloc::vec![Weight::default(); size] };
        if n > 0 {
            t.build(1, 0, n);
        }
        t
    }

    fn build(&mut self, node: usize, lo: usize, hi: usize) {
        if hi - lo == 1 {
            self.min[node] = (Weight::default(), lo);
            return;
        }
        let mid = (lo + hi) / 2;
        self.build(2 * node, lo, mid);
        self.build(2 * node + 1, mid, hi);
        self.min[node] = self.min[2 * node];
    }

    fn add(&mut self, from: usize, to: usize, w: Weight) {
        if from < to && self.n > 0 {
            self.add_in(1, 0, self.n, from, to, w);
        }
    }

    fn add_in(&mut self, node: usize, lo: usize, hi: usize, from: usize, to: usize, w: Weight) {
        if to <= lo || hi <= from {
            return;
        }
        if from <= lo && hi <= to {
            self.min[node].0 = self.min[node].0.plus(w);
            self.lazy[node] = self.lazy[node].plus(w);
            return;
        }
        let mid = (lo + hi) / 2;
        self.add_in(2 * node, lo, mid, from, to, w);
        self.add_in(2 * node + 1, mid, hi, from, to, w);
        let (a, b) = (self.min[2 * node], self.min[2 * node + 1]);
        let best = if b.0 < a.0 { b } else { a };
        self.min[node] = (best.0.plus(self.lazy[node]), best.1);
    }

    /// The smallest total and its position.
    fn min(&self) -> (Weight, usize) {
        if self.n == 0 {
            return (Weight::of(None), 0);
        }
        self.min[1]
    }
}
