//! One drawing harness written once against glyphon 0.12's API and built
//! twice, against glyphon itself and against kerf-glyphon (the macro
//! `side!`), so that both draw from the same code, the same buffers and
//! the same font system; and the picture comparison.

#![allow(dead_code)]

use cosmic_text::{Attrs, Buffer, Family, FontSystem, Metrics, Shaping};

/// A device for both sides, or a failure naming what to install.
pub fn gpu() -> (wgpu::Device, wgpu::Queue) {
    kerf_wgpu::headless_device().unwrap_or_else(|e| {
        panic!("{e}: install a GPU driver, or Mesa's lavapipe (Debian: mesa-vulkan-drivers)")
    })
}

/// A font system of the DejaVu faces only (no system fonts: the same on
/// every machine).
pub fn font_system() -> FontSystem {
    let mut fs = FontSystem::new_with_locale_and_db("en-US".into(), Default::default());
    for face in [
        dejavu::sans::regular(),
        dejavu::sans::bold(),
        dejavu::sans::oblique(),
        dejavu::serif::regular(),
        dejavu::sans_mono::regular(),
    ] {
        fs.db_mut().load_font_data(face.to_vec());
    }
    fs
}

/// A shaped buffer of `text` at `size` px (line height 1.3 em), `width` wide.
pub fn buffer(
    fs: &mut FontSystem, text: &str, size: f32, width: f32, family: Family<'_>,
) -> Buffer {
    let mut b = Buffer::new(fs, Metrics::new(size, (size * 1.3).round()));
    b.set_size(Some(width), None);
    b.set_text(text, &Attrs::new().family(family), Shaping::Advanced, None);
    b.shape_until_scroll(fs, false);
    b
}

/// A custom glyph as both sides take it.
#[derive(Clone, Copy, Debug)]
pub struct Custom {
    pub id: u16,
    pub left: f32,
    pub top: f32,
    pub width: f32,
    pub height: f32,
    pub color: Option<[u8; 4]>,
    pub snap: bool,
    pub metadata: usize,
}

/// One text area as both sides take it.
#[derive(Clone, Debug)]
pub struct Area {
    pub buffer: usize,
    pub left: f32,
    pub top: f32,
    pub scale: f32,
    pub bounds: Option<[i32; 4]>,
    pub color: [u8; 4],
    pub custom: Vec<Custom>,
}

impl Area {
    /// Buffer `buffer` at (`left`, `top`), scale 1, unclipped, near black.
    pub fn at(buffer: usize, left: f32, top: f32) -> Area {
        Area {
            buffer,
            left,
            top,
            scale: 1.0,
            bounds: None,
            color: [20, 30, 80, 255],
            custom: Vec::new(),
        }
    }
}

/// The target and what the atlas and renderers are made with.
#[derive(Clone, Copy, Debug)]
pub struct Setup {
    pub size: (u32, u32),
    pub format: wgpu::TextureFormat,
    /// glyphon's `ColorMode::Web` (else `Accurate`).
    pub web: bool,
    /// A depth attachment, and glyph depths from their metadata
    /// (`prepare_with_depth_and_custom`: depth = metadata / 10).
    pub depth: bool,
}

impl Setup {
    pub fn new(width: u32, height: u32) -> Setup {
        Setup {
            size: (width, height),
            format: wgpu::TextureFormat::Rgba8UnormSrgb,
            web: false,
            depth: false,
        }
    }
}

