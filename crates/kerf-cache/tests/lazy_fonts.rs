//! Faces loaded lazily: adding one reads no outline, a glyph's outline is
//! read when the glyph is drawn, one parse is shared, and what the outline
//! rasterizer draws matches fontdue's raster of the same face.

use kerf_cache::*;
use kerf_cache::{
    fonts::{Font, FontLoading, FontRef},
    limits::EAGER_MAX_GLYPHS,
    rasterize::{FontdueRasterizer, GlyphImage, Rasterizer},
};

mod made;

const CJK_FONT: &str = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc";

fn cjk() -> Vec<u8> {
    std::fs::read(CJK_FONT)
        .unwrap_or_else(|e| panic!("{CJK_FONT}: {e}; install Debian's fonts-wqy-microhei"))
}

fn px(size: f32) -> GlyphSize {
    GlyphSize::from_px(size, 1024.0).unwrap()
}

#[test]
fn adding_a_large_face_reads_no_outline_and_drawing_reads_only_what_is_drawn() {
    let mut c = GlyphCache::new(CacheConfig::default()).unwrap();
    let f = c.add_font_indexed(cjk(), 0).unwrap();
    let font = c.fonts().get(f).unwrap().clone();
    assert!(font.is_lazy(), "WenQuanYi Micro Hei has 49,531 glyphs: lazy under Auto");
    assert!(font.glyph_count() > EAGER_MAX_GLYPHS);
    assert_eq!(font.outlines_read(), 0, "no outline read when the face is added");
    let text = "字体渲染";
    let glyphs: Vec<PositionedGlyph> = text
        .chars()
        .enumerate()
        .map(|(i, ch)| PositionedGlyph {
            font: f,
            glyph: font.glyph_index(ch),
            size: 24.0,
            x: 30.0 * i as f32,
            y: 40.0,
            color: [0, 0, 0, 255],
        })
        .collect();
    assert!(glyphs.iter().all(|g| g.glyph != 0));
    let mut quads = Vec::new();
    let mut fr = c.begin_frame();
    fr.prepare(&glyphs, &mut quads);
    let out = fr.finish();
    assert!(out.skipped.is_empty());
    assert_eq!(quads.len(), 4);
    let read = font.outlines_read();
    // A miss measures and rasterizes its glyph: at most two reads a glyph.
    assert!((4..=8).contains(&read), "{read} outlines read for 4 glyphs");
    // Drawn again: hits, nothing read.
    let mut fr = c.begin_frame();
    fr.prepare(&glyphs, &mut quads);
    fr.finish();
    assert_eq!(font.outlines_read(), read);
}

#[test]
fn one_parse_is_shared_between_caches_and_threads() {
    let font = Font::from_bytes(cjk(), 0).unwrap();
    let mut a = GlyphCache::new(CacheConfig::default()).unwrap();
    let mut b = GlyphCache::new(CacheConfig::default()).unwrap();
    let fa = a.add_parsed_font(font.clone()).unwrap();
    let fb = b.add_parsed_font(font.clone()).unwrap();
    assert!(a.fonts().get(fa).unwrap().same_face(&font));
    assert!(b.fonts().get(fb).unwrap().same_face(&font));
    assert!(std::ptr::eq(a.fonts().get(fa).unwrap().bytes(), font.bytes()), "bytes not copied");
    let g = font.glyph_index('中');
    let t = std::thread::spawn(move || {
        let mut fr = b.begin_frame();
        fr.glyph(fb, g, 20.0).unwrap();
        fr.finish();
    });
    t.join().unwrap();
    // The other cache's and the other thread's reads show on the one face.
    assert!(font.outlines_read() >= 1);
}

