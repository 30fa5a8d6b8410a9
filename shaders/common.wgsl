// Shared by kerf's shaders (prepended to text.wgsl and atlas_view.wgsl by kerf-wgpu).

struct Viewport {
    // Target size in pixels.
    size: vec2<f32>,
    // Depth written for text (for passes with a depth attachment).
    depth: f32,
    _pad: f32,
};

@group(0) @binding(0) var atlas: texture_2d_array<f32>;
@group(1) @binding(0) var<uniform> viewport: Viewport;
