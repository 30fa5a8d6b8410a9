//! Pages under the memory budget, their occupancy, and what the rasterizer
//! refuses to draw.

use super::*;
use kerf_cache::fonts::FontRef;
use kerf_cache::rasterize::{FontdueRasterizer, GlyphImage, Rasterizer};

/// With `memory_budget` below `max_pages` pages, the budget is the binding
/// limit under churn: the atlas grows to exactly the budget's pages and no
/// further, its bytes never exceed the budget, and no glyph that fits is
/// refused (each frame draws a small fraction of one page).
#[test]
fn the_memory_budget_binds_under_churn() {
    let (side, budget) = (128u32, 3 * 128 * 128u64);
    let mut c = GlyphCache::new(CacheConfig {
        page_size: side,
        max_pages: 16,
        memory_budget: budget,
        frames_in_flight: 1,
        subpixel_bins: 1,
        ..CacheConfig::default()
    })
    .unwrap();
    let f = c.add_font(sans()).unwrap();
    let chars: Vec<char> = ('!'..='~').chain('À'..='ÿ').chain('Α'..='ω').chain('А'..='я').collect();
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    let (mut evictions, mut most_pages) = (0, 0);
    for frame in 0..200 {
        let mut fr = c.begin_frame();
        for _ in 0..12 {
            let ch = chars[next(chars.len())];
            let px = [14.0, 18.0, 22.0, 26.0][next(4)];
            let g = glyph_of(fr.cache(), f, ch);
            let e = fr.glyph(f, g, px).unwrap_or_else(|e| panic!("frame {frame} {ch:?}: {e}"));
            assert!(e.page < 3, "frame {frame}: {ch:?} on page {}", e.page);
        }
        let out = fr.finish();
        assert!(out.skipped.is_empty(), "frame {frame}: {:?}", out.skipped);
        assert!(out.pages <= 3, "frame {frame}: {} pages over a 3-page budget", out.pages);
        assert!(c.atlas_bytes() <= budget, "frame {frame}: {} bytes", c.atlas_bytes());
        evictions += out.counts.evictions;
        most_pages = most_pages.max(out.pages);
    }
    assert_eq!(most_pages, 3, "the atlas grows to the budget");
    assert_eq!(c.page_limit(), 3, "the budget, not max_pages, is the limit");
    assert!(evictions > 200, "the budget forced evictions ({evictions})");
    assert_eq!(evictions, c.stats().evictions, "each frame counts its own evictions");
}

/// A page's occupancy is its glyphs' slots over its area: 0 when empty, at
/// least the glyphs' own texels (slots add padding), below 1 when not full.
#[test]
fn page_occupancy_counts_the_glyphs_slots() {
    let (mut c, f) = cache(256, 1, 0);
    let mut fr = c.begin_frame();
    fr.glyph(f, glyph_of(fr.cache(), f, 'x'), 12.0).unwrap();
    fr.finish();
    let before = c.pages()[0].occupancy();
    let mut fr = c.begin_frame();
    for ch in "ABCDEFGHIJ".chars() {
        fr.glyph(f, glyph_of(fr.cache(), f, ch), 30.0).unwrap();
    }
    fr.finish();
    let texels: u64 = c.entries().map(|(_, e)| e.width as u64 * e.height as u64).sum();
    let occ = c.pages()[0].occupancy();
    assert!(occ >= texels as f64 / (256.0 * 256.0), "{occ} below the glyphs' own texels");
    assert!(occ < 0.5 && occ > before, "{before} then {occ}");
}

/// The fontdue rasterizer refuses the modes it cannot draw with a typed
/// error: whole-pixel coverage asked at a sub-pixel offset, sampled rasters,
/// images.
#[test]
fn the_rasterizer_refuses_modes_it_cannot_draw() {
    let (c, f) = cache(256, 1, 0);
    let font = c.font_ref(f).unwrap();
    let k = key(&c, f, 'A', 20.0);
    assert!(FontdueRasterizer.rasterize(font, &k).is_ok());
    for (mode, subpixel_x) in
        [(RenderMode::Coverage, 1), (RenderMode::Sampled, 0), (RenderMode::Image, 0)]
    {
        let bad = GlyphKey { mode, subpixel_x, ..k };
        assert!(
            matches!(FontdueRasterizer.rasterize(font, &bad), Err(RasterError::UnsupportedMode(_))),
            "{mode:?} at {subpixel_x}"
        );
    }
}

