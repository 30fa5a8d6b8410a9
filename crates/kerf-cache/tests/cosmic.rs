//! The cosmic-text adapter (feature `cosmic-text`): the glyphs kerf draws
//! from a shaped `Buffer` are HarfBuzz's: same glyph ids, pen positions
//! within 0.05 px at 32 px (x, and y on the baseline the font's ascent and descent put
//! the line at), checked against `hb-shape` (Debian
//! `libharfbuzz-bin`, which `.ci/run` installs) for Latin with kerning and
//! ligatures, Arabic, Hebrew, Devanagari, CJK and mixed-direction text.
#![cfg(feature = "cosmic-text")]

use kerf_cache::*;
use kerf_cache::{
    cosmic_text::{fontdb, Attrs, Buffer, Family, FontSystem, Metrics, Shaping},
    fonts::{FontLoading, Instance},
    rasterize::SwashRasterizer,
};
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

/// cosmic-text centres the glyphs' ascent and descent in the line height
/// (1.5 × the size here): the baseline is half the spare height plus the
/// ascent down from the top.
fn cosmic_baseline((ascent, descent, _gap): (f32, f32, f32)) -> f32 {
    (PX * 1.5 - (ascent + descent)) / 2.0 + ascent
}

harfbuzz_tests!(kerf_glyphs, cosmic_baseline);

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

/// A face cosmic-text holds as bytes is read in place: loading it into the
/// cache copies no byte of the file, and reads no outline.
#[test]
fn faces_held_as_bytes_are_shared_not_copied() {
    let mut db = fontdb::Database::new();
    db.load_font_data(std::fs::read(dejavu_file()).unwrap());
    let id = db.faces().next().unwrap().id;
    let fs = FontSystem::new_with_locale_and_db("en-US".into(), db);
    let mut cache = GlyphCache::new(CacheConfig::default()).unwrap();
    let f = CosmicFonts::new().font(&mut cache, &fs, id).unwrap();
    let font = cache.fonts().get(f).unwrap();
    let theirs = fs.db().with_face_data(id, |data, _| data.as_ptr()).unwrap();
    assert_eq!(font.bytes().as_ptr(), theirs, "the database's bytes, not a copy");
    assert!(font.is_lazy());
    assert_eq!(font.outlines_read(), 0);
}

/// A face cosmic-text loaded from a file is mapped by its database when it
/// first shapes with it (fontdb's `Source::SharedFile`); the cache reads it
/// through that mapping and copies no byte of the file. Before the mapping
/// (a face not yet shaped with, `Source::File`) the cache reads a copy.
#[test]
fn faces_mapped_from_files_are_shared_not_copied() {
    let mut db = fontdb::Database::new();
    db.load_font_file(dejavu_file()).unwrap();
    let id = db.faces().next().unwrap().id;
    let family = db.faces().next().unwrap().families[0].0.clone();
    let mut fs = FontSystem::new_with_locale_and_db("en-US".into(), db);
    let before = CosmicFonts::new().font(&mut cache_for_test(), &fs, id);
    assert!(before.is_ok(), "a face not yet mapped is read and copied: {before:?}");
    let mut buffer = Buffer::new(&mut fs, Metrics::new(PX, PX * 1.5));
    buffer.set_text("mapped", &Attrs::new().family(Family::Name(&family)), Shaping::Advanced, None);
    buffer.shape_until_scroll(&mut fs, false);
    let source = fs.db().face_source(id).map(|(s, _)| s);
    assert!(matches!(source, Some(fontdb::Source::SharedFile(..))), "{source:?}");
    let mut cache = cache_for_test();
    let f = CosmicFonts::new().font(&mut cache, &fs, id).unwrap();
    let font = cache.fonts().get(f).unwrap();
    let theirs = fs.db().with_face_data(id, |data, _| data.as_ptr()).unwrap();
    assert_eq!(font.bytes().as_ptr(), theirs, "the database's mapping, not a copy");
    assert_eq!(font.bytes(), std::fs::read(dejavu_file()).unwrap().as_slice());
}

fn cache_for_test() -> GlyphCache {
    GlyphCache::new(CacheConfig::default()).unwrap()
}

