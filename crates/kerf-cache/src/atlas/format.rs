//! The texel formats of kerf's atlases: what one texel holds, its size, and
//! the flags the quads drawn from it carry.

use crate::quad::QuadFlags;

/// What one texel of an atlas's pages holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TexelFormat {
    /// One byte of coverage (glyphs drawn in the request's colour; LCD
    /// glyphs use three texels a pixel).
    Coverage,
    /// Four bytes, straight sRGB RGBA (colour glyphs, RGBA images).
    Rgba,
}

impl TexelFormat {
    /// Bytes per texel: 1 or 4.
    pub fn bytes_per_texel(self) -> u32 {
        match self {
            TexelFormat::Coverage => 1,
            TexelFormat::Rgba => 4,
        }
    }

    /// The flags the quads of this format's pages carry:
    /// [`QuadFlags::COLOR`] for RGBA pages, none for coverage.
    #[inline]
    pub(crate) fn quad_flags(self) -> QuadFlags {
        match self {
            TexelFormat::Coverage => QuadFlags::NONE,
            TexelFormat::Rgba => QuadFlags::COLOR,
        }
    }
}
