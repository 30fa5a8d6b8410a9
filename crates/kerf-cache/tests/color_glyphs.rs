//! Colour glyphs (feature `swash`): emoji from Noto Color Emoji (CBDT
//! bitmaps, Debian's fonts-noto-color-emoji) drawn from the colour pages,
//! scaled to the size asked, evicted and rendered again under churn.
#![cfg(feature = "swash")]

use kerf_cache::pages::TexelFormat;
use kerf_cache::*;

mod made;

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
    let g = c.fonts().get(font).expect("font").glyph_index(ch);
    assert_ne!(g, 0, "{ch:?} missing");
    g
}

/// Mean saturation-like spread (max - min channel) of the opaque texels.
fn colourfulness(rgba: &[u8]) -> f64 {
    let px: Vec<&[u8]> = rgba.chunks(4).filter(|p| p[3] > 200).collect();
    px.iter()
        .map(|p| (*p[..3].iter().max().unwrap() - *p[..3].iter().min().unwrap()) as f64)
        .sum::<f64>()
        / px.len().max(1) as f64
}

#[test]
fn emoji_are_drawn_from_the_colour_pages_at_the_size_asked() {
    let (mut c, sans, emoji) = cache(CacheConfig::default());
    assert!(c.fonts().has_color_glyphs(emoji) && !c.fonts().has_color_glyphs(sans));
    let grin = glyph(&c, emoji, '😀');
    let a = glyph(&c, sans, 'A');
    assert!(c.fonts().is_color_glyph(emoji, grin));
    let at = |font, glyph, size, x| PositionedGlyph {
        font,
        glyph,
        size,
        x,
        y: 100.0,
        color: [0, 0, 0, 255],
    };
    let glyphs = [
        at(sans, a, 32.0, 10.0),
        at(emoji, grin, 32.0, 40.0),
        at(emoji, grin, 64.0, 90.0),
        at(sans, a, 32.0, 170.0),
    ];
    let mut quads = Vec::new();
    let mut frame = c.begin_frame();
    frame.prepare(&glyphs, &mut quads);
    let out = frame.finish();
    assert!(out.skipped.is_empty(), "{:?}", out.skipped);
    assert_eq!(quads.len(), 4);
    let (coverage, color): (Vec<&GlyphQuad>, Vec<&GlyphQuad>) =
        quads.iter().partition(|q| !q.flags.contains(QuadFlags::COLOR));
    assert_eq!(
        (coverage.len(), color.len()),
        (2, 2),
        "two 'A's in coverage pages, two emoji in colour pages"
    );
    assert!(
        out.color_pages >= 1 && out.uploads_of(TexelFormat::Rgba).count() >= 1,
        "colour uploads staged"
    );
    assert!(c.color_pages().is_some(), "colour pages made for the emoji");
    for (q, size) in color.iter().zip([32.0f32, 64.0]) {
        // A bitmap strike (109 ppem in Noto) scaled to the size: about one em.
        assert!(
            (q.height as f32 - size).abs() <= size * 0.3,
            "{size} px emoji is {}x{}",
            q.width,
            q.height
        );
        let texels = colour_texels(&c, q);
        // The page holds the fresh raster.
        let key = GlyphKey {
            mode: RenderMode::Color,
            ..GlyphKey::new(emoji, grin, GlyphSize::from_px(size, 1e4).unwrap())
        };
        let fresh = c.rasterize_key(&key).expect("colour raster");
        assert_eq!(texels, fresh.pixels);
        assert!(
            colourfulness(&texels) > 60.0,
            "{size} px: the emoji is coloured ({})",
            colourfulness(&texels)
        );
        assert_eq!(c.peek(&key).map(|e| e.page & COLOR_PAGE_BIT), Some(COLOR_PAGE_BIT));
    }
    // The pen stays on the baseline: the emoji sits mostly above it.
    assert!(color[0].y < 100 && color[0].y + color[0].height as i32 > 95, "{:?}", color[0]);
    c.check_invariants().expect("consistent");
}

