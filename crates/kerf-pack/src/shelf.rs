//! Shelf packing (Jylänki §2): requests sit left to right on horizontal
//! shelves; a shelf is as tall as its tallest rect (only the top shelf can
//! still grow), and a new shelf opens above the last when nothing fits.
//!
//! With the waste map, the space above a rect lower than its shelf (and the
//! rest of a shelf that Next Fit closes) is kept as free rects and tried
//! before the shelves. Freed slots always go to that free map and merge with
//! free neighbours; a free column at the end of a shelf is given back to the
//! shelf, and an emptied top shelf is removed, so freeing everything gives
//! back an empty bin.

use crate::error::SizeError;
use crate::freelist::{Choice, FreeList, FreeRectChoice, SplitRule};
use crate::geom::Rect;
use crate::packer::{impl_packer, Core, PackerOptions};
use alloc::vec::Vec;

/// Which shelf a request goes on (Jylänki §2.1). Ties go to the lowest
/// shelf, then upright before rotated. A new shelf is opened only when no
/// open shelf fits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShelfHeuristic {
    /// NF: only the top shelf is open; opening a new one closes it.
    NextFit,
    /// FF: the first shelf it fits.
    FirstFit,
    /// BWF: the shelf left with the least width.
    BestWidthFit,
    /// BHF: the shelf whose height is closest to the request's.
    BestHeightFit,
    /// BAF: the shelf with the least free area (remaining width × height).
    BestAreaFit,
    /// WWF: the shelf left with the most width.
    WorstWidthFit,
    /// WAF: the shelf with the most free area.
    WorstAreaFit,
}

impl ShelfHeuristic {
    /// Every heuristic, in the paper's order.
    pub const ALL: [ShelfHeuristic; 7] = [
        ShelfHeuristic::NextFit,
        ShelfHeuristic::FirstFit,
        ShelfHeuristic::BestWidthFit,
        ShelfHeuristic::BestHeightFit,
        ShelfHeuristic::BestAreaFit,
        ShelfHeuristic::WorstWidthFit,
        ShelfHeuristic::WorstAreaFit,
    ];

