//! Packer speed on the bundled glyph traces, kerf beside etagere and
//! guillotiere in the same run.
//!
//! - `fill/<trace>@<bin>/<packer>`: insert the trace (cycled) up to the
//!   packer's own first failure; throughput is inserts.
//! - `churn/<trace>@<bin>/<packer>`: the churn protocol of benches/data:
//!   fill, then 20 rounds of freeing a seeded random quarter of the live
//!   rects and refilling to the next failure; throughput is allocate +
//!   deallocate calls.
//!
//! - `scaling/<bin>/<live>/<packer>`: with `live` glyphs of latin-mixed
//!   (cycled) in the bin, one allocate + deallocate pair of the next glyph;
//!   shows how the cost grows with the number of live rects.
//!
//! Run: `cargo bench --bench pack` (add a filter such as `fill/text` to narrow).

use criterion::measurement::WallTime;
use criterion::{
    criterion_group, criterion_main, BenchmarkGroup, BenchmarkId, Criterion, Throughput,
};
mod common;

use common::{Bin, Etagere, Guillotiere, Kerf, XorShift};
use kerf::pack::{Algorithm, PackerOptions};
use std::hint::black_box;

type Maker = (&'static str, fn(u32) -> Box<dyn FnMut() -> Box<dyn BinDyn>>);

/// Object-safe wrapper so packers of different id types share one list.
trait BinDyn {
    fn fill(&mut self, sizes: &[(u32, u32)], limit: usize) -> usize;
    fn churn(&mut self, sizes: &[(u32, u32)]) -> usize;
}

impl<B: Bin> BinDyn for B {
    /// Inserts the cycled trace until the first failure or `limit` inserts.
    fn fill(&mut self, sizes: &[(u32, u32)], limit: usize) -> usize {
        let mut n = 0;
        for &(w, h) in sizes.iter().cycle().take(limit) {
            if black_box(self.alloc(w, h)).is_none() {
                break;
            }
            n += 1;
        }
        n
    }

    /// The churn protocol; returns the number of allocate + deallocate calls.
    fn churn(&mut self, sizes: &[(u32, u32)]) -> usize {
        let mut live: Vec<B::Id> = Vec::new();
        let mut next = sizes.iter().cycle();
        let mut calls = 0;
        let mut refill = |bin: &mut Self, live: &mut Vec<B::Id>, calls: &mut usize| loop {
            let &(w, h) = next.next().expect("cycled");
            *calls += 1;
            match bin.alloc(w, h) {
                Some(id) => live.push(id),
                None => break,
            }
        };
        refill(self, &mut live, &mut calls);
        let mut rng = XorShift(0x9E37_79B9);
        for _ in 0..20 {
            for _ in 0..live.len() / 4 {
                let id = live.swap_remove(rng.next_u64() as usize % live.len());
                self.free(id);
                calls += 1;
            }
            refill(self, &mut live, &mut calls);
        }
        calls
    }
}

fn makers() -> Vec<Maker> {
    fn kerf(name: &'static str) -> impl Fn(u32) -> Box<dyn BinDyn> {
        move |side| {
            let algo: Algorithm = name.parse().expect("packer name");
            Box::new(Kerf(algo.build(side, side, PackerOptions::default()).expect("bin")))
        }
    }
    vec![
        ("kerf maxrects-bssf", |s| Box::new(move || kerf("maxrects-bssf")(s))),
        ("kerf skyline-bl-wm", |s| Box::new(move || kerf("skyline-bl-wm")(s))),
        ("kerf guillotine-bssf-minas", |s| Box::new(move || kerf("guillotine-bssf-minas")(s))),
        ("kerf shelf-ff", |s| Box::new(move || kerf("shelf-ff")(s))),
        ("etagere", |s| {
            Box::new(move || {
                Box::new(Etagere(etagere::AtlasAllocator::new(etagere::size2(s as i32, s as i32))))
            })
        }),
        ("guillotiere", |s| {
            Box::new(move || {
                Box::new(Guillotiere(guillotiere::AtlasAllocator::new(guillotiere::size2(
                    s as i32, s as i32,
                ))))
            })
        }),
    ]
}

fn benches(c: &mut Criterion) {
    for (name, side) in [("latin-mixed", 1024u32), ("text-stream", 1024), ("cjk-like", 1024)] {
        let sizes = common::trace(name);
        let mut fill = c.benchmark_group(format!("fill/{name}@{side}"));
        fill.sample_size(20);
        for (label, make) in makers() {
            let mut new = make(side);
            let n = new().fill(&sizes, usize::MAX);
            fill.throughput(Throughput::Elements(n as u64));
            fill.bench_function(BenchmarkId::from_parameter(label), |b| {
                b.iter(|| new().fill(&sizes, n))
            });
        }
        fill.finish();
        let mut churn = c.benchmark_group(format!("churn/{name}@{side}"));
        churn.sample_size(10);
        for (label, make) in makers() {
            let mut new = make(side);
            let calls = new().churn(&sizes);
            churn.throughput(Throughput::Elements(calls as u64));
            churn.bench_function(BenchmarkId::from_parameter(label), |b| {
                b.iter(|| new().churn(&sizes))
            });
        }
        churn.finish();
    }
}

/// Benches one allocate + deallocate pair in `bin` once it holds `live`
/// glyphs; skipped when the bin fills before the next glyph fits.
fn pair_at<B: Bin>(
    group: &mut BenchmarkGroup<WallTime>, label: &str, mut bin: B, sizes: &[(u32, u32)],
    live: usize,
) {
    for &(w, h) in sizes.iter().cycle().take(live) {
        if bin.alloc(w, h).is_none() {
            return;
        }
    }
    let (w, h) = sizes[live % sizes.len()];
    let Some(probe) = bin.alloc(w, h) else { return };
    bin.free(probe);
    group.bench_function(BenchmarkId::from_parameter(label), |b| {
        b.iter(|| {
            let id = bin.alloc(w, h).expect("room for one more");
            bin.free(black_box(id));
        })
    });
}

fn scaling(c: &mut Criterion) {
    let sizes = common::trace("latin-mixed");
    for side in [2048u32, 4096] {
        for live in [1_000usize, 4_000, 10_000, 20_000] {
            let mut group = c.benchmark_group(format!("scaling/{side}/{live}"));
            group.sample_size(20);
            let kerf = Kerf(
                Algorithm::default().build(side, side, PackerOptions::default()).expect("bin"),
            );
            pair_at(&mut group, "kerf maxrects-bssf", kerf, &sizes, live);
            let s = side as i32;
            pair_at(
                &mut group,
                "etagere",
                Etagere(etagere::AtlasAllocator::new(etagere::size2(s, s))),
                &sizes,
                live,
            );
            let guillotiere =
                Guillotiere(guillotiere::AtlasAllocator::new(guillotiere::size2(s, s)));
            pair_at(&mut group, "guillotiere", guillotiere, &sizes, live);
            group.finish();
        }
    }
}

criterion_group!(pack, benches, scaling);
criterion_main!(pack);
