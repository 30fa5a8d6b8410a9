//! A glyph request inside a batch: what the app asked for (font, glyph,
//! size, position, colour) and what its position means, read either from
//! kerf's own request buffer or from the app's positioned glyphs in place.

use crate::atlas::entry::GlyphEntry;
use crate::key::FontId;
use crate::quad::GlyphQuad;
use crate::subpixel::{round_half_away, snap_subpixel};
use crate::text::PositionedGlyph;

/// What a request's `(x, y)` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Anchor {
    /// The pen position on the baseline (positioned glyphs).
    Pen,
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
            Anchor::ImagePen => (round_half_away(self.x), 0),
            Anchor::Pen => snap_subpixel(self.x, bins),
        }
    }

    /// The quad drawing `e` where this request asks; `whole_x` from [`snap`](Self::snap).
    #[inline]
    pub(crate) fn quad(&self, e: &GlyphEntry, whole_x: i32) -> GlyphQuad {
        let (x, y) = match self.anchor {
            Anchor::Pen | Anchor::ImagePen => {
                (whole_x.saturating_add(e.left), round_half_away(self.y).saturating_sub(e.top))
            }
        };
        e.quad(x, y, self.color)
    }
}
