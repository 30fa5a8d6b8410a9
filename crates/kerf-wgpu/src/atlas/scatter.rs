//! Per-glyph uploads on the GPU: a frame's [`GlyphUploads`] (one per page,
//! both atlases) go up in one buffer write (the glyphs' texels packed
//! tightly, then the region records), and one instanced draw per dirty page
//! layer writes each glyph's rectangle (and
//! its zeroed padding gutter) into the `R8Unorm` page (`shaders/scatter.wgsl`).
//! Bytes uploaded follow bytes rasterized, not the pages' dirty boxes.

use kerf_cache::pages::{GlyphRegion, GlyphUploads, Page, TexelFormat};
use std::iter::repeat_n;

/// One page's glyph uploads as the scatter writes them: the layer views of
/// the array its atlas is in, the uploads, and the page's CPU copy (where
/// the texels are read from when the uploads do not carry them).
pub(crate) struct Scattered<'a> {
    /// The layer views of the page's texture array.
    pub layers: &'a [wgpu::TextureView],
    /// The page's new glyphs.
    pub uploads: &'a GlyphUploads,
    /// The page's CPU copy.
    pub page: &'a Page,
}

/// The WGSL source of the upload scatter (`shaders/scatter.wgsl`).
pub const SCATTER_SHADER: &str = include_str!("../../shaders/scatter.wgsl");

/// Smallest upload buffer (grown by doubling).
const MIN_BUFFER: u64 = 64 << 10;

/// The scatter of one atlas: the upload buffer, shared by its page sets,
/// and a pipeline per page set (coverage, and colour once it exists).
pub(crate) struct Scatter {
    layout: wgpu::BindGroupLayout,
    sets: Vec<SetScatter>,
    buffer: wgpu::Buffer,
    capacity: u64,
}

/// One page set's pipeline, its page uniform (side, padding) and its bind
/// group (the uniform and the shared upload buffer).
struct SetScatter {
    pipeline: wgpu::RenderPipeline,
    page_uniform: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
}

