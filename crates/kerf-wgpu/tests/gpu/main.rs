//! kerf-wgpu on a real device (lavapipe in CI): uploads, growth, rendering,
//! limits, errors and rebuilding on a new device.

mod color_space;
#[path = "../common/mod.rs"]
mod common;
mod lcd;
mod outlines;
mod placement;
mod presets;
mod retained;
mod styles;
mod zoom;

use common::*;
use kerf_wgpu::*;

#[test]
fn uploads_match_fontdue_after_churn_evictions_reuse_and_growth() {
    churn_uploads_match_fontdue(true);
}

/// The same churn with pages that keep no CPU copies: the texels reach
/// the GPU from the uploads alone, glyph by glyph.
#[test]
fn without_page_copies_uploads_match_fontdue_after_churn_evictions_reuse_and_growth() {
    churn_uploads_match_fontdue(false);
}

fn churn_uploads_match_fontdue(page_copies: bool) {
    let (device, queue) = gpu();
    let cfg = CacheConfig {
        page_size: 128,
        max_pages: 3,
        frames_in_flight: 1,
        page_copies,
        ..CacheConfig::default()
    };
    let mut atlas = TextAtlas::new(&device, cfg).unwrap();
    let font = atlas.add_font(sans()).unwrap();
    let mut renderer = TextRenderer::new(
        &device,
        &atlas,
        wgpu::TextureFormat::Rgba8Unorm,
        Default::default(),
        None,
    );
    let mut viewport = Viewport::new(&device, &atlas);
    viewport.update(&queue, 640, 480);
    let mut s = 0x2545_F491_4F6C_DD1Du64;
    let mut rnd = |n: u64| {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s % n
    };
    let mut max_calls_per_frame = 0;
    for frame in 0..90 {
        let n = 5 + rnd(30) as usize;
        let text: String = (0..n)
            .map(|_| char::from_u32(0x21 + rnd(0x24f - 0x21) as u32).unwrap_or('x'))
            .collect();
        let size = [10.0, 14.0, 19.5, 26.0, 34.0][rnd(5) as usize];
        let area = TextArea::text(TextSpec::new(&text, font, size).wrap(600.0), 0.0, 0.0);
        let report = renderer.prepare(&device, &queue, &mut atlas, &[area], &viewport).unwrap();
        assert!(report.upload_calls <= atlas.cache().pages().len() as u32);
        max_calls_per_frame = max_calls_per_frame.max(report.upload_calls);
        if frame % 15 == 14 {
            check_atlas(&device, &queue, &atlas);
        }
    }
    check_atlas(&device, &queue, &atlas);
    let gs = atlas.gpu_stats();
    assert!(gs.grows >= 1, "the array must have grown: {gs:?}");
    assert!(atlas.cache().stats().evictions > 0, "the run must evict and reuse slots");
    assert_eq!(gs.upload_calls, atlas.cache().stats().upload_calls);
    assert!(max_calls_per_frame <= 3);
    assert_eq!(atlas.cache().footprint().page_bytes > 0, page_copies);
}

/// The upload scatter (a shader and a pipeline, which lavapipe compiles at
/// their first draw) is made by the first frame that scatters glyphs, not by
/// the atlas: a first frame fills its fresh page in one box, and an app whose
/// glyphs stay cached never pays for it.
#[test]
fn the_upload_scatter_is_made_by_the_first_frame_that_scatters() {
    let gpu = kerf_wgpu::headless().unwrap_or_else(|e| panic!("{e}"));
    let (device, queue) = (&gpu.device, &gpu.queue);
    let counts = || {
        let hub = gpu.instance.generate_report().expect("wgpu-core reports its objects").hub;
        (hub.render_pipelines.num_allocated, hub.bind_group_layouts.num_allocated)
    };
    let text = "Scattered glyphs, or one box";
    for (uploads, scatters) in
        [(kerf_cache::UploadMode::Auto, false), (kerf_cache::UploadMode::Glyphs, true)]
    {
        let cfg = CacheConfig { uploads, ..CacheConfig::default() };
        let mut atlas = TextAtlas::new(device, cfg).unwrap();
        let font = atlas.add_font(sans()).unwrap();
        let mut r = TextRenderer::new(
            device,
            &atlas,
            wgpu::TextureFormat::Rgba8Unorm,
            Default::default(),
            None,
        );
        let mut vp = Viewport::new(device, &atlas);
        vp.update(queue, 320, 64);
        // The glyph pipeline is compiled on a thread of its own: counted
        // once it is made.
        r.wait_for_pipeline();
        let made = counts();
        let writes = atlas.gpu_stats().buffer_writes;
        let area = TextArea::text(TextSpec::new(text, font, 20.0), 4.0, 8.0);
        let rep = r.prepare(device, queue, &mut atlas, &[area], &vp).unwrap();
        assert!(rep.skipped.is_empty() && rep.instances > 20, "{uploads:?}: {rep:?}");
        let after = counts();
        // The scatter: its pipeline and bind group layout, and one buffer write.
        let more = if scatters { (1, 1) } else { (0, 0) };
        assert_eq!((after.0 - made.0, after.1 - made.1), more, "{uploads:?}");
        assert_eq!(atlas.gpu_stats().buffer_writes - writes, scatters as u64, "{uploads:?}");
        // Whichever way they went up, the texels are the cache's.
        check_atlas(device, queue, &atlas);
    }
}

