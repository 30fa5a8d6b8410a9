//! The colour page set: RGBA8 pages beside the coverage pages, for the app's
//! RGBA images and colour glyphs (emoji). It is a second cache of its
//! own (pages, packers, budget, LRU, tiles, upload staging) with 4 bytes per
//! texel, run in step with the coverage cache: same frame numbers, same
//! eviction and frame protection rules, uploads handed out in the same
//! [`FrameOutput`](crate::FrameOutput) (its `color` part). Quads drawn from
//! it carry [`COLOR_PAGE_BIT`] in their page.

use crate::cache::{GlyphCache, PositionedReq, Request};
use crate::entry::GlyphEntry;
#[cfg(not(feature = "swash"))]
use crate::error::RasterError;
use crate::error::{ConfigError, GlyphError, ImageSourceError};
use crate::image::ImageSource;
use crate::key::{GlyphKey, GlyphSize, ImageSourceId, RenderMode, RGBA_SOURCE_BIT};
use crate::output::ColorOutput;
use crate::raster::FontdueRasterizer;
use crate::raster::GlyphImage;
use crate::text::{GlyphQuad, Skipped};

/// Set in a [`GlyphQuad::page`](crate::GlyphQuad::page) (and a colour
/// [`GlyphEntry::page`]) when the texels are on colour page `page & !COLOR_PAGE_BIT`.
pub const COLOR_PAGE_BIT: u32 = 1 << 30;

impl GlyphCache {
    /// Adds a source of RGBA images (icons with colour, rasterized SVG): like
    /// [`add_image_source`](Self::add_image_source), but the source returns
    /// four bytes per pixel (straight sRGB RGBA), the images live in the
    /// colour pages ([`CacheConfig::color`](crate::CacheConfig::color)) and
    /// are drawn without tint.
    pub fn add_rgba_image_source(
        &mut self, source: impl ImageSource + 'static,
    ) -> Result<ImageSourceId, ImageSourceError> {
        let id = self.color_set()?.add_image_source(source)?;
        Ok(ImageSourceId(id.0 | RGBA_SOURCE_BIT))
    }

    /// The colour set, made on first use (in step with this cache's frame).
    fn color_set(&mut self) -> Result<&mut GlyphCache, ConfigError> {
        let set = match self.color.take() {
            Some(set) => set,
            None => {
                let mut set = GlyphCache::with_rasterizer(
                    self.config.color_set(),
                    Box::new(FontdueRasterizer),
                )?;
                set.bpp = 4;
                set.frame = self.frame;
                Box::new(set)
            }
        };
        Ok(self.color.insert(set))
    }

    /// True when glyph batches in `mode` send colour glyphs to the colour
    /// pages: a font with colour glyphs is loaded, this is the coverage
    /// cache, and kerf-cache's `swash` feature renders them.
    #[inline]
    pub(crate) fn routes_color(&self, mode: RenderMode) -> bool {
        cfg!(feature = "swash")
            && self.color_fonts
            && self.bpp == 1
            && matches!(mode, RenderMode::Coverage | RenderMode::ShiftedCoverage | RenderMode::Lcd)
    }

    /// Runs a glyph batch with colour glyphs in it: the others as usual,
    /// then the colour ones in the colour set (their misses rendered here,
    /// where the fonts are), their quads after the others' and marked with
    /// [`COLOR_PAGE_BIT`]; skipped indices are the batch's.
    pub(crate) fn run_split<R: Request>(
        &mut self, reqs: &[R], color: &[usize], out: &mut Vec<GlyphQuad>, mode: RenderMode,
        skipped: &mut Vec<Skipped>,
    ) {
        // The others, in place (`color` is ascending).
        self.run_batch(reqs, color, out, mode, skipped);
        let max_px = self.config.max_glyph_px;
        let key_of = |r: &PositionedReq| {
            GlyphSize::from_px(r.size, max_px).map(|size| GlyphKey {
                mode: RenderMode::Color,
                ..GlyphKey::new(r.font, r.glyph, size)
            })
        };
        if self.color_set().is_err() {
            // The colour pages' config is refused: the colour glyphs are skipped.
            for &i in color {
                skipped.push(Skipped { index: i, key: None, reason: GlyphError::AtlasFull });
            }
            return;
        }
        // Render the misses here, where the fonts are (a glyph the set's
        // memo holds is cached: no probe).
        let mut missing: Vec<GlyphKey> = Vec::new();
        if let Some(set) = self.color.as_deref() {
            for key in color.iter().filter_map(|&i| key_of(&reqs[i].req())) {
                if !set.memo.contains(&key, set.epoch)
                    && set.map.peek(&key).is_none()
                    && !missing.contains(&key)
                {
                    missing.push(key);
                }
            }
        }
        let rendered = self.rasterize_keys(&missing);
        let Some(set) = self.color.as_deref_mut() else { return };
        set.prerendered.extend(missing.into_iter().zip(rendered));
        set.run_color_subset(reqs, color, RenderMode::Color, out, skipped);
        set.prerendered.clear();
    }

