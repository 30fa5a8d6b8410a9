//! Where `kerf profile` and `kerf soak` run their frames: the runner
//! interface, one frame's figures, and the kerf-cache-only runner (the
//! wgpu one is in gpu.rs).

use kerf_cache::{FrameCounts, GlyphCache, PositionedGlyph};
use std::time::Instant;

/// One frame's figures from a backend.
pub struct FrameResult {
    /// CPU time of the frame: cache lookups, rasterization, packing, staging
    /// (and for wgpu: texture writes and the instance buffer).
    pub ns: u64,
    /// The frame's lookups, hits, evictions and degraded glyphs.
    pub counts: FrameCounts,
    pub skipped: usize,
    pub upload_calls: u32,
    pub upload_bytes: u64,
    /// GPU time of the text pass (timestamp queries), when the device has them.
    pub gpu_ns: Option<u64>,
    /// Wall time from the submit to the GPU done (wgpu backend).
    pub done_ns: Option<u64>,
}

/// Where frames run: kerf-cache alone, or kerf-wgpu on a device.
pub trait Runner {
    fn cache(&self) -> &GlyphCache;
    fn cache_mut(&mut self) -> &mut GlyphCache;
    fn frame(&mut self, glyphs: &[PositionedGlyph]) -> Result<FrameResult, String>;
    /// Bytes of atlas texels held now (the cache's pages, or the GPU texture array).
    fn atlas_bytes(&self) -> u64;
}

/// Frames through kerf-cache alone.
pub struct CpuRunner {
    pub cache: GlyphCache,
    pub quads: Vec<kerf_cache::GlyphQuad>,
}

impl Runner for CpuRunner {
    fn cache(&self) -> &GlyphCache {
        &self.cache
    }
    fn cache_mut(&mut self) -> &mut GlyphCache {
        &mut self.cache
    }
    fn atlas_bytes(&self) -> u64 {
        self.cache.atlas_bytes()
    }
    fn frame(&mut self, glyphs: &[PositionedGlyph]) -> Result<FrameResult, String> {
        self.quads.clear();
        let t = Instant::now();
        let mut frame = self.cache.begin_frame();
        frame.prepare(glyphs, &mut self.quads);
        let out = frame.finish();
        let ns = t.elapsed().as_nanos() as u64;
        std::hint::black_box(&self.quads);
        Ok(FrameResult {
            ns,
            counts: out.counts,
            skipped: out.skipped.len(),
            upload_calls: out.uploads.len() as u32,
            upload_bytes: out.uploads.iter().map(|u| u.upload_bytes()).sum::<u64>(),
            gpu_ns: None,
            done_ns: None,
        })
    }
}
