//! MaxRects' free list: the ordered list of free rects (its order is the
//! tie-break) plus a spatial index over them, so that the rects a placement
//! cuts, the rects that may contain a new leftover, and the rects touching a
//! freed slot are found without scanning the whole list.
//!
//! The spatial index is a stack of uniform grids, each with cells 4× as wide
//! as the one below (the finest about 1/32 of the bin a side, the coarsest
//! one cell for the whole bin). A free rect is registered in the finest
//! level where it covers at most [`MAX_CELLS`] cells, so a large rect costs a
//! few entries in a coarse level instead of hundreds in the fine one, and a
//! query walks the few cells its area overlaps in each level.
//!
//! Each free rect has a stable id; the list holds ids by position and `pos`
//! maps ids back, so a `swap_remove` moves one id without touching the grids.
//! Removal from the grids is lazy: an id's generation is bumped, and cell
//! entries of older generations are dropped when a query walks their cell (or
//! all at once, when stale entries outnumber live ones).
//!
//! The same rects are also filed by size class (`floor(log2 w)`,
//! `floor(log2 h)`), with a copy of the rect beside the id so a search reads
//! one contiguous array; removal there is eager (`swap_remove` in the class).
//! The search for the best free rect for a request only visits the classes
//! that can hold it.

use crate::geom::Rect;
use alloc::vec;
use alloc::vec::Vec;
use core::cell::Cell;

const NONE: u32 = u32::MAX;

/// On each axis, a rect goes to the finest level where it spans at most this many cells.
const MAX_SPAN: u32 = 2;

/// A grid cell's record of a free rect.
#[derive(Clone, Copy)]
struct Entry {
    rect: Rect,
    id: u32,
    gen: u32,
}

/// One uniform grid of the spatial index.
struct Level {
    /// Cells are `1 << sx` pixels wide and `1 << sy` tall.
    sx: u32,
    sy: u32,
    cols: u32,
    rows: u32,
    /// Entries in the cells, live or stale (0: the query skips the grid).
    entries: usize,
    /// Cell entries: the rect, its id and the id's generation when registered.
    cells: Vec<Vec<Entry>>,
}

impl Level {
    /// The columns `c0..=c1` and rows `r0..=r1` a non-empty `r` overlaps, clipped to the grid.
    fn span(&self, r: &Rect) -> (u32, u32, u32, u32) {
        let c0 = (r.x >> self.sx).min(self.cols - 1);
        let r0 = (r.y >> self.sy).min(self.rows - 1);
        let c1 = ((r.right() - 1) >> self.sx).min(self.cols - 1);
        let r1 = ((r.bottom() - 1) >> self.sy).min(self.rows - 1);
        (c0, c1, r0, r1)
    }

    fn covered(&self, r: &Rect) -> u32 {
        let (c0, c1, r0, r1) = self.span(r);
        (c1 - c0 + 1) * (r1 - r0 + 1)
    }
}

pub(crate) struct FreeRects {
    rects: Vec<Rect>,
    ids: Vec<u32>,
    /// By id: position in `rects`, or `NONE`.
    pos: Vec<u32>,
    spare: Vec<u32>,
    /// Grids by `[x level * nl + y level]`.
    levels: Vec<Level>,
    /// Levels per axis.
    nl: usize,
    /// Cell side of level 0 is `1 << base` pixels, ×4 per level.
    base: u32,
    /// By id: the grid it is registered in.
    level_of: Vec<u8>,
    /// By id: current generation; grid entries of other generations are stale.
    gens: Vec<u32>,
    live_entries: usize,
    stale_entries: usize,
    /// Query de-duplication: `seen[id] == epoch` once reported.
    seen: Vec<u32>,
    epoch: u32,
    /// Size classes per side: `floor(log2 side)` is below this.
    classes: usize,
    /// Rects by size class, `[class(w) * classes + class(h)]`: (rect, id).
    buckets: Vec<Vec<(Rect, u32)>>,
    /// By id: (size class, index in it).
    slot: Vec<(u32, u32)>,
}

/// `floor(log2 v)` for `v >= 1`.
fn class(v: u32) -> usize {
    (31 - v.max(1).leading_zeros()) as usize
}

impl FreeRects {
    pub fn new(iw: u32, ih: u32) -> Self {
        let mut f = FreeRects {
            rects: Vec::new(),
            ids: Vec::new(),
            pos: Vec::new(),
            spare: Vec::new(),
            levels: Vec::new(),
            nl: 0,
            base: 0,
            level_of: Vec::new(),
            gens: Vec::new(),
            live_entries: 0,
            stale_entries: 0,
            seen: Vec::new(),
            epoch: 0,
            classes: 0,
            buckets: Vec::new(),
            slot: Vec::new(),
        };
        f.resize(iw, ih);
        f
    }

