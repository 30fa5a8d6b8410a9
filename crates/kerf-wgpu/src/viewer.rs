//! A debug view of an atlas page: its texels, its free space and its live
//! glyphs, drawn into the caller's pass (the packing picture of a glyph cache).

use crate::atlas::textures::TextAtlas;
use crate::error::UsageError;
use crate::viewport::Viewport;
use bytemuck::{Pod, Zeroable};

/// The WGSL source of the page view (`shaders/common.wgsl` + `shaders/atlas_view.wgsl`).
pub const ATLAS_VIEW_SHADER: &str =
    concat!(include_str!("../shaders/common.wgsl"), include_str!("../shaders/atlas_view.wgsl"));

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
struct ViewInstance {
    rect: [f32; 4],
    tex: [f32; 4],
    kind: u32,
    layer: u32,
}

/// What the page view shows besides the texels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ViewOptions {
    /// Outline the packer's free rectangles (green).
    pub free: bool,
    /// Outline live glyphs (orange).
    pub glyphs: bool,
}

impl Default for ViewOptions {
    fn default() -> Self {
        ViewOptions { free: true, glyphs: false }
    }
}

/// Draws one page of a [`TextAtlas`] at a place and scale on the target.
pub struct AtlasViewer {
    pipeline: wgpu::RenderPipeline,
    buffer: wgpu::Buffer,
    capacity: u64,
    count: u32,
    viewport: Option<wgpu::BindGroup>,
}

impl std::fmt::Debug for AtlasViewer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AtlasViewer").field("instances", &self.count).finish()
    }
}

impl AtlasViewer {
    /// A viewer drawing into passes of `format` (single-sampled, no depth).
    pub fn new(
        device: &wgpu::Device, atlas: &TextAtlas, format: wgpu::TextureFormat,
    ) -> AtlasViewer {
        let shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("kerf atlas view shader"),
            source: wgpu::ShaderSource::Wgsl(crate::draw::pipeline::tables_as(
                ATLAS_VIEW_SHADER,
                atlas.shared.storage_tables,
            )),
        });
        let attributes =
            wgpu::vertex_attr_array![0 => Float32x4, 1 => Float32x4, 2 => Uint32, 3 => Uint32];
        let buffers = [Some(wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<ViewInstance>() as u64,
            step_mode: wgpu::VertexStepMode::Instance,
            attributes: &attributes,
        })];
        let targets = [Some(wgpu::ColorTargetState {
            format,
            blend: Some(wgpu::BlendState::PREMULTIPLIED_ALPHA_BLENDING),
            write_mask: wgpu::ColorWrites::ALL,
        })];
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("kerf atlas view pipeline"),
            layout: Some(&atlas.shared.pipeline_layout),
            vertex: wgpu::VertexState {
                module: &shader,
                entry_point: Some("vs_main"),
                compilation_options: Default::default(),
                buffers: &buffers,
            },
            primitive: wgpu::PrimitiveState {
                topology: wgpu::PrimitiveTopology::TriangleStrip,
                ..Default::default()
            },
            depth_stencil: None,
            multisample: wgpu::MultisampleState::default(),
            fragment: Some(wgpu::FragmentState {
                module: &shader,
                entry_point: Some("fs_main"),
                compilation_options: Default::default(),
                targets: &targets,
            }),
            multiview_mask: None,
            cache: None,
        });
        let capacity = 4096 * std::mem::size_of::<ViewInstance>() as u64;
        AtlasViewer {
            pipeline,
            buffer: view_buffer(device, capacity),
            capacity,
            count: 0,
            viewport: None,
        }
    }

    /// Lays out pages: each `(page, x, y, side)` draws that page with its
    /// top-left corner at `(x, y)`, `side` pixels wide; a page number with
    /// [`COLOR_PAGE_BIT`](kerf_cache::COLOR_PAGE_BIT) names a colour page
    /// (emoji, RGBA images), drawn in its colours. Pages the atlas does not
    /// have draw nothing.
    pub fn prepare(
        &mut self, device: &wgpu::Device, queue: &wgpu::Queue, atlas: &TextAtlas,
        viewport: &Viewport, pages: &[(u32, f32, f32, f32)], options: ViewOptions,
    ) {
        let mut inst = Vec::new();
        for &(page, x, y, side) in pages {
            // A page with COLOR_PAGE_BIT is a colour page (RGBA8).
            let colour = page & kerf_cache::COLOR_PAGE_BIT != 0;
            let set = if colour {
                atlas.cache().color_pages()
            } else {
                Some(atlas.cache().coverage_pages())
            };
            let Some(set) = set else { continue };
            let index = page & !kerf_cache::COLOR_PAGE_BIT;
            let Some(p) = set.pages().get(index as usize) else { continue };
            let n = p.side() as f32;
            let s = side / n;
            inst.push(ViewInstance {
                rect: [x, y, side, side],
                tex: [0.0, 0.0, n, n],
                kind: if colour { 3 } else { 0 },
                layer: index,
            });
            let rect = |r: kerf_cache::pages::Rect, kind| ViewInstance {
                rect: [
                    x + r.x as f32 * s,
                    y + r.y as f32 * s,
                    (r.w as f32 * s).max(1.0),
                    (r.h as f32 * s).max(1.0),
                ],
                tex: [0.0; 4],
                kind,
                layer: index,
            };
            if options.free {
                inst.extend(p.free_rects().into_iter().map(|r| rect(r, 1)));
            }
            if options.glyphs {
                let glyphs: Vec<_> = set
                    .entries()
                    .filter(|(_, e)| e.page == index && !e.is_blank())
                    .map(|(_, e)| e.rect())
                    .collect();
                inst.extend(glyphs.into_iter().map(|r| rect(r, 2)));
            }
        }
        let bytes = (inst.len() * std::mem::size_of::<ViewInstance>()) as u64;
        if bytes > self.capacity {
            self.capacity = bytes.next_power_of_two();
            self.buffer = view_buffer(device, self.capacity);
        }
        if !inst.is_empty() {
            queue.write_buffer(&self.buffer, 0, bytemuck::cast_slice(&inst));
        }
        self.count = inst.len() as u32;
        self.viewport = Some(viewport.bind_group.clone());
    }

    /// Records the view into `pass`.
    pub fn render(
        &self, atlas: &TextAtlas, pass: &mut wgpu::RenderPass<'_>,
    ) -> Result<(), UsageError> {
        let Some(viewport) = &self.viewport else { return Err(UsageError::NotPrepared) };
        crate::renderer::render::draw_quads(
            pass,
            &self.pipeline,
            atlas,
            // The view shader decodes colour texels itself.
            false,
            viewport,
            &self.buffer,
            self.count,
        );
        Ok(())
    }
}

fn view_buffer(device: &wgpu::Device, size: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("kerf atlas view instances"),
        size,
        usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}
