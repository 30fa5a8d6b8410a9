//! The fuzz harness: each function takes arbitrary bytes, drives one part of
//! kerf with them and panics only when kerf breaks a promise (an invariant, a
//! wrong error, or kerf itself panicking). Shared by the cargo-fuzz targets
//! (`fuzz/fuzz_targets`) and the corpus replay test (`tests/fuzz_replay.rs`).

use kerf_cache::{
    fonts::Font, pages::TexelFormat, rasterize::GlyphImage, CacheConfig, ColorPages, GlyphCache,
    GlyphError, PositionedGlyph, PositionedImage, TextSpec,
};
use std::sync::OnceLock;

/// DejaVu Sans, parsed once per process (parsing dominates a fuzz input otherwise).
fn sans() -> Font {
    static SANS: OnceLock<Font> = OnceLock::new();
    SANS.get_or_init(|| match Font::from_bytes(dejavu::sans::regular().to_vec(), 0) {
        Ok(f) => f,
        Err(e) => panic!("DejaVu Sans must load: {e}"),
    })
    .clone()
}
/// Noto Color Emoji (Debian's fonts-noto-color-emoji), read once per process:
/// the colour-glyph paths (CBDT bitmaps through swash).
#[cfg(feature = "swash")]
fn emoji_bytes() -> &'static [u8] {
    const PATH: &str = "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf";
    static BYTES: OnceLock<Vec<u8>> = OnceLock::new();
    BYTES.get_or_init(|| {
        std::fs::read(PATH)
            .unwrap_or_else(|e| panic!("{PATH}: {e}; install Debian's fonts-noto-color-emoji"))
    })
}

/// Noto Color Emoji parsed once per process.
#[cfg(feature = "swash")]
fn emoji() -> Font {
    static EMOJI: OnceLock<Font> = OnceLock::new();
    EMOJI
        .get_or_init(|| match Font::from_bytes(emoji_bytes().to_vec(), 0) {
            Ok(f) => f,
            Err(e) => panic!("Noto Color Emoji must load: {e}"),
        })
        .clone()
}
use kerf_pack::{
    Algorithm, AllocError, DeallocError, MaxRects, MaxRectsHeuristic, Packer, PackerOptions, Rect,
};

/// Reads the input a byte or a number at a time; zeros once exhausted.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn u8(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }
    fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// A side length: mostly small, sometimes 0 or enormous.
    fn side(&mut self) -> u32 {
        match self.u8() % 16 {
            0 => 0,
            1 => u32::MAX - self.u8() as u32,
            2 => (1 << 24) + self.u8() as u32 - 128,
            _ => 1 + self.u8() as u32 % 24,
        }
    }
    /// A size in px: mostly ordinary, sometimes NaN, infinite, negative, zero or huge.
    fn px(&mut self) -> f32 {
        match self.u8() % 12 {
            0 => f32::NAN,
            1 => f32::INFINITY,
            2 => -(self.u8() as f32),
            3 => 0.0,
            4 => f32::from_bits(self.u32()),
            5 => 2000.0 + self.u16() as f32,
            _ => 4.0 + (self.u8() % 128) as f32 / 4.0,
        }
    }
}

use kerf_pack::testing::maximal_free_rects_reference as maximal_free;

/// Checks what every packer promises: allocations inside the bin, no two
/// overlapping (padding included), counts and areas that add up.
fn check_packer(p: &dyn Packer, live: &[kerf_pack::AllocId]) {
    let (w, h) = p.size();
    let pad = p.options().padding;
    let allocs: Vec<_> = p.iter().collect();
    assert_eq!(allocs.len(), p.len(), "iter and len disagree");
    assert_eq!(p.len(), live.len(), "the packer holds other allocations than those handed out");
    let mut area = 0u64;
    for a in &allocs {
        assert!(
            a.rect.right() <= w && a.rect.bottom() <= h,
            "{:?} outside the {w}x{h} bin",
            a.rect
        );
        assert!(a.rect.w > 0 && a.rect.h > 0);
        area += a.rect.area();
        assert_eq!(p.get(a.id), Some(*a));
    }
    assert_eq!(area, p.used_area(), "used_area");
    for (i, a) in allocs.iter().enumerate() {
        let ra = Rect::new(a.rect.x, a.rect.y, a.rect.w + pad, a.rect.h + pad);
        for b in &allocs[i + 1..] {
            let rb = Rect::new(b.rect.x, b.rect.y, b.rect.w + pad, b.rect.h + pad);
            assert!(!ra.intersects(&rb), "{:?} overlaps {:?} (padding {pad})", a.rect, b.rect);
        }
    }
}

