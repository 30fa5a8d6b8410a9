//! Lookup in an atlas: a batch of requests becomes quads (hits from the key
//! memo or the LRU map, misses rendered and placed), and a single key becomes
//! an entry. Both go through [`Atlas::probe`], the one place that marks a
//! glyph used and decides whether it must move off a retiring page first.

use crate::atlas::entry::GlyphEntry;
use crate::atlas::memo::RunTag;
use crate::atlas::request::{PositionedReq, Request};
use crate::atlas::{Atlas, Render};
use crate::config::MAX_SUBPIXEL_BINS;
use crate::error::GlyphError;
use crate::key::{FontId, GlyphKey, GlyphSize, KeyMap, KeySet, RenderMode, LCD_MAX_PX};
use crate::quad::{GlyphQuad, QuadFlags};
use crate::subpixel::bin_offset;
use crate::text::Skipped;

/// A key the LRU map holds, as [`Atlas::probe`] found it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Found {
    pub(crate) entry: GlyphEntry,
    /// The glyph is in tiles ([`Atlas::tiles`]).
    pub(crate) tiled: bool,
    /// The glyph is on a retiring page (never remembered by the memo).
    pub(crate) retiring: bool,
    /// This is its first use in the frame on a retiring page: it moves
    /// ([`relocate`](Atlas::relocate)) before it is drawn.
    pub(crate) moves: bool,
}

impl Atlas {
    /// Looks `key` up in the LRU map: on a hit, marks it used in this frame
    /// (one hash probe that also moves it to the front of the LRU list) and
    /// says whether it must move first. A glyph an earlier batch of this
    /// frame drew never moves: its slot must not be freed while the frame's
    /// quads still point at it.
    #[inline]
    pub(crate) fn probe(&mut self, key: &GlyphKey) -> Option<Found> {
        let frame = self.frame;
        let retiring_from = self.retiring;
        let slot = self.map.get_mut(key)?;
        let previous = std::mem::replace(&mut slot.last_used, frame);
        let retiring = retiring_from.is_some_and(|r| slot.entry.page as usize >= r);
        let blank = slot.entry.is_blank();
        Some(Found {
            entry: slot.entry,
            tiled: slot.tiled(),
            retiring,
            moves: retiring && previous != frame && !blank,
        })
    }

    /// The key a batch in `mode` looks `r` up by (`None`: its size is invalid).
    pub(crate) fn key_of(&self, r: &PositionedReq, mode: RenderMode) -> Option<GlyphKey> {
        let (size, mode) = self.run_of(mode)(r.size)?;
        let subpixel_x = r.snap(self.bins.now()).1;
        Some(GlyphKey { font: r.font, glyph: r.glyph, size, mode, subpixel_x })
    }

    /// Looks one key up, rendering and placing it on a miss.
    pub(crate) fn lookup(
        &mut self, key: GlyphKey, render: &impl Render,
    ) -> Result<GlyphEntry, GlyphError> {
        self.stats.lookups += 1;
        if let Some(found) = self.probe(&key) {
            self.stats.hits += 1;
            return Ok(if found.moves { self.relocate(key, render) } else { found.entry });
        }
        self.stats.misses += 1;
        let placed = self.fill(&[key], render).pop().unwrap_or(Err(GlyphError::AtlasFull));
        if let Err(err) = &placed {
            self.stats.skipped += 1;
            if *err == GlyphError::AtlasFull {
                self.bins.full(self.frame);
            }
        }
        placed
    }

