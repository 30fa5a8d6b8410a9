//! RGBA images and colour emoji from the colour pages; a glyph larger than the whole atlas.

use super::*;

/// An RGBA test picture: colour gradient with an alpha ramp, straight sRGB.
fn picture(id: u32, size: f32) -> GlyphImage {
    let n = size.round().max(1.0) as u32;
    let mut pixels = Vec::with_capacity((n * n * 4) as usize);
    for y in 0..n {
        for x in 0..n {
            pixels.extend_from_slice(&[
                (x * 255 / n) as u8,
                (y * 255 / n) as u8,
                (id * 50 % 256) as u8,
                (60 + (x + y) * 190 / (2 * n)) as u8,
            ]);
        }
    }
    GlyphImage { width: n, height: n, left: 0, bottom: 0, pixels }
}

/// The 20 px pictures `ids` of `src` in a row on baseline 24, picture `i`
/// at x 4 + 24 i: where [`composite_error`] expects them.
fn picture_row(src: kerf_cache::ImageSourceId, ids: &[u32]) -> Vec<PositionedImage> {
    ids.iter()
        .enumerate()
        .map(|(i, &id)| PositionedImage {
            source: src,
            id,
            size: 20.0,
            x: 4.0 + 24.0 * i as f32,
            y: 24.0,
            color: [0, 0, 0, 255],
        })
        .collect()
}

/// The largest difference, in 8-bit sRGB levels, between `px` (rows `w`
/// wide) and the 20 px pictures `ids` composited over linear grey `bg` in
/// linear light, picture `i` at (4 + 24 i, 4); rows `y` of picture `i`
/// where `skip(i, y)` are not compared.
fn composite_error(
    px: &[u8], w: u32, bg: f32, ids: &[u32], skip: impl Fn(usize, u32) -> bool,
) -> i32 {
    let mut worst = 0i32;
    for (i, &id) in ids.iter().enumerate() {
        let img = picture(id, 20.0);
        let (x0, y0) = (4 + 24 * i as u32, 4u32);
        for y in (0..20).filter(|y| !skip(i, *y)) {
            for x in 0..20 {
                let t = &img.pixels[((y * 20 + x) * 4) as usize..][..4];
                let a = t[3] as f32 / 255.0;
                for c in 0..3 {
                    let lin = srgb_to_linear(t[c] as f32 / 255.0) * a + bg * (1.0 - a);
                    let expect = (linear_to_srgb(lin) * 255.0).round() as i32;
                    let got = px[(((y0 + y) * w + x0 + x) * 4) as usize + c] as i32;
                    worst = worst.max((got - expect).abs());
                }
            }
        }
    }
    worst
}

