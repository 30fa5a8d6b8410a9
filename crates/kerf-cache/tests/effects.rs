//! Effects cached in the atlas: an outline's ring is as wide as asked, a
//! shadow lands at its offset and spreads by its blur (a Gaussian of
//! standard deviation σ adds σ² to the ink's variance: a fact of the
//! convolution, not of kerf's code), each effect glyph is a key of its own
//! that is evicted and made again, and bad sizes are refused.

use kerf_cache::*;
use kerf_cache::{fonts::GlyphEffect, rasterize::GlyphImage};

mod canvas;
use canvas::composite;
use proptest::prelude::*;

const W: usize = 200;
const H: usize = 120;

/// The ink of the quads of colour `color` composited from the pages.
fn ink_of(c: &GlyphCache, quads: &[GlyphQuad], color: [u8; 4]) -> Vec<f64> {
    let mine: Vec<GlyphQuad> = quads.iter().filter(|q| q.color == color).copied().collect();
    composite(c, &mine, W, H).into_iter().map(f64::from).collect()
}

/// Mass, centroid and variance along x and y of an ink canvas.
fn moments(ink: &[f64]) -> (f64, (f64, f64), (f64, f64)) {
    let mass: f64 = ink.iter().sum();
    let (mut mx, mut my) = (0.0, 0.0);
    for (i, &v) in ink.iter().enumerate() {
        mx += v * ((i % W) as f64 + 0.5);
        my += v * ((i / W) as f64 + 0.5);
    }
    let (mx, my) = (mx / mass, my / mass);
    let (mut vx, mut vy) = (0.0, 0.0);
    for (i, &v) in ink.iter().enumerate() {
        vx += v * ((i % W) as f64 + 0.5 - mx).powi(2);
        vy += v * ((i / W) as f64 + 0.5 - my).powi(2);
    }
    (mass, (mx, my), (vx / mass, vy / mass))
}

const FILL: [u8; 4] = [0, 0, 0, 255];
const OUTLINE: [u8; 4] = [255, 0, 0, 255];
const SHADOW: [u8; 4] = [0, 0, 255, 128];

fn draw(spec: impl Fn(FontId) -> TextSpec<'static>) -> (GlyphCache, Vec<GlyphQuad>, FrameOutput) {
    let mut cache = GlyphCache::new(CacheConfig::default()).unwrap();
    let font = cache.add_font(dejavu::sans::regular().to_vec()).unwrap();
    let mut quads = Vec::new();
    let mut frame = cache.begin_frame();
    frame.layout(&spec(font), &mut quads).unwrap();
    let out = frame.finish();
    (cache, quads, out)
}

#[test]
fn an_outline_ring_is_as_wide_as_asked() {
    for width in [1.0f32, 2.5, 4.0] {
        let (cache, quads, out) = draw(|f| {
            TextSpec::new("l", f, 64.0).at(60.0, 20.0).outline(width, OUTLINE).color(FILL)
        });
        assert!(out.skipped.is_empty());
        // Shadow, outline, fill: the outline quad comes first.
        assert_eq!(quads.iter().map(|q| q.color).collect::<Vec<_>>(), vec![OUTLINE, FILL]);
        let (fill, ring) = (ink_of(&cache, &quads, FILL), ink_of(&cache, &quads, OUTLINE));
        // A row through the stem: the outline's ink spans the fill's plus
        // `width` on each side.
        let y = 60;
        let span = |c: &[f64]| c[y * W..(y + 1) * W].iter().sum::<f64>();
        let grown = span(&ring) - span(&fill);
        assert!(
            (grown - 2.0 * width as f64).abs() < 0.35,
            "width {width}: grew {grown:.2} px a row"
        );
        // And it lies under the glyph everywhere the glyph is.
        assert!(fill.iter().zip(&ring).all(|(f, r)| *r >= *f - 0.02));
    }
}

#[test]
fn a_shadow_lands_at_its_offset_and_spreads_by_its_blur() {
    for blur in [0.0f32, 3.0, 6.0] {
        let (cache, quads, _) = draw(|f| {
            TextSpec::new("Hoax", f, 40.0)
                .at(30.0, 20.0)
                .shadow((7.0, 5.0), blur, SHADOW)
                .color(FILL)
        });
        let (m0, c0, v0) = moments(&ink_of(&cache, &quads, FILL));
        let (m1, c1, v1) = moments(&ink_of(&cache, &quads, SHADOW));
        assert!(
            (m1 / m0 - 1.0).abs() < 0.01,
            "blur {blur}: a blur keeps the ink ({m1:.1} vs {m0:.1})"
        );
        assert!(
            (c1.0 - c0.0 - 7.0).abs() < 0.3 && (c1.1 - c0.1 - 5.0).abs() < 0.3,
            "offset {c0:?} → {c1:?}"
        );
        let sigma2 = (blur as f64 / 2.0).powi(2);
        for (a, b) in [(v0.0, v1.0), (v0.1, v1.1)] {
            assert!(
                (b - a - sigma2).abs() < 0.15 + 0.1 * sigma2,
                "blur {blur}: variance {a:.2} → {b:.2}, σ² {sigma2}"
            );
        }
    }
}

