//! MaxRects (Jylänki §4): the free space is kept as the set of *maximal* free
//! rectangles — free rects not contained in any larger free rect. They may
//! overlap. A request goes to the top-left corner of the best-scoring one;
//! every free rect it cuts is replaced by its (up to four) maximal leftovers.
//!
//! kerf adds exact deallocation: freeing a slot `R` recomputes only the
//! maximal rects that cross `R`. Any such rect lies inside the union of `R`
//! and the free rects touching `R` (each part of it outside `R` is a free
//! strip that touches `R`, so it lies in a maximal rect that touches `R`), so
//! the maximal rects of that small union that cross `R` are exactly the new
//! ones, and the old rects they swallow all touch `R`. The result is the same
//! free list a full rebuild would give, at a cost that depends only on the
//! neighbourhood of `R`.

use crate::error::SizeError;
use crate::freeindex::{FreeRects, SpatialIndex};
use crate::geom::Rect;
use crate::guillotine::grown_strips;
use crate::heuristic::{Candidate, Scorer};
use crate::maximal::{maximal_rects_crossing_into, Grid};
use crate::packer::{impl_packer, Core, PackerOptions};
use crate::slots::Allocation;
use alloc::vec;
use alloc::vec::Vec;

/// Where MaxRects puts a request (Jylänki §4.1). Every heuristic places at
/// the top-left corner of a free rect. Ties on the score go to the free rect
/// earliest in the free list, then upright before rotated. The list order is
/// deterministic and the same as in Jylänki's reference code (see
/// `MaxRects::split`), so kerf places exactly where the reference does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MaxRectsHeuristic {
    /// BSSF: smallest leftover along the shorter side, then the longer one (kerf's default).
    BestShortSideFit,
    /// BLSF: smallest leftover along the longer side, then the shorter one.
    BestLongSideFit,
    /// BAF: smallest free rect by area, then the shorter-side leftover.
    BestAreaFit,
    /// BL: lowest bottom edge (`y + h`), then the smallest `x` (Tetris-style).
    BottomLeft,
    /// CP: most perimeter touching the bin edges or placed rects.
    ContactPoint,
}

impl MaxRectsHeuristic {
    /// Every heuristic, in the paper's order.
    pub const ALL: [MaxRectsHeuristic; 5] = [
        MaxRectsHeuristic::BestShortSideFit,
        MaxRectsHeuristic::BestLongSideFit,
        MaxRectsHeuristic::BestAreaFit,
        MaxRectsHeuristic::BottomLeft,
        MaxRectsHeuristic::ContactPoint,
    ];

    /// The paper's abbreviation in lower case (`bssf`, `blsf`, `baf`, `bl`, `cp`).
    pub fn short_name(self) -> &'static str {
        match self {
            MaxRectsHeuristic::BestShortSideFit => "bssf",
            MaxRectsHeuristic::BestLongSideFit => "blsf",
            MaxRectsHeuristic::BestAreaFit => "baf",
            MaxRectsHeuristic::BottomLeft => "bl",
            MaxRectsHeuristic::ContactPoint => "cp",
        }
    }
}

enum Heuristic {
    Named(MaxRectsHeuristic),
    Custom(Scorer),
}

/// Score key: two heuristic scores, then the tie-break (list index, rotated).
type Key = (i64, i64, usize, bool);

/// The MaxRects packer with exact deallocation.
pub struct MaxRects {
    pub(crate) core: Core,
    heuristic: Heuristic,
    free: FreeRects,
    /// With `min_free_size` above 1: the maximal free rects narrower or
    /// shorter than it, hidden from placement but kept so that a freed
    /// neighbour's rebuild sees all the free space around it (the list and
    /// these are together exactly the maximal free rects). Empty otherwise.
    slivers: FreeRects,
    /// Reused buffers of `split` and `free_region`.
    scratch: Scratch,
    /// What the last failed request proves (see [`Unfit`]).
    unfit: Unfit,
}

