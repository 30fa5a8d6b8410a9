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

/// How many keys an overlapped fill hands from rendering to placing at a
/// time (see [`Atlas::fill`]).
#[cfg(feature = "parallel")]
const CHUNK: usize = 16;

/// Whether a batch of `keys` misses is worth overlapping: at least two
/// chunks, and a second of `threads` to run them on. (Either answer places
/// the same; this is a cost choice.)
#[cfg(feature = "parallel")]
fn overlap_pays(keys: usize, threads: &crate::threads::Threads) -> bool {
    keys >= 2 * CHUNK && threads.count() > 1
}

impl Atlas {
    /// Renders `keys` (each once, in order) and places them: their entries,
    /// or why each could not be cached.
    ///
    /// With the `parallel` feature, a batch of at least two chunks
    /// ([`CHUNK`] keys) with more than one raster thread
    /// ([`CacheConfig::raster_threads`](crate::CacheConfig::raster_threads)) is rendered and
    /// placed at once, on those threads: one thread renders the chunks in order while another
    /// places each chunk rendered (packing is the larger half of a miss).
    /// Keys are placed in the same order either way, so the atlas ends the
    /// same.
    pub(crate) fn fill(
        &mut self, keys: &[GlyphKey], render: &impl Render,
    ) -> Vec<Result<GlyphEntry, GlyphError>> {
        #[cfg(feature = "parallel")]
        if overlap_pays(keys.len(), render.threads()) {
            // (On the cache's raster threads: the overlap's two sides and
            // the rendering's own parallel loop.)
            return render.threads().install(|| self.fill_overlapped(keys, render));
        }
        let images = self.render_timed(keys, render);
        self.place_all(keys, images)
    }

    /// `keys` rendered on this thread, the time counted
    /// ([`Stats::raster_ns`](crate::Stats::raster_ns)).
    pub(crate) fn render_timed(
        &mut self, keys: &[GlyphKey], render: &impl Render,
    ) -> Vec<Result<GlyphImage, GlyphError>> {
        let t = Instant::now();
        let images = render.render(keys, self.geometry);
        self.stats.raster_ns += t.elapsed().as_nanos() as u64;
        images
    }

    /// [`fill`](Self::fill) with rendering and placing overlapped. The
    /// channel is unbounded, so the rendering side never waits: where no
    /// other thread takes the placing side, rayon runs it after all the
    /// rendering, on this thread (the sequential order, no deadlock).
    #[cfg(feature = "parallel")]
    fn fill_overlapped(
        &mut self, keys: &[GlyphKey], render: &impl Render,
    ) -> Vec<Result<GlyphEntry, GlyphError>> {
        let geometry = self.geometry;
        let (tx, rx) = std::sync::mpsc::channel();
        let mut out = Vec::with_capacity(keys.len());
        let mut raster_ns = 0u64;
        rayon::join(
            move || {
                for chunk in keys.chunks(CHUNK) {
                    let t = Instant::now();
                    let images = render.render(chunk, geometry);
                    if tx.send((images, t.elapsed().as_nanos() as u64)).is_err() {
                        return;
                    }
                }
            },
            || {
                for (chunk, (images, ns)) in keys.chunks(CHUNK).zip(rx) {
                    raster_ns += ns;
                    out.extend(self.place_all(chunk, images));
                }
            },
        );
        // (The rendering thread's time: it overlapped the placing.)
        self.stats.raster_ns += raster_ns;
        out
    }

    /// Places each of `keys` from its rendered image, counting the images.
    fn place_all(
        &mut self, keys: &[GlyphKey], images: Vec<Result<GlyphImage, GlyphError>>,
    ) -> Vec<Result<GlyphEntry, GlyphError>> {
        self.count_rendered(&images);
        keys.iter()
            .zip(images)
            .map(|(key, image)| image.and_then(|i| self.place(*key, &i)))
            .collect()
    }

    /// Counts the bitmaps rendered ([`Stats::rasterized`](crate::Stats::rasterized)
    /// and their bytes).
    pub(crate) fn count_rendered(&mut self, images: &[Result<GlyphImage, GlyphError>]) {
        for img in images.iter().flatten() {
            self.stats.rasterized += 1;
            self.stats.rasterized_bytes += img.pixels.len() as u64;
        }
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

#[cfg(all(test, feature = "parallel"))]
mod tests {
    use super::CHUNK;
    use crate::atlas::Render;
    use crate::{CacheConfig, GlyphCache, GlyphKey, GlyphSize};

    /// Rendering on one thread while placing on another places every key
    /// where the sequential fill does, with the same texels, also when the
    /// page fills and glyphs are evicted or refused midway.
    #[test]
    fn an_overlapped_fill_places_what_the_sequential_fill_places() {
        for page_size in [512, 128] {
            let config = CacheConfig { page_size, max_pages: 1, ..CacheConfig::default() };
            let make = || {
                let mut c = GlyphCache::new(config.clone()).unwrap();
                let f = c.add_font(dejavu::sans::regular().to_vec()).unwrap();
                (c, f)
            };
            let ((mut a, f), (mut b, _)) = (make(), make());
            let keys: Vec<GlyphKey> = (0..150u16)
                .map(|i| {
                    let size = GlyphSize::from_px(12.0 + f32::from(i / 50) * 7.0, 1024.0).unwrap();
                    GlyphKey::new(f, 36 + i % 50, size)
                })
                .collect();
            assert!(keys.len() > 4 * CHUNK);
            let overlapped = a.coverage.fill_overlapped(&keys, &a.sources);
            let images = b.sources.render(&keys, b.coverage.geometry);
            let sequential = b.coverage.place_all(&keys, images);
            assert_eq!(overlapped, sequential, "page {page_size}");
            let placed = overlapped.iter().filter(|r| r.is_ok()).count();
            assert!(placed > 2 * CHUNK, "page {page_size}: {placed} placed");
            if page_size == 128 {
                assert!(placed < keys.len(), "the small page refused some");
            }
            for (pa, pb) in a.coverage.pages.iter().zip(&b.coverage.pages) {
                assert!(pa.pixels == pb.pixels, "page {page_size}: texels differ");
            }
            assert_eq!(a.coverage.stats.rasterized, b.coverage.stats.rasterized);
            assert!(a.coverage.stats.raster_ns > 0, "the rendering thread's time is counted");
            a.coverage.check_invariants().unwrap();
        }
    }
}
