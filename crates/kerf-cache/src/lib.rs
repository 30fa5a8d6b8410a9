//! kerf's glyph cache, without a GPU.
//!
//! An app says which glyphs to draw this frame; the cache looks each one up
//! and, on a miss, rasterizes it (fontdue by default, behind the
//! [`Rasterizer`](crate::rasterize::Rasterizer) trait), finds it a slot on an atlas page with a
//! [`kerf_pack`] packer (MaxRects-BSSF by default), evicting **and
//! deallocating** least-recently-used glyphs when pages are full, and stages
//! its pixels. At the end of the frame it hands out the new texels, per dirty
//! page: the box around the page's new glyphs when they fill at least a third of
//! it or it is small (a [`PageUpload`](crate::pages::PageUpload), one texture write), else the glyphs' texels packed
//! tightly ([`GlyphUploads`](crate::pages::GlyphUploads), one buffer write and a scatter draw; see
//! [`UploadMode`] for the fixed choices), and [`GlyphQuad`]s say where each glyph is
//! drawn and where its texels are. Nothing here knows about GPUs: `kerf-wgpu`
//! turns the uploads into texture writes and the quads into instances.
//!
//! ```
//! use kerf_cache::{CacheConfig, GlyphCache, TextSpec, pages::Upload};
//!
//! let mut cache = GlyphCache::new(CacheConfig { page_size: 256, ..CacheConfig::default() })?;
//! let font = cache.add_font(dejavu::sans::regular().to_vec())?;
//!
//! let mut quads = Vec::new();
//! let mut frame = cache.begin_frame();
//! frame.layout(&TextSpec::new("Hello, kerf!", font, 18.0).at(10.0, 10.0), &mut quads)?;
//! let out = frame.finish();
//!
//! assert_eq!(quads.len(), 11); // 12 characters, one of them a blank space
//! // Each distinct key staged once, on one page ("e" and "l" repeat at the
//! // same sub-pixel offsets), packed side by side: the page goes as one box.
//! assert_eq!(out.uploads.len(), 1);
//! assert!(matches!(out.uploads[0], Upload::Rect(_)));
//! assert_eq!(out.uploads[0].regions() as usize, cache.len() - 1); // less the space
//! assert!(out.skipped.is_empty());
//! cache.check_invariants()?;
//!
//! // The next frame finds every glyph cached and uploads nothing.
//! let mut frame = cache.begin_frame();
//! quads.clear();
//! frame.layout(&TextSpec::new("Hello, kerf!", font, 18.0).at(10.0, 10.0), &mut quads)?;
//! let out = frame.finish();
//! assert_eq!((out.counts.hits, out.counts.lookups), (12, 12));
//! assert!(out.uploads.is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Frames and eviction
//! Glyphs are looked up only through a [`Frame`] ([`GlyphCache::begin_frame`]),
//! so the cache always knows which frame uses what. A glyph used in frame `f`
//! is not evicted before frame `f + frames_in_flight + 1`. When a glyph does
//! not fit: a page with room is used; else a page is added while the page
//! limit and memory budget allow; else least-recently-used glyphs are evicted
//! and their slots deallocated until it fits (glyphs at passing sizes ask for
//! eviction before a new page: [`Frame::prefer_eviction`]). If every remaining glyph is in
//! use by frames in flight, the glyph is skipped and reported
//! ([`GlyphError::AtlasFull`]) — never a panic, never an eviction of a glyph
//! in use, and the rest of the frame is drawn.
//!
//! ## Glyphs larger than a page
//! A glyph whose bitmap is wider or taller than a page is cut into tiles of
//! at most half a page, each placed, evicted and uploaded like a glyph of its
//! own (under the same page limit and memory budget), and drawn as one quad
//! per tile, texel for pixel: a 600 px heading on 256 px pages is drawn.
//! Only a glyph whose tiles would need more texels than every page the budget
//! allows is refused, with [`GlyphError::TooLarge`], before it is rasterized
//! (reported as skipped in batch calls; kerf-wgpu draws such a glyph from a
//! smaller [`RenderMode::Sampled`] raster, sampled up).

