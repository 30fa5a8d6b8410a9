//! `prepare_styles`: bold, italic and variable-weight text from the same
//! cosmic-text buffers, kerf (through its cosmic-text adapter, converted
//! every frame) against glyphon, warm and cold. Inter (Debian
//! `fonts-inter-variable`) for the `wght` axis, DejaVu Sans (its regular
//! face only) for synthetic bold and oblique.

use super::*;
use glyphon::{Attrs, Buffer, Family, Metrics, Shaping, Style, Weight};

const INTER: (&str, &str) =
    ("/usr/share/fonts/truetype/inter-vf/Inter.var.ttf", "fonts-inter-variable");

/// The scene: 30 lines, a third Inter at weights sweeping 100 → 900, a
/// third DejaVu Sans bold (synthesized), a third italic (synthesized).
fn styled_scene() -> (FontSystem, Shaped) {
    let mut db = glyphon::fontdb::Database::new();
    db.load_font_data(dejavu::sans::regular().to_vec());
    let bytes = std::fs::read(INTER.0)
        .unwrap_or_else(|e| panic!("{}: {e}; install Debian's {}", INTER.0, INTER.1));
    db.load_font_data(bytes);
    let mut fs = FontSystem::new_with_locale_and_db("en-US".into(), db);
    let mut seed = 0x05ee_d0f5_71e5_u64;
    let mut top = 0.0;
    let buffers = (0..30)
        .map(|i| {
            let size = [12.0, 14.0, 16.0, 20.0, 24.0][i % 5];
            let attrs = match i % 3 {
                0 => Attrs::new()
                    .family(Family::Name("Inter"))
                    .weight(Weight(100 + (i as u16 / 3) * 80)),
                1 => Attrs::new().family(Family::Name("DejaVu Sans")).weight(Weight::BOLD),
                _ => Attrs::new().family(Family::Name("DejaVu Sans")).style(Style::Italic),
            };
            let mut b = Buffer::new(&mut fs, Metrics::new(size, size * 1.3));
            b.set_size(Some(W as f32), None);
            b.set_text(&prose(&mut seed, 10), &attrs, Shaping::Advanced, None);
            b.shape_until_scroll(&mut fs, false);
            let t = top;
            top += size * 1.3;
            (b, t)
        })
        .collect();
    (fs, Shaped { buffers })
}

/// kerf's frame: the buffers converted by the adapter, then prepared.
fn kerf_styled_frame(
    device: &wgpu::Device, queue: &wgpu::Queue, k: &mut Kerf, fonts: &mut kerf::cache::CosmicFonts,
    fs: &FontSystem, text: &Shaped, glyphs: &mut Vec<PositionedGlyph>,
) {
    glyphs.clear();
    frame::cosmic_glyphs(k, fonts, fs, text, glyphs);
    let areas = [TextArea::glyphs(glyphs, 0.0, 0.0)];
    let report = k.renderer.prepare(device, queue, &mut k.atlas, &areas, &k.viewport).unwrap();
    debug_assert_eq!(report.counts.default_instance, 0);
    black_box(report);
}

pub(crate) fn styles_case(c: &mut Criterion) {
    let gpu = kerf::gpu::headless().unwrap_or_else(|e| panic!("{e}"));
    let (device, queue) = (&gpu.device, &gpu.queue);
    let (mut fs, text) = styled_scene();
    let n: usize = text
        .buffers
        .iter()
        .map(|(b, _)| b.layout_runs().map(|r| r.glyphs.len()).sum::<usize>())
        .sum();
    eprintln!("styled scene: {n} glyphs");

    let mut g = c.benchmark_group("prepare_styles_warm");
    g.throughput(Throughput::Elements(n as u64));
    let mut k = kerf_side(device, queue);
    let mut fonts = kerf::cache::CosmicFonts::new();
    let mut glyphs = Vec::new();
    kerf_styled_frame(device, queue, &mut k, &mut fonts, &fs, &text, &mut glyphs);
    bench_frames(&mut g, "kerf", queue, true, || {
        kerf_styled_frame(device, queue, &mut k, &mut fonts, &fs, &text, &mut glyphs);
    });
    // The floor both rows pay: the timed submit alone.
    bench_frames(&mut g, "submit-only", queue, true, || {});
    glyphon_warm(&mut g, device, queue, &mut fs, &text, true);
    g.finish();

    let mut g = c.benchmark_group("prepare_styles_cold");
    g.sample_size(10);
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function("kerf", |b| {
        b.iter_batched(
            || (kerf_side(device, queue), kerf::cache::CosmicFonts::new(), Vec::new()),
            |(mut k, mut fonts, mut glyphs)| {
                kerf_styled_frame(device, queue, &mut k, &mut fonts, &fs, &text, &mut glyphs);
                queue.submit([]);
                k
            },
            BatchSize::PerIteration,
        )
    });
    glyphon_cold(&mut g, device, queue, &mut fs, &text);
    g.finish();
}
