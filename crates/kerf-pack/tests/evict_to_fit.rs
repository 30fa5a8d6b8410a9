//! MaxRects::evict_to_fit finds the cheapest hole, checked against trying
//! every hole position, and freeing its victims always makes room.

use kerf_pack::{AllocError, MaxRects, MaxRectsHeuristic, Packer, PackerOptions, Rect};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn cheapest_hole_matches_brute_force(
        side in 12u32..40,
        padding in 0u32..2,
        allow_rotation in any::<bool>(),
        fill in proptest::collection::vec((1u32..10, 1u32..10, 0u64..100, 0u32..10), 1..60),
        frees in proptest::collection::vec(any::<usize>(), 0..10),
        request in (1u32..20, 1u32..20),
        seed in proptest::option::of(any::<usize>()),
    ) {
        let opts = PackerOptions { padding, allow_rotation, min_free_size: 0 };
        let mut p = MaxRects::new(side, side, MaxRectsHeuristic::BestShortSideFit, opts).unwrap();
        // cost per allocation; a 0 in the last field pins it (must not be evicted)
        let mut costs = std::collections::HashMap::new();
        let mut live = Vec::new();
        for (w, h, c, pin) in fill {
            if let Ok(a) = p.allocate(w, h) {
                costs.insert(a.id, if pin == 0 { None } else { Some(c) });
                live.push(a.id);
            }
        }
        for k in frees {
            if !live.is_empty() {
                p.deallocate(live.remove(k % live.len())).unwrap();
            }
        }
        let (w, h) = request;
        // With a seed: only holes over the seed's slot (evict_to_fit_near).
        let seed = seed.filter(|_| !live.is_empty()).map(|k| live[k % live.len()]);
        let got = match seed {
            Some(id) => p.evict_to_fit_near(w, h, id, |a| costs[&a.id]),
            None => p.evict_to_fit(w, h, |a| costs[&a.id]),
        };
        let seed_slot = seed.map(|id| {
            let a = p.get(id).unwrap();
            (Rect::new(a.rect.x, a.rect.y, a.rect.w + padding, a.rect.h + padding), costs[&id])
        });
        let (iw, ih) = (side + padding, side + padding);
        let (pw, ph) = (w + padding, h + padding);
        if !(pw <= iw && ph <= ih || allow_rotation && ph <= iw && pw <= ih) {
            let too_large = matches!(got, Err(AllocError::TooLarge { .. }));
            prop_assert!(too_large);
            return Ok(());
        }
        let fits_now = p.evict_to_fit(w, h, |_| None).unwrap().is_some_and(|e| e.victims.is_empty());
        if seed_slot.is_some_and(|(_, c)| c.is_none()) && !fits_now {
            prop_assert_eq!(got.unwrap(), None);
            return Ok(());
        }
        // Brute force over every hole position and orientation.
        let slots: Vec<(Rect, Option<u64>)> = p
            .iter()
            .map(|a| (Rect::new(a.rect.x, a.rect.y, a.rect.w + padding, a.rect.h + padding), costs[&a.id]))
            .collect();
        let mut best: Option<(u64, usize)> = None;
        let orientations: &[(u32, u32)] = if allow_rotation { &[(pw, ph), (ph, pw)] } else { &[(pw, ph)] };
        for &(hw, hh) in orientations {
            if hw > iw || hh > ih { continue; }
            for y in 0..=ih - hh {
                for x in 0..=iw - hw {
                    let hole = Rect::new(x, y, hw, hh);
                    if !fits_now && seed_slot.is_some_and(|(s, _)| !s.intersects(&hole)) { continue; }
                    let hit: Vec<_> = slots.iter().filter(|s| s.0.intersects(&hole)).collect();
                    if hit.iter().any(|s| s.1.is_none()) { continue; }
                    let key = (hit.iter().map(|s| s.1.unwrap()).sum::<u64>(), hit.len());
                    if best.is_none_or(|b| key < b) { best = Some(key); }
                }
            }
        }
        let got = got.unwrap();
        prop_assert_eq!(got.as_ref().map(|e| (e.cost, e.victims.len())), best);
        if let Some(e) = got {
            let mut sum = 0;
            for id in &e.victims {
                sum += costs[id].expect("a pinned allocation was proposed");
                p.deallocate(*id).unwrap();
            }
            prop_assert_eq!(sum, e.cost);
            prop_assert!(p.allocate(w, h).is_ok(), "freeing the victims did not make room");
        }
    }
}

#[test]
fn fitting_request_needs_no_victims() {
    let mut p =
        MaxRects::new(32, 32, MaxRectsHeuristic::BestShortSideFit, PackerOptions::default())
            .unwrap();
    p.allocate(16, 32).unwrap();
    let e = p.evict_to_fit(16, 16, |_| Some(1)).unwrap().unwrap();
    assert!(e.victims.is_empty());
    assert_eq!(e.cost, 0);
    assert_eq!(p.evict_to_fit(0, 3, |_| Some(1)), Err(AllocError::ZeroSize { w: 0, h: 3 }));
}

#[test]
fn prefers_two_old_over_one_recent() {
    // Left half: one glyph used recently (cost 10); right half: two old ones (cost 1 + 2).
    let mut p =
        MaxRects::new(32, 32, MaxRectsHeuristic::BestShortSideFit, PackerOptions::default())
            .unwrap();
    let recent = p.allocate(16, 32).unwrap().id;
    let old_a = p.allocate(16, 16).unwrap().id;
    let old_b = p.allocate(16, 16).unwrap().id;
    let cost = |a: &kerf_pack::Allocation| {
        Some(if a.id == recent {
            10
        } else if a.id == old_a {
            1
        } else {
            2
        })
    };
    let e = p.evict_to_fit(16, 32, cost).unwrap().unwrap();
    let mut victims = e.victims.clone();
    victims.sort();
    let mut expect = vec![old_a, old_b];
    expect.sort();
    assert_eq!((victims, e.cost), (expect, 3));
    // Pinning one of the old glyphs forces the recent one out instead.
    let e =
        p.evict_to_fit(16, 32, |a| if a.id == old_a { None } else { cost(a) }).unwrap().unwrap();
    assert_eq!(e.victims, vec![recent]);
    // Pinning everything leaves no way.
    assert_eq!(p.evict_to_fit(16, 32, |_| None).unwrap(), None);
}
