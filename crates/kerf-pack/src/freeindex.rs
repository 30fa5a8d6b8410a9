//! MaxRects' free list: the ordered list of free rects (its order is the
//! tie-break) plus a uniform grid over them, so that the rects a placement
//! cuts, the rects that may contain a new leftover, and the rects touching a
//! freed slot are found without scanning the whole list.
//!
//! Each free rect has a stable id, registered in every grid cell it
//! overlaps; the list holds ids by position and `pos` maps ids back, so a
//! `swap_remove` moves one id without touching the grid. Removal is lazy: an
//! id's generation is bumped, and cell entries of older generations are
//! dropped when a query walks their cell (or all at once, when stale entries
//! outnumber live ones).
//!
//! The same ids are also filed by size class (`floor(log2 w)`,
//! `floor(log2 h)`), so the search for the best free rect for a request only
//! visits the classes that can hold it.

use crate::geom::Rect;
use alloc::vec;
use alloc::vec::Vec;
use core::cell::Cell;

const NONE: u32 = u32::MAX;

pub(crate) struct FreeRects {
    rects: Vec<Rect>,
    ids: Vec<u32>,
    pos: Vec<u32>,
    spare: Vec<u32>,
    /// Cell side is `1 << shift` pixels.
    shift: u32,
    cols: u32,
    rows: u32,
    /// Cell entries: (id, generation of the id when registered).
    cells: Vec<Vec<(u32, u32)>>,
    /// Current generation of each id; entries of other generations are stale.
    gens: Vec<u32>,
    live_entries: usize,
    stale_entries: usize,
    /// Query de-duplication: `seen[id] == epoch` once reported.
    seen: Vec<u32>,
    epoch: u32,
    /// Size classes per side: `floor(log2 side)` is below this.
    classes: usize,
    /// Entries by size class, `[class(w) * classes + class(h)]`, lazily removed like cells.
    buckets: Vec<Vec<(u32, u32)>>,
    bucket_stale: usize,
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
            shift: 0,
            cols: 0,
            rows: 0,
            cells: Vec::new(),
            gens: Vec::new(),
            live_entries: 0,
            stale_entries: 0,
            seen: Vec::new(),
            epoch: 0,
            classes: 0,
            buckets: Vec::new(),
            bucket_stale: 0,
        };
        f.resize(iw, ih);
        f
    }

    /// Sizes the grid for a packing area: about 16 cells a side, at least 16 px each.
    fn resize(&mut self, iw: u32, ih: u32) {
        let side = iw.max(ih).max(1);
        self.shift = (32 - (side - 1).leading_zeros()).saturating_sub(4).max(4);
        self.cols = ((iw - 1) >> self.shift) + 1;
        self.rows = ((ih - 1) >> self.shift) + 1;
        self.cells = vec![Vec::new(); (self.cols * self.rows) as usize];
        self.live_entries = 0;
        self.stale_entries = 0;
        self.classes = class(side) + 1;
        self.buckets = vec![Vec::new(); self.classes * self.classes];
        self.bucket_stale = 0;
    }

    /// Empties the list and the grid, sized for a new packing area.
    pub fn reset(&mut self, iw: u32, ih: u32) {
        self.rects.clear();
        self.ids.clear();
        self.pos.clear();
        self.spare.clear();
        self.seen.clear();
        self.gens.clear();
        self.resize(iw, ih);
    }

    /// Re-sizes the grid for a grown packing area, keeping the list as it is.
    pub fn regrid(&mut self, iw: u32, ih: u32) {
        self.resize(iw, ih);
        self.register_cells();
        self.register_buckets();
    }

    /// Registers every listed rect in an empty grid.
    fn register_cells(&mut self) {
        for i in 0..self.rects.len() {
            let (id, r) = (self.ids[i], self.rects[i]);
            let entry = (id, self.gens[id as usize]);
            self.live_entries += self.each_cell(&r, |cells, c| cells[c].push(entry));
        }
    }

    /// Files every listed rect in empty size classes.
    fn register_buckets(&mut self) {
        for i in 0..self.rects.len() {
            let (id, r) = (self.ids[i], self.rects[i]);
            let b = self.bucket(&r);
            self.buckets[b].push((id, self.gens[id as usize]));
        }
    }

    fn bucket(&self, r: &Rect) -> usize {
        class(r.w) * self.classes + class(r.h)
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

    /// Calls `f(position, rect)` for the live rects of size class `(cw, ch)`
    /// that are at least `w × h`.
    fn visit_bucket(&self, cw: usize, ch: usize, w: u32, h: u32, f: &mut impl FnMut(usize, &Rect)) {
        for &(id, gen) in &self.buckets[cw * self.classes + ch] {
            if self.gens[id as usize] == gen {
                let p = self.pos[id as usize] as usize;
                let r = &self.rects[p];
                if r.w >= w && r.h >= h {
                    f(p, r);
                }
            }
        }
    }

    pub fn as_slice(&self) -> &[Rect] {
        &self.rects
    }

    pub fn len(&self) -> usize {
        self.rects.len()
    }

    /// The grid columns `c0..=c1` and rows `r0..=r1` a non-empty `r` overlaps,
    /// clipped to the grid.
    fn cell_span(&self, r: &Rect) -> (u32, u32, u32, u32) {
        let (c0, c1) = (r.x >> self.shift, ((r.right() - 1) >> self.shift).min(self.cols - 1));
        let (r0, r1) = (r.y >> self.shift, ((r.bottom() - 1) >> self.shift).min(self.rows - 1));
        (c0, c1, r0, r1)
    }

    /// How many cells `r` overlaps.
    fn cells_covered(&self, r: &Rect) -> usize {
        if r.is_empty() {
            return 0;
        }
        let (c0, c1, r0, r1) = self.cell_span(r);
        ((c1 - c0 + 1) * (r1 - r0 + 1)) as usize
    }

    /// Calls `f` for every cell `r` overlaps; returns how many.
    fn each_cell(&mut self, r: &Rect, mut f: impl FnMut(&mut Vec<Vec<(u32, u32)>>, usize)) -> usize {
        if r.is_empty() {
            return 0;
        }
        let (c0, c1, r0, r1) = self.cell_span(r);
        for row in r0..=r1 {
            for col in c0..=c1 {
                f(&mut self.cells, (row * self.cols + col) as usize);
            }
        }
        ((c1 - c0 + 1) * (r1 - r0 + 1)) as usize
    }

    /// Appends a free rect at the end of the list.
    pub fn push(&mut self, r: Rect) {
        let id = self.spare.pop().unwrap_or_else(|| {
            self.pos.push(NONE);
            self.seen.push(0);
            self.gens.push(0);
            (self.pos.len() - 1) as u32
        });
        self.pos[id as usize] = self.rects.len() as u32;
        self.rects.push(r);
        self.ids.push(id);
        let entry = (id, self.gens[id as usize]);
        self.live_entries += self.each_cell(&r, |cells, c| cells[c].push(entry));
        let b = self.bucket(&r);
        self.buckets[b].push(entry);
    }

    /// Removes the rect at position `i`; the last rect takes its place.
    pub fn swap_remove(&mut self, i: usize) -> Rect {
        let (id, r) = (self.ids[i], self.rects[i]);
        let covered = self.cells_covered(&r);
        self.live_entries -= covered;
        self.stale_entries += covered;
        self.gens[id as usize] = self.gens[id as usize].wrapping_add(1);
        self.rects.swap_remove(i);
        self.ids.swap_remove(i);
        if i < self.ids.len() {
            self.pos[self.ids[i] as usize] = i as u32;
        }
        self.pos[id as usize] = NONE;
        self.spare.push(id);
        if self.stale_entries > 4 * self.live_entries + 4096 {
            self.cells.iter_mut().for_each(Vec::clear);
            self.live_entries = 0;
            self.stale_entries = 0;
            self.register_cells();
        }
        self.bucket_stale += 1;
        if self.bucket_stale > self.rects.len() / 4 + 64 {
            self.buckets.iter_mut().for_each(Vec::clear);
            self.bucket_stale = 0;
            self.register_buckets();
        }
        r
    }

    /// Positions of the rects registered in the cells `area` overlaps (each
    /// once, in no order), clipped to the grid. A superset of the rects that
    /// overlap `area`.
    pub fn near(&mut self, area: &Rect, out: &mut Vec<usize>) {
        out.clear();
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.seen.fill(0);
            self.epoch = 1;
        }
        let clipped = Rect::new(
            area.x.min((self.cols << self.shift) - 1),
            area.y.min((self.rows << self.shift) - 1),
            area.w.max(1),
            area.h.max(1),
        );
        let (c0, c1, r0, r1) = self.cell_span(&clipped);
        let (epoch, seen, pos, gens) = (self.epoch, &mut self.seen, &self.pos, &self.gens);
        let mut dropped = 0;
        for row in r0..=r1 {
            for col in c0..=c1 {
                let cell = &mut self.cells[(row * self.cols + col) as usize];
                let before = cell.len();
                cell.retain(|&(id, gen)| {
                    if gens[id as usize] != gen {
                        return false;
                    }
                    if seen[id as usize] != epoch {
                        seen[id as usize] = epoch;
                        out.push(pos[id as usize] as usize);
                    }
                    true
                });
                dropped += before - cell.len();
            }
        }
        self.stale_entries -= dropped;
    }
}
