//! Colour bitmap strikes (CBDT, sbix: Noto Color Emoji, Apple Color Emoji)
//! decoded once per glyph and resampled for each size (feature `swash`).
//!
//! A strike holds a glyph as a PNG at one size (Noto's: 109 px per em). To
//! draw it at 14 px, swash decodes the PNG and resamples it with a Mitchell
//! filter, again for every size: about 0.3 ms a glyph, most of it the
//! resampling. Here the decoded strike bitmap is kept (per cache, a few
//! dozen glyphs) and each size is a separable tent-filter resample of it in
//! premultiplied alpha: an area-weighted average when shrinking (support
//! `1/scale` source pixels), bilinear when enlarging. The bitmap's size and
//! placement follow swash's rule (`floor(w · scale)`, bearings truncated).

use crate::error::RasterError;
use crate::raster::{FontRef, GlyphImage};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// How many decoded strike bitmaps a cache keeps (Noto's are 136 × 128
/// RGBA, 70 KB each); the table is emptied when it would hold more.
const KEEP: usize = 64;

/// A strike bitmap at its own size: straight RGBA, its placement in pixels
/// at the strike's ppem (left bearing, top above the baseline).
pub(crate) struct Decoded {
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) left: i32,
    pub(crate) top: i32,
    pub(crate) rgba: Vec<u8>,
}

/// Decoded strike bitmaps by (font identity, glyph, strike ppem). Fonts
/// live as long as the cache that owns this table, so their identity (where
/// their bytes are) cannot be reused while it holds them.
#[derive(Default)]
pub(crate) struct StrikeCache {
    decoded: Mutex<HashMap<([u64; 2], u16, u16), Arc<Decoded>>>,
}

impl StrikeCache {
    /// The decoded bitmap of `glyph` in the strike of `ppem`, decoded with
    /// `decode` on first use. Decoding happens outside the lock (misses are
    /// rasterized in parallel).
    pub(crate) fn get_or_decode(
        &self,
        font: [u64; 2],
        glyph: u16,
        ppem: u16,
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
        return GlyphImage { width: d.width, height: d.height, left: d.left, bottom, pixels: d.rgba.clone() };
    }
    let w = (d.width as f32 * scale) as u32;
    let h = (d.height as f32 * scale) as u32;
    let left = (d.left as f32 * scale) as i32;
    let top = (d.top as f32 * scale) as i32;
    if w == 0 || h == 0 {
        return GlyphImage { left, bottom: top, ..GlyphImage::default() };
    }
    let pixels = resample_rgba(&d.rgba, d.width as usize, d.height as usize, w as usize, h as usize);
    GlyphImage { width: w, height: h, left, bottom: top.saturating_sub(h as i32), pixels }
}

/// The tent-filter taps of each of `dst` output pixels over `src` input
/// pixels: (first input index, weights summing to 1).
fn taps(src: usize, dst: usize) -> Vec<(usize, Vec<f32>)> {
    let ratio = src as f32 / dst as f32;
    let radius = ratio.max(1.0);
    (0..dst)
        .map(|i| {
            let center = (i as f32 + 0.5) * ratio - 0.5;
            let first = (center - radius).ceil().max(0.0) as usize;
            let last = ((center + radius).floor() as usize).min(src - 1);
            let mut w: Vec<f32> = (first..=last).map(|j| (1.0 - (j as f32 - center).abs() / radius).max(0.0)).collect();
            let sum: f32 = w.iter().sum();
            if sum > 0.0 {
                w.iter_mut().for_each(|v| *v /= sum);
            } else {
                // (Cannot happen for src > 0: the nearest pixel has weight.)
                w.iter_mut().for_each(|v| *v = 0.0);
            }
            (first, w)
        })
        .collect()
}

/// Resamples straight RGBA `sw × sh` to `dw × dh` (all > 0) through
/// premultiplied alpha, so transparent pixels lend no colour to their
/// neighbours.
pub(crate) fn resample_rgba(src: &[u8], sw: usize, sh: usize, dw: usize, dh: usize) -> Vec<u8> {
    let pre: Vec<[f32; 4]> = src
        .chunks_exact(4)
        .map(|p| {
            let a = p[3] as f32 / 255.0;
            [p[0] as f32 * a, p[1] as f32 * a, p[2] as f32 * a, p[3] as f32]
        })
        .collect();
    let (xt, yt) = (taps(sw, dw), taps(sh, dh));
    // Rows first: sh rows of dw pixels.
    let mut rows = vec![[0f32; 4]; sh * dw];
    for y in 0..sh {
        let line = &pre[y * sw..(y + 1) * sw];
        for (x, (first, w)) in xt.iter().enumerate() {
            let mut acc = [0f32; 4];
            for (k, wk) in w.iter().enumerate() {
                let p = line[first + k];
                for c in 0..4 {
                    acc[c] += p[c] * wk;
                }
            }
            rows[y * dw + x] = acc;
        }
    }
    let mut out = vec![0u8; dw * dh * 4];
    for (y, (first, w)) in yt.iter().enumerate() {
        for x in 0..dw {
            let mut acc = [0f32; 4];
            for (k, wk) in w.iter().enumerate() {
                let p = rows[(first + k) * dw + x];
                for c in 0..4 {
                    acc[c] += p[c] * wk;
                }
            }
            let o = &mut out[(y * dw + x) * 4..][..4];
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

/// The ppem of `font`'s colour strike nearest to `px` that has `glyph` (the
/// strike swash would draw it from); `None` when no strike has it.
pub(crate) fn strike_for(font: FontRef<'_>, glyph: u16, px: f32) -> Option<u16> {
    let sfont = swash::FontRef::from_index(font.bytes, font.collection_index as usize)?;
    let strike = sfont.color_strikes().find_by_nearest_ppem(px as u16, glyph)?;
    Some(strike.ppem()).filter(|&p| p > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shrinking_averages_and_keeps_colour_off_transparent_pixels() {
        // 4 × 1: opaque red, transparent (black), opaque red, opaque blue.
        let src = [255, 0, 0, 255, 0, 0, 0, 0, 255, 0, 0, 255, 0, 0, 255, 255];
        let out = resample_rgba(&src, 4, 1, 2, 1);
        // Left pair: partly covered (the tent reaches a third neighbour),
        // all of it red: no black bleeds in from the transparent pixel.
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
        }
    }

    #[test]
    fn sizes_and_bearings_follow_the_scale() {
        let d = Decoded { width: 136, height: 128, left: -4, top: 101, rgba: vec![255; 136 * 128 * 4] };
        let img = scaled(&d, 16.0 / 109.0);
        assert_eq!((img.width, img.height), ((136.0 * 16.0 / 109.0) as u32, (128.0 * 16.0 / 109.0) as u32));
        assert_eq!(img.left, (-4.0 * 16.0 / 109.0) as i32);
        assert_eq!(img.bottom, (101.0 * 16.0f32 / 109.0) as i32 - img.height as i32);
        assert_eq!(img.pixels.len(), (img.width * img.height * 4) as usize);
        let same = scaled(&d, 1.0);
        assert_eq!((same.width, same.height, same.bottom), (136, 128, 101 - 128));
    }
}
