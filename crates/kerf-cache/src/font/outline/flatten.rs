//! Reading a glyph's outline from a face and flattening its curves for a
//! size class.

use super::flat::FlatOutline;

/// How far, in pixels, a flattened curve strays from the curve at 16 px per
/// em (between the ends of its end segments: half as far again; see
/// [`Flattener::curve`]). A class flattens for its top size with this
/// tolerance times the square root of top ÷ 16 (1/44 px at 16 px, 1/31 at
/// 32, 1/22 at 64): a larger glyph's edge pixels are fewer among its inked
/// ones, so its mean error stays about even with a coarser cut. (fontdue's
/// grows linearly: one outline for every size.)
const TOLERANCE: f32 = 1.0 / 44.0;
/// Most segments one curve is cut into (a huge glyph's long curves).
const MAX_SEGMENTS: usize = 512;

/// The size class of `px` pixels per em: outlines flattened for a class
/// are within its tolerance ([`TOLERANCE`]) of the curve at every size up
/// to `2^class` px.
pub(crate) fn size_class(px: f32) -> u8 {
    let px = if px.is_finite() { px.clamp(1.0, 65_536.0) } else { 1.0 };
    (px.ceil() as u32).next_power_of_two().trailing_zeros() as u8
}

/// Reads glyph `glyph`'s outline from `face`, flattened for size class
/// `class` (the tolerance in the face's units at the class's top size);
/// `None` for a glyph without one.
pub(crate) fn flatten(face: &ttf_parser::Face<'_>, glyph: u16, class: u8) -> Option<FlatOutline> {
    flatten_with(face.units_per_em(), class, |f| face.outline_glyph(ttf_parser::GlyphId(glyph), f))
}

/// [`flatten`] from a face's `glyf` table alone ([`GlyfTables`]), in a face
/// of `units_per_em`.
pub(crate) fn flatten_glyf(
    glyf: &ttf_parser::glyf::Table<'_>, units_per_em: u16, glyph: u16, class: u8,
) -> Option<FlatOutline> {
    flatten_with(units_per_em, class, |f| glyf.outline(ttf_parser::GlyphId(glyph), f))
}

/// A glyph's outline, read by `outline` into a [`Flattener`] for size
/// class `class` in a face of `units_per_em`.
fn flatten_with(
    units_per_em: u16, class: u8, outline: impl FnOnce(&mut Flattener) -> Option<ttf_parser::Rect>,
) -> Option<FlatOutline> {
    let upem = f32::from(units_per_em.max(1));
    let top = (1u32 << class.min(16)) as f32;
    let tolerance = class_tolerance(top) * upem / top;
    let mut f = Flattener { tolerance, ..Flattener::default() };
    outline(&mut f)?;
    // (Kept for many frames: without the room their growth left.)
    f.points.shrink_to_fit();
    f.starts.shrink_to_fit();
    Some(FlatOutline::new(f.points, f.starts))
}

/// Where a face that draws from its `glyf` table alone (TrueType outlines,
/// no `gvar` variations) keeps its outlines, found when the face is
/// loaded: a read parses `loca` and `glyf` from these ranges of the face's
/// bytes instead of the whole face (`ttf_parser::Face::parse` reads a dozen
/// tables' headers: about 3,200 instructions a read of DejaVu Sans, a fifth
/// of a first raster at 16 px).
#[derive(Clone, Debug)]
pub(crate) struct GlyfTables {
    glyf: std::ops::Range<usize>,
    loca: std::ops::Range<usize>,
    format: ttf_parser::head::IndexToLocationFormat,
    glyphs: std::num::NonZeroU16,
}

impl GlyfTables {
    /// `face`'s tables, parsed from `bytes`, when it draws from `glyf`
    /// alone; `None` for CFF outlines, `gvar` variations or tables outside
    /// `bytes`.
    pub(crate) fn of(face: &ttf_parser::Face<'_>, bytes: &[u8]) -> Option<GlyfTables> {
        let tables = face.tables();
        if tables.glyf.is_none() || tables.gvar.is_some() {
            return None;
        }
        let range = |tag: &[u8; 4]| {
            let table = face.raw_face().table(ttf_parser::Tag::from_bytes(tag))?;
            // (Where the table lies in `bytes`: the parser hands out
            // subslices of them.)
            let start = (table.as_ptr() as usize).checked_sub(bytes.as_ptr() as usize)?;
            let end = start.checked_add(table.len())?;
            (end <= bytes.len()).then_some(start..end)
        };
        Some(GlyfTables {
            glyf: range(b"glyf")?,
            loca: range(b"loca")?,
            format: tables.head.index_to_location_format,
            glyphs: tables.maxp.number_of_glyphs,
        })
    }

