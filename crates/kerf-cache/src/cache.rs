//! The glyph cache: fonts and image sources ([`Sources`]), a coverage atlas
//! and a colour atlas made on first use ([`Atlas`]), fontdue's layout, and
//! the frame's report. Batches are routed here: glyphs to the coverage
//! atlas, colour glyphs and RGBA images to the colour atlas (color.rs). The
//! lookup API is in frame.rs, the configuration in config.rs.

use crate::atlas::entry::{GlyphEntry, GlyphTile};
use crate::atlas::format::TexelFormat;
use crate::atlas::geometry::Geometry;
use crate::atlas::page::{Page, PageUpload};
use crate::atlas::request::{PositionedReq, Request};
use crate::atlas::Atlas;
use crate::bitmap::GlyphImage;
use crate::config::CacheConfig;
use crate::error::{ConfigError, FontError, GlyphError, ImageSourceError};
use crate::font::effect::GlyphEffect;
use crate::font::instance::{FontStyle, Tag};
use crate::font::{Font, FontRef, FontSet};
use crate::footprint::Footprint;
use crate::image::ImageSource;
use crate::key::{FontId, GlyphKey, GlyphSize, ImageSourceId, RenderMode};
use crate::quad::GlyphQuad;
use crate::raster::{FontdueRasterizer, Rasterizer};
use crate::source::Sources;
use crate::stats::Stats;
use crate::text::{PositionedGlyph, Skipped, TextSpec};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Ids of caches (never 0), so a retained run is never reused in another
/// cache than its own (see retain/mod.rs).
static NEXT_CACHE_ID: AtomicU64 = AtomicU64::new(1);

/// A glyph cache without a GPU. See the crate docs for the data flow.
pub struct GlyphCache {
    pub(crate) config: CacheConfig,
    /// Fonts, rasterizer, image sources: where misses' texels come from.
    pub(crate) sources: Sources,
    /// The coverage pages (1 byte a texel).
    pub(crate) coverage: Atlas,
    /// The colour pages (RGBA8), made on first use.
    pub(crate) color: Option<Atlas>,
    pub(crate) layout: fontdue::layout::Layout<FontId>,
    pub(crate) buffers: Buffers,
    /// What the current frame reports so far.
    pub(crate) report: Report,
    /// This cache's id among the process's caches (see retain/mod.rs).
    pub(crate) id: u64,
    /// Retained runs' keys as they are recorded, coverage and colour (kept
    /// for the next run: see retain/mod.rs).
    pub(crate) key_scratch: [Vec<crate::key::GlyphKey>; 2],
    /// Glyph outlines as curves, for drawing from outlines on the GPU.
    pub(crate) curves: crate::curves::CurveStore,
}

/// What [`GlyphCache::add_instance`] answers: the font to draw with, and
/// the axes asked that the face lacks (ignored).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StyledFont {
    /// The instance's font id (the face's own when the style asks nothing of it).
    pub font: FontId,
    /// Axes in [`FontStyle::variations`] the face does not have.
    pub ignored_axes: Vec<Tag>,
}

/// Request buffers reused from batch to batch.
#[derive(Default)]
pub(crate) struct Buffers {
    /// The requests of images.
    pub(crate) requests: Vec<PositionedReq>,
    /// The glyphs of a laid-out string, and of one of its effect layers.
    pub(crate) pens: Vec<PositionedGlyph>,
    pub(crate) layer: Vec<PositionedGlyph>,
    /// A batch's colour requests' indices.
    pub(crate) color_indices: Vec<usize>,
    /// The requests a batch sends to one atlas of two.
    pub(crate) subset: Vec<PositionedReq>,
    /// A retained run's moves, row by row, as last compared (retain/compare.rs).
    pub(crate) shifts: Vec<(i32, i32)>,
    /// A record's rows looked up one by one (retain/mod.rs).
    pub(crate) row_quads: Vec<GlyphQuad>,
}

/// What the current frame has to report so far.
#[derive(Default)]
pub(crate) struct Report {
    /// Glyphs that could not be drawn.
    pub(crate) skipped: Vec<Skipped>,
    /// Characters no font had in the frame's laid-out strings.
    pub(crate) missing: Vec<char>,
    /// Variation axes the frame's strings asked of fonts that lack them.
    pub(crate) ignored_axes: u64,
}

impl std::fmt::Debug for GlyphCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GlyphCache")
            .field("config", &self.config)
            .field("fonts", &self.sources.fonts.len())
            .field("glyphs", &self.coverage.len())
            .field("pages", &self.coverage.pages)
            .field("frame", &self.coverage.frame)
            .finish()
    }
}

