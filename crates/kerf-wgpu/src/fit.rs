//! The correction as a polynomial: what the glyph shaders evaluate per
//! fragment in place of two table reads (`corrected` in shaders/common.wgsl).
//!
//! A coverage texel is one of 256 values `k/255`, so a curve only has to be
//! right at those points. Each of the two curves [`TextCorrection::tables`]
//! holds (dark text's and light text's) is written
//! `f(c) = c + c (1 - c) r(c)`, which keeps `f(0) = 0` (nothing drawn around
//! the ink) and `f(1) = 1` (solid stems) exactly, with `r` a polynomial of
//! degree [`DEGREE`] fitted by least squares at the 256 texel values. The
//! text's luminance mixes the two `r`s, as it mixes the tables. The
//! coefficients are baked into the glyph pipelines as override constants
//! ([`constants`]). Where a correction's fit misses a table entry by more
//! than [`TOLERANCE`] (steep curves: gamma below 1, high contrast), the
//! renderer draws with the tables.

use crate::correction::TextCorrection;

/// Degree of `r`: eight coefficients per curve, override constants of the pipeline.
pub(crate) const DEGREE: usize = 7;

/// The most a fitted curve may differ from the table entry at any texel
/// value: a quarter of an 8-bit step, so the written pixel is never more
/// than one step from what the tables give.
pub(crate) const TOLERANCE: f32 = 0.25 / 255.0;

/// A correction's polynomials: `r`'s coefficients (constant term first) for
/// dark text, then for light text.
pub(crate) type Curve = [[f32; DEGREE + 1]; 2];

/// A pipeline's correction mode: a curve's coefficients as bits (a hashable
/// key), or `None` for the tables.
pub(crate) type CurveKey = Option<[[u32; DEGREE + 1]; 2]>;

/// The pipeline mode that draws correction `c`: its polynomials as a key,
/// or `None` (the tables) when it has none ([`fit`]).
pub(crate) fn curve_key(c: TextCorrection) -> CurveKey {
    fit(c).map(|curve| curve.map(|set| set.map(f32::to_bits)))
}

/// The override constants (shaders/common.wgsl) that bake the curve of
/// `key` into a pipeline, or select the tables.
pub(crate) fn constants(key: &CurveKey) -> Vec<(&'static str, f64)> {
    const NAMES: [[&str; DEGREE + 1]; 2] = [
        [
            "CURVE_D0", "CURVE_D1", "CURVE_D2", "CURVE_D3", "CURVE_D4", "CURVE_D5", "CURVE_D6",
            "CURVE_D7",
        ],
        [
            "CURVE_L0", "CURVE_L1", "CURVE_L2", "CURVE_L3", "CURVE_L4", "CURVE_L5", "CURVE_L6",
            "CURVE_L7",
        ],
    ];
    let Some(bits) = key else { return vec![("CURVE_CORRECTION", 0.0)] };
    let mut out = vec![("CURVE_CORRECTION", 1.0)];
    for (names, set) in NAMES.iter().zip(bits) {
        out.extend(names.iter().zip(set).map(|(n, b)| (*n, f32::from_bits(*b) as f64)));
    }
    out
}

/// The polynomials of `c`, or `None` when either curve misses its table by
/// more than [`TOLERANCE`] somewhere.
pub(crate) fn fit(c: TextCorrection) -> Option<Curve> {
    let (dark, light) = c.tables();
    let d = fit_curve(&dark)?;
    let l = fit_curve(&light)?;
    Some([d, l])
}

/// `c + c (1 - c) r(c)` with `r`'s coefficients `r`, evaluated as the shader
/// does (Horner's rule in f32).
pub(crate) fn eval(r: &[f32; DEGREE + 1], c: f32) -> f32 {
    let mut p = r[DEGREE];
    for j in (0..DEGREE).rev() {
        p = p * c + r[j];
    }
    (c + c * (1.0 - c) * p).clamp(0.0, 1.0)
}