    /// The paper's abbreviation in lower case (`nf`, `ff`, `bwf`, ...).
    pub fn short_name(self) -> &'static str {
        match self {
            ShelfHeuristic::NextFit => "nf",
            ShelfHeuristic::FirstFit => "ff",
            ShelfHeuristic::BestWidthFit => "bwf",
            ShelfHeuristic::BestHeightFit => "bhf",
            ShelfHeuristic::BestAreaFit => "baf",
            ShelfHeuristic::WorstWidthFit => "wwf",
            ShelfHeuristic::WorstAreaFit => "waf",
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Row {
    y: u32,
    h: u32,
    /// Columns `cursor..` of the row are the shelf's unused tail.
    cursor: u32,
}

/// The Shelf packer with deallocation and an optional waste map.
pub struct Shelf {
    core: Core,
    heuristic: ShelfHeuristic,
    waste_map: bool,
    rows: Vec<Row>,
    /// Freed slots, plus waste when `waste_map` is on.
    free: FreeList,
}

const FREE_CHOICE: Choice = Choice::Named(FreeRectChoice::BestShortSideFit);

impl Shelf {
    /// An empty `width × height` bin.
    pub fn new(
        width: u32, height: u32, heuristic: ShelfHeuristic, waste_map: bool, opts: PackerOptions,
    ) -> Result<Self, SizeError> {
        let core = Core::new(width, height, opts)?;
        let free = FreeList::new(opts.min_free_size, core.inner());
        Ok(Shelf { core, heuristic, waste_map, rows: Vec::new(), free })
    }

    /// The heuristic in use.
    pub fn heuristic(&self) -> ShelfHeuristic {
        self.heuristic
    }

    /// True when the waste map is on.
    pub fn waste_map(&self) -> bool {
        self.waste_map
    }

    fn top(&self) -> u32 {
        self.rows.last().map_or(0, |r| r.y + r.h)
    }

    /// Whether shelf `i` still takes requests.
    fn is_open(&self, i: usize) -> bool {
        self.heuristic != ShelfHeuristic::NextFit || i + 1 == self.rows.len()
    }

    fn score(&self, row: &Row, w: u32, h: u32) -> i64 {
        let (iw, _) = self.core.inner();
        let rest = (iw - row.cursor) as i64;
        match self.heuristic {
            ShelfHeuristic::NextFit | ShelfHeuristic::FirstFit => 0,
            ShelfHeuristic::BestWidthFit => rest - w as i64,
            ShelfHeuristic::BestHeightFit => row.h.saturating_sub(h) as i64,
            ShelfHeuristic::BestAreaFit => rest * row.h as i64,
            ShelfHeuristic::WorstWidthFit => -(rest - w as i64),
            ShelfHeuristic::WorstAreaFit => -(rest * row.h as i64),
        }
    }

    fn place(&mut self, pw: u32, ph: u32) -> Option<(Rect, bool)> {
        let rotate = self.core.opts.allow_rotation && pw != ph;
        let (iw, ih) = self.core.inner();
        if let Some((idx, rotated)) = self.free.find(pw, ph, rotate, &FREE_CHOICE, (iw, ih)) {
            let (w, h) = if rotated { (ph, pw) } else { (pw, ph) };
            return Some((self.free.take(idx, w, h, SplitRule::MaxArea, true), rotated));
        }
        let orientations = [(pw, ph, false), (ph, pw, true)];
        let orientations = &orientations[..if rotate { 2 } else { 1 }];
        let last = self.rows.len().wrapping_sub(1);
        let mut best: Option<((i64, usize, bool), u32, u32)> = None;
        for (i, row) in self.rows.iter().enumerate() {
            if !self.is_open(i) {
                continue;
            }
            for &(w, h, rotated) in orientations {
                let fits_height = h <= row.h || (i == last && row.y + h <= ih);
                if row.cursor + w <= iw && fits_height {
                    let key = (self.score(row, w, h), i, rotated);
                    if best.as_ref().is_none_or(|(k, _, _)| key < *k) {
                        best = Some((key, w, h));
                    }
                }
            }
        }
        let (i, w, h, rotated) = match best {
            Some(((_, i, rotated), w, h)) => (i, w, h, rotated),
            None => {
                // Open a new shelf, lying the request flat when it may turn.
                let top = self.top();
                let &(w, h, rotated) = orientations
                    .iter()
                    .filter(|(w, h, _)| *w <= iw && top + h <= ih)
                    .min_by_key(|(_, h, _)| *h)?;
                self.close_top_shelf();
                self.rows.push(Row { y: top, h, cursor: 0 });
                (self.rows.len() - 1, w, h, rotated)
            }
        };
        Some((self.put_on_shelf(i, w, h), rotated))
    }

    /// Next Fit opens a new shelf only by closing the top one; the waste map
    /// keeps the closed shelf's unused tail.
    fn close_top_shelf(&mut self) {
        if self.heuristic != ShelfHeuristic::NextFit || !self.waste_map {
            return;
        }
        let (iw, _) = self.core.inner();
        if let Some(row) = self.rows.last_mut() {
            let tail = Rect::new(row.cursor, row.y, iw - row.cursor, row.h);
            row.cursor = iw;
            if !tail.is_empty() {
                self.free.add(tail);
            }
        }
    }

    fn put_on_shelf(&mut self, i: usize, w: u32, h: u32) -> Rect {
        let row = self.rows[i];
        if h > row.h {
            // Only the top shelf grows; the rows it gains above earlier rects are waste.
            let gained = Rect::new(0, row.y + row.h, row.cursor, h - row.h);
            if self.waste_map && !gained.is_empty() {
                self.free.add(gained);
            }
            self.rows[i].h = h;
        }
        let row = &mut self.rows[i];
        let placed = Rect::new(row.cursor, row.y, w, h);
        row.cursor += w;
        let above = Rect::new(placed.x, placed.bottom(), w, row.y + row.h - placed.bottom());
        if self.waste_map {
            if !above.is_empty() {
                self.free.add(above);
            }
            placed
        } else {
            // Without a waste map the space above the rect belongs to its slot.
            Rect::new(placed.x, row.y, w, row.h)
        }
    }

    /// Gives free columns at the end of open shelves back to the shelves, and
    /// removes emptied top shelves. Only the shelves in `check` (those a new
    /// free rect ends at), a shelf that just retracted, and a shelf that just
    /// became the top one can change, so only they are looked at.
    fn retract(&mut self, mut check: Vec<usize>) {
        while let Some(i) = check.pop() {
            if i < self.rows.len() && self.is_open(i) {
                let row = self.rows[i];
                let last_column = Rect::new(row.cursor.saturating_sub(1), row.y, 1, row.h);
                let column = self.free.first_in(&last_column, |r| {
                    // (The free list holds no empty rects: `r` starts left of the end.)
                    r.right() == row.cursor && r.y <= row.y && r.bottom() >= row.y + row.h
                });
                if let Some(r) = column {
                    self.free.subtract(&Rect::new(r.x, row.y, row.cursor - r.x, row.h));
                    self.rows[i].cursor = r.x;
                    check.push(i);
                }
            }
            while self.rows.last().is_some_and(|r| r.cursor == 0) {
                self.rows.pop();
                if let Some(top) = self.rows.len().checked_sub(1) {
                    check.push(top);
                }
            }
        }
    }

    fn release_slot(&mut self, slot: Rect) {
        let merged = self.free.add(slot);
        let check = (0..self.rows.len())
            .filter(|&i| {
                self.rows[i].cursor == merged.right()
                    && self.rows[i].y < merged.bottom()
                    && merged.y < self.rows[i].y + self.rows[i].h
            })
            .collect();
        self.retract(check);
    }

    fn reset(&mut self) {
        let (iw, ih) = self.core.inner();
        self.rows.clear();
        self.free.reset(iw, ih);
    }

    fn extend(&mut self, old: (u32, u32)) {
        let (iw, ih) = self.core.inner();
        self.free.regrid(iw, ih);
        if iw == old.0 || !self.waste_map {
            return;
        }
        // Closed shelves never reach their new columns; the waste map keeps
        // them, and owns the whole tail of a closed shelf as before.
        for i in 0..self.rows.len() {
            if !self.is_open(i) && self.rows[i].cursor == old.0 {
                let row = self.rows[i];
                self.free.add(Rect::new(old.0, row.y, iw - old.0, row.h));
                self.rows[i].cursor = iw;
            }
        }
    }

    fn free_space(&self) -> impl Iterator<Item = Rect> + '_ {
        let (iw, ih) = self.core.inner();
        let tails = (0..self.rows.len()).filter(|&i| self.is_open(i)).map(move |i| {
            Rect::new(self.rows[i].cursor, self.rows[i].y, iw - self.rows[i].cursor, self.rows[i].h)
        });
        let top = self.top();
        self.free
            .iter()
            .chain(tails)
            .chain(core::iter::once(Rect::new(0, top, iw, ih - top)))
            .filter(|r| !r.is_empty())
    }
}

impl_packer!(Shelf);
