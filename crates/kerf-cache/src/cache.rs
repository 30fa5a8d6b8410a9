//! The glyph cache: its state, and lookup (a hit gives a quad; a miss is
//! rasterized and placed). Finding room and evicting live in evict.rs,
//! moving glyphs off a retiring page in relocate.rs, staging texels and
//! handing out uploads in stage.rs, glyphs larger than a page in tiles.rs,
//! the lookup API in frame.rs, the configuration in config.rs.

use crate::config::CacheConfig;
use crate::entry::{GlyphEntry, GlyphTile, Slot};
use crate::error::{ConfigError, FontError, GlyphError, ImageSourceError, RasterError};
use crate::font::{Font, FontSet};
use crate::image::{ImageSource, MAX_IMAGE_SOURCES};
use crate::key::{FontId, GlyphKey, GlyphSize, ImageSourceId, RenderMode};
use crate::lcd::{LCD_MAX_PX, LCD_PAGE_BIT};
use crate::memo::{KeyMemo, RunTag};
use crate::page::Page;
use crate::raster::{FontRef, FontdueRasterizer, GlyphImage, Rasterizer};
use crate::stats::Stats;
use crate::subpixel::{round_half_away, snap_subpixel};
use crate::text::{GlyphQuad, PositionedGlyph, Skipped, TextSpec};
use crate::upload::Staging;
use kerf_pack::Rect;
use lru::LruCache;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

/// A glyph cache without a GPU. See the crate docs for the data flow.
pub struct GlyphCache {
    pub(crate) config: CacheConfig,
    pub(crate) side: u32,
    pub(crate) page_limit: u32,
    pub(crate) fonts: FontSet,
    pub(crate) rasterizer: Box<dyn Rasterizer>,
    pub(crate) map: LruCache<GlyphKey, Slot>,
    pub(crate) pages: Vec<Page>,
    pub(crate) frame: u64,
    /// Pages from this index on are being emptied: no new glyph goes there,
    /// and glyphs looked up there move to a lower page.
    pub(crate) retiring: Option<usize>,
    /// The most pages the cache ever had (a page added below this index
    /// reuses a texture layer that holds old texels).
    pub(crate) pages_ever: usize,
    pub(crate) stats: Stats,
    pub(crate) layout: fontdue::layout::Layout<()>,
    pub(crate) scratch: Vec<PositionedReq>,
    pub(crate) pending_skipped: Vec<Skipped>,
    pub(crate) frame_start: Stats,
    pub(crate) staging: Staging,
    /// The tiles of every cached glyph larger than a page.
    pub(crate) tiles: HashMap<GlyphKey, Vec<GlyphTile>>,
    /// The app's image sources, by [`ImageSourceId`].
    pub(crate) images: Vec<Arc<dyn ImageSource>>,
    /// Bytes per texel of the pages: 1 here, 4 in the colour page set.
    pub(crate) bpp: u32,
    /// The colour page set (RGBA8), made on first use.
    pub(crate) color: Option<Box<GlyphCache>>,
    /// Keys recent batches found in the map (see memo.rs).
    pub(crate) memo: KeyMemo,
    /// Glyphs the memo handed back with the frame they were last used in,
    /// to write into the LRU map (see [`GlyphCache::write_back_recency`]).
    pub(crate) recency: Vec<(GlyphKey, u64)>,
    /// The frame in which eviction last found every glyph protected (no
    /// eviction can succeed again in that frame).
    pub(crate) all_protected: Option<u64>,
    /// Reused buffers of the batches split between coverage and colour
    /// pages: the colour requests' indices and their requests.
    pub(crate) color_indices: Vec<usize>,
    pub(crate) subset: Vec<PositionedReq>,
    /// Reused buffer of a batch's requests the memo did not hold (quad slot, request).
    pub(crate) unmemoized: Vec<(usize, usize)>,
    /// Colour bitmap strikes decoded once per glyph (see strike.rs).
    #[cfg(feature = "swash")]
    pub(crate) strikes: crate::strike::StrikeCache,
    /// Bumped whenever an entry leaves the map or moves (eviction,
    /// relocation, clear, a page starting to retire): remembered keys from
    /// before are looked up again.
    pub(crate) epoch: u64,
    /// True once a font with colour glyphs is loaded.
    pub(crate) color_fonts: bool,
    /// Characters no font had in this frame's laid-out strings.
    pub(crate) pending_missing: Vec<char>,
    /// In the colour set: colour glyphs the coverage cache rendered for the
    /// batch being run (the fonts live there), taken on the miss.
    pub(crate) prerendered: HashMap<GlyphKey, Result<GlyphImage, GlyphError>>,
}

