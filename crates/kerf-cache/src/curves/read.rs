//! Reading a glyph's outline as quadratic curves in em units.

/// One quadratic curve `p0, p1, p2` (em units, y up), monotone in x and in
/// y: its bounds are its ends'. A line is the curve whose control point is
/// its middle.
pub type Curve = [f32; 6];

/// How far, in ems, a cubic curve's quadratic pieces stray from it at most
/// (CFF outlines): 1/65,536 em, a thirty-second of a pixel at 2,000 px per
/// em.
pub const CUBIC_TOLERANCE_EM: f32 = 1.0 / 65_536.0;

/// Most quadratics one cubic is cut into.
const MAX_CUBIC_PIECES: usize = 64;

/// Glyph `glyph`'s outline in `face` as curves in em units, each monotone
/// in x and y; `oblique` shears it (`x += oblique · y`, a synthetic
/// italic). Empty for a glyph without an outline.
pub fn read_curves(face: &ttf_parser::Face<'_>, glyph: u16, oblique: f32) -> Vec<Curve> {
    let scale = 1.0 / f32::from(face.units_per_em().max(1));
    let mut b = Builder { scale, oblique, ..Builder::default() };
    face.outline_glyph(ttf_parser::GlyphId(glyph), &mut b);
    b.close();
    b.curves
}

#[derive(Default)]
struct Builder {
    scale: f32,
    oblique: f32,
    curves: Vec<Curve>,
    start: (f32, f32),
    pen: (f32, f32),
    open: bool,
}

impl Builder {
    fn point(&self, x: f32, y: f32) -> (f32, f32) {
        let (x, y) = (x * self.scale, y * self.scale);
        (x + self.oblique * y, y)
    }

    /// Closes the open contour with a line back to its start.
    fn close(&mut self) {
        if self.open && self.pen != self.start {
            let (p, s) = (self.pen, self.start);
            self.quad(p, ((p.0 + s.0) / 2.0, (p.1 + s.1) / 2.0), s);
        }
        self.open = false;
    }

    /// Appends `p0 p1 p2`, cut where x or y turns.
    fn quad(&mut self, p0: (f32, f32), p1: (f32, f32), p2: (f32, f32)) {
        monotone(p0, p1, p2, &mut self.curves);
    }
}

impl ttf_parser::OutlineBuilder for Builder {
    fn move_to(&mut self, x: f32, y: f32) {
        self.close();
        self.start = self.point(x, y);
        self.pen = self.start;
        self.open = true;
    }

    fn line_to(&mut self, x: f32, y: f32) {
        let p = self.point(x, y);
        let q = self.pen;
        self.quad(q, ((q.0 + p.0) / 2.0, (q.1 + p.1) / 2.0), p);
        self.pen = p;
    }

    fn quad_to(&mut self, x1: f32, y1: f32, x: f32, y: f32) {
        let (c, p) = (self.point(x1, y1), self.point(x, y));
        self.quad(self.pen, c, p);
        self.pen = p;
    }

    fn curve_to(&mut self, x1: f32, y1: f32, x2: f32, y2: f32, x: f32, y: f32) {
        let c0 = self.pen;
        let (c1, c2, c3) = (self.point(x1, y1), self.point(x2, y2), self.point(x, y));
        cubic_to_quads([c0, c1, c2, c3], &mut |p0, p1, p2| self.quad(p0, p1, p2));
        self.pen = c3;
    }

    fn close(&mut self) {
        Builder::close(self);
    }
}

type P = (f32, f32);

fn lerp(a: P, b: P, t: f32) -> P {
    (a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t)
}

/// Cuts cubic `c` into quadratics within [`CUBIC_TOLERANCE_EM`]: `n` equal
/// steps of `t`, each piece's control point `(3 (c1 + c2) − c0 − c3) / 4`,
/// which strays at most `√3 / 36 · |c3 − 3 c2 + 3 c1 − c0|` from the piece
/// (a piece's third difference is the whole's over `n³`).
pub(crate) fn cubic_to_quads(c: [P; 4], out: &mut impl FnMut(P, P, P)) {
    let d = (
        c[3].0 - 3.0 * c[2].0 + 3.0 * c[1].0 - c[0].0,
        c[3].1 - 3.0 * c[2].1 + 3.0 * c[1].1 - c[0].1,
    );
    let err = 3f32.sqrt() / 36.0 * d.0.hypot(d.1);
    let n = (err / CUBIC_TOLERANCE_EM).cbrt().ceil();
    let n = if n.is_finite() { (n as usize).clamp(1, MAX_CUBIC_PIECES) } else { 1 };
    let at = |t: f32| {
        let (a, b, cc) = (lerp(c[0], c[1], t), lerp(c[1], c[2], t), lerp(c[2], c[3], t));
        let (d, e) = (lerp(a, b, t), lerp(b, cc, t));
        lerp(d, e, t)
    };
    let tangent = |t: f32| {
        // The derivative over 3.
        let (a, b, cc) = (
            (c[1].0 - c[0].0, c[1].1 - c[0].1),
            (c[2].0 - c[1].0, c[2].1 - c[1].1),
            (c[3].0 - c[2].0, c[3].1 - c[2].1),
        );
        let u = 1.0 - t;
        (
            u * u * a.0 + 2.0 * u * t * b.0 + t * t * cc.0,
            u * u * a.1 + 2.0 * u * t * b.1 + t * t * cc.1,
        )
    };
    let mut start = c[0];
    for i in 0..n {
        let (t0, t1) = (i as f32 / n as f32, (i + 1) as f32 / n as f32);
        let end = if i + 1 == n { c[3] } else { at(t1) };
        // The piece's own cubic control points, from the tangents
        // (`tangent` is the derivative over 3).
        let h = t1 - t0;
        let (d0, d1) = (tangent(t0), tangent(t1));
        let q1 = (start.0 + d0.0 * h, start.1 + d0.1 * h);
        let q2 = (end.0 - d1.0 * h, end.1 - d1.1 * h);
        let ctrl = (
            (3.0 * (q1.0 + q2.0) - start.0 - end.0) / 4.0,
            (3.0 * (q1.1 + q2.1) - start.1 - end.1) / 4.0,
        );
        out(start, ctrl, end);
        start = end;
    }
}

