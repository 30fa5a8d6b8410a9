//! kerf-wgpu the way real apps use it (lavapipe in CI): many renderers
//! sharing one atlas in one submit.

#[path = "../common/mod.rs"]
mod common;
mod images;
mod transformed;

use common::*;
use kerf_cache::{GlyphKey, GlyphSize};
use kerf_wgpu::*;

/// The rig the reference tests draw on: a device, an atlas of `config`
/// holding DejaVu Sans (and its id), a renderer for `Rgba8Unorm` targets and
/// a `w × h` viewport without correction (the references compare coverage
/// as drawn).
fn neutral_rig(
    config: CacheConfig, w: u32, h: u32,
) -> (wgpu::Device, wgpu::Queue, TextAtlas, FontId, TextRenderer, Viewport) {
    let (device, queue) = gpu();
    let mut atlas = TextAtlas::new(&device, config).unwrap();
    let font = atlas.add_font(sans()).unwrap();
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let mut r = TextRenderer::new(&device, &atlas, format, Default::default(), None);
    // The bitmap paths (sampled, tiled, oversized): the outline path has
    // tests of its own (tests/gpu/outlines.rs).
    r.set_outline_policy(OutlinePolicy::NEVER);
    let mut vp = Viewport::new(&device, &atlas);
    vp.update(&queue, w, h);
    vp.set_correction(&queue, TextCorrection::NEUTRAL).unwrap();
    (device, queue, atlas, font, r, vp)
}

const CELL: u32 = 36;
const PER_ROW: u32 = 12;
const RENDERERS: usize = 8;

/// `PER_ROW` random glyphs for renderer `r`, one per cell of its row, at whole-pixel pens.
fn row_glyphs(rng: &mut Rng, cache: &GlyphCache, font: FontId, r: usize) -> Vec<PositionedGlyph> {
    let f = cache.fonts().get(font).unwrap();
    (0..PER_ROW)
        .map(|i| {
            let c = loop {
                let c = char::from_u32(0x21 + rng.below(0x17f - 0x21) as u32).unwrap_or('x');
                if f.glyph_index(c) != 0 {
                    break c;
                }
            };
            PositionedGlyph {
                font,
                glyph: f.glyph_index(c),
                size: [12.0, 14.0, 16.0, 18.0, 20.0, 22.0][rng.below(6) as usize],
                x: (i * CELL + 6) as f32,
                y: (r as u32 * CELL + 26) as f32,
                color: [255, 255, 255, 255],
            }
        })
        .collect()
}

/// Eight renderers share a one-page atlas under eviction pressure and draw
/// in one submit per frame; every frame's target must equal a CPU composite
/// of fresh rasters of the glyphs each renderer drew. Each frame asks for a
/// little more than the page holds. With one cache frame per `prepare` (no
/// `begin_frame`), a later renderer's prepare evicts and overwrites slots an
/// earlier one's instances read in the same submit (wrong glyphs on screen;
/// this test fails that way); with the app frame, the glyphs that find no
/// room are skipped and reported, and every drawn glyph is right.
#[test]
fn eight_renderers_share_one_atlas_in_one_submit() {
    let (device, queue) = gpu();
    let cfg =
        CacheConfig { page_size: 144, max_pages: 1, frames_in_flight: 0, ..CacheConfig::default() };
    let mut atlas = TextAtlas::new(&device, cfg).unwrap();
    let font = atlas.add_font(sans()).unwrap();
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let (w, h) = (PER_ROW * CELL, RENDERERS as u32 * CELL);
    let mut renderers: Vec<TextRenderer> = (0..RENDERERS)
        .map(|_| TextRenderer::new(&device, &atlas, format, Default::default(), None))
        .collect();
    let mut vp = Viewport::new(&device, &atlas);
    vp.update(&queue, w, h);
    vp.set_correction(&queue, TextCorrection::NEUTRAL).unwrap();
    let target = Offscreen::new(&device, w, h, format).unwrap();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut skipped, mut drawn) = (0, 0);
    for frame in 0..40 {
        let first = atlas.begin_frame().unwrap();
        let mut all = Vec::new();
        for (r, renderer) in renderers.iter_mut().enumerate() {
            let glyphs = row_glyphs(&mut rng, atlas.cache(), font, r);
            let rep = renderer
                .prepare(&device, &queue, &mut atlas, &[TextArea::glyphs(&glyphs, 0.0, 0.0)], &vp)
                .unwrap();
            assert_eq!(rep.frame, first + 1, "every prepare of the frame joins one cache frame");
            // A frame asks for a little more than the page holds: the glyphs
            // that find no room are skipped and reported (never drawn wrong).
            assert!(
                rep.skipped.iter().all(|s| s.reason == kerf_cache::GlyphError::AtlasFull),
                "{:?}",
                rep.skipped
            );
            skipped += rep.skipped.len();
            all.extend(
                glyphs
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| rep.skipped.iter().all(|s| s.index != *i))
                    .map(|(_, g)| *g),
            );
        }
        let mut enc = device.create_command_encoder(&Default::default());
        {
            let mut pass = target.pass(&mut enc, wgpu::Color::BLACK);
            for renderer in &renderers {
                renderer.render(&atlas, &mut pass).unwrap();
            }
        }
        queue.submit([enc.finish()]);
        assert_eq!(atlas.end_frame().unwrap(), first + 1);
        drawn += all.len();
        let px = target.read(&device, &queue).unwrap();
        let expect = expected_coverage(atlas.cache(), &all, w, h);
        let mut worst = (0i32, 0u32, 0u32);
        for (i, &e) in expect.iter().enumerate() {
            let d = (px[i * 4] as i32 - e as i32).abs();
            if d > worst.0 {
                worst = (d, i as u32 % w, i as u32 / w);
            }
        }
        assert!(
            worst.0 <= 2,
            "frame {frame}: pixel {:?} differs by {}",
            (worst.1, worst.2),
            worst.0
        );
    }
    assert!(
        atlas.cache().stats().evictions > 500,
        "the run must evict: {:?}",
        atlas.cache().stats()
    );
    assert!(skipped * 10 < drawn, "most glyphs drawn: {drawn} drawn, {skipped} skipped");
    atlas.cache().check_invariants().unwrap();
}

