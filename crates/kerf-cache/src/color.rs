//! The colour page set: RGBA8 pages beside the coverage pages, for the app's
//! RGBA images (and the colour glyphs to come). It is a second cache of its
//! own (pages, packers, budget, LRU, tiles, upload staging) with 4 bytes per
//! texel, run in step with the coverage cache: same frame numbers, same
//! eviction and frame protection rules, uploads handed out in the same
//! [`FrameOutput`](crate::FrameOutput) (its `color` part). Quads drawn from
//! it carry [`COLOR_PAGE_BIT`] in their page.

use crate::cache::{GlyphCache, GlyphEntry};
use crate::error::ImageSourceError;
use crate::image::{ImageSource, ImageSourceId, RGBA_SOURCE_BIT};
use crate::page::PageUpload;
use crate::raster::FontdueRasterizer;
use crate::upload::GlyphUploads;

/// Set in a [`GlyphQuad::page`](crate::GlyphQuad::page) (and a colour
/// [`GlyphEntry::page`]) when the texels are on colour page `page & !COLOR_PAGE_BIT`.
pub const COLOR_PAGE_BIT: u32 = 1 << 30;

/// What a frame changed in the colour pages.
#[derive(Clone, Debug, Default)]
pub struct ColorOutput {
    /// Colour pages after the frame (0 until the first RGBA image).
    pub pages: u32,
    /// Dirty rectangles, in [`UploadMode::DirtyRect`](crate::UploadMode::DirtyRect).
    pub uploads: Vec<PageUpload>,
    /// The staged images' texels (4 bytes each), in [`UploadMode::Glyphs`](crate::UploadMode::Glyphs).
    pub glyphs: GlyphUploads,
}

impl GlyphCache {
    /// Adds a source of RGBA images (icons with colour, rasterized SVG): like
    /// [`add_image_source`](Self::add_image_source), but the source returns
    /// four bytes per pixel (straight sRGB RGBA), the images live in the
    /// colour pages ([`CacheConfig::color`](crate::CacheConfig::color)) and
    /// are drawn without tint.
    pub fn add_rgba_image_source(&mut self, source: impl ImageSource + 'static) -> Result<ImageSourceId, ImageSourceError> {
        let set = match &mut self.color {
            Some(set) => set,
            None => {
                let mut set = GlyphCache::with_rasterizer(self.config.color_set(), Box::new(FontdueRasterizer))?;
                set.bpp = 4;
                set.frame = self.frame;
                self.color.insert(Box::new(set))
            }
        };
        let id = set.add_image_source(source)?;
        Ok(ImageSourceId(id.0 | RGBA_SOURCE_BIT))
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
        Some((ColorOutput { pages: out.pages, uploads: out.uploads, glyphs: out.glyphs }, out.lookups, out.hits, out.evictions))
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
