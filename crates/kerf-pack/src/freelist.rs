//! A list of pairwise disjoint free rectangles with guillotine splits and
//! edge merges. It is the whole state of the Guillotine packer and the waste
//! map (and freed-space map) of Skyline and Shelf.

use crate::freeindex::SpatialIndex;
use crate::geom::Rect;
use crate::heuristic::{Candidate, Scorer};
use alloc::vec::Vec;
use core::cell::Cell;

const NONE: u32 = u32::MAX;

/// How Guillotine picks the free rectangle for a request (Jylänki §3.2).
/// A free rect that fits the request exactly always wins. Ties go to the free
/// rect earliest in the free list, then upright before rotated; the list's
/// order is deterministic (a placement removes its free rect in place and
/// appends the bottom, then the right leftover; a merge pass keeps the
/// earlier rect's place), the same order as Jylänki's reference code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FreeRectChoice {
    /// BAF: least area left over.
    BestAreaFit,
    /// BSSF: smallest leftover along the shorter side.
    BestShortSideFit,
    /// BLSF: smallest leftover along the longer side.
    BestLongSideFit,
    /// WAF: most area left over.
    WorstAreaFit,
    /// WSSF: largest leftover along the shorter side.
    WorstShortSideFit,
    /// WLSF: largest leftover along the longer side.
    WorstLongSideFit,
}

impl FreeRectChoice {
    /// Every choice, in the paper's order.
    pub const ALL: [FreeRectChoice; 6] = [
        FreeRectChoice::BestAreaFit,
        FreeRectChoice::BestShortSideFit,
        FreeRectChoice::BestLongSideFit,
        FreeRectChoice::WorstAreaFit,
        FreeRectChoice::WorstShortSideFit,
        FreeRectChoice::WorstLongSideFit,
    ];

    /// The paper's abbreviation in lower case (`baf`, `bssf`, ...).
    pub fn short_name(self) -> &'static str {
        match self {
            FreeRectChoice::BestAreaFit => "baf",
            FreeRectChoice::BestShortSideFit => "bssf",
            FreeRectChoice::BestLongSideFit => "blsf",
            FreeRectChoice::WorstAreaFit => "waf",
            FreeRectChoice::WorstShortSideFit => "wssf",
            FreeRectChoice::WorstLongSideFit => "wlsf",
        }
    }

    /// Score of placing `w × h` into `free`; lower is better.
    pub(crate) fn score(self, free: &Rect, w: u32, h: u32) -> (i64, i64) {
        self.score_leftovers(w, h, (free.w - w) as u64, (free.h - h) as u64)
    }

    /// Score of placing `w × h` into a free rect `lw` wider and `lh` taller.
    pub(crate) fn score_leftovers(self, w: u32, h: u32, lw: u64, lh: u64) -> (i64, i64) {
        let area = ((w as u64 + lw) * (h as u64 + lh) - w as u64 * h as u64) as i64;
        let (lw, lh) = (lw as i64, lh as i64);
        let (short, long) = (lw.min(lh), lw.max(lh));
        match self {
            FreeRectChoice::BestAreaFit => (area, short),
            FreeRectChoice::BestShortSideFit => (short, long),
            FreeRectChoice::BestLongSideFit => (long, short),
            FreeRectChoice::WorstAreaFit => (-area, -short),
            FreeRectChoice::WorstShortSideFit => (-short, -long),
            FreeRectChoice::WorstLongSideFit => (-long, -short),
        }
    }

    /// True for the best-fit choices, whose score never drops when a
    /// leftover grows (so a search may skip size classes).
    fn grows_with_leftovers(self) -> bool {
        matches!(
            self,
            FreeRectChoice::BestAreaFit
                | FreeRectChoice::BestShortSideFit
                | FreeRectChoice::BestLongSideFit
        )
    }
}