/// RGBA images live in the colour texture and are drawn untinted,
/// premultiplied and blended in linear light on an sRGB target, next to
/// tinted coverage text; under pressure they are evicted from the colour
/// pages, and drawn right again when rendered anew.
#[test]
fn rgba_images_are_drawn_untinted_and_evicted_from_the_colour_pages() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    let (device, queue) = gpu();
    let cfg = CacheConfig {
        page_size: 128,
        frames_in_flight: 0,
        color: kerf_cache::ColorPages {
            page_size: 64,
            max_pages: 2,
            memory_budget: 64 * 64 * 4 * 2,
        },
        // The scatter path (Auto would send these dense pages whole).
        uploads: kerf_cache::UploadMode::Glyphs,
        ..CacheConfig::default()
    };
    let mut atlas = TextAtlas::new(&device, cfg).unwrap();
    let font = atlas.add_font(sans()).unwrap();
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = calls.clone();
    let src = atlas
        .add_rgba_image_source(move |id: u32, size: f32| {
            counter.fetch_add(1, Ordering::Relaxed);
            Ok(picture(id, size))
        })
        .unwrap();
    let format = wgpu::TextureFormat::Rgba8UnormSrgb;
    let mut r = TextRenderer::new(&device, &atlas, format, Default::default(), None);
    let (w, h) = (200u32, 48u32);
    let mut vp = Viewport::new(&device, &atlas);
    vp.update(&queue, w, h);
    let bg = 0.5f32; // linear grey
    let target = Offscreen::new(&device, w, h, format).unwrap();
    let draw = |r: &mut TextRenderer, atlas: &mut TextAtlas, ids: &[u32]| -> Vec<u8> {
        let images = picture_row(src, ids);
        let text = TextSpec::new("tint", font, 16.0).color([200, 30, 30, 255]);
        let rep = r
            .prepare(
                &device,
                &queue,
                atlas,
                &[TextArea::images(&images, 0.0, 0.0), TextArea::text(text, 150.0, 28.0)],
                &vp,
            )
            .unwrap();
        assert!(rep.skipped.is_empty(), "{:?}", rep.skipped);
        draw_and_read(
            &device,
            &queue,
            r,
            atlas,
            &target,
            wgpu::Color { r: bg as f64, g: bg as f64, b: bg as f64, a: 1.0 },
        )
    };
    let check = |px: &[u8], ids: &[u32]| {
        let worst = composite_error(px, w, bg, ids, |_, _| false);
        assert!(worst <= 3, "RGBA images differ from the composite by {worst}");
    };
    let px = draw(&mut r, &mut atlas, &[1, 2, 3]);
    check(&px, &[1, 2, 3]);
    let gs = atlas.gpu_stats();
    assert_eq!(gs.buffer_writes, 1, "both page sets changed, one buffer write: {gs:?}");
    assert_eq!(gs.upload_calls, 2, "one scatter draw per dirty page: {gs:?}");
    // The text beside them is tinted red (coverage path, same draw).
    let red = (0..w * h)
        .filter(|i| px[(*i * 4) as usize] > 150 && px[(*i * 4 + 1) as usize] < 120)
        .count();
    assert!(red > 20, "tinted text drawn ({red} red pixels)");
    assert_eq!(calls.load(Ordering::Relaxed), 3);
    // Two 64 px colour pages hold 8 of these: new pictures evict the first ones.
    for k in 0..4 {
        let ids: Vec<u32> = (0..6).map(|i| 100 + k * 6 + i).collect();
        let px = draw(&mut r, &mut atlas, &ids);
        check(&px, &ids);
    }
    let set = atlas.cache().color_pages().unwrap();
    assert!(set.stats().evictions > 0, "the colour pages evict");
    let key =
        kerf_cache::GlyphKey::image(src, 1, kerf_cache::GlyphSize::from_px(20.0, 1024.0).unwrap());
    assert!(atlas.cache().peek(&key).is_none());
    let before = calls.load(Ordering::Relaxed);
    let px = draw(&mut r, &mut atlas, &[1, 2, 3]);
    check(&px, &[1, 2, 3]);
    assert_eq!(calls.load(Ordering::Relaxed), before + 3, "rendered again");
    // The colour texture equals the cache's colour pages.
    check_color_layers(&device, &queue, &atlas);
    atlas.cache().check_invariants().unwrap();
}

/// Colour pages uploaded as dirty boxes, which kerf-wgpu writes straight
/// from the pages' CPU copies (four bytes a texel, each box at its place on
/// its page): frame after frame new pictures land beside the earlier ones,
/// so boxes start away from the page's corner. The colour texture equals
/// the cache's colour pages, and the pictures their composite.
#[test]
fn colour_boxes_are_written_from_their_pages_at_their_places() {
    let (device, queue) = gpu();
    let cfg = CacheConfig {
        frames_in_flight: 0,
        color: kerf_cache::ColorPages { page_size: 128, max_pages: 1, memory_budget: 1 << 20 },
        uploads: kerf_cache::UploadMode::DirtyRect,
        ..CacheConfig::default()
    };
    let mut atlas = TextAtlas::new(&device, cfg).unwrap();
    let src = atlas.add_rgba_image_source(|id: u32, size: f32| Ok(picture(id, size))).unwrap();
    let format = wgpu::TextureFormat::Rgba8UnormSrgb;
    let mut r = TextRenderer::new(&device, &atlas, format, Default::default(), None);
    let (w, h) = (200u32, 48u32);
    let mut vp = Viewport::new(&device, &atlas);
    vp.update(&queue, w, h);
    let bg = 0.5f32;
    let target = Offscreen::new(&device, w, h, format).unwrap();
    let mut boxes = Vec::new();
    for ids in [&[1u32, 2][..], &[1, 2, 3, 4], &[3, 4, 5, 6, 7]] {
        let images = picture_row(src, ids);
        let mut frame = atlas.cache_mut().begin_frame();
        frame.prepare_images(&images, &mut Vec::new());
        let out = frame.finish();
        boxes.extend(out.uploads.iter().filter_map(|u| match u {
            kerf_cache::pages::Upload::Rect(b) => Some(b.rect),
            _ => None,
        }));
        atlas.apply(&device, &queue, &out);
        r.prepare(&device, &queue, &mut atlas, &[TextArea::images(&images, 0.0, 0.0)], &vp)
            .unwrap();
        let bgc = wgpu::Color { r: bg as f64, g: bg as f64, b: bg as f64, a: 1.0 };
        let px = draw_and_read(&device, &queue, &r, &atlas, &target, bgc);
        let worst = composite_error(&px, w, bg, ids, |_, _| false);
        assert!(worst <= 3, "pictures {ids:?} differ from the composite by {worst}");
        check_color_layers(&device, &queue, &atlas);
    }
    assert!(boxes.iter().any(|b| b.x > 0 || b.y > 0), "a box away from the corner: {boxes:?}");
}

