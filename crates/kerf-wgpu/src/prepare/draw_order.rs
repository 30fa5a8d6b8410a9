//! The order a renderer's axis-aligned quads are drawn in. Coverage quads
//! and colour quads (colour emoji, the app's images) are drawn by separate
//! pipelines, so that no fragment branches on its quad's kind; each switch
//! between the two is a draw of its own. Text with an emoji on every line
//! alternates kinds line by line, and on lavapipe those draws cost more
//! than the text (the multi-script window: 1.75 ms a frame with a run per
//! kind change, 1.00 ms with two runs). So the colour quads move after the
//! coverage quads — two draws — wherever that leaves every pixel the same:
//! when no coverage quad drawn after a colour quad overlaps it. Otherwise
//! the quads keep their order, drawn as runs of one kind.

use kerf_cache::{GlyphQuad, QuadFlags};
use std::ops::Range;

/// The draw order of one renderer's quads, with its scratch space.
#[derive(Debug, Default)]
pub(crate) struct DrawOrder {
    /// The instances as runs of one kind, in order: (range, colour quads).
    pub(crate) runs: Vec<(Range<u32>, bool)>,
    /// The colour quads' rectangles met so far (scratch).
    rects: Vec<[i32; 4]>,
    /// The colour quads while the coverage quads move up (scratch).
    moved: Vec<GlyphQuad>,
    /// Whether the last [`colour_last`](Self::colour_last) moved any quad.
    pub(crate) reordered: bool,
}

/// True for an instance's page on a colour page.
pub(crate) fn is_colour(page: u32) -> bool {
    page & kerf_cache::COLOR_PAGE_BIT != 0
}

/// True for a colour quad.
fn quad_is_colour(q: &GlyphQuad) -> bool {
    q.flags.contains(QuadFlags::COLOR)
}

/// A quad's pixels: left, top, right, bottom (half-open).
fn rect(q: &GlyphQuad) -> [i32; 4] {
    [q.x, q.y, q.x.saturating_add(q.width.into()), q.y.saturating_add(q.height.into())]
}

fn overlap(a: &[i32; 4], b: &[i32; 4]) -> bool {
    a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]
}

impl DrawOrder {
    /// Moves the colour quads of `quads` after its coverage quads, each
    /// kind in its order, when no coverage quad after a colour quad
    /// overlaps it (the result is then the same pixel for pixel). Returns
    /// whether the quads are now in two runs at most.
    pub(crate) fn colour_last(&mut self, quads: &mut [GlyphQuad]) -> bool {
        self.rects.clear();
        self.reordered = false;
        // The colour quads' bounding box so far: most coverage quads miss it.
        let mut union = [i32::MAX, i32::MAX, i32::MIN, i32::MIN];
        let mut out_of_order = false;
        for q in quads.iter() {
            let r = rect(q);
            if quad_is_colour(q) {
                union = [
                    union[0].min(r[0]),
                    union[1].min(r[1]),
                    union[2].max(r[2]),
                    union[3].max(r[3]),
                ];
                self.rects.push(r);
            } else if !self.rects.is_empty() {
                out_of_order = true;
                if overlap(&union, &r) && self.rects.iter().any(|c| overlap(c, &r)) {
                    return false;
                }
            }
        }
        if out_of_order {
            // A stable partition: coverage quads up in place, colour after
            // (the quads before the first colour one stay where they are).
            self.moved.clear();
            let first = quads.iter().position(quad_is_colour).unwrap_or(quads.len());
            let mut w = first;
            for i in first..quads.len() {
                if quad_is_colour(&quads[i]) {
                    self.moved.push(quads[i]);
                } else {
                    quads[w] = quads[i];
                    w += 1;
                }
            }
            quads[w..].copy_from_slice(&self.moved);
            self.reordered = true;
        }
        true
    }

    /// Splits the instances' pages (in order) into runs of one kind: drawn
    /// in order, they keep the painter's order of quads that overlap.
    pub(crate) fn split(&mut self, pages: impl Iterator<Item = u32>) {
        self.runs.clear();
        runs_of(pages.map(is_colour), 0, |range, colour| self.runs.push((range, colour)));
    }
}

