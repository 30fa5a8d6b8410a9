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

use crate::atlas::request::Request;
use crate::cache::GlyphCache;
use crate::frame::Frame;
use crate::key::RenderMode;
use crate::quad::GlyphQuad;
use crate::text::PositionedGlyph;
use std::sync::Arc;

mod compare;

use compare::{moved_by, pen_move, rows_into, same_bits, Same, MAX_PATIENCE};

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

/// Positioned glyphs shared and never changed: made once (when a buffer
/// is shaped, say) and drawn frame after frame. A [`RetainedRun`] that last
/// prepared the same `GlyphRun` (the same one, or a clone of it: not merely
/// equal glyphs) knows its glyphs are the same without reading them, and
/// keeps a clone instead of a copy of them ([`Frame::prepare_run`]).
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

/// The box `quads` cover ([`RetainedRun::extent`]).
fn extent_of(quads: &[GlyphQuad]) -> [i32; 4] {
    let mut quads = quads.iter().map(|q| {
        let right = q.x.saturating_add(i32::from(q.px_width()));
        [q.x, q.y, right, q.y.saturating_add(i32::from(q.height))]
    });
    let Some(first) = quads.next() else { return [0; 4] };
    quads.fold(first, |[l, t, r, b], [ql, qt, qr, qb]| [l.min(ql), t.min(qt), r.max(qr), b.max(qb)])
}

/// Makes `glyphs` (which came as `shared`, if they did) the ones `run`
/// recorded (their rows found when their quads are recorded).
fn keep_glyphs(run: &mut RetainedRun, glyphs: &[PositionedGlyph], shared: Option<&GlyphRun>) {
    match shared {
        Some(s) => (run.glyphs, run.shared) = (Vec::new(), Some(s.clone())),
        None => {
            run.shared = None;
            run.glyphs.clear();
            run.glyphs.extend_from_slice(glyphs);
        }
    }
    run.rows.clear();
    run.row_quads = None;
}

impl GlyphCache {
    /// How `glyphs` stand to the ones `run` recorded: the same, or them
    /// moved by whole pixels row by row (see [`moved_by`]; each row's move
    /// in `self.buffers.shifts`, one move when every row moved alike).
    /// Moves are only seen while the coverage atlas draws at its configured
    /// bins (a record is made at them).
    fn moved(&mut self, run: &RetainedRun, glyphs: &[PositionedGlyph]) -> Option<Same> {
        let recorded = run.recorded();
        if same_bits(recorded, glyphs) {
            return Some(Same::Identical);
        }
        let bins = &self.coverage.bins;
        if bins.now() != bins.configured() {
            return None;
        }
        let (bins, color) = (bins.configured(), self.color.is_some());
        if run.epochs.is_none() {
            // Nothing recorded to draw from: a look at the ends is enough
            // to count the frames the glyphs keep moving (what is recorded
            // then is the glyphs as they are, looked up).
            let moved = |p, q| pen_move(p, q, bins, color).is_some();
            let like = recorded.len() == glyphs.len()
                && recorded.first().zip(glyphs.first()).is_some_and(|(p, q)| moved(p, q))
                && recorded.last().zip(glyphs.last()).is_some_and(|(p, q)| moved(p, q));
            return like.then_some(Same::Moved);
        }
        let shifts = &mut self.buffers.shifts;
        if !moved_by(recorded, glyphs, bins, color, &run.rows, shifts) {
            return None;
        }
        if shifts.windows(2).all(|w| w[0] == w[1]) {
            shifts.truncate(1);
            return Some(Same::Moved);
        }
        match run.row_quads {
            Some(true) => Some(Same::Moved),
            Some(false) => None,
            None => Some(Same::NeedsRows),
        }
    }

    fn run_retained(
        &mut self, glyphs: &[PositionedGlyph], mode: RenderMode, out: &mut Vec<GlyphQuad>,
        run: &mut RetainedRun, held: Option<u64>,
    ) -> Reuse {
        let here = run.cache == self.id && run.mode == Some(mode);
        let same = if here { self.moved(run, glyphs) } else { None };
        self.run_recorded(glyphs, None, same, mode, out, run, held)
    }

    fn run_shared(
        &mut self, glyphs: &GlyphRun, mode: RenderMode, out: &mut Vec<GlyphQuad>,
        run: &mut RetainedRun, held: Option<u64>,
    ) -> Reuse {
        let here = run.cache == self.id && run.mode == Some(mode);
        // The run it recorded: replayed without reading the glyphs.
        let known = here && run.shared.as_ref().is_some_and(|s| s.same_as(glyphs));
        if known {
            if let Some(reuse) = self.replay(run, out, false, held) {
                return reuse;
            }
        }
        let same = match (known, here) {
            (true, _) => Some(Same::Identical),
            (false, true) => self.moved(run, glyphs),
            (false, false) => None,
        };
        self.run_recorded(glyphs, Some(glyphs), same, mode, out, run, held)
    }