    /// The `glyf` table, parsed from the face's own `bytes` (the ones
    /// [`of`](Self::of) was given); `None` if they do not hold it.
    pub(crate) fn table<'a>(&self, bytes: &'a [u8]) -> Option<ttf_parser::glyf::Table<'a>> {
        let loca = ttf_parser::loca::Table::parse(
            self.glyphs,
            self.format,
            bytes.get(self.loca.clone())?,
        )?;
        ttf_parser::glyf::Table::parse(loca, bytes.get(self.glyf.clone())?)
    }
}

/// The tolerance in pixels of a class whose top size is `top` px.
fn class_tolerance(top: f32) -> f32 {
    TOLERANCE * (top / 16.0).sqrt()
}

#[derive(Default)]
struct Flattener {
    /// In font units.
    tolerance: f32,
    points: Vec<(f32, f32)>,
    starts: Vec<usize>,
    pen: (f32, f32),
}

impl Flattener {
    fn push(&mut self, p: (f32, f32)) {
        self.points.push(p);
        self.pen = p;
    }

    /// Points of the curve with control points `c` from the pen: `n`
    /// uniform steps in t, each step's chord then moved halfway to the
    /// curve.
    ///
    /// The chord of a step of length h strays from the curve by h²/8 times
    /// the curve's second derivative B'' at its middle, always to the same
    /// side (inside a bend): filled, every chord loses area. So every point
    /// but the ends is moved by −h²/16 · B'' at its t (exactly half the
    /// stray of each of a quadratic's chords, whose B'' is constant; half
    /// the local stray of a cubic's): a chord then crosses the curve, its
    /// middle and its ends each half the stray away on either side, and a
    /// filled outline keeps its area. For a bound on B'', `n` is the
    /// fewest steps whose chords stray at most twice the tolerance, so the
    /// moved ones stray at most the tolerance; the two end steps, with one
    /// end on the curve, at most 1.5 times it. (Chords on the curve within
    /// the same tolerance take √2 times the steps.)
    fn curve(&mut self, c: &[(f32, f32)]) {
        let p0 = self.pen;
        let second = |a: (f32, f32), b: (f32, f32), d: (f32, f32)| {
            let (x, y) = (a.0 - 2.0 * b.0 + d.0, a.1 - 2.0 * b.1 + d.1);
            (x * x + y * y).sqrt()
        };
        let bound = match c {
            [c1, p1] => 2.0 * second(p0, *c1, *p1),
            [c1, c2, p1] => 6.0 * second(p0, *c1, *c2).max(second(*c1, *c2, *p1)),
            _ => return,
        };
        // (Truncation plus one: at least the ceiling, without a libm call.)
        let n = ((bound / (16.0 * self.tolerance)).sqrt() as usize + 1).min(MAX_SEGMENTS);
        let h = 1.0 / n as f32;
        // Point i moves by −(h²/16) B''(i h); the last (the curve's end) stays.
        let k = h * h / 16.0;
        let moved = |i: usize| if i < n { k } else { 0.0 };
        match c {
            [c1, p1] => {
                // B'' = 2 (p0 − 2 c1 + p1), the same all along.
                let d = (2.0 * (p0.0 - 2.0 * c1.0 + p1.0), 2.0 * (p0.1 - 2.0 * c1.1 + p1.1));
                for i in 1..=n {
                    let t = i as f32 * h;
                    let u = 1.0 - t;
                    let (a, b, e) = (u * u, 2.0 * u * t, t * t);
                    let m = moved(i);
                    self.push((
                        a * p0.0 + b * c1.0 + e * p1.0 - m * d.0,
                        a * p0.1 + b * c1.1 + e * p1.1 - m * d.1,
                    ));
                }
            }
            [c1, c2, p1] => {
                // B''(t) = 6 ((1 − t) d0 + t d1).
                let d0 = (p0.0 - 2.0 * c1.0 + c2.0, p0.1 - 2.0 * c1.1 + c2.1);
                let d1 = (c1.0 - 2.0 * c2.0 + p1.0, c1.1 - 2.0 * c2.1 + p1.1);
                for i in 1..=n {
                    let t = i as f32 * h;
                    let u = 1.0 - t;
                    let (a, b, e, d) = (u * u * u, 3.0 * u * u * t, 3.0 * u * t * t, t * t * t);
                    let m = 6.0 * moved(i);
                    let dd = (u * d0.0 + t * d1.0, u * d0.1 + t * d1.1);
                    self.push((
                        a * p0.0 + b * c1.0 + e * c2.0 + d * p1.0 - m * dd.0,
                        a * p0.1 + b * c1.1 + e * c2.1 + d * p1.1 - m * dd.1,
                    ));
                }
            }
            _ => {}
        }
    }
}

