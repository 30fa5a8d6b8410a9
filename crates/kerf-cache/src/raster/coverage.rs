//! Exact area coverage of a polygon on a pixel grid (the accumulation
//! method: every edge adds, to the cells it crosses, the signed area it
//! encloses to its right and the cover it carries on; a running sum along
//! each row then gives each pixel's covered area). Non-zero winding, with
//! coverage clamped to one, as fonts are drawn.

use crate::font::outline::{EdgeIndex, Edges, Sorted};
use std::cell::RefCell;

/// A coverage buffer of `width × height` pixels that line segments are
/// added to.
pub(crate) struct Coverage {
    width: usize,
    height: usize,
    /// The pixels' cells, row after row with nothing between them
    /// (`width × height`), rounded up to a whole number of [`BLOCK`]s (the
    /// sum runs block by block, with no short tail); then [`SPARE`] cells
    /// that a piece off the rows is added to. An edge on the right border
    /// adds its cover to the cell after its row's last: the next row's
    /// first. The running sum goes on across rows, as the cells are laid
    /// out, so that cover comes back out exactly where the row it left
    /// ends (every row's cells sum to zero: a closed outline leaves each
    /// row as often as it enters it).
    acc: Vec<f32>,
}

thread_local! {
    /// The cells of the thread's last [`Coverage`], kept for the next.
    static CELLS: std::cell::Cell<Vec<f32>> = const { std::cell::Cell::new(Vec::new()) };
}

/// The most cells a thread keeps between rasters (256 KiB; a glyph of
/// about 250 × 250 px): a huge glyph's cells are freed.
const KEPT_CELLS: usize = 1 << 16;

impl Drop for Coverage {
    /// Hands the cells to the thread's next buffer.
    fn drop(&mut self) {
        let acc = std::mem::take(&mut self.acc);
        if acc.capacity() <= KEPT_CELLS {
            CELLS.with(|c| c.set(acc));
        }
    }
}

/// Cells after the rows: where [`Coverage::piece`] adds what rounding walked
/// off them (a zero-height piece at a corner), so its index needs no check.
const SPARE: usize = 2;

impl Coverage {
    /// An empty buffer (the thread's last one, cleared: a raster allocates
    /// no cells unless it needs more than the last).
    pub(crate) fn new(width: usize, height: usize) -> Coverage {
        let mut acc = CELLS.with(std::cell::Cell::take);
        acc.clear();
        acc.resize((width * height).next_multiple_of(BLOCK) + SPARE, 0.0);
        Coverage { width, height, acc }
    }

    /// Adds the closed polygons of `points` (each contour from its entry in
    /// `starts` to the next one's, its last point joined back to its first),
    /// each point [`clamp`]ed into the buffer once: [`edges`](Self::edges)
    /// with the edges sorted here.
    #[cfg(test)]
    pub(crate) fn polygon(&mut self, points: impl Iterator<Item = (f32, f32)>, starts: &[usize]) {
        let points: Vec<(f32, f32)> = points.collect();
        let edges = Edges::of(&points, starts);
        self.edges(points.into_iter(), &edges);
    }

    /// Adds the edges `edges` of a polygon of `points` (each edge the
    /// indices of its ends), each point [`clamp`]ed into the buffer once.
    ///
    /// The edges come sorted ([`Edges`], once per outline): level ones (no
    /// area) dropped, vertical ones ([`vertical`](Self::vertical)) drawn
    /// before the slanted ones ([`line_inside`](Self::line_inside)). A
    /// glyph's edges come in no order a branch predictor learns, and testing
    /// each edge's kind as it is drawn mispredicted often enough to cost more
    /// than sorting them; sorted with the outline, no raster pays for either.
    /// (Clamping can make a slanted edge vertical or level, which
    /// `line_inside` handles, or a vertical one level, which is skipped.)
    pub(crate) fn edges(&mut self, points: impl Iterator<Item = (f32, f32)>, edges: &Edges) {
        let (w, h) = (self.width as f32, self.height as f32);
        SCRATCH.with_borrow_mut(|pts| {
            pts.clear();
            pts.extend(points.map(|(x, y)| clamp(x, y, w, h)));
            let n = pts.len();
            match edges {
                Edges::Short(s) => self.sorted(pts, s),
                Edges::Long(l) => self.sorted(pts, l),
            }
            // A huge glyph's points are freed, as its cells are.
            if n > KEPT_POINTS {
                *pts = Vec::new();
            }
        });
    }

