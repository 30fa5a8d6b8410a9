//! The bitmap a rasterizer makes: the vocabulary the atlas and the
//! rasterizers share, so neither imports the other.

/// A rasterized glyph: coverage bytes, row-major from the top-left, plus its
/// placement relative to the pen position on the baseline.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct GlyphImage {
    /// Bitmap width in pixels (0 for blank glyphs such as space).
    pub width: u32,
    /// Bitmap height in pixels.
    pub height: u32,
    /// Offset from the pen x to the bitmap's left edge, in whole pixels.
    pub left: i32,
    /// Offset from the baseline up to the bitmap's bottom edge (fontdue's `ymin`).
    pub bottom: i32,
    /// `width * height` coverage bytes.
    pub pixels: Vec<u8>,
}