/// Packer operation sequences (allocate / deallocate / clear / grow, with
/// arbitrary sizes and ids) for every packer variant, checked after each step;
/// MaxRects also against the brute-force maximal-rectangle oracle.
pub fn pack_ops(data: &[u8]) {
    let mut b = Bytes(data);
    let all = Algorithm::all();
    let algo = all[b.u8() as usize % all.len()];
    let flags = b.u8();
    let opts = PackerOptions {
        padding: (flags % 3) as u32,
        allow_rotation: flags & 4 != 0,
        min_free_size: if flags & 8 != 0 { 2 } else { 0 },
    };
    let (bw, bh) = (8 + b.u8() as u32 % 57, 8 + b.u8() as u32 % 57);
    let mut p = match algo.build(bw, bh, opts) {
        Ok(p) => p,
        Err(e) => panic!("{algo}: a {bw}x{bh} bin must be accepted: {e:?}"),
    };
    // MaxRects with an oracle-checkable configuration, driven by the same ops.
    let mut oracle = (flags & 8 == 0)
        .then(|| MaxRects::new(bw, bh, MaxRectsHeuristic::ALL[flags as usize / 16 % 5], opts))
        .and_then(Result::ok);
    let mut other =
        MaxRects::new(16, 16, MaxRectsHeuristic::BestShortSideFit, PackerOptions::default()).ok();
    let foreign = other.as_mut().and_then(|o| o.allocate(2, 2).ok()).map(|a| a.id);
    let mut live = Vec::new();
    let mut oracle_live = Vec::new();
    let mut freed = Vec::new();
    let mut steps = 0;
    while !b.is_empty() && steps < 200 {
        steps += 1;
        match b.u8() % 8 {
            0..=3 => {
                let (w, h) = (b.side(), b.side());
                match p.allocate(w, h) {
                    Ok(a) => live.push(a.id),
                    Err(AllocError::ZeroSize { .. }) => {
                        assert!(w == 0 || h == 0, "ZeroSize for {w}x{h}")
                    }
                    Err(_) => assert!(w > 0 && h > 0, "zero sizes must be ZeroSize"),
                }
                if let Some(o) = oracle.as_mut() {
                    if let Ok(a) = o.allocate(w, h) {
                        oracle_live.push(a.id);
                    }
                }
            }
            4 | 5 if !live.is_empty() => {
                let k = b.u8() as usize % live.len();
                let id = live.swap_remove(k);
                assert_eq!(p.deallocate(id), Ok(()), "{algo}: freeing a live id");
                assert_eq!(p.deallocate(id), Err(DeallocError::StaleId), "{algo}: double free");
                freed.push(id);
                if let Some(o) = oracle.as_mut() {
                    if !oracle_live.is_empty() {
                        let id = oracle_live.swap_remove(k % oracle_live.len());
                        assert_eq!(o.deallocate(id), Ok(()));
                    }
                }
            }
            4 | 5 => {
                if let Some(&id) = freed.last() {
                    assert_eq!(p.deallocate(id), Err(DeallocError::StaleId));
                }
                if let Some(id) = foreign {
                    assert_eq!(p.deallocate(id), Err(DeallocError::ForeignId));
                }
            }
            6 => {
                let (w, h) = p.size();
                let (nw, nh) = (w + b.u8() as u32 % 16, h + b.u8() as u32 % 16);
                let big = b.u8() % 32 == 0;
                let r = if big { p.grow(u32::MAX, nh) } else { p.grow(nw, nh) };
                assert_eq!(r.is_ok(), !big, "{algo}: grow to {nw}x{nh} (huge: {big}) gave {r:?}");
                if let Some(o) = oracle.as_mut() {
                    let _ = if big { o.grow(u32::MAX, nh) } else { o.grow(nw, nh) };
                }
            }
            _ => {
                if b.u8() % 4 == 0 {
                    p.clear();
                    freed.append(&mut live);
                    if let Some(o) = oracle.as_mut() {
                        o.clear();
                        oracle_live.clear();
                    }
                }
            }
        }
        check_packer(p.as_ref(), &live);
        if let Some(o) = oracle.as_ref() {
            check_packer(o, &oracle_live);
            if o.len() <= 40 {
                let pad = opts.padding;
                let (w, h) = o.size();
                let used: Vec<Rect> = o
                    .iter()
                    .map(|a| Rect::new(a.rect.x, a.rect.y, a.rect.w + pad, a.rect.h + pad))
                    .collect();
                let mut got = o.maximal_free_rects().to_vec();
                got.sort();
                assert_eq!(
                    got,
                    maximal_free(w + pad, h + pad, &used),
                    "MaxRects free list is not the maximal free rectangles"
                );
            }
        }
    }
}

