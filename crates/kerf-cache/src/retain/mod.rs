//! Retained runs: a run of positioned glyphs that a frame asks for exactly
//! as an earlier frame did is drawn again from the quads that frame made,
//! without looking each glyph up.
//!
//! A steady UI asks for the same glyphs at the same places frame after
//! frame; glyph_brush caches a section's vertices for the same reason. A
//! [`RetainedRun`] is the caller's (one per text area, say): it holds the
//! glyphs last prepared through it, the keys they look up (each once, found
//! the second time the same glyphs come), and the quads they became with
//! the atlases' epochs then. The quads are reused only while
//!
//! - the glyphs are the same, bit for bit (what the cache makes of a glyph
//!   depends only on its bits), and so are the cache and mode; or they
//!   are the same glyphs moved by whole pixels: every pen snaps to the same
//!   sub-pixel bin `dx` pixels to the right and rounds `dy` pixels lower,
//!   the same `(dx, dy)` for every glyph of a row (a list or a page
//!   scrolled by fractional offsets moves its rows so, bins unchanged). The
//!   quads are then the recorded ones, each row's moved by its `(dx, dy)`:
//!   exactly what lookups make, since a glyph's quad depends on its pen
//!   only through that bin and those whole pixels. A row is a stretch of
//!   consecutive glyphs recorded at the same y; rows whose baselines lie a
//!   fraction apart (a line height of 20.8 px) round differently as they
//!   move, so each row has its own move. (Moves are checked glyph by glyph,
//!   with the configured bins, only while the atlas draws at them; pens
//!   beyond a million pixels are looked up. Where each row's quads lie is
//!   found the first time the rows move apart, by looking them up one by
//!   one: a record whose rows do not come out as the whole run's quads, in
//!   order, moves only as a whole. Moved glyphs are recorded the second
//!   frame in a row that they move alike, later where such records go
//!   unused.)
//! - neither atlas's epoch moved (no glyph evicted, moved or cleared since),
//!   and no page is retiring (its glyphs move when used);
//! - the run that made them was clean: nothing skipped or degraded, no
//!   character reported missing (a reused run reports nothing).
//!
//! A reused run still marks its glyphs used in the frame, so they are
//! protected from eviction and ordered in the LRU list as lookups would
//! leave them, and counts them as lookups and hits. It does so in O(1): its
//! keys are kept once, in a slot of each atlas's [`RunUses`] that the run
//! holds through a token of its own; a reuse stamps the frame on the slot
//! and marks it pending, and before the atlas evicts or trims anything it
//! writes the pending runs' keys into the LRU map with that frame, as it
//! writes back the key memo's uses (see memo.rs). A steady frame touches
//! neither the memo nor the map. A run recorded again writes its keys over
//! its slot's (handing in the old ones' pending uses first); a dropped
//! run's slot is freed, its pending uses handed in, when the atlas next
//! drains or needs a slot.
//!
//! [`RunUses`]: crate::atlas::recency::RunUses

use crate::frame::Frame;
use crate::key::RenderMode;
use crate::quad::GlyphQuad;
use crate::text::PositionedGlyph;
use std::sync::Arc;

mod compare;
mod glyph_run;
mod replay;

pub use glyph_run::GlyphRun;

