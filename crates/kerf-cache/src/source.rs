//! Where a missed key's texels come from: the fonts and the rasterizer for
//! glyphs, the colour renderer for colour glyphs (feature `swash`), and the
//! app's image sources for images. Every key is checked first (known font,
//! glyph in range, a size the atlas can hold), so a bad request is an error
//! before any work is done.

use crate::atlas::geometry::Geometry;
use crate::atlas::Render;
use crate::bitmap::GlyphImage;
use crate::error::{GlyphError, ImageSourceError, RasterError};
use crate::font::decoration::SOLID_SIDE;
use crate::font::instance::{FontStyle, Tag};
use crate::font::FontRef;
use crate::font::FontSet;
use crate::image::{ImageSource, MAX_IMAGE_SOURCES, SOLID_SOURCE};
use crate::key::{FontId, GlyphKey, GlyphSize, ImageSourceId, KeyMap, RenderMode};
use crate::raster::Rasterizer;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// The fonts, the rasterizer and the app's image sources of a cache.
pub(crate) struct Sources {
    pub(crate) fonts: FontSet,
    pub(crate) rasterizer: Box<dyn Rasterizer>,
    /// The app's coverage image sources, by [`ImageSourceId::index`].
    pub(crate) images: Vec<Arc<dyn ImageSource>>,
    /// The app's RGBA image sources, by [`ImageSourceId::index`].
    pub(crate) rgba_images: Vec<Arc<dyn ImageSource>>,
    /// Colour bitmap strikes decoded once per glyph (see strike.rs).
    #[cfg(feature = "swash")]
    pub(crate) strikes: crate::raster::strike::StrikeCache,
    /// True once a font with colour glyphs is loaded.
    pub(crate) color_fonts: bool,
    /// From how many glyphs on a batch's misses are rasterized in parallel.
    #[cfg_attr(not(feature = "parallel"), allow(dead_code))]
    pub(crate) parallel_threshold: usize,
    /// Where those are rasterized ([`CacheConfig::raster_threads`](crate::CacheConfig::raster_threads)).
    #[cfg(feature = "parallel")]
    pub(crate) threads: crate::threads::Threads,
    /// Glyphs of font instances rasterized as the face's default instance
    /// this frame (the rasterizer draws no instances).
    pub(crate) default_instance: AtomicU64,
}

impl Sources {
    /// Sources with no fonts or images yet, rasterizing misses with
    /// `rasterizer`, in parallel from `parallel_threshold` glyphs on with
    /// the `parallel` feature, on at most `raster_threads` threads.
    pub(crate) fn new(
        rasterizer: Box<dyn Rasterizer>, parallel_threshold: usize,
        #[cfg_attr(not(feature = "parallel"), allow(unused_variables))] raster_threads: usize,
    ) -> Sources {
        Sources {
            fonts: FontSet::default(),
            rasterizer,
            images: Vec::new(),
            rgba_images: Vec::new(),
            #[cfg(feature = "swash")]
            strikes: Default::default(),
            color_fonts: false,
            parallel_threshold,
            #[cfg(feature = "parallel")]
            threads: crate::threads::Threads::of(raster_threads),
            default_instance: AtomicU64::new(0),
        }
    }

    /// Adds an image source of the kind `rgba` says; its id.
    pub(crate) fn add_image_source(
        &mut self, source: Arc<dyn ImageSource>, rgba: bool,
    ) -> Result<ImageSourceId, ImageSourceError> {
        let list = if rgba { &mut self.rgba_images } else { &mut self.images };
        if list.len() >= MAX_IMAGE_SOURCES {
            return Err(ImageSourceError::TooMany(list.len()));
        }
        list.push(source);
        Ok(ImageSourceId::new(list.len() as u32 - 1, rgba))
    }

    /// The font drawing `style` of font `id`, and the axes asked that it
    /// lacks ([`FontSet::instance`]). Hinting turned off where the
    /// rasterizer does not hint draws the same glyphs, so it makes no font
    /// of its own.
    pub(crate) fn instance(
        &mut self, id: FontId, style: &FontStyle,
    ) -> Result<(FontId, Vec<Tag>), GlyphError> {
        if style.no_hinting && !self.rasterizer.hints() {
            return self.fonts.instance(id, &FontStyle { no_hinting: false, ..style.clone() });
        }
        self.fonts.instance(id, style)
    }