/// Font bytes: arbitrary, truncated or bit-flipped DejaVu, through loading,
/// layout and rasterization: a typed error or a glyph, never a panic.
pub fn font_bytes(data: &[u8]) {
    let mut b = Bytes(data);
    let choice = b.u8();
    #[cfg(feature = "swash")]
    if choice % 8 >= 6 {
        // A bit-flipped colour font through the colour and swash paths.
        return colour_font_bytes(&mut b);
    }
    let real = dejavu::sans_mono::regular();
    let bytes: Vec<u8> = match choice % 4 {
        0 => b.0.to_vec(),
        1 => real[..(b.u32() as usize % real.len())].to_vec(),
        2 => {
            let mut v = real.to_vec();
            for _ in 0..(1 + b.u8() % 16) {
                let at = b.u32() as usize % v.len();
                v[at] ^= 1 << (b.u8() % 8);
            }
            v
        }
        _ => {
            // A real header followed by fuzz bytes.
            let mut v = real[..(b.u16() as usize % 4096).min(real.len())].to_vec();
            v.extend_from_slice(b.0);
            v
        }
    };
    // Absurd sizes are refused by the size limit; keep the rest cheap.
    let mut cache = match GlyphCache::new(CacheConfig {
        page_size: 256,
        max_pages: 2,
        max_glyph_px: 256.0,
        ..CacheConfig::default()
    }) {
        Ok(c) => c,
        Err(e) => panic!("default config refused: {e}"),
    };
    let Ok(font) = cache.add_font(bytes) else { return };
    let count = cache.fonts().get(font).map_or(0, |f| f.glyph_count());
    let mut frame = cache.begin_frame();
    let mut quads = Vec::new();
    for text in ["Aa0!", "ÆØÅ ß ∑ → 日本"] {
        let px = b.px();
        match frame.layout(&TextSpec::new(text, font, px), &mut quads) {
            Ok(()) => {}
            Err(GlyphError::InvalidSize { .. }) => {
                assert!(!(px.is_finite() && px > 0.0 && px <= 256.0) || px * 64.0 < 0.5)
            }
            Err(e) => panic!("layout failed with {e}"),
        }
    }
    for _ in 0..4 {
        let glyph = b.u16();
        let px = b.px();
        match frame.glyph(font, glyph, px) {
            Ok(_) => assert!(glyph < count),
            Err(GlyphError::GlyphOutOfRange { .. }) => assert!(glyph >= count),
            Err(_) => {}
        }
    }
    let out = frame.finish();
    assert!(out.uploads_of(TexelFormat::Coverage).count() <= out.pages as usize);
    if let Err(e) = cache.check_invariants() {
        panic!("invariants after a fuzzed font: {e}");
    }
}

/// A bit-flipped Noto Color Emoji: loaded (or refused with a typed error),
/// emoji drawn through the colour pages, the same font rasterized by swash
/// with hinting and in LCD mode: never a panic, invariants kept.
#[cfg(feature = "swash")]
fn colour_font_bytes(b: &mut Bytes<'_>) {
    let mut v = emoji_bytes().to_vec();
    for _ in 0..(1 + b.u8() % 32) {
        let at = b.u32() as usize % v.len();
        v[at] ^= 1 << (b.u8() % 8);
    }
    let config =
        CacheConfig { page_size: 128, max_pages: 2, max_glyph_px: 256.0, ..CacheConfig::default() };
    let rasterizer = kerf_cache::rasterize::SwashRasterizer::new().hinting(b.u8() % 2 == 0);
    let Ok(mut cache) = GlyphCache::with_rasterizer(config, Box::new(rasterizer)) else {
        panic!("config refused")
    };
    let Ok(font) = cache.add_font(v) else { return };
    let count = cache.fonts().get(font).map_or(0, |f| f.glyph_count()).max(1);
    let mut frame = cache.begin_frame();
    let mut quads = Vec::new();
    let glyphs: Vec<PositionedGlyph> = (0..(1 + b.u8() % 8))
        .map(|i| PositionedGlyph {
            font,
            glyph: b.u16() % count,
            size: b.px(),
            x: 30.0 * i as f32,
            y: 40.0,
            color: [0, 0, 0, 255],
        })
        .collect();
    frame.prepare(&glyphs, &mut quads);
    frame.prepare_lcd(&glyphs, &mut quads);
    let _ = frame.layout(&TextSpec::new("😀👩\u{200d}💻 a", font, b.px()), &mut quads);
    let out = frame.finish();
    assert!(out.uploads_of(TexelFormat::Coverage).count() <= out.pages as usize);
    if let Err(e) = cache.check_invariants() {
        panic!("invariants after a fuzzed colour font: {e}");
    }
}