#[test]
fn frame_misuse_is_a_typed_error() {
    let (device, queue) = gpu();
    let mut atlas =
        TextAtlas::new(&device, CacheConfig { page_size: 64, ..CacheConfig::default() }).unwrap();
    let font = atlas.add_font(sans()).unwrap();
    assert_eq!(atlas.end_frame(), Err(UsageError::FrameNotOpen));
    assert!(!atlas.frame_open(), "no frame before begin_frame");
    assert_eq!(atlas.begin_frame(), Ok(0));
    assert_eq!(atlas.begin_frame(), Err(UsageError::FrameAlreadyOpen));
    assert!(atlas.frame_open(), "the open frame goes on");
    let mut r = TextRenderer::new(
        &device,
        &atlas,
        wgpu::TextureFormat::Rgba8Unorm,
        Default::default(),
        None,
    );
    let vp = Viewport::new(&device, &atlas);
    for _ in 0..3 {
        r.prepare(
            &device,
            &queue,
            &mut atlas,
            &[TextArea::text(TextSpec::new("abc", font, 12.0), 0.0, 0.0)],
            &vp,
        )
        .unwrap();
    }
    assert_eq!(atlas.end_frame(), Ok(1), "three prepares, one frame");
    assert!(!atlas.frame_open(), "no frame after end_frame");
    // Outside an app frame each prepare is a frame of its own, as before.
    r.prepare(
        &device,
        &queue,
        &mut atlas,
        &[TextArea::text(TextSpec::new("abc", font, 12.0), 0.0, 0.0)],
        &vp,
    )
    .unwrap();
    r.prepare(
        &device,
        &queue,
        &mut atlas,
        &[TextArea::text(TextSpec::new("abc", font, 12.0), 0.0, 0.0)],
        &vp,
    )
    .unwrap();
    assert_eq!(atlas.cache().frame_number(), 3);
}

/// Runs `frames` frames of churn (new glyphs every frame on a small atlas) and
/// returns, per frame, (bytes rasterized, bytes uploaded, page writes).
fn churn(
    device: &wgpu::Device, queue: &wgpu::Queue, atlas: &mut TextAtlas, font: FontId, frames: usize,
    seed: u64,
) -> Vec<(u64, u64, u32)> {
    let mut r =
        TextRenderer::new(device, atlas, wgpu::TextureFormat::Rgba8Unorm, Default::default(), None);
    let vp = Viewport::new(device, atlas);
    let mut rng = Rng(seed);
    let mut out = Vec::new();
    for _ in 0..frames {
        let text: String = (0..40)
            .map(|_| char::from_u32(0x21 + rng.below(0x52f - 0x21) as u32).unwrap_or('x'))
            .collect();
        let size = [11.0, 13.0, 15.5, 18.0, 24.0][rng.below(5) as usize];
        let before = atlas.cache().stats().rasterized_bytes;
        let rep = r
            .prepare(
                device,
                queue,
                atlas,
                &[TextArea::text(TextSpec::new(&text, font, size).wrap(500.0), 0.0, 0.0)],
                &vp,
            )
            .unwrap();
        out.push((
            atlas.cache().stats().rasterized_bytes - before,
            rep.upload_bytes,
            rep.upload_calls,
        ));
    }
    out
}

