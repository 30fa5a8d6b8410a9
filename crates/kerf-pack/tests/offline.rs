//! Offline packing (sorted, global, meta) and custom heuristics.

use kerf_pack::offline::{pack_global, pack_list, pack_meta, SortKey, SortOrder, Strategy};
use kerf_pack::{
    Algorithm, Candidate, Guillotine, GuillotineConfig, MaxRects, MaxRectsHeuristic, Packer,
    PackerOptions, Rect,
};

/// A small deterministic list of glyph-like sizes.
fn sizes(n: usize) -> Vec<(u32, u32)> {
    let mut s = 0x2545_f491u32;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            (3 + s % 17, 5 + (s >> 8) % 19)
        })
        .collect()
}

fn assert_valid(
    placements: &[Option<kerf_pack::Allocation>], input: &[(u32, u32)], bin: (u32, u32),
) {
    let rects: Vec<Rect> = placements.iter().flatten().map(|a| a.rect).collect();
    for (p, &(w, h)) in placements.iter().zip(input) {
        if let Some(a) = p {
            assert_eq!((a.rect.w, a.rect.h), (w, h));
            assert!(a.rect.right() <= bin.0 && a.rect.bottom() <= bin.1);
        }
    }
    for (i, a) in rects.iter().enumerate() {
        for b in &rects[i + 1..] {
            assert!(!a.intersects(b), "{a:?} overlaps {b:?}");
        }
    }
}

#[test]
fn every_sort_order_sorts() {
    let input = sizes(60);
    for order in SortOrder::all() {
        let perm = order.permutation(&input);
        let key = |(w, h): (u32, u32)| -> f64 {
            let (w, h) = (w as f64, h as f64);
            match order.key {
                SortKey::Area => w * h,
                SortKey::ShortSide => w.min(h),
                SortKey::LongSide => w.max(h),
                SortKey::Perimeter => 2.0 * (w + h),
                SortKey::SideDifference => (w - h).abs(),
                SortKey::Ratio => w / h,
            }
        };
        for pair in perm.windows(2) {
            let (a, b) = (key(input[pair[0]]), key(input[pair[1]]));
            assert!(if order.descending { a >= b } else { a <= b }, "{order:?}");
        }
    }
}

#[test]
fn sorted_descending_area_packs_more_area_than_input_order() {
    let input = sizes(400);
    let online =
        pack_list(Algorithm::default(), None, 128, 128, PackerOptions::default(), &input).unwrap();
    let order = SortOrder { key: SortKey::Area, descending: true };
    let sorted =
        pack_list(Algorithm::default(), Some(order), 128, 128, PackerOptions::default(), &input)
            .unwrap();
    assert_valid(&sorted.placements, &input, (128, 128));
    assert!(sorted.packer.used_area() >= online.packer.used_area());
    assert_eq!(sorted.strategy, Strategy::Sorted(Algorithm::default(), order));
}

#[test]
fn global_best_fit_places_valid_rects_and_beats_online_bssf() {
    let input = sizes(300);
    let global = pack_global(
        MaxRectsHeuristic::BestShortSideFit,
        128,
        128,
        PackerOptions::default(),
        &input,
    )
    .unwrap();
    assert_valid(&global.placements, &input, (128, 128));
    let online =
        pack_list(Algorithm::default(), None, 128, 128, PackerOptions::default(), &input).unwrap();
    assert!(global.packer.occupancy() > online.packer.occupancy());
    assert!(global.placed() > 0);
}

#[test]
fn meta_is_at_least_as_good_as_every_variant_it_tries() {
    let input = sizes(70);
    let opts = PackerOptions::default();
    let meta = pack_meta(64, 64, opts, &input).unwrap();
    assert_valid(&meta.placements, &input, (64, 64));
    for algorithm in [Algorithm::default(), Algorithm::FALLBACK, "shelf-ff".parse().unwrap()] {
        let one = pack_list(algorithm, None, 64, 64, opts, &input).unwrap();
        assert!(
            (meta.placed(), meta.packer.used_area()) >= (one.placed(), one.packer.used_area()),
            "{algorithm} beat the meta-packer"
        );
    }
    let global = pack_global(MaxRectsHeuristic::BestAreaFit, 64, 64, opts, &input).unwrap();
    assert!(meta.placed() >= global.placed());
}

