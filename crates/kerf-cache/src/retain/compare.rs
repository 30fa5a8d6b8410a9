//! How a prepare's glyphs stand to the ones a retained run recorded: the
//! same bit for bit, or the same glyphs moved by whole pixels row by row
//! (see the module docs of `retain/mod.rs`), and where the rows are.

use crate::text::PositionedGlyph;

/// Zero exactly when `p` and `q` are the same glyph (font, id, size and
/// colour, bit for bit), wherever they are: the fields XORed and ORed
/// together without a branch.
#[inline(always)]
fn glyph_bits(p: &PositionedGlyph, q: &PositionedGlyph) -> u32 {
    (p.font.0 ^ q.font.0)
        | (p.glyph ^ q.glyph) as u32
        | (p.size.to_bits() ^ q.size.to_bits())
        | (u32::from_ne_bytes(p.color) ^ u32::from_ne_bytes(q.color))
}

/// Whether `a` and `b` hold the same glyphs, bit for bit: 16 glyphs at a
/// time, each chunk's fields XORed and ORed together without a branch.
pub(super) fn same_bits(a: &[PositionedGlyph], b: &[PositionedGlyph]) -> bool {
    #[inline(always)]
    fn diff(p: &PositionedGlyph, q: &PositionedGlyph) -> u32 {
        glyph_bits(p, q) | (p.x.to_bits() ^ q.x.to_bits()) | (p.y.to_bits() ^ q.y.to_bits())
    }
    a.len() == b.len()
        && a.chunks(16)
            .zip(b.chunks(16))
            .all(|(x, y)| x.iter().zip(y).fold(0, |acc, (p, q)| acc | diff(p, q)) == 0)
}

/// How a prepare's glyphs stand to the ones a run recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Same {
    /// The same, bit for bit.
    Identical,
    /// Moved by whole pixels, as one or row by row with the rows' quads
    /// known (the moves in the cache's `buffers.shifts`).
    Moved,
    /// Moved row by row, where the rows' quads are not known yet.
    NeedsRows,
}

/// The most frames of moved glyphs a run waits for before it records them
/// (`RetainedRun`'s `patience`).
pub(super) const MAX_PATIENCE: u8 = 16;

/// Pens this far from the origin, or farther, are not compared for a move:
/// below it, a pen times any bin count fits an `i32` exactly.
pub(super) const MOVE_LIMIT: f32 = 1_048_576.0;

/// How far `q` lies from `p` in whole pixels, `(dx, dy)`, when it is the
/// same glyph with its pen snapped at `bins` to the same sub-pixel bin `dx`
/// pixels to the right (and, with `color`, rounded to whole pixels `dx` to
/// the right too, as colour glyphs are placed) and its y rounded `dy`
/// pixels lower: then lookups make of `q` the quads of `p` moved by that
/// much. `None` otherwise, and for pens at or beyond [`MOVE_LIMIT`].
#[inline]
pub(super) fn pen_move(
    p: &PositionedGlyph, q: &PositionedGlyph, bins: u32, color: bool,
) -> Option<(i32, i32)> {
    use crate::subpixel::{round_half_away, snap_subpixel};
    let near = |v: f32| v.abs() < MOVE_LIMIT;
    if !(glyph_bits(p, q) == 0 && near(p.x) && near(q.x) && near(p.y) && near(q.y)) {
        return None;
    }
    let ((wp, bp), (wq, bq)) = (snap_subpixel(p.x, bins), snap_subpixel(q.x, bins));
    let dx = wq - wp;
    let whole = !color || round_half_away(q.x) - round_half_away(p.x) == dx;
    (bp == bq && whole).then(|| (dx, round_half_away(q.y) - round_half_away(p.y)))
}

/// Whether `b` is `a` moved by whole pixels row by row: every glyph of
/// `b` lies from `a`'s by the same [`pen_move`] as the other glyphs of its
/// row. Rows: where each ends (glyph index
/// first); empty: one row. Each row's `(dx, dy)` goes to `shifts`, in
/// order. Lookups would then make of `b` the quads of `a`, each row's moved
/// by its shift. False (for another length, an empty run, any other
/// difference) leaves `shifts` in no particular state.
pub(super) fn moved_by(
    a: &[PositionedGlyph], b: &[PositionedGlyph], bins: u32, color: bool, rows: &[(u32, u32)],
    shifts: &mut Vec<(i32, i32)>,
) -> bool {
    shifts.clear();
    if a.len() != b.len() || a.is_empty() {
        return false;
    }
    let one = [(a.len() as u32, 0)];
    let mut from = 0;
    for &(end, _) in if rows.is_empty() { &one[..] } else { rows } {
        let (Some(ra), Some(rb)) = (a.get(from..end as usize), b.get(from..end as usize)) else {
            return false;
        };
        let Some((p0, q0)) = ra.first().zip(rb.first()) else { return false };
        let Some(by) = pen_move(p0, q0, bins, color) else { return false };
        // The common case first: a row moved down or up only, each glyph
        // at its recorded x and, as recorded and now, at the row's first
        // glyph's y, the same bits: the same move.
        let same_x = by.0 == 0;
        let alike = |p: &PositionedGlyph, q: &PositionedGlyph| {
            (glyph_bits(p, q)
                | (p.x.to_bits() ^ q.x.to_bits())
                | (p.y.to_bits() ^ p0.y.to_bits())
                | (q.y.to_bits() ^ q0.y.to_bits()))
                == 0
        };
        let moved = |(p, q): (&PositionedGlyph, &PositionedGlyph)| {
            (same_x && alike(p, q)) || pen_move(p, q, bins, color) == Some(by)
        };
        if !ra.iter().zip(rb).skip(1).all(moved) {
            return false;
        }
        shifts.push(by);
        from = end as usize;
    }
    from == a.len()
}

