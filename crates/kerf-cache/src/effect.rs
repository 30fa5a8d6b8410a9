//! Glyph effects cached in the atlas: an outline (the glyph's coverage
//! dilated by a disk) and a shadow (its coverage blurred by a Gaussian).
//! An effect is a font of its own in the cache
//! ([`GlyphCache::add_effect`](crate::GlyphCache::add_effect)), so each
//! effect of each glyph is a key of its own: made once on a miss from the
//! glyph's coverage, evicted and made again like any glyph, on the same
//! pages and budget.

use crate::error::StyleError;
use crate::raster::GlyphImage;

/// Effect sizes are kept in steps of 1/8 px (equal-looking effects share
/// their glyphs).
pub const EFFECT_STEPS_PER_PX: f32 = 8.0;
/// The widest outline and the largest blur radius, in pixels.
pub const MAX_EFFECT_PX: f32 = 64.0;

/// What an effect makes of a glyph's coverage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GlyphEffect {
    /// The coverage dilated by a disk of this radius (1/8 px steps): drawn
    /// under the glyph, the ring around it is an outline `width/8` px wide.
    Outline {
        /// Width in 1/8 px.
        width_eighths: u16,
    },
    /// The coverage blurred by a Gaussian of this radius (1/8 px steps; the
    /// CSS blur radius: twice the standard deviation; 0 is a hard shadow).
    Shadow {
        /// Blur radius in 1/8 px.
        blur_eighths: u16,
    },
}

impl GlyphEffect {
    /// An outline `width` px wide (in (0, [`MAX_EFFECT_PX`]]).
    pub fn outline(width: f32) -> Result<GlyphEffect, StyleError> {
        let q = quantize("outline width", width)?;
        if q == 0 {
            return Err(StyleError::EffectSize { what: "outline width", value: width });
        }
        Ok(GlyphEffect::Outline { width_eighths: q })
    }

    /// A shadow blurred by radius `blur` px (in [0, [`MAX_EFFECT_PX`]]).
    pub fn shadow(blur: f32) -> Result<GlyphEffect, StyleError> {
        Ok(GlyphEffect::Shadow { blur_eighths: quantize("shadow blur", blur)? })
    }

    /// How far the effect reaches past the glyph's bitmap, in whole pixels.
    pub fn reach(&self) -> u32 {
        match *self {
            GlyphEffect::Outline { width_eighths } => {
                (width_eighths as f32 / EFFECT_STEPS_PER_PX).ceil() as u32 + 1
            }
            GlyphEffect::Shadow { blur_eighths } => kernel_radius(sigma(blur_eighths)) as u32,
        }
    }

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

/// An outline drawn under text: its width in pixels and its colour.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Outline {
    /// Width in pixels (in (0, [`MAX_EFFECT_PX`]]).
    pub width: f32,
    /// Straight sRGB colour, RGBA.
    pub color: [u8; 4],
}

/// A shadow drawn under text (and under its outline): moved by `offset`,
/// blurred by `blur`, in `color`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shadow {
    /// Offset in pixels (x right, y down).
    pub offset: (f32, f32),
    /// Blur radius in pixels (CSS: twice the Gaussian's standard deviation;
    /// 0 is a hard shadow; at most [`MAX_EFFECT_PX`]).
    pub blur: f32,
    /// Straight sRGB colour, RGBA.
    pub color: [u8; 4],
}

/// The effects drawn under a text, each layer in its own colour: the
/// shadow, then the outline, then the text.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Effects {
    /// An outline.
    pub outline: Option<Outline>,
    /// A shadow.
    pub shadow: Option<Shadow>,
}

/// One layer of effects to draw: the effect, the colour and the offset.
pub(crate) type Layer = (GlyphEffect, [u8; 4], (f32, f32));

impl Effects {
    /// True when there is nothing to draw under the text.
    pub fn is_empty(&self) -> bool {
        self.outline.is_none() && self.shadow.is_none()
    }

    /// The layers under the text, in drawing order; an out-of-range or
    /// non-finite size or offset is an error.
    pub fn layers(&self) -> Result<Vec<Layer>, StyleError> {
        let mut out = Vec::new();
        if let Some(s) = self.shadow {
            for (what, v) in [("shadow offset x", s.offset.0), ("shadow offset y", s.offset.1)] {
                if !v.is_finite() {
                    return Err(StyleError::NotFinite { what: what.into(), value: v });
                }
            }
            out.push((GlyphEffect::shadow(s.blur)?, s.color, s.offset));
        }
        if let Some(o) = self.outline {
            out.push((GlyphEffect::outline(o.width)?, o.color, (0.0, 0.0)));
        }
        Ok(out)
    }
}

fn quantize(what: &'static str, v: f32) -> Result<u16, StyleError> {
    if !v.is_finite() {
        return Err(StyleError::NotFinite { what: what.into(), value: v });
    }
    if !(0.0..=MAX_EFFECT_PX).contains(&v) {
        return Err(StyleError::EffectSize { what, value: v });
    }
    Ok((v * EFFECT_STEPS_PER_PX).round() as u16)
}

/// The Gaussian's standard deviation for a blur radius (CSS: radius = 2σ).
fn sigma(blur_eighths: u16) -> f32 {
    blur_eighths as f32 / EFFECT_STEPS_PER_PX / 2.0
}

/// Kernel half-width: three standard deviations.
fn kernel_radius(sigma: f32) -> usize {
    (3.0 * sigma).ceil() as usize
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
        for y in 0..oh {
            for x in 0..ow {
                let mut acc = 0.0;
                for (i, k) in kernel.iter().enumerate() {
                    let sx = x as i32 + i as i32 - r;
                    if sx >= 0 && (sx as usize) < ow {
                        acc += k * plane[y * ow + sx as usize];
                    }
                }
                tmp[y * ow + x] = acc;
            }
        }
        for y in 0..oh {
            for x in 0..ow {
                let mut acc = 0.0;
                for (i, k) in kernel.iter().enumerate() {
                    let sy = y as i32 + i as i32 - r;
                    if sy >= 0 && (sy as usize) < oh {
                        acc += k * tmp[sy as usize * ow + x];
                    }
                }
                plane[y * ow + x] = acc;
            }
        }
    }
    plane.iter().map(|&v| (v + 0.5).clamp(0.0, 255.0) as u8).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

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