    /// [`edges`](Self::edges) of one index width, the points clamped.
    #[inline(always)]
    fn sorted<I: EdgeIndex>(&mut self, pts: &[(f32, f32)], edges: &Sorted<I>) {
        let at = |i: I| pts.get(Into::<u32>::into(i) as usize).copied();
        for &(a, b) in edges.vertical() {
            if let (Some(a), Some(b)) = (at(a), at(b)) {
                if a.1 != b.1 {
                    self.vertical(a.0, a.1, b.1);
                }
            }
        }
        for &(a, b) in edges.slanted() {
            if let (Some(a), Some(b)) = (at(a), at(b)) {
                self.line_inside(a.0, a.1, b.0, b.1);
            }
        }
    }

    /// [`line_inside`](Self::line_inside) for any ends: they are
    /// [`clamp`]ed to the buffer first. ([`polygon`](Self::polygon) clamps
    /// each point once.)
    #[cfg(test)]
    pub(crate) fn line(&mut self, x0: f32, y0: f32, x1: f32, y1: f32) {
        let (w, h) = (self.width as f32, self.height as f32);
        let ((x0, y0), (x1, y1)) = (clamp(x0, y0, w, h), clamp(x1, y1, w, h));
        self.line_inside(x0, y0, x1, y1);
    }

    /// Adds the edge from `(x0, y0)` to `(x1, y1)`, in pixels from the
    /// top-left corner, y down, both inside the buffer ([`clamp`]ed: a
    /// polygon's points each once, not once for each of their two edges).
    ///
    /// The edge is walked cell by cell, cut where it crosses a column or a
    /// row border; each piece lies inside one cell, where the area right of
    /// it is exact from its height and its middle: the cell gets that area
    /// and the next cell the rest of the piece's cover.
    #[inline(always)]
    fn line_inside(&mut self, x0: f32, y0: f32, x1: f32, y1: f32) {
        if y0 == y1 {
            return;
        }
        if x0 == x1 {
            self.vertical(x0, y0, y1);
            return;
        }
        let stride = self.width;
        let (dx, dy) = (x1 - x0, y1 - y0);
        let (right, down) = (dx > 0.0, dy > 0.0);
        // The cells the edge starts and ends in, the floors of its ends. A
        // start on a border that the edge leaves backwards (left or up) is
        // given the cell ahead of it, and an end on a border reached
        // forwards the cell beyond it: each adds one crossing, at the end
        // itself, so the walk steps out of (or into) that cell by a piece of
        // no length and adds nothing there. (Cheaper than telling the two
        // apart for every edge; an index off the rows lands in the spare
        // cells. In floats: a float-to-int cast is several instructions in
        // Rust, which saturates; these are whole numbers far below 2^24.)
        let (cx0, cx1, cy0, cy1) = (floor_f(x0), floor_f(x1), floor_f(y0), floor_f(y1));
        let mut crossings = whole((cx0 - cx1).abs() + (cy0 - cy1).abs());
        // An edge inside one cell: one piece, no walk to set up.
        if crossings == 0 {
            let at = (whole(cy0) as usize * stride + whole(cx0) as usize) as isize;
            self.piece(at, cx0, x0, x1, dy);
            return;
        }
        // The edge's parameter (0 at its start, 1 at its end) at the next
        // column border and the next row border, and its step from one
        // border to the next.
        let (tdx, tdy) = (1.0 / dx.abs(), 1.0 / dy.abs());
        let (sx, sy) = (1.0f32.copysign(dx), 1.0f32.copysign(dy));
        // (A walk's cell lies left of its next column border when the
        // edge runs right, right of it when it runs left.)
        let ahead = if right { 1.0 } else { 0.0 };
        let bx = cx0 + ahead;
        let by = cy0 + if down { 1.0 } else { 0.0 };
        // (Each next border lies ahead of the start: the distance is its
        // absolute value.)
        let (tx, ty) = ((bx - x0).abs() * tdx, (by - y0).abs() * tdy);
        let ix = 2 * right as isize - 1;
        let iy = (2 * down as isize - 1) * stride as isize;
        // (The index in integers: a float product is exact only below
        // 2^24 cells.)
        let at = (whole(cy0) as usize * stride + whole(cx0) as usize) as isize;
        let mut walk = Walk { tx, ty, bx, by, at, px: x0, py: y0 };
        let edge = Edge { x0, y0, dx, dy, tdx, tdy, sx, sy, ix, iy };
        // A short edge's one or two crossings take a branch (cheaper than
        // computing both ways, and a mispredict or two an edge); a middling
        // one's few, whose order is a coin toss on a slanted edge, are
        // chosen branch-free; a long one's many take a branch again: a
        // straight edge crosses rows and columns in a regular rhythm that a
        // branch predictor picks up within the edge, and the branch-free
        // choice waits on each crossing's comparison (random polygons of
        // 12 corners in 48 px, never the same twice, filled a fifth faster
        // with edges of more than [`LONG`] crossings branching).
        if crossings <= SHORT || crossings > LONG {
            for _ in 0..crossings {
                let from = (walk.at, walk.bx - ahead, walk.px, walk.py);
                walk.branching(&edge);
                self.piece(from.0, from.1, from.2, walk.px, walk.py - from.3);
            }
        } else {
            while crossings > 0 {
                crossings -= 1;
                let from = (walk.at, walk.bx - ahead, walk.px, walk.py);
                walk.blended(&edge);
                self.piece(from.0, from.1, from.2, walk.px, walk.py - from.3);
            }
        }
        self.piece(walk.at, walk.bx - ahead, walk.px, x1, y1 - walk.py);
    }

