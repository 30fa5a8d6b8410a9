//! Per-glyph uploads: the texels of the glyphs staged in a frame, packed
//! tightly into one byte buffer, with one small record per glyph saying where
//! it goes. A GPU backend writes the buffer once and scatters the glyphs into
//! their pages (kerf-wgpu: one draw per dirty page), so the bytes uploaded
//! follow the bytes rasterized instead of the dirty pages' bounding boxes.

use crate::atlas::format::TexelFormat;
use crate::atlas::page::{Page, PageUpload};
use kerf_pack::Rect;

/// Where one staged glyph goes: its texels are `width * height *
/// bytes_per_texel` bytes at `offset` in [`GlyphUploads::bytes`], rows back
/// to back.
///
/// `#[repr(C)]`, 12 bytes, no padding: with the `bytemuck` feature it is
/// `Pod`, and kerf-wgpu uploads the records as instances as they are.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "bytemuck", derive(bytemuck::Pod, bytemuck::Zeroable))]
#[repr(C)]
pub struct GlyphRegion {
    /// Left texel in the page.
    pub x: u16,
    /// Top texel in the page.
    pub y: u16,
    /// Width in texels.
    pub width: u16,
    /// Height in texels.
    pub height: u16,
    /// Byte offset of the first row in [`GlyphUploads::bytes`].
    pub offset: u32,
}

/// One page's new glyphs, glyph by glyph ([`UploadMode::Glyphs`](crate::UploadMode::Glyphs), and the
/// scattered pages of [`UploadMode::Auto`](crate::UploadMode::Auto)).
///
/// Each region's rectangle gets its texels, and the padding gutter to its
/// right and below it (`padding` texels, clipped to the page) gets zeros, as
/// on the cache's CPU copy of the page; nothing else in the page changes.
/// Regions are applied in order (a slot staged twice between two uploads
/// ends with the later glyph).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GlyphUploads {
    /// The atlas the page belongs to.
    pub atlas: TexelFormat,
    /// The page (texture array layer).
    pub page: u32,
    /// Clear the whole layer to 0 before the regions land (a new page that
    /// reuses a layer which may still hold a released page's texels).
    pub clear: bool,
    /// The staged glyphs' texels, tightly packed; empty when the cache
    /// does not copy them ([`CacheConfig::copy_glyph_texels`](crate::CacheConfig::copy_glyph_texels)
    /// false): [`texel_rows`](Self::texel_rows) then reads them from the
    /// page's CPU copy, which holds them until the cache's next frame.
    pub bytes: Vec<u8>,
    /// One per staged glyph, in staging order.
    pub regions: Vec<GlyphRegion>,
    /// The empty texels kept right of and below each glyph.
    pub padding: u32,
}

impl GlyphUploads {
    /// Size of one [`GlyphRegion`] record as uploaded.
    pub const REGION_BYTES: usize = std::mem::size_of::<GlyphRegion>();

    /// Bytes a backend uploads for this page: the texels plus one record per glyph.
    pub fn upload_bytes(&self) -> u64 {
        (self.texel_bytes() + self.regions.len() * Self::REGION_BYTES) as u64
    }

    /// Bytes the glyphs' texels take packed tightly ([`bytes`](Self::bytes)'
    /// length when the upload carries them): every region's `width *
    /// height * bytes_per_texel`.
    pub fn texel_bytes(&self) -> usize {
        let b = self.bytes_per_texel() as usize;
        self.regions.iter().map(|r| r.width as usize * r.height as usize * b).sum()
    }