/// An atlas of `max_pages` pages of `page_size`² uploading by `uploads`,
/// after `frames` frames of [`churn`], its layers checked against its pages;
/// and those frames' (rasterized, uploaded, calls).
fn churned(
    device: &wgpu::Device, queue: &wgpu::Queue, page_size: u32, max_pages: u32,
    (uploads, whole_box_bytes): (kerf_cache::UploadMode, Option<u64>), frames: usize, seed: u64,
) -> (TextAtlas, Vec<(u64, u64, u32)>) {
    let cfg = CacheConfig {
        page_size,
        max_pages,
        frames_in_flight: 1,
        uploads,
        whole_box_bytes,
        ..CacheConfig::default()
    };
    let mut atlas = TextAtlas::new(device, cfg).unwrap();
    let font = atlas.add_font(sans()).unwrap();
    let frames = churn(device, queue, &mut atlas, font, frames, seed);
    check_atlas(device, queue, &atlas);
    (atlas, frames)
}

/// Per-glyph uploads: each frame uploads at most 1.25× the bytes it
/// rasterized, in one buffer write and at most one draw per dirty page, and
/// every layer equals the cache's pages byte for byte; dirty rectangles, on
/// the same workload, upload several times more.
#[test]
fn uploads_are_sized_to_what_changed() {
    let (device, queue) = gpu();
    let mut totals = Vec::new();
    let mut auto_writes = (0u64, 0u64);
    // The GPU's limit, whatever the adapter: boxes of at most 256 KiB whole.
    let gpu_limit = Some(kerf_cache::pages::WHOLE_BOX_BYTES);
    for mode in [
        kerf_cache::UploadMode::Glyphs,
        kerf_cache::UploadMode::DirtyRect,
        kerf_cache::UploadMode::Auto,
    ] {
        let (atlas, frames) = churned(&device, &queue, 256, 3, (mode, gpu_limit), 80, 7);
        assert!(atlas.cache().stats().evictions > 200, "{mode:?}: the run must churn");
        if mode == kerf_cache::UploadMode::Glyphs {
            for (i, &(raster, upload, calls)) in frames.iter().enumerate() {
                assert!(
                    upload as f64 <= 1.25 * raster as f64 + 4.0,
                    "frame {i}: uploaded {upload} bytes for {raster} rasterized"
                );
                assert!(
                    calls <= atlas.cache().pages().len() as u32,
                    "frame {i}: {calls} page writes"
                );
            }
        }
        if mode == kerf_cache::UploadMode::Auto {
            let gs = atlas.gpu_stats();
            auto_writes = (gs.buffer_writes, gs.upload_calls);
        }
        let raster: u64 = frames.iter().map(|f| f.0).sum();
        let upload: u64 = frames.iter().map(|f| f.1).sum();
        totals.push((raster, upload));
    }
    let (glyphs, dirty, auto) = (totals[0], totals[1], totals[2]);
    // Auto on 256² pages: every dirty box is at most 64 KiB, below the
    // GPU's limit (256 KiB), so it uploads what dirty rectangles do and
    // never scatters (the layers equal the pages: checked above).
    assert_eq!(auto, dirty, "small boxes go whole");
    assert_eq!(auto_writes.0, 0, "no scatter for small boxes: {auto_writes:?}");
    assert_eq!(glyphs.0, dirty.0, "same workload, same rasters");
    assert!(dirty.1 > 2 * glyphs.1, "dirty rectangles upload more: {dirty:?} vs {glyphs:?}");
    // On one 1024² page the churn's dirty boxes span most of the page:
    // with a GPU's limit (boxes of at most 256 KiB whole), Auto sends the
    // first, dense frames as boxes and the churn glyph by glyph, and
    // uploads less than dirty rectangles on the same workload.
    let run = |uploads| {
        let (atlas, frames) = churned(&device, &queue, 1024, 1, uploads, 400, 11);
        assert!(atlas.cache().stats().evictions > 1000, "{uploads:?}: the run must churn");
        let upload: u64 = frames.iter().map(|f| f.1).sum();
        (upload, atlas.gpu_stats().buffer_writes, atlas.gpu_stats().upload_calls)
    };
    let auto = run((kerf_cache::UploadMode::Auto, gpu_limit));
    let dirty = run((kerf_cache::UploadMode::DirtyRect, None));
    assert!(auto.1 > 0, "the churn went glyph by glyph (scatter buffer writes): {auto:?}");
    assert!(auto.2 > auto.1, "some pages went as boxes: {auto:?}");
    assert!(auto.0 < dirty.0, "auto uploads less than dirty rectangles: {auto:?} vs {dirty:?}");
    // Left to the atlas, the limit follows the adapter: on a software one
    // (lavapipe), where a scatter pass is a render pass the CPU runs, boxes
    // of up to 1.5 MiB go whole, so this page (1 MiB) is never scattered;
    // on a GPU the churn is.
    let own = run((kerf_cache::UploadMode::Auto, None));
    let software = device.adapter_info().device_type == wgpu::DeviceType::Cpu;
    assert_eq!(own.1 == 0, software, "software adapter: {software}; uploads {own:?}");
    if software {
        assert_eq!(own.0, dirty.0, "every box whole: {own:?} vs {dirty:?}");
    }
}

