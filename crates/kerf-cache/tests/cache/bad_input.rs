//! Bad input gets a typed error, never a panic, and changes nothing:
//! configurations, fonts, sizes, ids and glyphs.

use super::*;
use kerf_cache::pages::UnknownUploadMode;
use kerf_cache::rasterize::GlyphImage;

#[test]
fn bad_configs_are_typed_errors() {
    let bad = [
        CacheConfig { page_size: 0, ..CacheConfig::default() },
        CacheConfig { max_texture_side: 0, ..CacheConfig::default() },
        CacheConfig { max_pages: 0, ..CacheConfig::default() },
        CacheConfig { memory_budget: 100, ..CacheConfig::default() },
        CacheConfig { padding: 1024, ..CacheConfig::default() },
        CacheConfig { max_glyph_px: f32::NAN, ..CacheConfig::default() },
        CacheConfig { max_glyph_px: -1.0, ..CacheConfig::default() },
    ];
    for cfg in bad {
        assert!(GlyphCache::new(cfg.clone()).is_err(), "{cfg:?}");
    }
}

#[test]
fn malformed_fonts_are_errors_and_change_nothing() {
    let mut c = GlyphCache::new(CacheConfig::default()).unwrap();
    assert_eq!(c.add_font(Vec::new()).unwrap_err(), FontError::Empty);
    assert!(matches!(c.add_font(b"definitely not a font".to_vec()), Err(FontError::Malformed(_))));
    let real = sans();
    for cut in [4, 12, 100, 1000, real.len() / 2] {
        assert!(c.add_font(real[..cut].to_vec()).is_err(), "truncated at {cut}");
    }
    assert!(c.add_font_indexed(real.clone(), 7).is_err(), "no face 7 in a plain font");
    assert_eq!(c.fonts().len(), 0);
    // Bit flips: an error or a usable font, never a panic.
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..12 {
        let mut bytes = real.clone();
        for _ in 0..8 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let i = (state % bytes.len() as u64) as usize;
            bytes[i] ^= 1 << (state % 8);
        }
        if let Ok(f) = c.add_font(bytes) {
            let mut fr = c.begin_frame();
            let mut quads = Vec::new();
            let _ = fr.layout(&TextSpec::new("Flipped bits: ÆØÅ 0123", f, 20.0), &mut quads);
            fr.finish();
            c.check_invariants().unwrap();
        }
    }
}

#[test]
fn bad_sizes_ids_and_glyphs_are_typed_errors() {
    let (mut c, f) = cache(128, 1, 0);
    let g = glyph_of(&c, f, 'A');
    let count = c.fonts().get(f).unwrap().glyph_count();
    let mut fr = c.begin_frame();
    for px in [f32::NAN, f32::INFINITY, -3.0, 0.0, 0.001, 5000.0] {
        assert!(matches!(fr.glyph(f, g, px), Err(GlyphError::InvalidSize { .. })), "{px}");
    }
    let mut other = GlyphCache::new(CacheConfig::default()).unwrap();
    let _ = other.add_font(sans()).unwrap();
    let foreign = other.add_font(sans()).unwrap(); // id 1: unknown in `c`
    assert_eq!(fr.glyph(foreign, g, 12.0), Err(GlyphError::UnknownFont(foreign)));
    assert!(matches!(fr.glyph(f, count, 12.0), Err(GlyphError::GlyphOutOfRange { .. })));
    // Bigger than the whole atlas (one 128 px page), even in tiles: refused before rasterizing.
    assert!(matches!(fr.glyph(f, g, 400.0), Err(GlyphError::TooLarge { .. })));
    assert!(fr.layout(&TextSpec::new("x", f, f32::NAN), &mut Vec::new()).is_err());
    assert!(fr.layout(&TextSpec::new("x", foreign, 12.0), &mut Vec::new()).is_err());
    // In a batch, bad glyphs are skipped and reported, good ones drawn.
    let glyphs = [
        PositionedGlyph { font: f, glyph: g, size: 12.0, x: 0.0, y: 0.0, color: [0; 4] },
        PositionedGlyph { font: f, glyph: g, size: f32::NAN, x: 0.0, y: 0.0, color: [0; 4] },
        PositionedGlyph { font: foreign, glyph: g, size: 12.0, x: 0.0, y: 0.0, color: [0; 4] },
        PositionedGlyph {
            font: f,
            glyph: g,
            size: 13.0,
            x: f32::NAN,
            y: f32::INFINITY,
            color: [0; 4],
        },
    ];
    let mut quads = Vec::new();
    fr.prepare(&glyphs, &mut quads);
    let out = fr.finish();
    assert_eq!(quads.len(), 2);
    let idx: Vec<usize> = out.skipped.iter().map(|s| s.index).collect();
    assert_eq!(idx, vec![1, 2]);
    c.check_invariants().unwrap();
    let s = c.stats();
    assert_eq!(s.hits + s.misses, s.lookups);
}

