//! Skyline (Jylänki §5): the packed area is kept as a skyline — for each
//! column range, the first free row — and a request sits on the skyline.
//!
//! With the waste map, the gaps a placement leaves under itself are kept as
//! free rects and tried before the skyline. Freed slots always go to that
//! free map (with or without the waste map) and merge with free neighbours;
//! a free rect directly under the skyline lowers the skyline instead, so
//! freeing everything gives back an empty bin.

use crate::error::SizeError;
use crate::freelist::{Choice, FreeList, FreeRectChoice, SplitRule};
use crate::geom::Rect;
use crate::packer::{impl_packer, Core, PackerOptions};
use alloc::vec;
use alloc::vec::Vec;

/// Where Skyline puts a request: always with its left edge at the start of a
/// skyline segment. Ties go to the left-most segment, then upright before rotated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SkylineHeuristic {
    /// BL: lowest top edge after placement, then the left-most position. (The
    /// reference implementation breaks top-edge ties by the narrowest segment;
    /// left-most packs denser with the waste map on kerf's glyph traces, see
    /// docs/packing.md.)
    BottomLeft,
    /// MW: least area wasted under the request, then the lowest top edge.
    MinWaste,
}

impl SkylineHeuristic {
    /// Both heuristics.
    pub const ALL: [SkylineHeuristic; 2] =
        [SkylineHeuristic::BottomLeft, SkylineHeuristic::MinWaste];

    /// `bl` or `mw`.
    pub fn short_name(self) -> &'static str {
        match self {
            SkylineHeuristic::BottomLeft => "bl",
            SkylineHeuristic::MinWaste => "mw",
        }
    }
}

/// A horizontal run of the skyline: columns `x..x + w` are free from row `y` down.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Segment {
    x: u32,
    y: u32,
    w: u32,
}

/// The Skyline packer with deallocation and an optional waste map.
pub struct Skyline {
    core: Core,
    heuristic: SkylineHeuristic,
    waste_map: bool,
    skyline: Vec<Segment>,
    /// Freed slots, plus the waste under the skyline when `waste_map` is on.
    free: FreeList,
}

/// The waste map picks by best area fit and splits to keep the larger piece
/// whole, as Jylänki's reference Skyline does.
const FREE_CHOICE: Choice = Choice::Named(FreeRectChoice::BestAreaFit);

impl Skyline {
    /// An empty `width × height` bin.
    pub fn new(
        width: u32, height: u32, heuristic: SkylineHeuristic, waste_map: bool, opts: PackerOptions,
    ) -> Result<Self, SizeError> {
        let core = Core::new(width, height, opts)?;
        let free = FreeList::new(opts.min_free_size, core.inner());
        let mut s = Skyline { core, heuristic, waste_map, skyline: Vec::new(), free };
        s.reset();
        Ok(s)
    }

    /// The heuristic in use.
    pub fn heuristic(&self) -> SkylineHeuristic {
        self.heuristic
    }

    /// True when the waste map is on.
    pub fn waste_map(&self) -> bool {
        self.waste_map
    }

    /// The best skyline position for a `w × h` rect: (score, segment, top row).
    fn best_on_skyline(&self, w: u32, h: u32) -> Option<((u64, u64), usize, u32)> {
        match self.heuristic {
            SkylineHeuristic::BottomLeft => self.lowest_fit(w, h),
            SkylineHeuristic::MinWaste => self.least_waste(w, h),
        }
    }

    /// BL, score (top edge, x): a segment at or above the best top edge found
    /// so far cannot win (later segments lie further right), so most are
    /// passed over without looking at the segments under the rect.
    fn lowest_fit(&self, w: u32, h: u32) -> Option<((u64, u64), usize, u32)> {
        let (iw, ih) = self.core.inner();
        let segs = &self.skyline;
        let mut best = None;
        let mut best_top = u64::MAX;
        for (i, seg) in segs.iter().enumerate() {
            let end = seg.x + w;
            if end > iw {
                break; // segments go left to right: later ones end further right
            }
            if (seg.y + h) as u64 >= best_top {
                continue;
            }
            let mut y = seg.y;
            for s in segs[i + 1..].iter().take_while(|s| s.x < end) {
                y = y.max(s.y);
                if (y + h) as u64 >= best_top {
                    break;
                }
            }
            let top = (y + h) as u64;
            if y + h <= ih && top < best_top {
                best_top = top;
                best = Some(((top, seg.x as u64), i, y));
            }
        }
        best
    }