/// A glyph whose tiles would need more than the whole atlas (a 700 px 'W' on
/// two 256 px pages) is still drawn: from a smaller raster, sampled up. It
/// matches the full-size raster in 16 px blocks. On two 128 px pages even
/// the largest raster a sampled glyph is made at (256 px) would not fit:
/// the raster must be scaled to the atlas.
#[test]
fn a_glyph_larger_than_the_whole_atlas_is_drawn_from_a_smaller_raster() {
    for page_size in [256, 128] {
        larger_than_the_atlas(page_size);
    }
}

fn larger_than_the_atlas(page_size: u32) {
    let (w, h) = (760u32, 640u32);
    let config = CacheConfig { page_size, max_pages: 2, ..CacheConfig::default() };
    let (device, queue, mut atlas, font, mut r, vp) = neutral_rig(config, w, h);
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let f = atlas.cache().fonts().get(font).unwrap().clone();
    let glyphs = [
        PositionedGlyph {
            font,
            glyph: f.glyph_index('W'),
            size: 700.0,
            x: 10.0,
            y: 560.0,
            color: [255; 4],
        },
        PositionedGlyph {
            font,
            glyph: f.glyph_index('k'),
            size: 20.0,
            x: 720.0,
            y: 620.0,
            color: [255; 4],
        },
    ];
    let rep = r
        .prepare(&device, &queue, &mut atlas, &[TextArea::glyphs(&glyphs, 0.0, 0.0)], &vp)
        .unwrap();
    assert!(rep.skipped.is_empty(), "{page_size} px pages: never refused: {:?}", rep.skipped);
    assert_eq!(rep.instances, 1, "the small glyph texel for pixel");
    assert!(!r.transformed_instances().is_empty(), "the big one sampled");
    let target = Offscreen::new(&device, w, h, format).unwrap();
    let px = draw_and_read(&device, &queue, &r, &atlas, &target, wgpu::Color::BLACK);
    let full = expected_coverage(atlas.cache(), &glyphs, w, h);
    // Blocks of 16 px for a raster about a third of the glyph's size, 32 px
    // for one about a sixth (sampled up further, its edges blur wider).
    let b = 4096 / page_size;
    let (mut worst, mut inked) = (0.0f32, 0);
    for by in 0..h / b {
        for bx in 0..w / b {
            let (mut got, mut want) = (0.0, 0.0);
            for y in by * b..by * b + b {
                for x in bx * b..bx * b + b {
                    got += px[((y * w + x) * 4) as usize] as f32;
                    want += full[(y * w + x) as usize] as f32;
                }
            }
            worst = worst.max((got - want).abs() / ((b * b) as f32 * 255.0));
            inked += (want > 0.5 * (b * b) as f32 * 255.0) as u32;
        }
    }
    assert!(inked > 200 * 256 / (b * b), "the glyph is big ({inked} inked blocks)");
    assert!(
        worst < 0.08,
        "{page_size} px pages: {b} px blocks differ by up to {:.1}% of full coverage",
        worst * 100.0
    );
    atlas.cache().check_invariants().unwrap();
    let side = u64::from(page_size);
    assert!(atlas.cache().atlas_bytes() <= 2 * side * side, "within the budget");
}

/// Noto Color Emoji's bytes (Debian's fonts-noto-color-emoji).
#[cfg(feature = "swash")]
fn noto_emoji() -> Vec<u8> {
    const EMOJI_FONT: &str = "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf";
    std::fs::read(EMOJI_FONT)
        .unwrap_or_else(|e| panic!("{EMOJI_FONT}: {e}; install Debian's fonts-noto-color-emoji"))
}

