//! kerf-wgpu on a real device (lavapipe in CI): uploads, growth, rendering,
//! limits, errors and rebuilding on a new device.

mod common;

use common::*;
use kerf_wgpu::*;

#[test]
fn uploads_match_fontdue_after_churn_evictions_reuse_and_growth() {
    let (device, queue) = gpu();
    let cfg =
        CacheConfig { page_size: 128, max_pages: 3, frames_in_flight: 1, ..CacheConfig::default() };
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
    let target = Offscreen::new(device, size.0, size.1, format);
    let mut enc = device.create_command_encoder(&Default::default());
    {
        let mut pass =
            target.pass(&mut enc, wgpu::Color { r: bg[0], g: bg[1], b: bg[2], a: bg[3] });
        renderer.render(atlas, &mut pass).unwrap();
    }
    queue.submit([enc.finish()]);
    target.read(device, queue).unwrap()
}

#[test]
fn rendering_matches_a_cpu_composite_in_srgb_and_linear_targets() {
    let (device, queue) = gpu();
    let strong = TextCorrection { gamma: 2.2, contrast: 1.0 };
    let thin = TextCorrection { gamma: 0.6, contrast: 0.0 };
    for (format, correction) in [
        (wgpu::TextureFormat::Rgba8UnormSrgb, TextCorrection::DEFAULT),
        (wgpu::TextureFormat::Rgba8Unorm, TextCorrection::DEFAULT),
        (wgpu::TextureFormat::Rgba8UnormSrgb, TextCorrection::NEUTRAL),
        (wgpu::TextureFormat::Rgba8Unorm, strong),
        (wgpu::TextureFormat::Rgba8UnormSrgb, thin),
    ] {
        let mut atlas =
            TextAtlas::new(&device, CacheConfig { page_size: 256, ..CacheConfig::default() })
                .unwrap();
        let font = atlas.add_font(sans()).unwrap();
        let mut renderer = TextRenderer::new(&device, &atlas, format, Default::default(), None);
        let (w, h) = (240u32, 80u32);
        // Background given as sRGB-encoded values.
        let bg8 = [230u8, 225, 210, 255];
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
        let t1 = TextSpec::new("Kerf: ÆØÅ gyq", font, 22.0).color([20, 60, 200, 255]);
        let t2 = TextSpec::new("overlap ~ 50%", font, 30.0).color([200, 30, 30, 128]);
        let areas = [TextArea::text(t1, 4.0, 6.0), TextArea::text(t2, 10.0, 30.0)];
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
                    let cov = page[(inst.tex_y as usize + dy as usize) * side
                        + inst.tex_x as usize
                        + dx as usize] as f32
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
        assert!(worst <= 3, "{format:?} {correction:?}: worst channel difference {worst}");
        assert!(inked > 300, "{format:?}: the text must be visible ({inked} inked pixels)");
    }
}

