//! Transformed text: per-area 2D affine transforms and 4×4 matrices and
//! the raster size chosen for them (the quads they draw are
//! `crate::draw::vertex::SampledQuad`s).

/// How a [`TextArea`](crate::TextArea) is transformed. Positions inside the
/// area (after `left`, `top` and `scale`) are "area pixels": x right, y down.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TextTransform {
    /// A 2D affine map from area pixels to target pixels:
    /// `x' = a·x + c·y + e`, `y' = b·x + d·y + f` for `[a, b, c, d, e, f]`
    /// (rotation, non-uniform scale, skew, translation).
    Affine([f32; 6]),
    /// A 4×4 matrix (column-major, as WGSL's `mat4x4`) from area pixels
    /// `(x, y, 0, 1)` straight to clip space: text in 3D (with a perspective
    /// projection, a depth-stencil pass if wanted). `raster_scale` is how many
    /// target pixels one area pixel covers where the text is seen (glyphs are
    /// rasterized at `size × raster_scale`, within the raster limit).
    Matrix {
        /// Column-major area-pixels-to-clip matrix.
        matrix: [[f32; 4]; 4],
        /// Target pixels per area pixel, for the raster size.
        raster_scale: f32,
    },
}

/// Glyphs of transformed areas are rasterized at their on-screen size up to
/// this many pixels per em, and sampled (magnified) above it.
pub const TRANSFORMED_RASTER_LIMIT_PX: f32 = 256.0;

impl TextTransform {
    /// The identity: area pixels are target pixels.
    pub const IDENTITY: TextTransform = TextTransform::Affine([1.0, 0.0, 0.0, 1.0, 0.0, 0.0]);

    /// Rotation by `radians` (clockwise on screen, y down) about `(cx, cy)` in area pixels.
    pub fn rotation_about(radians: f32, cx: f32, cy: f32) -> TextTransform {
        let (s, c) = radians.sin_cos();
        TextTransform::Affine([c, s, -s, c, cx - c * cx + s * cy, cy - s * cx - c * cy])
    }

    /// True when every number is finite and the map is not degenerate
    /// (a non-zero determinant; a positive raster scale).
    pub fn is_valid(&self) -> bool {
        match self {
            TextTransform::Affine(m) => {
                m.iter().all(|v| v.is_finite()) && (m[0] * m[3] - m[1] * m[2]).abs() > 1e-12
            }
            TextTransform::Matrix { matrix, raster_scale } => {
                matrix.iter().flatten().all(|v| v.is_finite())
                    && raster_scale.is_finite()
                    && *raster_scale > 0.0
            }
        }
    }

    /// Target pixels per area pixel along the most stretched direction (the
    /// largest singular value of the affine's linear part), or the matrix's
    /// `raster_scale`.
    pub fn raster_scale(&self) -> f32 {
        match self {
            // (|(a + d, b − c)| + |(a − d, b + c)|) / 2: no cancellation, so
            // a pure turn is 1 to the last bit or two at every angle (the
            // zoom policy must not see a turning label change size).
            TextTransform::Affine([a, b, c, d, ..]) => {
                ((a + d).hypot(b - c) + (a - d).hypot(b + c)) / 2.0
            }
            TextTransform::Matrix { raster_scale, .. } => *raster_scale,
        }
    }

    /// Target pixels per area pixel along the least stretched direction
    /// (the smallest singular value of the affine's linear part), or the
    /// matrix's `raster_scale`.
    pub fn min_stretch(&self) -> f32 {
        match self {
            TextTransform::Affine([a, b, c, d, ..]) => {
                ((a + d).hypot(b - c) - (a - d).hypot(b + c)).abs() / 2.0
            }
            TextTransform::Matrix { raster_scale, .. } => *raster_scale,
        }
    }

    /// The uniform transformed.wgsl reads: the matrix, and whether its result
    /// is target pixels (converted to clip space with the viewport) or clip space.
    pub(crate) fn uniform(&self) -> crate::draw::vertex::TransformUniform {
        let (m, to_clip) = match *self {
            TextTransform::Affine([a, b, c, d, e, f]) => {
                ([[a, b, 0.0, 0.0], [c, d, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [e, f, 0.0, 1.0]], 1)
            }
            TextTransform::Matrix { matrix, .. } => (matrix, 0),
        };
        let mut out = [0u32; 20];
        for (i, v) in m.iter().flatten().enumerate() {
            out[i] = v.to_bits();
        }
        out[16] = to_clip;
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raster_scale_is_the_largest_stretch() {
        assert!((TextTransform::rotation_about(0.7, 10.0, 20.0).raster_scale() - 1.0).abs() < 1e-5);
        assert!(
            (TextTransform::Affine([2.0, 0.0, 0.0, 0.5, 3.0, 4.0]).raster_scale() - 2.0).abs()
                < 1e-5
        );
        // A pure turn is 1 at every angle, to f32's rounding (a formula that
        // subtracts two squares came out up to 1.0002 here).
        for i in 0..2000 {
            let t = TextTransform::rotation_about(i as f32 * 0.0031, 5.0, 5.0);
            assert!((t.raster_scale() - 1.0).abs() < 1e-6, "{i}: {}", t.raster_scale());
        }
        // A skew stretches more than 1 along its diagonal, less across it
        // (the two stretches multiply to its determinant, 1).
        let skew = TextTransform::Affine([1.0, 0.0, 1.0, 1.0, 0.0, 0.0]);
        assert!(skew.raster_scale() > 1.6);
        assert!((skew.raster_scale() * skew.min_stretch() - 1.0).abs() < 1e-5);
        let t = TextTransform::Affine([2.0, 0.0, 0.0, 0.5, 3.0, 4.0]);
        assert!((t.min_stretch() - 0.5).abs() < 1e-6);
    }

    #[test]
    fn rotation_keeps_its_centre_and_invalid_maps_are_refused() {
        let t = TextTransform::rotation_about(1.1, 7.0, -3.0);
        let TextTransform::Affine([a, b, c, d, e, f]) = t else { unreachable!() };
        assert!(
            (a * 7.0 + c * -3.0 + e - 7.0).abs() < 1e-4
                && (b * 7.0 + d * -3.0 + f + 3.0).abs() < 1e-4
        );
        assert!(t.is_valid());
        assert!(!TextTransform::Affine([1.0, 2.0, 2.0, 4.0, 0.0, 0.0]).is_valid(), "singular");
        assert!(!TextTransform::Affine([f32::NAN, 0.0, 0.0, 1.0, 0.0, 0.0]).is_valid());
        assert!(!TextTransform::Matrix { matrix: [[1.0; 4]; 4], raster_scale: 0.0 }.is_valid());
    }
}
