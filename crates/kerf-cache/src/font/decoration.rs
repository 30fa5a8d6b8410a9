//! Text decorations (underline, strikethrough, overline): solid rectangles
//! placed by the font's own metrics and drawn as quads of one full-coverage
//! texel the cache keeps ([`QuadFlags::SOLID`](crate::QuadFlags::SOLID)), in
//! the same instanced draw as the glyphs.

use crate::font::Font;

/// Which line a decoration is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DecorationKind {
    /// Below the baseline: the font's `post` underline position and thickness.
    Underline,
    /// Through the lowercase: the font's `OS/2` strikeout position and size.
    Strikethrough,
    /// Above the text: at the font's ascender, the underline's thickness.
    Overline,
}

/// Which decorations a text asks for (see [`TextSpec`](crate::TextSpec)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Decorations {
    /// Underline.
    pub underline: bool,
    /// Strikethrough.
    pub strikethrough: bool,
    /// Overline.
    pub overline: bool,
}

impl Decorations {
    /// True when no decoration is asked.
    pub fn is_empty(&self) -> bool {
        !(self.underline || self.strikethrough || self.overline)
    }

    /// The kinds asked, in drawing order.
    pub fn kinds(&self) -> impl Iterator<Item = DecorationKind> {
        [
            (self.underline, DecorationKind::Underline),
            (self.overline, DecorationKind::Overline),
            (self.strikethrough, DecorationKind::Strikethrough),
        ]
        .into_iter()
        .filter_map(|(on, k)| on.then_some(k))
    }
}

/// Where a decoration line sits, in ems: the top of the line above the
/// baseline (negative below it), and its thickness.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LineMetrics {
    /// The line's top edge above the baseline, in ems (y up).
    pub top: f32,
    /// The line's thickness, in ems.
    pub thickness: f32,
}

impl Font {
    /// Where decoration `kind` sits in this face, from its own tables: the
    /// underline from `post` (its position is the line's top), the
    /// strikethrough from `OS/2` (likewise), the overline at `hhea`'s
    /// ascender with the underline's thickness. A face missing a table gets
    /// CSS's usual fallbacks (underline 0.1 em below with 1/14 em
    /// thickness, strikethrough at 0.3 em).
    pub fn line_metrics(&self, kind: DecorationKind) -> LineMetrics {
        let face = ttf_parser::Face::parse(self.bytes(), self.collection_index()).ok();
        let upem = f32::from(self.units_per_em().max(1));
        let em = |v: i16| f32::from(v) / upem;
        let fallback_thickness = 1.0 / 14.0;
        let underline =
            face.as_ref()
                .and_then(|f| f.underline_metrics())
                .map_or(LineMetrics { top: -0.1, thickness: fallback_thickness }, |m| {
                    LineMetrics { top: em(m.position), thickness: em(m.thickness).max(1.0 / upem) }
                });
        match kind {
            DecorationKind::Underline => underline,
            DecorationKind::Strikethrough => face
                .as_ref()
                .and_then(|f| f.strikeout_metrics())
                .map_or(LineMetrics { top: 0.3 + fallback_thickness / 2.0, ..underline }, |m| {
                    LineMetrics { top: em(m.position), thickness: em(m.thickness).max(1.0 / upem) }
                }),
            DecorationKind::Overline => LineMetrics {
                top: face.as_ref().map_or(0.8, |f| em(f.ascender())),
                thickness: underline.thickness,
            },
        }
    }
}

/// A solid rectangle drawn with the text: a decoration line, snapped to
/// whole pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Decoration {
    /// Left edge, target pixels.
    pub x: i32,
    /// Top edge, target pixels (y down).
    pub y: i32,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Straight sRGB colour, RGBA.
    pub color: [u8; 4],
}

