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

/// Where a hole's top-left corner may be: `x0..=x1`, `y0..=y1`.
type Corners = (u32, u32, u32, u32);

struct Slot {
    rect: Rect,
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
        &self, w: u32, h: u32, mut cost: impl FnMut(&Allocation) -> Option<u64>,
    ) -> Result<Option<Eviction>, AllocError> {
        self.search(w, h, None, &mut cost)
    }

    /// Like [`Self::evict_to_fit`], but only among the holes that overlap
    /// `seed`'s slot, so `seed` is always among the victims: "the request
    /// needs `seed`'s space (the least recently used glyph, say): what else
    /// must go with it, at the least cost?" Only allocations near `seed` are
    /// looked at, so a call costs `O(n)` to find them plus `O(m log m)` for
    /// the `m` near ones, instead of `O(n log n)` over the whole bin.
    ///
    /// Returns an empty eviction when the request fits now; `Ok(None)` when
    /// `seed` is not a live allocation of this packer, must stay (`cost`
    /// gives `None`), or lies where no hole over it avoids every allocation
    /// that must stay; the request's error when it is invalid.
    pub fn evict_to_fit_near(
        &self, w: u32, h: u32, seed: AllocId, mut cost: impl FnMut(&Allocation) -> Option<u64>,
    ) -> Result<Option<Eviction>, AllocError> {
        self.search(w, h, Some(seed), &mut cost)
    }

    fn search(
        &self, w: u32, h: u32, seed: Option<AllocId>,
        cost: &mut impl FnMut(&Allocation) -> Option<u64>,
    ) -> Result<Option<Eviction>, AllocError> {
        let (pw, ph) = self.core.request(w, h)?;
        if self.core.slots.len() >= 1 << COUNT_BITS {
            return Ok(None); // beyond what the packed weights can count
        }
        if let Some((f, rotated)) = self.fits_now(pw, ph) {
            let (hw, hh) = if rotated { (ph, pw) } else { (pw, ph) };
            return Ok(Some(Eviction {
                victims: Vec::new(),
                cost: 0,
                hole: Rect::new(f.x, f.y, hw, hh),
                rotated,
            }));
        }
        let seed_slot = match seed {
            Some(id) => match self.core.slots.get(id) {
                Some(live) if cost(&live.alloc).is_some() => Some(live.slot),
                _ => return Ok(None),
            },
            None => None,
        };
        let (iw, ih) = self.core.inner();
        let rotate = self.core.opts.allow_rotation && pw != ph;
        // Per orientation, where the hole's top-left corner may be: anywhere
        // in the bin, or where the hole overlaps the seed.
        let searches: Vec<(bool, u32, u32, Corners)> = [(false, pw, ph), (true, ph, pw)]
            .into_iter()
            .filter(|&(rotated, ww, wh)| (!rotated || rotate) && ww <= iw && wh <= ih)
            .filter_map(|(rotated, ww, wh)| {
                let corners = match seed_slot {
                    None => (0, iw - ww, 0, ih - wh),
                    Some(s) => {
                        let (x0, y0) = ((s.x + 1).saturating_sub(ww), (s.y + 1).saturating_sub(wh));
                        let (x1, y1) =
                            ((s.right() - 1).min(iw - ww), (s.bottom() - 1).min(ih - wh));
                        (x0, x1, y0, y1)
                    }
                };
                (corners.0 <= corners.1 && corners.2 <= corners.3)
                    .then_some((rotated, ww, wh, corners))
            })
            .collect();
        // The allocations any of those holes can meet, gathered once (one
        // that a search's holes never meet adds nothing to that search).
        let windows = searches
            .iter()
            .map(|&(_, ww, wh, (x0, x1, y0, y1))| Rect::new(x0, y0, x1 - x0 + ww, y1 - y0 + wh));
        let Some(area) = windows.reduce(|a, b| {
            let (x, y) = (a.x.min(b.x), a.y.min(b.y));
            Rect::new(x, y, a.right().max(b.right()) - x, a.bottom().max(b.bottom()) - y)
        }) else {
            return Ok(None);
        };
        let mut slots: Vec<Slot> = self
            .core
            .slots
            .iter()
            .filter(|l| l.slot.intersects(&area))
            .map(|l| Slot { rect: l.slot, cost: cost(&l.alloc) })
            .collect();
        slots.sort_unstable_by_key(|s| s.rect.x);
        let mut best: Option<(HoleKey, Rect)> = None;
        for &(rotated, ww, wh, corners) in &searches {
            if let Some((key, hole)) = cheapest_hole(&slots, ww, wh, rotated, corners) {
                if best.as_ref().is_none_or(|(k, _)| key < *k) {
                    best = Some((key, hole));
                }
            }
        }
        Ok(best.map(|((cost, _, _, _, rotated), hole)| Eviction {
            victims: self
                .core
                .slots
                .iter()
                .filter(|l| l.slot.intersects(&hole))
                .map(|l| l.alloc.id)
                .collect(),
            cost,
            hole,
            rotated,
        }))
    }
}