    /// MW, score (waste, top edge), in one pass with two pointers: the
    /// segments under a rect whose left edge is at segment `i`'s start are
    /// `i..j`, the top row is their highest `y` (the front of a monotone
    /// deque), and the area wasted under the rect comes from prefix sums of
    /// widths and `y × width` — `O(S)` for `S` segments.
    fn least_waste(&self, w: u32, h: u32) -> Option<((u64, u64), usize, u32)> {
        let (iw, ih) = self.core.inner();
        let segs = &self.skyline;
        let mut prefix = Vec::with_capacity(segs.len() + 1);
        prefix.push((0u64, 0u64));
        for s in segs {
            let &(w, yw) = prefix.last().unwrap_or(&(0, 0));
            prefix.push((w + s.w as u64, yw + s.y as u64 * s.w as u64));
        }
        let mut best: Option<((u64, u64), usize, u32)> = None;
        let mut deque = alloc::collections::VecDeque::new();
        let mut j = 0;
        for (i, seg) in segs.iter().enumerate() {
            let end = seg.x + w;
            if end > iw {
                break;
            }
            while j < segs.len() && segs[j].x < end {
                while deque.back().is_some_and(|&b: &usize| segs[b].y <= segs[j].y) {
                    deque.pop_back();
                }
                deque.push_back(j);
                j += 1;
            }
            while deque.front().is_some_and(|&f| f < i) {
                deque.pop_front();
            }
            let Some(&top) = deque.front() else { continue };
            let y = segs[top].y;
            if y + h > ih {
                continue;
            }
            // Segments i..j-1 lie wholly under the rect, j-1 maybe in part.
            let last = &segs[j - 1];
            let (full_w, full_yw) = (prefix[j - 1].0 - prefix[i].0, prefix[j - 1].1 - prefix[i].1);
            let part = ((last.x + last.w).min(end) - last.x) as u64;
            let score = (y as u64 * full_w - full_yw + (y - last.y) as u64 * part, (y + h) as u64);
            if best.is_none_or(|(b, _, _)| score < b) {
                best = Some((score, i, y));
            }
        }
        best
    }

    fn place(&mut self, pw: u32, ph: u32) -> Option<(Rect, bool)> {
        let rotate = self.core.opts.allow_rotation && pw != ph;
        let bin = self.core.inner();
        if let Some((idx, rotated)) = self.free.find(pw, ph, rotate, &FREE_CHOICE, bin) {
            let (w, h) = if rotated { (ph, pw) } else { (pw, ph) };
            // Leftovers merge with their neighbours; the gaps under placed
            // rects are kept as cut (merging those too packs worse on the
            // bundled traces, and a whole-map merge pass costs O(n²)).
            return Some((self.free.take(idx, w, h, SplitRule::MaxArea, true), rotated));
        }
        let mut best: Option<((u64, u64, usize, bool), u32)> = None;
        for rotated in [false, true] {
            if rotated && !rotate {
                continue;
            }
            let (w, h) = if rotated { (ph, pw) } else { (pw, ph) };
            if let Some((score, i, y)) = self.best_on_skyline(w, h) {
                let key = (score.0, score.1, i, rotated);
                if best.as_ref().is_none_or(|(k, _)| key < *k) {
                    best = Some((key, y));
                }
            }
        }
        let ((_, _, i, rotated), y) = best?;
        let (w, h) = if rotated { (ph, pw) } else { (pw, ph) };
        let placed = Rect::new(self.skyline[i].x, y, w, h);
        if self.waste_map {
            for s in self.skyline[i..].iter().take_while(|s| s.x < placed.right()) {
                let gap = Rect::new(s.x, s.y, (s.x + s.w).min(placed.right()) - s.x, y - s.y);
                if !gap.is_empty() {
                    self.free.push(gap, false);
                }
            }
        }
        self.set_level(placed.x, placed.right(), placed.bottom());
        Some((placed, rotated))
    }

