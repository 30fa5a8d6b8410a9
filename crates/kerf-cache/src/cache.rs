//! The glyph cache: lookup, rasterize on a miss, place (evicting and
//! deallocating least-recently-used glyphs when pages are full), stage pixels,
//! and hand out the frame's uploads (the new glyphs' texels, or one dirty box
//! per page).

use crate::error::{ConfigError, FontError, GlyphError, ImageSourceError, RasterError};
use crate::image::{image_font, is_image_font, ImageSource, ImageSourceId, PositionedImage, MAX_IMAGE_SOURCES};
use crate::font::{Font, FontSet};
use crate::key::{FontId, GlyphKey, GlyphSize, RenderMode};
use crate::page::{Page, PageUpload};
use crate::raster::{FontRef, FontdueRasterizer, GlyphImage, Rasterizer};
use crate::stats::Stats;
use crate::subpixel::{round_half_away, snap_subpixel};
use crate::text::{GlyphQuad, PositionedGlyph, Skipped, TextSpec};
use crate::upload::{GlyphUploads, Staging, UploadMode};
use kerf_pack::{AllocId, Algorithm, PackerOptions, Rect};
use lru::LruCache;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

/// The largest page side the cache accepts (texel coordinates are stored as `u16`).
pub const MAX_PAGE_SIDE: u32 = 16384;

/// How the cache is sized and behaves. `Default` gives the documented defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct CacheConfig {
    /// Page side in texels (pages are square). Default 1024. Clamped to
    /// `max_texture_side` and to [`MAX_PAGE_SIDE`].
    pub page_size: u32,
    /// The largest texture side the caller's GPU accepts (wgpu:
    /// `device.limits().max_texture_dimension_2d`). Default 8192.
    pub max_texture_side: u32,
    /// Pages the atlas may grow to (wgpu: at most `max_texture_array_layers`). Default 4.
    pub max_pages: u32,
    /// Bytes of page texels the atlas may use (one byte per texel). Default 64 MiB.
    /// The page count never exceeds `memory_budget / page_bytes`.
    pub memory_budget: u64,
    /// Empty texels between glyphs. Default 1.
    pub padding: u32,
    /// The packer of every page. Default MaxRects-BSSF; `Algorithm::FALLBACK`
    /// is Skyline bottom-left with a waste map.
    pub algorithm: Algorithm,
    /// Frames still in flight on the GPU after the current one whose glyphs
    /// must not be evicted. Default 2.
    pub frames_in_flight: u32,
    /// Largest glyph size accepted, in px per em. Default 1024. Bounds the
    /// rasterizer's work for absurd sizes.
    pub max_glyph_px: f32,
    /// Rasterize a batch's misses in parallel (rayon) when there are at least
    /// this many. Default 32. Placement stays sequential and deterministic.
    pub parallel_threshold: usize,
    /// Glyphs unused for this many frames are evicted at the end of a frame,
    /// and pages left empty at the end of the array are released, down to
    /// `min_pages`: when the workload shrinks, memory comes back down.
    /// Default `Some(3600)` (a minute at 60 frames per second); `None` keeps
    /// glyphs until space is needed.
    pub release_idle_after: Option<u64>,
    /// Pages never released (the budget's floor). Default 1.
    pub min_pages: u32,
    /// Sub-pixel x positions per pixel (1 to [`MAX_SUBPIXEL_BINS`]). Pen x
    /// positions are rounded to the nearest of this many evenly spaced
    /// offsets, and the glyph is rasterized at that offset (one cache entry
    /// per offset used). 1 is whole-pixel snapping. Default 4 (spacing error
    /// at most 1/8 px; see docs/cache.md for what the bins cost).
    pub subpixel_bins: u32,
    /// How new texels leave a frame: [`UploadMode::Glyphs`] (default; each
    /// staged glyph's texels packed tightly, in [`FrameOutput::glyphs`]) or
    /// [`UploadMode::DirtyRect`] (one dirty bounding box per page, in
    /// [`FrameOutput::uploads`]).
    pub uploads: UploadMode,
}

/// The most sub-pixel bins [`CacheConfig::subpixel_bins`] accepts.
pub const MAX_SUBPIXEL_BINS: u32 = 16;

impl Default for CacheConfig {
    fn default() -> Self {
        CacheConfig {
            page_size: 1024,
            max_texture_side: 8192,
            max_pages: 4,
            memory_budget: 64 << 20,
            padding: 1,
            algorithm: Algorithm::default(),
            frames_in_flight: 2,
            max_glyph_px: 1024.0,
            parallel_threshold: 32,
            release_idle_after: Some(3600),
            min_pages: 1,
            subpixel_bins: 4,
            uploads: UploadMode::Glyphs,
        }
    }
}

impl CacheConfig {
    /// The page side actually used: `page_size` clamped to the texture limit and [`MAX_PAGE_SIDE`].
    pub fn page_side(&self) -> u32 {
        self.page_size.min(self.max_texture_side).min(MAX_PAGE_SIDE)
    }

    /// The most pages this configuration allows (page maximum and memory budget).
    pub fn page_limit(&self) -> u32 {
        let side = self.page_side() as u64;
        let by_budget = if side == 0 { 0 } else { self.memory_budget / (side * side) };
        (self.max_pages as u64).min(by_budget) as u32
    }

    /// Checks the configuration; the cache refuses one that allows no page.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let side = self.page_side();
        if side == 0 {
            return Err(ConfigError::ZeroPageSize { page_size: self.page_size, limit: self.max_texture_side });
        }
        if self.page_limit() == 0 {
            return Err(ConfigError::NoPages {
                max_pages: self.max_pages,
                budget: self.memory_budget,
                page_bytes: side as u64 * side as u64,
            });
        }
        if self.padding >= side {
            return Err(ConfigError::Padding { padding: self.padding, page: side });
        }
        if !(self.max_glyph_px.is_finite() && self.max_glyph_px > 0.0) {
            return Err(ConfigError::MaxGlyphPx(self.max_glyph_px));
        }
        if !(1..=MAX_SUBPIXEL_BINS).contains(&self.subpixel_bins) {
            return Err(ConfigError::SubpixelBins(self.subpixel_bins));
        }
        Ok(())
    }
}

