//! Indexes over free rectangles, shared by every packer that keeps a list of
//! them: [`SpatialIndex`] finds the free rects near an area and the ones that
//! can hold a request; [`FreeRects`] is MaxRects' ordered free list on top of
//! it (`freelist::FreeList` is the disjoint-rect list of Guillotine and the
//! waste maps).
//!
//! The spatial part is a family of uniform grids, one per pair of (x level,
//! y level): level 0 cells start at about 1/16 of the bin a side, each
//! level's cells 8× wider (or taller) than the one below, the last level one
//! cell across the bin. Where rects crowd a few cells, the grids turn finer
//! (level 0 down to 1/64 of the bin) and back ([`SpatialIndex::retune`]). A free rect goes to the grid whose cells are, on each
//! axis, the finest where it spans at most [`MAX_SPAN`] cells, whatever its
//! size or shape: a long sliver lands in a grid of long cells. It is
//! registered once, in the cell that holds its top-left corner. A query
//! walks, in each non-empty grid, the cells its area overlaps and the column
//! and row before them (a rect registered there may reach into the area),
//! and so meets each rect once. Cells hold a copy of the rect, so a walk
//! reads only the cell. Removal is eager and O(1): each id remembers its
//! index in its cell.
//!
//! The same rects are also filed by size class (four classes per octave of
//! the width, times the same of the height), again with a copy of the rect
//! beside the id so a search reads one contiguous array; a bitmask per width
//! class tells which height classes hold rects. The search for the best free
//! rect for a request only visits the classes that can hold it, and for a
//! score with a lower bound per class (BSSF, BLSF, BAF) only those that can
//! still beat the best rect found so far.

use crate::geom::Rect;
use alloc::vec;
use alloc::vec::Vec;
use core::cell::Cell;
use core::sync::atomic::AtomicU32;
use core::sync::atomic::Ordering::Relaxed;

const NONE: u32 = u32::MAX;

/// On each axis, a rect goes to the finest level where it spans at most this
/// many cells (so a rect registered in a cell reaches at most the next one:
/// queries look one column and one row back).
const MAX_SPAN: u32 = 2;

/// Each grid level's cells are `1 << STEP` times as wide (or tall) as the level below.
const STEP: u32 = 3;

/// Halvings of the level-0 cell side the index may take beyond its start
/// (1/16 of the bin a side): to 1/32 and 1/64.
const MAX_FINE: u32 = 2;

/// Queries between two looks at their cost (see [`SpatialIndex::retune`]).
const TUNE_EVERY: u32 = 512;

/// Mean entries a query reads above which the grid is made finer, and
/// below which (when finer than at the start) it is made coarser again.
const READS_FINER: u32 = 64;
const READS_COARSER: u32 = 8;

/// A grid cell's record of a free rect.
#[derive(Clone, Copy)]
struct Entry {
    rect: Rect,
    id: u32,
}

/// One uniform grid of the spatial index.
struct Level {
    /// Cells are `1 << sx` pixels wide and `1 << sy` tall.
    sx: u32,
    sy: u32,
    cols: u32,
    rows: u32,
    /// Entries in all cells (0: queries skip the grid).
    entries: usize,
    /// Cell entries.
    cells: Vec<Vec<Entry>>,
    /// By cell: at least the right and bottom edges of its entries (raised
    /// on insert, lowered only when the cell empties): a query skips a cell
    /// that nothing there reaches.
    ends: Vec<(u32, u32)>,
}

impl Level {
    /// The cell holding `r`'s top-left corner (clipped to the grid).
    fn home(&self, r: &Rect) -> usize {
        let c = (r.x >> self.sx).min(self.cols - 1);
        let row = (r.y >> self.sy).min(self.rows - 1);
        (row * self.cols + c) as usize
    }

    /// The columns `c0..=c1` and rows `r0..=r1` whose cells may hold a rect
    /// overlapping non-empty `area`: those it overlaps and one before each
    /// (clipped to the grid).
    fn reach(&self, area: &Rect) -> (u32, u32, u32, u32) {
        let c0 = (area.x >> self.sx).min(self.cols - 1).saturating_sub(1);
        let r0 = (area.y >> self.sy).min(self.rows - 1).saturating_sub(1);
        let c1 = ((area.right() - 1) >> self.sx).min(self.cols - 1);
        let r1 = ((area.bottom() - 1) >> self.sy).min(self.rows - 1);
        (c0, c1, r0, r1)
    }
}

