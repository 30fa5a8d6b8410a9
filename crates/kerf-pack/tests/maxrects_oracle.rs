//! MaxRects keeps exactly the set of maximal free rectangles, after every
//! allocate, deallocate and grow: checked against a brute-force oracle.

use kerf_pack::{MaxRects, MaxRectsHeuristic, Packer, PackerOptions, Rect};
use proptest::prelude::*;

/// Every maximal empty rectangle of a `w × h` area with `used` rects taken,
/// found by trying every rectangle whose edges lie on the used rects' edges.
fn oracle(w: u32, h: u32, used: &[Rect]) -> Vec<Rect> {
    let mut xs: Vec<u32> = used.iter().flat_map(|r| [r.x, r.right()]).chain([0, w]).collect();
    let mut ys: Vec<u32> = used.iter().flat_map(|r| [r.y, r.bottom()]).chain([0, h]).collect();
    xs.sort_unstable();
    xs.dedup();
    ys.sort_unstable();
    ys.dedup();
    let empty = |r: &Rect| r.right() <= w && r.bottom() <= h && used.iter().all(|u| !u.intersects(r));
    let mut out = Vec::new();
    for (i, &x0) in xs.iter().enumerate() {
        for &x1 in &xs[i + 1..] {
            for (j, &y0) in ys.iter().enumerate() {
                for &y1 in &ys[j + 1..] {
                    let r = Rect::new(x0, y0, x1 - x0, y1 - y0);
                    if !empty(&r) {
                        break; // taller rects from the same top are not empty either
                    }
                    let grows = [
                        x0 > 0 && empty(&Rect::new(x0 - 1, y0, 1, r.h)),
                        x1 < w && empty(&Rect::new(x1, y0, 1, r.h)),
                        y0 > 0 && empty(&Rect::new(x0, y0 - 1, r.w, 1)),
                        y1 < h && empty(&Rect::new(x0, y1, r.w, 1)),
                    ];
                    if !grows.iter().any(|&g| g) {
                        out.push(r);
                    }
                }
            }
        }
    }
    out.sort();
    out
}

#[derive(Clone, Debug)]
enum Op {
    Alloc(u32, u32),
    Free(usize),
    Grow(u32, u32),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (1u32..20, 1u32..20).prop_map(|(w, h)| Op::Alloc(w, h)),
        4 => any::<usize>().prop_map(Op::Free),
        1 => (0u32..12, 0u32..12).prop_map(|(w, h)| Op::Grow(w, h)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn free_list_is_exactly_the_maximal_free_rects(
        heuristic in proptest::sample::select(MaxRectsHeuristic::ALL.to_vec()),
        padding in 0u32..3,
        allow_rotation in any::<bool>(),
        size in (16u32..64, 16u32..64),
        ops in proptest::collection::vec(op(), 1..60),
    ) {
        let opts = PackerOptions { padding, allow_rotation, min_free_size: 0 };
        let mut p = MaxRects::new(size.0, size.1, heuristic, opts).unwrap();
        let mut live = Vec::new();
        for (step, op) in ops.iter().enumerate() {
            match *op {
                Op::Alloc(w, h) => {
                    if let Ok(a) = p.allocate(w, h) {
                        live.push(a.id);
                    }
                }
                Op::Free(k) if !live.is_empty() => {
                    let id = live.remove(k % live.len());
                    p.deallocate(id).unwrap();
                }
                Op::Free(_) => {}
                Op::Grow(dw, dh) => {
                    let (w, h) = p.size();
                    p.grow(w + dw, h + dh).unwrap();
                }
            }
            // The packer works in the bin enlarged by the padding margin, on slots
            // enlarged by the padding.
            let (w, h) = p.size();
            let used: Vec<Rect> = p.iter().map(|a| Rect::new(a.rect.x, a.rect.y, a.rect.w + padding, a.rect.h + padding)).collect();
            let mut got = p.maximal_free_rects().to_vec();
            got.sort();
            prop_assert_eq!(got, oracle(w + padding, h + padding, &used), "step {} {:?}", step, op);
        }
    }
}

#[test]
fn oracle_finds_the_l_shape() {
    // A 10×10 bin with its top-left 4×4 used: two maximal free rects.
    let got = oracle(10, 10, &[Rect::new(0, 0, 4, 4)]);
    assert_eq!(got, vec![Rect::new(0, 4, 10, 6), Rect::new(4, 0, 6, 10)]);
}