impl GlyphCache {
    /// An empty cache with fontdue as the rasterizer.
    pub fn new(config: CacheConfig) -> Result<GlyphCache, ConfigError> {
        GlyphCache::with_rasterizer(config, Box::new(FontdueRasterizer))
    }

    /// An empty cache with another rasterizer.
    pub fn with_rasterizer(
        config: CacheConfig, rasterizer: Box<dyn Rasterizer>,
    ) -> Result<GlyphCache, ConfigError> {
        config.validate()?;
        Ok(GlyphCache {
            sources: Sources::new(rasterizer, config.parallel_threshold, config.raster_threads),
            coverage: Atlas::new(config.clone(), TexelFormat::Coverage, 0),
            color: None,
            config,
            layout: fontdue::layout::Layout::new(fontdue::layout::CoordinateSystem::PositiveYDown),
            buffers: Buffers::default(),
            report: Report::default(),
            id: NEXT_CACHE_ID.fetch_add(1, Ordering::Relaxed),
            key_scratch: Default::default(),
            curves: crate::curves::CurveStore::default(),
        })
    }

    /// Loads a font from bytes (the first face of a collection).
    pub fn add_font(&mut self, bytes: impl Into<Arc<[u8]>>) -> Result<FontId, FontError> {
        self.add_font_indexed(bytes, 0)
    }

    /// Loads face `index` of a font collection (0 for a plain font file).
    pub fn add_font_indexed(
        &mut self, bytes: impl Into<Arc<[u8]>>, index: u32,
    ) -> Result<FontId, FontError> {
        let font = Font::from_bytes(bytes, index)?;
        self.add_parsed_font(font)
    }

    /// Adds a font parsed earlier with [`Font::from_bytes`] (parsing is the
    /// slow part of loading; a parsed font can be cloned into many caches).
    pub fn add_parsed_font(&mut self, font: Font) -> Result<FontId, FontError> {
        let id = self.sources.fonts.push(font)?;
        self.sources.color_fonts |= self.sources.fonts.has_color_glyphs(id);
        Ok(id)
    }

