// Filtered coverage, for transformed text (appended to common.wgsl, before
// transformed.wgsl): the correction computed, and the shading of filtered
// coverage and of colour texels read in linear light. Kept out of the glyph
// shader, which reads exact texels and never uses them (a module parses
// and validates every function it holds).

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

// The same for filtered coverage (transformed text samples between texels):
// the pipeline's polynomial where it has one (a smooth curve, as close
// between the k/255 steps as at them), else the correction computed (the
// tables hold only the steps). CURVE_CORRECTION is a pipeline constant, not
// a uniform: no fragment branches on a value read at run time.
fn shade_filtered(coverage: f32, color: vec4<f32>, lum: f32) -> vec4<f32> {
    var c: f32;
    if (CURVE_CORRECTION) {
        c = corrected(coverage, lum);
    } else {
        c = correct_coverage(coverage, lum, viewport.gamma, viewport.contrast);
    }
    let a = c * color.a;
    return vec4<f32>(color.rgb * a, a);
}

// The premultiplied output of a colour texel (straight sRGB RGBA) drawn into
// an sRGB target: decoded to linear light, the quad's alpha as opacity.
fn shade_color_srgb(texel: vec4<f32>, alpha: f32) -> vec4<f32> {
    let a = texel.a * alpha;
    return vec4<f32>(srgb_to_linear(texel.rgb) * a, a);
}
