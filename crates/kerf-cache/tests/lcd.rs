//! LCD anti-aliasing in the cache: three texels per pixel, the same ink and
//! the same place as grayscale coverage, its own keys, grayscale above
//! LCD_MAX_PX.

use kerf_cache::rasterize::{FontdueRasterizer, GlyphImage, Rasterizer};
use kerf_cache::*;

mod shaping;

fn cache(bins: u32) -> (GlyphCache, FontId) {
    let mut c = GlyphCache::new(CacheConfig {
        page_size: 512,
        max_pages: 2,
        subpixel_bins: bins,
        ..CacheConfig::default()
    })
    .expect("valid config");
    let f = c.add_font(dejavu::sans::regular().to_vec()).expect("DejaVu Sans loads");
    (c, f)
}

/// Total ink (in pixels of full coverage) and ink centroid x (pixels from the
/// pen) of a raster; LCD rasters count each texel as a third of a pixel.
fn ink(img: &GlyphImage, texels_per_px: usize) -> (f64, f64) {
    let (mut mass, mut moment) = (0.0, 0.0);
    let tp = texels_per_px as f64;
    for y in 0..img.height as usize {
        for x in 0..img.width as usize {
            let v = img.pixels[y * img.width as usize + x] as f64 / 255.0 / tp;
            mass += v;
            moment += v * (img.left as f64 + (x as f64 + 0.5) / tp);
        }
    }
    (mass, moment / mass.max(1e-9))
}

/// Every glyph of a line at several sizes and offsets: the LCD raster holds
/// the grayscale raster's ink, centred where the grayscale raster is (the
/// filter is symmetric), three texels per pixel.
#[test]
fn lcd_rasters_keep_the_ink_and_the_place_of_grayscale() {
    let (c, id) = cache(4);
    let fref = c.font_ref(id).expect("font");
    let r = FontdueRasterizer;
    for px in [9.0f32, 12.0, 16.0, 30.0] {
        let size = GlyphSize::from_px(px, 1024.0).expect("size");
        for ch in "Hamburgefontsiv AVWY 0123 {}@&".chars().filter(|c| !c.is_whitespace()) {
            let g = fref.font.glyph_index(ch);
            for off in [0u8, 64, 128, 192] {
                let key = |mode| GlyphKey { mode, subpixel_x: off, ..GlyphKey::new(id, g, size) };
                let gray = r.rasterize(fref, &key(RenderMode::ShiftedCoverage)).expect("raster");
                let lcd = r.rasterize(fref, &key(RenderMode::Lcd)).expect("raster");
                assert_eq!(lcd.width % 3, 0, "three texels per pixel");
                assert_eq!(
                    r.measure(fref, &key(RenderMode::Lcd)).expect("measure"),
                    (lcd.width, lcd.height)
                );
                assert_eq!((lcd.bottom, lcd.height), (gray.bottom, gray.height));
                let (mg, cg) = ink(&gray, 1);
                let (ml, cl) = ink(&lcd, 3);
                assert!(
                    (ml - mg).abs() <= 0.02 * mg + 0.05,
                    "'{ch}' {px} px +{off}: ink {ml:.2} vs grayscale {mg:.2}"
                );
                // Grayscale pixels place ink to within half a third of the
                // 3x columns both come from.
                assert!(
                    (cl - cg).abs() < 0.1,
                    "'{ch}' {px} px +{off}: centroid {cl:.3} vs grayscale {cg:.3}"
                );
            }
        }
    }
}

/// A vertical stem seen by the three stripes of each pixel: the left stripe
/// of the pixel holding the stem's left edge sees less than the right one.
#[test]
fn stripes_see_the_stem_edges() {
    let (c, id) = cache(1);
    let fref = c.font_ref(id).expect("font");
    let g = fref.font.glyph_index('l');
    let size = GlyphSize::from_px(40.0, 1024.0).expect("size");
    let key = GlyphKey { mode: RenderMode::Lcd, ..GlyphKey::new(id, g, size) };
    let img = FontdueRasterizer.rasterize(fref, &key).expect("raster");
    let row = &img.pixels[(img.height as usize / 2) * img.width as usize..][..img.width as usize];
    let first = row.iter().position(|&v| v > 0).expect("ink");
    let last = row.iter().rposition(|&v| v > 0).expect("ink");
    let peak = *row.iter().max().expect("texels");
    assert!(peak >= 250, "a 40 px stem is solid in the middle: {row:?}");
    // Ink rises over the left edge's texels and falls over the right's: the
    // stripes resolve the edge at a third of a pixel.
    assert!(row[first] < row[first + 1] && row[first + 1] < row[first + 2], "{row:?}");
    assert!(row[last] < row[last - 1] && row[last - 1] < row[last - 2], "{row:?}");
}

