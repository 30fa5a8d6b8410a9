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
use crate::font::outline::{flatten, flatten_glyf, size_class, FlatOutline};
use crate::font::{instance_face, FaceHandle, FontRef};
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

/// A glyph's outline in pixels (y up, pen at the origin) as closed polygons:
/// a kept outline and its scale to pixels (no copy of its points), or a
/// synthetic instance's own points, already in pixels.
#[derive(Clone)]
struct Polygons {
    flat: Arc<FlatOutline>,
    /// Pixels a unit of `flat`.
    scale: f32,
    /// Bounds in pixels.
    min: (f32, f32),
    max: (f32, f32),
}

impl Polygons {
    /// `flat` (font units) scaled by `scale`, slanted by `skew` (x moves
    /// right by `skew` times y) and, with `bold`, every contour moved that
    /// many pixels outward.
    fn of(flat: Arc<FlatOutline>, scale: f32, skew: f32, bold: Option<f32>) -> Polygons {
        if skew == 0.0 && bold.is_none() {
            // (Scaling by a positive factor keeps the order of the points'
            // coordinates, rounded or not: the bounds scale with them.)
            let (min, max) = (flat.min, flat.max);
            return Polygons {
                flat,
                scale,
                min: (min.0 * scale, min.1 * scale),
                max: (max.0 * scale, max.1 * scale),
            };
        }
        let mut points: Vec<(f32, f32)> = flat
            .points
            .iter()
            .map(|&(x, y)| {
                let y = y * scale;
                (x * scale + skew * y, y)
            })
            .collect();
        if let Some(d) = bold {
            let area = signed_area(&points, &flat.starts);
            // TrueType's outer contours run clockwise (y up), CFF's the other way.
            let clockwise = area < 0.0;
            for (i, &s) in flat.starts.iter().enumerate() {
                let end = flat.starts.get(i + 1).copied().unwrap_or(points.len());
                offset_contour(&mut points[s..end], d, clockwise);
            }
        }
        let own = FlatOutline::new(points, flat.starts.clone());
        Polygons { min: own.min, max: own.max, flat: Arc::new(own), scale: 1.0 }
    }
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
        return Ok(f(read(font, glyph, px, false)?.as_ref()));
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
        None => read(font, glyph, px, true)?,
    };
    let r = f(outline.as_ref());
    if !done {
        let face = font.font.handle();
        let instance = font.font.instance_arc().cloned();
        LAST.with_borrow_mut(|last| *last = Some(LastRead { face, instance, key, outline }));
    }
    Ok(r)
}

/// Glyph `glyph`'s outline at `px` pixels per em: flattened from `font`'s
/// bytes (counted on the font), or kept in the face's store from an earlier
/// read at a size of the same class; `None` for a glyph without one (space).
/// `own_bytes`: `font.bytes` are the face's own (only those are kept; a
/// caller may pass others).
fn read(
    font: FontRef<'_>, glyph: u16, px: f32, own_bytes: bool,
) -> Result<Option<Polygons>, RasterError> {
    let instance = font.font.instance();
    let store = font.font.outline_store().filter(|_| own_bytes);
    let class = size_class(px);
    let flat = match store.and_then(|s| s.get(glyph, class)) {
        Some(kept) => kept,
        None => {
            font.font.count_outline_read();
            let flat = catch_unwind(AssertUnwindSafe(|| {
                // The face's own bytes, drawn from `glyf` alone: two tables
                // parsed, not the face.
                if let Some(tables) = font.font.glyf_tables().filter(|_| own_bytes) {
                    let glyf = tables.table(font.bytes).ok_or(RasterError::BadFont)?;
                    let upem = font.font.units_per_em();
                    return Ok(flatten_glyf(&glyf, upem, glyph, class).map(Arc::new));
                }
                let face = instance_face(font.bytes, font.collection_index, instance)
                    .map_err(|_| RasterError::BadFont)?;
                Ok(flatten(&face, glyph, class).map(Arc::new))
            }))
            .map_err(|_| RasterError::Panicked)??;
            if let Some(s) = store {
                s.insert(glyph, class, flat.clone());
            }
            flat
        }
    };
    let Some(flat) = flat else { return Ok(None) };
    let scale = px / f32::from(font.font.units_per_em().max(1));
    let bold = instance.is_some_and(|i| i.embolden()).then(|| embolden_px(px));
    let p = Polygons::of(flat, scale, instance.map_or(0.0, |i| i.oblique()), bold);
    Ok(Some(p).filter(|p| {
        p.flat.points.len() > 1 && p.min.0.is_finite() && p.max.0 > p.min.0 && p.max.1 > p.min.1
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
    // A kept point q is at sx·(scale·q.x − x0) across, top − scale·q.y down.
    let (kx, ox, ky) = (sx * p.scale, sx * x0, p.scale);
    cov.edges(p.flat.points.iter().map(|q| (kx * q.0 - ox, top - ky * q.1)), &p.flat.edges);
    cov.into_bytes()
}
