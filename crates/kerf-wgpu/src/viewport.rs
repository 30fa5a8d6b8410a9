//! The viewport: the target's size and text correction, as the uniform the
//! shaders read (bind group 1 of every kerf pipeline).

use crate::atlas::textures::TextAtlas;
use crate::correction::{
    CorrectionError, TextCorrection, CORRECTION_TABLE_BYTES, VIEWPORT_UNIFORM_BYTES,
};
use crate::draw::fit::{curve_key, CurveKey};

/// A viewport depth outside 0..=1 or not finite ([`Viewport::set_depth`]).
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
#[error("text depth must be finite and 0 to 1, got {0}")]
pub struct DepthError(pub f32);

/// The target's size and text correction, as a uniform the shaders read.
pub struct Viewport {
    buffer: wgpu::Buffer,
    /// The correction's tables (a read-only storage buffer, or a uniform
    /// where the device has no storage buffers in the fragment stage).
    tables: wgpu::Buffer,
    pub(crate) bind_group: wgpu::BindGroup,
    size: (u32, u32),
    /// The depth written for its text (clip-space z).
    depth: f32,
    correction: TextCorrection,
    /// The pipeline mode its correction needs ([`Viewport::curve`]).
    curve: CurveKey,
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
    /// [`update`](Self::update)), with the atlas's
    /// [`default_correction`](TextAtlas::default_correction)
    /// ([`TextCorrection::DEFAULT`] unless made by `TextAtlas::like_glyphon`).
    pub fn new(device: &wgpu::Device, atlas: &TextAtlas) -> Viewport {
        // Written at creation, so a viewport drawn before `update` still has
        // a valid correction (and a 1×1 size).
        let buffer = mapped_buffer(
            device,
            "kerf viewport uniforms",
            wgpu::BufferUsages::UNIFORM,
            &uniform_head((1, 1), 0.0, atlas.default_correction()),
        );
        debug_assert_eq!(buffer.size(), VIEWPORT_UNIFORM_BYTES);
        let usage = if atlas.shared.storage_tables {
            wgpu::BufferUsages::STORAGE
        } else {
            wgpu::BufferUsages::UNIFORM
        };
        let tables = mapped_buffer(
            device,
            "kerf correction tables",
            usage,
            &tables_data(atlas.default_correction()),
        );
        debug_assert_eq!(tables.size(), CORRECTION_TABLE_BYTES);
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("kerf viewport bind group"),
            layout: &atlas.shared.viewport_layout,
            entries: &[
                wgpu::BindGroupEntry { binding: 0, resource: buffer.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 1, resource: tables.as_entire_binding() },
            ],
        });
        Viewport {
            buffer,
            tables,
            bind_group,
            size: (1, 1),
            depth: 0.0,
            correction: atlas.default_correction(),
            curve: curve_key(atlas.default_correction()),
        }
    }

    /// Sets the target size in pixels (zero sides are treated as 1).
    pub fn update(&mut self, queue: &wgpu::Queue, width: u32, height: u32) {
        self.size = (width.max(1), height.max(1));
        self.write(queue, false);
    }

    /// Sets the depth (clip-space z, 0 to 1) written for text drawn through
    /// this viewport, for passes with a depth attachment (0 until set). A
    /// value outside 0..=1 or not finite is refused and changes nothing.
    pub fn set_depth(&mut self, queue: &wgpu::Queue, depth: f32) -> Result<(), DepthError> {
        if !(0.0..=1.0).contains(&depth) {
            return Err(DepthError(depth));
        }
        if depth.to_bits() != self.depth.to_bits() {
            self.depth = depth;
            self.write(queue, false);
        }
        Ok(())
    }

    /// The depth written for text drawn through this viewport.
    pub fn depth(&self) -> f32 {
        self.depth
    }

    /// Sets the gamma/contrast correction of text drawn to this target. A
    /// setting out of range is refused and changes nothing.
    pub fn set_correction(
        &mut self, queue: &wgpu::Queue, correction: TextCorrection,
    ) -> Result<(), CorrectionError> {
        correction.validate()?;
        self.correction = correction;
        self.curve = curve_key(correction);
        self.write(queue, true);
        Ok(())
    }

    /// The text correction in use.
    pub fn correction(&self) -> TextCorrection {
        self.correction
    }

    /// The correction's polynomials (fit.rs) as the key of the pipelines
    /// renderers draw this viewport with; `None` when no polynomial of the
    /// fit's degree is close enough and the tables are read instead.
    pub(crate) fn curve(&self) -> &CurveKey {
        &self.curve
    }

    /// Writes the uniform (size, correction settings: 32 bytes), and with
    /// `tables` the correction's tables too (only when the correction changes).
    fn write(&self, queue: &wgpu::Queue, tables: bool) {
        let head = uniform_head(self.size, self.depth, self.correction);
        queue.write_buffer(&self.buffer, 0, bytemuck::cast_slice(&head));
        if tables {
            queue.write_buffer(
                &self.tables,
                0,
                bytemuck::cast_slice(&tables_data(self.correction)),
            );
        }
    }

    /// The target size in pixels.
    pub fn size(&self) -> (u32, u32) {
        self.size
    }
}

/// A buffer of `usage` (and `COPY_DST`) holding `data`.
fn mapped_buffer(
    device: &wgpu::Device, label: &str, usage: wgpu::BufferUsages, data: &[f32],
) -> wgpu::Buffer {
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: std::mem::size_of_val(data) as u64,
        usage: usage | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: true,
    });
    if let Ok(mut view) = buffer.slice(..).get_mapped_range_mut() {
        view.copy_from_slice(bytemuck::cast_slice(data));
    }
    buffer.unmap();
    buffer
}

/// The correction tables (common.wgsl's `tables`): dark text's,
/// then light text's ([`TextCorrection::tables`]).
fn tables_data(c: TextCorrection) -> Vec<f32> {
    let (dark, light) = c.tables();
    [dark, light].concat()
}

/// The uniform's first eight floats: size, depth, padding, gamma, contrast, padding.
fn uniform_head(size: (u32, u32), depth: f32, c: TextCorrection) -> [f32; 8] {
    [size.0 as f32, size.1 as f32, depth, 0.0, c.gamma, c.contrast, 0.0, 0.0]
}
