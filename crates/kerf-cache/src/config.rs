//! The cache's configuration and its validation.

use crate::error::ConfigError;
use crate::key::RenderMode;
use kerf_pack::Algorithm;

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
    /// The most threads that rasterize a batch's misses at once (with the
    /// `parallel` feature). Default 4: a pool of kerf's own with that many
    /// threads (no more than the machine's cores), shared by every cache
    /// in the process that asks for the same count. Each thread that
    /// rasterizes keeps buffers and, under glibc, a malloc arena of its
    /// own, so a thread a core costs memory on a many-core machine for
    /// little speed: a frame's burst of misses is a few hundred glyphs.
    /// 0 uses rayon's global pool (a thread a core unless the app set it
    /// up); 1 rasterizes on the calling thread.
    pub raster_threads: usize,
    /// Glyphs unused for this many frames are evicted at the end of a frame,
    /// and pages left empty at the end of the array are released, down to
    /// `min_pages`: when the workload shrinks, memory comes back down.
    /// Default `Some(600)` (ten seconds at 60 frames per second: the
    /// cache's memory settles within that many frames of a change of
    /// content, and a glyph back after longer is rasterized again, a few
    /// microseconds); `None` keeps glyphs until space is needed.
    pub release_idle_after: Option<u64>,
    /// Before the atlas adds a page, a miss takes room from glyphs unused
    /// for more than this many frames (least recently used first); a page
    /// is added only when those cannot make room. Default `Some(120)` (two
    /// seconds at 60 frames per second): text that scrolled away gives its
    /// space to new text instead of the atlas growing toward its page
    /// budget, so memory follows what the app draws now, not all it has
    /// drawn. A glyph that comes back after that long is rasterized again
    /// (a few microseconds). `None` adds pages first and evicts only at
    /// the budget.
    pub evict_idle_before_growing: Option<u64>,
    /// Pages never released (the budget's floor). Default 1.
    pub min_pages: u32,
    /// Sub-pixel x positions per pixel (1 to [`MAX_SUBPIXEL_BINS`](crate::limits::MAX_SUBPIXEL_BINS)). Pen x
    /// positions are rounded to the nearest of this many evenly spaced
    /// offsets, and the glyph is rasterized at that offset (one cache entry
    /// per offset used). 1 is whole-pixel snapping. Default 4 (spacing error
    /// at most 1/8 px; see docs/cache.md for what the bins cost).
    pub subpixel_bins: u32,
    /// How new texels leave a frame: [`UploadMode::Auto`](crate::UploadMode::Auto)
    /// (default; per page, the dirty box when the new glyphs fill at least
    /// a third of it or it is at most [`whole_box_bytes`](Self::whole_box_bytes), else glyph by glyph), [`UploadMode::Glyphs`](crate::UploadMode::Glyphs)
    /// (each staged glyph's texels packed tightly, an [`Upload::Glyphs`](crate::pages::Upload::Glyphs) per page) or
    /// [`UploadMode::DirtyRect`](crate::UploadMode::DirtyRect) (one dirty bounding box per page, an
    /// [`Upload::Rect`](crate::pages::Upload::Rect)), all in [`FrameOutput::uploads`](crate::FrameOutput::uploads).
    pub uploads: UploadMode,
    /// [`UploadMode::Auto`]'s largest dirty box, in bytes, written whole
    /// however few new glyphs it holds (a larger sparse box goes glyph by
    /// glyph). Default `None`: [`WHOLE_BOX_BYTES`] (256 KiB), which
    /// kerf-wgpu's `TextAtlas` raises to [`SOFTWARE_WHOLE_BOX_BYTES`] on a
    /// software adapter (wgpu's `DeviceType::Cpu`, e.g. lavapipe), where the
    /// glyph-by-glyph scatter is a render pass the CPU runs.
    pub whole_box_bytes: Option<u64>,
    /// Whether a dirty box's upload ([`Upload::Rect`](crate::pages::Upload::Rect))
    /// carries its texels in [`PageUpload::data`](crate::pages::PageUpload::data).
    /// Default true. A backend that writes every box from the page's CPU
    /// copy ([`Page::pixels`](crate::pages::Page::pixels), before the cache's
    /// next frame changes it) sets it false and saves a copy of every box:
    /// a megabyte a frame under churn on a software adapter. kerf-wgpu's
    /// `TextAtlas` does. (A device rebuild's
    /// [`full_uploads`](crate::pages::Atlas::full_uploads) always carry them.)
    pub copy_boxes: bool,
    /// Whether a page's glyph-by-glyph upload ([`Upload::Glyphs`](crate::pages::Upload::Glyphs))
    /// carries its glyphs' texels in [`GlyphUploads::bytes`](crate::pages::GlyphUploads::bytes).
    /// Default true. A backend that reads them from the page's CPU copy
    /// instead ([`GlyphUploads::texel_rows`](crate::pages::GlyphUploads::texel_rows),
    /// before the cache's next frame changes the page) sets it false: the
    /// cache then makes no buffer of a frame's new texels, which a burst
    /// of misses (a zoom step through CJK text) made megabytes long and the
    /// allocator kept. kerf-wgpu's `TextAtlas` does.
    pub copy_glyph_texels: bool,
    /// Whether each page keeps a CPU copy of its texels ([`Page::pixels`](crate::pages::Page::pixels)).
    /// Default true.
    ///
    /// Without copies a page costs no CPU memory (a megabyte a 1024²
    /// coverage page, four a 2048² one; a colour page four times that):
    /// every upload is glyph by glyph and carries the frame's new texels
    /// ([`GlyphUploads::bytes`](crate::pages::GlyphUploads::bytes), whatever
    /// [`copy_glyph_texels`](Self::copy_glyph_texels) says), a glyph moved
    /// off a retiring page is rasterized again instead of copied, and
    /// [`full_uploads`](crate::pages::Atlas::full_uploads) has nothing to
    /// give (kerf-wgpu's `TextAtlas::rebuild` [`clear`](crate::GlyphCache::clear)s
    /// the cache instead). [`UploadMode::DirtyRect`] needs the copies: the
    /// cache refuses it without ([`ConfigError::DirtyRectWithoutCopies`](crate::ConfigError::DirtyRectWithoutCopies));
    /// kerf-wgpu's `TextAtlas`, which must upload dirty rectangles on a
    /// device without the scatter (WebGL2), keeps the copies there.
    ///
    /// It pays where pages are large or many. At the default size it does
    /// not: on an H100 it saved 0.2–1 MiB of resident memory in the scene
    /// corpus, while a frame's burst of new glyphs (a zoom step through CJK
    /// text) then holds its texels twice over (1–2 MiB more at the peak),
    /// and a first frame compiles the scatter pipeline that a copy's dirty
    /// box needs none of (docs/performance.md).
    pub page_copies: bool,
    /// The colour page set: RGBA8 pages beside the coverage pages, for the
    /// app's RGBA images ([`GlyphCache::add_rgba_image_source`](crate::GlyphCache::add_rgba_image_source)).
    /// Made on first use; own pages, packer and budget, the same LRU
    /// eviction, frame protection and upload rules.
    pub color: ColorPages,
}