#[test]
fn meta_prefers_the_smaller_bounding_box_when_everything_fits() {
    let input = vec![(8, 8); 4];
    let meta = pack_meta(64, 64, PackerOptions::default(), &input).unwrap();
    assert_eq!(meta.placed(), 4);
    let (w, h) = meta.extent();
    assert_eq!(w as u64 * h as u64, 256, "four 8x8 rects fit a 16x16 box");
}

#[test]
fn custom_maxrects_scorer_is_used() {
    // "Right-most first": the scorer prefers free rects far to the right.
    let scorer = Box::new(|c: &Candidate| -((c.free.x + c.free.w) as i64) - c.free.x as i64);
    let mut p = MaxRects::with_scorer(64, 64, scorer, PackerOptions::default()).unwrap();
    let a = p.allocate(10, 10).unwrap();
    let b = p.allocate(10, 10).unwrap();
    assert_eq!(a.rect.x, 0, "only one free rect at first");
    assert_eq!(b.rect.x, 10, "the right-hand free rect wins");
    assert_eq!(p.heuristic(), None);
}

#[test]
fn custom_guillotine_scorer_is_used() {
    // Prefer the right-most free rect.
    let scorer = Box::new(|c: &Candidate| -(c.free.x as i64));
    let mut p = Guillotine::with_scorer(
        64,
        64,
        GuillotineConfig::default(),
        scorer,
        PackerOptions::default(),
    )
    .unwrap();
    p.allocate(10, 10).unwrap();
    let b = p.allocate(10, 10).unwrap();
    assert_eq!((b.rect.x, b.rect.y), (10, 0), "goes beside the first rect");
    let mut plain =
        Guillotine::new(64, 64, GuillotineConfig::default(), PackerOptions::default()).unwrap();
    plain.allocate(10, 10).unwrap();
    assert_ne!(plain.allocate(10, 10).unwrap().rect, b.rect, "the default heuristic differs");
}

/// The split rules cut the L-shaped leftover as Jylänki defines them: after
/// a 60×10 rect in the corner of a 100×100 bin, a horizontal cut leaves a
/// 100×90 piece below (and 40×10 beside), a vertical cut a 40×100 piece
/// beside (and 60×90 below). MINAS keeps the smaller piece smallest (40×10:
/// horizontal); which cut was made shows in whether a 100×90 or a 40×100
/// rect still fits.
#[test]
fn split_rules_cut_where_the_paper_says() {
    use kerf_pack::{FreeRectChoice, SplitRule};
    let opts = PackerOptions { allow_rotation: false, ..PackerOptions::default() };
    // (rule, cut horizontally) for the 60×10 corner placement.
    for (split, horizontal) in [
        (SplitRule::MinArea, true), // pieces 40×10 / 100×90 vs 40×100 / 60×90
        (SplitRule::ShorterLeftoverAxis, true), // lw 40 <= lh 90
        (SplitRule::LongerLeftoverAxis, false),
        (SplitRule::ShorterAxis, true), // 100 <= 100
        (SplitRule::LongerAxis, false),
    ] {
        let cfg = GuillotineConfig {
            choice: FreeRectChoice::BestAreaFit,
            split,
            merge: false,
            slab: false,
        };
        let after = || {
            let mut p = Guillotine::new(100, 100, cfg, opts).unwrap();
            let a = p.allocate(60, 10).unwrap();
            assert_eq!((a.rect.x, a.rect.y), (0, 0));
            p
        };
        let (wide, tall) = (after().allocate(100, 90).is_ok(), after().allocate(40, 100).is_ok());
        assert_eq!((wide, tall), (horizontal, !horizontal), "{split:?}");
    }
}
