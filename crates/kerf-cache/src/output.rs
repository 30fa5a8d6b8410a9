//! What a frame hands back: the uploads to make before drawing (both
//! atlases, one list), what was skipped or missing, and the frame's counts.

use crate::atlas::format::TexelFormat;
use crate::atlas::upload::Upload;
use crate::text::Skipped;

/// What a frame produced: the uploads to make before drawing, and what was skipped.
#[derive(Clone, Debug, Default)]
pub struct FrameOutput {
    /// The frame's number (1 for the first frame).
    pub frame: u64,
    /// The new texels of both atlases, at most one [`Upload`] per dirty page
    /// (each says its atlas and page): coverage pages first, in page order,
    /// then colour pages. How a page goes ([`Upload::Rect`] or
    /// [`Upload::Glyphs`]) follows [`UploadMode`](crate::UploadMode).
    pub uploads: Vec<Upload>,
    /// Coverage pages after this frame (the GPU side grows its texture to match).
    pub pages: u32,
    /// Colour pages after this frame (0 until the colour atlas is made).
    pub color_pages: u32,
    /// Glyphs that were not drawn, with the reason.
    pub skipped: Vec<Skipped>,
    /// Characters of the frame's laid-out strings ([`Frame::layout`](crate::Frame::layout)) that no
    /// font (the spec's font and its fallback fonts) has: drawn as the
    /// font's missing-glyph box, never dropped silently. In text order.
    pub missing: Vec<char>,
    /// Glyph lookups in this frame (both atlases).
    pub lookups: u64,
    /// Lookups that found the glyph cached.
    pub hits: u64,
    /// Glyphs evicted (and their slots deallocated) during this frame.
    pub evictions: u64,
    /// Glyphs drawn degraded rather than skipped: the atlas had no room for
    /// the sub-pixel bin asked even after evicting every glyph it may, so
    /// the nearest bin of the same glyph already cached was drawn (at most
    /// half a pixel from the exact position with 2 bins, 3/8 px with 4).
    pub degraded: u64,
    /// Glyphs of font instances (variations, synthetic bold or oblique)
    /// rasterized as the face's default instance, because the cache's
    /// rasterizer draws no instances ([`Rasterizer::draws_instances`](crate::rasterize::Rasterizer::draws_instances)):
    /// drawn, but not as asked. Always 0 with kerf's own rasterizers.
    pub default_instance: u64,
    /// Variation axes the frame's laid-out strings asked of a font that
    /// lacks them ([`TextSpec::variations`](crate::TextSpec::variations)):
    /// ignored, counted once per font and string.
    pub ignored_axes: u64,
}

impl FrameOutput {
    /// The uploads of one atlas, in page order.
    pub fn uploads_of(&self, atlas: TexelFormat) -> impl Iterator<Item = &Upload> + '_ {
        self.uploads.iter().filter(move |u| u.atlas() == atlas)
    }
}