/// The size class of a side: 4 classes per octave (the octave and the next
/// two bits), exact below 4; monotone, at most 99 for a `u32`.
fn class(v: u32) -> usize {
    if v < 4 {
        return v as usize;
    }
    let e = 31 - v.leading_zeros();
    (4 * (e - 1) + ((v >> (e - 2)) & 3)) as usize
}

/// The smallest side of size class `c`.
fn class_min(c: usize) -> u32 {
    if c < 4 {
        return c as u32;
    }
    let (e, m) = (c as u32 / 4 + 1, c as u32 % 4);
    (4 + m) << (e - 2)
}

/// The power of two at or above the longer side of a `iw × ih` area.
fn side_bits(iw: u32, ih: u32) -> u32 {
    let side = iw.max(ih).max(1);
    32 - (side - 1).leading_zeros()
}

/// The level-0 cell side's power of two over a `iw × ih` area with its
/// cells halved `fine` times from 1/16 of the bin a side (at least 16 px).
fn level0_bits(iw: u32, ih: u32, fine: u32) -> u32 {
    side_bits(iw, ih).saturating_sub(4 + fine).max(4)
}

/// The grids of an index over a `iw × ih` area with its level-0 cells
/// halved `fine` times from 1/16 of the bin a side (at least 16 px): the
/// level-0 cell side's power of two, the levels per axis and the empty
/// grids.
fn grids(iw: u32, ih: u32, fine: u32) -> (u32, usize, Vec<Level>) {
    let (base, bits) = (level0_bits(iw, ih, fine), side_bits(iw, ih));
    let mut nl = 1;
    while base + STEP * (nl as u32 - 1) < bits {
        nl += 1;
    }
    let mut levels = Vec::with_capacity(nl * nl);
    for lx in 0..nl as u32 {
        for ly in 0..nl as u32 {
            let (sx, sy) = (base + STEP * lx, base + STEP * ly);
            let cols = ((iw.max(1) - 1) >> sx) + 1;
            let rows = ((ih.max(1) - 1) >> sy) + 1;
            let cells = vec![Vec::new(); (cols * rows) as usize];
            let ends = vec![(0, 0); (cols * rows) as usize];
            levels.push(Level { sx, sy, cols, rows, entries: 0, cells, ends });
        }
    }
    (base, nl, levels)
}

/// Free rects by id: a spatial grid and size classes (see the module docs).
/// Ids are the caller's; each id holds at most one non-empty rect.
pub(crate) struct SpatialIndex {
    /// The packing area it is sized for.
    area: (u32, u32),
    /// Grids by `[x level * nl + y level]`.
    levels: Vec<Level>,
    /// Levels per axis.
    nl: usize,
    /// Cell side of level 0 is `1 << base` pixels, `1 << STEP` times that
    /// per level.
    base: u32,
    /// Halvings of the level-0 cell side from the start (0..=MAX_FINE).
    fine: u32,
    /// Queries since the last look at their cost, and the entries they read
    /// (atomics for `Sync`, read and written with plain relaxed loads and
    /// stores: a count, not a synchronisation; queries on one index run on
    /// one thread at a time, behind the packer's `&mut` owner).
    queries: AtomicU32,
    reads: AtomicU32,
    /// By id: the grid it is registered in.
    level_of: Vec<u8>,
    /// By id: its index in its cell.
    regs: Vec<u32>,
    /// Size classes per side: `class(side)` is below this (at most 100).
    classes: usize,
    /// Rects by size class, `[class(w) * classes + class(h)]`: (rect, id).
    buckets: Vec<Vec<(Rect, u32)>>,
    /// By width class: bit `ch` set when class `(cw, ch)` holds a rect.
    filled: Vec<u128>,
    /// By id: (size class, index in it).
    slot: Vec<(u32, u32)>,
}

impl SpatialIndex {
    /// An empty index for a `iw × ih` packing area.
    pub fn new(iw: u32, ih: u32) -> Self {
        let side = iw.max(ih).max(1);
        let (base, nl, levels) = grids(iw, ih, 0);
        let classes = class(side) + 1;
        SpatialIndex {
            area: (iw, ih),
            levels,
            nl,
            base,
            fine: 0,
            queries: AtomicU32::new(0),
            reads: AtomicU32::new(0),
            level_of: Vec::new(),
            regs: Vec::new(),
            classes,
            buckets: vec![Vec::new(); classes * classes],
            filled: vec![0; classes],
            slot: Vec::new(),
        }
    }