    /// Sizes the grids and size classes for a packing area (emptying both).
    fn resize(&mut self, iw: u32, ih: u32) {
        let side = iw.max(ih).max(1);
        let bits = 32 - (side - 1).leading_zeros(); // 2^bits >= side
        self.base = bits.saturating_sub(5).max(4);
        self.nl = 1;
        while self.base + 2 * (self.nl as u32 - 1) < bits {
            self.nl += 1;
        }
        self.levels.clear();
        for lx in 0..self.nl as u32 {
            for ly in 0..self.nl as u32 {
                let (sx, sy) = (self.base + 2 * lx, self.base + 2 * ly);
                let cols = ((iw.max(1) - 1) >> sx) + 1;
                let rows = ((ih.max(1) - 1) >> sy) + 1;
                let cells = vec![Vec::new(); (cols * rows) as usize];
                self.levels.push(Level { sx, sy, cols, rows, entries: 0, cells });
            }
        }
        self.live_entries = 0;
        self.stale_entries = 0;
        self.classes = class(side) + 1;
        self.buckets = vec![Vec::new(); self.classes * self.classes];
    }

    /// Empties the list and the index, sized for a new packing area.
    pub fn reset(&mut self, iw: u32, ih: u32) {
        self.rects.clear();
        self.ids.clear();
        self.pos.clear();
        self.spare.clear();
        self.seen.clear();
        self.gens.clear();
        self.level_of.clear();
        self.slot.clear();
        self.resize(iw, ih);
    }

    /// Re-sizes the index for a grown packing area, keeping the list as it is.
    pub fn regrid(&mut self, iw: u32, ih: u32) {
        self.resize(iw, ih);
        self.register_cells();
        for i in 0..self.rects.len() {
            let (id, r) = (self.ids[i], self.rects[i]);
            self.file(id, r);
        }
    }

    /// Registers every listed rect in empty grids.
    fn register_cells(&mut self) {
        for i in 0..self.rects.len() {
            let (id, r) = (self.ids[i], self.rects[i]);
            self.register(id, r);
        }
    }

    /// The grid for `r`: on each axis, the finest level where `r` spans at
    /// most `MAX_SPAN` cells.
    fn level_for(&self, r: &Rect) -> usize {
        let axis = |lo: u32, len: u32| {
            let hi = lo + len - 1;
            (0..self.nl).find(|&l| (hi >> (self.base + 2 * l as u32)) - (lo >> (self.base + 2 * l as u32)) < MAX_SPAN).unwrap_or(self.nl - 1)
        };
        axis(r.x, r.w) * self.nl + axis(r.y, r.h)
    }

    /// Registers `id` (current generation) in the grid cells of its level.
    fn register(&mut self, id: u32, r: Rect) {
        if r.is_empty() {
            return;
        }
        let l = self.level_for(&r);
        self.level_of[id as usize] = l as u8;
        let entry = Entry { rect: r, id, gen: self.gens[id as usize] };
        let level = &mut self.levels[l];
        let (c0, c1, r0, r1) = level.span(&r);
        for row in r0..=r1 {
            for col in c0..=c1 {
                level.cells[(row * level.cols + col) as usize].push(entry);
            }
        }
        let n = ((c1 - c0 + 1) * (r1 - r0 + 1)) as usize;
        level.entries += n;
        self.live_entries += n;
    }

    /// Files `id` in its size class.
    fn file(&mut self, id: u32, r: Rect) {
        let b = class(r.w) * self.classes + class(r.h);
        self.slot[id as usize] = (b as u32, self.buckets[b].len() as u32);
        self.buckets[b].push((r, id));
    }

    /// Like [`Self::each_fitting`], for a search that minimises the shorter
    /// leftover side (BSSF): size classes whose rects all leave more than
    /// `best_short` on both sides are skipped. `f` may lower `best_short` as
    /// it finds better rects; the classes that can leave 0 go first.
    pub fn each_fitting_short(&self, w: u32, h: u32, best_short: &Cell<u64>, mut f: impl FnMut(usize, &Rect)) {
        let (c0w, c0h) = (class(w), class(h));
        // The least leftover a rect of class `c` can leave over a side `v`.
        let least = |c: usize, c0: usize, v: u32| if c == c0 { 0 } else { (1u64 << c) - v as u64 };
        let mut visit = |cw: usize, ch: usize| self.visit_bucket(cw, ch, w, h, &mut f);
        for ch in c0h..self.classes {
            visit(c0w, ch);
        }
        for cw in c0w + 1..self.classes {
            visit(cw, c0h);
        }
        for cw in c0w + 1..self.classes {
            for ch in c0h + 1..self.classes {
                if least(cw, c0w, w).min(least(ch, c0h, h)) > best_short.get() {
                    break; // larger height classes only leave more
                }
                visit(cw, ch);
            }
        }
    }

