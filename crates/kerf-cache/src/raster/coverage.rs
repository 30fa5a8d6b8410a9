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
    pub(crate) fn line(&mut self, x0: f32, y0: f32, x1: f32, y1: f32) {
        let (w, h) = (self.width as f32, self.height as f32);
        let clamp = |v: f32, hi: f32| if v.is_finite() { v.clamp(0.0, hi) } else { 0.0 };
        let (x0, y0, x1, y1) = (clamp(x0, w), clamp(y0, h), clamp(x1, w), clamp(y1, h));
        if y0 == y1 {
            return;
        }
        // Walk downwards; an upward edge adds with the opposite sign.
        let (sign, ax, ay, bx, by) =
            if y0 < y1 { (1.0, x0, y0, x1, y1) } else { (-1.0, x1, y1, x0, y0) };
        let first = ay as i32 as usize;
        let last = ceil(by).min(self.height);
        if ax == bx {
            // A vertical edge (stems, CJK strokes): the same two cells and
            // shares in every row it crosses.
            let stride = self.width + 1;
            let c0 = ax as i32 as usize;
            let right = ax - c0 as f32;
            let next = (c0 < self.width) as usize;
            for row in first..last {
                let dy = ((row + 1) as f32).min(by) - (row as f32).max(ay);
                if dy > 0.0 {
                    let at = row * stride + c0;
                    self.acc[at] += sign * dy * (1.0 - right);
                    self.acc[at + next] += sign * dy * right * next as f32;
                }
            }
            return;
        }
        let dxdy = (bx - ax) / (by - ay);
        let mut x = ax;
        for row in first..last {
            let top = (row as f32).max(ay);
            let bottom = ((row + 1) as f32).min(by);
            let dy = bottom - top;
            if dy <= 0.0 {
                continue;
            }
            let next = x + dxdy * dy;
            self.span(row, x, next, sign * dy);
            x = next;
        }
    }

    /// Adds the part of an edge inside one row: it runs from `xa` to `xb`
    /// while descending `d` (signed) of the row's height.
    fn span(&mut self, row: usize, xa: f32, xb: f32, d: f32) {
        let base = row * (self.width + 1);
        let (lo, hi) = if xa < xb { (xa, xb) } else { (xb, xa) };
        // (Coordinates are clamped to ≥ 0: truncation is the floor.)
        let c0 = lo as i32 as usize;
        let lo_cell = c0 as f32;
        let c1 = ceil(hi);
        if c1 <= c0 + 1 {
            // Inside one pixel column: the area right of the edge's middle
            // goes to this cell, the rest of the cover to the next.
            let mid = 0.5 * (xa + xb) - lo_cell;
            self.acc[base + c0] += d * (1.0 - mid);
            // (On the right border `c0 + 1` is the row's extra cell.)
            if c0 < self.width {
                self.acc[base + c0 + 1] += d * mid;
            }
            return;
        }
        // Across several columns: the edge's cover grows linearly with x
        // from `lo` to `hi`; each cell gets the area of that ramp inside it.
        let inv = 1.0 / (hi - lo);
        let f0 = lo - lo_cell;
        let first = 0.5 * inv * (1.0 - f0) * (1.0 - f0);
        let f1 = hi - (c1 as f32 - 1.0);
        let tail = 0.5 * inv * f1 * f1;
        self.acc[base + c0] += d * first;
        if c1 == c0 + 2 {
            self.acc[base + c0 + 1] += d * (1.0 - first - tail);
        } else {
            let second = inv * (1.5 - f0);
            self.acc[base + c0 + 1] += d * (second - first);
            for c in c0 + 2..c1 - 1 {
                self.acc[base + c] += d * inv;
            }
            let before_last = second + (c1 - c0 - 3) as f32 * inv;
            self.acc[base + c1 - 1] += d * (1.0 - before_last - tail);
        }
        self.acc[base + c1] += d * tail;
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

/// `v.ceil()` for `v ≥ 0` without a libm call (`f32::ceil` is one on
/// baseline x86-64).
#[inline]
fn ceil(v: f32) -> usize {
    // (Through i32: the cast from f32 is one instruction, to usize several.)
    let t = v as i32;
    (if (t as f32) < v { t + 1 } else { t }) as usize
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
