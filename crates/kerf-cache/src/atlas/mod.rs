//! An atlas: the pages of one texel format and everything that decides what
//! is on them — one packer per page, the page budget, the LRU map of cached
//! glyphs and the key memo in front of it, eviction with frame protection,
//! upload staging, glyphs in tiles and the retiring of a last page.
//!
//! A [`GlyphCache`](crate::GlyphCache) has a coverage atlas (1 byte a texel)
//! and, made on first use, a colour atlas (4 bytes a texel) for colour glyphs
//! and RGBA images. Both follow the same rules; they differ only in their
//! [`TexelFormat`] and configuration. An atlas knows nothing of fonts: the
//! texels of its misses come from a [`Render`] (the cache's fonts, rasterizer
//! and image sources). This file holds the atlas and its frame's lifecycle
//! (`start_frame`, `end_frame`: the trim and the frame's uploads). Its parts
//! are types of their own: the key memo (memo.rs), the record of uses not
//! yet in the LRU map (recency.rs, `Uses`), upload staging (upload.rs,
//! `Staging`), the sub-pixel bins under pressure (bins.rs, `Bins`). Lookup is
//! in lookup.rs, placing in place.rs, finding room and evicting in evict.rs,
//! moving glyphs off a retiring page in relocate.rs, writing texels into a
//! page in stage.rs, tiles in tiles.rs.

pub(crate) mod bins;
pub(crate) mod entry;
pub(crate) mod evict;
pub(crate) mod format;
pub(crate) mod geometry;
pub(crate) mod lookup;
pub(crate) mod memo;
pub(crate) mod page;
pub(crate) mod place;
pub(crate) mod recency;
pub(crate) mod relocate;
pub(crate) mod request;
pub(crate) mod stage;
pub(crate) mod tiles;
pub(crate) mod upload;

use crate::atlas::bins::Bins;
use crate::atlas::entry::{GlyphEntry, GlyphTile, Slot};
use crate::atlas::format::TexelFormat;
use crate::atlas::geometry::Geometry;
use crate::atlas::memo::KeyMemo;
use crate::atlas::page::Page;
use crate::atlas::recency::Uses;
use crate::atlas::upload::{Staging, Upload};
use crate::bitmap::GlyphImage;
use crate::config::{CacheConfig, UploadMode, WHOLE_BOX_BYTES};
use crate::counts::FrameCounts;
use crate::error::GlyphError;
use crate::key::{GlyphKey, KeyMap};
use crate::stats::Stats;
use kerf_pack::Rect;
use lru::LruCache;
use std::time::Instant;

/// What an atlas asks for the texels of its missed keys.
pub(crate) trait Render: Sync {
    /// The bitmaps of `keys`, in order, each checked against `geometry`
    /// (what the atlas can hold) before any work is done for it.
    fn render(&self, keys: &[GlyphKey], geometry: Geometry) -> Vec<Result<GlyphImage, GlyphError>>;

    /// The threads it rasterizes on (with the `parallel` feature): a
    /// batch's rendering and placing overlap there.
    #[cfg(feature = "parallel")]
    fn threads(&self) -> &crate::threads::Threads;
}

