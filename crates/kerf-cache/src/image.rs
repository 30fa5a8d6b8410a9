//! The app's own images in the atlas (icons, rasterized SVG): an
//! [`ImageSource`] renders an image on a miss; the cache keeps, draws, evicts
//! and re-requests it exactly like a glyph.
//!
//! An image's [`GlyphKey`] has [`RenderMode::Image`]; its `font` field holds
//! the source (with the top bit set, so it never names a font) and the high
//! half of the image id, its `glyph` field the low half.

use crate::bitmap::GlyphImage;
use crate::key::{FontId, GlyphKey, GlyphSize, ImageSourceId, RenderMode};

/// The bit of a key's font id that marks an image key.
const IMAGE_BIT: u32 = 1 << 31;

/// The most image sources of each kind (coverage, RGBA) one cache holds
/// (the key has 15 bits for the source: one for the kind, 14 for the
/// index; the last coverage index is the cache's own solid texel, drawn by
/// decorations).
pub const MAX_IMAGE_SOURCES: usize = (1 << 14) - 1;

/// The cache's own coverage "image": a block of full coverage that
/// [`Decoration`](crate::Decoration) quads read ([`QuadFlags::SOLID`](crate::QuadFlags::SOLID)).
pub(crate) const SOLID_SOURCE: ImageSourceId = ImageSourceId(MAX_IMAGE_SOURCES as u16);

/// Renders the app's images on a cache miss. `Send + Sync` so a frame's
/// misses can be rendered in parallel.
///
/// `render` returns one byte of coverage per pixel (drawn in the request's
/// colour, like a glyph) — or, for a source added with
/// [`add_rgba_image_source`](crate::GlyphCache::add_rgba_image_source), four
/// bytes per pixel, straight (not premultiplied) sRGB RGBA, drawn as they are
/// (the request's colour only contributes its alpha) — and the image's
/// placement relative to the pen:
/// `left` from the pen x to the left edge, `bottom` from the baseline up to
/// the bottom edge (0 and 0 put the image's bottom-left corner on the pen).
/// Any size is accepted (images larger than a page are cut into tiles); an
/// error is reported for that image and the rest of the frame is drawn.
pub trait ImageSource: Send + Sync {
    /// The image `id` at `size_px` (the size the request asked for, in pixels:
    /// what it means, e.g. the icon's height, is the source's choice).
    fn render(&self, id: u32, size_px: f32) -> Result<GlyphImage, String>;
}

impl<F> ImageSource for F
where
    F: Fn(u32, f32) -> Result<GlyphImage, String> + Send + Sync,
{
    fn render(&self, id: u32, size_px: f32) -> Result<GlyphImage, String> {
        self(id, size_px)
    }
}

/// An image to draw: source, id and size, at a pen position (like
/// [`PositionedGlyph`](crate::PositionedGlyph); images are placed on whole
/// pixels).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PositionedImage {
    /// The source that renders it.
    pub source: ImageSourceId,
    /// The app's id of the image within the source.
    pub id: u32,
    /// The size asked of the source (quantised to 1/64 px like glyph sizes).
    pub size: f32,
    /// Pen x, target pixels.
    pub x: f32,
    /// Baseline y, target pixels (y down).
    pub y: f32,
    /// Straight sRGB colour, RGBA, the coverage is drawn in.
    pub color: [u8; 4],
}

impl GlyphKey {
    /// The key of image `id` of `source` at `size`.
    pub fn image(source: ImageSourceId, id: u32, size: GlyphSize) -> GlyphKey {
        GlyphKey {
            font: image_font(source, id),
            glyph: id as u16,
            size,
            mode: RenderMode::Image,
            subpixel_x: 0,
        }
    }

    /// True for the key of an RGBA image or a colour glyph (they live in
    /// the colour pages).
    pub fn is_color(&self) -> bool {
        self.mode == RenderMode::Color || self.image_parts().is_some_and(|(s, _)| s.is_rgba())
    }

    /// The source and image id of an image key; `None` for glyph keys.
    pub fn image_parts(&self) -> Option<(ImageSourceId, u32)> {
        if self.mode != RenderMode::Image || self.font.0 & IMAGE_BIT == 0 {
            return None;
        }
        let source = ImageSourceId(((self.font.0 >> 16) & 0x7fff) as u16);
        Some((source, (self.font.0 & 0xffff) << 16 | self.glyph as u32))
    }
}

/// The font field of a request for image `id` of `source` (see the module docs).
pub(crate) fn image_font(source: ImageSourceId, id: u32) -> FontId {
    FontId(IMAGE_BIT | (source.0 as u32) << 16 | id >> 16)
}

/// True when a request's font field names an image source.
#[inline]
pub(crate) fn is_image_font(font: FontId) -> bool {
    font.0 & IMAGE_BIT != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_keys_round_trip_and_never_collide_with_glyph_keys() {
        let size = GlyphSize::from_px(24.0, 100.0).unwrap();
        for (s, id) in
            [(0u16, 0u32), (1, 65_535), (7, 65_536), (32_767, u32::MAX), (12, 0xdead_beef)]
        {
            let k = GlyphKey::image(ImageSourceId(s), id, size);
            assert_eq!(k.image_parts(), Some((ImageSourceId(s), id)));
            assert!(is_image_font(k.font));
            assert_eq!(image_font(ImageSourceId(s), id), k.font);
        }
        let glyph = GlyphKey::new(FontId(3), 65_535, size);
        assert_eq!(glyph.image_parts(), None);
        assert!(!is_image_font(glyph.font));
    }
}
