//! Font instances: what the text asks of a face (a weight, italic, variation
//! values: [`FontStyle`]) resolved against the face into what is drawn
//! ([`Instance`]): clamped variation coordinates and the synthesis (bold,
//! oblique) the face cannot give itself, decided as browsers decide.
//!
//! An instance is a font of its own in the cache
//! ([`GlyphCache::add_instance`](crate::GlyphCache::add_instance)): a
//! [`FontId`](crate::FontId) that shares the base face's bytes and parse, so
//! every key of it is apart from the base's and the rest of the cache needs
//! no new field.

use crate::error::StyleError;

/// An OpenType tag (`*b"wght"`).
pub type Tag = [u8; 4];

/// The weight at or above which a face of weight ≤ [`SYNTHETIC_BOLD_MAX_FACE`]
/// without a `wght` axis is emboldened (CSS Fonts 4, §"font-synthesis").
pub const SYNTHETIC_BOLD_MIN_WEIGHT: f32 = 600.0;
/// The heaviest face (OS/2 `usWeightClass`) synthetic bold is applied to.
pub const SYNTHETIC_BOLD_MAX_FACE: u16 = 500;
/// The slant of a synthetic oblique, in degrees (what browsers, FreeType's
/// `FT_GlyphSlot_Oblique` and cosmic-text's swash path use: about 0.25 of
/// the height, right).
pub const SYNTHETIC_OBLIQUE_DEGREES: f32 = 14.0;

/// What text asks of a face: a weight, italic, explicit variation values,
/// and synthesis forced on or off. [`FontStyle::default`] asks nothing (the
/// face's default instance).
///
/// ```
/// use kerf_cache::FontStyle;
/// let bold_italic = FontStyle::new().weight(700.0).italic(true);
/// let condensed = FontStyle::new().variation(*b"wdth", 75.0);
/// assert_ne!(bold_italic, condensed);
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FontStyle {
    /// The weight asked (CSS 1..=1000): drives a `wght` axis where the face
    /// has one, else synthetic bold at ≥ [`SYNTHETIC_BOLD_MIN_WEIGHT`].
    pub weight: Option<f32>,
    /// Italic asked: the face's `ital` axis set to 1 where it has one, else a
    /// synthetic oblique of [`SYNTHETIC_OBLIQUE_DEGREES`] unless the face is
    /// italic or oblique already.
    pub italic: bool,
    /// Axis values in the axes' own units (user space, as CSS
    /// `font-variation-settings`): clamped to the axis's range; an axis the
    /// face lacks is ignored and reported. They win over `weight` and `italic`.
    pub variations: Vec<(Tag, f32)>,
    /// Synthetic bold forced on or off (`None`: decided from `weight`).
    pub synthetic_bold: Option<bool>,
    /// A synthetic oblique forced, in degrees (positive leans right; `0`
    /// none; `None`: decided from `italic`).
    pub synthetic_oblique: Option<f32>,
    /// Hinting off for this text (cosmic-text's
    /// `CacheKeyFlags::DISABLE_HINTING`): a rasterizer that hints
    /// ([`Rasterizer::hints`](crate::rasterize::Rasterizer::hints)) draws it unhinted.
    /// Ignored where the rasterizer does not hint: the glyphs are the same.
    pub no_hinting: bool,
}

impl FontStyle {
    /// Nothing asked: the face's default instance.
    pub fn new() -> FontStyle {
        FontStyle::default()
    }

    /// The same style at weight `w` (CSS 1..=1000).
    pub fn weight(mut self, w: f32) -> FontStyle {
        self.weight = Some(w);
        self
    }

    /// The same style, italic or not.
    pub fn italic(mut self, on: bool) -> FontStyle {
        self.italic = on;
        self
    }

    /// The same style with axis `tag` at `value` (user space).
    pub fn variation(mut self, tag: Tag, value: f32) -> FontStyle {
        self.variations.retain(|(t, _)| *t != tag);
        self.variations.push((tag, value));
        self
    }

    /// The same style with hinting turned off (`true`) or left to the
    /// rasterizer (`false`); see [`FontStyle::no_hinting`].
    pub fn no_hinting(mut self, off: bool) -> FontStyle {
        self.no_hinting = off;
        self
    }