/// Fits one curve given at `k/255`, checking the f32 evaluation against every entry.
fn fit_curve(table: &[f32; 256]) -> Option<[f32; DEGREE + 1]> {
    const N: usize = DEGREE + 1;
    // Least squares of c (1 - c) c^j a_j = f(c) - c over the interior points
    // (the ends are exact by construction), by Householder QR in f64: the
    // normal equations would square an already poor conditioning.
    // Columns of the design matrix, one per coefficient, rows k = 1..=254.
    let mut cols: Vec<Vec<f64>> = (0..N as i32)
        .map(|j| {
            (1..255)
                .map(|k| {
                    let c = k as f64 / 255.0;
                    c * (1.0 - c) * c.powi(j)
                })
                .collect()
        })
        .collect();
    let mut b: Vec<f64> = (1..255).map(|k| table[k] as f64 - k as f64 / 255.0).collect();
    for j in 0..N {
        let norm = cols[j][j..].iter().map(|x| x * x).sum::<f64>().sqrt();
        if norm == 0.0 {
            return None;
        }
        let alpha = if cols[j][j] > 0.0 { -norm } else { norm };
        let mut v = cols[j][j..].to_vec();
        v[0] -= alpha;
        let vv: f64 = v.iter().map(|x| x * x).sum();
        // The Householder reflection that zeroes column j below row j.
        let reflect = |x: &mut [f64]| {
            let f = 2.0 * x.iter().zip(&v).map(|(a, b)| a * b).sum::<f64>() / vv;
            x.iter_mut().zip(&v).for_each(|(a, b)| *a -= f * b);
        };
        for col in cols[j..].iter_mut() {
            reflect(&mut col[j..]);
        }
        reflect(&mut b[j..]);
    }
    let mut x = [0f64; N];
    for j in (0..N).rev() {
        let s: f64 = (j + 1..N).map(|col| cols[col][j] * x[col]).sum();
        x[j] = (b[j] - s) / cols[j][j];
        if !x[j].is_finite() {
            return None;
        }
    }
    let r = x.map(|v| v as f32);
    let worst =
        (0..256).map(|k| (eval(&r, k as f32 / 255.0) - table[k]).abs()).fold(0.0f32, f32::max);
    (worst <= TOLERANCE).then_some(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every fitted correction, evaluated as the shader evaluates it (the
    /// luminance's mix of the coefficients, Horner's rule in f32), is within
    /// TOLERANCE of `TextCorrection::apply` at every texel value and for any
    /// luminance: the mix of the two fits is the fit of the mix.
    #[test]
    fn fitted_curves_are_the_correction_within_a_quarter_step() {
        let mut fitted = 0;
        for gamma in [0.25, 0.5, 0.8, 1.0, 1.2, 1.4, 1.8, 2.2, 3.0, 4.0] {
            for contrast in [0.0, 0.2, 0.5, 1.0, 2.0, 4.0] {
                let t = TextCorrection { gamma, contrast };
                let Some([dark, light]) = fit(t) else { continue };
                fitted += 1;
                for lum in [0.0, 0.18, 0.5, 0.77, 1.0] {
                    let mixed: [f32; DEGREE + 1] =
                        std::array::from_fn(|j| dark[j] + (light[j] - dark[j]) * lum);
                    for k in 0..=255 {
                        let c = k as f32 / 255.0;
                        let err = (eval(&mixed, c) - t.apply(c, lum)).abs();
                        // The f32 mix adds rounding well under 1e-5.
                        assert!(err <= TOLERANCE + 1e-5, "{t:?} L {lum} k {k}: off by {err}");
                    }
                }
                // The ends are exact: nothing around the ink, solid stems.
                assert_eq!(eval(&dark, 0.0), 0.0);
                assert_eq!(eval(&light, 1.0), 1.0);
            }
        }
        assert!(fitted >= 20, "only {fitted} corrections fitted");
    }

    /// The default and neutral corrections are drawn from polynomials (the
    /// fast path); curves too steep for the degree fall back to the tables.
    #[test]
    fn the_default_fits_and_steep_curves_fall_back() {
        assert!(fit(TextCorrection::DEFAULT).is_some());
        assert!(fit(TextCorrection::NEUTRAL).is_some());
        // c^0.25 rises from 0 to 0.25 within the first texel step.
        assert!(fit(TextCorrection { gamma: 0.25, contrast: 0.0 }).is_none());
        assert!(fit(TextCorrection { gamma: 0.6, contrast: 0.0 }).is_none());
    }
}