impl ttf_parser::OutlineBuilder for Flattener {
    fn move_to(&mut self, x: f32, y: f32) {
        self.starts.push(self.points.len());
        self.push((x, y));
    }

    fn line_to(&mut self, x: f32, y: f32) {
        self.push((x, y));
    }

    fn quad_to(&mut self, x1: f32, y1: f32, x: f32, y: f32) {
        self.curve(&[(x1, y1), (x, y)]);
    }

    fn curve_to(&mut self, x1: f32, y1: f32, x2: f32, y2: f32, x: f32, y: f32) {
        self.curve(&[(x1, y1), (x2, y2), (x, y)]);
    }

    fn close(&mut self) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use ttf_parser::OutlineBuilder;

    /// A face read from its `glyf` table alone gives every glyph the
    /// outline the whole face's parse gives it (ttf-parser's `Face`, the
    /// reference), point for point, in plain TrueType faces and in one of
    /// a collection; a face with `gvar` variations has no such tables (its
    /// outlines need the whole face).
    #[test]
    fn the_glyf_table_alone_reads_the_outlines_the_face_reads() {
        use crate::font::test_fonts::system_font;
        let wqy =
            system_font("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc", "fonts-wqy-microhei");
        for (name, bytes, index, step) in [
            ("DejaVu Sans", dejavu::sans::regular().to_vec(), 0, 1),
            ("DejaVu Sans Mono", dejavu::sans_mono::regular().to_vec(), 0, 1),
            ("WenQuanYi Micro Hei Mono", wqy, 1, 37),
        ] {
            let face = ttf_parser::Face::parse(&bytes, index).unwrap();
            let tables = GlyfTables::of(&face, &bytes).unwrap_or_else(|| panic!("{name}: tables"));
            let glyf = tables.table(&bytes).unwrap();
            let mut read = 0;
            for g in (0..face.number_of_glyphs()).step_by(step) {
                for class in [4, 6] {
                    let want = flatten(&face, g, class);
                    let got = flatten_glyf(&glyf, face.units_per_em(), g, class);
                    assert_eq!(
                        got.as_ref().map(|o| (&o.points, &o.starts)),
                        want.as_ref().map(|o| (&o.points, &o.starts)),
                        "{name}: glyph {g}, class {class}"
                    );
                    read += usize::from(want.is_some());
                }
            }
            assert!(read > 100, "{name}: {read} outlines");
            // Bytes that do not hold the tables: none.
            assert!(tables.table(&bytes[..16]).is_none(), "{name}");
        }
        let inter =
            system_font("/usr/share/fonts/truetype/inter-vf/Inter.var.ttf", "fonts-inter-variable");
        let face = ttf_parser::Face::parse(&inter, 0).unwrap();
        assert!(face.tables().gvar.is_some());
        assert!(GlyfTables::of(&face, &inter).is_none(), "Inter: gvar variations");
    }

