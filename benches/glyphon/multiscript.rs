//! The multi-script case: Latin, Arabic, Hebrew, Devanagari, CJK and colour
//! emoji shaped by cosmic-text, kerf fed through its cosmic-text adapter.

use super::*;
use crate::frame::cosmic_glyphs;
use crate::scene::scene_at;

/// The same cosmic-text buffers (shaped once, with fallback across DejaVu,
/// Lohit Devanagari, WenQuanYi and Noto Color Emoji) fed to kerf's
/// cosmic-text adapter and to glyphon: warm and cold prepare.
pub(crate) fn multiscript_case(c: &mut Criterion) {
    let gpu = kerf::gpu::headless().unwrap_or_else(|e| panic!("{e}"));
    let (device, queue) = (&gpu.device, &gpu.queue);
    let (mut fs, text) = scene_at(W as f32);
    // kerf's side: an atlas with the buffers' fonts loaded (outside the
    // timed code, as glyphon's font system has them) and their glyphs.
    let kerf_with_glyphs = |fs: &FontSystem| {
        let mut k = kerf_side(device, queue);
        let mut fonts = kerf::cache::CosmicFonts::new();
        let mut glyphs = Vec::new();
        cosmic_glyphs(&mut k, &mut fonts, fs, &text, &mut glyphs);
        (k, fonts, glyphs)
    };
    let (mut k, mut fonts, mut glyphs) = kerf_with_glyphs(&fs);
    eprintln!("multiscript: {} glyphs", glyphs.len());
    // Warm frames as an app draws them: kerf's adapter turns the buffers
    // into glyphs and prepares them, glyphon prepares the buffers; each
    // frame ends with the (empty) submit that flushes texture writes.
    let mut g = c.benchmark_group("multiscript_warm");
    g.throughput(Throughput::Elements(glyphs.len() as u64));
    let areas = [TextArea::glyphs(&glyphs, 0.0, 0.0)];
    let rep = k.renderer.prepare(device, queue, &mut k.atlas, &areas, &k.viewport).unwrap();
    assert!(rep.skipped.is_empty(), "{:?}", rep.skipped);
    let colour =
        k.renderer.instances().iter().filter(|q| q.page & kerf::cache::COLOR_PAGE_BIT != 0).count();
    eprintln!("kerf: {} instances, {colour} colour glyphs", rep.instances);
    let kerf_frame = |k: &mut Kerf,
                      fonts: &mut kerf::cache::CosmicFonts,
                      fs: &FontSystem,
                      glyphs: &mut Vec<PositionedGlyph>| {
        glyphs.clear();
        cosmic_glyphs(k, fonts, fs, &text, glyphs);
        let areas = [TextArea::glyphs(glyphs, 0.0, 0.0)];
        black_box(k.renderer.prepare(device, queue, &mut k.atlas, &areas, &k.viewport).unwrap());
    };
    bench_frames(&mut g, "kerf", queue, true, || kerf_frame(&mut k, &mut fonts, &fs, &mut glyphs));
    glyphon_warm(&mut g, device, queue, &mut fs, &text, true);
    g.finish();
    // The same frames with only the renderers' own work timed: the submit
    // still follows every frame, untimed.
    let mut g = c.benchmark_group("multiscript_warm_prepare");
    g.throughput(Throughput::Elements(glyphs.len() as u64));
    bench_frames(&mut g, "kerf", queue, false, || kerf_frame(&mut k, &mut fonts, &fs, &mut glyphs));
    glyphon_warm(&mut g, device, queue, &mut fs, &text, false);
    g.finish();
    let mut g = c.benchmark_group("multiscript_cold");
    g.sample_size(10);
    g.throughput(Throughput::Elements(glyphs.len() as u64));
    g.bench_function("kerf", |b| {
        b.iter_batched(
            || kerf_with_glyphs(&fs),
            |(mut k, mut fonts, mut glyphs)| {
                kerf_frame(&mut k, &mut fonts, &fs, &mut glyphs);
                queue.submit([]);
                (k, fonts, glyphs)
            },
            BatchSize::PerIteration,
        )
    });
    glyphon_cold(&mut g, device, queue, &mut fs, &text);
    g.finish();
    // The first frame an app draws: a new atlas and renderer, the fonts in
    // memory as bytes (kerf's adapter loads each face into the cache on
    // first sight; glyphon's font system holds them, as the app's does), the
    // frame drawn into a window-sized target and waited on until the GPU is done.
    let target = kerf::gpu::Offscreen::new(device, W, H, FORMAT).unwrap();
    let mut g = c.benchmark_group("first_frame");
    g.sample_size(10);
    g.throughput(Throughput::Elements(glyphs.len() as u64));
    g.bench_function("kerf", |b| {
        b.iter_batched(
            || (kerf_side(device, queue), Vec::new()),
            |(mut k, mut glyphs)| {
                let mut fonts = kerf::cache::CosmicFonts::new();
                cosmic_glyphs(&mut k, &mut fonts, &fs, &text, &mut glyphs);
                crate::frame::kerf_frame_drawn(device, queue, &mut k, &glyphs, &target.view);
                (k, glyphs)
            },
            BatchSize::PerIteration,
        )
    });
    g.bench_function("glyphon", |b| {
        b.iter_batched(
            || glyphon_side(device, queue),
            |mut gl| {
                crate::frame::glyphon_frame_drawn(
                    device,
                    queue,
                    &mut gl,
                    &mut fs,
                    &text,
                    &target.view,
                );
                gl
            },
            BatchSize::PerIteration,
        )
    });
    g.finish();
}
