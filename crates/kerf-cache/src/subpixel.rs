//! Sub-pixel x positioning: which bin a pen position falls in, and grayscale
//! coverage shifted by a fraction of a pixel, resampled from fontdue's
//! three-samples-per-pixel (LCD) raster.
//!
//! fontdue places every outline at sub-pixel offset 0 and has no offset
//! parameter, but its `rasterize_indexed_subpixel` rasterizes the outline at
//! three times the horizontal scale: each byte is the exact area coverage of
//! a column one third of a pixel wide. Coverage of a pixel whose window is
//! shifted by any `s` is the integral of that column density over the window;
//! for `s` a multiple of 1/3 px this is exact (a sum of three whole columns),
//! otherwise a column cut by a window edge is split in proportion to the cut
//! (as if its ink were spread evenly across the column).

/// Snaps a pen x to sub-pixel bins: `(whole, bin_offset)` where `whole` is the
/// whole-pixel part and `bin_offset` the bin's offset in 1/256 px (the
/// [`GlyphKey::subpixel_x`](crate::GlyphKey::subpixel_x) value). The pen is
/// rounded to the nearest of `bins` evenly spaced offsets per pixel; rounding
/// up past the last bin carries into the next whole pixel. `bins` 1 gives
/// whole-pixel rounding (offset always 0). NaN maps to 0; huge values saturate.
#[inline]
pub fn snap_subpixel(x: f32, bins: u32) -> (i32, u8) {
    if bins <= 1 {
        return (round_half_away(x), 0);
    }
    if bins.is_power_of_two() && bins <= 256 {
        // Powers of two (the default 4): the rounded position in bins splits
        // into whole pixels and bin with a shift and a mask (the shift is an
        // arithmetic one, i.e. floor division for negative positions too).
        let s = bins.trailing_zeros();
        let q = round_half_away(x * bins as f32);
        return (q >> s, ((q & (bins as i32 - 1)) << (8 - s)).min(255) as u8);
    }
    // Float arithmetic only (no integer division on the per-glyph path):
    // exact while |x · bins| < 2^24, i.e. for any on-screen position.
    let b = bins as f32;
    let q = round_half_away(x * b) as f32;
    let whole = floor(q / b);
    let bin = (q - whole * b) as u32;
    (whole as i32, bin_offset(bin.min(bins - 1), bins))
}

/// The offset in 1/256 px of bin `bin` of `bins` (bin 0 is 0).
#[inline]
pub fn bin_offset(bin: u32, bins: u32) -> u8 {
    match bins {
        0 | 1 => 0,
        // Powers of two divide 256 exactly: a shift, no division.
        2 | 4 | 8 | 16 => (bin * (256 / bins)).min(255) as u8,
        _ => ((bin * 256 + bins / 2) / bins).min(255) as u8,
    }
}

/// `v.floor()` without a libm call (`f32::floor` is one on baseline x86-64),
/// for `|v| < 2^31`.
#[inline]
fn floor(v: f32) -> f32 {
    let t = v as i32 as f32;
    if t > v {
        t - 1.0
    } else {
        t
    }
}

#[inline]
pub(crate) fn round_half_away(v: f32) -> i32 {
    // Round half away from zero without a libm call (`f32::round` is one on
    // baseline x86-64); `as` truncates, saturates and maps NaN to 0.
    (v + 0.5f32.copysign(v)) as i32
}

/// Placement of a shifted bitmap, computed from fontdue's metrics: the
/// bitmap's width, the whole pixels the shift moves its left edge by, and the
/// remaining shift in `[0, 1)` px of the first third-pixel column.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Shift {
    pub width: u32,
    pub whole: i32,
    pub frac: f32,
}

/// Where fontdue's 3× raster of a glyph lands when drawn at `offset_256`/256 px.
///
/// fontdue draws the outline's left edge at column `f = fract(xmin)` of the 3×
/// canvas, i.e. at `f / 3` px instead of the `f` px of the 1× raster, so the
/// 3× columns sit `2f/3` px left of where they belong; that is added to the
/// requested offset.
pub(crate) fn shift_for(bounds_xmin: f32, width_1x: usize, offset_256: u8) -> Shift {
    let f = bounds_xmin - bounds_xmin.floor();
    let f = if f.is_finite() { f } else { 0.0 };
    let s = offset_256 as f32 / 256.0 + 2.0 * f / 3.0;
    let whole = s.floor();
    let frac = s - whole;
    let width = if width_1x == 0 { 0 } else { (frac + width_1x as f32).ceil() as u32 };
    Shift { width, whole: whole as i32, frac }
}

