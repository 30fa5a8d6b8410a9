//! glyphon's `Viewport` and `Cache`: the target's resolution, and the
//! handle glyphon shares pipelines through.

use crate::Resolution;

/// Shared state of the renderers of a device. glyphon keeps its shader and
/// pipelines here; kerf keeps them in each [`TextAtlas`](crate::TextAtlas)
/// (compiled on threads of their own), so this handle only keeps glyphon's
/// signatures.
#[derive(Debug, Clone)]
pub struct Cache {
    _shared: (),
}

impl Cache {
    /// Creates a new `Cache` for `device`.
    pub fn new(_device: &wgpu::Device) -> Self {
        Cache { _shared: () }
    }
}

/// The resolution text is positioned in. kerf-glyphon's renderers write
/// it into their own uniforms in `prepare` (one per depth drawn), so the
/// viewport holds no GPU object.
///
/// Many projects will only ever need a single `Viewport`, but several can
/// render text to different areas of a window.
#[derive(Debug)]
pub struct Viewport {
    resolution: Resolution,
}

impl Viewport {
    /// Creates a new `Viewport` with the given `device` and `cache`
    /// (resolution 0×0 until [`update`](Self::update)).
    pub fn new(_device: &wgpu::Device, _cache: &Cache) -> Self {
        Viewport { resolution: Resolution { width: 0, height: 0 } }
    }

    /// Updates the `Viewport` with the given `resolution`.
    pub fn update(&mut self, _queue: &wgpu::Queue, resolution: Resolution) {
        self.resolution = resolution;
    }

    /// Returns the current resolution of the `Viewport`.
    pub fn resolution(&self) -> Resolution {
        self.resolution
    }
}
