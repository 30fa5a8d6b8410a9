//! The swash rasterizer (feature `swash`): sizes it measures, agreement with
//! fontdue without hinting, hinting's sharper horizontal edges, LCD, bad fonts.
#![cfg(feature = "swash")]

use kerf_cache::*;
use kerf_cache::{
    fonts::FontRef,
    rasterize::{FontdueRasterizer, GlyphImage, Rasterizer, SwashRasterizer},
};

fn cache(r: SwashRasterizer) -> (GlyphCache, FontId) {
    let mut c = GlyphCache::with_rasterizer(
        CacheConfig { page_size: 512, max_pages: 2, ..CacheConfig::default() },
        Box::new(r),
    )
    .expect("config");
    let f = c.add_font(dejavu::sans::regular().to_vec()).expect("DejaVu Sans loads");
    (c, f)
}

const TEXT: &str = "Hamburgefontsiv AVWY 0123 {}@& xz=";

fn key(id: FontId, g: u16, px: f32, mode: RenderMode, off: u8) -> GlyphKey {
    GlyphKey {
        mode,
        subpixel_x: off,
        ..GlyphKey::new(id, g, GlyphSize::from_px(px, 1024.0).expect("size"))
    }
}

/// Total ink (pixels of full coverage) and its centroid (x, y) from the pen.
fn ink(img: &GlyphImage, per_px: usize) -> (f64, f64, f64) {
    let (mut m, mut mx, mut my) = (0.0, 0.0, 0.0);
    for y in 0..img.height as usize {
        for x in 0..img.width as usize {
            let v = img.pixels[y * img.width as usize + x] as f64 / 255.0 / per_px as f64;
            m += v;
            mx += v * (img.left as f64 + (x as f64 + 0.5) / per_px as f64);
            my += v * ((img.bottom + img.height as i32) as f64 - y as f64 - 0.5);
        }
    }
    (m, mx / m.max(1e-9), my / m.max(1e-9))
}

#[test]
fn measure_matches_the_raster_in_every_mode() {
    for hinting in [false, true] {
        let (c, id) = cache(SwashRasterizer::new().hinting(hinting));
        let f = c.font_ref(id).expect("font");
        let r = SwashRasterizer::new().hinting(hinting);
        for px in [9.0f32, 11.0, 13.5, 16.0, 40.0] {
            for ch in TEXT.chars() {
                let g = f.font.glyph_index(ch);
                for (mode, off) in [
                    (RenderMode::Coverage, 0),
                    (RenderMode::ShiftedCoverage, 96),
                    (RenderMode::Lcd, 0),
                    (RenderMode::Lcd, 192),
                ] {
                    let k = key(id, g, px, mode, off);
                    let img = r.rasterize(f, &k).expect("raster");
                    assert_eq!(
                        r.measure(f, &k).expect("measure"),
                        (img.width, img.height),
                        "'{ch}' {px} px {mode:?} +{off} hinting {hinting}"
                    );
                    assert_eq!(img.pixels.len(), (img.width * img.height) as usize);
                }
            }
        }
    }
}

/// Without hinting swash and fontdue rasterize the same outlines: the same
/// ink, in the same place; offsets move it as asked.
#[test]
fn unhinted_swash_agrees_with_fontdue() {
    let (c, id) = cache(SwashRasterizer::new());
    let f = c.font_ref(id).expect("font");
    let r = SwashRasterizer::new();
    for px in [10.0f32, 16.0, 31.0] {
        for ch in TEXT.chars().filter(|c| !c.is_whitespace()) {
            let g = f.font.glyph_index(ch);
            let a = ink(
                &FontdueRasterizer
                    .rasterize(f, &key(id, g, px, RenderMode::Coverage, 0))
                    .expect("fontdue"),
                1,
            );
            let b =
                ink(&r.rasterize(f, &key(id, g, px, RenderMode::Coverage, 0)).expect("swash"), 1);
            assert!(
                (a.0 - b.0).abs() <= 0.03 * a.0 + 0.1,
                "'{ch}' {px}: ink {} vs fontdue {}",
                b.0,
                a.0
            );
            assert!(
                (a.1 - b.1).abs() < 0.1 && (a.2 - b.2).abs() < 0.1,
                "'{ch}' {px}: centroid {b:?} vs fontdue {a:?}"
            );
            let s = ink(
                &r.rasterize(f, &key(id, g, px, RenderMode::ShiftedCoverage, 128)).expect("swash"),
                1,
            );
            // (Area sampling moves a thin stem's centroid by the offset only up to
            // its phase error at both positions, as for fontdue: up to 0.15 px.)
            assert!(
                (s.1 - b.1 - 0.5).abs() < 0.16,
                "'{ch}' {px}: offset 0.5 moved the ink {}",
                s.1 - b.1
            );
            let l = ink(&r.rasterize(f, &key(id, g, px, RenderMode::Lcd, 128)).expect("swash"), 3);
            // The 3x raster's area sampling differs from the 1x one by a few percent.
            assert!(
                (l.0 - s.0).abs() <= 0.04 * s.0 + 0.1 && (l.1 - s.1).abs() < 0.1,
                "'{ch}' {px}: LCD {l:?} vs grayscale {s:?}"
            );
        }
    }
}

