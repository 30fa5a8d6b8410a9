//! Staging: a placed glyph's texels go into its page's CPU copy and the
//! frame's upload staging; at the end of a frame the uploads are handed out
//! (the staged glyphs packed tightly, or one dirty box per page).

use crate::cache::GlyphCache;
use crate::output::FrameOutput;
use crate::page::PageUpload;
use crate::raster::GlyphImage;
use crate::upload::{GlyphUploads, UploadMode};
use kerf_pack::Rect;
use std::time::Instant;

impl GlyphCache {
    /// Writes a glyph's texels into its page's CPU copy and, in
    /// [`UploadMode::Glyphs`], into the frame's upload staging.
    pub(crate) fn stage(&mut self, page: u32, rect: Rect, image: &GlyphImage) {
        self.pages[page as usize].stage(rect.x, rect.y, image, self.config.padding);
        if self.config.uploads != UploadMode::DirtyRect {
            self.staging.push(
                page as usize,
                rect.x,
                rect.y,
                image.width,
                image.height,
                &image.pixels,
            );
        }
    }

    /// Uploads of every page in full (to rebuild a GPU atlas, e.g. after the
    /// device was lost). Pending dirty regions are kept for the next frame.
    pub fn full_uploads(&self) -> Vec<PageUpload> {
        self.pages
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let r = Rect::new(0, 0, p.side, p.side);
                PageUpload {
                    page: i as u32,
                    rect: r,
                    data: p.copy_rect(r),
                    regions: p.glyphs() as u32,
                    bytes_per_texel: p.bpp,
                }
            })
            .collect()
    }

    pub(crate) fn end_frame(&mut self) -> FrameOutput {
        if let Some(idle) = self.config.release_idle_after {
            self.trim(idle);
        }
        let t = Instant::now();
        let mut uploads = Vec::new();
        let mut glyphs = GlyphUploads::default();
        // Which pages go as their dirty box (one texture write): all in
        // DirtyRect, none in Glyphs; in Auto, a page whose new glyphs fill at
        // least a third of their bounding box (no scatter draw). The others
        // go glyph by glyph.
        let mode = self.config.uploads;
        let boxed: Vec<bool> = (0..self.pages.len())
            .map(|i| match mode {
                UploadMode::DirtyRect => true,
                UploadMode::Glyphs => false,
                UploadMode::Auto => {
                    self.staging.is_dense(i, self.pages[i].dirty, self.config.padding)
                }
            })
            .collect();
        for (i, page) in self.pages.iter_mut().enumerate() {
            if boxed[i] {
                if let Some(u) = page.take_upload(i as u32) {
                    self.stats.upload_calls += 1;
                    self.stats.upload_regions += u.regions as u64;
                    self.stats.upload_bytes += u.data.len() as u64;
                    uploads.push(u);
                }
            }
            page.dirty = None;
            page.dirty_regions = 0;
        }
        if mode != UploadMode::DirtyRect {
            glyphs = self.staging.take(self.config.padding, self.bpp, &boxed);
            self.stats.upload_calls += glyphs.pages.len() as u64;
            self.stats.upload_regions += glyphs.regions.len() as u64;
            self.stats.upload_bytes += glyphs.upload_bytes();
        }
        self.stats.stage_ns += t.elapsed().as_nanos() as u64;
        let color = self.end_color_frame();
        let s = &self.stats;
        let b = &self.frame_start;
        let mut out = FrameOutput {
            frame: self.frame,
            uploads,
            glyphs,
            pages: self.pages.len() as u32,
            skipped: std::mem::take(&mut self.pending_skipped),
            missing: std::mem::take(&mut self.pending_missing),
            lookups: s.lookups - b.lookups,
            hits: s.hits - b.hits,
            evictions: s.evictions - b.evictions,
            color: Default::default(),
        };
        if let Some((part, lookups, hits, evictions)) = color {
            out.color = part;
            out.lookups += lookups;
            out.hits += hits;
            out.evictions += evictions;
        }
        out
    }
}