/// A page released and added again reuses a texture layer that still holds
/// old texels (the array is not shrunk while more than half its layers are
/// in use): the scatter clears it before writing the new glyphs.
#[test]
fn a_reused_layer_is_cleared_before_new_glyphs_land() {
    let (device, queue) = gpu();
    let cfg = CacheConfig {
        page_size: 64,
        max_pages: 4,
        min_pages: 3,
        release_idle_after: Some(2),
        frames_in_flight: 0,
        ..CacheConfig::default()
    };
    let mut atlas = TextAtlas::new(&device, cfg).unwrap();
    let font = atlas.add_font(sans()).unwrap();
    let mut r = TextRenderer::new(
        &device,
        &atlas,
        wgpu::TextureFormat::Rgba8Unorm,
        Default::default(),
        None,
    );
    let vp = Viewport::new(&device, &atlas);
    let big = |s| TextArea::text(TextSpec::new("ABCDEFGHIJKLMNOPQRSTUVWXYZ", font, s), 0.0, 0.0);
    for size in [22.0, 26.0, 30.0] {
        r.prepare(&device, &queue, &mut atlas, &[big(size)], &vp).unwrap();
    }
    assert_eq!(atlas.cache().pages().len(), 4);
    for _ in 0..8 {
        r.prepare(
            &device,
            &queue,
            &mut atlas,
            &[TextArea::text(TextSpec::new("ok", font, 12.0), 0.0, 0.0)],
            &vp,
        )
        .unwrap();
    }
    assert_eq!(atlas.cache().pages().len(), 3, "the last page released");
    assert_eq!(atlas.layers(), 4, "its layer kept, old texels and all");
    let layers = read_layers(&device, &queue, &atlas);
    assert!(layers[3].iter().any(|&t| t != 0), "the kept layer holds old texels");
    // Glyphs enough to add the fourth page again.
    for size in [23.0, 27.0, 31.0] {
        r.prepare(&device, &queue, &mut atlas, &[big(size)], &vp).unwrap();
    }
    assert_eq!(atlas.cache().pages().len(), 4);
    check_atlas(&device, &queue, &atlas);
}

