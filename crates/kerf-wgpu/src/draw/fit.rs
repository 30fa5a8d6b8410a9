//! The correction as a polynomial: what the glyph shaders evaluate per
//! fragment in place of two table reads (`corrected` in shaders/common.wgsl).
//!
//! A coverage texel is one of 256 values `k/255`, so a curve only has to be
//! right at those points. Each of the two curves [`TextCorrection::tables`]
//! holds (dark text's and light text's) is written
//! `f(c) = c + c (1 - c) r(c)`, which keeps `f(0) = 0` (nothing drawn around
//! the ink) and `f(1) = 1` (solid stems) exactly, with `r` a polynomial of
//! degree at most [`DEGREE`] fitted at the 256 texel values (weighted least
//! squares toward the smallest worst error, the lowest degree that keeps
//! within [`TOLERANCE`]: each degree dropped is two multiply-adds less per
//! fragment). The
//! text's luminance mixes the two `r`s, as it mixes the tables. The
//! coefficients are baked into the glyph pipelines as override constants
//! ([`constants`]). Where a correction's fit misses a table entry by more
//! than [`TOLERANCE`] (steep curves: gamma below 1, high contrast), the
//! renderer draws with the tables.

use crate::correction::TextCorrection;

/// Degree of `r`: eight coefficients per curve, override constants of the pipeline.
pub(crate) const DEGREE: usize = 7;

/// The most a fitted curve may differ from the table entry at any texel
/// value: a fifth of an 8-bit step, so the written pixel is never more than
/// one step from what the tables give, in sRGB targets too (where dark
/// output magnifies a coverage error: a degree-4 fit a quarter step off
/// wrote dark text two steps off on lavapipe).
pub(crate) const TOLERANCE: f32 = 0.2 / 255.0;

/// A correction's polynomials: `r`'s coefficients (constant term first) for
/// dark text, then for light text.
pub(crate) type Curve = [[f32; DEGREE + 1]; 2];

/// A pipeline's correction mode: a curve's coefficients as bits (a hashable
/// key), or `None` for the tables.
pub(crate) type CurveKey = Option<[[u32; DEGREE + 1]; 2]>;

/// The pipeline mode that draws correction `c`: its polynomials as a key,
/// or `None` (the tables) when it has none ([`fit`]). Fitted once per
/// correction in the process (a fit takes about 2 ms; every viewport and
/// renderer asks for the default's).
pub(crate) fn curve_key(c: TextCorrection) -> CurveKey {
    let bits = |c: TextCorrection| (c.gamma.to_bits(), c.contrast.to_bits());
    let id = bits(c);
    // The default's fit is known: every app's first renderer would pay
    // 1.3 ms for it before its first frame.
    if id == bits(TextCorrection::DEFAULT) {
        return Some(DEFAULT_CURVE);
    }
    type Fitted = Vec<((u32, u32), CurveKey)>;
    static FITTED: std::sync::Mutex<Fitted> = std::sync::Mutex::new(Vec::new());
    let known = |f: &Fitted| f.iter().find(|(k, _)| *k == id).map(|(_, key)| *key);
    if let Some(key) = FITTED.lock().ok().and_then(|f| known(&f)) {
        return key;
    }
    let key = fit(c).map(|curve| curve.map(|set| set.map(f32::to_bits)));
    if let Ok(mut f) = FITTED.lock() {
        if known(&f).is_none() {
            // A bounded memory: an app sweeping the settings fits anew.
            if f.len() >= 64 {
                f.remove(0);
            }
            f.push((id, key));
        }
    }
    key
}

