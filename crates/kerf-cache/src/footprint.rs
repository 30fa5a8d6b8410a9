//! What a cache holds, counted: the pages' CPU copies and every collection
//! that grows with use (glyph maps, tiles, recency records, fonts, decoded
//! colour strikes, staging). For leak checks over long runs (these numbers
//! stop growing once a workload repeats) and for memory accounting.

/// What a [`GlyphCache`](crate::GlyphCache) holds now
/// ([`GlyphCache::footprint`](crate::GlyphCache::footprint)); the two atlases
/// (coverage and colour) added up.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Footprint {
    /// Bytes of the pages' CPU copies (one byte a texel on coverage pages,
    /// four on colour pages; 0 where pages keep none,
    /// [`CacheConfig::page_copies`](crate::CacheConfig::page_copies)).
    pub page_bytes: u64,
    /// Cached glyphs and images (entries of the LRU maps, blank ones included).
    pub glyphs: usize,
    /// Glyphs larger than a page, cached as tiles.
    pub tiled: usize,
    /// Recency records waiting to be written into the LRU maps, and the
    /// retained runs registered with the atlases (dropped ones included
    /// until the next prune).
    pub recency_records: usize,
    /// Fonts, instances and effect fonts.
    pub fonts: usize,
    /// Colour bitmaps decoded from strikes (CBDT, sbix) and kept.
    pub decoded_strikes: usize,
    /// Bytes reserved by the staging buffers of new texels (capacity, not
    /// length: what stays allocated between frames).
    pub staging_bytes: usize,
}

impl std::ops::Add for Footprint {
    type Output = Footprint;

    fn add(self, o: Footprint) -> Footprint {
        Footprint {
            page_bytes: self.page_bytes + o.page_bytes,
            glyphs: self.glyphs + o.glyphs,
            tiled: self.tiled + o.tiled,
            recency_records: self.recency_records + o.recency_records,
            fonts: self.fonts + o.fonts,
            decoded_strikes: self.decoded_strikes + o.decoded_strikes,
            staging_bytes: self.staging_bytes + o.staging_bytes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each field is summed on its own (distinct values per field, so a
    /// field taken from the wrong side or multiplied shows).
    #[test]
    fn footprints_add_field_by_field() {
        let a = Footprint {
            page_bytes: 1 << 20,
            glyphs: 3,
            tiled: 5,
            recency_records: 7,
            fonts: 11,
            decoded_strikes: 13,
            staging_bytes: 17,
        };
        let b = Footprint {
            page_bytes: 4 << 20,
            glyphs: 19,
            tiled: 23,
            recency_records: 29,
            fonts: 31,
            decoded_strikes: 37,
            staging_bytes: 41,
        };
        let want = Footprint {
            page_bytes: 5 << 20,
            glyphs: 22,
            tiled: 28,
            recency_records: 36,
            fonts: 42,
            decoded_strikes: 50,
            staging_bytes: 58,
        };
        assert_eq!(a + b, want);
        assert_eq!(b + a, want);
        assert_eq!(a + Footprint::default(), a);
    }
}