/// Where a cached glyph lives and how to place it relative to the pen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GlyphEntry {
    /// The page (texture array layer); meaningless for blank glyphs.
    pub page: u32,
    /// Left texel.
    pub x: u16,
    /// Top texel.
    pub y: u16,
    /// Width in texels; 0 for a blank glyph (nothing to draw) and for a
    /// glyph larger than a page, whose texels are in tiles
    /// ([`GlyphCache::tiles`]).
    pub width: u16,
    /// Height in texels.
    pub height: u16,
    /// Offset from the pen x to the bitmap's left edge.
    pub left: i32,
    /// Offset from the baseline up to the bitmap's top edge.
    pub top: i32,
}

impl GlyphEntry {
    const BLANK: GlyphEntry = GlyphEntry { page: 0, x: 0, y: 0, width: 0, height: 0, left: 0, top: 0 };

    /// True for entries with no texels of their own: blank glyphs (space),
    /// and glyphs larger than a page (drawn from [`GlyphCache::tiles`]).
    pub fn is_blank(&self) -> bool {
        self.width == 0 || self.height == 0
    }

    /// The glyph's texels in its page.
    pub fn rect(&self) -> Rect {
        Rect::new(self.x as u32, self.y as u32, self.width as u32, self.height as u32)
    }

    #[inline]
    fn quad(&self, x: i32, y: i32, color: [u8; 4]) -> GlyphQuad {
        GlyphQuad { x, y, tex_x: self.x, tex_y: self.y, width: self.width, height: self.height, page: self.page, color }
    }

}

impl GlyphTile {
    /// The quad of this tile, for a glyph whose whole bitmap `base` places.
    #[inline]
    fn quad(&self, base: &GlyphQuad) -> GlyphQuad {
        GlyphQuad {
            x: base.x.saturating_add(self.dx as i32),
            y: base.y.saturating_add(self.dy as i32),
            tex_x: self.entry.x,
            tex_y: self.entry.y,
            width: self.entry.width,
            height: self.entry.height,
            page: self.entry.page,
            color: base.color,
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Slot {
    entry: GlyphEntry,
    alloc: Option<AllocId>,
    last_used: u64,
}

impl Slot {
    /// A glyph larger than a page: its texels are in [`GlyphCache::tiles`]
    /// (`entry` keeps only the bearings, its page is [`TILED_PAGE`]; `alloc`
    /// is `None`). A marker in the entry rather than a field keeps the slot,
    /// and so every LRU node, at 48 bytes.
    #[inline]
    fn tiled(&self) -> bool {
        self.entry.page == TILED_PAGE && self.entry.width == 0
    }
}

/// The page of a tiled glyph's own (texel-less) entry.
const TILED_PAGE: u32 = u32::MAX - 1;

/// One tile of a glyph larger than a page: a slot of its own on some page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GlyphTile {
    /// Where the tile's texels are (`left`/`top` unused).
    pub entry: GlyphEntry,
    /// The tile's offset from the glyph bitmap's left edge, texels.
    pub dx: u16,
    /// The tile's offset from the glyph bitmap's top edge, texels.
    pub dy: u16,
    alloc: AllocId,
}

/// What a frame produced: the uploads to make before drawing, and what was skipped.
#[derive(Clone, Debug, Default)]
pub struct FrameOutput {
    /// The frame's number (1 for the first frame).
    pub frame: u64,
    /// In [`UploadMode::DirtyRect`]: at most one upload per dirty page, in
    /// page order (empty in [`UploadMode::Glyphs`]).
    pub uploads: Vec<PageUpload>,
    /// In [`UploadMode::Glyphs`]: every glyph staged since the last finished
    /// frame, texels packed tightly (empty in [`UploadMode::DirtyRect`]).
    pub glyphs: GlyphUploads,
    /// Pages in the atlas after this frame (the GPU side grows its texture to match).
    pub pages: u32,
    /// Glyphs that were not drawn, with the reason.
    pub skipped: Vec<Skipped>,
    /// Glyph lookups in this frame.
    pub lookups: u64,
    /// Lookups that found the glyph cached.
    pub hits: u64,
    /// Glyphs evicted (and their slots deallocated) during this frame.
    pub evictions: u64,
}

/// A glyph cache without a GPU. See the crate docs for the data flow.
pub struct GlyphCache {
    config: CacheConfig,
    side: u32,
    page_limit: u32,
    fonts: FontSet,
    rasterizer: Box<dyn Rasterizer>,
    map: LruCache<GlyphKey, Slot>,
    pages: Vec<Page>,
    frame: u64,
    /// Pages from this index on are being emptied: no new glyph goes there,
    /// and glyphs looked up there move to a lower page.
    retiring: Option<usize>,
    /// The most pages the cache ever had (a page added below this index
    /// reuses a texture layer that holds old texels).
    pages_ever: usize,
    stats: Stats,
    layout: fontdue::layout::Layout<()>,
    scratch: Vec<PositionedReq>,
    pending_skipped: Vec<Skipped>,
    frame_start: Stats,
    staging: Staging,
    /// The tiles of every cached glyph larger than a page.
    tiles: HashMap<GlyphKey, Vec<GlyphTile>>,
    /// The app's image sources, by [`ImageSourceId`].
    images: Vec<Arc<dyn ImageSource>>,
}

/// What a request's `(x, y)` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Anchor {
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
struct PositionedReq {
    font: FontId,
    glyph: u16,
    size: f32,
    x: f32,
    y: f32,
    color: [u8; 4],
    anchor: Anchor,
}

impl PositionedReq {
    /// The request's x snapped to the sub-pixel bins: whole pixels, and the
    /// offset in 1/256 px the glyph is rasterized at.
    #[inline]
    fn snap(&self, bins: u32) -> (i32, u8) {
        match self.anchor {
            Anchor::TopLeft => (round_half_away(self.x), 0),
            Anchor::ImagePen => (round_half_away(self.x), 0),
            Anchor::Pen | Anchor::PenXTopY => snap_subpixel(self.x, bins),
        }
    }

    /// The quad drawing `e` where this request asks; `whole_x` from [`snap`](Self::snap).
    #[inline]
    fn quad(&self, e: &GlyphEntry, whole_x: i32) -> GlyphQuad {
        let (x, y) = match self.anchor {
            Anchor::TopLeft => (whole_x, round_half_away(self.y)),
            Anchor::Pen | Anchor::ImagePen => (whole_x.saturating_add(e.left), round_half_away(self.y).saturating_sub(e.top)),
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
    pub fn with_rasterizer(config: CacheConfig, rasterizer: Box<dyn Rasterizer>) -> Result<GlyphCache, ConfigError> {
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
        })
    }

    /// Loads a font from bytes (the first face of a collection).
    pub fn add_font(&mut self, bytes: impl Into<Arc<[u8]>>) -> Result<FontId, FontError> {
        self.add_font_indexed(bytes, 0)
    }

    /// Loads face `index` of a font collection (0 for a plain font file).
    pub fn add_font_indexed(&mut self, bytes: impl Into<Arc<[u8]>>, index: u32) -> Result<FontId, FontError> {
        let font = Font::from_bytes(bytes, index)?;
        self.fonts.push(font)
    }

    /// Adds a font parsed earlier with [`Font::from_bytes`] (parsing is the
    /// slow part of loading; a parsed font can be cloned into many caches).
    pub fn add_parsed_font(&mut self, font: Font) -> Result<FontId, FontError> {
        self.fonts.push(font)
    }

    /// Adds a source of the app's own images (icons, rasterized SVG): on a
    /// miss the cache asks it to render the image, then caches, draws, evicts
    /// and re-requests it like a glyph ([`Frame::prepare_images`], [`Frame::image`]).
    pub fn add_image_source(&mut self, source: impl ImageSource + 'static) -> Result<ImageSourceId, ImageSourceError> {
        if self.images.len() >= MAX_IMAGE_SOURCES {
            return Err(ImageSourceError::TooMany(self.images.len()));
        }
        self.images.push(Arc::new(source));
        Ok(ImageSourceId((self.images.len() - 1) as u16))
    }

    /// Renders an image key with its source, checking what the source returned.
    fn render_image(&self, key: &GlyphKey) -> Result<GlyphImage, GlyphError> {
        let Some((source, id)) = key.image_parts() else { return Err(GlyphError::UnknownFont(key.font)) };
        let src = self.images.get(source.0 as usize).ok_or(GlyphError::UnknownImageSource(source))?;
        let image = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| src.render(id, key.size.px())))
            .map_err(|_| GlyphError::ImageFailed { image_source: source, id, message: "the image source panicked (contained)".into() })?
            .map_err(|message| GlyphError::ImageFailed { image_source: source, id, message })?;
        let expected = image.width as u64 * image.height as u64;
        if image.pixels.len() as u64 != expected {
            return Err(RasterError::BadBitmap { width: image.width, height: image.height, len: image.pixels.len() }.into());
        }
        let larger_than_page = image.width > self.side || image.height > self.side;
        if larger_than_page && (image.width > u16::MAX as u32 || image.height > u16::MAX as u32 || !self.tiles_could_fit(image.width, image.height)) {
            return Err(GlyphError::TooLarge { width: image.width, height: image.height, page: self.side });
        }
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

    /// A cached glyph's entry, without touching its recency.
    pub fn peek(&self, key: &GlyphKey) -> Option<GlyphEntry> {
        self.map.peek(key).map(|s| s.entry)
    }

    /// The tiles of a cached glyph larger than a page (its [`GlyphEntry`]
    /// then has no texels of its own: width 0, the bearings of the whole
    /// bitmap), without touching its recency. `None` for other glyphs.
    pub fn tiles(&self, key: &GlyphKey) -> Option<&[GlyphTile]> {
        self.tiles.get(key).map(Vec::as_slice)
    }

    /// Every cached glyph, most recently used first.
    pub fn entries(&self) -> impl Iterator<Item = (&GlyphKey, GlyphEntry)> + '_ {
        self.map.iter().map(|(k, s)| (k, s.entry))
    }

