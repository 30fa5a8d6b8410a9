//! [`GlyphRun`]: positioned glyphs shared and never changed, which a
//! retained run recognises by identity instead of by reading them.

use crate::text::PositionedGlyph;
use std::sync::Arc;

/// Positioned glyphs shared and never changed: made once (when a buffer
/// is shaped, say) and drawn frame after frame. A [`RetainedRun`](crate::RetainedRun) that last
/// prepared the same `GlyphRun` (the same one, or a clone of it: not merely
/// equal glyphs) knows its glyphs are the same without reading them, and
/// keeps a clone instead of a copy of them ([`Frame::prepare_run`](crate::Frame::prepare_run)).
/// Cheap to clone (a reference count).
///
/// ```
/// use kerf_cache::{CacheConfig, GlyphCache, GlyphRun, PositionedGlyph};
///
/// let mut cache = GlyphCache::new(CacheConfig::default())?;
/// let font = cache.add_font(dejavu::sans::regular().to_vec())?;
/// let g = PositionedGlyph { font, glyph: 36, size: 16.0, x: 0.0, y: 12.0, color: [0; 4] };
/// let run = GlyphRun::new(vec![g; 4]);
/// assert_eq!((run.len(), run.first_size()), (4, 16.0));
/// assert!(run.same_as(&run.clone()));
/// assert!(!run.same_as(&GlyphRun::new(vec![g; 4])), "equal glyphs, another run");
///
/// // Drawn through a retained run: its quads recorded the second time,
/// // reused from the third on.
/// let mut retained = kerf_cache::RetainedRun::default();
/// let mut quads = Vec::new();
/// for frame in 1..=4 {
///     quads.clear();
///     let mut f = cache.begin_frame();
///     assert_eq!(f.prepare_run(&run, false, &mut quads, &mut retained), frame >= 3);
///     f.finish();
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct GlyphRun {
    /// (A vector behind the reference, not a slice: made from the caller's
    /// vector without copying it.)
    glyphs: Arc<Vec<PositionedGlyph>>,
    /// The first glyph's size (0 for none), kept beside the reference so
    /// that a renderer reads it without reading the glyphs.
    first_size: f32,
}

impl GlyphRun {
    /// A run of `glyphs`, which no one can change from now on.
    pub fn new(glyphs: Vec<PositionedGlyph>) -> GlyphRun {
        let first_size = glyphs.first().map_or(0.0, |g| g.size);
        GlyphRun { glyphs: Arc::new(glyphs), first_size }
    }

    /// Whether `other` is this run or a clone of it.
    pub fn same_as(&self, other: &GlyphRun) -> bool {
        Arc::ptr_eq(&self.glyphs, &other.glyphs)
    }

    /// This run's identity while it or a clone of it lives: two live runs
    /// have the same id exactly when one is a clone of the other (a run
    /// made after every clone of another was dropped may get its id). Read
    /// without reading the glyphs.
    pub fn id(&self) -> usize {
        Arc::as_ptr(&self.glyphs) as usize
    }

    /// The glyphs.
    pub fn glyphs(&self) -> &[PositionedGlyph] {
        &self.glyphs
    }

    /// The first glyph's size in pixels per em (0 when the run is empty).
    pub fn first_size(&self) -> f32 {
        self.first_size
    }
}

impl std::ops::Deref for GlyphRun {
    type Target = [PositionedGlyph];
    fn deref(&self) -> &[PositionedGlyph] {
        &self.glyphs
    }
}

impl From<Vec<PositionedGlyph>> for GlyphRun {
    fn from(glyphs: Vec<PositionedGlyph>) -> GlyphRun {
        GlyphRun::new(glyphs)
    }
}
