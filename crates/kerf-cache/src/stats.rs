//! Running counters; cheap enough to leave on (plain integer adds, and one
//! clock read around each rasterize, pack and stage step of a miss).

/// Totals since the cache was made. `hits + misses == lookups`; `skipped`
/// counts lookups that produced no quad because of an error.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Frames begun.
    pub frames: u64,
    /// Glyph lookups (one per glyph drawn or attempted).
    pub lookups: u64,
    /// Lookups that found the glyph cached.
    pub hits: u64,
    /// Lookups that did not (a key repeated within one batch is rasterized once).
    pub misses: u64,
    /// Lookups that produced nothing because of an error (see the frame's `skipped`).
    pub skipped: u64,
    /// Lookups drawn from another sub-pixel bin of the same glyph, already
    /// cached, because the atlas had no room left for the bin asked (see
    /// [`FrameCounts::degraded`](crate::FrameCounts::degraded)).
    pub degraded: u64,
    /// Glyphs rasterized.
    pub rasterized: u64,
    /// Coverage bytes rasterized.
    pub rasterized_bytes: u64,
    /// Glyphs evicted; each non-blank one had its slot deallocated.
    pub evictions: u64,
    /// Uploads handed out (at most one per dirty page per frame).
    pub upload_calls: u64,
    /// Glyphs coalesced into those uploads.
    pub upload_regions: u64,
    /// Bytes in those uploads.
    pub upload_bytes: u64,
    /// Pages created.
    pub pages_added: u64,
    /// Pages released after their glyphs went idle.
    pub pages_released: u64,
    /// Glyphs moved off a page being emptied (texels copied, not rasterized).
    pub relocated: u64,
    /// Nanoseconds spent rasterizing (wall time, parallel batches counted once).
    pub raster_ns: u64,
    /// Nanoseconds spent finding space: allocation, eviction, deallocation.
    pub pack_ns: u64,
    /// Nanoseconds spent copying pixels into pages and cutting uploads.
    pub stage_ns: u64,
}

impl Stats {
    /// `hits / lookups`, or 0 before any lookup.
    pub fn hit_rate(&self) -> f64 {
        if self.lookups == 0 {
            0.0
        } else {
            self.hits as f64 / self.lookups as f64
        }
    }
}