/// The pages of one texel format, with their packers, LRU map, eviction,
/// staging and tiles. Read-only from outside the cache:
/// [`GlyphCache::coverage_pages`](crate::GlyphCache::coverage_pages),
/// [`GlyphCache::color_pages`](crate::GlyphCache::color_pages).
pub struct Atlas {
    pub(crate) config: CacheConfig,
    pub(crate) format: TexelFormat,
    pub(crate) geometry: Geometry,
    pub(crate) pages: Vec<Page>,
    /// The most pages the atlas ever had (a page added below this index
    /// reuses a texture layer that holds old texels).
    pub(crate) pages_ever: usize,
    /// Pages from this index on are being emptied: no new glyph goes there,
    /// and glyphs looked up there move to a lower page.
    pub(crate) retiring: Option<usize>,
    pub(crate) map: LruCache<GlyphKey, Slot>,
    /// The tiles of every cached glyph larger than a page.
    pub(crate) tiles: KeyMap<GlyphKey, Vec<GlyphTile>>,
    /// Keys recent batches found in the map (see memo.rs).
    pub(crate) memo: KeyMemo,
    /// Uses not yet written into the map: the memo's and retained runs'
    /// (see recency.rs).
    pub(crate) uses: Uses,
    /// Bumped whenever an entry leaves the map or moves (eviction,
    /// relocation, clear, a page starting to retire): retained runs
    /// recorded before are looked up again.
    pub(crate) epoch: u64,
    /// The memo's epoch: bumped by a clear and a page starting to retire.
    /// An eviction or a relocation forgets only its key in the memo (a
    /// churning atlas evicts every frame; when each eviction emptied the
    /// whole memo, every glyph of the next batch went to the map).
    pub(crate) memo_epoch: u64,
    /// The frame in which eviction last found every glyph protected (no
    /// eviction can succeed again in that frame).
    pub(crate) all_protected: Option<u64>,
    /// Misses take room from unprotected least-recently-used glyphs before
    /// a page is added ([`Frame::prefer_eviction`](crate::Frame::prefer_eviction));
    /// off at every frame's start.
    pub(crate) evict_first: bool,
    pub(crate) staging: Staging,
    /// The frame the atlas's lookups belong to (the cache's frame number).
    pub(crate) frame: u64,
    pub(crate) stats: Stats,
    /// The stats when the current frame (or continued batch) began.
    pub(crate) frame_start: Stats,
    /// Reused buffer of a batch's requests the memo did not hold (quad slot, request).
    pub(crate) unmemoized: Vec<(usize, usize)>,
    /// The sub-pixel bins misses are snapped to now (fewer than configured
    /// under pressure; see bins.rs).
    pub(crate) bins: Bins,
}

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

impl std::fmt::Debug for Atlas {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Atlas")
            .field("format", &self.format)
            .field("glyphs", &self.map.len())
            .field("pages", &self.pages)
            .field("frame", &self.frame)
            .finish()
    }
}

impl Atlas {
    /// An empty atlas of `format` with `config`'s pages (already validated).
    pub(crate) fn new(config: CacheConfig, format: TexelFormat, frame: u64) -> Atlas {
        let geometry = Geometry::of(&config);
        Atlas {
            bins: Bins::new(config.subpixel_bins),
            config,
            format,
            geometry,
            pages: Vec::new(),
            pages_ever: 0,
            retiring: None,
            map: LruCache::unbounded(),
            tiles: KeyMap::default(),
            memo: KeyMemo::default(),
            uses: Uses::default(),
            epoch: 0,
            memo_epoch: 0,
            all_protected: None,
            evict_first: false,
            staging: Staging::default(),
            frame,
            stats: Stats::default(),
            frame_start: Stats::default(),
            unmemoized: Vec::new(),
        }
    }