/// A frame whose scattered glyphs outgrow the upload buffer (64 KiB at
/// first) grows it: every layer still equals its page, frame after frame
/// of glyphs larger than the last.
#[test]
fn a_scatter_larger_than_its_buffer_grows_it() {
    let (device, queue) = gpu();
    let cfg = CacheConfig { uploads: kerf_cache::UploadMode::Glyphs, ..CacheConfig::default() };
    let mut atlas = TextAtlas::new(&device, cfg).unwrap();
    let font = atlas.add_font(sans()).unwrap();
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let mut r = TextRenderer::new(&device, &atlas, format, Default::default(), None);
    let mut vp = Viewport::new(&device, &atlas);
    vp.update(&queue, 1024, 1024);
    let text: String = ('!'..='~').collect();
    let (mut largest, mut calls, mut bytes) = (0, 0, 0);
    for px in [12.0, 40.0, 72.0] {
        let spec = TextSpec::new(&text, font, px).wrap(1000.0);
        let rep = r.prepare(&device, &queue, &mut atlas, &[TextArea::text(spec, 0.0, 0.0)], &vp);
        let rep = rep.unwrap();
        assert!(rep.skipped.is_empty(), "{px} px: {:?}", rep.skipped);
        largest = largest.max(rep.upload_bytes);
        (calls, bytes) = (calls + u64::from(rep.upload_calls), bytes + rep.upload_bytes);
        queue.submit([]);
        check_atlas(&device, &queue, &atlas);
    }
    assert!(largest > 64 << 10, "the largest frame scattered {largest} bytes");
    // The atlas's totals are the frames' reports added up.
    let stats = atlas.gpu_stats();
    assert_eq!((stats.upload_calls, stats.upload_bytes), (calls, bytes));
    assert!(calls >= 3, "a scatter draw a frame at least");
}

#[test]
fn growth_copies_layers_on_the_gpu_without_rasterizing() {
    let (device, queue) = gpu();
    let mut atlas = TextAtlas::new(
        &device,
        CacheConfig { page_size: 64, max_pages: 4, ..CacheConfig::default() },
    )
    .unwrap();
    let font = atlas.add_font(sans()).unwrap();
    let mut r = TextRenderer::new(
        &device,
        &atlas,
        wgpu::TextureFormat::Rgba8Unorm,
        Default::default(),
        None,
    );
    let vp = Viewport::new(&device, &atlas);
    r.prepare(
        &device,
        &queue,
        &mut atlas,
        &[TextArea::text(TextSpec::new("abc", font, 16.0), 0.0, 0.0)],
        &vp,
    )
    .unwrap();
    let before = read_layers(&device, &queue, &atlas);
    let rasterized = atlas.cache().stats().rasterized;
    assert_eq!(atlas.layers(), 1);
    // Enough new glyphs to need more pages.
    let many = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    let rep = r
        .prepare(
            &device,
            &queue,
            &mut atlas,
            &[TextArea::text(TextSpec::new(many, font, 24.0), 0.0, 0.0)],
            &vp,
        )
        .unwrap();
    assert!(rep.layers >= 2);
    assert_eq!(atlas.gpu_stats().grows, 1);
    assert_eq!(
        atlas.cache().stats().rasterized - rasterized,
        many.chars().count() as u64,
        "only the new glyphs were rasterized"
    );
    let after = read_layers(&device, &queue, &atlas);
    // Layer 0 kept every texel the earlier glyphs had (new glyphs only add to it).
    for key in atlas.cache().entries().filter(|(k, _)| k.size.px() == 16.0).map(|(k, e)| (*k, e)) {
        let e = key.1;
        for y in e.y as usize..(e.y + e.height) as usize {
            let at = y * 64 + e.x as usize;
            assert_eq!(&after[0][at..at + e.width as usize], &before[0][at..at + e.width as usize]);
        }
    }
    check_atlas(&device, &queue, &atlas);
}

/// Renders `areas` on a cleared target and returns RGBA8 rows.
#[allow(clippy::too_many_arguments)]
fn render_corrected(
    device: &wgpu::Device, queue: &wgpu::Queue, atlas: &mut TextAtlas, renderer: &mut TextRenderer,
    format: wgpu::TextureFormat, size: (u32, u32), bg: [f64; 4], areas: &[TextArea<'_>],
    correction: TextCorrection,
) -> Vec<u8> {
    let mut vp = Viewport::new(device, atlas);
    vp.update(queue, size.0, size.1);
    vp.set_correction(queue, correction).unwrap();
    renderer.prepare(device, queue, atlas, areas, &vp).unwrap();
    let target = Offscreen::new(device, size.0, size.1, format).unwrap();
    let mut enc = device.create_command_encoder(&Default::default());
    {
        let mut pass =
            target.pass(&mut enc, wgpu::Color { r: bg[0], g: bg[1], b: bg[2], a: bg[3] });
        renderer.render(atlas, &mut pass).unwrap();
    }
    queue.submit([enc.finish()]);
    target.read(device, queue).unwrap()
}

/// One string of a composite test: colour, text, size, position.
type Line<'a> = ([u8; 4], &'a str, f32, (f32, f32));