/// What a request's `(x, y)` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Anchor {
    /// The pen position on the baseline (positioned glyphs).
    Pen,
    /// The bitmap's top-left corner, whole pixels (fontdue's layout, 1 bin).
    TopLeft,
    /// Pen x, bitmap top y (fontdue's layout with sub-pixel bins).
    PenXTopY,
    /// The pen position of an image: whole pixels, no sub-pixel offset.
    ImagePen,
}

/// A glyph request inside a batch.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PositionedReq {
    pub(crate) font: FontId,
    pub(crate) glyph: u16,
    pub(crate) size: f32,
    pub(crate) x: f32,
    pub(crate) y: f32,
    pub(crate) color: [u8; 4],
    pub(crate) anchor: Anchor,
}

/// What a batch can be made of: kerf's requests, or the app's positioned
/// glyphs read in place (no copy into a request buffer).
pub(crate) trait Request: Copy {
    /// This item as a request.
    fn req(&self) -> PositionedReq;
}

impl Request for PositionedReq {
    #[inline]
    fn req(&self) -> PositionedReq {
        *self
    }
}

impl Request for PositionedGlyph {
    #[inline]
    fn req(&self) -> PositionedReq {
        PositionedReq {
            font: self.font,
            glyph: self.glyph,
            size: self.size,
            x: self.x,
            y: self.y,
            color: self.color,
            anchor: Anchor::Pen,
        }
    }
}

impl PositionedReq {
    /// The request's x snapped to the sub-pixel bins: whole pixels, and the
    /// offset in 1/256 px the glyph is rasterized at.
    #[inline]
    pub(crate) fn snap(&self, bins: u32) -> (i32, u8) {
        match self.anchor {
            Anchor::TopLeft => (round_half_away(self.x), 0),
            Anchor::ImagePen => (round_half_away(self.x), 0),
            Anchor::Pen | Anchor::PenXTopY => snap_subpixel(self.x, bins),
        }
    }

    /// The quad drawing `e` where this request asks; `whole_x` from [`snap`](Self::snap).
    #[inline]
    pub(crate) fn quad(&self, e: &GlyphEntry, whole_x: i32) -> GlyphQuad {
        let (x, y) = match self.anchor {
            Anchor::TopLeft => (whole_x, round_half_away(self.y)),
            Anchor::Pen | Anchor::ImagePen => {
                (whole_x.saturating_add(e.left), round_half_away(self.y).saturating_sub(e.top))
            }
            Anchor::PenXTopY => (whole_x.saturating_add(e.left), round_half_away(self.y)),
        };
        e.quad(x, y, self.color)
    }
}

