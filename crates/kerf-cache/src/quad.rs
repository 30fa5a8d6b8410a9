//! What a frame hands the drawing side: one quad per glyph, its texels
//! and its colour.

/// One glyph to draw: where on the target, where in the atlas, which colour.
/// Blank glyphs (space) produce no quad.
///
/// `#[repr(C)]`, 28 bytes, no padding (`Pod` with the `bytemuck` feature).
/// How a GPU draws it is the drawing side's business: kerf-wgpu packs the
/// page and the flags into its own instance type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "bytemuck", derive(bytemuck::Pod, bytemuck::Zeroable))]
#[repr(C)]
pub struct GlyphQuad {
    /// Top-left corner on the target, whole pixels.
    pub x: i32,
    /// Top-left corner on the target, whole pixels (y down).
    pub y: i32,
    /// Left texel of the glyph in its page.
    pub tex_x: u16,
    /// Top texel of the glyph in its page.
    pub tex_y: u16,
    /// Width in texels (= pixels on the target at scale 1).
    pub width: u16,
    /// Height in texels.
    pub height: u16,
    /// The page (texture array layer) of the atlas `flags` names: a
    /// coverage page, or a colour page with [`QuadFlags::COLOR`].
    pub page: u32,
    /// Straight sRGB colour, RGBA.
    pub color: [u8; 4],
    /// What the texels are: coverage, an LCD raster, or colour.
    pub flags: QuadFlags,
}

/// What a [`GlyphQuad`]'s texels are. No flag: one coverage texel per pixel,
/// drawn in the quad's colour.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "bytemuck", derive(bytemuck::Pod, bytemuck::Zeroable))]
#[repr(transparent)]
pub struct QuadFlags(u32);

impl QuadFlags {
    /// Coverage texels, one per pixel.
    pub const NONE: QuadFlags = QuadFlags(0);
    /// The texels are on a colour page (RGBA, straight sRGB), drawn as they
    /// are (the quad's colour contributes only its alpha).
    pub const COLOR: QuadFlags = QuadFlags(1);
    /// The texels are an LCD raster: three coverage texels per pixel (left,
    /// middle, right third), so the quad is `width / 3` pixels wide.
    pub const LCD: QuadFlags = QuadFlags(2);
    /// A solid rectangle (a [`Decoration`](crate::Decoration)): `width ×
    /// height` pixels all at the coverage of the one texel at `(tex_x,
    /// tex_y)` (a full one the cache keeps), in the quad's colour. A drawing
    /// side reads that texel for every pixel (kerf-wgpu's vertex stage pins
    /// the texel coordinate), and a clip keeps the texel where it is.
    pub const SOLID: QuadFlags = QuadFlags(4);
    /// Inside a batch: a quad not filled yet (never handed out).
    pub(crate) const PLACEHOLDER: QuadFlags = QuadFlags(1 << 31);

    /// True when every flag of `other` is set here.
    #[inline]
    pub fn contains(self, other: QuadFlags) -> bool {
        self.0 & other.0 == other.0
    }

    /// The flags as bits (COLOR = 1, LCD = 2, SOLID = 4).
    #[inline]
    pub fn bits(self) -> u32 {
        self.0
    }
}

impl std::ops::BitOr for QuadFlags {
    type Output = QuadFlags;
    #[inline]
    fn bitor(self, other: QuadFlags) -> QuadFlags {
        QuadFlags(self.0 | other.0)
    }
}

impl GlyphQuad {
    /// Texels a pixel across: 3 for an LCD quad (one a colour stripe), else 1.
    /// The quad is `width / texels_per_px()` pixels wide.
    #[inline]
    pub fn texels_per_px(&self) -> u16 {
        if self.flags.contains(QuadFlags::LCD) {
            3
        } else {
            1
        }
    }

    /// Pixels across on the target: `width / texels_per_px()`, with a
    /// constant divisor (no division instruction for the common quad).
    #[inline]
    pub fn px_width(&self) -> u16 {
        if self.flags.contains(QuadFlags::LCD) {
            self.width / 3
        } else {
            self.width
        }
    }

    /// A quad not filled yet.
    pub(crate) const PLACEHOLDER: GlyphQuad = GlyphQuad {
        x: 0,
        y: 0,
        tex_x: 0,
        tex_y: 0,
        width: 0,
        height: 0,
        page: 0,
        color: [0; 4],
        flags: QuadFlags::PLACEHOLDER,
    };
}

/// Set in a colour glyph's or RGBA image's [`GlyphEntry::page`](crate::GlyphEntry::page)
/// (from [`GlyphCache::peek`](crate::GlyphCache::peek), [`Frame::image`](crate::Frame::image))
/// when its texels are on colour page `page & !COLOR_PAGE_BIT`.
pub const COLOR_PAGE_BIT: u32 = 1 << 30;

#[cfg(test)]
mod tests {
    use super::*;

    /// The bits are the documented ones (COLOR = 1, LCD = 2, SOLID = 4),
    /// and a union has both.
    #[test]
    fn flags_are_their_documented_bits() {
        assert_eq!(QuadFlags::default().bits(), 0);
        assert_eq!(QuadFlags::COLOR.bits(), 1);
        assert_eq!(QuadFlags::LCD.bits(), 2);
        assert_eq!(QuadFlags::SOLID.bits(), 4);
        let both = QuadFlags::COLOR | QuadFlags::SOLID;
        assert_eq!(both.bits(), 5);
        assert!(both.contains(QuadFlags::COLOR) && !both.contains(QuadFlags::LCD));
    }
}