    /// Makes the grids finer or coarser when the queries since the last
    /// look read too many entries a query, or few at a finer grid than the
    /// start (a grid cell holds the rects whose top-left corner is in it, so
    /// where frees cluster — a cache evicting its oldest glyphs, placed side
    /// by side — a few cells hold most rects and every query there reads
    /// them all; elsewhere a finer grid only adds cells to visit). The rects
    /// are filed again from the size classes; what any query answers is the
    /// same set either way. Called by the mutating operations, so `near`
    /// stays `&self`.
    fn retune(&mut self) {
        let queries = *self.queries.get_mut();
        if queries < TUNE_EVERY {
            return;
        }
        let mean = *self.reads.get_mut() / queries;
        *self.queries.get_mut() = 0;
        *self.reads.get_mut() = 0;
        let fine = if mean > READS_FINER && self.fine < MAX_FINE {
            self.fine + 1
        } else if mean < READS_COARSER && self.fine > 0 {
            self.fine - 1
        } else {
            return;
        };
        if level0_bits(self.area.0, self.area.1, fine) == self.base {
            // (A small bin is at its finest grid already: no grids built.)
            return;
        }
        let (base, nl, levels) = grids(self.area.0, self.area.1, fine);
        (self.base, self.nl, self.levels, self.fine) = (base, nl, levels, fine);
        for b in 0..self.buckets.len() {
            for k in 0..self.buckets[b].len() {
                let (r, id) = self.buckets[b][k];
                self.file(id, r);
            }
        }
    }

    /// Empties the index and sizes it for a `iw × ih` packing area. Rects
    /// must lie inside the area they were indexed for.
    pub fn resize(&mut self, iw: u32, ih: u32) {
        if (iw, ih) != self.area {
            *self = SpatialIndex::new(iw, ih);
            return;
        }
        // Same area: empty every cell and class, keeping their memory.
        for level in &mut self.levels {
            level.cells.iter_mut().for_each(Vec::clear);
            level.ends.fill((0, 0));
            level.entries = 0;
        }
        self.buckets.iter_mut().for_each(Vec::clear);
        self.filled.fill(0);
    }

    /// The grid for `r`: on each axis, the finest level where `r` spans at
    /// most `MAX_SPAN` cells.
    fn level_for(&self, r: &Rect) -> usize {
        let axis = |lo: u32, len: u32| {
            let hi = lo + len - 1;
            (0..self.nl)
                .find(|&l| {
                    let s = self.base + STEP * l as u32;
                    (hi >> s) - (lo >> s) < MAX_SPAN
                })
                .unwrap_or(self.nl - 1)
        };
        axis(r.x, r.w) * self.nl + axis(r.y, r.h)
    }

    /// Adds rect `r` under `id` (which holds no rect now). Empty rects are not indexed.
    pub fn insert(&mut self, id: u32, r: Rect) {
        if r.is_empty() {
            return;
        }
        let i = id as usize;
        if i >= self.level_of.len() {
            self.level_of.resize(i + 1, 0);
            self.regs.resize(i + 1, 0);
            self.slot.resize(i + 1, (0, 0));
        }
        self.retune();
        self.file(id, r);
        let (cw, ch) = (class(r.w), class(r.h));
        let b = cw * self.classes + ch;
        self.slot[i] = (b as u32, self.buckets[b].len() as u32);
        self.buckets[b].push((r, id));
        self.filled[cw] |= 1 << ch;
    }

    /// Files non-empty `r` under `id` in its grid cell.
    fn file(&mut self, id: u32, r: Rect) {
        let i = id as usize;
        let l = self.level_for(&r);
        self.level_of[i] = l as u8;
        let level = &mut self.levels[l];
        let home = level.home(&r);
        let end = &mut level.ends[home];
        *end = (end.0.max(r.right()), end.1.max(r.bottom()));
        let cell = &mut level.cells[home];
        self.regs[i] = cell.len() as u32;
        cell.push(Entry { rect: r, id });
        level.entries += 1;
    }

