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
    /// bottom edge. For each such left edge the allocations in that column
    /// are swept top to bottom with prefix sums, so a call costs about
    /// `O(n · m log m)` for `n` live allocations and columns of `m`, less
    /// when cheap columns settle it (columns are tried in the order of their
    /// cheapest slot, and skipped once that exceeds the best cost). Ties go
    /// to fewer victims, then the top-most, then the left-most hole.
    /// Because MaxRects tracks every maximal free rectangle, freeing the
    /// victims always lets `allocate(w, h)` succeed.
    pub fn evict_to_fit(
        &self,
        w: u32,
        h: u32,
        mut cost: impl FnMut(&Allocation) -> Option<u64>,
    ) -> Result<Option<Eviction>, AllocError> {
        let (pw, ph) = self.core.request(w, h)?;
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
    fn cheapest_hole(&self, slots: &[Slot], w: u32, h: u32, rotated: bool) -> Option<(HoleKey, Rect)> {
        let (iw, ih) = self.core.inner();
        if w > iw || h > ih {
            return None;
        }
        let widest = slots.iter().map(|s| s.rect.w).max().unwrap_or(0);
        let mut xs: Vec<u32> = core::iter::once(0).chain(slots.iter().map(|s| s.rect.right())).filter(|&x| x + w <= iw).collect();
        xs.sort_unstable();
        xs.dedup();
        // Slots overlapping columns x..x+w (slots are sorted by left edge).
        let column = |x: u32| {
            let from = slots.partition_point(|s| s.rect.x + widest <= x);
            slots[from..].iter().take_while(move |s| s.rect.x < x + w).filter(move |s| s.rect.right() > x)
        };
        // The request does not fit anywhere now, so every hole crosses at
        // least one slot of its column: the column's cheapest evictable slot
        // bounds the cost from below. Columns are tried cheapest bound first,
        // until the bound exceeds the best cost found.
        let mut order: Vec<(u64, u32)> = xs
            .iter()
            .filter_map(|&x| column(x).filter_map(|s| s.cost).min().map(|lb| (lb, x)))
            .collect();
        order.sort_unstable();
        let mut best: Option<(HoleKey, Rect)> = None;
        let mut members: Vec<&Slot> = Vec::new();
        for (lb, x) in order {
            if best.as_ref().is_some_and(|(k, _)| lb > k.0) {
                break;
            }
            members.clear();
            members.extend(column(x));
            if let Some((key, y)) = sweep_column(&members, x, h, ih, rotated) {
                if best.as_ref().is_none_or(|(k, _)| key < *k) {
                    best = Some((key, Rect::new(x, y, w, h)));
                }
            }
        }
        best
    }
}

/// Sums over the slots of one column whose top is above a line, and whose
/// bottom is above a line: cost, victim count and pinned (unevictable) count.
#[derive(Clone, Copy, Default)]
struct Sums {
    cost: u128,
    count: usize,
    pinned: usize,
}

fn prefix(sorted: &[(u32, Option<u64>)]) -> Vec<Sums> {
    let mut acc = Sums::default();
    let mut out = Vec::with_capacity(sorted.len() + 1);
    out.push(acc);
    for &(_, c) in sorted {
        match c {
            Some(c) => {
                acc.cost += c as u128;
                acc.count += 1;
            }
            None => acc.pinned += 1,
        }
        out.push(acc);
    }
    out
}

/// The best top edge for a hole at `x`: slots with `top < y + h` minus those
/// with `bottom <= y` are exactly the ones the hole crosses.
fn sweep_column(column: &[&Slot], x: u32, h: u32, ih: u32, rotated: bool) -> Option<(HoleKey, u32)> {
    let mut tops: Vec<(u32, Option<u64>)> = column.iter().map(|s| (s.rect.y, s.cost)).collect();
    let mut bottoms: Vec<(u32, Option<u64>)> = column.iter().map(|s| (s.rect.bottom(), s.cost)).collect();
    tops.sort_unstable_by_key(|t| t.0);
    bottoms.sort_unstable_by_key(|b| b.0);
    let (top_sums, bottom_sums) = (prefix(&tops), prefix(&bottoms));
    let mut best: Option<(HoleKey, u32)> = None;
    for y in core::iter::once(0).chain(bottoms.iter().map(|b| b.0)) {
        if y + h > ih {
            continue;
        }
        let entered = top_sums[tops.partition_point(|t| t.0 < y + h)];
        let left = bottom_sums[bottoms.partition_point(|b| b.0 <= y)];
        if entered.pinned > left.pinned {
            continue;
        }
        let cost = u64::try_from(entered.cost - left.cost).unwrap_or(u64::MAX);
        let key = (cost, entered.count - left.count, y, x, rotated);
        if best.as_ref().is_none_or(|(k, _)| key < *k) {
            best = Some((key, y));
        }
    }
    best
}