    /// Font `id` as a [`Rasterizer`] sees it: an instance as its face's
    /// default instance when the rasterizer draws none
    /// ([`Rasterizer::draws_instances`]).
    pub(crate) fn font_ref(&self, id: FontId) -> Result<FontRef<'_>, GlyphError> {
        let mut font = self.fonts.get(id).ok_or(GlyphError::UnknownFont(id))?;
        if font.instance().is_some() && !self.rasterizer.draws_instances() {
            font = self.fonts.base(id).and_then(|b| self.fonts.get(b)).unwrap_or(font);
        }
        Ok(FontRef { font, bytes: font.bytes(), collection_index: font.collection_index() })
    }

    /// Counts the keys of `keys` drawn as their face's default instance
    /// because the rasterizer draws no instances.
    fn count_default_instances(&self, keys: &[GlyphKey]) {
        if self.rasterizer.draws_instances() {
            return;
        }
        let n = keys
            .iter()
            .filter(|k| k.mode != RenderMode::Image)
            .filter(|k| self.fonts.get(k.font).is_some_and(|f| f.instance().is_some()))
            .count();
        self.default_instance.fetch_add(n as u64, Ordering::Relaxed);
    }

    /// Validates a missed key and measures it; the font to rasterize it with.
    fn check_key(&self, key: &GlyphKey, geometry: Geometry) -> Result<FontRef<'_>, GlyphError> {
        let font = self.font_ref(key.font)?;
        let count = font.font.glyph_count();
        if key.glyph >= count {
            return Err(GlyphError::GlyphOutOfRange { font: key.font, glyph: key.glyph, count });
        }
        if font.font.effect().is_some() && key.mode == RenderMode::Lcd {
            // Effects are grayscale coverage: drawn by the grayscale path.
            return Err(RasterError::UnsupportedMode(RenderMode::Lcd).into());
        }
        let (w, h) = self.rasterizer.measure(font, key)?;
        let grow = font.font.effect().map_or(0, |e| 2 * e.reach());
        let (w, h) = if w == 0 || h == 0 {
            (w, h)
        } else {
            (w.saturating_add(grow), h.saturating_add(grow))
        };
        geometry.check_fits(w, h)?;
        Ok(font)
    }

    /// A rasterizer's bitmap of `key` in `font` as the cache keeps it: its
    /// font's effect made of it, empty edges trimmed.
    fn finished(font: FontRef<'_>, image: GlyphImage, mode: RenderMode) -> GlyphImage {
        match font.font.effect() {
            Some(e) => trimmed(e.apply(&image), mode),
            None => trimmed(image, mode),
        }
    }

    /// [`rasterize_key`](Self::rasterize_key) for each of `keys`, on rayon's
    /// pool from `parallel_threshold` glyphs on. Keys that differ only in
    /// their sub-pixel offset go to the rasterizer together
    /// ([`Rasterizer::rasterize_offsets`]: fontdue draws their shared 3×
    /// raster once).
    pub(crate) fn rasterize_keys(
        &self, keys: &[GlyphKey], geometry: Geometry,
    ) -> Vec<Result<GlyphImage, GlyphError>> {
        self.count_default_instances(keys);
        let groups = offset_groups(keys);
        let run = |g: &Vec<usize>| -> Vec<Result<GlyphImage, GlyphError>> {
            self.rasterize_group(keys, g, geometry)
        };
        #[cfg(feature = "parallel")]
        let parts: Vec<Vec<Result<GlyphImage, GlyphError>>> =
            if groups.len() >= self.parallel_threshold.max(2) && self.threads.count() > 1 {
                use rayon::prelude::*;
                self.threads.install(|| groups.par_iter().map(run).collect())
            } else {
                groups.iter().map(run).collect()
            };
        #[cfg(not(feature = "parallel"))]
        let parts: Vec<Vec<Result<GlyphImage, GlyphError>>> = groups.iter().map(run).collect();
        let mut out: Vec<Option<Result<GlyphImage, GlyphError>>> =
            (0..keys.len()).map(|_| None).collect();
        for (g, results) in groups.iter().zip(parts) {
            for (&i, r) in g.iter().zip(results) {
                out[i] = Some(r);
            }
        }
        out.into_iter().map(|r| r.unwrap_or(Err(GlyphError::AtlasFull))).collect()
    }

    /// The keys `keys[i]` for `i` in `group` (one glyph, size and mode;
    /// offsets may differ), each checked as [`rasterize_key`](Self::rasterize_key)
    /// checks it.
    fn rasterize_group(
        &self, keys: &[GlyphKey], group: &[usize], geometry: Geometry,
    ) -> Vec<Result<GlyphImage, GlyphError>> {
        if let [one] = group {
            return vec![self.rasterize_key(&keys[*one], geometry)];
        }
        let mut out: Vec<Result<GlyphImage, GlyphError>> = group
            .iter()
            .map(|&i| self.check_key(&keys[i], geometry).map(|_| GlyphImage::default()))
            .collect();
        let ok: Vec<GlyphKey> =
            group.iter().zip(&out).filter(|(_, r)| r.is_ok()).map(|(&i, _)| keys[i]).collect();
        let Some(font) = ok.first().and_then(|k| self.font_ref(k.font).ok()) else { return out };
        let mut images = self.rasterizer.rasterize_offsets(font, &ok).into_iter();
        for (r, key) in out.iter_mut().filter(|r| r.is_ok()).zip(&ok) {
            let image = images.next().unwrap_or(Err(RasterError::Panicked));
            *r = image.map(|i| Sources::finished(font, i, key.mode)).map_err(GlyphError::from);
        }
        out
    }

    /// A key's bitmap as the cache makes it on a miss (the rasterizer for
    /// glyphs, with the border of [`RenderMode::Sampled`] added; the colour
    /// renderer for colour glyphs; the image source for images), after the
    /// same checks, for an atlas of `geometry`.
    pub(crate) fn rasterize_key(
        &self, key: &GlyphKey, geometry: Geometry,
    ) -> Result<GlyphImage, GlyphError> {
        match key.mode {
            RenderMode::Image => self.render_image(key, geometry),
            RenderMode::Color => self.render_color(key),
            RenderMode::Sampled => {
                let inner = GlyphKey { mode: RenderMode::Coverage, subpixel_x: 0, ..*key };
                let font = self.check_key(&inner, geometry)?;
                let image = self.rasterizer.rasterize(font, &inner)?;
                Ok(with_border(Sources::finished(font, image, inner.mode)))
            }
            _ => {
                let font = self.check_key(key, geometry)?;
                Ok(Sources::finished(font, self.rasterizer.rasterize(font, key)?, key.mode))
            }
        }
    }

    /// Renders an image key with its source, checking what the source returned.
    fn render_image(&self, key: &GlyphKey, geometry: Geometry) -> Result<GlyphImage, GlyphError> {
        let Some((source, id)) = key.image_parts() else {
            return Err(GlyphError::UnknownFont(key.font));
        };
        if source == SOLID_SOURCE {
            let side = SOLID_SIDE;
            let pixels = vec![255; (side * side) as usize];
            return Ok(GlyphImage { width: side, height: side, left: 0, bottom: 0, pixels });
        }
        let list = if source.is_rgba() { &self.rgba_images } else { &self.images };
        let src =
            list.get(source.index() as usize).ok_or(GlyphError::UnknownImageSource(source))?;
        let image = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            src.render(id, key.size.px())
        }))
        .map_err(|_| GlyphError::ImageFailed {
            image_source: source,
            id,
            message: "the image source panicked (contained)".into(),
        })?
        .map_err(|message| GlyphError::ImageFailed {
            image_source: source,
            id,
            message,
        })?;
        let bpp = if source.is_rgba() { 4 } else { 1 };
        let expected = image.width as u64 * image.height as u64 * bpp;
        if image.pixels.len() as u64 != expected {
            return Err(RasterError::BadBitmap {
                width: image.width,
                height: image.height,
                len: image.pixels.len(),
            }
            .into());
        }
        geometry.check_fits(image.width, image.height)?;
        Ok(image)
    }

    /// A colour glyph's RGBA raster (with the `swash` feature).
    fn render_color(&self, key: &GlyphKey) -> Result<GlyphImage, GlyphError> {
        let font = self.font_ref(key.font)?;
        let count = font.font.glyph_count();
        if key.glyph >= count {
            return Err(GlyphError::GlyphOutOfRange { font: key.font, glyph: key.glyph, count });
        }
        #[cfg(feature = "swash")]
        {
            Ok(crate::raster::swash::render_color(font, key, &self.strikes)?)
        }
        #[cfg(not(feature = "swash"))]
        {
            Err(RasterError::UnsupportedMode(RenderMode::Color).into())
        }
    }
}

