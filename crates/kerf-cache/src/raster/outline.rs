//! kerf's own outline rasterizer, for faces loaded lazily
//! ([`FontLoading::Lazy`](crate::fonts::FontLoading::Lazy)): one glyph's outline is
//! read from the font bytes with ttf-parser when that glyph is measured or
//! rasterized, flattened to line segments at the size asked and filled with
//! exact area coverage ([`Coverage`]). Its bitmaps are placed as fontdue
//! places its own (the same metrics and the same three-samples-a-pixel
//! layout, so the LCD filter serves both). A sub-pixel bin is the outline
//! moved by its offset and filled ([`rasterize_at`]), where fontdue's
//! faces resample a 3× raster.

use crate::error::RasterError;
use crate::font::instance::{embolden_px, offset_contour, signed_area, Instance};
use crate::font::{FaceHandle, FontRef};
use crate::raster::coverage::Coverage;
use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

/// Where a glyph's bitmap sits, as fontdue's `Metrics` say it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct RasterMetrics {
    /// Bitmap left edge, whole pixels right of the pen.
    pub(crate) xmin: i32,
    /// Bitmap bottom edge, whole pixels above the baseline.
    pub(crate) ymin: i32,
    /// Bitmap width in pixels (at one sample a pixel).
    pub(crate) width: usize,
    /// Bitmap height in pixels.
    pub(crate) height: usize,
    /// The outline's left edge, in pixels right of the pen (unrounded).
    pub(crate) bounds_xmin: f32,
}

impl From<&fontdue::Metrics> for RasterMetrics {
    fn from(m: &fontdue::Metrics) -> RasterMetrics {
        RasterMetrics {
            xmin: m.xmin,
            ymin: m.ymin,
            width: m.width,
            height: m.height,
            bounds_xmin: m.bounds.xmin,
        }
    }
}

/// Largest distance, in pixels, a flattened curve strays from the curve.
const TOLERANCE: f32 = 1.0 / 32.0;
/// Most segments one curve is cut into (a huge glyph's long curves).
const MAX_SEGMENTS: usize = 512;

/// A glyph's outline in pixels (y up, pen at the origin) as closed polygons.
#[derive(Default)]
struct Polygons {
    scale: f32,
    /// Synthetic oblique: x moves right by this times y.
    skew: f32,
    /// Flattened points; `starts` says where each contour begins.
    points: Vec<(f32, f32)>,
    starts: Vec<usize>,
    pen: (f32, f32),
    min: (f32, f32),
    max: (f32, f32),
}

impl Polygons {
    fn push(&mut self, p: (f32, f32)) {
        self.points.push(p);
        self.min = (self.min.0.min(p.0), self.min.1.min(p.1));
        self.max = (self.max.0.max(p.0), self.max.1.max(p.1));
        self.pen = p;
    }

    fn at(&self, x: f32, y: f32) -> (f32, f32) {
        let y = y * self.scale;
        (x * self.scale + self.skew * y, y)
    }

    /// Synthetic bold: every contour moved `d` px outward, bounds anew.
    fn embolden(&mut self, d: f32) {
        let area = signed_area(&self.points, &self.starts);
        // TrueType's outer contours run clockwise (y up), CFF's the other way.
        let clockwise = area < 0.0;
        for (i, &s) in self.starts.iter().enumerate() {
            let end = self.starts.get(i + 1).copied().unwrap_or(self.points.len());
            offset_contour(&mut self.points[s..end], d, clockwise);
        }
        self.min = (f32::INFINITY, f32::INFINITY);
        self.max = (f32::NEG_INFINITY, f32::NEG_INFINITY);
        for &p in &self.points {
            self.min = (self.min.0.min(p.0), self.min.1.min(p.1));
            self.max = (self.max.0.max(p.0), self.max.1.max(p.1));
        }
    }

