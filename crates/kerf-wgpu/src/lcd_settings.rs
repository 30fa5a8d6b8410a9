//! LCD (sub-pixel) anti-aliasing settings of a [`TextRenderer`](crate::TextRenderer).

/// The order of a display's colour stripes, left to right within a pixel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SubpixelOrder {
    /// Red, green, blue (most desktop monitors).
    Rgb,
    /// Blue, green, red.
    Bgr,
}

impl SubpixelOrder {
    /// True for [`Bgr`](Self::Bgr).
    pub fn is_bgr(self) -> bool {
        self == SubpixelOrder::Bgr
    }
}

/// How a renderer anti-aliases glyphs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Antialiasing {
    /// One coverage value per pixel, the same for every channel (the default;
    /// right on any background, rotated or scaled displays, and screenshots).
    #[default]
    Grayscale,
    /// LCD (sub-pixel) anti-aliasing: one coverage value per colour stripe,
    /// blended per channel with dual-source blending, for text over opaque
    /// pixels on a display with stripes in this order. Glyphs above
    /// [`kerf_cache::limits::LCD_MAX_PX`] stay grayscale.
    Lcd(SubpixelOrder),
}

/// Why text that was asked to be LCD anti-aliased was drawn in grayscale
/// (reported, not an error).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GrayscaleReason {
    /// The device lacks [`wgpu::Features::DUAL_SOURCE_BLENDING`] (e.g.
    /// WebGL2, or a device requested without it).
    NoDualSourceBlending,
    /// The area is marked as drawn over a transparent background
    /// ([`TextArea::over_transparent`](crate::TextArea::over_transparent)).
    TransparentBackground,
    /// The area is transformed: its glyphs are sampled with filtering, and
    /// stripes would not line up with the display's.
    Transformed,
    /// The area's size is moving ([`ZoomPolicy`](crate::ZoomPolicy)): drawn
    /// from size steps, sampled, until it rests.
    Zooming,
}
