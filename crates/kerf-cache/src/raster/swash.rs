//! A second coverage rasterizer on swash (feature `swash`): outlines with
//! optional hinting, fractional offsets rendered directly, and the LCD mode.

use crate::bitmap::GlyphImage;
use crate::error::RasterError;
use crate::font::instance::embolden_px;
use crate::font::FontRef;
use crate::key::{GlyphKey, RenderMode};
use crate::raster::lcd::{lcd_filtered, lcd_size};
use crate::raster::strike::{scaled, Decoded, StrikeCache};
use crate::raster::Rasterizer;
use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use swash::scale::{Render, ScaleContext, Scaler, Source};
use swash::zeno::{Angle, Format, Transform, Vector};

thread_local! {
    // swash's scaler state and its cache of parsed fonts and hinting
    // programs, one per rasterizing thread (misses are rasterized in parallel).
    static CONTEXT: RefCell<ScaleContext> = RefCell::new(ScaleContext::new());
}

/// Coverage from swash's outline scaler, with or without hinting.
///
/// Hinting (swash runs TrueType bytecode where a font has it, else its
/// auto-hinter) fits outlines to the pixel grid vertically: crisper stems
/// and x-heights at small sizes, at the price of shapes that differ a little
/// from the design. Offsets for sub-pixel positioning are rendered directly
/// (swash moves the outline), and [`RenderMode::Lcd`] renders at three times
/// the horizontal scale, filtered like fontdue's LCD raster.
///
/// Fonts are read from [`FontRef::bytes`] and its collection index. A font
/// swash cannot read gives [`RasterError::BadFont`]; a panic inside swash is
/// contained and reported as [`RasterError::Panicked`].
///
/// ```
/// use kerf_cache::{CacheConfig, GlyphCache, rasterize::SwashRasterizer};
/// let mut cache = GlyphCache::with_rasterizer(CacheConfig::default(), Box::new(SwashRasterizer::new().hinting(true)))?;
/// let font = cache.add_font(dejavu::sans::regular().to_vec())?;
/// let mut quads = Vec::new();
/// let mut frame = cache.begin_frame();
/// frame.layout(&kerf_cache::TextSpec::new("hinted", font, 12.0), &mut quads)?;
/// frame.finish();
/// assert_eq!(quads.len(), 6);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SwashRasterizer {
    hinting: bool,
}

impl SwashRasterizer {
    /// A rasterizer without hinting.
    pub fn new() -> SwashRasterizer {
        SwashRasterizer { hinting: false }
    }

    /// The same rasterizer with hinting on or off.
    pub fn hinting(mut self, on: bool) -> SwashRasterizer {
        self.hinting = on;
        self
    }

    /// Whether outlines are hinted.
    pub fn is_hinting(&self) -> bool {
        self.hinting
    }

    /// Renders `key`'s outline at `scale_x` times the horizontal scale, moved
    /// right by `offset_x` (in the scaled units).
    fn render(
        &self, font: FontRef<'_>, key: &GlyphKey, scale_x: f32, offset_x: f32,
    ) -> Result<GlyphImage, RasterError> {
        let synth = Synthesis::of(font, key);
        let image = with_scaler(font, key, self.hinting, |scaler| {
            let mut render = Render::new(&[Source::Outline]);
            render.format(Format::Alpha).offset(Vector::new(offset_x, 0.0));
            render.embolden(synth.embolden);
            render.transform(synth.transform(scale_x));
            render.render(scaler, key.glyph)
        })?;
        let Some(image) = image else {
            // No outline for this glyph (or none in the font): blank, as
            // fontdue draws such glyphs.
            return Ok(GlyphImage::default());
        };
        let p = image.placement;
        if p.width == 0 || p.height == 0 {
            // Blank: nothing to draw, so no bearings either.
            return Ok(GlyphImage::default());
        }
        check_len(&image, 1)?;
        let bottom = p.top.saturating_sub(p.height as i32);
        Ok(GlyphImage {
            width: p.width,
            height: p.height,
            left: p.left,
            bottom,
            pixels: image.data,
        })
    }
}