/// Found by fuzzing (fuzz/seeds/font_bytes/found-hang-cmap-group-range): a
/// cmap format 12 group claiming billions of code points made font loading
/// walk them all. It must be refused at once instead.
#[test]
fn a_cmap_claiming_billions_of_code_points_is_refused_fast() {
    let mut bytes = dejavu::sans_mono::regular().to_vec();
    let be32 =
        |b: &[u8], at: usize| u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]) as usize;
    let be16 = |b: &[u8], at: usize| u16::from_be_bytes([b[at], b[at + 1]]) as usize;
    let (cmap, _) = made::table(&bytes, b"cmap");
    let subtables = be16(&bytes, cmap + 2);
    let f12 = (0..subtables)
        .map(|i| cmap + be32(&bytes, cmap + 4 + 8 * i + 4))
        .find(|&off| be16(&bytes, off) == 12)
        .expect("DejaVu Sans Mono has a format 12 cmap subtable");
    // First group: end code = 0xFFFF_FFFE.
    bytes[f12 + 16 + 4..f12 + 16 + 8].copy_from_slice(&0xFFFF_FFFEu32.to_be_bytes());
    let mut c = GlyphCache::new(CacheConfig::default()).unwrap();
    let t = std::time::Instant::now();
    let err = c.add_font(bytes).unwrap_err();
    assert!(matches!(err, FontError::Malformed(ref m) if m.contains("cmap")), "{err:?}");
    assert!(t.elapsed() < std::time::Duration::from_secs(2), "took {:?}", t.elapsed());
    assert_eq!(c.fonts().len(), 0);
}

#[test]
fn upload_modes_read_their_names_and_refuse_others() {
    for (name, mode) in [
        ("auto", UploadMode::Auto),
        ("glyphs", UploadMode::Glyphs),
        ("dirty-rect", UploadMode::DirtyRect),
    ] {
        assert_eq!(name.parse::<UploadMode>(), Ok(mode));
        assert_eq!(mode.to_string(), name);
    }
    assert_eq!("DIRTY-RECT".parse::<UploadMode>(), Ok(UploadMode::DirtyRect));
    let err = "dirty_rect".parse::<UploadMode>().unwrap_err();
    assert_eq!(err, UnknownUploadMode("dirty_rect".into()));
    assert!(err.to_string().contains("auto, glyphs, dirty-rect"), "{err}");
}

/// A glyph wider than a page but not taller, whose tiles would take more
/// texels than every page allowed, is refused as too large (not tiled and
/// left to fail in placement), and the cache stays as it was.
#[test]
fn a_wide_short_glyph_past_every_page_is_too_large() {
    let (mut c, f) = cache(64, 1, 0);
    let dash = glyph_of(&c, f, '—');
    let mut fr = c.begin_frame();
    let err = fr.glyph(f, dash, 400.0).unwrap_err();
    fr.finish();
    assert!(
        matches!(err, GlyphError::TooLarge { width, height, page: 64 } if width > 64 && height < 64),
        "{err:?}"
    );
    assert!(c.is_empty());
    c.check_invariants().unwrap();
}