/// Size and budget of the colour page set (4 bytes per texel).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ColorPages {
    /// Page side in texels. Default 512.
    pub page_size: u32,
    /// Pages the colour set may grow to. Default 4.
    pub max_pages: u32,
    /// Bytes of colour texels the set may use (4 per texel). Default 16 MiB.
    pub memory_budget: u64,
}

impl Default for ColorPages {
    fn default() -> Self {
        ColorPages { page_size: 512, max_pages: 4, memory_budget: 16 << 20 }
    }
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
            raster_threads: 4,
            release_idle_after: Some(600),
            evict_idle_before_growing: Some(120),
            min_pages: 1,
            subpixel_bins: 4,
            uploads: UploadMode::Auto,
            whole_box_bytes: None,
            copy_boxes: true,
            copy_glyph_texels: true,
            page_copies: true,
            color: ColorPages::default(),
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

    /// Checks the configuration; the cache refuses one that allows no page
    /// (in the coverage pages or, as [`ConfigError::Color`], the colour pages).
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.validate_pages()?;
        self.color_set().validate_pages().map_err(|e| ConfigError::Color(Box::new(e)))
    }

    /// The checks of one page set.
    fn validate_pages(&self) -> Result<(), ConfigError> {
        let side = self.page_side();
        if side == 0 {
            return Err(ConfigError::ZeroPageSize {
                page_size: self.page_size,
                limit: self.max_texture_side,
            });
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
        if !self.page_copies && self.uploads == UploadMode::DirtyRect {
            return Err(ConfigError::DirtyRectWithoutCopies);
        }
        Ok(())
    }

    /// The render mode of glyph keys: [`RenderMode::ShiftedCoverage`] with
    /// more than one sub-pixel bin, [`RenderMode::Coverage`] with one.
    pub(crate) fn render_mode(&self) -> RenderMode {
        if self.subpixel_bins > 1 {
            RenderMode::ShiftedCoverage
        } else {
            RenderMode::Coverage
        }
    }

    /// The configuration of the colour page set: its own page size and page
    /// count, the budget counted in texels like the coverage pages' (a colour
    /// texel is 4 bytes), everything else as here.
    pub(crate) fn color_set(&self) -> CacheConfig {
        CacheConfig {
            page_size: self.color.page_size,
            max_pages: self.color.max_pages,
            memory_budget: self.color.memory_budget / 4,
            min_pages: self.min_pages.min(self.color.max_pages),
            subpixel_bins: 1,
            ..self.clone()
        }
    }
}