/// The custom glyph images: id 0 a coverage disc, id 1 an RGBA gradient
/// with a translucent edge, id 2 nothing (the closure returns `None`).
/// `Some((data, is_colour))`.
pub fn rasterize(id: u16, width: u16, height: u16) -> Option<(Vec<u8>, bool)> {
    let (w, h) = (width as usize, height as usize);
    match id {
        0 => {
            let mut data = vec![0u8; w * h];
            let (cx, cy, r) = (w as f32 / 2.0, h as f32 / 2.0, w.min(h) as f32 / 2.0);
            for y in 0..h {
                for x in 0..w {
                    let d = ((x as f32 + 0.5 - cx).powi(2) + (y as f32 + 0.5 - cy).powi(2)).sqrt();
                    data[y * w + x] = ((r - d + 0.5).clamp(0.0, 1.0) * 255.0) as u8;
                }
            }
            Some((data, false))
        }
        1 => {
            let mut data = vec![0u8; w * h * 4];
            for y in 0..h {
                for x in 0..w {
                    let p = &mut data[(y * w + x) * 4..][..4];
                    p[0] = (x * 255 / w.max(1)) as u8;
                    p[1] = (y * 255 / h.max(1)) as u8;
                    p[2] = 160;
                    p[3] = if x == 0 || y == 0 { 128 } else { 255 };
                }
            }
            Some((data, true))
        }
        _ => None,
    }
}

/// Defines `fn $name(gpu, fs, buffers, frames, setup, edit) -> Vec<Vec<u8>>`
/// drawing `frames` (each a list of areas) with crate `$g` (glyphon's API):
/// one atlas, one renderer, a white clear, the pass, the submit, `trim`,
/// the target read back after each frame. `edit(frame, buffers, fs)` runs
/// before each frame.
#[macro_export]
macro_rules! side {
    ($name:ident, $g:ident) => {
        #[allow(clippy::too_many_arguments)]
        pub fn $name(
            (device, queue): &(wgpu::Device, wgpu::Queue), fs: &mut cosmic_text::FontSystem,
            buffers: &mut [cosmic_text::Buffer], frames: &[Vec<$crate::common::Area>],
            setup: $crate::common::Setup,
            edit: &mut dyn FnMut(usize, &mut [cosmic_text::Buffer], &mut cosmic_text::FontSystem),
        ) -> Vec<Vec<u8>> {
            use $g as g;
            let cache = g::Cache::new(device);
            let mode = if setup.web { g::ColorMode::Web } else { g::ColorMode::Accurate };
            let mut atlas =
                g::TextAtlas::with_color_mode(device, queue, &cache, setup.format, mode);
            let depth_format = wgpu::TextureFormat::Depth32Float;
            let depth_state = setup.depth.then(|| wgpu::DepthStencilState {
                format: depth_format,
                depth_write_enabled: Some(true),
                depth_compare: Some(wgpu::CompareFunction::Less),
                stencil: Default::default(),
                bias: Default::default(),
            });
            let mut renderer = g::TextRenderer::new(
                &mut atlas,
                device,
                wgpu::MultisampleState::default(),
                depth_state,
            );
            let mut viewport = g::Viewport::new(device, &cache);
            let mut swash = g::SwashCache::new();
            let (w, h) = setup.size;
            viewport.update(queue, g::Resolution { width: w, height: h });
            let target = kerf_wgpu::Offscreen::new(device, w, h, setup.format).expect("target");
            let depth_texture = device.create_texture(&wgpu::TextureDescriptor {
                label: None,
                size: wgpu::Extent3d { width: w, height: h, depth_or_array_layers: 1 },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: depth_format,
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
                view_formats: &[],
            });
            let depth_view = depth_texture.create_view(&Default::default());
            let mut pictures = Vec::new();
            for (f, areas) in frames.iter().enumerate() {
                edit(f, buffers, fs);
                let customs: Vec<Vec<g::CustomGlyph>> = areas
                    .iter()
                    .map(|a| {
                        a.custom
                            .iter()
                            .map(|c| g::CustomGlyph {
                                id: c.id,
                                left: c.left,
                                top: c.top,
                                width: c.width,
                                height: c.height,
                                color: c.color.map(|[r, gg, b, al]| g::Color::rgba(r, gg, b, al)),
                                snap_to_physical_pixel: c.snap,
                                metadata: c.metadata,
                            })
                            .collect()
                    })
                    .collect();
                let text = areas.iter().zip(&customs).map(|(a, custom)| {
                    let [r, gg, b, al] = a.color;
                    let bounds = match a.bounds {
                        Some([left, top, right, bottom]) => {
                            g::TextBounds { left, top, right, bottom }
                        }
                        None => g::TextBounds::default(),
                    };
                    g::TextArea {
                        buffer: &buffers[a.buffer],
                        left: a.left,
                        top: a.top,
                        scale: a.scale,
                        bounds,
                        default_color: g::Color::rgba(r, gg, b, al),
                        custom_glyphs: custom,
                    }
                });
                let raster = |r: g::RasterizeCustomGlyphRequest| {
                    let (data, colour) = $crate::common::rasterize(r.id, r.width, r.height)?;
                    let content_type =
                        if colour { g::ContentType::Color } else { g::ContentType::Mask };
                    Some(g::RasterizedCustomGlyph { data, content_type })
                };
                renderer
                    .prepare_with_depth_and_custom(
                        device,
                        queue,
                        fs,
                        &mut atlas,
                        &viewport,
                        text,
                        &mut swash,
                        |m| m as f32 / 10.0,
                        raster,
                    )
                    .expect("prepare");
                let mut encoder = device.create_command_encoder(&Default::default());
                {
                    let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                        label: None,
                        color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                            view: &target.view,
                            depth_slice: None,
                            resolve_target: None,
                            ops: wgpu::Operations {
                                load: wgpu::LoadOp::Clear(wgpu::Color::WHITE),
                                store: wgpu::StoreOp::Store,
                            },
                        })],
                        depth_stencil_attachment: setup.depth.then(|| {
                            wgpu::RenderPassDepthStencilAttachment {
                                view: &depth_view,
                                depth_ops: Some(wgpu::Operations {
                                    load: wgpu::LoadOp::Clear(1.0),
                                    store: wgpu::StoreOp::Store,
                                }),
                                stencil_ops: None,
                            }
                        }),
                        ..Default::default()
                    });
                    renderer.render(&atlas, &viewport, &mut pass).expect("render");
                }
                queue.submit([encoder.finish()]);
                atlas.trim();
                pictures.push(target.read(device, queue).expect("read back"));
            }
            pictures
        }
    };
}

