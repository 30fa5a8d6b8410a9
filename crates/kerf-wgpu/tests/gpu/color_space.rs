//! The colour space a renderer writes in (`PipelineKey::linear_light`,
//! set apart from the target's format for glyphon's colour modes), and the
//! depth a viewport writes (`Viewport::set_depth`).

use super::common::*;
use kerf_wgpu::*;

/// A solid grey bar (a decoration: full coverage) drawn with `key` into a
/// target of the key's format; the red byte at the bar's middle.
fn bar_byte(key: PipelineKey, grey: u8) -> u8 {
    static BAR: [Decoration; 1] =
        [Decoration { x: 0, y: 0, width: 16, height: 8, color: [0, 0, 0, 255] }];
    let (device, queue) = gpu();
    let mut atlas = TextAtlas::new(&device, CacheConfig::default()).unwrap();
    let font = atlas.add_font(sans()).unwrap();
    let format = key.format;
    let mut renderer = TextRenderer::with_key(&device, &atlas, key);
    let mut vp = Viewport::new(&device, &atlas);
    vp.update(&queue, 16, 8);
    vp.set_correction(&queue, TextCorrection::NEUTRAL).unwrap();
    let bar = [Decoration { color: [grey, grey, grey, 255], ..BAR[0] }];
    let area = TextArea::text(TextSpec::new("", font, 12.0), 0.0, 0.0).with_decorations(&bar);
    renderer.prepare(&device, &queue, &mut atlas, &[area], &vp).unwrap();
    let target = Offscreen::new(&device, 16, 8, format).unwrap();
    let px = draw_and_read(&device, &queue, &renderer, &atlas, &target, wgpu::Color::BLACK);
    px[(4 * 16 + 8) * 4]
}

#[test]
fn colours_are_written_in_the_space_the_key_says() {
    let ms = wgpu::MultisampleState::default();
    let srgb = wgpu::TextureFormat::Rgba8UnormSrgb;
    let linear = wgpu::TextureFormat::Rgba8Unorm;
    assert!(PipelineKey::new(srgb, ms, None).linear_light);
    assert!(!PipelineKey::new(linear, ms, None).linear_light);
    // An sRGB target, colours decoded first: stored as given.
    let stored = bar_byte(PipelineKey::new(srgb, ms, None), 128);
    assert!(stored.abs_diff(128) <= 1, "{stored}");
    // Not decoded (glyphon's Web mode): 128/255 taken as linear light and
    // encoded by the target, sRGB(0.502) = 0.7354 → 188.
    let web =
        bar_byte(PipelineKey { linear_light: false, ..PipelineKey::new(srgb, ms, None) }, 128);
    assert!(web.abs_diff(188) <= 1, "{web}");
    // A linear target: as given, or decoded (glyphon's Accurate mode):
    // linear(0.502) = 0.2159 → 55.
    let plain = bar_byte(PipelineKey::new(linear, ms, None), 128);
    assert!(plain.abs_diff(128) <= 1, "{plain}");
    let decoded =
        bar_byte(PipelineKey { linear_light: true, ..PipelineKey::new(linear, ms, None) }, 128);
    assert!(decoded.abs_diff(55) <= 1, "{decoded}");
}

/// A viewport's depth is what its text writes and is tested with: behind
/// a depth of 0.5 cleared into the attachment, text at 0.7 is hidden and
/// text at 0.3 drawn. Depths outside 0..=1 are refused and change nothing.
#[test]
fn a_viewports_depth_is_written_for_its_text() {
    let (device, queue) = gpu();
    let mut atlas = TextAtlas::new(&device, CacheConfig::default()).unwrap();
    let font = atlas.add_font(sans()).unwrap();
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let state = wgpu::DepthStencilState {
        format: wgpu::TextureFormat::Depth32Float,
        depth_write_enabled: Some(true),
        depth_compare: Some(wgpu::CompareFunction::Less),
        stencil: Default::default(),
        bias: Default::default(),
    };
    let (w, h) = (64u32, 32u32);
    let mut vp = Viewport::new(&device, &atlas);
    vp.update(&queue, w, h);
    assert_eq!(vp.depth(), 0.0);
    for bad in [1.5, -0.1, f32::NAN] {
        assert!(vp.set_depth(&queue, bad).is_err(), "{bad}");
        assert_eq!(vp.depth(), 0.0, "unchanged after {bad}");
    }
    let target = Offscreen::new(&device, w, h, format).unwrap();
    let depth = device.create_texture(&wgpu::TextureDescriptor {
        label: None,
        size: wgpu::Extent3d { width: w, height: h, depth_or_array_layers: 1 },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: state.format,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
        view_formats: &[],
    });
    let depth_view = depth.create_view(&Default::default());
    let mut ink_at = |z: f32| -> usize {
        vp.set_depth(&queue, z).unwrap();
        assert_eq!(vp.depth(), z);
        let mut renderer =
            TextRenderer::new(&device, &atlas, format, Default::default(), Some(state.clone()));
        let spec = TextSpec::new("Hg", font, 24.0).color([255, 255, 255, 255]);
        renderer
            .prepare(&device, &queue, &mut atlas, &[TextArea::text(spec, 2.0, 2.0)], &vp)
            .unwrap();
        let mut enc = device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: None,
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &target.view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &depth_view,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(0.5),
                        store: wgpu::StoreOp::Store,
                    }),
                    stencil_ops: None,
                }),
                ..Default::default()
            });
            renderer.render(&atlas, &mut pass).unwrap();
        }
        queue.submit([enc.finish()]);
        target.read(&device, &queue).unwrap().chunks(4).filter(|p| p[0] > 128).count()
    };
    assert!(ink_at(0.3) > 40, "in front of the cleared depth: drawn");
    assert_eq!(ink_at(0.7), 0, "behind it: hidden");
}