/// Whether a fresh free rect `r` may hold a padded `pw × ph` request
/// (turned too with `rotate`): if so, the failed-size proof does not hold.
fn may_hold(r: &Rect, pw: u32, ph: u32, rotate: bool) -> bool {
    (r.w >= pw && r.h >= ph) || (rotate && r.w >= ph && r.h >= pw)
}

/// A failed request's proof that larger ones fail too. When a padded
/// `w × h` request finds no free rect, no free rect is at least `w × h`
/// (nor `h × w` with rotation); a placement only takes space away, so until
/// space is freed a request at least as large in both sides fails too, and
/// after frees only the free rects they made can hold it. Those rects are
/// kept here, so a request that cannot fit fails after a look at a few
/// rects instead of a search — the common case in a glyph cache's eviction
/// loop, which frees one glyph and tries again. Exact: a request that passes
/// this check goes through the full search, so every placement is the one
/// the search alone would make.
#[derive(Default)]
struct Unfit {
    /// The padded size that failed, while the proof holds.
    size: Option<(u32, u32)>,
    /// Free rects made since (by `free_region`), some perhaps since cut.
    fresh: Vec<Rect>,
}

impl Unfit {
    /// The most fresh rects kept; past this the proof is dropped (a full
    /// search is then cheaper than the look).
    const MAX_FRESH: usize = 32;

    /// True when a padded `pw × ph` request (turned too with `rotate`)
    /// certainly finds no free rect.
    fn proves_no_room(&self, pw: u32, ph: u32, rotate: bool) -> bool {
        let Some((w, h)) = self.size else { return false };
        pw >= w && ph >= h && !self.fresh.iter().any(|r| may_hold(r, pw, ph, rotate))
    }

    /// A search for a padded `pw × ph` request found nothing.
    fn failed(&mut self, pw: u32, ph: u32) {
        self.size = Some((pw, ph));
        self.fresh.clear();
    }

    /// Free rects `found` were made.
    fn freed(&mut self, found: &[Rect]) {
        if self.size.is_some() {
            if self.fresh.len() + found.len() > Self::MAX_FRESH {
                self.forget();
            } else {
                self.fresh.extend_from_slice(found);
            }
        }
    }

    fn forget(&mut self) {
        self.size = None;
        self.fresh.clear();
    }
}

/// Buffers reused across placements (no allocation per insert).
#[derive(Default)]
struct Scratch {
    near: Vec<(u32, Rect)>,
    cut: Vec<usize>,
    beside: Vec<(u32, Rect, u8)>,
    fresh: Vec<(Rect, u8)>,
    first: Vec<Option<usize>>,
    walk: Vec<usize>,
    /// Leftovers too thin for the list (sliver candidates), and slivers near a change.
    thin: Vec<Rect>,
    near_thin: Vec<(u32, Rect)>,
    /// `free_region`'s rects around the freed region, and what it found.
    pieces: Vec<Rect>,
    found: Vec<Rect>,
    grid: Grid,
}

impl MaxRects {
    /// An empty `width × height` bin.
    pub fn new(
        width: u32, height: u32, heuristic: MaxRectsHeuristic, opts: PackerOptions,
    ) -> Result<Self, SizeError> {
        Self::build(width, height, Heuristic::Named(heuristic), opts)
    }

    /// A bin whose free rect is chosen by `scorer` (lower is better).
    pub fn with_scorer(
        width: u32, height: u32, scorer: Scorer, opts: PackerOptions,
    ) -> Result<Self, SizeError> {
        Self::build(width, height, Heuristic::Custom(scorer), opts)
    }

    fn build(
        width: u32, height: u32, heuristic: Heuristic, opts: PackerOptions,
    ) -> Result<Self, SizeError> {
        let core = Core::new(width, height, opts)?;
        let (iw, ih) = core.inner();
        let mut m = MaxRects {
            core,
            heuristic,
            free: FreeRects::new(iw, ih),
            slivers: FreeRects::new(iw, ih),
            scratch: Scratch::default(),
            unfit: Unfit::default(),
        };
        m.reset();
        Ok(m)
    }

