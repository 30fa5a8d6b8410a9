//! The colour atlas: RGBA8 pages beside the coverage pages, for the app's
//! RGBA images and colour glyphs (emoji). An [`Atlas`] like the coverage one
//! (pages, packers, budget, LRU, tiles, upload staging) with 4 bytes per
//! texel and its own page size and budget ([`ColorPages`](crate::ColorPages)),
//! made on first use and kept at the coverage atlas's frame. Its uploads go
//! out in the same [`FrameOutput`](crate::FrameOutput) (its `color` part);
//! quads drawn from it carry [`QuadFlags::COLOR`](crate::QuadFlags::COLOR).

use crate::atlas::entry::GlyphEntry;
use crate::atlas::format::TexelFormat;
use crate::atlas::request::{PositionedReq, Request};
use crate::atlas::Atlas;
use crate::cache::GlyphCache;
use crate::error::{ConfigError, GlyphError, ImageSourceError};
use crate::image::ImageSource;
use crate::key::{ImageSourceId, RenderMode};
use crate::quad::{GlyphQuad, COLOR_PAGE_BIT};
use crate::source::Sources;
use crate::text::Skipped;
use std::sync::Arc;

impl GlyphCache {
    /// Adds a source of RGBA images (icons with colour, rasterized SVG): like
    /// [`add_image_source`](Self::add_image_source), but the source returns
    /// four bytes per pixel (straight sRGB RGBA), the images live in the
    /// colour pages ([`CacheConfig::color`](crate::CacheConfig::color)) and
    /// are drawn without tint.
    pub fn add_rgba_image_source(
        &mut self, source: impl ImageSource + 'static,
    ) -> Result<ImageSourceId, ImageSourceError> {
        self.color_atlas()?;
        self.sources.add_image_source(Arc::new(source), true)
    }

    /// The colour atlas, made on first use (at the coverage atlas's frame).
    pub(crate) fn color_atlas(&mut self) -> Result<&mut Atlas, ConfigError> {
        let atlas = match self.color.take() {
            Some(atlas) => atlas,
            None => {
                let config = self.config.color_set();
                config.validate()?;
                Atlas::new(config, TexelFormat::Rgba, self.coverage.frame)
            }
        };
        Ok(self.color.insert(atlas))
    }

    /// The colour atlas (its pages, entries, stats), once an RGBA source was
    /// added or a colour glyph drawn.
    pub fn color_pages(&self) -> Option<&Atlas> {
        self.color.as_ref()
    }

    /// True when glyph batches in `mode` send colour glyphs to the colour
    /// pages: a font with colour glyphs is loaded and kerf-cache's `swash`
    /// feature renders them.
    #[inline]
    pub(crate) fn routes_color(&self, mode: RenderMode) -> bool {
        cfg!(feature = "swash")
            && self.sources.color_fonts
            && matches!(mode, RenderMode::Coverage | RenderMode::ShiftedCoverage | RenderMode::Lcd)
    }

    /// Runs a glyph batch with colour glyphs in it (`color`: their indices,
    /// ascending): the others in the coverage atlas, then the colour ones in
    /// the colour atlas, their quads after the others'; skipped indices are
    /// the batch's.
    pub(crate) fn run_split<R: Request>(
        &mut self, reqs: &[R], color: &[usize], out: &mut Vec<GlyphQuad>, mode: RenderMode,
    ) {
        let skipped = &mut self.report.skipped;
        self.coverage.run_batch(reqs, color, out, mode, skipped, &self.sources);
        if self.color_atlas().is_err() {
            // The colour pages' config is refused: the colour glyphs are skipped.
            for &i in color {
                let reason = GlyphError::AtlasFull;
                self.report.skipped.push(Skipped { index: i, key: None, reason });
            }
            return;
        }
        let GlyphCache { color: Some(atlas), sources, buffers, report, .. } = self else {
            return;
        };
        run_subset(
            atlas,
            sources,
            &mut buffers.subset,
            reqs,
            color,
            RenderMode::Color,
            out,
            report,
        );
    }
}

/// Runs `reqs[i]` for each `i` of `subset` as one batch of `atlas` in
/// `mode` (through the reused request buffer `picked`), the skipped glyphs'
/// indices mapped back to `reqs`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_subset<R: Request>(
    atlas: &mut Atlas, sources: &Sources, picked: &mut Vec<PositionedReq>, reqs: &[R],
    subset: &[usize], mode: RenderMode, out: &mut Vec<GlyphQuad>,
    report: &mut crate::cache::Report,
) {
    let before = report.skipped.len();
    picked.clear();
    picked.extend(subset.iter().map(|&i| reqs[i].req()));
    atlas.run_batch(picked, &[], out, mode, &mut report.skipped, sources);
    for s in &mut report.skipped[before..] {
        s.index = subset[s.index];
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