/// Gray pixels (neither ink nor paper) in the columns through the middle of
/// each glyph: hinting fits horizontal edges (baseline, x-height, bars) to
/// pixel rows, so far fewer pixels there are partly covered.
fn gray_in_middle_columns(r: SwashRasterizer, px: f32) -> (usize, usize) {
    let (c, id) = cache(r);
    let f = c.font_ref(id).expect("font");
    let (mut gray, mut inked) = (0, 0);
    for ch in "HEFTLxzeo=-".chars() {
        let g = f.font.glyph_index(ch);
        let img = r.rasterize(f, &key(id, g, px, RenderMode::Coverage, 0)).expect("raster");
        let x = img.width as usize / 2;
        for y in 0..img.height as usize {
            let v = img.pixels[y * img.width as usize + x];
            gray += (v > 25 && v < 230) as usize;
            inked += (v >= 230) as usize;
        }
    }
    (gray, inked)
}

#[test]
fn hinting_puts_horizontal_edges_on_pixel_rows() {
    let mut rows = Vec::new();
    for px in [9.0f32, 10.0, 11.0, 12.0, 13.0, 14.0] {
        let (off, off_ink) = gray_in_middle_columns(SwashRasterizer::new(), px);
        let (on, on_ink) = gray_in_middle_columns(SwashRasterizer::new().hinting(true), px);
        if std::env::var("TABLE").is_ok() {
            eprintln!(
                "{px} px: gray pixels unhinted {off} (ink {off_ink}), hinted {on} (ink {on_ink})"
            );
        }
        rows.push((px, off, on, off_ink, on_ink));
    }
    for (px, off, on, off_ink, on_ink) in rows {
        assert!(on * 10 <= off * 7, "{px} px: hinted {on} gray pixels vs unhinted {off}");
        assert!(on_ink > off_ink, "{px} px: hinting makes bars solid ({on_ink} vs {off_ink})");
    }
}

#[test]
fn unreadable_font_bytes_are_an_error() {
    let (c, id) = cache(SwashRasterizer::new());
    let good = c.font_ref(id).expect("font");
    let k = key(id, 36, 12.0, RenderMode::Coverage, 0);
    let r = SwashRasterizer::new().hinting(true);
    for bytes in [&b""[..], b"not a font at all"] {
        let bad = FontRef { bytes, ..good };
        assert_eq!(r.rasterize(bad, &k), Err(RasterError::BadFont));
        assert_eq!(r.measure(bad, &k), Err(RasterError::BadFont));
    }
    // A font cut short: an error or a blank glyph, never a panic or garbage.
    let cut = FontRef { bytes: &dejavu::sans::regular()[..4096], ..good };
    match r.rasterize(cut, &k) {
        Ok(img) => assert_eq!((img.width, img.height), (0, 0)),
        Err(e) => assert!(matches!(e, RasterError::BadFont | RasterError::Panicked), "{e}"),
    }
    // Through the cache: a hinted frame draws every glyph.
    let (mut c, id) = cache(SwashRasterizer::new().hinting(true));
    let mut quads = Vec::new();
    let mut frame = c.begin_frame();
    frame.layout(&TextSpec::new("Hinted text, 12 px", id, 12.0), &mut quads).expect("layout");
    let out = frame.finish();
    assert!(out.skipped.is_empty() && quads.len() == 15, "{:?}", out.skipped);
    c.check_invariants().expect("consistent");
}

/// Synthetic bold grows every side evenly: swash's embolden grows right
/// and up, and kerf moves it back, so each emboldened glyph's ink centroid
/// stays where swash draws the plain glyph's (symmetric glyphs, no hinting),
/// while its ink grows.
#[test]
fn synthetic_bold_grows_evenly_about_the_plain_glyph() {
    let (mut c, f) = cache(SwashRasterizer::new());
    let bold = c.add_instance(f, &FontStyle::new().weight(700.0)).unwrap().font;
    let r = SwashRasterizer::new();
    for ch in ['O', 'H', 'o', 'I'] {
        let g = c.fonts().get(f).unwrap().glyph_index(ch);
        let plain =
            r.rasterize(c.font_ref(f).unwrap(), &key(f, g, 32.0, RenderMode::Coverage, 0)).unwrap();
        let heavy = r
            .rasterize(c.font_ref(bold).unwrap(), &key(bold, g, 32.0, RenderMode::Coverage, 0))
            .unwrap();
        let (m0, x0, y0) = ink(&plain, 1);
        let (m1, x1, y1) = ink(&heavy, 1);
        assert!(m1 > m0 * 1.05, "{ch}: ink {m0} -> {m1}");
        assert!(
            (x1 - x0).abs() < 0.1 && (y1 - y0).abs() < 0.1,
            "{ch}: centroid ({x0}, {y0}) -> ({x1}, {y1})"
        );
    }
}
