//! What the cache keeps per glyph: where its texels are ([`GlyphEntry`]),
//! its slot in the LRU map, and the tiles of a glyph larger than a page.

use crate::quad::{GlyphQuad, QuadFlags};
use kerf_pack::{AllocId, Rect};

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
    /// ([`Atlas::tiles`](crate::pages::Atlas::tiles)).
    pub width: u16,
    /// Height in texels.
    pub height: u16,
    /// Offset from the pen x to the bitmap's left edge.
    pub left: i32,
    /// Offset from the baseline up to the bitmap's top edge.
    pub top: i32,
}

impl GlyphEntry {
    pub(crate) const BLANK: GlyphEntry =
        GlyphEntry { page: 0, x: 0, y: 0, width: 0, height: 0, left: 0, top: 0 };

    /// True for entries with no texels of their own: blank glyphs (space),
    /// and glyphs larger than a page (drawn from [`Atlas::tiles`](crate::pages::Atlas::tiles)).
    pub fn is_blank(&self) -> bool {
        self.width == 0 || self.height == 0
    }

    /// The glyph's texels in its page.
    pub fn rect(&self) -> Rect {
        Rect::new(self.x as u32, self.y as u32, self.width as u32, self.height as u32)
    }

    #[inline]
    pub(crate) fn quad(&self, x: i32, y: i32, color: [u8; 4]) -> GlyphQuad {
        GlyphQuad {
            x,
            y,
            tex_x: self.x,
            tex_y: self.y,
            width: self.width,
            height: self.height,
            page: self.page,
            color,
            flags: QuadFlags::NONE,
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Slot {
    pub(crate) entry: GlyphEntry,
    pub(crate) alloc: Option<AllocId>,
    pub(crate) last_used: u64,
}

impl Slot {
    /// A glyph larger than a page: its texels are in [`Atlas::tiles`](crate::pages::Atlas::tiles)
    /// (`entry` keeps only the bearings, its page is [`TILED_PAGE`]; `alloc`
    /// is `None`). A marker in the entry rather than a field keeps the slot,
    /// and so every LRU node, at 48 bytes.
    #[inline]
    pub(crate) fn tiled(&self) -> bool {
        self.entry.page == TILED_PAGE && self.entry.width == 0
    }
}

/// One tile of a glyph larger than a page: a slot of its own on some page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GlyphTile {
    /// Where the tile's texels are (`left`/`top` unused).
    pub entry: GlyphEntry,
    /// The tile's offset from the glyph bitmap's left edge, texels.
    pub dx: u16,
    /// The tile's offset from the glyph bitmap's top edge, texels.
    pub dy: u16,
    pub(crate) alloc: AllocId,
}

impl GlyphTile {
    /// The quad of this tile, for a glyph whose whole bitmap `base` places
    /// (its flags too).
    #[inline]
    pub(crate) fn quad(&self, base: &GlyphQuad) -> GlyphQuad {
        GlyphQuad {
            x: base.x.saturating_add(self.dx as i32),
            y: base.y.saturating_add(self.dy as i32),
            tex_x: self.entry.x,
            tex_y: self.entry.y,
            width: self.entry.width,
            height: self.entry.height,
            page: self.entry.page,
            color: base.color,
            flags: base.flags,
        }
    }
}

/// The page of a tiled glyph's own (texel-less) entry.
pub(crate) const TILED_PAGE: u32 = u32::MAX - 1;
