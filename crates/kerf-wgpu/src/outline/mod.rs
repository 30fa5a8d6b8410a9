//! The outline path: glyphs drawn from their curves on the GPU, exact at any
//! size and any transform (`shaders/outline.wgsl`). Which glyphs take it
//! ([`OutlinePolicy`]), the quad each is drawn with ([`OutlineQuad`]), and
//! the storage buffer that mirrors the cache's outline store
//! ([`buffer::OutlineBuffer`]).

pub(crate) mod buffer;

/// Upright glyphs are drawn from their outlines from this many target
/// pixels per em up ([`OutlinePolicy::default`]). At this size the two paths
/// differ by less than 1/255 of coverage on average over the inked pixels
/// (kerf-wgpu's `tests/gpu/outlines.rs`), and a bitmap of a Latin glyph
/// takes some 10,000 atlas texels while its outline takes about 1 KB
/// whatever its size; below it, the atlas's one texel read a pixel is the
/// cheaper draw.
pub const UPRIGHT_OUTLINE_PX: f32 = 96.0;

/// Which glyphs are drawn from their outlines
/// ([`TextRenderer::set_outline_policy`](crate::TextRenderer::set_outline_policy));
/// the others from atlas bitmaps. LCD text, colour glyphs (emoji, images),
/// effects (outline, shadow) and synthetic bold always take bitmaps;
/// [`PrepareReport::outline_fallbacks`](crate::PrepareReport::outline_fallbacks)
/// lists glyphs this policy sent to outlines that were drawn from bitmaps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OutlinePolicy {
    /// Glyphs of areas drawn through a transform that turns, skews or
    /// projects them ([`TextTransform::Matrix`](crate::TextTransform::Matrix),
    /// or an affine map that is not a scale and a move): from outlines from
    /// this many target pixels per em up (`Some(0.0)`, the default: at
    /// every size, so a turning label rasterizes nothing); `None`: bitmaps,
    /// sampled with filtering.
    pub transformed_from_px: Option<f32>,
    /// Upright glyphs (no transform, or one that only scales and moves)
    /// from this many target pixels per em up; `None`: always bitmaps.
    pub upright_from_px: Option<f32>,
}

impl Default for OutlinePolicy {
    /// Turned text from outlines at every size; upright text from
    /// [`UPRIGHT_OUTLINE_PX`] up.
    fn default() -> Self {
        OutlinePolicy { transformed_from_px: Some(0.0), upright_from_px: Some(UPRIGHT_OUTLINE_PX) }
    }
}

impl OutlinePolicy {
    /// Every glyph from bitmaps (transformed glyphs sampled from rasters of
    /// up to [`TRANSFORMED_RASTER_LIMIT_PX`](crate::TRANSFORMED_RASTER_LIMIT_PX)).
    pub const NEVER: OutlinePolicy =
        OutlinePolicy { transformed_from_px: None, upright_from_px: None };

    /// Every glyph from its outline, upright ones too, at every size.
    pub const ALWAYS: OutlinePolicy =
        OutlinePolicy { transformed_from_px: Some(0.0), upright_from_px: Some(0.0) };

    /// Whether a glyph of `px` target pixels per em drawn `upright` (else
    /// turned, skewed or projected) is drawn from its outline.
    pub fn draws_outline(&self, px: f32, upright: bool) -> bool {
        let from = if upright { self.upright_from_px } else { self.transformed_from_px };
        from.is_some_and(|from| px >= from)
    }
}

/// One glyph drawn from its outline, as `shaders/outline.wgsl`'s vertex
/// stage reads it: the outline's bounds (plus a margin) in ems, placed at
/// the pen and scaled to area pixels, through its area's transform.
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct OutlineQuad {
    /// The pen on the baseline, area pixels.
    pub pen: [f32; 2],
    /// Area pixels per em, and the margin drawn around the bounds (ems: at
    /// least a target pixel, so edge pixels are drawn whole).
    pub scale: [f32; 2],
    /// The outline's bounds: `xmin, ymin, xmax, ymax` in ems (y up).
    pub bounds: [f32; 4],
    /// The record's first word in the outline store.
    pub record: u32,
    /// Straight sRGB colour, RGBA.
    pub color: [u8; 4],
    /// Its area's transform in its draw's block (see
    /// [`SampledQuad::transform`](crate::SampledQuad::transform)).
    pub transform: u32,
    /// Padding to 48 bytes.
    pub _pad: u32,
}

/// The vertex attributes of [`OutlineQuad`].
pub(crate) const OUTLINE_ATTRIBUTES: [wgpu::VertexAttribute; 6] = wgpu::vertex_attr_array![
    0 => Float32x2,
    1 => Float32x2,
    2 => Float32x4,
    3 => Uint32,
    4 => Unorm8x4,
    5 => Uint32,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy_sends_turned_text_always_and_upright_text_from_its_size() {
        let p = OutlinePolicy::default();
        assert!(p.draws_outline(8.0, false));
        assert!(!p.draws_outline(UPRIGHT_OUTLINE_PX - 0.5, true));
        assert!(p.draws_outline(UPRIGHT_OUTLINE_PX, true));
        assert!(!OutlinePolicy::NEVER.draws_outline(5000.0, true));
        assert!(!OutlinePolicy::NEVER.draws_outline(50.0, false));
        assert!(OutlinePolicy::ALWAYS.draws_outline(1.0, true));
        let small_turned_on_bitmaps =
            OutlinePolicy { transformed_from_px: Some(32.0), ..OutlinePolicy::default() };
        assert!(!small_turned_on_bitmaps.draws_outline(31.0, false));
        assert!(small_turned_on_bitmaps.draws_outline(32.0, false));
        assert_eq!(std::mem::size_of::<OutlineQuad>(), 48);
    }
}
