//! Atlas pages: one packer, a CPU copy of the page's texels, and the region
//! changed since the last upload.

use crate::atlas::format::TexelFormat;
use crate::bitmap::GlyphImage;
use kerf_pack::{AllocId, Packer, Rect};

/// One texture page of the atlas (one layer of the GPU texture array).
///
/// The page keeps a CPU copy of its texels unless the cache is configured
/// without ([`CacheConfig::page_copies`](crate::CacheConfig::page_copies)).
/// That copy is what the dirty-rectangle uploads are cut from
/// ([`UploadMode::DirtyRect`](crate::UploadMode)), what glyphs moved off a
/// retiring page are copied from, and lets a GPU atlas be rebuilt without
/// rasterizing any glyph again.
pub struct Page {
    pub(crate) packer: Box<dyn Packer + Send + Sync>,
    pub(crate) pixels: Vec<u8>,
    pub(crate) side: u32,
    /// Bytes per texel: 1 (coverage) or 4 (RGBA colour pages).
    pub(crate) bpp: u32,
    pub(crate) dirty: Option<Rect>,
    pub(crate) dirty_regions: u32,
    /// Smallest request known not to fit since the last deallocation.
    pub(crate) fail: Option<(u32, u32)>,
    /// The frame since which the page holds no glyph.
    pub(crate) empty_since: Option<u64>,
}

impl Page {
    /// A blank page; with `copy`, its CPU copy (zeroed).
    pub(crate) fn new(
        packer: Box<dyn Packer + Send + Sync>, side: u32, bpp: u32, copy: bool,
    ) -> Page {
        let texels = if copy { side as usize * side as usize * bpp as usize } else { 0 };
        let pixels = vec![0; texels];
        Page {
            packer,
            pixels,
            side,
            bpp,
            dirty: None,
            dirty_regions: 0,
            fail: None,
            empty_since: None,
        }
    }

    /// Bytes per texel: 1 for coverage pages, 4 (straight sRGB RGBA) for colour pages.
    pub fn bytes_per_texel(&self) -> u32 {
        self.bpp
    }

    /// The page's side in texels (pages are square).
    pub fn side(&self) -> u32 {
        self.side
    }

    /// Live glyph area over page area.
    pub fn occupancy(&self) -> f64 {
        self.packer.occupancy()
    }

    /// Number of glyphs with texels on this page.
    pub fn glyphs(&self) -> usize {
        self.packer.len()
    }

    /// The page's texels, row-major, `side * side * bytes_per_texel` bytes;
    /// empty when the cache keeps no CPU copies ([`CacheConfig::page_copies`](crate::CacheConfig::page_copies)).
    pub fn pixels(&self) -> &[u8] {
        &self.pixels
    }

    /// The packer's free space (for pictures and checks).
    pub fn free_rects(&self) -> Vec<Rect> {
        self.packer.free_rects()
    }

    /// The region written since the last upload, if any.
    pub fn dirty(&self) -> Option<Rect> {
        self.dirty
    }

    /// True when a `w × h` request is known not to fit (no space was freed
    /// since a request at most this large failed).
    pub(crate) fn known_full(&self, w: u32, h: u32) -> bool {
        matches!(self.fail, Some((fw, fh)) if w >= fw && h >= fh)
    }

    /// Frees a glyph's slot; anything may fit again. The id came from this
    /// page's packer and was live, so this cannot fail unless the cache is
    /// corrupt, which `check_invariants` reports.
    pub(crate) fn free(&mut self, id: AllocId) {
        let _ = self.packer.deallocate(id);
        self.fail = None;
    }

    /// Frees every slot.
    pub(crate) fn clear(&mut self) {
        self.packer.clear();
        self.fail = None;
    }

    pub(crate) fn note_failure(&mut self, w: u32, h: u32) {
        self.fail = Some(match self.fail {
            Some((fw, fh)) if fw <= w && fh <= h => (fw, fh),
            _ => (w, h),
        });
    }

    /// Whether the page keeps a CPU copy of its texels ([`pixels`](Self::pixels)).
    pub fn has_copy(&self) -> bool {
        !self.pixels.is_empty()
    }

    /// Writes a glyph at `(x, y)` into the CPU copy (if the page keeps one),
    /// clearing the padding gutter on its right and bottom (inside the page)
    /// so no stale texels touch it there, and grows the dirty region.
    pub(crate) fn stage(&mut self, x: u32, y: u32, image: &GlyphImage, padding: u32) {
        let (side, b) = (self.side as usize, self.bpp as usize);
        let (x0, y0) = (x as usize, y as usize);
        let (w, h) = (image.width as usize, image.height as usize);
        let cw = (w + padding as usize).min(side - x0);
        let ch = (h + padding as usize).min(side - y0);
        let copied = if self.has_copy() { ch } else { 0 };
        for row in 0..copied {
            let start = ((y0 + row) * side + x0) * b;
            let dst = &mut self.pixels[start..start + cw * b];
            if row < h {
                dst[..w * b].copy_from_slice(&image.pixels[row * w * b..(row + 1) * w * b]);
                dst[w * b..].fill(0);
            } else {
                dst.fill(0);
            }
        }
        let r = Rect::new(x, y, cw as u32, ch as u32);
        self.dirty = Some(match self.dirty {
            Some(d) => union(d, r),
            None => r,
        });
        self.dirty_regions += 1;
    }