    /// Starts (or, with the same number, continues) frame `frame`.
    pub(crate) fn start_frame(&mut self, frame: u64) {
        if self.frame != frame {
            self.stats.frames += 1;
            self.bins.start(frame);
        }
        self.frame = frame;
        self.frame_start = self.stats.clone();
        self.evict_first = false;
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
        // least a third of their bounding box, or whose box is at most
        // `whole_box_bytes` (no scatter draw either way). The others go glyph
        // by glyph.
        let (mode, padding, atlas) = (self.config.uploads, self.config.padding, self.format);
        let texel_bytes = atlas.bytes_per_texel() as u64;
        let whole = self.config.whole_box_bytes.unwrap_or(WHOLE_BOX_BYTES);
        for i in 0..self.pages.len() {
            let dirty = self.pages[i].dirty;
            // (A page without a CPU copy has no box to cut: glyph by glyph.)
            let boxed = self.pages[i].has_copy()
                && match mode {
                    UploadMode::DirtyRect => true,
                    UploadMode::Glyphs => false,
                    UploadMode::Auto => {
                        self.staging.box_is_cheaper(i, dirty, padding, texel_bytes, whole)
                    }
                };
            let page = &mut self.pages[i];
            let copy = self.config.copy_boxes;
            let boxed = if boxed { page.take_upload(i as u32, atlas, copy) } else { None };
            page.dirty = None;
            page.dirty_regions = 0;
            let copy_glyphs = self.config.copy_glyph_texels;
            let glyphs =
                self.staging.take_page(i, page, atlas, padding, boxed.is_some(), copy_glyphs);
            let upload = boxed.map(Upload::Rect).or(glyphs.map(Upload::Glyphs));
            if let Some(u) = upload {
                self.stats.upload_calls += 1;
                self.stats.upload_regions += u.regions() as u64;
                self.stats.upload_bytes += u.upload_bytes();
                uploads.push(u);
            }
        }
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

    /// The configuration of this atlas's pages (for the colour atlas: its
    /// own page size, count and budget; see [`ColorPages`](crate::ColorPages)).
    pub fn config(&self) -> &CacheConfig {
        &self.config
    }

    /// The sub-pixel bins this frame's glyphs snap to:
    /// [`CacheConfig::subpixel_bins`] while the pages hold what the frames
    /// ask for; after a frame in which a glyph found no room even with
    /// everything unprotected evicted, half as many (down to one), so each
    /// glyph takes fewer bitmaps; doubled again after frames with room.
    /// Glyphs drawn at fewer bins than configured count as
    /// [degraded](crate::FrameCounts::degraded).
    pub fn subpixel_bins(&self) -> u32 {
        self.bins.now()
    }

    /// What the pages' texels hold.
    pub fn texel_format(&self) -> TexelFormat {
        self.format
    }

    /// Page side in texels.
    pub fn page_side(&self) -> u32 {
        self.geometry.side
    }

    /// The most pages the atlas may have.
    pub fn page_limit(&self) -> u32 {
        self.geometry.page_limit
    }

    /// The pages, in texture-layer order.
    pub fn pages(&self) -> &[Page] {
        &self.pages
    }

    /// Running totals of this atlas's lookups since it was made.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// Number of cached glyphs (blank ones included).
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// True when nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// A cached glyph's entry, without touching its recency.
    pub fn peek(&self, key: &GlyphKey) -> Option<GlyphEntry> {
        self.map.peek(key).map(|s| s.entry)
    }

    /// The tiles of a cached glyph larger than a page, without touching its
    /// recency. `None` for other glyphs.
    pub fn tiles(&self, key: &GlyphKey) -> Option<&[GlyphTile]> {
        self.tiles.get(key).map(Vec::as_slice)
    }

    /// Every cached glyph, most recently used first.
    pub fn entries(&self) -> impl Iterator<Item = (&GlyphKey, GlyphEntry)> + '_ {
        self.map.iter().map(|(k, s)| (k, s.entry))
    }

    /// What this atlas holds (its part of [`GlyphCache::footprint`](crate::GlyphCache::footprint);
    /// `fonts` and `decoded_strikes` are the cache's, zero here).
    pub fn footprint(&self) -> crate::footprint::Footprint {
        crate::footprint::Footprint {
            page_bytes: self.pages.iter().map(|p| p.pixels.len() as u64).sum(),
            glyphs: self.map.len(),
            tiled: self.tiles.len(),
            recency_records: self.uses.records(&self.memo),
            staging_bytes: self.staging.capacity(),
            ..Default::default()
        }
    }

    /// Bytes of page texels the atlas holds now.
    pub fn bytes(&self) -> u64 {
        let side = self.geometry.side as u64;
        self.pages.len() as u64 * side * side * self.format.bytes_per_texel() as u64
    }

    /// Forgets every cached glyph and frees every slot (pages and stats stay).
    pub(crate) fn clear(&mut self) {
        self.map.clear();
        self.epoch += 1;
        self.memo_epoch += 1;
        self.tiles.clear();
        for page in &mut self.pages {
            page.clear();
        }
    }

    /// Writes every recorded use (recency.rs) into the LRU map. Runs before
    /// anything is evicted or trimmed, so eviction sees every use.
    pub(crate) fn write_back_recency(&mut self) {
        self.uses.write_back(&mut self.memo, &mut self.map);
    }