/// A run of glyphs kept from frame to frame, for
/// [`Frame::prepare_retained`]: when a frame asks for the same glyphs as
/// the last one that went through it, and nothing cached has moved since,
/// its quads are reused instead of looked up (see the module docs of
/// `retain/mod.rs` in the source for the exact conditions). Empty by default;
/// it holds a copy of the glyphs, their quads and their keys. A clone
/// holds the same glyphs and quads but looks its glyphs up again before it
/// is reused.
#[derive(Debug, Default)]
pub struct RetainedRun {
    /// The glyphs last prepared through this run (empty when they came as
    /// a [`GlyphRun`]: then `shared` holds them).
    glyphs: Vec<PositionedGlyph>,
    /// The shared glyphs last prepared through this run, when they came as
    /// a [`GlyphRun`] ([`Frame::prepare_run`]).
    shared: Option<GlyphRun>,
    /// The cache (its id; 0: none yet) and mode they were prepared in.
    cache: u64,
    mode: Option<RenderMode>,
    /// How many of the glyphs go to the coverage and colour atlases, once
    /// their keys are recorded in `hold`'s slots (made the second time the
    /// same glyphs come).
    keys: Option<(u64, u64)>,
    /// The run's slots in its cache's atlases, kept when the glyphs change.
    hold: Option<Hold>,
    /// The quads the glyphs became, while the atlases' epochs are `epochs`.
    quads: Vec<GlyphQuad>,
    /// The box they cover ([`RetainedRun::extent`]).
    extent: [i32; 4],
    epochs: Option<Epochs>,
    /// Where each row of the recorded glyphs ends, in glyphs and (once
    /// `row_quads` says so) in the recorded quads; empty: one row.
    rows: Vec<(u32, u32)>,
    /// Whether the rows' ends in the quads are known (`Some(true)`), were
    /// found not to be had (`Some(false)`: the rows' quads do not come out
    /// in the record's order), or are yet to be found (`None`).
    row_quads: Option<bool>,
    /// Frames in a row whose glyphs were the record's moved but that were
    /// looked up, not reused: moved glyphs are recorded once there are
    /// `patience` of them.
    moves: u8,
    /// How many such frames recording moved glyphs waits for: one, doubled
    /// (up to [`MAX_PATIENCE`]) each time such a record goes unused (glyphs
    /// that move otherwise every few frames, such as a panel dragged wider
    /// by half pixels, would pay for records never drawn), and one again
    /// once such a record is drawn.
    patience: u8,
    /// Whether the record was made of moved glyphs and has not been drawn.
    unproven: bool,
    /// How far the last reuse moved each row, in whole pixels (empty: not
    /// at all).
    shifts: Vec<(i32, i32)>,
    /// The box the last reuse's quads covered, when it moved them.
    shown: Option<[i32; 4]>,
    /// Changes whenever the quads a reuse appends change ([`RetainedRun::generation`]).
    generation: u64,
}

impl Clone for RetainedRun {
    /// The same glyphs and quads, without the keys' slots (one run's slot
    /// is its own): the clone records its keys when it is next prepared.
    fn clone(&self) -> RetainedRun {
        RetainedRun {
            glyphs: self.glyphs.clone(),
            shared: self.shared.clone(),
            cache: self.cache,
            mode: self.mode,
            keys: None,
            hold: None,
            quads: self.quads.clone(),
            extent: self.extent,
            epochs: None,
            rows: self.rows.clone(),
            row_quads: self.row_quads,
            moves: 0,
            patience: self.patience,
            unproven: false,
            shifts: self.shifts.clone(),
            shown: self.shown,
            generation: self.generation,
        }
    }
}

/// A run's token and its slots (coverage, colour) in the atlases of the
/// cache `cache`.
#[derive(Debug)]
struct Hold {
    cache: u64,
    token: Arc<()>,
    slots: [Option<u32>; 2],
}

/// The coverage atlas's epoch and the colour atlas's (if it exists).
type Epochs = (u64, Option<u64>);

/// What makes a run unclean: skipped glyphs, missing characters and
/// degraded glyphs so far in the frame.
type Marks = (usize, usize, u64, u64);

impl RetainedRun {
    /// Bytes its recorded glyphs and quads reserve on the heap.
    /// (Glyphs held through a [`GlyphRun`] are the app's, not counted.)
    pub fn heap_bytes(&self) -> usize {
        self.glyphs.capacity() * std::mem::size_of::<PositionedGlyph>()
            + self.quads.capacity() * std::mem::size_of::<GlyphQuad>()
            + self.rows.capacity() * std::mem::size_of::<(u32, u32)>()
            + self.shifts.capacity() * std::mem::size_of::<(i32, i32)>()
    }

    /// Whether the run holds a record of quads that the next prepare of the
    /// same glyphs can reuse, as far as the atlases were when it was last
    /// prepared (a later eviction or move still sends it to lookups).
    pub fn is_ready(&self) -> bool {
        self.keys.is_some() && self.epochs.is_some()
    }