    /// The glyphs' texels, row after row in region order: together the
    /// [`texel_bytes`](Self::texel_bytes) bytes each region's
    /// [`offset`](GlyphRegion::offset) points into. They are
    /// [`bytes`](Self::bytes) cut into rows when the upload carries them;
    /// else they are read from `page`, the CPU copy of the page this
    /// upload is for ([`Atlas::pages`](crate::pages::Atlas::pages)`[page]`), before the
    /// cache's next frame. A row `page` does not hold (another page was
    /// passed) is empty.
    pub fn texel_rows<'a>(&'a self, page: &'a Page) -> impl Iterator<Item = &'a [u8]> + 'a {
        let b = self.bytes_per_texel() as usize;
        let carried = !self.bytes.is_empty();
        let side = page.side as usize;
        self.regions.iter().flat_map(move |r| {
            let (x, y, w) = (r.x as usize, r.y as usize, r.width as usize * b);
            (0..r.height as usize).map(move |row| {
                let (src, at) = if carried {
                    (&self.bytes[..], r.offset as usize + row * w)
                } else {
                    (&page.pixels[..], ((y + row) * side + x) * b)
                };
                src.get(at..at + w).unwrap_or(&[])
            })
        })
    }

    /// Bytes per texel of the page: 1 (coverage) or 4 (RGBA).
    pub fn bytes_per_texel(&self) -> u32 {
        self.atlas.bytes_per_texel()
    }

    /// Applies the regions to the page's texels, `side × side` row-major
    /// (the same writes a GPU backend makes; for tests and CPU mirrors). An
    /// upload without its texels ([`CacheConfig::copy_glyph_texels`](crate::CacheConfig::copy_glyph_texels)
    /// false) writes nothing: its texels are the page's own.
    pub fn apply_to(&self, dst: &mut [u8], side: u32) {
        if self.bytes.is_empty() && self.texel_bytes() > 0 {
            return;
        }
        let side = side as usize;
        let b = self.bytes_per_texel() as usize;
        if self.clear {
            dst.fill(0);
        }
        for r in &self.regions {
            let (x, y, w, h) = (r.x as usize, r.y as usize, r.width as usize, r.height as usize);
            let cw = (w + self.padding as usize).min(side.saturating_sub(x));
            let ch = (h + self.padding as usize).min(side.saturating_sub(y));
            for row in 0..ch {
                let at = ((y + row) * side + x) * b;
                let Some(line) = dst.get_mut(at..at + cw * b) else { continue };
                line.fill(0);
                if row < h {
                    let src = r.offset as usize + row * w * b;
                    if let Some(texels) = self.bytes.get(src..src + w * b) {
                        line[..w * b].copy_from_slice(texels);
                    }
                }
            }
        }
    }
}

/// One page's new texels: a backend matches this one enum for both atlases.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Upload {
    /// The box around the page's new glyphs, cut from its CPU copy: one
    /// texture write.
    Rect(PageUpload),
    /// The page's new glyphs, texels packed tightly: written with the
    /// frame's other glyph uploads in one buffer write, scattered into the
    /// page with one draw.
    Glyphs(GlyphUploads),
}

impl Upload {
    /// The atlas of the page written.
    pub fn atlas(&self) -> TexelFormat {
        match self {
            Upload::Rect(u) => u.atlas,
            Upload::Glyphs(g) => g.atlas,
        }
    }

    /// The page (texture array layer) written.
    pub fn page(&self) -> u32 {
        match self {
            Upload::Rect(u) => u.page,
            Upload::Glyphs(g) => g.page,
        }
    }

    /// The glyphs staged into it.
    pub fn regions(&self) -> u32 {
        match self {
            Upload::Rect(u) => u.regions,
            Upload::Glyphs(g) => g.regions.len() as u32,
        }
    }

    /// Bytes a backend uploads for it.
    pub fn upload_bytes(&self) -> u64 {
        match self {
            Upload::Rect(u) => u.bytes(),
            Upload::Glyphs(g) => g.upload_bytes(),
        }
    }

    /// Applies it to the page's texels, `side × side` row-major (for tests
    /// and CPU mirrors; a box without its texels writes nothing, see
    /// [`PageUpload::apply_to`](crate::pages::PageUpload::apply_to)).
    pub fn apply_to(&self, dst: &mut [u8], side: u32) {
        match self {
            Upload::Rect(u) => u.apply_to(dst, side),
            Upload::Glyphs(g) => g.apply_to(dst, side),
        }
    }
}

/// What the cache collects between uploads in [`UploadMode::Glyphs`](crate::UploadMode::Glyphs) and
/// [`UploadMode::Auto`](crate::UploadMode::Auto): where each glyph staged
/// since went. Its texels are read from the page's CPU copy when the page's
/// upload is made (the copy holds them already: no second copy of a
/// frame's new texels is kept, which a burst of misses made megabytes);
/// a page without a copy ([`CacheConfig::page_copies`](crate::CacheConfig::page_copies))
/// has them kept here, packed, as they are staged.
#[derive(Debug, Default)]
pub(crate) struct Staging {
    pages: Vec<PageStaging>,
}

/// One page's staging.
#[derive(Debug, Default)]
struct PageStaging {
    /// Its regions since the last upload (offsets set when it is made).
    regions: Vec<GlyphRegion>,
    /// Clear the page before they land.
    clear: bool,
    /// Their texels, packed, for a page without a CPU copy.
    texels: Vec<u8>,
}