/// Resamples `height` rows of `src_w` third-pixel columns (fontdue's 3× raster)
/// into `out_w` whole pixels per row, the first column starting `shift` px
/// (`0 ≤ shift < 1`) right of the first output pixel's left edge. Coverage is
/// conserved: every column's ink goes to the one or two pixels its third-pixel
/// span overlaps.
pub(crate) fn resample_shifted(
    src: &[u8], src_w: usize, height: usize, shift: f32, out_w: usize,
) -> Vec<u8> {
    let mut out = vec![0u8; out_w * height];
    if src_w == 0 || out_w == 0 {
        return out;
    }
    // Column 3k + j starts at `shift + k + j/3` px: in pixel `k + d[j]`, with
    // `w[j]`/256 of its ink there and the rest in the next pixel. The pattern
    // repeats every three columns, so three (d, w) pairs describe a whole row.
    let shift = if shift.is_finite() { shift.clamp(0.0, 0.999_999) } else { 0.0 };
    let mut plan = [(0usize, 0u32); 3];
    for (j, p) in plan.iter_mut().enumerate() {
        let a = shift + j as f32 / 3.0;
        let i = a.floor();
        let first = ((i + 1.0).min(a + 1.0 / 3.0) - a) * 3.0;
        *p = (i as usize, (first.clamp(0.0, 1.0) * 256.0 + 0.5) as u32);
    }
    // Pixel k gathers column j of group k - d[j] (share w[j]) and of group
    // k - d[j] - 1 (the rest): a fixed 9-tap filter over columns 3k - 6 ..
    // 3k + 3 of a zero-padded copy of the row. A pixel's weighted sum is at
    // most 3 * 255 * 256; dividing by 768 gives coverage in 0..=255.
    let mut taps = [0u32; 9];
    for (j, &(d, w)) in plan.iter().enumerate() {
        taps[6 + j - 3 * d] += w;
        taps[3 + j - 3 * d] += 256 - w;
    }
    const PAD: usize = 6;
    let mut line = vec![0u8; PAD + out_w * 3 + 3];
    let n = src_w.min(out_w * 3);
    for row in 0..height {
        line[PAD..PAD + n].copy_from_slice(&src[row * src_w..row * src_w + n]);
        let dst = &mut out[row * out_w..row * out_w + out_w];
        for (k, o) in dst.iter_mut().enumerate() {
            let Some(win) = line.get(3 * k..3 * k + 9) else { break };
            let mut a = 384u32;
            for t in 0..9 {
                a += win[t] as u32 * taps[t];
            }
            *o = (a / 768).min(255) as u8;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ops::Add;

    #[test]
    fn snapping_carries_into_the_next_pixel() {
        assert_eq!(snap_subpixel(10.0, 4), (10, 0));
        assert_eq!(snap_subpixel(10.25, 4), (10, 64));
        assert_eq!(snap_subpixel(10.5, 4), (10, 128));
        assert_eq!(snap_subpixel(10.7, 4), (10, 192));
        assert_eq!(snap_subpixel(10.9, 4), (11, 0));
        assert_eq!(snap_subpixel(-0.3, 4), (-1, 192));
        assert_eq!(snap_subpixel(10.4, 1), (10, 0));
        assert_eq!(snap_subpixel(10.6, 1), (11, 0));
        assert_eq!(snap_subpixel(f32::NAN, 4), (0, 0));
        assert_eq!(bin_offset(1, 3), 85);
        assert_eq!(bin_offset(2, 3), 171);
    }

    /// Any bin count, powers of two or not: the pen rounded to the nearest
    /// of `bins` positions a pixel (halves away from zero), split into the
    /// whole pixel below (floor, negative pens too) and the bin's offset
    /// (bin · 256 / bins, rounded), computed here with integer division.
    #[test]
    fn snapping_matches_integer_arithmetic_for_every_bin_count() {
        for bins in [2u32, 3, 4, 5, 6, 7, 8, 12, 16] {
            for i in -4000..4000 {
                let x = i as f32 * 0.0137 - 3.3;
                // (The product in f32, as the pen is: within 1e-5 px of a
                // tie, f64 could round the other way.)
                let p = f64::from(x * bins as f32);
                let q = p.abs().add(0.5).floor() * p.signum();
                let q = q as i64;
                let (whole, bin) = (q.div_euclid(i64::from(bins)), q.rem_euclid(i64::from(bins)));
                let offset = ((bin as f64 * 256.0 / f64::from(bins)).round()).min(255.0) as u8;
                assert_eq!(snap_subpixel(x, bins), (whole as i32, offset), "x {x} bins {bins}");
            }
        }
    }

    /// Each third-pixel column's ink goes to the pixels its span overlaps,
    /// in proportion (computed here from the spans, in f64): within one level
    /// of the 1/256-weighted filter, for shifts across the pixel.
    #[test]
    fn resampling_spreads_each_column_over_the_pixels_it_overlaps() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for case in 0..200 {
            let src_w = 3 + (next() % 40) as usize;
            let shift = (next() % 1000) as f32 / 1000.0;
            let out_w = (shift + src_w as f32 / 3.0).ceil() as usize;
            let src: Vec<u8> = (0..src_w * 2).map(|_| (next() % 256) as u8).collect();
            let got = resample_shifted(&src, src_w, 2, shift, out_w);
            for row in 0..2 {
                let mut want = vec![0f64; out_w];
                for c in 0..src_w {
                    let (a, b) = (
                        f64::from(shift) + c as f64 / 3.0,
                        f64::from(shift) + (c + 1) as f64 / 3.0,
                    );
                    for (k, w) in want.iter_mut().enumerate() {
                        let overlap = (b.min(k as f64 + 1.0) - a.max(k as f64)).max(0.0);
                        *w += f64::from(src[row * src_w + c]) * overlap;
                    }
                }
                for k in 0..out_w {
                    let g = f64::from(got[row * out_w + k]);
                    assert!(
                        (g - want[k]).abs() <= 1.0,
                        "case {case} shift {shift} pixel {k}: {g} vs {}",
                        want[k]
                    );
                }
            }
        }
    }

    #[test]
    fn whole_column_shifts_are_exact_sums() {
        // Six columns = two pixels; shifting by 1/3 px moves one column over.
        let src = [255u8, 0, 0, 0, 0, 255];
        let out = resample_shifted(&src, 6, 1, 0.0, 3);
        assert_eq!(out, vec![85, 85, 0]);
        let out = resample_shifted(&src, 6, 1, 1.0 / 3.0, 3);
        assert_eq!(out, vec![85, 0, 85]);
        // A cut column splits its ink in proportion.
        // (127.5 each, up to float rounding.)
        let out = resample_shifted(&[255, 255, 255], 3, 1, 0.5, 2);
        assert!(out.iter().all(|&v| v == 127 || v == 128), "{out:?}");
    }
}