    /// Removes `id`, which holds `r`.
    pub fn remove(&mut self, id: u32, r: Rect) {
        if r.is_empty() {
            return;
        }
        let i = id as usize;
        let level = &mut self.levels[self.level_of[i] as usize];
        let home = level.home(&r);
        let cell = &mut level.cells[home];
        let at = self.regs[i] as usize;
        cell.swap_remove(at);
        if let Some(moved) = cell.get(at) {
            self.regs[moved.id as usize] = at as u32;
        }
        if cell.is_empty() {
            level.ends[home] = (0, 0);
        }
        level.entries -= 1;
        let (b, at) = self.slot[i];
        let bucket = &mut self.buckets[b as usize];
        bucket.swap_remove(at as usize);
        if let Some(&(_, moved)) = bucket.get(at as usize) {
            self.slot[moved as usize].1 = at;
        }
        if bucket.is_empty() {
            let (cw, ch) = (b as usize / self.classes, b as usize % self.classes);
            self.filled[cw] &= !(1 << ch);
        }
    }

    /// Appends to `out` the rects (id, rect) that overlap `area` and for
    /// which `keep` is true, each once, in no order.
    pub fn near(&self, area: &Rect, out: &mut Vec<(u32, Rect)>, keep: impl Fn(&Rect) -> bool) {
        if area.is_empty() {
            return;
        }
        let mut reads = 0;
        for level in &self.levels {
            if level.entries == 0 {
                continue;
            }
            let (c0, c1, r0, r1) = level.reach(area);
            for row in r0..=r1 {
                let first = (row * level.cols + c0) as usize;
                let cells = &level.cells[first..=first + (c1 - c0) as usize];
                let ends = &level.ends[first..=first + (c1 - c0) as usize];
                for (cell, &(right, bottom)) in cells.iter().zip(ends) {
                    if right <= area.x || bottom <= area.y {
                        continue; // nothing there reaches the area
                    }
                    reads += cell.len() as u32;
                    for e in cell {
                        if e.rect.intersects(area) && keep(&e.rect) {
                            out.push((e.id, e.rect));
                        }
                    }
                }
            }
        }
        self.queries.store(self.queries.load(Relaxed).wrapping_add(1), Relaxed);
        self.reads.store(self.reads.load(Relaxed).saturating_add(reads), Relaxed);
    }

    /// Like [`Self::each_fitting`], for a search that minimises a key that
    /// is never below `bound(least leftover width, least leftover height)`,
    /// where `bound` grows with each argument: classes whose bound exceeds
    /// `best` are skipped. `f` may lower `best` as it finds better rects;
    /// classes are visited narrowest first.
    pub fn each_fitting_bounded<K: PartialOrd + Copy>(
        &self, w: u32, h: u32, best: &Cell<K>, bound: impl Fn(u64, u64) -> K,
        mut f: impl FnMut(u32, &Rect),
    ) {
        let (c0w, c0h) = (class(w), class(h));
        for cw in c0w..self.classes {
            let lw = class_min(cw).saturating_sub(w) as u64;
            if bound(lw, 0) > best.get() {
                break; // wider classes only leave more
            }
            let mut mask = self.filled[cw] >> c0h << c0h;
            while mask != 0 {
                let ch = mask.trailing_zeros() as usize;
                mask &= mask - 1;
                if bound(lw, class_min(ch).saturating_sub(h) as u64) > best.get() {
                    break; // taller classes only leave more
                }
                self.visit_bucket(cw, ch, w, h, &mut f);
            }
        }
    }

    /// Calls `f(id, rect)` for every rect at least `w × h`, in no particular order.
    pub fn each_fitting(&self, w: u32, h: u32, mut f: impl FnMut(u32, &Rect)) {
        let (c0w, c0h) = (class(w), class(h));
        for cw in c0w.min(self.classes)..self.classes {
            let mut mask = self.filled[cw] >> c0h << c0h;
            while mask != 0 {
                let ch = mask.trailing_zeros() as usize;
                mask &= mask - 1;
                self.visit_bucket(cw, ch, w, h, &mut f);
            }
        }
    }

    /// Calls `f(id, rect)` for the rects of size class `(cw, ch)` that are at least `w × h`.
    #[inline]
    fn visit_bucket(&self, cw: usize, ch: usize, w: u32, h: u32, f: &mut impl FnMut(u32, &Rect)) {
        for (r, id) in &self.buckets[cw * self.classes + ch] {
            if r.w >= w && r.h >= h {
                f(*id, r);
            }
        }
    }
}

