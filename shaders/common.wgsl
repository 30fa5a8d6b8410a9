// Shared by kerf's shaders (prepended to text.wgsl and atlas_view.wgsl by kerf-wgpu).

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

@group(0) @binding(0) var atlas: texture_2d_array<f32>;
// Colour pages (RGBA images): straight sRGB RGBA, Rgba8Unorm.
@group(0) @binding(2) var color_atlas: texture_2d_array<f32>;

// Set in a quad's layer when its texels are on colour page (layer & ~COLOR_PAGE_BIT).
const COLOR_PAGE_BIT: u32 = 0x40000000u;
// Set in a quad's layer when its texels are an LCD raster: three texels per
// pixel (left, middle, right third), so the quad's width counts texels.
const LCD_PAGE_BIT: u32 = 0x20000000u;
// The texture array layer of a quad's layer field.
const LAYER_MASK: u32 = 0x1fffffffu;
@group(1) @binding(0) var<uniform> viewport: Viewport;

// Coverage correction so dark-on-light and light-on-dark text have the same
// weight (docs/cache.md, "Gamma and contrast"; kerf-wgpu's
// `TextCorrection::apply` is the same function on the CPU):
//   contrast k:  c1 = c (1 + k) / (1 + k c)          (thickens mid coverage for k > 0)
//   gamma g:     c2 = mix(1 - (1 - c1)^g, c1^g, L)   (L: the text's luminance, 0..1)
// Dark text (L = 0) is thickened, light text (L = 1) thinned, by the same
// exponent. g = 1 and k = 0 leave coverage unchanged; for g > 0 and k > -1
// the result rises monotonically from 0 to 1 with c.
fn correct_coverage(c: f32, luminance: f32, gamma: f32, contrast: f32) -> f32 {
    let c1 = c * (1.0 + contrast) / (1.0 + contrast * c);
    let dark = 1.0 - pow(max(1.0 - c1, 0.0), gamma);
    let light = pow(max(c1, 0.0), gamma);
    return clamp(mix(dark, light, luminance), 0.0, 1.0);
}

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

// The premultiplied output of a coverage quad in `color` (straight sRGB RGBA),
// after the viewport's gamma/contrast correction. Linear targets store the
// sRGB-encoded values as given; sRGB targets are written in linear light.
fn shade_coverage_linear(coverage: f32, color: vec4<f32>) -> vec4<f32> {
    let a = correct_coverage(coverage, luminance(srgb_to_linear(color.rgb)), viewport.gamma, viewport.contrast) * color.a;
    return vec4<f32>(color.rgb * a, a);
}

fn shade_coverage_srgb(coverage: f32, color: vec4<f32>) -> vec4<f32> {
    let rgb = srgb_to_linear(color.rgb);
    let a = correct_coverage(coverage, luminance(rgb), viewport.gamma, viewport.contrast) * color.a;
    return vec4<f32>(rgb * a, a);
}

// The premultiplied output of a colour texel (straight sRGB RGBA, an RGBA
// image): drawn as it is, the quad's alpha as opacity.
fn shade_color_linear(texel: vec4<f32>, alpha: f32) -> vec4<f32> {
    let a = texel.a * alpha;
    return vec4<f32>(texel.rgb * a, a);
}

fn shade_color_srgb(texel: vec4<f32>, alpha: f32) -> vec4<f32> {
    let a = texel.a * alpha;
    return vec4<f32>(srgb_to_linear(texel.rgb) * a, a);
}