    /// Every number of the style is finite: else the error naming the first
    /// that is not.
    pub fn check(&self) -> Result<(), StyleError> {
        let finite = |what: String, v: f32| {
            if v.is_finite() {
                Ok(())
            } else {
                Err(StyleError::NotFinite { what, value: v })
            }
        };
        if let Some(w) = self.weight {
            finite("weight".into(), w)?;
        }
        for (tag, v) in &self.variations {
            finite(format!("variation {}", tag_name(*tag)), *v)?;
        }
        if let Some(o) = self.synthetic_oblique {
            finite("synthetic oblique".into(), o)?;
            if o.abs() >= 60.0 {
                return Err(StyleError::Oblique(o));
            }
        }
        Ok(())
    }
}

/// A tag as text (`wght`), for messages.
pub fn tag_name(tag: Tag) -> String {
    tag.iter().map(|&b| if b.is_ascii_graphic() || b == b' ' { b as char } else { '?' }).collect()
}

/// What is drawn of a face: variation coordinates (user space, clamped, in
/// the face's axis order, axes at their default left out), synthesis, and
/// whether hinting is turned off.
/// Made by [`Instance::resolve`]; [`Instance::default`] is the face as it is.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Instance {
    variations: Box<[(Tag, f32)]>,
    embolden: bool,
    oblique: f32,
    unhinted: bool,
}

impl Eq for Instance {}

impl std::hash::Hash for Instance {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        for (t, v) in self.variations.iter() {
            t.hash(state);
            v.to_bits().hash(state);
        }
        self.embolden.hash(state);
        self.oblique.to_bits().hash(state);
        self.unhinted.hash(state);
    }
}

/// An instance resolved against a face, and the axes asked that it lacks.
#[derive(Clone, Debug, PartialEq)]
pub struct Resolved {
    /// What is drawn.
    pub instance: Instance,
    /// Axes asked for (in [`FontStyle::variations`]) that the face does not
    /// have: ignored.
    pub ignored_axes: Vec<Tag>,
}

impl Instance {
    /// Resolves `style` against the face in `bytes` (face `index` of a
    /// collection). A number that is not finite is an error; an axis value
    /// outside the axis's range is clamped to it (as OpenType says); an axis
    /// the face lacks is ignored and listed in [`Resolved::ignored_axes`].
    pub fn resolve(bytes: &[u8], index: u32, style: &FontStyle) -> Result<Resolved, StyleError> {
        style.check()?;
        let face = ttf_parser::Face::parse(bytes, index).map_err(|_| StyleError::BadFont)?;
        let axes: Vec<ttf_parser::VariationAxis> = face.variation_axes().into_iter().collect();
        let axis = |tag: Tag| axes.iter().position(|a| a.tag.to_bytes() == tag);
        // One value per axis, in the face's axis order.
        let mut values: Vec<Option<f32>> = vec![None; axes.len()];
        let mut ignored_axes = Vec::new();
        for &(tag, v) in &style.variations {
            match axis(tag) {
                Some(i) => values[i] = Some(v),
                None if !ignored_axes.contains(&tag) => ignored_axes.push(tag),
                None => {}
            }
        }
        let wght = axis(*b"wght");
        if let (Some(w), Some(i)) = (style.weight, wght) {
            values[i].get_or_insert(w);
        }
        let ital = axis(*b"ital");
        if let (true, Some(i)) = (style.italic, ital) {
            values[i].get_or_insert(1.0);
        }
        let variations: Box<[(Tag, f32)]> = axes
            .iter()
            .zip(&values)
            .filter_map(|(a, v)| {
                let v = (*v)?.clamp(a.min_value, a.max_value);
                (v != a.def_value).then_some((a.tag.to_bytes(), v))
            })
            .collect();
        let face_weight = face.weight().to_number();
        let embolden = style.synthetic_bold.unwrap_or_else(|| {
            wght.is_none()
                && face_weight <= SYNTHETIC_BOLD_MAX_FACE
                && style.weight.is_some_and(|w| w >= SYNTHETIC_BOLD_MIN_WEIGHT)
        });
        let slanted = face.is_italic() || face.is_oblique() || face.italic_angle() != 0.0;
        let degrees =
            style.synthetic_oblique.unwrap_or(if style.italic && !slanted && ital.is_none() {
                SYNTHETIC_OBLIQUE_DEGREES
            } else {
                0.0
            });
        let instance = Instance {
            variations,
            embolden,
            oblique: degrees.to_radians().tan(),
            unhinted: style.no_hinting,
        };
        Ok(Resolved { instance, ignored_axes })
    }

    /// True for the face as it is: no variation set, no synthesis, hinting
    /// left to the rasterizer.
    pub fn is_default(&self) -> bool {
        self.variations.is_empty() && !self.embolden && self.oblique == 0.0 && !self.unhinted
    }

