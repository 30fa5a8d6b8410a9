//! Property tests: random allocate / free / clear / grow sequences through
//! every packer variant, checking the invariants after every step.

use kerf_pack::{
    Algorithm, AllocError, AllocId, DeallocError, MaxRects, MaxRectsHeuristic, Packer,
    PackerOptions, Rect,
};
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Op {
    Alloc(u32, u32),
    /// Free the k-th live allocation (mod count), then ask for its size again.
    FreeRealloc(usize),
    Free(usize),
    DoubleFree(usize),
    Zero(bool),
    Huge,
    Grow(u32, u32),
    Clear,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        12 => (1u32..24, 1u32..24).prop_map(|(w, h)| Op::Alloc(w, h)),
        3 => (1u32..12, 1u32..40).prop_map(|(w, h)| Op::Alloc(w, h)),
        4 => any::<usize>().prop_map(Op::Free),
        3 => any::<usize>().prop_map(Op::FreeRealloc),
        1 => any::<usize>().prop_map(Op::DoubleFree),
        1 => any::<bool>().prop_map(Op::Zero),
        1 => Just(Op::Huge),
        1 => (0u32..16, 0u32..16).prop_map(|(w, h)| Op::Grow(w, h)),
        1 => Just(Op::Clear),
    ]
}

fn options() -> impl Strategy<Value = PackerOptions> {
    (0u32..3, any::<bool>(), prop_oneof![4 => Just(0u32), 1 => 1u32..4]).prop_map(
        |(padding, allow_rotation, min)| PackerOptions {
            padding,
            allow_rotation,
            min_free_size: min,
        },
    )
}

/// Everything observable about a packer, to check that errors change nothing.
fn snapshot(p: &dyn Packer) -> (Vec<kerf_pack::Allocation>, Vec<Rect>, u64, (u32, u32)) {
    let mut free = p.free_rects();
    free.sort();
    (p.iter().collect(), free, p.used_area(), p.size())
}

struct Model {
    /// Live allocations with their requested sizes.
    live: Vec<(AllocId, u32, u32)>,
    freed: Vec<AllocId>,
}

fn check(p: &dyn Packer, m: &Model, what: &str) {
    let (bw, bh) = p.size();
    let pad = p.options().padding;
    assert_eq!(p.len(), m.live.len(), "{what}: live count");
    let mut area = 0u64;
    let mut padded = Vec::new();
    for &(id, w, h) in &m.live {
        let a = p.get(id).unwrap_or_else(|| panic!("{what}: live id {id:?} lost"));
        let r = a.rect;
        assert!(r.right() <= bw && r.bottom() <= bh, "{what}: {r:?} outside {bw}x{bh}");
        if a.rotated {
            assert!(p.options().allow_rotation, "{what}: rotated without permission");
            assert_eq!((r.w, r.h), (h, w), "{what}: rotated size");
        } else {
            assert_eq!((r.w, r.h), (w, h), "{what}: size");
        }
        area += (w * h) as u64;
        padded.push(Rect::new(r.x, r.y, r.w + pad, r.h + pad));
    }
    assert_eq!(p.used_area(), area, "{what}: used area");
    for (i, a) in padded.iter().enumerate() {
        for b in &padded[i + 1..] {
            assert!(!a.intersects(b), "{what}: {a:?} overlaps {b:?} (padding {pad})");
        }
    }
    for f in p.free_rects() {
        assert!(f.right() <= bw && f.bottom() <= bh, "{what}: free {f:?} outside bin");
        for a in &padded {
            assert!(!f.intersects(a), "{what}: free {f:?} overlaps live {a:?}");
        }
    }
}