/// Each face of a collection gives back the bytes and index it was loaded
/// from (what an app re-shapes with), the second face of the TTC too.
#[test]
fn a_face_gives_back_the_bytes_and_index_it_came_from() {
    let bytes = cjk();
    let mut c = GlyphCache::new(CacheConfig::default()).unwrap();
    let first = c.add_font_indexed(bytes.clone(), 0).unwrap();
    let second = c.add_font_indexed(bytes.clone(), 1).unwrap();
    assert_eq!(c.fonts().source(first), Some((&bytes[..], 0)));
    assert_eq!(c.fonts().source(second), Some((&bytes[..], 1)));
    let mut other = GlyphCache::new(CacheConfig::default()).unwrap();
    for _ in 0..3 {
        other.add_font(dejavu::sans::regular().to_vec()).unwrap();
    }
    let foreign = other.add_font(dejavu::sans::regular().to_vec()).unwrap(); // id 3
    assert_eq!(c.fonts().source(foreign), None, "an id this cache never gave out");
}

/// DejaVu Sans loaded both ways: the outline rasterizer (lazy) draws every
/// glyph the size and place fontdue (eager) draws it, with the same ink.
#[test]
fn a_glyph_drawn_lazily_matches_the_eagerly_parsed_raster() {
    let bytes = dejavu::sans::regular().to_vec();
    let lazy = Font::from_bytes_with(bytes.clone(), 0, FontLoading::Lazy).unwrap();
    let eager = Font::from_bytes_with(bytes, 0, FontLoading::Eager).unwrap();
    assert!(lazy.is_lazy() && !eager.is_lazy());
    assert_eq!(lazy.outlines_read(), 0);
    assert_eq!(eager.outlines_read(), u64::from(eager.glyph_count()));
    let id =
        GlyphCache::new(CacheConfig::default()).unwrap().add_parsed_font(lazy.clone()).unwrap();
    let text = "Hamburgefontsiv ÄÖÜ ßøæ ΩΣλ жЩ 0123456789 &@%?!{}";
    let (mut worst, mut ink_l, mut ink_e, mut texels, mut moved) = ([0u8; 3], 0u64, 0u64, 0u64, 0);
    let mut glyphs = 0;
    for size in [9.0f32, 13.0, 16.0, 24.0, 48.0] {
        for ch in text.chars().filter(|c| !c.is_whitespace()) {
            let g = eager.glyph_index(ch);
            assert_eq!(lazy.glyph_index(ch), g, "{ch}");
            assert!((lazy.advance(g, size) - eager.advance(g, size)).abs() < 1e-3);
            for (m, (mode, off)) in [
                (RenderMode::Coverage, 0u8),
                (RenderMode::ShiftedCoverage, 96),
                (RenderMode::Lcd, 160),
            ]
            .into_iter()
            .enumerate()
            {
                let key = GlyphKey { mode, subpixel_x: off, ..GlyphKey::new(id, g, px(size)) };
                let a = FontdueRasterizer.rasterize(fref(&lazy), &key).unwrap();
                let b = FontdueRasterizer.rasterize(fref(&eager), &key).unwrap();
                assert_eq!(
                    FontdueRasterizer.measure(fref(&lazy), &key).unwrap(),
                    (a.width, a.height),
                    "'{ch}' {size} {mode:?}: measure says what rasterize draws"
                );
                glyphs += 1;
                // Compared where they land: texel by texel on a common canvas
                // (a bound within a hair of a pixel edge may round the other
                // way and give one raster an empty row or column more).
                let lcd = mode == RenderMode::Lcd;
                let (ca, cb) = (on_canvas(&a, lcd), on_canvas(&b, lcd));
                let mut here = 0u8;
                for at in ca.keys().chain(cb.keys()) {
                    let (x, y) =
                        (ca.get(at).copied().unwrap_or(0), cb.get(at).copied().unwrap_or(0));
                    here = here.max(x.abs_diff(y));
                }
                worst[m] = worst[m].max(here);
                moved += usize::from(here > 64);
                ink_l += ca.values().map(|&v| v as u64).sum::<u64>();
                ink_e += cb.values().map(|&v| v as u64).sum::<u64>();
                texels += ca.len().max(cb.len()) as u64;
            }
        }
    }
    eprintln!(
        "{glyphs} rasters, {moved} placed differently; worst texel by mode {worst:?}/255; ink {ink_l} vs {ink_e} over {texels} texels"
    );
    assert!(moved * 100 <= glyphs, "{moved} of {glyphs} rasters placed differently");
    let ratio = ink_l as f64 / ink_e as f64;
    assert!((ratio - 1.0).abs() < 0.01, "ink lazy / eager = {ratio}");
    // The same area sampling of nearly the same outline (flattened at the
    // size drawn here, at 40 px by fontdue). A lazy face's sub-pixel bins
    // are the outline moved and filled (exact area coverage); fontdue's are
    // its 3× raster resampled, each third-pixel column's ink split by area
    // between two pixels wherever in the column it lies, which is up to a
    // sixth of a pixel's coverage off at an edge.
    assert!(worst[0] <= 24 && worst[2] <= 24, "worst texel {worst:?}/255");
    assert!(worst[1] <= 48, "worst shifted texel {}/255", worst[1]);
}

