//! Glyph outlines read from a face's bytes and flattened to closed polygons
//! in font units, kept per glyph and size class after their first read
//! ([`OutlineStore`]), so a glyph rasterized again (evicted and drawn anew,
//! another sub-pixel offset, another size of the same class) skips the
//! font's tables and the curve flattening.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Arc, Mutex};

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
/// Most bytes of points, contour starts and edges one face's store keeps
/// (3 MiB: about 2^18 points with their edges, as many outlines as the
/// store held when it counted 2^19 points and edges of 8 bytes each, at
/// a little over half their memory); past it the store starts over.
const STORE_BYTES: usize = 3 << 20;
/// Frames an outline stays in the store unread: a glyph drawn once (a
/// message's rare ideograph that has scrolled away) gives back its
/// outline's memory after ten seconds at 60 fps, so the store holds the
/// outlines of the text being drawn, not of all text ever drawn. Rasters
/// again of what is on screen (another sub-pixel offset, a glyph evicted
/// and drawn anew) read it well within that.
const IDLE_FRAMES: u64 = 600;
/// Frames between two sweeps of outlines gone idle.
const SWEEP_EVERY: u64 = 60;

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
    fn size(&self) -> usize {
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

/// One face's flattened outlines by glyph and size class, bounded to
/// [`STORE_BYTES`] (it starts over when a new outline
/// would pass that: memory is bounded by the glyphs drawn, never by the
/// face), and each dropped once unread for [`IDLE_FRAMES`] frames of the
/// caches that draw from the face ([`tick`](Self::tick)).
#[derive(Debug, Default)]
pub(crate) struct OutlineStore {
    inner: Mutex<Stored>,
}

#[derive(Debug, Default)]
struct Stored {
    /// Each outline by glyph and size class.
    map: HashMap<(u16, u8), Kept, BuildHasherDefault<KeyHasher>>,
    /// Bytes of the outlines kept ([`FlatOutline::size`]).
    bytes: usize,
    /// The latest frame a cache drawing from the face has ended, and the
    /// frame of the last sweep of idle outlines.
    now: u64,
    swept: u64,
}

/// An outline kept (`None`: the glyph has none) and the frame it was last
/// read or kept in.
type Kept = (Option<Arc<FlatOutline>>, u64);

/// A hasher for (glyph, class) keys: they are small integers chosen by the
/// fonts drawn, not by an adversary, and a lookup is on every raster's
/// path, so one multiply instead of SipHash.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    /// (The key's integers arrive here as their bytes.)
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | u64::from(b);
        }
    }

    fn finish(&self) -> u64 {
        // (A product's high bits mix every bit of the key, its low bits
        // only the key's low bits: the high half is folded into the low,
        // which choose the bucket.)
        let p = self.0.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        p ^ (p >> 32)
    }
}

impl OutlineStore {
    /// The outline kept for `glyph` at size class `class`: `None` if none
    /// is kept, `Some(None)` for a glyph known to have none. A read keeps
    /// it [`IDLE_FRAMES`] longer.
    pub(crate) fn get(&self, glyph: u16, class: u8) -> Option<Option<Arc<FlatOutline>>> {
        let mut stored = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let now = stored.now;
        stored.map.get_mut(&(glyph, class)).map(|(outline, read)| {
            *read = now;
            outline.clone()
        })
    }

    /// Keeps `outline` for `glyph` at size class `class`.
    pub(crate) fn insert(&self, glyph: u16, class: u8, outline: Option<Arc<FlatOutline>>) {
        let n = outline.as_ref().map_or(0, |o| o.size());
        let mut stored = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if stored.bytes + n > STORE_BYTES {
            stored.map.clear();
            stored.bytes = 0;
        }
        let now = stored.now;
        if n <= STORE_BYTES {
            let before = stored.map.insert((glyph, class), (outline, now));
            let replaced = before.and_then(|(o, _)| o).map_or(0, |o| o.size());
            stored.bytes = stored.bytes + n - replaced;
        }
    }