impl Decoration {
    /// The line `metrics` (in ems) puts under, through or over the text
    /// from pen `x0` to `x1` on the baseline at `baseline_y` (y down), at
    /// `px` pixels per em: its edges snapped to whole pixels (left and
    /// right edges and the top rounded, the thickness rounded and at least
    /// one pixel). `None` for an empty or non-finite span.
    pub fn line(
        metrics: LineMetrics, x0: f32, x1: f32, baseline_y: f32, px: f32, color: [u8; 4],
    ) -> Option<Decoration> {
        let (left, right) = (x0.min(x1), x0.max(x1));
        let top = baseline_y - metrics.top * px;
        Decoration::snapped(left, right, top, metrics.thickness * px, color)
    }

    /// The same rectangle moved by `(dx, dy)` and scaled by `scale` about
    /// the origin (an area's offset and scale), edges snapped again.
    pub fn placed(&self, dx: f32, dy: f32, scale: f32) -> Option<Decoration> {
        let x0 = dx + self.x as f32 * scale;
        let x1 = dx + (self.x as f32 + self.width as f32) * scale;
        Decoration::snapped(
            x0,
            x1,
            dy + self.y as f32 * scale,
            self.height as f32 * scale,
            self.color,
        )
    }

    /// The rectangle from `left` to `right`, `height` tall below `top`, its
    /// edges rounded to whole pixels and at least a pixel tall; `None` when
    /// empty, not finite, or beyond the pixel range.
    fn snapped(left: f32, right: f32, top: f32, height: f32, color: [u8; 4]) -> Option<Decoration> {
        let (left, right, top, height) =
            (left.round(), right.round(), top.round(), height.round().max(1.0));
        let fits = |v: f32| v.is_finite() && v.abs() < i32::MAX as f32 / 2.0;
        if !(fits(left) && fits(right) && fits(top) && fits(height)) || right <= left {
            return None;
        }
        Some(Decoration {
            x: left as i32,
            y: top as i32,
            width: (right - left) as u32,
            height: height as u32,
            color,
        })
    }
}

/// The texels of the cache's solid entry: full coverage, 3 × 3 (a quad
/// reads its centre texel, so filtering never reaches its neighbours).
pub(crate) const SOLID_SIDE: u32 = 3;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    /// An area's offset and scale move and scale the rectangle about the
    /// origin: (10, 20, 30 × 3) at (5, −4) and scale 2 is (25, 36, 60 × 6);
    /// scale 1.5 lands its edges on half pixels, which round.
    fn placed_moves_and_scales_about_the_origin() {
        let d = Decoration { x: 10, y: 20, width: 30, height: 3, color: [1, 2, 3, 4] };
        let p = d.placed(5.0, -4.0, 2.0).unwrap();
        assert_eq!((p.x, p.y, p.width, p.height, p.color), (25, 36, 60, 6, [1, 2, 3, 4]));
        let p = d.placed(0.0, 0.0, 1.5).unwrap();
        // 15 to 60 across, top 30, thickness 4.5 → 5 (rounded half away).
        assert_eq!((p.x, p.y, p.width, p.height), (15, 30, 45, 5));
        assert_eq!(d.placed(0.0, 0.0, 1.0), Some(d));
    }

    #[test]
    fn lines_snap_to_whole_pixels() {
        let m = LineMetrics { top: -0.1, thickness: 0.07 };
        let d = Decoration::line(m, 10.4, 50.6, 100.0, 20.0, [0, 0, 0, 255]).unwrap();
        assert_eq!((d.x, d.y, d.width, d.height), (10, 102, 41, 1));
        // Thick lines round their thickness.
        let d = Decoration::line(m, 0.0, 10.0, 100.0, 64.0, [0; 4]).unwrap();
        assert_eq!((d.y, d.height), (106, 4));
        assert!(Decoration::line(m, 5.0, 5.2, 0.0, 16.0, [0; 4]).is_none());
        assert!(Decoration::line(m, f32::NAN, 5.0, 0.0, 16.0, [0; 4]).is_none());
    }
}
