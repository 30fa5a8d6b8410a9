//! Exact area coverage of a polygon on a pixel grid (the accumulation
//! method: every edge adds, to the cells it crosses, the signed area it
//! encloses to its right and the cover it carries on; a running sum along
//! each row then gives each pixel's covered area). Non-zero winding, with
//! coverage clamped to one, as fonts are drawn.

/// A coverage buffer of `width × height` pixels that line segments are
/// added to.
pub(crate) struct Coverage {
    width: usize,
    height: usize,
    /// Rows of `width + 1` cells: an edge on the right border spills into
    /// its row's extra cell, so rows are summed independently (four at a
    /// time: one running sum is a chain of dependent adds).
    acc: Vec<f32>,
}

impl Coverage {
    /// An empty buffer.
    pub(crate) fn new(width: usize, height: usize) -> Coverage {
        Coverage { width, height, acc: vec![0.0; (width + 1) * height] }
    }

    /// Adds the edge from `(x0, y0)` to `(x1, y1)`, in pixels from the
    /// top-left corner, y down. Coordinates are clamped to the buffer.
    ///
    /// The edge is walked cell by cell, cut where it crosses a column or a
    /// row border; each piece lies inside one cell, where the area right of
    /// it is exact from its height and its middle: the cell gets that area
    /// and the next cell the rest of the piece's cover.
    pub(crate) fn line(&mut self, x0: f32, y0: f32, x1: f32, y1: f32) {
        let (w, h) = (self.width as f32, self.height as f32);
        // (`max` first: a NaN becomes 0, an infinity the border.)
        let clamp = |v: f32, hi: f32| v.max(0.0).min(hi);
        let (x0, y0, x1, y1) = (clamp(x0, w), clamp(y0, h), clamp(x1, w), clamp(y1, h));
        if y0 == y1 {
            return;
        }
        if x0 == x1 {
            self.vertical(x0, y0, y1);
            return;
        }
        let stride = self.width + 1;
        let (dx, dy) = (x1 - x0, y1 - y0);
        let (right, down) = (dx > 0.0, dy > 0.0);
        // The cells the edge starts and ends in: a point on a border belongs
        // to the cell the edge is inside of there (so the floor, less one
        // where the edge leaves a border point leftwards or reaches one
        // rightwards). Branch-free: an outline's edges turn every way.
        let on = |v: f32| (floor(v) as f32 == v) as i32;
        let cx0 = floor(x0) - (!right as i32 & on(x0));
        let cx1 = floor(x1) - (right as i32 & on(x1));
        let cy0 = floor(y0) - (!down as i32 & on(y0));
        let cy1 = floor(y1) - (down as i32 & on(y1));
        let mut crossings = cx0.abs_diff(cx1) + cy0.abs_diff(cy1);
        // The edge's parameter (0 at its start, 1 at its end) at the next
        // column border and the next row border, and its step from one
        // border to the next.
        let (tdx, tdy) = (1.0 / dx.abs(), 1.0 / dy.abs());
        let (sx, sy) = (1.0f32.copysign(dx), 1.0f32.copysign(dy));
        let mut bx = (cx0 + right as i32) as f32;
        let mut by = (cy0 + down as i32) as f32;
        // (Each next border lies ahead of the start: the distance is its
        // absolute value.)
        let (mut tx, mut ty) = ((bx - x0).abs() * tdx, (by - y0).abs() * tdy);
        let ix = 2 * right as isize - 1;
        let iy = (2 * down as isize - 1) * stride as isize;
        let mut at = (cy0 as usize * stride + cx0 as usize) as isize;
        let mut cell = cx0 as f32;
        let (mut px, mut py) = (x0, y0);
        while crossings > 0 {
            crossings -= 1;
            let (from, from_cell) = (at, cell);
            // Branch-free (which border comes first is a coin toss on a
            // slanted edge): `g` is 1 for a column border, 0 for a row's.
            let col = tx < ty;
            let g = col as u32 as f32;
            let ng = 1.0 - g;
            let qx = g * bx + ng * (x0 + ty * dx);
            let qy = g * (y0 + tx * dy) + ng * by;
            tx += g * tdx;
            bx += g * sx;
            cell += g * sx;
            ty += ng * tdy;
            by += ng * sy;
            at += if col { ix } else { iy };
            self.piece(from, from_cell, px, qx, qy - py);
            (px, py) = (qx, qy);
        }
        self.piece(at, cell, px, x1, y1 - py);
    }

