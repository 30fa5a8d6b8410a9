// kerf glyph quads: one instance per glyph, four vertices as a triangle strip.
// Glyphs are drawn texel for pixel (the cache rasterizes at the drawn size), so
// the fragment shader reads coverage with textureLoad: no filtering, no bleeding
// from neighbouring or stale texels.

// Viewport, atlas and viewport bindings: common.wgsl.

// One kerf-cache GlyphQuad per instance (24 bytes).
struct Instance {
    @builtin(vertex_index) vertex: u32,
    @location(0) pos: vec2<i32>,
    @location(1) tex: vec2<u32>,
    @location(2) size: vec2<u32>,
    @location(3) layer: u32,
    @location(4) color: vec4<f32>,
};

struct Varyings {
    @builtin(position) clip: vec4<f32>,
    @location(0) uv: vec2<f32>,
    @location(1) @interpolate(flat) layer: u32,
    @location(2) color: vec4<f32>,
    @location(3) @interpolate(flat) tex_min: vec2<u32>,
    @location(4) @interpolate(flat) tex_max: vec2<u32>,
};

@vertex
fn vs_main(in: Instance) -> Varyings {
    let corner = vec2<f32>(f32(in.vertex & 1u), f32((in.vertex >> 1u) & 1u));
    let size = vec2<f32>(in.size);
    let px = vec2<f32>(in.pos) + corner * size;
    var out: Varyings;
    out.clip = vec4<f32>(px.x / viewport.size.x * 2.0 - 1.0, 1.0 - px.y / viewport.size.y * 2.0, viewport.depth, 1.0);
    out.uv = vec2<f32>(in.tex) + corner * size;
    out.layer = in.layer;
    out.color = in.color;
    out.tex_min = in.tex;
    out.tex_max = in.tex + max(in.size, vec2<u32>(1u, 1u)) - vec2<u32>(1u, 1u);
    return out;
}

fn texel(in: Varyings) -> vec2<i32> {
    return vec2<i32>(clamp(vec2<u32>(max(floor(in.uv), vec2<f32>(0.0, 0.0))), in.tex_min, in.tex_max));
}

fn coverage(in: Varyings) -> f32 {
    return textureLoad(atlas, texel(in), i32(in.layer), 0).r;
}

// An RGBA image's texel: straight sRGB RGBA from the colour pages.
fn color_texel(in: Varyings) -> vec4<f32> {
    return textureLoad(color_atlas, texel(in), i32(in.layer & ~COLOR_PAGE_BIT), 0);
}

// Colour quads (RGBA images) are drawn as they are, premultiplied; the
// quad's colour only contributes its alpha.
@fragment
fn fs_linear(in: Varyings) -> @location(0) vec4<f32> {
    if ((in.layer & COLOR_PAGE_BIT) != 0u) {
        return shade_color_linear(color_texel(in), in.color.a);
    }
    return shade_coverage_linear(coverage(in), in.color);
}

// sRGB target: the hardware encodes on write and blends in linear light, so
// colours are decoded to linear first.
@fragment
fn fs_srgb(in: Varyings) -> @location(0) vec4<f32> {
    if ((in.layer & COLOR_PAGE_BIT) != 0u) {
        return shade_color_srgb(color_texel(in), in.color.a);
    }
    return shade_coverage_srgb(coverage(in), in.color);
}