/// Makes `rows` where each row of `glyphs` (a stretch of consecutive
/// glyphs at the same y, bit for bit) ends, by glyph index, with 0 for its
/// end in quads (not known); none when they are one row.
pub(super) fn rows_into(glyphs: &[PositionedGlyph], rows: &mut Vec<(u32, u32)>) {
    rows.clear();
    let breaks =
        glyphs.windows(2).enumerate().filter(|(_, w)| w[0].y.to_bits() != w[1].y.to_bits());
    rows.extend(breaks.map(|(i, _)| (i as u32 + 1, 0)));
    if !rows.is_empty() {
        rows.push((glyphs.len() as u32, 0));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::FontId;

    fn glyph(x: f32, y: f32) -> PositionedGlyph {
        PositionedGlyph { font: FontId(1), glyph: 40, size: 16.0, x, y, color: [1, 2, 3, 255] }
    }

    fn at(pens: &[(f32, f32)]) -> Vec<PositionedGlyph> {
        pens.iter().map(|&(x, y)| glyph(x, y)).collect()
    }

    /// [`moved_by`] as one row: its move.
    fn mv(
        a: &[PositionedGlyph], b: &[PositionedGlyph], bins: u32, color: bool,
    ) -> Option<(i32, i32)> {
        let mut shifts = vec![(9, 9)];
        moved_by(a, b, bins, color, &[], &mut shifts).then(|| {
            assert_eq!(shifts.len(), 1);
            shifts[0]
        })
    }

    fn moved(a: &[(f32, f32)], by: (f32, f32)) -> Vec<PositionedGlyph> {
        at(&a.iter().map(|&(x, y)| (x + by.0, y + by.1)).collect::<Vec<_>>())
    }

    #[test]
    fn a_move_is_seen_when_every_pen_keeps_its_bin_and_rounds_alike() {
        let pens = [(3.3, 20.1), (13.05, 20.1), (24.2, 20.1)];
        let a = at(&pens);
        assert_eq!(mv(&a, &a, 4, false), Some((0, 0)));
        assert_eq!(mv(&a, &moved(&pens, (0.0, 0.3)), 4, false), Some((0, 0)));
        assert_eq!(mv(&a, &moved(&pens, (0.0, 0.5)), 4, false), Some((0, 1)));
        assert_eq!(mv(&a, &moved(&pens, (2.0, -3.2)), 4, false), Some((2, -3)));
        assert_eq!(mv(&a, &moved(&pens, (-7.0, 0.0)), 4, false), Some((-7, 0)));
        // Half a pixel moves the pens to other bins (at four): lookups.
        assert_eq!(mv(&a, &moved(&pens, (0.5, 0.0)), 4, false), None);
        // At one bin every pen rounds to whole pixels: here half a pixel
        // is one for every pen, and not when one pen moves a fifth instead.
        assert_eq!(mv(&a, &moved(&pens, (0.5, 0.0)), 1, false), Some((1, 0)));
        let mut b = moved(&pens, (0.5, 0.0));
        b[2].x = 24.4;
        assert_eq!(mv(&a, &b, 1, false), None);
    }

    #[test]
    fn pens_that_round_apart_are_not_a_move() {
        // Two rows whose baselines differ by a fraction: moved 0.3 down,
        // one row's rounded y moves (39.35 → 39.65) and the other's does
        // not (20.1 → 20.4).
        let pens = [(3.0, 20.1), (3.0, 39.35)];
        assert_eq!(mv(&at(&pens), &moved(&pens, (0.0, 0.3)), 4, false), None);
        assert_eq!(mv(&at(&pens), &moved(&pens, (0.0, 1.0)), 4, false), Some((0, 1)));
        // So do pens whose bins differ after the move: 0.2 → 0.45 stays at
        // bin 1 of 4 and 0.05 → 0.3 goes from bin 0 to bin 1.
        let pens = [(10.2, 5.0), (20.05, 5.0)];
        assert_eq!(mv(&at(&pens), &moved(&pens, (0.25, 0.0)), 4, false), None);
    }

    #[test]
    fn colour_glyphs_must_move_by_the_same_whole_pixels() {
        // 0.49 → 1.51: at four bins the same bin one pixel right, but
        // rounded to whole pixels (as colour glyphs are placed) 0 → 2.
        let (a, b) = (at(&[(0.49, 9.0)]), at(&[(1.51, 9.0)]));
        assert_eq!(mv(&a, &b, 4, false), Some((1, 0)));
        assert_eq!(mv(&a, &b, 4, true), None);
        let (a, b) = (at(&[(5.2, 9.0)]), at(&[(8.2, 9.0)]));
        assert_eq!(mv(&a, &b, 4, true), Some((3, 0)));
    }

    #[test]
    fn any_other_difference_is_not_a_move() {
        let a = at(&[(3.3, 20.0), (13.3, 20.0)]);
        let b = moved(&[(3.3, 20.0), (13.3, 20.0)], (1.0, 1.0));
        let changes: [fn(&mut PositionedGlyph); 4] =
            [|g| g.glyph += 1, |g| g.font = FontId(2), |g| g.size = 16.5, |g| g.color[0] ^= 1];
        for (i, change) in changes.iter().enumerate() {
            for k in 0..2 {
                let mut c = b.clone();
                change(&mut c[k]);
                assert_eq!(mv(&a, &c, 4, false), None, "change {i} of glyph {k}");
            }
        }
        assert_eq!(mv(&a, &b[..1], 4, false), None, "another length");
        assert_eq!(mv(&[], &[], 4, false), None, "nothing to move");
        // Pens far out, or not numbers, that move are left to lookups.
        for far in [MOVE_LIMIT, -MOVE_LIMIT, f32::NAN, f32::INFINITY] {
            for k in 0..2 {
                let mut c = a.clone();
                c[k].x = far;
                let d: Vec<PositionedGlyph> =
                    c.iter().map(|g| PositionedGlyph { x: g.x + 1.0, ..*g }).collect();
                assert_eq!(mv(&c, &d, 4, false), None, "x {far} of glyph {k}, moved right");
                c[k].x = a[k].x;
                c[k].y = far;
                let d: Vec<PositionedGlyph> =
                    c.iter().map(|g| PositionedGlyph { y: g.y + 1.0, ..*g }).collect();
                assert_eq!(mv(&c, &d, 4, false), None, "y {far} of glyph {k}, moved down");
            }
        }
        let just_inside = at(&[(MOVE_LIMIT - 1.0, MOVE_LIMIT - 1.0)]);
        assert_eq!(mv(&just_inside, &just_inside, 4, false), Some((0, 0)));
    }
}

#[cfg(test)]
mod row_tests {
    use super::*;
    use crate::key::FontId;

    fn row(y: f32, xs: &[f32]) -> Vec<PositionedGlyph> {
        xs.iter()
            .map(|&x| PositionedGlyph {
                font: FontId(1),
                glyph: 40,
                size: 16.0,
                x,
                y,
                color: [0, 0, 0, 255],
            })
            .collect()
    }

    #[test]
    fn rows_are_stretches_of_one_y() {
        let ends = |g: &[PositionedGlyph]| {
            let mut rows = vec![(7, 7)];
            rows_into(g, &mut rows);
            rows.iter().map(|r| r.0).collect::<Vec<u32>>()
        };
        let mut g = row(20.0, &[1.0, 9.0, 17.0]);
        assert!(ends(&g).is_empty(), "one row");
        assert!(ends(&[]).is_empty());
        g.extend(row(40.8, &[1.0, 9.0]));
        g.extend(row(20.0, &[30.0]));
        assert_eq!(ends(&g), [3, 5, 6]);
    }

    #[test]
    fn each_row_moves_by_its_own_whole_pixels() {
        // Baselines 20.2 apart: 0.35 lower, the first row rounds as before
        // and the second a pixel lower.
        let mut a = row(20.1, &[1.3, 9.3]);
        a.extend(row(40.3, &[1.3, 9.3, 17.3]));
        let b: Vec<PositionedGlyph> =
            a.iter().map(|g| PositionedGlyph { y: g.y + 0.35, x: g.x + 2.0, ..*g }).collect();
        let mut shifts = Vec::new();
        assert!(!moved_by(&a, &b, 4, false, &[], &mut shifts), "not as one row");
        let rows = [(2, 2), (5, 5)];
        assert!(moved_by(&a, &b, 4, false, &rows, &mut shifts));
        assert_eq!(shifts, [(2, 0), (2, 1)]);
        // Rows must cover the glyphs, and each must move alike.
        assert!(!moved_by(&a, &b, 4, false, &[(2, 2)], &mut shifts), "rows short of the run");
        assert!(!moved_by(&a, &b, 4, false, &[(2, 2), (6, 6)], &mut shifts), "rows past it");
        assert!(!moved_by(&a, &b, 4, false, &[(1, 1), (5, 5)], &mut shifts), "a row of two ys");
    }
}
