//! Replays the fuzz targets' committed inputs (fuzz/seeds: seeds and every
//! input that once found a bug) through the same harness cargo-fuzz runs, plus
//! a few thousand deterministic pseudo-random inputs per target. Fast enough
//! for every CI run; long fuzzing runs are `cargo fuzz run` (see fuzz/README.md).

#[path = "../fuzz/src/harness.rs"]
mod harness;

use std::path::Path;

fn replay(target: &str, run: fn(&[u8]), random: usize) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds").join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no committed inputs for {target}");
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        run(&bytes);
    }
    let mut s = 0x853c_49e6_748f_ea9bu64 ^ target.len() as u64;
    for i in 0..random {
        let len = 8 + (i * 37) % 300;
        let input: Vec<u8> = (0..len)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                s as u8
            })
            .collect();
        run(&input);
    }
}

#[test]
fn pack_ops_inputs_keep_every_invariant() {
    replay("pack_ops", harness::pack_ops, 3000);
}

#[test]
fn font_bytes_inputs_give_errors_or_glyphs_never_panics() {
    replay("font_bytes", harness::font_bytes, 60);
}

#[test]
fn cache_frames_inputs_keep_the_cache_consistent() {
    replay("cache_frames", harness::cache_frames, 150);
}
