//! How the cache records a run's quads and replays them: whether glyphs
//! are the recorded ones (or them moved by whole pixels), the record, the
//! replay with its moves, and the keys a run marks used.

use super::compare::{moved_by, pen_move, rows_into, same_bits, Same, MAX_PATIENCE};
use super::{Epochs, GlyphRun, Hold, Marks, RetainedRun, Reuse};
use crate::atlas::request::Request;
use crate::cache::GlyphCache;
use crate::key::RenderMode;
use crate::quad::GlyphQuad;
use crate::text::PositionedGlyph;
use std::sync::Arc;

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

    pub(super) fn run_retained(
        &mut self, glyphs: &[PositionedGlyph], mode: RenderMode, out: &mut Vec<GlyphQuad>,
        run: &mut RetainedRun, held: Option<u64>,
    ) -> Reuse {
        let here = run.cache == self.id && run.mode == Some(mode);
        let same = if here { self.moved(run, glyphs) } else { None };
        self.run_recorded(glyphs, None, same, mode, out, run, held)
    }

    pub(super) fn run_shared(
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
