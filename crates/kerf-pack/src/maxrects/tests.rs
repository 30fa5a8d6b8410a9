//! The scores of MaxRects' named heuristics, checked on hand-made free rects
//! against the definitions in Jylänki §4.

use super::*;
use crate::packer::Packer;

fn bin(heuristic: MaxRectsHeuristic) -> MaxRects {
    let opts = PackerOptions { allow_rotation: false, ..PackerOptions::default() };
    MaxRects::new(100, 100, heuristic, opts).unwrap()
}

/// BAF ranks by leftover area first, the short side only breaks ties: a
/// 10×1 request prefers a 13×8 free rect (leftover 94, short side 3) to a
/// 12×9 one (leftover 98, short side 2).
#[test]
fn best_area_fit_ranks_by_leftover_area() {
    let m = bin(MaxRectsHeuristic::BestAreaFit);
    let (a, b) = (Rect::new(0, 0, 13, 8), Rect::new(0, 0, 12, 9));
    assert_eq!(m.score(&a, 10, 1, false), (94, 3));
    assert_eq!(m.score(&b, 10, 1, false), (98, 2));
}

/// CP counts the perimeter touching the bin's edges and placed slots.
#[test]
fn contact_point_counts_each_touching_side() {
    let mut m = bin(MaxRectsHeuristic::ContactPoint);
    assert_eq!(m.contact(&Rect::new(0, 40, 5, 7)), 7, "left edge");
    assert_eq!(m.contact(&Rect::new(95, 40, 5, 7)), 7, "right edge");
    assert_eq!(m.contact(&Rect::new(40, 0, 5, 7)), 5, "top edge");
    assert_eq!(m.contact(&Rect::new(40, 93, 5, 7)), 5, "bottom edge");
    assert_eq!(m.contact(&Rect::new(0, 0, 5, 7)), 12, "corner");
    assert_eq!(m.contact(&Rect::new(40, 40, 5, 7)), 0, "inside");
    let placed = m.allocate(20, 20).unwrap().rect;
    assert_eq!(placed, Rect::new(0, 0, 20, 20));
    assert_eq!(m.contact(&Rect::new(20, 30, 6, 6)), 0, "beside, below its bottom");
    assert_eq!(m.contact(&Rect::new(20, 10, 6, 6)), 6, "beside it");
    assert_eq!(m.contact(&Rect::new(20, 0, 6, 6)), 12, "beside it and on the top edge");
}

/// BAF's leftover area is the same for a request and its turned self: a
/// 20×40 request in a 100×50 free rect leaves 4200 px² either way, so the
/// short side decides (10 flat against 30 turned).
#[test]
fn best_area_fit_scores_a_turned_request_by_the_same_area() {
    let m = bin(MaxRectsHeuristic::BestAreaFit);
    let free = Rect::new(0, 0, 100, 50);
    assert_eq!(m.score(&free, 20, 40, false), (4200, 10));
    assert_eq!(m.score(&free, 40, 20, true), (4200, 30));
}

/// BLSF ranks by the long leftover first: beside a 60×90 rect, a 40×5
/// request leaves (0, 95) in the right strip and (60, 5) in the bottom one;
/// BLSF takes the bottom (long side 60 < 95), BSSF the right (short 0 < 5),
/// and so does BL.
#[test]
fn long_and_short_side_fits_rank_by_their_own_side() {
    for (h, want) in [
        (MaxRectsHeuristic::BestLongSideFit, (0, 90)),
        (MaxRectsHeuristic::BestShortSideFit, (60, 0)),
        // BL: the lowest top (5 in the right strip, 95 in the bottom one)
        // before the leftmost x.
        (MaxRectsHeuristic::BottomLeft, (60, 0)),
    ] {
        let mut m = bin(h);
        assert_eq!(m.allocate(60, 90).unwrap().rect, Rect::new(0, 0, 60, 90));
        let r = m.allocate(40, 5).unwrap().rect;
        assert_eq!((r.x, r.y), want, "{h:?}: {r:?}");
    }
}

/// A failed request proves only that requests at least as large both ways
/// fail: after a 10×60 request finds no room under a 100×50 rect, a 20×50
/// one (wider but shorter) still fits.
#[test]
fn a_failed_request_rules_out_only_larger_ones() {
    let mut m = bin(MaxRectsHeuristic::BestShortSideFit);
    m.allocate(100, 50).unwrap();
    assert!(m.allocate(10, 60).is_err());
    assert!(m.allocate(20, 70).is_err());
    let r = m.allocate(20, 50).unwrap().rect;
    assert_eq!((r.y, r.h), (50, 50));
}

/// Slot indices are dense from 0 in allocation order, and a freed index is
/// reused.
#[test]
fn slot_indices_are_dense() {
    let mut m = bin(MaxRectsHeuristic::BestShortSideFit);
    let ids: Vec<_> = (0..3).map(|_| m.allocate(10, 10).unwrap().id).collect();
    assert_eq!(ids.iter().map(|id| id.index()).collect::<Vec<_>>(), [0, 1, 2]);
    m.deallocate(ids[1]).unwrap();
    assert_eq!(m.allocate(10, 10).unwrap().id.index(), 1);
}

/// After a failure, a freed rect that holds the request only turned lifts
/// the proof: with a full 100² bin a 40×60 request fails; freeing the
/// bottom 100×50 half makes room for it turned (60×40).
#[test]
fn a_freed_rect_that_holds_the_request_turned_lifts_the_proof() {
    let opts = PackerOptions { allow_rotation: true, ..PackerOptions::default() };
    let mut m = MaxRects::new(100, 100, MaxRectsHeuristic::BestShortSideFit, opts).unwrap();
    assert_eq!(m.allocate(100, 50).unwrap().rect, Rect::new(0, 0, 100, 50));
    let bottom = m.allocate(100, 50).unwrap();
    assert_eq!(bottom.rect, Rect::new(0, 50, 100, 50));
    assert!(m.allocate(40, 60).is_err());
    m.deallocate(bottom.id).unwrap();
    let a = m.allocate(40, 60).unwrap();
    assert!(a.rotated && a.rect.y == 50, "{a:?}");
}