    /// The axis values set (user space, in the face's axis order).
    pub fn variations(&self) -> &[(Tag, f32)] {
        &self.variations
    }

    /// True when the outline is emboldened (synthetic bold).
    pub fn embolden(&self) -> bool {
        self.embolden
    }

    /// The synthetic oblique's horizontal shift per unit of height (the
    /// tangent of its angle; 0 for none).
    pub fn oblique(&self) -> f32 {
        self.oblique
    }

    /// True when hinting is turned off for this instance
    /// ([`FontStyle::no_hinting`]).
    pub fn unhinted(&self) -> bool {
        self.unhinted
    }
}

/// The user-space axis values of normalized coordinates `coords` (F2Dot14,
/// in the face's axis order, after `avar`: what parley and HarfBuzz hold)
/// of the face in `bytes`: `avar`'s map undone, then `fvar`'s normalization.
/// Axes beyond `coords` are left out.
pub fn user_values(
    bytes: &[u8], index: u32, coords: &[i16],
) -> Result<Vec<(Tag, f32)>, StyleError> {
    let face = ttf_parser::Face::parse(bytes, index).map_err(|_| StyleError::BadFont)?;
    let avar = face.raw_face().table(ttf_parser::Tag::from_bytes(b"avar"));
    let maps = avar.map(avar_maps).unwrap_or_default();
    let mut out = Vec::new();
    for (i, axis) in face.variation_axes().into_iter().enumerate() {
        let Some(&c) = coords.get(i) else { break };
        let c = maps.get(i).map_or(c, |m| unmap(m, c));
        let n = f32::from(c) / 16384.0;
        let (min, def, max) = (axis.min_value, axis.def_value, axis.max_value);
        let v = if n < 0.0 { def + n * (def - min) } else { def + n * (max - def) };
        out.push((axis.tag.to_bytes(), v));
    }
    Ok(out)
}

/// `avar`'s segment maps, one list of (from, to) F2Dot14 pairs per axis
/// (empty when the table cannot be read).
fn avar_maps(table: &[u8]) -> Vec<Vec<(i16, i16)>> {
    let u16_at = |at: usize| table.get(at..at + 2).map(|b| u16::from_be_bytes([b[0], b[1]]));
    let Some(axes) = u16_at(6) else { return Vec::new() };
    let mut at = 8;
    let mut maps = Vec::with_capacity(axes as usize);
    for _ in 0..axes {
        let Some(n) = u16_at(at) else { return Vec::new() };
        at += 2;
        let mut map = Vec::with_capacity(n as usize);
        for _ in 0..n {
            let (Some(from), Some(to)) = (u16_at(at), u16_at(at + 2)) else { return Vec::new() };
            map.push((from as i16, to as i16));
            at += 4;
        }
        maps.push(map);
    }
    maps
}

/// The coordinate `map` sends to `c` (the map's inverse: its segments are
/// increasing in both coordinates), linear between the segment's ends.
fn unmap(map: &[(i16, i16)], c: i16) -> i16 {
    for w in map.windows(2) {
        let ((f0, t0), (f1, t1)) = (w[0], w[1]);
        if (t0..=t1).contains(&c) {
            if t1 == t0 {
                return f0;
            }
            let k = f64::from(c - t0) / f64::from(t1 - t0);
            return (f64::from(f0) + k * f64::from(f1 - f0)).round() as i16;
        }
    }
    c
}

/// How far synthetic bold moves each side of an outline at `px` pixels per
/// em, in pixels: half the stroke width Skia's fake bold draws (which
/// Chrome uses): 1/24 of the size at 9 px and below, 1/32 at 36 px and
/// above, linear between.
pub fn embolden_px(px: f32) -> f32 {
    let t = ((px - 9.0) / (36.0 - 9.0)).clamp(0.0, 1.0);
    let ratio = 1.0 / 24.0 + t * (1.0 / 32.0 - 1.0 / 24.0);
    px * ratio / 2.0
}