#[test]
fn effect_glyphs_are_keys_of_their_own_evicted_and_made_again() {
    let config = CacheConfig { page_size: 128, max_pages: 1, ..CacheConfig::default() };
    let mut cache = GlyphCache::new(config).unwrap();
    let font = cache.add_font(dejavu::sans::regular().to_vec()).unwrap();
    let spec =
        |t| TextSpec::new(t, font, 24.0).outline(2.0, OUTLINE).shadow((2.0, 2.0), 2.0, SHADOW);
    let mut quads = Vec::new();
    let mut frame = cache.begin_frame();
    frame.layout(&spec("ab"), &mut quads).unwrap();
    frame.finish();
    assert_eq!(cache.len(), 6, "a, b, their outlines and shadows");
    // Churn through other text until the first glyphs are evicted.
    let mut evicted = 0;
    for word in ["cdefg", "hijkl", "mnopq", "rstuv", "wxyz0", "12345"] {
        let mut frame = cache.begin_frame();
        quads.clear();
        frame.layout(&spec(word), &mut quads).unwrap();
        evicted += frame.finish().counts.evictions;
        cache.check_invariants().unwrap();
    }
    assert!(evicted > 0);
    let mut frame = cache.begin_frame();
    quads.clear();
    frame.layout(&spec("ab"), &mut quads).unwrap();
    let out = frame.finish();
    assert!(out.counts.hits < out.counts.lookups, "made again");
    assert_eq!(quads.len(), 6);
    cache.check_invariants().unwrap();
}

#[test]
fn bad_effects_are_refused_and_change_nothing() {
    let mut cache = GlyphCache::new(CacheConfig::default()).unwrap();
    let font = cache.add_font(dejavu::sans::regular().to_vec()).unwrap();
    let fonts = cache.fonts().len();
    let mut quads = Vec::new();
    let mut frame = cache.begin_frame();
    for bad in [
        TextSpec::new("x", font, 20.0).outline(f32::NAN, OUTLINE),
        TextSpec::new("x", font, 20.0).outline(0.0, OUTLINE),
        TextSpec::new("x", font, 20.0).outline(500.0, OUTLINE),
        TextSpec::new("x", font, 20.0).shadow((f32::INFINITY, 0.0), 1.0, SHADOW),
        TextSpec::new("x", font, 20.0).shadow((1.0, 1.0), -2.0, SHADOW),
    ] {
        assert!(matches!(frame.layout(&bad, &mut quads), Err(GlyphError::Style { .. })));
    }
    let out = frame.finish();
    assert!(quads.is_empty() && out.counts.lookups == 0 && out.uploads.is_empty());
    assert_eq!(cache.fonts().len(), fonts);
    assert!(cache.is_empty());
}

/// The drawing side's layers (`Frame::effect_layers`, what kerf-wgpu's
/// areas draw): shadow then outline, each glyph in the effect font
/// `add_effect` names, moved by the shadow's offset (the outline's is 0), in
/// the layer's colour; a glyph of an unknown font is left out of both layers
/// and reported at its index, the others still drawn.
#[test]
fn positioned_glyphs_get_one_layer_per_effect_in_its_font_at_its_offset() {
    let mut cache = GlyphCache::new(CacheConfig::default()).unwrap();
    let sans = cache.add_font(dejavu::sans::regular().to_vec()).unwrap();
    let bold = cache.add_font(dejavu::sans::bold().to_vec()).unwrap();
    let mut other = GlyphCache::new(CacheConfig::default()).unwrap();
    for _ in 0..8 {
        other.add_font(dejavu::sans::regular().to_vec()).unwrap();
    }
    // Id 8: unknown here, even after the four effect fonts (ids 2 to 5).
    let ghost = other.add_font(dejavu::sans::regular().to_vec()).unwrap();
    let g = |font, x: f32| PositionedGlyph { font, glyph: 40, size: 20.0, x, y: 30.0, color: FILL };
    let glyphs = [g(sans, 1.25), g(ghost, 20.0), g(bold, 40.5), g(sans, 60.0)];
    let effects = Effects {
        outline: Some(Outline { width: 2.0, color: OUTLINE }),
        shadow: Some(Shadow { offset: (3.0, -1.5), blur: 1.0, color: SHADOW }),
    };
    let shadow = GlyphEffect::shadow(1.0).unwrap();
    let outline = GlyphEffect::outline(2.0).unwrap();
    let expected = [(shadow, (3.0, -1.5), SHADOW), (outline, (0.0, 0.0), OUTLINE)];
    let mut skipped = Vec::new();
    let mut frame = cache.begin_frame();
    let layers = frame.effect_layers(&glyphs, &effects, &mut skipped);
    drop(frame);
    assert_eq!(layers.len(), 2);
    for (layer, (effect, (dx, dy), color)) in layers.iter().zip(expected) {
        let (sans_e, bold_e) =
            (cache.add_effect(sans, effect).unwrap(), cache.add_effect(bold, effect).unwrap());
        assert!(sans_e != sans && bold_e != bold && sans_e != bold_e);
        let want: Vec<PositionedGlyph> = [(sans_e, 0), (bold_e, 2), (sans_e, 3)]
            .iter()
            .map(|&(font, i)| PositionedGlyph {
                font,
                x: glyphs[i].x + dx,
                y: glyphs[i].y + dy,
                color,
                ..glyphs[i]
            })
            .collect();
        assert_eq!(layer, &want);
    }
    let at: Vec<usize> = skipped.iter().map(|s| s.index).collect();
    assert_eq!(at, [1, 1]);
    assert!(skipped.iter().all(|s| s.reason == GlyphError::UnknownFont(ghost)));
    // No effects: no layers, nothing reported.
    let mut frame = cache.begin_frame();
    assert!(frame.effect_layers(&glyphs, &Effects::default(), &mut skipped).is_empty());
    assert_eq!(skipped.len(), 2);
}

