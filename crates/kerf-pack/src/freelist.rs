//! A list of pairwise disjoint free rectangles with guillotine splits and
//! edge merges. It is the whole state of the Guillotine packer and the waste
//! map (and freed-space map) of Skyline and Shelf.

use crate::geom::Rect;
use crate::heuristic::{Candidate, Scorer};
use alloc::vec::Vec;

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
        let lw = (free.w - w) as i64;
        let lh = (free.h - h) as i64;
        let area = free.area() as i64 - w as i64 * h as i64;
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

#[derive(Default)]
pub(crate) struct FreeList {
    pub rects: Vec<Rect>,
    pub min_free: u32,
}

impl FreeList {
    pub fn new(min_free: u32) -> Self {
        FreeList { rects: Vec::new(), min_free }
    }

    /// The best free rect for `w × h` (and `h × w` when `rotate`): its index
    /// and whether the request is turned.
    pub fn find(&self, w: u32, h: u32, rotate: bool, choice: &Choice, bin: (u32, u32)) -> Option<(usize, bool)> {
        let mut best: Option<((i64, i64, bool), usize)> = None;
        for (i, f) in self.rects.iter().enumerate() {
            for rotated in [false, true] {
                if rotated && (!rotate || w == h) {
                    continue;
                }
                let (cw, ch) = if rotated { (h, w) } else { (w, h) };
                if cw > f.w || ch > f.h {
                    continue;
                }
                let (a, b) = if cw == f.w && ch == f.h {
                    (i64::MIN, i64::MIN)
                } else {
                    choice.score(f, cw, ch, rotated, bin)
                };
                let key = (a, b, rotated);
                if best.as_ref().is_none_or(|(k, _)| key < *k) {
                    best = Some((key, i));
                }
            }
        }
        best.map(|(k, i)| (i, k.2))
    }

    /// Places `w × h` at the top-left of free rect `idx` and splits the rest.
    /// Returns the slot given to the request (larger than `w × h` for `Halve`).
    /// With `merge`, each leftover is merged with its free neighbours.
    pub fn take(&mut self, idx: usize, w: u32, h: u32, split: SplitRule, merge: bool) -> Rect {
        let mut free = self.rects.remove(idx);
        if split == SplitRule::Halve {
            while free.w / 2 >= w {
                let half = free.w / 2;
                self.push(Rect::new(free.x + half, free.y, free.w - half, free.h), merge);
                free.w = half;
            }
            while free.h / 2 >= h {
                let half = free.h / 2;
                self.push(Rect::new(free.x, free.y + half, free.w, free.h - half), merge);
                free.h = half;
            }
            free
        } else {
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
                if !piece.is_empty() && piece.w >= self.min_free && piece.h >= self.min_free {
                    self.push(piece, merge);
                }
            }
            placed
        }
    }

    /// Appends a free rect (disjoint from all others); with `merge`, merges
    /// it with every neighbour that shares a whole edge, repeatedly. A merged
    /// rect takes the place of the earlier of the two in the list.
    pub fn push(&mut self, r: Rect, merge: bool) {
        self.rects.push(r);
        if !merge {
            return;
        }
        let mut k = self.rects.len() - 1;
        loop {
            let r = self.rects[k];
            let found = self.rects.iter().enumerate().find_map(|(i, o)| if i == k { None } else { merged(o, &r).map(|m| (i, m)) });
            let Some((i, m)) = found else { return };
            let (keep, gone) = if i < k { (i, k) } else { (k, i) };
            self.rects[keep] = m;
            self.rects.remove(gone);
            k = keep;
        }
    }

    /// Adds a free rect (disjoint from all others) and merges it with every
    /// neighbour that shares a whole edge, repeatedly. Returns the rect it
    /// ended up in.
    pub fn add(&mut self, mut r: Rect) -> Rect {
        'outer: loop {
            for i in 0..self.rects.len() {
                if let Some(m) = merged(&self.rects[i], &r) {
                    self.rects.swap_remove(i);
                    r = m;
                    continue 'outer;
                }
            }
            break;
        }
        self.rects.push(r);
        r
    }

    /// Removes `hole` from the free space, splitting rects it cuts.
    pub fn subtract(&mut self, hole: &Rect) {
        let mut i = 0;
        let mut pieces = Vec::new();
        while i < self.rects.len() {
            if self.rects[i].intersects(hole) {
                let r = self.rects.swap_remove(i);
                r.subtract(hole, &mut |p| pieces.push(p));
            } else {
                i += 1;
            }
        }
        for p in pieces {
            self.add(p);
        }
    }
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
