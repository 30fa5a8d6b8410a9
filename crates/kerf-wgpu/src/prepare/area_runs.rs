//! Each area's retained run and stamp, following the area's glyphs from
//! index to index: a list that scrolls (an editor's lines, a chat's
//! messages) shows the same glyph slices at other indices each frame, and
//! each slice keeps the run that recorded its quads.
//!
//! A run is matched to an area by the address and length of the area's
//! glyph slice ([`TextContent::Glyphs`]) at the last `prepare`. The match
//! is only a guess of which run to try: the run still compares the glyphs
//! bit for bit before it reuses anything (see `kerf_cache::RetainedRun`),
//! so a slice freed and another allocated at its address costs a lookup,
//! never a wrong quad.

use crate::prepare::area::{TextArea, TextBounds, TextContent};
use kerf_cache::{GlyphRun, RetainedRun};

/// How an area drawn from its retained run was placed: with the same stamp
/// and the same recorded quads, its instances are the same.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct AreaStamp {
    pub left: u32,
    pub top: u32,
    pub scale: u32,
    pub bounds: TextBounds,
    pub lcd: bool,
    /// The run's generation (`kerf_cache::RetainedRun::generation`): a run
    /// reuses its record moved when its glyphs moved by whole pixels, so an
    /// area placed the same way can still draw other quads.
    pub generation: u64,
}

impl AreaStamp {
    /// How `area` (drawn with `lcd` or not) places a reuse of its run's
    /// quads of generation `generation`.
    pub fn of(area: &TextArea<'_>, lcd: bool, generation: u64) -> AreaStamp {
        AreaStamp {
            left: area.left.to_bits(),
            top: area.top.to_bits(),
            scale: area.scale.to_bits(),
            bounds: area.bounds,
            lcd,
            generation,
        }
    }
}

/// Where an area's glyphs lie (address, length; a [`kerf_cache::GlyphRun`]'s
/// id and `usize::MAX`); `None` for a string or images, which no run follows.
type Slice = Option<(usize, usize)>;

/// One area's retained run, and the [`GlyphRun`] it last drew as the area
/// placed it.
#[derive(Debug, Default)]
pub(crate) struct AreaRun {
    /// The glyphs' run, kept from frame to frame.
    pub run: RetainedRun,
    /// A glyph run placed at an offset that is not whole or at a scale
    /// other than 1 (the glyphs then go to the cache placed): the placed
    /// glyphs as a run of their own, kept while the same run is placed
    /// the same way, so that they too are known by reference.
    pub placed: Option<Placed>,
}

impl AreaRun {
    /// Bytes its run and placed glyphs reserve on the heap.
    pub fn heap_bytes(&self) -> usize {
        self.run.heap_bytes() + self.placed.as_ref().map_or(0, Placed::heap_bytes)
    }
}

/// A glyph run as an area placed it.
#[derive(Debug)]
pub(crate) struct Placed {
    /// The run placed (a clone: its id names no other run while held).
    source: GlyphRun,
    /// The area's left, top and scale, as bits.
    at: [u32; 3],
    /// The placed glyphs, made the second time in a row the run is placed
    /// the same way (an area that moves every frame places its glyphs into
    /// the renderer's scratch instead, as a slice's are).
    glyphs: Option<GlyphRun>,
}

impl Placed {
    /// `run` placed by `area`: the glyphs `slot` holds when the last call
    /// placed the same run the same way (made now if that call made none);
    /// `None` the first time a run is placed somewhere.
    pub fn glyphs<'s>(
        slot: &'s mut Option<Placed>, run: &GlyphRun, area: &TextArea<'_>,
    ) -> Option<&'s GlyphRun> {
        let at = [area.left.to_bits(), area.top.to_bits(), area.scale.to_bits()];
        if !slot.as_ref().is_some_and(|p| p.source.same_as(run) && p.at == at) {
            *slot = Some(Placed { source: run.clone(), at, glyphs: None });
            return None;
        }
        let p = slot.as_mut()?;
        Some(p.glyphs.get_or_insert_with(|| {
            GlyphRun::new(run.iter().map(|g| area.place_glyph(g)).collect())
        }))
    }

    /// Bytes of its placed glyphs.
    pub fn heap_bytes(&self) -> usize {
        self.glyphs.as_ref().map_or(0, |g| g.len())
            * std::mem::size_of::<kerf_cache::PositionedGlyph>()
    }
}

