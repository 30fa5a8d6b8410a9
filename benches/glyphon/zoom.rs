//! `prepare_zoom`: pinch-zoom. A paragraph whose size changes every frame,
//! 12 → 96 px and back, geometrically, over 240 frames (as `kerf profile
//! --workload zoom`): every glyph misses every frame. Both sides get the
//! same cosmic-text buffers, shaped at each frame's size outside the timed
//! code; every line fits the target at 96 px, so glyphon's clipping to its
//! bounds drops nothing. As in `prepare_churn`, both atlases are bounded to
//! the same memory, 4 MiB (a device whose textures are at most 2048 px;
//! kerf has four 1024 px pages; a 96 px frame does not fit in 1 MiB): the
//! cycle's sizes need several times that, so neither side keeps a cycle.

use super::*;
use kerf::gpu::ZoomPolicy;

/// Frames of a zoom cycle.
const FRAMES: usize = 240;

/// The size of frame `i`: 12 · 8^t, t going 0 → 1 → 0 over the cycle.
fn zoom_px(i: usize) -> f32 {
    let t = (i % FRAMES) as f32 / (FRAMES / 2) as f32;
    12.0 * 8f32.powf(if t > 1.0 { 2.0 - t } else { t })
}

pub(crate) fn zoom_case(c: &mut Criterion) {
    let (device, queue) = &limited_device(2048);
    let mut fs = font_system();
    let mut seed = 0x200d_5eed_0000_0001u64;
    let text: Vec<String> = (0..6).map(|_| prose(&mut seed, 4)).collect();
    let pool: Vec<Shaped> = (0..FRAMES)
        .map(|i| {
            let lines: Vec<(String, f32)> = text.iter().map(|t| (t.clone(), zoom_px(i))).collect();
            shape(&mut fs, &lines)
        })
        .collect();
    let config = CacheConfig { page_size: 1024, max_pages: 4, ..CacheConfig::default() };
    let mut k = kerf_side_config(device, queue, config);
    let frames: Vec<Vec<PositionedGlyph>> =
        pool.iter().map(|p| kerf_glyphs(p, 0..p.buffers.len(), 0.0, k.font)).collect();
    let per_frame = frames.iter().map(Vec::len).sum::<usize>() / FRAMES;
    let mut g = c.benchmark_group("prepare_zoom");
    g.throughput(Throughput::Elements(per_frame as u64));
    // kerf's size steps while the size moves (the default policy on a GPU;
    // on a software adapter the default draws this repeating prose as
    // `kerf-exact` does, whose whole frame costs less there: the scene
    // corpus's `zoom`), and every frame exact (every glyph misses, as
    // glyphon's).
    let steps = ZoomPolicy::Steps { per_octave: 8 };
    for (name, policy) in [("kerf", steps), ("kerf-exact", ZoomPolicy::Exact)] {
        k.renderer.set_zoom_policy(policy);
        let mut i = 0usize;
        bench_frames(&mut g, name, queue, true, || {
            let areas = [TextArea::glyphs(&frames[i % FRAMES], 0.0, 0.0)];
            black_box(
                k.renderer.prepare(device, queue, &mut k.atlas, &areas, &k.viewport).unwrap(),
            );
            i += 1;
        });
    }
    let mut gl = glyphon_side(device, queue);
    let mut j = 0usize;
    bench_frames(&mut g, "glyphon", queue, true, || {
        let p = &pool[j % FRAMES];
        gl.prepare(device, queue, &mut fs, glyphon_areas(p, 0..p.buffers.len(), 0.0));
        gl.atlas.trim();
        j += 1;
    });
    g.finish();
    let st = k.atlas.cache().stats();
    eprintln!(
        "prepare_zoom kerf: {} frames, hit rate {:.1}%, {} evictions, {} skipped",
        st.frames,
        st.hit_rate() * 100.0,
        st.evictions,
        st.skipped
    );
}
