//! A glyph's flattened outline: closed polygons in font units, their
//! bounds, and their edges sorted by kind once.

/// A glyph's outline as closed polygons in font units (y up).
#[derive(Debug, Default)]
pub(crate) struct FlatOutline {
    /// Flattened points; `starts` says where each contour begins.
    pub(crate) points: Vec<(f32, f32)>,
    pub(crate) starts: Vec<usize>,
    /// The points' bounds (infinite and reversed with no points).
    pub(crate) min: (f32, f32),
    pub(crate) max: (f32, f32),
    /// Its edges by kind, sorted once here rather than at every fill.
    pub(crate) edges: Edges,
}

impl FlatOutline {
    /// An outline of `points` (contours beginning at `starts`), its bounds
    /// measured and its edges sorted.
    pub(crate) fn new(points: Vec<(f32, f32)>, starts: Vec<usize>) -> FlatOutline {
        let mut min = (f32::INFINITY, f32::INFINITY);
        let mut max = (f32::NEG_INFINITY, f32::NEG_INFINITY);
        // (Comparisons, not `f32::min`/`max`, whose NaN rules cost several
        // instructions each: one `minss`/`maxss`. A NaN point leaves the
        // bounds as they were; the fill clamps it.)
        let (lo, hi) = (
            |a: f32, b: f32| if b < a { b } else { a },
            |a: f32, b: f32| if b > a { b } else { a },
        );
        for &(x, y) in &points {
            min = (lo(min.0, x), lo(min.1, y));
            max = (hi(max.0, x), hi(max.1, y));
        }
        let edges = Edges::of(&points, &starts);
        FlatOutline { points, starts, min, max, edges }
    }

    /// Bytes of its points, contour starts and edges (what the store
    /// counts against its bound).
    pub(super) fn size(&self) -> usize {
        // (What is allocated: the vectors' room, not only their lengths.)
        self.points.capacity() * size_of::<(f32, f32)>()
            + self.starts.capacity() * size_of::<usize>()
            + self.edges.bytes()
    }
}

/// A polygon's edges by kind, each the indices of its two ends (a
/// contour's last point joined back to its first): vertical ones (same x,
/// not the same y) and slanted ones (neither); level ones, which enclose no
/// area, left out. Scaling and moving every point alike keeps each edge's
/// kind (equal coordinates stay equal), so an outline's edges are sorted
/// once, in font units, and every raster of it walks the lists. Indices
/// are 16-bit where the points allow (4 bytes an edge; nearly every
/// glyph), 32-bit past that.
#[derive(Debug)]
pub(crate) enum Edges {
    /// Of at most 2^16 points.
    Short(Sorted<u16>),
    /// Of more.
    Long(Sorted<u32>),
}

impl Default for Edges {
    fn default() -> Edges {
        Edges::Short(Sorted::default())
    }
}

/// One kind of [`Edges`]' lists: the vertical edges, one spare entry, then
/// the slanted ones.
#[derive(Debug)]
pub(crate) struct Sorted<I> {
    list: Vec<(I, I)>,
    /// How many are vertical.
    vertical: usize,
}

impl<I> Default for Sorted<I> {
    fn default() -> Sorted<I> {
        Sorted { list: Vec::new(), vertical: 0 }
    }
}

/// A point's index in [`Edges`]: 16 or 32 bits.
pub(crate) trait EdgeIndex: Copy + Default + Into<u32> {
    /// `v`, which fits.
    fn of(v: u32) -> Self;
}

impl EdgeIndex for u16 {
    fn of(v: u32) -> u16 {
        v as u16
    }
}

impl EdgeIndex for u32 {
    fn of(v: u32) -> u32 {
        v
    }
}

impl<I: EdgeIndex> Sorted<I> {
    /// Without a branch on an edge's kind (which comes in no order a branch
    /// predictor learns): every edge is written both at the vertical ones'
    /// next place, from the front of a list with room for one edge a point
    /// and a spare, and at the slanted ones' next place, from its back, and
    /// counted in its own kind (a write past a kind's count is overwritten
    /// by the next edge of that kind, or left in the gap between the two);
    /// then the slanted ones are moved down to follow the spare entry. One
    /// pass, one allocation.
    fn of(points: &[(f32, f32)], starts: &[usize]) -> Sorted<I> {
        // (At most one edge a point: room for all of them, and the spare.)
        let last = points.len();
        let mut list = vec![(I::default(), I::default()); last + 1];
        let (mut iv, mut is) = (0, 0);
        each_edge(points, starts, |(a, b), v, s| {
            let edge = (I::of(a), I::of(b));
            list[iv] = edge;
            list[last - is] = edge;
            (iv, is) = (iv + v, is + s);
        });
        // The slanted ones moved down to follow the spare entry.
        list.copy_within(last + 1 - is.., iv + 1);
        list.truncate(iv + 1 + is);
        // (Kept with the outline: without the room of the level edges.)
        list.shrink_to_fit();
        Sorted { list, vertical: iv }
    }

