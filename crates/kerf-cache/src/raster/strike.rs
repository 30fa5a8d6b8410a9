//! Colour bitmap strikes (CBDT, sbix: Noto Color Emoji, Apple Color Emoji)
//! decoded once per glyph and resampled for each size (feature `swash`).
//!
//! A strike holds a glyph as a PNG at one size (Noto's: 109 px per em). To
//! draw it at 14 px, swash decodes the PNG and resamples it with a Mitchell
//! filter, again for every size: about 0.3 ms a glyph, most of it the
//! resampling. Here the decoded strike bitmap is kept (per cache, a few
//! dozen glyphs) and each size is a separable resample of it in
//! premultiplied alpha: the average of the covered source pixels when
//! shrinking (a box filter, the usual one for downscaling), bilinear when
//! enlarging. The bitmap's size and placement follow swash's rule
//! (`floor(w · scale)`, bearings truncated).

use crate::bitmap::GlyphImage;
use crate::error::RasterError;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// How many decoded strike bitmaps a cache keeps (Noto's are 136 × 128
/// RGBA, 70 KB each, and their halvings about 90 KB more); the table is
/// emptied when it would hold more.
const KEEP: usize = 32;

/// A strike bitmap at its own size: straight RGBA, its placement in pixels
/// at the strike's ppem (left bearing, top above the baseline), and its
/// successive halvings (premultiplied, each 2 × 2 pixels averaged), so a
/// small size is resampled from a level at most twice its size.
pub(crate) struct Decoded {
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) left: i32,
    pub(crate) top: i32,
    pub(crate) rgba: Vec<u8>,
    halvings: Vec<Level>,
}

impl Decoded {
    /// A decoded bitmap (`rgba`: `width × height` straight RGBA) and its halvings.
    pub(crate) fn new(width: u32, height: u32, left: i32, top: i32, rgba: Vec<u8>) -> Decoded {
        let (w, h) = (width as usize, height as usize);
        let mut halvings = Vec::new();
        if w >= 8 && h >= 8 && rgba.len() == w * h * 4 {
            let mut level = halve(&premultiplied(&rgba, w, h));
            while level.width >= 8 && level.height >= 8 {
                let next = halve(&level);
                halvings.push(level);
                level = next;
            }
            halvings.push(level);
        }
        Decoded { width, height, left, top, rgba, halvings }
    }
}

/// A premultiplied RGBA image (colour channels already times alpha/255).
struct Level {
    width: usize,
    height: usize,
    px: Vec<[f32; 4]>,
}

/// Straight RGBA bytes as a premultiplied image.
fn premultiplied(rgba: &[u8], width: usize, height: usize) -> Level {
    let px = rgba
        .chunks_exact(4)
        .map(|p| {
            let f = p[3] as f32 / 255.0;
            [p[0] as f32 * f, p[1] as f32 * f, p[2] as f32 * f, p[3] as f32]
        })
        .collect();
    Level { width, height, px }
}

/// `l` at half its size (rounded up; an odd last row or column averages
/// what it has).
fn halve(l: &Level) -> Level {
    let (w, h) = (l.width.div_ceil(2), l.height.div_ceil(2));
    let mut px = Vec::with_capacity(w * h);
    for y in 0..h {
        let rows = [2 * y, (2 * y + 1).min(l.height - 1)];
        for x in 0..w {
            let cols = [2 * x, (2 * x + 1).min(l.width - 1)];
            let mut acc = [0f32; 4];
            for r in rows {
                for c in cols {
                    let p = l.px[r * l.width + c];
                    for k in 0..4 {
                        acc[k] += p[k] * 0.25;
                    }
                }
            }
            px.push(acc);
        }
    }
    Level { width: w, height: h, px }
}

/// Decoded strike bitmaps by (font identity, glyph, strike ppem). Fonts
/// live as long as the cache that owns this table, so their identity (where
/// their bytes are) cannot be reused while it holds them.
#[derive(Default)]
pub(crate) struct StrikeCache {
    decoded: Mutex<HashMap<StrikeKey, Arc<Decoded>>>,
}

/// A font's identity (where its bytes are), a glyph, a strike's ppem.
type StrikeKey = ([u64; 2], u16, u16);

impl StrikeCache {
    /// Bitmaps decoded and kept.
    pub(crate) fn len(&self) -> usize {
        self.decoded.lock().map_or(0, |m| m.len())
    }