/// How the L-shaped leftover of a free rect is cut in two after a placement
/// (Jylänki §3.3), plus the slab-allocator halving split.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SplitRule {
    /// SAS: cut along the free rect's shorter axis.
    ShorterAxis,
    /// LAS: cut along the free rect's longer axis.
    LongerAxis,
    /// SLAS: cut along the shorter leftover axis.
    ShorterLeftoverAxis,
    /// LLAS: cut along the longer leftover axis.
    LongerLeftoverAxis,
    /// MINAS: make the smaller of the two pieces as small as possible.
    MinArea,
    /// MAXAS: make the larger of the two pieces as large as possible.
    MaxArea,
    /// Slab split: halve the free rect (left/right, then top/bottom) while the
    /// request still fits a half, and give the request the whole final block.
    /// Freed blocks merge back with their buddies, as in a 2-D buddy allocator.
    Halve,
}

impl SplitRule {
    /// Every split rule: the paper's six, then `Halve`.
    pub const ALL: [SplitRule; 7] = [
        SplitRule::ShorterAxis,
        SplitRule::LongerAxis,
        SplitRule::ShorterLeftoverAxis,
        SplitRule::LongerLeftoverAxis,
        SplitRule::MinArea,
        SplitRule::MaxArea,
        SplitRule::Halve,
    ];

    /// The paper's abbreviation in lower case (`sas`, ..., `maxas`), `halve` for the slab split.
    pub fn short_name(self) -> &'static str {
        match self {
            SplitRule::ShorterAxis => "sas",
            SplitRule::LongerAxis => "las",
            SplitRule::ShorterLeftoverAxis => "slas",
            SplitRule::LongerLeftoverAxis => "llas",
            SplitRule::MinArea => "minas",
            SplitRule::MaxArea => "maxas",
            SplitRule::Halve => "halve",
        }
    }

    /// True to cut horizontally: the bottom piece spans the free rect's full
    /// width and the right piece only the placed rect's height.
    fn horizontal(self, free: &Rect, w: u32, h: u32) -> bool {
        let (lw, lh) = ((free.w - w) as u64, (free.h - h) as u64);
        match self {
            SplitRule::ShorterAxis => free.w <= free.h,
            SplitRule::LongerAxis => free.w > free.h,
            SplitRule::ShorterLeftoverAxis => lw <= lh,
            SplitRule::LongerLeftoverAxis => lw > lh,
            SplitRule::MinArea => w as u64 * lh > lw * h as u64,
            SplitRule::MaxArea => w as u64 * lh <= lw * h as u64,
            SplitRule::Halve => true,
        }
    }
}

/// Which scoring rule a free-rect search uses.
pub(crate) enum Choice {
    Named(FreeRectChoice),
    Custom(Scorer),
}

impl Choice {
    fn score(&self, free: &Rect, w: u32, h: u32, rotated: bool, bin: (u32, u32)) -> (i64, i64) {
        match self {
            Choice::Named(c) => c.score(free, w, h),
            Choice::Custom(f) => {
                let c = Candidate { free: *free, w, h, rotated, bin_w: bin.0, bin_h: bin.1 };
                (f(&c), 0)
            }
        }
    }
}

/// The disjoint free rects of Guillotine and of the Skyline and Shelf waste
/// maps, in list order (the tie-break: earlier wins), over a
/// [`SpatialIndex`] that finds merge partners and best fits without a scan.
///
/// The order is kept as sequence numbers: `order[seq]` is the id at that
/// place (`NONE` once removed), so removing in place, appending, and moving
/// the last rect into a hole (`Vec::swap_remove`) are all O(1), and the
/// order every operation leaves is the one a plain `Vec` would (the order of
/// Jylänki's reference code). `order` is compacted when half of it is holes.
pub(crate) struct FreeList {
    /// By id: the rect.
    rect: Vec<Rect>,
    /// By id: its place in `order`, or `NONE` when the id is unused.
    seq: Vec<u32>,
    order: Vec<u32>,
    spare: Vec<u32>,
    live: usize,
    index: SpatialIndex,
    /// Leftovers narrower or shorter than this are dropped.
    pub min_free: u32,
    /// Reused query buffer.
    scratch: Vec<(u32, Rect)>,
    /// Reused buffer of `take`'s leftovers.
    leftovers: Vec<Rect>,
}

