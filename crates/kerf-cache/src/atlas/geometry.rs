//! An atlas's dimensions (page side, padding, page limit) and what they
//! allow: whether a bitmap can be cached at all, and the side of the tiles a
//! glyph larger than a page is cut into.

use crate::config::CacheConfig;
use crate::error::GlyphError;

/// The dimensions of one atlas's pages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Geometry {
    /// Page side, texels.
    pub(crate) side: u32,
    /// Texels kept empty around each glyph.
    pub(crate) padding: u32,
    /// The most pages the atlas may have.
    pub(crate) page_limit: u32,
}

impl Geometry {
    /// The pages `config` describes (page side, padding, page limit).
    pub(crate) fn of(config: &CacheConfig) -> Geometry {
        Geometry {
            side: config.page_side(),
            padding: config.padding,
            page_limit: config.page_limit(),
        }
    }

    /// The side of the tiles a glyph larger than a page is cut into: half a
    /// page less the padding (two tiles and their padding fit a page's
    /// width), so tiles pack beside each other and other glyphs instead of
    /// each needing an empty page.
    pub(crate) fn tile_side(&self) -> u32 {
        ((self.side + self.padding) / 2).saturating_sub(self.padding).max(1)
    }

    /// Whether a `w × h` bitmap can be cached at all: whole on a page, or in
    /// tiles (offsets within `u16`) that take at most the texels of every page
    /// the atlas may have. The one check glyphs (before rasterizing) and images
    /// (after rendering) and placement all use.
    pub(crate) fn check_fits(&self, w: u32, h: u32) -> Result<(), GlyphError> {
        let tiled = w > self.side || h > self.side;
        if tiled && (w > u16::MAX as u32 || h > u16::MAX as u32 || !self.tiles_could_fit(w, h)) {
            return Err(GlyphError::TooLarge { width: w, height: h, page: self.side });
        }
        Ok(())
    }

    /// True when the tiles of a `w × h` glyph, with their padding, take at
    /// most the texels of every page the atlas may have.
    fn tiles_could_fit(&self, w: u32, h: u32) -> bool {
        let t = self.tile_side() as u64;
        let pad = self.padding as u64;
        let (w, h) = (w as u64, h as u64);
        let area = (w + w.div_ceil(t) * pad) * (h + h.div_ceil(t) * pad);
        area <= self.page_limit as u64 * self.side as u64 * self.side as u64
    }
}
