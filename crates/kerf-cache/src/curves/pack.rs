//! Packing a glyph's curves into a record with horizontal bands.

use super::read::Curve;

/// Words before the band table: bounds (4), band count, curve count.
pub const HEADER_WORDS: usize = 6;
/// Where the band table starts: two words a band (list offset, length).
pub const BAND_TABLE: usize = HEADER_WORDS;
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
/// its `y` range reaches into, each list ordered by the curves' right ends,
/// rightmost first, so that a pixel stops at the first curve that ends left
/// of it. Each entry is the curve's offset and the first band listing it
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
    let listed: usize = lists.iter().map(Vec::len).sum();
    let curves_at = BAND_TABLE + 2 * n + listed;
    let mut words = Vec::with_capacity(curves_at + 6 * curves.len());
    words.extend([x0, y0, x1, y1].map(f32::to_bits));
    words.extend([n as u32, curves.len() as u32]);
    let mut at = BAND_TABLE + 2 * n;
    for list in &lists {
        words.extend([at as u32, list.len() as u32]);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn f(w: u32) -> f32 {
        f32::from_bits(w)
    }

    #[test]
    fn every_curve_is_in_each_band_it_reaches_rightmost_first() {
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
        let w = pack(&curves).unwrap();
        assert_eq!([f(w[0]), f(w[1]), f(w[2]), f(w[3])], [0.0, 0.0, 1.0, 1.0]);
        let n = w[4] as usize;
        assert_eq!((n, w[5] as usize), (4, 16));
        for b in 0..n {
            let (start, len) = (w[BAND_TABLE + 2 * b] as usize, w[BAND_TABLE + 2 * b + 1] as usize);
            let (lo, hi) = (b as f32 / n as f32, (b + 1) as f32 / n as f32);
            let entries = &w[start..start + len];
            let listed: Vec<usize> =
                entries.iter().map(|&o| (o & ((1 << OFFSET_BITS) - 1)) as usize).collect();
            // Each entry names the first band that lists its curve.
            for (&e, &o) in entries.iter().zip(&listed) {
                let first = (e >> OFFSET_BITS) as usize;
                assert!(first <= b);
                let lo = f(w[o + 1]).min(f(w[o + 5]));
                assert!(lo >= first as f32 / n as f32 && lo < (first + 1) as f32 / n as f32);
            }
            // Exactly the curves whose y range meets the band's (flat ones left out).
            let want = curves
                .iter()
                .enumerate()
                .filter(|(_, c)| c[1] != c[5] && c[1].min(c[5]) < hi && c[1].max(c[5]) >= lo)
                .count();
            assert_eq!(listed.len(), want, "band {b}");
            let rights: Vec<f32> = listed.iter().map(|&o| f(w[o]).max(f(w[o + 4]))).collect();
            assert!(rights.windows(2).all(|p| p[0] >= p[1]), "band {b}: {rights:?}");
            for o in listed {
                let (y0, y2) = (f(w[o + 1]), f(w[o + 5]));
                assert!((y0.min(y2) < hi || b == n - 1) && y0.max(y2) >= lo, "band {b}");
            }
        }
    }

    #[test]
    fn nothing_to_pack_is_none() {
        assert_eq!(pack(&[]), None);
        assert_eq!(pack(&[[f32::NAN, 0.0, 0.0, 0.0, 1.0, 1.0]]), None);
    }
}
