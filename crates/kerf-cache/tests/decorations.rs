//! Decorations (underline, strikethrough, overline): where the font's own
//! metrics put them (read here with ttf-parser, not through kerf), where
//! cosmic-text's own renderer puts them, and drawn as solid quads that read
//! one full texel.

use kerf_cache::*;

mod made;

const PX: f32 = 32.0;

/// DejaVu Sans's `post` underline and `OS/2` strikeout (top, thickness) in
/// ems, read with ttf-parser.
fn dejavu_lines() -> ((f32, f32), (f32, f32), f32) {
    let bytes = dejavu::sans::regular();
    let face = ttf_parser::Face::parse(bytes, 0).unwrap();
    let upem = face.units_per_em() as f32;
    let u = face.underline_metrics().unwrap();
    let s = face.strikeout_metrics().unwrap();
    (
        (u.position as f32 / upem, u.thickness as f32 / upem),
        (s.position as f32 / upem, s.thickness as f32 / upem),
        face.ascender() as f32 / upem,
    )
}

/// The solid quads among `quads`, as (x, y, width, height).
fn solids(quads: &[GlyphQuad]) -> Vec<(i32, i32, u16, u16)> {
    quads
        .iter()
        .filter(|q| q.flags.contains(QuadFlags::SOLID))
        .map(|q| (q.x, q.y, q.width, q.height))
        .collect()
}

#[test]
fn text_spec_lines_sit_where_the_font_says() {
    let mut cache = GlyphCache::new(CacheConfig::default()).unwrap();
    let font = cache.add_font(dejavu::sans::regular().to_vec()).unwrap();
    let spec = TextSpec::new("Decorated text", font, PX).at(10.0, 20.0);
    let mut pens = Vec::new();
    cache.positions(&spec, &mut pens).unwrap();
    let baseline = pens[0].y;
    let (x0, last) = (pens[0].x, pens.last().unwrap());
    let x1 = last.x + cache.fonts().get(font).unwrap().advance(last.glyph, PX);
    let mut quads = Vec::new();
    let mut frame = cache.begin_frame();
    frame.layout(&spec.underline().strikethrough().overline(), &mut quads).unwrap();
    let out = frame.finish();
    assert!(out.skipped.is_empty());
    let ((ut, uh), (st, sh), asc) = dejavu_lines();
    let line = |top: f32, h: f32| {
        (
            x0.round() as i32,
            (baseline - top * PX).round() as i32,
            (x1.round() - x0.round()) as u16,
            (h * PX).round().max(1.0) as u16,
        )
    };
    assert_eq!(solids(&quads), vec![line(ut, uh), line(asc, uh), line(st, sh)]);
    // Under, through, over: in that order down the page.
    let s = solids(&quads);
    assert!(s[1].1 < s[2].1 && s[2].1 < baseline as i32 && s[0].1 > baseline as i32);
    // Every pixel of a solid quad reads a full texel.
    for q in quads.iter().filter(|q| q.flags.contains(QuadFlags::SOLID)) {
        let page = &cache.pages()[q.page as usize];
        let side = page.side() as usize;
        for dy in -1..=1i32 {
            for dx in -1..=1i32 {
                let (x, y) = (q.tex_x as i32 + dx, q.tex_y as i32 + dy);
                assert_eq!(
                    page.pixels()[y as usize * side + x as usize],
                    255,
                    "the texel and its neighbours are full"
                );
            }
        }
    }
    cache.check_invariants().unwrap();
    // The texel is a cached entry like a glyph: kept while in use, one entry.
    let before = cache.len();
    let mut frame = cache.begin_frame();
    quads.clear();
    frame.layout(&spec.underline(), &mut quads).unwrap();
    let out = frame.finish();
    assert_eq!(
        (out.counts.hits, out.counts.lookups),
        (out.counts.lookups, out.counts.lookups),
        "all hits, the solid texel too"
    );
    assert_eq!(cache.len(), before);
}

#[test]
fn decoration_rectangles_wider_than_a_quad_are_split_and_empty_ones_dropped() {
    let mut cache = GlyphCache::new(CacheConfig::default()).unwrap();
    let mut quads = Vec::new();
    let mut frame = cache.begin_frame();
    let d = |w, h| Decoration { x: -5, y: 3, width: w, height: h, color: [9, 9, 9, 255] };
    frame.decorations(&[d(150_000, 2), d(0, 5), d(10, 0)], &mut quads).unwrap();
    frame.finish();
    let s = solids(&quads);
    assert_eq!(s, vec![(-5, 3, 65535, 2), (65530, 3, 65535, 2), (131065, 3, 18930, 2)]);
    assert!(quads.iter().all(|q| q.color == [9, 9, 9, 255]));
    // Nothing to draw: no lookup at all.
    let mut frame = cache.begin_frame();
    quads.clear();
    frame.decorations(&[d(0, 3)], &mut quads).unwrap();
    assert_eq!(frame.finish().counts.lookups, 0);
}

