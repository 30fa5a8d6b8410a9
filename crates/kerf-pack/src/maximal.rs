//! The maximal rectangles of a union of rectangles, by coordinate
//! compression: what MaxRects recomputes around a freed slot, and a slow
//! reference (every maximal free rect of a bin) for tests and tools.

use crate::colbits as bits;
use crate::geom::Rect;
use alloc::vec::Vec;

/// [`maximal_rects_crossing_into`]'s buffers: the grid's edges and its cells.
#[derive(Default)]
pub(crate) struct Grid {
    xs: Vec<u32>,
    ys: Vec<u32>,
    store: Vec<bits::Word>,
}
/// [`maximal_rects_crossing_into`] into a new vector.
#[cfg(test)]
pub(crate) fn maximal_rects_crossing(pieces: &[Rect], target: &Rect) -> Vec<Rect> {
    let mut found = Vec::new();
    maximal_rects_crossing_into(pieces, target, &mut Grid::default(), &mut found);
    found
}

/// The maximal rectangles of the union of `pieces` that share pixels with
/// `target`, by coordinate compression: the union's edges cut the plane into
/// a grid of cells, each wholly inside or outside the union. Each row of
/// cells is a bitset (64 columns a word); for each top row the rows below are
/// ANDed into the open columns, and each run of open columns is a rect that
/// cannot grow sideways — kept if it cannot grow up or down either and
/// crosses `target`.
///
/// Into `found` (cleared first), with `grid`'s buffers: no allocation once
/// they have grown.
pub(crate) fn maximal_rects_crossing_into(
    pieces: &[Rect], target: &Rect, grid: &mut Grid, found: &mut Vec<Rect>,
) {
    found.clear();
    let Grid { xs, ys, store } = grid;
    xs.clear();
    xs.extend(pieces.iter().flat_map(|r| [r.x, r.right()]));
    ys.clear();
    ys.extend(pieces.iter().flat_map(|r| [r.y, r.bottom()]));
    xs.sort_unstable();
    xs.dedup();
    ys.sort_unstable();
    ys.dedup();
    // One word is the common case (a freed slot and the free rects touching
    // it); passing it as a constant lets the compiler specialise the loop.
    match (xs.len() - 1).div_ceil(bits::BITS) {
        1 => crossing_on_grid(pieces, target, xs, ys, 1, store, found),
        words => crossing_on_grid(pieces, target, xs, ys, words, store, found),
    }
}

/// [`maximal_rects_crossing_into`] on the grid of edges `xs` × `ys`, with rows of
/// `words` words (cells in `store`), into `found`.
#[inline(always)]
fn crossing_on_grid(
    pieces: &[Rect], target: &Rect, xs: &[u32], ys: &[u32], words: usize,
    store: &mut Vec<bits::Word>, found: &mut Vec<Rect>,
) {
    use bits::BITS;
    let ny = ys.len() - 1;
    // Every edge is a grid line, so the search finds it (and `Err` would be its place anyway).
    let col = |x: u32| xs.binary_search(&x).unwrap_or_else(|i| i);
    let row = |y: u32| ys.binary_search(&y).unwrap_or_else(|i| i);
    let (tc0, tc1) = (col(target.x), col(target.right()));
    let (tr0, tr1) = (row(target.y), row(target.bottom()));
    // One buffer: the rows of cells, then the open columns.
    store.clear();
    store.resize((ny + 1) * words, 0);
    let (rows, open) = store.split_at_mut(ny * words);
    for r in pieces {
        for y in row(r.y)..row(r.bottom()) {
            bits::set(&mut rows[y * words..(y + 1) * words], col(r.x), col(r.right()));
        }
    }
    let cells = |y: usize| &rows[y * words..(y + 1) * words];
    for top in 0..tr1 {
        if top > 0 && bits::subset(cells(top), cells(top - 1)) {
            continue; // every run from this row grows up
        }
        open.fill(!0);
        for bottom in top..ny {
            open.iter_mut().zip(cells(bottom)).for_each(|(o, r)| *o &= r);
            if !bits::any(open, tc0, tc1) {
                break; // runs only shrink going down, and none reaches the target
            }
            if bottom < tr0 || (bottom + 1 < ny && bits::subset(open, cells(bottom + 1))) {
                continue; // not down to the target yet, or every run grows down
            }
            let mut c = 0;
            while let Some(c0) = bits::next(open, c, true) {
                let c1 = bits::next(open, c0, false).unwrap_or(words * BITS);
                c = c1;
                if c1 <= tc0 || c0 >= tc1 {
                    continue;
                }
                let grows_up = top > 0 && bits::all(cells(top - 1), c0, c1);
                let grows_down = bottom + 1 < ny && bits::all(cells(bottom + 1), c0, c1);
                if !grows_up && !grows_down {
                    found.push(Rect::new(
                        xs[c0],
                        ys[top],
                        xs[c1] - xs[c0],
                        ys[bottom + 1] - ys[top],
                    ));
                }
            }
        }
    }
}