impl Render for Sources {
    fn render(&self, keys: &[GlyphKey], geometry: Geometry) -> Vec<Result<GlyphImage, GlyphError>> {
        self.rasterize_keys(keys, geometry)
    }

    #[cfg(feature = "parallel")]
    fn threads(&self) -> &crate::threads::Threads {
        &self.threads
    }
}

/// `image` without its rows and columns of zero coverage at the edges (its
/// bearings moved to match): rasters placed by whole-pixel bounds and
/// sub-pixel shifts carry empty columns (up to two with a shift), which
/// would cost atlas space and fragments for nothing. LCD images lose empty
/// pixels only (three texels each). An image whose bytes do not match its
/// size is left as it is (the cache refuses it later); a blank one becomes
/// 0 × 0.
fn trimmed(image: GlyphImage, mode: RenderMode) -> GlyphImage {
    let (w, h) = (image.width as usize, image.height as usize);
    if w == 0 || h == 0 || image.pixels.len() != w * h {
        return image;
    }
    let step = if mode == RenderMode::Lcd { 3 } else { 1 };
    if w % step != 0 {
        return image;
    }
    let px = &image.pixels;
    let row_empty = |y: usize| px[y * w..(y + 1) * w].iter().all(|&v| v == 0);
    let Some(top) = (0..h).find(|&y| !row_empty(y)) else {
        return GlyphImage { left: image.left, bottom: image.bottom, ..GlyphImage::default() };
    };
    let bottom_row = (0..h).rev().find(|&y| !row_empty(y)).unwrap_or(top);
    let col_empty = |c: usize| (top..=bottom_row).all(|y| px[y * w + c] == 0);
    let cell_empty = |cell: usize| (cell * step..(cell + 1) * step).all(col_empty);
    let cells = w / step;
    let first = (0..cells).find(|&c| !cell_empty(c)).unwrap_or(0);
    let last = (0..cells).rev().find(|&c| !cell_empty(c)).unwrap_or(first);
    let (x0, x1) = (first * step, (last + 1) * step);
    if (x0, x1, top, bottom_row) == (0, w, 0, h - 1) {
        return image;
    }
    let nw = x1 - x0;
    let mut pixels = Vec::with_capacity(nw * (bottom_row + 1 - top));
    for y in top..=bottom_row {
        pixels.extend_from_slice(&px[y * w + x0..y * w + x1]);
    }
    GlyphImage {
        width: nw as u32,
        height: (bottom_row + 1 - top) as u32,
        left: image.left + first as i32,
        bottom: image.bottom + (h - 1 - bottom_row) as i32,
        pixels,
    }
}