    /// Points of the curve with control points `c` from the pen, cut into
    /// segments no farther than [`TOLERANCE`] from it (a curve's chord error
    /// under uniform steps is at most |second derivative| / 8 per step²).
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
        let n = ((bound / (8.0 * TOLERANCE)).sqrt() as usize + 1).min(MAX_SEGMENTS);
        let step = 1.0 / n as f32;
        match c {
            [c1, p1] => {
                for i in 1..=n {
                    let t = i as f32 * step;
                    let u = 1.0 - t;
                    let (a, b, d) = (u * u, 2.0 * u * t, t * t);
                    self.push((a * p0.0 + b * c1.0 + d * p1.0, a * p0.1 + b * c1.1 + d * p1.1));
                }
            }
            [c1, c2, p1] => {
                for i in 1..=n {
                    let t = i as f32 * step;
                    let u = 1.0 - t;
                    let (a, b, e, d) = (u * u * u, 3.0 * u * u * t, 3.0 * u * t * t, t * t * t);
                    self.push((
                        a * p0.0 + b * c1.0 + e * c2.0 + d * p1.0,
                        a * p0.1 + b * c1.1 + e * c2.1 + d * p1.1,
                    ));
                }
            }
            _ => {}
        }
    }
}

impl ttf_parser::OutlineBuilder for Polygons {
    fn move_to(&mut self, x: f32, y: f32) {
        self.starts.push(self.points.len());
        let p = self.at(x, y);
        self.push(p);
    }

    fn line_to(&mut self, x: f32, y: f32) {
        let p = self.at(x, y);
        self.push(p);
    }

    fn quad_to(&mut self, x1: f32, y1: f32, x: f32, y: f32) {
        let c = [self.at(x1, y1), self.at(x, y)];
        self.curve(&c);
    }

    fn curve_to(&mut self, x1: f32, y1: f32, x2: f32, y2: f32, x: f32, y: f32) {
        let c = [self.at(x1, y1), self.at(x2, y2), self.at(x, y)];
        self.curve(&c);
    }

    fn close(&mut self) {}
}

/// The outline a thread read last, kept for the rasterize that follows its
/// measure (a miss is measured, then rasterized: one read serves both, and
/// the sub-pixel offsets of one glyph share it too).
struct LastRead {
    /// The face's identity: the weak handle pins its allocation (so no other
    /// face can take its address) without keeping the face alive.
    face: FaceHandle,
    /// The instance drawn (held, so its address names no other).
    instance: Option<Arc<Instance>>,
    key: (u16, u32),
    outline: Option<Polygons>,
}

thread_local! {
    static LAST: RefCell<Option<LastRead>> = const { RefCell::new(None) };
}

/// Calls `f` with glyph `glyph`'s outline at `px`, read from the font or
/// kept from this thread's last read of it; `done` drops the kept outline
/// (the glyph is rasterized). Only bytes owned by the font are kept.
fn with_outline<R>(
    font: FontRef<'_>, glyph: u16, px: f32, done: bool, f: impl FnOnce(Option<&Polygons>) -> R,
) -> Result<R, RasterError> {
    if !std::ptr::eq(font.bytes, font.font.bytes()) {
        return Ok(f(read(font, glyph, px)?.as_ref()));
    }
    let key = (glyph, px.to_bits());
    let same = |a: Option<&Arc<Instance>>, b: Option<&Arc<Instance>>| match (a, b) {
        (Some(a), Some(b)) => Arc::ptr_eq(a, b),
        (a, b) => a.is_none() && b.is_none(),
    };
    let kept = LAST.with_borrow_mut(|last| match last.take() {
        Some(l)
            if l.key == key
                && l.face.is(font.font)
                && same(l.instance.as_ref(), font.font.instance_arc()) =>
        {
            Some(l)
        }
        _ => None,
    });
    let outline = match kept {
        Some(l) => l.outline,
        None => read(font, glyph, px)?,
    };
    let r = f(outline.as_ref());
    if !done {
        let face = font.font.handle();
        let instance = font.font.instance_arc().cloned();
        LAST.with_borrow_mut(|last| *last = Some(LastRead { face, instance, key, outline }));
    }
    Ok(r)
}

