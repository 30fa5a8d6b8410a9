//! Colour glyphs (feature `swash`): emoji from Noto Color Emoji (CBDT
//! bitmaps, Debian's fonts-noto-color-emoji) drawn from the colour pages,
//! scaled to the size asked, evicted and rendered again under churn.
#![cfg(feature = "swash")]

use kerf_cache::*;

const EMOJI_FONT: &str = "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf";

fn emoji_bytes() -> Vec<u8> {
    std::fs::read(EMOJI_FONT).unwrap_or_else(|e| panic!("{EMOJI_FONT}: {e}; install Debian's fonts-noto-color-emoji (`apt-get install fonts-noto-color-emoji`)"))
}

fn cache(config: CacheConfig) -> (GlyphCache, FontId, FontId) {
    let mut c = GlyphCache::new(config).expect("config");
    let sans = c.add_font(dejavu::sans::regular().to_vec()).expect("DejaVu Sans");
    let emoji = c.add_font(emoji_bytes()).expect("Noto Color Emoji loads");
    (c, sans, emoji)
}

fn glyph(c: &GlyphCache, font: FontId, ch: char) -> u16 {
    let g = c.fonts().get(font).expect("font").lookup_glyph_index(ch);
    assert_ne!(g, 0, "{ch:?} missing");
    g
}

/// Mean saturation-like spread (max - min channel) of the opaque texels.
fn colourfulness(rgba: &[u8]) -> f64 {
    let px: Vec<&[u8]> = rgba.chunks(4).filter(|p| p[3] > 200).collect();
    px.iter().map(|p| (*p[..3].iter().max().unwrap() - *p[..3].iter().min().unwrap()) as f64).sum::<f64>() / px.len().max(1) as f64
}

#[test]
fn emoji_are_drawn_from_the_colour_pages_at_the_size_asked() {
    let (mut c, sans, emoji) = cache(CacheConfig::default());
    assert!(c.fonts().has_color_glyphs(emoji) && !c.fonts().has_color_glyphs(sans));
    let grin = glyph(&c, emoji, '😀');
    let a = glyph(&c, sans, 'A');
    assert!(c.fonts().is_color_glyph(emoji, grin));
    let at = |font, glyph, size, x| PositionedGlyph { font, glyph, size, x, y: 100.0, color: [0, 0, 0, 255] };
    let glyphs = [at(sans, a, 32.0, 10.0), at(emoji, grin, 32.0, 40.0), at(emoji, grin, 64.0, 90.0), at(sans, a, 32.0, 170.0)];
    let mut quads = Vec::new();
    let mut frame = c.begin_frame();
    frame.prepare(&glyphs, &mut quads);
    let out = frame.finish();
    assert!(out.skipped.is_empty(), "{:?}", out.skipped);
    assert_eq!(quads.len(), 4);
    let (coverage, color): (Vec<&GlyphQuad>, Vec<&GlyphQuad>) = quads.iter().partition(|q| q.page & COLOR_PAGE_BIT == 0);
    assert_eq!((coverage.len(), color.len()), (2, 2), "two 'A's in coverage pages, two emoji in colour pages");
    assert!(out.color.pages >= 1 && !(out.color.glyphs.is_empty() && out.color.uploads.is_empty()), "colour uploads staged");
    let set = c.color_pages().expect("colour pages made for the emoji");
    for (q, size) in color.iter().zip([32.0f32, 64.0]) {
        // A bitmap strike (109 ppem in Noto) scaled to the size: about one em.
        assert!((q.height as f32 - size).abs() <= size * 0.3, "{size} px emoji is {}x{}", q.width, q.height);
        let page = &set.pages()[(q.page & !COLOR_PAGE_BIT) as usize];
        let side = page.side() as usize;
        let mut texels = Vec::new();
        for row in 0..q.height as usize {
            let at = ((q.tex_y as usize + row) * side + q.tex_x as usize) * 4;
            texels.extend_from_slice(&page.pixels()[at..at + q.width as usize * 4]);
        }
        // The page holds the fresh raster.
        let key = GlyphKey { mode: RenderMode::Color, ..GlyphKey::new(emoji, grin, GlyphSize::from_px(size, 1e4).unwrap()) };
        let fresh = c.rasterize_key(&key).expect("colour raster");
        assert_eq!(texels, fresh.pixels);
        assert!(colourfulness(&texels) > 60.0, "{size} px: the emoji is coloured ({})", colourfulness(&texels));
        assert_eq!(c.peek(&key).map(|e| e.page & COLOR_PAGE_BIT), Some(COLOR_PAGE_BIT));
    }
    // The pen stays on the baseline: the emoji sits mostly above it.
    assert!(color[0].y < 100 && color[0].y + color[0].height as i32 > 95, "{:?}", color[0]);
    c.check_invariants().expect("consistent");
}

