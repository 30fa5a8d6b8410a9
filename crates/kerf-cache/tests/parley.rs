//! The parley adapter (feature `parley`): the glyphs kerf draws from a
//! parley `Layout` are HarfBuzz's: same glyph ids, pen positions within
//! 0.05 px at 32 px, for the scripts the cosmic-text adapter is checked on.
#![cfg(feature = "parley")]

use kerf_cache::parley::{
    fontique::Blob, FontContext, FontFamily, Layout, LayoutContext, StyleProperty,
};
use kerf_cache::*;
use std::path::Path;
use std::sync::Arc;

mod shaping;
use shaping::*;

/// kerf's glyphs for `text` laid out by parley with only `font` registered.
fn kerf_glyphs(font: &Path, text: &str) -> Shaped {
    let bytes = std::fs::read(font).unwrap();
    let mut fonts = FontContext::new();
    let families = fonts.collection.register_fonts(Blob::new(Arc::new(bytes)), None);
    let family = fonts.collection.family_name(families[0].0).expect("family name").to_string();
    let mut layouts = LayoutContext::<()>::new();
    let mut builder = layouts.ranged_builder(&mut fonts, text, 1.0, false);
    builder.push_default(StyleProperty::FontFamily(FontFamily::named(&family)));
    builder.push_default(StyleProperty::FontSize(PX));
    let mut layout: Layout<()> = builder.build(text);
    layout.break_all_lines(None);
    let mut cache = GlyphCache::new(CacheConfig::default()).unwrap();
    let mut glyphs = Vec::new();
    ParleyFonts::new()
        .glyphs(&mut cache, &layout, (0.0, 0.0), |_| [0, 0, 0, 255], &mut glyphs)
        .unwrap();
    let baseline = layout.lines().next().expect("one line").metrics().baseline;
    (cache, glyphs, baseline)
}

/// parley's default line height is the font's (CSS `line-height: normal`):
/// ascent + descent + line gap, the gap split above and below, so the
/// baseline is half the gap plus the ascent down from the top.
fn parley_baseline((ascent, _descent, gap): (f32, f32, f32)) -> f32 {
    gap / 2.0 + ascent
}

harfbuzz_tests!(kerf_glyphs, parley_baseline);

/// Brushes become colours, and the glyphs draw through the cache.
#[test]
fn brushes_colour_the_glyphs_and_they_draw() {
    let mut fonts = FontContext::new();
    fonts.collection.register_fonts(Blob::new(Arc::new(dejavu::sans::regular().to_vec())), None);
    let mut layouts = LayoutContext::<[u8; 4]>::new();
    let text = "red and blue";
    let mut builder = layouts.ranged_builder(&mut fonts, text, 1.0, false);
    builder.push_default(StyleProperty::FontFamily(FontFamily::named("DejaVu Sans")));
    builder.push_default(StyleProperty::FontSize(20.0));
    builder.push_default(StyleProperty::Brush([200, 0, 0, 255]));
    builder.push(StyleProperty::Brush([0, 0, 200, 255]), 8..12);
    let mut layout: Layout<[u8; 4]> = builder.build(text);
    layout.break_all_lines(None);
    let mut cache = GlyphCache::new(CacheConfig::default()).unwrap();
    let mut glyphs = Vec::new();
    let mut adapter = ParleyFonts::new();
    adapter.glyphs(&mut cache, &layout, (10.0, 5.0), |b| *b, &mut glyphs).unwrap();
    adapter.glyphs(&mut cache, &layout, (10.0, 40.0), |b| *b, &mut glyphs).unwrap();
    assert_eq!(cache.fonts().len(), 1, "the face is loaded once");
    assert_eq!(glyphs.len(), 2 * text.chars().count());
    let blue = glyphs[..text.len()].iter().filter(|g| g.color == [0, 0, 200, 255]).count();
    assert_eq!(blue, 4, "'blue' in blue");
    assert!(glyphs.iter().all(|g| g.x >= 10.0 && g.size == 20.0));
    let mut quads = Vec::new();
    let mut frame = cache.begin_frame();
    frame.prepare(&glyphs, &mut quads);
    let out = frame.finish();
    assert!(out.skipped.is_empty(), "{:?}", out.skipped);
    assert_eq!(quads.len(), 2 * text.chars().filter(|c| !c.is_whitespace()).count());
}

/// parley's variation coordinates and synthesis reach the glyphs: Inter at
/// `wght` 700 (parley's normalized coordinates back in user space), DejaVu
/// Sans (its regular face only) emboldened and skewed as parley's
/// `Synthesis` asks.
#[test]
fn coordinates_and_synthesis_reach_the_cache() {
    use kerf_cache::parley::{FontStyle as Slant, FontWeight};
    let inter = font_file("inter-vf/Inter.var.ttf", "fonts-inter-variable");
    let mut fonts = FontContext::new();
    fonts.collection.register_fonts(Blob::new(Arc::new(std::fs::read(inter).unwrap())), None);
    fonts.collection.register_fonts(Blob::new(Arc::new(dejavu::sans::regular().to_vec())), None);
    let mut layouts = LayoutContext::<()>::new();
    let mut cache = GlyphCache::new(CacheConfig::default()).unwrap();
    let mut adapter = ParleyFonts::new();
    let mut draw = |family: &str, weight: f32, slant: Slant| {
        let mut builder = layouts.ranged_builder(&mut fonts, "Hlo", 1.0, false);
        builder.push_default(StyleProperty::FontFamily(FontFamily::named(family)));
        builder.push_default(StyleProperty::FontSize(PX));
        builder.push_default(StyleProperty::FontWeight(FontWeight::new(weight)));
        builder.push_default(StyleProperty::FontStyle(slant));
        let mut layout: Layout<()> = builder.build("Hlo");
        layout.break_all_lines(None);
        let mut glyphs = Vec::new();
        adapter.glyphs(&mut cache, &layout, (0.0, 0.0), |_| [0, 0, 0, 255], &mut glyphs).unwrap();
        assert_eq!(glyphs.len(), 3);
        glyphs[0].font
    };
    let bold = draw("Inter", 700.0, Slant::Normal);
    let dejavu_bold = draw("DejaVu Sans", 700.0, Slant::Normal);
    let dejavu_italic = draw("DejaVu Sans", 400.0, Slant::Italic);
    let instance =
        |f: FontId| cache.fonts().get(f).unwrap().instance().cloned().unwrap_or_default();
    let wght = instance(bold).variations().iter().find(|(t, _)| t == b"wght").map(|v| v.1);
    assert!(wght.is_some_and(|w| (w - 700.0).abs() < 0.5), "wght {wght:?}");
    assert!(instance(dejavu_bold).embolden());
    assert!(instance(dejavu_italic).oblique() > 0.2, "{:?}", instance(dejavu_italic));
}