/// Every glyph a 12 × 12 square of its id's low byte, but glyph `grows`
/// (0: none), 13 wide: set after a glyph was drawn, a rasterizer that does
/// not draw a key the same twice.
struct Squares(std::sync::Arc<std::sync::atomic::AtomicU32>);

impl Rasterizer for Squares {
    fn measure(&self, _: FontRef<'_>, _: &GlyphKey) -> Result<(u32, u32), RasterError> {
        Ok((12, 12))
    }
    fn rasterize(&self, _: FontRef<'_>, key: &GlyphKey) -> Result<GlyphImage, RasterError> {
        let grows = self.0.load(std::sync::atomic::Ordering::Relaxed) == u32::from(key.glyph);
        let w = if grows { 13 } else { 12 };
        let pixels = vec![key.glyph as u8; w as usize * 12];
        Ok(GlyphImage { width: w, height: 12, left: 0, bottom: 0, pixels })
    }
}

/// Pages without copies: 40 squares over two 64² pages, then one glyph of
/// the second page drawn alone until the others went idle and the page
/// retires. The glyph moves to the first page, drawn again (one more
/// raster, its upload carrying its texels); from a rasterizer that draws
/// it another size the second time it stays where it is, its entry still
/// its own bitmap's and the slot it was offered given back (the packers
/// hold what the map says, every frame).
#[test]
fn without_copies_a_glyph_moving_off_a_retiring_page_is_drawn_again_if_it_comes_out_the_same() {
    for grows in [false, true] {
        let config = CacheConfig {
            page_size: 64,
            max_pages: 2,
            frames_in_flight: 0,
            subpixel_bins: 1,
            release_idle_after: Some(2),
            page_copies: false,
            ..CacheConfig::default()
        };
        let grower = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
        let squares = Box::new(Squares(grower.clone()));
        let mut c = GlyphCache::with_rasterizer(config, squares).unwrap();
        let f = c.add_font(sans()).unwrap();
        let glyph = |g: u16, x: f32| PositionedGlyph {
            font: f,
            glyph: g,
            size: 12.0,
            x,
            y: 20.0,
            color: [255; 4],
        };
        let all: Vec<PositionedGlyph> = (1..=40).map(|g| glyph(g, 20.0 * g as f32)).collect();
        let mut fr = c.begin_frame();
        fr.prepare(&all, &mut Vec::new());
        fr.finish();
        // A glyph of the second page.
        let g = c.entries().find(|(_, e)| e.page == 1).map(|(k, _)| k.glyph).expect("two pages");
        if grows {
            grower.store(u32::from(g), std::sync::atomic::Ordering::Relaxed);
        }
        let on = |c: &GlyphCache| c.entries().find(|(k, _)| k.glyph == g).map(|(_, e)| e).unwrap();
        let rasterized = c.stats().rasterized;
        assert_eq!((rasterized, c.stats().rasterized_bytes), (40, 40 * 144), "40 squares of 12²");
        let mut texels = 0;
        for _ in 0..8 {
            let mut fr = c.begin_frame();
            fr.prepare(&[glyph(g, 0.0)], &mut Vec::new());
            let out = fr.finish();
            c.check_invariants().unwrap();
            for u in &out.uploads {
                let Upload::Glyphs(up) = u else { panic!("a box without copies") };
                assert_eq!(up.bytes.len(), up.texel_bytes());
                texels += up.bytes.iter().filter(|&&b| b == g as u8).count();
            }
        }
        let e = on(&c);
        assert_eq!((e.width, e.height), (12, 12), "grows {grows}");
        let drawn = c.stats().rasterized - rasterized;
        if grows {
            // (Tried again at each first use in a frame while the page retires.)
            assert_eq!((e.page, c.stats().relocated), (1, 0), "it stays");
            assert!(drawn >= 1 && texels == 0, "{drawn} rasters, {texels} texels");
        } else {
            assert_eq!((e.page, c.stats().relocated), (0, 1), "it moves");
            assert_eq!(texels, 144, "its texels go up with it");
            assert_eq!(drawn, 1, "drawn again once");
        }
    }
}