/// `CosmicFonts::loading(Eager)`: a face parsed whole by fontdue on first
/// sight, for apps that prefer cheaper misses to a cheaper first frame.
#[test]
fn faces_can_be_loaded_eagerly() {
    let mut db = fontdb::Database::new();
    db.load_font_data(std::fs::read(dejavu_file()).unwrap());
    let id = db.faces().next().unwrap().id;
    let fs = FontSystem::new_with_locale_and_db("en-US".into(), db);
    let mut cache = GlyphCache::new(CacheConfig::default()).unwrap();
    let f = CosmicFonts::new().loading(FontLoading::Eager).font(&mut cache, &fs, id).unwrap();
    let font = cache.fonts().get(f).unwrap();
    assert!(!font.is_lazy());
    assert_eq!(font.outlines_read(), u64::from(font.glyph_count()));
}

/// The instance font `g` is drawn with.
fn instance_of(cache: &GlyphCache, g: &PositionedGlyph) -> Instance {
    cache.fonts().get(g.font).unwrap().instance().cloned().unwrap_or_default()
}

/// cosmic-text's weight and synthetic italic reach the glyphs: Inter's
/// `wght` axis set to the weight asked (as cosmic-text's own swash path
/// sets it), DejaVu Sans (its regular face only) emboldened at bold, and
/// both slanted where cosmic-text marks a glyph `FAKE_ITALIC`.
#[test]
fn weights_and_italics_reach_the_cache() {
    use kerf_cache::cosmic_text::{Style, Weight};
    let inter = font_file("inter-vf/Inter.var.ttf", "fonts-inter-variable");
    let mut db = fontdb::Database::new();
    db.load_font_file(&inter).unwrap();
    db.load_font_data(dejavu::sans::regular().to_vec());
    let mut fs = FontSystem::new_with_locale_and_db("en-US".into(), db);
    let mut cache = GlyphCache::new(CacheConfig::default()).unwrap();
    let mut fonts = CosmicFonts::new();
    let mut draw = |family: &str, weight: Weight, style: Style| {
        let mut buffer = Buffer::new(&mut fs, Metrics::new(PX, PX * 1.5));
        let attrs = Attrs::new().family(Family::Name(family)).weight(weight).style(style);
        buffer.set_text("Hlo", &attrs, Shaping::Advanced, None);
        buffer.shape_until_scroll(&mut fs, false);
        let mut glyphs = Vec::new();
        fonts.glyphs(&mut cache, &fs, &buffer, (0.0, 0.0), [0, 0, 0, 255], &mut glyphs).unwrap();
        assert_eq!(glyphs.len(), 3);
        glyphs
    };
    let regular = draw("Inter", Weight::NORMAL, Style::Normal);
    let bold = draw("Inter", Weight::BOLD, Style::Normal);
    let italic = draw("Inter", Weight::NORMAL, Style::Italic);
    let dejavu_bold = draw("DejaVu Sans", Weight::BOLD, Style::Normal);
    let dejavu_italic = draw("DejaVu Sans", Weight::NORMAL, Style::Italic);
    assert!(instance_of(&cache, &regular[0]).is_default());
    assert_eq!(instance_of(&cache, &bold[0]).variations(), &[(*b"wght", 700.0)]);
    assert!(!instance_of(&cache, &bold[0]).embolden());
    assert!(instance_of(&cache, &italic[0]).oblique() > 0.24);
    assert!(instance_of(&cache, &dejavu_bold[0]).embolden());
    assert!(instance_of(&cache, &dejavu_italic[0]).oblique() > 0.24);
    // Every glyph of a run shares its instance, and they draw.
    assert!(bold.iter().all(|g| g.font == bold[0].font));
    let mut quads = Vec::new();
    let mut frame = cache.begin_frame();
    for g in [&regular, &bold, &italic, &dejavu_bold, &dejavu_italic] {
        frame.prepare(g, &mut quads);
    }
    let out = frame.finish();
    assert!(out.skipped.is_empty() && out.counts.default_instance == 0);
    assert_eq!(quads.len(), 15);
    cache.check_invariants().unwrap();
}

