//! A glyph atlas that never fills up: glyphs from a bundled trace are drawn
//! with Zipf-like popularity; a miss allocates a slot, and when the page is
//! full the least-recently-used glyphs are deallocated until the new one fits.
//!
//! `cargo run --release --example atlas_churn [PACKER] [SIDE]`
//! (defaults: maxrects-bssf 512). Prints hit rate, evictions and the page's
//! occupancy, and writes the final page to `atlas_churn.svg`.

use kerf::pack::{dump_svg, Algorithm, AllocError, AllocId, PackerOptions};
use std::collections::{HashMap, VecDeque};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let algo: Algorithm = args.next().as_deref().unwrap_or("maxrects-bssf").parse()?;
    let side: u32 = args.next().as_deref().unwrap_or("512").parse()?;
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/data/text-stream.txt");
    let glyphs: Vec<(u32, u32)> = std::fs::read_to_string(path)?
        .lines()
        .map(|l| {
            let v: Vec<u32> = l.split_whitespace().filter_map(|x| x.parse().ok()).collect();
            (v[0], v[1])
        })
        .collect();

    let mut page = algo.build(side, side, PackerOptions { padding: 1, ..Default::default() })?;
    let mut slots: HashMap<usize, AllocId> = HashMap::new();
    let mut lru: VecDeque<usize> = VecDeque::new(); // front = least recently used
    let (mut hits, mut misses, mut evictions, mut occupancy_at_eviction) =
        (0u64, 0u64, 0u64, Vec::new());

    // Zipf(s = 1) over the trace's glyphs by inverse-CDF sampling with a fixed seed.
    let weights: Vec<f64> = (1..=glyphs.len()).map(|r| 1.0 / r as f64).collect();
    let total: f64 = weights.iter().sum();
    let cdf: Vec<f64> = weights
        .iter()
        .scan(0.0, |acc, w| {
            *acc += w / total;
            Some(*acc)
        })
        .collect();
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    for _ in 0..200_000 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let u = (seed >> 11) as f64 / (1u64 << 53) as f64;
        let glyph = cdf.partition_point(|&c| c < u).min(glyphs.len() - 1);

        if slots.contains_key(&glyph) {
            hits += 1;
            let at = lru.iter().position(|&g| g == glyph).expect("cached glyph is in the LRU list");
            lru.remove(at);
            lru.push_back(glyph);
            continue;
        }
        misses += 1;
        let (w, h) = glyphs[glyph];
        let id = loop {
            match page.allocate(w, h) {
                Ok(a) => break a.id,
                Err(AllocError::NoSpace { .. }) => {
                    occupancy_at_eviction.push(page.occupancy());
                    let victim = lru.pop_front().expect("a full page holds glyphs");
                    page.deallocate(slots.remove(&victim).expect("victim is cached"))?;
                    evictions += 1;
                }
                Err(e) => return Err(e.into()),
            }
        };
        slots.insert(glyph, id);
        lru.push_back(glyph);
    }
    let mean =
        occupancy_at_eviction.iter().sum::<f64>() / occupancy_at_eviction.len().max(1) as f64;
    println!("packer {algo} on {side}x{side}, padding 1, {} distinct glyphs", glyphs.len());
    println!(
        "hit rate {:.2}%  misses {misses}  evictions {evictions}  mean occupancy when evicting {:.2}%  live glyphs {}",
        100.0 * hits as f64 / (hits + misses) as f64,
        100.0 * mean,
        page.len()
    );
    std::fs::write("atlas_churn.svg", dump_svg(page.as_ref()))?;
    println!("wrote atlas_churn.svg");
    Ok(())
}
