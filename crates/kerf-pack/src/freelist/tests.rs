//! The indexed list against the plain `Vec` it replaces (the list
//! Jylänki's reference code keeps): same rects in the same order after
//! every operation, and the same best fit for every choice; the split rules
//! against their definitions.

use super::*;
use crate::testrng::Rng;

/// Jylänki's split rules, from their definitions ("RectangleBinPack",
/// GuillotineBinPack::SplitFreeRectAlongAxis callers): true splits the
/// leftover horizontally (the bottom piece takes the free rect's width).
#[test]
fn split_rules_follow_their_definitions() {
    // A wide free rect: its longer axis is horizontal.
    let wide = Rect::new(0, 0, 10, 4);
    assert!(SplitRule::LongerAxis.horizontal(&wide, 2, 2));
    assert!(!SplitRule::ShorterAxis.horizontal(&wide, 2, 2));
    let tall = Rect::new(0, 0, 4, 10);
    assert!(!SplitRule::LongerAxis.horizontal(&tall, 2, 2));
    assert!(SplitRule::ShorterAxis.horizontal(&tall, 2, 2));
    // 3×3 in 5×5: leftovers 2 and 2, both pieces' areas 3·2: the
    // min-area rule (w·lh > lw·h) says no, the max-area rule yes.
    let square = Rect::new(0, 0, 5, 5);
    assert!(!SplitRule::MinArea.horizontal(&square, 3, 3));
    assert!(SplitRule::MaxArea.horizontal(&square, 3, 3));
    // 2×4 in 8×6: leftovers 6 wide, 2 tall; 2·2 = 4 against 6·4 = 24.
    let free = Rect::new(0, 0, 8, 6);
    assert!(!SplitRule::MinArea.horizontal(&free, 2, 4));
    assert!(SplitRule::MaxArea.horizontal(&free, 2, 4));
    assert!(SplitRule::ShorterLeftoverAxis.horizontal(&Rect::new(0, 0, 4, 8), 2, 2));
    assert!(!SplitRule::LongerLeftoverAxis.horizontal(&Rect::new(0, 0, 4, 8), 2, 2));
    // Equal leftovers (2 and 2): only the shorter-leftover rule splits
    // horizontally; equal areas (1·1 and 1·1): only the max-area rule.
    let even = Rect::new(0, 0, 4, 4);
    assert!(SplitRule::ShorterLeftoverAxis.horizontal(&even, 2, 2));
    assert!(!SplitRule::LongerLeftoverAxis.horizontal(&even, 2, 2));
    let two = Rect::new(0, 0, 2, 2);
    assert!(SplitRule::MaxArea.horizontal(&two, 1, 1));
    assert!(!SplitRule::MinArea.horizontal(&two, 1, 1));
}

/// Each choice's score from its definition (Jylänki §3): a 10×10
/// request in a 30×20 free rect leaves 20 px across, 10 down and
/// 500 px² of area; "worst" choices negate both parts.
#[test]
fn free_rect_scores_follow_their_definitions() {
    let free = Rect::new(0, 0, 30, 20);
    for (choice, want) in [
        (FreeRectChoice::BestAreaFit, (500, 10)),
        (FreeRectChoice::BestShortSideFit, (10, 20)),
        (FreeRectChoice::BestLongSideFit, (20, 10)),
        (FreeRectChoice::WorstAreaFit, (-500, -10)),
        (FreeRectChoice::WorstShortSideFit, (-10, -20)),
        (FreeRectChoice::WorstLongSideFit, (-20, -10)),
    ] {
        assert_eq!(choice.score(&free, 10, 10), want, "{choice:?}");
    }
}

/// The plain list: linear searches, `Vec` order.
struct VecList {
    rects: Vec<Rect>,
}

