//! Gamma and contrast correction of glyph coverage, so dark-on-light and
//! light-on-dark text look equally heavy. The shaders apply it per pixel
//! (`corrected` in shaders/common.wgsl, from polynomials fitted to it or its
//! tables; `correct_coverage` in shaders/filtered.wgsl computes it for
//! filtered coverage); [`TextCorrection::apply`] is the same function on the
//! CPU, for tests and CPU references.

use thiserror::Error;

/// Bytes of the viewport uniform (common.wgsl's `Viewport`): eight floats
/// (size, depth, correction settings).
pub(crate) const VIEWPORT_UNIFORM_BYTES: u64 = 8 * 4;

/// Bytes of the correction tables (common.wgsl's `tables`): two
/// tables of 256 floats, dark text's then light text's.
pub(crate) const CORRECTION_TABLE_BYTES: u64 = 2 * 256 * 4;

/// How glyph coverage is corrected before blending. Set per target with
/// [`Viewport::set_correction`](crate::Viewport::set_correction).
///
/// With coverage `c`, the text colour's relative luminance `L` (0 for black,
/// 1 for white, from its linear-light value):
///
/// - contrast `k`: `c1 = c (1 + k) / (1 + k c)`, which raises mid coverage
///   (anti-aliased edges) for `k > 0` and keeps 0 and 1 fixed;
/// - gamma `g`: `c2 = mix(1 - (1 - c1)^g, c1^g, L)`: dark text is thickened
///   and light text thinned by the same exponent, countering the way blending
///   in linear light makes dark text look thin and light text look bold.
///
/// [`TextCorrection::NEUTRAL`] (`g = 1`, `k = 0`) leaves coverage unchanged.
/// The default was chosen from side-by-side pictures (docs/sharp-gamma.png;
/// the reasoning is in docs/cache.md, "Gamma and contrast").
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TextCorrection {
    /// The gamma exponent `g`: finite, 0.25 to 4; 1 is neutral.
    pub gamma: f32,
    /// The contrast `k`: finite, 0 to 4; 0 is neutral.
    pub contrast: f32,
}

impl TextCorrection {
    /// No correction: coverage is blended as rasterized.
    pub const NEUTRAL: TextCorrection = TextCorrection { gamma: 1.0, contrast: 0.0 };

    /// kerf's default: gamma 1.4, contrast 0.2.
    pub const DEFAULT: TextCorrection = TextCorrection { gamma: 1.4, contrast: 0.2 };

    /// Checks the settings' ranges.
    pub fn validate(&self) -> Result<(), CorrectionError> {
        if !(self.gamma.is_finite() && (0.25..=4.0).contains(&self.gamma)) {
            return Err(CorrectionError::Gamma(self.gamma));
        }
        if !(self.contrast.is_finite() && (0.0..=4.0).contains(&self.contrast)) {
            return Err(CorrectionError::Contrast(self.contrast));
        }
        Ok(())
    }

    /// Corrected coverage of `coverage` (0..1) for text of relative luminance
    /// `luminance` (0..1); both are clamped to 0..1 first.
    pub fn apply(&self, coverage: f32, luminance: f32) -> f32 {
        let c = coverage.clamp(0.0, 1.0);
        let l = luminance.clamp(0.0, 1.0);
        let k = self.contrast;
        let c1 = c * (1.0 + k) / (1.0 + k * c);
        let dark = 1.0 - (1.0 - c1).max(0.0).powf(self.gamma);
        let light = c1.max(0.0).powf(self.gamma);
        (dark + (light - dark) * l).clamp(0.0, 1.0)
    }
}

impl TextCorrection {
    /// The correction at coverage `i / 255` for dark text (luminance 0) and
    /// light text (luminance 1), `i` = 0..=255: [`apply`](Self::apply) is
    /// linear in the luminance, so the shader corrects a texel with one mix
    /// of two entries (clamped as `apply` clamps).
    pub(crate) fn tables(&self) -> ([f32; 256], [f32; 256]) {
        let (mut dark, mut light) = ([0.0; 256], [0.0; 256]);
        for i in 0..256 {
            let c = i as f32 / 255.0;
            dark[i] = self.apply(c, 0.0);
            light[i] = self.apply(c, 1.0);
        }
        (dark, light)
    }
}

impl Default for TextCorrection {
    fn default() -> Self {
        TextCorrection::DEFAULT
    }
}

/// Decodes one sRGB-encoded channel (0..1) to linear light, as the shaders'
/// `srgb_to_linear` does (e.g. for a `wgpu::Color` clear of an sRGB target).
pub fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// Relative luminance (Rec. 709) of a straight sRGB colour, as the shader computes it.
pub fn luminance_of(color: [u8; 4]) -> f32 {
    let lin = |v: u8| srgb_to_linear(v as f32 / 255.0);
    0.2126 * lin(color[0]) + 0.7152 * lin(color[1]) + 0.0722 * lin(color[2])
}

/// A [`TextCorrection`] outside its ranges.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum CorrectionError {
    /// Gamma not finite or outside 0.25..=4.
    #[error("text gamma must be finite and 0.25 to 4, got {0}")]
    Gamma(f32),
    /// Contrast not finite or outside 0..=4.
    #[error("text contrast must be finite and 0 to 4, got {0}")]
    Contrast(f32),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neutral_is_the_identity() {
        for i in 0..=255 {
            let c = i as f32 / 255.0;
            for l in [0.0, 0.3, 1.0] {
                assert!((TextCorrection::NEUTRAL.apply(c, l) - c).abs() < 1e-6, "c {c} L {l}");
            }
        }
    }

    #[test]
    fn corrections_are_monotone_and_keep_the_ends() {
        for gamma in [0.25, 0.7, 1.0, 1.4, 2.2, 4.0] {
            for contrast in [0.0, 0.2, 1.0, 4.0] {
                let t = TextCorrection { gamma, contrast };
                t.validate().unwrap();
                for l in [0.0, 0.18, 0.5, 1.0] {
                    assert!(t.apply(0.0, l).abs() < 1e-6 && (t.apply(1.0, l) - 1.0).abs() < 1e-6);
                    let mut prev = -1.0;
                    for i in 0..=1000 {
                        let v = t.apply(i as f32 / 1000.0, l);
                        assert!(v >= prev, "{t:?} L {l}: not monotone at {i}");
                        prev = v;
                    }
                }
            }
        }
        // The direction: dark text gains coverage, light text loses it.
        let t = TextCorrection { gamma: 1.8, contrast: 0.0 };
        assert!(t.apply(0.5, 0.0) > 0.6 && t.apply(0.5, 1.0) < 0.4);
    }

    #[test]
    fn bad_settings_are_typed_errors() {
        assert!(matches!(
            TextCorrection { gamma: f32::NAN, contrast: 0.0 }.validate(),
            Err(CorrectionError::Gamma(_))
        ));
        assert!(matches!(
            TextCorrection { gamma: 0.0, contrast: 0.0 }.validate(),
            Err(CorrectionError::Gamma(_))
        ));
        assert!(matches!(
            TextCorrection { gamma: 1.0, contrast: -0.5 }.validate(),
            Err(CorrectionError::Contrast(_))
        ));
        assert!(matches!(
            TextCorrection { gamma: 1.0, contrast: f32::INFINITY }.validate(),
            Err(CorrectionError::Contrast(_))
        ));
    }
}
