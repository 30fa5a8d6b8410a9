//! Staging: a placed glyph's texels go into its page's CPU copy and the
//! frame's upload staging; at the end of a frame the uploads are handed out
//! (the staged glyphs packed tightly, or one dirty box per page).

use crate::atlas::page::PageUpload;
use crate::atlas::upload::Upload;
use crate::atlas::Atlas;
use crate::bitmap::GlyphImage;
use crate::config::UploadMode;
use crate::counts::FrameCounts;
use kerf_pack::Rect;
use std::time::Instant;

/// What one atlas hands out at the end of a frame.
#[derive(Debug, Default)]
pub(crate) struct AtlasFrame {
    /// Pages after the frame.
    pub(crate) pages: u32,
    /// One per dirty page, in page order.
    pub(crate) uploads: Vec<Upload>,
    /// The frame's lookups, hits, evictions and degraded glyphs in this atlas.
    pub(crate) counts: FrameCounts,
}

impl Atlas {
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
                    atlas: self.format,
                    page: i as u32,
                    rect: r,
                    data: p.copy_rect(r),
                    regions: p.glyphs() as u32,
                    bytes_per_texel: p.bpp,
                }
            })
            .collect()
    }

    /// Ends the atlas's frame: the trim (with `release_idle_after`), then the
    /// uploads of everything staged since the last finished frame.
    pub(crate) fn end_frame(&mut self) -> AtlasFrame {
        if let Some(idle) = self.config.release_idle_after {
            self.trim(idle);
        }
        let t = Instant::now();
        let mut uploads = Vec::new();
        // Which pages go as their dirty box (one texture write): all in
        // DirtyRect, none in Glyphs; in Auto, a page whose new glyphs fill at
        // least a third of their bounding box (no scatter draw). The others
        // go glyph by glyph.
        let (mode, padding, atlas) = (self.config.uploads, self.config.padding, self.format);
        for i in 0..self.pages.len() {
            let boxed = match mode {
                UploadMode::DirtyRect => true,
                UploadMode::Glyphs => false,
                UploadMode::Auto => self.staging.is_dense(i, self.pages[i].dirty, padding),
            };
            let page = &mut self.pages[i];
            let boxed = if boxed { page.take_upload(i as u32, atlas) } else { None };
            page.dirty = None;
            page.dirty_regions = 0;
            let glyphs = self.staging.take_page(i, atlas, padding, boxed.is_some());
            let upload = boxed.map(Upload::Rect).or(glyphs.map(Upload::Glyphs));
            if let Some(u) = upload {
                self.stats.upload_calls += 1;
                self.stats.upload_regions += u.regions() as u64;
                self.stats.upload_bytes += u.upload_bytes();
                uploads.push(u);
            }
        }
        self.staging.finish();
        self.stats.stage_ns += t.elapsed().as_nanos() as u64;
        let s = &self.stats;
        let b = &self.frame_start;
        AtlasFrame {
            pages: self.pages.len() as u32,
            uploads,
            counts: FrameCounts {
                lookups: s.lookups - b.lookups,
                hits: s.hits - b.hits,
                evictions: s.evictions - b.evictions,
                degraded: s.degraded - b.degraded,
                ..FrameCounts::default()
            },
        }
    }
}