impl Staging {
    /// Bytes reserved between frames: the region lists. (A page's kept
    /// texels leave with its upload: none are held between frames.)
    pub(crate) fn capacity(&self) -> usize {
        let region = std::mem::size_of::<GlyphRegion>();
        self.pages.iter().map(|p| p.regions.capacity() * region).sum()
    }

    /// Page `page`'s staging, made if new.
    fn page(&mut self, page: usize) -> &mut PageStaging {
        if self.pages.len() <= page {
            self.pages.resize_with(page + 1, Default::default);
        }
        &mut self.pages[page]
    }

    /// Records a glyph of `w × h` texels staged at `(x, y)` on `page`; with
    /// `texels` (a page without a CPU copy), keeps them too: the first `w ×
    /// h × bytes a texel` bytes of them (zeros where they are short).
    pub(crate) fn push(
        &mut self, page: usize, (x, y, w, h): (u32, u32, u32, u32), texels: Option<(&[u8], u32)>,
    ) {
        let staged = self.page(page);
        // Page sides are at most MAX_PAGE_SIDE (2^14): the fields fit u16.
        // The offset is set when the upload is made.
        staged.regions.push(GlyphRegion {
            x: x as u16,
            y: y as u16,
            width: w as u16,
            height: h as u16,
            offset: 0,
        });
        if let Some((texels, b)) = texels {
            let n = w as usize * h as usize * b as usize;
            let have = texels.len().min(n);
            staged.texels.extend_from_slice(&texels[..have]);
            staged.texels.resize(staged.texels.len() + n - have, 0);
        }
    }

    /// Marks `page` to be cleared before its regions land, dropping any
    /// regions recorded for it before.
    pub(crate) fn clear_page(&mut self, page: usize) {
        *self.page(page) = PageStaging { clear: true, ..PageStaging::default() };
    }

    /// Forgets pages from `len` on (released pages: nothing left to upload).
    pub(crate) fn truncate(&mut self, len: usize) {
        self.pages.truncate(len);
    }

    /// True when one write of `dirty`, the bounding box of `page`'s staged
    /// glyphs, beats a scatter of the glyphs: the page is not to be cleared
    /// first, and the box is small (at most `small` bytes of `texel_bytes`
    /// texels: a texture write that size costs less than a scatter pass, and
    /// needs no scatter pipeline, which a driver compiles at its first draw)
    /// or dense (the glyphs, with their padding gutters, cover at least a
    /// third of it).
    pub(crate) fn box_is_cheaper(
        &self, page: usize, dirty: Option<Rect>, padding: u32, texel_bytes: u64, small: u64,
    ) -> bool {
        let (Some(PageStaging { regions, clear: false, .. }), Some(d)) =
            (self.pages.get(page), dirty)
        else {
            return false;
        };
        if regions.is_empty() {
            return false;
        }
        let area = d.w as u64 * d.h as u64;
        if area * texel_bytes <= small {
            return true;
        }
        let covered: u64 = regions
            .iter()
            .map(|r| (r.width as u64 + padding as u64) * (r.height as u64 + padding as u64))
            .sum();
        3 * covered >= area
    }