/// The strike's own PNG (Noto's 109 ppem CBDT bitmap of `ch`), decoded
/// with the `png` crate, not kerf's decoder: (width, height, straight RGBA).
fn strike_png(bytes: &[u8], ch: char) -> (u32, u32, u16, Vec<u8>) {
    let face = ttf_parser::Face::parse(bytes, 0).expect("face");
    let g = face.glyph_index(ch).expect("glyph");
    let img = face.glyph_raster_image(g, u16::MAX).expect("bitmap strike");
    assert_eq!(img.format, ttf_parser::RasterImageFormat::PNG);
    let mut decoder = png::Decoder::new(img.data);
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::ALPHA);
    let mut reader = decoder.read_info().expect("png header");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("png data");
    assert_eq!((info.color_type, info.bit_depth), (png::ColorType::Rgba, png::BitDepth::Eight));
    buf.truncate(info.buffer_size());
    (info.width, info.height, img.pixels_per_em, buf)
}

/// The texels of a colour quad, row by row.
fn colour_texels(c: &GlyphCache, q: &GlyphQuad) -> Vec<u8> {
    let set = c.color_pages().expect("colour pages");
    let page = &set.pages()[q.page as usize];
    let side = page.side() as usize;
    let mut texels = Vec::new();
    for row in 0..q.height as usize {
        let at = ((q.tex_y as usize + row) * side + q.tex_x as usize) * 4;
        texels.extend_from_slice(&page.pixels()[at..at + q.width as usize * 4]);
    }
    texels
}

/// RGBA with the colour multiplied by alpha (what blending sees).
fn premultiplied(rgba: &[u8]) -> Vec<f64> {
    rgba.chunks(4)
        .flat_map(|p| {
            let a = p[3] as f64 / 255.0;
            [p[0] as f64 * a, p[1] as f64 * a, p[2] as f64 * a, p[3] as f64]
        })
        .collect()
}

/// Emoji drawn against the strike's PNG decoded independently: at the
/// strike's own size the texels are the PNG's (a channel swap or a
/// premultiplication error fails), at half size each texel is the 2×2 box
/// average of the PNG in premultiplied alpha, and at any size the bitmap is
/// the strike's size times size/ppem, truncated (a 10% scale error fails).
#[test]
fn emoji_texels_match_the_strike_png_decoded_independently() {
    let bytes = emoji_bytes();
    let (mut c, _, emoji) = cache(CacheConfig::default());
    for ch in ['😀', '🦀'] {
        let (w, h, ppem, png) = strike_png(&bytes, ch);
        let g = glyph(&c, emoji, ch);
        let ppem = ppem as f32;
        for size in [ppem, ppem / 2.0, 32.0] {
            let mut quads = Vec::new();
            let mut frame = c.begin_frame();
            frame.prepare(
                &[PositionedGlyph {
                    font: emoji,
                    glyph: g,
                    size,
                    x: 10.0,
                    y: 200.0,
                    color: [0, 0, 0, 255],
                }],
                &mut quads,
            );
            let out = frame.finish();
            assert!(out.skipped.is_empty(), "{ch} at {size}: {:?}", out.skipped);
            assert_eq!(quads.len(), 1);
            let q = quads[0];
            let scale = size / ppem;
            let (ew, eh) = ((w as f32 * scale) as u32, (h as f32 * scale) as u32);
            assert_eq!(
                (q.width as u32, q.height as u32),
                (ew, eh),
                "{ch} at {size} px: strike {w}x{h} at {ppem} ppem"
            );
            let texels = colour_texels(&c, &q);
            if size == ppem {
                for (i, (t, p)) in texels.chunks(4).zip(png.chunks(4)).enumerate() {
                    if p[3] == 0 {
                        assert_eq!(t[3], 0, "{ch}: texel {i} transparent");
                    } else {
                        assert_eq!(t, p, "{ch}: texel {i} is the PNG's");
                    }
                }
            } else if size == ppem / 2.0 {
                let src = premultiplied(&png);
                let got = premultiplied(&texels);
                let mut worst = 0f64;
                for y in 0..eh as usize {
                    for x in 0..ew as usize {
                        for ch in 0..4 {
                            let at = |sx: usize, sy: usize| src[(sy * w as usize + sx) * 4 + ch];
                            let want = (at(2 * x, 2 * y)
                                + at(2 * x + 1, 2 * y)
                                + at(2 * x, 2 * y + 1)
                                + at(2 * x + 1, 2 * y + 1))
                                / 4.0;
                            worst = worst.max((got[(y * ew as usize + x) * 4 + ch] - want).abs());
                        }
                    }
                }
                assert!(
                    worst <= 2.0,
                    "{ch} at half size: a texel differs from the 2x2 average by {worst}/255"
                );
            } else {
                // Any size: the mean premultiplied colour is the strike's.
                let mean = |v: &[f64]| -> [f64; 4] {
                    let n = (v.len() / 4) as f64;
                    std::array::from_fn(|c| v.iter().skip(c).step_by(4).sum::<f64>() / n)
                };
                let (a, b) = (mean(&premultiplied(&texels)), mean(&premultiplied(&png)));
                for c in 0..4 {
                    assert!(
                        (a[c] - b[c]).abs() <= 0.03 * 255.0,
                        "{ch} at {size}: channel {c} mean {} against the PNG's {}",
                        a[c],
                        b[c]
                    );
                }
            }
        }
    }
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
    let at = |font, glyph, size, x| PositionedGlyph {
        font,
        glyph,
        size,
        x,
        y: 100.0,
        color: [0, 0, 0, 255],
    };
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
        let plain: Vec<i32> =
            quads.iter().filter(|q| !q.flags.contains(QuadFlags::COLOR)).map(|q| q.x).collect();
        assert_eq!(plain.len(), 2, "round {round}: 'A' and the valid 'B'");
        assert!(plain[0] < 60 && plain[1] >= 120, "round {round}: 'A' then 'B': {plain:?}");
        assert_eq!(quads.iter().filter(|q| q.flags.contains(QuadFlags::COLOR)).count(), 2);
    }
    c.check_invariants().expect("consistent");
}