/// Draws `texts` (colour, string, size, position) over `bg8` (sRGB) with
/// `correction` into a 240 × 80 target of `format`, and composites the same
/// instances on the CPU with [`TextCorrection::apply`]: the worst channel
/// difference (in 1/255) and the number of inked pixels.
fn composite_case(
    format: wgpu::TextureFormat, correction: TextCorrection, bg8: [u8; 4], texts: &[Line<'_>],
) -> (i32, usize) {
    composite_on(gpu(), format, correction, bg8, texts)
}

/// [`composite_case`] on the device given.
fn composite_on(
    (device, queue): (wgpu::Device, wgpu::Queue), format: wgpu::TextureFormat,
    correction: TextCorrection, bg8: [u8; 4], texts: &[Line<'_>],
) -> (i32, usize) {
    let mut atlas =
        TextAtlas::new(&device, CacheConfig { page_size: 256, ..CacheConfig::default() }).unwrap();
    let font = atlas.add_font(sans()).unwrap();
    let mut renderer = TextRenderer::new(&device, &atlas, format, Default::default(), None);
    let (w, h) = (240u32, 80u32);
    // Background given as sRGB-encoded values.
    let bg_srgb: Vec<f64> = bg8.iter().map(|&c| c as f64 / 255.0).collect();
    // wgpu::Color is linear for sRGB targets: give the decoded value so both targets show bg8.
    let bg = if format.is_srgb() {
        [
            srgb_to_linear(bg_srgb[0] as f32) as f64,
            srgb_to_linear(bg_srgb[1] as f32) as f64,
            srgb_to_linear(bg_srgb[2] as f32) as f64,
            1.0,
        ]
    } else {
        [bg_srgb[0], bg_srgb[1], bg_srgb[2], 1.0]
    };
    let areas: Vec<TextArea<'_>> = texts
        .iter()
        .map(|&(color, text, px, (x, y))| {
            TextArea::text(TextSpec::new(text, font, px).color(color), x, y)
        })
        .collect();
    let img = render_corrected(
        &device,
        &queue,
        &mut atlas,
        &mut renderer,
        format,
        (w, h),
        bg,
        &areas,
        correction,
    );
    // CPU reference: composite each instance's coverage, in order.
    let mut refimg: Vec<[f32; 3]> =
        vec![
            [bg8[0] as f32 / 255.0, bg8[1] as f32 / 255.0, bg8[2] as f32 / 255.0];
            (w * h) as usize
        ];
    if format.is_srgb() {
        for p in &mut refimg {
            *p = p.map(srgb_to_linear);
        }
    }
    let side = atlas.cache().page_side() as usize;
    for inst in renderer.instances() {
        let page = atlas.cache().pages()[inst.page as usize].pixels();
        let col = inst.color.map(|c| c as f32 / 255.0);
        let lum = luminance_of(inst.color);
        let rgb = if format.is_srgb() {
            [srgb_to_linear(col[0]), srgb_to_linear(col[1]), srgb_to_linear(col[2])]
        } else {
            [col[0], col[1], col[2]]
        };
        for dy in 0..inst.height as i32 {
            for dx in 0..inst.width as i32 {
                let (x, y) = (inst.x + dx, inst.y + dy);
                if x < 0 || y < 0 || x >= w as i32 || y >= h as i32 {
                    continue;
                }
                let cov = page
                    [(inst.tex_y as usize + dy as usize) * side + inst.tex_x as usize + dx as usize]
                    as f32
                    / 255.0;
                let a = correction.apply(cov, lum) * col[3];
                let p = &mut refimg[(y as u32 * w + x as u32) as usize];
                for c in 0..3 {
                    p[c] = rgb[c] * a + p[c] * (1.0 - a);
                }
            }
        }
    }
    let mut worst = 0i32;
    let mut inked = 0;
    for (i, p) in refimg.iter().enumerate() {
        for c in 0..3 {
            let v = if format.is_srgb() { linear_to_srgb(p[c]) } else { p[c] };
            let expect = (v * 255.0).round() as i32;
            let got = img[i * 4 + c] as i32;
            worst = worst.max((got - expect).abs());
        }
        if (img[i * 4] as i32 - bg8[0] as i32).abs() > 40 {
            inked += 1;
        }
    }
    (worst, inked)
}

#[test]
fn rendering_matches_a_cpu_composite_in_srgb_and_linear_targets() {
    let strong = TextCorrection { gamma: 2.2, contrast: 1.0 };
    let thin = TextCorrection { gamma: 0.6, contrast: 0.0 };
    for (format, correction) in [
        (wgpu::TextureFormat::Rgba8UnormSrgb, TextCorrection::DEFAULT),
        (wgpu::TextureFormat::Rgba8Unorm, TextCorrection::DEFAULT),
        (wgpu::TextureFormat::Rgba8UnormSrgb, TextCorrection::NEUTRAL),
        (wgpu::TextureFormat::Rgba8Unorm, strong),
        (wgpu::TextureFormat::Rgba8UnormSrgb, thin),
    ] {
        let texts = [
            ([20, 60, 200, 255], "Kerf: ÆØÅ gyq", 22.0, (4.0, 6.0)),
            ([200, 30, 30, 128], "overlap ~ 50%", 30.0, (10.0, 30.0)),
        ];
        let (worst, inked) = composite_case(format, correction, [230, 225, 210, 255], &texts);
        assert!(worst <= 3, "{format:?} {correction:?}: worst channel difference {worst}");
        assert!(inked > 300, "{format:?}: the text must be visible ({inked} inked pixels)");
    }
}

/// Dark-on-light, light-on-dark and coloured text, opaque and not
/// overlapping: the GPU's corrected coverage within 1/255 of the CPU's
/// [`TextCorrection::apply`], drawn from the viewport's polynomials (the
/// default, and a strong correction) and from its tables (gamma 0.6, too
/// steep for the polynomials: the renderer switches pipelines for it).
#[test]
fn corrected_text_is_within_one_level_of_the_cpu_correction() {
    let cases: [([u8; 4], [u8; 4]); 3] = [
        ([245, 245, 240, 255], [15, 15, 20, 255]),
        ([18, 20, 28, 255], [250, 250, 245, 255]),
        ([40, 40, 48, 255], [250, 200, 40, 255]),
    ];
    let corrections = [
        TextCorrection::DEFAULT,
        TextCorrection { gamma: 2.2, contrast: 1.0 },
        TextCorrection { gamma: 0.6, contrast: 0.0 },
    ];
    for format in [wgpu::TextureFormat::Rgba8Unorm, wgpu::TextureFormat::Rgba8UnormSrgb] {
        for ((bg, fg), correction) in cases.into_iter().flat_map(|c| corrections.map(|t| (c, t))) {
            let texts =
                [(fg, "Kerf: gyq ÆØ", 20.0, (4.0, 8.0)), (fg, "WMmw 0123", 13.0, (6.0, 44.0))];
            let (worst, inked) = composite_case(format, correction, bg, &texts);
            assert!(
                worst <= 1,
                "{format:?} {correction:?} {fg:?} on {bg:?}: worst channel difference {worst}"
            );
            assert!(inked > 100, "{format:?} {fg:?} on {bg:?}: {inked} inked pixels");
        }
    }
}

/// The same on a device without storage buffers (WebGL2 has none): the
/// correction tables are a uniform there, the reads and results the same.
#[test]
fn corrected_text_without_storage_buffers_is_within_one_level() {
    for (bg, fg) in [([245, 245, 240, 255], [15, 15, 20, 255]), ([18, 20, 28, 255], [250; 4])] {
        let texts = [(fg, "Kerf: gyq ÆØ", 20.0, (4.0, 8.0))];
        let (worst, inked) = composite_on(
            gpu_without_storage_buffers(),
            wgpu::TextureFormat::Rgba8UnormSrgb,
            TextCorrection::DEFAULT,
            bg,
            &texts,
        );
        assert!(worst <= 1, "{fg:?} on {bg:?}: worst channel difference {worst}");
        assert!(inked > 100, "{fg:?} on {bg:?}: {inked} inked pixels");
    }
}

/// A device without the scatter uploads dirty rectangles, cut from the
/// pages' CPU copies: an atlas asked for none keeps them there rather than
/// fail, and its texture holds every glyph as a fresh raster draws it.
#[test]
fn without_storage_buffers_an_atlas_asked_for_no_page_copies_keeps_them() {
    let (device, queue) = gpu_without_storage_buffers();
    let config = CacheConfig { page_size: 128, page_copies: false, ..CacheConfig::default() };
    let mut atlas = TextAtlas::new(&device, config).expect("the atlas is made, with copies");
    assert!(atlas.cache().config().page_copies);
    assert_eq!(atlas.cache().config().uploads, kerf_cache::UploadMode::DirtyRect);
    let font = atlas.add_font(sans()).unwrap();
    let mut r = rgba_renderer(&device, &atlas);
    let vp = Viewport::new(&device, &atlas);
    let area = TextArea::text(TextSpec::new("Copies kept: WebGL2", font, 18.0), 0.0, 0.0);
    let rep = r.prepare(&device, &queue, &mut atlas, &[area], &vp).unwrap();
    assert!(rep.skipped.is_empty() && rep.instances > 10, "{rep:?}");
    assert!(atlas.cache().footprint().page_bytes > 0);
    check_atlas(&device, &queue, &atlas);
}

/// Text drawn into a 4× MSAA pass with a depth-stencil attachment resolves to
/// the same picture as the same text drawn single-sampled (the quads sit on
/// whole pixels, so every sample of a pixel takes the same colour), and a
/// second renderer with the same key makes no new pipeline.
#[test]
fn msaa_and_depth_stencil_passes_work() {
    let gpu = headless().unwrap_or_else(|e| panic!("{e}"));
    let (device, queue) = (&gpu.device, &gpu.queue);
    let mut atlas =
        TextAtlas::new(device, CacheConfig { page_size: 256, ..CacheConfig::default() }).unwrap();
    let font = atlas.add_font(sans()).unwrap();
    let format = wgpu::TextureFormat::Rgba8UnormSrgb;
    let ms = wgpu::MultisampleState { count: 4, ..Default::default() };
    let (w, h) = (128u32, 32u32);
    let areas = [TextArea::text(
        TextSpec::new("MSAA gyq", font, 20.0).color([255, 255, 255, 255]),
        2.0,
        2.0,
    )];
    let mut vp = Viewport::new(device, &atlas);
    vp.update(queue, w, h);
    // The reference: the same areas single-sampled, no depth.
    let mut single = TextRenderer::new(device, &atlas, format, Default::default(), None);
    single.prepare(device, queue, &mut atlas, &areas, &vp).unwrap();
    let target = Offscreen::new(device, w, h, format).unwrap();
    let expect = draw_and_read(device, queue, &single, &atlas, &target, wgpu::Color::BLACK);

    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let mut renderer = TextRenderer::new(device, &atlas, format, ms, Some(depth_state()));
    renderer.prepare(device, queue, &mut atlas, &areas, &vp).unwrap();
    let tex = |format, samples, usage| {
        device.create_texture(&wgpu::TextureDescriptor {
            label: Some("msaa test"),
            size: wgpu::Extent3d { width: w, height: h, depth_or_array_layers: 1 },
            mip_level_count: 1,
            sample_count: samples,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage,
            view_formats: &[],
        })
    };
    let msaa = tex(format, 4, wgpu::TextureUsages::RENDER_ATTACHMENT);
    let resolve =
        tex(format, 1, wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC);
    let ds =
        tex(wgpu::TextureFormat::Depth24PlusStencil8, 4, wgpu::TextureUsages::RENDER_ATTACHMENT);
    let (mv, rv, dv) = (
        msaa.create_view(&Default::default()),
        resolve.create_view(&Default::default()),
        ds.create_view(&Default::default()),
    );
    let mut enc = device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("msaa text"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: &mv,
                depth_slice: None,
                resolve_target: Some(&rv),
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                    store: wgpu::StoreOp::Discard,
                },
            })],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &dv,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(1.0),
                    store: wgpu::StoreOp::Discard,
                }),
                stencil_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(0),
                    store: wgpu::StoreOp::Discard,
                }),
            }),
            ..Default::default()
        });
        renderer.render(&atlas, &mut pass).unwrap();
    }
    queue.submit([enc.finish()]);
    let err = kerf_wgpu::block_on(scope.pop());
    assert!(err.is_none(), "validation error: {err:?}");
    let px = read_texture(device, queue, &resolve).unwrap();
    let lit = expect.chunks(4).filter(|p| p[0] > 128).count();
    assert!(lit > 150, "the reference must show the text ({lit} lit pixels)");
    let worst = px.iter().zip(&expect).map(|(a, b)| a.abs_diff(*b)).max().unwrap();
    assert!(worst <= 1, "the MSAA resolve differs from the single-sampled text by {worst}");
    // The pipeline cache made one pipeline for this key; a second renderer
    // with the same key reuses it.
    let pipelines = || gpu.instance.generate_report().unwrap().hub.render_pipelines.num_allocated;
    // (Each is compiled on a thread of its own: waited for before counting.)
    let before = pipelines();
    let again = TextRenderer::new(device, &atlas, format, ms, Some(depth_state()));
    again.wait_for_pipeline();
    assert_eq!(pipelines(), before, "the same key must not make a new pipeline");
    let other = TextRenderer::new(device, &atlas, format, Default::default(), Some(depth_state()));
    other.wait_for_pipeline();
    assert_eq!(pipelines(), before + 1, "a new key makes one pipeline");
}