    /// The heuristic, or `None` for a custom scorer.
    pub fn heuristic(&self) -> Option<MaxRectsHeuristic> {
        match self.heuristic {
            Heuristic::Named(h) => Some(h),
            Heuristic::Custom(_) => None,
        }
    }

    /// The listed free rectangles: exactly the maximal free rectangles of the
    /// packing area (bin plus padding margin) at least `min_free_size` wide
    /// and tall (all of them when it is 0 or 1).
    pub fn maximal_free_rects(&self) -> &[Rect] {
        self.free.as_slice()
    }

    /// Offline "global best fit" (Jylänki's MaxRects GLOBAL): repeatedly
    /// places, among all remaining requests, the one whose best position
    /// scores best, until nothing more fits. Returns one entry per request in
    /// input order (`None` where it did not fit or was invalid).
    pub fn insert_global(&mut self, sizes: &[(u32, u32)]) -> Vec<Option<Allocation>> {
        let mut out = vec![None; sizes.len()];
        let mut pending: Vec<(usize, u32, u32)> = sizes
            .iter()
            .enumerate()
            .filter_map(|(i, &(w, h))| self.core.request(w, h).ok().map(|(pw, ph)| (i, pw, ph)))
            .collect();
        while !pending.is_empty() {
            let mut best: Option<(Key, usize, usize)> = None;
            for (p, &(_, pw, ph)) in pending.iter().enumerate() {
                if let Some((key, idx)) = self.find(pw, ph) {
                    if best.as_ref().is_none_or(|(k, _, _)| key < *k) {
                        best = Some((key, idx, p));
                    }
                }
            }
            let Some((key, idx, p)) = best else { break };
            let (i, pw, ph) = pending.remove(p);
            let slot = self.commit_slot(idx, pw, ph, key.3);
            let (w, h) = sizes[i];
            out[i] = Some(self.core.commit(w, h, slot, key.3));
        }
        out
    }

    fn score(&self, free: &Rect, w: u32, h: u32, rotated: bool) -> (i64, i64) {
        let lw = (free.w - w) as i64;
        let lh = (free.h - h) as i64;
        let (short, long) = (lw.min(lh), lw.max(lh));
        match &self.heuristic {
            Heuristic::Named(MaxRectsHeuristic::BestShortSideFit) => (short, long),
            Heuristic::Named(MaxRectsHeuristic::BestLongSideFit) => (long, short),
            Heuristic::Named(MaxRectsHeuristic::BestAreaFit) => {
                (free.area() as i64 - w as i64 * h as i64, short)
            }
            Heuristic::Named(MaxRectsHeuristic::BottomLeft) => ((free.y + h) as i64, free.x as i64),
            Heuristic::Named(MaxRectsHeuristic::ContactPoint) => {
                (-(self.contact(&Rect::new(free.x, free.y, w, h)) as i64), 0)
            }
            Heuristic::Custom(f) => {
                let (bin_w, bin_h) = self.core.inner();
                (f(&Candidate { free: *free, w, h, rotated, bin_w, bin_h }), 0)
            }
        }
    }

    /// Perimeter of `r` touching the packing area's edges or live slots.
    fn contact(&self, r: &Rect) -> u64 {
        let (iw, ih) = self.core.inner();
        let mut c = 0u64;
        if r.x == 0 || r.right() == iw {
            c += r.h as u64;
        }
        if r.y == 0 || r.bottom() == ih {
            c += r.w as u64;
        }
        for live in self.core.slots.iter() {
            c += r.common_edge(&live.slot) as u64;
        }
        c
    }

    /// The best free rect for a padded `pw × ph` request, as its index in
    /// the list, or past the list's end for a sliver (see [`Self::rect_at`]).
    /// Slivers are searched only for a request narrower or shorter than
    /// `min_free_size` (nothing else fits one), after the list: ties go to
    /// the list.
    fn find(&self, pw: u32, ph: u32) -> Option<(Key, usize)> {
        let listed = self.find_in(&self.free, 0, pw, ph);
        let min = self.core.opts.min_free_size;
        if pw.min(ph) >= min || self.slivers.len() == 0 {
            return listed;
        }
        let thin = self.find_in(&self.slivers, self.free.len(), pw, ph);
        match (listed, thin) {
            (Some(a), Some(b)) => Some(if b.0 < a.0 { b } else { a }),
            (a, b) => a.or(b),
        }
    }

