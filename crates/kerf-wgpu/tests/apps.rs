//! kerf-wgpu the way real apps use it (lavapipe in CI): many renderers
//! sharing one atlas in one submit.

mod common;

use common::*;
use kerf_cache::{GlyphKey, GlyphSize};
use kerf_wgpu::*;

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
                if f.lookup_glyph_index(c) != 0 {
                    break c;
                }
            };
            PositionedGlyph {
                font,
                glyph: f.lookup_glyph_index(c),
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
    let target = Offscreen::new(&device, w, h, format);
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
    assert_eq!(atlas.end_frame(), Err(FrameError::NotOpen));
    assert_eq!(atlas.begin_frame(), Ok(0));
    assert_eq!(atlas.begin_frame(), Err(FrameError::AlreadyOpen));
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

/// Per-glyph uploads: each frame uploads at most 1.25× the bytes it
/// rasterized, in one buffer write and at most one draw per dirty page, and
/// every layer equals the cache's pages byte for byte; dirty rectangles, on
/// the same workload, upload several times more.
#[test]
fn uploads_are_sized_to_what_changed() {
    let (device, queue) = gpu();
    let mut totals = Vec::new();
    let mut auto_writes = (0u64, 0u64);
    for mode in [
        kerf_cache::UploadMode::Glyphs,
        kerf_cache::UploadMode::DirtyRect,
        kerf_cache::UploadMode::Auto,
    ] {
        let cfg = CacheConfig {
            page_size: 256,
            max_pages: 3,
            frames_in_flight: 1,
            uploads: mode,
            ..CacheConfig::default()
        };
        let mut atlas = TextAtlas::new(&device, cfg).unwrap();
        let font = atlas.add_font(sans()).unwrap();
        let frames = churn(&device, &queue, &mut atlas, font, 80, 7);
        check_atlas(&device, &queue, &atlas);
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
    // Auto: the layers equal the pages (checked above); the first, dense
    // frames go as boxes and the churn as glyphs, so it uses both paths and
    // uploads no more than dirty rectangles.
    assert!(
        auto_writes.0 > 0,
        "the churn went glyph by glyph (scatter buffer writes): {auto_writes:?}"
    );
    assert!(auto.1 > glyphs.1, "some pages went as boxes: {auto:?} vs {glyphs:?}");
    assert!(auto.1 < dirty.1, "auto uploads less than dirty rectangles: {auto:?} vs {dirty:?}");
    assert_eq!(glyphs.0, dirty.0, "same workload, same rasters");
    assert!(dirty.1 > 2 * glyphs.1, "dirty rectangles upload more: {dirty:?} vs {glyphs:?}");
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
    let (device, queue) = gpu();
    let mut atlas = TextAtlas::new(
        &device,
        CacheConfig { page_size: 256, max_pages: 8, ..CacheConfig::default() },
    )
    .unwrap();
    let font = atlas.add_font(sans()).unwrap();
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let mut r = TextRenderer::new(&device, &atlas, format, Default::default(), None);
    let (w, h) = (760u32, 640u32);
    let mut vp = Viewport::new(&device, &atlas);
    vp.update(&queue, w, h);
    vp.set_correction(&queue, TextCorrection::NEUTRAL).unwrap();
    let f = atlas.cache().fonts().get(font).unwrap().clone();
    let g = |c: char, size: f32, x: f32, y: f32| PositionedGlyph {
        font,
        glyph: f.lookup_glyph_index(c),
        size,
        x,
        y,
        color: [255; 4],
    };
    let glyphs =
        [g('W', 600.0, 10.0, 520.0), g('k', 20.0, 700.0, 600.0), g('é', 24.0, 660.0, 600.0)];
    let target = Offscreen::new(&device, w, h, format);
    for round in 0..2 {
        let rep = r
            .prepare(&device, &queue, &mut atlas, &[TextArea::glyphs(&glyphs, 0.0, 0.0)], &vp)
            .unwrap();
        assert!(rep.skipped.is_empty(), "{:?}", rep.skipped);
        assert!(rep.instances > 10, "the big glyph is several tiles: {} instances", rep.instances);
        if round == 1 {
            assert_eq!(rep.hits, rep.lookups, "cached in tiles");
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
    let target = Offscreen::new(&device, w, h, format);
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

/// Column-major 4×4 product `a · b`.
fn mat_mul(a: [[f32; 4]; 4], b: [[f32; 4]; 4]) -> [[f32; 4]; 4] {
    let mut m = [[0.0; 4]; 4];
    for (c, col) in m.iter_mut().enumerate() {
        for (r, v) in col.iter_mut().enumerate() {
            *v = (0..4).map(|k| a[k][r] * b[c][k]).sum();
        }
    }
    m
}

/// The 3×3 homography from area pixels `(x, y, 1)` to homogeneous target pixels.
fn area_to_target(t: &TextTransform, w: f32, h: f32) -> [[f64; 3]; 3] {
    match *t {
        TextTransform::Affine([a, b, c, d, e, f]) => {
            [[a, c, e], [b, d, f], [0.0, 0.0, 1.0]].map(|r| r.map(f64::from))
        }
        TextTransform::Matrix { matrix: m, .. } => {
            // Rows x, y, w of the matrix, columns x, y and translation (z = 0).
            let hm = [
                [m[0][0], m[1][0], m[3][0]],
                [m[0][1], m[1][1], m[3][1]],
                [m[0][3], m[1][3], m[3][3]],
            ];
            let s = [[w / 2.0, 0.0, w / 2.0], [0.0, -h / 2.0, h / 2.0], [0.0, 0.0, 1.0]];
            std::array::from_fn(|r| {
                std::array::from_fn(|c| (0..3).map(|k| s[r][k] as f64 * hm[k][c] as f64).sum())
            })
        }
    }
}

fn invert3(m: [[f64; 3]; 3]) -> [[f64; 3]; 3] {
    let det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
        - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
        + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    std::array::from_fn(|r| {
        std::array::from_fn(|c| {
            let (r1, r2) = ((c + 1) % 3, (c + 2) % 3);
            let (c1, c2) = ((r + 1) % 3, (r + 2) % 3);
            (m[r1][c1] * m[r2][c2] - m[r1][c2] * m[r2][c1]) / det
        })
    })
}

/// What a linear target shows for white sampled quads over black, computed
/// on the CPU: each pixel centre mapped back into area space, bilinear
/// samples of the page clamped to the slot's texel centres, composited in order.
fn reference(
    atlas: &TextAtlas, quads: &[SampledQuad], t: &TextTransform, w: u32, h: u32,
) -> Vec<f32> {
    let inv = invert3(area_to_target(t, w as f32, h as f32));
    let side = atlas.cache().page_side() as i64;
    let mut img = vec![0.0f32; (w * h) as usize];
    for (i, p) in img.iter_mut().enumerate() {
        let (px, py) = ((i as u32 % w) as f64 + 0.5, (i as u32 / w) as f64 + 0.5);
        let v = [0, 1, 2].map(|r| inv[r][0] * px + inv[r][1] * py + inv[r][2]);
        let (ax, ay) = (v[0] / v[2], v[1] / v[2]);
        for q in quads {
            let (fx, fy) = (
                (ax - q.pos[0] as f64) / q.size[0] as f64,
                (ay - q.pos[1] as f64) / q.size[1] as f64,
            );
            if !(0.0..1.0).contains(&fx) || !(0.0..1.0).contains(&fy) {
                continue;
            }
            let page = atlas.cache().pages()[q.page as usize].pixels();
            let texel = |x: i64, y: i64| {
                page[(y.clamp(0, side - 1) * side + x.clamp(0, side - 1)) as usize] as f64 / 255.0
            };
            let (tx, ty) = (q.tex[0] as f64, q.tex[1] as f64);
            let u = (tx + fx * q.tex_size[0] as f64)
                .clamp(tx + 0.5, tx + q.tex_size[0] as f64 - 0.5)
                - 0.5;
            let v = (ty + fy * q.tex_size[1] as f64)
                .clamp(ty + 0.5, ty + q.tex_size[1] as f64 - 0.5)
                - 0.5;
            let (x0, y0) = (u.floor() as i64, v.floor() as i64);
            let (a, b) = (u - u.floor(), v - v.floor());
            let c = texel(x0, y0) * (1.0 - a) * (1.0 - b)
                + texel(x0 + 1, y0) * a * (1.0 - b)
                + texel(x0, y0 + 1) * (1.0 - a) * b
                + texel(x0 + 1, y0 + 1) * a * b;
            *p = (c + *p as f64 * (1.0 - c)) as f32;
        }
    }
    img
}

/// The quads a transformed string must draw, built without the renderer:
/// the string's pens on the baseline (its layout at the area's place), and
/// each glyph's entry cached at the on-screen size (the font size times the
/// transform's largest stretch, within the raster limit), its bitmap at the
/// pen plus its bearings, `k` texels to an area pixel.
fn quads_from_pens(
    atlas: &mut TextAtlas, spec: TextSpec<'_>, left: f32, top: f32, t: &TextTransform,
) -> Vec<SampledQuad> {
    let mut pens = Vec::new();
    atlas.cache_mut().positions(&spec.at(left + spec.x, top + spec.y), &mut pens).expect("pens");
    let size = GlyphSize::from_px(
        (spec.size * t.raster_scale()).min(TRANSFORMED_RASTER_LIMIT_PX),
        f32::MAX,
    )
    .expect("size");
    let k = size.px() / spec.size;
    let mut quads = Vec::new();
    for p in pens {
        let key = GlyphKey {
            mode: kerf_cache::RenderMode::Sampled,
            ..GlyphKey::new(p.font, p.glyph, size)
        };
        let e = atlas
            .cache()
            .peek(&key)
            .unwrap_or_else(|| panic!("{key:?} cached for the transformed area"));
        if e.is_blank() {
            continue;
        }
        quads.push(SampledQuad {
            pos: [p.x + e.left as f32 / k, p.y - e.top as f32 / k],
            size: [e.width as f32 / k, e.height as f32 / k],
            tex: [e.x, e.y],
            tex_size: [e.width, e.height],
            page: e.page,
            color: p.color,
        });
    }
    quads
}

/// A rotated area, a sheared and scaled one, and one in 3D (perspective), each
/// compared with a CPU reference of the same quads; the axis-aligned path
/// stays texel for pixel.
#[test]
fn rotated_and_3d_areas_match_a_cpu_reference() {
    let (device, queue) = gpu();
    let mut atlas =
        TextAtlas::new(&device, CacheConfig { page_size: 512, ..CacheConfig::default() }).unwrap();
    let font = atlas.add_font(sans()).unwrap();
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let mut r = TextRenderer::new(&device, &atlas, format, Default::default(), None);
    let (w, h) = (320u32, 200u32);
    let mut vp = Viewport::new(&device, &atlas);
    vp.update(&queue, w, h);
    vp.set_correction(&queue, TextCorrection::NEUTRAL).unwrap();
    let spec = TextSpec::new("Kerf turns: Wq&@ 0123", font, 22.0).color([255; 4]);
    // 3D: the text plane turned 50° about the vertical axis, seen in perspective.
    let (cx, cy) = (110.0, 12.0);
    let centre = [
        [0.01, 0.0, 0.0, 0.0],
        [0.0, -0.01, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        [-cx * 0.01, cy * 0.01, 0.0, 1.0],
    ];
    let (s, c) = 50f32.to_radians().sin_cos();
    let turn = [[c, 0.0, -s, 0.0], [0.0, 1.0, 0.0, 0.0], [s, 0.0, c, 0.0], [0.0, 0.0, -2.2, 1.0]];
    let (f, aspect, near, far) = (1.0 / 30f32.to_radians().tan(), w as f32 / h as f32, 0.1, 10.0);
    let proj = [
        [f / aspect, 0.0, 0.0, 0.0],
        [0.0, f, 0.0, 0.0],
        [0.0, 0.0, far / (near - far), -1.0],
        [0.0, 0.0, near * far / (near - far), 0.0],
    ];
    let matrix = mat_mul(proj, mat_mul(turn, centre));
    for (name, t) in [
        ("rotated 30°", TextTransform::rotation_about(30f32.to_radians(), 110.0, 12.0)),
        ("skewed and scaled", TextTransform::Affine([1.1, 0.0, -0.5, 2.0, 30.0, -110.0])),
        ("3D perspective", TextTransform::Matrix { matrix, raster_scale: 1.0 }),
    ] {
        let area = TextArea::text(spec, 40.0, 80.0).transformed(t);
        let rep = r.prepare(&device, &queue, &mut atlas, &[area], &vp).unwrap();
        assert!(rep.skipped.is_empty(), "{name}: {:?}", rep.skipped);
        assert_eq!(rep.instances, 0, "{name}: no axis-aligned quads");
        let quads = quads_from_pens(&mut atlas, spec, 40.0, 80.0, &t);
        assert_eq!(quads.len(), spec.text.chars().filter(|c| *c != ' ').count(), "{name}");
        let drawn = r.transformed_instances();
        assert_eq!(drawn.len(), quads.len(), "{name}");
        for (d, q) in drawn.iter().zip(&quads) {
            let close = |a: [f32; 2], b: [f32; 2]| {
                (a[0] - b[0]).abs() <= 1e-3 && (a[1] - b[1]).abs() <= 1e-3
            };
            assert!(
                close(d.pos, q.pos)
                    && close(d.size, q.size)
                    && (d.tex, d.tex_size, d.page) == (q.tex, q.tex_size, q.page),
                "{name}: drew {d:?}, the pens say {q:?}"
            );
        }
        let target = Offscreen::new(&device, w, h, format);
        let px = draw_and_read(&device, &queue, &r, &atlas, &target, wgpu::Color::BLACK);
        let expect = reference(&atlas, &quads, &t, w, h);
        let (mut close, mut sum_gpu, mut sum_cpu, mut inked) = (0usize, 0f64, 0f64, 0usize);
        for (i, e) in expect.iter().enumerate() {
            let got = px[i * 4] as f32 / 255.0;
            if (got - e).abs() <= 4.0 / 255.0 {
                close += 1;
            }
            sum_gpu += got as f64;
            sum_cpu += *e as f64;
            if *e > 0.5 {
                inked += 1;
            }
        }
        let n = expect.len();
        assert!(inked > 300, "{name}: the text must be visible ({inked} inked pixels)");
        assert!(
            close as f64 >= 0.995 * n as f64,
            "{name}: only {close} of {n} pixels within 4/255 of the reference"
        );
        assert!(
            (sum_gpu - sum_cpu).abs() <= 0.01 * sum_cpu,
            "{name}: total ink {sum_gpu:.1} vs {sum_cpu:.1}"
        );
    }
    // Zoomed past the raster limit: rasterized at the limit, sampled up.
    let zoom = TextArea::text(TextSpec::new("Z", font, 80.0).color([255; 4]), 0.0, 0.0)
        .transformed(TextTransform::Affine([5.0, 0.0, 0.0, 5.0, 0.0, 0.0]));
    r.prepare(&device, &queue, &mut atlas, &[zoom], &vp).unwrap();
    let sizes: Vec<f32> = atlas
        .cache()
        .entries()
        .filter(|(k, _)| k.mode == kerf_cache::RenderMode::Sampled)
        .map(|(k, _)| k.size.px())
        .collect();
    assert!(sizes.contains(&TRANSFORMED_RASTER_LIMIT_PX), "{sizes:?}");
    let q = r.transformed_instances()[0];
    assert!(
        (q.size[0] * TRANSFORMED_RASTER_LIMIT_PX / 80.0 - q.tex_size[0] as f32).abs() < 0.01,
        "drawn at 80 px in area space: {q:?}"
    );
    // Bad transforms are refused before anything changes.
    let frames = atlas.cache().stats().frames;
    let bad = TextArea::text(spec, 0.0, 0.0)
        .transformed(TextTransform::Affine([1.0, 2.0, 2.0, 4.0, 0.0, 0.0]));
    assert_eq!(
        r.prepare(&device, &queue, &mut atlas, &[bad], &vp).unwrap_err(),
        PrepareError::Transform { area: 0 }
    );
    assert_eq!(atlas.cache().stats().frames, frames);
    check_atlas(&device, &queue, &atlas);
}

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
    let target = Offscreen::new(&device, w, h, format);
    let draw = |r: &mut TextRenderer, atlas: &mut TextAtlas, ids: &[u32]| -> Vec<u8> {
        let images: Vec<PositionedImage> = ids
            .iter()
            .enumerate()
            .map(|(i, &id)| PositionedImage {
                source: src,
                id,
                size: 20.0,
                x: 4.0 + 24.0 * i as f32,
                y: 24.0,
                color: [0, 0, 0, 255],
            })
            .collect();
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
        let mut worst = 0i32;
        for (i, &id) in ids.iter().enumerate() {
            let img = picture(id, 20.0);
            let (x0, y0) = (4 + 24 * i as u32, 4u32);
            for y in 0..20 {
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
    let layers = read_texture(&device, &queue, atlas.color_texture()).unwrap();
    let set = atlas.cache().color_pages().unwrap();
    let page_bytes = 64 * 64 * 4;
    for (i, page) in set.pages().iter().enumerate() {
        assert!(
            &layers[i * page_bytes..][..page_bytes] == page.pixels(),
            "colour layer {i} differs from the cache's page"
        );
    }
    atlas.cache().check_invariants().unwrap();
}

/// A glyph whose tiles would need more than the whole atlas (a 700 px 'W' on
/// two 256 px pages) is still drawn: from a smaller raster, sampled up. It
/// matches the full-size raster in 16 px blocks.
#[test]
fn a_glyph_larger_than_the_whole_atlas_is_drawn_from_a_smaller_raster() {
    let (device, queue) = gpu();
    let mut atlas = TextAtlas::new(
        &device,
        CacheConfig { page_size: 256, max_pages: 2, ..CacheConfig::default() },
    )
    .unwrap();
    let font = atlas.add_font(sans()).unwrap();
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let mut r = TextRenderer::new(&device, &atlas, format, Default::default(), None);
    let (w, h) = (760u32, 640u32);
    let mut vp = Viewport::new(&device, &atlas);
    vp.update(&queue, w, h);
    vp.set_correction(&queue, TextCorrection::NEUTRAL).unwrap();
    let f = atlas.cache().fonts().get(font).unwrap().clone();
    let glyphs = [
        PositionedGlyph {
            font,
            glyph: f.lookup_glyph_index('W'),
            size: 700.0,
            x: 10.0,
            y: 560.0,
            color: [255; 4],
        },
        PositionedGlyph {
            font,
            glyph: f.lookup_glyph_index('k'),
            size: 20.0,
            x: 720.0,
            y: 620.0,
            color: [255; 4],
        },
    ];
    let rep = r
        .prepare(&device, &queue, &mut atlas, &[TextArea::glyphs(&glyphs, 0.0, 0.0)], &vp)
        .unwrap();
    assert!(rep.skipped.is_empty(), "never refused: {:?}", rep.skipped);
    assert_eq!(rep.instances, 1, "the small glyph texel for pixel");
    assert!(!r.transformed_instances().is_empty(), "the big one sampled");
    let target = Offscreen::new(&device, w, h, format);
    let px = draw_and_read(&device, &queue, &r, &atlas, &target, wgpu::Color::BLACK);
    let full = expected_coverage(atlas.cache(), &glyphs, w, h);
    let (mut worst, mut inked) = (0.0f32, 0);
    for by in 0..h / 16 {
        for bx in 0..w / 16 {
            let (mut got, mut want) = (0.0, 0.0);
            for y in by * 16..by * 16 + 16 {
                for x in bx * 16..bx * 16 + 16 {
                    got += px[((y * w + x) * 4) as usize] as f32;
                    want += full[(y * w + x) as usize] as f32;
                }
            }
            worst = worst.max((got - want).abs() / (256.0 * 255.0));
            inked += (want > 128.0 * 256.0) as u32;
        }
    }
    assert!(inked > 200, "the glyph is big ({inked} inked blocks)");
    assert!(worst < 0.08, "16 px blocks differ by up to {:.1}% of full coverage", worst * 100.0);
    atlas.cache().check_invariants().unwrap();
    assert!(atlas.cache().atlas_bytes() <= 2 * 256 * 256, "within the budget");
}

/// Emoji (Noto Color Emoji, CBDT bitmaps; Debian's fonts-noto-color-emoji)
/// beside tinted text, in one draw: read back from the GPU they are the
/// colour pages' texels composited over the background (sRGB target), not
/// tinted; the colour texture equals the cache's colour pages.
#[cfg(feature = "swash")]
#[test]
fn emoji_are_drawn_in_colour_from_the_colour_pages() {
    const EMOJI_FONT: &str = "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf";
    let bytes = std::fs::read(EMOJI_FONT)
        .unwrap_or_else(|e| panic!("{EMOJI_FONT}: {e}; install Debian's fonts-noto-color-emoji"));
    let (device, queue) = gpu();
    let mut atlas =
        TextAtlas::new(&device, CacheConfig { page_size: 256, ..CacheConfig::default() }).unwrap();
    let sans_font = atlas.add_font(sans()).unwrap();
    let emoji = atlas.add_font(bytes).unwrap();
    let glyph = |f, ch| atlas.cache().fonts().get(f).unwrap().lookup_glyph_index(ch);
    let (a, grin, crab) = (glyph(sans_font, 'A'), glyph(emoji, '😀'), glyph(emoji, '🦀'));
    let format = wgpu::TextureFormat::Rgba8UnormSrgb;
    let mut r = TextRenderer::new(&device, &atlas, format, Default::default(), None);
    let (w, h) = (160u32, 56u32);
    let mut vp = Viewport::new(&device, &atlas);
    vp.update(&queue, w, h);
    let at = |font, glyph, x| PositionedGlyph {
        font,
        glyph,
        size: 32.0,
        x,
        y: 40.0,
        color: [30, 60, 200, 255],
    };
    let glyphs = [at(sans_font, a, 4.0), at(emoji, grin, 40.0), at(emoji, crab, 90.0)];
    let rep = r
        .prepare(&device, &queue, &mut atlas, &[TextArea::glyphs(&glyphs, 0.0, 0.0)], &vp)
        .unwrap();
    assert!(rep.skipped.is_empty(), "{:?}", rep.skipped);
    let target = Offscreen::new(&device, w, h, format);
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
    let layers = read_texture(&device, &queue, atlas.color_texture()).unwrap();
    let page_bytes = (set.page_side() * set.page_side() * 4) as usize;
    for (i, page) in set.pages().iter().enumerate() {
        assert!(
            &layers[i * page_bytes..][..page_bytes] == page.pixels(),
            "colour layer {i} differs from the cache's page"
        );
    }
}
