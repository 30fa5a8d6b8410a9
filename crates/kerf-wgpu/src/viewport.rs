//! The viewport: the target's size and text correction, as the uniform the
//! shaders read (bind group 1 of every kerf pipeline).

use crate::atlas::TextAtlas;
use crate::correction::{CorrectionError, TextCorrection, VIEWPORT_UNIFORM_BYTES};

/// The target's size and text correction, as a uniform the shaders read.
pub struct Viewport {
    buffer: wgpu::Buffer,
    pub(crate) bind_group: wgpu::BindGroup,
    size: (u32, u32),
    correction: TextCorrection,
}

impl std::fmt::Debug for Viewport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Viewport")
            .field("size", &self.size)
            .field("correction", &self.correction)
            .finish()
    }
}

impl Viewport {
    /// A viewport for renderers of `atlas`, initially 1×1 (call
    /// [`update`](Self::update)), with [`TextCorrection::DEFAULT`].
    pub fn new(device: &wgpu::Device, atlas: &TextAtlas) -> Viewport {
        // Written at creation, so a viewport drawn before `update` still has
        // a valid correction (and a 1×1 size).
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("kerf viewport uniforms"),
            size: VIEWPORT_UNIFORM_BYTES,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: true,
        });
        let initial = uniform_data((1, 1), TextCorrection::DEFAULT);
        if let Ok(mut view) = buffer.slice(..).get_mapped_range_mut() {
            view.copy_from_slice(bytemuck::cast_slice(&initial));
        }
        buffer.unmap();
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("kerf viewport bind group"),
            layout: &atlas.shared.viewport_layout,
            entries: &[wgpu::BindGroupEntry { binding: 0, resource: buffer.as_entire_binding() }],
        });
        Viewport { buffer, bind_group, size: (1, 1), correction: TextCorrection::DEFAULT }
    }

    /// Sets the target size in pixels (zero sides are treated as 1).
    pub fn update(&mut self, queue: &wgpu::Queue, width: u32, height: u32) {
        self.size = (width.max(1), height.max(1));
        self.write(queue, false);
    }

    /// Sets the gamma/contrast correction of text drawn to this target. A
    /// setting out of range is refused and changes nothing.
    pub fn set_correction(
        &mut self, queue: &wgpu::Queue, correction: TextCorrection,
    ) -> Result<(), CorrectionError> {
        correction.validate()?;
        self.correction = correction;
        self.write(queue, true);
        Ok(())
    }

    /// The text correction in use.
    pub fn correction(&self) -> TextCorrection {
        self.correction
    }

    /// Writes the uniform: its first eight floats (size, correction
    /// settings), and with `tables` the correction's tables too (only when
    /// the correction changes: a resize writes 32 bytes).
    fn write(&self, queue: &wgpu::Queue, tables: bool) {
        if tables {
            let data = uniform_data(self.size, self.correction);
            queue.write_buffer(&self.buffer, 0, bytemuck::cast_slice(&data));
        } else {
            let head = uniform_head(self.size, self.correction);
            queue.write_buffer(&self.buffer, 0, bytemuck::cast_slice(&head));
        }
    }

    /// The target size in pixels.
    pub fn size(&self) -> (u32, u32) {
        self.size
    }
}

/// The viewport uniform (common.wgsl's `Viewport`): size, depth, padding,
/// gamma, contrast, padding, then the correction's tables for dark and light
/// text ([`TextCorrection::tables`]).
fn uniform_data(size: (u32, u32), c: TextCorrection) -> Vec<f32> {
    let mut data = uniform_head(size, c).to_vec();
    let (dark, light) = c.tables();
    data.extend_from_slice(&dark);
    data.extend_from_slice(&light);
    data
}

/// The uniform's first eight floats: size, depth, padding, gamma, contrast, padding.
fn uniform_head(size: (u32, u32), c: TextCorrection) -> [f32; 8] {
    [size.0 as f32, size.1 as f32, 0.0, 0.0, c.gamma, c.contrast, 0.0, 0.0]
}