    /// The box the recorded quads cover, as `[left, top, right, bottom]`
    /// in the pixels they were prepared in (half-open; an LCD quad's three
    /// texels a pixel counted as one pixel), moved as the last reuse moved
    /// them: what the last reuse appended lies inside it. Empty (`[0; 4]`)
    /// when nothing is recorded.
    pub fn extent(&self) -> [i32; 4] {
        self.shown.unwrap_or(self.extent)
    }

    /// A number that changes whenever the quads a reuse of this run appends
    /// change (a new record, or the record moved otherwise than at the last
    /// reuse): two reuses, with no prepare through the run between them
    /// that was not one, appended the same quads when it is the same.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The glyphs last prepared through this run (a glyph run's, or its own copy).
    fn recorded(&self) -> &[PositionedGlyph] {
        self.shared.as_ref().map_or(&self.glyphs[..], GlyphRun::glyphs)
    }

    /// Forgets everything (the next prepare looks every glyph up).
    pub fn clear(&mut self) {
        self.glyphs.clear();
        self.shared = None;
        self.quads.clear();
        self.extent = [0; 4];
        // (The slots stay the run's, for its next keys.)
        self.keys = None;
        self.epochs = None;
        self.cache = 0;
        self.mode = None;
        self.rows.clear();
        self.row_quads = None;
        self.moves = 0;
        self.shifts.clear();
        self.shown = None;
        self.generation = self.generation.wrapping_add(1);
    }
}

