//! What kerf-glyphon does beyond drawing glyphon's picture: buffers
//! converted only when what they draw changed, a full atlas that skips and
//! reports instead of failing the frame (glyphon's `AtlasFull` on the same
//! device), frames ended without `trim`, and bad input reported, not
//! panicked on.

mod common;

use cosmic_text::{Attrs, Buffer, Family, FontSystem, Shaping};
use kerf_glyphon as g;

/// One renderer and what it draws with.
struct Kit {
    device: wgpu::Device,
    queue: wgpu::Queue,
    atlas: g::TextAtlas,
    renderer: g::TextRenderer,
    viewport: g::Viewport,
    swash: g::SwashCache,
}

fn kit_on((device, queue): (wgpu::Device, wgpu::Queue)) -> Kit {
    let cache = g::Cache::new(&device);
    let mut atlas = g::TextAtlas::new(&device, &queue, &cache, wgpu::TextureFormat::Rgba8UnormSrgb);
    let renderer =
        g::TextRenderer::new(&mut atlas, &device, wgpu::MultisampleState::default(), None);
    let mut viewport = g::Viewport::new(&device, &cache);
    viewport.update(&queue, g::Resolution { width: 800, height: 600 });
    Kit { device, queue, atlas, renderer, viewport, swash: g::SwashCache::new() }
}

fn area(buffer: &Buffer, left: f32, top: f32) -> g::TextArea<'_> {
    g::TextArea {
        buffer,
        left,
        top,
        scale: 1.0,
        bounds: g::TextBounds::default(),
        default_color: g::Color::rgb(0, 0, 0),
        custom_glyphs: &[],
    }
}

impl Kit {
    fn prepare<'a>(
        &mut self, fs: &mut FontSystem, areas: impl IntoIterator<Item = g::TextArea<'a>>,
    ) {
        let Kit { device, queue, atlas, renderer, viewport, swash } = self;
        renderer.prepare(device, queue, fs, atlas, viewport, areas, swash).expect("never fails");
    }
}

/// Buffers that did not change are not converted again; one edited is,
/// in the same prepare; one moved is not; one re-coloured is.
#[test]
fn only_changed_buffers_are_converted() {
    let mut kit = kit_on(common::gpu());
    let mut fs = common::font_system();
    let mut buffers: Vec<Buffer> = (0..5)
        .map(|i| {
            common::buffer(&mut fs, &format!("line {i} of five"), 16.0, 300.0, Family::SansSerif)
        })
        .collect();
    let draw = |kit: &mut Kit, fs: &mut FontSystem, buffers: &[Buffer], dx: f32, color: u8| {
        let areas = buffers.iter().enumerate().map(|(i, b)| g::TextArea {
            default_color: g::Color::rgb(color, 0, 0),
            ..area(b, 10.0 + dx, 20.0 * i as f32)
        });
        kit.prepare(fs, areas);
        kit.atlas.trim();
        (kit.renderer.report().converted, kit.renderer.report().reused)
    };
    assert_eq!(draw(&mut kit, &mut fs, &buffers, 0.0, 0), (5, 0));
    assert_eq!(draw(&mut kit, &mut fs, &buffers, 0.0, 0), (0, 5));
    assert_eq!(draw(&mut kit, &mut fs, &buffers, 3.0, 0), (0, 5), "moved: the same glyphs");
    let attrs = Attrs::new().family(Family::SansSerif);
    buffers[2].set_text("line 2, edited", &attrs, Shaping::Advanced, None);
    buffers[2].shape_until_scroll(&mut fs, false);
    assert_eq!(draw(&mut kit, &mut fs, &buffers, 3.0, 0), (1, 4), "the edited one");
    // Re-shaped at another width (the same text wraps differently).
    buffers[4].set_size(Some(40.0), None);
    buffers[4].shape_until_scroll(&mut fs, false);
    assert_eq!(draw(&mut kit, &mut fs, &buffers, 3.0, 0), (1, 4), "the re-wrapped one");
    assert_eq!(draw(&mut kit, &mut fs, &buffers, 3.0, 9), (5, 0), "another default colour");
    assert!(kit.renderer.skipped().is_empty());
}