/// Per area (by index in `prepare`'s slice): its retained run and stamp.
#[derive(Debug, Default)]
pub(crate) struct AreaRuns {
    /// Each area's glyphs' run, kept from frame to frame.
    pub runs: Vec<AreaRun>,
    /// How the last `prepare` placed each area's reused quads (`None`: not
    /// drawn from its retained run), to tell a frame whose instances are
    /// the last frame's.
    pub stamps: Vec<Option<AreaStamp>>,
    /// Each area's slice at the last `prepare`.
    slices: Vec<Slice>,
    /// This `prepare`'s slices (kept to reuse its allocation).
    next: Vec<Slice>,
}

fn slice_of(area: &TextArea<'_>) -> Slice {
    match area.content {
        TextContent::Glyphs(g) if !g.is_empty() => Some((g.as_ptr() as usize, g.len())),
        // (Its id, read without reading the glyphs; no slice has this length.)
        TextContent::Run(r) => Some((r.id(), usize::MAX)),
        _ => None,
    }
}

/// How far from where the last match's shift puts it an area's slice is
/// looked for among last time's.
const WINDOW: usize = 8;

impl AreaRuns {
    /// Arranges the runs and stamps for `texts`: an area showing a slice
    /// that another index showed last time takes that index's run and
    /// stamp; the others keep their index's run when no area took it, or
    /// take a run left over (their allocations and atlas slots reused).
    /// Returns true when no run moved to another index and the number of
    /// areas is the same (so each area's stamp says what its instances were).
    pub fn follow(&mut self, texts: &[TextArea<'_>]) -> bool {
        self.next.clear();
        self.next.extend(texts.iter().map(slice_of));
        let kept = self.next == self.slices || self.rearrange();
        std::mem::swap(&mut self.slices, &mut self.next);
        self.runs.resize_with(texts.len(), AreaRun::default);
        let same_count = self.stamps.len() == texts.len();
        self.stamps.resize(texts.len(), None);
        kept && same_count
    }

    /// Moves each run to the index now showing the slice it prepared (a
    /// slice is looked for where the last match's shift puts it, a
    /// scrolled list moving every line alike, and within [`WINDOW`] of
    /// there). True when every run stays at its index.
    fn rearrange(&mut self) -> bool {
        let old_len = self.runs.len().min(self.slices.len());
        let mut taken = vec![false; old_len];
        let mut from: Vec<Option<usize>> = vec![None; self.next.len()];
        let mut shift = 0isize;
        for (n, s) in self.next.iter().enumerate() {
            let Some(s) = s else { continue };
            let guess = (n as isize + shift).clamp(0, old_len as isize) as usize;
            let at = |m: usize| !taken[m] && self.slices[m] == Some(*s);
            // Where the guess puts it (most areas, most frames), else the
            // nearest within the window.
            let found = if guess < old_len && at(guess) {
                Some(guess)
            } else {
                let lo = guess.saturating_sub(WINDOW);
                let hi = (guess + WINDOW + 1).min(old_len);
                (lo..hi).filter(|&m| at(m)).min_by_key(|&m| m.abs_diff(guess))
            };
            if let Some(m) = found {
                taken[m] = true;
                shift = m as isize - n as isize;
                from[n] = Some(m);
            }
        }
        // The others: their own index's run if no area took it.
        for (n, f) in from.iter_mut().enumerate() {
            if f.is_none() && n < old_len && !taken[n] {
                taken[n] = true;
                *f = Some(n);
            }
        }
        if from.iter().enumerate().all(|(n, f)| f.is_none_or(|m| m == n)) {
            return true;
        }
        let mut old = std::mem::take(&mut self.runs);
        let old_stamps = std::mem::take(&mut self.stamps);
        // The rest take the runs left over, in order.
        let mut left = (0..old_len).filter(|&m| !taken[m]);
        for m in from {
            let stamp = m.and_then(|m| old_stamps.get(m).copied().flatten());
            let run = m.or_else(|| left.next()).map(|m| std::mem::take(&mut old[m]));
            self.runs.push(run.unwrap_or_default());
            self.stamps.push(stamp);
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kerf_cache::{CacheConfig, GlyphCache, PositionedGlyph};

    fn glyphs(n: usize) -> Vec<PositionedGlyph> {
        let mut cache = GlyphCache::new(CacheConfig::default()).unwrap();
        let font = cache.add_font(dejavu::sans::regular().to_vec()).unwrap();
        (0..n)
            .map(|i| PositionedGlyph {
                font,
                glyph: i as u16,
                size: 16.0,
                x: i as f32 * 10.0,
                y: 20.0,
                color: [0, 0, 0, 255],
            })
            .collect()
    }

    fn area(g: &[PositionedGlyph]) -> TextArea<'_> {
        TextArea::glyphs(g, 0.0, 0.0)
    }

    fn stamp(left: u32) -> Option<AreaStamp> {
        let bounds = TextBounds::default();
        Some(AreaStamp { left, top: 0, scale: 0, bounds, lcd: false, generation: 0 })
    }

    #[test]
    fn a_slice_shown_at_another_index_keeps_its_stamp_and_others_start_afresh() {
        let (a, b, c) = (glyphs(3), glyphs(4), glyphs(5));
        let mut runs = AreaRuns::default();
        assert!(!runs.follow(&[area(&a), area(&b)]), "a first prepare has no stamps");
        runs.stamps = vec![stamp(1), stamp(2)];
        assert!(runs.follow(&[area(&a), area(&b)]), "the same slices at the same indices");
        assert_eq!(runs.stamps, vec![stamp(1), stamp(2)]);
        // Scrolled: b moves to index 0, c is new at index 1.
        assert!(!runs.follow(&[area(&b), area(&c)]));
        assert_eq!(runs.stamps, vec![stamp(2), None]);
        assert_eq!(runs.runs.len(), 2);
        // Fewer areas: the runs and stamps shrink with them.
        assert!(!runs.follow(&[area(&c)]));
        assert_eq!(runs.stamps, vec![None]);
        assert_eq!(runs.runs.len(), 1);
    }

    #[test]
    fn runs_follow_a_list_that_grows_at_the_front_and_stay_with_changed_content() {
        let lines: Vec<Vec<PositionedGlyph>> = (1..=5).map(glyphs).collect();
        let mut runs = AreaRuns::default();
        let areas: Vec<TextArea<'_>> = lines[1..].iter().map(|g| area(g)).collect();
        runs.follow(&areas);
        runs.stamps = (0..4).map(stamp).collect();
        // A new line at the front: every old line one index down.
        let areas: Vec<TextArea<'_>> = lines.iter().map(|g| area(g)).collect();
        assert!(!runs.follow(&areas));
        assert_eq!(runs.stamps, vec![None, stamp(0), stamp(1), stamp(2), stamp(3)]);
        // Line 2's content replaced in place: the other runs stay put and
        // the new content takes the run at its own index.
        let other = glyphs(7);
        runs.stamps = (10..15).map(stamp).collect();
        let mut areas = areas;
        areas[2] = area(&other);
        assert!(runs.follow(&areas), "no run moved");
        assert_eq!(runs.stamps, (10..15).map(stamp).collect::<Vec<_>>());
    }

    /// Tags each run with its index (through its placed glyphs' place), to
    /// tell afterwards which old run each area holds.
    fn tag(runs: &mut AreaRuns, source: &GlyphRun) {
        for (m, r) in runs.runs.iter_mut().enumerate() {
            r.placed = Some(Placed { source: source.clone(), at: [m as u32, 0, 0], glyphs: None });
        }
    }

    fn tags(runs: &AreaRuns) -> Vec<Option<u32>> {
        runs.runs.iter().map(|r| r.placed.as_ref().map(|p| p.at[0])).collect()
    }

    #[test]
    fn glyph_runs_are_followed_by_id_and_empty_slices_follow_nothing() {
        let (a, b) = (GlyphRun::new(glyphs(3)), GlyphRun::new(glyphs(3)));
        let run = |r| TextArea::run(r, 0.0, 0.0);
        let mut runs = AreaRuns::default();
        runs.follow(&[run(&a), run(&b)]);
        runs.stamps = vec![stamp(1), stamp(2)];
        // The same two runs swapped (same length, told apart by id).
        assert!(!runs.follow(&[run(&b), run(&a)]));
        assert_eq!(runs.stamps, vec![stamp(2), stamp(1)]);
        // Two empty slices share an address (dangling) and a length: an
        // empty area at another index is not the empty area it was.
        let (e, c) = (Vec::new(), glyphs(4));
        runs.follow(&[area(&e), area(&c)]);
        runs.stamps = vec![stamp(5), stamp(6)];
        let f: Vec<PositionedGlyph> = Vec::new();
        assert!(!runs.follow(&[area(&c), area(&f)]));
        assert_eq!(runs.stamps, vec![stamp(6), None]);
    }

    #[test]
    fn a_scroll_is_followed_up_to_the_window_and_new_areas_take_runs_left_over() {
        let lines: Vec<Vec<PositionedGlyph>> = (1..=40).map(glyphs).collect();
        for by in [1, 5, WINDOW] {
            let mut runs = AreaRuns::default();
            let areas: Vec<TextArea<'_>> = lines[..30].iter().map(|g| area(g)).collect();
            runs.follow(&areas);
            runs.stamps = (0..30).map(stamp).collect();
            // Scrolled by `by` lines: every old line `by` indices up, new
            // lines at the bottom.
            let areas: Vec<TextArea<'_>> = lines[by..by + 30].iter().map(|g| area(g)).collect();
            assert!(!runs.follow(&areas));
            let expected: Vec<_> =
                (0..30).map(|n| if n + by < 30 { stamp((n + by) as u32) } else { None }).collect();
            assert_eq!(runs.stamps, expected, "scrolled by {by}");
        }
        // A new area whose own index another area took gets a run no area
        // took, not an emptied one.
        let source = GlyphRun::new(glyphs(1));
        let (a, b, c, x, y) = (glyphs(3), glyphs(4), glyphs(5), glyphs(6), glyphs(7));
        let mut runs = AreaRuns::default();
        runs.follow(&[area(&a), area(&b), area(&c)]);
        tag(&mut runs, &source);
        assert!(!runs.follow(&[area(&b), area(&x), area(&y)]));
        assert_eq!(tags(&runs), vec![Some(1), Some(0), Some(2)]);
    }

    #[test]
    fn a_run_placed_the_same_way_twice_is_kept_placed_and_counted() {
        let glyphs = glyphs(5);
        let (run, other) = (GlyphRun::new(glyphs.clone()), GlyphRun::new(glyphs.clone()));
        let at = |r, left: f32| TextArea::run(r, left, 3.5).with_scale(2.0);
        let mut slot = None;
        assert!(Placed::glyphs(&mut slot, &run, &at(&run, 10.25)).is_none(), "placed once");
        let placed = Placed::glyphs(&mut slot, &run, &at(&run, 10.25)).unwrap().clone();
        // Placed as the area places: scaled, then moved by its offset.
        for (p, g) in placed.iter().zip(&glyphs) {
            assert_eq!((p.x, p.y, p.size), (10.25 + 2.0 * g.x, 3.5 + 2.0 * g.y, 32.0));
        }
        assert_eq!(placed.len(), 5);
        let bytes = 5 * std::mem::size_of::<PositionedGlyph>();
        assert_eq!(slot.as_ref().unwrap().heap_bytes(), bytes);
        let third = Placed::glyphs(&mut slot, &run, &at(&run, 10.25)).unwrap();
        assert!(third.same_as(&placed), "the kept run, known by reference");
        // Placed elsewhere, or another run at the same place: placed anew.
        assert!(Placed::glyphs(&mut slot, &run, &at(&run, 11.0)).is_none());
        assert!(Placed::glyphs(&mut slot, &other, &at(&other, 11.0)).is_none());
        let again = Placed::glyphs(&mut slot, &other, &at(&other, 11.0)).unwrap();
        assert_eq!(again[0].x, 11.0 + 2.0 * glyphs[0].x);
        // An area's run's bytes: its retained run's and its placed glyphs'.
        let area = AreaRun { run: RetainedRun::default(), placed: slot };
        assert_eq!(area.heap_bytes(), bytes);
        assert_eq!(AreaRun::default().heap_bytes(), 0);
    }
}