/// `glyph` of `font` at 32 px, pen at (`x`, 40), tinted blue.
#[cfg(feature = "swash")]
fn at(font: FontId, glyph: u16, x: f32) -> PositionedGlyph {
    PositionedGlyph { font, glyph, size: 32.0, x, y: 40.0, color: [30, 60, 200, 255] }
}

/// Emoji (Noto Color Emoji, CBDT bitmaps; Debian's fonts-noto-color-emoji)
/// beside tinted text, in one draw: read back from the GPU they are the
/// colour pages' texels composited over the background (sRGB target), not
/// tinted; the colour texture equals the cache's colour pages.
#[cfg(feature = "swash")]
#[test]
fn emoji_are_drawn_in_colour_from_the_colour_pages() {
    let bytes = noto_emoji();
    let (device, queue) = gpu();
    let mut atlas =
        TextAtlas::new(&device, CacheConfig { page_size: 256, ..CacheConfig::default() }).unwrap();
    let sans_font = atlas.add_font(sans()).unwrap();
    let emoji = atlas.add_font(bytes).unwrap();
    let glyph = |f, ch| atlas.cache().fonts().get(f).unwrap().glyph_index(ch);
    let (a, grin, crab) = (glyph(sans_font, 'A'), glyph(emoji, '😀'), glyph(emoji, '🦀'));
    let format = wgpu::TextureFormat::Rgba8UnormSrgb;
    let mut r = TextRenderer::new(&device, &atlas, format, Default::default(), None);
    let (w, h) = (160u32, 56u32);
    let mut vp = Viewport::new(&device, &atlas);
    vp.update(&queue, w, h);
    let glyphs = [at(sans_font, a, 4.0), at(emoji, grin, 40.0), at(emoji, crab, 90.0)];
    let rep = r
        .prepare(&device, &queue, &mut atlas, &[TextArea::glyphs(&glyphs, 0.0, 0.0)], &vp)
        .unwrap();
    assert!(rep.skipped.is_empty(), "{:?}", rep.skipped);
    let target = Offscreen::new(&device, w, h, format).unwrap();
    let bg = 1.0f32;
    let px = draw_and_read(&device, &queue, &r, &atlas, &target, wgpu::Color::WHITE);
    let set = atlas.cache().color_pages().expect("colour pages made for the emoji");
    let colour_quads: Vec<_> = r
        .instances()
        .iter()
        .filter(|q| q.page & kerf_cache::COLOR_PAGE_BIT != 0)
        .copied()
        .collect();
    assert_eq!(colour_quads.len(), 2);
    let mut worst = 0i32;
    let mut colourful = 0;
    for q in &colour_quads {
        let page = &set.pages()[(q.page & !kerf_cache::COLOR_PAGE_BIT) as usize];
        let side = page.side() as usize;
        for y in 0..q.height as usize {
            for x in 0..q.width as usize {
                let t = &page.pixels()
                    [((q.tex_y as usize + y) * side + q.tex_x as usize + x) * 4..][..4];
                let a = t[3] as f32 / 255.0;
                let (tx, ty) = (q.x as usize + x, q.y as usize + y);
                let got = &px[(ty * w as usize + tx) * 4..][..3];
                for c in 0..3 {
                    let lin = srgb_to_linear(t[c] as f32 / 255.0) * a + bg * (1.0 - a);
                    let expect = (linear_to_srgb(lin) * 255.0).round() as i32;
                    worst = worst.max((got[c] as i32 - expect).abs());
                }
                let (mx, mn) = (got.iter().max().unwrap(), got.iter().min().unwrap());
                colourful += (mx - mn > 80) as usize;
            }
        }
    }
    assert!(worst <= 3, "emoji differ from the colour pages' composite by {worst}/255");
    assert!(colourful > 300, "the emoji are coloured ({colourful} saturated pixels)");
    // The 'A' is tinted (blue), from the coverage pages.
    let blue = px.chunks(4).filter(|p| p[2] > 150 && p[0] < 120).count();
    assert!(blue > 20, "tinted text drawn ({blue} blue pixels)");
    check_color_layers(&device, &queue, &atlas);
}