impl Frame<'_> {
    /// [`prepare`](Self::prepare) through `run`: when `glyphs` equal the
    /// glyphs the last call with `run` recorded, in this cache, or are them
    /// moved by whole pixels (each pen at the same sub-pixel bin, every
    /// glyph moved alike), and no glyph has been evicted or moved in the
    /// atlas since, the recorded quads are appended again (moved with the
    /// glyphs) and each glyph is marked used as a lookup would mark it (see
    /// [`RetainedRun`]); else the glyphs are looked up as by `prepare` and
    /// `run` records them. The quads are the same either way.
    ///
    /// ```
    /// use kerf_cache::{CacheConfig, GlyphCache, PositionedGlyph, RetainedRun};
    ///
    /// let mut cache = GlyphCache::new(CacheConfig::default())?;
    /// let font = cache.add_font(dejavu::sans::regular().to_vec())?;
    /// let glyphs: Vec<PositionedGlyph> = (36..60)
    ///     .map(|g| PositionedGlyph {
    ///         font, glyph: g, size: 16.0, x: 10.0 * g as f32, y: 20.0, color: [0, 0, 0, 255],
    ///     })
    ///     .collect();
    /// let mut run = RetainedRun::default();
    /// let mut quads = Vec::new();
    /// for _ in 0..3 {
    ///     quads.clear();
    ///     let mut frame = cache.begin_frame();
    ///     let reused = frame.prepare_retained(&glyphs, &mut quads, &mut run);
    ///     let out = frame.finish();
    ///     assert_eq!(reused, out.frame == 3);
    ///     assert_eq!((out.counts.lookups, out.counts.hits), (24, if out.frame == 1 { 0 } else { 24 }));
    /// }
    /// // The second frame recorded the run; the third reused it.
    /// assert!(run.is_ready());
    /// assert_eq!(quads.len(), 24);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// Returns true when the recorded quads were reused (the quads appended
    /// are then the recorded ones, moved as the glyphs moved:
    /// [`RetainedRun::extent`] says where they lie).
    pub fn prepare_retained(
        &mut self, glyphs: &[PositionedGlyph], out: &mut Vec<GlyphQuad>, run: &mut RetainedRun,
    ) -> bool {
        self.prepare_retained_held(glyphs, false, out, run, None) != Reuse::LookedUp
    }

    /// [`prepare_lcd`](Self::prepare_lcd) through `run`, as
    /// [`prepare_retained`](Self::prepare_retained).
    pub fn prepare_lcd_retained(
        &mut self, glyphs: &[PositionedGlyph], out: &mut Vec<GlyphQuad>, run: &mut RetainedRun,
    ) -> bool {
        self.prepare_retained_held(glyphs, true, out, run, None) != Reuse::LookedUp
    }

    /// [`prepare_retained`](Self::prepare_retained) of a [`GlyphRun`]
    /// (`lcd`: as [`prepare_lcd`](Self::prepare_lcd)): when `run` last
    /// prepared this same `GlyphRun`, its glyphs are known to be the same
    /// without comparing them, and `run` keeps a clone of `glyphs` instead of
    /// a copy. The quads are the ones `prepare_retained` would append.
    pub fn prepare_run(
        &mut self, glyphs: &GlyphRun, lcd: bool, out: &mut Vec<GlyphQuad>, run: &mut RetainedRun,
    ) -> bool {
        self.prepare_run_held(glyphs, lcd, out, run, None) != Reuse::LookedUp
    }

    /// [`prepare_retained`](Self::prepare_retained) (`lcd`: as
    /// [`prepare_lcd_retained`](Self::prepare_lcd_retained)) for a caller
    /// that still holds the quads the last reuse through `run` appended,
    /// made in the run's generation `held` ([`RetainedRun::generation`]):
    /// when this prepare would append those same quads again, it appends
    /// nothing and says so ([`Reuse::Held`]), having marked the glyphs used
    /// as a reuse does. A renderer that keeps last frame's quads copies
    /// them instead of the record (or leaves them where they are).
    ///
    /// ```
    /// use kerf_cache::{CacheConfig, GlyphCache, PositionedGlyph, RetainedRun, Reuse};
    ///
    /// let mut cache = GlyphCache::new(CacheConfig::default())?;
    /// let font = cache.add_font(dejavu::sans::regular().to_vec())?;
    /// let glyphs: Vec<PositionedGlyph> = (36..40)
    ///     .map(|g| PositionedGlyph { font, glyph: g, size: 16.0, x: 10.0 * g as f32, y: 20.0, color: [0; 4] })
    ///     .collect();
    /// let mut run = RetainedRun::default();
    /// let mut quads = Vec::new();
    /// let mut reuses = Vec::new();
    /// for _ in 0..4 {
    ///     quads.clear();
    ///     let mut frame = cache.begin_frame();
    ///     let held = run.is_ready().then(|| run.generation());
    ///     reuses.push(frame.prepare_retained_held(&glyphs, false, &mut quads, &mut run, held));
    ///     frame.finish();
    /// }
    /// assert_eq!(reuses, [Reuse::LookedUp, Reuse::LookedUp, Reuse::Held, Reuse::Held]);
    /// assert!(quads.is_empty(), "held: nothing appended");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn prepare_retained_held(
        &mut self, glyphs: &[PositionedGlyph], lcd: bool, out: &mut Vec<GlyphQuad>,
        run: &mut RetainedRun, held: Option<u64>,
    ) -> Reuse {
        let mode = if lcd { RenderMode::Lcd } else { self.cache.render_mode() };
        self.cache.run_retained(glyphs, mode, out, run, held)
    }

    /// [`prepare_run`](Self::prepare_run) for a caller that still holds the
    /// quads of the last reuse, as [`prepare_retained_held`](Self::prepare_retained_held).
    pub fn prepare_run_held(
        &mut self, glyphs: &GlyphRun, lcd: bool, out: &mut Vec<GlyphQuad>, run: &mut RetainedRun,
        held: Option<u64>,
    ) -> Reuse {
        let mode = if lcd { RenderMode::Lcd } else { self.cache.render_mode() };
        self.cache.run_shared(glyphs, mode, out, run, held)
    }
}

/// What a prepare through a [`RetainedRun`] did
/// ([`Frame::prepare_retained_held`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reuse {
    /// The glyphs were looked up (and maybe recorded): their quads appended.
    LookedUp,
    /// The run's recorded quads were appended (moved as the glyphs moved).
    Appended,
    /// The run would have appended the very quads its last reuse appended
    /// (the generation the caller holds): nothing appended, the glyphs
    /// marked used.
    Held,
}
