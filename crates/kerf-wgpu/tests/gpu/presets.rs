//! The one-call setups a glyphon user reaches for: `TextAtlas::like_glyphon`
//! and the `TextArea` builders.

use super::*;

/// Draws `area` (given DejaVu Sans's id) on white with a renderer of
/// `atlas` and a viewport made for it, its correction set to `correction`
/// if given; the read-back, and the correction the viewport started with.
fn draw(
    device: &wgpu::Device, queue: &wgpu::Queue, mut atlas: TextAtlas,
    correction: Option<TextCorrection>, area: impl Fn(FontId) -> TextArea<'static>,
) -> (Vec<u8>, TextCorrection) {
    let font = atlas.add_font(sans()).unwrap();
    let format = wgpu::TextureFormat::Rgba8UnormSrgb;
    let mut r = TextRenderer::new(device, &atlas, format, Default::default(), None);
    let mut vp = Viewport::new(device, &atlas);
    vp.update(queue, 160, 40);
    let started = vp.correction();
    if let Some(c) = correction {
        vp.set_correction(queue, c).unwrap();
    }
    let rep = r.prepare(device, queue, &mut atlas, &[area(font)], &vp).unwrap();
    assert!(rep.skipped.is_empty(), "{:?}", rep.skipped);
    let target = Offscreen::new(device, 160, 40, format).unwrap();
    (draw_and_read(device, queue, &r, &atlas, &target, wgpu::Color::WHITE), started)
}

fn spec(font: FontId) -> TextSpec<'static> {
    TextSpec::new("Hamburgefonstiv", font, 15.3).at(3.3, 4.0).color([20, 30, 80, 255])
}

/// `like_glyphon` is the hinting swash rasterizer, 4 sub-pixel bins and
/// plain blending, and nothing else: its picture equals the one made by
/// setting each by hand, its viewports start neutral, and it differs from
/// kerf's default look.
#[cfg(feature = "swash")]
#[test]
fn like_glyphon_is_the_three_settings_in_one_call() {
    let (device, queue) = gpu();
    let config = CacheConfig { subpixel_bins: 1, ..CacheConfig::default() };
    let preset = TextAtlas::like_glyphon(&device, config).unwrap();
    assert_eq!(preset.cache().config().subpixel_bins, 4);
    assert_eq!(preset.default_correction(), TextCorrection::NEUTRAL);
    let (glyphon_look, correction) =
        draw(&device, &queue, preset, None, |f| TextArea::text(spec(f), 0.0, 0.0));
    assert_eq!(correction, TextCorrection::NEUTRAL, "a viewport made for it starts neutral");

    let by_hand = TextAtlas::with_rasterizer(
        &device,
        CacheConfig { subpixel_bins: 4, ..CacheConfig::default() },
        Box::new(kerf_cache::rasterize::SwashRasterizer::new().hinting(true)),
    )
    .unwrap();
    assert_eq!(by_hand.default_correction(), TextCorrection::DEFAULT);
    let (by_hand_px, _) = draw(&device, &queue, by_hand, Some(TextCorrection::NEUTRAL), |f| {
        TextArea::text(spec(f), 0.0, 0.0)
    });
    assert!(glyphon_look == by_hand_px, "like_glyphon differs from the settings made by hand");

    let (default_look, correction) = draw(
        &device,
        &queue,
        TextAtlas::new(&device, CacheConfig::default()).unwrap(),
        None,
        |f| TextArea::text(spec(f), 0.0, 0.0),
    );
    assert_eq!(correction, TextCorrection::DEFAULT);
    let differ = default_look.iter().zip(&glyphon_look).filter(|(a, b)| a != b).count();
    assert!(differ > 100, "hinting and blending change the picture ({differ} bytes differ)");
}

/// `with_bounds` clips as the field does, `with_scale` scales as it does.
#[test]
fn the_bounds_and_scale_builders_set_the_fields() {
    let (device, queue) = gpu();
    let bounds = TextBounds { left: 20, top: 0, right: 90, bottom: 40 };
    let new = |device: &wgpu::Device| TextAtlas::new(device, CacheConfig::default()).unwrap();
    let (built, _) = draw(&device, &queue, new(&device), None, |f| {
        TextArea::text(spec(f), 0.0, 0.0).with_bounds(bounds).with_scale(1.25)
    });
    let (literal, _) = draw(&device, &queue, new(&device), None, |f| TextArea {
        bounds,
        scale: 1.25,
        ..TextArea::text(spec(f), 0.0, 0.0)
    });
    assert!(built == literal, "the builders and the struct literal draw the same");
    // Nothing drawn outside the bounds; something inside.
    let inked = |x: usize, y: usize| built[(y * 160 + x) * 4] < 200;
    assert!((0..40).all(|y| (0..20).chain(90..160).all(|x| !inked(x, y))), "clipped");
    assert!((0..40).any(|y| (20..90).any(|x| inked(x, y))), "drawn inside");
}