/// Effects of styled text are drawn in the style's instance: a bold
/// outline is as many glyphs as the bold text, its ink wider than the
/// regular text's outline.
#[test]
fn styled_text_gets_its_effects_in_its_instance() {
    let mut cache = GlyphCache::new(CacheConfig::default()).unwrap();
    let font = cache.add_font(dejavu::sans::regular().to_vec()).unwrap();
    let mut ink = Vec::new();
    for weight in [400.0, 700.0] {
        let spec =
            TextSpec::new("Hi", font, 40.0).at(10.0, 10.0).weight(weight).outline(2.0, OUTLINE);
        let mut quads = Vec::new();
        let mut frame = cache.begin_frame();
        frame.layout(&spec, &mut quads).unwrap();
        let out = frame.finish();
        assert!(out.skipped.is_empty(), "{:?}", out.skipped);
        assert_eq!(quads.iter().filter(|q| q.color == OUTLINE).count(), 2, "weight {weight}");
        ink.push(ink_of(&cache, &quads, OUTLINE).iter().sum::<f64>());
    }
    assert!(ink[1] > ink[0] * 1.05, "the bold outline is the bold glyphs': {ink:?}");
}

/// A blank bitmap (no width or no height) has nothing to grow: every effect
/// gives it back as it is, bearings included.
#[test]
fn effects_leave_blank_bitmaps_blank() {
    for (width, height) in [(0, 0), (0, 5), (5, 0)] {
        let img = GlyphImage { width, height, left: 3, bottom: -2, pixels: Vec::new() };
        for e in [GlyphEffect::outline(2.0).unwrap(), GlyphEffect::shadow(3.0).unwrap()] {
            assert_eq!(e.apply(&img), img, "{e:?} of {width}×{height}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// Dilation never takes coverage away and never reaches past its width;
    /// a blur keeps the ink.
    #[test]
    fn effects_keep_their_invariants(
        w in 1u32..12, h in 1u32..12, seed in any::<u64>(), width in 0.5f32..5.0, blur in 0.0f32..6.0,
    ) {
        let mut s = seed | 1;
        let pixels: Vec<u8> = (0..w * h).map(|_| { s ^= s << 13; s ^= s >> 7; s ^= s << 17; (s % 256) as u8 }).collect();
        let src = GlyphImage { width: w, height: h, left: 0, bottom: 0, pixels };
        let e = GlyphEffect::outline(width).unwrap();
        let out = e.apply(&src);
        let r = e.reach() as usize;
        let ow = out.width as usize;
        for y in 0..h as usize {
            for x in 0..w as usize {
                prop_assert!(out.pixels[(y + r) * ow + x + r] >= src.pixels[y * w as usize + x]);
            }
        }
        // The outermost ring of the padding is out of reach.
        let last = out.pixels.len() - ow;
        prop_assert!(out.pixels[..ow].iter().chain(&out.pixels[last..]).all(|&v| v == 0));
        let b = GlyphEffect::shadow(blur).unwrap().apply(&src);
        let ink = |p: &[u8]| p.iter().map(|&v| v as f64).sum::<f64>();
        let (before, after) = (ink(&src.pixels), ink(&b.pixels));
        prop_assert!((after - before).abs() <= 0.5 * b.pixels.len() as f64 + 0.01 * before);
    }
}
