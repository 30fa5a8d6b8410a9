//! The app's own images in the atlas: rendered by a callback on a miss, then
//! cached, drawn, evicted and re-requested like glyphs; bad sources are
//! typed errors that leave the cache consistent.

use kerf_cache::*;
use kerf_cache::{
    pages::{TexelFormat, Upload},
    rasterize::GlyphImage,
};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// A test icon: a ring whose thickness and shading depend on the id, `size` px square.
fn icon(id: u32, size: f32) -> GlyphImage {
    let n = size.round().max(1.0) as u32;
    let c = (n as f32 - 1.0) / 2.0;
    let thick = 1.0 + (id % 5) as f32;
    let pixels = (0..n * n)
        .map(|i| {
            let (x, y) = ((i % n) as f32 - c, (i / n) as f32 - c);
            let d = (x * x + y * y).sqrt();
            if (d - c * 0.8).abs() < thick {
                (60 + (id * 37 + i) % 196) as u8
            } else {
                0
            }
        })
        .collect();
    GlyphImage { width: n, height: n, left: 0, bottom: 0, pixels }
}

fn cache(page: u32, pages: u32) -> GlyphCache {
    GlyphCache::new(CacheConfig {
        page_size: page,
        max_pages: pages,
        frames_in_flight: 0,
        ..CacheConfig::default()
    })
    .unwrap()
}

fn counting_source(calls: Arc<AtomicUsize>) -> impl ImageSource {
    move |id: u32, size: f32| {
        calls.fetch_add(1, Ordering::Relaxed);
        Ok(icon(id, size))
    }
}

#[test]
fn images_are_rendered_once_cached_evicted_and_requested_again() {
    let mut c = cache(128, 1);
    let calls = Arc::new(AtomicUsize::new(0));
    let src = c.add_image_source(counting_source(calls.clone())).unwrap();
    let row: Vec<PositionedImage> = (0..4)
        .map(|i| PositionedImage {
            source: src,
            id: 1000 + i,
            size: 24.0,
            x: 10.0 + 30.0 * i as f32,
            y: 40.0,
            color: [200, 0, 0, 255],
        })
        .collect();
    for round in 0..2 {
        let mut quads = Vec::new();
        let mut fr = c.begin_frame();
        fr.prepare_images(&row, &mut quads);
        let out = fr.finish();
        assert!(out.skipped.is_empty());
        assert_eq!(quads.len(), 4);
        assert_eq!(calls.load(Ordering::Relaxed), 4, "round {round}: rendered once each");
        for (q, img) in quads.iter().zip(&row) {
            let expect = icon(img.id, 24.0);
            // Bottom-left corner on the pen, whole pixels.
            assert_eq!(
                (q.x, q.y, q.width as u32, q.height as u32),
                (img.x as i32, img.y as i32 - 24, 24, 24)
            );
            assert_eq!(q.color, [200, 0, 0, 255]);
            let page = c.pages()[q.page as usize].pixels();
            for row in 0..24usize {
                let at = (q.tex_y as usize + row) * 128 + q.tex_x as usize;
                assert_eq!(&page[at..at + 24], &expect.pixels[row * 24..][..24]);
            }
        }
    }
    // Glyphs push the icons out of the one small page...
    let font = c.add_font(dejavu::sans::regular().to_vec()).unwrap();
    let key = GlyphKey::image(src, 1000, GlyphSize::from_px(24.0, 1024.0).unwrap());
    let mut size = 20.0;
    while c.peek(&key).is_some() {
        let mut fr = c.begin_frame();
        let mut quads = Vec::new();
        fr.layout(&TextSpec::new("ABCDEFGHIJKLMNOPQRSTUVWXYZ", font, size), &mut quads).unwrap();
        fr.finish();
        size += 1.0;
        assert!(size < 80.0, "the icons must be evicted");
    }
    c.check_invariants().unwrap();
    // ...and come back through the callback when asked for again.
    let mut fr = c.begin_frame();
    let e = fr.image(src, 1000, 24.0).unwrap();
    fr.finish();
    assert_eq!((e.width, e.height), (24, 24));
    assert_eq!(calls.load(Ordering::Relaxed), 5);
    c.check_invariants().unwrap();
}

