//! Glyph keys: which font, which glyph, what size, which rendering.

/// Names a font loaded into a [`GlyphCache`](crate::GlyphCache).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FontId(pub(crate) u32);

impl FontId {
    /// The dense index of this font (0 for the first font loaded).
    pub fn index(self) -> u32 {
        self.0
    }
}

/// How a glyph is rasterized.
///
/// Pages hold one byte of coverage per texel. The cache asks for
/// `ShiftedCoverage` when [`CacheConfig::subpixel_bins`](crate::CacheConfig::subpixel_bins)
/// is above 1 and `Coverage` otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[non_exhaustive]
pub enum RenderMode {
    /// Grayscale coverage, one byte per pixel, outline at offset 0
    /// ([`GlyphKey::subpixel_x`] is 0): fontdue's own raster.
    #[default]
    Coverage,
    /// Grayscale coverage, one byte per pixel, outline moved right by
    /// [`GlyphKey::subpixel_x`]/256 px (any offset, 0 included). A lazy face
    /// or an instance has its outline moved and filled (exact area
    /// coverage); an eager face's offsets all come from fontdue's
    /// three-samples-per-pixel raster, resampled, so a glyph keeps its shape
    /// from bin to bin.
    ShiftedCoverage,
    /// Grayscale coverage at offset 0 (as [`Coverage`](Self::Coverage)) with
    /// a one-texel border of zeros on every side: for glyphs drawn with
    /// filtering (transformed text), so a sample at the bitmap's edge fades
    /// to nothing and never reads a neighbour's texels.
    Sampled,
    /// One of the app's images, rendered by its
    /// [`ImageSource`](crate::ImageSource) (coverage, drawn in the request's
    /// colour); see [`GlyphKey::image`].
    Image,
    /// LCD (sub-pixel) anti-aliasing: three coverage texels per pixel, for
    /// the left, middle and right third, shifted by
    /// [`GlyphKey::subpixel_x`] like [`ShiftedCoverage`](Self::ShiftedCoverage)
    /// and low-pass filtered; the bitmap's width counts texels (three per
    /// pixel) and its left bearing pixels. See [`QuadFlags::LCD`](crate::QuadFlags::LCD).
    Lcd,
    /// A colour glyph (emoji): straight sRGB RGBA from the font's colour
    /// data (COLR layers, CBDT or sbix bitmaps scaled to the size), in the
    /// colour pages, drawn untinted. Whole-pixel positioning
    /// ([`GlyphKey::subpixel_x`] is 0). Needs kerf-cache's `swash` feature.
    Color,
}

/// The number of size steps per pixel: sizes are quantised to 1/64 px.
pub const SIZE_STEPS_PER_PX: f32 = 64.0;

/// A glyph size quantised to 1/64 px, so equal-looking sizes share a cache entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GlyphSize(pub(crate) u32);

impl GlyphSize {
    /// Quantises `px` (pixels per em) to the nearest 1/64 px. `None` for NaN,
    /// infinities, sizes that quantise to 0, negative sizes and sizes above `max_px`.
    pub fn from_px(px: f32, max_px: f32) -> Option<GlyphSize> {
        if !(px.is_finite() && px > 0.0 && px <= max_px) {
            return None;
        }
        // Round half up by truncation (`px` is positive here): `f32::round`
        // is a libm call on baseline x86-64, and this runs for every glyph.
        let q = (px * SIZE_STEPS_PER_PX + 0.5) as u64;
        if q < 1 || q > u32::MAX as u64 {
            return None;
        }
        Some(GlyphSize(q as u32))
    }

    /// The size in pixels per em.
    pub fn px(self) -> f32 {
        self.0 as f32 / SIZE_STEPS_PER_PX
    }

    /// The raw quantised value, in 1/64 px.
    pub fn steps(self) -> u32 {
        self.0
    }
}

/// Everything that decides a glyph's bitmap; the cache's lookup key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct GlyphKey {
    /// The font.
    pub font: FontId,
    /// The glyph index inside the font (not a character: shapers give indices).
    pub glyph: u16,
    /// The quantised size.
    pub size: GlyphSize,
    /// How the glyph is rasterized.
    pub mode: RenderMode,
    /// Sub-pixel x offset of the outline, in 1/256 px (0..=255). The cache
    /// snaps pen positions to [`CacheConfig::subpixel_bins`](crate::CacheConfig::subpixel_bins)
    /// evenly spaced offsets per pixel, so with 4 bins this is 0, 64, 128 or
    /// 192; with 1 bin it is always 0 (whole-pixel positioning).
    pub subpixel_x: u8,
}

impl GlyphKey {
    /// A coverage key at sub-pixel bin 0.
    pub fn new(font: FontId, glyph: u16, size: GlyphSize) -> GlyphKey {
        GlyphKey { font, glyph, size, mode: RenderMode::Coverage, subpixel_x: 0 }
    }
}

impl std::hash::Hash for GlyphKey {
    /// All fields packed into one 128-bit write (one hasher round instead of
    /// one per field: every lookup hashes a key). Packing is one-to-one, so
    /// equal hashes input means equal keys.
    #[inline]
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        let a = ((self.font.0 as u64) << 32) | self.size.0 as u64;
        let b = ((self.glyph as u64) << 16) | ((self.mode as u64) << 8) | self.subpixel_x as u64;
        state.write_u128(((a as u128) << 64) | b as u128);
    }
}

/// A map by glyph key for the cache's own per-batch and per-glyph maps:
/// foldhash (seeded per map, the hasher the lru crate's map already uses)
/// instead of std's SipHash (3% of a pinch-zoom frame's app thread, on its
/// misses).
pub(crate) type KeyMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

/// A set of keys, hashed as [`KeyMap`]'s.
pub(crate) type KeySet<K> = std::collections::HashSet<K, foldhash::fast::RandomState>;

/// The bit of an [`ImageSourceId`] that marks an RGBA source.
pub(crate) const RGBA_SOURCE_BIT: u16 = 1 << 14;

/// Names an image source added with
/// [`GlyphCache::add_image_source`](crate::GlyphCache::add_image_source).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ImageSourceId(pub(crate) u16);

impl ImageSourceId {
    /// The id of source `index` of its kind (below [`MAX_IMAGE_SOURCES`](crate::limits::MAX_IMAGE_SOURCES)).
    pub(crate) fn new(index: u32, rgba: bool) -> ImageSourceId {
        ImageSourceId(index as u16 | if rgba { RGBA_SOURCE_BIT } else { 0 })
    }

    /// The dense index of this source among the sources of its kind (0 for
    /// the first one added).
    pub fn index(self) -> u32 {
        (self.0 & !RGBA_SOURCE_BIT) as u32
    }

    /// True for a source of RGBA images (drawn from the colour pages, not tinted).
    pub fn is_rgba(self) -> bool {
        self.0 & RGBA_SOURCE_BIT != 0
    }
}

/// Glyphs asked for in LCD anti-aliasing above this size (px per em) are
/// drawn in grayscale instead: colour fringes are invisible there and
/// three texels per pixel would triple their atlas space (browsers and Skia
/// stop LCD text at a similar size).
pub const LCD_MAX_PX: f32 = 64.0;
