//! Sub-pixel x positioning: glyphs drawn at fractional pen positions land
//! where the pen says, to within the bin spacing, and each bin is its own
//! cache entry.

use kerf_cache::*;
use kerf_cache::{
    limits::MAX_SUBPIXEL_BINS,
    rasterize::{FontdueRasterizer, GlyphImage, Rasterizer},
};

mod canvas;
use canvas::composite;

mod shaping;

fn cache_with_bins(bins: u32) -> (GlyphCache, FontId) {
    let mut c = GlyphCache::new(CacheConfig {
        page_size: 512,
        max_pages: 1,
        subpixel_bins: bins,
        ..CacheConfig::default()
    })
    .expect("valid config");
    let f = c.add_font(dejavu::sans::regular().to_vec()).expect("DejaVu Sans loads");
    (c, f)
}

/// The ink centroid (x) of each stem of a run of `l`s: columns are split
/// into stems at the blank columns between them.
fn stem_centroids(canvas: &[f32], w: usize, h: usize) -> Vec<f64> {
    let column: Vec<f64> = (0..w).map(|x| (0..h).map(|y| canvas[y * w + x] as f64).sum()).collect();
    let mut out = Vec::new();
    let (mut mass, mut moment) = (0.0, 0.0);
    for (x, &m) in column.iter().enumerate() {
        if m > 1e-6 {
            mass += m;
            moment += m * (x as f64 + 0.5);
        } else if mass > 0.0 {
            out.push(moment / mass);
            (mass, moment) = (0.0, 0.0);
        }
    }
    if mass > 0.0 {
        out.push(moment / mass);
    }
    out
}

/// Largest distance of the points `(i, c[i])` from their least-squares line.
fn max_residual(c: &[f64]) -> f64 {
    let n = c.len() as f64;
    let mx = (0..c.len()).map(|i| i as f64).sum::<f64>() / n;
    let my = c.iter().sum::<f64>() / n;
    let sxy: f64 = c.iter().enumerate().map(|(i, y)| (i as f64 - mx) * (y - my)).sum();
    let sxx: f64 = (0..c.len()).map(|i| (i as f64 - mx).powi(2)).sum();
    let slope = sxy / sxx;
    c.iter()
        .enumerate()
        .map(|(i, y)| (y - (my + slope * (i as f64 - mx))).abs())
        .fold(0.0, f64::max)
}

/// "llll…" at 16 px, pens advancing by the exact (fractional) advance:
/// the largest deviation of the stems' ink centroids from a straight line.
fn llll_residual(bins: u32, start_x: f32) -> (f64, usize) {
    let (mut c, f) = cache_with_bins(bins);
    let font = c.fonts().get(f).expect("font");
    let l = font.glyph_index('l');
    let advance = font.advance(l, 16.0);
    assert!(
        (advance - 4.45).abs() < 0.05,
        "DejaVu Sans 'l' at 16 px advances {advance} px, expected about 4.45"
    );
    let n = 40;
    let glyphs: Vec<PositionedGlyph> = (0..n)
        .map(|i| PositionedGlyph {
            font: f,
            glyph: l,
            size: 16.0,
            x: start_x + i as f32 * advance,
            y: 24.0,
            color: [0, 0, 0, 255],
        })
        .collect();
    let mut quads = Vec::new();
    let mut frame = c.begin_frame();
    frame.prepare(&glyphs, &mut quads);
    let out = frame.finish();
    assert!(out.skipped.is_empty());
    let (w, h) = (200, 32);
    let canvas = composite(&c, &quads, w, h);
    let centroids = stem_centroids(&canvas, w, h);
    assert_eq!(centroids.len(), n, "every stem separate");
    (max_residual(&centroids), c.len())
}