/// A lazy face's sub-pixel bin is the glyph moved by its offset. Stems
/// drawn at many offsets have their edges where the font's own bounding box
/// (its `glyf` header, not kerf's outline) puts them, moved by the offset;
/// and each bin holds the ink of fontdue's whole-pixel raster (a reference
/// kerf did not draw).
#[test]
fn a_lazy_sub_pixel_bin_is_the_glyph_moved_by_its_offset() {
    let bytes = dejavu::sans::regular().to_vec();
    let face = ttf_parser::Face::parse(&bytes, 0).unwrap();
    let lazy = Font::from_bytes_with(bytes.clone(), 0, FontLoading::Lazy).unwrap();
    let eager = Font::from_bytes_with(bytes.clone(), 0, FontLoading::Eager).unwrap();
    let id =
        GlyphCache::new(CacheConfig::default()).unwrap().add_parsed_font(lazy.clone()).unwrap();
    let ink = |img: &GlyphImage| img.pixels.iter().map(|&v| v as f64).sum::<f64>();
    let mut worst: f64 = 0.0;
    for size in [11.0f32, 16.0, 24.0, 40.0, 73.0] {
        let scale = size as f64 / face.units_per_em() as f64;
        for ch in "l|I".chars() {
            let g = eager.glyph_index(ch);
            let bbox = face.glyph_bounding_box(ttf_parser::GlyphId(g)).unwrap();
            let whole = FontdueRasterizer.rasterize(fref(&eager), &GlyphKey::new(id, g, px(size)));
            let ink0 = ink(&whole.unwrap());
            let keys: Vec<GlyphKey> = (0..=255u8)
                .step_by(17)
                .map(|o| GlyphKey {
                    mode: RenderMode::ShiftedCoverage,
                    subpixel_x: o,
                    ..GlyphKey::new(id, g, px(size))
                })
                .collect();
            let drawn = FontdueRasterizer.rasterize_offsets(fref(&lazy), &keys);
            for (key, img) in keys.iter().zip(drawn) {
                let img = img.unwrap();
                assert_eq!(
                    FontdueRasterizer.measure(fref(&lazy), key).unwrap(),
                    (img.width, img.height)
                );
                assert_eq!(FontdueRasterizer.rasterize(fref(&lazy), key).unwrap(), img);
                let dx = key.subpixel_x as f64 / 256.0;
                assert!((ink(&img) / ink0 - 1.0).abs() < 0.02, "'{ch}' {size} +{dx}: ink");
                // The middle row crosses the stem: partial texels at its ends
                // (a stem inside one texel shows its width, not its edges).
                let w = img.width as usize;
                if w < 2 {
                    continue;
                }
                let row = &img.pixels[(img.height as usize / 2) * w..][..w];
                let left = img.left as f64 + 1.0 - row[0] as f64 / 255.0;
                let right = img.left as f64 + (w - 1) as f64 + row[w - 1] as f64 / 255.0;
                let (l, r) = (bbox.x_min as f64 * scale + dx, bbox.x_max as f64 * scale + dx);
                worst = worst.max((left - l).abs()).max((right - r).abs());
            }
        }
    }
    // A texel's coverage is rounded to 1/255.
    assert!(worst <= 1.0 / 255.0, "a stem edge is {worst} px from where the offset puts it");
}