/// MaxRects' free list: free rects in list order (the tie-break), with a
/// [`SpatialIndex`] over them. Ids are stable while a rect is listed; `pos`
/// maps them to list positions, so a `swap_remove` moves one id.
pub(crate) struct FreeRects {
    rects: Vec<Rect>,
    ids: Vec<u32>,
    /// By id: position in `rects`, or `NONE`.
    pos: Vec<u32>,
    spare: Vec<u32>,
    index: SpatialIndex,
}

impl FreeRects {
    pub fn new(iw: u32, ih: u32) -> Self {
        FreeRects {
            rects: Vec::new(),
            ids: Vec::new(),
            pos: Vec::new(),
            spare: Vec::new(),
            index: SpatialIndex::new(iw, ih),
        }
    }

    /// Empties the list and the index, sized for a new packing area.
    pub fn reset(&mut self, iw: u32, ih: u32) {
        self.rects.clear();
        self.ids.clear();
        self.pos.clear();
        self.spare.clear();
        self.index.resize(iw, ih);
    }

    /// Re-sizes the index for a grown packing area, keeping the list as it is.
    pub fn regrid(&mut self, iw: u32, ih: u32) {
        self.index.resize(iw, ih);
        for i in 0..self.rects.len() {
            self.index.insert(self.ids[i], self.rects[i]);
        }
    }

    /// The index over the listed rects (by id; [`Self::position`] maps ids to places).
    pub fn index(&self) -> &SpatialIndex {
        &self.index
    }

    /// The free rects (id, rect) that overlap `area` and for which `keep` is
    /// true, each once, in no order (`out` is cleared first).
    pub fn near(&self, area: &Rect, out: &mut Vec<(u32, Rect)>, keep: impl Fn(&Rect) -> bool) {
        out.clear();
        self.index.near(area, out, keep);
    }

    pub fn as_slice(&self) -> &[Rect] {
        &self.rects
    }

    /// The list position of the rect with this id.
    pub fn position(&self, id: u32) -> usize {
        self.pos[id as usize] as usize
    }

    pub fn len(&self) -> usize {
        self.rects.len()
    }

    /// Appends a free rect at the end of the list.
    pub fn push(&mut self, r: Rect) {
        let id = self.spare.pop().unwrap_or_else(|| {
            self.pos.push(NONE);
            (self.pos.len() - 1) as u32
        });
        self.pos[id as usize] = self.rects.len() as u32;
        self.rects.push(r);
        self.ids.push(id);
        self.index.insert(id, r);
    }

    /// Removes the rect at position `i`; the last rect takes its place.
    pub fn swap_remove(&mut self, i: usize) -> Rect {
        let (id, r) = (self.ids[i], self.rects[i]);
        self.index.remove(id, r);
        self.rects.swap_remove(i);
        self.ids.swap_remove(i);
        if i < self.ids.len() {
            self.pos[self.ids[i] as usize] = i as u32;
        }
        self.pos[id as usize] = NONE;
        self.spare.push(id);
        r
    }
}

#[cfg(test)]
mod tests {
    //! The index against a plain scan: every query returns exactly the live
    //! rects that overlap its area, each once, after random inserts and
    //! removals of rects of every shape (slivers, glyphs, whole bins).
    use super::*;

    use crate::testrng::Rng;
    use alloc::format;

    /// A rect inside a `iw × ih` area: a sliver, glyph-sized, or up to the whole area.
    fn random_rect(rng: &mut Rng, (iw, ih): (u32, u32)) -> Rect {
        let mut side = |full: u32| match rng.below(4) {
            0 => 1 + rng.below(4),
            1 => 1 + rng.below(full),
            _ => 1 + rng.below(full / 16 + 1),
        };
        let (w, h) = (side(iw), side(ih));
        Rect::new(rng.below(iw - w + 1), rng.below(ih - h + 1), w, h)
    }