    /// The font drawing `style` of font `font`'s face (see [`FontStyle`]):
    /// a variable face's axes set (its `wght` from the weight asked, its
    /// `ital` from italic), and bold or oblique synthesized where the face
    /// has neither (bold when the weight asked is ≥ 600 and the face is ≤ 500
    /// without a `wght` axis; a 14° oblique when italic is asked of an
    /// upright face). The instance is a font id of its own, sharing the
    /// face's bytes and parse: its glyphs are keys apart from the face's,
    /// cached and evicted like any. Asking the same again gives the same
    /// id; a style that asks nothing of the face gives the face's own id.
    ///
    /// Axis values are clamped to the axis's range; axes the face lacks are
    /// ignored and listed in the answer. A NaN or infinite number, or an
    /// unknown font, is an error, and the cache is unchanged.
    ///
    /// ```
    /// use kerf_cache::{CacheConfig, FontStyle, GlyphCache};
    /// let mut cache = GlyphCache::new(CacheConfig::default())?;
    /// let regular = cache.add_font(dejavu::sans::regular().to_vec())?;
    /// // DejaVu Sans (regular, no axes): bold and italic are synthesized.
    /// let bold = cache.add_instance(regular, &FontStyle::new().weight(700.0))?;
    /// assert_ne!(bold.font, regular);
    /// assert!(cache.fonts().get(bold.font).unwrap().instance().unwrap().embolden());
    /// // Nothing asked of the face: the face itself.
    /// assert_eq!(cache.add_instance(regular, &FontStyle::new().weight(400.0))?.font, regular);
    /// // A missing axis is ignored and reported.
    /// let wide = cache.add_instance(regular, &FontStyle::new().variation(*b"wdth", 120.0))?;
    /// assert_eq!((wide.font, wide.ignored_axes), (regular, vec![*b"wdth"]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_instance(
        &mut self, font: FontId, style: &FontStyle,
    ) -> Result<StyledFont, GlyphError> {
        let (font, ignored_axes) = self.sources.instance(font, style)?;
        Ok(StyledFont { font, ignored_axes })
    }

    /// The font whose glyphs are `effect` made of font `font`'s glyphs (an
    /// outline or a shadow, see [`GlyphEffect`]): each of its glyphs a key of
    /// its own, made on a miss from the glyph's coverage, cached, evicted
    /// and made again like any glyph. Draw it under the glyphs in the
    /// effect's colour (a shadow moved by its offset): [`TextSpec::outline`]
    /// and [`TextSpec::shadow`] do that, as kerf-wgpu's `TextArea` effects
    /// do for shaped glyphs. Colour glyphs (emoji) get no effect. The same
    /// effect of the same font gives the same id; an unknown font is an
    /// error and changes nothing.
    ///
    /// ```
    /// use kerf_cache::{CacheConfig, GlyphCache, fonts::GlyphEffect};
    /// let mut cache = GlyphCache::new(CacheConfig::default())?;
    /// let font = cache.add_font(dejavu::sans::regular().to_vec())?;
    /// let outline = cache.add_effect(font, GlyphEffect::outline(2.0)?)?;
    /// assert_eq!(cache.add_effect(font, GlyphEffect::outline(2.0)?)?, outline);
    /// assert_eq!(cache.fonts().get(outline).unwrap().effect(), Some(GlyphEffect::outline(2.0)?));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_effect(&mut self, font: FontId, effect: GlyphEffect) -> Result<FontId, GlyphError> {
        self.sources.fonts.effect(font, effect)
    }

    /// Adds a source of the app's own coverage images (icons, rasterized SVG; RGBA
    /// ones: [`add_rgba_image_source`](Self::add_rgba_image_source)): on a
    /// miss the cache asks it to render the image, then caches, draws, evicts
    /// and re-requests it like a glyph ([`Frame::prepare_images`](crate::Frame::prepare_images), [`Frame::image`](crate::Frame::image)).
    pub fn add_image_source(
        &mut self, source: impl ImageSource + 'static,
    ) -> Result<ImageSourceId, ImageSourceError> {
        self.sources.add_image_source(Arc::new(source), false)
    }

    /// The outline store: glyph outlines as curves, for drawing from
    /// outlines on the GPU ([`Frame::outline`](crate::Frame::outline)).
    pub fn curves(&self) -> &crate::curves::CurveStore {
        &self.curves
    }

    /// The outline store, to take its written ranges
    /// ([`CurveStore::take_dirty`](crate::curves::CurveStore::take_dirty))
    /// or set another budget.
    pub fn curves_mut(&mut self) -> &mut crate::curves::CurveStore {
        &mut self.curves
    }

    /// The loaded fonts.
    pub fn fonts(&self) -> &FontSet {
        &self.sources.fonts
    }

    /// The configuration.
    pub fn config(&self) -> &CacheConfig {
        &self.config
    }

    /// The render mode of this cache's keys: [`RenderMode::ShiftedCoverage`]
    /// with more than one sub-pixel bin, [`RenderMode::Coverage`] with one.
    pub fn render_mode(&self) -> RenderMode {
        self.config.render_mode()
    }

    /// The coverage atlas (its pages, entries and stats; the colour atlas:
    /// [`color_pages`](Self::color_pages)).
    pub fn coverage_pages(&self) -> &Atlas {
        &self.coverage
    }

    /// Page side of the coverage pages, in texels.
    pub fn page_side(&self) -> u32 {
        self.coverage.page_side()
    }

    /// The most coverage pages the atlas may have.
    pub fn page_limit(&self) -> u32 {
        self.coverage.page_limit()
    }

    /// The coverage pages, in texture-layer order.
    pub fn pages(&self) -> &[Page] {
        self.coverage.pages()
    }

    /// Running totals of the coverage atlas since the cache was made (the
    /// colour atlas's: [`color_pages`](Self::color_pages)).
    pub fn stats(&self) -> &Stats {
        self.coverage.stats()
    }

    /// The number of the last frame begun (0 before the first).
    pub fn frame_number(&self) -> u64 {
        self.coverage.frame
    }

    /// Number of glyphs cached in the coverage pages (blank ones included).
    pub fn len(&self) -> usize {
        self.coverage.len()
    }

    /// True when the coverage pages cache nothing.
    pub fn is_empty(&self) -> bool {
        self.coverage.is_empty()
    }

    /// The atlas a key's texels are in: RGBA images and colour glyphs in the
    /// colour atlas (if made), everything else in the coverage atlas.
    fn atlas_of(&self, key: &GlyphKey) -> Option<&Atlas> {
        if key.is_color() {
            self.color.as_ref()
        } else {
            Some(&self.coverage)
        }
    }

    /// The colour atlas (if made) with `color`, else the coverage atlas.
    pub(crate) fn atlas_mut(&mut self, color: bool) -> Option<&mut Atlas> {
        if color {
            self.color.as_mut()
        } else {
            Some(&mut self.coverage)
        }
    }

    /// A cached glyph's entry, without touching its recency (an RGBA
    /// image's or colour glyph's from the colour pages, its page marked with
    /// [`COLOR_PAGE_BIT`](crate::COLOR_PAGE_BIT)).
    pub fn peek(&self, key: &GlyphKey) -> Option<GlyphEntry> {
        let entry = self.atlas_of(key)?.peek(key)?;
        Some(if key.is_color() { entry.on_color_page() } else { entry })
    }

    /// The tiles of a cached glyph larger than a page (its [`GlyphEntry`]
    /// then has no texels of its own: width 0, the bearings of the whole
    /// bitmap), without touching its recency. `None` for other glyphs.
    /// An RGBA image's tiles are on colour pages (their pages without the bit).
    pub fn tiles(&self, key: &GlyphKey) -> Option<&[GlyphTile]> {
        self.atlas_of(key)?.tiles(key)
    }

    /// Every glyph cached in the coverage pages, most recently used first.
    pub fn entries(&self) -> impl Iterator<Item = (&GlyphKey, GlyphEntry)> + '_ {
        self.coverage.entries()
    }

    /// Forgets every cached glyph and frees every slot (fonts, pages and stats
    /// stay). Texels stay in the pages until overwritten; no entry refers to them.
    pub fn clear(&mut self) {
        self.coverage.clear();
        if let Some(c) = self.color.as_mut() {
            c.clear();
        }
    }

    /// Evicts coverage glyphs unused for more than `idle_frames` frames
    /// (never one a frame in flight uses); when the live glyphs would fit in
    /// half of one page fewer, starts emptying the last page (no new glyph
    /// goes there, and a glyph looked up there moves to a lower page, its
    /// texels copied, not rasterized); releases empty pages at the end of the
    /// array, down to `min_pages`, once no frame in flight can reference
    /// them. Returns (glyphs evicted, pages released). Runs at the end of
    /// every frame, in both atlases, when `release_idle_after` is set.
    pub fn trim(&mut self, idle_frames: u64) -> (u64, u32) {
        self.coverage.trim(idle_frames)
    }

    /// Uploads of every coverage page in full (to rebuild a GPU atlas, e.g.
    /// after the device was lost; the colour pages':
    /// [`Atlas::full_uploads`]). Pending dirty regions are kept for the next frame.
    pub fn full_uploads(&self) -> Vec<PageUpload> {
        self.coverage.full_uploads()
    }

    /// Checks the cache's invariants in both atlases: every cached glyph is
    /// live in its page's packer at the recorded place, lies inside its page,
    /// overlaps no other glyph, and the packers hold nothing else; both
    /// atlases are at the same frame. Meant for tests and soaks.
    #[doc(hidden)] // a test oracle (also run by `kerf soak`), not part of the API
    pub fn check_invariants(&self) -> Result<(), String> {
        if let Some(c) = &self.color {
            c.check_invariants().map_err(|e| format!("colour pages: {e}"))?;
            if c.frame != self.coverage.frame {
                return Err(format!(
                    "colour pages at frame {}, coverage at {}",
                    c.frame, self.coverage.frame
                ));
            }
        }
        self.coverage.check_invariants()
    }

    /// What the cache holds now: the pages' CPU copies and every collection
    /// that grows with use. Once a workload repeats, none of it grows: a
    /// number that keeps rising over thousands of frames is a leak.
    pub fn footprint(&self) -> Footprint {
        #[cfg(feature = "swash")]
        let decoded_strikes = self.sources.strikes.len();
        #[cfg(not(feature = "swash"))]
        let decoded_strikes = 0;
        let color = self.color.as_ref().map(Atlas::footprint).unwrap_or_default();
        Footprint {
            fonts: self.sources.fonts.len(),
            decoded_strikes,
            ..self.coverage.footprint() + color
        }
    }

    /// Bytes of page texels the atlas holds now (coverage pages, one byte per
    /// texel, and colour pages, four).
    pub fn atlas_bytes(&self) -> u64 {
        self.coverage.bytes() + self.color.as_ref().map_or(0, Atlas::bytes)
    }

    /// Checks what [`Frame::layout`](crate::Frame::layout) would refuse for `text` (unknown font,
    /// invalid size, a non-finite weight or axis value, an effect out of
    /// range) without starting a frame; the quantised size when valid.
    pub fn check_text(&self, text: &TextSpec<'_>) -> Result<GlyphSize, GlyphError> {
        let size = self.size_of(text.size)?;
        for &f in std::iter::once(&text.font).chain(text.fallback) {
            let font = self.sources.fonts.get(f).filter(|_| !crate::image::is_image_font(f));
            let font = font.ok_or(GlyphError::UnknownFont(f))?;
            // kerf's layout is fontdue's: a lazy face's metrics are parsed now.
            font.layout_fontdue().map_err(|error| GlyphError::Font { font: f, error })?;
        }
        let style_error = |error| GlyphError::Style { font: text.font, error };
        if let Some(style) = text.style() {
            style.check().map_err(style_error)?;
        }
        text.effects.layers().map_err(style_error)?;
        Ok(size)
    }

    /// Lays `text` out with fontdue's layout (wrapping, line height, as
    /// [`Frame::layout`](crate::Frame::layout)) and appends its glyphs to `out` as pen positions on
    /// the baseline, advancing by the exact advances: what transformed text
    /// draws. No lookup is made (and characters no font has are not reported:
    /// [`Frame::layout`](crate::Frame::layout) reports them). Unknown font or invalid size: an error, and
    /// nothing is appended.
    pub fn positions(
        &mut self, text: &TextSpec<'_>, out: &mut Vec<PositionedGlyph>,
    ) -> Result<(), GlyphError> {
        self.positions_in(text, out, false)
    }

    /// [`positions`](Self::positions); with `report`, characters no font has
    /// go to the current frame's report.
    pub(crate) fn positions_in(
        &mut self, text: &TextSpec<'_>, out: &mut Vec<PositionedGlyph>, report: bool,
    ) -> Result<(), GlyphError> {
        let size = self.check_text(text)?;
        let styled = self.styled_fonts(text)?;
        let px = size.px();
        self.lay_out(text, px, report);
        let color = text.color;
        self.line_pens(text, px, &styled, |font, glyph, x, y| {
            out.push(PositionedGlyph { font, glyph, size: px, x, y, color })
        });
        Ok(())
    }

    pub(crate) fn size_of(&self, px: f32) -> Result<GlyphSize, GlyphError> {
        GlyphSize::from_px(px, self.config.max_glyph_px)
            .ok_or(GlyphError::InvalidSize { size: px, max: self.config.max_glyph_px })
    }

    /// Font `id` as a [`Rasterizer`] sees it (to rasterize a cached key
    /// again, e.g. to check the pages' texels).
    pub fn font_ref(&self, id: FontId) -> Result<FontRef<'_>, GlyphError> {
        self.sources.font_ref(id)
    }

    /// Produces a key's bitmap exactly as the cache does on a miss (the
    /// rasterizer for glyphs, with the border of [`RenderMode::Sampled`]
    /// added; the image source for images), after the same checks. For tests
    /// and tools that compare the pages with fresh bitmaps.
    pub fn rasterize_key(&self, key: &GlyphKey) -> Result<GlyphImage, GlyphError> {
        let geometry = match self.atlas_of(key) {
            Some(atlas) => atlas.geometry,
            None => Geometry::of(&self.config.color_set()),
        };
        self.sources.rasterize_key(key, geometry)
    }

    /// Fills the reusable request buffer with `fill` and runs the batch,
    /// collecting skipped glyphs into the frame's report.
    pub(crate) fn run_requests(
        &mut self, out: &mut Vec<GlyphQuad>, mode: RenderMode,
        fill: impl FnOnce(&GlyphCache, &mut Vec<PositionedReq>),
    ) {
        let mut reqs = std::mem::take(&mut self.buffers.requests);
        reqs.clear();
        fill(self, &mut reqs);
        self.run_slice(&reqs, out, mode);
        self.buffers.requests = reqs;
    }

    /// Runs `reqs` as one batch (its colour glyphs in the colour atlas),
    /// collecting skipped glyphs into the frame's report.
    pub(crate) fn run_slice<R: Request>(
        &mut self, reqs: &[R], out: &mut Vec<GlyphQuad>, mode: RenderMode,
    ) {
        let mut color = std::mem::take(&mut self.buffers.color_indices);
        color.clear();
        if self.routes_color(mode) {
            let fonts = &self.sources.fonts;
            color.extend(
                reqs.iter()
                    .map(Request::req)
                    .enumerate()
                    .filter(|(_, r)| fonts.is_color_glyph(r.font, r.glyph))
                    .map(|(i, _)| i),
            );
        }
        if color.is_empty() {
            let skipped = &mut self.report.skipped;
            self.coverage.run_batch(reqs, &[], out, mode, skipped, &self.sources);
        } else {
            self.run_split(reqs, &color, out, mode);
        }
        self.buffers.color_indices = color;
    }
}
