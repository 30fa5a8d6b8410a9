//! Packing a glyph's curves into a record with horizontal bands.

use super::read::Curve;

/// Words before the cell grid: bounds (4), band count, curve count.
pub const HEADER_WORDS: usize = 6;
/// Cells a side of the grid over the bounds ([`GRID`]).
pub const GRID_SIDE: usize = 16;
/// Where the cell grid starts: `GRID_SIDE²` cells of two bits, row by row
/// from the bottom, sixteen to a word (bits `2i..2i+2` of word `i / 16`):
/// [`CELL_OUTSIDE`], [`CELL_INSIDE`] or [`CELL_EDGE`]. A pixel whose
/// footprint lies in one cell that no curve reaches has the cell's
/// coverage, 0 or 1, and reads no curve.
pub const GRID: usize = HEADER_WORDS;
/// A cell no curve reaches, outside the outline.
pub const CELL_OUTSIDE: u32 = 0;
/// A cell no curve reaches, inside the outline (nonzero winding).
pub const CELL_INSIDE: u32 = 1;
/// A cell some curve reaches (or comes within 1/64 of a cell of).
pub const CELL_EDGE: u32 = 2;
/// Where the band table starts: two words a band (list offset, length).
pub const BAND_TABLE: usize = GRID + GRID_SIDE * GRID_SIDE / 16;
/// Most bands a record has.
pub const MAX_BANDS: usize = 32;

/// A band list's entry: the curve's offset in its low `OFFSET_BITS` bits,
/// the first band it is listed in above them (a pixel whose rows span
/// several bands reads each curve once: in the first band of its span that
/// lists it).
pub const OFFSET_BITS: u32 = 24;

/// Curves a band holds on average, about: a glyph of `c` curves gets
/// `c / 4` bands (within `1..=MAX_BANDS`), so that a pixel reads a few
/// curves of its row and not the glyph's every curve.
const CURVES_PER_BAND: usize = 4;

/// The record of `curves` (see the module's table), or `None` for none.
/// Bands split the outline's height evenly; a curve is listed in every band
/// its `y` range reaches into, twice: by the curves' right ends, rightmost
/// first, then by their left ends, leftmost first, so that a pixel casting
/// its rays either way stops at the first curve beyond its footprint.
/// Each entry is the curve's offset and the first band listing it
/// ([`OFFSET_BITS`]).
pub fn pack(curves: &[Curve]) -> Option<Vec<u32>> {
    // (Offsets within a record take OFFSET_BITS: a record of more than
    // 16 million words, a glyph of some 400,000 curves, is refused.)
    if curves.is_empty() || curves.len() > (1 << OFFSET_BITS) / 64 {
        return None;
    }
    if curves.iter().flatten().any(|v| !v.is_finite()) {
        return None;
    }
    let (mut x0, mut y0, mut x1, mut y1) = (f32::MAX, f32::MAX, f32::MIN, f32::MIN);
    for c in curves {
        for p in [(c[0], c[1]), (c[4], c[5])] {
            x0 = x0.min(p.0);
            y0 = y0.min(p.1);
            x1 = x1.max(p.0);
            y1 = y1.max(p.1);
        }
    }
    let n = (curves.len() / CURVES_PER_BAND).clamp(1, MAX_BANDS);
    let height = (y1 - y0).max(f32::MIN_POSITIVE);
    let band_of = |y: f32| (((y - y0) / height * n as f32).floor().max(0.0) as usize).min(n - 1);
    let mut lists: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (i, c) in curves.iter().enumerate() {
        // Flat curves add nothing to any pixel's coverage.
        if c[1] == c[5] {
            continue;
        }
        let (lo, hi) = (c[1].min(c[5]), c[1].max(c[5]));
        for list in &mut lists[band_of(lo)..=band_of(hi)] {
            list.push(i as u32);
        }
    }
    let right = |i: u32| {
        let c = &curves[i as usize];
        c[0].max(c[4])
    };
    for list in &mut lists {
        list.sort_by(|&a, &b| right(b).total_cmp(&right(a)));
    }
    // Each band's curves twice: by right end, rightmost first (for rays to
    // the right), then by left end, leftmost first (rays to the left).
    let left = |i: u32| {
        let c = &curves[i as usize];
        c[0].min(c[4])
    };
    let lists: Vec<Vec<u32>> = lists
        .into_iter()
        .map(|list| {
            let mut by_left = list.clone();
            by_left.sort_by(|&a, &b| left(a).total_cmp(&left(b)));
            let mut both = list;
            both.extend(by_left);
            both
        })
        .collect();
    let listed: usize = lists.iter().map(Vec::len).sum();
    let curves_at = BAND_TABLE + 2 * n + listed;
    let mut words = Vec::with_capacity(curves_at + 6 * curves.len());
    words.extend([x0, y0, x1, y1].map(f32::to_bits));
    words.extend([n as u32, curves.len() as u32]);
    words.extend(grid(curves, [x0, y0, x1, y1]));
    let mut at = BAND_TABLE + 2 * n;
    for list in &lists {
        words.extend([at as u32, (list.len() / 2) as u32]);
        at += list.len();
    }
    for list in &lists {
        words.extend(list.iter().map(|&i| {
            let c = &curves[i as usize];
            let first = band_of(c[1].min(c[5])) as u32;
            (curves_at + 6 * i as usize) as u32 | first << OFFSET_BITS
        }));
    }
    for c in curves {
        words.extend(c.map(f32::to_bits));
    }
    Some(words)
}