    /// Takes the dirty region and, with `copy`, its texels (tightly packed
    /// rows; without, `data` is empty: the texels are the page's).
    pub(crate) fn take_upload(
        &mut self, index: u32, atlas: TexelFormat, copy: bool,
    ) -> Option<PageUpload> {
        let r = self.dirty.take()?;
        let regions = std::mem::take(&mut self.dirty_regions);
        Some(PageUpload {
            atlas,
            page: index,
            rect: r,
            data: if copy { self.copy_rect(r) } else { Vec::new() },
            regions,
            bytes_per_texel: self.bpp,
        })
    }

    /// The texels of `r`, tightly packed rows (empty without a CPU copy).
    pub(crate) fn copy_rect(&self, r: Rect) -> Vec<u8> {
        if !self.has_copy() {
            return Vec::new();
        }
        let (side, b) = (self.side as usize, self.bpp as usize);
        let mut data = Vec::with_capacity(r.w as usize * r.h as usize * b);
        for row in r.y as usize..(r.y + r.h) as usize {
            let start = (row * side + r.x as usize) * b;
            data.extend_from_slice(&self.pixels[start..start + r.w as usize * b]);
        }
        data
    }
}

impl std::fmt::Debug for Page {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Page")
            .field("side", &self.side)
            .field("glyphs", &self.packer.len())
            .field("occupancy", &self.packer.occupancy())
            .field("dirty", &self.dirty)
            .finish()
    }
}

fn union(a: Rect, b: Rect) -> Rect {
    let x0 = a.x.min(b.x);
    let y0 = a.y.min(b.y);
    let x1 = (a.x + a.w).max(b.x + b.w);
    let y1 = (a.y + a.h).max(b.y + b.h);
    Rect::new(x0, y0, x1 - x0, y1 - y0)
}

/// One upload: a rectangle of one page and its texels, to be written with a
/// single texture write. The cache produces at most one per dirty page per frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageUpload {
    /// The atlas the page belongs to.
    pub atlas: TexelFormat,
    /// The page (texture array layer).
    pub page: u32,
    /// The region of the page to write, in texels. It bounds every glyph
    /// staged on the page since the last upload; texels inside it that belong
    /// to no new glyph are the page's current contents, so writing the whole
    /// rectangle is always correct.
    pub rect: Rect,
    /// `rect.w * rect.h * bytes_per_texel` bytes, rows tightly packed; empty
    /// when the cache does not copy boxes ([`CacheConfig::copy_boxes`](crate::CacheConfig::copy_boxes)
    /// false): the texels are then the page's own ([`Page::pixels`]), as
    /// they are until the cache's next frame.
    pub data: Vec<u8>,
    /// Number of glyphs staged into this region (coalesced into this one upload).
    pub regions: u32,
    /// 1 for coverage pages, 4 for colour pages.
    pub bytes_per_texel: u32,
}

impl PageUpload {
    /// Bytes the rectangle's texels take (`data`'s length when it carries
    /// them).
    pub fn bytes(&self) -> u64 {
        u64::from(self.rect.w) * u64::from(self.rect.h) * u64::from(self.bytes_per_texel.max(1))
    }

    /// Writes `data` into the page's texels, `side × side` row-major (the
    /// write a GPU backend makes; for tests and CPU mirrors). An upload
    /// without its texels ([`CacheConfig::copy_boxes`](crate::CacheConfig::copy_boxes)
    /// false) writes nothing: its texels are the page's own.
    pub fn apply_to(&self, dst: &mut [u8], side: u32) {
        let (side, b) = (side as usize, self.bytes_per_texel.max(1) as usize);
        let (x, w) = (self.rect.x as usize, self.rect.w as usize);
        for row in 0..self.rect.h as usize {
            let at = ((self.rect.y as usize + row) * side + x) * b;
            let src = self.data.get(row * w * b..(row + 1) * w * b).unwrap_or(&[]);
            if let Some(line) = dst.get_mut(at..at + src.len()) {
                line.copy_from_slice(src);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A box of RGBA texels lands at its place, four bytes a texel, and
    /// touches nothing else.
    #[test]
    fn an_rgba_box_is_written_four_bytes_a_texel() {
        let side = 8u32;
        let (w, h) = (3usize, 2usize);
        let data: Vec<u8> = (1..=(w * h * 4) as u8).collect();
        let up = PageUpload {
            atlas: TexelFormat::Rgba,
            page: 0,
            rect: Rect::new(2, 5, w as u32, h as u32),
            data: data.clone(),
            regions: 1,
            bytes_per_texel: 4,
        };
        // What it uploads: its texels, counted from its rectangle (as a box
        // without its texels counts them), four bytes a texel.
        assert_eq!(up.bytes(), data.len() as u64);
        assert_eq!(PageUpload { data: Vec::new(), ..up.clone() }.bytes(), 24);
        let mut dst = vec![0u8; (side * side * 4) as usize];
        up.apply_to(&mut dst, side);
        for y in 0..side as usize {
            for x in 0..side as usize {
                let at = (y * side as usize + x) * 4;
                let inside = (2..2 + w).contains(&x) && (5..5 + h).contains(&y);
                let want: &[u8] = if inside {
                    let i = ((y - 5) * w + (x - 2)) * 4;
                    &data[i..i + 4]
                } else {
                    &[0; 4]
                };
                assert_eq!(&dst[at..at + 4], want, "texel ({x}, {y})");
            }
        }
    }
}