/// A raster's texels by where they land: (x, y up) in texels from the pen
/// (three texels a pixel across for LCD), zeros left out.
fn on_canvas(img: &GlyphImage, lcd: bool) -> std::collections::HashMap<(i32, i32), u8> {
    let (w, h) = (img.width as usize, img.height as usize);
    let x0 = if lcd { 3 * img.left } else { img.left };
    let mut out = std::collections::HashMap::new();
    for row in 0..h {
        for col in 0..w {
            let v = img.pixels[row * w + col];
            if v != 0 {
                out.insert((x0 + col as i32, img.bottom + (h - 1 - row) as i32), v);
            }
        }
    }
    out
}

/// Face `f` as a rasterizer sees it.
fn fref(f: &Font) -> FontRef<'_> {
    FontRef { font: f, bytes: f.bytes(), collection_index: 0 }
}

#[test]
fn a_lazy_face_with_damaged_outlines_gives_errors_not_panics() {
    let mut bytes = dejavu::sans::regular().to_vec();
    // Scribble over the glyf table.
    let glyf = made::table(&bytes, b"glyf");
    for (i, b) in bytes[glyf.0..glyf.0 + glyf.1].iter_mut().enumerate() {
        *b = (i as u8).wrapping_mul(151) ^ 0x5a;
    }
    // Loading checks the tables, not the outlines: the face loads.
    let font = Font::from_bytes_with(bytes, 0, FontLoading::Lazy).expect("tables intact");
    let mut c = GlyphCache::new(CacheConfig::default()).unwrap();
    let f = c.add_parsed_font(font.clone()).unwrap();
    let mut quads = Vec::new();
    let glyphs: Vec<PositionedGlyph> = (0..font.glyph_count().min(400))
        .map(|g| PositionedGlyph {
            font: f,
            glyph: g,
            size: 18.0,
            x: (g % 40) as f32 * 20.0,
            y: 20.0 + (g / 40) as f32 * 20.0,
            color: [0, 0, 0, 255],
        })
        .collect();
    let mut fr = c.begin_frame();
    fr.prepare(&glyphs, &mut quads);
    let out = fr.finish();
    eprintln!("{} of {} glyphs skipped", out.skipped.len(), glyphs.len());
    for s in &out.skipped {
        assert!(matches!(s.reason, GlyphError::Raster(_) | GlyphError::TooLarge { .. }), "{s:?}");
    }
    c.check_invariants().unwrap();
}

#[test]
fn a_glyph_rasterized_again_is_not_read_again_within_its_size_class() {
    // The face keeps each glyph's flattened outline by size class (the
    // next power of two at or above the size): again, or at another size
    // of the class, rasterizes from it; a size of another class reads anew.
    let lazy =
        Font::from_bytes_with(dejavu::sans::regular().to_vec(), 0, FontLoading::Lazy).unwrap();
    let id =
        GlyphCache::new(CacheConfig::default()).unwrap().add_parsed_font(lazy.clone()).unwrap();
    let g = lazy.glyph_index('g');
    let draw = |size: f32| {
        let key = GlyphKey::new(id, g, px(size));
        FontdueRasterizer.rasterize(fref(&lazy), &key).unwrap()
    };
    let first = draw(16.0);
    assert_eq!(lazy.outlines_read(), 1);
    let again = draw(16.0);
    assert_eq!(lazy.outlines_read(), 1, "kept");
    assert_eq!(
        (again.left, again.bottom, again.width, again.height),
        (first.left, first.bottom, first.width, first.height)
    );
    assert_eq!(again.pixels, first.pixels);
    let smaller = draw(12.5);
    assert_eq!(lazy.outlines_read(), 1, "12.5 px is in 16's class");
    assert!(smaller.width < first.width && smaller.height < first.height);
    draw(16.5);
    assert_eq!(lazy.outlines_read(), 2, "16.5 px is in 32's class");
    draw(32.0);
    assert_eq!(lazy.outlines_read(), 2);
    // Another face of the same bytes keeps its own.
    let other =
        Font::from_bytes_with(dejavu::sans::regular().to_vec(), 0, FontLoading::Lazy).unwrap();
    let key = GlyphKey::new(id, g, px(16.0));
    let from_other = FontdueRasterizer.rasterize(fref(&other), &key).unwrap();
    assert_eq!(other.outlines_read(), 1);
    assert_eq!(from_other.pixels, first.pixels);
}