    /// Looks a batch up and appends its quads to `out` in input order:
    /// every request of `reqs` but those whose indices `skip` lists
    /// (ascending; drawn by the other atlas). Every request of a batch has
    /// the same mode: the cache's for glyphs, [`RenderMode::Lcd`] for LCD
    /// glyphs, [`RenderMode::Color`] for colour glyphs, [`RenderMode::Image`]
    /// for images. What cannot be drawn goes to `skipped`.
    ///
    /// Two passes: [`memo_pass`](Self::memo_pass) draws what the memo holds
    /// (in a warm frame, nearly everything) in a loop kept small, and leaves
    /// a placeholder for each other request; the map is asked for those
    /// here. Both passes see the map and the memo as the batch found them:
    /// nothing is evicted or moved until the misses are placed.
    pub(crate) fn run_batch<R: Request>(
        &mut self, reqs: &[R], skip: &[usize], out: &mut Vec<GlyphQuad>, mode: RenderMode,
        skipped: &mut Vec<Skipped>, render: &impl Render,
    ) {
        let frame = self.frame;
        let max_px = self.config.max_glyph_px;
        let (bins, fine) = (self.bins.now(), self.bins.configured());
        let pressed = bins < fine;
        if pressed {
            self.stats.degraded += self.coarser(reqs, skip);
        }
        let format_flags = self.format.quad_flags();
        let start = out.len();
        self.memo.sync(self.memo_epoch, frame, self.uses.queue());
        self.uses.apply(&mut self.map);
        let mut rest = std::mem::take(&mut self.unmemoized);
        rest.clear();
        let mut hits = self.memo_pass(reqs, skip, mode, out, &mut rest);
        let mut misses: Vec<(usize, usize, GlyphKey)> = Vec::new();
        let mut moves: Vec<(usize, usize, GlyphKey)> = Vec::new();
        let mut tiled_hits: Vec<(usize, GlyphKey, i32)> = Vec::new();
        let mut invalid = 0u64;
        // Placeholders left in `out` (blank glyphs, invalid sizes, glyphs
        // in tiles, failed misses), taken out at the end.
        let mut removed = 0usize;
        let run_of = self.run_of(mode);
        for &(slot, i) in &rest {
            let r = reqs[i].req();
            let Some((size, mode)) = run_of(r.size) else {
                invalid += 1;
                removed += 1;
                skipped.push(Skipped {
                    index: i,
                    key: None,
                    reason: GlyphError::InvalidSize { size: r.size, max: max_px },
                });
                continue;
            };
            let (whole_x, subpixel_x) = r.snap(bins);
            let key = GlyphKey { font: r.font, glyph: r.glyph, size, mode, subpixel_x };
            match self.probe(&key) {
                Some(found) => {
                    hits += 1;
                    let e = found.entry;
                    if e.is_blank() {
                        removed += 1;
                        if found.tiled {
                            tiled_hits.push((i, key, whole_x));
                        } else {
                            self.memo.put(&key, &e, frame, self.memo_epoch, self.uses.queue());
                        }
                    } else if found.moves {
                        moves.push((slot, i, key));
                    } else {
                        out[slot] = r.quad(&e, whole_x);
                        out[slot].flags = lcd_flag(mode) | format_flags;
                        // Glyphs on a retiring page are not remembered: each
                        // use looks them up, so the first use in a frame moves them.
                        if !found.retiring {
                            self.memo.put(&key, &e, frame, self.memo_epoch, self.uses.queue());
                        }
                    }
                }
                // Under pressure, the bin of the glyph already cached that
                // lands nearest the pen (its own configured bin if cached)
                // is drawn rather than a new bitmap made.
                None if pressed => match self.draw_nearest_bin(r, &key, whole_x, subpixel_x) {
                    Some(q) => {
                        hits += 1;
                        out[slot] = q;
                        out[slot].flags = lcd_flag(mode) | format_flags;
                    }
                    None => misses.push((slot, i, key)),
                },
                None => misses.push((slot, i, key)),
            }
            self.uses.apply(&mut self.map);
        }
        self.unmemoized = rest;
        self.stats.lookups += (reqs.len() - skip.len()) as u64;
        self.stats.hits += hits;
        self.stats.misses += misses.len() as u64 + invalid;
        self.stats.skipped += invalid;
        for &(slot, i, key) in &moves {
            let r = reqs[i].req();
            out[slot] = r.quad(&self.relocate(key, render), r.snap(bins).0);
            out[slot].flags = lcd_flag(key.mode) | format_flags;
        }
        // Glyphs in tiles: their quads go after the batch's others.
        for (i, key, whole_x) in tiled_hits {
            if let (Some(e), Some(tiles)) = (self.map.peek(&key), self.tiles.get(&key)) {
                let mut base = reqs[i].req().quad(&e.entry, whole_x);
                base.flags = format_flags;
                out.extend(tiles.iter().map(|t| t.quad(&base)));
            }
        }
        if !misses.is_empty() {
            removed += self.place_misses(reqs, misses, out, skipped, render);
        }
        if removed > 0 {
            let mut w = start;
            for r in start..out.len() {
                if out[r].flags != QuadFlags::PLACEHOLDER {
                    out[w] = out[r];
                    w += 1;
                }
            }
            out.truncate(w);
        }
    }

