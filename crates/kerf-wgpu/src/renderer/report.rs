//! What a renderer tells the app: the report of one `prepare` and the
//! bytes it holds between frames.

use crate::lcd_settings::GrayscaleReason;
use kerf_cache::{FrameCounts, Skipped};

/// What one `prepare` did.
#[derive(Clone, Debug, Default)]
pub struct PrepareReport {
    /// The cache frame number.
    pub frame: u64,
    /// Glyph instances to draw.
    pub instances: u32,
    /// What the prepare counted: lookups, hits, evictions, degraded glyphs,
    /// default-instance glyphs and ignored axes (the cache frame's
    /// [`FrameOutput::counts`](kerf_cache::FrameOutput::counts)). Add
    /// several renderers' with `+=`.
    pub counts: FrameCounts,
    /// Page writes made: scatter draws (per-glyph uploads) or `write_texture` calls (dirty rectangles), at most one per dirty page.
    pub upload_calls: u32,
    /// Bytes uploaded.
    pub upload_bytes: u64,
    /// Texture layers after this prepare.
    pub layers: u32,
    /// Draws [`render`](crate::TextRenderer::render) records for this prepare:
    /// the axis-aligned quads' runs of one kind (one draw for LCD text) and
    /// the transformed areas' draws, which consecutive areas of one kind of
    /// quad and one scissor rectangle share. Each costs the app's encoder,
    /// and a software rasterizer memory of its own.
    pub draws: u32,
    /// Glyphs that could not be drawn, and why (never a failed frame).
    pub skipped: Vec<Skipped>,
    /// Characters of the prepared strings that no font has (the spec's font
    /// and its fallback fonts, [`TextSpec::fallback`](kerf_cache::TextSpec::fallback)): drawn as the font's
    /// missing-glyph box, reported here in text order.
    pub missing: Vec<char>,
    /// With LCD anti-aliasing asked for ([`TextRenderer::set_antialiasing`](crate::TextRenderer::set_antialiasing)):
    /// the areas (by index) drawn in grayscale instead, and why. Empty with
    /// grayscale anti-aliasing.
    pub lcd_fallbacks: Vec<(usize, GrayscaleReason)>,
    /// Glyphs drawn from their outlines ([`OutlinePolicy`](crate::OutlinePolicy)).
    pub outlines: u32,
    /// Glyphs the outline policy sent to outlines that were drawn from
    /// bitmaps instead, by area index, and why (an effect layer, a colour
    /// glyph, synthetic bold, a full outline store). Never a failed frame.
    pub outline_fallbacks: Vec<(usize, kerf_cache::curves::OutlineError)>,
    /// Bytes of outline records written to the GPU (each glyph's outline
    /// once, whatever the sizes it is drawn at).
    pub outline_upload_bytes: u64,
}

/// What a [`TextRenderer`](crate::TextRenderer) holds between frames
/// ([`TextRenderer::footprint`](crate::TextRenderer::footprint)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RendererFootprint {
    /// Bytes of its GPU buffers.
    pub gpu_bytes: u64,
    /// Bytes reserved by its CPU buffers.
    pub cpu_bytes: usize,
    /// Areas it keeps a retained run and a stamp for (the most areas one
    /// `prepare` was given).
    pub areas: usize,
}