    /// The rest of [`run_retained`](Self::run_retained) once it is known
    /// how `glyphs` stand to the ones `run` recorded (`same`; `None`: other
    /// glyphs); `shared`: the [`GlyphRun`] they came as, kept instead of a
    /// copy; `held`: as [`Frame::prepare_retained_held`].
    #[allow(clippy::too_many_arguments)]
    fn run_recorded(
        &mut self, glyphs: &[PositionedGlyph], shared: Option<&GlyphRun>, same: Option<Same>,
        mode: RenderMode, out: &mut Vec<GlyphQuad>, run: &mut RetainedRun, held: Option<u64>,
    ) -> Reuse {
        let other = |s: &&GlyphRun| !run.shared.as_ref().is_some_and(|r| r.same_as(s));
        if let Some(s) = shared.filter(other).filter(|_| same == Some(Same::Identical)) {
            // Equal glyphs from another run: kept as the one that came, so
            // the next frame knows them without comparing.
            run.glyphs = Vec::new();
            run.shared = Some(s.clone());
        }
        if let Some(same @ (Same::Identical | Same::Moved)) = same {
            if let Some(reuse) = self.replay(run, out, same == Same::Moved, held) {
                return reuse;
            }
        }
        let start = out.len();
        let before = self.marks();
        self.run_slice(glyphs, out, mode);
        let Some(same) = same else {
            // Recorded the second time the same glyphs come.
            if std::mem::take(&mut run.unproven) {
                run.patience = run.patience.max(1).saturating_mul(2).min(MAX_PATIENCE);
            }
            run.clear();
            keep_glyphs(run, glyphs, shared);
            (run.cache, run.mode) = (self.id, Some(mode));
            return Reuse::LookedUp;
        };
        if self.marks() != before || self.retiring() {
            run.epochs = None;
            return Reuse::LookedUp;
        }
        let valid = run.keys.is_some() && run.epochs == Some(self.epochs());
        if same == Same::NeedsRows && valid {
            // A record whose rows moved apart: where each row's quads lie,
            // for the next frames.
            // (Where they do not come out as the record's: kept moving as one.)
            run.row_quads = Some(self.rows_of(glyphs, &mut run.rows, &out[start..], mode));
            return Reuse::LookedUp;
        }
        run.unproven = false;
        if same != Same::Identical {
            // Glyphs that move are recorded after `patience` frames in a
            // row that they do (then as they are now).
            if run.moves < run.patience.max(1) {
                run.moves = run.moves.saturating_add(1);
                return Reuse::LookedUp;
            }
            keep_glyphs(run, glyphs, shared);
            run.unproven = true;
        }
        run.moves = 0;
        if run.keys.is_none() {
            run.keys = Some(self.run_keys(glyphs, mode, run));
        }
        run.quads.clear();
        run.quads.extend_from_slice(&out[start..]);
        run.extent = extent_of(&run.quads);
        run.epochs = Some(self.epochs());
        rows_into(glyphs, &mut run.rows);
        run.row_quads = None;
        (run.shifts, run.shown) = (Vec::new(), None);
        run.generation = run.generation.wrapping_add(1);
        Reuse::LookedUp
    }

    /// Writes where each row of `glyphs` (`rows`: `(glyph end, quad end)`,
    /// the glyph ends given) ends in `quads` (the quads their lookups just
    /// made, in a clean frame), found by looking the rows up one by one.
    /// True when the rows' quads come out as `quads`, in order; false (the
    /// quad ends then mean nothing) when there are no rows or they do not
    /// (a glyph in tiles, colour glyphs: quads a batch puts after its
    /// others). The lookups' counts are taken back (every glyph was looked
    /// up already this frame).
    fn rows_of(
        &mut self, glyphs: &[PositionedGlyph], rows: &mut [(u32, u32)], quads: &[GlyphQuad],
        mode: RenderMode,
    ) -> bool {
        if rows.is_empty() {
            return false;
        }
        let stats = (self.coverage.stats.clone(), self.color.as_ref().map(|c| c.stats.clone()));
        let mut again = std::mem::take(&mut self.buffers.row_quads);
        again.clear();
        let mut from = 0;
        for (end, quad_end) in rows.iter_mut() {
            let Some(row) = glyphs.get(from..*end as usize) else { break };
            self.run_slice(row, &mut again, mode);
            *quad_end = again.len() as u32;
            from = *end as usize;
        }
        self.coverage.stats = stats.0;
        if let (Some(c), Some(s)) = (self.color.as_mut(), stats.1) {
            c.stats = s;
        }
        let same = again == quads;
        self.buffers.row_quads = again;
        same
    }

