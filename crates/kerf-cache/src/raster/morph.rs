//! The pixels of glyph effects ([`GlyphEffect`]): an outline is the
//! glyph's coverage dilated by a disk, a shadow its coverage blurred by a
//! Gaussian. Made on a miss from the rasterizer's bitmap (`source.rs`).

use crate::bitmap::GlyphImage;
use crate::font::effect::{sigma, GlyphEffect, EFFECT_STEPS_PER_PX};

impl GlyphEffect {
    /// The effect applied to `image` (coverage): a bitmap [`reach`](Self::reach)
    /// pixels larger on every side, placed to match.
    pub fn apply(&self, image: &GlyphImage) -> GlyphImage {
        let r = self.reach() as usize;
        let (w, h) = (image.width as usize, image.height as usize);
        if w == 0 || h == 0 || image.pixels.len() != w * h {
            return image.clone();
        }
        let (ow, oh) = (w + 2 * r, h + 2 * r);
        let pixels = match *self {
            GlyphEffect::Outline { width_eighths } => {
                dilate(&image.pixels, w, h, r, width_eighths as f32 / EFFECT_STEPS_PER_PX)
            }
            GlyphEffect::Shadow { blur_eighths } => {
                blur(&image.pixels, w, h, r, sigma(blur_eighths))
            }
        };
        GlyphImage {
            width: ow as u32,
            height: oh as u32,
            left: image.left - r as i32,
            bottom: image.bottom - r as i32,
            pixels,
        }
    }
}

/// Grayscale dilation of a `w × h` coverage bitmap by a disk of radius
/// `width`, anti-aliased at its rim: each output pixel is the largest
/// source coverage times how much of it the source pixel grown by `width`
/// covers (`clamp(width + 1 − distance)` between pixel centres: exact along
/// rows and columns). Padded by `pad`.
fn dilate(src: &[u8], w: usize, h: usize, pad: usize, width: f32) -> Vec<u8> {
    let (ow, oh) = (w + 2 * pad, h + 2 * pad);
    let reach = pad as i32;
    // The weights of the disk, row by row.
    let side = 2 * reach + 1;
    let weights: Vec<f32> = (0..side * side)
        .map(|i| {
            let (dx, dy) = ((i % side - reach) as f32, (i / side - reach) as f32);
            (width + 1.0 - (dx * dx + dy * dy).sqrt()).clamp(0.0, 1.0)
        })
        .collect();
    let mut out = vec![0u8; ow * oh];
    for sy in 0..h {
        for sx in 0..w {
            let c = src[sy * w + sx];
            if c == 0 {
                continue;
            }
            let c = c as f32;
            // Source (sx, sy) sits at (sx + pad, sy + pad) in the output.
            for dy in -reach..=reach {
                let oy = (sy + pad) as i32 + dy;
                let row = &weights[((dy + reach) * side) as usize..][..side as usize];
                let base = oy as usize * ow;
                for dx in -reach..=reach {
                    let k = row[(dx + reach) as usize];
                    if k == 0.0 {
                        continue;
                    }
                    let o = &mut out[base + ((sx + pad) as i32 + dx) as usize];
                    let v = (c * k + 0.5) as u8;
                    if v > *o {
                        *o = v;
                    }
                }
            }
        }
    }
    out
}

/// A separable Gaussian blur (standard deviation `sigma`, kernel half-width
/// `pad`) of a `w × h` coverage bitmap, padded by `pad`. `sigma` 0 copies.
fn blur(src: &[u8], w: usize, h: usize, pad: usize, sigma: f32) -> Vec<u8> {
    let (ow, oh) = (w + 2 * pad, h + 2 * pad);
    let mut plane = vec![0f32; ow * oh];
    for y in 0..h {
        for x in 0..w {
            plane[(y + pad) * ow + x + pad] = src[y * w + x] as f32;
        }
    }
    if sigma > 0.0 && pad > 0 {
        let r = pad as i32;
        let mut kernel: Vec<f32> =
            (-r..=r).map(|i| (-(i * i) as f32 / (2.0 * sigma * sigma)).exp()).collect();
        let sum: f32 = kernel.iter().sum();
        kernel.iter_mut().for_each(|k| *k /= sum);
        let mut tmp = vec![0f32; ow * oh];
        // Rows, then columns; outside the plane is zero.
        convolve(&plane, &mut tmp, (ow, oh), &kernel, (1, 0));
        convolve(&tmp, &mut plane, (ow, oh), &kernel, (0, 1));
    }
    plane.iter().map(|&v| (v + 0.5).clamp(0.0, 255.0) as u8).collect()
}