    /// The free rect an index from [`Self::find`] names.
    fn rect_at(&self, idx: usize) -> Rect {
        match idx.checked_sub(self.free.len()) {
            None => self.free.as_slice()[idx],
            Some(j) => self.slivers.as_slice()[j],
        }
    }

    /// [`Self::find`] in `list`, its positions counted from `offset`.
    fn find_in(&self, list: &FreeRects, offset: usize, pw: u32, ph: u32) -> Option<(Key, usize)> {
        // Only the size classes that can hold the request are visited (in no
        // order), so the list position is part of every comparison, as in
        // `Key`. The cheap heuristics use a packed integer score.
        let at = |id| offset + list.position(id);
        let index = list.index();
        match self.heuristic {
            Heuristic::Named(MaxRectsHeuristic::BestShortSideFit) => {
                self.find_leftover(index, at, pw, ph, |lw, lh| (lw.min(lh) << 32) | lw.max(lh))
            }
            Heuristic::Named(MaxRectsHeuristic::BestLongSideFit) => {
                self.find_leftover(index, at, pw, ph, |lw, lh| (lw.max(lh) << 32) | lw.min(lh))
            }
            Heuristic::Named(MaxRectsHeuristic::BottomLeft) => {
                self.find_packed(index, at, pw, ph, |f, _, h| {
                    (((f.y + h) as u64) << 32) | f.x as u64
                })
            }
            _ => self.find_general(index, at, pw, ph),
        }
    }

    /// `find` for a score of the two leftovers, packed in a `u64` as
    /// `score(leftover width, leftover height)`, which never decreases when
    /// either leftover grows (BSSF, BLSF): size classes that cannot beat the
    /// best rect found so far are skipped.
    #[inline]
    fn find_leftover(
        &self, index: &SpatialIndex, at: impl Fn(u32) -> usize, pw: u32, ph: u32,
        score: impl Fn(u64, u64) -> u64 + Copy,
    ) -> Option<(Key, usize)> {
        let rotate = self.core.opts.allow_rotation && pw != ph;
        let best_score = core::cell::Cell::new(u64::MAX);
        let mut best: Option<(u64, usize, bool)> = None;
        let mut consider = |f: &Rect, i: usize, w: u32, h: u32, rotated: bool| {
            let key = (score((f.w - w) as u64, (f.h - h) as u64), i, rotated);
            if best.is_none_or(|b| key < b) {
                best = Some(key);
                best_score.set(key.0);
            }
        };
        index.each_fitting_bounded(pw, ph, &best_score, score, |id, f| {
            consider(f, at(id), pw, ph, false)
        });
        if rotate {
            // Turned, the request's leftovers swap places in the bound too.
            let turned = move |lw, lh| score(lh, lw);
            index.each_fitting_bounded(ph, pw, &best_score, turned, |id, f| {
                consider(f, at(id), ph, pw, true)
            });
        }
        best.map(|(s, i, rotated)| (((s >> 32) as i64, (s & 0xffff_ffff) as i64, i, rotated), i))
    }

    /// `find` for a score that fits a `u64` (smaller is better).
    #[inline]
    fn find_packed(
        &self, index: &SpatialIndex, at: impl Fn(u32) -> usize, pw: u32, ph: u32,
        score: impl Fn(&Rect, u32, u32) -> u64,
    ) -> Option<(Key, usize)> {
        let rotate = self.core.opts.allow_rotation && pw != ph;
        let mut best: Option<(u64, usize, bool)> = None;
        let mut consider = |key: (u64, usize, bool)| {
            if best.is_none_or(|b| key < b) {
                best = Some(key);
            }
        };
        index.each_fitting(pw, ph, |id, f| consider((score(f, pw, ph), at(id), false)));
        if rotate {
            index.each_fitting(ph, pw, |id, f| consider((score(f, ph, pw), at(id), true)));
        }
        best.map(|(s, i, rotated)| (((s >> 32) as i64, (s & 0xffff_ffff) as i64, i, rotated), i))
    }