/// Every maximal empty rectangle of a `w × h` area with `used` rectangles
/// taken, by brute force over the rectangles whose edges lie on the used
/// rectangles' edges. Slow (for checking [`MaxRects::maximal_free_rects`](crate::MaxRects::maximal_free_rects) in
/// tests and fuzzing, not for packing); sorted.
pub fn maximal_free_rects_reference(w: u32, h: u32, used: &[Rect]) -> Vec<Rect> {
    let mut xs: Vec<u32> = used.iter().flat_map(|r| [r.x, r.right()]).chain([0, w]).collect();
    let mut ys: Vec<u32> = used.iter().flat_map(|r| [r.y, r.bottom()]).chain([0, h]).collect();
    xs.sort_unstable();
    xs.dedup();
    ys.sort_unstable();
    ys.dedup();
    let empty =
        |r: &Rect| r.right() <= w && r.bottom() <= h && used.iter().all(|u| !u.intersects(r));
    let mut out = Vec::new();
    for (i, &x0) in xs.iter().enumerate() {
        for &x1 in &xs[i + 1..] {
            for (j, &y0) in ys.iter().enumerate() {
                for &y1 in &ys[j + 1..] {
                    let r = Rect::new(x0, y0, x1 - x0, y1 - y0);
                    if !empty(&r) {
                        break; // taller rects from the same top are not empty either
                    }
                    let grows = [
                        x0 > 0 && empty(&Rect::new(x0 - 1, y0, 1, r.h)),
                        x1 < w && empty(&Rect::new(x1, y0, 1, r.h)),
                        y0 > 0 && empty(&Rect::new(x0, y0 - 1, r.w, 1)),
                        y1 < h && empty(&Rect::new(x0, y1, r.w, 1)),
                    ];
                    if !grows.iter().any(|&g| g) {
                        out.push(r);
                    }
                }
            }
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A freed row `R` under a comb of one-pixel free cells (every odd
    /// column) and above a free row: the maximal rects crossing `R` are the
    /// two rows together and one three-row column per tooth. With `w` above
    /// 64 the compressed grid spans several 64-column words, and runs end on
    /// word boundaries.
    #[test]
    fn maximal_rects_of_a_wide_neighbourhood() {
        for w in [7u32, 63, 64, 65, 127, 128, 129, 200, 257, 400] {
            let region = Rect::new(0, 1, w, 1);
            let mut pieces: Vec<Rect> = (1..w).step_by(2).map(|x| Rect::new(x, 0, 1, 1)).collect();
            pieces.push(Rect::new(0, 2, w, 1));
            pieces.push(region);
            let mut found = maximal_rects_crossing(&pieces, &region);
            found.sort();
            let mut expected: Vec<Rect> =
                (1..w).step_by(2).map(|x| Rect::new(x, 0, 1, 3)).collect();
            expected.push(Rect::new(0, 1, w, 2));
            expected.sort();
            assert_eq!(found, expected, "width {w}");
        }
    }
}