    #[test]
    fn near_finds_exactly_the_overlapping_rects_once() {
        for seed in 1..=40u64 {
            let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            let area = [(64, 64), (300, 1000), (1024, 1024), (4100, 70)][seed as usize % 4];
            let mut index = SpatialIndex::new(area.0, area.1);
            let mut live: Vec<Option<Rect>> = Vec::new();
            for step in 0..600 {
                if rng.below(3) == 0 && live.iter().any(Option::is_some) {
                    let ids: Vec<usize> = (0..live.len()).filter(|&i| live[i].is_some()).collect();
                    let id = ids[rng.below(ids.len() as u32) as usize];
                    index.remove(id as u32, live[id].take().unwrap());
                } else {
                    let r = random_rect(&mut rng, area);
                    let id = live.iter().position(Option::is_none).unwrap_or(live.len());
                    if id == live.len() {
                        live.push(None);
                    }
                    index.insert(id as u32, r);
                    live[id] = Some(r);
                }
                let query = random_rect(&mut rng, area);
                check_all(&index, &live, &[query], &format!("seed {seed} step {step}"));
            }
        }
    }

    /// Every query's answer against a plain scan of `live` (`when` names
    /// the moment in a failure).
    fn check_all(index: &SpatialIndex, live: &[Option<Rect>], queries: &[Rect], when: &str) {
        for query in queries {
            let mut got = Vec::new();
            index.near(query, &mut got, |_| true);
            got.sort_unstable_by_key(|&(id, _)| id);
            let expected: Vec<(u32, Rect)> = live
                .iter()
                .enumerate()
                .filter_map(|(i, r)| r.filter(|r| r.intersects(query)).map(|r| (i as u32, r)))
                .collect();
            assert_eq!(got, expected, "{when}: query {query:?}");
        }
    }

    /// Rects crowded into one corner of a 1024² bin (as where a cache frees
    /// its oldest glyphs, placed side by side) make every query there read
    /// hundreds of entries at the start grid (64 px cells): the index turns
    /// finer, to 16 px cells, and its queries read a fraction of that; once
    /// the crowd is gone and queries read next to nothing, it turns coarser
    /// again. Every answer, before and after each change, is the plain
    /// scan's.
    #[test]
    fn the_grid_turns_finer_where_rects_crowd_and_back_when_they_thin_out() {
        let mut index = SpatialIndex::new(1024, 1024);
        let mut live: Vec<Option<Rect>> = Vec::new();
        let mut rng = Rng(0x5eed_0fc0_de01);
        // 1,600 glyph-sized rects, overlapping, in the top-left 128² (two
        // level-0 cells a side at the start).
        for _ in 0..1600 {
            let (w, h) = (4 + rng.below(12), 4 + rng.below(12));
            let r = Rect::new(rng.below(128 - w), rng.below(128 - h), w, h);
            index.insert(live.len() as u32, r);
            live.push(Some(r));
        }
        let queries: Vec<Rect> = (0..TUNE_EVERY)
            .map(|_| Rect::new(rng.below(120), rng.below(120), 1 + rng.below(8), 1 + rng.below(8)))
            .collect();
        assert_eq!((index.fine, index.base), (0, 6));
        let reads =
            |index: &SpatialIndex| index.reads.load(Relaxed) / index.queries.load(Relaxed).max(1);
        let mut mean_reads = Vec::new();
        for round in 0..4 {
            check_all(&index, &live, &queries, &format!("crowded, round {round}"));
            mean_reads.push(reads(&index));
            // The next insert looks at the queries' cost.
            let r = Rect::new(900, 900, 8, 8);
            index.insert(live.len() as u32, r);
            live.push(Some(r));
            assert!(index.fine <= MAX_FINE, "round {round}");
        }
        assert_eq!((index.fine, index.base), (MAX_FINE, 4), "finer: reads a query {mean_reads:?}");
        assert!(mean_reads[0] > READS_FINER, "{mean_reads:?}");
        assert!(mean_reads[3] * 4 < mean_reads[0], "the finer grid reads less: {mean_reads:?}");
        check_all(&index, &live, &queries, "finest");
        // The crowd leaves; a few rects far apart stay.
        for (id, slot) in live.iter_mut().enumerate().take(1600) {
            if id % 100 != 0 {
                index.remove(id as u32, slot.take().unwrap());
            }
        }
        for round in 0..4 {
            check_all(&index, &live, &queries, &format!("thinned, round {round}"));
            let r = Rect::new(800 + round * 10, 20, 4, 4);
            index.insert(live.len() as u32, r);
            live.push(Some(r));
        }
        assert_eq!((index.fine, index.base), (0, 6), "coarser again");
        check_all(&index, &live, &queries, "coarser again");
    }
}