impl std::fmt::Debug for GlyphCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GlyphCache")
            .field("config", &self.config)
            .field("fonts", &self.fonts.len())
            .field("glyphs", &self.map.len())
            .field("pages", &self.pages)
            .field("frame", &self.frame)
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
            side: config.page_side(),
            page_limit: config.page_limit(),
            config,
            fonts: FontSet::default(),
            rasterizer,
            map: LruCache::unbounded(),
            pages: Vec::new(),
            frame: 0,
            retiring: None,
            pages_ever: 0,
            stats: Stats::default(),
            layout: fontdue::layout::Layout::new(fontdue::layout::CoordinateSystem::PositiveYDown),
            scratch: Vec::new(),
            pending_skipped: Vec::new(),
            frame_start: Stats::default(),
            staging: Staging::default(),
            tiles: HashMap::new(),
            images: Vec::new(),
            bpp: 1,
            color: None,
            memo: KeyMemo::default(),
            recency: Vec::new(),
            all_protected: None,
            color_indices: Vec::new(),
            subset: Vec::new(),
            unmemoized: Vec::new(),
            #[cfg(feature = "swash")]
            strikes: Default::default(),
            epoch: 0,
            color_fonts: false,
            pending_missing: Vec::new(),
            prerendered: HashMap::new(),
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
        let id = self.fonts.push(font)?;
        self.color_fonts |= self.fonts.has_color_glyphs(id);
        Ok(id)
    }

    /// Adds a source of the app's own coverage images (icons, rasterized SVG; RGBA
    /// ones: [`add_rgba_image_source`](Self::add_rgba_image_source)): on a
    /// miss the cache asks it to render the image, then caches, draws, evicts
    /// and re-requests it like a glyph ([`Frame::prepare_images`](crate::Frame::prepare_images), [`Frame::image`](crate::Frame::image)).
    pub fn add_image_source(
        &mut self, source: impl ImageSource + 'static,
    ) -> Result<ImageSourceId, ImageSourceError> {
        if self.images.len() >= MAX_IMAGE_SOURCES {
            return Err(ImageSourceError::TooMany(self.images.len()));
        }
        self.images.push(Arc::new(source));
        Ok(ImageSourceId((self.images.len() - 1) as u16))
    }

    /// Renders an image key with its source, checking what the source returned.
    pub(crate) fn render_image(&self, key: &GlyphKey) -> Result<GlyphImage, GlyphError> {
        let Some((source, id)) = key.image_parts() else {
            return Err(GlyphError::UnknownFont(key.font));
        };
        let src = self
            .images
            .get(source.index() as usize)
            .ok_or(GlyphError::UnknownImageSource(source))?;
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
        let expected = image.width as u64 * image.height as u64 * self.bpp as u64;
        if image.pixels.len() as u64 != expected {
            return Err(RasterError::BadBitmap {
                width: image.width,
                height: image.height,
                len: image.pixels.len(),
            }
            .into());
        }
        self.check_fits(image.width, image.height)?;
        Ok(image)
    }

    /// The loaded fonts.
    pub fn fonts(&self) -> &FontSet {
        &self.fonts
    }

    /// The configuration.
    pub fn config(&self) -> &CacheConfig {
        &self.config
    }

    /// The render mode of this cache's keys: [`RenderMode::ShiftedCoverage`]
    /// with more than one sub-pixel bin, [`RenderMode::Coverage`] with one.
    pub fn render_mode(&self) -> RenderMode {
        if self.config.subpixel_bins > 1 {
            RenderMode::ShiftedCoverage
        } else {
            RenderMode::Coverage
        }
    }

    /// Page side in texels.
    pub fn page_side(&self) -> u32 {
        self.side
    }

    /// The most pages the atlas may have.
    pub fn page_limit(&self) -> u32 {
        self.page_limit
    }

    /// The pages, in texture-layer order.
    pub fn pages(&self) -> &[Page] {
        &self.pages
    }

    /// Running totals since the cache was made.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// The number of the last frame begun (0 before the first).
    pub fn frame_number(&self) -> u64 {
        self.frame
    }

    /// Number of cached glyphs (blank ones included).
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// True when nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// A cached glyph's entry, without touching its recency (an RGBA
    /// image's from the colour pages, its page marked with [`COLOR_PAGE_BIT`](crate::COLOR_PAGE_BIT)).
    pub fn peek(&self, key: &GlyphKey) -> Option<GlyphEntry> {
        if key.is_color() && self.bpp == 1 {
            return self.color.as_ref()?.peek(key).map(GlyphEntry::on_color_page);
        }
        self.map.peek(key).map(|s| s.entry)
    }

    /// The tiles of a cached glyph larger than a page (its [`GlyphEntry`]
    /// then has no texels of its own: width 0, the bearings of the whole
    /// bitmap), without touching its recency. `None` for other glyphs.
    /// An RGBA image's tiles are on colour pages (their pages without the bit).
    pub fn tiles(&self, key: &GlyphKey) -> Option<&[GlyphTile]> {
        if key.is_color() && self.bpp == 1 {
            return self.color.as_ref()?.tiles(key);
        }
        self.tiles.get(key).map(Vec::as_slice)
    }

    /// Every cached glyph, most recently used first.
    pub fn entries(&self) -> impl Iterator<Item = (&GlyphKey, GlyphEntry)> + '_ {
        self.map.iter().map(|(k, s)| (k, s.entry))
    }

    /// Forgets every cached glyph and frees every slot (fonts, pages and stats
    /// stay). Texels stay in the pages until overwritten; no entry refers to them.
    pub fn clear(&mut self) {
        self.map.clear();
        self.epoch += 1;
        self.tiles.clear();
        for page in &mut self.pages {
            page.clear();
        }
        if let Some(c) = self.color.as_mut() {
            c.clear();
        }
    }

    /// Checks the cache's invariants: every cached glyph is live in its page's
    /// packer at the recorded place, lies inside its page, overlaps no other
    /// glyph, and the packers hold nothing else. Meant for tests and soaks.
    pub fn check_invariants(&self) -> Result<(), String> {
        if let Some(c) = &self.color {
            c.check_invariants().map_err(|e| format!("colour pages: {e}"))?;
            if c.frame != self.frame {
                return Err(format!(
                    "colour pages at frame {}, coverage at {}",
                    c.frame, self.frame
                ));
            }
        }
        let mut per_page: Vec<Vec<Rect>> = vec![Vec::new(); self.pages.len()];
        let tiled = self.map.iter().filter(|(_, s)| s.tiled()).count();
        if tiled != self.tiles.len() {
            return Err(format!("{tiled} tiled glyphs, {} tile lists", self.tiles.len()));
        }
        for (key, slot) in self.map.iter() {
            if slot.tiled() {
                let tiles = self
                    .tiles
                    .get(key)
                    .ok_or_else(|| format!("{key:?}: tiled glyph without tiles"))?;
                for t in tiles {
                    let page = self
                        .pages
                        .get(t.entry.page as usize)
                        .ok_or_else(|| format!("{key:?}: tile on no page {}", t.entry.page))?;
                    let a = page
                        .packer
                        .get(t.alloc)
                        .ok_or_else(|| format!("{key:?}: tile slot not live"))?;
                    if a.rect != t.entry.rect() {
                        return Err(format!(
                            "{key:?}: tile: packer has {:?}, cache has {:?}",
                            a.rect,
                            t.entry.rect()
                        ));
                    }
                    per_page[t.entry.page as usize].push(t.entry.rect());
                }
                continue;
            }
            let Some(id) = slot.alloc else {
                if !slot.entry.is_blank() {
                    return Err(format!("{key:?}: non-blank glyph without a slot"));
                }
                continue;
            };
            let page = self
                .pages
                .get(slot.entry.page as usize)
                .ok_or_else(|| format!("{key:?}: no page {}", slot.entry.page))?;
            let a = page
                .packer
                .get(id)
                .ok_or_else(|| format!("{key:?}: slot not live in page {}", slot.entry.page))?;
            let r = slot.entry.rect();
            if a.rect != r {
                return Err(format!("{key:?}: packer has {:?}, cache has {r:?}", a.rect));
            }
            if r.right() > page.side || r.bottom() > page.side {
                return Err(format!("{key:?}: {r:?} outside the page"));
            }
            per_page[slot.entry.page as usize].push(r);
        }
        for (p, rects) in per_page.iter_mut().enumerate() {
            if rects.len() != self.pages[p].packer.len() {
                return Err(format!(
                    "page {p}: packer holds {} glyphs, cache {}",
                    self.pages[p].packer.len(),
                    rects.len()
                ));
            }
            rects.sort_unstable_by_key(|r| r.x);
            for i in 0..rects.len() {
                for j in i + 1..rects.len() {
                    if rects[j].x >= rects[i].right() {
                        break;
                    }
                    if rects[i].intersection(&rects[j]).is_some() {
                        return Err(format!("page {p}: {:?} overlaps {:?}", rects[i], rects[j]));
                    }
                }
            }
        }
        Ok(())
    }

    /// Checks what [`Frame::layout`](crate::Frame::layout) would refuse for `text` (unknown font,
    /// invalid size) without starting a frame; the quantised size when valid.
    pub fn check_text(&self, text: &TextSpec<'_>) -> Result<GlyphSize, GlyphError> {
        let size = self.size_of(text.size)?;
        for &f in std::iter::once(&text.font).chain(text.fallback) {
            if self.fonts.get(f).is_none() || crate::image::is_image_font(f) {
                return Err(GlyphError::UnknownFont(f));
            }
        }
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
        let px = size.px();
        let x0 = if text.x.is_finite() { text.x } else { 0.0 };
        self.lay_out(text, px, report);
        let Some(lines) = self.layout.lines() else { return Ok(()) };
        let glyphs = self.layout.glyphs();
        for line in lines {
            let mut pen = x0;
            for g in glyphs
                .get(line.glyph_start..=line.glyph_end.min(glyphs.len().saturating_sub(1)))
                .unwrap_or(&[])
            {
                if g.char_data.is_control() {
                    continue;
                }
                let font = FontId(g.font_index as u32);
                out.push(PositionedGlyph {
                    font,
                    glyph: g.key.glyph_index,
                    size: px,
                    x: pen,
                    y: line.baseline_y,
                    color: text.color,
                });
                pen += self
                    .fonts
                    .get(font)
                    .map_or(0.0, |f| f.metrics_indexed(g.key.glyph_index, px).advance_width);
            }
        }
        Ok(())
    }

    pub(crate) fn size_of(&self, px: f32) -> Result<GlyphSize, GlyphError> {
        GlyphSize::from_px(px, self.config.max_glyph_px)
            .ok_or(GlyphError::InvalidSize { size: px, max: self.config.max_glyph_px })
    }

    /// Font `id` as a [`Rasterizer`] sees it (to rasterize a cached key
    /// again, e.g. to check the pages' texels).
    pub fn font_ref(&self, id: FontId) -> Result<FontRef<'_>, GlyphError> {
        let fontdue = self.fonts.get(id).ok_or(GlyphError::UnknownFont(id))?;
        let (bytes, collection_index) = self.fonts.source(id).ok_or(GlyphError::UnknownFont(id))?;
        Ok(FontRef { fontdue, bytes, collection_index })
    }

    /// Validates a missed key and measures it; the font to rasterize it with.
    pub(crate) fn check_key(&self, key: &GlyphKey) -> Result<FontRef<'_>, GlyphError> {
        let font = self.font_ref(key.font)?;
        let count = font.fontdue.glyph_count();
        if key.glyph >= count {
            return Err(GlyphError::GlyphOutOfRange { font: key.font, glyph: key.glyph, count });
        }
        let (w, h) = self.rasterizer.measure(font, key)?;
        self.check_fits(w, h)?;
        Ok(font)
    }

    pub(crate) fn rasterize_all(
        &mut self, keys: &[GlyphKey],
    ) -> Vec<Result<GlyphImage, GlyphError>> {
        let out = if self.bpp == 4 && keys.first().is_some_and(|k| k.mode == RenderMode::Color) {
            // Colour glyphs in the colour set: rendered by the coverage cache.
            keys.iter()
                .map(|k| self.prerendered.remove(k).unwrap_or(Err(GlyphError::UnknownFont(k.font))))
                .collect()
        } else {
            let t = Instant::now();
            let out = self.rasterize_keys(keys);
            self.stats.raster_ns += t.elapsed().as_nanos() as u64;
            out
        };
        for img in out.iter().flatten() {
            self.stats.rasterized += 1;
            self.stats.rasterized_bytes += img.pixels.len() as u64;
        }
        out
    }

    /// [`rasterize_key`](Self::rasterize_key) for each of `keys`, on rayon's
    /// pool from `parallel_threshold` glyphs on; no stats. Keys that differ
    /// only in their sub-pixel offset go to the rasterizer together
    /// ([`Rasterizer::rasterize_offsets`]: fontdue draws their shared 3×
    /// raster once).
    pub(crate) fn rasterize_keys(&self, keys: &[GlyphKey]) -> Vec<Result<GlyphImage, GlyphError>> {
        let groups = offset_groups(keys);
        let run = |g: &Vec<usize>| -> Vec<Result<GlyphImage, GlyphError>> {
            self.rasterize_group(keys, g)
        };
        #[cfg(feature = "parallel")]
        let parts: Vec<Vec<Result<GlyphImage, GlyphError>>> =
            if groups.len() >= self.config.parallel_threshold.max(2) {
                use rayon::prelude::*;
                groups.par_iter().map(run).collect()
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
        &self, keys: &[GlyphKey], group: &[usize],
    ) -> Vec<Result<GlyphImage, GlyphError>> {
        if let [one] = group {
            return vec![self.rasterize_key(&keys[*one])];
        }
        let mut out: Vec<Result<GlyphImage, GlyphError>> = group
            .iter()
            .map(|&i| self.check_key(&keys[i]).map(|_| GlyphImage::default()))
            .collect();
        let ok: Vec<GlyphKey> =
            group.iter().zip(&out).filter(|(_, r)| r.is_ok()).map(|(&i, _)| keys[i]).collect();
        let Some(font) = ok.first().and_then(|k| self.font_ref(k.font).ok()) else { return out };
        let mut images = self.rasterizer.rasterize_offsets(font, &ok).into_iter();
        for r in out.iter_mut().filter(|r| r.is_ok()) {
            *r = images.next().unwrap_or(Err(RasterError::Panicked)).map_err(GlyphError::from);
        }
        out
    }

    /// Produces a key's bitmap exactly as the cache does on a miss (the
    /// rasterizer for glyphs, with the border of [`RenderMode::Sampled`]
    /// added; the image source for images), after the same checks. For tests
    /// and tools that compare the pages with fresh bitmaps.
    pub fn rasterize_key(&self, key: &GlyphKey) -> Result<GlyphImage, GlyphError> {
        match key.mode {
            RenderMode::Image => self.render_image(key),
            RenderMode::Color => self.render_color(key),
            RenderMode::Sampled => {
                let inner = GlyphKey { mode: RenderMode::Coverage, subpixel_x: 0, ..*key };
                let font = self.check_key(&inner)?;
                Ok(with_border(self.rasterizer.rasterize(font, &inner)?))
            }
            _ => {
                let font = self.check_key(key)?;
                Ok(self.rasterizer.rasterize(font, key)?)
            }
        }
    }

    pub(crate) fn place(
        &mut self, key: GlyphKey, image: &GlyphImage,
    ) -> Result<GlyphEntry, GlyphError> {
        let blank = image.width == 0 || image.height == 0;
        let mut entry = GlyphEntry {
            page: 0,
            x: 0,
            y: 0,
            width: 0,
            height: 0,
            left: image.left,
            top: image.bottom.saturating_add(image.height as i32),
        };
        let mut alloc = None;
        if !blank {
            if image.width > self.side || image.height > self.side {
                if key.mode == RenderMode::Lcd {
                    // Tiles would cut pixels' texel triples apart.
                    return Err(GlyphError::TooLarge {
                        width: image.width,
                        height: image.height,
                        page: self.side,
                    });
                }
                self.check_fits(image.width, image.height)?;
                return self.place_tiled(key, image, entry);
            }
            let t = Instant::now();
            let placed = self.allocate(image.width, image.height);
            self.stats.pack_ns += t.elapsed().as_nanos() as u64;
            let (page, rect, id) = placed?;
            let t = Instant::now();
            self.stage(page, rect, image);
            self.stats.stage_ns += t.elapsed().as_nanos() as u64;
            // Page sides are at most MAX_PAGE_SIDE (2^14), so these fit u16.
            entry = GlyphEntry {
                page,
                x: rect.x as u16,
                y: rect.y as u16,
                width: rect.w as u16,
                height: rect.h as u16,
                ..entry
            };
            alloc = Some(id);
        }
        self.map.put(key, Slot { entry, alloc, last_used: self.frame });
        Ok(entry)
    }

    /// Writes the memo's record of recent use into the LRU map: every glyph
    /// drawn from the memo since the last write-back gets `last_used` = the
    /// frame it was drawn in and moves to the front of the list. Runs before
    /// anything is evicted, so eviction sees every use (see memo.rs).
    pub(crate) fn write_back_recency(&mut self) {
        self.memo.drain_pending(&mut self.recency);
        self.apply_recency();
    }

    /// Writes the glyphs in `recency` (handed back by the memo) into the map.
    fn apply_recency(&mut self) {
        // Least recent first, so the most recent end up at the front.
        self.recency.sort_by_key(|&(_, frame)| frame);
        for (key, frame) in self.recency.drain(..) {
            if let Some(slot) = self.map.get_mut(&key) {
                slot.last_used = slot.last_used.max(frame);
            }
        }
    }

    /// Fills the reusable request buffer with `fill` and runs the batch,
    /// collecting skipped glyphs into the frame's report.
    pub(crate) fn run_requests(
        &mut self, out: &mut Vec<GlyphQuad>, mode: RenderMode,
        fill: impl FnOnce(&GlyphCache, &mut Vec<PositionedReq>),
    ) {
        let mut reqs = std::mem::take(&mut self.scratch);
        reqs.clear();
        fill(self, &mut reqs);
        self.run_slice(&reqs, out, mode);
        self.scratch = reqs;
    }

    /// Runs `reqs` as one batch (its colour glyphs in the colour set),
    /// collecting skipped glyphs into the frame's report.
    pub(crate) fn run_slice<R: Request>(
        &mut self, reqs: &[R], out: &mut Vec<GlyphQuad>, mode: RenderMode,
    ) {
        let mut skipped = std::mem::take(&mut self.pending_skipped);
        let mut color = std::mem::take(&mut self.color_indices);
        color.clear();
        if self.routes_color(mode) {
            let fonts = &self.fonts;
            color.extend(
                reqs.iter()
                    .map(Request::req)
                    .enumerate()
                    .filter(|(_, r)| fonts.is_color_glyph(r.font, r.glyph))
                    .map(|(i, _)| i),
            );
        }
        if color.is_empty() {
            self.run_batch(reqs, &[], out, mode, &mut skipped);
        } else {
            self.run_split(reqs, &color, out, mode, &mut skipped);
        }
        self.color_indices = color;
        self.pending_skipped = skipped;
    }

    /// The batch path shared by `prepare` and `layout`: every request of
    /// `reqs` but those whose indices `skip` lists (ascending; a batch's
    /// colour glyphs, drawn by the colour set).
    /// Every request of a batch has the same mode: the cache's for glyphs,
    /// [`RenderMode::Image`] for images.
    ///
    /// Two passes: [`memo_pass`](Self::memo_pass) draws what the memo holds
    /// (in a warm frame, nearly everything) in a loop kept small, and leaves
    /// a placeholder for each other request; the map is asked for those
    /// here. Both passes see the map and the memo as the batch found them:
    /// nothing is evicted or moved until the misses are placed.
    pub(crate) fn run_batch<R: Request>(
        &mut self, reqs: &[R], skip: &[usize], out: &mut Vec<GlyphQuad>, mode: RenderMode,
        skipped: &mut Vec<Skipped>,
    ) {
        let frame = self.frame;
        let max_px = self.config.max_glyph_px;
        let bins = self.config.subpixel_bins;
        let start = out.len();
        self.memo.sync(self.epoch, frame, &mut self.recency);
        self.apply_recency();
        let mut rest = std::mem::take(&mut self.unmemoized);
        rest.clear();
        let mut hits = self.memo_pass(reqs, skip, mode, out, &mut rest);
        let mut misses: Vec<(usize, usize, GlyphKey)> = Vec::new();
        let mut moves: Vec<(usize, usize, GlyphKey)> = Vec::new();
        let mut tiled_hits: Vec<(usize, GlyphKey, i32)> = Vec::new();
        let mut invalid = 0u64;
        // Placeholders left in `out` (blank glyphs, invalid sizes, glyphs
        // in tiles, failed misses), taken out at the end.
        let mut removed = 0usize;
        let retiring = self.retiring;
        let run_of = self.run_of(mode);
        for &(slot, i) in &rest {
            let r = reqs[i].req();
            let Some((size, mode)) = run_of(r.size) else {
                invalid += 1;
                removed += 1;
                skipped.push(Skipped {
                    index: i,
                    key: None,
                    reason: GlyphError::InvalidSize { size: r.size, max: max_px },
                });
                continue;
            };
            let (whole_x, subpixel_x) = r.snap(bins);
            let key = GlyphKey { font: r.font, glyph: r.glyph, size, mode, subpixel_x };
            // One hash probe that also moves the glyph to the front of the
            // LRU list (a few pointer writes). A separate `promote` of each
            // key's first use in the frame costs a second probe, which with
            // sub-pixel bins (several keys per glyph) was measurable.
            match self.map.get_mut(&key) {
                Some(entry) => {
                    // A glyph an earlier batch of this frame drew stays where
                    // it is: its slot must not be freed while the frame's
                    // quads still point at it.
                    let previous = std::mem::replace(&mut entry.last_used, frame);
                    hits += 1;
                    // Glyphs on a retiring page are not remembered: each use
                    // looks them up, so the first use in a frame moves them.
                    let retires = retiring.is_some_and(|r| entry.entry.page as usize >= r);
                    if entry.entry.is_blank() {
                        removed += 1;
                        if entry.tiled() {
                            tiled_hits.push((i, key, whole_x));
                        } else {
                            self.memo.put(&key, &entry.entry, frame, self.epoch, &mut self.recency);
                        }
                    } else if retires && previous != frame {
                        moves.push((slot, i, key));
                    } else {
                        out[slot] = r.quad(&entry.entry, whole_x);
                        out[slot].page |= lcd_bit(mode);
                        if !retires {
                            self.memo.put(&key, &entry.entry, frame, self.epoch, &mut self.recency);
                        }
                    }
                }
                None => misses.push((slot, i, key)),
            }
            if !self.recency.is_empty() {
                self.apply_recency();
            }
        }
        self.unmemoized = rest;
        self.stats.lookups += (reqs.len() - skip.len()) as u64;
        self.stats.hits += hits;
        self.stats.misses += misses.len() as u64 + invalid;
        self.stats.skipped += invalid;
        for &(slot, i, key) in &moves {
            let r = reqs[i].req();
            out[slot] = r.quad(&self.relocate(key), r.snap(bins).0);
            out[slot].page |= lcd_bit(key.mode);
        }
        // Glyphs in tiles: their quads go after the batch's others.
        for (i, key, whole_x) in tiled_hits {
            if let (Some(e), Some(tiles)) = (self.map.peek(&key), self.tiles.get(&key)) {
                let base = reqs[i].req().quad(&e.entry, whole_x);
                out.extend(tiles.iter().map(|t| t.quad(&base)));
            }
        }
        if !misses.is_empty() {
            removed += self.place_misses(reqs, misses, out, skipped);
        }
        if removed > 0 {
            let mut w = start;
            for r in start..out.len() {
                if out[r].page != GlyphQuad::PLACEHOLDER_PAGE {
                    out[w] = out[r];
                    w += 1;
                }
            }
            out.truncate(w);
        }
    }

    /// The sizes of a batch in `mode`: a size's quantised form and the mode
    /// its glyphs are drawn in (LCD batches draw glyphs above
    /// [`LCD_MAX_PX`] in grayscale).
    fn run_of(&self, mode: RenderMode) -> impl Fn(f32) -> Option<(GlyphSize, RenderMode)> {
        let max_px = self.config.max_glyph_px;
        let lcd = mode == RenderMode::Lcd;
        let gray = self.render_mode();
        let lcd_max = GlyphSize::from_px(LCD_MAX_PX, f32::MAX).map_or(0, GlyphSize::steps);
        move |px| {
            GlyphSize::from_px(px, max_px).map(|size| match lcd {
                false => (size, mode),
                true if size.steps() <= lcd_max => (size, RenderMode::Lcd),
                true => (size, gray),
            })
        }
    }

    /// The first pass of [`run_batch`](Self::run_batch): the quad of every
    /// request the memo holds (none for a blank glyph), a placeholder for
    /// every other one, with its (quad slot, request index) in `rest`.
    /// Returns the memo's hits.
    #[inline(never)]
    fn memo_pass<R: Request>(
        &mut self, reqs: &[R], skip: &[usize], mode: RenderMode, out: &mut Vec<GlyphQuad>,
        rest: &mut Vec<(usize, usize)>,
    ) -> u64 {
        let (frame, epoch) = (self.frame, self.epoch);
        let bins = self.config.subpixel_bins;
        let run_of = self.run_of(mode);
        let mut hits = 0u64;
        // Runs of glyphs share a size: its quantised form, the mode it asks
        // for and its quads' page bit are worked out once per run, not per
        // glyph; and the
        // memo's tag of the run's font, size and mode once per font in it.
        let mut run_px = f32::NAN.to_bits();
        let mut run: Option<(GlyphSize, RenderMode, u32)> = None;
        let mut tag_font = None;
        let mut tag = RunTag::new(FontId(0), GlyphSize(0), mode);
        let mut skip_rest = skip.iter();
        let mut next_skip = skip_rest.next().copied().unwrap_or(usize::MAX);
        out.reserve(reqs.len() - skip.len());
        for (i, r) in reqs.iter().enumerate() {
            if i == next_skip {
                next_skip = skip_rest.next().copied().unwrap_or(usize::MAX);
                continue;
            }
            let r = r.req();
            if r.size.to_bits() != run_px {
                run_px = r.size.to_bits();
                run = run_of(r.size).map(|(size, mode)| (size, mode, lcd_bit(mode)));
                tag_font = None;
            }
            if let Some((size, mode, bit)) = run {
                if tag_font != Some(r.font) {
                    tag_font = Some(r.font);
                    tag = RunTag::new(r.font, size, mode);
                }
                let (whole_x, subpixel_x) = r.snap(bins);
                // Found in the map since it last changed: no probe, no LRU
                // move (the use is written back before anything is evicted).
                if let Some(e) = self.memo.get_in(&tag, r.glyph, subpixel_x, epoch, frame) {
                    hits += 1;
                    if !e.is_blank() {
                        let mut q = r.quad(&e, whole_x);
                        q.page |= bit;
                        out.push(q);
                    }
                    continue;
                }
            }
            rest.push((out.len(), i));
            out.push(GlyphQuad { page: GlyphQuad::PLACEHOLDER_PAGE, ..GlyphQuad::default() });
        }
        hits
    }

    /// Rasterizes and places a batch's missed glyphs and fills their quads
    /// (a glyph in tiles: its first tile in the glyph's place, the others
    /// after the batch). Returns how many placeholders stay (blank glyphs,
    /// glyphs that could not be placed: skipped and reported).
    fn place_misses<R: Request>(
        &mut self, reqs: &[R], misses: Vec<(usize, usize, GlyphKey)>, out: &mut Vec<GlyphQuad>,
        skipped: &mut Vec<Skipped>,
    ) -> usize {
        let bins = self.config.subpixel_bins;
        // Unique missed keys, in first-seen order: rasterize (maybe in parallel), then place in order.
        let mut index: HashMap<GlyphKey, usize> = HashMap::with_capacity(misses.len());
        let mut keys: Vec<GlyphKey> = Vec::new();
        for &(_, _, key) in &misses {
            index.entry(key).or_insert_with(|| {
                keys.push(key);
                keys.len() - 1
            });
        }
        let images = self.rasterize_all(&keys);
        let mut placed: Vec<Result<GlyphEntry, GlyphError>> = Vec::with_capacity(keys.len());
        for (key, image) in keys.iter().zip(images) {
            placed.push(image.and_then(|img| self.place(*key, &img)));
        }
        let mut removed = 0usize;
        let mut extra: Vec<GlyphQuad> = Vec::new();
        for (slot, i, key) in misses {
            let r = reqs[i].req();
            match &placed[index[&key]] {
                Ok(e) if !e.is_blank() => {
                    out[slot] = r.quad(e, r.snap(bins).0);
                    out[slot].page |= lcd_bit(key.mode);
                }
                Ok(e) => match self.tiles.get(&key).map(Vec::as_slice) {
                    Some([first, rest @ ..]) => {
                        // A glyph in tiles: the first tile takes the glyph's
                        // place, the others go after the batch.
                        let base = r.quad(e, r.snap(bins).0);
                        out[slot] = first.quad(&base);
                        extra.extend(rest.iter().map(|t| t.quad(&base)));
                    }
                    _ => removed += 1,
                },
                Err(err) => {
                    removed += 1;
                    self.stats.skipped += 1;
                    skipped.push(Skipped { index: i, key: Some(key), reason: err.clone() });
                }
            }
        }
        out.extend(extra);
        removed
    }
}

impl GlyphCache {
    /// Bytes of page texels the atlas holds now (coverage pages, one byte per
    /// texel, and colour pages, four).
    pub fn atlas_bytes(&self) -> u64 {
        let own = self.pages.len() as u64 * self.side as u64 * self.side as u64 * self.bpp as u64;
        own + self.color.as_ref().map_or(0, |c| c.atlas_bytes())
    }
}

/// [`LCD_PAGE_BIT`] for the quads of LCD keys, 0 for others.
#[inline]
fn lcd_bit(mode: RenderMode) -> u32 {
    if mode == RenderMode::Lcd {
        LCD_PAGE_BIT
    } else {
        0
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
    let mut at: HashMap<(FontId, u16, GlyphSize, RenderMode), usize> = HashMap::new();
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
