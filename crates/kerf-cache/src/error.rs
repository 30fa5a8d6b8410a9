//! Typed errors of the glyph cache.

use crate::key::{FontId, ImageSourceId, RenderMode};
use thiserror::Error;

/// Why font bytes could not be loaded. The cache is unchanged after any of these.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum FontError {
    /// No bytes at all.
    #[error("font data is empty")]
    Empty,
    /// The parser rejected the bytes (truncated, not a font, bad tables).
    #[error("font data is malformed: {0}")]
    Malformed(String),
    /// The font parser panicked on these bytes; the panic was contained.
    #[error("font parser failed on these bytes (internal panic contained)")]
    ParserPanicked,
    /// More fonts than a [`FontId`] can name.
    #[error("too many fonts loaded ({0})")]
    TooManyFonts(usize),
}

/// Why one glyph could not be placed in the atlas.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum GlyphError {
    /// The font id names no loaded font.
    #[error("unknown font id {0:?}")]
    UnknownFont(FontId),
    /// The glyph index is not below the font's glyph count.
    #[error("glyph {glyph} is out of range for font {font:?} ({count} glyphs)")]
    GlyphOutOfRange {
        /// The font asked for.
        font: FontId,
        /// The glyph index asked for.
        glyph: u16,
        /// The font's glyph count.
        count: u16,
    },
    /// The size is NaN, infinite, zero, negative, or above the configured maximum.
    #[error("invalid glyph size {size} px (must be finite, > 0 and <= {max})")]
    InvalidSize {
        /// The size asked for, in pixels.
        size: f32,
        /// The configured maximum, in pixels.
        max: f32,
    },
    /// The glyph's bitmap is larger than the whole atlas can ever hold (a
    /// glyph larger than a page is drawn in page-sized tiles; this is what is
    /// left: more tile area than every page the budget allows).
    #[error("glyph bitmap {width}x{height} px does not fit the atlas's {page}x{page} pages even in tiles")]
    TooLarge {
        /// Bitmap width.
        width: u32,
        /// Bitmap height.
        height: u32,
        /// The page side.
        page: u32,
    },
    /// Every page is full of glyphs used by frames still in flight, and no page may be added.
    #[error("atlas full: every page is full of glyphs in use by frames in flight and no page may be added")]
    AtlasFull,
    /// kerf's own layout ([`TextSpec`](crate::TextSpec)) could not parse a
    /// lazily loaded face with fontdue.
    #[error("font {font:?} cannot be laid out: {error}")]
    Font {
        /// The font.
        font: FontId,
        /// What fontdue said.
        error: FontError,
    },
    /// The rasterizer failed.
    #[error("rasterizer failed: {0}")]
    Raster(#[from] RasterError),
    /// The image source id names no source of this cache.
    #[error("unknown image source {0:?}")]
    UnknownImageSource(ImageSourceId),
    /// A [`FontStyle`](crate::FontStyle) the face cannot be drawn with.
    #[error("font {font:?}: {error}")]
    Style {
        /// The font the style was asked of.
        font: FontId,
        /// What was wrong.
        error: StyleError,
    },
    /// The image source could not render the image.
    #[error("image source {image_source:?} failed to render image {id}: {message}")]
    ImageFailed {
        /// The source.
        image_source: ImageSourceId,
        /// The image id.
        id: u32,
        /// What the source said.
        message: String,
    },
}

impl GlyphError {
    /// This error as a font error, for the shaper adapters, whose glyph
    /// conversion reports [`FontError`]s: a font's own error as it is, any
    /// other (a style the face cannot take) as a malformed font with the
    /// message.
    #[cfg(any(feature = "cosmic-text", feature = "parley"))]
    pub(crate) fn into_font_error(self) -> FontError {
        match self {
            GlyphError::Font { error, .. } => error,
            other => FontError::Malformed(other.to_string()),
        }
    }
}

/// Why a [`FontStyle`](crate::FontStyle) was refused. The cache is unchanged.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum StyleError {
    /// A weight, axis value or slant that is NaN or infinite.
    #[error("{what} must be finite, got {value}")]
    NotFinite {
        /// Which number.
        what: String,
        /// Its value.
        value: f32,
    },
    /// A synthetic oblique of 60° or more (the outline would lie flat).
    #[error("synthetic oblique {0}° is not below 60°")]
    Oblique(f32),
    /// The face's tables could not be read.
    #[error("the face's tables could not be read")]
    BadFont,
    /// An outline width or shadow blur out of range.
    #[error("{what} {value} px is out of range (outline width in (0, 64], blur in [0, 64])")]
    EffectSize {
        /// Which size.
        what: &'static str,
        /// Its value.
        value: f32,
    },
}

/// Why an image source could not be added. The cache is unchanged.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum ImageSourceError {
    /// More sources than an [`ImageSourceId`] can name.
    #[error("too many image sources ({0})")]
    TooMany(usize),
    /// The colour page set could not be made from the configuration.
    #[error("colour pages: {0}")]
    Config(#[from] ConfigError),
}

/// Why a rasterizer could not produce a bitmap.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum RasterError {
    /// This rasterizer cannot produce the requested mode.
    #[error("render mode {0:?} is not supported by this rasterizer")]
    UnsupportedMode(RenderMode),
    /// The rasterizer panicked on this glyph; the panic was contained.
    #[error("rasterizer panicked on this glyph (contained)")]
    Panicked,
    /// The rasterizer could not read the font's bytes.
    #[error("the rasterizer could not read this font")]
    BadFont,
    /// The rasterizer returned a buffer whose length does not match its size.
    #[error("rasterizer returned {len} bytes for a {width}x{height} bitmap")]
    BadBitmap {
        /// Bitmap width.
        width: u32,
        /// Bitmap height.
        height: u32,
        /// Bytes returned.
        len: usize,
    },
}

/// Why a [`CacheConfig`](crate::CacheConfig) was refused.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum ConfigError {
    /// The page side is zero, or the texture-side limit is zero.
    #[error("page size must be at least 1 px (asked {page_size}, limit {limit})")]
    ZeroPageSize {
        /// The page size asked for.
        page_size: u32,
        /// The caller's texture-side limit.
        limit: u32,
    },
    /// No page allowed at all (max_pages 0, or a budget smaller than one page).
    #[error("the configuration allows no page: max_pages {max_pages}, memory budget {budget} bytes, one page {page_bytes} bytes")]
    NoPages {
        /// Configured page maximum.
        max_pages: u32,
        /// Configured budget in bytes.
        budget: u64,
        /// Bytes of one page.
        page_bytes: u64,
    },
    /// Padding at least as large as the page.
    #[error("padding {padding} px leaves no room in a {page} px page")]
    Padding {
        /// Configured padding.
        padding: u32,
        /// Page side.
        page: u32,
    },
    /// The maximum glyph size is not a positive finite number.
    #[error("max_glyph_px must be finite and > 0, got {0}")]
    MaxGlyphPx(f32),
    /// `subpixel_bins` outside 1..=MAX_SUBPIXEL_BINS.
    #[error("subpixel_bins must be 1 to 16, got {0}")]
    SubpixelBins(u32),
    /// [`UploadMode::DirtyRect`](crate::UploadMode::DirtyRect) with
    /// [`page_copies`](crate::CacheConfig::page_copies) false: a dirty box is
    /// cut from the page's CPU copy.
    #[error("UploadMode::DirtyRect needs the pages' CPU copies (page_copies is false)")]
    DirtyRectWithoutCopies,
    /// The colour page set's configuration was refused.
    #[error("colour pages: {0}")]
    Color(Box<ConfigError>),
}