    /// The vertical edges.
    pub(crate) fn vertical(&self) -> &[(I, I)] {
        &self.list[..self.vertical]
    }

    /// The slanted edges.
    pub(crate) fn slanted(&self) -> &[(I, I)] {
        self.list.get(self.vertical + 1..).unwrap_or(&[])
    }

    /// Bytes allocated.
    fn bytes(&self) -> usize {
        self.list.capacity() * size_of::<(I, I)>()
    }
}

impl Edges {
    /// The edges of the closed contours of `points` beginning at `starts`
    /// (a start past the points: an empty contour).
    pub(crate) fn of(points: &[(f32, f32)], starts: &[usize]) -> Edges {
        if points.len() <= 1 << 16 {
            Edges::Short(Sorted::of(points, starts))
        } else {
            Edges::Long(Sorted::of(points, starts))
        }
    }

    /// Bytes allocated.
    fn bytes(&self) -> usize {
        match self {
            Edges::Short(s) => s.bytes(),
            Edges::Long(l) => l.bytes(),
        }
    }

    /// The vertical and the slanted edges, as pairs of 32-bit indices.
    #[cfg(test)]
    fn pairs(&self) -> [Vec<(u32, u32)>; 2] {
        fn wide<I: EdgeIndex>(l: &[(I, I)]) -> Vec<(u32, u32)> {
            l.iter().map(|&(a, b)| (a.into(), b.into())).collect()
        }
        match self {
            Edges::Short(s) => [wide(s.vertical()), wide(s.slanted())],
            Edges::Long(l) => [wide(l.vertical()), wide(l.slanted())],
        }
    }
}

/// Calls `f` with each edge of the closed contours of `points` beginning
/// at `starts` (the indices of its ends), 1 if it is vertical (else 0) and
/// 1 if it is slanted.
#[inline(always)]
fn each_edge(points: &[(f32, f32)], starts: &[usize], mut f: impl FnMut((u32, u32), usize, usize)) {
    let n = points.len();
    for (i, &s) in starts.iter().enumerate() {
        let end = starts.get(i + 1).copied().unwrap_or(n).min(n);
        for k in s..end {
            let next = if k + 1 < end { k + 1 } else { s };
            let (a, b) = (points[k], points[next]);
            let level = (a.1 == b.1) as usize;
            let upright = ((a.0 == b.0) & (a.1 != b.1)) as usize;
            f((k as u32, next as u32), upright, 1 - level - upright);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// An outline's edges sorted once are every edge of every contour
        /// (each contour's last point joined back to its first) by kind,
        /// as a plain loop tells them: vertical (same x, another y),
        /// slanted (another x and y), level ones left out. Points on a
        /// small grid, so equal coordinates are common; contours of 0–6
        /// points, some starts past the points.
        #[test]
        fn edges_are_every_edge_by_kind(
            points in proptest::collection::vec((0u8..4, 0u8..4), 0..24),
            cuts in proptest::collection::vec(0usize..30, 1..5),
        ) {
            let points: Vec<(f32, f32)> =
                points.iter().map(|&(x, y)| (f32::from(x), f32::from(y))).collect();
            let mut starts = cuts;
            starts.sort_unstable();
            let edges = Edges::of(&points, &starts);
            let (mut vertical, mut slanted) = (Vec::new(), Vec::new());
            for (i, &s) in starts.iter().enumerate() {
                let end = starts.get(i + 1).copied().unwrap_or(points.len()).min(points.len());
                for k in s..end {
                    let next = if k + 1 == end { s } else { k + 1 };
                    let ((ax, ay), (bx, by)) = (points[k], points[next]);
                    if ay == by {
                        continue;
                    } else if ax == bx {
                        vertical.push((k as u32, next as u32));
                    } else {
                        slanted.push((k as u32, next as u32));
                    }
                }
            }
            let sorted = |mut l: Vec<(u32, u32)>| {
                l.sort_unstable();
                l
            };
            let [v, s] = edges.pairs();
            proptest::prop_assert!(matches!(edges, Edges::Short(_)));
            proptest::prop_assert_eq!(sorted(v), sorted(vertical));
            proptest::prop_assert_eq!(sorted(s), sorted(slanted));
        }
    }

    /// Past 2^16 points, edges keep 32-bit indices: a polygon of 70,000
    /// points has its edges to the last point and back to the first.
    #[test]
    fn edges_of_more_points_than_16_bits_index_keep_32_bit_indices() {
        let n = 70_000u32;
        // A zigzag: every edge slanted.
        let points: Vec<(f32, f32)> = (0..n).map(|i| (i as f32, (i % 2) as f32)).collect();
        let edges = Edges::of(&points, &[0]);
        assert!(matches!(edges, Edges::Long(_)));
        let [v, s] = edges.pairs();
        assert!(v.is_empty());
        assert_eq!(s.len(), n as usize);
        assert!(s.contains(&(n - 2, n - 1)) && s.contains(&(n - 1, 0)));
    }
}