fn depth_state() -> wgpu::DepthStencilState {
    wgpu::DepthStencilState {
        format: wgpu::TextureFormat::Depth24PlusStencil8,
        depth_write_enabled: Some(true),
        depth_compare: Some(wgpu::CompareFunction::LessEqual),
        stencil: Default::default(),
        bias: Default::default(),
    }
}

#[test]
fn device_limits_are_typed_errors() {
    let (device, _queue) = gpu();
    let limits = device.limits();
    let too_big =
        CacheConfig { page_size: limits.max_texture_dimension_2d + 1, ..CacheConfig::default() };
    assert!(matches!(TextAtlas::new(&device, too_big), Err(AtlasError::PageTooLarge { .. })));
    let too_many =
        CacheConfig { max_pages: limits.max_texture_array_layers + 1, ..CacheConfig::default() };
    assert!(matches!(TextAtlas::new(&device, too_many), Err(AtlasError::TooManyPages { .. })));
    assert!(matches!(
        TextAtlas::new(&device, CacheConfig { page_size: 0, ..CacheConfig::default() }),
        Err(AtlasError::Config(_))
    ));
}

#[test]
fn misuse_is_a_typed_error_and_changes_nothing() {
    let (device, queue) = gpu();
    let mut atlas =
        TextAtlas::new(&device, CacheConfig { page_size: 128, ..CacheConfig::default() }).unwrap();
    let font = atlas.add_font(sans()).unwrap();
    let other =
        TextAtlas::new(&device, CacheConfig { page_size: 128, ..CacheConfig::default() }).unwrap();
    let mut r = TextRenderer::new(
        &device,
        &atlas,
        wgpu::TextureFormat::Rgba8Unorm,
        Default::default(),
        None,
    );
    let vp = Viewport::new(&device, &atlas);
    let mut enc = device.create_command_encoder(&Default::default());
    let target = Offscreen::new(&device, 4, 4, wgpu::TextureFormat::Rgba8Unorm).unwrap();
    {
        let mut pass = target.pass(&mut enc, wgpu::Color::BLACK);
        assert_eq!(r.render(&atlas, &mut pass), Err(UsageError::NotPrepared));
    }
    queue.submit([enc.finish()]);
    let bad_scale =
        TextArea { scale: f32::NAN, ..TextArea::text(TextSpec::new("x", font, 12.0), 0.0, 0.0) };
    assert!(matches!(
        r.prepare(&device, &queue, &mut atlas, &[bad_scale], &vp),
        Err(PrepareError::Scale { .. })
    ));
    let bad_size = TextArea::text(TextSpec::new("x", font, -1.0), 0.0, 0.0);
    assert!(matches!(
        r.prepare(&device, &queue, &mut atlas, &[bad_size], &vp),
        Err(PrepareError::Area { area: 0, .. })
    ));
    assert_eq!(atlas.cache().stats().frames, 0, "refused before any frame began");
    let mut wrong = other;
    assert_eq!(
        r.prepare(
            &device,
            &queue,
            &mut wrong,
            &[TextArea::text(TextSpec::new("x", font, 12.0), 0.0, 0.0)],
            &vp
        )
        .unwrap_err(),
        PrepareError::AtlasMismatch
    );
    // Clipping: glyphs outside the bounds vanish, glyphs across them are cut.
    let clipped = TextArea {
        bounds: TextBounds { left: 0, top: 0, right: 30, bottom: 100 },
        ..TextArea::text(TextSpec::new("clipped text", font, 20.0), 0.0, 0.0)
    };
    r.prepare(&device, &queue, &mut atlas, &[clipped], &vp).unwrap();
    assert!(!r.instances().is_empty());
    assert!(r.instances().iter().all(|i| i.x + i.width as i32 <= 30));
}

