//! Glyphs larger than a page: cut into tiles of at most half a page, each a
//! slot of its own, placed, evicted and uploaded together as one cache entry.

use crate::cache::GlyphCache;
use crate::entry::{GlyphEntry, GlyphTile, Slot, TILED_PAGE};
use crate::error::GlyphError;
use crate::key::GlyphKey;
use crate::raster::GlyphImage;
use std::time::Instant;

impl GlyphCache {
    /// The side of the tiles a glyph larger than a page is cut into: half a
    /// page less the padding (two tiles and their padding fit a page's
    /// width), so tiles pack beside each other and other glyphs instead of
    /// each needing an empty page.
    pub(crate) fn tile_side(&self) -> u32 {
        let pad = self.config.padding;
        ((self.side + pad) / 2).saturating_sub(pad).max(1)
    }

    /// Whether a `w × h` bitmap can be cached at all: whole on a page, or in
    /// tiles (offsets within `u16`) that take at most the texels of every page
    /// the atlas may have. The one check glyphs (before rasterizing) and images
    /// (after rendering) and placement all use.
    pub(crate) fn check_fits(&self, w: u32, h: u32) -> Result<(), GlyphError> {
        let tiled = w > self.side || h > self.side;
        if tiled && (w > u16::MAX as u32 || h > u16::MAX as u32 || !self.tiles_could_fit(w, h)) {
            return Err(GlyphError::TooLarge { width: w, height: h, page: self.side });
        }
        Ok(())
    }

    /// True when the tiles of a `w × h` glyph, with their padding, take at
    /// most the texels of every page the atlas may have.
    fn tiles_could_fit(&self, w: u32, h: u32) -> bool {
        let t = self.tile_side() as u64;
        let pad = self.config.padding as u64;
        let (w, h) = (w as u64, h as u64);
        let area = (w + w.div_ceil(t) * pad) * (h + h.div_ceil(t) * pad);
        area <= self.page_limit as u64 * self.side as u64 * self.side as u64
    }

    /// Places a glyph larger than a page as tiles of at most
    /// [`tile_side`](Self::tile_side) texels, each in a slot of its own
    /// (evicting as for any glyph). If a tile finds no room, the tiles placed
    /// so far are freed and nothing is cached.
    pub(crate) fn place_tiled(
        &mut self, key: GlyphKey, image: &GlyphImage, entry: GlyphEntry,
    ) -> Result<GlyphEntry, GlyphError> {
        let t = self.tile_side();
        let (w, h) = (image.width, image.height);
        let mut tiles: Vec<GlyphTile> = Vec::new();
        for dy in (0..h).step_by(t as usize) {
            for dx in (0..w).step_by(t as usize) {
                let (tw, th) = (t.min(w - dx), t.min(h - dy));
                let started = Instant::now();
                let placed = self.allocate(tw, th);
                self.stats.pack_ns += started.elapsed().as_nanos() as u64;
                let (page, rect, alloc) = match placed {
                    Ok(p) => p,
                    Err(e) => {
                        for tile in &tiles {
                            if let Some(p) = self.pages.get_mut(tile.entry.page as usize) {
                                p.free(tile.alloc);
                            }
                        }
                        return Err(e);
                    }
                };
                let b = self.bpp as usize;
                let mut pixels = Vec::with_capacity((tw * th) as usize * b);
                for row in dy..dy + th {
                    let at = (row * w + dx) as usize * b;
                    pixels.extend_from_slice(&image.pixels[at..at + tw as usize * b]);
                }
                let started = Instant::now();
                self.stage(
                    page,
                    rect,
                    &GlyphImage { width: tw, height: th, left: 0, bottom: 0, pixels },
                );
                self.stats.stage_ns += started.elapsed().as_nanos() as u64;
                let tile_entry = GlyphEntry {
                    page,
                    x: rect.x as u16,
                    y: rect.y as u16,
                    width: tw as u16,
                    height: th as u16,
                    left: 0,
                    top: 0,
                };
                tiles.push(GlyphTile { entry: tile_entry, dx: dx as u16, dy: dy as u16, alloc });
            }
        }
        self.tiles.insert(key, tiles);
        let entry = GlyphEntry { page: TILED_PAGE, ..entry };
        self.map.put(key, Slot { entry, alloc: None, last_used: self.frame });
        Ok(entry)
    }
}