/// Many emoji at many sizes on two small colour pages: evicted, rendered
/// again, every live colour entry's texels equal to a fresh raster, every
/// frame drawn whole.
#[test]
fn colour_pages_evict_and_render_again_under_churn() {
    let config = CacheConfig {
        color: ColorPages { page_size: 128, max_pages: 2, ..ColorPages::default() },
        frames_in_flight: 1,
        ..CacheConfig::default()
    };
    let (mut c, sans, emoji) = cache(config);
    let faces: Vec<u16> = "😀😃😄😁😆😅🤣😂🙂🙃😉😊😇🥰😍🤩😘😗😚😙😋😛😜🤪😝🤑🤗🤭🤫🤔"
        .chars()
        .map(|ch| glyph(&c, emoji, ch))
        .collect();
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
                let (font, g) = if i == 5 {
                    (sans, a)
                } else {
                    (emoji, faces[next(faces.len() as u64) as usize])
                };
                PositionedGlyph {
                    font,
                    glyph: g,
                    size: 14.0 + next(4) as f32 * 6.0,
                    x: 10.0 + 40.0 * i as f32,
                    y: 50.0,
                    color: [0, 0, 0, 255],
                }
            })
            .collect();
        let mut quads = Vec::new();
        let mut frame = c.begin_frame();
        frame.prepare(&glyphs, &mut quads);
        let out = frame.finish();
        assert!(out.skipped.is_empty(), "frame {frame_no}: {:?}", out.skipped);
        assert_eq!(quads.len(), 6, "frame {frame_no}: every glyph drawn");
        evictions += out.counts.evictions;
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
                let want =
                    &fresh.pixels[row * fresh.width as usize * 4..][..fresh.width as usize * 4];
                assert_eq!(
                    &page.pixels()[at..at + e.width as usize * 4],
                    want,
                    "frame {frame_no}: {key:?} row {row}"
                );
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
    let ok = c.fonts().get(emoji).unwrap().glyph_index('🤔');
    let at = |g, x| PositionedGlyph {
        font: emoji,
        glyph: g,
        size: 24.0,
        x,
        y: 40.0,
        color: [0, 0, 0, 255],
    };
    let mut quads = Vec::new();
    let mut frame = c.begin_frame();
    frame.prepare(&[at(broken, 0.0), at(ok, 30.0)], &mut quads);
    let out = frame.finish();
    assert_eq!(quads.len(), 1, "the intact emoji is drawn");
    assert_eq!(out.skipped.len(), 1);
    assert_eq!(out.skipped[0].index, 0);
    assert!(matches!(out.skipped[0].reason, GlyphError::Raster(_)), "{:?}", out.skipped[0].reason);
    c.check_invariants().expect("consistent after a damaged bitmap");

    // A colour index (CBLC) overwritten with noise.
    let face = ttf_parser::RawFace::parse(&bytes, 0).expect("face");
    let rec = face.table_records.into_iter().find(|r| &r.tag.to_bytes() == b"CBLC").expect("CBLC");
    let (start, len) = (rec.offset as usize, rec.length as usize);
    for (i, b) in bytes[start + 8..start + len].iter_mut().enumerate() {
        *b = (i as u32).wrapping_mul(2_654_435_761).to_le_bytes()[1];
    }
    let fonts = c.fonts().len();
    // The font's other tables are intact, so it loads; the colour index
    // (CBLC) is noise, so the font is taken as one without colour glyphs:
    // nothing points into the damaged bitmap data, and its emoji (no
    // outlines in Noto Color Emoji) draw nothing rather than garbage.
    let damaged = c.add_font(bytes).expect("the font's cmap and glyph tables are intact");
    assert_eq!(c.fonts().len(), fonts + 1);
    assert!(!c.fonts().has_color_glyphs(damaged), "a damaged colour index is not trusted");
    let g = c.fonts().get(damaged).unwrap().glyph_index('😀');
    let mut quads = Vec::new();
    let mut frame = c.begin_frame();
    frame.prepare(
        &[PositionedGlyph {
            font: damaged,
            glyph: g,
            size: 24.0,
            x: 0.0,
            y: 40.0,
            color: [0, 0, 0, 255],
        }],
        &mut quads,
    );
    let out = frame.finish();
    assert!(
        quads.is_empty() && out.skipped.is_empty(),
        "a blank glyph: {quads:?} {:?}",
        out.skipped
    );
    c.check_invariants().expect("consistent");
}