/// In a batch with colour glyphs, a plain glyph that cannot be drawn is
/// reported at its index in the input (the colour glyphs are drawn apart,
/// so the others' batch must not renumber them), and the order of the
/// others' quads is the input's.
#[test]
fn skipped_glyphs_keep_their_input_index_beside_colour_glyphs() {
    let (mut c, sans, emoji) = cache(CacheConfig::default());
    let grin = glyph(&c, emoji, '😀');
    let (a, b) = (glyph(&c, sans, 'A'), glyph(&c, sans, 'B'));
    let at = |font, glyph, size, x| PositionedGlyph { font, glyph, size, x, y: 100.0, color: [0, 0, 0, 255] };
    let glyphs = [
        at(emoji, grin, 24.0, 0.0),
        at(sans, a, 24.0, 30.0),
        at(emoji, grin, 24.0, 60.0),
        at(sans, b, f32::NAN, 90.0),
        at(sans, b, 24.0, 120.0),
        at(sans, 60_000, 24.0, 150.0),
    ];
    for round in 0..2 {
        let mut quads = Vec::new();
        let mut frame = c.begin_frame();
        frame.prepare(&glyphs, &mut quads);
        let out = frame.finish();
        let mut skipped: Vec<usize> = out.skipped.iter().map(|s| s.index).collect();
        skipped.sort_unstable();
        assert_eq!(skipped, [3, 5], "round {round}: {:?}", out.skipped);
        let plain: Vec<i32> = quads.iter().filter(|q| q.page & COLOR_PAGE_BIT == 0).map(|q| q.x).collect();
        assert_eq!(plain.len(), 2, "round {round}: 'A' and the valid 'B'");
        assert!(plain[0] < 60 && plain[1] >= 120, "round {round}: 'A' then 'B': {plain:?}");
        assert_eq!(quads.iter().filter(|q| q.page & COLOR_PAGE_BIT != 0).count(), 2);
    }
    c.check_invariants().expect("consistent");
}