/// A 600 px glyph on 256 px pages is drawn (in tiles), texel for pixel, next
/// to ordinary glyphs: the target equals a CPU composite of fresh rasters.
#[test]
fn a_600_px_glyph_is_drawn_on_256_px_pages() {
    let (w, h) = (760u32, 640u32);
    let config = CacheConfig { page_size: 256, max_pages: 8, ..CacheConfig::default() };
    let (device, queue, mut atlas, font, mut r, vp) = neutral_rig(config, w, h);
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let f = atlas.cache().fonts().get(font).unwrap().clone();
    let g = |c: char, size: f32, x: f32, y: f32| PositionedGlyph {
        font,
        glyph: f.glyph_index(c),
        size,
        x,
        y,
        color: [255; 4],
    };
    let glyphs =
        [g('W', 600.0, 10.0, 520.0), g('k', 20.0, 700.0, 600.0), g('é', 24.0, 660.0, 600.0)];
    let target = Offscreen::new(&device, w, h, format).unwrap();
    for round in 0..2 {
        let rep = r
            .prepare(&device, &queue, &mut atlas, &[TextArea::glyphs(&glyphs, 0.0, 0.0)], &vp)
            .unwrap();
        assert!(rep.skipped.is_empty(), "{:?}", rep.skipped);
        assert!(rep.instances > 10, "the big glyph is several tiles: {} instances", rep.instances);
        if round == 1 {
            assert_eq!(rep.counts.hits, rep.counts.lookups, "cached in tiles");
        }
        let px = draw_and_read(&device, &queue, &r, &atlas, &target, wgpu::Color::BLACK);
        let expect = expected_coverage(atlas.cache(), &glyphs, w, h);
        let worst = expect
            .iter()
            .enumerate()
            .map(|(i, &e)| (px[i * 4] as i32 - e as i32).abs())
            .max()
            .unwrap();
        assert!(worst <= 2, "round {round}: worst difference {worst}");
        assert!(expect.iter().filter(|&&c| c > 128).count() > 20_000, "the big glyph is inked");
    }
    assert!(atlas.cache().pages().len() >= 3, "its tiles span several pages");
    check_atlas(&device, &queue, &atlas);
}

/// An icon row from an image source is drawn like text; glyphs push the
/// icons out of a small atlas; asked for again, the source renders them again
/// and the target shows them right.
#[test]
fn icons_are_drawn_evicted_and_requested_again() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    let (device, queue) = gpu();
    let mut atlas = TextAtlas::new(
        &device,
        CacheConfig { page_size: 128, max_pages: 1, frames_in_flight: 0, ..CacheConfig::default() },
    )
    .unwrap();
    let font = atlas.add_font(sans()).unwrap();
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = calls.clone();
    let src = atlas
        .add_image_source(move |id: u32, size: f32| {
            counter.fetch_add(1, Ordering::Relaxed);
            Ok(diamond(id, size))
        })
        .unwrap();
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let mut r = TextRenderer::new(&device, &atlas, format, Default::default(), None);
    let (w, h) = (200u32, 40u32);
    let mut vp = Viewport::new(&device, &atlas);
    vp.update(&queue, w, h);
    vp.set_correction(&queue, TextCorrection::NEUTRAL).unwrap();
    let icons: Vec<PositionedImage> = (0..5)
        .map(|i| PositionedImage {
            source: src,
            id: i,
            size: 24.0,
            x: 8.0 + 36.0 * i as f32,
            y: 32.0,
            color: [255; 4],
        })
        .collect();
    let target = Offscreen::new(&device, w, h, format).unwrap();
    let draw = |r: &mut TextRenderer, atlas: &mut TextAtlas| {
        let rep =
            r.prepare(&device, &queue, atlas, &[TextArea::images(&icons, 0.0, 0.0)], &vp).unwrap();
        assert!(rep.skipped.is_empty(), "{:?}", rep.skipped);
        let px = draw_and_read(&device, &queue, r, atlas, &target, wgpu::Color::BLACK);
        let mut worst = 0;
        for icon in &icons {
            let img = diamond(icon.id, 24.0);
            let (x0, y0) = (icon.x as u32, icon.y as u32 - 24);
            for y in 0..24 {
                for x in 0..24 {
                    let got = px[(((y0 + y) * w + x0 + x) * 4) as usize] as i32;
                    worst = worst.max((got - img.pixels[(y * 24 + x) as usize] as i32).abs());
                }
            }
        }
        assert!(worst <= 2, "icons differ by {worst}");
    };
    draw(&mut r, &mut atlas);
    assert_eq!(calls.load(Ordering::Relaxed), 5);
    // Text at growing sizes pushes the icons out.
    let key =
        kerf_cache::GlyphKey::image(src, 0, kerf_cache::GlyphSize::from_px(24.0, 1024.0).unwrap());
    let mut size = 18.0;
    while atlas.cache().peek(&key).is_some() {
        r.prepare(
            &device,
            &queue,
            &mut atlas,
            &[TextArea::text(TextSpec::new("ABCDEFGHIJKLMN", font, size), 0.0, 0.0)],
            &vp,
        )
        .unwrap();
        size += 2.0;
        assert!(size < 100.0, "the icons must be evicted");
    }
    draw(&mut r, &mut atlas);
    assert!(calls.load(Ordering::Relaxed) > 5, "evicted icons are rendered again");
    check_atlas(&device, &queue, &atlas);
}