    /// Adds a piece of an edge inside the cell at `at` (its left border at
    /// x `cell`), from x `xa` to `xb`, descending `d`.
    #[inline(always)]
    fn piece(&mut self, at: isize, cell: f32, xa: f32, xb: f32, d: f32) {
        let m = d * (0.5 * (xa + xb) - cell);
        // (Rounding can walk a corner's zero-height piece into a neighbour
        // cell, or off the rows: such an index lands in the two spare cells
        // after them, which nothing reads, instead of being tested and the
        // piece dropped.)
        let at = (at as usize).min(self.acc.len() - SPARE);
        self.acc[at] += d - m;
        self.acc[at + 1] += m;
    }

    /// [`line_inside`](Self::line_inside) for an edge at constant x: the same two cells
    /// and shares in every row it crosses, whole rows between its ends.
    fn vertical(&mut self, x: f32, y0: f32, y1: f32) {
        let (sign, ay, by) = (1.0f32.copysign(y1 - y0), y0.min(y1), y0.max(y1));
        let stride = self.width;
        let cell = floor_f(x);
        let (c0, right) = (whole(cell) as usize, x - cell);
        // (An edge on the right border, x = width, is in the cell after
        // the row's last, the next row's first, with `right` 0: the cell
        // after that gets nothing.)
        let (l, r) = (sign * (1.0 - right), sign * right);
        // The rows of its ends (an end on a row border belongs to the row
        // the edge is inside of).
        let (first, last) = (floor_f(ay), ceil_f(by) - 1.0);
        let (i, j) = (whole(first) as usize, whole(last) as usize);
        let last_pair = self.acc.len() - SPARE;
        let mut add = |row: usize, dy: f32| {
            // (Off the rows: the spare cells, as in `piece`.)
            let at = (row * stride + c0).min(last_pair);
            self.acc[at] += dy * l;
            self.acc[at + 1] += dy * r;
        };
        if i == j {
            add(i, by - ay);
            return;
        }
        add(i, first + 1.0 - ay);
        for row in i + 1..j {
            add(row, 1.0);
        }
        add(j, by - last);
    }

    /// The coverage, one byte a pixel (0 none, 255 full), row-major from the
    /// top-left.
    pub(crate) fn into_bytes(mut self) -> Vec<u8> {
        let n = self.width * self.height;
        // First the running sum, in place, across the rows as they lie...
        let cells = n.next_multiple_of(BLOCK);
        if let Some(cells) = self.acc.get_mut(..cells) {
            prefix_row(cells);
        }
        // ...then every sum to its level, a loop the compiler vectorizes:
        // |sum| at most one, rounded to the nearest of 255 levels without a
        // float-to-int conversion (adding 2^23 leaves the rounded value in
        // the low mantissa bits). (`min` as a comparison: one `minps`.)
        let level = |sum: f32| {
            let a = sum.abs();
            let a = if a < 1.0 { a } else { 1.0 };
            (a * 255.0 + 8_388_608.0).to_bits() as u8
        };
        self.acc.iter().take(n).map(|&s| level(s)).collect()
    }
}

