//! MaxRects keeps exactly the set of maximal free rectangles, after every
//! allocate, deallocate and grow, and refuses a request only when none of
//! them holds it: checked against a brute-force oracle.
//! With `min_free_size`, exactly those of them at least that wide and tall:
//! a sliver dropped from the list still comes back, whole, when a
//! neighbour is freed.

use kerf_pack::{MaxRects, MaxRectsHeuristic, Packer, PackerOptions, Rect};
use proptest::prelude::*;

use kerf_pack::testing::maximal_free_rects_reference as oracle;

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
        min_free_size in prop_oneof![3 => Just(0u32), 2 => 2u32..5],
        size in (16u32..64, 16u32..64),
        ops in proptest::collection::vec(op(), 1..60),
    ) {
        let opts = PackerOptions { padding, allow_rotation, min_free_size };
        let mut p = MaxRects::new(size.0, size.1, heuristic, opts).unwrap();
        let mut live = Vec::new();
        for (step, op) in ops.iter().enumerate() {
            match *op {
                Op::Alloc(w, h) => match p.allocate(w, h) {
                    Ok(a) => live.push(a.id),
                    Err(_) => {
                        // A refusal is real: no maximal free rect (slivers
                        // included) holds the padded request, upright or,
                        // when allowed, turned. (MaxRects refuses a request
                        // at least as large as one that failed without a
                        // search while no freed rect can hold it.)
                        let (bw, bh) = p.size();
                        let used: Vec<Rect> = p.iter().map(|a| Rect::new(a.rect.x, a.rect.y, a.rect.w + padding, a.rect.h + padding)).collect();
                        let (pw, ph) = (w + padding, h + padding);
                        let holds = |r: &Rect| (r.w >= pw && r.h >= ph) || (allow_rotation && r.w >= ph && r.h >= pw);
                        let room = oracle(bw + padding, bh + padding, &used).into_iter().find(holds);
                        prop_assert!(room.is_none(), "step {}: {}x{} refused, {:?} is free", step, w, h, room);
                    }
                },
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
            let mut expected = oracle(w + padding, h + padding, &used);
            expected.retain(|r| r.w >= min_free_size && r.h >= min_free_size);
            prop_assert_eq!(got, expected, "step {} {:?}", step, op);
        }
    }
}

#[test]
fn oracle_finds_the_l_shape() {
    // A 10×10 bin with its top-left 4×4 used: two maximal free rects.
    let got = oracle(10, 10, &[Rect::new(0, 0, 4, 4)]);
    assert_eq!(got, vec![Rect::new(0, 4, 10, 6), Rect::new(4, 0, 6, 10)]);
}