#[test]
fn rebuild_on_a_new_device_restores_every_page_without_rasterizing() {
    let (device, queue) = gpu();
    let mut atlas = TextAtlas::new(
        &device,
        CacheConfig { page_size: 128, max_pages: 2, ..CacheConfig::default() },
    )
    .unwrap();
    let font = atlas.add_font(sans()).unwrap();
    let mut r = TextRenderer::new(
        &device,
        &atlas,
        wgpu::TextureFormat::Rgba8Unorm,
        Default::default(),
        None,
    );
    let vp = Viewport::new(&device, &atlas);
    let text = "The device was lost; the atlas comes back from the cache's pages. 0123456789";
    r.prepare(
        &device,
        &queue,
        &mut atlas,
        &[TextArea::text(TextSpec::new(text, font, 18.0), 0.0, 0.0)],
        &vp,
    )
    .unwrap();
    let rasterized = atlas.cache().stats().rasterized;
    drop((r, vp));
    drop((device, queue)); // as if the device were lost
    let (device2, queue2) = gpu();
    atlas.rebuild(&device2, &queue2);
    check_atlas(&device2, &queue2, &atlas);
    let mut r2 = TextRenderer::new(
        &device2,
        &atlas,
        wgpu::TextureFormat::Rgba8Unorm,
        Default::default(),
        None,
    );
    let vp2 = Viewport::new(&device2, &atlas);
    let rep = r2
        .prepare(
            &device2,
            &queue2,
            &mut atlas,
            &[TextArea::text(TextSpec::new(text, font, 18.0), 0.0, 0.0)],
            &vp2,
        )
        .unwrap();
    assert_eq!(rep.counts.hits, rep.counts.lookups, "every glyph still cached");
    assert_eq!(atlas.cache().stats().rasterized, rasterized, "nothing rasterized again");
}