#[test]
fn synthetic_bold_and_oblique_draw_from_the_face_s_kept_outline() {
    // They transform the face's outline (no axes): the one kept outline
    // serves the face and both instances, each drawn as itself.
    let mut cache = GlyphCache::new(CacheConfig::default()).unwrap();
    let regular = cache.add_font(dejavu::sans::regular().to_vec()).unwrap();
    let bold = cache.add_instance(regular, &FontStyle::new().weight(700.0)).unwrap().font;
    let slanted = cache.add_instance(regular, &FontStyle::new().italic(true)).unwrap().font;
    let font = |id| cache.fonts().get(id).unwrap().clone();
    let (r, b, s) = (font(regular), font(bold), font(slanted));
    assert!(
        r.is_lazy() && b.instance().unwrap().embolden() && s.instance().unwrap().oblique() > 0.0
    );
    let g = r.glyph_index('l');
    let draw = |f: &Font, id| {
        FontdueRasterizer.rasterize(fref(f), &GlyphKey::new(id, g, px(16.0))).unwrap()
    };
    let plain = draw(&r, regular);
    assert_eq!(r.outlines_read(), 1);
    let heavy = draw(&b, bold);
    let leaning = draw(&s, slanted);
    assert_eq!(r.outlines_read(), 1, "the instances drew from the kept outline");
    let ink = |img: &GlyphImage| img.pixels.iter().map(|&v| u64::from(v)).sum::<u64>();
    // Emboldened: more ink than the face; slanted: wider, the same ink.
    assert!(ink(&heavy) > ink(&plain) * 11 / 10, "{} vs {}", ink(&heavy), ink(&plain));
    assert!(leaning.width > plain.width);
    assert!(ink(&leaning).abs_diff(ink(&plain)) < ink(&plain) / 50);
}

/// A system font's bytes; a missing file names the Debian package to install.
fn system_font(path: &str, package: &str) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}; install Debian's {package}"))
}

/// The same fonts in two caches: loaded lazily in one and eagerly (fontdue's
/// parse of every outline, which fontdue's layout was written for) in the
/// other. Inter is variable and takes its line metrics from `OS/2`; the CJK
/// face is the second of a collection.
struct TwoWays {
    lazy: GlyphCache,
    eager: GlyphCache,
    fonts: Vec<Font>,
    ids: Vec<FontId>,
}

fn two_ways() -> TwoWays {
    let files = [
        (dejavu::sans::regular().to_vec(), 0),
        (
            system_font("/usr/share/fonts/truetype/inter-vf/Inter.var.ttf", "fonts-inter-variable"),
            0,
        ),
        (cjk(), 1),
        (
            system_font(
                "/usr/share/fonts/truetype/lohit-devanagari/Lohit-Devanagari.ttf",
                "fonts-lohit-deva",
            ),
            0,
        ),
    ];
    let mut lazy = GlyphCache::new(CacheConfig::default()).unwrap();
    let mut eager = GlyphCache::new(CacheConfig::default()).unwrap();
    let (mut fonts, mut ids) = (Vec::new(), Vec::new());
    for (bytes, index) in files {
        let l = Font::from_bytes_with(bytes.clone(), index, FontLoading::Lazy).unwrap();
        let e = Font::from_bytes_with(bytes, index, FontLoading::Eager).unwrap();
        let id = lazy.add_parsed_font(l.clone()).unwrap();
        assert_eq!(id, eager.add_parsed_font(e).unwrap());
        fonts.push(l);
        ids.push(id);
    }
    TwoWays { lazy, eager, fonts, ids }
}