/// Pieces a curve is cut into when its cells are marked.
const PIECES: usize = 16;

/// The cell grid of `curves` over `bounds` ([`GRID`]): a cell is an edge
/// cell where the box of one of a curve's [`PIECES`] pieces (its ends' box:
/// curves are monotone) comes within 1/64 of a cell of it, else inside or outside by the winding
/// number at its centre (a ray to the right, each curve crossing it once
/// at most).
fn grid(curves: &[Curve], [x0, y0, x1, y1]: [f32; 4]) -> [u32; GRID_SIDE * GRID_SIDE / 16] {
    let n = GRID_SIDE;
    let (cw, ch) = ((x1 - x0) / n as f32, (y1 - y0) / n as f32);
    let mut codes = vec![u32::MAX; n * n];
    let (mx, my) = (cw / 64.0, ch / 64.0);
    let col = |x: f32| (((x - x0) / cw).floor().max(0.0) as usize).min(n - 1);
    let row = |y: f32| (((y - y0) / ch).floor().max(0.0) as usize).min(n - 1);
    for c in curves {
        // In pieces, each within its ends' box (a piece of a monotone
        // curve is monotone): a long diagonal curve marks the cells along
        // it, not its whole box.
        let at = |t: f32| {
            let u = 1.0 - t;
            (
                u * u * c[0] + 2.0 * u * t * c[2] + t * t * c[4],
                u * u * c[1] + 2.0 * u * t * c[3] + t * t * c[5],
            )
        };
        let mut a = (c[0], c[1]);
        for i in 1..=PIECES {
            let b = if i == PIECES { (c[4], c[5]) } else { at(i as f32 / PIECES as f32) };
            let (lx, hx) = (a.0.min(b.0) - mx, a.0.max(b.0) + mx);
            let (ly, hy) = (a.1.min(b.1) - my, a.1.max(b.1) + my);
            for r in row(ly)..=row(hy) {
                for k in col(lx)..=col(hx) {
                    codes[r * n + k] = CELL_EDGE;
                }
            }
            a = b;
        }
    }
    let mut out = [0u32; GRID_SIDE * GRID_SIDE / 16];
    for (i, code) in codes.iter_mut().enumerate() {
        if *code == u32::MAX {
            let (cx, cy) = (x0 + ((i % n) as f32 + 0.5) * cw, y0 + ((i / n) as f32 + 0.5) * ch);
            *code = if winding(curves, cx, cy) != 0 { CELL_INSIDE } else { CELL_OUTSIDE };
        }
        out[i / 16] |= *code << (2 * (i % 16));
    }
    out
}

