//! Font instances on the GPU: a synthetic oblique's slant and synthetic
//! bold's extra ink, measured on read-backs of what the renderer drew.

use super::common::*;
use kerf_wgpu::*;

/// Ink (0..1, black on white) of an RGBA8 read-back, per pixel.
fn ink(img: &[u8]) -> Vec<f64> {
    img.chunks(4).map(|p| (255 - p[0]) as f64 / 255.0).collect()
}

/// Draws `spec(font)` (DejaVu Sans) in black on white into a `w × h`
/// target, neutral correction (coverage as rasterized): the ink read back.
fn draw(spec: impl Fn(FontId) -> TextSpec<'static>, w: u32, h: u32) -> Vec<f64> {
    let (device, queue) = gpu();
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let mut atlas = TextAtlas::new(&device, CacheConfig::default()).unwrap();
    let font = atlas.add_font(sans()).unwrap();
    let spec = spec(font);
    let mut renderer = TextRenderer::new(&device, &atlas, format, Default::default(), None);
    let mut vp = Viewport::new(&device, &atlas);
    vp.update(&queue, w, h);
    vp.set_correction(&queue, TextCorrection::NEUTRAL).unwrap();
    let report = renderer
        .prepare(&device, &queue, &mut atlas, &[TextArea::text(spec, 0.0, 0.0)], &vp)
        .unwrap();
    assert!(report.skipped.is_empty() && report.default_instance == 0);
    let target = Offscreen::new(&device, w, h, format).unwrap();
    ink(&draw_and_read(&device, &queue, &renderer, &atlas, &target, wgpu::Color::WHITE))
}

/// The least-squares slope of each inked row's centroid x against y (y down).
fn lean(ink: &[f64], w: usize) -> f64 {
    let rows: Vec<(f64, f64)> = ink
        .chunks(w)
        .enumerate()
        .filter_map(|(y, row)| {
            let mass: f64 = row.iter().sum();
            (mass > 0.5).then(|| {
                let m: f64 = row.iter().enumerate().map(|(x, v)| v * (x as f64 + 0.5)).sum();
                (y as f64, m / mass)
            })
        })
        .collect();
    let rows = &rows[2..rows.len() - 2];
    let n = rows.len() as f64;
    let (my, mx) = rows.iter().fold((0.0, 0.0), |(a, b), p| (a + p.0 / n, b + p.1 / n));
    let num: f64 = rows.iter().map(|p| (p.0 - my) * (p.1 - mx)).sum();
    let den: f64 = rows.iter().map(|p| (p.0 - my) * (p.0 - my)).sum();
    -num / den
}

#[test]
fn an_italic_stem_leans_fourteen_degrees_on_the_read_back() {
    let spec = |f| TextSpec::new("l", f, 64.0).at(30.25, 8.0);
    let upright = draw(spec, 128, 96);
    let italic = draw(|f| spec(f).italic(), 128, 96);
    let expect = 14f64.to_radians().tan();
    let (u, i) = (lean(&upright, 128), lean(&italic, 128));
    assert!(u.abs() < 0.005, "upright stem leans {u:.4}");
    assert!((i - expect).abs() < 0.01, "italic stem leans {i:.4}, expected {expect:.4}");
}

#[test]
fn synthetic_bold_adds_ink_on_the_read_back() {
    let spec = |f| TextSpec::new("Hamburgefonstiv", f, 20.0).at(4.0, 4.0);
    let regular: f64 = draw(spec, 240, 40).iter().sum();
    let bold: f64 = draw(|f| spec(f).weight(700.0), 240, 40).iter().sum();
    // Skia's strength at 20 px moves each side 0.37 px: about a third more
    // ink on this text (the CPU test compares the amount with swash's).
    assert!(
        bold / regular > 1.25 && bold / regular < 1.6,
        "bold / regular ink {:.3}",
        bold / regular
    );
}