#[cfg(feature = "cosmic-text")]
#[test]
fn cosmic_decorations_are_where_cosmic_texts_renderer_puts_them() {
    use kerf_cache::cosmic_text::{
        fontdb, Attrs, Buffer, Color, Family, FontSystem, Metrics, PhysicalGlyph, Renderer,
        Shaping, UnderlineStyle,
    };
    let mut db = fontdb::Database::new();
    db.load_font_data(dejavu::sans::regular().to_vec());
    let mut fs = FontSystem::new_with_locale_and_db("en-US".into(), db);
    // Sizes whose lines are 1, 2 and 3 px thick.
    for px in [11.0, PX, 45.0] {
        let mut buffer = Buffer::new(&mut fs, Metrics::new(px, px * 1.25));
        let plain = Attrs::new().family(Family::Name("DejaVu Sans"));
        let red = Color::rgb(200, 0, 0);
        let spans = [
            ("under ", plain.clone().underline(UnderlineStyle::Single)),
            ("double ", plain.clone().underline(UnderlineStyle::Double)),
            ("struck ", plain.clone().strikethrough().strikethrough_color(red)),
            ("over", plain.clone().overline()),
        ];
        buffer.set_rich_text(
            spans.iter().map(|(t, a)| (*t, a.clone())),
            &plain,
            Shaping::Advanced,
            None,
        );
        buffer.shape_until_scroll(&mut fs, false);
        // cosmic-text's own renderer, recording its rectangles.
        struct Rects(Vec<(i32, i32, u32, u32, [u8; 4])>);
        impl Renderer for Rects {
            fn rectangle(&mut self, x: i32, y: i32, w: u32, h: u32, c: Color) {
                self.0.push((x, y, w, h, [c.r(), c.g(), c.b(), c.a()]));
            }
            fn glyph(&mut self, _: PhysicalGlyph, _: Color) {}
        }
        let mut theirs = Rects(Vec::new());
        for run in buffer.layout_runs() {
            kerf_cache::cosmic_text::render_decoration(&mut theirs, &run, Color::rgb(0, 0, 0));
        }
        let mut ours = Vec::new();
        CosmicFonts::decorations(&buffer, (0.0, 0.0), [0, 0, 0, 255], &mut ours);
        assert_eq!(ours.len(), theirs.0.len(), "{ours:?} vs {:?}", theirs.0);
        assert_eq!(ours.len(), 5, "single, double (two), strikethrough, overline");
        for (o, t) in ours.iter().zip(&theirs.0) {
            assert_eq!((o.x, o.y, o.width, o.height, o.color), *t, "at {px} px");
        }
    }
}

#[cfg(feature = "parley")]
#[test]
fn parley_decorations_use_the_style_or_the_fonts_metrics() {
    use kerf_cache::parley::{
        fontique::Blob, FontContext, FontFamily, Layout, LayoutContext, StyleProperty,
    };
    use std::sync::Arc;
    let mut fonts = FontContext::new();
    fonts.collection.register_fonts(Blob::new(Arc::new(dejavu::sans::regular().to_vec())), None);
    let mut layouts = LayoutContext::<[u8; 4]>::new();
    let text = "under struck";
    let mut builder = layouts.ranged_builder(&mut fonts, text, 1.0, false);
    builder.push_default(StyleProperty::FontFamily(FontFamily::named("DejaVu Sans")));
    builder.push_default(StyleProperty::FontSize(PX));
    builder.push_default(StyleProperty::Brush([0, 0, 0, 255]));
    builder.push(StyleProperty::Underline(true), 0..5);
    builder.push(StyleProperty::Strikethrough(true), 6..12);
    builder.push(StyleProperty::StrikethroughSize(Some(5.0)), 6..12);
    let mut layout: Layout<[u8; 4]> = builder.build(text);
    layout.break_all_lines(None);
    let mut cache = GlyphCache::new(CacheConfig::default()).unwrap();
    let mut adapter = ParleyFonts::new();
    let mut ours = Vec::new();
    adapter.decorations(&mut cache, &layout, (0.0, 0.0), |b| *b, &mut ours).unwrap();
    let baseline = layout.lines().next().unwrap().metrics().baseline;
    let ((ut, uh), (st, _), _) = dejavu_lines();
    assert_eq!(ours.len(), 2, "{ours:?}");
    assert_eq!(ours[0].y, (baseline - ut * PX).round() as i32);
    assert_eq!(ours[0].height, (uh * PX).round().max(1.0) as u32);
    assert_eq!(ours[1].y, (baseline - st * PX).round() as i32);
    assert_eq!(ours[1].height, 5, "the style's size wins");
    assert!(ours[0].x == 0 && ours[1].x > ours[0].x + ours[0].width as i32 - 1);
}

/// A face without `OS/2` draws its strikethrough by CSS's fallback: a
/// 1/14 em line centred 0.3 em above the baseline, its thickness the
/// underline's (`post`, read with ttf-parser); the underline is unchanged.
#[test]
fn a_face_without_os2_strikes_through_at_css_fallback() {
    let bytes = made::renamed(dejavu::sans::regular(), b"OS/2", b"OS/3");
    let face = ttf_parser::Face::parse(&bytes, 0).unwrap();
    assert!(face.strikeout_metrics().is_none(), "the made face has no OS/2");
    let upem = f32::from(face.units_per_em());
    let u = face.underline_metrics().unwrap();
    let mut cache = GlyphCache::new(CacheConfig::default()).unwrap();
    let f = cache.add_font(bytes.clone()).unwrap();
    let font = cache.fonts().get(f).unwrap();
    let under = font.line_metrics(fonts::DecorationKind::Underline);
    assert!((under.top - f32::from(u.position) / upem).abs() < 1e-6);
    let strike = font.line_metrics(fonts::DecorationKind::Strikethrough);
    assert!((strike.top - (0.3 + 1.0 / 28.0)).abs() < 1e-6, "{strike:?}");
    assert!((strike.thickness - under.thickness).abs() < 1e-6, "{strike:?}");
}
