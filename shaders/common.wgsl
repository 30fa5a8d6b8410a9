// Shared by kerf's shaders (prepended to text.wgsl, transformed.wgsl (with
// filtered.wgsl) and atlas_view.wgsl by kerf-wgpu).

struct Viewport {
    // Target size in pixels.
    size: vec2<f32>,
    // Depth written for text (for passes with a depth attachment).
    depth: f32,
    _pad: f32,
    // Text coverage correction (see correct_coverage): gamma exponent, contrast.
    gamma: f32,
    contrast: f32,
    _pad2: vec2<f32>,
};

// True for pipelines drawing into an sRGB target (set per pipeline): colours
// are then written in linear light.
override SRGB_TARGET: bool = false;

@group(0) @binding(0) var atlas: texture_2d_array<f32>;
// Colour pages (RGBA images): straight sRGB RGBA, Rgba8Unorm.
@group(0) @binding(2) var color_atlas: texture_2d_array<f32>;

// Set in a quad's layer when its texels are on colour page (layer & ~COLOR_PAGE_BIT).
const COLOR_PAGE_BIT: u32 = 0x40000000u;
// Set in a quad's layer when its texels are an LCD raster: three texels per
// pixel (left, middle, right third), so the quad's width counts texels.
const LCD_PAGE_BIT: u32 = 0x20000000u;
// Set in a quad's layer when it is a solid rectangle (a decoration): every
// pixel reads the one texel at its tex corner (a full one), its size is pixels.
const SOLID_PAGE_BIT: u32 = 0x10000000u;
// The texture array layer of a quad's layer field.
const LAYER_MASK: u32 = 0x0fffffffu;
@group(1) @binding(0) var<uniform> viewport: Viewport;
// The correction at coverage i/255 for dark text (luminance 0) at [i] and
// light text (luminance 1) at [256 + i], i = 0..255: correct_coverage is
// linear in the luminance, so a texel's correction is one mix of two table
// entries. Written by kerf-wgpu from TextCorrection::apply.
// A read-only storage buffer: every fragment indexes it by its own coverage,
// and a GPU serves such scattered reads from its caches, where a uniform
// buffer's are served one address at a time (NVIDIA's constant bank).
// Devices without storage buffers in the fragment stage (WebGL2) get the
// same tables as a uniform of vec4s: kerf-wgpu swaps these lines for them.
// tables: begin
@group(1) @binding(1) var<storage, read> tables: array<f32, 512>;
fn table(i: u32) -> f32 {
    return tables[i];
}
// tables: end

// Relative luminance of a linear-light colour (Rec. 709 weights).
fn luminance(linear_rgb: vec3<f32>) -> f32 {
    return dot(linear_rgb, vec3<f32>(0.2126, 0.7152, 0.0722));
}

// sRGB-encoded colour to linear light.
fn srgb_to_linear(c: vec3<f32>) -> vec3<f32> {
    let lo = c / 12.92;
    let hi = pow((c + vec3<f32>(0.055)) / 1.055, vec3<f32>(2.4));
    return select(hi, lo, c <= vec3<f32>(0.04045));
}

// A quad's colour (straight sRGB RGBA) in the target's space: as given for
// linear targets (they store the sRGB-encoded values), in linear light for
// sRGB targets (the hardware encodes on write). Once per vertex, not per fragment.
fn target_color(color: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(select(color.rgb, srgb_to_linear(color.rgb), SRGB_TARGET), color.a);
}

// The luminance a quad's colour (straight sRGB RGBA) is corrected for. Once per vertex.
fn color_luminance(color: vec4<f32>) -> f32 {
    return luminance(srgb_to_linear(color.rgb));
}

// The viewport's correction as polynomials, baked into the pipeline
// (kerf-wgpu's fit.rs fits them; the renderer picks the pipeline built for
// its viewport's correction): CURVE_CORRECTION is false where no polynomial
// was close enough and the tables are read instead. CURVE_Dj and CURVE_Lj
// are r's coefficients (see `corrected`) for dark and light text. Constants,
// not uniforms: a software rasterizer (llvmpipe) reads a uniform per
// fragment block, and eight such reads cost more than the two table reads.
override CURVE_CORRECTION: bool = false;
override CURVE_D0: f32 = 0.0;
override CURVE_D1: f32 = 0.0;
override CURVE_D2: f32 = 0.0;
override CURVE_D3: f32 = 0.0;
override CURVE_D4: f32 = 0.0;
override CURVE_D5: f32 = 0.0;
override CURVE_D6: f32 = 0.0;
override CURVE_D7: f32 = 0.0;
override CURVE_L0: f32 = 0.0;
override CURVE_L1: f32 = 0.0;
override CURVE_L2: f32 = 0.0;
override CURVE_L3: f32 = 0.0;
override CURVE_L4: f32 = 0.0;
override CURVE_L5: f32 = 0.0;
override CURVE_L6: f32 = 0.0;
override CURVE_L7: f32 = 0.0;

// The correction of an exact texel coverage (k/255, read with textureLoad)
// for text of luminance `lum`. With CURVE_CORRECTION, as a polynomial:
// c + c (1 - c) r(c), r of degree at most 7 with the luminance's mix of the
// dark and light coefficients, which fit.rs keeps within a fifth of an 8-bit
// step of the tables at every k/255: at most sixteen multiply-adds, no
// memory read. The coefficients above the fit's degree are zero, and the
// shader compiler drops their terms (the default correction is of degree 5,
// the neutral one of none: r = 0).
// Otherwise two entries of the correction tables, mixed.
fn corrected(coverage: f32, lum: f32) -> f32 {
    if (CURVE_CORRECTION) {
        let c = clamp(coverage, 0.0, 1.0);
        let lo = mix(vec4<f32>(CURVE_D0, CURVE_D1, CURVE_D2, CURVE_D3),
                     vec4<f32>(CURVE_L0, CURVE_L1, CURVE_L2, CURVE_L3), lum);
        let hi = mix(vec4<f32>(CURVE_D4, CURVE_D5, CURVE_D6, CURVE_D7),
                     vec4<f32>(CURVE_L4, CURVE_L5, CURVE_L6, CURVE_L7), lum);
        let r = ((((((hi.w * c + hi.z) * c + hi.y) * c + hi.x) * c + lo.w) * c + lo.z) * c + lo.y) * c + lo.x;
        return clamp(c + c * (1.0 - c) * r, 0.0, 1.0);
    }
    let i = u32(clamp(coverage, 0.0, 1.0) * 255.0 + 0.5);
    let dark = table(i);
    let light = table(256u + i);
    return clamp(mix(dark, light, lum), 0.0, 1.0);
}

// The premultiplied output of a coverage texel drawn in `color` (already in
// the target's space, see target_color) of luminance `lum`: one texel read
// (the caller's), the correction (`corrected`) and a multiply per fragment.
fn shade_coverage(coverage: f32, color: vec4<f32>, lum: f32) -> vec4<f32> {
    let a = corrected(coverage, lum) * color.a;
    return vec4<f32>(color.rgb * a, a);
}

// The premultiplied output of a colour texel (straight sRGB RGBA, an RGBA
// image): drawn as it is, the quad's alpha as opacity.
fn shade_color_linear(texel: vec4<f32>, alpha: f32) -> vec4<f32> {
    let a = texel.a * alpha;
    return vec4<f32>(texel.rgb * a, a);
}

