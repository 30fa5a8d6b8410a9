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
    /// [`UploadMode::Glyphs`] and [`UploadMode::Auto`], records it in the
    /// frame's upload staging (with its texels, for a page without a copy).
    pub(crate) fn stage(&mut self, page: u32, rect: Rect, image: &GlyphImage) {
        let p = &mut self.pages[page as usize];
        p.stage(rect.x, rect.y, image, self.config.padding);
        let texels = (!p.has_copy()).then_some((&image.pixels[..], p.bpp));
        if self.config.uploads != UploadMode::DirtyRect {
            let at = (rect.x, rect.y, image.width, image.height);
            self.staging.push(page as usize, at, texels);
        }
    }

    /// Uploads of every page in full (to rebuild a GPU atlas, e.g. after the
    /// device was lost). Pending dirty regions are kept for the next frame.
    /// Empty when the pages keep no CPU copies ([`CacheConfig::page_copies`](crate::CacheConfig::page_copies)):
    /// there is nothing to rebuild from; a backend [`clear`](crate::GlyphCache::clear)s
    /// the cache instead, and the glyphs are rasterized when next drawn.
    pub fn full_uploads(&self) -> Vec<PageUpload> {
        if !self.config.page_copies {
            return Vec::new();
        }
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
