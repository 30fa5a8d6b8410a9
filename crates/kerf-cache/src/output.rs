//! What a frame hands back: the uploads to make before drawing (both
//! atlases, one list), what was skipped or missing, and the frame's counts.

use crate::atlas::format::TexelFormat;
use crate::atlas::upload::Upload;
use crate::counts::FrameCounts;
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
    /// What the frame counted: lookups, hits, evictions, degraded glyphs,
    /// default-instance glyphs and ignored axes.
    pub counts: FrameCounts,
}

impl FrameOutput {
    /// The uploads of one atlas, in page order.
    pub fn uploads_of(&self, atlas: TexelFormat) -> impl Iterator<Item = &Upload> + '_ {
        self.uploads.iter().filter(move |u| u.atlas() == atlas)
    }
}