/// Glyph `glyph`'s outline at `px` pixels per em, read from `font`'s bytes
/// (counted on the font); `None` for a glyph without one (space).
fn read(font: FontRef<'_>, glyph: u16, px: f32) -> Result<Option<Polygons>, RasterError> {
    font.font.count_outline_read();
    let outline = catch_unwind(AssertUnwindSafe(|| {
        let mut face = ttf_parser::Face::parse(font.bytes, font.collection_index)
            .map_err(|_| RasterError::BadFont)?;
        let instance = font.font.instance();
        for (tag, v) in instance.map_or(&[][..], |i| i.variations()) {
            face.set_variation(ttf_parser::Tag::from_bytes(tag), *v);
        }
        let mut p = Polygons {
            scale: px / f32::from(face.units_per_em().max(1)),
            skew: instance.map_or(0.0, |i| i.oblique()),
            min: (f32::INFINITY, f32::INFINITY),
            max: (f32::NEG_INFINITY, f32::NEG_INFINITY),
            ..Polygons::default()
        };
        let read = face.outline_glyph(ttf_parser::GlyphId(glyph), &mut p);
        if read.is_some() && instance.is_some_and(|i| i.embolden()) {
            p.embolden(embolden_px(px));
        }
        Ok(read.map(|_| p))
    }))
    .map_err(|_| RasterError::Panicked)??;
    Ok(outline.filter(|p| {
        p.points.len() > 1 && p.min.0.is_finite() && p.max.0 > p.min.0 && p.max.1 > p.min.1
    }))
}

/// The bitmap placement of an outline with bounds `min..max`, moved `dx`
/// px right.
fn metrics_of(p: &Polygons, dx: f32) -> RasterMetrics {
    let (xmin, xmax) = (p.min.0 + dx, p.max.0 + dx);
    let (left, bottom) = (xmin.floor(), p.min.1.floor());
    RasterMetrics {
        xmin: left as i32,
        ymin: bottom as i32,
        width: (xmax.ceil() - left) as usize,
        height: (p.max.1.ceil() - bottom) as usize,
        bounds_xmin: xmin,
    }
}

/// Where glyph `glyph` at `px` would be placed (its outline read, not filled).
pub(crate) fn metrics(
    font: FontRef<'_>, glyph: u16, px: f32,
) -> Result<RasterMetrics, RasterError> {
    metrics_at(font, glyph, px, 0.0)
}

/// Where glyph `glyph` at `px`, moved `dx` px right, would be placed.
pub(crate) fn metrics_at(
    font: FontRef<'_>, glyph: u16, px: f32, dx: f32,
) -> Result<RasterMetrics, RasterError> {
    with_outline(font, glyph, px, false, |p| {
        p.map_or(RasterMetrics::default(), |p| metrics_of(p, dx))
    })
}

/// Glyph `glyph` at `px`: its placement and coverage, one sample a pixel, or
/// with `thirds` three a pixel horizontally in fontdue's layout (the outline's
/// left edge at `fract(bounds_xmin)` thirds into a row `3 × width` long).
pub(crate) fn rasterize(
    font: FontRef<'_>, glyph: u16, px: f32, thirds: bool,
) -> Result<(RasterMetrics, Vec<u8>), RasterError> {
    with_outline(font, glyph, px, true, |p| match p {
        Some(p) => {
            let m = metrics_of(p, 0.0);
            let pixels = if thirds {
                // 3·(x − xmin) + fract(xmin), as fontdue.
                let f = p.min.0 - p.min.0.floor();
                fill(p, 3.0, p.min.0 - f / 3.0, 3 * m.width, m.height)
            } else {
                fill(p, 1.0, m.xmin as f32, m.width, m.height)
            };
            (m, pixels)
        }
        None => (RasterMetrics::default(), Vec::new()),
    })
}

/// Glyph `glyph` at `px` drawn at each offset of `dxs` (px right of the
/// pen, each in `0..1`), one sample a pixel: the outline moved by the offset
/// and filled with exact area coverage, so no resampling smears it. The
/// outline is read once for all of them.
pub(crate) fn rasterize_at(
    font: FontRef<'_>, glyph: u16, px: f32, dxs: &[f32],
) -> Result<Vec<(RasterMetrics, Vec<u8>)>, RasterError> {
    with_outline(font, glyph, px, true, |p| {
        dxs.iter()
            .map(|&dx| match p {
                Some(p) => {
                    let m = metrics_of(p, dx);
                    (m, fill(p, 1.0, m.xmin as f32 - dx, m.width, m.height))
                }
                None => (RasterMetrics::default(), Vec::new()),
            })
            .collect()
    })
}