/// [`CacheConfig::whole_box_bytes`]'s default (256 KiB): on a GPU, a texture
/// write that size costs less than a scatter pass (and needs no scatter
/// pipeline, which a driver compiles at its first draw: lavapipe about
/// 5 ms). A first frame's boxes and an app's few new glyphs a frame go
/// whole; churn across a large page is scattered.
pub const WHOLE_BOX_BYTES: u64 = 256 * 1024;

/// [`CacheConfig::whole_box_bytes`] on a software adapter (1.5 MiB, a
/// whole 1024² coverage page and then some). There the scatter pass is a
/// render pass over the page run on the CPU, and copying a box costs less
/// up to about 1.8 MB: in `prepare_churn` on lavapipe, one 1024² page's
/// ~1 MB boxes took 569 µs a frame against the scatter's 692; a 2048²
/// page's ~3.8 MB boxes 1.33 ms against 1.02.
pub const SOFTWARE_WHOLE_BOX_BYTES: u64 = 3 << 19;

/// How a frame hands its new texels to the GPU side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum UploadMode {
    /// Per page and frame, whichever suits what changed: a page whose new
    /// glyphs (with their padding gutters) fill at least a third of their
    /// bounding box (a cold start, a paragraph at a new size), or whose box
    /// is at most [`CacheConfig::whole_box_bytes`] (256 KiB by default; a
    /// first frame's later pages, a few new glyphs a frame), goes as that
    /// box, one [`PageUpload`](crate::pages::PageUpload) as in
    /// [`DirtyRect`](Self::DirtyRect) (at most three times the bytes or
    /// that limit, no scatter draw, which a driver compiles at its first use);
    /// a page with scattered new glyphs over a larger box (churn) goes glyph by glyph
    /// in the frame's [`GlyphUploads`](crate::pages::GlyphUploads), as in [`Glyphs`](Self::Glyphs). The default.
    #[default]
    Auto,
    /// One [`GlyphUploads`](crate::pages::GlyphUploads) per dirty page: every glyph staged, its texels
    /// packed tightly (no page rows, no neighbours' texels): bytes uploaded ≈
    /// bytes rasterized, always.
    Glyphs,
    /// At most one [`PageUpload`](crate::pages::PageUpload) per dirty page: the
    /// bounding box of everything staged on it, cut from the page's CPU copy.
    /// One plain texture write per page, but under churn the box holds far
    /// more texels than the glyphs that changed.
    DirtyRect,
}

impl UploadMode {
    /// Every mode, in the order of their names in [`UploadMode::NAMES`].
    pub const ALL: [UploadMode; 3] = [UploadMode::Auto, UploadMode::Glyphs, UploadMode::DirtyRect];
    /// The modes' names as [`Display`](std::fmt::Display) writes them and
    /// [`FromStr`](std::str::FromStr) reads them (command-line flags, config files).
    pub const NAMES: [&'static str; 3] = ["auto", "glyphs", "dirty-rect"];

    /// The mode's name (`auto`, `glyphs`, `dirty-rect`).
    pub fn name(self) -> &'static str {
        match self {
            UploadMode::Auto => "auto",
            UploadMode::Glyphs => "glyphs",
            UploadMode::DirtyRect => "dirty-rect",
        }
    }
}

impl std::fmt::Display for UploadMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is no [`UploadMode`]'s.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown upload mode {0:?} (expected one of: auto, glyphs, dirty-rect)")]
pub struct UnknownUploadMode(pub String);

impl std::str::FromStr for UploadMode {
    type Err = UnknownUploadMode;
    fn from_str(s: &str) -> Result<UploadMode, UnknownUploadMode> {
        let lower = s.to_ascii_lowercase();
        UploadMode::ALL
            .into_iter()
            .find(|m| m.name() == lower)
            .ok_or_else(|| UnknownUploadMode(s.to_string()))
    }
}
