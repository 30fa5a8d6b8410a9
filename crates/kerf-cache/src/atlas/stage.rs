//! Staging: a placed glyph's texels go into its page's CPU copy and the
//! frame's upload staging (handed out at the end of the frame,
//! `Atlas::end_frame` in mod.rs); every page in full after a device loss.

use crate::atlas::page::PageUpload;
use crate::atlas::Atlas;
use crate::bitmap::GlyphImage;
use crate::config::UploadMode;
use kerf_pack::Rect;

impl Atlas {
    /// Writes a glyph's texels into its page's CPU copy and, in
    /// [`UploadMode::Glyphs`], into the frame's upload staging.
    pub(crate) fn stage(&mut self, page: u32, rect: Rect, image: &GlyphImage) {
        self.pages[page as usize].stage(rect.x, rect.y, image, self.config.padding);
        if self.config.uploads != UploadMode::DirtyRect {
            self.staging.push(page as usize, rect.x, rect.y, image.width, image.height);
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
}