/// Cells summed together in [`prefix_row`].
const BLOCK: usize = 8;

/// The running sums of `row` (a whole number of [`BLOCK`]s), in place:
/// each block summed within by three shifted adds (no chain between its
/// lanes: the compiler makes them vector adds), then moved by the sum
/// before it (one add a block on the chain, where a running sum has one a
/// cell).
fn prefix_row(row: &mut [f32]) {
    let mut offset = 0.0f32;
    let mut blocks = row.chunks_exact_mut(BLOCK);
    for c in &mut blocks {
        let mut v = [0.0f32; BLOCK];
        v.copy_from_slice(c);
        for i in (1..BLOCK).rev() {
            v[i] += v[i - 1];
        }
        for i in (2..BLOCK).rev() {
            v[i] += v[i - 2];
        }
        for i in (4..BLOCK).rev() {
            v[i] += v[i - 4];
        }
        for x in &mut v {
            *x += offset;
        }
        offset = v[BLOCK - 1];
        c.copy_from_slice(&v);
    }
    for x in blocks.into_remainder() {
        offset += *x;
        *x = offset;
    }
}

/// The most clamped points a thread keeps between rasters (a glyph of
/// 16,384 points; 128 KiB).
const KEPT_POINTS: usize = 1 << 14;

thread_local! {
    /// [`Coverage::edges`]'s points, clamped.
    static SCRATCH: RefCell<Vec<(f32, f32)>> = const { RefCell::new(Vec::new()) };
}

/// `(x, y)` moved into a `w × h` buffer: a NaN becomes 0, an infinity the
/// border.
#[inline(always)]
fn clamp(x: f32, y: f32, w: f32, h: f32) -> (f32, f32) {
    // (Comparisons, not `max`/`min`, whose NaN rules cost several
    // instructions each: a NaN fails `v > 0`; each is one `maxss` and one
    // `minss`.)
    let clamp = |v: f32, hi: f32| {
        let v = if v > 0.0 { v } else { 0.0 };
        if v < hi {
            v
        } else {
            hi
        }
    };
    (clamp(x, w), clamp(y, h))
}

/// Crossings an edge walks with a branch (see [`Coverage::line_inside`]).
const SHORT: u32 = 2;

/// Crossings past which an edge is walked with a branch again (see
/// [`Coverage::line_inside`]).
const LONG: u32 = 8;

/// An edge being walked: from `(x0, y0)` by `(dx, dy)`; its parameter's
/// step from one column border to the next `tdx` (`tdy` for rows); its
/// direction across (`sx`) and down (`sy`), and what a step across or down
/// adds to a cell's index.
struct Edge {
    x0: f32,
    y0: f32,
    dx: f32,
    dy: f32,
    tdx: f32,
    tdy: f32,
    sx: f32,
    sy: f32,
    ix: isize,
    iy: isize,
}

/// Where a walk along an [`Edge`] is: the edge's parameter at the next
/// column border `tx` (at x `bx`) and the next row border `ty` (at y
/// `by`); the index `at` of the cell it is in; the last crossing
/// `(px, py)`.
struct Walk {
    tx: f32,
    ty: f32,
    bx: f32,
    by: f32,
    at: isize,
    px: f32,
    py: f32,
}

impl Walk {
    /// To the next crossing, choosing the border with a branch.
    #[inline(always)]
    fn branching(&mut self, e: &Edge) {
        if self.tx < self.ty {
            (self.px, self.py) = (self.bx, e.y0 + self.tx * e.dy);
            self.tx += e.tdx;
            self.bx += e.sx;
            self.at += e.ix;
        } else {
            (self.px, self.py) = (e.x0 + self.ty * e.dx, self.by);
            self.ty += e.tdy;
            self.by += e.sy;
            self.at += e.iy;
        }
    }

    /// To the next crossing, branch-free: the nearer border's parameter
    /// `t` gives the crossing (two multiply-adds, not a blend of both
    /// borders' crossings); `g` is 1 for a column border, 0 for a row's.
    /// (`by` is the branching walk's alone.)
    #[inline(always)]
    fn blended(&mut self, e: &Edge) {
        let col = self.tx < self.ty;
        let t = if col { self.tx } else { self.ty };
        (self.px, self.py) = (e.x0 + t * e.dx, e.y0 + t * e.dy);
        let g = col as u32 as f32;
        self.tx += g * e.tdx;
        self.bx += g * e.sx;
        self.ty += (1.0 - g) * e.tdy;
        self.at += if col { e.ix } else { e.iy };
    }
}