/// Without page copies there is nothing to restore from: a rebuild empties
/// the cache, the next prepare rasterizes every glyph again, and the new
/// device's texture then holds each as a fresh raster draws it.
#[test]
fn rebuild_without_page_copies_draws_every_glyph_again_on_the_new_device() {
    let (device, queue) = gpu();
    let config = CacheConfig { page_size: 128, page_copies: false, ..CacheConfig::default() };
    let mut atlas = TextAtlas::new(&device, config).unwrap();
    let font = atlas.add_font(sans()).unwrap();
    let text = "Lost device, no copies: drawn again. 0123456789";
    let frame = |atlas: &mut TextAtlas, device: &wgpu::Device, queue: &wgpu::Queue| {
        let mut r = rgba_renderer(device, atlas);
        let vp = Viewport::new(device, atlas);
        let area = TextArea::text(TextSpec::new(text, font, 18.0), 0.0, 0.0);
        r.prepare(device, queue, atlas, &[area], &vp).unwrap()
    };
    let first = frame(&mut atlas, &device, &queue);
    let rasterized = atlas.cache().stats().rasterized;
    assert!(first.counts.lookups > 30 && rasterized > 20, "{first:?}");
    drop((device, queue)); // as if the device were lost
    let (device2, queue2) = gpu();
    atlas.rebuild(&device2, &queue2);
    assert!(atlas.cache().is_empty());
    let again = frame(&mut atlas, &device2, &queue2);
    assert_eq!(again.counts.hits, 0, "nothing survives the rebuild");
    assert_eq!(atlas.cache().stats().rasterized, 2 * rasterized, "every glyph drawn again");
    check_atlas(&device2, &queue2, &atlas);
}