    /// Sets the skyline over columns `x0..x1` to row `y`, merging equal
    /// neighbours. Only the segments over those columns are replaced.
    fn set_level(&mut self, x0: u32, x1: u32, y: u32) {
        let sky = &mut self.skyline;
        // Segments a..b overlap x0..x1.
        let a = sky.partition_point(|s| s.x + s.w <= x0);
        let b = sky.partition_point(|s| s.x < x1);
        let mut new: [Option<Segment>; 3] = [None; 3];
        if a < b && sky[a].x < x0 {
            new[0] = Some(Segment { x: sky[a].x, y: sky[a].y, w: x0 - sky[a].x });
        }
        new[1] = Some(Segment { x: x0, y, w: x1 - x0 });
        if a < b && sky[b - 1].x + sky[b - 1].w > x1 {
            let s = sky[b - 1];
            new[2] = Some(Segment { x: x1, y: s.y, w: s.x + s.w - x1 });
        }
        sky.splice(a..b, new.into_iter().flatten());
        // Merge equal levels around the replaced run.
        let (lo, hi) = (a.saturating_sub(1), (a + 4).min(sky.len()));
        let mut k = lo;
        let mut end = hi;
        while k + 1 < end {
            if sky[k].y == sky[k + 1].y && sky[k].x + sky[k].w == sky[k + 1].x {
                sky[k].w += sky[k + 1].w;
                sky.remove(k + 1);
                end -= 1;
            } else {
                k += 1;
            }
        }
    }

    /// Moves free rects that sit directly under the skyline, over their whole
    /// width, back into it. A rect only partly under the skyline stays whole
    /// in the free map, so a freed slot can always take its own size again.
    ///
    /// Only `first` (just added to the map) can have come to lie under the
    /// skyline; after each lowering, only rects ending where the skyline now
    /// is, below the lowered columns, can follow.
    fn lower_skyline(&mut self, first: Rect) {
        let mut work = alloc::vec![first];
        while let Some(r) = work.pop() {
            if !self.directly_under(&r) || !self.free.swap_out_rect(&r) {
                continue;
            }
            self.set_level(r.x, r.right(), r.y);
            if r.y > 0 {
                let row_above = Rect::new(r.x, r.y - 1, r.w, 1);
                work.extend(self.free.all_in(&row_above, |f| f.bottom() == r.y));
            }
        }
    }

    /// True when the skyline is at `r`'s bottom edge across all of `r`'s columns.
    fn directly_under(&self, r: &Rect) -> bool {
        let mut covered = r.x;
        for s in self.skyline.iter().skip_while(|s| s.x + s.w <= r.x) {
            if s.x >= r.right() {
                break;
            }
            if s.y != r.bottom() {
                return false;
            }
            covered = s.x + s.w;
        }
        covered >= r.right()
    }

    fn release_slot(&mut self, slot: Rect) {
        let merged = self.free.add(slot);
        self.lower_skyline(merged);
    }

    fn reset(&mut self) {
        let (iw, ih) = self.core.inner();
        self.skyline = vec![Segment { x: 0, y: 0, w: iw }];
        self.free.reset(iw, ih);
    }

    fn extend(&mut self, old: (u32, u32)) {
        let (iw, ih) = self.core.inner();
        self.free.regrid(iw, ih);
        if iw > old.0 {
            self.set_level(old.0, iw, 0);
        }
    }

    fn free_space(&self) -> impl Iterator<Item = Rect> + '_ {
        let (_, ih) = self.core.inner();
        let above = self.skyline.iter().map(move |s| Rect::new(s.x, s.y, s.w, ih - s.y));
        self.free.iter().chain(above).filter(|r| !r.is_empty())
    }
}

