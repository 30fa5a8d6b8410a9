//! A fixed CPU workload for counting instructions with callgrind: a cold
//! frame (every glyph a miss) and warm frames of the same content, through
//! the three paths an app uses (positioned glyphs, a retained run, laid-out
//! text with an outline, a shadow and an underline). No GPU.
//!
//! ```sh
//! cargo build --release --example frame_instructions
//! for n in 0 1 2 102; do
//!   valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     target/release/examples/frame_instructions $n 2>&1 | grep Collected
//! done
//! ```
//!
//! With `N` frames (0: the set-up alone): (count at 1 − count at 0) is the
//! cold frame; (count at 102 − count at 2) ÷ 100 a warm frame (the retained
//! run is recorded in the second frame and reused from the third). The
//! counts are repeatable run to run (callgrind runs the threads one at a
//! time).

use kerf::cache::{CacheConfig, GlyphCache, RetainedRun, TextSpec};

const TEXT: &str = "The quick brown fox jumps over the lazy dog. Sphinx of black quartz, \
judge my vow! 0123456789 — Ελληνικά, кириллица, Łódź.";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let frames: usize = std::env::args().nth(1).map_or(Ok(0), |a| a.parse())?;
    let mut cache = GlyphCache::new(CacheConfig { page_size: 1024, ..CacheConfig::default() })?;
    let font = cache.add_font(dejavu::sans::regular().to_vec())?;
    let bold = cache.add_font(dejavu::sans::bold().to_vec())?;
    // Five sizes, eight lines each, pens at quarter pixels and between.
    let mut glyphs = Vec::new();
    let mut line = Vec::new();
    for (i, size) in [12.0f32, 14.5, 16.0, 21.0, 28.0].into_iter().enumerate() {
        for row in 0..8 {
            let spec = TextSpec::new(TEXT, if row % 2 == 0 { font } else { bold }, size)
                .at(3.3 + row as f32 * 0.37, (i * 8 + row) as f32 * size * 1.3);
            line.clear();
            cache.positions(&spec, &mut line)?;
            glyphs.extend(line.iter().copied());
        }
    }
    let label = TextSpec::new("Outlined, shadowed, underlined", font, 24.0)
        .at(10.0, 900.0)
        .outline(1.5, [0, 0, 0, 255])
        .shadow((2.0, 2.0), 3.0, [0, 0, 0, 128])
        .underline();
    let mut run = RetainedRun::default();
    let mut quads = Vec::new();
    let mut drawn = 0;
    for _ in 0..frames {
        quads.clear();
        let mut frame = cache.begin_frame();
        frame.prepare(&glyphs[..glyphs.len() / 2], &mut quads);
        frame.prepare_retained(&glyphs[glyphs.len() / 2..], &mut quads, &mut run);
        frame.layout(&label, &mut quads)?;
        let out = frame.finish();
        drawn += quads.len() + out.skipped.len();
    }
    println!("{} glyphs, {} quads a frame", glyphs.len(), drawn / frames.max(1));
    Ok(())
}