/// A device whose textures are at most 256 texels a side: glyphon's atlas
/// cannot grow past it.
fn small_device() -> (wgpu::Device, wgpu::Queue) {
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = kerf_wgpu::block_on(instance.request_adapter(&Default::default()))
        .unwrap_or_else(|e| panic!("{e}: install Mesa's lavapipe (Debian: mesa-vulkan-drivers)"));
    let limits = wgpu::Limits { max_texture_dimension_2d: 256, ..adapter.limits() };
    let desc = wgpu::DeviceDescriptor { required_limits: limits, ..Default::default() };
    kerf_wgpu::block_on(adapter.request_device(&desc)).expect("a device with smaller limits")
}

/// More large glyphs in one frame than a 256² texture holds: glyphon fails
/// the frame with `AtlasFull`; kerf-glyphon on the same device draws it,
/// every glyph either drawn or listed as skipped.
#[test]
fn a_frame_that_overflows_glyphons_atlas_is_drawn_with_glyphs_skipped_and_reported() {
    let (device, queue) = small_device();
    let mut fs = common::font_system();
    let text = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    // About 0.7 M texels of glyphs: more than glyphon's 256² texture, and
    // more than kerf's default four pages of it (kerf-glyphon grows to 64).
    let big = common::buffer(&mut fs, text, 150.0, 9000.0, Family::SansSerif);
    let glyphs: usize = big.layout_runs().map(|r| r.glyphs.len()).sum();

    let cache = glyphon::Cache::new(&device);
    let format = wgpu::TextureFormat::Rgba8UnormSrgb;
    let mut atlas = glyphon::TextAtlas::new(&device, &queue, &cache, format);
    let mut renderer =
        glyphon::TextRenderer::new(&mut atlas, &device, wgpu::MultisampleState::default(), None);
    let mut viewport = glyphon::Viewport::new(&device, &cache);
    viewport.update(&queue, glyphon::Resolution { width: 256, height: 256 });
    let area = glyphon::TextArea {
        buffer: &big,
        left: 0.0,
        top: 0.0,
        scale: 1.0,
        bounds: glyphon::TextBounds::default(),
        default_color: glyphon::Color::rgb(0, 0, 0),
        custom_glyphs: &[],
    };
    let mut swash = glyphon::SwashCache::new();
    let failed =
        renderer.prepare(&device, &queue, &mut fs, &mut atlas, &viewport, [area], &mut swash);
    assert_eq!(failed, Err(glyphon::PrepareError::AtlasFull), "glyphon's atlas overflows");

    let mut kit = kit_on((device, queue));
    kit.prepare(&mut fs, [area_of(&big)]);
    let report = kit.renderer.report();
    assert_eq!(report.instances as usize, glyphs, "all drawn: {report:?}");
    assert!(report.skipped.is_empty());
    assert!(kit.atlas.kerf().layers() > 4, "{} pages", kit.atlas.kerf().layers());

    // An atlas of one 256² page: the same frame does not fit even after
    // eviction. Glyphs are skipped and listed; the rest are drawn.
    let d = kerf_cache::CacheConfig::default();
    let color = kerf_cache::ColorPages { page_size: 256, ..d.color };
    let config = kerf_cache::CacheConfig { page_size: 256, max_pages: 1, color, ..d };
    let inner = kerf_wgpu::TextAtlas::like_glyphon(&kit.device, config).expect("atlas");
    kit.atlas =
        g::TextAtlas::from_kerf(inner, wgpu::TextureFormat::Rgba8UnormSrgb, g::ColorMode::Accurate);
    kit.renderer = g::TextRenderer::new(&mut kit.atlas, &kit.device, Default::default(), None);
    kit.prepare(&mut fs, [area_of(&big)]);
    let report = kit.renderer.report();
    assert!(report.instances > 0, "something is drawn");
    assert!(!report.skipped.is_empty(), "something is skipped: {report:?}");
    assert_eq!(
        report.instances as usize + report.skipped.len(),
        glyphs,
        "each glyph drawn or reported: {report:?}"
    );
    assert_eq!(kit.renderer.skipped(), &report.skipped[..]);
}

fn area_of(buffer: &Buffer) -> g::TextArea<'_> {
    area(buffer, 0.0, 0.0)
}

