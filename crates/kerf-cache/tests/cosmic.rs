//! The cosmic-text adapter (feature `cosmic-text`): the glyphs kerf draws
//! from a shaped `Buffer` are HarfBuzz's: same glyph ids, pen positions
//! within 0.05 px at 32 px (x, and y on the shaper's baseline), checked against `hb-shape` (Debian
//! `libharfbuzz-bin`, which `.ci/run` installs) for Latin with kerning and
//! ligatures, Arabic, Hebrew, Devanagari, CJK and mixed-direction text.
#![cfg(feature = "cosmic-text")]

use kerf_cache::cosmic_text::{fontdb, Attrs, Buffer, Family, FontSystem, Metrics, Shaping};
use kerf_cache::*;
use std::path::Path;

mod shaping;
use shaping::*;

/// kerf's glyphs for `text` shaped by cosmic-text with only `font` in its font
/// system: (font, id, pen x, baseline-relative y) in visual order.
fn kerf_glyphs(font: &Path, text: &str) -> Shaped {
    let mut db = fontdb::Database::new();
    db.load_font_file(font).unwrap();
    let family = db.faces().next().unwrap().families[0].0.clone();
    let mut fs = FontSystem::new_with_locale_and_db("en-US".into(), db);
    let mut buffer = Buffer::new(&mut fs, Metrics::new(PX, PX * 1.5));
    buffer.set_size(None, None);
    buffer.set_text(text, &Attrs::new().family(Family::Name(&family)), Shaping::Advanced, None);
    buffer.shape_until_scroll(&mut fs, false);
    let mut cache = GlyphCache::new(CacheConfig::default()).unwrap();
    let mut fonts = CosmicFonts::new();
    let mut glyphs = Vec::new();
    fonts.glyphs(&mut cache, &fs, &buffer, (0.0, 0.0), [0, 0, 0, 255], &mut glyphs).unwrap();
    let baseline = buffer.layout_runs().next().expect("one line").line_y;
    (cache, glyphs, baseline)
}

harfbuzz_tests!(kerf_glyphs);

#[test]
fn shaped_glyphs_draw_through_the_cache() {
    let f = dejavu_file();
    let (mut cache, glyphs, _) = kerf_glyphs(&f, "office مرحبا");
    let mut quads = Vec::new();
    let mut fr = cache.begin_frame();
    fr.prepare(&glyphs, &mut quads);
    let out = fr.finish();
    assert!(out.skipped.is_empty(), "{:?}", out.skipped);
    assert_eq!(
        quads.len(),
        glyphs.iter().filter(|g| g.glyph != 3).count(),
        "one quad per visible glyph"
    );
    cache.check_invariants().unwrap();
}