static TWO_WAYS: std::sync::Mutex<Option<TwoWays>> = std::sync::Mutex::new(None);

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(96))]

    /// kerf's own layout in a lazy face places every glyph (its font, its
    /// glyph, its pen and baseline, its line breaks) where it does in the
    /// face fontdue parsed whole, and reads no outline to do it.
    #[test]
    fn kerf_layout_in_a_lazy_face_matches_the_whole_parse_and_reads_no_outline(
        picks in proptest::collection::vec(0usize..POOL.len(), 0..80),
        first in 0usize..2,
        size in 6.0f32..72.0,
        width in proptest::option::of(1.0f32..700.0),
        line_height in 0.5f32..2.5,
        fallback in proptest::bool::ANY,
    ) {
        let mut guard = TWO_WAYS.lock().unwrap_or_else(|e| e.into_inner());
        let t = guard.get_or_insert_with(two_ways);
        let text: String = picks.iter().map(|&i| POOL[i]).collect();
        let ids = t.ids.clone();
        let rest: Vec<FontId> = ids.iter().copied().filter(|&f| f != ids[first]).collect();
        let mut spec = TextSpec::new(&text, ids[first], size).at(13.0, 41.0);
        spec.max_width = width;
        spec.line_height = line_height;
        if fallback {
            spec = spec.fallback(&rest);
        }
        let (mut a, mut b) = (Vec::new(), Vec::new());
        t.lazy.positions(&spec, &mut a).unwrap();
        t.eager.positions(&spec, &mut b).unwrap();
        proptest::prop_assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(&b) {
            proptest::prop_assert_eq!(
                (x.font, x.glyph, x.x.to_bits(), x.y.to_bits()),
                (y.font, y.glyph, y.x.to_bits(), y.y.to_bits()),
                "{:?} at {} px, width {:?}", text, size, width
            );
        }
        for f in &t.fonts {
            proptest::prop_assert_eq!(f.outlines_read(), 0);
        }
    }
}

/// What the layout property draws its text from: Latin, Greek and Cyrillic
/// words, spaces, breaks, punctuation, CJK, Devanagari, a soft hyphen, an
/// emoji no font here has, and long words that must break.
const POOL: [&str; 24] = [
    "the ",
    "Wafer ",
    "typography ",
    "ΩΣλ ",
    "жЩя ",
    "ÄÖÜßøæ ",
    "0123456789",
    ", ",
    ". ",
    "-",
    "\n",
    "\r\n",
    "\t",
    "  ",
    "字体渲染",
    "中文，",
    "नमस्ते ",
    "क्षि",
    "\u{ad}",
    "😀",
    "supercalifragilisticexpialidocious",
    "(x)",
    "\u{a0}",
    "fi fl ffi ",
];

/// A lazy face keeps the outlines it flattened for the next raster of the
/// same glyph (another sub-pixel offset) while they are read, and gives
/// them back once unread for 600 frames: a raster after that reads the
/// font again.
#[test]
fn kept_outlines_serve_rasters_again_until_they_go_unread_for_600_frames() {
    let mut c = GlyphCache::new(CacheConfig::default()).unwrap();
    let f = c.add_font_indexed(cjk(), 0).unwrap();
    let font = c.fonts().get(f).unwrap().clone();
    let at = |ch: char, x: f32| PositionedGlyph {
        font: f,
        glyph: font.glyph_index(ch),
        size: 24.0,
        x,
        y: 40.0,
        color: [0, 0, 0, 255],
    };
    let mut quads = Vec::new();
    let mut draw = |c: &mut GlyphCache, glyphs: &[PositionedGlyph]| {
        quads.clear();
        let mut fr = c.begin_frame();
        fr.prepare(glyphs, &mut quads);
        let out = fr.finish();
        assert!(out.skipped.is_empty());
        assert_eq!(quads.len(), glyphs.len());
    };
    let idle = |c: &mut GlyphCache, frames: usize| {
        for _ in 0..frames {
            c.begin_frame().finish();
        }
    };
    // 字 at offset 0, then 体 (so the rasterizer's last outline is another).
    draw(&mut c, &[at('字', 0.0)]);
    draw(&mut c, &[at('体', 0.0)]);
    let read = font.outlines_read();
    // 500 frames on, 字 at another sub-pixel offset: a new raster, from the
    // kept outline.
    idle(&mut c, 500);
    draw(&mut c, &[at('字', 0.5)]);
    draw(&mut c, &[at('体', 0.5)]);
    assert_eq!(font.outlines_read(), read, "rasters again from kept outlines");
    // 700 frames unread: given back; the next raster reads the font.
    idle(&mut c, 700);
    draw(&mut c, &[at('字', 0.25)]);
    assert!(font.outlines_read() > read, "the outline was kept past 600 frames unread");
}
