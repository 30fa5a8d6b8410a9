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

use crate::area::{TextArea, TextBounds, TextContent};
use kerf_cache::RetainedRun;
use std::collections::HashMap;

/// How an area drawn from its retained run was placed: with the same stamp
/// and the same recorded quads, its instances are the same.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct AreaStamp {
    pub left: u32,
    pub top: u32,
    pub scale: u32,
    pub bounds: TextBounds,
    pub lcd: bool,
}

/// Where an area's glyphs lie (address, length); `None` for a string or
/// images, which no run follows.
type Slice = Option<(usize, usize)>;

/// Per area (by index in `prepare`'s slice): its retained run and stamp.
#[derive(Debug, Default)]
pub(crate) struct AreaRuns {
    /// Each area's glyphs' run, kept from frame to frame.
    pub runs: Vec<RetainedRun>,
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
        TextContent::Run(r) if !r.is_empty() => Some((r.as_ptr() as usize, r.len())),
        _ => None,
    }
}

impl AreaRuns {
    /// Arranges the runs and stamps for `texts`: an area showing a slice
    /// that another index showed last time takes that index's run and
    /// stamp; the others take the runs left over (their allocations and
    /// atlas slots reused) with no stamp. Returns true when every area kept
    /// its index (and so its stamp says what its instances were).
    pub fn follow(&mut self, texts: &[TextArea<'_>]) -> bool {
        self.next.clear();
        self.next.extend(texts.iter().map(slice_of));
        let kept = self.next == self.slices;
        if !kept {
            self.rearrange();
        }
        std::mem::swap(&mut self.slices, &mut self.next);
        self.runs.resize_with(texts.len(), RetainedRun::default);
        let same_count = self.stamps.len() == texts.len();
        self.stamps.resize(texts.len(), None);
        kept && same_count
    }

    /// Moves each run to the index now showing the slice it prepared.
    fn rearrange(&mut self) {
        let old_len = self.runs.len().min(self.slices.len());
        let mut taken = vec![false; old_len];
        // Where each area's slice was last time: first where the last
        // match's shift puts it (a scrolled list moves every line alike),
        // else looked up.
        let mut at: Option<HashMap<(usize, usize), usize>> = None;
        let mut shift = 0isize;
        let from: Vec<Option<usize>> = (0..self.next.len())
            .map(|n| {
                let s = self.next[n]?;
                let guess = usize::try_from(n as isize + shift).ok().filter(|&m| m < old_len);
                let m = match guess {
                    Some(m) if self.slices[m] == Some(s) && !taken[m] => m,
                    _ => {
                        let at = at.get_or_insert_with(|| {
                            let last = self.slices[..old_len].iter().enumerate();
                            last.filter_map(|(i, s)| s.map(|s| (s, i))).collect()
                        });
                        at.get(&s).copied().filter(|&m| !taken[m])?
                    }
                };
                taken[m] = true;
                shift = m as isize - n as isize;
                Some(m)
            })
            .collect();
        let mut old = std::mem::take(&mut self.runs);
        let old_stamps = std::mem::take(&mut self.stamps);
        // The areas no run followed take the runs left over, in order.
        let mut left = (0..old_len).filter(|&m| !taken[m]);
        for m in from {
            let stamp = m.and_then(|m| old_stamps.get(m).copied().flatten());
            let run = m.or_else(|| left.next()).map(|m| std::mem::take(&mut old[m]));
            self.runs.push(run.unwrap_or_default());
            self.stamps.push(stamp);
        }
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
        Some(AreaStamp { left, top: 0, scale: 0, bounds: TextBounds::default(), lcd: false })
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
}