/// Each emoji's quad sits where the strike's own metrics put it: the
/// bitmap's left bearing and its top above the baseline (CBLC's bearings as
/// ttf-parser reads them, not kerf's decoder), scaled by size ÷ the strike's
/// ppem, from the pen; its size is the bitmap's, scaled. At the strike's own
/// size (scale 1) exactly; scaled, within a pixel of rounding.
#[test]
fn emoji_quads_sit_at_the_strikes_own_bearings() {
    let bytes = emoji_bytes();
    let face = ttf_parser::Face::parse(&bytes, 0).expect("face");
    let (mut c, _, emoji) = cache(CacheConfig::default());
    let (pen_x, baseline) = (40.0f32, 200.0f32);
    for ch in ['😀', '🚀', '👍', '🎉', '✅'] {
        let id = face.glyph_index(ch).expect("glyph").0;
        let img = face.glyph_raster_image(ttf_parser::GlyphId(id), u16::MAX).expect("strike");
        for size in [img.pixels_per_em as f32, 64.0, 32.0] {
            let scale = size / img.pixels_per_em as f32;
            let g = PositionedGlyph {
                font: emoji,
                glyph: glyph(&c, emoji, ch),
                size,
                x: pen_x,
                y: baseline,
                color: [0, 0, 0, 255],
            };
            let mut quads = Vec::new();
            let mut frame = c.begin_frame();
            frame.prepare(&[g], &mut quads);
            assert!(frame.finish().skipped.is_empty());
            let q = quads[0];
            assert!(q.flags.contains(QuadFlags::COLOR));
            let left = pen_x + img.x as f32 * scale;
            let top = baseline - (img.y as f32 + img.height as f32) * scale;
            let (w, h) = (img.width as f32 * scale, img.height as f32 * scale);
            let tol = if scale == 1.0 { 0.0 } else { 1.0 };
            let what = format!(
                "{ch:?} at {size} px: quad {q:?}, strike says left {left} top {top} size {w}x{h}"
            );
            assert!((q.x as f32 - left).abs() <= tol, "{what}");
            assert!((q.y as f32 - top).abs() <= tol, "{what}");
            assert!((q.width as f32 - w).abs() <= tol + 0.5, "{what}");
            assert!((q.height as f32 - h).abs() <= tol + 0.5, "{what}");
        }
    }
}