#[test]
fn a_bad_image_source_is_a_typed_error_and_loses_nothing() {
    let mut c = cache(128, 1);
    let good = c.add_image_source(|id: u32, size: f32| Ok(icon(id, size))).unwrap();
    let failing = c
        .add_image_source(|_: u32, _: f32| Err::<GlyphImage, _>("no such icon".to_string()))
        .unwrap();
    let short = c
        .add_image_source(|_: u32, _: f32| {
            Ok(GlyphImage { width: 10, height: 10, left: 0, bottom: 0, pixels: vec![1; 99] })
        })
        .unwrap();
    let panics = c
        .add_image_source(|_: u32, _: f32| -> Result<GlyphImage, String> {
            panic!("icon renderer bug")
        })
        .unwrap();
    let huge = c
        .add_image_source(|_: u32, _: f32| {
            Ok(GlyphImage { width: 400, height: 400, left: 0, bottom: 0, pixels: vec![7; 160_000] })
        })
        .unwrap();
    let unknown = {
        let mut other = cache(64, 1);
        for _ in 0..6 {
            other.add_image_source(|id: u32, size: f32| Ok(icon(id, size))).unwrap();
        }
        other.add_image_source(|id: u32, size: f32| Ok(icon(id, size))).unwrap()
    };
    let at =
        |source, id| PositionedImage { source, id, size: 16.0, x: 0.0, y: 20.0, color: [255; 4] };
    let reqs = [
        at(good, 1),
        at(failing, 2),
        at(short, 3),
        at(panics, 4),
        at(huge, 5),
        at(unknown, 6),
        at(good, 7),
        PositionedImage { size: f32::NAN, ..at(good, 8) },
    ];
    let mut quads = Vec::new();
    let mut fr = c.begin_frame();
    fr.prepare_images(&reqs, &mut quads);
    let out = fr.finish();
    assert_eq!(quads.len(), 2, "the good images are drawn");
    let mut reasons: Vec<(usize, &GlyphError)> =
        out.skipped.iter().map(|s| (s.index, &s.reason)).collect();
    reasons.sort_by_key(|r| r.0);
    assert!(
        matches!(reasons[0], (1, GlyphError::ImageFailed { message, .. }) if message == "no such icon"),
        "{reasons:?}"
    );
    assert!(
        matches!(reasons[1], (2, GlyphError::Raster(RasterError::BadBitmap { len: 99, .. }))),
        "{reasons:?}"
    );
    assert!(matches!(reasons[2], (3, GlyphError::ImageFailed { .. })), "{reasons:?}");
    assert!(matches!(reasons[3], (4, GlyphError::TooLarge { .. })), "{reasons:?}");
    assert!(matches!(reasons[4], (5, GlyphError::UnknownImageSource(_))), "{reasons:?}");
    assert!(matches!(reasons[5], (7, GlyphError::InvalidSize { .. })), "{reasons:?}");
    assert_eq!(c.len(), 2);
    c.check_invariants().unwrap();
    // A glyph call cannot name an image key.
    let mut fr = c.begin_frame();
    let k = GlyphKey::image(good, 1, GlyphSize::from_px(16.0, 1024.0).unwrap());
    assert!(fr.glyph(k.font, k.glyph, 16.0).is_err());
    fr.finish();
}

#[test]
fn an_image_larger_than_a_page_is_drawn_in_tiles() {
    let mut c = cache(64, 8);
    let src = c.add_image_source(|id: u32, size: f32| Ok(icon(id, size))).unwrap();
    let mut quads = Vec::new();
    let mut fr = c.begin_frame();
    fr.prepare_images(
        &[PositionedImage { source: src, id: 3, size: 100.0, x: 5.0, y: 120.0, color: [255; 4] }],
        &mut quads,
    );
    let out = fr.finish();
    assert!(out.skipped.is_empty(), "{:?}", out.skipped);
    assert!(quads.len() >= 4);
    let area: u32 = quads.iter().map(|q| q.width as u32 * q.height as u32).sum();
    assert_eq!(area, 100 * 100);
    c.check_invariants().unwrap();
}

