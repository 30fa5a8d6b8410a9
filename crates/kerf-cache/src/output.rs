//! What a frame hands back: the uploads to make before drawing (coverage
//! and colour pages), what was skipped or missing, and the frame's counts.

use crate::page::PageUpload;
use crate::text::Skipped;
use crate::upload::GlyphUploads;

/// What a frame produced: the uploads to make before drawing, and what was skipped.
#[derive(Clone, Debug, Default)]
pub struct FrameOutput {
    /// The frame's number (1 for the first frame).
    pub frame: u64,
    /// In [`UploadMode::DirtyRect`](crate::UploadMode::DirtyRect): at most one upload per dirty page, in
    /// page order (empty in [`UploadMode::Glyphs`](crate::UploadMode::Glyphs)).
    pub uploads: Vec<PageUpload>,
    /// In [`UploadMode::Glyphs`](crate::UploadMode::Glyphs): every glyph staged since the last finished
    /// frame, texels packed tightly (empty in [`UploadMode::DirtyRect`](crate::UploadMode::DirtyRect)).
    pub glyphs: GlyphUploads,
    /// Pages in the atlas after this frame (the GPU side grows its texture to match).
    pub pages: u32,
    /// Glyphs that were not drawn, with the reason.
    pub skipped: Vec<Skipped>,
    /// Characters of the frame's laid-out strings ([`Frame::layout`](crate::Frame::layout)) that no
    /// font (the spec's font and its fallback fonts) has: drawn as the
    /// font's missing-glyph box, never dropped silently. In text order.
    pub missing: Vec<char>,
    /// Glyph lookups in this frame.
    pub lookups: u64,
    /// Lookups that found the glyph cached.
    pub hits: u64,
    /// Glyphs evicted (and their slots deallocated) during this frame.
    pub evictions: u64,
    /// The colour pages' part: their count and uploads (empty until the
    /// first RGBA image). Lookups, hits, evictions and skipped above include
    /// the colour pages'.
    pub color: ColorOutput,
}

/// What a frame changed in the colour pages.
#[derive(Clone, Debug, Default)]
pub struct ColorOutput {
    /// Colour pages after the frame (0 until the first RGBA image).
    pub pages: u32,
    /// Dirty rectangles, in [`UploadMode::DirtyRect`](crate::UploadMode::DirtyRect).
    pub uploads: Vec<PageUpload>,
    /// The staged images' texels (4 bytes each), in [`UploadMode::Glyphs`](crate::UploadMode::Glyphs).
    pub glyphs: GlyphUploads,
}