/// [`fit`] of [`TextCorrection::DEFAULT`] as bits (degree 5), written down
/// so that no app fits it at startup; `the_default_curve_is_its_fit` checks
/// it against the tables as `fit` checks its own results.
const DEFAULT_CURVE: [[u32; DEGREE + 1]; 2] = [
    [1059853975, 1035811172, 3211171977, 1076910111, 3227390051, 1071231944, 0, 0],
    [3208922336, 1076769574, 3237818540, 1096675050, 3242599656, 1082813402, 0, 0],
];

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
/// more than [`TOLERANCE`] somewhere. Both curves take the lowest degree
/// (at most [`DEGREE`]) at which each fits and every luminance's mix of
/// their coefficients, evaluated in f32 as the shader does, still does
/// (large coefficients would lose it to rounding). The higher coefficients
/// are zero; the pipeline bakes them in as constants, so the shader
/// compiler drops the terms they zero: the default correction needs degree
/// 5, and the neutral one none at all (`r = 0`, the coverage as it is).
pub(crate) fn fit(c: TextCorrection) -> Option<Curve> {
    let (dark, light) = c.tables();
    (0..=DEGREE + 1).find_map(|n| {
        let pair = [fit_within(&dark, n)?, fit_within(&light, n)?];
        mixes_fit(&pair, &dark, &light).then_some(pair)
    })
}