    /// Adds a piece of an edge inside the cell at `at` (its left border at
    /// x `cell`), from x `xa` to `xb`, descending `d`.
    #[inline(always)]
    fn piece(&mut self, at: isize, cell: f32, xa: f32, xb: f32, d: f32) {
        let m = d * (0.5 * (xa + xb) - cell);
        // (Rounding can walk a corner's zero-height piece into a neighbour
        // cell; never out of the buffer.)
        if let Some([a, b]) = self.acc.get_mut(at as usize..).and_then(|s| s.first_chunk_mut()) {
            *a += d - m;
            *b += m;
        }
    }

    /// [`line`](Self::line) for an edge at constant x: the same two cells
    /// and shares in every row it crosses, whole rows between its ends.
    fn vertical(&mut self, x: f32, y0: f32, y1: f32) {
        let (sign, ay, by) = (1.0f32.copysign(y1 - y0), y0.min(y1), y0.max(y1));
        let stride = self.width + 1;
        let c0 = x as i32;
        let right = x - c0 as f32;
        let next = (c0 < self.width as i32) as usize;
        let (l, r) = (sign * (1.0 - right), sign * right * next as f32);
        // The rows of its ends (an end on a row border belongs to the row
        // the edge is inside of).
        let (first, last) = (floor(ay), ceil(by) - 1);
        let mut add = |row: i32, dy: f32| {
            let at = row as usize * stride + c0 as usize;
            if let Some(a) = self.acc.get_mut(at) {
                *a += dy * l;
            }
            if let Some(b) = self.acc.get_mut(at + next) {
                *b += dy * r;
            }
        };
        if first == last {
            add(first, by - ay);
            return;
        }
        add(first, (first + 1) as f32 - ay);
        for row in first + 1..last {
            add(row, 1.0);
        }
        add(last, by - last as f32);
    }

    /// The coverage, one byte a pixel (0 none, 255 full), row-major from the
    /// top-left.
    pub(crate) fn into_bytes(self) -> Vec<u8> {
        let (w, stride) = (self.width, self.width + 1);
        let mut out = vec![0u8; w * self.height];
        if w == 0 {
            return out;
        }
        // Rounded to the nearest level without a float-to-int conversion:
        // adding 2^23 leaves the rounded value in the low mantissa bits.
        let level = |sum: f32| (sum.abs().min(1.0) * 255.0 + 8_388_608.0).to_bits() as u8;
        let mut rows = self.acc.chunks_exact(stride).zip(out.chunks_exact_mut(w));
        loop {
            // Four rows side by side: four independent sums.
            let mut four: [_; 4] = std::array::from_fn(|_| rows.next());
            let [Some(a), Some(b), Some(c), Some(d)] = &mut four else {
                for (src, dst) in four.into_iter().flatten() {
                    let mut sum = 0.0f32;
                    for (o, &v) in dst.iter_mut().zip(src) {
                        sum += v;
                        *o = level(sum);
                    }
                }
                return out;
            };
            let mut sum = [0.0f32; 4];
            for x in 0..w {
                sum[0] += a.0[x];
                sum[1] += b.0[x];
                sum[2] += c.0[x];
                sum[3] += d.0[x];
                a.1[x] = level(sum[0]);
                b.1[x] = level(sum[1]);
                c.1[x] = level(sum[2]);
                d.1[x] = level(sum[3]);
            }
        }
    }
}

/// `v.floor()` for `v ≥ 0` without a libm call.
#[inline]
fn floor(v: f32) -> i32 {
    v as i32
}

/// `v.ceil()` for `v ≥ 0` without a libm call (`f32::ceil` is one on
/// baseline x86-64).
#[inline]
fn ceil(v: f32) -> i32 {
    // (Through i32: the cast from f32 is one instruction, to usize several.)
    let t = v as i32;
    t + ((t as f32) < v) as i32
}

#[cfg(test)]
mod tests {
    use super::Coverage;

    fn polygon(w: usize, h: usize, pts: &[(f32, f32)]) -> Vec<u8> {
        let mut c = Coverage::new(w, h);
        for i in 0..pts.len() {
            let (a, b) = (pts[i], pts[(i + 1) % pts.len()]);
            c.line(a.0, a.1, b.0, b.1);
        }
        c.into_bytes()
    }

    #[test]
    fn an_axis_aligned_rectangle_covers_its_cells_by_area() {
        // x 0.5..2.5, y 1..2 on a 3x3 grid: half, full, half on row 1.
        let px = polygon(3, 3, &[(0.5, 1.0), (2.5, 1.0), (2.5, 2.0), (0.5, 2.0)]);
        assert_eq!(px, vec![0, 0, 0, 128, 255, 128, 0, 0, 0]);
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
    fn points_outside_the_buffer_or_not_finite_are_clamped_not_a_panic() {
        let mut c = Coverage::new(2, 2);
        c.line(-5.0, -5.0, 9.0, 9.0);
        c.line(f32::NAN, 0.0, 1.0, f32::INFINITY);
        let _ = c.into_bytes();
    }
}
