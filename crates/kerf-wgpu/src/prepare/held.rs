//! Last `prepare`'s quads, kept so that an area drawn exactly as last time
//! is copied from them (consecutive such areas in one copy) instead of
//! reading its retained run's record again: a panel of hundreds of labels
//! of which a few change a frame reads the few
//! (`kerf_cache::Frame::prepare_run_held` says when an area's quads are
//! last time's). The first quads, up to the first area not held where it
//! lay, are last time's where they were: the instances are compared from
//! there on.

use kerf_cache::GlyphQuad;
use std::ops::Range;

/// Last `prepare`'s quads and where each area's lay, and this one's spans
/// as its areas are collected.
#[derive(Debug, Default)]
pub(crate) struct HeldQuads {
    /// Last prepare's quads, in the order its areas made them.
    last: Vec<GlyphQuad>,
    /// Where each area's quads lay in `last` (by area index), for the
    /// areas that got a stamp (their quads a retained run's reuse).
    spans: Vec<Option<Range<u32>>>,
    /// This prepare's spans, as its areas are collected.
    next: Vec<Option<Range<u32>>>,
    /// Whether `last` and `spans` describe this prepare's areas: the same
    /// areas at the same indices, and last time's quads kept in area order.
    usable: bool,
    /// Whether this prepare's quads are still in area order (false once the
    /// draw order moved colour quads after the others).
    in_order: bool,
    /// A copy from `last` not made yet: consecutive held areas' quads,
    /// appended in one go before anything else is.
    pending: Option<Range<usize>>,
    /// How many first quads are last time's, in place: those of the first
    /// areas, each held where its quads lay last time.
    in_place: usize,
    /// Whether every area so far was held in place (`in_place` grows).
    growing: bool,
}

impl HeldQuads {
    /// Starts a `prepare` of `areas` areas: `quads` (last prepare's quads,
    /// which become `last`) is emptied for this one's. `same_areas`: the
    /// areas are the last prepare's, at the same indices.
    pub fn begin(&mut self, quads: &mut Vec<GlyphQuad>, same_areas: bool, areas: usize) {
        std::mem::swap(quads, &mut self.last);
        quads.clear();
        self.usable = same_areas && self.in_order;
        self.in_order = true;
        self.next.clear();
        self.next.resize(areas, None);
        self.pending = None;
        (self.in_place, self.growing) = (0, true);
    }

    /// Whether area `n` may be held: its quads of last time are kept.
    pub fn has(&self, n: usize) -> bool {
        self.usable && self.spans.get(n).is_some_and(Option::is_some)
    }

    /// Area `n` was held (its quads are last time's): they go into this
    /// prepare's quads after `quads`, copied with the held areas around it.
    pub fn hold(&mut self, n: usize, quads: &mut Vec<GlyphQuad>) {
        let Some(span) = self.spans.get(n).cloned().flatten().filter(|_| self.usable) else {
            return;
        };
        let span = span.start as usize..span.end as usize;
        if self.pending.as_ref().is_some_and(|p| p.end != span.start) {
            self.flush(quads);
        }
        let start = quads.len() + self.pending.as_ref().map_or(0, Range::len);
        // (While every area so far was held in place, `start` is `in_place`.)
        self.growing &= self.in_place == span.start;
        if self.growing {
            self.in_place = span.end;
        }
        self.pending = Some(self.pending.take().map_or(span.start, |p| p.start)..span.end);
        self.stamped(n, start..start + span.len());
    }

    /// Makes the pending copy.
    pub fn flush(&mut self, quads: &mut Vec<GlyphQuad>) {
        if let Some(p) = self.pending.take() {
            quads.extend_from_slice(self.last.get(p).unwrap_or_default());
        }
    }

    /// An area not held appended its quads to `quads` from `start` on,
    /// maybe with a pending copy not made: the copy goes in before them.
    /// Where the area's quads start now.
    pub fn settle(&mut self, quads: &mut Vec<GlyphQuad>, start: usize) -> usize {
        self.growing = false;
        let before = quads.len();
        self.flush(quads);
        let len = quads.len() - before;
        if let Some(tail) = quads.get_mut(start..) {
            tail.rotate_right(len);
        }
        start + len
    }

