// Debug view of one atlas page: the page's coverage (kind 0) or a colour
// page's texels (kind 3), and rectangles over it (kind 1: free space, kind 2:
// live glyphs), drawn as instanced quads.

// Viewport, atlas and viewport bindings: common.wgsl.

struct Instance {
    @builtin(vertex_index) vertex: u32,
    // Screen rectangle, pixels.
    @location(0) rect: vec4<f32>,
    // Page texels under it (kind 0 only).
    @location(1) tex: vec4<f32>,
    @location(2) kind: u32,
    @location(3) layer: u32,
};

struct Varyings {
    @builtin(position) clip: vec4<f32>,
    @location(0) uv: vec2<f32>,
    @location(1) local: vec2<f32>,
    @location(2) @interpolate(flat) size: vec2<f32>,
    @location(3) @interpolate(flat) kind: u32,
    @location(4) @interpolate(flat) layer: u32,
};

@vertex
fn vs_main(in: Instance) -> Varyings {
    let corner = vec2<f32>(f32(in.vertex & 1u), f32((in.vertex >> 1u) & 1u));
    let px = in.rect.xy + corner * in.rect.zw;
    var out: Varyings;
    out.clip = vec4<f32>(px.x / viewport.size.x * 2.0 - 1.0, 1.0 - px.y / viewport.size.y * 2.0, 0.0, 1.0);
    out.uv = in.tex.xy + corner * in.tex.zw;
    out.local = corner * in.rect.zw;
    out.size = in.rect.zw;
    out.kind = in.kind;
    out.layer = in.layer;
    return out;
}

@fragment
fn fs_main(in: Varyings) -> @location(0) vec4<f32> {
    let bg = vec3<f32>(0.02, 0.03, 0.08);
    if in.kind == 0u {
        let c = textureLoad(atlas, vec2<i32>(floor(in.uv)), i32(in.layer), 0).r;
        return vec4<f32>(mix(bg, vec3<f32>(1.0, 1.0, 1.0), c), 1.0);
    }
    if in.kind == 3u {
        // A colour page: straight sRGB RGBA over the background.
        let t = textureLoad(color_atlas, vec2<i32>(floor(in.uv)), i32(in.layer), 0);
        return vec4<f32>(mix(bg, srgb_to_linear(t.rgb), t.a), 1.0);
    }
    // Rectangles: a one-pixel border and a faint fill (premultiplied).
    let edge = min(min(in.local.x, in.local.y), min(in.size.x - in.local.x, in.size.y - in.local.y));
    var color = vec3<f32>(0.2, 0.9, 0.3);
    if in.kind == 2u {
        color = vec3<f32>(0.9, 0.5, 0.1);
    }
    var a = 0.12;
    if edge < 1.0 {
        a = 0.9;
    }
    return vec4<f32>(color * a, a);
}