#![warn(missing_docs)]
// No panics reachable from the public API: errors are typed results.
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::todo,
        clippy::unimplemented
    )
)]

mod atlas;
mod bitmap;
mod cache;
mod color;
mod config;
mod counts;
pub mod curves;
mod error;
mod font;
mod footprint;
mod frame;
mod image;
mod key;
mod layout;
mod output;
mod quad;
mod raster;
mod retain;
mod shape;
mod source;
mod stats;
mod subpixel;
mod text;
#[cfg(feature = "parallel")]
mod threads;

#[cfg(feature = "parley")]
pub use ::parley;
pub use atlas::entry::GlyphEntry;
pub use cache::{GlyphCache, StyledFont};
pub use config::{CacheConfig, ColorPages, UploadMode};
#[cfg(feature = "cosmic-text")]
pub use cosmic_text;
pub use counts::FrameCounts;
pub use error::{ConfigError, FontError, GlyphError, ImageSourceError, RasterError, StyleError};
pub use font::decoration::Decoration;
pub use font::effect::{Effects, Outline, Shadow};
pub use font::instance::FontStyle;
pub use footprint::Footprint;
pub use frame::Frame;
pub use image::{ImageSource, PositionedImage};
pub use kerf_pack::Algorithm;
pub use key::{FontId, GlyphKey, GlyphSize, ImageSourceId, RenderMode};
pub use output::FrameOutput;
pub use quad::{GlyphQuad, QuadFlags, COLOR_PAGE_BIT};
pub use retain::{GlyphRun, RetainedRun, Reuse};
#[cfg(feature = "cosmic-text")]
pub use shape::cosmic::CosmicFonts;
#[cfg(feature = "parley")]
pub use shape::parley_adapter::ParleyFonts;
pub use stats::Stats;
pub use text::{PositionedGlyph, Skipped, TextSpec};

/// Fonts and what is read from them: loaded faces, variable-font instances
/// and synthesis, line metrics for decorations, effect keys.
pub mod fonts {
    pub use crate::font::decoration::{DecorationKind, Decorations, LineMetrics};
    pub use crate::font::effect::GlyphEffect;
    pub use crate::font::instance::{
        embolden_px, tag_name, user_values, Instance, Resolved, Tag, SYNTHETIC_BOLD_MAX_FACE,
        SYNTHETIC_BOLD_MIN_WEIGHT, SYNTHETIC_OBLIQUE_DEGREES,
    };
    pub use crate::font::{ColorGlyphs, Font, FontLoading, FontRef, FontSet, SharedBytes};
}

/// Rasterizers: the [`Rasterizer`](rasterize::Rasterizer) trait, fontdue's
/// and swash's, the bitmap they make, and sub-pixel positioning.
pub mod rasterize {
    pub use crate::bitmap::GlyphImage;
    #[cfg(feature = "swash")]
    pub use crate::raster::swash::SwashRasterizer;
    pub use crate::raster::{FontdueRasterizer, Rasterizer};
    pub use crate::subpixel::{bin_offset, snap_subpixel};
}

/// Atlas pages and what a frame uploads from them: for a drawing side that
/// writes textures, and for tools that look inside the atlas.
pub mod pages {
    pub use crate::atlas::entry::GlyphTile;
    pub use crate::atlas::format::TexelFormat;
    pub use crate::atlas::page::{Page, PageUpload};
    pub use crate::atlas::upload::{GlyphRegion, GlyphUploads, Upload};
    pub use crate::atlas::Atlas;
    pub use crate::config::{UnknownUploadMode, SOFTWARE_WHOLE_BOX_BYTES, WHOLE_BOX_BYTES};
    pub use kerf_pack::Rect;
}

/// The fixed limits and steps of keys, pages and effects.
pub mod limits {
    pub use crate::config::{MAX_PAGE_SIDE, MAX_SUBPIXEL_BINS};
    pub use crate::font::effect::{EFFECT_STEPS_PER_PX, MAX_EFFECT_PX};
    pub use crate::font::EAGER_MAX_GLYPHS;
    pub use crate::image::MAX_IMAGE_SOURCES;
    pub use crate::key::{LCD_MAX_PX, SIZE_STEPS_PER_PX};
}
