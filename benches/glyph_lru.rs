//! A simulated glyph cache: Zipf(s = 1) popularity over 20,000 glyphs,
//! 300,000 requests, one 1024² page. A miss allocates; when the page is full,
//! least-recently-used glyphs are deallocated until the new one fits (or, for
//! kerf's MaxRects with evict-to-fit, the cheapest set of old glyphs whose
//! removal opens a hole, priced by last use). Same request stream for every
//! allocator, in one run.
//!
//! Reports hit rate, live occupancy when an eviction is needed, evictions,
//! and ns per miss (allocation plus the evictions it caused).
//!
//! Run: `cargo bench --bench glyph_lru` (`-- --quick` for 60,000 requests,
//! without the global evict-to-fit row, which costs about a millisecond a miss).

mod common;

use common::{Bin, Etagere, EtagereBucketed, Guillotiere, Kerf, KerfMaxRects, XorShift};
use kerf::pack::{Algorithm, MaxRects, MaxRectsHeuristic, PackerOptions};
use std::time::Instant;

const GLYPHS: usize = 20_000;
const SIDE: u32 = 1024;

/// Doubly linked recency list over glyph indices (front = most recent).
struct Lru {
    prev: Vec<usize>,
    next: Vec<usize>,
    head: usize,
    tail: usize,
}

const NIL: usize = usize::MAX;

impl Lru {
    fn new(n: usize) -> Self {
        Lru { prev: vec![NIL; n], next: vec![NIL; n], head: NIL, tail: NIL }
    }
    fn unlink(&mut self, g: usize) {
        let (p, n) = (self.prev[g], self.next[g]);
        if p == NIL {
            self.head = n
        } else {
            self.next[p] = n
        }
        if n == NIL {
            self.tail = p
        } else {
            self.prev[n] = p
        }
        self.prev[g] = NIL;
        self.next[g] = NIL;
    }
    fn push_front(&mut self, g: usize) {
        self.next[g] = self.head;
        if self.head != NIL {
            self.prev[self.head] = g
        } else {
            self.tail = g
        }
        self.head = g;
    }
}

#[derive(Default)]
struct Report {
    hits: u64,
    misses: u64,
    evictions: u64,
    occupancy_at_eviction: Vec<f64>,
    miss_ns: u128,
    too_large: u64,
}

/// How a miss that does not fit picks its victims.
#[derive(Clone, Copy)]
enum Evict {
    /// The least recently used glyph, one at a time, until the new one fits.
    Lru,
    /// The cheapest set anywhere in the page (`MaxRects::evict_to_fit`).
    ToFit,
    /// The cheapest set that includes one of the `k` least recently used
    /// glyphs (`MaxRects::evict_to_fit_near` from each).
    ToFitNearLru(usize),
}

