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

fn turning() -> PackerOptions {
    PackerOptions { allow_rotation: true, ..PackerOptions::default() }
}

/// Two shelves in a 128² bin: the first 2 px tall with 100 px of width
/// left (200 px² free on it), the second 20 px tall with 20 px left
/// (400 px²). A 10×2 request goes where each heuristic's definition says:
/// the least area left (first shelf), the most area left (second), the
/// least height left over (first), the least width left (second), the most
/// width left (first), the first shelf, or the top shelf for Next Fit.
#[test]
fn each_shelf_heuristic_picks_the_shelf_its_definition_names() {
    for (h, want_y) in [
        (ShelfHeuristic::BestAreaFit, 0),
        (ShelfHeuristic::WorstAreaFit, 2),
        (ShelfHeuristic::BestHeightFit, 0),
        (ShelfHeuristic::BestWidthFit, 2),
        (ShelfHeuristic::WorstWidthFit, 0),
        (ShelfHeuristic::FirstFit, 0),
        (ShelfHeuristic::NextFit, 2),
    ] {
        let mut p = Shelf::new(128, 128, h, false, opts()).unwrap();
        assert_eq!(p.allocate(28, 2).unwrap().rect.y, 0);
        assert_eq!(p.allocate(108, 20).unwrap().rect.y, 2, "{h:?}: too wide for the first shelf");
        let r = p.allocate(10, 2).unwrap().rect;
        assert_eq!((r.y, r.h), (want_y, 2), "{h:?}: {r:?}");
    }
}

/// On one shelf 20 px tall with 100 px left, a 10×2 request that may turn
/// lies flat (10 wide) under Best Width Fit, which leaves the least width,
/// and stands (2 wide) under Worst Width Fit, which leaves the most.
#[test]
fn width_fit_turns_a_request_to_leave_the_least_or_most_width() {
    for (h, want_rotated) in
        [(ShelfHeuristic::BestWidthFit, false), (ShelfHeuristic::WorstWidthFit, true)]
    {
        let mut p = Shelf::new(128, 128, h, false, turning()).unwrap();
        assert!(!p.allocate(28, 20).unwrap().rotated);
        let a = p.allocate(10, 2).unwrap();
        assert_eq!((a.rotated, a.rect.x, a.rect.y), (want_rotated, 28, 0), "{h:?}: {a:?}");
    }
}

/// Best Width Fit compares the width left, not its ratio to the request: a
/// 2×60 request leaves 3 px on a 60 px shelf with 5 px left, where turned
/// (60×2) on the next shelf it would leave 40 px (though 100 / 60 < 5 / 2).
#[test]
fn best_width_fit_subtracts_the_request() {
    let mut p = Shelf::new(128, 128, ShelfHeuristic::BestWidthFit, false, turning()).unwrap();
    assert_eq!(p.allocate(123, 60).unwrap().rect.y, 0);
    let second = p.allocate(28, 10).unwrap();
    assert_eq!((second.rect.y, second.rotated), (60, false));
    let a = p.allocate(2, 60).unwrap();
    assert_eq!((a.rect.x, a.rect.y, a.rotated), (123, 0, false), "{a:?}");
}

/// Next Fit closes a shelf when it opens the next. With the waste map the
/// closed shelf's unused tail is kept and a rect that fits it goes there;
/// without it the tail is lost and the rect opens a third shelf.
#[test]
fn next_fit_keeps_a_closed_shelf_tail_only_in_the_waste_map() {
    for (waste_map, want) in [(true, (30, 0)), (false, (0, 50))] {
        let mut p = Shelf::new(100, 100, ShelfHeuristic::NextFit, waste_map, opts()).unwrap();
        assert_eq!(p.allocate(30, 20).unwrap().rect.y, 0);
        assert_eq!(p.allocate(80, 30).unwrap().rect.y, 20);
        let r = p.allocate(40, 20).unwrap().rect;
        assert_eq!((r.x, r.y), want, "waste map {waste_map}: {r:?}");
    }
}

/// Freeing the last slot on a shelf that is not the top one moves that
/// shelf's end back too: a 50 px rect then fits beside the first one.
#[test]
fn a_lower_shelf_end_moves_back() {
    for waste_map in [false, true] {
        let mut p = Shelf::new(100, 100, ShelfHeuristic::FirstFit, waste_map, opts()).unwrap();
        p.allocate(40, 20).unwrap();
        let b = p.allocate(30, 20).unwrap();
        assert_eq!(p.allocate(100, 20).unwrap().rect.y, 20);
        p.deallocate(b.id).unwrap();
        let r = p.allocate(50, 20).unwrap().rect;
        assert_eq!((r.x, r.y), (40, 0), "waste map {waste_map}: {r:?}");
    }
}

/// Growing a Next Fit bin wider gives a closed shelf's new columns to the
/// waste map: a rect as tall as that shelf goes there.
#[test]
fn growing_next_fit_keeps_the_closed_shelf_columns() {
    let mut p = Shelf::new(100, 100, ShelfHeuristic::NextFit, true, opts()).unwrap();
    assert_eq!(p.allocate(100, 20).unwrap().rect.y, 0);
    assert_eq!(p.allocate(100, 50).unwrap().rect.y, 20);
    p.grow(160, 100).unwrap();
    let r = p.allocate(60, 20).unwrap().rect;
    assert_eq!((r.x, r.y), (100, 0), "{r:?}");
}

