// kerf transformed text: glyph quads in area space (float positions and
// sizes) mapped by a per-area matrix, coverage sampled with bilinear
// filtering. The glyphs come from RenderMode::Sampled slots, whose bitmaps
// carry a border of zeros, and samples are clamped to the slot's own texels:
// no neighbour ever bleeds in. Prefixed with common.wgsl, filtered.wgsl and
// area_transform.wgsl.

@group(0) @binding(1) var atlas_sampler: sampler;

// Set in a quad's layer when its texels carry a border of zeros (a glyph's
// sampled raster): the quad is drawn half a texel inside its rectangle.
// Samples are clamped to the slot's texel centres, so the outer half of the
// border samples zero: the same pixels, fewer fragments. kerf_wgpu::BORDER_BIT.
const BORDER_BIT: u32 = 0x08000000u;

// One kerf_wgpu SampledQuad per instance (36 bytes).
struct Instance {
    @builtin(vertex_index) vertex: u32,
    @location(0) pos: vec2<f32>,
    @location(1) size: vec2<f32>,
    @location(2) tex: vec2<u32>,
    @location(3) tex_size: vec2<u32>,
    @location(4) layer: u32,
    @location(5) color: vec4<f32>,
    @location(6) transform: u32,
};

struct Varyings {
    @builtin(position) clip: vec4<f32>,
    @location(0) uv: vec2<f32>,
    @location(1) @interpolate(flat) layer: u32,
    // In the target's space, and its luminance (per vertex, see common.wgsl).
    @location(2) @interpolate(flat) color: vec4<f32>,
    @location(3) @interpolate(flat) tex_min: vec2<f32>,
    @location(4) @interpolate(flat) tex_max: vec2<f32>,
    @location(5) @interpolate(flat) lum: f32,
};

@vertex
fn vs_transformed(in: Instance) -> Varyings {
    let corner = vec2<f32>(f32(in.vertex & 1u), f32((in.vertex >> 1u) & 1u));
    let tex_size = vec2<f32>(in.tex_size);
    // Half a texel in texels, and in area pixels (a quad without a border: none).
    let inset = select(0.0, 0.5, (in.layer & BORDER_BIT) != 0u);
    let inset_px = inset * in.size / tex_size;
    var out: Varyings;
    out.clip = area_clip(in.transform, in.pos + inset_px + corner * (in.size - 2.0 * inset_px));
    let tex = vec2<f32>(in.tex);
    out.uv = tex + vec2<f32>(inset) + corner * (tex_size - vec2<f32>(2.0 * inset));
    out.layer = in.layer & ~BORDER_BIT;
    out.color = target_color(in.color);
    out.lum = color_luminance(in.color);
    // Texel centres of the slot: samples never leave it.
    out.tex_min = tex + vec2<f32>(0.5);
    out.tex_max = tex + tex_size - vec2<f32>(0.5);
    return out;
}

// What the bordered coverage stage reads: no slot bounds (a fragment input
// costs a software rasterizer even when it is never read).
struct BorderedFragment {
    @location(0) uv: vec2<f32>,
    @location(1) @interpolate(flat) layer: u32,
    @location(2) @interpolate(flat) color: vec4<f32>,
    @location(5) @interpolate(flat) lum: f32,
};

fn sampled_coverage(in: Varyings) -> f32 {
    let uv = clamp(in.uv, in.tex_min, in.tex_max) / vec2<f32>(textureDimensions(atlas).xy);
    return textureSampleLevel(atlas, atlas_sampler, uv, i32(in.layer), 0.0).r;
}

// An RGBA image's sample: straight sRGB RGBA from the colour pages (filtered
// in the encoded values).
fn sampled_color(in: Varyings) -> vec4<f32> {
    let uv = clamp(in.uv, in.tex_min, in.tex_max) / vec2<f32>(textureDimensions(color_atlas).xy);
    return textureSampleLevel(color_atlas, atlas_sampler, uv, i32(in.layer & ~COLOR_PAGE_BIT), 0.0);
}

// Coverage and colour quads are drawn by separate pipelines, in runs (as
// text.wgsl's): a fragment that branched on its quad's kind would, on a
// software rasterizer, run both sides for every pixel block (measured on
// lavapipe: a pinch-zoomed page 1.5x slower).
@fragment
fn fs_sampled(in: Varyings) -> @location(0) vec4<f32> {
    return shade_filtered(sampled_coverage(in), in.color, in.lum);
}

// Coverage quads whose slot carries a border of zeros (BORDER_BIT: a
// glyph's sampled raster), drawn half a texel inside it: every sample
// already lies between the slot's texel centres (the quad's corners are
// there), so no clamp and no slot bounds are read. Tiles of a glyph larger
// than a page and decorations' solid texel have no border: fs_sampled.
@fragment
fn fs_sampled_bordered(in: BorderedFragment) -> @location(0) vec4<f32> {
    let uv = in.uv / vec2<f32>(textureDimensions(atlas).xy);
    let c = textureSampleLevel(atlas, atlas_sampler, uv, i32(in.layer), 0.0).r;
    return shade_filtered(c, in.color, in.lum);
}

@fragment
fn fs_sampled_color_linear(in: Varyings) -> @location(0) vec4<f32> {
    return shade_color_linear(sampled_color(in), in.color.a);
}

@fragment
fn fs_sampled_color_srgb(in: Varyings) -> @location(0) vec4<f32> {
    return shade_color_srgb(sampled_color(in), in.color.a);
}