    /// Area `n`'s quads, at `at` in this prepare's, got a stamp: they may
    /// be held next time.
    pub fn stamped(&mut self, n: usize, at: Range<usize>) {
        if let (Some(slot), Ok(start), Ok(end)) =
            (self.next.get_mut(n), u32::try_from(at.start), u32::try_from(at.end))
        {
            *slot = Some(start..end);
        }
    }

    /// Ends the collection: the pending copy is made and this prepare's
    /// spans become the ones held next time. Returns how many first quads
    /// are last prepare's, where they were.
    pub fn end(&mut self, quads: &mut Vec<GlyphQuad>) -> usize {
        self.flush(quads);
        std::mem::swap(&mut self.spans, &mut self.next);
        if self.usable {
            self.in_place
        } else {
            0
        }
    }

    /// This prepare's quads were put in another order than their areas'
    /// (colour quads last): none can be held next time.
    pub fn reordered(&mut self) {
        self.in_order = false;
    }

    /// Bytes its buffers reserve.
    pub fn heap_bytes(&self) -> usize {
        self.last.capacity() * std::mem::size_of::<GlyphQuad>()
            + (self.spans.capacity() + self.next.capacity())
                * std::mem::size_of::<Option<Range<u32>>>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(x: i32) -> GlyphQuad {
        GlyphQuad { x, width: 1, height: 1, ..GlyphQuad::default() }
    }

    fn xs(quads: &[GlyphQuad]) -> Vec<i32> {
        quads.iter().map(|q| q.x).collect()
    }

    /// One prepare: each area either held (`None`) or collected anew with
    /// these quads (stamped when `true`). The quads and the in-place prefix.
    fn prepare(
        h: &mut HeldQuads, quads: &mut Vec<GlyphQuad>, same: bool,
        areas: &[Option<(Vec<i32>, bool)>],
    ) -> usize {
        h.begin(quads, same, areas.len());
        for (n, a) in areas.iter().enumerate() {
            match a {
                None => {
                    assert!(h.has(n), "area {n} can be held");
                    h.hold(n, quads);
                }
                Some((new, stamp)) => {
                    // As the renderer does: appended, then settled.
                    let start = quads.len();
                    quads.extend(new.iter().map(|&x| q(x)));
                    let start = h.settle(quads, start);
                    if *stamp {
                        h.stamped(n, start..quads.len());
                    }
                }
            }
        }
        h.end(quads)
    }

    #[test]
    fn held_areas_are_copied_from_last_time_and_the_rest_in_order() {
        let (mut h, mut quads) = (HeldQuads::default(), Vec::new());
        let a = |v: &[i32]| Some((v.to_vec(), true));
        let p = prepare(&mut h, &mut quads, false, &[a(&[1, 2]), a(&[3]), a(&[4, 5, 6]), a(&[7])]);
        assert_eq!((xs(&quads), p), (vec![1, 2, 3, 4, 5, 6, 7], 0));
        // All held: the same quads, all in place.
        let p = prepare(&mut h, &mut quads, true, &[None, None, None, None]);
        assert_eq!((xs(&quads), p), (vec![1, 2, 3, 4, 5, 6, 7], 7));
        // The third area grows: the first two in place, the last shifted.
        let p = prepare(&mut h, &mut quads, true, &[None, None, a(&[40, 50, 60, 61]), None]);
        assert_eq!((xs(&quads), p), (vec![1, 2, 3, 40, 50, 60, 61, 7], 3));
        // The first shrinks; the rest held, shifted (the grown area too).
        let p = prepare(&mut h, &mut quads, true, &[a(&[9]), None, None, None]);
        assert_eq!((xs(&quads), p), (vec![9, 3, 40, 50, 60, 61, 7], 0));
        // An area not stamped cannot be held next time.
        prepare(&mut h, &mut quads, true, &[None, Some((vec![8], false)), None, None]);
        assert_eq!(xs(&quads), [9, 8, 40, 50, 60, 61, 7]);
        h.begin(&mut quads, true, 4);
        assert!(h.has(0) && !h.has(1) && h.has(2));
        // Other areas (or quads written in another order): nothing held.
        h.end(&mut quads);
        let all_new = [a(&[1]), a(&[2]), a(&[3]), a(&[4])];
        prepare(&mut h, &mut quads, true, &all_new);
        h.begin(&mut quads, false, 4);
        assert!(!h.has(0), "other areas");
        h.hold(0, &mut quads);
        assert_eq!(h.end(&mut quads), 0);
        assert!(quads.is_empty(), "nothing held");
        prepare(&mut h, &mut quads, true, &all_new);
        h.reordered();
        h.begin(&mut quads, true, 4);
        assert!(!h.has(0), "last time's quads were reordered");
        h.end(&mut quads);
        prepare(&mut h, &mut quads, true, &all_new);
        h.begin(&mut quads, true, 4);
        assert!(h.has(0), "in order again");
    }

    #[test]
    fn its_buffers_are_counted() {
        let (mut h, mut quads) = (HeldQuads::default(), Vec::new());
        assert_eq!(h.heap_bytes(), 0);
        let a = |v: &[i32]| Some((v.to_vec(), true));
        prepare(&mut h, &mut quads, false, &[a(&[1, 2, 3]), a(&[4, 5, 6, 7])]);
        prepare(&mut h, &mut quads, true, &[None, None]);
        // Last time's seven quads, and two areas' spans twice over.
        let least =
            7 * std::mem::size_of::<GlyphQuad>() + 4 * std::mem::size_of::<Option<Range<u32>>>();
        assert!(h.heap_bytes() >= least, "{} < {least}", h.heap_bytes());
        assert!(h.heap_bytes() <= 4 * least, "{}", h.heap_bytes());
        // Fifty areas of a quad each: fifty quads and a hundred spans (the
        // two span lists' lengths added, not multiplied).
        let many: Vec<_> = (0..50).map(|x| a(&[x])).collect();
        prepare(&mut h, &mut quads, false, &many);
        prepare(&mut h, &mut quads, false, &many);
        let least =
            50 * std::mem::size_of::<GlyphQuad>() + 100 * std::mem::size_of::<Option<Range<u32>>>();
        assert!(h.heap_bytes() >= least, "{} < {least}", h.heap_bytes());
        assert!(h.heap_bytes() <= 4 * least, "{}", h.heap_bytes());
    }

    #[test]
    fn held_areas_around_one_without_quads_are_copied_apart() {
        let (mut h, mut quads) = (HeldQuads::default(), Vec::new());
        let a = |v: &[i32]| Some((v.to_vec(), true));
        prepare(&mut h, &mut quads, false, &[a(&[1]), a(&[2, 3]), a(&[4])]);
        // The middle area makes no quads here (as a transformed area's go
        // elsewhere): the two held around it are not one copy.
        h.begin(&mut quads, true, 3);
        h.hold(0, &mut quads);
        h.hold(2, &mut quads);
        assert_eq!(h.end(&mut quads), 1, "the first in place, the last moved up");
        assert_eq!(xs(&quads), [1, 4]);
        h.begin(&mut quads, true, 3);
        assert!(h.has(0) && !h.has(1) && h.has(2));
        h.hold(0, &mut quads);
        h.hold(2, &mut quads);
        assert_eq!((h.end(&mut quads), xs(&quads)), (2, vec![1, 4]));
    }

    #[test]
    fn a_held_area_after_a_new_one_is_copied_after_it() {
        let (mut h, mut quads) = (HeldQuads::default(), Vec::new());
        let a = |v: &[i32]| Some((v.to_vec(), true));
        prepare(&mut h, &mut quads, false, &[a(&[1]), a(&[2, 3]), a(&[4])]);
        // Held, new, held, then the same areas swapped round by holds
        // out of order (a flush between them).
        let p = prepare(&mut h, &mut quads, true, &[None, a(&[5]), None]);
        assert_eq!((xs(&quads), p), (vec![1, 5, 4], 1));
        let p = prepare(&mut h, &mut quads, true, &[None, None, None]);
        assert_eq!((xs(&quads), p), (vec![1, 5, 4], 3));
    }
}