/// Area sampling (each pixel the ink inside its square) shows a narrow stem's
/// ink centroid off its outline's centre by up to about 0.085 px depending on
/// where the stem falls in the pixel (DejaVu Sans 'l' at 16 px is 1.44 px
/// wide); snapping the pen to `bins` offsets adds up to 1/(2·bins). Measured
/// worst cases over 20 start positions (DejaVu Sans 'l', 16 px, each bin the
/// outline moved and filled): 1 bin 0.50 px, 3 bins 0.23, 4 bins 0.20, 6 bins
/// 0.17, 8 bins 0.14. `TABLE=1 cargo test --test subpixel -- --nocapture
/// stems` prints them.
#[test]
fn stems_at_fractional_advances_lie_on_a_line() {
    let worst = |bins: u32| {
        (0..20).map(|k| llll_residual(bins, 3.0 + k as f32 * 0.05).0).fold(0.0, f64::max)
    };
    let (w1, w4, w8) = (worst(1), worst(4), worst(8));
    if std::env::var("TABLE").is_ok() {
        for bins in [1, 2, 3, 4, 5, 6, 8, 12, 16] {
            eprintln!("bins {bins}: worst stem residual {:.3} px", worst(bins));
        }
    }
    assert!(w8 <= 0.15, "8 bins: stems deviate up to {w8:.3} px from a line");
    assert!(w4 <= 0.21, "4 bins (the default): stems deviate up to {w4:.3} px from a line");
    // Whole-pixel snapping is what the bins fix: it leaves far more.
    assert!(w1 > 0.45, "1 bin snaps to whole pixels: expected about 0.5 px, got {w1:.3}");
    let (_, entries1) = llll_residual(1, 3.0);
    let (_, entries4) = llll_residual(4, 3.0);
    assert_eq!((entries1, entries4), (1, 4), "one cache entry per offset used");
}

#[test]
fn the_bin_is_part_of_the_key() {
    for (bins, expected) in [(4, 2), (1, 1)] {
        let (mut c, f) = cache_with_bins(bins);
        let g = c.fonts().get(f).expect("font").glyph_index('a');
        let at = |x: f32| PositionedGlyph {
            font: f,
            glyph: g,
            size: 16.0,
            x,
            y: 20.0,
            color: [0, 0, 0, 255],
        };
        let mut quads = Vec::new();
        let mut frame = c.begin_frame();
        frame.prepare(&[at(10.0), at(10.25), at(30.0)], &mut quads);
        frame.finish();
        assert_eq!(c.len(), expected, "bins {bins}");
        let offsets: Vec<u8> = c.entries().map(|(k, _)| k.subpixel_x).collect();
        if bins == 4 {
            assert!(offsets.contains(&0) && offsets.contains(&64), "{offsets:?}");
        } else {
            assert_eq!(offsets, vec![0]);
        }
    }
}

/// Every glyph of a line of text at every bin: the shifted raster keeps the
/// glyph's ink (the coverage sum) and moves its ink centroid by the bin's
/// offset, measured against offset 0 of the same raster (itself checked
/// against fontdue's own 1x raster).
#[test]
fn shifted_rasters_move_ink_by_the_offset_and_keep_it() {
    let (c, id) = cache_with_bins(4);
    let fref = c.font_ref(id).expect("font");
    let r = FontdueRasterizer;
    let text = "Hamburgefontsiv AVWY 0123 {}@& kerf";
    for px in [9.0f32, 12.5, 16.0, 31.0] {
        for ch in text.chars().filter(|c| !c.is_whitespace()) {
            let g = fref.font.glyph_index(ch);
            let size = GlyphSize::from_px(px, 1024.0).expect("size");
            let shifted = |off: u8| GlyphKey {
                subpixel_x: off,
                mode: RenderMode::ShiftedCoverage,
                ..GlyphKey::new(id, g, size)
            };
            let whole = r.rasterize(fref, &GlyphKey::new(id, g, size)).expect("raster");
            let base = r.rasterize(fref, &shifted(0)).expect("raster");
            let (m1, c1) = ink(&whole);
            let (m0, c0) = ink(&base);
            // Offset 0 of the shifted raster is fontdue's own glyph, up to
            // where fontdue's 1x raster misplaces ink (< 0.1 px).
            assert!(
                (m1 - m0).abs() <= 0.02 * m1 + 2.0 && (c1 - c0).abs() < 0.1,
                "'{ch}' {px} px: ink {m0} at {c0:.3} vs fontdue {m1} at {c1:.3}"
            );
            for off in [64u8, 85, 128, 171, 192, 250] {
                let key = shifted(off);
                let img = r.rasterize(fref, &key).expect("raster");
                assert_eq!(r.measure(fref, &key).expect("measure"), (img.width, img.height));
                assert_eq!(
                    (img.bottom, img.height),
                    (base.bottom, base.height),
                    "'{ch}' {px} px: vertical placement unchanged"
                );
                let (m, c) = ink(&img);
                assert!(
                    (m - m0).abs() <= 0.02 * m0 + 2.0,
                    "'{ch}' {px} px offset {off}: ink {m} vs {m0}"
                );
                let moved = c - c0;
                let want = off as f64 / 256.0;
                // Area sampling moves a glyph's ink centroid by the offset
                // only up to its phase error at each of the two positions
                // (up to about 0.085 px each for a stem 1 to 2 px wide: 'i'
                // at 16 px moves 0.654 px for 0.5).
                assert!(
                    (moved - want).abs() < 0.17,
                    "'{ch}' {px} px offset {off}: centroid moved {moved:.3} px, want {want:.3}"
                );
            }
        }
    }
}

