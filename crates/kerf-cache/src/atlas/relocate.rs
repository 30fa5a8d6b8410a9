//! Relocation: glyphs on a page being emptied move to a lower page when next
//! used, their texels copied from the page's CPU copy (rasterized again only
//! where pages keep none, [`CacheConfig::page_copies`](crate::CacheConfig::page_copies)).

use crate::atlas::entry::GlyphEntry;
use crate::atlas::{Atlas, Render};
use crate::bitmap::GlyphImage;
use crate::key::GlyphKey;
use std::time::Instant;

impl Atlas {
    /// True when a glyph on page `page` must move before it is drawn.
    #[inline]
    pub(crate) fn must_move(&self, page: u32) -> bool {
        self.retiring.is_some_and(|r| page as usize >= r)
    }

    /// Moves a glyph off a retiring page: a slot on a kept page, its texels
    /// copied from the old page's CPU copy (no rasterizing; where pages keep
    /// no copy, `render` draws it again), the old slot freed. If no room is
    /// found (or the glyph cannot be drawn again as it was) the glyph stays
    /// where it is.
    pub(crate) fn relocate(&mut self, key: GlyphKey, render: &impl Render) -> GlyphEntry {
        let Some(slot) = self.map.peek(&key).copied() else { return GlyphEntry::BLANK };
        let (e, Some(old)) = (slot.entry, slot.alloc) else { return slot.entry };
        if !self.must_move(e.page) || e.page as usize >= self.pages.len() {
            return e;
        }
        let t = Instant::now();
        let placed = self.allocate(e.width as u32, e.height as u32);
        self.stats.pack_ns += t.elapsed().as_nanos() as u64;
        let Ok((p, rect, id)) = placed else { return e };
        if p == e.page {
            // Retiring was called off and the glyph landed on its own page: keep the old slot.
            let _ = self.pages[p as usize].packer.deallocate(id);
            return e;
        }
        // (Taken once a slot is found: allocating adds pages, never drops one.)
        let page = &self.pages[e.page as usize];
        let image = if page.has_copy() {
            GlyphImage {
                width: e.width as u32,
                height: e.height as u32,
                left: e.left,
                bottom: e.top - e.height as i32,
                pixels: page.copy_rect(e.rect()),
            }
        } else {
            // No copy: drawn again.
            let drawn = self.render_timed(&[key], render);
            self.count_rendered(&drawn);
            match drawn.into_iter().next() {
                Some(Ok(image))
                    if (image.width, image.height) == (e.width as u32, e.height as u32) =>
                {
                    image
                }
                // (The same key draws the same bitmap; from a rasterizer
                // that does not, the glyph stays where it was drawn first.)
                _ => {
                    let _ = self.pages[p as usize].packer.deallocate(id);
                    return e;
                }
            }
        };
        self.stage(p, rect, &image);
        if let Some(old_page) = self.pages.get_mut(e.page as usize) {
            old_page.free(old);
        }
        let moved = GlyphEntry { page: p, x: rect.x as u16, y: rect.y as u16, ..e };
        self.epoch += 1;
        // (The memo holds nothing on a retiring page: it was emptied when the
        // retirement began, and glyphs found there are not remembered. The
        // key is forgotten anyway, should that change.)
        self.memo.forget(&key, self.memo_epoch);
        if let Some(s) = self.map.peek_mut(&key) {
            s.entry = moved;
            s.alloc = Some(id);
        }
        self.stats.relocated += 1;
        moved
    }
}