/// Points of one closed contour moved `d` outward (miter joins, limited to
/// twice `d`): an outline's ink grows by `d` on every side. `clockwise` is
/// the orientation of the glyph's outer contours (y up), which says which
/// side is outward for every contour (holes run the other way).
pub(crate) fn offset_contour(points: &mut [(f32, f32)], d: f32, clockwise: bool) {
    let n = points.len();
    if n < 3 {
        return;
    }
    let sign = if clockwise { -1.0 } else { 1.0 };
    // The outward unit normal of the edge from `a` to `b`.
    let normal = |a: (f32, f32), b: (f32, f32)| {
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let len = (dx * dx + dy * dy).sqrt();
        if len > 1e-6 {
            Some((sign * dy / len, -sign * dx / len))
        } else {
            None
        }
    };
    let src = points.to_vec();
    // Each edge's normal; a zero-length edge takes its predecessor's.
    let mut normals: Vec<Option<(f32, f32)>> =
        (0..n).map(|i| normal(src[i], src[(i + 1) % n])).collect();
    let Some(first) = normals.iter().flatten().next().copied() else { return };
    let mut last = normals.iter().rev().flatten().next().copied().unwrap_or(first);
    for nrm in normals.iter_mut() {
        match nrm {
            Some(v) => last = *v,
            None => *nrm = Some(last),
        }
    }
    for i in 0..n {
        let a = normals[(i + n - 1) % n].unwrap_or(first);
        let b = normals[i].unwrap_or(first);
        // Miter: the point moves along a + b by d / (1 + a·b), which puts it
        // d from both edges; limited to 2d where the edges nearly turn back.
        let dot = a.0 * b.0 + a.1 * b.1;
        let scale = d / (1.0 + dot).max(1e-3);
        let (mx, my) = ((a.0 + b.0) * scale, (a.1 + b.1) * scale);
        let len = (mx * mx + my * my).sqrt();
        let k = if len > 2.0 * d && len > 0.0 { 2.0 * d / len } else { 1.0 };
        points[i] = (src[i].0 + mx * k, src[i].1 + my * k);
    }
}

/// The signed area of closed contours (positive when counter-clockwise, y up).
pub(crate) fn signed_area(points: &[(f32, f32)], starts: &[usize]) -> f32 {
    let mut area = 0.0;
    for (i, &s) in starts.iter().enumerate() {
        let end = starts.get(i + 1).copied().unwrap_or(points.len());
        let c = &points[s..end];
        for (j, a) in c.iter().enumerate() {
            let b = c[(j + 1) % c.len()];
            area += a.0 * b.1 - b.0 * a.1;
        }
    }
    area / 2.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsetting_a_square_grows_it_by_d_on_every_side() {
        // Counter-clockwise (y up) unit square.
        let mut sq = vec![(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)];
        offset_contour(&mut sq, 0.25, false);
        let expect = [(-0.25, -0.25), (1.25, -0.25), (1.25, 1.25), (-0.25, 1.25)];
        for (p, e) in sq.iter().zip(expect) {
            assert!((p.0 - e.0).abs() < 1e-5 && (p.1 - e.1).abs() < 1e-5, "{p:?} vs {e:?}");
        }
        // The same square clockwise is a hole when outer contours are
        // counter-clockwise: it shrinks.
        let mut hole = vec![(0.0, 0.0), (0.0, 1.0), (1.0, 1.0), (1.0, 0.0)];
        offset_contour(&mut hole, 0.25, false);
        assert!((signed_area(&hole, &[0]).abs() - 0.25).abs() < 1e-5);
    }

    #[test]
    fn a_spike_moves_at_most_twice_d() {
        let mut spike = vec![(0.0, 0.0), (10.0, 0.05), (0.0, 0.1)];
        let before = spike.clone();
        offset_contour(&mut spike, 0.5, false);
        for (p, q) in spike.iter().zip(&before) {
            let moved = ((p.0 - q.0).powi(2) + (p.1 - q.1).powi(2)).sqrt();
            assert!(moved <= 1.0 + 1e-5, "moved {moved}");
        }
        // A 40° apex: its miter would be d / sin 20° = 1.46 px; the limit
        // puts it at exactly 2d = 1 px, straight out along the bisector.
        let w = 10.0 * 20f32.to_radians().tan();
        let mut wedge = vec![(0.0, 0.0), (10.0, -w), (10.0, w)];
        offset_contour(&mut wedge, 0.5, false);
        assert!((wedge[0].0 + 1.0).abs() < 1e-4 && wedge[0].1.abs() < 1e-4, "{:?}", wedge[0]);
    }

    #[test]
    fn embolden_follows_skias_curve() {
        assert!((embolden_px(9.0) - 9.0 / 48.0).abs() < 1e-6);
        assert!((embolden_px(72.0) - 72.0 / 64.0).abs() < 1e-6);
        assert!(embolden_px(20.0) > embolden_px(16.0));
    }
}