/// An atlas of one 64 px page holding "Wq@&" at 20 px, prepared through a
/// `w` × `h` viewport, and that viewport.
fn viewed_atlas(
    device: &wgpu::Device, queue: &wgpu::Queue, (w, h): (u32, u32),
) -> (TextAtlas, Viewport) {
    let mut atlas =
        TextAtlas::new(device, CacheConfig { page_size: 64, ..CacheConfig::default() }).unwrap();
    let font = atlas.add_font(sans()).unwrap();
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let mut r = TextRenderer::new(device, &atlas, format, Default::default(), None);
    let mut vp = Viewport::new(device, &atlas);
    vp.update(queue, w, h);
    let text = TextSpec::new("Wq@&", font, 20.0);
    r.prepare(device, queue, &mut atlas, &[TextArea::text(text, 0.0, 0.0)], &vp).unwrap();
    (atlas, vp)
}

/// The RGBA8 pixels of `views` drawn by a new atlas viewer alone (no text
/// renderer's `render`) over `clear`, on a target of `vp`'s size.
fn view_pixels(
    device: &wgpu::Device, queue: &wgpu::Queue, atlas: &TextAtlas, vp: &Viewport,
    views: &[(u32, f32, f32, f32)], options: ViewOptions, clear: wgpu::Color,
) -> Vec<u8> {
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let mut viewer = AtlasViewer::new(device, atlas, format);
    viewer.prepare(device, queue, atlas, vp, views, options);
    let (w, h) = vp.size();
    let target = Offscreen::new(device, w, h, format).unwrap();
    let mut enc = device.create_command_encoder(&Default::default());
    {
        let mut pass = target.pass(&mut enc, clear);
        viewer.render(atlas, &mut pass).unwrap();
    }
    queue.submit([enc.finish()]);
    target.read(device, queue).unwrap()
}

#[test]
fn atlas_viewer_draws_the_page_texels() {
    let (device, queue) = gpu();
    let size = (64, 64);
    let (atlas, vp) = viewed_atlas(&device, &queue, size);
    let options = ViewOptions { free: false, glyphs: false };
    let views = [(0, 0.0, 0.0, 64.0)];
    let px = view_pixels(&device, &queue, &atlas, &vp, &views, options, wgpu::Color::RED);
    let page = atlas.cache().pages()[0].pixels();
    let mut worst = 0i32;
    for y in 0..64 {
        for x in 0..64 {
            let c = page[y * 64 + x] as f32 / 255.0;
            // fs: mix(bg = (0.02, 0.03, 0.08), white, coverage); green channel.
            let expect = ((0.03 + (1.0 - 0.03) * c) * 255.0).round() as i32;
            worst = worst.max((px[(y * 64 + x) * 4 + 1] as i32 - expect).abs());
        }
    }
    assert!(worst <= 2, "page view differs from the page by {worst}");
    assert!(page.iter().filter(|&&c| c > 128).count() > 50, "the page holds glyphs");
}

/// A page viewed at twice its size, away from the target's corner, draws
/// each live glyph's box (kerf-cache's own entries) where the page's scale
/// puts it: every pixel of a box's left column and top row is border
/// (orange at 0.9 over the page: red well above blue), which neither the
/// page's grey texels nor a box's faint fill are.
#[test]
fn atlas_viewer_draws_glyph_boxes_at_the_pages_scale() {
    let (device, queue) = gpu();
    let size = (160, 160);
    let (atlas, vp) = viewed_atlas(&device, &queue, size);
    let (x0, y0, scale) = (16usize, 8usize, 2usize);
    let views = [(0, x0 as f32, y0 as f32, (64 * scale) as f32)];
    let options = ViewOptions { free: false, glyphs: true };
    let px = view_pixels(&device, &queue, &atlas, &vp, &views, options, wgpu::Color::BLACK);
    let border = |x: usize, y: usize| {
        let p = &px[(y * 160 + x) * 4..][..4];
        i32::from(p[0]) - i32::from(p[2]) >= 128
    };
    let boxes: Vec<_> = atlas
        .cache()
        .entries()
        .filter(|(_, e)| e.page == 0 && !e.is_blank())
        .map(|(_, e)| e.rect())
        .collect();
    assert!(boxes.len() >= 4, "{} glyph boxes", boxes.len());
    assert!(boxes.iter().any(|b| b.x > 0) && boxes.iter().any(|b| b.y > 0));
    for b in &boxes {
        let (left, top) = (x0 + b.x as usize * scale, y0 + b.y as usize * scale);
        for i in 0..b.h as usize * scale {
            assert!(border(left, top + i), "box {b:?}: left column at ({left}, {})", top + i);
        }
        for i in 0..b.w as usize * scale {
            assert!(border(left + i, top), "box {b:?}: top row at ({}, {top})", left + i);
        }
    }
    // Off every box (the target's corner), nothing is border.
    assert!(!border(2, 2));
}