    /// `find` for any heuristic.
    fn find_general(
        &self, index: &SpatialIndex, at: impl Fn(u32) -> usize, pw: u32, ph: u32,
    ) -> Option<(Key, usize)> {
        let rotate = self.core.opts.allow_rotation && pw != ph;
        let mut best: Option<(Key, usize)> = None;
        let mut visit = |i: usize, f: &Rect, w: u32, h: u32, rotated: bool| {
            let (a, b) = self.score(f, w, h, rotated);
            let key = (a, b, i, rotated);
            if best.as_ref().is_none_or(|(k, _)| key < *k) {
                best = Some((key, i));
            }
        };
        index.each_fitting(pw, ph, |id, f| visit(at(id), f, pw, ph, false));
        if rotate {
            index.each_fitting(ph, pw, |id, f| visit(at(id), f, ph, pw, true));
        }
        best
    }

    /// Where a padded `pw × ph` request would go now: the free rect, rotated.
    pub(crate) fn fits_now(&self, pw: u32, ph: u32) -> Option<(Rect, bool)> {
        self.find(pw, ph).map(|(key, i)| (self.rect_at(i), key.3))
    }

    fn place(&mut self, pw: u32, ph: u32) -> Option<(Rect, bool)> {
        if self.unfit.proves_no_room(pw, ph, self.core.opts.allow_rotation) {
            return None;
        }
        let Some((key, idx)) = self.find(pw, ph) else {
            self.unfit.failed(pw, ph);
            return None;
        };
        Some((self.commit_slot(idx, pw, ph, key.3), key.3))
    }

    fn commit_slot(&mut self, idx: usize, pw: u32, ph: u32, rotated: bool) -> Rect {
        let f = self.rect_at(idx);
        let (w, h) = if rotated { (ph, pw) } else { (pw, ph) };
        let placed = Rect::new(f.x, f.y, w, h);
        self.split(&placed);
        placed
    }

    /// Replaces every free rect `placed` cuts by its maximal leftovers, then
    /// drops leftovers contained in another free rect. Untouched rects cannot
    /// be inside a leftover (they were maximal), so only new ones are checked.
    ///
    /// The order of the resulting list is part of the tie-break (earlier
    /// wins), so it is kept deterministic: cut rects are swap-removed in list
    /// order; each one's leftovers come top, bottom, left, right; a leftover
    /// inside one from an earlier cut rect is dropped, one containing such a
    /// leftover replaces it; survivors are appended at the end.
    fn split(&mut self, placed: &Rect) {
        let min = self.core.opts.min_free_size;
        let (free, s) = (&mut self.free, &mut self.scratch);
        // Every leftover borders `placed` along a whole side, so any free rect
        // containing one touches `placed`: one query finds the cut rects and
        // every possible container.
        let around = Rect::new(
            placed.x.saturating_sub(1),
            placed.y.saturating_sub(1),
            placed.w + 2,
            placed.h + 2,
        );
        free.near(&around, &mut s.near, |r| r.touches(placed));
        s.cut.clear();
        s.beside.clear();
        for &(id, r) in &s.near {
            if r.intersects(placed) {
                s.cut.push(free.position(id));
            } else if let Some(side) = side_of(&r, placed) {
                s.beside.push((id, r, side));
            }
        }
        s.cut.sort_unstable();
        s.thin.clear();
        // Cut rects go in list order; `swap_remove` moves the last rect into
        // the hole, and when that one is cut too it is the next to go.
        s.fresh.clear();
        let mut next = 0;
        while next < s.cut.len() {
            let i = s.cut[next];
            next += 1;
            let last = free.len() - 1;
            let f = free.swap_remove(i);
            if i != last && s.cut.last() == Some(&last) && next < s.cut.len() {
                s.cut.pop();
                next -= 1;
                s.cut[next] = i;
            }
            let mut earlier = s.fresh.len();
            for piece in leftovers(&f, placed).into_iter().filter(|(p, _)| !p.is_empty()) {
                if piece.0.w >= min && piece.0.h >= min {
                    add_leftover(&mut s.fresh, &mut earlier, piece);
                } else {
                    s.thin.push(piece.0);
                }
            }
        }
        // A leftover inside an old free rect goes, removed when the list walk
        // reaches its first container.
        s.first.clear();
        for (p, side) in &s.fresh {
            let container = s
                .beside
                .iter()
                .filter(|(_, r, s)| s == side && r.contains(p))
                .map(|&(id, _, _)| free.position(id))
                .min();
            s.first.push(container);
        }
        s.walk.clear();
        s.walk.extend(s.first.iter().flatten().copied());
        s.walk.sort_unstable();
        s.walk.dedup();
        for &container in &s.walk {
            let mut j = 0;
            while j < s.fresh.len() {
                if s.first[j] == Some(container) {
                    s.fresh.swap_remove(j);
                    s.first.swap_remove(j);
                } else {
                    j += 1;
                }
            }
        }
        for &(r, _) in &s.fresh {
            free.push(r);
        }
        if min > 1 {
            self.split_slivers(placed, &around);
        }
    }