/// An RGBA test image: a colour gradient with an alpha ramp, `size` px square.
fn rgba(id: u32, size: f32) -> GlyphImage {
    let n = size.round().max(1.0) as u32;
    let mut pixels = Vec::with_capacity((n * n * 4) as usize);
    for y in 0..n {
        for x in 0..n {
            pixels.extend_from_slice(&[
                (x * 255 / n) as u8,
                (y * 255 / n) as u8,
                (id * 40 % 256) as u8,
                (40 + (x + y) * 200 / (2 * n)) as u8,
            ]);
        }
    }
    GlyphImage { width: n, height: n, left: 0, bottom: 0, pixels }
}

#[test]
fn rgba_images_live_in_the_colour_pages_and_evict_there() {
    let mut c = GlyphCache::new(CacheConfig {
        page_size: 128,
        frames_in_flight: 0,
        color: ColorPages { page_size: 64, max_pages: 1, memory_budget: 64 * 64 * 4 },
        // Glyph by glyph, always (Auto would send these dense pages whole).
        uploads: UploadMode::Glyphs,
        ..CacheConfig::default()
    })
    .unwrap();
    let mono = c.add_image_source(|id: u32, size: f32| Ok(icon(id, size))).unwrap();
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = calls.clone();
    let colour = c
        .add_rgba_image_source(move |id: u32, size: f32| {
            counter.fetch_add(1, Ordering::Relaxed);
            if id == 99 {
                return Err("no such picture".to_string());
            }
            Ok(rgba(id, size))
        })
        .unwrap();
    assert!(colour.is_rgba() && !mono.is_rgba());
    let at = |source, id, x| PositionedImage {
        source,
        id,
        size: 20.0,
        x,
        y: 30.0,
        color: [255, 255, 255, 128],
    };
    let reqs = [at(colour, 1, 0.0), at(mono, 1, 30.0), at(colour, 99, 60.0), at(colour, 2, 90.0)];
    let mut quads = Vec::new();
    let mut fr = c.begin_frame();
    fr.prepare_images(&reqs, &mut quads);
    let out = fr.finish();
    assert_eq!(quads.len(), 3);
    assert_eq!(out.skipped.len(), 1);
    assert_eq!(out.skipped[0].index, 2, "skipped index is the input's");
    assert!(
        matches!(&out.skipped[0].reason, GlyphError::ImageFailed { message, .. } if message == "no such picture")
    );
    assert_eq!((out.counts.lookups, out.color_pages), (4, 1));
    let staged_rgba: Vec<&Upload> = out.uploads_of(TexelFormat::Rgba).collect();
    let [Upload::Glyphs(staged)] = staged_rgba[..] else {
        panic!("one scattered colour page: {staged_rgba:?}")
    };
    assert_eq!(staged.bytes.len(), 2 * 20 * 20 * 4, "two RGBA images staged, 4 bytes a texel");
    assert_eq!(staged.bytes_per_texel(), 4);
    let coverage: u32 = out.uploads_of(TexelFormat::Coverage).map(Upload::regions).sum();
    assert_eq!(coverage, 1, "one coverage image");
    let set = c.color_pages().unwrap();
    for q in &quads {
        let is_colour = q.flags.contains(QuadFlags::COLOR);
        assert_eq!(is_colour, q.x != 30, "{q:?}");
        if !is_colour {
            continue;
        }
        let id = if q.x == 0 { 1 } else { 2 };
        let expect = rgba(id, 20.0);
        let page = set.pages()[q.page as usize].pixels();
        for row in 0..20usize {
            let at = ((q.tex_y as usize + row) * 64 + q.tex_x as usize) * 4;
            assert_eq!(
                &page[at..at + 80],
                &expect.pixels[row * 80..][..80],
                "image {id} row {row}"
            );
        }
    }
    // One 64 px colour page holds few 20 px images: new ones evict old ones there.
    for round in 0..3 {
        let row: Vec<PositionedImage> =
            (0..6).map(|i| at(colour, 10 + i + round * 6, i as f32 * 22.0)).collect();
        let mut quads = Vec::new();
        let mut fr = c.begin_frame();
        fr.prepare_images(&row, &mut quads);
        let out = fr.finish();
        assert!(out.skipped.is_empty(), "{:?}", out.skipped);
        assert!(quads.iter().all(|q| q.flags.contains(QuadFlags::COLOR)));
        c.check_invariants().unwrap();
    }
    let set = c.color_pages().unwrap();
    assert!(set.stats().evictions > 0, "the colour page evicts");
    assert!(c
        .peek(&GlyphKey::image(colour, 1, GlyphSize::from_px(20.0, 1024.0).unwrap()))
        .is_none());
    assert!(
        c.peek(&GlyphKey::image(mono, 1, GlyphSize::from_px(20.0, 1024.0).unwrap())).is_some(),
        "coverage pages untouched"
    );
    // Asked for again: rendered again.
    let before = calls.load(Ordering::Relaxed);
    let mut fr = c.begin_frame();
    let e = fr.image(colour, 1, 20.0).unwrap();
    fr.finish();
    assert!(e.page & COLOR_PAGE_BIT != 0);
    assert_eq!(calls.load(Ordering::Relaxed), before + 1);
    c.check_invariants().unwrap();
}

