//! Placing: a missed key's bitmap into the atlas — a slot found (evict.rs),
//! its texels staged (stage.rs), its entry put in the LRU map; a glyph larger
//! than a page goes in tiles (tiles.rs). [`Atlas::fill`] is the one miss path
//! of batch and single lookups: render, count, place.

use crate::atlas::entry::{GlyphEntry, Slot};
use crate::atlas::{Atlas, Render};
use crate::bitmap::GlyphImage;
use crate::error::GlyphError;
use crate::key::{GlyphKey, RenderMode};
use std::time::Instant;

impl Atlas {
    /// Renders `keys` (each once, in order) and places them: their entries,
    /// or why each could not be cached.
    pub(crate) fn fill(
        &mut self, keys: &[GlyphKey], render: &impl Render,
    ) -> Vec<Result<GlyphEntry, GlyphError>> {
        let t = Instant::now();
        let images = render.render(keys, self.geometry);
        self.stats.raster_ns += t.elapsed().as_nanos() as u64;
        for img in images.iter().flatten() {
            self.stats.rasterized += 1;
            self.stats.rasterized_bytes += img.pixels.len() as u64;
        }
        keys.iter()
            .zip(images)
            .map(|(key, image)| image.and_then(|i| self.place(*key, &i)))
            .collect()
    }

    /// Caches `image` as `key`'s bitmap: a slot on a page (evicting if
    /// needed), or tiles when it is larger than a page; a blank glyph gets
    /// an entry and no slot.
    pub(crate) fn place(
        &mut self, key: GlyphKey, image: &GlyphImage,
    ) -> Result<GlyphEntry, GlyphError> {
        let blank = image.width == 0 || image.height == 0;
        let side = self.geometry.side;
        let mut entry = GlyphEntry {
            page: 0,
            x: 0,
            y: 0,
            width: 0,
            height: 0,
            left: image.left,
            top: image.bottom.saturating_add(image.height as i32),
        };
        let mut alloc = None;
        if !blank {
            if image.width > side || image.height > side {
                if key.mode == RenderMode::Lcd {
                    // Tiles would cut pixels' texel triples apart.
                    return Err(GlyphError::TooLarge {
                        width: image.width,
                        height: image.height,
                        page: side,
                    });
                }
                self.geometry.check_fits(image.width, image.height)?;
                return self.place_tiled(key, image, entry);
            }
            let t = Instant::now();
            let placed = self.allocate(image.width, image.height);
            self.stats.pack_ns += t.elapsed().as_nanos() as u64;
            let (page, rect, id) = placed?;
            let t = Instant::now();
            self.stage(page, rect, image);
            self.stats.stage_ns += t.elapsed().as_nanos() as u64;
            // Page sides are at most MAX_PAGE_SIDE (2^14), so these fit u16.
            entry = GlyphEntry {
                page,
                x: rect.x as u16,
                y: rect.y as u16,
                width: rect.w as u16,
                height: rect.h as u16,
                ..entry
            };
            alloc = Some(id);
        }
        self.map.put(key, Slot { entry, alloc, last_used: self.frame });
        Ok(entry)
    }
}
