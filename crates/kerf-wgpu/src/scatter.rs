//! Per-glyph uploads on the GPU: a frame's [`GlyphUploads`] go up in one
//! buffer write (region records, then the glyphs' texels packed tightly), and
//! one instanced draw per dirty page layer writes each glyph's rectangle (and
//! its zeroed padding gutter) into the `R8Unorm` page (`shaders/scatter.wgsl`).
//! Bytes uploaded follow bytes rasterized, not the pages' dirty boxes.

use kerf_cache::{GlyphRegion, GlyphUploads};

/// The WGSL source of the upload scatter (`shaders/scatter.wgsl`).
pub const SCATTER_SHADER: &str = include_str!("../../../shaders/scatter.wgsl");

/// Smallest upload buffer (grown by doubling).
const MIN_BUFFER: u64 = 64 << 10;

/// The scatter pipeline and its upload buffer, per atlas.
pub(crate) struct Scatter {
    pipeline: wgpu::RenderPipeline,
    layout: wgpu::BindGroupLayout,
    page_uniform: wgpu::Buffer,
    buffer: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    capacity: u64,
}

/// True when `device` can run the scatter (a storage buffer readable from
/// the fragment stage); otherwise the atlas uploads dirty rectangles.
pub(crate) fn supported(device: &wgpu::Device) -> bool {
    device.limits().max_storage_buffers_per_shader_stage >= 1
}

impl Scatter {
    /// A scatter into `R8Unorm` coverage pages, or (`rgba`) `Rgba8Unorm` colour pages.
    pub(crate) fn new(device: &wgpu::Device, side: u32, padding: u32, rgba: bool) -> Scatter {
        let shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("kerf upload scatter shader"),
            source: wgpu::ShaderSource::Wgsl(SCATTER_SHADER.into()),
        });
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("kerf upload scatter layout"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::VERTEX,
                    ty: wgpu::BindingType::Buffer { ty: wgpu::BufferBindingType::Uniform, has_dynamic_offset: false, min_binding_size: wgpu::BufferSize::new(16) },
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
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("kerf upload scatter pipeline layout"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        // kerf_cache::GlyphRegion: x, y, width, height: u16; offset: u32.
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
            primitive: wgpu::PrimitiveState { topology: wgpu::PrimitiveTopology::TriangleStrip, ..Default::default() },
            depth_stencil: None,
            multisample: wgpu::MultisampleState::default(),
            fragment: Some(wgpu::FragmentState {
                module: &shader,
                entry_point: Some(if rgba { "fs_scatter_rgba" } else { "fs_scatter" }),
                compilation_options: Default::default(),
                targets: &[Some(wgpu::ColorTargetState {
                    format: if rgba { wgpu::TextureFormat::Rgba8Unorm } else { wgpu::TextureFormat::R8Unorm },
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
        let buffer = upload_buffer(device, MIN_BUFFER);
        let bind_group = bind(device, &layout, &page_uniform, &buffer);
        Scatter { pipeline, layout, page_uniform, buffer, bind_group, capacity: MIN_BUFFER }
    }

    /// Writes `up` into the page layers (`layer_views[n]` is page n):
    /// one `write_buffer_with` for the whole frame, one render pass and
    /// one instanced draw per page touched, submitted at once (so the
    /// caller's draws, submitted later, see the new texels). Returns
    /// (draws, bytes written).
    pub(crate) fn apply(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, layer_views: &[wgpu::TextureView], up: &GlyphUploads) -> (u32, u64) {
        if up.is_empty() {
            return (0, 0);
        }
        // Texels first (the records' offsets are byte offsets from the
        // buffer's start), then the records at the next multiple of 4 (the
        // vertex buffer's alignment); storage words are read whole.
        let records = bytemuck::cast_slice::<GlyphRegion, u8>(&up.regions);
        let records_at = up.bytes.len().next_multiple_of(4);
        let total = ((records_at + records.len()).max(4) as u64).next_multiple_of(4);
        if total > self.capacity {
            self.capacity = total.next_power_of_two();
            self.buffer = upload_buffer(device, self.capacity);
            self.bind_group = bind(device, &self.layout, &self.page_uniform, &self.buffer);
        }
        let Some(size) = wgpu::BufferSize::new(total) else { return (0, 0) };
        let Some(mut view) = queue.write_buffer_with(&self.buffer, 0, size) else { return (0, 0) };
        view.slice(..up.bytes.len()).copy_from_slice(&up.bytes);
        view.slice(records_at..records_at + records.len()).copy_from_slice(records);
        drop(view);
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("kerf upload scatter") });
        let mut draws = 0;
        for p in &up.pages {
            let Some(target) = layer_views.get(p.page as usize) else { continue };
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("kerf upload scatter pass"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: target,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: if p.clear { wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT) } else { wgpu::LoadOp::Load },
                        store: wgpu::StoreOp::Store,
                    },
                })],
                ..Default::default()
            });
            if p.count > 0 {
                pass.set_pipeline(&self.pipeline);
                pass.set_bind_group(0, &self.bind_group, &[]);
                pass.set_vertex_buffer(0, self.buffer.slice(records_at as u64..(records_at + records.len()) as u64));
                pass.draw(0..4, p.first..p.first + p.count);
            }
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
        usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

fn bind(device: &wgpu::Device, layout: &wgpu::BindGroupLayout, page: &wgpu::Buffer, buffer: &wgpu::Buffer) -> wgpu::BindGroup {
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("kerf upload scatter bind group"),
        layout,
        entries: &[
            wgpu::BindGroupEntry { binding: 0, resource: page.as_entire_binding() },
            wgpu::BindGroupEntry { binding: 1, resource: buffer.as_entire_binding() },
        ],
    })
}
