//! Padding, rotation, sliver pruning and growth, for every packer variant.

use kerf_pack::{
    Algorithm, AllocError, MaxRects, MaxRectsHeuristic, Packer, PackerOptions, SizeError,
};

#[test]
fn padding_keeps_a_gutter_but_not_at_the_bin_edge() {
    let opts = PackerOptions { padding: 2, ..Default::default() };
    for algo in Algorithm::all() {
        if let Algorithm::Guillotine(c) = algo {
            if c.slab {
                continue; // slabs round 9+2 up to 16: two do not fit 20 wide
            }
        }
        let mut p = algo.build(20, 9, opts).unwrap();
        let a = p.allocate(9, 9).unwrap_or_else(|e| panic!("{algo}: {e}"));
        let b = p.allocate(9, 9).unwrap_or_else(|e| {
            panic!("{algo}: second 9x9 must fit a 20x9 bin with padding 2: {e}")
        });
        let gap = a.rect.x.abs_diff(b.rect.x) - 9;
        assert!(gap >= 2, "{algo}: gutter {gap}");
        assert_eq!(
            p.allocate(1, 1),
            Err(AllocError::NoSpace { w: 1, h: 1 }),
            "{algo}: no room for a padded 1x1"
        );
    }
}

#[test]
fn rotation_only_when_allowed() {
    for algo in Algorithm::all() {
        let mut upright = algo.build(10, 30, PackerOptions::default()).unwrap();
        assert!(matches!(upright.allocate(30, 10), Err(AllocError::TooLarge { .. })), "{algo}");
        let mut turning = algo
            .build(10, 30, PackerOptions { allow_rotation: true, ..Default::default() })
            .unwrap();
        let a = turning.allocate(30, 10).unwrap_or_else(|e| panic!("{algo}: {e}"));
        assert!(a.rotated, "{algo}");
        assert_eq!((a.rect.w, a.rect.h), (10, 30), "{algo}");
    }
}

#[test]
fn slivers_are_pruned() {
    let opts = PackerOptions { min_free_size: 4, ..Default::default() };
    let mut p = MaxRects::new(32, 32, MaxRectsHeuristic::BestShortSideFit, opts).unwrap();
    p.allocate(30, 30).unwrap(); // leaves 2-px strips on the right and at the bottom
    assert!(p.free_rects().is_empty(), "{:?}", p.free_rects());
    let mut keep =
        MaxRects::new(32, 32, MaxRectsHeuristic::BestShortSideFit, PackerOptions::default())
            .unwrap();
    keep.allocate(30, 30).unwrap();
    assert_eq!(keep.free_rects().len(), 2);
}

#[test]
fn growing_a_full_bin_makes_room_and_keeps_placements() {
    for algo in Algorithm::all() {
        let mut p = algo.build(16, 16, PackerOptions::default()).unwrap();
        let a = p.allocate(16, 16).unwrap();
        assert!(p.allocate(16, 16).is_err(), "{algo}");
        p.grow(32, 16).unwrap();
        assert_eq!(p.get(a.id), Some(a), "{algo}: growth moved a placement");
        let b = p.allocate(16, 16).unwrap_or_else(|e| panic!("{algo}: new columns unused: {e}"));
        assert_eq!((b.rect.x, b.rect.y), (16, 0), "{algo}");
        p.grow(32, 32).unwrap();
        p.allocate(32, 16).unwrap_or_else(|e| panic!("{algo}: new rows unused: {e}"));
        assert_eq!(p.grow(31, 40), Err(SizeError::Shrink { w: 32, h: 32 }), "{algo}");
        assert_eq!(p.size(), (32, 32));
    }
}

#[test]
fn bad_bins_are_errors() {
    for algo in Algorithm::all() {
        assert_eq!(algo.build(0, 5, PackerOptions::default()).err(), Some(SizeError::ZeroSize));
        assert!(matches!(
            algo.build(1 << 25, 5, PackerOptions::default()),
            Err(SizeError::TooLarge { .. })
        ));
        let huge_padding = PackerOptions { padding: u32::MAX, ..Default::default() };
        assert!(algo.build(8, 8, huge_padding).is_err());
    }
}