impl Scatter {
    /// A scatter for the coverage pages (`side`, `padding`).
    pub(crate) fn new(device: &wgpu::Device, side: u32, padding: u32) -> Scatter {
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("kerf upload scatter layout"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::VERTEX,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: wgpu::BufferSize::new(16),
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Storage { read_only: true },
                        has_dynamic_offset: false,
                        min_binding_size: wgpu::BufferSize::new(4),
                    },
                    count: None,
                },
            ],
        });
        let buffer = upload_buffer(device, MIN_BUFFER);
        let mut scatter = Scatter { layout, sets: Vec::new(), buffer, capacity: MIN_BUFFER };
        scatter.add_set(device, side, padding, false);
        scatter
    }

    /// True once the colour pages' set is made.
    pub(crate) fn has_color(&self) -> bool {
        self.sets.len() > 1
    }

    /// Forgets the colour pages' set (its pages were made anew).
    pub(crate) fn drop_color(&mut self) {
        self.sets.truncate(1);
    }

    /// Adds (or replaces) the colour pages' set: `side`, `padding`, RGBA texels.
    pub(crate) fn set_color(&mut self, device: &wgpu::Device, side: u32, padding: u32) {
        self.sets.truncate(1);
        self.add_set(device, side, padding, true);
    }

    fn add_set(&mut self, device: &wgpu::Device, side: u32, padding: u32, rgba: bool) {
        let shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("kerf upload scatter shader"),
            source: wgpu::ShaderSource::Wgsl(SCATTER_SHADER.into()),
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("kerf upload scatter pipeline layout"),
            bind_group_layouts: &[Some(&self.layout)],
            immediate_size: 0,
        });
        // kerf_cache::pages::GlyphRegion: x, y, width, height: u16; offset: u32.
        let attributes = wgpu::vertex_attr_array![0 => Uint16x4, 1 => Uint32];
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("kerf upload scatter"),
            layout: Some(&pipeline_layout),
            vertex: wgpu::VertexState {
                module: &shader,
                entry_point: Some("vs_scatter"),
                compilation_options: Default::default(),
                buffers: &[Some(wgpu::VertexBufferLayout {
                    array_stride: GlyphUploads::REGION_BYTES as u64,
                    step_mode: wgpu::VertexStepMode::Instance,
                    attributes: &attributes,
                })],
            },
            primitive: wgpu::PrimitiveState {
                topology: wgpu::PrimitiveTopology::TriangleStrip,
                ..Default::default()
            },
            depth_stencil: None,
            multisample: wgpu::MultisampleState::default(),
            fragment: Some(wgpu::FragmentState {
                module: &shader,
                entry_point: Some(if rgba { "fs_scatter_rgba" } else { "fs_scatter" }),
                compilation_options: Default::default(),
                targets: &[Some(wgpu::ColorTargetState {
                    format: if rgba {
                        wgpu::TextureFormat::Rgba8Unorm
                    } else {
                        wgpu::TextureFormat::R8Unorm
                    },
                    blend: None,
                    write_mask: if rgba { wgpu::ColorWrites::ALL } else { wgpu::ColorWrites::RED },
                })],
            }),
            multiview_mask: None,
            cache: None,
        });
        let page_uniform = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("kerf upload scatter page"),
            size: 16,
            usage: wgpu::BufferUsages::UNIFORM,
            mapped_at_creation: true,
        });
        if let Ok(mut view) = page_uniform.slice(..).get_mapped_range_mut() {
            let mut data = [0u8; 16];
            data[0..4].copy_from_slice(&(side as f32).to_le_bytes());
            data[4..8].copy_from_slice(&padding.to_le_bytes());
            view.copy_from_slice(&data);
        }
        page_uniform.unmap();
        let bind_group = bind(device, &self.layout, &page_uniform, &self.buffer);
        self.sets.push(SetScatter { pipeline, page_uniform, bind_group });
    }

    /// Writes the glyph uploads of a frame into their pages: **one**
    /// `write_buffer_with` for the frame (every page's texels, read row by
    /// row from the uploads or the page's CPU copy straight into wgpu's
    /// staging, then every page's records), one render pass and one
    /// instanced draw per page, submitted at once (so the caller's draws,
    /// submitted later, see the new texels). Coverage pages use the first
    /// pipeline, colour pages the colour one ([`set_color`](Self::set_color)).
    /// Returns (draws, bytes written).
    pub(crate) fn apply(
        &mut self, device: &wgpu::Device, queue: &wgpu::Queue, pages: &[Scattered<'_>],
    ) -> (u32, u64) {
        if pages.is_empty() {
            return (0, 0);
        }
        // Texels first, each page's at a multiple of 4 (an RGBA texel is one
        // storage word); then the records, each page's offsets moved to where
        // its texels start. The vertex buffer needs 4-byte alignment too.
        let mut texels_at = Vec::with_capacity(pages.len());
        let mut end = 0usize;
        for p in pages {
            texels_at.push(end);
            end = (end + p.uploads.texel_bytes()).next_multiple_of(4);
        }
        let records_start = end;
        let records: Vec<GlyphRegion> = pages
            .iter()
            .zip(&texels_at)
            .flat_map(|(p, &base)| {
                let regions = p.uploads.regions.iter();
                regions.map(move |r| GlyphRegion { offset: r.offset + base as u32, ..*r })
            })
            .collect();
        end += records.len() * GlyphUploads::REGION_BYTES;
        let total = (end.max(4) as u64).next_multiple_of(4);
        if total > self.capacity {
            self.capacity = total.next_power_of_two();
            self.buffer = upload_buffer(device, self.capacity);
            for set in &mut self.sets {
                set.bind_group = bind(device, &self.layout, &set.page_uniform, &self.buffer);
            }
        }
        let Some(size) = wgpu::BufferSize::new(total) else { return (0, 0) };
        let Some(mut view) = queue.write_buffer_with(&self.buffer, 0, size) else { return (0, 0) };
        for (p, &at) in pages.iter().zip(&texels_at) {
            // Row after row, each where the last ended: a region's rows are
            // its width apart whatever is read (a row the page does not
            // hold, which none should, leaves its bytes as they were).
            let b = p.uploads.bytes_per_texel() as usize;
            let widths = p.uploads.regions.iter();
            let widths = widths.flat_map(|r| repeat_n(r.width as usize * b, r.height as usize));
            let mut rest = view.slice(at..at + p.uploads.texel_bytes());
            for (w, row) in widths.zip(p.uploads.texel_rows(p.page)) {
                let (mut head, tail) = rest.split_at(w);
                if row.len() == w {
                    head.copy_from_slice(row);
                }
                rest = tail;
            }
        }
        let bytes = bytemuck::cast_slice::<GlyphRegion, u8>(&records);
        view.slice(records_start..records_start + bytes.len()).copy_from_slice(bytes);
        drop(view);
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("kerf upload scatter"),
        });
        let span = records_start as u64..(records_start + bytes.len()) as u64;
        let (mut draws, mut first) = (0, 0u32);
        for Scattered { layers: layer_views, uploads: up, .. } in pages {
            let count = up.regions.len() as u32;
            let set = match up.atlas {
                TexelFormat::Coverage => self.sets.first(),
                TexelFormat::Rgba => self.sets.get(1),
            };
            let (Some(set), Some(target)) = (set, layer_views.get(up.page as usize)) else {
                first += count;
                continue;
            };
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("kerf upload scatter pass"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: target,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: if up.clear {
                            wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT)
                        } else {
                            wgpu::LoadOp::Load
                        },
                        store: wgpu::StoreOp::Store,
                    },
                })],
                ..Default::default()
            });
            if count > 0 {
                pass.set_pipeline(&set.pipeline);
                pass.set_bind_group(0, &set.bind_group, &[]);
                pass.set_vertex_buffer(0, self.buffer.slice(span.clone()));
                pass.draw(0..4, first..first + count);
            }
            first += count;
            draws += 1;
        }
        queue.submit([encoder.finish()]);
        (draws, total)
    }
}

fn upload_buffer(device: &wgpu::Device, size: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("kerf glyph uploads"),
        size,
        usage: wgpu::BufferUsages::VERTEX
            | wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

fn bind(
    device: &wgpu::Device, layout: &wgpu::BindGroupLayout, page: &wgpu::Buffer,
    buffer: &wgpu::Buffer,
) -> wgpu::BindGroup {
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("kerf upload scatter bind group"),
        layout,
        entries: &[
            wgpu::BindGroupEntry { binding: 0, resource: page.as_entire_binding() },
            wgpu::BindGroupEntry { binding: 1, resource: buffer.as_entire_binding() },
        ],
    })
}