    /// The decoded bitmap of `glyph` in the strike of `ppem`, decoded with
    /// `decode` on first use. Decoding happens outside the lock (misses are
    /// rasterized in parallel).
    pub(crate) fn get_or_decode(
        &self, font: [u64; 2], glyph: u16, ppem: u16,
        decode: impl FnOnce() -> Result<Option<Decoded>, RasterError>,
    ) -> Result<Option<Arc<Decoded>>, RasterError> {
        let key = (font, glyph, ppem);
        if let Some(d) = self.decoded.lock().ok().and_then(|m| m.get(&key).cloned()) {
            return Ok(Some(d));
        }
        let Some(d) = decode()? else { return Ok(None) };
        let d = Arc::new(d);
        if let Ok(mut m) = self.decoded.lock() {
            if m.len() >= KEEP {
                m.clear();
            }
            m.insert(key, d.clone());
        }
        Ok(Some(d))
    }
}

/// `d` drawn at `scale` times its strike size, placed as swash places a
/// scaled strike bitmap. Straight sRGB RGBA.
pub(crate) fn scaled(d: &Decoded, scale: f32) -> GlyphImage {
    if scale == 1.0 {
        let bottom = d.top.saturating_sub(d.height as i32);
        return GlyphImage {
            width: d.width,
            height: d.height,
            left: d.left,
            bottom,
            pixels: d.rgba.clone(),
        };
    }
    let w = (d.width as f32 * scale) as u32;
    let h = (d.height as f32 * scale) as u32;
    let left = (d.left as f32 * scale) as i32;
    let top = (d.top as f32 * scale) as i32;
    if w == 0 || h == 0 {
        return GlyphImage { left, bottom: top, ..GlyphImage::default() };
    }
    let (w_, h_) = (w as usize, h as usize);
    let pixels = match d.halvings.iter().rev().find(|l| l.width >= w_ && l.height >= h_) {
        Some(level) => resample(level, w_, h_),
        None => resample_rgba(&d.rgba, d.width as usize, d.height as usize, w_, h_),
    };
    GlyphImage { width: w, height: h, left, bottom: top.saturating_sub(h as i32), pixels }
}

/// The filter taps of each of `dst` output pixels over `src` input pixels
/// (`src, dst > 0`): for each output pixel its first input pixel and the
/// range of its weights in the returned flat list (weights sum to 1).
/// Shrinking averages the input pixels each output pixel covers, each
/// weighted by the part it covers (a box filter); enlarging interpolates
/// between the two nearest (bilinear).
fn taps(src: usize, dst: usize) -> (Vec<(usize, std::ops::Range<usize>)>, Vec<f32>) {
    let ratio = src as f32 / dst as f32;
    let mut spans = Vec::with_capacity(dst);
    let mut weights = Vec::with_capacity(dst * (ratio.ceil() as usize + 2));
    for i in 0..dst {
        let start = weights.len();
        let first;
        if ratio > 1.0 {
            let (a, b) = (i as f32 * ratio, ((i + 1) as f32 * ratio).min(src as f32));
            first = (a.floor() as usize).min(src - 1);
            let last = ((b.ceil() as usize).max(first + 1) - 1).min(src - 1);
            for j in first..=last {
                let w = (b.min(j as f32 + 1.0) - a.max(j as f32)).max(0.0);
                weights.push(w);
            }
        } else {
            let center = ((i as f32 + 0.5) * ratio - 0.5).max(0.0);
            first = (center.floor() as usize).min(src - 1);
            let frac = center - first as f32;
            weights.push(1.0 - frac);
            if first + 1 < src {
                weights.push(frac);
            }
        }
        let sum: f32 = weights[start..].iter().sum();
        if sum > 0.0 {
            weights[start..].iter_mut().for_each(|w| *w /= sum);
        }
        spans.push((first, start..weights.len()));
    }
    (spans, weights)
}

/// Resamples straight RGBA `sw × sh` to `dw × dh` (all > 0) through
/// premultiplied alpha, so transparent pixels lend no colour to their
/// neighbours.
fn resample_rgba(src: &[u8], sw: usize, sh: usize, dw: usize, dh: usize) -> Vec<u8> {
    resample(&premultiplied(src, sw, sh), dw, dh)
}