/// The coverage pixels of a bitmap whose top-left pixel lies `left` right
/// of the pen and `top` above the baseline: (x, y up, value), zeros left
/// out, so bitmaps that differ only by empty edges compare equal.
fn ink_at(left: i32, top: i32, width: u32, pixels: &[u8]) -> Vec<(i32, i32, u8)> {
    let w = width.max(1) as usize;
    let mut out = Vec::new();
    for (i, &v) in pixels.iter().enumerate().filter(|(_, &v)| v > 0) {
        out.push((left + (i % w) as i32, top - (i / w) as i32, v));
    }
    out
}

/// cosmic-text's `CacheKeyFlags::DISABLE_HINTING`, drawn by a hinting
/// rasterizer: the glyphs marked so are unhinted and the rest hinted, each
/// pixel for pixel as cosmic-text's own swash path (`SwashCache`, what
/// glyphon draws with) rasterizes the same cache key. Where the rasterizer
/// does not hint, the flag makes no font of its own.
#[cfg(feature = "swash")]
#[test]
fn disable_hinting_is_honoured_where_the_rasterizer_hints() {
    use kerf_cache::cosmic_text::{CacheKey, CacheKeyFlags, SwashCache};
    let mut db = fontdb::Database::new();
    db.load_font_data(dejavu::sans::regular().to_vec());
    let mut fs = FontSystem::new_with_locale_and_db("en-US".into(), db);
    let hinting = Box::new(SwashRasterizer::new().hinting(true));
    let mut cache = GlyphCache::with_rasterizer(CacheConfig::default(), hinting).unwrap();
    let mut plain_cache = GlyphCache::new(CacheConfig::default()).unwrap();
    let (mut fonts, mut plain_fonts) = (CosmicFonts::new(), CosmicFonts::new());
    let mut reference = SwashCache::new();
    let text = "Hamburgefonstiv 0123";
    // By flag: each glyph's pixels, ours.
    let mut drawn: Vec<Vec<Vec<(i32, i32, u8)>>> = Vec::new();
    for flags in [CacheKeyFlags::empty(), CacheKeyFlags::DISABLE_HINTING] {
        let mut buffer = Buffer::new(&mut fs, Metrics::new(13.0, 20.0));
        let attrs = Attrs::new().family(Family::Name("DejaVu Sans")).cache_key_flags(flags);
        buffer.set_text(text, &attrs, Shaping::Advanced, None);
        buffer.shape_until_scroll(&mut fs, false);
        let mut glyphs = Vec::new();
        fonts.glyphs(&mut cache, &fs, &buffer, (0.0, 0.0), [0, 0, 0, 255], &mut glyphs).unwrap();
        let mut plain = Vec::new();
        plain_fonts.glyphs(&mut plain_cache, &fs, &buffer, (0.0, 0.0), [0; 4], &mut plain).unwrap();
        // Nothing hints in the plain cache: the face itself, flag or not.
        assert!(plain.iter().all(|g| instance_of(&plain_cache, g).is_default()));
        let unhinted = flags.contains(CacheKeyFlags::DISABLE_HINTING);
        let laid: Vec<_> = buffer.layout_runs().flat_map(|r| r.glyphs.iter().cloned()).collect();
        assert_eq!(glyphs.len(), laid.len());
        let mut ours_by_glyph = Vec::new();
        for (g, lg) in glyphs.iter().zip(&laid) {
            assert_eq!(instance_of(&cache, g).unhinted(), unhinted, "glyph {}", g.glyph);
            let size = GlyphSize::from_px(g.size, 1024.0).unwrap();
            let key =
                GlyphKey { mode: RenderMode::Coverage, ..GlyphKey::new(g.font, g.glyph, size) };
            let ours = cache.rasterize_key(&key).unwrap();
            let ours =
                ink_at(ours.left, ours.bottom + ours.height as i32, ours.width, &ours.pixels);
            let (ck, _, _) = CacheKey::new(
                lg.font_id,
                lg.glyph_id,
                lg.font_size,
                (0.0, 0.0),
                lg.font_weight,
                flags,
            );
            let theirs = reference.get_image_uncached(&mut fs, ck).expect("cosmic-text draws it");
            let p = theirs.placement;
            let theirs = ink_at(p.left, p.top, p.width, &theirs.data);
            assert_eq!(ours, theirs, "glyph {} unhinted {unhinted}", g.glyph);
            ours_by_glyph.push(ours);
        }
        drawn.push(ours_by_glyph);
    }
    // The two differ: the comparison above saw hinting on and off.
    let differ = drawn[0].iter().zip(&drawn[1]).filter(|(a, b)| a != b).count();
    assert!(differ >= 5, "hinting changed only {differ} glyphs");
}