/// A view of more rectangles than the viewer's first buffer holds (4,096
/// instances: here 512 copies of a page, each with its glyph boxes and
/// free space) grows the buffer: the last copy draws what the same copy
/// drawn alone draws, pixel for pixel.
#[test]
fn an_atlas_view_larger_than_its_buffer_grows_it() {
    let (device, queue) = gpu();
    let size = (256u32, 128u32);
    let (atlas, vp) = viewed_atlas(&device, &queue, size);
    let copies: Vec<(u32, f32, f32, f32)> =
        (0..512).map(|i| (0, (i % 32) as f32 * 8.0, (i / 32) as f32 * 8.0, 8.0)).collect();
    let options = ViewOptions { free: true, glyphs: true };
    let rects_per_copy = 1 + atlas.cache().pages()[0].free_rects().len() + 4;
    assert!(copies.len() * rects_per_copy > 4096, "{rects_per_copy} rectangles a copy");
    let draw = |views: &[(u32, f32, f32, f32)]| {
        view_pixels(&device, &queue, &atlas, &vp, views, options, wgpu::Color::BLACK)
    };
    let all = draw(&copies);
    let last = *copies.last().unwrap();
    let alone = draw(&[last]);
    let (w, (x0, y0)) = (size.0 as usize, (last.1 as usize, last.2 as usize));
    for y in y0..y0 + 8 {
        let row = (y * w + x0) * 4..(y * w + x0 + 8) * 4;
        assert_eq!(all[row.clone()], alone[row], "row {y} of the last copy");
    }
    assert!(alone.chunks(4).any(|p| p[0] > 100), "the copy draws something");
}

#[test]
fn released_pages_shrink_the_texture_array_and_kept_pages_survive() {
    let (device, queue) = gpu();
    let cfg = CacheConfig {
        page_size: 64,
        max_pages: 4,
        release_idle_after: Some(3),
        frames_in_flight: 1,
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
    for size in [20.0, 22.0, 24.0] {
        r.prepare(
            &device,
            &queue,
            &mut atlas,
            &[TextArea::text(TextSpec::new("ABCDEFGHIJKLMNOPQRSTUVWXYZ", font, size), 0.0, 0.0)],
            &vp,
        )
        .unwrap();
    }
    assert_eq!(atlas.layers(), 4);
    for _ in 0..10 {
        r.prepare(
            &device,
            &queue,
            &mut atlas,
            &[TextArea::text(TextSpec::new("ok", font, 12.0), 0.0, 0.0)],
            &vp,
        )
        .unwrap();
    }
    assert_eq!(atlas.cache().pages().len(), 1);
    assert_eq!(atlas.layers(), 1);
    assert_eq!(atlas.gpu_bytes(), 64 * 64);
    check_atlas(&device, &queue, &atlas);
}

#[test]
fn a_bad_text_correction_is_refused_and_changes_nothing() {
    let (device, queue) = gpu();
    let atlas =
        TextAtlas::new(&device, CacheConfig { page_size: 64, ..CacheConfig::default() }).unwrap();
    let mut vp = Viewport::new(&device, &atlas);
    assert_eq!(vp.correction(), TextCorrection::DEFAULT);
    for bad in [
        TextCorrection { gamma: f32::NAN, contrast: 0.0 },
        TextCorrection { gamma: 0.0, contrast: 0.0 },
        TextCorrection { gamma: 1.0, contrast: -1.0 },
    ] {
        assert!(vp.set_correction(&queue, bad).is_err(), "{bad:?} must be refused");
        assert_eq!(vp.correction(), TextCorrection::DEFAULT);
    }
    vp.set_correction(&queue, TextCorrection::NEUTRAL).unwrap();
    assert_eq!(vp.correction(), TextCorrection::NEUTRAL);
}

/// An offscreen target over the device's texture limit is a typed error
/// naming the limit (wgpu would panic in validation).
#[test]
fn an_offscreen_target_over_the_limit_is_a_typed_error() {
    let (device, _queue) = gpu();
    let limit = device.limits().max_texture_dimension_2d;
    let format = wgpu::TextureFormat::Rgba8Unorm;
    for (w, h) in [(limit + 1, 4), (4, 130_756)] {
        assert_eq!(
            Offscreen::new(&device, w, h, format).unwrap_err(),
            TargetError::TooLarge { width: w, height: h, limit }
        );
    }
    assert!(Offscreen::new(&device, limit, 1, format).is_ok());
}
