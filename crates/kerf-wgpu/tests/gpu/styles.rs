//! Typography on the GPU: a synthetic oblique's slant and synthetic bold's
//! extra ink, and decorations (solid quads in the glyphs' draw), measured
//! on read-backs of what the renderer drew.

use super::common::*;
use kerf_wgpu::*;

/// Ink (0..1, black on white) of an RGBA8 read-back, per pixel.
fn ink(img: &[u8]) -> Vec<f64> {
    img.chunks(4).map(|p| (255 - p[0]) as f64 / 255.0).collect()
}

/// Draws `spec(font)` (DejaVu Sans) in black on white into a `w × h`
/// target, neutral correction (coverage as rasterized): the ink read back.
fn draw(spec: impl Fn(FontId) -> TextSpec<'static>, w: u32, h: u32) -> Vec<f64> {
    draw_area(|f| TextArea::text(spec(f), 0.0, 0.0), w, h).0
}

/// [`draw`] of any area: the ink, and the renderer's instances.
fn draw_area(
    area: impl Fn(FontId) -> TextArea<'static>, w: u32, h: u32,
) -> (Vec<f64>, Vec<GlyphInstance>) {
    let (device, queue) = gpu();
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let mut atlas = TextAtlas::new(&device, CacheConfig::default()).unwrap();
    let font = atlas.add_font(sans()).unwrap();
    let area = area(font);
    let mut renderer = TextRenderer::new(&device, &atlas, format, Default::default(), None);
    let mut vp = Viewport::new(&device, &atlas);
    vp.update(&queue, w, h);
    vp.set_correction(&queue, TextCorrection::NEUTRAL).unwrap();
    let report = renderer.prepare(&device, &queue, &mut atlas, &[area], &vp).unwrap();
    assert!(report.skipped.is_empty() && report.counts.default_instance == 0);
    let target = Offscreen::new(&device, w, h, format).unwrap();
    let img = draw_and_read(&device, &queue, &renderer, &atlas, &target, wgpu::Color::WHITE);
    (ink(&img), renderer.instances().to_vec())
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

/// Rows of `ink` (width `w`) inked across `x0..x1` (every pixel at least 0.99).
fn full_rows(ink: &[f64], w: usize, x0: usize, x1: usize) -> Vec<usize> {
    ink.chunks(w)
        .enumerate()
        .filter(|(_, r)| r[x0..x1].iter().all(|&v| v > 0.99))
        .map(|(y, _)| y)
        .collect()
}

#[test]
fn decorations_are_solid_rows_in_the_glyph_draw() {
    let spec = |f| TextSpec::new("Underlined", f, 24.0).at(10.0, 10.0).underline().strikethrough();
    let (ink, instances) = draw_area(|f| TextArea::text(spec(f), 0.0, 0.0), 200, 50);
    let solid: Vec<&GlyphInstance> =
        instances.iter().filter(|i| i.page & SOLID_PAGE_BIT != 0).collect();
    assert_eq!(solid.len(), 2, "underline and strikethrough, in the one instance buffer");
    for s in &solid {
        let rows = full_rows(&ink, 200, s.x as usize, (s.x + s.width as i32) as usize);
        let want: Vec<usize> = (s.y as usize..(s.y + s.height as i32) as usize).collect();
        assert!(
            want.iter().all(|y| rows.contains(y)),
            "rows {want:?} solid across; full rows {rows:?}"
        );
    }
    // Clipped through the middle: what is left is still solid (the texel stays).
    let u = solid[0];
    let bounds = TextBounds { left: u.x + 20, top: 0, right: 120, bottom: 50 };
    let (clipped, _) =
        draw_area(|f| TextArea { bounds, ..TextArea::text(spec(f), 0.0, 0.0) }, 200, 50);
    let rows = full_rows(&clipped, 200, (u.x + 20) as usize, 120);
    assert!(rows.contains(&(u.y as usize)), "clipped underline solid: rows {rows:?}");
    assert!(clipped.chunks(200).all(|r| r[..(u.x + 20) as usize].iter().all(|&v| v < 0.01)));
    // Through a transform (the sampled path) the line is as solid.
    let (moved, _) = draw_area(
        |f| {
            TextArea::text(spec(f), 0.0, 0.0)
                .transformed(TextTransform::Affine([1.0, 0.0, 0.0, 1.0, 0.0, 0.0]))
        },
        200,
        50,
    );
    let rows = full_rows(&moved, 200, (u.x + 1) as usize, (u.x + u.width as i32 - 1) as usize);
    assert!(rows.contains(&(u.y as usize)), "transformed underline: rows {rows:?}");
}

/// Where DejaVu Sans's own tables put its lines, read with ttf-parser (not
/// through kerf), at `px`: the underline (`post`) and strikeout (`OS/2`) as
/// (top above the baseline, thickness), and the `hhea` ascender, in pixels.
fn font_lines(px: f32) -> ((f32, f32), (f32, f32), f32) {
    let bytes = dejavu::sans::regular();
    let face = ttf_parser::Face::parse(bytes, 0).unwrap();
    let scale = px / face.units_per_em() as f32;
    let (u, s) = (face.underline_metrics().unwrap(), face.strikeout_metrics().unwrap());
    (
        (u.position as f32 * scale, u.thickness as f32 * scale),
        (s.position as f32 * scale, s.thickness as f32 * scale),
        face.ascender() as f32 * scale,
    )
}

/// The read-back's solid rows are the font's lines: underline from `post`,
/// strikethrough from `OS/2`, overline at the ascender, each as thick as the
/// font says (rounded to whole pixels, at least one), under a baseline where
/// fontdue's layout puts it (the top plus the ceiled ascender), across the
/// advances ttf-parser reads. Nothing here comes from kerf's instances.
#[test]
fn decorations_sit_on_the_fonts_post_and_os2_lines() {
    const PX: f32 = 48.0;
    let (x, y, text) = (10.0f32, 10.0f32, "Underlined");
    let (w, h) = (320u32, 80u32);
    let spec = move |f| TextSpec::new(text, f, PX).at(x, y).underline().strikethrough().overline();
    let ink = draw(spec, w, h);
    let ((ut, uh), (st, sh), asc) = font_lines(PX);
    let baseline = y + asc.ceil();
    let face = ttf_parser::Face::parse(dejavu::sans::regular(), 0).unwrap();
    let advance: f32 = text
        .chars()
        .map(|c| face.glyph_hor_advance(face.glyph_index(c).unwrap()).unwrap() as f32)
        .sum::<f32>()
        * PX
        / face.units_per_em() as f32;
    let rows = |top: f32, thick: f32| {
        let y0 = (baseline - top).round() as usize;
        y0..y0 + thick.round().max(1.0) as usize
    };
    let mut want: Vec<usize> = rows(ut, uh).chain(rows(st, sh)).chain(rows(asc, uh)).collect();
    want.sort();
    // The lines run from the first pen to the last advance: every row the
    // font names solid across, within a pixel of each end, and no other.
    let (x0, x1) = ((x + 1.0) as usize, (x + advance - 1.0) as usize);
    assert_eq!(full_rows(&ink, w as usize, x0, x1), want, "solid rows across {x0}..{x1}");
    // And no further: the pixel two past each end is blank on those rows.
    for &r in &want {
        let row = &ink[r * w as usize..(r + 1) * w as usize];
        assert!(row[x as usize - 2] < 0.01 && row[(x + advance) as usize + 2] < 0.01, "row {r}");
    }
}

#[test]
fn shaper_decorations_draw_with_an_area() {
    static DECO: [Decoration; 1] =
        [Decoration { x: 5, y: 30, width: 100, height: 3, color: [0, 0, 0, 255] }];
    let deco = &DECO;
    let (ink, _) = draw_area(
        |f| TextArea::text(TextSpec::new("x", f, 12.0), 2.0, 1.0).with_decorations(deco),
        200,
        50,
    );
    // Offset by the area's (2, 1).
    assert_eq!(full_rows(&ink, 200, 7, 107), vec![31, 32, 33]);
    assert!(ink.chunks(200).skip(25).all(|r| r[6] < 0.01 && r[107] < 0.01), "no wider");
}

/// Per-pixel RGB of a read-back over white, and which pixels are mostly `channel`.
fn draw_rgb(area: impl Fn(FontId) -> TextArea<'static>, w: u32, h: u32) -> Vec<[u8; 3]> {
    let (device, queue) = gpu();
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let mut atlas = TextAtlas::new(&device, CacheConfig::default()).unwrap();
    let font = atlas.add_font(sans()).unwrap();
    let mut renderer = TextRenderer::new(&device, &atlas, format, Default::default(), None);
    let mut vp = Viewport::new(&device, &atlas);
    vp.update(&queue, w, h);
    vp.set_correction(&queue, TextCorrection::NEUTRAL).unwrap();
    let report = renderer.prepare(&device, &queue, &mut atlas, &[area(font)], &vp).unwrap();
    assert!(report.skipped.is_empty(), "{:?}", report.skipped);
    let target = Offscreen::new(&device, w, h, format).unwrap();
    let img = draw_and_read(&device, &queue, &renderer, &atlas, &target, wgpu::Color::WHITE);
    img.chunks(4).map(|p| [p[0], p[1], p[2]]).collect()
}

/// Centroid and variance (x, y) of the ink of a picture `w` pixels wide
/// (coverage under the neutral correction, read from the blue channel).
fn ink_moments(img: &[[u8; 3]], w: u32) -> (f64, f64, f64, f64) {
    let ink: Vec<f64> = img.iter().map(|p| (255 - p[2]) as f64 / 255.0).collect();
    let m: f64 = ink.iter().sum();
    let at = |i: usize| ((i % w as usize) as f64, (i / w as usize) as f64);
    let (mut x, mut y) = (0.0, 0.0);
    for (i, v) in ink.iter().enumerate() {
        x += v * at(i).0 / m;
        y += v * at(i).1 / m;
    }
    let (mut vx, mut vy) = (0.0, 0.0);
    for (i, v) in ink.iter().enumerate() {
        vx += v * (at(i).0 - x).powi(2) / m;
        vy += v * (at(i).1 - y).powi(2) / m;
    }
    (x, y, vx, vy)
}

/// Red pixels (an outline) left and right of the black ones (the stem) in
/// row `y` of a picture `w` pixels wide.
fn ring_beside_the_stem(px: &[[u8; 3]], w: u32, y: usize) -> (usize, usize) {
    let row = &px[y * w as usize..(y + 1) * w as usize];
    let black: Vec<usize> = (0..w as usize).filter(|&x| row[x][0] < 60).collect();
    let red: Vec<usize> = (0..w as usize).filter(|&x| row[x][0] > 200 && row[x][1] < 60).collect();
    let (b0, b1) = (black[0], *black.last().unwrap());
    (red.iter().filter(|&&x| x < b0).count(), red.iter().filter(|&&x| x > b1).count())
}

/// An area's outline and shadow are in the area's units: at scale 3 the
/// ring is three times as wide (9 px for a width of 3, ±1 for the rims),
/// the shadow's ink sits three times its offset away and its variance
/// grows by the square of three times its σ (blur 3 at scale 3: σ = 4.5,
/// +20.25), as geometry says. (At scale 3 a size scaled and a size with
/// the scale added differ for every value used.)
#[test]
fn an_areas_effects_scale_with_it() {
    let (w, h) = (240u32, 200u32);
    let scaled = |area: TextArea<'static>| TextArea { scale: 3.0, ..area };
    let px = draw_rgb(
        |f| {
            let spec = TextSpec::new("l", f, 32.0).at(25.0, 5.0);
            scaled(TextArea::text(spec, 0.0, 0.0).with_outline(3.0, [255, 0, 0, 255]))
        },
        w,
        h,
    );
    let (left, right) = ring_beside_the_stem(&px, w, 60);
    assert!((8..=10).contains(&left) && (8..=10).contains(&right), "ring {left} | {right} px");
    let plain = draw_rgb(
        |f| scaled(TextArea::text(TextSpec::new("Ho", f, 20.0).at(8.0, 8.0), 0.0, 0.0)),
        w,
        h,
    );
    let shadow = draw_rgb(
        |f| {
            let spec = TextSpec::new("Ho", f, 20.0).at(8.0, 8.0).color([0, 0, 0, 0]);
            scaled(TextArea::text(spec, 0.0, 0.0).with_shadow((3.0, 2.0), 3.0, [0, 0, 0, 255]))
        },
        w,
        h,
    );
    let (a, b) = (ink_moments(&plain, w), ink_moments(&shadow, w));
    assert!((b.0 - a.0 - 9.0).abs() < 0.5 && (b.1 - a.1 - 6.0).abs() < 0.5, "{a:?} → {b:?}");
    for (va, vb) in [(a.2, b.2), (a.3, b.3)] {
        assert!((vb - va - 20.25).abs() < 3.0, "variance {va:.2} → {vb:.2}, expected +20.25");
    }
}

#[test]
fn an_outline_ring_and_a_shadow_on_the_read_back() {
    // Black 'l' with a red outline 3 px wide: along a row through the stem,
    // red pixels on each side of the black ones, 3 each (±1 for the rims).
    let (w, h) = (120u32, 100u32);
    let px = draw_rgb(
        |f| {
            TextArea::text(
                TextSpec::new("l", f, 64.0).at(50.0, 10.0).outline(3.0, [255, 0, 0, 255]),
                0.0,
                0.0,
            )
        },
        w,
        h,
    );
    let (left, right) = ring_beside_the_stem(&px, w, 50);
    assert!((2..=4).contains(&left) && (2..=4).contains(&right), "ring {left} | {right} px");
    // The same through a transformed area (the sampled path).
    let moved = draw_rgb(
        |f| {
            TextArea::text(TextSpec::new("l", f, 64.0).at(50.0, 10.0), 0.0, 0.0)
                .with_outline(3.0, [255, 0, 0, 255])
                .transformed(TextTransform::IDENTITY)
        },
        w,
        h,
    );
    let row = &moved[50 * w as usize..51 * w as usize];
    assert!(
        row.iter().filter(|p| p[0] > 200 && p[1] < 60).count() >= 4,
        "transformed outline drawn"
    );

    // A shadow alone (the text itself transparent): its ink's centroid sits
    // at the offset from the plain text's.
    let ink_centroid = |img: &[[u8; 3]]| ink_moments(img, w);
    let plain =
        draw_rgb(|f| TextArea::text(TextSpec::new("Ho", f, 40.0).at(20.0, 20.0), 0.0, 0.0), w, h);
    let shadow = draw_rgb(
        |f| {
            let spec = TextSpec::new("Ho", f, 40.0).at(20.0, 20.0).color([0, 0, 0, 0]);
            TextArea::text(spec.shadow((6.0, 4.0), 3.0, [0, 0, 0, 255]), 0.0, 0.0)
        },
        w,
        h,
    );
    let (a, b) = (ink_centroid(&plain), ink_centroid(&shadow));
    assert!((b.0 - a.0 - 6.0).abs() < 0.3 && (b.1 - a.1 - 4.0).abs() < 0.3, "{a:?} → {b:?}");
    // Blur radius 3: σ = 1.5, and a Gaussian adds σ² = 2.25 to the variance.
    for (va, vb) in [(a.2, b.2), (a.3, b.3)] {
        assert!((vb - va - 2.25).abs() < 0.6, "variance {va:.2} → {vb:.2}, expected +2.25");
    }
}

/// Bold and italic with LCD anti-aliasing and through a transform: the
/// instance reaches both paths (heavier than regular, and an italic stem
/// leans as much under an identity transform as without).
#[test]
fn instances_reach_lcd_and_transformed_text() {
    let (device, queue) = gpu();
    if !device.features().contains(wgpu::Features::DUAL_SOURCE_BLENDING) {
        eprintln!("no dual-source blending here: the LCD half is skipped");
    }
    let draw_lcd = |bold: bool| {
        let format = wgpu::TextureFormat::Rgba8Unorm;
        let mut atlas = TextAtlas::new(&device, CacheConfig::default()).unwrap();
        let font = atlas.add_font(sans()).unwrap();
        let mut renderer = TextRenderer::new(&device, &atlas, format, Default::default(), None);
        let aa = Antialiasing::Lcd(SubpixelOrder::Rgb);
        let lcd = renderer.set_antialiasing(&device, &atlas, aa).is_none();
        let mut vp = Viewport::new(&device, &atlas);
        vp.update(&queue, 240, 40);
        vp.set_correction(&queue, TextCorrection::NEUTRAL).unwrap();
        let mut spec = TextSpec::new("Hamburgefonstiv", font, 20.0).at(4.0, 4.0);
        if bold {
            spec = spec.weight(700.0);
        }
        let report = renderer
            .prepare(&device, &queue, &mut atlas, &[TextArea::text(spec, 0.0, 0.0)], &vp)
            .unwrap();
        assert!(report.skipped.is_empty() && report.counts.default_instance == 0);
        let target = Offscreen::new(&device, 240, 40, format).unwrap();
        let img = draw_and_read(&device, &queue, &renderer, &atlas, &target, wgpu::Color::WHITE);
        (lcd, ink(&img).iter().sum::<f64>())
    };
    let ((lcd, regular), (_, bold)) = (draw_lcd(false), draw_lcd(true));
    assert!(bold / regular > 1.25, "LCD {lcd}: bold / regular ink {:.3}", bold / regular);
    let spec = |f| TextSpec::new("l", f, 64.0).at(30.25, 8.0).italic();
    let plain = lean(&draw(spec, 128, 96), 128);
    let moved = lean(
        &draw_area(
            |f| TextArea::text(spec(f), 0.0, 0.0).transformed(TextTransform::IDENTITY),
            128,
            96,
        )
        .0,
        128,
    );
    assert!((moved - plain).abs() < 0.01, "transformed italic leans {moved:.4}, plain {plain:.4}");
}