/// Appends quadratic `p0 p1 p2` cut at its x and y turning points, each
/// piece's control point kept inside its ends' box (so its bounds are its
/// ends', to the float's rounding).
pub(crate) fn monotone(p0: P, p1: P, p2: P, out: &mut Vec<Curve>) {
    if p0 == p1 && p1 == p2 {
        return;
    }
    let turn = |a: f32, b: f32, c: f32| {
        let den = a - 2.0 * b + c;
        let t = (a - b) / den;
        (den != 0.0 && t > 0.0 && t < 1.0).then_some(t)
    };
    let mut ts = [turn(p0.0, p1.0, p2.0), turn(p0.1, p1.1, p2.1)];
    ts.sort_by(|a, b| a.unwrap_or(2.0).total_cmp(&b.unwrap_or(2.0)));
    let mut rest = (p0, p1, p2);
    let mut done = 0.0;
    for t in ts.into_iter().flatten() {
        // The remaining piece spans done..1: t in its own parameter.
        let u = (t - done) / (1.0 - done);
        if !(u > 0.0 && u < 1.0) {
            continue;
        }
        let (a, b, c) = rest;
        let (ab, bc) = (lerp(a, b, u), lerp(b, c, u));
        let m = lerp(ab, bc, u);
        push_clamped(a, ab, m, out);
        rest = (m, bc, c);
        done = t;
    }
    push_clamped(rest.0, rest.1, rest.2, out);
}

fn push_clamped(p0: P, p1: P, p2: P, out: &mut Vec<Curve>) {
    let clamp = |v: f32, a: f32, b: f32| v.clamp(a.min(b), a.max(b));
    let c = (clamp(p1.0, p0.0, p2.0), clamp(p1.1, p0.1, p2.1));
    if p0 != p2 {
        out.push([p0.0, p0.1, c.0, c.1, p2.0, p2.1]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(c: &Curve, t: f32) -> P {
        let u = 1.0 - t;
        (
            u * u * c[0] + 2.0 * u * t * c[2] + t * t * c[4],
            u * u * c[1] + 2.0 * u * t * c[3] + t * t * c[5],
        )
    }

    #[test]
    fn pieces_are_monotone_and_meet_end_to_end() {
        let mut out = Vec::new();
        // A curve that turns in x and in y.
        monotone((0.0, 0.0), (2.0, 3.0), (-1.0, 0.5), &mut out);
        assert_eq!(out.len(), 3);
        for w in out.windows(2) {
            assert_eq!((w[0][4], w[0][5]), (w[1][0], w[1][1]));
        }
        for c in &out {
            for i in 0..2 {
                let (lo, hi) = (c[i].min(c[4 + i]), c[i].max(c[4 + i]));
                assert!(c[2 + i] >= lo && c[2 + i] <= hi, "{c:?}");
            }
        }
        assert_eq!((out[0][0], out[0][1]), (0.0, 0.0));
        assert_eq!((out[2][4], out[2][5]), (-1.0, 0.5));
    }

    #[test]
    fn a_cubic_is_cut_within_the_tolerance() {
        let c = [(0.0, 0.0), (0.1, 0.9), (0.9, -0.6), (1.0, 0.2)];
        let mut quads = Vec::new();
        cubic_to_quads(c, &mut |a, b, d| quads.push([a.0, a.1, b.0, b.1, d.0, d.1]));
        assert!(quads.len() > 2, "{}", quads.len());
        let n = quads.len() as f32;
        // Each piece against the cubic at the same parameter.
        let cubic = |t: f32| {
            let u = 1.0 - t;
            (
                u * u * u * c[0].0
                    + 3.0 * u * u * t * c[1].0
                    + 3.0 * u * t * t * c[2].0
                    + t * t * t * c[3].0,
                u * u * u * c[0].1
                    + 3.0 * u * u * t * c[1].1
                    + 3.0 * u * t * t * c[2].1
                    + t * t * t * c[3].1,
            )
        };
        for (i, q) in quads.iter().enumerate() {
            for k in 0..=16 {
                let s = k as f32 / 16.0;
                let (a, b) = (eval(q, s), cubic((i as f32 + s) / n));
                let d = (a.0 - b.0).hypot(a.1 - b.1);
                assert!(d <= CUBIC_TOLERANCE_EM * 1.05, "piece {i} at {s}: {d}");
            }
        }
    }
}