#[test]
fn msaa_and_depth_stencil_passes_work() {
    let (device, queue) = gpu();
    let mut atlas =
        TextAtlas::new(&device, CacheConfig { page_size: 256, ..CacheConfig::default() }).unwrap();
    let font = atlas.add_font(sans()).unwrap();
    let format = wgpu::TextureFormat::Bgra8UnormSrgb;
    let ms = wgpu::MultisampleState { count: 4, ..Default::default() };
    let depth = wgpu::DepthStencilState {
        format: wgpu::TextureFormat::Depth24PlusStencil8,
        depth_write_enabled: Some(true),
        depth_compare: Some(wgpu::CompareFunction::LessEqual),
        stencil: Default::default(),
        bias: Default::default(),
    };
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let mut renderer = TextRenderer::new(&device, &atlas, format, ms, Some(depth));
    let mut vp = Viewport::new(&device, &atlas);
    vp.update(&queue, 128, 32);
    renderer
        .prepare(
            &device,
            &queue,
            &mut atlas,
            &[TextArea::text(
                TextSpec::new("MSAA", font, 20.0).color([255, 255, 255, 255]),
                2.0,
                2.0,
            )],
            &vp,
        )
        .unwrap();
    let tex = |format, samples, usage| {
        device.create_texture(&wgpu::TextureDescriptor {
            label: Some("msaa test"),
            size: wgpu::Extent3d { width: 128, height: 32, depth_or_array_layers: 1 },
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
    let px = read_texture(&device, &queue, &resolve).unwrap();
    let lit = px.chunks(4).filter(|p| p[0] > 128).count();
    assert!(lit > 50, "white text must show on black after the MSAA resolve ({lit} lit pixels)");
    // The pipeline cache made one pipeline for this key and reuses it.
    let _again = TextRenderer::new(&device, &atlas, format, ms, Some(depth_state()));
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
    let target = Offscreen::new(&device, 4, 4, wgpu::TextureFormat::Rgba8Unorm);
    {
        let mut pass = target.pass(&mut enc, wgpu::Color::BLACK);
        assert_eq!(r.render(&atlas, &mut pass), Err(RenderError::NotPrepared));
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
    assert_eq!(rep.hits, rep.lookups, "every glyph still cached");
    assert_eq!(atlas.cache().stats().rasterized, rasterized, "nothing rasterized again");
}

#[test]
fn atlas_viewer_draws_the_page_texels() {
    let (device, queue) = gpu();
    let mut atlas =
        TextAtlas::new(&device, CacheConfig { page_size: 64, ..CacheConfig::default() }).unwrap();
    let font = atlas.add_font(sans()).unwrap();
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let mut r = TextRenderer::new(&device, &atlas, format, Default::default(), None);
    let mut vp = Viewport::new(&device, &atlas);
    vp.update(&queue, 64, 64);
    r.prepare(
        &device,
        &queue,
        &mut atlas,
        &[TextArea::text(TextSpec::new("Wq@&", font, 20.0), 0.0, 0.0)],
        &vp,
    )
    .unwrap();
    let mut viewer = AtlasViewer::new(&device, &atlas, format);
    viewer.prepare(
        &device,
        &queue,
        &atlas,
        &vp,
        &[(0, 0.0, 0.0, 64.0)],
        ViewOptions { free: false, glyphs: false },
    );
    // Draw only the viewer: render() of the text renderer is not called.
    let target = Offscreen::new(&device, 64, 64, format);
    let mut enc = device.create_command_encoder(&Default::default());
    {
        let mut pass = target.pass(&mut enc, wgpu::Color::RED);
        viewer.render(&atlas, &mut pass).unwrap();
    }
    queue.submit([enc.finish()]);
    let px = target.read(&device, &queue).unwrap();
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

/// Draws "lIl" in black on white at 24 px, x at a quarter pixel, with
/// `antialiasing`, on a linear RGBA target without correction; returns the
/// picture, the renderer's report and the atlas.
fn draw_lcd_stems(
    gpu: &HeadlessGpu, antialiasing: Antialiasing, area: impl Fn(TextArea<'_>) -> TextArea<'_>,
) -> (Vec<u8>, PrepareReport, TextAtlas, Option<GrayscaleReason>, Vec<GlyphInstance>) {
    let (device, queue) = (&gpu.device, &gpu.queue);
    let mut atlas = TextAtlas::new(
        device,
        CacheConfig { page_size: 256, max_pages: 2, ..CacheConfig::default() },
    )
    .unwrap();
    let font = atlas.add_font(sans()).unwrap();
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let mut renderer =
        TextRenderer::new(device, &atlas, format, wgpu::MultisampleState::default(), None);
    let unavailable = renderer.set_antialiasing(device, &atlas, antialiasing);
    assert_eq!(renderer.antialiasing(), antialiasing);
    let mut viewport = Viewport::new(device, &atlas);
    viewport.update(queue, 64, 40);
    viewport.set_correction(queue, TextCorrection::NEUTRAL).unwrap();
    let g = atlas.cache().fonts().get(font).unwrap().lookup_glyph_index('l');
    let i = atlas.cache().fonts().get(font).unwrap().lookup_glyph_index('I');
    let glyphs: Vec<PositionedGlyph> = [(g, 8.25), (i, 24.6), (g, 40.0)]
        .iter()
        .map(|&(glyph, x)| PositionedGlyph {
            font,
            glyph,
            size: 24.0,
            x,
            y: 30.0,
            color: [0, 0, 0, 255],
        })
        .collect();
    let report = renderer
        .prepare(device, queue, &mut atlas, &[area(TextArea::glyphs(&glyphs, 0.0, 0.0))], &viewport)
        .unwrap();
    let target = Offscreen::new(device, 64, 40, format);
    let img = draw_and_read(device, queue, &renderer, &atlas, &target, wgpu::Color::WHITE);
    (img, report, atlas, unavailable, renderer.instances().to_vec())
}

/// LCD text on a device with dual-source blending: every channel of every
/// pixel is white minus its own stripe's coverage (red the left third for
/// RGB, the right third for BGR), so a stem's left edge is reddish for RGB
/// and bluish for BGR; the same text on a device without the feature, or
/// over a transparent background, is grayscale and reported.
#[test]
fn lcd_channels_follow_the_stripe_order_and_fall_back_to_grayscale() {
    let gpu = headless().unwrap_or_else(|e| panic!("{e}"));
    assert!(
        gpu.device.features().contains(wgpu::Features::DUAL_SOURCE_BLENDING),
        "adapter {:?} lacks dual-source blending; lavapipe (mesa-vulkan-drivers) has it",
        gpu.info.name
    );
    let (w, h) = (64usize, 40usize);
    let mut edges = Vec::new();
    for order in [SubpixelOrder::Rgb, SubpixelOrder::Bgr] {
        let (img, report, atlas, unavailable, instances) =
            draw_lcd_stems(&gpu, Antialiasing::Lcd(order), |a| a);
        assert_eq!(unavailable, None);
        assert!(report.lcd_fallbacks.is_empty(), "{:?}", report.lcd_fallbacks);
        assert!(report.skipped.is_empty());
        // The CPU picture from the cache's pages: each LCD quad's pixel takes
        // its three texels as the channels' coverage.
        let mut want = vec![255u8; w * h * 4];
        let cache = atlas.cache();
        let mut quads = 0;
        for q in &instances {
            assert_eq!(
                q.page & kerf_wgpu::LCD_PAGE_BIT,
                kerf_wgpu::LCD_PAGE_BIT,
                "24 px glyphs are LCD"
            );
            quads += 1;
            let page = &cache.pages()[(q.page & !kerf_wgpu::LCD_PAGE_BIT) as usize];
            let side = page.side() as usize;
            for row in 0..q.height as usize {
                for px in 0..q.width as usize / 3 {
                    let t = |k: usize| {
                        page.pixels()
                            [(q.tex_y as usize + row) * side + q.tex_x as usize + 3 * px + k]
                            as f32
                            / 255.0
                    };
                    let cov = match order {
                        SubpixelOrder::Rgb => [t(0), t(1), t(2)],
                        SubpixelOrder::Bgr => [t(2), t(1), t(0)],
                    };
                    let (x, y) = (q.x as usize + px, q.y as usize + row);
                    for c in 0..3 {
                        let d = &mut want[(y * w + x) * 4 + c];
                        *d = (*d as f32 * (1.0 - cov[c])).round() as u8;
                    }
                }
            }
        }
        assert_eq!(quads, 3);
        let worst = img
            .iter()
            .zip(&want)
            .enumerate()
            .filter(|(i, _)| i % 4 != 3)
            .map(|(_, (a, b))| (*a as i32 - *b as i32).abs())
            .max()
            .unwrap();
        assert!(
            worst <= 2,
            "{order:?}: a channel is off by {worst}/255 from the stripes' coverage"
        );
        // The first stem's left edge: the first column with ink in the middle row.
        let row = h / 2 + 2;
        let x = (0..w).find(|&x| img[(row * w + x) * 4 + 1] < 250).expect("ink");
        let px = &img[(row * w + x) * 4..][..3];
        edges.push((px[0] as i32, px[2] as i32));
    }
    // Black on white: a channel is brighter where its stripe sees less ink.
    // At a stem's left edge the left stripe sees least: red for RGB, blue for BGR.
    let ((r_rgb, b_rgb), (r_bgr, b_bgr)) = (edges[0], edges[1]);
    assert!(r_rgb > b_rgb + 20, "RGB: left edge red {r_rgb} vs blue {b_rgb}");
    assert!(b_bgr > r_bgr + 20, "BGR: left edge blue {b_bgr} vs red {r_bgr}");

    // Without dual-source blending: grayscale, said in the report.
    let plain = headless_with(wgpu::Features::empty()).unwrap_or_else(|e| panic!("{e}"));
    assert!(!plain.device.features().contains(wgpu::Features::DUAL_SOURCE_BLENDING));
    let (img, report, _, unavailable, _) =
        draw_lcd_stems(&plain, Antialiasing::Lcd(SubpixelOrder::Rgb), |a| a);
    assert_eq!(unavailable, Some(GrayscaleReason::NoDualSourceBlending));
    assert_eq!(report.lcd_fallbacks, vec![(0, GrayscaleReason::NoDualSourceBlending)]);
    assert_grayscale(&img, "no dual-source blending");
    // Over a transparent background: grayscale too.
    let (img, report, _, _, _) =
        draw_lcd_stems(&gpu, Antialiasing::Lcd(SubpixelOrder::Rgb), |a| a.over_transparent());
    assert_eq!(report.lcd_fallbacks, vec![(0, GrayscaleReason::TransparentBackground)]);
    assert_grayscale(&img, "transparent background");
}

fn assert_grayscale(img: &[u8], what: &str) {
    assert!(img.chunks(4).any(|p| p[0] < 128), "{what}: text drawn");
    for p in img.chunks(4) {
        assert!(p[0] == p[1] && p[1] == p[2], "{what}: pixel {p:?} is not gray");
    }
}

/// A string with fallback fonts through the renderer: a character no font
/// has is drawn (the first font's missing-glyph box) and listed in the report.
#[test]
fn characters_no_font_has_are_reported_by_prepare() {
    let (device, queue) = gpu();
    let mut atlas =
        TextAtlas::new(&device, CacheConfig { page_size: 256, ..CacheConfig::default() }).unwrap();
    let sans_font = atlas.add_font(sans()).unwrap();
    let mono = atlas.add_font(dejavu::sans_mono::regular().to_vec()).unwrap();
    let fallback = [mono];
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let mut r = TextRenderer::new(&device, &atlas, format, Default::default(), None);
    let mut vp = Viewport::new(&device, &atlas);
    vp.update(&queue, 200, 40);
    let spec = TextSpec::new("ok \u{E000}!", sans_font, 16.0).fallback(&fallback);
    let rep =
        r.prepare(&device, &queue, &mut atlas, &[TextArea::text(spec, 2.0, 2.0)], &vp).unwrap();
    assert_eq!(rep.missing, vec!['\u{E000}']);
    assert_eq!(rep.instances, 4, "o, k, the missing box and '!' drawn");
    assert!(rep.skipped.is_empty());
    // Transformed text is laid out the same way and reported the same way.
    let turned =
        TextArea::text(spec, 2.0, 2.0).transformed(TextTransform::rotation_about(0.3, 20.0, 10.0));
    let rep = r.prepare(&device, &queue, &mut atlas, &[turned], &vp).unwrap();
    assert_eq!(rep.missing, vec!['\u{E000}'], "transformed text reports what no font has");
    assert_eq!(
        r.transformed_instances().len(),
        4,
        "o, k, the missing box and '!' drawn, transformed"
    );
    assert!(rep.skipped.is_empty());
}