impl Rasterizer for SwashRasterizer {
    /// Variations through swash's scaler, synthesis as its outline transforms.
    fn draws_instances(&self) -> bool {
        true
    }

    /// With [`hinting`](Self::hinting) on; an
    /// [`Instance::unhinted`](crate::fonts::Instance::unhinted) font is then drawn
    /// without it.
    fn hints(&self) -> bool {
        self.hinting
    }

    fn measure(&self, font: FontRef<'_>, key: &GlyphKey) -> Result<(u32, u32), RasterError> {
        // The (hinted) outline's pixel bounds, without rasterizing.
        let offset = key.subpixel_x as f32 / 256.0;
        let (sx, off) =
            if key.mode == RenderMode::Lcd { (3.0, 3.0 * offset) } else { (1.0, offset) };
        let synth = Synthesis::of(font, key);
        let bounds = with_scaler(font, key, self.hinting, |scaler| {
            scaler.scale_outline(key.glyph).map(|mut o| {
                if synth.embolden != 0.0 {
                    o.embolden(synth.embolden, synth.embolden);
                }
                if let Some(t) = synth.transform(1.0) {
                    o.transform(&t);
                }
                o.bounds()
            })
        })?;
        let Some(b) = bounds.filter(|b| b.width() > 0.0 && b.height() > 0.0) else {
            return Ok((0, 0));
        };
        let left = (b.min.x * sx + off).floor();
        let width = ((b.max.x * sx + off).ceil() - left).max(0.0) as u32;
        let height = (b.max.y.ceil() - b.min.y.floor()).max(0.0) as u32;
        if key.mode != RenderMode::Lcd {
            return Ok((width, height));
        }
        let l = left as i32;
        let (px, _) = lcd_size(l.div_euclid(3), l.rem_euclid(3) as f32 / 3.0, width as usize);
        Ok((px * 3, height))
    }

    fn rasterize(&self, font: FontRef<'_>, key: &GlyphKey) -> Result<GlyphImage, RasterError> {
        let offset = key.subpixel_x as f32 / 256.0;
        match key.mode {
            RenderMode::Coverage if key.subpixel_x == 0 => self.render(font, key, 1.0, 0.0),
            RenderMode::ShiftedCoverage => self.render(font, key, 1.0, offset),
            RenderMode::Lcd => {
                // A 3x raster whose columns start at third `left`: the pixel
                // grid starts at floor(left / 3), the rest is a shift.
                let thirds = self.render(font, key, 3.0, 3.0 * offset)?;
                if thirds.width == 0 || thirds.height == 0 {
                    return Ok(GlyphImage::default());
                }
                let whole = thirds.left.div_euclid(3);
                let frac = thirds.left.rem_euclid(3) as f32 / 3.0;
                let (px, dx) = lcd_size(whole, frac, thirds.width as usize);
                let pixels = lcd_filtered(
                    &thirds.pixels,
                    thirds.width as usize,
                    thirds.height as usize,
                    frac,
                    px as usize,
                );
                Ok(GlyphImage {
                    width: px * 3,
                    height: thirds.height,
                    left: dx,
                    bottom: thirds.bottom,
                    pixels,
                })
            }
            mode => Err(RasterError::UnsupportedMode(mode)),
        }
    }
}

/// The synthesis of `key`'s font instance, as swash applies it.
#[derive(Clone, Copy, Default)]
struct Synthesis {
    /// swash's embolden strength (px each side).
    embolden: f32,
    /// Synthetic oblique: x moves right by this times y.
    skew: f32,
}

impl Synthesis {
    fn of(font: FontRef<'_>, key: &GlyphKey) -> Synthesis {
        let Some(i) = font.font.instance() else { return Synthesis::default() };
        let embolden = if i.embolden() { embolden_px(key.size.px()) } else { 0.0 };
        Synthesis { embolden, skew: i.oblique() }
    }

