use kerf::pack::{Algorithm, PackerOptions};
fn main() {
    let algo: Algorithm = std::env::args().nth(1).unwrap().parse().unwrap();
    let side: u32 = std::env::args().nth(2).map(|s| s.parse().unwrap()).unwrap_or(1024);
    let mode = std::env::args().nth(3).unwrap_or("fill".into());
    let sizes: Vec<(u32,u32)> = std::fs::read_to_string("benches/data/text-stream.txt").unwrap().lines().map(|l| { let v: Vec<u32> = l.split_whitespace().map(|x| x.parse().unwrap()).collect(); (v[0], v[1]) }).collect();
    let reps = 20;
    let t = std::time::Instant::now();
    let mut calls = 0u64;
    for _ in 0..reps {
        let mut p = algo.build(side, side, PackerOptions::default()).unwrap();
        let mut live = vec![]; let mut next = sizes.iter().cycle();
        let mut seed = 0x9E3779B9u32;
        let rounds = if mode == "churn" { 21 } else { 1 };
        for round in 0..rounds {
            if round > 0 { for _ in 0..live.len()/4 { seed ^= seed << 13; seed ^= seed >> 17; seed ^= seed << 5; let id = live.swap_remove(seed as usize % live.len()); p.deallocate(id).unwrap(); calls += 1; } }
            loop { let &(w,h) = next.next().unwrap(); calls += 1; match p.allocate(w,h) { Ok(a) => live.push(a.id), Err(_) => break } }
        }
    }
    println!("{algo} {side} {mode}: {:.0} ns/call", t.elapsed().as_nanos() as f64 / calls as f64);
}