/// `image` with a one-texel border of zeros on every side (bearings moved to
/// match); blank images stay blank.
fn with_border(image: GlyphImage) -> GlyphImage {
    if image.width == 0 || image.height == 0 {
        return image;
    }
    let (w, h) = (image.width as usize, image.height as usize);
    let mut pixels = vec![0u8; (w + 2) * (h + 2)];
    for row in 0..h {
        let at = (row + 1) * (w + 2) + 1;
        pixels[at..at + w].copy_from_slice(&image.pixels[row * w..row * w + w]);
    }
    GlyphImage {
        width: image.width + 2,
        height: image.height + 2,
        left: image.left - 1,
        bottom: image.bottom - 1,
        pixels,
    }
}

/// Indices of `keys` in groups that share font, glyph, size and a mode drawn
/// from one raster at any offset (sub-pixel coverage, LCD), in first-seen
/// order; every other key is a group of its own.
fn offset_groups(keys: &[GlyphKey]) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::with_capacity(keys.len());
    let mut at: KeyMap<(FontId, u16, GlyphSize, RenderMode), usize> = KeyMap::default();
    for (i, k) in keys.iter().enumerate() {
        if matches!(k.mode, RenderMode::ShiftedCoverage | RenderMode::Lcd) {
            match at.entry((k.font, k.glyph, k.size, k.mode)) {
                std::collections::hash_map::Entry::Occupied(g) => groups[*g.get()].push(i),
                std::collections::hash_map::Entry::Vacant(v) => {
                    v.insert(groups.len());
                    groups.push(vec![i]);
                }
            }
        } else {
            groups.push(vec![i]);
        }
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::trimmed;
    use crate::bitmap::GlyphImage;
    use crate::key::RenderMode;

    fn image(width: u32, height: u32, pixels: &[u8]) -> GlyphImage {
        GlyphImage { width, height, left: 10, bottom: -2, pixels: pixels.to_vec() }
    }

    #[test]
    fn empty_edges_go_and_the_bearings_follow() {
        #[rustfmt::skip]
        let img = image(4, 3, &[
            0, 0, 0, 0,
            0, 9, 0, 0,
            0, 7, 5, 0,
        ]);
        let t = trimmed(img, RenderMode::ShiftedCoverage);
        assert_eq!((t.width, t.height), (2, 2));
        // One column gone on the left, none at the bottom; the top row went.
        assert_eq!((t.left, t.bottom), (11, -2));
        assert_eq!(t.pixels, vec![9, 0, 7, 5]);
    }

    #[test]
    fn lcd_images_lose_whole_pixels_only() {
        // Two pixels of three texels; the first pixel has ink in its last texel.
        let img = image(9, 1, &[0, 0, 4, 0, 0, 0, 0, 0, 0]);
        let t = trimmed(img, RenderMode::Lcd);
        assert_eq!((t.width, t.left), (3, 10));
        assert_eq!(t.pixels, vec![0, 0, 4]);
    }

    #[test]
    fn blank_and_malformed_images() {
        let t = trimmed(image(3, 2, &[0; 6]), RenderMode::Coverage);
        assert_eq!((t.width, t.height, t.pixels.len()), (0, 0, 0));
        let bad = image(3, 2, &[1; 5]);
        assert_eq!(trimmed(bad.clone(), RenderMode::Coverage), bad);
    }
}