fn run(algorithm: Algorithm, opts: PackerOptions, size: (u32, u32), ops: &[Op], foreign: AllocId) {
    let mut p = algorithm.build(size.0, size.1, opts).unwrap();
    let mut m = Model { live: Vec::new(), freed: Vec::new() };
    for (step, op) in ops.iter().enumerate() {
        let what = format!("{algorithm} {opts:?} step {step} {op:?}");
        let before = snapshot(p.as_ref());
        match *op {
            Op::Alloc(w, h) => match p.allocate(w, h) {
                Ok(a) => m.live.push((a.id, w, h)),
                Err(AllocError::NoSpace { .. }) | Err(AllocError::TooLarge { .. }) => {
                    assert_eq!(
                        snapshot(p.as_ref()),
                        before,
                        "{what}: failed allocate changed state"
                    )
                }
                Err(e) => panic!("{what}: {e}"),
            },
            Op::Free(k) | Op::FreeRealloc(k) if !m.live.is_empty() => {
                let (id, w, h) = m.live.remove(k % m.live.len());
                p.deallocate(id).unwrap_or_else(|e| panic!("{what}: {e}"));
                assert!(p.get(id).is_none());
                m.freed.push(id);
                if matches!(op, Op::FreeRealloc(_)) {
                    let a = p
                        .allocate(w, h)
                        .unwrap_or_else(|e| panic!("{what}: freed space not reusable: {e}"));
                    m.live.push((a.id, w, h));
                }
            }
            Op::Free(_) | Op::FreeRealloc(_) => {}
            Op::DoubleFree(k) => {
                if !m.freed.is_empty() {
                    let id = m.freed[k % m.freed.len()];
                    assert_eq!(p.deallocate(id), Err(DeallocError::StaleId), "{what}");
                }
                assert_eq!(p.deallocate(foreign), Err(DeallocError::ForeignId), "{what}");
                assert_eq!(snapshot(p.as_ref()), before, "{what}: failed free changed state");
            }
            Op::Zero(wide) => {
                let (w, h) = if wide { (5, 0) } else { (0, 5) };
                assert_eq!(p.allocate(w, h), Err(AllocError::ZeroSize { w, h }), "{what}");
                assert_eq!(snapshot(p.as_ref()), before, "{what}");
            }
            Op::Huge => {
                let (bw, bh) = p.size();
                let m = bw.max(bh);
                for (w, h) in [(m + 1, 1), (1, m + 1), (u32::MAX, u32::MAX), (u32::MAX, 1)] {
                    assert!(
                        matches!(p.allocate(w, h), Err(AllocError::TooLarge { .. })),
                        "{what}: {w}x{h}"
                    );
                }
                assert!(p.grow(bw - 1, bh).is_err() || bw == 1, "{what}: shrink accepted");
                assert!(p.grow(u32::MAX, bh).is_err(), "{what}: huge grow accepted");
                assert_eq!(snapshot(p.as_ref()), before, "{what}");
            }
            Op::Grow(dw, dh) => {
                let (bw, bh) = p.size();
                p.grow(bw + dw, bh + dh).unwrap();
                assert_eq!(p.size(), (bw + dw, bh + dh));
            }
            Op::Clear => {
                p.clear();
                m.freed.extend(m.live.drain(..).map(|l| l.0));
                assert!(p.is_empty() && p.used_area() == 0);
                let (bw, bh) = p.size();
                let a = p
                    .allocate(bw, bh)
                    .unwrap_or_else(|e| panic!("{what}: cleared bin not empty: {e}"));
                p.deallocate(a.id).unwrap();
                m.freed.push(a.id);
            }
        }
        check(p.as_ref(), &m, &what);
    }
    // Freeing everything gives back the whole bin.
    for (id, _, _) in m.live.drain(..) {
        p.deallocate(id).unwrap();
    }
    let (bw, bh) = p.size();
    let whole = p.allocate(bw, bh);
    assert!(
        whole.is_ok(),
        "{algorithm} {opts:?}: bin not whole after freeing everything: {whole:?}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn every_packer_keeps_its_invariants(
        opts in options(),
        w in 24u32..96,
        h in 24u32..96,
        ops in proptest::collection::vec(op(), 1..70),
    ) {
        let other = MaxRects::new(8, 8, MaxRectsHeuristic::BestShortSideFit, PackerOptions::default());
        let foreign = other.unwrap().allocate(1, 1).unwrap().id;
        for algorithm in Algorithm::all() {
            run(algorithm, opts, (w, h), &ops, foreign);
        }
    }
}