    /// Checks the atlas's invariants: every cached glyph is live in its
    /// page's packer at the recorded place, lies inside its page, overlaps no
    /// other glyph, and the packers hold nothing else.
    #[doc(hidden)] // a test oracle (also run by `kerf soak`), not part of the API
    pub fn check_invariants(&self) -> Result<(), String> {
        let mut per_page: Vec<Vec<Rect>> = vec![Vec::new(); self.pages.len()];
        let tiled = self.map.iter().filter(|(_, s)| s.tiled()).count();
        if tiled != self.tiles.len() {
            return Err(format!("{tiled} tiled glyphs, {} tile lists", self.tiles.len()));
        }
        for (key, slot) in self.map.iter() {
            if slot.tiled() {
                let tiles = self
                    .tiles
                    .get(key)
                    .ok_or_else(|| format!("{key:?}: tiled glyph without tiles"))?;
                for t in tiles {
                    self.check_slot(key, &t.entry, t.alloc, &mut per_page)?;
                }
                continue;
            }
            let Some(id) = slot.alloc else {
                if !slot.entry.is_blank() {
                    return Err(format!("{key:?}: non-blank glyph without a slot"));
                }
                continue;
            };
            self.check_slot(key, &slot.entry, id, &mut per_page)?;
        }
        for (p, rects) in per_page.iter_mut().enumerate() {
            if rects.len() != self.pages[p].packer.len() {
                return Err(format!(
                    "page {p}: packer holds {} glyphs, cache {}",
                    self.pages[p].packer.len(),
                    rects.len()
                ));
            }
            rects.sort_unstable_by_key(|r| r.x);
            for i in 0..rects.len() {
                for j in i + 1..rects.len() {
                    if rects[j].x >= rects[i].right() {
                        break;
                    }
                    if rects[i].intersection(&rects[j]).is_some() {
                        return Err(format!("page {p}: {:?} overlaps {:?}", rects[i], rects[j]));
                    }
                }
            }
        }
        Ok(())
    }

    /// One slot (a glyph's or a tile's) of [`check_invariants`](Self::check_invariants):
    /// live in its page's packer at `entry`'s place, inside the page.
    fn check_slot(
        &self, key: &GlyphKey, entry: &GlyphEntry, id: kerf_pack::AllocId,
        per_page: &mut [Vec<Rect>],
    ) -> Result<(), String> {
        let page = self
            .pages
            .get(entry.page as usize)
            .ok_or_else(|| format!("{key:?}: no page {}", entry.page))?;
        let a = page
            .packer
            .get(id)
            .ok_or_else(|| format!("{key:?}: slot not live in page {}", entry.page))?;
        let r = entry.rect();
        if a.rect != r {
            return Err(format!("{key:?}: packer has {:?}, cache has {r:?}", a.rect));
        }
        if r.right() > page.side || r.bottom() > page.side {
            return Err(format!("{key:?}: {r:?} outside the page"));
        }
        per_page[entry.page as usize].push(r);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::{CacheConfig, GlyphCache, TextSpec};

    /// The oracle finds two glyphs on the same texels even when each
    /// glyph's slot is live in the packer at its recorded place and the
    /// counts agree (the one thing only the overlap scan sees).
    #[test]
    fn the_invariant_check_finds_two_glyphs_on_the_same_texels() {
        let config = CacheConfig { page_size: 256, subpixel_bins: 1, ..CacheConfig::default() };
        let mut cache = GlyphCache::new(config).unwrap();
        let f = cache.add_font(dejavu::sans::regular().to_vec()).unwrap();
        let mut frame = cache.begin_frame();
        frame.layout(&TextSpec::new("AB", f, 20.0), &mut Vec::new()).unwrap();
        frame.finish();
        let atlas = &mut cache.coverage;
        assert_eq!(atlas.check_invariants(), Ok(()));
        let keys: Vec<_> = atlas.map.iter().map(|(k, _)| *k).collect();
        let a = atlas.map.peek(&keys[0]).map(|s| (s.entry, s.alloc)).unwrap();
        let b = atlas.map.peek_mut(&keys[1]).unwrap();
        (b.entry, b.alloc) = a;
        let err = atlas.check_invariants().unwrap_err();
        assert!(err.contains("overlaps"), "{err}");
    }
}
