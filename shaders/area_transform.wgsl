// Per-area transforms, shared by transformed.wgsl and outline.wgsl (appended
// after common.wgsl and filtered.wgsl): the uniform array of a draw's
// transforms and the map of an area position to clip space.

struct Transform {
    // Area pixels (x right, y down, z = 0) to target pixels (to_clip = 1) or to clip space (to_clip = 0).
    m: mat4x4<f32>,
    to_clip: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
};

// The transforms of up to TRANSFORMS_PER_DRAW consecutive areas, drawn
// by one draw (kerf_wgpu::TRANSFORMS_PER_DRAW): each quad names its area's.
// One draw for many areas, not one each: lavapipe starts a 64 KiB block of
// scene memory for each draw, and a HUD of 300 transformed labels spent
// half its frame faulting those pages in.
const TRANSFORMS_PER_DRAW: u32 = 128u;
@group(2) @binding(0) var<uniform> transforms: array<Transform, 128>;

// Area position `pos` (area pixels) through transform `index` of the draw,
// in clip space.
fn area_clip(index: u32, pos: vec2<f32>) -> vec4<f32> {
    let transform = transforms[min(index, TRANSFORMS_PER_DRAW - 1u)];
    let p = transform.m * vec4<f32>(pos, 0.0, 1.0);
    // No branch on a uniform's value anywhere in kerf's shaders: lavapipe
    // inlines the uniforms a branch reads and compiles a new shader variant
    // for every draw, never freeing the old one (about 130 KB and 1 ms a
    // frame for one rotated area). Both results are computed; select picks.
    let px = p.xy / p.w;
    let target_clip = vec4<f32>(px.x / viewport.size.x * 2.0 - 1.0, 1.0 - px.y / viewport.size.y * 2.0, viewport.depth, 1.0);
    return select(p, target_clip, transform.to_clip == 1u);
}
