//! LCD (sub-pixel) anti-aliasing: glyphs rasterized with three coverage
//! values per pixel, one per colour stripe of the display, filtered so colour
//! fringes stay faint.
//!
//! An LCD glyph is stored in the coverage pages as three texels per pixel,
//! left to right (left, middle and right third of the pixel); its quads carry
//! [`QuadFlags::LCD`](crate::QuadFlags::LCD) and their `width` counts texels
//! (three per pixel). Which texel feeds which colour channel (RGB or BGR stripes) is the
//! drawing side's choice, so one raster serves both orders.

/// The low-pass filter over third-pixel columns (weights out of 256): spreads
/// each stripe's coverage onto its neighbours so a stem's colour fringe is
/// faint, while the sum stays the same (FreeType's default LCD filter has this
/// shape).
const FILTER: [u32; 5] = [8, 77, 86, 77, 8];

/// Placement of an LCD raster built from `columns` third-pixel columns that
/// start `whole + frac` px (`0 ≤ frac < 1`) right of the bitmap's unshifted
/// left edge: its width in pixels and the whole pixels its left edge moves
/// (one pixel of margin on the left for the filter's spread).
pub(crate) fn lcd_size(whole: i32, frac: f32, columns: usize) -> (u32, i32) {
    if columns == 0 {
        return (0, 0);
    }
    // Thirds: 3 of left margin, the shift's fraction, the columns, one more
    // for the split, two for the filter's right spread.
    let k = (frac * 3.0).floor() as usize;
    let thirds = 3 + k + columns + 1 + 2;
    (thirds.div_ceil(3) as u32, whole - 1)
}

/// Turns `height` rows of `src_w` third-pixel columns (fontdue's 3× raster)
/// into an LCD raster `out_px` pixels wide (three texels per pixel), the
/// columns shifted right by `frac` px (`0 ≤ frac < 1`) after one pixel of
/// left margin, then filtered with [`FILTER`].
pub(crate) fn lcd_filtered(
    src: &[u8], src_w: usize, height: usize, frac: f32, out_px: usize,
) -> Vec<u8> {
    let out_w = out_px * 3;
    let mut out = vec![0u8; out_w * height];
    if src_w == 0 || out_w == 0 {
        return out;
    }
    let f = if frac.is_finite() { frac.clamp(0.0, 0.999_999) * 3.0 } else { 0.0 };
    let k = f.floor() as usize;
    let g = ((f - k as f32) * 256.0 + 0.5) as u32;
    // Shifted row, in 1/256 of coverage units, with 2 thirds of slack either
    // side for the filter.
    let mut shifted = vec![0u32; out_w + 4];
    for row in 0..height {
        shifted.iter_mut().for_each(|v| *v = 0);
        let line = &src[row * src_w..row * src_w + src_w];
        for (c, &v) in line.iter().enumerate() {
            let at = 2 + 3 + k + c;
            if at + 1 < shifted.len() {
                shifted[at] += v as u32 * (256 - g);
                shifted[at + 1] += v as u32 * g;
            }
        }
        let dst = &mut out[row * out_w..row * out_w + out_w];
        for (t, o) in dst.iter_mut().enumerate() {
            let mut a = 0u64;
            for (i, w) in FILTER.iter().enumerate() {
                a += shifted[t + i] as u64 * *w as u64;
            }
            *o = ((a + 32768) >> 16).min(255) as u8;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_pixel_spreads_over_its_neighbours_and_keeps_its_ink() {
        // One fully covered pixel (three thirds), no shift: lands in the
        // second output pixel (one pixel of margin), spread by the filter.
        let out = lcd_filtered(&[255, 255, 255], 3, 1, 0.0, 3);
        assert_eq!(out.len(), 9);
        let total: u32 = out.iter().map(|&v| v as u32).sum();
        assert!((total as i32 - 3 * 255).abs() <= 4, "{out:?}");
        // Symmetric about the middle pixel's centre.
        for i in 0..out.len() {
            assert!((out[i] as i32 - out[out.len() - 1 - i] as i32).abs() <= 1, "{out:?}");
        }
        assert_eq!(out[0], 0);
        assert!(out[4] > out[2], "{out:?}");
    }

    #[test]
    fn a_third_pixel_shift_moves_the_ink_one_stripe() {
        let a = lcd_filtered(&[0, 255, 0], 3, 1, 0.0, 3);
        let b = lcd_filtered(&[0, 255, 0], 3, 1, 1.0 / 3.0, 3);
        assert_eq!(&a[..8], &b[1..9], "{a:?} {b:?}");
        let size = lcd_size(2, 0.9, 12);
        // 3 + 2 + 12 + 1 + 2 thirds = 20 → 7 pixels, one pixel of margin.
        assert_eq!(size, (7, 1));
    }
}