#[test]
fn an_rgba_source_with_coverage_sized_data_is_a_typed_error() {
    let mut c = GlyphCache::new(CacheConfig::default()).unwrap();
    let bad = c.add_rgba_image_source(|id: u32, size: f32| Ok(icon(id, size))).unwrap();
    let mut fr = c.begin_frame();
    assert!(matches!(
        fr.image(bad, 1, 16.0),
        Err(GlyphError::Raster(RasterError::BadBitmap { len: 256, .. }))
    ));
    fr.finish();
    // A colour configuration that allows no page is refused up front.
    let cfg = CacheConfig {
        color: ColorPages { page_size: 512, max_pages: 4, memory_budget: 1000 },
        ..CacheConfig::default()
    };
    assert!(matches!(GlyphCache::new(cfg), Err(ConfigError::Color(_))));
    c.check_invariants().unwrap();
}

/// An RGBA image larger than a colour page is tiled, 4 bytes a texel (the
/// fuzz harness found tiles cut at 1 byte a texel).
#[test]
fn an_rgba_image_larger_than_a_colour_page_is_tiled() {
    let mut c = GlyphCache::new(CacheConfig {
        color: ColorPages { page_size: 64, max_pages: 8, memory_budget: 1 << 20 },
        ..CacheConfig::default()
    })
    .unwrap();
    let src = c.add_rgba_image_source(|id: u32, size: f32| Ok(rgba(id, size))).unwrap();
    let mut quads = Vec::new();
    let mut fr = c.begin_frame();
    fr.prepare_images(
        &[PositionedImage { source: src, id: 5, size: 100.0, x: 0.0, y: 100.0, color: [255; 4] }],
        &mut quads,
    );
    let out = fr.finish();
    assert!(out.skipped.is_empty(), "{:?}", out.skipped);
    assert!(quads.len() >= 4 && quads.iter().all(|q| q.flags.contains(QuadFlags::COLOR)));
    let expect = rgba(5, 100.0);
    let set = c.color_pages().unwrap();
    for q in &quads {
        let (dx, dy) = (q.x as usize, q.y as usize);
        let page = set.pages()[q.page as usize].pixels();
        for row in 0..q.height as usize {
            let at = ((q.tex_y as usize + row) * 64 + q.tex_x as usize) * 4;
            let src = ((dy + row) * 100 + dx) * 4;
            assert_eq!(
                &page[at..at + q.width as usize * 4],
                &expect.pixels[src..src + q.width as usize * 4],
                "tile at {dx},{dy} row {row}"
            );
        }
    }
    c.check_invariants().unwrap();
}