    /// The outline transform, after emboldening, for a raster `scale_x`
    /// times as wide. swash's embolden grows an outline right and up by
    /// twice its strength: moved back by the strength, the growth is even
    /// on every side, as kerf's outline rasterizer makes it.
    fn transform(&self, scale_x: f32) -> Option<Transform> {
        if self.embolden == 0.0 && self.skew == 0.0 && scale_x == 1.0 {
            return None;
        }
        let back = Transform::translation(-self.embolden, -self.embolden);
        let skew = Transform::skew(Angle::from_radians(self.skew.atan()), Angle::ZERO);
        Some(back.then(&skew).then(&Transform::scale(scale_x, 1.0)))
    }
}

/// Runs `f` with this thread's swash scaler for `font` at `key`'s size,
/// hinted when `hinting` says so and the font's instance does not turn it
/// off: a font swash cannot read is [`RasterError::BadFont`], a
/// panic inside swash [`RasterError::Panicked`].
fn with_scaler<T>(
    font: FontRef<'_>, key: &GlyphKey, hinting: bool, f: impl FnOnce(&mut Scaler<'_>) -> T,
) -> Result<T, RasterError> {
    let sfont = swash::FontRef::from_index(font.bytes, font.collection_index as usize)
        .ok_or(RasterError::BadFont)?;
    let id = font_id(font);
    let hinting = hinting && !font.font.instance().is_some_and(|i| i.unhinted());
    catch_unwind(AssertUnwindSafe(|| {
        CONTEXT.with(|ctx| {
            let mut ctx = ctx.borrow_mut();
            let mut builder = ctx.builder_with_id(sfont, id).size(key.size.px()).hint(hinting);
            if let Some(i) = font.font.instance() {
                builder = builder
                    .variations(i.variations().iter().map(|(t, v)| (swash::tag_from_bytes(t), *v)));
            }
            let mut scaler = builder.build();
            f(&mut scaler)
        })
    }))
    .map_err(|_| RasterError::Panicked)
}

/// A swash image must hold `bytes_per_pixel` bytes per pixel of its placement.
fn check_len(image: &swash::scale::image::Image, bytes_per_pixel: u64) -> Result<(), RasterError> {
    let p = image.placement;
    if image.data.len() as u64 != bytes_per_pixel * p.width as u64 * p.height as u64 {
        return Err(RasterError::BadBitmap {
            width: p.width,
            height: p.height,
            len: image.data.len(),
        });
    }
    Ok(())
}

/// A font's identity in swash's font cache: where its bytes live, their
/// length and the face index (a cache's fonts live as long as the cache).
fn font_id(font: FontRef<'_>) -> [u64; 2] {
    [font.bytes.as_ptr() as u64, ((font.bytes.len() as u64) << 16) | font.collection_index as u64]
}

/// Renders a colour glyph ([`RenderMode::Color`]) with swash: COLR layers
/// (composited in the font's first palette) or the nearest CBDT/sbix bitmap
/// strike, scaled to the key's size (decoded once per glyph in `strikes`,
/// see strike.rs). Straight (not premultiplied) sRGB RGBA, four bytes per
/// pixel. A glyph without colour data is [`RasterError::UnsupportedMode`].
pub(crate) fn render_color(
    font: FontRef<'_>, key: &GlyphKey, strikes: &StrikeCache,
) -> Result<GlyphImage, RasterError> {
    // Fonts without COLR (Noto Color Emoji: CBDT) skip the outline attempt.
    let sfont = swash::FontRef::from_index(font.bytes, font.collection_index as usize)
        .ok_or(RasterError::BadFont)?;
    if sfont.table(swash::tag_from_bytes(b"COLR")).is_none() {
        return render_strike(font, sfont, key, strikes);
    }
    let outline = with_scaler(font, key, false, |scaler| {
        Render::new(&[Source::ColorOutline(0)]).format(Format::Alpha).render(scaler, key.glyph)
    })?;
    let Some(image) = outline.filter(|i| i.content == swash::scale::image::Content::Color) else {
        return render_strike(font, sfont, key, strikes);
    };
    let p = image.placement;
    if p.width == 0 || p.height == 0 {
        return Ok(GlyphImage::default());
    }
    check_len(&image, 4)?;
    // swash composites COLR layers premultiplied: back to straight alpha.
    let mut pixels = image.data;
    unpremultiply(&mut pixels);
    let bottom = p.top.saturating_sub(p.height as i32);
    Ok(GlyphImage { width: p.width, height: p.height, left: p.left, bottom, pixels })
}

