//! `kerf pack --compare`: the same trace through kerf's main packers and the
//! peers (etagere, guillotiere) in one process: fill to the first failure,
//! then the churn protocol of benches/data/README.md.

use kerf_pack::{Algorithm, AllocId, Packer, PackerOptions};
use std::time::Instant;

/// What the comparison needs of an allocator.
trait Bin {
    type Id: Copy;
    fn alloc(&mut self, w: u32, h: u32) -> Option<Self::Id>;
    fn free(&mut self, id: Self::Id);
}

impl Bin for Box<dyn Packer + Send + Sync> {
    type Id = AllocId;
    fn alloc(&mut self, w: u32, h: u32) -> Option<AllocId> {
        self.allocate(w, h).ok().map(|a| a.id)
    }
    fn free(&mut self, id: AllocId) {
        let _ = self.deallocate(id);
    }
}

impl Bin for etagere::AtlasAllocator {
    type Id = etagere::AllocId;
    fn alloc(&mut self, w: u32, h: u32) -> Option<Self::Id> {
        self.allocate(etagere::size2(w as i32, h as i32)).map(|a| a.id)
    }
    fn free(&mut self, id: Self::Id) {
        self.deallocate(id)
    }
}

impl Bin for etagere::BucketedAtlasAllocator {
    type Id = etagere::AllocId;
    fn alloc(&mut self, w: u32, h: u32) -> Option<Self::Id> {
        self.allocate(etagere::size2(w as i32, h as i32)).map(|a| a.id)
    }
    fn free(&mut self, id: Self::Id) {
        self.deallocate(id)
    }
}

impl Bin for guillotiere::AtlasAllocator {
    type Id = guillotiere::AllocId;
    fn alloc(&mut self, w: u32, h: u32) -> Option<Self::Id> {
        self.allocate(guillotiere::size2(w as i32, h as i32)).map(|a| a.id)
    }
    fn free(&mut self, id: Self::Id) {
        self.deallocate(id)
    }
}

/// One row of the comparison.
#[derive(serde::Serialize)]
pub struct Row {
    allocator: String,
    placed_before_first_failure: usize,
    occupancy_at_first_failure: f64,
    ns_per_insert: f64,
    churn_mean_occupancy: f64,
    churn_ns_per_allocate: f64,
    churn_ns_per_deallocate: f64,
}

/// Fills `bin` with the cycled trace to the first failure: (ids, used area).
fn fill<B: Bin>(
    bin: &mut B, sizes: &[(u32, u32)], next: &mut usize, live: &mut Vec<(B::Id, u64)>,
) -> u64 {
    let mut added = 0;
    loop {
        let (w, h) = sizes[*next % sizes.len()];
        *next += 1;
        match bin.alloc(w, h) {
            Some(id) => {
                live.push((id, w as u64 * h as u64));
                added += 1;
            }
            None => return added,
        }
    }
}

fn measure<B: Bin>(
    name: &str, mut make: impl FnMut() -> B, sizes: &[(u32, u32)], area: f64,
) -> Row {
    // Fill: median time per insert over repeated fresh fills.
    let mut samples = Vec::new();
    let mut placed = 0;
    let mut occupancy = 0.0;
    let started = Instant::now();
    while samples.len() < 3 || (samples.len() < 51 && started.elapsed().as_millis() < 300) {
        let mut bin = make();
        let mut live = Vec::new();
        let mut next = 0;
        let t = Instant::now();
        let n = fill(&mut bin, sizes, &mut next, &mut live);
        samples.push(t.elapsed().as_nanos() as f64 / (n + 1) as f64);
        placed = n as usize;
        occupancy = live.iter().map(|l| l.1).sum::<u64>() as f64 / area;
    }
    samples.sort_by(f64::total_cmp);
    // Churn: 20 rounds of freeing a seeded random quarter and refilling.
    let mut bin = make();
    let mut live = Vec::new();
    let mut next = 0;
    fill(&mut bin, sizes, &mut next, &mut live);
    let (mut alloc_ns, mut allocs, mut free_ns, mut frees) = (0u128, 0u64, 0u128, 0u64);
    let mut occupancies = Vec::new();
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..20 {
        let mut victims = Vec::new();
        for _ in 0..live.len() / 4 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            victims.push(live.swap_remove(seed as usize % live.len()));
        }
        let t = Instant::now();
        for &(id, _) in &victims {
            bin.free(id);
        }
        free_ns += t.elapsed().as_nanos();
        frees += victims.len() as u64;
        let t = Instant::now();
        allocs += fill(&mut bin, sizes, &mut next, &mut live) + 1;
        alloc_ns += t.elapsed().as_nanos();
        occupancies.push(live.iter().map(|l| l.1).sum::<u64>() as f64 / area);
    }
    Row {
        allocator: name.to_string(),
        placed_before_first_failure: placed,
        occupancy_at_first_failure: occupancy,
        ns_per_insert: samples[samples.len() / 2],
        churn_mean_occupancy: occupancies.iter().sum::<f64>() / occupancies.len() as f64,
        churn_ns_per_allocate: alloc_ns as f64 / allocs.max(1) as f64,
        churn_ns_per_deallocate: free_ns as f64 / frees.max(1) as f64,
    }
}

/// kerf's packers compared, beside the peers.
const KERF: [&str; 5] =
    ["maxrects-bssf", "skyline-bl-wm", "guillotine-bssf-minas-rm", "shelf-ff-wm", "shelf-nf"];

/// Runs the comparison (online, cycled, no rotation, padding 0 for every row).
pub fn compare(
    sizes: &[(u32, u32)], size: (u32, u32), extra: Option<Algorithm>,
) -> Result<Vec<Row>, String> {
    if sizes.is_empty() {
        return Err("the trace is empty".into());
    }
    let area = size.0 as f64 * size.1 as f64;
    let mut algos: Vec<Algorithm> = KERF.iter().map(|n| n.parse().expect("known packer")).collect();
    if let Some(a) = extra.filter(|a| !algos.contains(a)) {
        algos.insert(0, a);
    }
    let mut rows = Vec::new();
    for algo in algos {
        algo.build(size.0, size.1, PackerOptions::default()).map_err(|e| e.to_string())?;
        let make = || algo.build(size.0, size.1, PackerOptions::default()).expect("size checked");
        rows.push(measure(&format!("kerf {algo}"), make, sizes, area));
    }
    let (w, h) = (size.0 as i32, size.1 as i32);
    rows.push(measure(
        "etagere",
        || etagere::AtlasAllocator::new(etagere::size2(w, h)),
        sizes,
        area,
    ));
    rows.push(measure(
        "etagere bucketed",
        || etagere::BucketedAtlasAllocator::new(etagere::size2(w, h)),
        sizes,
        area,
    ));
    rows.push(measure(
        "guillotiere",
        || guillotiere::AtlasAllocator::new(guillotiere::size2(w, h)),
        sizes,
        area,
    ));
    Ok(rows)
}

/// The table header for [`row`].
pub const HEADER: &str = "| allocator | placed before first failure | occupancy then | ns/insert | churn mean occupancy | churn ns/allocate | churn ns/deallocate |\n|---|---|---|---|---|---|---|";

/// One markdown table row.
pub fn row(r: &Row) -> String {
    format!(
        "| {} | {} | {:.2}% | {:.0} | {:.2}% | {:.0} | {:.0} |",
        r.allocator,
        r.placed_before_first_failure,
        100.0 * r.occupancy_at_first_failure,
        r.ns_per_insert,
        100.0 * r.churn_mean_occupancy,
        r.churn_ns_per_allocate,
        r.churn_ns_per_deallocate
    )
}
