//! Shelf and Skyline choices and frees, on hand-made bins whose right
//! answer follows from the heuristics' definitions.

use kerf_pack::shelf::{Shelf, ShelfHeuristic};
use kerf_pack::skyline::{Skyline, SkylineHeuristic};
use kerf_pack::{Packer, PackerOptions};

fn opts() -> PackerOptions {
    PackerOptions { allow_rotation: false, ..PackerOptions::default() }
}

/// Freeing everything gives the whole bin back: a rect as large as the bin
/// fits again (the skyline is lowered under freed slots, emptied shelves
/// are dropped), with and without the waste map, after frees in either order.
#[test]
fn freeing_everything_gives_the_whole_bin_back() {
    for waste_map in [false, true] {
        for reverse in [false, true] {
            let mut packers: Vec<(String, Box<dyn Packer>)> = Vec::new();
            for h in [SkylineHeuristic::BottomLeft, SkylineHeuristic::MinWaste] {
                let p = Skyline::new(100, 100, h, waste_map, opts()).unwrap();
                packers.push((format!("skyline {h:?}"), Box::new(p)));
            }
            for h in [ShelfHeuristic::FirstFit, ShelfHeuristic::BestHeightFit] {
                let p = Shelf::new(100, 100, h, waste_map, opts()).unwrap();
                packers.push((format!("shelf {h:?}"), Box::new(p)));
            }
            for (name, p) in &mut packers {
                let mut ids: Vec<_> = [(30, 40), (50, 20), (20, 60), (60, 30), (10, 10)]
                    .iter()
                    .map(|&(w, h)| p.allocate(w, h).unwrap().id)
                    .collect();
                if reverse {
                    ids.reverse();
                }
                for id in ids {
                    p.deallocate(id).unwrap();
                }
                let all = p.allocate(100, 100);
                assert!(all.is_ok(), "{name} waste map {waste_map} reverse {reverse}: {all:?}");
            }
        }
    }
}

/// The waste map flag is what the constructor was given.
#[test]
fn the_waste_map_flag_is_kept() {
    for on in [false, true] {
        assert_eq!(
            Shelf::new(64, 64, ShelfHeuristic::FirstFit, on, opts()).unwrap().waste_map(),
            on
        );
        assert_eq!(
            Skyline::new(64, 64, SkylineHeuristic::BottomLeft, on, opts()).unwrap().waste_map(),
            on
        );
    }
}

/// Two shelves 20 px tall: the first with 25 px of width left, the second
/// with 29. A 10×20 request goes to the shelf with the least width left
/// under Best Width Fit, the most under Worst Width Fit, the first under
/// First Fit.
#[test]
fn width_fit_shelves_rank_by_the_width_left() {
    for (h, want_y) in [
        (ShelfHeuristic::BestWidthFit, 0),
        (ShelfHeuristic::WorstWidthFit, 20),
        (ShelfHeuristic::FirstFit, 0),
    ] {
        let mut p = Shelf::new(100, 100, h, false, opts()).unwrap();
        assert_eq!(p.allocate(75, 20).unwrap().rect.y, 0);
        assert_eq!(p.allocate(71, 20).unwrap().rect.y, 20);
        let r = p.allocate(10, 20).unwrap().rect;
        assert_eq!(r.y, want_y, "{h:?}: {r:?}");
    }
}

/// A freed slot under nothing lowers the skyline: with a 70×20 rect kept
/// beside it, a freed 30×40 slot at the left makes room for a 30×100 column
/// (which only fits if the skyline over those columns is back at 0).
#[test]
fn a_freed_slot_lowers_the_skyline() {
    for waste_map in [false, true] {
        for h in [SkylineHeuristic::BottomLeft, SkylineHeuristic::MinWaste] {
            let mut p = Skyline::new(100, 100, h, waste_map, opts()).unwrap();
            let a = p.allocate(30, 40).unwrap();
            assert_eq!((a.rect.x, a.rect.y), (0, 0));
            let b = p.allocate(70, 20).unwrap();
            assert_eq!((b.rect.x, b.rect.y), (30, 0));
            p.deallocate(a.id).unwrap();
            let col = p.allocate(30, 100);
            assert!(col.is_ok(), "{h:?} waste map {waste_map}: {col:?}");
        }
    }
}

/// A 20 px gap at the floor beside a 30 px step: a 30×10 request either
/// bridges the gap at x 0 (its bottom at 30, 600 px² of gap wasted under
/// it) or sits on the step at x 20 (nothing wasted), both with their top at
/// 40. Bottom-Left takes the left one, Min Waste the one that wastes nothing.
#[test]
fn min_waste_avoids_bridging_a_gap() {
    for waste_map in [false, true] {
        for (h, want_x) in [(SkylineHeuristic::BottomLeft, 0), (SkylineHeuristic::MinWaste, 20)] {
            let mut p = Skyline::new(100, 100, h, waste_map, opts()).unwrap();
            let gap = p.allocate(20, 30).unwrap();
            assert_eq!((gap.rect.x, gap.rect.y), (0, 0));
            let step = p.allocate(80, 30).unwrap();
            assert_eq!((step.rect.x, step.rect.y), (20, 0));
            p.deallocate(gap.id).unwrap();
            let r = p.allocate(30, 10).unwrap().rect;
            assert_eq!((r.x, r.y), (want_x, 30), "{h:?} waste map {waste_map}");
        }
    }
}

/// Freeing the last slot on a shelf gives its width back to the shelf (the
/// shelf's end moves back), and an emptied top shelf is dropped, so its
/// height is free for any shelf again.
#[test]
fn freed_shelf_ends_move_back() {
    for waste_map in [false, true] {
        for h in [ShelfHeuristic::FirstFit, ShelfHeuristic::NextFit, ShelfHeuristic::BestAreaFit] {
            let mut p = Shelf::new(100, 100, h, waste_map, opts()).unwrap();
            let a = p.allocate(30, 20).unwrap().rect;
            let b = p.allocate(30, 20).unwrap();
            assert_eq!((a.x, a.y, b.rect.x, b.rect.y), (0, 0, 30, 0), "{h:?}");
            p.deallocate(b.id).unwrap();
            let wide = p.allocate(70, 20).unwrap().rect;
            assert_eq!((wide.x, wide.y), (30, 0), "{h:?} waste map {waste_map}: {wide:?}");
            let top = p.allocate(50, 40).unwrap();
            assert_eq!(top.rect.y, 20, "{h:?}: a new shelf");
            p.deallocate(top.id).unwrap();
            let tall = p.allocate(100, 80);
            assert!(tall.is_ok(), "{h:?} waste map {waste_map}: the top shelf dropped: {tall:?}");
        }
    }
}