    /// The glyph uploads of page `page` (`None` when nothing is staged or
    /// to clear there), each region's texels read from `texels`, the page's
    /// CPU copy (where the glyph was written when it was staged; a region a
    /// later glyph of the same frame overlaps takes what the page holds
    /// now, as the texture must), or, for a page without one, the texels
    /// kept here (the upload carries them); its staging starts empty again.
    /// With `skip`, the page went another way (a dirty box): its staging is
    /// only dropped.
    pub(crate) fn take_page(
        &mut self, page: usize, texels: &Page, atlas: TexelFormat, padding: u32, skip: bool,
        copy: bool,
    ) -> Option<GlyphUploads> {
        let staged = self.pages.get_mut(page)?;
        if skip || (staged.regions.is_empty() && !staged.clear) {
            staged.regions.clear();
            staged.texels.clear();
            staged.clear = false;
            return None;
        }
        // Offsets into the packed texels, region after region.
        let b = atlas.bytes_per_texel() as usize;
        let mut packed = 0usize;
        let own = staged.regions.drain(..).map(|r| {
            let offset = packed as u32;
            packed += r.width as usize * r.height as usize * b;
            GlyphRegion { offset, ..r }
        });
        let regions = own.collect();
        let clear = std::mem::take(&mut staged.clear);
        let kept = std::mem::take(&mut staged.texels);
        let mut up =
            GlyphUploads { atlas, page: page as u32, clear, bytes: Vec::new(), regions, padding };
        if !texels.has_copy() {
            up.bytes = kept;
        } else if copy {
            // The rows a backend would read from the page, packed.
            let mut bytes = Vec::with_capacity(packed);
            up.texel_rows(texels).for_each(|row| bytes.extend_from_slice(row));
            up.bytes = bytes;
        }
        Some(up)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bitmap::GlyphImage;

    /// A blank page of `side²` texels of `bpp` bytes.
    fn page(side: u32, bpp: u32) -> Page {
        let packer = kerf_pack::Algorithm::default()
            .build(side, side, kerf_pack::PackerOptions::default())
            .unwrap();
        Page::new(packer, side, bpp, true)
    }

    /// Writes `texels` (`w × h`) into `page` at `(x, y)` with a gutter of
    /// one texel, and stages the region, as the atlas does.
    fn stage(
        staging: &mut Staging, page: &mut Page, (x, y, w, h): (u32, u32, u32, u32), texels: &[u8],
    ) {
        let image = GlyphImage { width: w, height: h, left: 0, bottom: 0, pixels: texels.to_vec() };
        page.stage(x, y, &image, 1);
        staging.push(0, (x, y, w, h), None);
    }

    /// Staged RGBA glyphs come out tightly packed and land four bytes a
    /// texel at their places, each with its cleared gutter.
    #[test]
    fn rgba_regions_land_four_bytes_a_texel() {
        let mut staging = Staging::default();
        let side = 8usize;
        let mut texels = page(side as u32, 4);
        let a: Vec<u8> = (1..=24).collect(); // 3 × 2 texels
        let b: Vec<u8> = (101..=108).collect(); // 1 × 2
        stage(&mut staging, &mut texels, (1, 1, 3, 2), &a);
        stage(&mut staging, &mut texels, (5, 4, 1, 2), &b);
        let region = std::mem::size_of::<GlyphRegion>();
        assert!(staging.capacity() >= 2 * region && staging.capacity() % region == 0);
        let up = staging.take_page(0, &texels, TexelFormat::Rgba, 1, false, true).unwrap();
        assert_eq!(up.bytes.len(), 24 + 8, "the texels packed tightly");
        // The region list is kept for the next frame, counted in the footprint.
        assert!(staging.capacity() >= 2 * region);
        let mut dst = vec![7u8; side * side * 4];
        up.apply_to(&mut dst, side as u32);
        let texel = |x: usize, y: usize| &dst[(y * side + x) * 4..(y * side + x) * 4 + 4];
        for (x0, y0, w, h, src) in [(1, 1, 3, 2, &a), (5, 4, 1, 2, &b)] {
            for y in 0..=h {
                for x in 0..=w {
                    let want: &[u8] = if x < w && y < h {
                        &src[(y * w + x) * 4..(y * w + x) * 4 + 4]
                    } else {
                        &[0; 4] // the gutter
                    };
                    assert_eq!(texel(x0 + x, y0 + y), want, "({}, {})", x0 + x, y0 + y);
                }
            }
        }
        assert_eq!(texel(0, 0), &[7; 4], "nothing else written");
    }

    /// RGBA glyphs staged without their texels copied come out with the
    /// same regions and offsets, no bytes, the packed length counted four
    /// bytes a texel, and rows read from the page that are the texels
    /// staged (written out here by hand); 12 bytes a record on top.
    #[test]
    fn rgba_rows_not_copied_are_read_from_the_page_four_bytes_a_texel() {
        let (a, b): (Vec<u8>, Vec<u8>) = ((1..=24).collect(), (101..=108).collect());
        let take = |copy: bool| {
            let (mut staging, mut texels) = (Staging::default(), page(8, 4));
            stage(&mut staging, &mut texels, (1, 1, 3, 2), &a);
            stage(&mut staging, &mut texels, (5, 4, 1, 2), &b);
            let up = staging.take_page(0, &texels, TexelFormat::Rgba, 1, false, copy).unwrap();
            (up, texels)
        };
        let ((copied, _), (borrowed, texels)) = (take(true), take(false));
        assert_eq!(borrowed.regions, copied.regions);
        assert_eq!(borrowed.regions.iter().map(|r| r.offset).collect::<Vec<_>>(), [0, 24]);
        assert!(borrowed.bytes.is_empty());
        assert_eq!((borrowed.texel_bytes(), copied.texel_bytes()), (32, 32));
        assert_eq!((borrowed.upload_bytes(), copied.upload_bytes()), (56, 56));
        let rows: Vec<&[u8]> = borrowed.texel_rows(&texels).collect();
        let want: [&[u8]; 4] = [&a[..12], &a[12..], &b[..4], &b[4..]];
        assert_eq!(rows, want);
        assert_eq!(copied.texel_rows(&page(8, 4)).collect::<Vec<_>>(), want);
        // A layer only to clear (a reused page with nothing new yet) is
        // cleared by a mirror too; with glyphs but no texels, left alone.
        let mut dst = vec![9u8; 8 * 8 * 4];
        borrowed.apply_to(&mut dst, 8);
        assert!(dst.iter().all(|&t| t == 9));
        let clear = GlyphUploads { clear: true, regions: Vec::new(), ..borrowed };
        clear.apply_to(&mut dst, 8);
        assert!(dst.iter().all(|&t| t == 0));
    }

    /// A page without a CPU copy: the staging keeps each glyph's texels,
    /// four bytes a texel on an RGBA page (a short bitmap padded with
    /// zeros), and hands them out packed in the upload, its offsets the
    /// same as a copying page's; the page holds nothing.
    #[test]
    fn rgba_texels_of_a_page_without_a_copy_go_up_in_the_upload() {
        let (a, b): (Vec<u8>, Vec<u8>) = ((1..=24).collect(), (101..=106).collect());
        let packer = kerf_pack::Algorithm::default()
            .build(8, 8, kerf_pack::PackerOptions::default())
            .unwrap();
        let mut bare = Page::new(packer, 8, 4, false);
        let mut staging = Staging::default();
        for (at, texels) in [((1, 1, 3, 2), &a), ((5, 4, 1, 2), &b)] {
            let image = GlyphImage {
                width: at.2,
                height: at.3,
                left: 0,
                bottom: 0,
                pixels: texels.clone(),
            };
            bare.stage(at.0, at.1, &image, 1);
            staging.push(0, at, Some((texels, 4)));
        }
        assert!(!bare.has_copy() && bare.pixels().is_empty());
        let up = staging.take_page(0, &bare, TexelFormat::Rgba, 1, false, false).unwrap();
        let mut want = a.clone();
        want.extend(&b);
        want.extend([0, 0]);
        assert_eq!(up.bytes, want, "b is two bytes short of 1 × 2 texels");
        assert_eq!(up.regions.iter().map(|r| r.offset).collect::<Vec<_>>(), [0, 24]);
        assert_eq!((up.texel_bytes(), up.upload_bytes()), (32, 56));
        // Handed out: nothing staged is left for the next upload.
        assert!(staging.take_page(0, &bare, TexelFormat::Rgba, 1, false, false).is_none());
    }

    /// A box is cheaper when the staged glyphs (with gutters) cover a third
    /// of the dirty box or more (two glyphs at opposite corners of a page
    /// do not), or when the box is small; never with nothing staged.
    #[test]
    fn a_box_is_cheaper_when_dense_or_small() {
        let mut staging = Staging::default();
        staging.push(0, (0, 0, 4, 4), None);
        staging.push(0, (60, 60, 4, 4), None);
        let dense = |s: &Staging, r: Option<Rect>| s.box_is_cheaper(0, r, 1, 1, 0);
        assert!(!dense(&staging, Some(Rect::new(0, 0, 65, 65))));
        // 2 × 25 texels of 5 × 5 gutters against a 10 × 15 box: exactly a third.
        assert!(dense(&staging, Some(Rect::new(0, 0, 10, 15))));
        assert!(!dense(&staging, Some(Rect::new(0, 0, 10, 16))));
        assert!(
            !dense(&staging, None)
                && !staging.box_is_cheaper(3, Some(Rect::new(0, 0, 1, 1)), 1, 1, 0)
        );
        // Small: 65 × 65 texels of 1 byte, or of 4, against the limit.
        let sparse = Some(Rect::new(0, 0, 65, 65));
        assert!(staging.box_is_cheaper(0, sparse, 1, 1, 65 * 65));
        assert!(!staging.box_is_cheaper(0, sparse, 1, 1, 65 * 65 - 1));
        assert!(!staging.box_is_cheaper(0, sparse, 1, 4, 65 * 65));
        assert!(staging.box_is_cheaper(0, sparse, 1, 4, 4 * 65 * 65));
        // Nothing staged: no box, however small.
        assert!(!Staging::default().box_is_cheaper(0, Some(Rect::new(0, 0, 1, 1)), 1, 1, 1 << 20));
    }
}