/// RGBA texels premultiplied by their alpha back to straight colour, each
/// channel rounded to the nearest level (integer arithmetic: `(c·255 +
/// a/2) / a` is the rounded quotient for every `c ≤ a`).
fn unpremultiply(pixels: &mut [u8]) {
    for px in pixels.chunks_exact_mut(4) {
        let a = px[3] as u32;
        if a > 0 && a < 255 {
            for c in &mut px[..3] {
                *c = ((*c as u32 * 255 + a / 2) / a).min(255) as u8;
            }
        }
    }
}

/// A glyph from a colour bitmap strike: decoded at the strike's size (swash,
/// once per glyph), resampled to the key's.
fn render_strike(
    font: FontRef<'_>, sfont: swash::FontRef<'_>, key: &GlyphKey, strikes: &StrikeCache,
) -> Result<GlyphImage, RasterError> {
    let unsupported = RasterError::UnsupportedMode(RenderMode::Color);
    let px = key.size.px();
    // The strike swash draws it from: the one nearest the size that has it.
    let strike = catch_unwind(AssertUnwindSafe(|| {
        sfont.color_strikes().find_by_nearest_ppem(px as u16, key.glyph).map(|s| s.ppem())
    }));
    let ppem =
        strike.map_err(|_| RasterError::Panicked)?.filter(|&p| p > 0).ok_or(unsupported.clone())?;
    let decoded = strikes.get_or_decode(font_id(font), key.glyph, ppem, || {
        let native = GlyphKey {
            size: crate::key::GlyphSize::from_px(ppem as f32, f32::MAX).unwrap_or(key.size),
            ..*key
        };
        let image = with_scaler(font, &native, false, |scaler| {
            Render::new(&[Source::ColorBitmap(swash::scale::StrikeWith::BestFit)])
                .format(Format::Alpha)
                .render(scaler, key.glyph)
        })?;
        let Some(image) = image.filter(|i| i.content == swash::scale::image::Content::Color) else {
            return Ok(None);
        };
        check_len(&image, 4)?;
        let p = image.placement;
        Ok(Some(Decoded::new(p.width, p.height, p.left, p.top, image.data)))
    })?;
    let decoded = decoded.ok_or(unsupported)?;
    if decoded.width == 0 || decoded.height == 0 {
        return Ok(GlyphImage::default());
    }
    Ok(scaled(&decoded, px / ppem as f32))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every premultiplied level (c ≤ a) comes back as c·255/a rounded to
    /// the nearest, computed in floating point; opaque and empty texels are
    /// kept as they are.
    #[test]
    fn unpremultiplying_rounds_to_the_nearest_level() {
        for a in 0..=255u8 {
            for c in 0..=a {
                let mut px = [c, c / 2, 0, a];
                unpremultiply(&mut px);
                let straight = |v: u8| {
                    if a == 0 || a == 255 {
                        v
                    } else {
                        (f64::from(v) * 255.0 / f64::from(a)).round().min(255.0) as u8
                    }
                };
                assert_eq!(px, [straight(c), straight(c / 2), 0, a], "c {c} a {a}");
            }
        }
    }
}
