// LCD (sub-pixel) anti-aliasing: the glyph pipeline's fragment stage with
// dual-source blending. Appended to common.wgsl and text.wgsl (vertex stage,
// texel reads) after an `enable dual_source_blending;` line, and only built
// on devices with wgpu's DUAL_SOURCE_BLENDING feature.
//
// Each colour channel of the target is blended with its own coverage:
//   target.c = src0.c + target.c * (1 - src1.c)     (blend factors One, OneMinusSrc1)
// where src1 is the per-channel coverage (times the colour's alpha) and
// src0 the text colour premultiplied by it. Grayscale and colour quads in the
// same draw give the same coverage to every channel, i.e. ordinary
// premultiplied blending.

// The texel under this fragment, kept inside the quad's texels.
fn texel(in: Varyings) -> vec2<i32> {
    return vec2<i32>(clamp(vec2<u32>(max(floor(in.uv), vec2<f32>(0.0, 0.0))), in.tex_min, in.tex_max));
}

// An LCD pixel's three stripes, left to right.
fn stripes(in: Varyings) -> vec3<f32> {
    let t = texel(in);
    let layer = i32(in.layer & LAYER_MASK);
    let left = textureLoad(atlas, vec2<i32>(max(t.x - 1, i32(in.tex_min.x)), t.y), layer, 0).r;
    let middle = textureLoad(atlas, t, layer, 0).r;
    let right = textureLoad(atlas, vec2<i32>(min(t.x + 1, i32(in.tex_max.x)), t.y), layer, 0).r;
    return vec3<f32>(left, middle, right);
}

// The order of the display's colour stripes: false for RGB (the left third
// of a pixel is red), true for BGR.
override LCD_BGR: bool = false;

struct LcdOut {
    @location(0) @blend_src(0) color: vec4<f32>,
    @location(0) @blend_src(1) mask: vec4<f32>,
};

// A premultiplied colour with the same coverage in every channel.
fn uniform_mask(premultiplied: vec4<f32>) -> LcdOut {
    return LcdOut(premultiplied, vec4<f32>(premultiplied.a));
}

// The quad's colour is in the target's space already (target_color).
fn shade_lcd(in: Varyings) -> LcdOut {
    let s = stripes(in);
    // Left, middle, right stripe → red, green, blue (RGB) or blue, green, red (BGR).
    let c = select(s, s.zyx, LCD_BGR);
    let k = vec3<f32>(corrected(c.x, in.lum), corrected(c.y, in.lum), corrected(c.z, in.lum))
        * in.color.a;
    let rgb = in.color.rgb;
    let a = max(k.x, max(k.y, k.z));
    return LcdOut(vec4<f32>(rgb * k, a), vec4<f32>(k, a));
}

@fragment
fn fs_lcd_linear(in: Varyings) -> LcdOut {
    if ((in.layer & COLOR_PAGE_BIT) != 0u) {
        return uniform_mask(shade_color_linear(color_texel(in.uv, in.layer), in.color.a));
    }
    if ((in.layer & LCD_PAGE_BIT) != 0u) {
        return shade_lcd(in);
    }
    return uniform_mask(shade_coverage(coverage(in.uv, in.layer), in.color, in.lum));
}

@fragment
fn fs_lcd_srgb(in: Varyings) -> LcdOut {
    if ((in.layer & COLOR_PAGE_BIT) != 0u) {
        return uniform_mask(shade_color_linear(color_texel(in.uv, in.layer), in.color.a));
    }
    if ((in.layer & LCD_PAGE_BIT) != 0u) {
        return shade_lcd(in);
    }
    return uniform_mask(shade_coverage(coverage(in.uv, in.layer), in.color, in.lum));
}