/// An app that never calls `trim`: each renderer's second prepare ends the
/// frame, so glyphs of earlier frames can be evicted and the atlas does
/// not fill with frames that never end.
#[test]
fn frames_end_without_trim() {
    let mut kit = kit_on(small_device());
    let mut fs = common::font_system();
    for frame in 0..40 {
        let size = 30.0 + frame as f32 * 2.0;
        let b = common::buffer(&mut fs, "Glyphs at a new size", size, 6000.0, Family::Serif);
        kit.prepare(&mut fs, [area_of(&b)]);
        assert_eq!(kit.renderer.report().instances, 16, "frame {frame}: every glyph drawn");
        assert!(kit.renderer.skipped().is_empty(), "frame {frame}: {:?}", kit.renderer.report());
    }
    let stats = kit.atlas.kerf().cache().stats();
    assert!(stats.evictions > 0, "glyphs of ended frames were evicted: {stats:?}");
}

/// Areas of a scale or offset that is not a finite number, custom glyphs
/// whose closure breaks glyphon's rules, and depths outside 0..=1 are
/// reported; the rest of the frame is drawn.
#[test]
fn bad_input_is_reported_not_panicked_on() {
    let mut kit = kit_on(common::gpu());
    let mut fs = common::font_system();
    let b = common::buffer(&mut fs, "kept", 20.0, 300.0, Family::SansSerif);
    let icon = |id| g::CustomGlyph { id, width: 10.0, height: 10.0, ..Default::default() };
    let icons = [icon(0), icon(1), icon(2), g::CustomGlyph { width: 0.0, ..icon(1) }];
    let areas = [
        g::TextArea { scale: f32::NAN, ..area(&b, 0.0, 0.0) },
        g::TextArea { scale: 0.0, ..area(&b, 0.0, 0.0) },
        g::TextArea { left: f32::INFINITY, ..area(&b, 0.0, 0.0) },
        g::TextArea { custom_glyphs: &icons, ..area(&b, 0.0, 40.0) },
    ];
    let mut calls = 0;
    let raster = |r: g::RasterizeCustomGlyphRequest| {
        calls += 1;
        let n = r.width as usize * r.height as usize;
        Some(match r.id {
            // The wrong length.
            0 => g::RasterizedCustomGlyph {
                data: vec![255; n + 1],
                content_type: g::ContentType::Mask,
            },
            // Right.
            1 => {
                g::RasterizedCustomGlyph { data: vec![255; n], content_type: g::ContentType::Mask }
            }
            // Right, RGBA.
            _ => g::RasterizedCustomGlyph {
                data: vec![255; n * 4],
                content_type: g::ContentType::Color,
            },
        })
    };
    let Kit { device, queue, atlas, renderer, viewport, swash } = &mut kit;
    renderer
        .prepare_with_depth_and_custom(
            device,
            queue,
            &mut fs,
            atlas,
            viewport,
            areas.clone(),
            swash,
            |m| if m == 0 { 0.5 } else { 5.0 },
            raster,
        )
        .expect("never fails");
    let report = renderer.report().clone();
    assert_eq!(report.areas_skipped, vec![0, 1, 2]);
    assert_eq!(
        report.custom_skipped,
        vec![(3, 0, g::CustomGlyphSkip::WrongLength), (3, 3, g::CustomGlyphSkip::Empty)]
    );
    assert_eq!(report.depth_clipped, 0);
    // "kept" (4 glyphs) and the two right icons.
    assert_eq!(report.instances, 6, "{report:?}");
    assert_eq!(calls, 3);

    // Icon 1 again, now at depth 5: held, so the closure is not asked,
    // and not drawn (glyphon's GPU clips it).
    let mut asked = 0;
    let again = |_: g::RasterizeCustomGlyphRequest| {
        asked += 1;
        None
    };
    let far = [g::CustomGlyph { metadata: 1, ..icon(1) }];
    let areas = [g::TextArea { custom_glyphs: &far, ..area(&b, 0.0, 40.0) }];
    atlas.trim();
    renderer
        .prepare_with_depth_and_custom(
            device,
            queue,
            &mut fs,
            atlas,
            viewport,
            areas,
            swash,
            |m| m as f32 * 5.0,
            again,
        )
        .expect("never fails");
    assert_eq!(asked, 0, "a held icon is not rasterized again");
    assert_eq!(renderer.report().depth_clipped, 1);
    assert_eq!(renderer.report().instances, 4, "the text only");
}