    /// Appends `run`'s recorded quads (`moved`: each row's moved as
    /// `self.buffers.shifts` says) and marks its keys used, if the record
    /// is still valid; `None` (nothing appended) if not. Appends nothing
    /// ([`Reuse::Held`]) when the quads are the ones the last reuse
    /// appended in the generation `held`.
    fn replay(
        &mut self, run: &mut RetainedRun, out: &mut Vec<GlyphQuad>, moved: bool, held: Option<u64>,
    ) -> Option<Reuse> {
        let (Some((coverage, color)), Some(epochs), Some(hold)) = (run.keys, run.epochs, &run.hold)
        else {
            return None;
        };
        // (Keys are recorded with a hold in the run's cache, which `same`
        // checked: a slot of another cache's is refused by `run_used`.)
        if epochs != self.epochs() || self.retiring() {
            run.epochs = None;
            return None;
        }
        // Each glyph is used in this frame: written into the map before
        // anything is evicted or trimmed.
        let frame = self.coverage.frame;
        for (i, slot) in hold.slots.iter().enumerate() {
            let atlas = self.atlas_mut(i == 1);
            if let (Some(slot), Some(a)) = (slot, atlas) {
                if !a.uses.run_used(&hold.token, *slot, frame) {
                    // (Not this run's slot: recorded anew.)
                    (run.keys, run.epochs) = (None, None);
                    return None;
                }
            }
        }
        self.coverage.stats.lookups += coverage;
        self.coverage.stats.hits += coverage;
        if let Some(c) = self.color.as_mut() {
            c.stats.lookups += color;
            c.stats.hits += color;
        }
        if std::mem::take(&mut run.unproven) {
            run.patience = 1;
        }
        let start = out.len();
        let shifts = &mut self.buffers.shifts;
        if !moved || shifts.iter().all(|&s| s == (0, 0)) {
            shifts.clear();
        }
        if *shifts != run.shifts {
            // Moved otherwise than last time: other quads.
            std::mem::swap(shifts, &mut run.shifts);
            run.generation = run.generation.wrapping_add(1);
            run.shown = None;
        }
        if held == Some(run.generation) {
            return Some(Reuse::Held);
        }
        if run.shifts.is_empty() {
            out.extend_from_slice(&run.quads);
            return Some(Reuse::Appended);
        }
        let mut from = 0;
        let one = [(0, run.quads.len() as u32)];
        let rows = if run.shifts.len() == 1 { &one[..] } else { &run.rows[..] };
        for (&(_, end), &(dx, dy)) in rows.iter().zip(&run.shifts) {
            let row = run.quads.get(from..end as usize).unwrap_or_default();
            out.extend(row.iter().map(|q| GlyphQuad {
                x: q.x.saturating_add(dx),
                y: q.y.saturating_add(dy),
                ..*q
            }));
            from = end as usize;
        }
        if run.shown.is_none() {
            run.shown = Some(extent_of(&out[start..]));
        }
        Some(Reuse::Appended)
    }

    fn epochs(&self) -> Epochs {
        (self.coverage.epoch, self.color.as_ref().map(|c| c.epoch))
    }

    fn retiring(&self) -> bool {
        self.coverage.retiring.is_some()
            || self.color.as_ref().is_some_and(|c| c.retiring.is_some())
    }

    fn marks(&self) -> Marks {
        (
            self.report.skipped.len(),
            self.report.missing.len(),
            self.coverage.stats.degraded,
            self.color.as_ref().map_or(0, |c| c.stats.degraded),
        )
    }

    /// The keys `glyphs` look up in `mode` (each once), as the batch made
    /// them: colour glyphs in the colour atlas's mode and bins; written into
    /// `run`'s slots in their atlases. How many go to each atlas.
    fn run_keys(
        &mut self, glyphs: &[PositionedGlyph], mode: RenderMode, run: &mut RetainedRun,
    ) -> (u64, u64) {
        let routes = self.routes_color(mode);
        let fonts = &self.sources.fonts;
        let mut keys = std::mem::take(&mut self.key_scratch);
        for k in &mut keys {
            k.clear();
        }
        for g in glyphs {
            let r = g.req();
            let is_color = routes && fonts.is_color_glyph(r.font, r.glyph);
            let atlas = match (is_color, &self.color) {
                (true, Some(c)) => c,
                _ => &self.coverage,
            };
            let mode = if is_color { RenderMode::Color } else { mode };
            if let Some(key) = atlas.key_of(&r, mode) {
                keys[usize::from(is_color)].push(key);
            }
        }
        let counts = (keys[0].len() as u64, keys[1].len() as u64);
        let id = self.id;
        let hold = match &mut run.hold {
            Some(h) if h.cache == id => h,
            // A new run, or one moving from another cache: its old slots
            // there are freed as the token drops.
            other => other.insert(Hold { cache: id, token: Arc::new(()), slots: [None; 2] }),
        };
        for (i, keys) in keys.iter_mut().enumerate() {
            let atlas = self.atlas_mut(i == 1);
            let Some(atlas) = atlas else { continue };
            if keys.is_empty() && hold.slots[i].is_none() {
                continue;
            }
            keys.sort_unstable();
            keys.dedup();
            let slot = atlas.uses.record(&hold.token, hold.slots[i]);
            atlas.uses.slot_keys(slot).extend_from_slice(keys);
            hold.slots[i] = Some(slot);
        }
        self.key_scratch = keys;
        counts
    }
}