    /// The sizes of a batch in `mode`: a size's quantised form and the mode
    /// its glyphs are drawn in (LCD batches draw glyphs above
    /// [`LCD_MAX_PX`] in grayscale).
    fn run_of(&self, mode: RenderMode) -> impl Fn(f32) -> Option<(GlyphSize, RenderMode)> {
        let max_px = self.config.max_glyph_px;
        let lcd = mode == RenderMode::Lcd;
        let gray = self.config.render_mode();
        let lcd_max = GlyphSize::from_px(LCD_MAX_PX, f32::MAX).map_or(0, GlyphSize::steps);
        move |px| {
            GlyphSize::from_px(px, max_px).map(|size| match lcd {
                false => (size, mode),
                true if size.steps() <= lcd_max => (size, RenderMode::Lcd),
                true => (size, gray),
            })
        }
    }

    /// The first pass of [`run_batch`](Self::run_batch): the quad of every
    /// request the memo holds (none for a blank glyph), a placeholder for
    /// every other one, with its (quad slot, request index) in `rest`.
    /// Returns the memo's hits.
    #[inline(never)]
    fn memo_pass<R: Request>(
        &mut self, reqs: &[R], skip: &[usize], mode: RenderMode, out: &mut Vec<GlyphQuad>,
        rest: &mut Vec<(usize, usize)>,
    ) -> u64 {
        let (frame, epoch) = (self.frame, self.memo_epoch);
        let bins = self.bins.now();
        let format_flags = self.format.quad_flags();
        let run_of = self.run_of(mode);
        let mut hits = 0u64;
        // Runs of glyphs share a size: its quantised form, the mode it asks
        // for and its quads' flags are worked out once per run, not per
        // glyph; and the memo's tag of the run's font, size and mode once
        // per font in it.
        let mut run_px = f32::NAN.to_bits();
        let mut run: Option<(GlyphSize, RenderMode, QuadFlags)> = None;
        let mut tag_font = None;
        let mut tag = RunTag::new(FontId(0), GlyphSize(0), mode);
        let mut skip_rest = skip.iter();
        let mut next_skip = skip_rest.next().copied().unwrap_or(usize::MAX);
        out.reserve(reqs.len() - skip.len());
        for (i, r) in reqs.iter().enumerate() {
            if i == next_skip {
                next_skip = skip_rest.next().copied().unwrap_or(usize::MAX);
                continue;
            }
            let r = r.req();
            if r.size.to_bits() != run_px {
                run_px = r.size.to_bits();
                run =
                    run_of(r.size).map(|(size, mode)| (size, mode, lcd_flag(mode) | format_flags));
                tag_font = None;
            }
            if let Some((size, mode, flags)) = run {
                if tag_font != Some(r.font) {
                    tag_font = Some(r.font);
                    tag = RunTag::new(r.font, size, mode);
                }
                let (whole_x, subpixel_x) = r.snap(bins);
                // Found in the map since it last changed: no probe, no LRU
                // move (the use is written back before anything is evicted).
                if let Some(e) = self.memo.get_in(&tag, r.glyph, subpixel_x, epoch, frame) {
                    hits += 1;
                    if !e.is_blank() {
                        let mut q = r.quad(&e, whole_x);
                        q.flags = flags;
                        out.push(q);
                    }
                    continue;
                }
            }
            rest.push((out.len(), i));
            out.push(GlyphQuad::PLACEHOLDER);
        }
        hits
    }