impl VecList {
    fn find(&self, w: u32, h: u32, rotate: bool, choice: &Choice) -> Option<(Rect, bool)> {
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
                    choice.score(f, cw, ch, rotated, (0, 0))
                };
                let key = (a, b, rotated);
                if best.as_ref().is_none_or(|(k, _)| key < *k) {
                    best = Some((key, i));
                }
            }
        }
        best.map(|(k, i)| (self.rects[i], k.2))
    }

    fn take(&mut self, idx: usize, w: u32, h: u32, split: SplitRule, merge: bool) -> Rect {
        let free = self.rects.remove(idx);
        let mut leftovers = Vec::new();
        let slot = carve(free, w, h, split, 0, |piece| leftovers.push(piece));
        for piece in leftovers {
            self.push(piece, merge);
        }
        slot
    }

    fn push(&mut self, r: Rect, merge: bool) {
        self.rects.push(r);
        if !merge {
            return;
        }
        let mut k = self.rects.len() - 1;
        loop {
            let r = self.rects[k];
            let found = self.rects.iter().enumerate().find_map(|(i, o)| {
                if i == k {
                    None
                } else {
                    merged(o, &r).map(|m| (i, m))
                }
            });
            let Some((i, m)) = found else { return };
            let (keep, gone) = if i < k { (i, k) } else { (k, i) };
            self.rects[keep] = m;
            self.rects.remove(gone);
            k = keep;
        }
    }

    fn add(&mut self, mut r: Rect) -> Rect {
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

    fn subtract(&mut self, hole: &Rect) {
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

#[test]
fn indexed_list_keeps_the_plain_lists_order_and_choices() {
    let choices: Vec<Choice> = FreeRectChoice::ALL.iter().map(|&c| Choice::Named(c)).collect();
    for seed in 1..=60u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let side = [64, 300, 1024][seed as usize % 3];
        let merge = seed % 2 == 0;
        let mut plain = VecList { rects: alloc::vec![Rect::new(0, 0, side, side)] };
        let mut indexed = FreeList::new(0, (side, side));
        indexed.push(Rect::new(0, 0, side, side), false);
        let mut taken: Vec<Rect> = Vec::new();
        for step in 0..400 {
            let (w, h) = (1 + rng.below(side / 6), 1 + rng.below(side / 6));
            let rotate = rng.below(2) == 0;
            for choice in &choices {
                let a = plain.find(w, h, rotate, choice);
                let b = indexed
                    .find(w, h, rotate, choice, (side, side))
                    .map(|(id, t)| (indexed.rect[id as usize], t));
                assert_eq!(a, b, "seed {seed} step {step}: find {w}x{h}");
            }
            match rng.below(10) {
                0..=4 => {
                    let choice = &choices[rng.below(6) as usize];
                    let split = SplitRule::ALL[rng.below(7) as usize];
                    if let Some((id, turned)) = indexed.find(w, h, rotate, choice, (side, side)) {
                        let (cw, ch) = if turned { (h, w) } else { (w, h) };
                        let r = indexed.rect[id as usize];
                        let idx = plain.rects.iter().position(|o| *o == r).unwrap();
                        let a = plain.take(idx, cw, ch, split, merge);
                        let b = indexed.take(id, cw, ch, split, merge);
                        assert_eq!(a, b);
                        taken.push(b);
                    }
                }
                5..=7 if !taken.is_empty() => {
                    let r = taken.swap_remove(rng.below(taken.len() as u32) as usize);
                    assert_eq!(plain.add(r), indexed.add(r));
                }
                _ => {
                    let list: Vec<Rect> = indexed.iter().collect();
                    if let Some(&f) = list.get(rng.below(list.len() as u32) as usize) {
                        let (hw, hh) = (1 + rng.below(f.w), 1 + rng.below(f.h));
                        let hole = Rect::new(
                            f.x + rng.below(f.w - hw + 1),
                            f.y + rng.below(f.h - hh + 1),
                            hw,
                            hh,
                        );
                        plain.subtract(&hole);
                        indexed.subtract(&hole);
                        taken.push(hole);
                    }
                }
            }
            let order: Vec<Rect> = indexed.iter().collect();
            assert_eq!(plain.rects, order, "seed {seed} step {step}");
            assert_eq!(indexed.live, order.len(), "seed {seed} step {step}: live count");
            // Holes left by removals are dropped: the order list stays
            // within twice the live rects (plus slack), however long the churn.
            assert!(
                indexed.order.len() <= 2 * indexed.live + 32,
                "seed {seed} step {step}: {} slots for {} rects",
                indexed.order.len(),
                indexed.live
            );
            assert_ne!(indexed.order.last(), Some(&NONE), "no trailing hole");
        }
    }
}