/// The cheapest `w × h` hole whose top-left corner lies in `x0..=x1`,
/// `y0..=y1`, among `slots` (sorted by left edge; those that can meet such a
/// hole): `((cost, victims, y, x, rotated), hole)`.
///
/// Sweeps the candidate left edges in order, keeping the slots that
/// overlap the current columns in a segment tree over the candidate top
/// edges: a slot adds its (pinned, cost, 1) to every top edge at which a
/// hole would cross it, and the tree answers the cheapest top edge.
fn cheapest_hole(
    slots: &[Slot], w: u32, h: u32, rotated: bool, (x0, x1, y0, y1): Corners,
) -> Option<(HoleKey, Rect)> {
    // Left edges: the least one and every slot's right edge in range
    // (a cheapest hole slides left until it meets one of them).
    let mut xs: Vec<u32> = core::iter::once(x0)
        .chain(slots.iter().map(|s| s.rect.right()))
        .filter(|&x| x0 <= x && x <= x1)
        .collect();
    xs.sort_unstable();
    xs.dedup();
    // Top edges: likewise with bottom edges.
    let mut ys: Vec<u32> = core::iter::once(y0)
        .chain(slots.iter().map(|s| s.rect.bottom()))
        .filter(|&y| y0 <= y && y <= y1)
        .collect();
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

/// What a set of crossed slots weighs, packed so that one `u128` compares as
/// (pinned count, cost, victim count, position): bits 108.. count pinned
/// slots, bits 40..108 the cost (each slot's cost capped at 2^47, so sums of
/// up to 2^20 slots cannot carry into the pinned count), bits 20..40 the
/// victims, bits 0..20 are left for the segment tree's position. Removal adds
/// the two's complement, so any add/remove order sums to the true total.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
struct Weight(u128);

const COUNT_BITS: u32 = 20;
const POS_BITS: u32 = 20;
const COST_SHIFT: u32 = POS_BITS + COUNT_BITS;
const PINNED_SHIFT: u32 = 108;
const COST_CAP: u64 = 1 << 47;

impl Weight {
    fn of(cost: Option<u64>) -> Weight {
        match cost {
            Some(c) => Weight(((c.min(COST_CAP) as u128) << COST_SHIFT) | (1 << POS_BITS)),
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
        (self.0 & ((1 << PINNED_SHIFT) - 1)) >> COST_SHIFT
    }
    fn count(self) -> usize {
        ((self.0 >> POS_BITS) & ((1 << COUNT_BITS) - 1)) as usize
    }
    fn position(self) -> usize {
        (self.0 & ((1 << POS_BITS) - 1)) as usize
    }
}

/// A segment tree over positions `0..n` (n < 2^20): add a weight to a range,
/// and read the smallest total (left-most on ties). Bottom-up, without
/// recursion: each leaf holds its total with its position in the low bits,
/// each inner node the least of its children plus what was added to its
/// whole range (every range is added and later removed through the same
/// nodes, so no node's addend goes below zero).
struct MinAddTree {
    size: usize,
    min: Vec<Weight>,
    added: Vec<Weight>,
}

impl MinAddTree {
    fn new(n: usize) -> Self {
        let size = n.max(1).next_power_of_two();
        let mut min = alloc::vec![Weight(u128::MAX); 2 * size];
        for (i, leaf) in min[size..size + n].iter_mut().enumerate() {
            *leaf = Weight(i as u128);
        }
        for i in (1..size).rev() {
            min[i] = min[2 * i].min(min[2 * i + 1]);
        }
        MinAddTree { size, min, added: alloc::vec![Weight::default(); size] }
    }

    fn add(&mut self, from: usize, to: usize, w: Weight) {
        if from >= to {
            return;
        }
        let (mut l, mut r) = (from + self.size, to + self.size);
        let (first, last) = (l, r - 1);
        while l < r {
            if l & 1 == 1 {
                self.apply(l, w);
                l += 1;
            }
            if r & 1 == 1 {
                r -= 1;
                self.apply(r, w);
            }
            l >>= 1;
            r >>= 1;
        }
        self.pull(first);
        self.pull(last);
    }

    fn apply(&mut self, node: usize, w: Weight) {
        self.min[node] = self.min[node].plus(w);
        if node < self.size {
            self.added[node] = self.added[node].plus(w);
        }
    }

    /// Recomputes the ancestors of `node`.
    fn pull(&mut self, mut node: usize) {
        while node > 1 {
            node >>= 1;
            self.min[node] = self.min[2 * node].min(self.min[2 * node + 1]).plus(self.added[node]);
        }
    }

    /// The smallest total and its position.
    fn min(&self) -> (Weight, usize) {
        let m = self.min[1];
        (m, m.position())
    }
}