/// Coverage and colour quads are drawn by separate pipelines, in runs: the
/// painter's order across them still holds. An opaque green image, a red
/// full block (U+2588, its box from y = 2) over it, an opaque blue image over the block: the
/// block shows on the green, the blue hides the block.
#[test]
fn text_and_images_keep_their_order_across_pipelines() {
    let (device, queue) = gpu();
    let mut atlas = TextAtlas::new(&device, CacheConfig::default()).unwrap();
    let font = atlas.add_font(sans()).unwrap();
    let src = atlas
        .add_rgba_image_source(|id: u32, size: f32| {
            let n = size.round() as u32;
            let rgba = if id == 1 { [0, 200, 0, 255] } else { [0, 0, 220, 255] };
            let pixels = (0..n * n).flat_map(|_| rgba).collect();
            Ok(GlyphImage { width: n, height: n, left: 0, bottom: 0, pixels })
        })
        .unwrap();
    let format = wgpu::TextureFormat::Rgba8UnormSrgb;
    let mut r = TextRenderer::new(&device, &atlas, format, Default::default(), None);
    let (w, h) = (64u32, 40u32);
    let mut vp = Viewport::new(&device, &atlas);
    vp.update(&queue, w, h);
    let image = |id: u32, x: f32| PositionedImage {
        source: src,
        id,
        size: 20.0,
        x,
        y: 30.0,
        color: [0, 0, 0, 255],
    };
    let (green, blue) = ([image(1, 2.0)], [image(2, 14.0)]);
    let block = TextSpec::new("\u{2588}", font, 24.0).color([220, 0, 0, 255]);
    r.prepare(
        &device,
        &queue,
        &mut atlas,
        &[
            TextArea::images(&green, 0.0, 0.0),
            TextArea::text(block, 6.0, 2.0),
            TextArea::images(&blue, 0.0, 0.0),
        ],
        &vp,
    )
    .unwrap();
    let target = Offscreen::new(&device, w, h, format).unwrap();
    let px = draw_and_read(&device, &queue, &r, &atlas, &target, wgpu::Color::WHITE);
    let at = |x: u32, y: u32| {
        let i = ((y * w + x) * 4) as usize;
        [px[i], px[i + 1], px[i + 2]]
    };
    let near = |got: [u8; 3], want: [u8; 3]| got.iter().zip(want).all(|(g, w)| g.abs_diff(w) <= 3);
    assert!(near(at(4, 20), [0, 200, 0]), "green image alone: {:?}", at(4, 20));
    assert!(near(at(10, 20), [220, 0, 0]), "the block over the green image: {:?}", at(10, 20));
    assert!(near(at(17, 20), [0, 0, 220]), "the blue image over the block: {:?}", at(17, 20));
    assert!(near(at(40, 20), [255, 255, 255]), "background: {:?}", at(40, 20));
}

/// A lost device with colour pages in use: text, emoji and an RGBA image
/// drawn on one device, the device dropped, the atlas rebuilt on a new one.
/// Both texture arrays equal the cache's pages again, nothing is rasterized
/// again, and the frame read back after the rebuild equals the one before,
/// byte for byte.
#[cfg(feature = "swash")]
#[test]
fn a_lost_device_with_colour_pages_comes_back_with_the_same_picture() {
    let bytes = noto_emoji();
    let format = wgpu::TextureFormat::Rgba8UnormSrgb;
    let (w, h) = (200u32, 64u32);
    let (device, queue) = gpu();
    let mut atlas =
        TextAtlas::new(&device, CacheConfig { page_size: 256, ..CacheConfig::default() }).unwrap();
    let text_font = atlas.add_font(sans()).unwrap();
    let emoji = atlas.add_font(bytes).unwrap();
    let glyph = |atlas: &TextAtlas, f, ch| atlas.cache().fonts().get(f).unwrap().glyph_index(ch);
    let glyphs = [
        at(text_font, glyph(&atlas, text_font, 'K'), 4.0),
        at(emoji, glyph(&atlas, emoji, '😀'), 30.0),
        at(emoji, glyph(&atlas, emoji, '🦀'), 70.0),
    ];
    let src = atlas.add_rgba_image_source(|id: u32, size: f32| Ok(picture(id, size))).unwrap();
    let images =
        [PositionedImage { source: src, id: 7, size: 40.0, x: 150.0, y: 50.0, color: [0; 4] }];
    let frame = |device: &wgpu::Device, queue: &wgpu::Queue, atlas: &mut TextAtlas| {
        let mut r = TextRenderer::new(device, atlas, format, Default::default(), None);
        let mut vp = Viewport::new(device, atlas);
        vp.update(queue, w, h);
        let areas = [
            TextArea::glyphs(&glyphs, 0.0, 0.0),
            TextArea::text(TextSpec::new("lost", text_font, 20.0), 110.0, 4.0),
            TextArea::images(&images, 0.0, 0.0),
        ];
        let rep = r.prepare(device, queue, atlas, &areas, &vp).unwrap();
        assert!(rep.skipped.is_empty(), "{:?}", rep.skipped);
        let target = Offscreen::new(device, w, h, format).unwrap();
        draw_and_read(device, queue, &r, atlas, &target, wgpu::Color::WHITE)
    };
    let before = frame(&device, &queue, &mut atlas);
    let rasterized = atlas.cache().stats().rasterized;
    assert!(atlas.cache().color_pages().is_some(), "colour pages in use");
    drop((device, queue)); // as if the device were lost
    let (device, queue) = gpu();
    atlas.rebuild(&device, &queue);
    // Both arrays, the colour one included, equal the cache's pages.
    check_atlas(&device, &queue, &atlas);
    let after = frame(&device, &queue, &mut atlas);
    assert_eq!(atlas.cache().stats().rasterized, rasterized, "nothing rasterized again");
    let differ = before.iter().zip(&after).filter(|(a, b)| a != b).count();
    assert_eq!(differ, 0, "{differ} bytes of the frame differ after the rebuild");
    let colourful =
        after.chunks(4).filter(|p| p[0].max(p[1]).max(p[2]) - p[0].min(p[1]).min(p[2]) > 80);
    assert!(colourful.count() > 300, "the emoji and the image are drawn");
}

