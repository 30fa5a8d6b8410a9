//! What `prepare` does with one area (renderer/prepare.rs runs the phases
//! over all of them): the area itself ([`area`]) and the way it takes,
//! decided once per area by its transform, its size ([`area_px`]: upright
//! text from outlines above a size) and the zoom policy ([`zoom`]): texel
//! for pixel through its retained run ([`area_runs`], [`held`],
//! [`draw_order`]), or through its transform ([`transform`]) glyph by glyph
//! from outlines or sampled bitmaps ([`route`], then [`sampled`] for the
//! bitmaps; `crate::outline` for the outlines).

pub(crate) mod area;
pub(crate) mod area_runs;
pub(crate) mod draw_order;
pub(crate) mod held;
pub(crate) mod route;
pub(crate) mod sampled;
pub(crate) mod transform;
pub(crate) mod zoom;

/// The largest size in target pixels per em of an untransformed area's
/// glyphs (0 for images, which have no outline).
pub(crate) fn area_px(area: &crate::prepare::area::TextArea<'_>) -> f32 {
    let largest = match area.content.as_slices() {
        crate::prepare::area::Content::Text(spec) => spec.size,
        crate::prepare::area::Content::Glyphs(glyphs) => {
            glyphs.iter().map(|g| g.size).fold(0.0, f32::max)
        }
        crate::prepare::area::Content::Images(_) => 0.0,
    };
    largest * area.scale
}

/// Whether `t` only scales and moves (no turn, skew or projection).
pub(crate) fn is_upright(t: &crate::prepare::transform::TextTransform) -> bool {
    matches!(t, crate::prepare::transform::TextTransform::Affine([_, b, c, ..]) if *b == 0.0 && *c == 0.0)
}