    /// [`split`](Self::split)'s upkeep of the slivers (`min_free_size` above
    /// 1): slivers `placed` cuts are replaced by their leftovers, and the
    /// thin leftovers of the listed rects it cut join them, except those
    /// inside another free rect. Every leftover borders `placed`, so its
    /// containers touch `placed` too (`around` finds them).
    fn split_slivers(&mut self, placed: &Rect, around: &Rect) {
        let (free, slivers, s) = (&self.free, &mut self.slivers, &mut self.scratch);
        slivers.near(around, &mut s.near_thin, |r| r.intersects(placed));
        for &(id, f) in &s.near_thin {
            slivers.swap_remove(slivers.position(id));
            s.thin.extend(
                leftovers(&f, placed).map(|(p, _)| p).into_iter().filter(|p| !p.is_empty()),
            );
        }
        free.near(around, &mut s.near, |r| r.touches(placed));
        slivers.near(around, &mut s.near_thin, |r| r.touches(placed));
        let thin = &s.thin;
        for (i, p) in thin.iter().enumerate() {
            let inside_other =
                thin.iter().enumerate().any(|(j, q)| j != i && q.contains(p) && (q != p || j < i));
            let inside_old = s.near.iter().chain(&s.near_thin).any(|(_, r)| r.contains(p));
            if !inside_other && !inside_old {
                slivers.push(*p);
            }
        }
    }

    /// Makes `region` (currently covered by no free rect) free, keeping the
    /// free list exactly the set of maximal free rectangles.
    fn free_region(&mut self, region: Rect) {
        let (free, s) = (&mut self.free, &mut self.scratch);
        let around = Rect::new(
            region.x.saturating_sub(1),
            region.y.saturating_sub(1),
            region.w + 2,
            region.h + 2,
        );
        free.near(&around, &mut s.near, |r| r.touches(&region));
        s.cut.clear();
        s.cut.extend(s.near.iter().map(|&(id, _)| free.position(id)));
        s.cut.sort_unstable();
        let rects = free.as_slice();
        s.pieces.clear();
        s.pieces.extend(s.cut.iter().map(|&i| rects[i]));
        // The slivers around the region are free space too: without them a
        // rebuild would lose it for good.
        let min = self.core.opts.min_free_size;
        let slivers = &mut self.slivers;
        s.near_thin.clear();
        if min > 1 {
            slivers.near(&around, &mut s.near_thin, |r| r.touches(&region));
            s.pieces.extend(s.near_thin.iter().map(|&(_, r)| r));
        }
        s.pieces.push(region);
        maximal_rects_crossing_into(&s.pieces, &region, &mut s.grid, &mut s.found);
        self.unfit.freed(&s.found);
        for &(id, old) in &s.near_thin {
            if s.found.iter().any(|n| n.contains(&old)) {
                slivers.swap_remove(slivers.position(id));
            }
        }
        // Old neighbours swallowed by a new maximal rect are no longer maximal.
        for &i in s.cut.iter().rev() {
            let old = free.as_slice()[i];
            if s.found.iter().any(|n| n.contains(&old)) {
                free.swap_remove(i);
            }
        }
        for &r in &s.found {
            if r.w >= min && r.h >= min {
                free.push(r);
            } else {
                slivers.push(r);
            }
        }
    }

