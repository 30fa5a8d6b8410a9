//! Peak memory of one side alone: `KERF_BENCH_MEMORY=kerf|glyphon|none` runs
//! the multi-script scene's first frame and 120 more in this process, prints
//! the process's peak resident set (VmHWM) and exits, so each side is
//! measured in a process of its own. `none` sets up the device and shapes
//! the text but draws nothing: the floor both sides share.

use super::*;
use crate::peak_rss::peak_rss_kib;

/// Runs `side`'s frames and prints its peak memory.
pub(crate) fn run(side: &str) {
    let gpu = kerf::gpu::headless().unwrap_or_else(|e| panic!("{e}"));
    let (device, queue) = (&gpu.device, &gpu.queue);
    let (mut fs, text) = crate::scene::scene_at(W as f32);
    let target = kerf::gpu::Offscreen::new(device, W, H, FORMAT).unwrap();
    match side {
        "kerf" => {
            let mut k = kerf_side(device, queue);
            let mut fonts = kerf::cache::CosmicFonts::new();
            let mut glyphs = Vec::new();
            for _ in 0..121 {
                glyphs.clear();
                crate::frame::cosmic_glyphs(&mut k, &mut fonts, &fs, &text, &mut glyphs);
                crate::frame::kerf_frame_drawn(device, queue, &mut k, &glyphs, &target.view);
            }
        }
        "glyphon" => {
            let mut gl = glyphon_side(device, queue);
            for _ in 0..121 {
                crate::frame::glyphon_frame_drawn(
                    device,
                    queue,
                    &mut gl,
                    &mut fs,
                    &text,
                    &target.view,
                );
            }
        }
        _ => {
            crate::frame::pass_and_wait(device, queue, &target.view, |_| {});
        }
    }
    println!("{side}: peak RSS {} KiB", peak_rss_kib());
}
