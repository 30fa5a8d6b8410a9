//! Rendering without a window: an offscreen target, and reading textures back.

use thiserror::Error;

/// Why a texture could not be read back.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum ReadbackError {
    /// The format has no fixed texel size to copy (compressed, depth-stencil).
    #[error("texture format {0:?} cannot be copied texel by texel")]
    Format(wgpu::TextureFormat),
    /// Mapping the read-back buffer failed.
    #[error("mapping the read-back buffer failed: {0}")]
    Map(String),
    /// Waiting for the device failed (device lost, timeout).
    #[error("waiting for the device failed: {0}")]
    Poll(String),
}

/// Reads every layer of mip 0 of `texture` (which needs `COPY_SRC` usage)
/// into tightly packed rows, layer after layer, in the texture's own byte
/// order. Blocks until the copy is done.
pub fn read_texture(
    device: &wgpu::Device, queue: &wgpu::Queue, texture: &wgpu::Texture,
) -> Result<Vec<u8>, ReadbackError> {
    let format = texture.format();
    let texel = format.block_copy_size(None).ok_or(ReadbackError::Format(format))?;
    let (w, h, layers) = (texture.width(), texture.height(), texture.depth_or_array_layers());
    let tight = w * texel;
    let row =
        tight.div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("kerf read-back buffer"),
        size: row as u64 * h as u64 * layers as u64,
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    let mut encoder = device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("kerf read-back") });
    encoder.copy_texture_to_buffer(
        texture.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &buffer,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(row),
                rows_per_image: Some(h),
            },
        },
        wgpu::Extent3d { width: w, height: h, depth_or_array_layers: layers },
    );
    queue.submit([encoder.finish()]);
    let slice = buffer.slice(..);
    let (tx, rx) = std::sync::mpsc::channel();
    slice.map_async(wgpu::MapMode::Read, move |r| {
        let _ = tx.send(r);
    });
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| ReadbackError::Poll(e.to_string()))?;
    match rx.recv() {
        Ok(Ok(())) => {}
        Ok(Err(e)) => return Err(ReadbackError::Map(e.to_string())),
        Err(e) => return Err(ReadbackError::Map(e.to_string())),
    }
    let data = slice.get_mapped_range().map_err(|e| ReadbackError::Map(e.to_string()))?;
    let mut out = Vec::with_capacity(tight as usize * h as usize * layers as usize);
    for r in 0..(h * layers) as usize {
        out.extend_from_slice(&data[r * row as usize..][..tight as usize]);
    }
    drop(data);
    buffer.unmap();
    Ok(out)
}

/// A single-sampled texture to render into and read back (`RENDER_ATTACHMENT | COPY_SRC`).
#[derive(Debug)]
pub struct Offscreen {
    /// The texture.
    pub texture: wgpu::Texture,
    /// A view of it, for colour attachments.
    pub view: wgpu::TextureView,
}

/// Why an offscreen target could not be made.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum TargetError {
    /// A side is longer than the device's 2D texture limit.
    #[error("offscreen target {width}×{height} px exceeds the device's limit of {limit} px a side (draw it in strips, or at a smaller size)")]
    TooLarge {
        /// Width asked.
        width: u32,
        /// Height asked.
        height: u32,
        /// The device's `max_texture_dimension_2d`.
        limit: u32,
    },
}

impl Offscreen {
    /// A `width × height` target of `format` (a side of 0 is made 1). A side
    /// over the device's 2D texture limit is [`TargetError::TooLarge`], not
    /// a wgpu validation panic.
    pub fn new(
        device: &wgpu::Device, width: u32, height: u32, format: wgpu::TextureFormat,
    ) -> Result<Offscreen, TargetError> {
        let limit = device.limits().max_texture_dimension_2d;
        if width > limit || height > limit {
            return Err(TargetError::TooLarge { width, height, limit });
        }
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("kerf offscreen target"),
            size: wgpu::Extent3d {
                width: width.max(1),
                height: height.max(1),
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let view = texture.create_view(&wgpu::TextureViewDescriptor {
            label: Some("kerf offscreen view"),
            ..Default::default()
        });
        Ok(Offscreen { texture, view })
    }

    /// Begins a render pass on this target that first clears it to `clear`
    /// (linear values for sRGB formats, as wgpu defines).
    pub fn pass<'e>(
        &self, encoder: &'e mut wgpu::CommandEncoder, clear: wgpu::Color,
    ) -> wgpu::RenderPass<'e> {
        encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("kerf offscreen pass"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: &self.view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(clear),
                    store: wgpu::StoreOp::Store,
                },
            })],
            ..Default::default()
        })
    }

    /// The target's texels as tightly packed rows; 8-bit BGRA formats are
    /// returned as RGBA.
    pub fn read(
        &self, device: &wgpu::Device, queue: &wgpu::Queue,
    ) -> Result<Vec<u8>, ReadbackError> {
        let mut px = read_texture(device, queue, &self.texture)?;
        if matches!(
            self.texture.format(),
            wgpu::TextureFormat::Bgra8Unorm | wgpu::TextureFormat::Bgra8UnormSrgb
        ) {
            for p in px.chunks_exact_mut(4) {
                p.swap(0, 2);
            }
        }
        Ok(px)
    }
}