/// Sizes quantise to 1/64 px and must fit the key's 32 bits: the largest
/// that fits is kept, the next step up is refused, whatever `max_px` says.
#[test]
fn sizes_past_the_keys_range_are_refused() {
    let most = u32::MAX as f32 / 64.0; // 67,108,864 px (f32 rounds u32::MAX up to 2^32)
    assert_eq!(GlyphSize::from_px(most * 0.99, f32::MAX).map(|s| s.px() > 6.6e7), Some(true));
    assert_eq!(GlyphSize::from_px(most * 1.01, f32::MAX), None);
    assert_eq!(GlyphSize::from_px(1e12, f32::MAX), None);
}

/// Skipped glyphs a drawing side takes (to draw them another way) leave the
/// frame's report; the others stay, in order; nothing new, nothing taken.
#[test]
fn taken_skips_leave_the_report_and_the_rest_stay() {
    let (mut c, f) = cache(64, 1, 0);
    let g = |ch| glyph_of(&c, f, ch);
    let glyph =
        |glyph, size| PositionedGlyph { font: f, glyph, size, x: 0.0, y: 500.0, color: [0; 4] };
    // Too large for every page allowed, an invalid size, and a drawable one.
    let glyphs = [glyph(g('W'), 900.0), glyph(g('a'), f32::NAN), glyph(g('b'), 12.0)];
    let mut fr = c.begin_frame();
    let before = fr.skipped().len();
    assert!(fr.take_skipped(before, |_| true).is_empty(), "nothing new yet");
    fr.prepare(&glyphs, &mut Vec::new());
    assert_eq!(fr.skipped().len(), before + 2);
    let too_large = fr.take_skipped(before, |s| matches!(s.reason, GlyphError::TooLarge { .. }));
    assert_eq!(too_large.iter().map(|s| s.index).collect::<Vec<_>>(), [0]);
    let rest: Vec<usize> = fr.skipped()[before..].iter().map(|s| s.index).collect();
    assert_eq!(rest, [1]);
    let out = fr.finish();
    assert_eq!(out.skipped.iter().map(|s| s.index).collect::<Vec<_>>(), [1]);
}

/// An image wider than a tile offset can say (over 65,535 px), though thin
/// enough that its tiles would fit the pages allowed, is refused as too
/// large: each side is checked on its own.
#[test]
fn an_image_wider_than_offsets_reach_is_too_large() {
    let mut c = GlyphCache::new(CacheConfig {
        page_size: 4096,
        max_pages: 64,
        memory_budget: u64::MAX,
        ..CacheConfig::default()
    })
    .unwrap();
    let wide = |_: u32, _: f32| -> Result<GlyphImage, String> {
        let (width, height) = (70_000, 2);
        Ok(GlyphImage { width, height, left: 0, bottom: 0, pixels: vec![255; 140_000] })
    };
    let source = c.add_image_source(wide).unwrap();
    let mut fr = c.begin_frame();
    let err = fr.image(source, 0, 16.0).unwrap_err();
    fr.finish();
    assert!(matches!(err, GlyphError::TooLarge { width: 70_000, height: 2, .. }), "{err:?}");
    assert!(c.is_empty());
}

/// An image exactly a page in size fits one page whole (the padding is
/// kept on the page's far edges, which are the page's own): drawn, not
/// refused, even where its tiles would need more than the one page allowed.
#[test]
fn an_image_a_page_in_size_is_drawn_whole() {
    let mut c =
        GlyphCache::new(CacheConfig { page_size: 64, max_pages: 1, ..CacheConfig::default() })
            .unwrap();
    let full = |_: u32, _: f32| -> Result<GlyphImage, String> {
        Ok(GlyphImage { width: 64, height: 64, left: 0, bottom: 0, pixels: vec![255; 64 * 64] })
    };
    let source = c.add_image_source(full).unwrap();
    let mut fr = c.begin_frame();
    let e = fr.image(source, 0, 16.0);
    fr.finish();
    let e = e.unwrap();
    assert_eq!((e.x, e.y, e.width, e.height), (0, 0, 64, 64));
    assert!(c.pages()[0].pixels().iter().all(|&v| v == 255));
    c.check_invariants().unwrap();
}