impl FreeList {
    /// An empty list for a `iw × ih` packing area.
    pub fn new(min_free: u32, (iw, ih): (u32, u32)) -> Self {
        FreeList {
            rect: Vec::new(),
            seq: Vec::new(),
            order: Vec::new(),
            spare: Vec::new(),
            live: 0,
            index: SpatialIndex::new(iw, ih),
            min_free,
            scratch: Vec::new(),
            leftovers: Vec::new(),
        }
    }

    /// Empties the list, sized for a `iw × ih` packing area.
    pub fn reset(&mut self, iw: u32, ih: u32) {
        self.rect.clear();
        self.seq.clear();
        self.order.clear();
        self.spare.clear();
        self.live = 0;
        self.index.resize(iw, ih);
    }

    /// Re-sizes the index for a grown packing area, keeping the rects.
    pub fn regrid(&mut self, iw: u32, ih: u32) {
        self.index.resize(iw, ih);
        for &id in self.order.iter().filter(|&&id| id != NONE) {
            self.index.insert(id, self.rect[id as usize]);
        }
    }

    /// The free rects in list order.
    pub fn iter(&self) -> impl Iterator<Item = Rect> + '_ {
        self.order.iter().filter(|&&id| id != NONE).map(|&id| self.rect[id as usize])
    }

    /// Appends `r`; returns its id.
    fn append(&mut self, r: Rect) -> u32 {
        let id = self.spare.pop().unwrap_or_else(|| {
            self.rect.push(Rect::default());
            self.seq.push(NONE);
            (self.rect.len() - 1) as u32
        });
        self.rect[id as usize] = r;
        self.seq[id as usize] = self.order.len() as u32;
        self.order.push(id);
        self.live += 1;
        self.index.insert(id, r);
        id
    }

    /// Takes `id` out of the index and frees it; its place becomes a hole.
    fn release(&mut self, id: u32) -> Rect {
        let r = self.rect[id as usize];
        self.index.remove(id, r);
        self.order[self.seq[id as usize] as usize] = NONE;
        self.seq[id as usize] = NONE;
        self.spare.push(id);
        self.live -= 1;
        r
    }

    /// Drops trailing holes, so `order.last()` is the last rect.
    fn trim(&mut self) {
        while self.order.last() == Some(&NONE) {
            self.order.pop();
        }
    }

    /// Drops trailing holes, and renumbers when holes outnumber rects.
    fn tidy(&mut self) {
        self.trim();
        if self.order.len() > 2 * self.live + 32 {
            self.order.retain(|&id| id != NONE);
            for (s, &id) in self.order.iter().enumerate() {
                self.seq[id as usize] = s as u32;
            }
        }
    }

    /// Removes `id`, keeping the order of the rest (`Vec::remove`).
    fn remove_in_place(&mut self, id: u32) -> Rect {
        let r = self.release(id);
        self.tidy();
        r
    }

    /// Removes `id`; the last rect takes its place (`Vec::swap_remove`).
    fn swap_out(&mut self, id: u32) -> Rect {
        let place = self.seq[id as usize];
        let r = self.release(id);
        self.trim();
        if let Some(&last) = self.order.last() {
            let from = self.seq[last as usize];
            if from > place {
                self.order[place as usize] = last;
                self.order[from as usize] = NONE;
                self.seq[last as usize] = place;
            }
        }
        self.tidy();
        r
    }

    /// Replaces the rect of `id`, keeping its place.
    fn set(&mut self, id: u32, r: Rect) {
        self.index.remove(id, self.rect[id as usize]);
        self.rect[id as usize] = r;
        self.index.insert(id, r);
    }

    /// The listed rects that overlap `area` and satisfy `keep`, in list order.
    fn listed_in(&self, area: &Rect, keep: impl Fn(&Rect) -> bool) -> Vec<(u32, Rect)> {
        let mut out = Vec::new();
        self.index.near(area, &mut out, keep);
        out.sort_unstable_by_key(|&(id, _)| self.seq[id as usize]);
        out
    }

    /// The earliest listed rect that can merge with `r` (sharing a whole
    /// edge), other than `skip`, and the merged rect.
    fn merge_partner(&mut self, r: &Rect, skip: u32) -> Option<(u32, Rect)> {
        let around = Rect::new(r.x.saturating_sub(1), r.y.saturating_sub(1), r.w + 2, r.h + 2);
        let mut found: Option<(u32, u32, Rect)> = None;
        let mut near = core::mem::take(&mut self.scratch);
        near.clear();
        self.index.near(&around, &mut near, |o| merged(o, r).is_some());
        for &(id, o) in &near {
            let s = self.seq[id as usize];
            if id != skip && found.is_none_or(|(best, _, _)| s < best) {
                found = merged(&o, r).map(|m| (s, id, m));
            }
        }
        self.scratch = near;
        found.map(|(_, id, m)| (id, m))
    }

    /// The best free rect for `w × h` (and `h × w` when `rotate`): its id and
    /// whether the request is turned. An exact fit always wins; ties go to
    /// the earliest rect in the list, upright before turned.
    pub fn find(
        &self, w: u32, h: u32, rotate: bool, choice: &Choice, bin: (u32, u32),
    ) -> Option<(u32, bool)> {
        if self.live == 0 {
            return None;
        }
        let turns: &[bool] = if rotate && w != h { &[false, true] } else { &[false] };
        // Key: score, turned, place in the list.
        let mut best: Option<((i64, i64), bool, u32, u32)> = None;
        let mut consider = |id: u32, ab: (i64, i64), turned: bool| {
            let key = (ab, turned, self.seq[id as usize], id);
            if best.is_none_or(|b| (key.0, key.1, key.2) < (b.0, b.1, b.2)) {
                best = Some(key);
            }
        };
        match choice {
            Choice::Named(c) if c.grows_with_leftovers() => {
                // An exact fit scores (0, 0), the least any rect can, so it
                // needs no special case; classes that cannot beat the best
                // rect found so far are skipped.
                let best_score = Cell::new((i64::MAX, i64::MAX));
                for &turned in turns {
                    let (cw, ch) = if turned { (h, w) } else { (w, h) };
                    let bound = |lw: u64, lh: u64| c.score_leftovers(cw, ch, lw, lh);
                    self.index.each_fitting_bounded(cw, ch, &best_score, bound, |id, f| {
                        let ab = c.score(f, cw, ch);
                        consider(id, ab, turned);
                        if ab < best_score.get() {
                            best_score.set(ab);
                        }
                    });
                }
            }
            _ => {
                for &turned in turns {
                    let (cw, ch) = if turned { (h, w) } else { (w, h) };
                    self.index.each_fitting(cw, ch, |id, f| {
                        let ab = if cw == f.w && ch == f.h {
                            (i64::MIN, i64::MIN)
                        } else {
                            choice.score(f, cw, ch, turned, bin)
                        };
                        consider(id, ab, turned);
                    });
                }
            }
        }
        best.map(|(_, turned, _, id)| (id, turned))
    }

    /// Places `w × h` at the top-left of free rect `id` and splits the rest.
    /// Returns the slot given to the request (larger than `w × h` for `Halve`).
    /// With `merge`, each leftover is merged with its free neighbours.
    pub fn take(&mut self, id: u32, w: u32, h: u32, split: SplitRule, merge: bool) -> Rect {
        let free = self.remove_in_place(id);
        let mut leftovers = core::mem::take(&mut self.leftovers);
        leftovers.clear();
        let slot = carve(free, w, h, split, self.min_free, |piece| leftovers.push(piece));
        for &piece in &leftovers {
            self.push(piece, merge);
        }
        self.leftovers = leftovers;
        slot
    }

    /// Appends a free rect (disjoint from all others); with `merge`, merges
    /// it with every neighbour that shares a whole edge, repeatedly. A merged
    /// rect takes the place of the earlier of the two in the list.
    pub fn push(&mut self, r: Rect, merge: bool) {
        let mut k = self.append(r);
        if !merge {
            return;
        }
        loop {
            let r = self.rect[k as usize];
            let Some((i, m)) = self.merge_partner(&r, k) else { break };
            let (keep, gone) =
                if self.seq[i as usize] < self.seq[k as usize] { (i, k) } else { (k, i) };
            self.remove_in_place(gone);
            self.set(keep, m);
            k = keep;
        }
    }

    /// Adds a free rect (disjoint from all others) and merges it with every
    /// neighbour that shares a whole edge, repeatedly. Returns the rect it
    /// ended up in.
    pub fn add(&mut self, mut r: Rect) -> Rect {
        while let Some((i, m)) = self.merge_partner(&r, NONE) {
            self.swap_out(i);
            r = m;
        }
        self.append(r);
        r
    }

    /// Removes `hole` from the free space, splitting rects it cuts.
    pub fn subtract(&mut self, hole: &Rect) {
        // As a list walk that swap-removes each cut rect would: in list
        // order, except that a cut rect moved into a hole goes next.
        let mut pending: alloc::collections::VecDeque<u32> =
            self.listed_in(hole, |_| true).into_iter().map(|(id, _)| id).collect();
        let mut pieces = Vec::new();
        while let Some(id) = pending.pop_front() {
            let last = self.order.last().copied();
            let r = self.swap_out(id);
            if let Some(moved) = last.filter(|&l| l != id && pending.back() == Some(&l)) {
                pending.pop_back();
                pending.push_front(moved);
            }
            r.subtract(hole, &mut |p| pieces.push(p));
        }
        for p in pieces {
            self.add(p);
        }
    }

    /// The earliest listed rect that overlaps `area` and satisfies `keep`.
    pub fn first_in(&self, area: &Rect, keep: impl Fn(&Rect) -> bool) -> Option<Rect> {
        self.listed_in(area, keep).first().map(|&(_, r)| r)
    }

    /// The listed rects that overlap `area` and satisfy `keep`, in list order.
    pub fn all_in(&self, area: &Rect, keep: impl Fn(&Rect) -> bool) -> impl Iterator<Item = Rect> {
        self.listed_in(area, keep).into_iter().map(|(_, r)| r)
    }

    /// Removes the listed rect equal to `r` (the last rect takes its place);
    /// false when there is none.
    pub fn swap_out_rect(&mut self, r: &Rect) -> bool {
        let found = self.listed_in(r, |o| o == r).first().map(|&(id, _)| id);
        found.map(|id| self.swap_out(id)).is_some()
    }
}