/// Hinted glyphs laid out from a plain string (`Frame::layout`, what
/// `TextSpec` areas draw) sit where cosmic-text's own swash path places the
/// same hinted raster from the same pen: its top `placement.top` rows above
/// the baseline, as tall, its left edge at the pen plus the bearing (within
/// the pixel a different sub-pixel bin may move it). A picture made before
/// layout placed glyphs at their pens drew hinted ascenders a pixel low.
#[cfg(feature = "swash")]
#[test]
fn hinted_glyphs_laid_out_from_a_string_sit_where_swash_places_them() {
    use kerf_cache::cosmic_text::{CacheKey, CacheKeyFlags, SwashCache};
    let mut db = fontdb::Database::new();
    db.load_font_data(dejavu::sans::regular().to_vec());
    let face = db.faces().next().unwrap().id;
    let mut fs = FontSystem::new_with_locale_and_db("en-US".into(), db);
    let mut reference = SwashCache::new();
    let hinting = Box::new(SwashRasterizer::new().hinting(true));
    let mut cache = GlyphCache::with_rasterizer(CacheConfig::default(), hinting).unwrap();
    let font = cache.add_font(dejavu::sans::regular().to_vec()).unwrap();
    let mut compared = 0;
    for px in [9.0f32, 11.0, 13.0, 14.0] {
        let spec = TextSpec::new("Hamburgefonstiv illiterate bdhklt", font, px);
        let mut pens = Vec::new();
        cache.positions(&spec, &mut pens).unwrap();
        let mut quads = Vec::new();
        let mut frame = cache.begin_frame();
        frame.layout(&spec, &mut quads).unwrap();
        assert!(frame.finish().skipped.is_empty());
        let mut drawn = quads.iter();
        for pen in &pens {
            assert_eq!(pen.y.fract(), 0.0, "the baseline is on a pixel edge");
            let (key, x, y) = CacheKey::new(
                face,
                pen.glyph,
                px,
                (pen.x, pen.y),
                fontdb::Weight::NORMAL,
                CacheKeyFlags::empty(),
            );
            let theirs = reference.get_image_uncached(&mut fs, key).expect("cosmic-text draws it");
            let p = theirs.placement;
            if p.width == 0 || p.height == 0 {
                continue;
            }
            let q = drawn.next().expect("a quad for every glyph with ink");
            assert_eq!(
                (q.y, q.height as u32),
                (y - p.top, p.height),
                "{px} px, glyph {}: top and height",
                pen.glyph
            );
            assert!((q.x - (x + p.left)).abs() <= 1, "{px} px, glyph {}: left", pen.glyph);
            compared += 1;
        }
        assert!(drawn.next().is_none(), "no quad without a glyph");
    }
    assert!(compared > 100, "{compared} glyphs compared");
}

/// Variations a face lacks are reported once each, in the order first
/// met: the axes Inter's `fvar` does not list (read with ttf-parser), then
/// those DejaVu Sans (no `fvar`) adds; nothing before a face is drawn.
#[test]
fn axes_a_face_lacks_are_reported() {
    let inter = font_file("inter-vf/Inter.var.ttf", "fonts-inter-variable");
    let inter_bytes = std::fs::read(&inter).unwrap();
    let inter_axes: Vec<[u8; 4]> = ttf_parser::Face::parse(&inter_bytes, 0)
        .unwrap()
        .variation_axes()
        .into_iter()
        .map(|a| a.tag.to_bytes())
        .collect();
    let mut db = fontdb::Database::new();
    db.load_font_data(inter_bytes);
    db.load_font_data(dejavu::sans::regular().to_vec());
    let mut fs = FontSystem::new_with_locale_and_db("en-US".into(), db);
    let mut cache = GlyphCache::new(CacheConfig::default()).unwrap();
    let asked = [(*b"wght", 600.0), (*b"wdth", 80.0), (*b"GRAD", 50.0)];
    let mut fonts = CosmicFonts::new().variations(&asked);
    assert!(fonts.ignored_axes().is_empty());
    let mut draw = |fonts: &mut CosmicFonts, family: &str| {
        let mut buffer = Buffer::new(&mut fs, Metrics::new(PX, PX * 1.5));
        buffer.set_text("Hlo", &Attrs::new().family(Family::Name(family)), Shaping::Advanced, None);
        buffer.shape_until_scroll(&mut fs, false);
        let mut glyphs = Vec::new();
        fonts.glyphs(&mut cache, &fs, &buffer, (0.0, 0.0), [0, 0, 0, 255], &mut glyphs).unwrap();
    };
    draw(&mut fonts, "Inter");
    let lacking: Vec<[u8; 4]> =
        asked.iter().map(|a| a.0).filter(|t| !inter_axes.contains(t)).collect();
    assert!(!lacking.is_empty() && lacking.len() < asked.len(), "{lacking:?}");
    assert_eq!(fonts.ignored_axes(), &lacking[..]);
    draw(&mut fonts, "DejaVu Sans");
    let mut all = lacking.clone();
    all.extend(asked.iter().map(|a| a.0).filter(|t| !lacking.contains(t)));
    assert_eq!(fonts.ignored_axes(), &all[..]);
}