/// The footprint counts both atlases: the coverage page and the colour page,
/// the glyph in each, the decoded strike, the staging of both.
#[test]
fn the_footprint_adds_up_both_atlases() {
    let config = CacheConfig { page_size: 128, max_pages: 2, ..CacheConfig::default() };
    let (mut c, sans, emoji) = cache(config);
    let before = c.footprint();
    assert_eq!((before.glyphs, before.decoded_strikes, before.fonts), (0, 0, 2), "{before:?}");
    let at = |font, ch, x| PositionedGlyph {
        font,
        glyph: glyph(&c, font, ch),
        size: 20.0,
        x,
        y: 30.0,
        color: [0; 4],
    };
    let glyphs = [at(sans, 'A', 0.0), at(emoji, '😀', 30.0)];
    let mut quads = Vec::new();
    let mut frame = c.begin_frame();
    frame.prepare(&glyphs, &mut quads);
    let out = frame.finish();
    let fp = c.footprint();
    let color = c.color_pages().expect("a colour page").footprint();
    let coverage = c.coverage_pages().footprint();
    assert_eq!(fp.glyphs, 2);
    assert_eq!((coverage.glyphs, color.glyphs), (1, 1));
    assert_eq!(fp.page_bytes, coverage.page_bytes + color.page_bytes);
    assert_eq!(fp.page_bytes, c.atlas_bytes());
    assert!(color.page_bytes > 0 && coverage.page_bytes > 0);
    assert_eq!(fp.decoded_strikes, 1, "one strike bitmap decoded");
    assert_eq!(fp.staging_bytes, coverage.staging_bytes + color.staging_bytes);
    assert!(out.skipped.is_empty());
    assert!(coverage.staging_bytes > 0 && color.staging_bytes > 0, "{coverage:?} {color:?}");
    assert_eq!(fp.fonts, 2);
    assert_eq!(fp.tiled, 0);
    // The same glyphs again: found, nothing more held.
    let mut frame = c.begin_frame();
    frame.prepare(&glyphs, &mut quads);
    frame.finish();
    let again = c.footprint();
    assert_eq!(Footprint { recency_records: 0, ..again }, Footprint { recency_records: 0, ..fp });
    assert_eq!(fp.glyphs, 2);
}