fn simulate<B: Bin>(bin: &mut B, sizes: &[(u32, u32)], requests: &[usize], evict: Evict) -> Report {
    let mut slot: Vec<Option<B::Id>> = vec![None; sizes.len()];
    let mut last_use = vec![0u64; sizes.len()];
    let mut owner: std::collections::HashMap<B::Id, usize> = Default::default();
    let mut lru = Lru::new(sizes.len());
    let mut used = 0u64;
    let mut r = Report::default();
    for (t, &g) in requests.iter().enumerate() {
        let t = t as u64 + 1;
        if slot[g].is_some() {
            r.hits += 1;
            lru.unlink(g);
            lru.push_front(g);
            last_use[g] = t;
            continue;
        }
        r.misses += 1;
        let (w, h) = sizes[g];
        let start = Instant::now();
        let mut noted = false;
        let placed = loop {
            if let Some(id) = bin.alloc(w, h) {
                break Some(id);
            }
            if !noted {
                r.occupancy_at_eviction.push(used as f64 / (SIDE as f64 * SIDE as f64));
                noted = true;
            }
            let cost = |id| owner.get(&id).map(|&v| last_use[v]);
            let lru_victim = (lru.tail != NIL).then(|| vec![lru.tail]);
            let victims = match evict {
                Evict::Lru => lru_victim,
                Evict::ToFit => bin
                    .evict_to_fit(w, h, None, &cost)
                    .map(|(_, ids)| ids.iter().map(|id| owner[id]).collect()),
                Evict::ToFitNearLru(k) => {
                    let mut best: Option<(u64, usize, Vec<B::Id>)> = None;
                    let mut g = lru.tail;
                    for _ in 0..k {
                        if g == NIL {
                            break;
                        }
                        if let Some((c, ids)) = bin
                            .evict_to_fit(w, h, slot[g], &cost)
                            .filter(|(_, ids)| !ids.is_empty())
                        {
                            if best.as_ref().is_none_or(|(bc, bn, _)| (c, ids.len()) < (*bc, *bn)) {
                                best = Some((c, ids.len(), ids));
                            }
                        }
                        g = lru.prev[g];
                    }
                    best.map(|(_, _, ids)| ids.iter().map(|id| owner[id]).collect()).or(lru_victim)
                }
            };
            let Some(victims) = victims.filter(|v| !v.is_empty()) else { break None };
            for v in victims {
                let id = slot[v].take().expect("victim is cached");
                owner.remove(&id);
                bin.free(id);
                lru.unlink(v);
                used -= sizes[v].0 as u64 * sizes[v].1 as u64;
                r.evictions += 1;
            }
        };
        r.miss_ns += start.elapsed().as_nanos();
        match placed {
            Some(id) => {
                owner.insert(id, g);
                slot[g] = Some(id);
                used += w as u64 * h as u64;
                lru.push_front(g);
                last_use[g] = t;
            }
            None => r.too_large += 1,
        }
    }
    r
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let n_requests = if quick { 60_000 } else { 300_000 };
    // 20,000 glyphs: the bundled traces' sizes, in trace order, repeated.
    let pool: Vec<(u32, u32)> =
        ["cjk-like", "text-stream", "latin-mixed"].iter().flat_map(|t| common::trace(t)).collect();
    let sizes: Vec<(u32, u32)> = pool.iter().copied().cycle().take(GLYPHS).collect();
    // Zipf(s = 1): glyph i has weight 1 / (i + 1).
    let mut cdf = Vec::with_capacity(GLYPHS);
    let mut acc = 0.0;
    for i in 0..GLYPHS {
        acc += 1.0 / (i + 1) as f64;
        cdf.push(acc);
    }
    let mut rng = XorShift(0x2545_F491_4F6C_DD1D);
    let requests: Vec<usize> = (0..n_requests)
        .map(|_| {
            let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * acc;
            cdf.partition_point(|&c| c < u).min(GLYPHS - 1)
        })
        .collect();

    println!("glyph LRU churn: {GLYPHS} glyphs, Zipf s=1, {n_requests} requests, one {SIDE}x{SIDE} page, padding 0");
    println!("| allocator | hit rate | occupancy at eviction (mean) | evictions | ns per miss |");
    println!("|---|---|---|---|---|");
    let row = |name: &str, r: Report| {
        let occ = r.occupancy_at_eviction.iter().sum::<f64>()
            / r.occupancy_at_eviction.len().max(1) as f64;
        println!(
            "| {name} | {:.2}% | {:.2}% | {} | {:.0} |",
            100.0 * r.hits as f64 / (r.hits + r.misses) as f64,
            100.0 * occ,
            r.evictions,
            r.miss_ns as f64 / r.misses.max(1) as f64
        );
        assert_eq!(r.too_large, 0, "{name}: a glyph never fit");
    };
    let opts = PackerOptions::default();
    for name in ["maxrects-bssf", "skyline-bl-wm", "guillotine-bssf-minas-rm", "shelf-ff-wm"] {
        let algo: Algorithm = name.parse().expect("packer");
        let mut bin = Kerf(algo.build(SIDE, SIDE, opts).expect("bin"));
        row(&format!("kerf {name}"), simulate(&mut bin, &sizes, &requests, Evict::Lru));
    }
    let maxrects = || {
        KerfMaxRects(
            MaxRects::new(SIDE, SIDE, MaxRectsHeuristic::BestShortSideFit, opts).expect("bin"),
        )
    };
    for k in [1, 8, 32] {
        let name = format!("kerf maxrects-bssf + evict-to-fit near the {k} oldest");
        row(&name, simulate(&mut maxrects(), &sizes, &requests, Evict::ToFitNearLru(k)));
    }
    if !quick {
        row(
            "kerf maxrects-bssf + evict-to-fit",
            simulate(&mut maxrects(), &sizes, &requests, Evict::ToFit),
        );
    }
    let size = (SIDE as i32, SIDE as i32);
    let mut e = Etagere(etagere::AtlasAllocator::new(etagere::size2(size.0, size.1)));
    row("etagere", simulate(&mut e, &sizes, &requests, Evict::Lru));
    let mut eb =
        EtagereBucketed(etagere::BucketedAtlasAllocator::new(etagere::size2(size.0, size.1)));
    row("etagere bucketed", simulate(&mut eb, &sizes, &requests, Evict::Lru));
    let mut g = Guillotiere(guillotiere::AtlasAllocator::new(guillotiere::size2(size.0, size.1)));
    row("guillotiere", simulate(&mut g, &sizes, &requests, Evict::Lru));
}