/// `render` before any `prepare` draws nothing and succeeds, as glyphon;
/// with another atlas than it was prepared with, it draws nothing and says
/// so.
#[test]
fn render_errors() {
    let gpu = common::gpu();
    let mut kit = kit_on(gpu.clone());
    let mut fs = common::font_system();
    let target =
        kerf_wgpu::Offscreen::new(&kit.device, 64, 64, wgpu::TextureFormat::Rgba8UnormSrgb)
            .expect("target");
    let mut encoder = kit.device.create_command_encoder(&Default::default());
    {
        let mut pass = target.pass(&mut encoder, wgpu::Color::WHITE);
        assert_eq!(kit.renderer.render(&kit.atlas, &kit.viewport, &mut pass), Ok(()));
        let b = common::buffer(&mut fs, "x", 20.0, 100.0, Family::SansSerif);
        kit.prepare(&mut fs, [area_of(&b)]);
        let other = kit_on(gpu);
        assert_eq!(
            kit.renderer.render(&other.atlas, &kit.viewport, &mut pass),
            Err(g::RenderError::RemovedFromAtlas)
        );
        assert_eq!(kit.renderer.render(&kit.atlas, &kit.viewport, &mut pass), Ok(()));
    }
    kit.queue.submit([encoder.finish()]);
}

/// Renderers preparing between two `trim`s share one kerf frame; without
/// `trim`, a renderer's second prepare starts the next. Counted in kerf's
/// own frames.
#[test]
fn renderers_share_the_frame_trim_ends() {
    let mut kit = kit_on(common::gpu());
    let mut other = g::TextRenderer::new(&mut kit.atlas, &kit.device, Default::default(), None);
    let mut fs = common::font_system();
    let b = common::buffer(&mut fs, "two renderers", 20.0, 400.0, Family::SansSerif);
    let frames = |kit: &Kit| kit.atlas.kerf().cache().stats().frames;
    let start = frames(&kit);
    for n in 1..=4 {
        kit.prepare(&mut fs, [area_of(&b)]);
        let Kit { device, queue, atlas, viewport, swash, .. } = &mut kit;
        other.prepare(device, queue, &mut fs, atlas, viewport, [area_of(&b)], swash).unwrap();
        kit.atlas.trim();
        assert_eq!(frames(&kit) - start, n, "with trim, frame {n}");
    }
    let start = frames(&kit);
    for n in 1..=4 {
        kit.prepare(&mut fs, [area_of(&b)]);
        let Kit { device, queue, atlas, viewport, swash, .. } = &mut kit;
        other.prepare(device, queue, &mut fs, atlas, viewport, [area_of(&b)], swash).unwrap();
        // Each frame's first prepare ends the one before and begins its own.
        assert_eq!(frames(&kit) - start, n, "without trim, frame {n}");
    }
}

/// A custom glyph's image is held for the four frames after it was last
/// drawn (the closure is not asked again), and dropped after: drawn again
/// later, it is asked for again.
#[test]
fn custom_glyph_images_are_held_for_four_frames_after_their_last_use() {
    let mut kit = kit_on(common::gpu());
    let mut fs = common::font_system();
    let b = common::buffer(&mut fs, "", 20.0, 100.0, Family::SansSerif);
    let icon = [g::CustomGlyph { id: 0, width: 12.0, height: 12.0, ..Default::default() }];
    let mut asked = 0;
    let mut colour = false;
    let mut frame = |kit: &mut Kit, with_icon: bool, asked: &mut usize, colour: bool| {
        let icons: &[g::CustomGlyph] = if with_icon { &icon } else { &[] };
        let area = g::TextArea { custom_glyphs: icons, ..area_of(&b) };
        let Kit { device, queue, atlas, renderer, viewport, swash } = kit;
        let raster = |r: g::RasterizeCustomGlyphRequest| {
            *asked += 1;
            let n = r.width as usize * r.height as usize;
            Some(match colour {
                false => g::RasterizedCustomGlyph {
                    data: vec![200; n],
                    content_type: g::ContentType::Mask,
                },
                true => g::RasterizedCustomGlyph {
                    data: vec![200; n * 4],
                    content_type: g::ContentType::Color,
                },
            })
        };
        renderer
            .prepare_with_custom(device, queue, &mut fs, atlas, viewport, [area], swash, raster)
            .unwrap();
        atlas.trim();
    };
    frame(&mut kit, true, &mut asked, colour);
    assert_eq!(asked, 1);
    for _ in 0..3 {
        frame(&mut kit, false, &mut asked, colour);
    }
    frame(&mut kit, true, &mut asked, colour);
    assert_eq!(asked, 1, "held: drawn four frames after its last use");
    for _ in 0..2 {
        frame(&mut kit, false, &mut asked, colour);
    }
    frame(&mut kit, true, &mut asked, colour);
    assert_eq!(asked, 1, "held: its last use counts, not its first");
    for _ in 0..5 {
        frame(&mut kit, false, &mut asked, colour);
    }
    frame(&mut kit, true, &mut asked, colour);
    assert_eq!(asked, 2, "dropped after four frames unused, asked for again");
    assert!(kit.renderer.report().custom_skipped.is_empty(), "the same content type is drawn");
    assert_eq!(kit.renderer.report().instances, 1);
    // Asked again later, the closure answers with another content type for
    // the same glyph: refused (glyphon panics), not drawn.
    for _ in 0..5 {
        frame(&mut kit, false, &mut asked, colour);
    }
    colour = true;
    frame(&mut kit, true, &mut asked, colour);
    assert_eq!(asked, 3);
    let skipped = &kit.renderer.report().custom_skipped;
    assert_eq!(skipped, &vec![(0, 0, g::CustomGlyphSkip::ContentTypeChanged)]);
    assert_eq!(kit.renderer.report().instances, 0);
}