    /// A cache drawing from the face has ended `frame` (its own count;
    /// caches sharing a face move one clock, the furthest along): every
    /// [`SWEEP_EVERY`] frames, outlines unread for more than
    /// [`IDLE_FRAMES`] are dropped.
    pub(crate) fn tick(&self, frame: u64) {
        let mut stored = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        stored.now = stored.now.max(frame);
        if stored.now < stored.swept + SWEEP_EVERY {
            return;
        }
        let now = stored.now;
        stored.swept = now;
        if stored.map.is_empty() {
            return;
        }
        let mut dropped = 0;
        stored.map.retain(|_, (outline, read)| {
            let keep = now - *read <= IDLE_FRAMES;
            if !keep {
                dropped += outline.as_ref().map_or(0, |o| o.size());
            }
            keep
        });
        stored.bytes -= dropped;
        if stored.map.is_empty() {
            // (Its table's memory too, when nothing is drawn from the face.)
            stored.map.shrink_to_fit();
        }
    }

    /// Bytes kept (for the bound's test).
    #[cfg(test)]
    pub(crate) fn bytes(&self) -> usize {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).bytes
    }
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

    /// The store's hasher tells keys apart, and spreads a face's glyphs of
    /// one class over the low bits that choose a bucket (as a random hash
    /// would: 4,096 keys into 4,096 buckets fill about 63% of them).
    #[test]
    fn the_key_hasher_is_one_to_one_and_spreads_keys_over_buckets() {
        use std::hash::BuildHasher;
        let h = BuildHasherDefault::<KeyHasher>::default();
        let mut all = std::collections::HashSet::new();
        for glyph in (0..=u16::MAX).step_by(7) {
            for class in 0..=16u8 {
                assert!(all.insert(h.hash_one((glyph, class))), "({glyph}, {class}) collides");
            }
        }
        for class in [4u8, 5] {
            let buckets: std::collections::HashSet<u64> =
                (0..4096u16).map(|g| h.hash_one((g, class)) & 4095).collect();
            assert!(buckets.len() > 2400, "class {class}: {} buckets", buckets.len());
        }
    }

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

    #[test]
    fn outlines_unread_for_longer_than_the_idle_frames_are_dropped() {
        let s = OutlineStore::default();
        // (Outlines of n level points in one contour: no edge but the spare.)
        let b = |n| bytes(n, 1, 0);
        let sized = |n| Some(Arc::new(FlatOutline::new(vec![(0.0, 0.0); n], vec![0])));
        s.tick(1);
        s.insert(1, 4, sized(10));
        s.insert(2, 4, sized(20));
        s.insert(3, 4, None);
        assert_eq!(s.bytes(), b(10) + b(20));
        // Frame 500: a sweep (none idle yet); glyph 2 is read.
        s.tick(500);
        assert!(s.get(2, 4).is_some());
        // Frame 601: glyphs 1 and 3 unread for exactly IDLE_FRAMES: kept.
        s.tick(1 + IDLE_FRAMES);
        assert!(s.get(1, 4).is_some() && matches!(s.get(3, 4), Some(None)));
        // Read again at 601, so the next sweep (at 661) keeps them; glyph 2
        // was read at 500.
        s.tick(1 + IDLE_FRAMES + SWEEP_EVERY);
        assert_eq!(s.bytes(), b(10) + b(20));
        // A sweep at 1090 (glyph 2 unread for 590); none at 1120, where
        // glyph 2 has been unread for 620; at 1150 it goes.
        s.tick(1090);
        s.tick(1090 + SWEEP_EVERY / 2);
        assert_eq!(s.bytes(), b(10) + b(20));
        s.tick(1090 + SWEEP_EVERY);
        assert_eq!(s.bytes(), b(10));
        // Glyphs 1 and 3, read at 601, go at the sweep after 1201.
        s.tick(1210);
        assert!(s.get(1, 4).is_none() && s.get(2, 4).is_none() && s.get(3, 4).is_none());
        assert_eq!(s.bytes(), 0);
        // A clock never runs back: another cache's earlier frame is no sweep.
        s.insert(5, 4, sized(7));
        s.tick(3);
        s.insert(9, 4, sized(4));
        s.tick(1210 + SWEEP_EVERY);
        assert_eq!(s.bytes(), b(7) + b(4), "both kept at 1210, unread for 60 frames");
        s.tick(1210 + IDLE_FRAMES + SWEEP_EVERY);
        assert_eq!(s.bytes(), 0, "unread for 660 frames");
        // An outline kept again under its key counts once.
        s.insert(6, 4, sized(8));
        s.insert(6, 4, sized(9));
        assert_eq!(s.bytes(), b(9));
    }

    #[test]
    fn the_store_keeps_what_it_was_given_and_starts_over_past_its_bound() {
        let s = OutlineStore::default();
        let big = |n| Some(Arc::new(FlatOutline::new(vec![(0.0, 0.0); n], vec![0])));
        assert!(s.get(3, 4).is_none());
        s.insert(3, 4, None);
        assert!(matches!(s.get(3, 4), Some(None)));
        // A triangle of 3 points and 3 edges (2 slanted, 1 vertical), and
        // an outline of `fill` level points in one contour (no edge but
        // the spare) that with it comes to the bound exactly.
        let triangle =
            || Some(Arc::new(FlatOutline::new(vec![(0.0, 0.0), (1.0, 1.0), (0.0, 2.0)], vec![0])));
        let fill = (STORE_BYTES - bytes(3, 1, 3) - 8 - 8) / 8;
        assert_eq!(bytes(fill, 1, 0) + bytes(3, 1, 3), STORE_BYTES);
        s.insert(5, 4, big(fill));
        assert_eq!(s.get(5, 4).unwrap().unwrap().points.len(), fill);
        assert!(s.get(5, 5).is_none(), "another class is another outline");
        assert_eq!(s.bytes(), bytes(fill, 1, 0));
        // Up to the bound exactly: kept.
        s.insert(8, 4, triangle());
        assert!(s.get(5, 4).is_some() && s.get(8, 4).is_some());
        assert_eq!(s.bytes(), STORE_BYTES);
        // Past the bound: everything goes, the new outline stays.
        s.insert(6, 4, big(11));
        assert!(s.get(5, 4).is_none() && s.get(3, 4).is_none() && s.get(8, 4).is_none());
        assert_eq!(s.bytes(), bytes(11, 1, 0));
        // One outline larger than the whole bound is not kept.
        s.insert(7, 4, big(STORE_BYTES / 8));
        assert!(s.get(7, 4).is_none());
        assert_eq!(s.bytes(), 0);
        // An outline counts its points, its starts and its edges: a
        // square's 4 points and 2 vertical edges (the level ones are not
        // kept), a triangle's 3 points and 2 slanted edges.
        let square =
            FlatOutline::new(vec![(0.0, 0.0), (0.0, 1.0), (1.0, 1.0), (1.0, 0.0)], vec![0]);
        let triangle = FlatOutline::new(vec![(0.0, 0.0), (1.0, 2.0), (2.0, 0.0)], vec![0]);
        s.insert(1, 4, Some(Arc::new(square)));
        s.insert(2, 4, Some(Arc::new(triangle)));
        assert_eq!(s.bytes(), bytes(4, 1, 2) + bytes(3, 1, 2));
    }

    /// The bytes an outline of `points` points, `starts` contour starts
    /// and `edges` kept edges holds, as [`FlatOutline::size`] and
    /// [`Edges`] document them: 8 bytes a point (two f32) and a start (a
    /// usize on 64-bit targets), 4 an edge (two 16-bit indices; 8, two
    /// 32-bit ones, past 2^16 points), and the edge list's one spare entry.
    fn bytes(points: usize, starts: usize, edges: usize) -> usize {
        let edge = if points <= 1 << 16 { 4 } else { 8 };
        8 * points + size_of::<usize>() * starts + edge * (edges + 1)
    }
}