    /// Runs `reqs[i]` for each `i` of `subset` as one batch of this cache,
    /// the skipped glyphs' indices mapped back to `reqs`.
    pub(crate) fn run_subset<R: Request>(
        &mut self, reqs: &[R], subset: &[usize], mode: RenderMode, out: &mut Vec<GlyphQuad>,
        skipped: &mut Vec<Skipped>,
    ) {
        let before = skipped.len();
        let mut picked = std::mem::take(&mut self.subset);
        picked.clear();
        picked.extend(subset.iter().map(|&i| reqs[i].req()));
        self.run_batch(&picked, &[], out, mode, skipped);
        self.subset = picked;
        for s in &mut skipped[before..] {
            s.index = subset[s.index];
        }
    }

    /// [`run_subset`](Self::run_subset) in the colour set: its quads marked
    /// with [`COLOR_PAGE_BIT`].
    pub(crate) fn run_color_subset<R: Request>(
        &mut self, reqs: &[R], subset: &[usize], mode: RenderMode, out: &mut Vec<GlyphQuad>,
        skipped: &mut Vec<Skipped>,
    ) {
        let first = out.len();
        self.run_subset(reqs, subset, mode, out, skipped);
        for q in &mut out[first..] {
            q.page |= COLOR_PAGE_BIT;
        }
    }

    /// A colour glyph's RGBA raster (with the `swash` feature).
    pub(crate) fn render_color(&self, key: &GlyphKey) -> Result<GlyphImage, GlyphError> {
        let font = self.font_ref(key.font)?;
        let count = font.fontdue.glyph_count();
        if key.glyph >= count {
            return Err(GlyphError::GlyphOutOfRange { font: key.font, glyph: key.glyph, count });
        }
        #[cfg(feature = "swash")]
        {
            Ok(crate::swash::render_color(font, key, &self.strikes)?)
        }
        #[cfg(not(feature = "swash"))]
        {
            Err(RasterError::UnsupportedMode(RenderMode::Color).into())
        }
    }

    /// The colour page set (its pages, entries, stats), once an RGBA source was added.
    pub fn color_pages(&self) -> Option<&GlyphCache> {
        self.color.as_deref()
    }

    /// Keeps the colour set's frame in step: a new frame (`begin`) or the
    /// current one continued.
    pub(crate) fn sync_color(&mut self, begin: bool) {
        let frame = self.frame;
        if let Some(c) = self.color.as_mut() {
            if begin && c.frame != frame {
                c.stats.frames += 1;
            }
            c.frame = frame;
            c.frame_start = c.stats.clone();
        }
    }

    /// Ends the colour set's frame: its trim and uploads.
    pub(crate) fn end_color_frame(&mut self) -> Option<(ColorOutput, u64, u64, u64)> {
        let c = self.color.as_mut()?;
        let out = c.end_frame();
        Some((
            ColorOutput { pages: out.pages, uploads: out.uploads, glyphs: out.glyphs },
            out.lookups,
            out.hits,
            out.evictions,
        ))
    }
}

impl GlyphEntry {
    /// The entry with [`COLOR_PAGE_BIT`] in its page (entries with texels only).
    pub(crate) fn on_color_page(self) -> GlyphEntry {
        if self.is_blank() {
            self
        } else {
            GlyphEntry { page: self.page | COLOR_PAGE_BIT, ..self }
        }
    }
}
