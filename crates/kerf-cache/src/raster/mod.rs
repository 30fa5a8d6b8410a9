//! The rasterizer trait and its default implementation: fontdue for faces
//! loaded eagerly, kerf's outline rasterizer for lazy ones.

pub(crate) mod coverage;
pub(crate) mod lcd;
pub(crate) mod morph;
pub(crate) mod outline;
#[cfg(feature = "swash")]
pub(crate) mod strike;
#[cfg(feature = "swash")]
pub(crate) mod swash;

use crate::bitmap::GlyphImage;
use crate::error::RasterError;
use crate::font::FontRef;
use crate::key::{GlyphKey, RenderMode};
use crate::raster::lcd::{lcd_filtered, lcd_size};
use crate::raster::outline::RasterMetrics;
use crate::subpixel::{resample_shifted, shift_for};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Turns glyph keys into coverage bitmaps. `Send + Sync` so a frame's misses
/// can be rasterized in parallel.
pub trait Rasterizer: Send + Sync {
    /// The bitmap size `(width, height)` [`rasterize`](Self::rasterize) would
    /// produce, computed without rasterizing (used to refuse glyphs larger than
    /// a page before spending time on them).
    fn measure(&self, font: FontRef<'_>, key: &GlyphKey) -> Result<(u32, u32), RasterError>;
    /// Rasterizes one glyph. The key's glyph index has been checked against the
    /// font's glyph count and its size is finite and positive.
    fn rasterize(&self, font: FontRef<'_>, key: &GlyphKey) -> Result<GlyphImage, RasterError>;
    /// True when the rasterizer draws font instances ([`FontRef::font`]'s
    /// [`Font::instance`](crate::fonts::Font::instance): variation coordinates,
    /// synthetic bold and oblique). The default is false: the cache then
    /// hands such glyphs over as the face's default instance and counts
    /// them ([`FrameCounts::default_instance`](crate::FrameCounts::default_instance)).
    fn draws_instances(&self) -> bool {
        false
    }
    /// True when the rasterizer hints outlines. The cache then keeps
    /// [`FontStyle::no_hinting`](crate::FontStyle::no_hinting) in the
    /// instances it makes, and the rasterizer draws an
    /// [`Instance::unhinted`](crate::fonts::Instance::unhinted) font without
    /// hinting. The default is false: the flag is dropped, since every
    /// glyph is drawn unhinted anyway.
    fn hints(&self) -> bool {
        false
    }
    /// Rasterizes `keys`, which differ only in [`GlyphKey::subpixel_x`] (the
    /// sub-pixel bins of one glyph at one size and mode a frame missed), in
    /// order. The default rasterizes them one by one; a rasterizer that
    /// derives every offset from one raster draws that raster once.
    fn rasterize_offsets(
        &self, font: FontRef<'_>, keys: &[GlyphKey],
    ) -> Vec<Result<GlyphImage, RasterError>> {
        keys.iter().map(|k| self.rasterize(font, k)).collect()
    }
}

/// The default rasterizer, grayscale coverage: fontdue for a face loaded
/// eagerly, kerf's own outline rasterizer (exact area coverage of the
/// outline read when the glyph is drawn, placed as fontdue places its
/// bitmaps) for a face loaded lazily; see [`FontLoading`](crate::fonts::FontLoading).
///
/// [`RenderMode::Coverage`] is the raster at offset 0.
/// [`RenderMode::ShiftedCoverage`] of a lazy face (or an instance) is the
/// outline moved right by [`GlyphKey::subpixel_x`] and filled: exact area
/// coverage, no wider than its ink. An eager face's is rasterized with three
/// coverage samples per pixel horizontally (fontdue's LCD raster) and
/// resampled into whole pixels shifted by the offset, since fontdue cannot
/// move an outline by a fraction of a pixel itself (see docs/cache.md,
/// "Sub-pixel positioning"). The 3× raster also places stems more exactly:
/// fontdue's 1× raster puts a stem's ink up to 0.07 px off its outline's
/// centre.
/// [`RenderMode::Lcd`] filters the same 3× raster, shifted the same way,
/// into three texels per pixel (see [`QuadFlags::LCD`](crate::QuadFlags::LCD)).
/// A panic inside fontdue is contained and reported as [`RasterError::Panicked`].
#[derive(Clone, Copy, Debug, Default)]
pub struct FontdueRasterizer;

impl Rasterizer for FontdueRasterizer {
    /// Instances are drawn by the outline rasterizer (fontdue has no variations).
    fn draws_instances(&self) -> bool {
        true
    }

    fn measure(&self, font: FontRef<'_>, key: &GlyphKey) -> Result<(u32, u32), RasterError> {
        check_mode(key)?;
        if direct(font, key) {
            let m = outline::metrics_at(font, key.glyph, key.size.px(), offset_px(key))?;
            return Ok((clamp_u32(m.width), clamp_u32(m.height)));
        }
        let m = match font.font.eager_fontdue() {
            Some(fd) => catch_unwind(AssertUnwindSafe(|| {
                RasterMetrics::from(&fd.metrics_indexed(key.glyph, key.size.px()))
            }))
            .map_err(|_| RasterError::Panicked)?,
            None => outline::metrics(font, key.glyph, key.size.px())?,
        };
        if key.mode == RenderMode::Coverage || m.width == 0 {
            return Ok((clamp_u32(m.width), clamp_u32(m.height)));
        }
        let shift = shift_for(m.bounds_xmin, m.width, key.subpixel_x);
        if key.mode == RenderMode::Lcd {
            return Ok((
                lcd_size(shift.whole, shift.frac, 3 * m.width).0.saturating_mul(3),
                clamp_u32(m.height),
            ));
        }
        Ok((shift.width, clamp_u32(m.height)))
    }

    fn rasterize(&self, font: FontRef<'_>, key: &GlyphKey) -> Result<GlyphImage, RasterError> {
        check_mode(key)?;
        if key.mode == RenderMode::Coverage {
            return checked(raster(font, key, false)?);
        }
        if direct(font, key) {
            let drawn = outline::rasterize_at(font, key.glyph, key.size.px(), &[offset_px(key)])?;
            return drawn.into_iter().next().map(checked).unwrap_or(Err(RasterError::BadFont));
        }
        let (m, thirds) = thirds(font, key)?;
        Ok(from_thirds(&m, &thirds, key))
    }

    /// Every offset from one outline read (a lazy face) or one 3× raster (the
    /// keys share glyph, size and mode).
    fn rasterize_offsets(
        &self, font: FontRef<'_>, keys: &[GlyphKey],
    ) -> Vec<Result<GlyphImage, RasterError>> {
        let Some(first) = keys.first() else { return Vec::new() };
        if let Err(e) = check_mode(first) {
            return vec![Err(e); keys.len()];
        }
        if first.mode == RenderMode::Coverage {
            return keys.iter().map(|k| self.rasterize(font, k)).collect();
        }
        if direct(font, first) {
            let dxs: Vec<f32> = keys.iter().map(offset_px).collect();
            return match outline::rasterize_at(font, first.glyph, first.size.px(), &dxs) {
                Ok(drawn) => drawn.into_iter().map(checked).collect(),
                Err(e) => vec![Err(e); keys.len()],
            };
        }
        match thirds(font, first) {
            Ok((m, t)) => keys.iter().map(|k| Ok(from_thirds(&m, &t, k))).collect(),
            Err(e) => vec![Err(e); keys.len()],
        }
    }
}

/// True when `key` is drawn by the outline rasterizer at its offset
/// directly: [`RenderMode::ShiftedCoverage`] of a lazy face or an instance
/// (fontdue cannot move an outline; the outline rasterizer can, so its
/// sub-pixel bins are exact area coverage, no wider than the ink they hold).
fn direct(font: FontRef<'_>, key: &GlyphKey) -> bool {
    key.mode == RenderMode::ShiftedCoverage && font.font.eager_fontdue().is_none()
}

/// `key`'s sub-pixel offset in pixels.
fn offset_px(key: &GlyphKey) -> f32 {
    f32::from(key.subpixel_x) / 256.0
}

/// A one-sample-a-pixel raster as a [`GlyphImage`], its length checked.
fn checked((m, pixels): (RasterMetrics, Vec<u8>)) -> Result<GlyphImage, RasterError> {
    let (width, height) = (clamp_u32(m.width), clamp_u32(m.height));
    if pixels.len() as u64 != width as u64 * height as u64 {
        return Err(RasterError::BadBitmap { width, height, len: pixels.len() });
    }
    Ok(GlyphImage { width, height, left: m.xmin, bottom: m.ymin, pixels })
}

/// `key`'s glyph and size rasterized at offset 0, one sample a pixel or with
/// `thirds` three across: fontdue's raster for an eager face, the outline
/// rasterizer's (in the same layout) for a lazy one.
fn raster(
    font: FontRef<'_>, key: &GlyphKey, thirds: bool,
) -> Result<(RasterMetrics, Vec<u8>), RasterError> {
    let px = key.size.px();
    match font.font.eager_fontdue() {
        Some(fd) => catch_unwind(AssertUnwindSafe(|| {
            let (m, pixels) = if thirds {
                fd.rasterize_indexed_subpixel(key.glyph, px)
            } else {
                fd.rasterize_indexed(key.glyph, px)
            };
            (RasterMetrics::from(&m), pixels)
        }))
        .map_err(|_| RasterError::Panicked),
        None => outline::rasterize(font, key.glyph, px, thirds),
    }
}

/// The three-samples-per-pixel raster of `key`'s glyph and size, checked.
fn thirds(font: FontRef<'_>, key: &GlyphKey) -> Result<(RasterMetrics, Vec<u8>), RasterError> {
    let (m, thirds) = raster(font, key, true)?;
    let height = clamp_u32(m.height);
    if thirds.len() as u64 != 3 * m.width as u64 * height as u64 {
        return Err(RasterError::BadBitmap {
            width: clamp_u32(m.width.saturating_mul(3)),
            height,
            len: thirds.len(),
        });
    }
    Ok((m, thirds))
}

/// `key`'s bitmap ([`RenderMode::ShiftedCoverage`] or [`RenderMode::Lcd`])
/// from the 3× raster `thirds` with metrics `m` (checked by [`thirds`]).
fn from_thirds(m: &RasterMetrics, thirds: &[u8], key: &GlyphKey) -> GlyphImage {
    let height = clamp_u32(m.height);
    if m.width == 0 || height == 0 {
        return GlyphImage {
            width: 0,
            height: 0,
            left: m.xmin,
            bottom: m.ymin,
            pixels: Vec::new(),
        };
    }
    let shift = shift_for(m.bounds_xmin, m.width, key.subpixel_x);
    if key.mode == RenderMode::Lcd {
        let (px, dx) = lcd_size(shift.whole, shift.frac, 3 * m.width);
        let pixels = lcd_filtered(thirds, 3 * m.width, m.height, shift.frac, px as usize);
        return GlyphImage {
            width: px * 3,
            height,
            left: m.xmin.saturating_add(dx),
            bottom: m.ymin,
            pixels,
        };
    }
    let pixels = resample_shifted(thirds, 3 * m.width, m.height, shift.frac, shift.width as usize);
    GlyphImage {
        width: shift.width,
        height,
        left: m.xmin.saturating_add(shift.whole),
        bottom: m.ymin,
        pixels,
    }
}

fn check_mode(key: &GlyphKey) -> Result<(), RasterError> {
    match key.mode {
        RenderMode::Coverage if key.subpixel_x == 0 => Ok(()),
        RenderMode::ShiftedCoverage | RenderMode::Lcd => Ok(()),
        mode => Err(RasterError::UnsupportedMode(mode)),
    }
}

fn clamp_u32(v: usize) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}