/// Resamples a premultiplied image to `dw × dh` (> 0) straight RGBA bytes:
/// rows first (to `dw` columns), then columns.
fn resample(src: &Level, dw: usize, dh: usize) -> Vec<u8> {
    let (sw, sh) = (src.width, src.height);
    let (xs, xw) = taps(sw, dw);
    let (ys, yw) = taps(sh, dh);
    let mut rows = vec![[0f32; 4]; sh * dw];
    for (line, out) in src.px.chunks_exact(sw).zip(rows.chunks_exact_mut(dw)) {
        for ((first, span), o) in xs.iter().zip(out.iter_mut()) {
            let w = &xw[span.clone()];
            let mut acc = [0f32; 4];
            for (p, &wk) in line[*first..*first + w.len()].iter().zip(w) {
                for c in 0..4 {
                    acc[c] += p[c] * wk;
                }
            }
            *o = acc;
        }
    }
    let mut out = vec![0u8; dw * dh * 4];
    for ((first, span), line) in ys.iter().zip(out.chunks_exact_mut(dw * 4)) {
        let w = &yw[span.clone()];
        for (x, o) in line.chunks_exact_mut(4).enumerate() {
            let mut acc = [0f32; 4];
            for (k, &wk) in w.iter().enumerate() {
                let p = rows[(first + k) * dw + x];
                for c in 0..4 {
                    acc[c] += p[c] * wk;
                }
            }
            let a = acc[3];
            if a >= 0.5 {
                let un = 255.0 / a;
                for c in 0..3 {
                    o[c] = (acc[c] * un + 0.5).clamp(0.0, 255.0) as u8;
                }
                o[3] = (a + 0.5).min(255.0) as u8;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shrinking_averages_and_keeps_colour_off_transparent_pixels() {
        // 4 × 1: opaque red, transparent (black), opaque red, opaque blue.
        let src = [255, 0, 0, 255, 0, 0, 0, 0, 255, 0, 0, 255, 0, 0, 255, 255];
        let out = resample_rgba(&src, 4, 1, 2, 1);
        // Left pair: half covered, all of it red: no black bleeds in from
        // the transparent pixel.
        assert_eq!(&out[..3], &[255, 0, 0]);
        assert!((110..=170).contains(&out[3]), "{out:?}");
        // Right pair: between red and blue, nothing else.
        assert!(out[4] > 60 && out[6] > 60 && out[5] == 0, "{out:?}");
    }

    #[test]
    fn a_flat_image_stays_flat_at_any_size() {
        let src: Vec<u8> = [10u8, 200, 30, 255].repeat(136 * 128);
        for (w, h) in [(12, 11), (30, 28), (200, 190)] {
            let out = resample_rgba(&src, 136, 128, w, h);
            assert!(out.chunks_exact(4).all(|p| p == [10, 200, 30, 255]), "{w}×{h}");
            // The same from the halvings.
            let d = Decoded::new(136, 128, 0, 0, src.clone());
            assert!(
                scaled(&d, w as f32 / 136.0)
                    .pixels
                    .chunks_exact(4)
                    .all(|p| p == [10, 200, 30, 255]),
                "{w}×{h}, halvings"
            );
        }
    }

    #[test]
    fn halvings_give_about_the_direct_average() {
        // A colour and alpha gradient.
        let (w, h) = (136usize, 128usize);
        let src: Vec<u8> = (0..w * h)
            .flat_map(|i| {
                [
                    (i % w * 255 / w) as u8,
                    (i / w * 255 / h) as u8,
                    90,
                    ((i % w + i / w) * 255 / (w + h)) as u8,
                ]
            })
            .collect();
        let d = Decoded::new(w as u32, h as u32, 0, 0, src.clone());
        for (dw, dh) in [(12usize, 11usize), (16, 15), (30, 28), (60, 56)] {
            let direct = resample_rgba(&src, w, h, dw, dh);
            let via = scaled(&d, dw as f32 / w as f32);
            assert_eq!((via.width as usize, via.height as usize), (dw, dh));
            let diff: f64 = direct
                .iter()
                .zip(&via.pixels)
                .map(|(a, b)| (*a as f64 - *b as f64).abs())
                .sum::<f64>()
                / direct.len() as f64;
            assert!(diff < 4.0, "{dw}×{dh}: mean difference {diff}");
        }
    }

    #[test]
    fn sizes_and_bearings_follow_the_scale() {
        let d = Decoded::new(136, 128, -4, 101, vec![255; 136 * 128 * 4]);
        let img = scaled(&d, 16.0 / 109.0);
        assert_eq!(
            (img.width, img.height),
            ((136.0 * 16.0 / 109.0) as u32, (128.0 * 16.0 / 109.0) as u32)
        );
        assert_eq!(img.left, (-4.0 * 16.0 / 109.0) as i32);
        assert_eq!(img.bottom, (101.0 * 16.0f32 / 109.0) as i32 - img.height as i32);
        assert_eq!(img.pixels.len(), (img.width * img.height * 4) as usize);
        let same = scaled(&d, 1.0);
        assert_eq!((same.width, same.height, same.bottom), (136, 128, 101 - 128));
    }
}