/// A line in two faces (spans of DejaVu Sans and DejaVu Serif, and Sans
/// again): each glyph is drawn from the face cosmic-text shaped it with.
/// The reference is the face's own glyph count and cmap, read by
/// ttf-parser from each face's bytes: a glyph id is only checked against
/// the face it names.
#[test]
fn a_line_of_several_faces_draws_each_glyph_from_its_own_face() {
    let mut fs = FontSystem::new_with_locale_and_db("en-US".into(), fontdb::Database::new());
    fs.db_mut().load_font_data(dejavu::sans::regular().to_vec());
    fs.db_mut().load_font_data(dejavu::serif::regular().to_vec());
    let sans = Attrs::new().family(Family::Name("DejaVu Sans"));
    let serif = Attrs::new().family(Family::Name("DejaVu Serif"));
    let mut buffer = Buffer::new(&mut fs, Metrics::new(20.0, 26.0));
    buffer.set_rich_text(
        [("Sans ", sans.clone()), ("Serif ", serif), ("Sans", sans.clone())],
        &sans,
        Shaping::Advanced,
        None,
    );
    buffer.shape_until_scroll(&mut fs, false);
    let mut cache = GlyphCache::new(CacheConfig::default()).unwrap();
    let mut fonts = CosmicFonts::new();
    let mut glyphs = Vec::new();
    fonts.glyphs(&mut cache, &fs, &buffer, (0.0, 0.0), [0, 0, 0, 255], &mut glyphs).unwrap();
    let run = buffer.layout_runs().next().expect("one line");
    assert_eq!(glyphs.len(), run.glyphs.len());
    // cosmic-text's face per glyph, and kerf's.
    let faces: Vec<_> = run.glyphs.iter().map(|g| g.font_id).collect();
    let kinds: std::collections::BTreeSet<_> = faces.iter().collect();
    assert_eq!(kinds.len(), 2, "the line is in two faces");
    for (i, (g, face)) in glyphs.iter().zip(&faces).enumerate() {
        let same_face = faces.iter().zip(&glyphs).filter(|(f, _)| *f == face);
        for (_, other) in same_face {
            assert_eq!(g.font, other.font, "glyph {i}: one face, one kerf font");
        }
        let other_face = faces.iter().zip(&glyphs).filter(|(f, _)| *f != face);
        for (_, other) in other_face {
            assert_ne!(g.font, other.font, "glyph {i}: two faces, two kerf fonts");
        }
    }
    // And the glyph ids are the faces' own for the letters (S, a, n, s, e,
    // r, i, f), read from each face's cmap.
    let text = "Sans Serif Sans";
    for (g, lg) in glyphs.iter().zip(run.glyphs) {
        let ch = text[lg.start..lg.end].chars().next().unwrap();
        let bytes = if lg.start >= 5 && lg.start < 11 {
            dejavu::serif::regular()
        } else {
            dejavu::sans::regular()
        };
        let face = ttf_parser::Face::parse(bytes, 0).unwrap();
        assert_eq!(Some(g.glyph), face.glyph_index(ch).map(|id| id.0), "{ch:?}");
    }
}