    /// Starts a frame. Every glyph looked up through the returned [`Frame`]
    /// is protected from eviction for this frame and the next
    /// `frames_in_flight` frames. The frame ends with [`Frame::finish`]; a
    /// frame dropped without `finish` also ends, and its uploads go out with
    /// the next finished frame.
    pub fn begin_frame(&mut self) -> Frame<'_> {
        self.frame += 1;
        self.stats.frames += 1;
        self.frame_start = self.stats.clone();
        Frame { cache: self, finished: false }
    }

    /// Continues the current frame (begins the first one if none has begun):
    /// glyphs looked up through the returned [`Frame`] are marked as used by
    /// the same frame number as the batches before it. For several batches
    /// that reach the GPU in one submission (several renderers, passes or
    /// windows sharing the atlas): no batch of the frame evicts or moves a
    /// glyph an earlier batch of the same frame uses. Its [`Frame::finish`]
    /// hands out the uploads staged since the last finished batch.
    pub fn continue_frame(&mut self) -> Frame<'_> {
        if self.frame == 0 {
            return self.begin_frame();
        }
        self.frame_start = self.stats.clone();
        Frame { cache: self, finished: false }
    }

    /// Forgets every cached glyph and frees every slot (fonts, pages and stats
    /// stay). Texels stay in the pages until overwritten; no entry refers to them.
    pub fn clear(&mut self) {
        self.map.clear();
        self.tiles.clear();
        for page in &mut self.pages {
            page.clear();
        }
    }

    /// Uploads of every page in full (to rebuild a GPU atlas, e.g. after the
    /// device was lost). Pending dirty regions are kept for the next frame.
    pub fn full_uploads(&self) -> Vec<PageUpload> {
        self.pages
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let r = Rect::new(0, 0, p.side, p.side);
                PageUpload { page: i as u32, rect: r, data: p.copy_rect(r), regions: p.glyphs() as u32 }
            })
            .collect()
    }

    /// Checks the cache's invariants: every cached glyph is live in its page's
    /// packer at the recorded place, lies inside its page, overlaps no other
    /// glyph, and the packers hold nothing else. Meant for tests and soaks.
    pub fn check_invariants(&self) -> Result<(), String> {
        let mut per_page: Vec<Vec<Rect>> = vec![Vec::new(); self.pages.len()];
        let tiled = self.map.iter().filter(|(_, s)| s.tiled()).count();
        if tiled != self.tiles.len() {
            return Err(format!("{tiled} tiled glyphs, {} tile lists", self.tiles.len()));
        }
        for (key, slot) in self.map.iter() {
            if slot.tiled() {
                let tiles = self.tiles.get(key).ok_or_else(|| format!("{key:?}: tiled glyph without tiles"))?;
                for t in tiles {
                    let page = self.pages.get(t.entry.page as usize).ok_or_else(|| format!("{key:?}: tile on no page {}", t.entry.page))?;
                    let a = page.packer.get(t.alloc).ok_or_else(|| format!("{key:?}: tile slot not live"))?;
                    if a.rect != t.entry.rect() {
                        return Err(format!("{key:?}: tile: packer has {:?}, cache has {:?}", a.rect, t.entry.rect()));
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
            let page = self.pages.get(slot.entry.page as usize).ok_or_else(|| format!("{key:?}: no page {}", slot.entry.page))?;
            let a = page.packer.get(id).ok_or_else(|| format!("{key:?}: slot not live in page {}", slot.entry.page))?;
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
                return Err(format!("page {p}: packer holds {} glyphs, cache {}", self.pages[p].packer.len(), rects.len()));
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

    /// Checks what [`Frame::layout`] would refuse for `text` (unknown font,
    /// invalid size) without starting a frame; the quantised size when valid.
    pub fn check_text(&self, text: &TextSpec<'_>) -> Result<GlyphSize, GlyphError> {
        let size = self.size_of(text.size)?;
        if self.fonts.get(text.font).is_none() {
            return Err(GlyphError::UnknownFont(text.font));
        }
        Ok(size)
    }

    /// Lays `text` out with fontdue's layout (wrapping, line height, as
    /// [`Frame::layout`]) and appends its glyphs to `out` as pen positions on
    /// the baseline, advancing by the exact advances: what transformed text
    /// draws. No lookup is made. Unknown font or invalid size: an error, and
    /// nothing is appended.
    pub fn positions(&mut self, text: &TextSpec<'_>, out: &mut Vec<PositionedGlyph>) -> Result<(), GlyphError> {
        let size = self.check_text(text)?;
        let px = size.px();
        let x0 = if text.x.is_finite() { text.x } else { 0.0 };
        self.layout.reset(&fontdue::layout::LayoutSettings {
            x: x0,
            y: if text.y.is_finite() { text.y } else { 0.0 },
            max_width: text.max_width.filter(|w| w.is_finite() && *w > 0.0),
            line_height: if text.line_height.is_finite() && text.line_height > 0.0 { text.line_height } else { 1.0 },
            ..fontdue::layout::LayoutSettings::default()
        });
        self.layout.append(self.fonts.as_slice(), &fontdue::layout::TextStyle::new(text.text, px, text.font.0 as usize));
        let (Some(font), Some(lines)) = (self.fonts.get(text.font), self.layout.lines()) else { return Ok(()) };
        let glyphs = self.layout.glyphs();
        for line in lines {
            let mut pen = x0;
            for g in glyphs.get(line.glyph_start..=line.glyph_end.min(glyphs.len().saturating_sub(1))).unwrap_or(&[]) {
                if g.char_data.is_control() {
                    continue;
                }
                out.push(PositionedGlyph { font: text.font, glyph: g.key.glyph_index, size: px, x: pen, y: line.baseline_y, color: text.color });
                pen += font.metrics_indexed(g.key.glyph_index, px).advance_width;
            }
        }
        Ok(())
    }

    fn size_of(&self, px: f32) -> Result<GlyphSize, GlyphError> {
        GlyphSize::from_px(px, self.config.max_glyph_px).ok_or(GlyphError::InvalidSize { size: px, max: self.config.max_glyph_px })
    }

    /// Font `id` as a [`Rasterizer`] sees it (to rasterize a cached key
    /// again, e.g. to check the pages' texels).
    pub fn font_ref(&self, id: FontId) -> Result<FontRef<'_>, GlyphError> {
        let fontdue = self.fonts.get(id).ok_or(GlyphError::UnknownFont(id))?;
        let (bytes, collection_index) = self.fonts.source(id).ok_or(GlyphError::UnknownFont(id))?;
        Ok(FontRef { fontdue, bytes, collection_index })
    }

    /// Validates a missed key and measures it; the font to rasterize it with.
    fn check_key(&self, key: &GlyphKey) -> Result<FontRef<'_>, GlyphError> {
        let font = self.font_ref(key.font)?;
        let count = font.fontdue.glyph_count();
        if key.glyph >= count {
            return Err(GlyphError::GlyphOutOfRange { font: key.font, glyph: key.glyph, count });
        }
        let (w, h) = self.rasterizer.measure(font, key)?;
        if (w > self.side || h > self.side) && !self.tiles_could_fit(w, h) {
            return Err(GlyphError::TooLarge { width: w, height: h, page: self.side });
        }
        Ok(font)
    }

    /// The side of the tiles a glyph larger than a page is cut into: half a
    /// page less the padding (two tiles and their padding fit a page's
    /// width), so tiles pack beside each other and other glyphs instead of
    /// each needing an empty page.
    fn tile_side(&self) -> u32 {
        let pad = self.config.padding;
        ((self.side + pad) / 2).saturating_sub(pad).max(1)
    }

    /// True when the tiles of a `w × h` glyph, with their padding, take at
    /// most the texels of every page the atlas may have.
    fn tiles_could_fit(&self, w: u32, h: u32) -> bool {
        let t = self.tile_side() as u64;
        let pad = self.config.padding as u64;
        let (w, h) = (w as u64, h as u64);
        let area = (w + w.div_ceil(t) * pad) * (h + h.div_ceil(t) * pad);
        area <= self.page_limit as u64 * self.side as u64 * self.side as u64
    }

    fn rasterize_all(&mut self, keys: &[GlyphKey]) -> Vec<Result<GlyphImage, GlyphError>> {
        let t = Instant::now();
        let one = |this: &GlyphCache, key: &GlyphKey| this.rasterize_key(key);
        #[cfg(feature = "parallel")]
        let out: Vec<_> = if keys.len() >= self.config.parallel_threshold.max(2) {
            use rayon::prelude::*;
            let this = &*self;
            keys.par_iter().map(|k| one(this, k)).collect()
        } else {
            keys.iter().map(|k| one(self, k)).collect()
        };
        #[cfg(not(feature = "parallel"))]
        let out: Vec<_> = keys.iter().map(|k| one(self, k)).collect();
        self.stats.raster_ns += t.elapsed().as_nanos() as u64;
        for img in out.iter().flatten() {
            self.stats.rasterized += 1;
            self.stats.rasterized_bytes += img.pixels.len() as u64;
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

    fn is_protected(&self, last_used: u64) -> bool {
        last_used + self.config.frames_in_flight as u64 >= self.frame
    }

    fn add_page(&mut self) -> bool {
        if self.pages.len() as u32 >= self.page_limit {
            return false;
        }
        let opts = PackerOptions { padding: self.config.padding, ..PackerOptions::default() };
        match self.config.algorithm.build(self.side, self.side, opts) {
            Ok(p) => {
                let mut page = Page::new(p, self.side);
                if self.pages.len() < self.pages_ever {
                    // A released page's layer may still hold old texels on the
                    // GPU: upload the new (blank) page whole, or clear it, once.
                    match self.config.uploads {
                        UploadMode::DirtyRect => page.dirty = Some(Rect::new(0, 0, self.side, self.side)),
                        UploadMode::Glyphs => self.staging.clear_page(self.pages.len()),
                    }
                }
                self.pages.push(page);
                self.pages_ever = self.pages_ever.max(self.pages.len());
                self.stats.pages_added += 1;
                true
            }
            Err(_) => false,
        }
    }

    /// Finds room for a `w × h` bitmap: a page with space, a new page, or
    /// space opened by evicting (and deallocating) least-recently-used glyphs
    /// no frame in flight uses.
    fn allocate(&mut self, w: u32, h: u32) -> Result<(u32, Rect, AllocId), GlyphError> {
        let usable = self.retiring.unwrap_or(self.pages.len()).min(self.pages.len());
        if let Some(found) = self.try_pages(0..usable, w, h) {
            return Ok(found);
        }
        if self.retiring.take().is_some() {
            // The workload grew again: stop emptying the last pages and use them.
            if let Some(found) = self.try_pages(usable..self.pages.len(), w, h) {
                return Ok(found);
            }
        }
        if self.add_page() {
            let i = self.pages.len() - 1;
            if let Ok(a) = self.pages[i].packer.allocate(w, h) {
                return Ok((i as u32, a.rect, a.id));
            }
        }
        loop {
            let Some((_, lru)) = self.map.peek_lru() else { return Err(GlyphError::AtlasFull) };
            if self.is_protected(lru.last_used) {
                return Err(GlyphError::AtlasFull);
            }
            let Some((key, victim)) = self.map.pop_lru() else { return Err(GlyphError::AtlasFull) };
            self.stats.evictions += 1;
            if victim.tiled() {
                for p in self.free_tiles(&key) {
                    if let Ok(a) = self.pages[p as usize].packer.allocate(w, h) {
                        return Ok((p, a.rect, a.id));
                    }
                }
                continue;
            }
            let Some(id) = victim.alloc else { continue };
            let p = victim.entry.page as usize;
            let Some(page) = self.pages.get_mut(p) else { continue };
            page.free(id);
            if let Ok(a) = page.packer.allocate(w, h) {
                return Ok((p as u32, a.rect, a.id));
            }
            page.note_failure(w, h);
        }
    }

    fn try_pages(&mut self, range: std::ops::Range<usize>, w: u32, h: u32) -> Option<(u32, Rect, AllocId)> {
        for i in range {
            let page = &mut self.pages[i];
            if page.known_full(w, h) {
                continue;
            }
            match page.packer.allocate(w, h) {
                Ok(a) => return Some((i as u32, a.rect, a.id)),
                Err(_) => page.note_failure(w, h),
            }
        }
        None
    }

    /// True when a glyph on page `page` must move before it is drawn.
    #[inline]
    fn must_move(&self, page: u32) -> bool {
        self.retiring.is_some_and(|r| page as usize >= r)
    }

    /// Moves a glyph off a retiring page: a slot on a kept page, its texels
    /// copied from the old page's CPU copy (no rasterizing), the old slot
    /// freed. If no room is found the glyph stays where it is.
    fn relocate(&mut self, key: GlyphKey) -> GlyphEntry {
        let Some(slot) = self.map.peek(&key).copied() else { return GlyphEntry::BLANK };
        let (e, Some(old)) = (slot.entry, slot.alloc) else { return slot.entry };
        if !self.must_move(e.page) {
            return e;
        }
        let Some(page) = self.pages.get(e.page as usize) else { return e };
        let image = GlyphImage {
            width: e.width as u32,
            height: e.height as u32,
            left: e.left,
            bottom: e.top - e.height as i32,
            pixels: page.copy_rect(e.rect()),
        };
        let t = Instant::now();
        let placed = self.allocate(image.width, image.height);
        self.stats.pack_ns += t.elapsed().as_nanos() as u64;
        let Ok((p, rect, id)) = placed else { return e };
        if p == e.page {
            // Retiring was called off and the glyph landed on its own page: keep the old slot.
            let _ = self.pages[p as usize].packer.deallocate(id);
            return e;
        }
        self.stage(p, rect, &image);
        if let Some(old_page) = self.pages.get_mut(e.page as usize) {
            old_page.free(old);
        }
        let moved = GlyphEntry { page: p, x: rect.x as u16, y: rect.y as u16, ..e };
        if let Some(s) = self.map.peek_mut(&key) {
            s.entry = moved;
            s.alloc = Some(id);
        }
        self.stats.relocated += 1;
        moved
    }

    /// Writes a glyph's texels into its page's CPU copy and, in
    /// [`UploadMode::Glyphs`], into the frame's upload staging.
    fn stage(&mut self, page: u32, rect: Rect, image: &GlyphImage) {
        self.pages[page as usize].stage(rect.x, rect.y, image, self.config.padding);
        if self.config.uploads == UploadMode::Glyphs {
            self.staging.push(page as usize, rect.x, rect.y, image.width, image.height, &image.pixels);
        }
    }

    /// Frees the slots of an evicted tiled glyph; the pages they were on.
    fn free_tiles(&mut self, key: &GlyphKey) -> Vec<u32> {
        let tiles = self.tiles.remove(key).unwrap_or_default();
        let mut pages: Vec<u32> = Vec::with_capacity(tiles.len());
        for t in tiles {
            if let Some(page) = self.pages.get_mut(t.entry.page as usize) {
                page.free(t.alloc);
            }
            if !pages.contains(&t.entry.page) {
                pages.push(t.entry.page);
            }
        }
        pages
    }

    /// Places a glyph larger than a page as tiles of at most
    /// [`tile_side`](Self::tile_side) texels, each in a slot of its own
    /// (evicting as for any glyph). If a tile finds no room, the tiles placed
    /// so far are freed and nothing is cached.
    fn place_tiled(&mut self, key: GlyphKey, image: &GlyphImage, entry: GlyphEntry) -> Result<GlyphEntry, GlyphError> {
        let t = self.tile_side();
        let (w, h) = (image.width, image.height);
        let mut tiles: Vec<GlyphTile> = Vec::new();
        for dy in (0..h).step_by(t as usize) {
            for dx in (0..w).step_by(t as usize) {
                let (tw, th) = (t.min(w - dx), t.min(h - dy));
                let started = Instant::now();
                let placed = self.allocate(tw, th);
                self.stats.pack_ns += started.elapsed().as_nanos() as u64;
                let (page, rect, alloc) = match placed {
                    Ok(p) => p,
                    Err(e) => {
                        for tile in &tiles {
                            if let Some(p) = self.pages.get_mut(tile.entry.page as usize) {
                                p.free(tile.alloc);
                            }
                        }
                        return Err(e);
                    }
                };
                let mut pixels = Vec::with_capacity((tw * th) as usize);
                for row in dy..dy + th {
                    let at = (row * w + dx) as usize;
                    pixels.extend_from_slice(&image.pixels[at..at + tw as usize]);
                }
                let started = Instant::now();
                self.stage(page, rect, &GlyphImage { width: tw, height: th, left: 0, bottom: 0, pixels });
                self.stats.stage_ns += started.elapsed().as_nanos() as u64;
                let tile_entry = GlyphEntry { page, x: rect.x as u16, y: rect.y as u16, width: tw as u16, height: th as u16, left: 0, top: 0 };
                tiles.push(GlyphTile { entry: tile_entry, dx: dx as u16, dy: dy as u16, alloc });
            }
        }
        self.tiles.insert(key, tiles);
        let entry = GlyphEntry { page: TILED_PAGE, ..entry };
        self.map.put(key, Slot { entry, alloc: None, last_used: self.frame });
        Ok(entry)
    }

    fn place(&mut self, key: GlyphKey, image: &GlyphImage) -> Result<GlyphEntry, GlyphError> {
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
                if !self.tiles_could_fit(image.width, image.height) {
                    return Err(GlyphError::TooLarge { width: image.width, height: image.height, page: self.side });
                }
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

    /// Fills the reusable request buffer with `fill` and runs the batch,
    /// collecting skipped glyphs into the frame's report.
    fn run_requests(&mut self, out: &mut Vec<GlyphQuad>, mode: RenderMode, fill: impl FnOnce(&GlyphCache, &mut Vec<PositionedReq>)) {
        let mut reqs = std::mem::take(&mut self.scratch);
        reqs.clear();
        fill(self, &mut reqs);
        let mut skipped = std::mem::take(&mut self.pending_skipped);
        self.run_batch(&reqs, out, mode, &mut skipped);
        self.pending_skipped = skipped;
        self.scratch = reqs;
    }

    /// The batch path shared by `prepare` and `layout`.
    /// Every request of a batch has the same mode: the cache's for glyphs,
    /// [`RenderMode::Image`] for images.
    fn run_batch(&mut self, reqs: &[PositionedReq], out: &mut Vec<GlyphQuad>, mode: RenderMode, skipped: &mut Vec<Skipped>) {
        let frame = self.frame;
        let max_px = self.config.max_glyph_px;
        let bins = self.config.subpixel_bins;
        let start = out.len();
        let mut misses: Vec<(usize, usize, GlyphKey)> = Vec::new();
        let mut moves: Vec<(usize, usize, GlyphKey)> = Vec::new();
        let mut tiled_hits: Vec<(usize, GlyphKey, i32)> = Vec::new();
        let mut hits = 0u64;
        let mut invalid = 0u64;
        for (i, r) in reqs.iter().enumerate() {
            let Some(size) = GlyphSize::from_px(r.size, max_px) else {
                invalid += 1;
                skipped.push(Skipped { index: i, key: None, reason: GlyphError::InvalidSize { size: r.size, max: max_px } });
                continue;
            };
            let (whole_x, subpixel_x) = r.snap(bins);
            let key = GlyphKey { font: r.font, glyph: r.glyph, size, mode, subpixel_x };
            // One hash probe that also moves the glyph to the front of the LRU
            // list (a few pointer writes). A separate `promote` of each key's
            // first use in the frame costs a second probe, which with
            // sub-pixel bins (several keys per glyph) was measurable.
            let retiring = self.retiring;
            match self.map.get_mut(&key) {
                Some(slot) => {
                    // A glyph an earlier batch of this frame drew stays where
                    // it is: its slot must not be freed while the frame's
                    // quads still point at it.
                    let previous = std::mem::replace(&mut slot.last_used, frame);
                    hits += 1;
                    if slot.entry.is_blank() {
                        if slot.tiled() {
                            tiled_hits.push((i, key, whole_x));
                        }
                    } else if retiring.is_some_and(|r| slot.entry.page as usize >= r) && previous != frame {
                        moves.push((out.len(), i, key));
                        out.push(GlyphQuad { page: GlyphQuad::PLACEHOLDER_PAGE, ..GlyphQuad::default() });
                    } else {
                        out.push(r.quad(&slot.entry, whole_x));
                    }
                }
                None => {
                    misses.push((out.len(), i, key));
                    out.push(GlyphQuad { page: GlyphQuad::PLACEHOLDER_PAGE, ..GlyphQuad::default() });
                }
            }
        }
        self.stats.lookups += reqs.len() as u64;
        self.stats.hits += hits;
        self.stats.misses += misses.len() as u64 + invalid;
        self.stats.skipped += invalid;
        for &(slot, i, key) in &moves {
            out[slot] = reqs[i].quad(&self.relocate(key), reqs[i].snap(bins).0);
        }
        // Glyphs in tiles: their quads go after the batch's others.
        for (i, key, whole_x) in tiled_hits {
            if let (Some(e), Some(tiles)) = (self.map.peek(&key), self.tiles.get(&key)) {
                let base = reqs[i].quad(&e.entry, whole_x);
                out.extend(tiles.iter().map(|t| t.quad(&base)));
            }
        }
        if misses.is_empty() {
            return;
        }
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
            let r = &reqs[i];
            match &placed[index[&key]] {
                Ok(e) if !e.is_blank() => out[slot] = r.quad(e, r.snap(bins).0),
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
}

/// One frame of a [`GlyphCache`]: the only way to look glyphs up, so the
/// frame lifecycle cannot be forgotten. Glyphs looked up in this frame are
/// never evicted while it, or any of the next `frames_in_flight` frames, runs.
pub struct Frame<'a> {
    cache: &'a mut GlyphCache,
    finished: bool,
}

impl std::fmt::Debug for Frame<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Frame").field("number", &self.cache.frame).finish()
    }
}

impl Frame<'_> {
    /// This frame's number (1 for the first frame).
    pub fn number(&self) -> u64 {
        self.cache.frame
    }

    /// The cache (read-only) while the frame runs.
    pub fn cache(&self) -> &GlyphCache {
        self.cache
    }

    /// Looks up one glyph at sub-pixel offset 0, rasterizing and placing it on a miss.
    pub fn glyph(&mut self, font: FontId, glyph: u16, size_px: f32) -> Result<GlyphEntry, GlyphError> {
        let size = self.cache.size_of(size_px)?;
        if is_image_font(font) {
            return Err(GlyphError::UnknownFont(font));
        }
        self.lookup(GlyphKey { mode: self.cache.render_mode(), ..GlyphKey::new(font, glyph, size) })
    }

    /// Looks up one glyph for drawing with filtering (transformed text):
    /// [`RenderMode::Sampled`], offset 0, a border of zeros around the
    /// bitmap (the entry's size and bearings include it). A glyph larger
    /// than a page comes back in tiles ([`GlyphCache::tiles`]).
    pub fn sampled_glyph(&mut self, font: FontId, glyph: u16, size_px: f32) -> Result<GlyphEntry, GlyphError> {
        let size = self.cache.size_of(size_px)?;
        if is_image_font(font) {
            return Err(GlyphError::UnknownFont(font));
        }
        self.lookup(GlyphKey { mode: RenderMode::Sampled, ..GlyphKey::new(font, glyph, size) })
    }

    /// Looks one key up, rasterizing and placing it on a miss.
    fn lookup(&mut self, key: GlyphKey) -> Result<GlyphEntry, GlyphError> {
        let frame = self.cache.frame;
        self.cache.stats.lookups += 1;
        if let Some(slot) = self.cache.map.get_mut(&key) {
            let first_use = slot.last_used != frame;
            slot.last_used = frame;
            let entry = slot.entry;
            self.cache.stats.hits += 1;
            if first_use && self.cache.must_move(entry.page) && !entry.is_blank() {
                return Ok(self.cache.relocate(key));
            }
            return Ok(entry);
        }
        self.cache.stats.misses += 1;
        let image = self.cache.rasterize_all(&[key]).pop().unwrap_or(Err(GlyphError::AtlasFull));
        let placed = image.and_then(|img| self.cache.place(key, &img));
        if placed.is_err() {
            self.cache.stats.skipped += 1;
        }
        placed
    }

    /// Looks up a run of positioned glyphs and appends one quad per visible
    /// glyph to `out`, in input order. Glyphs that cannot be drawn (bad size,
    /// unknown font, atlas full of in-flight glyphs, ...) are skipped and
    /// reported in the frame's output; the rest of the frame is drawn.
    pub fn prepare(&mut self, glyphs: &[PositionedGlyph], out: &mut Vec<GlyphQuad>) {
        let mode = self.cache.render_mode();
        self.cache.run_requests(out, mode, |_, reqs| {
            reqs.extend(glyphs.iter().map(|g| PositionedReq {
                font: g.font,
                glyph: g.glyph,
                size: g.size,
                x: g.x,
                y: g.y,
                color: g.color,
                anchor: Anchor::Pen,
            }))
        });
    }

    /// Looks up the app's images (see [`GlyphCache::add_image_source`]) and
    /// appends one quad per visible image to `out`, in input order: a miss
    /// asks the image's source to render it. Images that cannot be drawn
    /// (unknown source, the source failed, bad size, atlas full) are skipped
    /// and reported in the frame's output, like glyphs.
    pub fn prepare_images(&mut self, images: &[PositionedImage], out: &mut Vec<GlyphQuad>) {
        self.cache.run_requests(out, RenderMode::Image, |_, reqs| {
            reqs.extend(images.iter().map(|g| PositionedReq {
                font: image_font(g.source, g.id),
                glyph: g.id as u16,
                size: g.size,
                x: g.x,
                y: g.y,
                color: g.color,
                anchor: Anchor::ImagePen,
            }))
        });
    }

    /// Looks up one image, rendering and placing it on a miss.
    pub fn image(&mut self, source: ImageSourceId, id: u32, size_px: f32) -> Result<GlyphEntry, GlyphError> {
        let size = self.cache.size_of(size_px)?;
        self.lookup(GlyphKey::image(source, id, size))
    }

    /// Lays `text` out with fontdue's layout and appends its quads to `out`.
    /// An unknown font or invalid size is an error and changes nothing.
    pub fn layout(&mut self, text: &TextSpec<'_>, out: &mut Vec<GlyphQuad>) -> Result<(), GlyphError> {
        let size = self.cache.check_text(text)?;
        let line_height = if text.line_height.is_finite() && text.line_height > 0.0 { text.line_height } else { 1.0 };
        let max_width = text.max_width.filter(|w| w.is_finite() && *w > 0.0);
        let cache = &mut *self.cache;
        cache.layout.reset(&fontdue::layout::LayoutSettings {
            x: if text.x.is_finite() { text.x } else { 0.0 },
            y: if text.y.is_finite() { text.y } else { 0.0 },
            max_width,
            line_height,
            ..fontdue::layout::LayoutSettings::default()
        });
        let px = size.px();
        cache.layout.append(cache.fonts.as_slice(), &fontdue::layout::TextStyle::new(text.text, px, text.font.0 as usize));
        let x0 = if text.x.is_finite() { text.x } else { 0.0 };
        let mode = cache.render_mode();
        cache.run_requests(out, mode, |cache, reqs| {
            let glyphs = cache.layout.glyphs();
            let req = |g: &fontdue::layout::GlyphPosition, x: f32, anchor: Anchor| PositionedReq {
                font: text.font,
                glyph: g.key.glyph_index,
                size: px,
                x,
                y: g.y,
                color: text.color,
                anchor,
            };
            match (cache.config.subpixel_bins, cache.fonts.get(text.font), cache.layout.lines()) {
                (2.., Some(font), Some(lines)) => {
                    // fontdue's layout rounds every advance up to whole
                    // pixels; with sub-pixel bins the pens advance by the
                    // exact advances instead, restarting at the left edge on
                    // each line (lines hold consecutive glyphs, as fontdue's
                    // own positioning pass walks them).
                    let mut idx = 0;
                    for line in lines {
                        let mut pen = x0;
                        while idx <= line.glyph_end && idx < glyphs.len() {
                            let g = &glyphs[idx];
                            if !g.char_data.is_control() {
                                reqs.push(req(g, pen, Anchor::PenXTopY));
                                pen += font.metrics_indexed(g.key.glyph_index, px).advance_width;
                            }
                            idx += 1;
                        }
                    }
                }
                _ => reqs.extend(glyphs.iter().filter(|g| !g.char_data.is_control()).map(|g| req(g, g.x, Anchor::TopLeft))),
            }
        });
        Ok(())
    }

    /// Ends the frame: the uploads to make (at most one per dirty page) and
    /// what was skipped.
    pub fn finish(mut self) -> FrameOutput {
        self.finished = true;
        self.cache.end_frame()
    }
}

impl Drop for Frame<'_> {
    fn drop(&mut self) {
        if !self.finished {
            // Uploads stay pending in the pages and go out with the next finished frame.
            self.cache.pending_skipped.clear();
        }
    }
}

impl GlyphCache {
    /// Evicts glyphs unused for more than `idle_frames` frames (never one a
    /// frame in flight uses); when the live glyphs would fit in half of one
    /// page fewer, starts emptying the last page (no new glyph goes there, and
    /// a glyph looked up there moves to a lower page, its texels copied, not
    /// rasterized); releases empty pages at the end of the array, down to
    /// `min_pages`, once no frame in flight can reference them. Returns
    /// (glyphs evicted, pages released). Runs at the end of every frame when
    /// `release_idle_after` is set.
    pub fn trim(&mut self, idle_frames: u64) -> (u64, u32) {
        let mut evicted = 0;
        while let Some((_, slot)) = self.map.peek_lru() {
            if self.is_protected(slot.last_used) || slot.last_used.saturating_add(idle_frames) >= self.frame {
                break;
            }
            let Some((key, victim)) = self.map.pop_lru() else { break };
            if victim.tiled() {
                self.free_tiles(&key);
            } else if let (Some(id), Some(page)) = (victim.alloc, self.pages.get_mut(victim.entry.page as usize)) {
                page.free(id);
            }
            evicted += 1;
        }
        self.stats.evictions += evicted;
        let floor = self.config.min_pages.max(1) as usize;
        let n = self.pages.len();
        let page_area = self.side as u64 * self.side as u64;
        if self.retiring.is_none() && n > floor {
            // The live glyphs would fill at most half of one page fewer: start
            // emptying the last page (its glyphs move down when next used).
            let used: u64 = self.pages.iter().map(|p| p.packer.used_area()).sum();
            if used.saturating_mul(2) <= (n as u64 - 1) * page_area {
                self.retiring = Some(n - 1);
            }
        }
        let frame = self.frame;
        for page in &mut self.pages {
            if page.packer.is_empty() {
                page.empty_since.get_or_insert(frame);
            } else {
                page.empty_since = None;
            }
        }
        // A page empty for longer than the frames in flight is referenced by no frame.
        let in_flight = self.config.frames_in_flight as u64;
        let mut released = 0;
        while self.pages.len() > floor
            && self.pages.last().is_some_and(|p| p.empty_since.is_some_and(|e| e + in_flight < frame))
        {
            self.pages.pop();
            released += 1;
        }
        if self.retiring.is_some_and(|r| r >= self.pages.len()) {
            self.retiring = None;
        }
        self.staging.truncate(self.pages.len());
        self.stats.pages_released += released as u64;
        (evicted, released)
    }

    /// Bytes of page texels the atlas holds now (one byte per texel).
    pub fn atlas_bytes(&self) -> u64 {
        self.pages.len() as u64 * self.side as u64 * self.side as u64
    }

    fn end_frame(&mut self) -> FrameOutput {
        if let Some(idle) = self.config.release_idle_after {
            self.trim(idle);
        }
        let t = Instant::now();
        let mut uploads = Vec::new();
        let mut glyphs = GlyphUploads::default();
        match self.config.uploads {
            UploadMode::DirtyRect => {
                for (i, page) in self.pages.iter_mut().enumerate() {
                    if let Some(u) = page.take_upload(i as u32) {
                        self.stats.upload_calls += 1;
                        self.stats.upload_regions += u.regions as u64;
                        self.stats.upload_bytes += u.data.len() as u64;
                        uploads.push(u);
                    }
                }
            }
            UploadMode::Glyphs => {
                for page in &mut self.pages {
                    page.dirty = None;
                    page.dirty_regions = 0;
                }
                glyphs = self.staging.take(self.config.padding);
                self.stats.upload_calls += glyphs.pages.len() as u64;
                self.stats.upload_regions += glyphs.regions.len() as u64;
                self.stats.upload_bytes += glyphs.upload_bytes();
            }
        }
        self.stats.stage_ns += t.elapsed().as_nanos() as u64;
        let s = &self.stats;
        let b = &self.frame_start;
        FrameOutput {
            frame: self.frame,
            uploads,
            glyphs,
            pages: self.pages.len() as u32,
            skipped: std::mem::take(&mut self.pending_skipped),
            lookups: s.lookups - b.lookups,
            hits: s.hits - b.hits,
            evictions: s.evictions - b.evictions,
        }
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
    GlyphImage { width: image.width + 2, height: image.height + 2, left: image.left - 1, bottom: image.bottom - 1, pixels }
}