/// Total coverage and ink centroid x (pixels from the pen) of a bitmap.
fn ink(img: &GlyphImage) -> (f64, f64) {
    let (mut mass, mut moment) = (0.0, 0.0);
    for y in 0..img.height as usize {
        for x in 0..img.width as usize {
            let v = img.pixels[y * img.width as usize + x] as f64;
            mass += v;
            moment += v * (img.left as f64 + x as f64 + 0.5);
        }
    }
    (mass / 255.0, moment / mass.max(1e-9))
}

#[test]
fn bins_outside_the_range_are_refused() {
    for bins in [0, MAX_SUBPIXEL_BINS + 1] {
        let err = GlyphCache::new(CacheConfig { subpixel_bins: bins, ..CacheConfig::default() })
            .unwrap_err();
        assert_eq!(err, ConfigError::SubpixelBins(bins));
    }
}

/// `GlyphCache::positions` (pens on the baseline, what transformed text
/// draws) places glyphs where `Frame::layout` does.
#[test]
fn positions_agree_with_layout() {
    let mut c = GlyphCache::new(CacheConfig::default()).unwrap();
    let f = c.add_font(dejavu::sans::regular().to_vec()).unwrap();
    for size in [11.0, 16.0, 23.5] {
        let spec = TextSpec::new("Wrap me: the quick brown fox jumps over the lazy dog.", f, size)
            .at(3.25, 7.5)
            .wrap(160.0);
        let mut pens = Vec::new();
        c.positions(&spec, &mut pens).unwrap();
        assert_eq!(pens.len(), spec.text.chars().filter(|ch| !ch.is_control()).count());
        let (mut from_layout, mut from_pens) = (Vec::new(), Vec::new());
        let mut fr = c.begin_frame();
        fr.layout(&spec, &mut from_layout).unwrap();
        fr.prepare(&pens, &mut from_pens);
        fr.finish();
        assert_eq!(from_layout, from_pens, "{size} px");
        assert!(
            pens.iter().any(|p| p.y > pens[0].y),
            "{size} px: the text wraps onto a second line"
        );
    }
    let mut none = Vec::new();
    assert!(c.positions(&TextSpec::new("x", f, f32::NAN), &mut none).is_err());
    assert!(none.is_empty());
}