/// A slot freed under another freed slot comes back to the skyline when
/// the one above it is freed: the skyline lowers in a chain, and a column
/// as tall as the bin fits where both stood.
#[test]
fn the_skyline_lowers_through_stacked_frees() {
    for waste_map in [false, true] {
        let mut p =
            Skyline::new(100, 100, SkylineHeuristic::BottomLeft, waste_map, opts()).unwrap();
        let a = p.allocate(30, 40).unwrap();
        p.allocate(70, 60).unwrap();
        let c = p.allocate(30, 30).unwrap();
        assert_eq!((c.rect.x, c.rect.y), (0, 40), "stacked on the first");
        p.deallocate(a.id).unwrap();
        p.deallocate(c.id).unwrap();
        let col = p.allocate(30, 100);
        assert!(col.is_ok(), "waste map {waste_map}: {col:?}");
    }
}

/// A request is turned only when that scores better: on an empty bin a
/// 40×10 request stays flat, a 10×40 one is laid flat.
#[test]
fn bottom_left_turns_only_to_lower_the_top() {
    for h in [SkylineHeuristic::BottomLeft, SkylineHeuristic::MinWaste] {
        let mut p = Skyline::new(100, 100, h, false, turning()).unwrap();
        let a = p.allocate(40, 10).unwrap();
        assert_eq!((a.rotated, a.rect.h), (false, 10), "{h:?}");
        let b = p.allocate(10, 40).unwrap();
        assert_eq!((b.rotated, b.rect.h), (true, 10), "{h:?}: lying flat keeps the top at 10");
    }
}

/// When a taller rect grows the top shelf, the rows it gains above the
/// earlier rects are free space in the waste map, and lost without it.
#[test]
fn a_grown_shelf_gives_the_rows_above_earlier_rects_to_the_waste_map() {
    for (waste_map, want) in [(true, (0, 10)), (false, (60, 0))] {
        let mut p = Shelf::new(100, 100, ShelfHeuristic::FirstFit, waste_map, opts()).unwrap();
        assert_eq!(p.allocate(30, 10).unwrap().rect.y, 0);
        let tall = p.allocate(30, 20).unwrap().rect;
        assert_eq!((tall.x, tall.y), (30, 0), "the shelf grows to 20");
        let r = p.allocate(30, 10).unwrap().rect;
        assert_eq!((r.x, r.y), want, "waste map {waste_map}: {r:?}");
    }
}

/// `free_rects` reports the free space: after one 30×20 rect at the top
/// left, every other pixel of the bin lies in some free rect, and no free
/// rect is empty or reaches over the placed one.
#[test]
fn free_rects_are_the_space_around_a_placed_rect() {
    let mut packers: Vec<Box<dyn Packer>> = Vec::new();
    for waste_map in [false, true] {
        for h in [SkylineHeuristic::BottomLeft, SkylineHeuristic::MinWaste] {
            packers.push(Box::new(Skyline::new(100, 100, h, waste_map, opts()).unwrap()));
        }
        for h in [ShelfHeuristic::FirstFit, ShelfHeuristic::NextFit] {
            packers.push(Box::new(Shelf::new(100, 100, h, waste_map, opts()).unwrap()));
        }
    }
    for p in &mut packers {
        let placed = p.allocate(30, 20).unwrap().rect;
        let free = p.free_rects();
        assert!(
            free.iter().all(|f| f.w > 0 && f.h > 0 && f.intersection(&placed).is_none()),
            "{free:?}"
        );
        for (x, y) in (0..100).flat_map(|y| (0..100).map(move |x| (x, y))) {
            let inside =
                |r: &kerf_pack::Rect| r.x <= x && x < r.x + r.w && r.y <= y && y < r.y + r.h;
            assert!(inside(&placed) || free.iter().any(inside), "({x}, {y}) free: {free:?}");
        }
    }
}

/// With the waste map, the rows above a rect shorter than its shelf are
/// free: a rect that fits there goes there, not further along the shelf.
#[test]
fn the_space_above_a_short_rect_is_in_the_waste_map() {
    let mut p = Shelf::new(100, 100, ShelfHeuristic::FirstFit, true, opts()).unwrap();
    p.allocate(30, 20).unwrap();
    assert_eq!(p.allocate(30, 10).unwrap().rect, kerf_pack::Rect::new(30, 0, 30, 10));
    let r = p.allocate(30, 10).unwrap().rect;
    assert_eq!((r.x, r.y), (30, 10), "{r:?}");
}

/// Growing a bin wider: without the waste map a closed shelf's new columns
/// stay out of reach (the open shelf takes the next rect); the open top
/// shelf keeps its new columns as its own tail, so it can still grow taller
/// there.
#[test]
fn growing_wider_extends_only_what_may_use_the_columns() {
    let mut p = Shelf::new(100, 100, ShelfHeuristic::NextFit, false, opts()).unwrap();
    p.allocate(100, 20).unwrap();
    assert_eq!(p.allocate(50, 30).unwrap().rect.y, 20);
    p.grow(160, 100).unwrap();
    let r = p.allocate(60, 20).unwrap().rect;
    assert_eq!((r.x, r.y), (50, 20), "no waste map: {r:?}");

    let mut p = Shelf::new(100, 100, ShelfHeuristic::NextFit, true, opts()).unwrap();
    p.allocate(100, 20).unwrap();
    p.grow(160, 100).unwrap();
    let r = p.allocate(60, 30).unwrap().rect;
    assert_eq!((r.x, r.y), (100, 0), "the top shelf grows taller at its new columns: {r:?}");
}