/// A COLR glyph (DejaVu Sans with COLR v0 and CPAL tables made here: 'O'
/// is a red 'O' under a blue '.') is drawn from the colour pages as the
/// layers composited in the palette's colours: each texel is the '.' over
/// the 'O', from swash's own coverage of the two glyphs (rendered here,
/// one layer at a time), straight alpha.
#[test]
fn colr_layers_are_composited_in_the_palettes_colours() {
    let plain = dejavu::sans::regular();
    let face = ttf_parser::Face::parse(plain, 0).unwrap();
    let (o, dot) = (face.glyph_index('O').unwrap().0, face.glyph_index('.').unwrap().0);
    let be = |v: u16| v.to_be_bytes();
    let mut colr = Vec::new();
    for v in [be(0), be(1)] {
        colr.extend(v);
    }
    colr.extend(14u32.to_be_bytes()); // base glyph records
    colr.extend(20u32.to_be_bytes()); // layer records
    colr.extend(be(2));
    for v in [o, 0, 2, o, 0, dot, 1] {
        colr.extend(be(v));
    }
    let mut cpal = Vec::new();
    for v in [0u16, 2, 1, 2] {
        cpal.extend(be(v));
    }
    cpal.extend(14u32.to_be_bytes());
    cpal.extend(be(0));
    cpal.extend([0, 0, 255, 255]); // BGRA: red
    cpal.extend([255, 0, 0, 255]); // blue
    let bytes = made::with_tables(plain, &[(*b"COLR", colr), (*b"CPAL", cpal)]);
    let mut c = GlyphCache::new(CacheConfig::default()).unwrap();
    let f = c.add_font(bytes.clone()).unwrap();
    assert!(c.fonts().is_color_glyph(f, o) && !c.fonts().is_color_glyph(f, dot));
    let px = 48.0;
    // The pen at (100, 100): the quad's (x, y) is its top-left pixel.
    let pen = PositionedGlyph { font: f, glyph: o, size: px, x: 100.0, y: 100.0, color: [0; 4] };
    let mut quads = Vec::new();
    let mut fr = c.begin_frame();
    fr.prepare(&[pen], &mut quads);
    let out = fr.finish();
    assert!(out.skipped.is_empty(), "{:?}", out.skipped);
    let q = quads[0];
    assert!(q.flags.contains(QuadFlags::COLOR), "drawn from a colour page");
    let e = GlyphEntry {
        page: q.page,
        x: q.tex_x,
        y: q.tex_y,
        width: q.width,
        height: q.height,
        left: q.x - 100,
        top: 100 - q.y,
    };
    // swash's coverage of each layer glyph, placed by its own bearings.
    let sfont = swash::FontRef::from_index(&bytes, 0).unwrap();
    let mut ctx = swash::scale::ScaleContext::new();
    let mut scaler = ctx.builder(sfont).size(px).build();
    let mut layer = |g: u16| {
        use swash::scale::{Render, Source};
        Render::new(&[Source::Outline])
            .format(swash::zeno::Format::Alpha)
            .render(&mut scaler, g)
            .unwrap()
    };
    let (ring, point) = (layer(o), layer(dot));
    let cov = |img: &swash::scale::image::Image, x: i32, y: i32| {
        let (cx, cy) = (x - img.placement.left, img.placement.top - y);
        let p = img.placement;
        if cx < 0 || cy < 0 || cx >= p.width as i32 || cy >= p.height as i32 {
            return 0.0;
        }
        f64::from(img.data[cy as usize * p.width as usize + cx as usize]) / 255.0
    };
    let page = &c.color_pages().unwrap().pages()[e.page as usize];
    let side = page.side() as usize;
    let (mut red, mut blue, mut worst) = (0, 0, 0.0f64);
    for y in 0..e.height as i32 {
        for x in 0..e.width as i32 {
            // Pixel (x, y) of the entry: `left + x` right of the pen,
            // `top - y` above the baseline (its top edge).
            let (gx, gy) = (e.left + x, e.top - y);
            let (ar, ab) = (cov(&ring, gx, gy), cov(&point, gx, gy));
            let a = ab + ar * (1.0 - ab);
            let at = ((e.y as usize + y as usize) * side + e.x as usize + x as usize) * 4;
            let got = &page.pixels()[at..at + 4];
            let want_a = a * 255.0;
            worst = worst.max((f64::from(got[3]) - want_a).abs());
            if a > 0.1 {
                // Straight colour: blue's share of the premultiplied sum.
                let b = ab / a;
                worst = worst.max((f64::from(got[2]) - 255.0 * b).abs());
                worst = worst.max((f64::from(got[0]) - 255.0 * (1.0 - b)).abs());
            }
            red += usize::from(got[..3] == [255, 0, 0] && got[3] >= 250);
            blue += usize::from(got[..3] == [0, 0, 255] && got[3] >= 250);
        }
    }
    assert!(red > 100 && blue > 8, "{red} red texels, {blue} blue");
    // (swash composites layers in 8-bit premultiplied steps: full coverage
    // comes out at alpha 253.)
    assert!(worst <= 4.0, "a texel {worst}/255 from the layers composited");
}