    /// Renders and places a batch's missed glyphs and fills their quads
    /// (a glyph in tiles: its first tile in the glyph's place, the others
    /// after the batch). Returns how many placeholders stay (blank glyphs,
    /// glyphs that could not be placed: skipped and reported).
    fn place_misses<R: Request>(
        &mut self, reqs: &[R], misses: Vec<(usize, usize, GlyphKey)>, out: &mut Vec<GlyphQuad>,
        skipped: &mut Vec<Skipped>, render: &impl Render,
    ) -> usize {
        let bins = self.bins.now();
        let format_flags = self.format.quad_flags();
        // Unique missed keys, rendered (maybe in parallel), then placed in
        // order: each glyph's first bin seen, in first-seen order, before
        // any glyph's second. When the pages cannot hold them all, every
        // glyph then has a bin to draw the others from (`nearest_bin`)
        // instead of the first glyphs taking every bin and the last none.
        // Keys that differ only in `subpixel_x` are bins of one glyph. A key
        // indexes `keys` (first bins) or, flagged, `later`.
        let mut index: KeyMap<GlyphKey, (bool, usize)> =
            KeyMap::with_capacity_and_hasher(misses.len(), Default::default());
        let (mut keys, mut later): (Vec<GlyphKey>, Vec<GlyphKey>) = (Vec::new(), Vec::new());
        let mut glyphs: KeySet<GlyphKey> = KeySet::default();
        for &(_, _, key) in &misses {
            index.entry(key).or_insert_with(|| {
                if bins < 2 || glyphs.insert(GlyphKey { subpixel_x: 0, ..key }) {
                    keys.push(key);
                    (false, keys.len() - 1)
                } else {
                    later.push(key);
                    (true, later.len() - 1)
                }
            });
        }
        let firsts = keys.len();
        keys.extend(later);
        let at = |(second, i): (bool, usize)| if second { firsts + i } else { i };
        let placed = self.fill(&keys, render);
        let mut removed = 0usize;
        let mut extra: Vec<GlyphQuad> = Vec::new();
        for (slot, i, key) in misses {
            let r = reqs[i].req();
            match &placed[at(index[&key])] {
                Ok(e) if !e.is_blank() => {
                    out[slot] = r.quad(e, r.snap(bins).0);
                    out[slot].flags = lcd_flag(key.mode) | format_flags;
                }
                Ok(e) => match self.tiles.get(&key).map(Vec::as_slice) {
                    Some([first, rest @ ..]) => {
                        // A glyph in tiles: the first tile takes the glyph's
                        // place, the others go after the batch.
                        let mut base = r.quad(e, r.snap(bins).0);
                        base.flags = format_flags;
                        out[slot] = first.quad(&base);
                        extra.extend(rest.iter().map(|t| t.quad(&base)));
                    }
                    _ => removed += 1,
                },
                Err(err) => match self.no_room(r, &key, err) {
                    // No room for this bin: another bin of the glyph, cached,
                    // drawn as close to the pen as whole pixels allow
                    // (degraded, not skipped).
                    Some(q) => {
                        out[slot] = q;
                        out[slot].flags = lcd_flag(key.mode) | format_flags;
                    }
                    None => {
                        removed += 1;
                        self.stats.skipped += 1;
                        skipped.push(Skipped { index: i, key: Some(key), reason: err.clone() });
                    }
                },
            }
        }
        out.extend(extra);
        removed
    }
}