    /// Calls `f(position, rect)` for every free rect at least `w × h`, in no
    /// particular order.
    pub fn each_fitting(&self, w: u32, h: u32, mut f: impl FnMut(usize, &Rect)) {
        for cw in class(w)..self.classes {
            for ch in class(h)..self.classes {
                self.visit_bucket(cw, ch, w, h, &mut f);
            }
        }
    }

    /// Calls `f(position, rect)` for the rects of size class `(cw, ch)`
    /// that are at least `w × h`.
    #[inline]
    fn visit_bucket(&self, cw: usize, ch: usize, w: u32, h: u32, f: &mut impl FnMut(usize, &Rect)) {
        for (r, id) in &self.buckets[cw * self.classes + ch] {
            if r.w >= w && r.h >= h {
                f(self.pos[*id as usize] as usize, r);
            }
        }
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
            self.seen.push(0);
            self.gens.push(0);
            self.level_of.push(0);
            self.slot.push((0, 0));
            (self.pos.len() - 1) as u32
        });
        self.pos[id as usize] = self.rects.len() as u32;
        self.rects.push(r);
        self.ids.push(id);
        self.register(id, r);
        self.file(id, r);
    }

    /// Removes the rect at position `i`; the last rect takes its place.
    pub fn swap_remove(&mut self, i: usize) -> Rect {
        let (id, r) = (self.ids[i], self.rects[i]);
        if !r.is_empty() {
            let covered = self.levels[self.level_of[id as usize] as usize].covered(&r) as usize;
            self.live_entries -= covered;
            self.stale_entries += covered;
        }
        self.gens[id as usize] = self.gens[id as usize].wrapping_add(1);
        self.rects.swap_remove(i);
        self.ids.swap_remove(i);
        if i < self.ids.len() {
            self.pos[self.ids[i] as usize] = i as u32;
        }
        self.pos[id as usize] = NONE;
        self.spare.push(id);
        let (b, k) = self.slot[id as usize];
        let bucket = &mut self.buckets[b as usize];
        bucket.swap_remove(k as usize);
        if let Some(&(_, moved)) = bucket.get(k as usize) {
            self.slot[moved as usize].1 = k;
        }
        if self.stale_entries > 4 * self.live_entries + 4096 {
            for level in &mut self.levels {
                level.cells.iter_mut().for_each(Vec::clear);
                level.entries = 0;
            }
            self.live_entries = 0;
            self.stale_entries = 0;
            self.register_cells();
        }
        r
    }

    /// The free rects (id, rect) registered in the cells `area` overlaps for
    /// which `keep` is true, each once, in no order. `area` is clipped to the
    /// grid; every rect that overlaps `area` is among those walked.
    pub fn near(&mut self, area: &Rect, out: &mut Vec<(u32, Rect)>, keep: impl Fn(&Rect) -> bool) {
        out.clear();
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.seen.fill(0);
            self.epoch = 1;
        }
        let area = Rect::new(area.x, area.y, area.w.max(1), area.h.max(1));
        let (epoch, seen, gens) = (self.epoch, &mut self.seen, &self.gens);
        let mut dropped = 0;
        for level in &mut self.levels {
            if level.entries == 0 {
                continue;
            }
            let mut dropped_here = 0;
            let (c0, c1, r0, r1) = level.span(&area);
            for row in r0..=r1 {
                for col in c0..=c1 {
                    let cell = &mut level.cells[(row * level.cols + col) as usize];
                    let before = cell.len();
                    cell.retain(|e| {
                        if gens[e.id as usize] != e.gen {
                            return false;
                        }
                        if keep(&e.rect) && seen[e.id as usize] != epoch {
                            seen[e.id as usize] = epoch;
                            out.push((e.id, e.rect));
                        }
                        true
                    });
                    dropped_here += before - cell.len();
                }
            }
            level.entries -= dropped_here;
            dropped += dropped_here;
        }
        self.stale_entries -= dropped;
    }
}