/// The winding number at `(x, y)` by the curves crossing the ray to its
/// right (each monotone in y: crossing a height once at most, half-open at
/// its ends so that a shared end counts once).
fn winding(curves: &[Curve], x: f32, y: f32) -> i32 {
    let mut w = 0;
    for c in curves {
        let (ya, yb) = (c[1], c[5]);
        if ya == yb || y < ya.min(yb) || y >= ya.max(yb) {
            continue;
        }
        // y(t) = ya + 2 (y1 - ya) t + (ya - 2 y1 + yb) t², solved in 0..1.
        let (a, b, k) = (ya - 2.0 * c[3] + yb, 2.0 * (c[3] - ya), ya - y);
        let t = if a.abs() <= 1e-9 * b.abs() {
            -k / b
        } else {
            let d = (b * b - 4.0 * a * k).max(0.0).sqrt();
            let (r1, r2) = ((-b + d) / (2.0 * a), (-b - d) / (2.0 * a));
            if (-1e-4..=1.0 + 1e-4).contains(&r1) {
                r1
            } else {
                r2
            }
        };
        let t = t.clamp(0.0, 1.0);
        let u = 1.0 - t;
        let cx = u * u * c[0] + 2.0 * u * t * c[2] + t * t * c[4];
        if cx > x {
            w += if yb > ya { 1 } else { -1 };
        }
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(w: u32) -> f32 {
        f32::from_bits(w)
    }

    #[test]
    fn every_curve_is_in_each_band_it_reaches_rightmost_first_then_leftmost_first() {
        // A square's four sides and a slanted line, cut in bands.
        let mut curves = vec![
            [0.0, 0.0, 0.5, 0.0, 1.0, 0.0],
            [1.0, 0.0, 1.0, 0.5, 1.0, 1.0],
            [1.0, 1.0, 0.5, 1.0, 0.0, 1.0],
            [0.0, 1.0, 0.0, 0.5, 0.0, 0.0],
        ];
        for i in 0..12 {
            let y = i as f32 / 12.0;
            curves.push([0.2, y, 0.25, y + 1.0 / 24.0, 0.3, y + 1.0 / 12.0]);
        }
        // Raised by 0.25 and squeezed to 0.75 high: bounds that neither
        // start at 0 nor span 1 (a band found as `y / height` or
        // `(y + ymin)` would land elsewhere).
        for c in &mut curves {
            for y in [1, 3, 5] {
                c[y] = 0.25 + 0.75 * c[y];
            }
        }
        let w = pack(&curves).unwrap();
        assert_eq!([f(w[0]), f(w[1]), f(w[2]), f(w[3])], [0.0, 0.25, 1.0, 1.0]);
        let n = w[4] as usize;
        assert_eq!((n, w[5] as usize), (4, 16));
        for b in 0..n {
            let (start, len) = (w[BAND_TABLE + 2 * b] as usize, w[BAND_TABLE + 2 * b + 1] as usize);
            let band = |k: usize| 0.25 + 0.75 * k as f32 / n as f32;
            let (lo, hi) = (band(b), band(b + 1));
            let entries = &w[start..start + len];
            let listed: Vec<usize> =
                entries.iter().map(|&o| (o & ((1 << OFFSET_BITS) - 1)) as usize).collect();
            // Each entry names the first band that lists its curve.
            for (&e, &o) in entries.iter().zip(&listed) {
                let first = (e >> OFFSET_BITS) as usize;
                assert!(first <= b);
                let lo = f(w[o + 1]).min(f(w[o + 5]));
                assert!(lo >= band(first) && lo < band(first + 1));
            }
            // Exactly the curves whose y range meets the band's (flat ones left out).
            let want = curves
                .iter()
                .enumerate()
                .filter(|(_, c)| c[1] != c[5] && c[1].min(c[5]) < hi && c[1].max(c[5]) >= lo)
                .count();
            assert_eq!(listed.len(), want, "band {b}");
            // Then the same entries by left end, leftmost first.
            let mut second = w[start + len..start + 2 * len].to_vec();
            let lefts: Vec<f32> = second
                .iter()
                .map(|&e| (e & ((1 << OFFSET_BITS) - 1)) as usize)
                .map(|o| f(w[o]).min(f(w[o + 4])))
                .collect();
            assert!(lefts.windows(2).all(|p| p[0] <= p[1]), "band {b}: {lefts:?}");
            let mut first = entries.to_vec();
            first.sort_unstable();
            second.sort_unstable();
            assert_eq!(first, second, "band {b}: the same curves both ways");
            let rights: Vec<f32> = listed.iter().map(|&o| f(w[o]).max(f(w[o + 4]))).collect();
            assert!(rights.windows(2).all(|p| p[0] >= p[1]), "band {b}: {rights:?}");
            for o in listed {
                let (y0, y2) = (f(w[o + 1]), f(w[o + 5]));
                assert!((y0.min(y2) < hi || b == n - 1) && y0.max(y2) >= lo, "band {b}");
            }
        }
    }

    /// A square ring (an outer square and an inner one the other way
    /// round): cells in the ring's body are inside, in its hole and beyond
    /// outside, and every cell its sides pass through is an edge cell.
    #[test]
    fn the_grid_marks_inside_outside_and_edge_cells() {
        let square = |lo: f32, hi: f32, ccw: bool| {
            let pts = [(lo, lo), (hi, lo), (hi, hi), (lo, hi)];
            let mut out: Vec<Curve> = Vec::new();
            for i in 0..4 {
                let (a, b) =
                    if ccw { (pts[i], pts[(i + 1) % 4]) } else { (pts[(i + 1) % 4], pts[i]) };
                out.push([a.0, a.1, (a.0 + b.0) / 2.0, (a.1 + b.1) / 2.0, b.0, b.1]);
            }
            out
        };
        let mut curves = square(0.0, 1.6, true);
        curves.extend(square(0.6, 1.0, false));
        let w = pack(&curves).unwrap();
        let code = |col: usize, row: usize| {
            let i = row * GRID_SIDE + col;
            (w[GRID + i / 16] >> (2 * (i % 16))) & 3
        };
        // Cells are 0.1 wide: the ring's body, its hole, its sides.
        assert_eq!(code(2, 2), CELL_INSIDE);
        assert_eq!(code(13, 4), CELL_INSIDE);
        assert_eq!(code(7, 7), CELL_OUTSIDE, "the hole");
        assert_eq!(code(0, 5), CELL_EDGE);
        assert_eq!(code(6, 8), CELL_EDGE);
        assert_eq!(code(5, 8), CELL_EDGE, "within 1/64 of a cell of the inner side");
        for col in 0..GRID_SIDE {
            for row in 0..GRID_SIDE {
                let (x, y) = ((col as f32 + 0.5) / 10.0, (row as f32 + 0.5) / 10.0);
                let want = if code(col, row) == CELL_EDGE {
                    continue;
                } else if (0.6..1.0).contains(&x) && (0.6..1.0).contains(&y) {
                    CELL_OUTSIDE
                } else {
                    CELL_INSIDE
                };
                assert_eq!(code(col, row), want, "cell {col}, {row}");
            }
        }
    }

    /// The most curves a record holds: its offsets fit `OFFSET_BITS`.
    #[test]
    fn a_record_holds_up_to_its_offsets_reach() {
        let most = (1usize << OFFSET_BITS) / 64;
        let tiny = |i: usize| {
            let y = i as f32 * 1e-3;
            [0.0, y, 0.0005, y + 0.0005, 0.001, y + 0.001]
        };
        let curves: Vec<Curve> = (0..most + 1).map(tiny).collect();
        let w = pack(&curves[..most]).expect("the most curves a record holds");
        assert!(w.len() < 1 << OFFSET_BITS);
        assert_eq!(pack(&curves), None, "one more");
    }

    #[test]
    fn nothing_to_pack_is_none() {
        assert_eq!(pack(&[]), None);
        assert_eq!(pack(&[[f32::NAN, 0.0, 0.0, 0.0, 1.0, 1.0]]), None);
    }
}