#[test]
fn lcd_quads_are_their_own_keys_and_marked() {
    let (mut c, f) = cache(4);
    let g = c.fonts().get(f).expect("font").glyph_index('a');
    let at = |x: f32, size: f32| PositionedGlyph {
        font: f,
        glyph: g,
        size,
        x,
        y: 80.0,
        color: [0, 0, 0, 255],
    };
    let mut gray = Vec::new();
    let mut lcd = Vec::new();
    let mut frame = c.begin_frame();
    frame.prepare(&[at(10.0, 16.0)], &mut gray);
    frame.prepare_lcd(&[at(10.0, 16.0), at(30.25, 16.0), at(60.0, 80.0)], &mut lcd);
    let out = frame.finish();
    assert!(out.skipped.is_empty(), "{:?}", out.skipped);
    let modes: Vec<(RenderMode, u8, u32)> = {
        let mut m: Vec<_> =
            c.entries().map(|(k, _)| (k.mode, k.subpixel_x, k.size.steps())).collect();
        m.sort();
        m
    };
    let s16 = GlyphSize::from_px(16.0, 1024.0).unwrap().steps();
    let s80 = GlyphSize::from_px(80.0, 1024.0).unwrap().steps();
    assert_eq!(
        modes,
        vec![
            (RenderMode::ShiftedCoverage, 0, s16),
            (RenderMode::ShiftedCoverage, 0, s80),
            (RenderMode::Lcd, 0, s16),
            (RenderMode::Lcd, 64, s16)
        ],
        "grayscale and LCD entries apart; 80 px (above LCD_MAX_PX) in grayscale"
    );
    assert!(!gray[0].flags.contains(QuadFlags::LCD));
    for q in &lcd[..2] {
        assert!(q.flags.contains(QuadFlags::LCD), "{q:?}");
        assert_eq!(q.width % 3, 0);
        // Up to a pixel of filter margin (two, counting a trimmed grayscale column) beside the grayscale quad (empty
        // edge pixels are trimmed from both).
        assert!(q.width / 3 >= gray[0].width, "{q:?} vs {:?}", gray[0]);
    }
    assert!((gray[0].x - 2..=gray[0].x).contains(&lcd[0].x), "{:?} vs {:?}", lcd[0], gray[0]);
    assert!(!lcd[2].flags.contains(QuadFlags::LCD), "80 px is grayscale");
    // Texels in the page equal a fresh raster.
    let key = c
        .entries()
        .find(|(k, _)| k.mode == RenderMode::Lcd && k.subpixel_x == 64)
        .map(|(k, _)| *k)
        .expect("lcd key");
    let e = c.peek(&key).expect("entry");
    let fresh = c.rasterize_key(&key).expect("raster");
    let page = &c.pages()[e.page as usize];
    for row in 0..e.height as usize {
        let at = (e.y as usize + row) * page.side() as usize + e.x as usize;
        assert_eq!(
            &page.pixels()[at..at + e.width as usize],
            &fresh.pixels[row * fresh.width as usize..][..fresh.width as usize]
        );
    }
    c.check_invariants().expect("consistent");
}

/// `layout_lcd` places glyphs where `layout` does (one pixel of filter
/// margin to the left); with 1 bin its pens advance by the exact advances,
/// as `positions` gives them (HarfBuzz's pens), snapped to whole pixels.
#[test]
fn layout_lcd_matches_layout_and_positions() {
    let (mut c, f) = cache(4);
    let spec = TextSpec::new("Wavy lines, 4 bins", f, 14.0).at(5.0, 5.0);
    let (mut gray, mut lcd) = (Vec::new(), Vec::new());
    let mut frame = c.begin_frame();
    frame.layout(&spec, &mut gray).expect("layout");
    frame.layout_lcd(&spec, &mut lcd).expect("layout");
    frame.finish();
    assert_eq!(gray.len(), lcd.len());
    for (g, l) in gray.iter().zip(&lcd) {
        assert!(l.flags.contains(QuadFlags::LCD));
        assert!((g.x - 2..=g.x).contains(&l.x) && l.y == g.y, "{l:?} vs {g:?}");
    }

    let (mut c, f) = cache(1);
    let text = "Wavy lines, 1 bin";
    let spec = TextSpec::new(text, f, shaping::PX).at(5.0, 5.0);
    let mut pens = Vec::new();
    c.positions(&spec, &mut pens).expect("positions");
    // The pens are HarfBuzz's (kerning off: the plain path reads no GPOS).
    let (hb, _) =
        shaping::hb_shape_with(&shaping::dejavu_file(), 0, text, "ltr", 5.0, &["--features=-kern"]);
    assert_eq!(
        pens.iter().map(|p| p.glyph).collect::<Vec<_>>(),
        hb.iter().map(|h| h.id).collect::<Vec<_>>()
    );
    for (p, h) in pens.iter().zip(&hb) {
        assert!(
            (p.x - h.x).abs() <= shaping::PEN_TOLERANCE,
            "glyph {} at {} (HarfBuzz {})",
            p.glyph,
            p.x,
            h.x
        );
    }
    let (mut laid, mut prepared) = (Vec::new(), Vec::new());
    let mut frame = c.begin_frame();
    frame.layout_lcd(&spec, &mut laid).expect("layout");
    frame.prepare_lcd(&pens, &mut prepared);
    frame.finish();
    assert!(!laid.is_empty());
    assert_eq!(laid, prepared);
}
