// kerf glyph upload scatter: the texels of a frame's new glyphs arrive packed
// tightly in one buffer (kerf-cache's GlyphUploads); one instanced draw per
// dirty page layer writes each glyph's rectangle, plus the padding gutter to
// its right and below it (zeros), into the R8 page. Standalone: not prefixed
// with common.wgsl.

struct Page {
    // Page side in texels.
    side: f32,
    // Empty texels kept right of and below each glyph.
    padding: u32,
    _pad: vec2<u32>,
};

@group(0) @binding(0) var<uniform> page: Page;
// The frame's upload buffer as words: the texels, then the region records.
@group(0) @binding(1) var<storage, read> words: array<u32>;

// One kerf-cache GlyphRegion per instance (12 bytes).
struct Region {
    @builtin(vertex_index) vertex: u32,
    @location(0) rect: vec4<u32>,
    @location(1) offset: u32,
};

struct Varyings {
    @builtin(position) clip: vec4<f32>,
    @location(0) @interpolate(flat) origin: vec2<u32>,
    @location(1) @interpolate(flat) size: vec2<u32>,
    @location(2) @interpolate(flat) offset: u32,
};

@vertex
fn vs_scatter(in: Region) -> Varyings {
    let corner = vec2<u32>(in.vertex & 1u, (in.vertex >> 1u) & 1u);
    let side = u32(page.side);
    // The glyph and its gutter, clipped to the page.
    let extent = min(in.rect.zw + vec2<u32>(page.padding), vec2<u32>(side) - in.rect.xy);
    let px = vec2<f32>(in.rect.xy + corner * extent);
    var out: Varyings;
    out.clip = vec4<f32>(px.x / page.side * 2.0 - 1.0, 1.0 - px.y / page.side * 2.0, 0.0, 1.0);
    out.origin = in.rect.xy;
    out.size = in.rect.zw;
    out.offset = in.offset;
    return out;
}

@fragment
fn fs_scatter(in: Varyings) -> @location(0) vec4<f32> {
    let local = vec2<u32>(in.clip.xy) - in.origin;
    if (local.x >= in.size.x || local.y >= in.size.y) {
        return vec4<f32>(0.0);
    }
    let at = in.offset + local.y * in.size.x + local.x;
    let byte = (words[at >> 2u] >> ((at & 3u) * 8u)) & 0xffu;
    return vec4<f32>(f32(byte) / 255.0, 0.0, 0.0, 0.0);
}

// Colour pages: four bytes a texel (straight sRGB RGBA), written as they are
// to an Rgba8Unorm layer. A region's texels start on a word (every region
// before it is a multiple of 4 bytes long), so a texel is one word.
@fragment
fn fs_scatter_rgba(in: Varyings) -> @location(0) vec4<f32> {
    let local = vec2<u32>(in.clip.xy) - in.origin;
    if (local.x >= in.size.x || local.y >= in.size.y) {
        return vec4<f32>(0.0);
    }
    let at = in.offset / 4u + local.y * in.size.x + local.x;
    return unpack4x8unorm(words[at]);
}