/// One pass of a separable blur: each texel of the `w × h` plane `dst` is
/// `kernel` (odd length, centred) applied to `src` along the direction
/// `(dx, dy)` (`(1, 0)` rows, `(0, 1)` columns); outside the plane is zero.
fn convolve(
    src: &[f32], dst: &mut [f32], (w, h): (usize, usize), kernel: &[f32], (dx, dy): (i32, i32),
) {
    let r = (kernel.len() / 2) as i32;
    for y in 0..h {
        for x in 0..w {
            let mut acc = 0.0;
            for (i, k) in kernel.iter().enumerate() {
                let t = i as i32 - r;
                let (sx, sy) = (x as i32 + t * dx, y as i32 + t * dy);
                if sx >= 0 && (sx as usize) < w && sy >= 0 && (sy as usize) < h {
                    acc += k * src[sy as usize * w + sx as usize];
                }
            }
            dst[y * w + x] = acc;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::font::effect::GlyphEffect;

    /// One source pixel dilated: each output pixel is the source's value
    /// times clamp(width + 1 − distance between centres, 0, 1), rounded to
    /// the nearest level (the definition, computed here in f64).
    #[test]
    fn a_dilated_pixel_follows_the_disks_rim() {
        for (c, width) in [(255u8, 1.5f32), (200, 2.25), (97, 0.625)] {
            let e = GlyphEffect::outline(width).unwrap();
            let src = GlyphImage { width: 1, height: 1, left: 0, bottom: 0, pixels: vec![c] };
            let out = e.apply(&src);
            let r = e.reach() as i32;
            assert_eq!((out.width, out.height), ((2 * r + 1) as u32, (2 * r + 1) as u32));
            for y in -r..=r {
                for x in -r..=r {
                    let d = f64::from(x * x + y * y).sqrt();
                    let k = (f64::from(width) + 1.0 - d).clamp(0.0, 1.0);
                    let want = (f64::from(c) * k).round() as u8;
                    let got = out.pixels[((y + r) * (2 * r + 1) + x + r) as usize];
                    assert_eq!(got, want, "c {c} width {width} at ({x}, {y})");
                }
            }
        }
    }

    fn dot(side: u32) -> GlyphImage {
        GlyphImage {
            width: side,
            height: side,
            left: 3,
            bottom: -2,
            pixels: vec![255; (side * side) as usize],
        }
    }

    #[test]
    fn an_outline_grows_a_square_by_its_width() {
        let e = GlyphEffect::outline(2.0).unwrap();
        let out = e.apply(&dot(4));
        assert_eq!((out.width, out.height, out.left, out.bottom), (4 + 2 * 3, 4 + 2 * 3, 0, -5));
        let row = |y: usize| &out.pixels[y * out.width as usize..][..out.width as usize];
        // The middle row: 2 px of outline each side at full coverage, the
        // reach's last pixel empty.
        assert_eq!(row(5), &[0, 255, 255, 255, 255, 255, 255, 255, 255, 0]);
        // Ink grows by about the perimeter times the width plus the corners.
        let ink: u32 = out.pixels.iter().map(|&v| v as u32).sum::<u32>() / 255;
        let expect = 16.0 + 4.0 * 4.0 * 2.0 + std::f32::consts::PI * 4.0;
        assert!((ink as f32 - expect).abs() < 4.0, "{ink} vs {expect}");
    }

    #[test]
    fn a_blur_keeps_the_ink_and_spreads_it() {
        let e = GlyphEffect::shadow(4.0).unwrap();
        let src = dot(6);
        let out = e.apply(&src);
        let ink = |p: &[u8]| p.iter().map(|&v| v as f64).sum::<f64>();
        assert!((ink(&out.pixels) / ink(&src.pixels) - 1.0).abs() < 0.01);
        let max = *out.pixels.iter().max().unwrap();
        // σ = 2 over a 6 px square: the centre keeps erf(3 / (2√2))² ≈ 75%.
        assert!((max as f32 / 255.0 - 0.75).abs() < 0.03, "the centre: {max}");
        // A hard shadow is the glyph.
        let hard = GlyphEffect::shadow(0.0).unwrap().apply(&src);
        assert_eq!(hard, src);
    }

    #[test]
    fn bad_sizes_are_refused() {
        assert!(GlyphEffect::outline(f32::NAN).is_err());
        assert!(GlyphEffect::outline(0.0).is_err());
        assert!(GlyphEffect::outline(100.0).is_err());
        assert!(GlyphEffect::shadow(-1.0).is_err());
    }
}
