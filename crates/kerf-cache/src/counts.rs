//! What frames count (lookups, hits, evictions, ...): one type for a cache
//! frame, an atlas's part of it and a renderer's prepare, added up with `+`.

/// What a frame counted, in both atlases. The same type reports a cache
/// frame ([`FrameOutput::counts`](crate::FrameOutput::counts)) and a renderer's prepare (kerf-wgpu's
/// `PrepareReport::counts`), and adds up with `+` and `+=` across atlases,
/// renderers and frames.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameCounts {
    /// Glyph lookups (one per glyph drawn or attempted).
    pub lookups: u64,
    /// Lookups that found the glyph cached.
    pub hits: u64,
    /// Glyphs evicted (and their slots deallocated).
    pub evictions: u64,
    /// Glyphs drawn degraded rather than skipped: the atlas had no room for
    /// the sub-pixel bin asked even after evicting every glyph it may, so
    /// the nearest bin of the same glyph already cached was drawn (at most
    /// half a pixel from the exact position with 2 bins, 3/8 px with 4).
    pub degraded: u64,
    /// Glyphs of font instances (variations, synthetic bold or oblique)
    /// rasterized as the face's default instance, because the cache's
    /// rasterizer draws no instances ([`Rasterizer::draws_instances`](crate::rasterize::Rasterizer::draws_instances)):
    /// drawn, but not as asked. Always 0 with kerf's own rasterizers.
    pub default_instance: u64,
    /// Variation axes the laid-out strings asked of a font that lacks them
    /// ([`TextSpec::variations`](crate::TextSpec::variations)): ignored,
    /// counted once per font and string.
    pub ignored_axes: u64,
}

impl std::ops::AddAssign for FrameCounts {
    fn add_assign(&mut self, o: FrameCounts) {
        self.lookups += o.lookups;
        self.hits += o.hits;
        self.evictions += o.evictions;
        self.degraded += o.degraded;
        self.default_instance += o.default_instance;
        self.ignored_axes += o.ignored_axes;
    }
}

impl std::ops::Add for FrameCounts {
    type Output = FrameCounts;
    fn add(mut self, o: FrameCounts) -> FrameCounts {
        self += o;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every field adds up on its own.
    #[test]
    fn counts_add_field_by_field() {
        let a = FrameCounts {
            lookups: 1,
            hits: 2,
            evictions: 3,
            degraded: 4,
            default_instance: 5,
            ignored_axes: 6,
        };
        let b = FrameCounts {
            lookups: 10,
            hits: 20,
            evictions: 30,
            degraded: 40,
            default_instance: 50,
            ignored_axes: 60,
        };
        let want = FrameCounts {
            lookups: 11,
            hits: 22,
            evictions: 33,
            degraded: 44,
            default_instance: 55,
            ignored_axes: 66,
        };
        assert_eq!(a + b, want);
        let mut c = a;
        c += b;
        assert_eq!(c, want);
    }
}