/// The coverage of `p` in a `w × h` bitmap whose columns are `1 / sx` px
/// wide, column 0 starting at `x0` px right of the pen, its top row at the
/// outline's top rounded up.
fn fill(p: &Polygons, sx: f32, x0: f32, w: usize, h: usize) -> Vec<u8> {
    let top = p.max.1.ceil();
    let mut cov = Coverage::new(w, h);
    for (i, &s) in p.starts.iter().enumerate() {
        let end = p.starts.get(i + 1).copied().unwrap_or(p.points.len());
        let contour = &p.points[s..end];
        for (j, a) in contour.iter().enumerate() {
            let b = contour[(j + 1) % contour.len()];
            cov.line(sx * (a.0 - x0), top - a.1, sx * (b.0 - x0), top - b.1);
        }
    }
    cov.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ttf_parser::OutlineBuilder;

    /// Flattened curves end where the curve ends and every point lies on
    /// the Bézier curve of their definition (quadratic and cubic, at the
    /// outline's scale), the chords within the tolerance of it.
    #[test]
    fn curves_flatten_onto_their_bezier_definitions() {
        let bezier = |c: &[(f32, f32)], t: f32| -> (f32, f32) {
            // De Casteljau: repeated interpolation, no closed form shared
            // with the code under test.
            let mut p = c.to_vec();
            while p.len() > 1 {
                p = p
                    .windows(2)
                    .map(|w| (w[0].0 + t * (w[1].0 - w[0].0), w[0].1 + t * (w[1].1 - w[0].1)))
                    .collect();
            }
            p[0]
        };
        let near_curve = |c: &[(f32, f32)], q: (f32, f32), within: f32| {
            (0..=40_000).any(|i| {
                let p = bezier(c, i as f32 / 40_000.0);
                (p.0 - q.0).hypot(p.1 - q.1) <= within
            })
        };
        let s = 0.5;
        // (The third curve bends in x across negative coordinates, where a
        // sum instead of a second difference would see no bend at all.)
        for (cubic, start, ctrl) in [
            (false, (0.0, 0.0), vec![(50.0, 100.0), (100.0, 0.0)]),
            (true, (0.0, 0.0), vec![(0.0, 80.0), (100.0, 80.0), (100.0, 0.0)]),
            (false, (-40.0, 0.0), vec![(40.0, 10.0), (-40.0, 20.0)]),
            // Bending in y between ends off the axis (y1 + y2 counts).
            (false, (0.0, 100.0), vec![(50.0, -100.0), (100.0, 100.0)]),
        ] {
            let mut p = Polygons { scale: s, ..Polygons::default() };
            p.move_to(start.0, start.1);
            match ctrl[..] {
                [(x1, y1), (x2, y2), (x, y)] => p.curve_to(x1, y1, x2, y2, x, y),
                [(x1, y1), (x, y)] => p.quad_to(x1, y1, x, y),
                _ => unreachable!(),
            }
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
            // Uniform steps in t: point i is the curve at i / n.
            let n = p.points.len() - 1;
            for (i, &q) in p.points.iter().enumerate() {
                let want = bezier(&c, i as f32 / n as f32);
                assert!(
                    (q.0 - want.0).hypot(q.1 - want.1) < 1e-3,
                    "cubic {cubic}: {q:?} vs {want:?}"
                );
            }
            // Each chord's midpoint is within the tolerance of the curve.
            for w in p.points.windows(2) {
                let mid = ((w[0].0 + w[1].0) / 2.0, (w[0].1 + w[1].1) / 2.0);
                assert!(near_curve(&c, mid, TOLERANCE + 0.005), "cubic {cubic}: chord at {mid:?}");
            }
        }
    }
}