/// Hands `run` each run of one kind among `kinds` (quads' kinds, in order),
/// numbered from `first`: (range, kind). Axis-aligned quads are split by
/// `is_colour` of their pages, transformed ones by the three kinds of
/// sampled quad (sampled.rs).
pub(crate) fn runs_of<K: Copy + PartialEq>(
    kinds: impl Iterator<Item = K>, first: u32, mut run: impl FnMut(Range<u32>, K),
) {
    let mut open: Option<(Range<u32>, K)> = None;
    for (i, kind) in (first..).zip(kinds) {
        match &mut open {
            Some((range, k)) if *k == kind => range.end = i + 1,
            _ => {
                if let Some((range, k)) = open.replace((i..i + 1, kind)) {
                    run(range, k);
                }
            }
        }
    }
    if let Some((range, k)) = open {
        run(range, k);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quad(x: i32, colour: bool) -> GlyphQuad {
        GlyphQuad {
            x,
            y: 0,
            width: 10,
            height: 10,
            page: 3,
            flags: if colour { QuadFlags::COLOR } else { QuadFlags::default() },
            ..GlyphQuad::default()
        }
    }

    /// The instances' pages, as the renderer splits them.
    fn pages(q: &[GlyphQuad]) -> Vec<u32> {
        q.iter().map(|q| crate::draw::vertex::GlyphInstance::from(q).page).collect()
    }

    #[test]
    fn runs_cover_every_instance_in_order_one_kind_each() {
        let mut order = DrawOrder::default();
        order.split(std::iter::empty());
        assert!(order.runs.is_empty());
        let kinds = [false, false, true, false, true, true, false];
        let quads: Vec<_> = kinds.iter().map(|&c| quad(0, c)).collect();
        order.split(pages(&quads).into_iter());
        assert_eq!(
            order.runs,
            vec![(0..2, false), (2..3, true), (3..4, false), (4..6, true), (6..7, false)]
        );
        order.split(pages(&quads[..2]).into_iter());
        assert_eq!(order.runs, vec![(0..2, false)]);
        // Numbered from where a transformed area's quads start.
        let mut runs = Vec::new();
        runs_of(pages(&quads[2..5]).into_iter().map(is_colour), 10, |r, c| runs.push((r, c)));
        assert_eq!(runs, vec![(10..11, true), (11..12, false), (12..13, true)]);
    }

    /// Lines that end in an emoji: the emoji move after the text, each kind
    /// in its own order, two runs.
    #[test]
    fn colour_quads_move_last_where_nothing_drawn_after_covers_them() {
        let mut quads =
            vec![quad(0, false), quad(10, false), quad(20, true), quad(30, false), quad(40, true)];
        let before = quads.clone();
        let mut order = DrawOrder::default();
        assert!(order.colour_last(&mut quads));
        let xs: Vec<i32> = quads.iter().map(|q| q.x).collect();
        assert_eq!(xs, [0, 10, 30, 20, 40]);
        order.split(pages(&quads).into_iter());
        assert_eq!(order.runs, vec![(0..3, false), (3..5, true)]);
        // Nothing lost or made up.
        let mut a = before.clone();
        a.sort_by_key(|q| q.x);
        let mut b = quads.clone();
        b.sort_by_key(|q| q.x);
        assert_eq!(a, b);
    }

    /// A glyph drawn over an emoji (an underline through it, a combining
    /// mark) must stay over it: nothing moves.
    #[test]
    fn a_coverage_quad_over_an_earlier_colour_quad_keeps_the_order() {
        let mut quads = vec![quad(0, false), quad(20, true), quad(25, false), quad(40, false)];
        let before = quads.clone();
        let mut order = DrawOrder::default();
        assert!(!order.colour_last(&mut quads));
        assert_eq!(quads, before);
        // Touching edges do not overlap (half-open rectangles).
        let mut quads = vec![quad(0, true), quad(10, false), quad(20, true)];
        assert!(order.colour_last(&mut quads));
        assert_eq!(quads.iter().map(|q| q.x).collect::<Vec<_>>(), [10, 0, 20]);
        // A coverage quad under a later colour quad may move up: it stays under.
        let mut quads = vec![quad(0, true), quad(50, false), quad(55, true), quad(60, false)];
        assert!(!order.colour_last(&mut quads), "the last glyph overlaps the emoji before it");
        let mut quads = vec![quad(50, false), quad(55, true), quad(0, false)];
        assert!(order.colour_last(&mut quads));
        assert_eq!(quads.iter().map(|q| q.x).collect::<Vec<_>>(), [50, 0, 55]);
    }

    /// Only a real overlap keeps the order: a glyph touching an emoji on any
    /// side, or inside the emoji's bounding box but between two emoji, does not.
    #[test]
    fn touching_or_between_emoji_is_not_an_overlap() {
        let at = |x: i32, y: i32, colour: bool| GlyphQuad { y, ..quad(x, colour) };
        let mut order = DrawOrder::default();
        for (x, y) in [(-10, 0), (10, 0), (0, -10), (0, 10)] {
            let mut quads = vec![at(0, 0, true), at(x, y, false)];
            assert!(order.colour_last(&mut quads), "a glyph at ({x}, {y}) touches the emoji");
            assert!(!quad_is_colour(&quads[0]) && quad_is_colour(&quads[1]));
            let mut quads = vec![at(0, 0, true), at(x / 2, y / 2, false)];
            assert!(!order.colour_last(&mut quads), "a glyph at ({x}, {y})/2 overlaps it");
        }
        let mut quads = vec![at(0, 0, true), at(40, 0, true), at(20, 0, false)];
        assert!(order.colour_last(&mut quads), "between two emoji, over neither");
        assert_eq!(quads.iter().map(|q| q.x).collect::<Vec<_>>(), [20, 0, 40]);
    }
}
