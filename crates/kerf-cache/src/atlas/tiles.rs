//! Glyphs larger than a page: cut into tiles of at most half a page, each a
//! slot of its own, placed, evicted and uploaded together as one cache entry.

use crate::atlas::entry::{GlyphEntry, GlyphTile, Slot, TILED_PAGE};
use crate::atlas::Atlas;
use crate::bitmap::GlyphImage;
use crate::error::GlyphError;
use crate::key::GlyphKey;
use std::time::Instant;

impl Atlas {
    /// Places a glyph larger than a page as tiles of at most
    /// [`Geometry::tile_side`](crate::atlas::geometry::Geometry::tile_side) texels, each in a slot of its own
    /// (evicting as for any glyph). If a tile finds no room, the tiles placed
    /// so far are freed and nothing is cached.
    pub(crate) fn place_tiled(
        &mut self, key: GlyphKey, image: &GlyphImage, entry: GlyphEntry,
    ) -> Result<GlyphEntry, GlyphError> {
        let t = self.geometry.tile_side();
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
                let b = self.format.bytes_per_texel() as usize;
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