/// A square test image of `size` px (any size: larger than a page is tiled),
/// coverage or RGBA; some ids fail or return the wrong number of bytes.
fn fuzz_image(id: u32, size: f32, bpp: usize) -> Result<GlyphImage, String> {
    if id % 11 == 0 {
        return Err("no such image".into());
    }
    let n = (size.round() as u32).min(400);
    let len = (n * n) as usize * if id % 7 == 3 { 1 } else { bpp };
    Ok(GlyphImage {
        width: n,
        height: n,
        left: 0,
        bottom: 0,
        pixels: (0..len).map(|i| (i as u32 ^ id) as u8).collect(),
    })
}

/// The cache's frame API with arbitrary call orders and arguments: frames
/// begun, continued, finished or dropped, unknown fonts, bad sizes, the
/// app's images (coverage and RGBA, failing and oversized ones), sampled
/// glyphs, clear and trim in between.
pub fn cache_frames(data: &[u8]) {
    let mut b = Bytes(data);
    let cfg = CacheConfig {
        page_size: 32 + b.u8() as u32 % 200,
        max_pages: 1 + b.u8() as u32 % 3,
        frames_in_flight: b.u8() as u32 % 3,
        release_idle_after: match b.u8() % 3 {
            0 => None,
            n => Some(n as u64 * 3),
        },
        padding: b.u8() as u32 % 3,
        algorithm: Algorithm::all()[b.u8() as usize % Algorithm::all().len()],
        parallel_threshold: 4,
        color: ColorPages {
            page_size: 16 + b.u8() as u32 % 100,
            max_pages: 1 + b.u8() as u32 % 2,
            memory_budget: 1 << 20,
        },
        ..CacheConfig::default()
    };
    let Ok(mut cache) = GlyphCache::new(cfg) else { return };
    let Ok(mono) = cache.add_image_source(|id: u32, size: f32| fuzz_image(id, size, 1)) else {
        panic!("an image source must be accepted")
    };
    let Ok(rgba) = cache.add_rgba_image_source(|id: u32, size: f32| fuzz_image(id, size, 4)) else {
        panic!("an RGBA source must be accepted")
    };
    let Ok(font) = cache.add_parsed_font(sans()) else { panic!("a parsed font must be accepted") };
    #[cfg(feature = "swash")]
    let Ok(emoji) = cache.add_parsed_font(emoji()) else {
        panic!("the emoji font must be accepted")
    };
    #[cfg(not(feature = "swash"))]
    let emoji = font;
    let fallback = [emoji];
    // A font id this cache never issued.
    let mut other = GlyphCache::new(CacheConfig::default()).ok();
    let stranger = other.as_mut().and_then(|o| {
        let _ = o.add_parsed_font(sans());
        o.add_parsed_font(sans()).ok()
    });
    let mut frames = 0;
    while !b.is_empty() && frames < 12 {
        frames += 1;
        match b.u8() % 8 {
            6 => cache.clear(),
            7 => {
                let _ = cache.trim(b.u8() as u64);
            }
            _ => {
                let mut frame =
                    if b.u8() % 4 == 0 { cache.continue_frame() } else { cache.begin_frame() };
                let mut quads = Vec::new();
                for _ in 0..(b.u8() % 6) {
                    match b.u8() % 7 {
                        3 => {
                            let images: Vec<PositionedImage> = (0..(b.u8() % 6))
                                .map(|_| PositionedImage {
                                    source: if b.u8() % 2 == 0 { mono } else { rgba },
                                    id: b.u32() % 64,
                                    size: b.px(),
                                    x: f32::from_bits(b.u32()),
                                    y: b.u8() as f32,
                                    color: [b.u8(); 4],
                                })
                                .collect();
                            frame.prepare_images(&images, &mut quads);
                        }
                        4 => {
                            let _ = frame.sampled_glyph(font, b.u16() % 3000, b.px());
                        }
                        5 => {
                            let _ = frame.image(
                                if b.u8() % 2 == 0 { mono } else { rgba },
                                b.u32() % 64,
                                b.px(),
                            );
                        }
                        0 => {
                            let f = if b.u8() % 8 == 0 { stranger.unwrap_or(font) } else { font };
                            let _ = frame.glyph(f, b.u16() % 3000, b.px());
                        }
                        1 => {
                            let glyphs: Vec<PositionedGlyph> = (0..(b.u8() % 12))
                                .map(|_| PositionedGlyph {
                                    font: if b.u8() % 16 == 0 {
                                        stranger.unwrap_or(font)
                                    } else {
                                        font
                                    },
                                    glyph: b.u16() % 700,
                                    size: b.px(),
                                    x: f32::from_bits(b.u32()),
                                    y: b.u8() as f32,
                                    color: [b.u8(); 4],
                                })
                                .collect();
                            match b.u8() % 3 {
                                0 => frame.prepare_lcd(&glyphs, &mut quads),
                                1 => {
                                    // Some from the emoji font (colour pages where swash is on).
                                    let mixed: Vec<PositionedGlyph> = glyphs
                                        .iter()
                                        .enumerate()
                                        .map(|(i, g)| {
                                            if i % 2 == 1 {
                                                PositionedGlyph {
                                                    font: emoji,
                                                    glyph: 800 + g.glyph % 800,
                                                    ..*g
                                                }
                                            } else {
                                                *g
                                            }
                                        })
                                        .collect();
                                    frame.prepare(&mixed, &mut quads);
                                }
                                _ => frame.prepare(&glyphs, &mut quads),
                            }
                        }
                        2 => {
                            let text: String = (0..(b.u8() % 8))
                                .map(|_| char::from_u32(0x1F300 + b.u8() as u32 * 3).unwrap_or('?'))
                                .chain("a\u{E000}".chars())
                                .collect();
                            let _ = frame.layout(
                                &TextSpec::new(&text, font, b.px()).fallback(&fallback),
                                &mut quads,
                            );
                        }
                        _ => {
                            let text: String = (0..(b.u8() % 8))
                                .map(|_| char::from_u32(b.u16() as u32).unwrap_or('?'))
                                .collect();
                            // Styles, decorations and effects, sizes from raw bits
                            // (NaN, infinities, out of range and fine ones).
                            let variations = [(*b"wght", f32::from_bits(b.u32()))];
                            let mut spec = TextSpec {
                                max_width: Some(f32::from_bits(b.u32())),
                                ..TextSpec::new(&text, font, b.px())
                            };
                            let flags = b.u8();
                            if flags & 1 != 0 {
                                spec = spec.weight(b.u16() as f32 % 1200.0);
                            }
                            if flags & 2 != 0 {
                                spec = spec.italic().variations(&variations);
                            }
                            if flags & 4 != 0 {
                                spec = spec.underline().strikethrough().overline();
                            }
                            if flags & 8 != 0 {
                                let width = if flags & 16 != 0 {
                                    f32::from_bits(b.u32())
                                } else {
                                    b.u8() as f32 / 16.0
                                };
                                spec = spec.outline(width, [b.u8(); 4]);
                            }
                            if flags & 32 != 0 {
                                let blur = if flags & 64 != 0 {
                                    f32::from_bits(b.u32())
                                } else {
                                    b.u8() as f32 / 8.0
                                };
                                spec =
                                    spec.shadow((b.u8() as f32 - 128.0, b.px()), blur, [b.u8(); 4]);
                            }
                            let _ = frame.layout(&spec, &mut quads);
                        }
                    }
                }
                if b.u8() % 4 != 0 {
                    let out = frame.finish();
                    assert!(
                        out.uploads_of(TexelFormat::Coverage).count() <= out.pages as usize,
                        "more than one upload per page"
                    );
                    assert!(
                        out.uploads_of(TexelFormat::Rgba).count() <= out.color_pages as usize,
                        "more than one colour upload per page"
                    );
                    for s in &out.skipped {
                        let image =
                            s.key.is_some_and(|k| k.image_parts().is_some() || k.font == emoji);
                        assert!(
                            image || !matches!(s.reason, GlyphError::Raster(_)),
                            "DejaVu glyphs must rasterize: {s:?}"
                        );
                    }
                } // else: dropped without finish
            }
        }
        if let Err(e) = cache.check_invariants() {
            panic!("invariants broken after frame {frames}: {e}");
        }
        let s = cache.stats();
        assert_eq!(s.hits + s.misses, s.lookups, "stats must add up");
    }
}