/// Places `w × h` at the top-left of `free`: returns the slot (larger than
/// `w × h` for `Halve`) and gives the leftovers to `leftover`, in the order
/// they go into the list. Split leftovers narrower or shorter than `min` are
/// dropped.
fn carve(
    mut free: Rect, w: u32, h: u32, split: SplitRule, min: u32, mut leftover: impl FnMut(Rect),
) -> Rect {
    if split == SplitRule::Halve {
        while free.w / 2 >= w {
            let half = free.w / 2;
            leftover(Rect::new(free.x + half, free.y, free.w - half, free.h));
            free.w = half;
        }
        while free.h / 2 >= h {
            let half = free.h / 2;
            leftover(Rect::new(free.x, free.y + half, free.w, free.h - half));
            free.h = half;
        }
        return free;
    }
    let placed = Rect::new(free.x, free.y, w, h);
    let (bottom, right) = if split.horizontal(&free, w, h) {
        (
            Rect::new(free.x, placed.bottom(), free.w, free.h - h),
            Rect::new(placed.right(), free.y, free.w - w, h),
        )
    } else {
        (
            Rect::new(free.x, placed.bottom(), w, free.h - h),
            Rect::new(placed.right(), free.y, free.w - w, free.h),
        )
    };
    for piece in [bottom, right] {
        if !piece.is_empty() && piece.w >= min && piece.h >= min {
            leftover(piece);
        }
    }
    placed
}

/// The union of two disjoint rects if it is a rectangle.
fn merged(a: &Rect, b: &Rect) -> Option<Rect> {
    if a.x == b.x && a.w == b.w && (a.bottom() == b.y || b.bottom() == a.y) {
        return Some(Rect::new(a.x, a.y.min(b.y), a.w, a.h + b.h));
    }
    if a.y == b.y && a.h == b.h && (a.right() == b.x || b.right() == a.x) {
        return Some(Rect::new(a.x.min(b.x), a.y, a.w + b.w, a.h));
    }
    None
}

#[cfg(test)]
mod tests;
