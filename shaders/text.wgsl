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
    // The colour in the target's space (target_color) and its luminance:
    // the same for the whole quad, worked out per vertex.
    @location(2) @interpolate(flat) color: vec4<f32>,
    @location(3) @interpolate(flat) tex_min: vec2<u32>,
    @location(4) @interpolate(flat) tex_max: vec2<u32>,
    @location(5) @interpolate(flat) lum: f32,
};

@vertex
fn vs_main(in: Instance) -> Varyings {
    let corner = vec2<f32>(f32(in.vertex & 1u), f32((in.vertex >> 1u) & 1u));
    let size = vec2<f32>(in.size);
    // An LCD quad is a third as wide on the target as in texels.
    let lcd = (in.layer & LCD_PAGE_BIT) != 0u;
    let on_target = select(size, vec2<f32>(size.x / 3.0, size.y), lcd);
    let px = vec2<f32>(in.pos) + corner * on_target;
    var out: Varyings;
    out.clip = vec4<f32>(px.x / viewport.size.x * 2.0 - 1.0, 1.0 - px.y / viewport.size.y * 2.0, viewport.depth, 1.0);
    // A solid quad (a decoration) reads its one texel everywhere: pinned
    // here, per vertex, so fragments do the same work as a glyph's.
    let solid = (in.layer & SOLID_PAGE_BIT) != 0u;
    out.uv = select(vec2<f32>(in.tex) + corner * size, vec2<f32>(in.tex) + vec2<f32>(0.5), solid);
    out.layer = in.layer;
    out.color = target_color(in.color);
    out.lum = color_luminance(in.color);
    out.tex_min = in.tex;
    out.tex_max = select(in.tex + max(in.size, vec2<u32>(1u, 1u)) - vec2<u32>(1u, 1u), in.tex, solid);
    return out;
}

// The coverage texel under this fragment. A quad sits on whole pixels and
// is drawn texel for pixel, so every pixel it covers is covered whole: its
// centre maps to the middle of a texel inside the quad (uv is never on an
// edge), and one load is all a fragment reads. (LCD quads, three texels a
// pixel, are drawn by the LCD pipeline: text_lcd.wgsl.)
fn coverage(uv: vec2<f32>, layer: u32) -> f32 {
    return textureLoad(atlas, vec2<i32>(uv), i32(layer & LAYER_MASK), 0).r;
}

// An RGBA image's texel from the colour pages: straight sRGB RGBA, or linear
// light through the sRGB view bound for sRGB targets.
fn color_texel(uv: vec2<f32>, layer: u32) -> vec4<f32> {
    return textureLoad(color_atlas, vec2<i32>(uv), i32(layer & LAYER_MASK), 0);
}

// What the coverage fragment stage reads of the varyings: the texel bounds
// are the LCD stage's alone, and a fragment input costs even when it is
// never read (lavapipe keeps unread flat inputs: declaring only these took
// its text pass from 9.9 to 8.5 ms in `kerf profile --backend wgpu`).
struct Fragment {
    @location(0) uv: vec2<f32>,
    @location(1) @interpolate(flat) layer: u32,
    @location(2) @interpolate(flat) color: vec4<f32>,
    @location(5) @interpolate(flat) lum: f32,
};

// What the colour stage reads: no luminance.
struct ColorFragment {
    @location(0) uv: vec2<f32>,
    @location(1) @interpolate(flat) layer: u32,
    @location(2) @interpolate(flat) color: vec4<f32>,
};

// Coverage quads (glyphs, solid decorations): one texel, the correction,
// the quad's colour. The renderer draws coverage quads and colour quads in
// separate draws (runs of each, in order), so no fragment branches on the
// kind: a software rasterizer runs both sides of a branch its lanes
// disagree on, or pays for the branch when they agree (a branch on the
// page kind here cost lavapipe a fifth of the text pass).
// The same stage serves linear and sRGB targets: colours are in the
// target's space from the vertex stage (target_color).
@fragment
fn fs_coverage(in: Fragment) -> @location(0) vec4<f32> {
    return shade_coverage(coverage(in.uv, in.layer), in.color, in.lum);
}

// Colour quads (RGBA images: emoji, the app's images) are drawn as they
// are, premultiplied; the quad's colour only contributes its alpha. On sRGB
// targets the colour pages are read through their sRGB view (the renderer
// binds it), so texels arrive in linear light.
@fragment
fn fs_color(in: ColorFragment) -> @location(0) vec4<f32> {
    return shade_color_linear(color_texel(in.uv, in.layer), in.color.a);
}
