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