/// A transformed area's colour quads (RGBA images) and coverage quads
/// (text) are drawn by their own pipelines, in order: at the identity
/// transform, sampled at texel centres, the images are the same composite
/// as drawn texel for pixel, and the text beside them is tinted; text drawn
/// over an image in the same area stays on top.
#[test]
fn transformed_images_and_text_keep_their_colours_and_order() {
    let (device, queue) = gpu();
    let mut atlas = TextAtlas::new(&device, CacheConfig::default()).unwrap();
    let font = atlas.add_font(sans()).unwrap();
    let src = atlas.add_rgba_image_source(|id: u32, size: f32| Ok(picture(id, size))).unwrap();
    let format = wgpu::TextureFormat::Rgba8UnormSrgb;
    let mut r = TextRenderer::new(&device, &atlas, format, Default::default(), None);
    let (w, h) = (200u32, 48u32);
    let mut vp = Viewport::new(&device, &atlas);
    vp.update(&queue, w, h);
    let bg = 0.5f32;
    let target = Offscreen::new(&device, w, h, format).unwrap();
    let images = picture_row(src, &[1, 2, 3]);
    // A red bar over the third image, drawn after it in the same area.
    let bar =
        [kerf_cache::Decoration { x: 52, y: 12, width: 20, height: 4, color: [255, 0, 0, 255] }];
    let text = TextSpec::new("tint", font, 16.0).color([200, 30, 30, 255]);
    let id = TextTransform::IDENTITY;
    let areas = [
        TextArea::images(&images, 0.0, 0.0).with_decorations(&bar).transformed(id),
        TextArea::text(text, 150.0, 28.0).transformed(id),
    ];
    let rep = r.prepare(&device, &queue, &mut atlas, &areas, &vp).unwrap();
    assert!(rep.skipped.is_empty(), "{:?}", rep.skipped);
    assert_eq!(rep.instances, 0, "everything took the transformed path");
    let px = draw_and_read(
        &device,
        &queue,
        &r,
        &atlas,
        &target,
        wgpu::Color { r: bg as f64, g: bg as f64, b: bg as f64, a: 1.0 },
    );
    let ids: Vec<u32> = images.iter().map(|im| im.id).collect();
    // The third image's rows 8..12 are under the bar.
    let worst = composite_error(&px, w, bg, &ids, |i, y| i == 2 && (8..12).contains(&y));
    assert!(worst <= 3, "transformed RGBA images differ from the composite by {worst}");
    for x in 53..71u32 {
        let p = &px[((14 * w + x) * 4) as usize..][..4];
        assert_eq!((p[0], p[1], p[2]), (255, 0, 0), "the bar is over the image at x = {x}");
    }
    let red = (0..w * h)
        .filter(|i| {
            let (x, p) = (i % w, &px[(*i * 4) as usize..][..4]);
            x >= 150 && p[0] > 150 && p[1] < 120
        })
        .count();
    assert!(red > 20, "tinted text drawn ({red} red pixels)");
}