/// True when, at every luminance in tenths, the mix of the two curves'
/// coefficients is within [`TOLERANCE`] (and the f32 mix's rounding) of the
/// same mix of the tables.
fn mixes_fit(pair: &Curve, dark: &[f32; 256], light: &[f32; 256]) -> bool {
    (0..=10).all(|t| {
        let lum = t as f32 / 10.0;
        let mixed: [f32; DEGREE + 1] =
            core::array::from_fn(|j| pair[0][j] + (pair[1][j] - pair[0][j]) * lum);
        (0..256).all(|k| {
            let want = dark[k] + (light[k] - dark[k]) * lum;
            (eval(&mixed, k as f32 / 255.0) - want).abs() <= TOLERANCE + 1e-5
        })
    })
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

/// How far `r`'s curve, evaluated as the shader does, is from the table at
/// each texel value.
fn errors(r: &[f32; DEGREE + 1], table: &[f32; 256]) -> [f32; 256] {
    core::array::from_fn(|k| (eval(r, k as f32 / 255.0) - table[k]).abs())
}

/// An `r` with `n` coefficients within [`TOLERANCE`] of the table, if
/// weighted least squares finds one: Lawson's iteration, which moves the
/// least-squares fit toward the one with the smallest worst error by
/// weighting each texel value by its error so far.
fn fit_within(table: &[f32; 256], n: usize) -> Option<[f32; DEGREE + 1]> {
    let mut weights = [1f64; 254];
    for _ in 0..LAWSON_STEPS {
        let r = fit_degree(table, n, &weights)?;
        let errors = errors(&r, table);
        if errors.iter().fold(0.0f32, |a, &e| a.max(e)) <= TOLERANCE {
            return Some(r);
        }
        // The ends are exact by construction: the weights are the interior's.
        let errors = &errors[1..255];
        let total: f64 = weights.iter().zip(errors).map(|(w, &e)| w * e as f64).sum();
        if total <= 0.0 {
            return None;
        }
        weights.iter_mut().zip(errors).for_each(|(w, &e)| *w *= e as f64 / total * 254.0);
    }
    None
}

/// Steps of Lawson's iteration per degree tried.
const LAWSON_STEPS: usize = 40;

/// The weighted least-squares `r` with `n` coefficients (the rest zero;
/// none: `r = 0`) for a curve given at `k/255`, texel value `k` weighted by
/// `weights[k - 1]`.
fn fit_degree(table: &[f32; 256], n: usize, weights: &[f64; 254]) -> Option<[f32; DEGREE + 1]> {
    // Least squares of c (1 - c) c^j a_j = f(c) - c over the interior points
    // (the ends are exact by construction), by Householder QR in f64: the
    // normal equations would square an already poor conditioning.
    // Columns of the design matrix, one per coefficient, rows k = 1..=254.
    let mut cols: Vec<Vec<f64>> = (0..n as i32)
        .map(|j| {
            (1..255)
                .map(|k| {
                    let c = k as f64 / 255.0;
                    weights[k - 1].sqrt() * c * (1.0 - c) * c.powi(j)
                })
                .collect()
        })
        .collect();
    let mut b: Vec<f64> =
        (1..255).map(|k| weights[k - 1].sqrt() * (table[k] as f64 - k as f64 / 255.0)).collect();
    for j in 0..n {
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
    let mut x = [0f64; DEGREE + 1];
    for j in (0..n).rev() {
        let s: f64 = (j + 1..n).map(|col| cols[col][j] * x[col]).sum();
        x[j] = (b[j] - s) / cols[j][j];
        if !x[j].is_finite() {
            return None;
        }
    }
    Some(x.map(|v| v as f32))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every fitted correction, evaluated as the shader evaluates it (the
    /// luminance's mix of the coefficients, Horner's rule in f32), is within
    /// TOLERANCE of `TextCorrection::apply` at every texel value and for any
    /// luminance: the mix of the two fits is the fit of the mix.
    #[test]
    fn fitted_curves_are_the_correction_within_a_fifth_of_a_step() {
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

    /// Transformed text corrects filtered coverage, which falls between the
    /// texel steps, with the same polynomials: between the steps they stay
    /// within half an 8-bit step of `TextCorrection::apply` (a curve fitted
    /// only at the steps could swing between them).
    #[test]
    fn fitted_curves_hold_between_the_steps() {
        for gamma in [0.8, 1.0, 1.2, 1.4, 1.8, 2.2, 3.0] {
            for contrast in [0.0, 0.2, 0.5, 1.0] {
                let t = TextCorrection { gamma, contrast };
                let Some([dark, light]) = fit(t) else { continue };
                for lum in [0.0, 0.3, 1.0] {
                    let mixed: [f32; DEGREE + 1] =
                        std::array::from_fn(|j| dark[j] + (light[j] - dark[j]) * lum);
                    for k in 0..4096 {
                        let c = (k as f32 + 0.5) / 4096.0;
                        let err = (eval(&mixed, c) - t.apply(c, lum)).abs();
                        assert!(err <= 0.5 / 255.0, "{t:?} L {lum} c {c}: off by {err}");
                    }
                }
            }
        }
    }

    /// The default's curve, written down, is as close to its tables as a
    /// fit must be (and is what `curve_key` hands out for it).
    #[test]
    fn the_default_curve_is_its_fit() {
        let c = TextCorrection::DEFAULT;
        let (dark, light) = c.tables();
        let pair: Curve = DEFAULT_CURVE.map(|set| set.map(f32::from_bits));
        assert!(mixes_fit(&pair, &dark, &light), "refit: {:?}", fit(c));
        assert_eq!(curve_key(c), Some(DEFAULT_CURVE));
        assert_ne!(curve_key(TextCorrection::NEUTRAL), Some(DEFAULT_CURVE));
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

    /// The weighted fit of one and of two coefficients is the least-squares
    /// solution the normal equations give (solved here in closed form, in
    /// f64), under even weights, random weights and all the weight on one
    /// texel value (where Lawson's iteration can take a weight once a
    /// texel's error is zero: the fit then passes through that texel). The
    /// last is where a Householder reflection that cancels its column's
    /// first entry with the norm, instead of adding them, divides by zero.
    #[test]
    fn weighted_fits_are_the_normal_equations_solution() {
        let (dark, _) = TextCorrection::DEFAULT.tables();
        let mut seed = 0x2545_f491_u64;
        let mut random = || {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            ((seed >> 33) as f64 / (1u64 << 31) as f64) * 4.0 + 0.01
        };
        let even = [1f64; 254];
        let mixed: [f64; 254] = core::array::from_fn(|_| random());
        let one_hot = |k: usize| -> [f64; 254] { core::array::from_fn(|i| f64::from(i == k)) };
        // Rows k = 1..=254: g_j(c) = c (1 - c) c^j against f(c) - c.
        let row = |k: usize| {
            let c = k as f64 / 255.0;
            (c * (1.0 - c), c * c * (1.0 - c), dark[k] as f64 - c)
        };
        for (name, w) in
            [("even", even), ("random", mixed), ("at 1", one_hot(0)), ("at 200", one_hot(199))]
        {
            let one = fit_degree(&dark, 1, &w).unwrap_or_else(|| panic!("{name}: no fit"));
            let (mut gg, mut gf) = (0.0, 0.0);
            for k in 1..255 {
                let (g, _, f) = row(k);
                gg += w[k - 1] * g * g;
                gf += w[k - 1] * g * f;
            }
            let want = gf / gg;
            assert!((one[0] as f64 - want).abs() <= 1e-5 * want.abs().max(1.0), "{name}: {one:?}");
            assert!(one[1..].iter().all(|&a| a == 0.0), "{name}: {one:?}");
            if name.starts_with("at") {
                continue; // (two coefficients need two texels)
            }
            let two = fit_degree(&dark, 2, &w).unwrap_or_else(|| panic!("{name}: no fit"));
            let (mut a11, mut a12, mut a22, mut b1, mut b2) = (0.0, 0.0, 0.0, 0.0, 0.0);
            for k in 1..255 {
                let (g0, g1, f) = row(k);
                let wk = w[k - 1];
                (a11, a12, a22) = (a11 + wk * g0 * g0, a12 + wk * g0 * g1, a22 + wk * g1 * g1);
                (b1, b2) = (b1 + wk * g0 * f, b2 + wk * g1 * f);
            }
            let det = a11 * a22 - a12 * a12;
            let want = [(b1 * a22 - b2 * a12) / det, (a11 * b2 - a12 * b1) / det];
            for j in 0..2 {
                let tol = 1e-3 * want[j].abs().max(1.0);
                assert!((two[j] as f64 - want[j]).abs() <= tol, "{name}: {two:?}, want {want:?}");
            }
        }
    }

    /// Where plain least squares misses the tolerance at a degree, Lawson's
    /// steps (each texel's weight multiplied by its error) still find a
    /// curve within it at that degree: the returned curve, evaluated as the
    /// shader does, is within [`TOLERANCE`] of the correction itself
    /// (`TextCorrection::apply`) at every texel value. The default
    /// correction's dark curve at four coefficients is one such case.
    #[test]
    fn lawsons_steps_fit_where_least_squares_alone_misses() {
        for (gamma, contrast, dark, n) in [
            (1.0, 0.5, true, 2),
            (1.2, 0.0, true, 5),
            (1.4, 0.0, false, 5),
            (1.4, 0.2, true, 4),
            (1.8, 0.5, false, 4),
            (3.0, 1.0, true, 5),
        ] {
            let t = TextCorrection { gamma, contrast };
            let table = if dark { t.tables().0 } else { t.tables().1 };
            let case = format!("gamma {gamma}, contrast {contrast}, dark {dark}, {n} coefficients");
            let plain = fit_degree(&table, n, &[1.0; 254]).unwrap();
            let worst = |r: &[f32; DEGREE + 1]| {
                (0..256)
                    .map(|k| {
                        let c = k as f32 / 255.0;
                        (eval(r, c) - t.apply(c, if dark { 0.0 } else { 1.0 })).abs()
                    })
                    .fold(0.0f32, f32::max)
            };
            assert!(worst(&plain) > TOLERANCE, "{case}: least squares alone fits");
            let r = fit_within(&table, n).unwrap_or_else(|| panic!("{case}: no fit"));
            assert!(worst(&r) <= TOLERANCE + 1e-6, "{case}: {}/255 off", worst(&r) * 255.0);
        }
    }

    /// The shader's work follows the curve: the neutral correction is
    /// `r = 0` (every term folds away), and the default one is of degree 5
    /// at most (the fit tries the low degrees first).
    #[test]
    fn curves_take_a_low_degree_where_one_fits() {
        let degree =
            |pair: &Curve| pair.iter().filter_map(|r| r.iter().rposition(|&a| a != 0.0)).max();
        assert_eq!(degree(&fit(TextCorrection::NEUTRAL).unwrap()), None);
        let d = degree(&fit(TextCorrection::DEFAULT).unwrap()).unwrap();
        assert!(d <= 5, "default correction fitted at degree {d}");
    }
}