/// `prepare_with_depth` draws at the closure's depths; a depth outside
/// 0..=1 (clipped by glyphon's GPU) is counted and not drawn.
#[test]
fn prepare_with_depth_draws_at_the_closures_depths() {
    let mut kit = kit_on(common::gpu());
    let mut fs = common::font_system();
    let b = common::buffer(&mut fs, "depth", 20.0, 300.0, Family::SansSerif);
    for (depth, drawn, clipped) in [(0.5, 5, 0), (2.0, 0, 5)] {
        let Kit { device, queue, atlas, renderer, viewport, swash } = &mut kit;
        renderer
            .prepare_with_depth(
                device,
                queue,
                &mut fs,
                atlas,
                viewport,
                [area_of(&b)],
                swash,
                |_| depth,
            )
            .unwrap();
        atlas.trim();
        let report = renderer.report();
        assert_eq!((report.instances, report.depth_clipped), (drawn, clipped), "depth {depth}");
    }
    // One buffer at two depths (its spans' metadata): the glyphs in range
    // drawn, the others counted.
    let mut two = common::buffer(&mut fs, "", 20.0, 300.0, Family::SansSerif);
    let attrs = Attrs::new().family(Family::SansSerif);
    two.set_rich_text(
        [("near", attrs.clone().metadata(1)), ("far", attrs.clone().metadata(9))],
        &attrs,
        Shaping::Advanced,
        None,
    );
    two.shape_until_scroll(&mut fs, false);
    for (scale, drawn, clipped) in [(0.1, 7, 0), (0.2, 4, 3)] {
        let Kit { device, queue, atlas, renderer, viewport, swash } = &mut kit;
        renderer
            .prepare_with_depth(
                device,
                queue,
                &mut fs,
                atlas,
                viewport,
                [area_of(&two)],
                swash,
                |m| m as f32 * scale,
            )
            .unwrap();
        atlas.trim();
        let report = renderer.report();
        let got = (report.instances, report.depth_clipped);
        assert_eq!(got, (drawn, clipped), "metadata × {scale}");
    }
}

/// kerf-glyphon draws every size exactly by default (as glyphon); a zoom
/// policy of size steps draws a zooming area from the steps instead (on
/// the transformed path: no axis-aligned instances).
#[test]
fn the_zoom_policy_is_exact_until_set() {
    let mut fs = common::font_system();
    let small = common::buffer(&mut fs, "zoom", 20.0, 300.0, Family::SansSerif);
    let large = common::buffer(&mut fs, "zoom", 23.0, 300.0, Family::SansSerif);
    for steps in [false, true] {
        let mut kit = kit_on(common::gpu());
        if steps {
            kit.renderer.set_zoom_policy(kerf_wgpu::ZoomPolicy::Steps { per_octave: 8 });
        }
        kit.prepare(&mut fs, [area_of(&small)]);
        kit.atlas.trim();
        kit.prepare(&mut fs, [area_of(&large)]);
        let instances = kit.renderer.report().instances;
        assert_eq!(instances, if steps { 0 } else { 4 }, "steps {steps}");
    }
}