/// `GlyphCache::positions` puts pens where HarfBuzz does with kerning off
/// (`hb-shape --features=-kern`: the plain path is fontdue's layout, which
/// reads no GPOS kerning), and on the spec's first baseline: the
/// spec's top plus the font's ascent rounded up to whole pixels (fontdue's
/// layout keeps baselines a whole number of pixels below the top).
#[test]
fn positions_are_harfbuzz_pens() {
    let mut c = GlyphCache::new(CacheConfig::default()).unwrap();
    let f = c.add_font(dejavu::sans::regular().to_vec()).unwrap();
    let bytes = dejavu::sans::regular();
    let face = ttf_parser::Face::parse(bytes, 0).unwrap();
    // hhea's ascender, read here rather than through fontdue.
    let ascent = face.ascender() as f32 * shaping::PX / face.units_per_em() as f32;
    for text in ["AVATAR Wave To", "Typography, LT AV 1.5"] {
        let spec = TextSpec::new(text, f, shaping::PX).at(3.25, 7.5);
        let mut pens = Vec::new();
        c.positions(&spec, &mut pens).unwrap();
        let (hb, _) = shaping::hb_shape_with(
            &shaping::dejavu_file(),
            0,
            text,
            "ltr",
            3.25,
            &["--features=-kern"],
        );
        assert_eq!(
            pens.len(),
            hb.len(),
            "{text}: one glyph per character (no ligatures on the plain path)"
        );
        for (p, h) in pens.iter().zip(&hb) {
            assert_eq!(p.glyph, h.id, "{text}");
            assert!(
                (p.x - h.x).abs() <= shaping::PEN_TOLERANCE,
                "{text}: glyph {} at x {} (HarfBuzz {})",
                p.glyph,
                p.x,
                h.x
            );
            assert!(
                (p.y - (7.5 + ascent.ceil())).abs() <= shaping::PEN_TOLERANCE,
                "{text}: pen y {} (ascent {ascent})",
                p.y
            );
        }
    }
}

/// A frame's missed bins of one glyph are drawn from one 3× raster
/// (`Rasterizer::rasterize_offsets`): each must equal that bin rasterized on
/// its own, in every mode drawn from the 3× raster, and a cold frame's page
/// texels must equal fresh rasters of every key.
#[test]
fn bins_drawn_together_equal_bins_drawn_alone() {
    let (mut c, f) = cache_with_bins(4);
    let font = c.font_ref(f).expect("font");
    let r = FontdueRasterizer;
    for mode in [RenderMode::ShiftedCoverage, RenderMode::Lcd] {
        for ch in ['a', 'W', 'f', 'i', '@'] {
            for px in [9.0, 13.5, 24.0] {
                let glyph = font.font.glyph_index(ch);
                let keys: Vec<GlyphKey> = [0u8, 64, 128, 192]
                    .iter()
                    .map(|&s| GlyphKey {
                        mode,
                        subpixel_x: s,
                        ..GlyphKey::new(f, glyph, GlyphSize::from_px(px, 1024.0).unwrap())
                    })
                    .collect();
                let together = r.rasterize_offsets(font, &keys);
                assert_eq!(together.len(), keys.len());
                for (k, t) in keys.iter().zip(&together) {
                    assert_eq!(
                        t.as_ref().unwrap(),
                        &r.rasterize(font, k).unwrap(),
                        "{ch} {px} {k:?}"
                    );
                }
                assert_ne!(together[0], together[1], "{ch} {px}: the offsets must differ");
            }
        }
    }
    // Through the cache: a paragraph's keys (several bins per glyph) placed
    // in one cold frame hold exactly each key's own raster.
    let glyphs: Vec<PositionedGlyph> = (0..200)
        .map(|i| PositionedGlyph {
            font: f,
            glyph: c.fonts().get(f).unwrap().glyph_index(char::from(b'a' + (i % 26) as u8)),
            size: 15.0,
            x: i as f32 * 7.3,
            y: 20.0,
            color: [0; 4],
        })
        .collect();
    let mut quads = Vec::new();
    let mut fr = c.begin_frame();
    fr.prepare(&glyphs, &mut quads);
    fr.finish();
    let keys: Vec<(GlyphKey, GlyphEntry)> = c.entries().map(|(k, e)| (*k, e)).collect();
    assert!(
        keys.iter().filter(|(k, _)| k.glyph == glyphs[0].glyph).count() > 1,
        "a glyph must be cached at several bins"
    );
    for (k, e) in keys {
        let img = c.rasterize_key(&k).unwrap();
        let page = &c.pages()[e.page as usize];
        let side = page.side() as usize;
        for row in 0..img.height as usize {
            let at = (e.y as usize + row) * side + e.x as usize;
            assert_eq!(
                &page.pixels()[at..at + img.width as usize],
                &img.pixels[row * img.width as usize..][..img.width as usize],
                "{k:?}"
            );
        }
    }
}