    fn release_slot(&mut self, slot: Rect) {
        self.free_region(slot);
    }

    fn reset(&mut self) {
        self.unfit.forget();
        let (iw, ih) = self.core.inner();
        self.free.reset(iw, ih);
        self.slivers.reset(iw, ih);
        self.free.push(Rect::new(0, 0, iw, ih));
    }

    fn extend(&mut self, old: (u32, u32)) {
        self.unfit.forget();
        let (iw, ih) = self.core.inner();
        self.free.regrid(iw, ih);
        self.slivers.regrid(iw, ih);
        for strip in grown_strips(old, (iw, ih)) {
            self.free_region(strip);
        }
    }

    fn free_space(&self) -> impl Iterator<Item = Rect> + '_ {
        self.free.as_slice().iter().copied()
    }
}

impl_packer!(MaxRects);

// Sides of a placement. A leftover lies on one side of the placement it
// came from and spans it; so does any free rect that contains it (it touches
// the placement without overlapping it), so containment is only tested
// between rects on the same side.
const ABOVE: u8 = 0;
const BELOW: u8 = 1;
const LEFT: u8 = 2;
const RIGHT: u8 = 3;

/// What is left of free rect `f` beside `placed` (which overlaps it), with
/// the side each piece lies on: the full-width strips above and below, the
/// full-height strips left and right (maximal, so they overlap at the
/// corners; empty where `placed` reaches `f`'s edge).
fn leftovers(f: &Rect, placed: &Rect) -> [(Rect, u8); 4] {
    [
        (Rect::new(f.x, f.y, f.w, placed.y.saturating_sub(f.y)), ABOVE),
        (Rect::new(f.x, placed.bottom(), f.w, f.bottom().saturating_sub(placed.bottom())), BELOW),
        (Rect::new(f.x, f.y, placed.x.saturating_sub(f.x), f.h), LEFT),
        (Rect::new(placed.right(), f.y, f.right().saturating_sub(placed.right()), f.h), RIGHT),
    ]
}

/// The side of `placed` that `r` (touching it, not overlapping it) lies on
/// along a shared edge, or `None` when they meet at a corner only.
fn side_of(r: &Rect, placed: &Rect) -> Option<u8> {
    let x_overlap = r.x < placed.right() && placed.x < r.right();
    let y_overlap = r.y < placed.bottom() && placed.y < r.bottom();
    match (x_overlap, y_overlap) {
        (true, _) if r.bottom() <= placed.y => Some(ABOVE),
        (true, _) => Some(BELOW),
        (_, true) if r.right() <= placed.x => Some(LEFT),
        (_, true) => Some(RIGHT),
        _ => None,
    }
}

/// Adds a leftover of the current cut rect to `fresh`, whose first `earlier`
/// entries come from earlier cut rects (leftovers of one cut rect never
/// contain each other).
fn add_leftover(fresh: &mut Vec<(Rect, u8)>, earlier: &mut usize, (piece, side): (Rect, u8)) {
    let mut i = 0;
    while i < *earlier {
        let (other, other_side) = fresh[i];
        if other_side != side {
            i += 1;
        } else if other.contains(&piece) {
            return;
        } else if piece.contains(&other) {
            // Keep the current cut rect's leftovers together at the end.
            *earlier -= 1;
            fresh.swap(i, *earlier);
            fresh.swap_remove(*earlier);
        } else {
            i += 1;
        }
    }
    fresh.push((piece, side));
}

#[cfg(test)]
mod tests;