/// How two RGBA pictures differ: the mean absolute difference of their
/// channels (in 1/255 steps), and the share of pixels with a channel off
/// by more than 32/255.
pub fn difference(a: &[u8], b: &[u8]) -> (f64, f64) {
    assert_eq!(a.len(), b.len());
    let sum: u64 = a.iter().zip(b).map(|(x, y)| u64::from(x.abs_diff(*y))).sum();
    let pixels = a.len() / 4;
    let off = a
        .chunks_exact(4)
        .zip(b.chunks_exact(4))
        .filter(|(p, q)| p.iter().zip(q.iter()).any(|(x, y)| x.abs_diff(*y) > 32))
        .count();
    (sum as f64 / a.len() as f64, off as f64 / pixels as f64)
}

/// Pixels of `picture` that are not the white background.
pub fn inked(picture: &[u8]) -> usize {
    picture.chunks_exact(4).filter(|p| p[..3].iter().any(|&c| c < 250)).count()
}

/// Asserts the bounds: mean ≤ 1/255, ≤ 0.5% of pixels off by more
/// than 32/255, and both pictures inked (a blank pair proves nothing).
pub fn assert_same(what: &str, glyphon: &[u8], kerf: &[u8], min_ink: usize) {
    let (mean, off) = difference(glyphon, kerf);
    let (ink_g, ink_k) = (inked(glyphon), inked(kerf));
    eprintln!(
        "{what}: mean difference {mean:.3}/255, {:.3}% of pixels off by > 32, ink {ink_g} / {ink_k}",
        off * 100.0
    );
    assert!(ink_g >= min_ink && ink_k >= min_ink, "{what}: too little drawn ({ink_g}, {ink_k})");
    assert!(mean <= 1.0, "{what}: mean difference {mean:.3}/255 above 1/255");
    assert!(off <= 0.005, "{what}: {:.3}% of pixels off by more than 32/255", off * 100.0);
}