    /// Flattened curves end where the curve ends and every point lies on
    /// the Bézier curve of their definition (quadratic and cubic, at the
    /// outline's scale), the chords within the tolerance of it.
    #[test]
    fn curves_flatten_onto_their_bezier_definitions() {
        let near_curve = |c: &[(f32, f32)], q: (f32, f32), within: f32| {
            (0..=40_000).any(|i| {
                let p = de_casteljau(c, i as f64 / 40_000.0);
                (p.0 - f64::from(q.0)).hypot(p.1 - f64::from(q.1)) <= f64::from(within)
            })
        };
        let s = 0.5;
        // (The third curve bends in x across negative coordinates, where a
        // sum instead of a second difference would see no bend at all.)
        for (cubic, start, ctrl) in [
            (false, (0.0, 0.0), vec![(50.0, 100.0), (100.0, 0.0)]),
            // (The cubic's points are all off the axes, so every weight
            // and every term of its second derivative counts in both
            // coordinates.)
            (true, (20.0, 10.0), vec![(6.0, 80.0), (100.0, 80.0), (100.0, 6.0)]),
            (false, (-40.0, 0.0), vec![(40.0, 10.0), (-40.0, 20.0)]),
            // Bending in y between ends off the axis (y1 + y2 counts).
            (false, (0.0, 100.0), vec![(50.0, -100.0), (100.0, 100.0)]),
        ] {
            // Flattened at scale `s`: the tolerance is in scaled units.
            let mut f = Flattener { tolerance: TOLERANCE, ..Flattener::default() };
            let at = |(x, y): (f32, f32)| (x * s, y * s);
            let scaled: Vec<(f32, f32)> = ctrl.iter().map(|&c| at(c)).collect();
            f.move_to(at(start).0, at(start).1);
            match scaled[..] {
                [(x1, y1), (x2, y2), (x, y)] => f.curve_to(x1, y1, x2, y2, x, y),
                [(x1, y1), (x, y)] => f.quad_to(x1, y1, x, y),
                _ => unreachable!(),
            }
            let p = FlatOutline::new(f.points, f.starts);
            let c: Vec<(f32, f32)> = std::iter::once(start)
                .chain(ctrl.iter().copied())
                .map(|(x, y)| (x * s, y * s))
                .collect();
            let end = *c.last().unwrap();
            assert!(p.points.len() > 4, "cubic {cubic}: {} points", p.points.len());
            let last = *p.points.last().unwrap();
            assert!(
                (last.0 - end.0).hypot(last.1 - end.1) < 1e-4,
                "cubic {cubic}: ends at {last:?}"
            );
            // Uniform steps in t: point i is the curve at i / n moved by
            // −h²/16 times the second derivative there (by central
            // differences of de Casteljau's points: exact for a cubic), the
            // last one on the curve.
            let n = p.points.len() - 1;
            let h = 1.0 / n as f64;
            for (i, &q) in p.points.iter().enumerate() {
                let t = i as f64 * h;
                let mut want = de_casteljau(&c, t);
                if i > 0 && i < n {
                    let e = 1e-3;
                    let (a, b) = (de_casteljau(&c, t - e), de_casteljau(&c, t + e));
                    let second = (
                        (a.0 - 2.0 * want.0 + b.0) / (e * e),
                        (a.1 - 2.0 * want.1 + b.1) / (e * e),
                    );
                    want = (want.0 - h * h / 16.0 * second.0, want.1 - h * h / 16.0 * second.1);
                }
                assert!(
                    (f64::from(q.0) - want.0).hypot(f64::from(q.1) - want.1) < 1e-3,
                    "cubic {cubic}: point {i} at {q:?}, not {want:?}"
                );
            }
            // Every segment within the tolerance of the curve (the two end
            // segments, one end on the curve, within 1.5 times it).
            let tol = f64::from(TOLERANCE);
            for (i, w) in p.points.windows(2).enumerate() {
                // (+ 0.002: the curve is sampled at 40,001 points; on these
                // curves every point has a sample within 0.002.)
                let within = if i == 0 || i == n - 1 { 1.5 * tol } else { tol } + 0.002;
                for j in 0..=8 {
                    let f = j as f32 / 8.0;
                    let q = (w[0].0 + f * (w[1].0 - w[0].0), w[0].1 + f * (w[1].1 - w[0].1));
                    assert!(
                        near_curve(&c, q, within as f32),
                        "cubic {cubic}: segment {i} at {q:?}"
                    );
                }
            }
            // The filled area (the outline closed by a line back to its
            // start) is closer to the curve's than chords on the curve with
            // as many steps would make it.
            let shoelace = |pts: &[(f64, f64)]| {
                let n = pts.len();
                (0..n)
                    .map(|i| {
                        let (a, b) = (pts[i], pts[(i + 1) % n]);
                        a.0 * b.1 - b.0 * a.1
                    })
                    .sum::<f64>()
                    / 2.0
            };
            let exact = shoelace(
                &(0..=40_000).map(|i| de_casteljau(&c, i as f64 / 40_000.0)).collect::<Vec<_>>(),
            );
            let chords =
                shoelace(&(0..=n).map(|i| de_casteljau(&c, i as f64 * h)).collect::<Vec<_>>());
            let ours: Vec<(f64, f64)> =
                p.points.iter().map(|&(x, y)| (f64::from(x), f64::from(y))).collect();
            let (ours, chords) = ((shoelace(&ours) - exact).abs(), (chords - exact).abs());
            assert!(ours < 0.3 * chords, "cubic {cubic}: area off by {ours}, chords' by {chords}");
            // No more segments than the tolerance needs: a quadratic's
            // chords all stray alike (its second derivative is constant), so
            // with one step fewer the moved ones would stray past the
            // tolerance or onto it.
            if !cubic {
                assert!(
                    midpoint_stray(&c, n - 1) / 2.0 >= tol * (1.0 - 1e-6),
                    "quadratic {c:?}: {n} segments where {} stay within {TOLERANCE}",
                    n - 1
                );
            }
        }
    }