impl Atlas {
    /// For a key in a mode drawn at sub-pixel offsets, which the map does
    /// not hold: the entry of the cached bin (of the configured ones, other
    /// than the key's own) of the same glyph that lands nearest the pen x,
    /// marked used this frame, the whole pixel to draw it from (bin 0 one
    /// pixel right is nearer a pen at .8 than bin 0 in place: no glyph is
    /// drawn more than half a pixel off) and its offset. `None` when no
    /// such bin is cached whole on a page that stays.
    fn nearest_bin(&mut self, key: &GlyphKey, x: f32) -> Option<(GlyphEntry, i32, u8)> {
        let bins = self.bins.configured();
        if bins < 2 || !matches!(key.mode, RenderMode::ShiftedCoverage | RenderMode::Lcd) {
            return None;
        }
        // Each bin's offset, the whole pixel it is drawn from and how far
        // from the pen that lands.
        let base = x.floor();
        let frac = x - base;
        let mut near = [(0u8, 0i32, f32::MAX); MAX_SUBPIXEL_BINS as usize];
        let mut n = 0;
        for o in (0..bins).map(|b| bin_offset(b, bins)).filter(|&o| o != key.subpixel_x) {
            let d = f32::from(o) / 256.0 - frac;
            let carry = if d > 0.5 { -1 } else { i32::from(d < -0.5) };
            near[n] = (o, (base as i32).saturating_add(carry), (d + carry as f32).abs());
            n += 1;
        }
        let near = &mut near[..n];
        near.sort_unstable_by(|a, b| a.2.total_cmp(&b.2));
        near.iter().find_map(|&(o, whole, _)| {
            let sibling = GlyphKey { subpixel_x: o, ..*key };
            let found = self.probe(&sibling)?;
            (!found.moves && !found.tiled && !found.entry.is_blank()).then_some((
                found.entry,
                whole,
                o,
            ))
        })
    }

    /// `r` (whose key is `key`, at `(whole_x, subpixel_x)` by the bins in
    /// use) drawn from [`nearest_bin`](Self::nearest_bin), counted degraded
    /// unless that is its configured bin. [`coarser`](Self::coarser)
    /// counted it already where the bins in use move it.
    fn draw_nearest_bin(
        &mut self, r: PositionedReq, key: &GlyphKey, whole_x: i32, subpixel_x: u8,
    ) -> Option<GlyphQuad> {
        let (e, whole, offset) = self.nearest_bin(key, r.x)?;
        let fine = r.snap(self.bins.configured());
        let (moved, exact) = ((whole_x, subpixel_x) != fine, (whole, offset) == fine);
        match (exact, moved) {
            (true, true) => self.stats.degraded = self.stats.degraded.saturating_sub(1),
            (false, false) => self.stats.degraded += 1,
            _ => {}
        }
        Some(r.quad(&e, whole))
    }

    /// A key failed with `err`: where the atlas had no room, its bins halve
    /// from the next frame on (bins.rs), and the request is drawn from
    /// [`nearest_bin`](Self::nearest_bin) if there is one.
    fn no_room(&mut self, r: PositionedReq, key: &GlyphKey, err: &GlyphError) -> Option<GlyphQuad> {
        if *err != GlyphError::AtlasFull {
            return None;
        }
        self.bins.full(self.frame);
        let (whole_x, subpixel_x) = r.snap(self.bins.now());
        self.draw_nearest_bin(r, key, whole_x, subpixel_x)
    }

    /// How many of `reqs` (but those `skip` lists) the bins in use now put
    /// at another place than the configured bins would: drawn degraded.
    fn coarser<R: Request>(&self, reqs: &[R], skip: &[usize]) -> u64 {
        let (now, fine) = (self.bins.now(), self.bins.configured());
        let moved = |r: &R| r.req().snap(now) != r.req().snap(fine);
        let all = reqs.iter().filter(|r| moved(r)).count();
        (all - skip.iter().filter(|&&i| moved(&reqs[i])).count()) as u64
    }
}

/// [`QuadFlags::LCD`] for the quads of LCD keys, none for others.
#[inline]
fn lcd_flag(mode: RenderMode) -> QuadFlags {
    if mode == RenderMode::Lcd {
        QuadFlags::LCD
    } else {
        QuadFlags::NONE
    }
}