/// The whole number `v` (`0 ≤ v < 2^23`) as an integer, from its bits
/// after adding 2^23 (which puts it in the low mantissa bits): three plain
/// instructions, where Rust's saturating `as` casts take several more (a
/// NaN and each bound checked).
#[inline(always)]
fn whole(v: f32) -> u32 {
    (v + 8_388_608.0).to_bits() - 0x4B00_0000
}

/// `v.floor()` for `0 ≤ v < 2^22`, in floats, without a libm call: adding
/// and taking away 2^23 rounds to the nearest whole number, one less where
/// that rounded up.
#[inline(always)]
fn floor_f(v: f32) -> f32 {
    let r = (v + 8_388_608.0) - 8_388_608.0;
    r - if r > v { 1.0 } else { 0.0 }
}

/// `v.ceil()` for `0 ≤ v < 2^22`, as [`floor_f`] (`f32::ceil` is a libm
/// call on baseline x86-64).
#[inline(always)]
fn ceil_f(v: f32) -> f32 {
    let r = (v + 8_388_608.0) - 8_388_608.0;
    r + if r < v { 1.0 } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::Coverage;

    /// `pts` as one closed polygon, drawn as a glyph is ([`Coverage::polygon`]).
    fn polygon(w: usize, h: usize, pts: &[(f32, f32)]) -> Vec<u8> {
        let mut c = Coverage::new(w, h);
        c.polygon(pts.iter().copied(), &[0]);
        c.into_bytes()
    }

    #[test]
    fn an_axis_aligned_rectangle_covers_its_cells_by_area() {
        // x 0.5..2.5, y 1..2 on a 3x3 grid: half, full, half on row 1.
        let px = polygon(3, 3, &[(0.5, 1.0), (2.5, 1.0), (2.5, 2.0), (0.5, 2.0)]);
        assert_eq!(px, vec![0, 0, 0, 128, 255, 128, 0, 0, 0]);
    }

    /// Edges on the right border add their cover to the next row's first
    /// cell, which the running sum across rows cancels: the left column
    /// stays empty in every row, straight and slanted edges alike.
    #[test]
    fn cover_left_on_the_right_border_does_not_reach_the_next_row() {
        // A box from x 1 to the border, three rows: 0, then full.
        let px = polygon(3, 3, &[(1.0, 0.0), (3.0, 0.0), (3.0, 3.0), (1.0, 3.0)]);
        assert_eq!(px, vec![0, 255, 255, 0, 255, 255, 0, 255, 255]);
        // A triangle with its right side on the border and a slanted
        // side: row by row 1/4, 3/4 of the last column and nothing left
        // of it, whatever the row above left.
        let px = polygon(2, 2, &[(2.0, 0.0), (2.0, 2.0), (1.0, 2.0)]);
        assert_eq!(px, vec![0, 64, 0, 191]);
        // Both windings.
        let px = polygon(2, 2, &[(1.0, 2.0), (2.0, 2.0), (2.0, 0.0)]);
        assert_eq!(px, vec![0, 64, 0, 191]);
    }

    #[test]
    fn a_triangle_covers_half_its_square_and_winding_does_not_matter() {
        let tri = [(0.0, 0.0), (4.0, 4.0), (0.0, 4.0)];
        let a = polygon(4, 4, &tri);
        let rev: Vec<_> = tri.iter().rev().copied().collect();
        assert_eq!(a, polygon(4, 4, &rev));
        let total: u32 = a.iter().map(|&v| v as u32).sum();
        // 8 px² of ink = 2040 levels; rounding each of 16 cells moves it < 8.
        assert!((total as i32 - 2040).abs() <= 8, "{total}");
        // Cells on the diagonal are half covered, below it full, above it empty.
        for i in 0..4 {
            assert_eq!(a[i * 4 + i], 128);
            if i > 0 {
                assert_eq!(a[i * 4], 255);
            }
            if i < 3 {
                assert_eq!(a[i * 4 + 3], 0);
            }
        }
    }

    #[test]
    fn a_shallow_edge_spreads_its_area_across_columns() {
        // Quad under the line from (0,0) to (4,1) inside a 4x1 row: the area
        // below the line in column c is 1 - (c + 0.5) / 4.
        let px = polygon(4, 1, &[(0.0, 0.0), (4.0, 1.0), (0.0, 1.0)]);
        let want: Vec<u8> =
            (0..4).map(|c| ((1.0 - (c as f32 + 0.5) / 4.0) * 255.0 + 0.5) as u8).collect();
        assert_eq!(px, want);
    }

    #[test]
    fn overlapping_contours_clamp_to_full_and_holes_cancel() {
        let mut c = Coverage::new(2, 1);
        for _ in 0..2 {
            c.line(0.0, 0.0, 0.0, 1.0);
            c.line(2.0, 1.0, 2.0, 0.0);
        }
        assert_eq!(c.into_bytes(), vec![255, 255]);
        let mut c = Coverage::new(2, 1);
        c.line(0.0, 0.0, 0.0, 1.0);
        c.line(2.0, 1.0, 2.0, 0.0);
        // A counter-wound hole over the right pixel.
        c.line(1.0, 1.0, 1.0, 0.0);
        c.line(2.0, 0.0, 2.0, 1.0);
        assert_eq!(c.into_bytes(), vec![255, 0]);
    }

    #[test]
    fn contours_are_closed_each_on_its_own_and_a_start_past_the_points_is_empty() {
        // A 4 × 2 box, then a counter-wound hole over its middle two pixels
        // of the top row, each contour closed back to its own first point.
        let pts = [
            (0.0, 0.0),
            (4.0, 0.0),
            (4.0, 2.0),
            (0.0, 2.0),
            (1.0, 0.0),
            (1.0, 1.0),
            (3.0, 1.0),
            (3.0, 0.0),
        ];
        let mut c = Coverage::new(4, 2);
        c.polygon(pts.iter().copied(), &[0, 4]);
        assert_eq!(c.into_bytes(), vec![255, 0, 0, 255, 255, 255, 255, 255]);
        // A start past the points: its contour is empty, the one before
        // it ends at the last point.
        let mut c = Coverage::new(4, 2);
        c.polygon(pts.iter().copied(), &[0, 4, 99]);
        assert_eq!(c.into_bytes(), vec![255, 0, 0, 255, 255, 255, 255, 255]);
    }

    /// The covered area of `poly` in pixel `(px, py)`, independently: the
    /// polygon clipped to the pixel's square one side at a time
    /// (Sutherland–Hodgman, which keeps the winding inside each side), its
    /// signed area by the shoelace formula.
    fn clipped_area(poly: &[(f64, f64)], px: f64, py: f64) -> f64 {
        let mut pts = poly.to_vec();
        // Each side as (axis, bound, keep below it).
        for (axis, bound, below) in
            [(0, px, false), (0, px + 1.0, true), (1, py, false), (1, py + 1.0, true)]
        {
            let inside = |p: &(f64, f64)| {
                let v = if axis == 0 { p.0 } else { p.1 };
                if below {
                    v <= bound
                } else {
                    v >= bound
                }
            };
            let mut out = Vec::new();
            for i in 0..pts.len() {
                let (a, b) = (pts[i], pts[(i + 1) % pts.len()]);
                let (va, vb) = if axis == 0 { (a.0, b.0) } else { (a.1, b.1) };
                if inside(&a) {
                    out.push(a);
                }
                if inside(&a) != inside(&b) {
                    let t = (bound - va) / (vb - va);
                    out.push((a.0 + t * (b.0 - a.0), a.1 + t * (b.1 - a.1)));
                }
            }
            pts = out;
            if pts.is_empty() {
                return 0.0;
            }
        }
        let mut area = 0.0;
        for i in 0..pts.len() {
            let (a, b) = (pts[i], pts[(i + 1) % pts.len()]);
            area += a.0 * b.1 - b.0 * a.1;
        }
        area / 2.0
    }

    proptest::proptest! {
        /// A row's sums by blocks are its running sums (in f64, one by
        /// one), whatever its length: whole blocks, a short tail, shorter
        /// than a block.
        #[test]
        fn rows_sum_by_blocks_as_one_by_one(
            row in proptest::collection::vec(-1.0f32..1.0, 0..40),
        ) {
            let mut got = row.clone();
            super::prefix_row(&mut got);
            let mut sum = 0.0f64;
            for (i, (&v, &g)) in row.iter().zip(&got).enumerate() {
                sum += v as f64;
                proptest::prop_assert!((g as f64 - sum).abs() < 1e-4, "cell {i}: {g} vs {sum}");
            }
        }

        /// Any polygon (slanted, steep, shallow, vertical and horizontal
        /// edges; corners on pixel borders and off them; self-crossing)
        /// covers each pixel by the area of it the polygon winds around,
        /// clamped to one.
        #[test]
        fn every_pixel_is_covered_by_the_area_the_polygon_winds_around(
            // (Widths past two of prefix_row's blocks.)
            w in 1usize..27,
            h in 1usize..9,
            raw in proptest::collection::vec((0u32..=64, 0u32..=64, proptest::bool::ANY), 3..9),
        ) {
            // Corners on a grid of 1/64 of the buffer (so often exactly on
            // a pixel border) or, across, nudged 0.137 px off it.
            let pts: Vec<(f32, f32)> = raw
                .iter()
                .map(|&(x, y, off)| {
                    let x = (x as f32 / 64.0) * w as f32;
                    let nudge = match off {
                        false => 0.0,
                        true if x + 0.137 <= w as f32 => 0.137,
                        true => -0.137,
                    };
                    (x + nudge, (y as f32 / 64.0) * h as f32)
                })
                .collect();
            let got = polygon(w, h, &pts);
            let poly: Vec<(f64, f64)> = pts.iter().map(|&(x, y)| (x as f64, y as f64)).collect();
            for y in 0..h {
                for x in 0..w {
                    let want = (clipped_area(&poly, x as f64, y as f64).abs().min(1.0) * 255.0).round();
                    let g = got[y * w + x] as f64;
                    proptest::prop_assert!((g - want).abs() <= 1.0, "pixel ({x}, {y}): {g} vs {want} of {pts:?}");
                }
            }
        }
    }

    /// The libm-free rounding helpers agree with the standard library's
    /// on their ranges: whole numbers, halves, and a step either side of
    /// each (where rounding to the nearest goes the other way).
    #[test]
    fn the_hand_made_floor_and_ceil_are_the_standard_ones() {
        use super::{ceil_f, floor_f, whole};
        for n in (0..4096u32).chain([65_535, 1 << 20, (1 << 22) - 1]) {
            let w = n as f32;
            // (One representable step up or down: the bits' neighbours.)
            let up = |v: f32| f32::from_bits(v.to_bits() + 1);
            let down = |v: f32| if v > 0.0 { f32::from_bits(v.to_bits() - 1) } else { v };
            for v in [w, w + 0.5, w + 0.25, up(w), down(w), down(w + 1.0)] {
                assert_eq!(floor_f(v), v.floor(), "floor_f({v})");
                assert_eq!(ceil_f(v), v.ceil(), "ceil_f({v})");
            }
            assert_eq!(whole(w), n, "whole({w})");
        }
        assert_eq!(whole(((1u32 << 23) - 1) as f32), (1 << 23) - 1);
    }

    #[test]
    fn points_outside_the_buffer_or_not_finite_are_clamped_not_a_panic() {
        let (w, h) = (2.0, 3.0);
        for (v, x, y) in [
            ((f32::NAN, f32::NAN), 0.0, 0.0),
            ((f32::INFINITY, f32::INFINITY), w, h),
            ((f32::NEG_INFINITY, -0.5), 0.0, 0.0),
            ((2.5, 3.5), w, h),
            ((1.25, 2.75), 1.25, 2.75),
            ((0.0, 3.0), 0.0, 3.0),
        ] {
            assert_eq!(super::clamp(v.0, v.1, w, h), (x, y), "{v:?}");
        }
        // A triangle reaching outside draws as the triangle clamped.
        let inside = polygon(2, 2, &[(0.0, 0.0), (2.0, 2.0), (0.0, 2.0)]);
        assert_eq!(polygon(2, 2, &[(-5.0, -5.0), (9.0, 9.0), (-5.0, 9.0)]), inside);
        let mut c = Coverage::new(2, 2);
        c.line(f32::NAN, 0.0, 1.0, f32::INFINITY);
        let _ = c.into_bytes();
    }
}