    /// The Bézier curve of control points `c` at `t`, by de Casteljau's
    /// construction in f64: repeated interpolation, no closed form shared
    /// with the code under test.
    fn de_casteljau(c: &[(f32, f32)], t: f64) -> (f64, f64) {
        let mut p: Vec<(f64, f64)> = c.iter().map(|&(x, y)| (f64::from(x), f64::from(y))).collect();
        while p.len() > 1 {
            p = p
                .windows(2)
                .map(|w| (w[0].0 + t * (w[1].0 - w[0].0), w[0].1 + t * (w[1].1 - w[0].1)))
                .collect();
        }
        p[0]
    }

    /// The farthest a chord's midpoint lies from the curve's point at the
    /// middle of the chord's steps, with `m` uniform steps in t.
    fn midpoint_stray(c: &[(f32, f32)], m: usize) -> f64 {
        let at = |t: f64| de_casteljau(c, t);
        (0..m)
            .map(|i| {
                let (a, b) = (at(i as f64 / m as f64), at((i + 1) as f64 / m as f64));
                let mid = at((i as f64 + 0.5) / m as f64);
                (mid.0 - (a.0 + b.0) / 2.0).hypot(mid.1 - (a.1 + b.1) / 2.0)
            })
            .fold(0.0, f64::max)
    }

    /// A size class's tolerance is in the face's units at the class's top
    /// size: DejaVu Sans's Latin letters at 16 px (class 4) stay a few
    /// dozen points a glyph, and at 64 px (class 6) their curves take about
    /// √2 times the segments (steps grow as the square root of the size
    /// over the tolerance: four times the size, twice the tolerance), lines
    /// the same.
    #[test]
    fn flattening_follows_the_size_class() {
        let face = ttf_parser::Face::parse(dejavu::sans::regular(), 0).unwrap();
        let points = |class: u8| -> usize {
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                .chars()
                .map(|ch| {
                    let g = face.glyph_index(ch).unwrap().0;
                    flatten(&face, g, class).map_or(0, |o| o.points.len())
                })
                .sum()
        };
        let (small, large) = (points(4), points(6));
        assert!(small < 62 * 60, "{small} points at 16 px");
        let ratio = large as f64 / small as f64;
        assert!((1.1..1.5).contains(&ratio), "64 px: {large} points, {ratio:.2}× 16 px's");
    }

    #[test]
    fn a_size_class_holds_every_size_up_to_its_top() {
        for (px, class) in
            [(1.0, 0), (0.2, 0), (2.0, 1), (2.5, 2), (16.0, 4), (16.01, 5), (24.0, 5)]
        {
            assert_eq!(size_class(px), class, "{px}");
            assert!(px <= (1u32 << class) as f32);
        }
        assert_eq!(size_class(f32::NAN), 0);
        assert_eq!(size_class(1e9), 16);
    }
}