/// Many emoji at many sizes on two small colour pages: evicted, rendered
/// again, every live colour entry's texels equal to a fresh raster, every
/// frame drawn whole.
#[test]
fn colour_pages_evict_and_render_again_under_churn() {
    let config = CacheConfig { color: ColorPages { page_size: 128, max_pages: 2, ..ColorPages::default() }, frames_in_flight: 1, ..CacheConfig::default() };
    let (mut c, sans, emoji) = cache(config);
    let faces: Vec<u16> = "😀😃😄😁😆😅🤣😂🙂🙃😉😊😇🥰😍🤩😘😗😚😙😋😛😜🤪😝🤑🤗🤭🤫🤔".chars().map(|ch| glyph(&c, emoji, ch)).collect();
    let a = glyph(&c, sans, 'a');
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    let mut evictions = 0;
    for frame_no in 0..60 {
        let glyphs: Vec<PositionedGlyph> = (0..6)
            .map(|i| {
                let (font, g) = if i == 5 { (sans, a) } else { (emoji, faces[next(faces.len() as u64) as usize]) };
                PositionedGlyph { font, glyph: g, size: 14.0 + next(4) as f32 * 6.0, x: 10.0 + 40.0 * i as f32, y: 50.0, color: [0, 0, 0, 255] }
            })
            .collect();
        let mut quads = Vec::new();
        let mut frame = c.begin_frame();
        frame.prepare(&glyphs, &mut quads);
        let out = frame.finish();
        assert!(out.skipped.is_empty(), "frame {frame_no}: {:?}", out.skipped);
        assert_eq!(quads.len(), 6, "frame {frame_no}: every glyph drawn");
        evictions += out.evictions;
        c.check_invariants().unwrap_or_else(|e| panic!("frame {frame_no}: {e}"));
        let set = c.color_pages().expect("colour pages");
        if frame_no % 3 != 0 {
            continue;
        }
        for (key, e) in set.entries() {
            if e.is_blank() {
                continue;
            }
            let fresh = c.rasterize_key(key).expect("raster");
            let page = &set.pages()[e.page as usize];
            let side = page.side() as usize;
            for row in 0..e.height as usize {
                let at = ((e.y as usize + row) * side + e.x as usize) * 4;
                let want = &fresh.pixels[row * fresh.width as usize * 4..][..fresh.width as usize * 4];
                assert_eq!(&page.pixels()[at..at + e.width as usize * 4], want, "frame {frame_no}: {key:?} row {row}");
            }
        }
    }
    assert!(evictions > 25, "two 128 px pages must churn: {evictions} evictions");
}

#[test]
fn damaged_colour_data_is_an_error_not_a_panic() {
    // One emoji's bitmap (a PNG inside CBDT) overwritten: the font loads, that
    // glyph is skipped with a raster error, the others draw.
    let mut bytes = emoji_bytes();
    let (broken, fine) = {
        let face = ttf_parser::Face::parse(&bytes, 0).expect("face");
        let g = face.glyph_index('😀').expect("glyph");
        let png = face.glyph_raster_image(g, 109).expect("bitmap");
        let at = png.data.as_ptr() as usize - bytes.as_ptr() as usize;
        (g.0, (at, png.data.len()))
    };
    let (at, len) = fine;
    bytes[at..at + len].iter_mut().for_each(|b| *b = 0x55);
    let mut c = GlyphCache::new(CacheConfig::default()).expect("config");
    let emoji = c.add_font(bytes.clone()).expect("the tables still parse");
    let ok = c.fonts().get(emoji).unwrap().lookup_glyph_index('🤔');
    let at = |g, x| PositionedGlyph { font: emoji, glyph: g, size: 24.0, x, y: 40.0, color: [0, 0, 0, 255] };
    let mut quads = Vec::new();
    let mut frame = c.begin_frame();
    frame.prepare(&[at(broken, 0.0), at(ok, 30.0)], &mut quads);
    let out = frame.finish();
    assert_eq!(quads.len(), 1, "the intact emoji is drawn");
    assert_eq!(out.skipped.len(), 1);
    assert_eq!(out.skipped[0].index, 0);
    assert!(matches!(out.skipped[0].reason, GlyphError::Raster(_)), "{:?}", out.skipped[0].reason);
    c.check_invariants().expect("consistent after a damaged bitmap");

    // Colour tables so damaged the parser trips over them: a typed error at
    // load, and the cache is as it was.
    let face = ttf_parser::RawFace::parse(&bytes, 0).expect("face");
    let rec = face.table_records.into_iter().find(|r| &r.tag.to_bytes() == b"CBLC").expect("CBLC");
    let (start, len) = (rec.offset as usize, rec.length as usize);
    for (i, b) in bytes[start + 8..start + len].iter_mut().enumerate() {
        *b = (i as u32).wrapping_mul(2_654_435_761).to_le_bytes()[1];
    }
    let fonts = c.fonts().len();
    match c.add_font(bytes) {
        Err(FontError::Malformed(m)) => assert!(m.contains("colour"), "{m}"),
        Ok(_) => {}
        Err(e) => panic!("unexpected {e:?}"),
    }
    assert!(c.fonts().len() <= fonts + 1);
    c.check_invariants().expect("consistent");
}