/// A retained run of coverage and colour glyphs, drawn again from its
/// record, counts each as a lookup and a hit in its own atlas, as the
/// lookups it replaces did.
#[test]
fn a_retained_run_of_emoji_counts_its_colour_hits() {
    let (mut c, sans, emoji) = cache(CacheConfig::default());
    let at = |font, ch, x| PositionedGlyph {
        font,
        glyph: glyph(&c, font, ch),
        size: 20.0,
        x,
        y: 30.0,
        color: [0, 0, 0, 255],
    };
    let glyphs =
        [at(sans, 'A', 0.0), at(emoji, '😀', 20.0), at(sans, 'B', 50.0), at(emoji, '🤔', 70.0)];
    let mut run = RetainedRun::default();
    let mut last = None;
    for frame in 0..4 {
        let mut quads = Vec::new();
        let mut f = c.begin_frame();
        let reused = f.prepare_retained(&glyphs, &mut quads, &mut run);
        let out = f.finish();
        assert_eq!(reused, frame >= 2, "frame {frame}");
        assert_eq!(quads.len(), 4);
        let (lookups, hits) = (out.counts.lookups, out.counts.hits);
        assert_eq!(lookups, 4, "frame {frame}: every glyph a lookup, colour ones included");
        if frame > 0 {
            assert_eq!(hits, 4, "frame {frame}: every glyph a hit");
        }
        if let Some(q) = &last {
            assert_eq!(&quads, q, "frame {frame} draws what the last drew");
        }
        last = Some(quads);
    }
}

/// A retained run of text and emoji moved: by whole pixels it is drawn
/// from its record, moved; by a pixel and a fiftieth, its pens keep their
/// sub-pixel bins (0.49 → 1.51 at four bins: the same bin a pixel right)
/// but an emoji, placed at whole pixels, lands two pixels right, so it is
/// looked up. Either way it draws what plain lookups in a second cache draw.
#[test]
fn a_moved_run_of_emoji_draws_what_lookups_draw() {
    let (mut a, sans, emoji) = cache(CacheConfig::default());
    let (mut b, _, _) = cache(CacheConfig::default());
    let at = |c: &GlyphCache, font, ch, x| PositionedGlyph {
        font,
        glyph: glyph(c, font, ch),
        size: 20.0,
        x,
        y: 30.0,
        color: [0, 0, 0, 255],
    };
    let base = [at(&a, sans, 'A', 0.49), at(&a, emoji, '😀', 20.49), at(&a, sans, 'B', 50.49)];
    // (move, reused?)
    let frames = [
        ((0.0, 0.0), false),
        ((0.0, 0.0), false),
        ((0.0, 0.0), true),
        ((3.0, 2.0), true),
        ((1.02, 0.0), false),
    ];
    let mut run = RetainedRun::default();
    for (i, &((dx, dy), reused)) in frames.iter().enumerate() {
        let glyphs: Vec<PositionedGlyph> =
            base.iter().map(|g| PositionedGlyph { x: g.x + dx, y: g.y + dy, ..*g }).collect();
        let (mut qa, mut qb) = (Vec::new(), Vec::new());
        let mut f = a.begin_frame();
        assert_eq!(f.prepare_retained(&glyphs, &mut qa, &mut run), reused, "frame {i}");
        f.finish();
        let mut f = b.begin_frame();
        f.prepare(&glyphs, &mut qb);
        f.finish();
        let placed = |q: &GlyphQuad| (q.x, q.y, q.width, q.height, q.flags);
        assert_eq!(
            qa.iter().map(placed).collect::<Vec<_>>(),
            qb.iter().map(placed).collect::<Vec<_>>(),
            "frame {i}"
        );
        assert!(qa.iter().any(|q| q.flags.contains(QuadFlags::COLOR)), "frame {i}: an emoji");
    }
}