impl_packer!(Skyline);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testrng::Rng;

    /// Random skylines of 1–8 segments over a 64 px bin.
    fn random_skyline(rng: &mut Rng, heuristic: SkylineHeuristic) -> Skyline {
        let opts = PackerOptions { allow_rotation: false, ..PackerOptions::default() };
        let mut s = Skyline::new(64, 64, heuristic, false, opts).unwrap();
        let mut cuts: Vec<u32> = (0..rng.below(8)).map(|_| 1 + rng.below(63)).collect();
        cuts.extend([0, 64]);
        cuts.sort_unstable();
        cuts.dedup();
        s.skyline = cuts
            .windows(2)
            .map(|c| Segment { x: c[0], y: rng.below(40), w: c[1] - c[0] })
            .collect();
        s
    }

    /// Column by column: the rect's bottom when its left edge is at `x`
    /// (the highest column under it) and the area left empty under it.
    fn by_columns(s: &Skyline, x: u32, w: u32) -> (u32, u64) {
        let column = |c: u32| s.skyline.iter().find(|g| g.x <= c && c < g.x + g.w).unwrap().y;
        let y = (x..x + w).map(column).max().unwrap();
        (y, (x..x + w).map(|c| (y - column(c)) as u64).sum())
    }

    /// Bottom-Left stops looking under a rect once its top cannot beat the
    /// best: a 25×10 rect at x 10 sees levels 2 and 3 first, and a level 30
    /// further right that still rules the place out (its top would be 40,
    /// worse than 30 at x 0).
    #[test]
    fn bottom_left_looks_under_the_whole_rect() {
        let opts = PackerOptions { allow_rotation: false, ..PackerOptions::default() };
        let mut s = Skyline::new(64, 64, SkylineHeuristic::BottomLeft, false, opts).unwrap();
        s.skyline = [(0, 20, 10), (10, 2, 10), (20, 3, 10), (30, 30, 34)]
            .iter()
            .map(|&(x, y, w)| Segment { x, y, w })
            .collect();
        assert_eq!(s.best_on_skyline(25, 10).map(|(_, i, y)| (i, y)), Some((0, 20)));
    }

    /// Min Waste's two-pointer scan names the segment whose placement wastes
    /// the least area under the rect (then the lowest top), as counted one
    /// column at a time; Bottom-Left's the lowest top (then the leftmost).
    #[test]
    fn skyline_scores_match_a_column_by_column_count() {
        let mut rng = Rng(0x5eed_cafe);
        for _ in 0..2000 {
            for heuristic in [SkylineHeuristic::MinWaste, SkylineHeuristic::BottomLeft] {
                let s = random_skyline(&mut rng, heuristic);
                let (w, h) = (1 + rng.below(64), 1 + rng.below(40));
                let want = s
                    .skyline
                    .iter()
                    .enumerate()
                    .filter(|(_, g)| g.x + w <= 64)
                    .map(|(i, g)| (i, by_columns(&s, g.x, w)))
                    .filter(|(_, (y, _))| y + h <= 64)
                    .min_by_key(|&(i, (y, waste))| match heuristic {
                        SkylineHeuristic::MinWaste => (waste, (y + h) as u64, i),
                        SkylineHeuristic::BottomLeft => ((y + h) as u64, s.skyline[i].x as u64, i),
                    });
                let got = s.best_on_skyline(w, h).map(|(_, i, y)| (i, y));
                assert_eq!(
                    got,
                    want.map(|(i, (y, _))| (i, y)),
                    "{heuristic:?} {w}x{h} on {:?}",
                    s.skyline.iter().map(|g| (g.x, g.y, g.w)).collect::<Vec<_>>()
                );
                if let (Some((score, _, _)), Some((_, (y, waste)))) =
                    (s.best_on_skyline(w, h), want)
                {
                    if heuristic == SkylineHeuristic::MinWaste {
                        assert_eq!(score, (waste, (y + h) as u64));
                    }
                }
            }
        }
    }
}
