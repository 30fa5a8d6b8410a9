//! Text areas: what an area draws (a string, positioned glyphs, images),
//! where (offset, scale, transform) and its clip; the mapping of an area's
//! glyphs into target pixels, and clipping quads to an area's bounds.

use crate::prepare::transform::TextTransform;
use kerf_cache::{
    Decoration, Effects, GlyphQuad, GlyphRun, Outline, PositionedGlyph, PositionedImage, QuadFlags,
    Shadow, TextSpec,
};

/// Clip rectangle of a text area, in target pixels (half-open).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextBounds {
    /// Left edge.
    pub left: i32,
    /// Top edge.
    pub top: i32,
    /// One past the right edge.
    pub right: i32,
    /// One past the bottom edge.
    pub bottom: i32,
}

impl Default for TextBounds {
    /// No clipping.
    fn default() -> Self {
        TextBounds { left: i32::MIN, top: i32::MIN, right: i32::MAX, bottom: i32::MAX }
    }
}

/// What a text area draws.
#[derive(Clone, Copy, Debug)]
pub enum TextContent<'a> {
    /// A string laid out by fontdue (wrapping, line height, colour in the spec).
    Text(TextSpec<'a>),
    /// Glyphs positioned by an external shaper (pen positions on the baseline).
    Glyphs(&'a [PositionedGlyph]),
    /// Glyphs as [`Glyphs`](Self::Glyphs), made once and drawn frame after
    /// frame ([`GlyphRun`]): a renderer that drew this run (or a clone of
    /// it) before knows its glyphs without reading them, wherever the area
    /// now is in `prepare`'s list (a scrolled line, a moved message).
    Run(&'a GlyphRun),
    /// The app's own images (icons, rasterized SVG) from the atlas's image
    /// sources ([`TextAtlas::add_image_source`](crate::TextAtlas::add_image_source)),
    /// cached, evicted and re-requested like glyphs.
    Images(&'a [PositionedImage]),
}

/// What an area draws, a [`GlyphRun`] seen as the glyphs it holds.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Content<'a> {
    /// A string.
    Text(TextSpec<'a>),
    /// Glyphs (or a run's).
    Glyphs(&'a [PositionedGlyph]),
    /// Images.
    Images(&'a [PositionedImage]),
}

impl<'a> TextContent<'a> {
    /// The content with a run seen as the glyphs it holds.
    pub(crate) fn as_slices(self) -> Content<'a> {
        match self {
            TextContent::Text(spec) => Content::Text(spec),
            TextContent::Glyphs(glyphs) => Content::Glyphs(glyphs),
            TextContent::Run(run) => Content::Glyphs(run.glyphs()),
            TextContent::Images(images) => Content::Images(images),
        }
    }
}

/// A block of text to draw: content, placement, scale and clip.
#[derive(Clone, Copy, Debug)]
pub struct TextArea<'a> {
    /// The text or glyphs.
    pub content: TextContent<'a>,
    /// Offset added to every position, pixels.
    pub left: f32,
    /// Offset added to every position, pixels.
    pub top: f32,
    /// Scale of sizes and positions (e.g. the window's scale factor). Glyphs
    /// are rasterized at the scaled size, so scaled text stays sharp.
    pub scale: f32,
    /// Glyph pixels outside these bounds are not drawn (target pixels; for
    /// a transformed area, a scissor rectangle on the target).
    pub bounds: TextBounds,
    /// A transform of the whole area (rotation, scale, skew, 3D), or `None`
    /// for axis-aligned text drawn texel for pixel. Transformed glyphs are
    /// rasterized at their on-screen size (up to
    /// [`TRANSFORMED_RASTER_LIMIT_PX`](crate::TRANSFORMED_RASTER_LIMIT_PX)) and sampled with filtering.
    pub transform: Option<TextTransform>,
    /// Whether the area's text is drawn over opaque pixels (true from every
    /// constructor). LCD anti-aliasing needs an opaque background, as the
    /// per-channel coverage cannot be stored in one alpha value: an area
    /// marked transparent is drawn in grayscale by an LCD renderer (see
    /// [`over_transparent`](Self::over_transparent)).
    pub opaque_background: bool,
    /// Solid rectangles drawn with the area (underlines and the like from a
    /// shaper adapter: `CosmicFonts::decorations`, `ParleyFonts::decorations`),
    /// in the area's coordinates like its glyphs, after them, in the same
    /// draw. A [`TextSpec`]'s own decorations need none of this.
    pub decorations: &'a [Decoration],
    /// An outline and a shadow under the area's glyphs (in its units:
    /// scaled with it). A [`TextSpec`]'s own effects win over the area's;
    /// images get none.
    pub effects: Effects,
}

/// `e` with its sizes and offsets scaled by `s`.
pub(crate) fn scaled_effects(e: &Effects, s: f32) -> Effects {
    Effects {
        outline: e.outline.map(|o| Outline { width: o.width * s, ..o }),
        shadow: e.shadow.map(|sh| Shadow {
            offset: (sh.offset.0 * s, sh.offset.1 * s),
            blur: sh.blur * s,
            ..sh
        }),
    }
}

impl<'a> TextArea<'a> {
    /// The same area marked as drawn over a transparent or translucent
    /// background: grayscale even with LCD anti-aliasing on.
    pub fn over_transparent(mut self) -> Self {
        self.opaque_background = false;
        self
    }

    /// `spec` placed in this area: offset by `left`/`top`, sizes and
    /// positions scaled by `scale`.
    /// The spec's own effects, else the area's, scaled with it.
    pub(crate) fn scaled(&self, spec: &TextSpec<'a>) -> TextSpec<'a> {
        let s = self.scale;
        let effects = if spec.effects.is_empty() { self.effects } else { spec.effects };
        TextSpec {
            size: spec.size * s,
            x: self.left + spec.x * s,
            y: self.top + spec.y * s,
            max_width: spec.max_width.map(|w| w * s),
            effects: scaled_effects(&effects, s),
            ..*spec
        }
    }

    /// The one base of the constructors: `content` at `(left, top)`, scale
    /// 1, no clipping, no transform, over an opaque background, no
    /// decorations or effects.
    fn at(content: TextContent<'a>, left: f32, top: f32) -> Self {
        TextArea {
            content,
            left,
            top,
            scale: 1.0,
            bounds: TextBounds::default(),
            transform: None,
            opaque_background: true,
            decorations: &[],
            effects: Effects::default(),
        }
    }

    /// A laid-out string at `(left, top)`, scale 1, no clipping.
    pub fn text(spec: TextSpec<'a>, left: f32, top: f32) -> Self {
        TextArea::at(TextContent::Text(spec), left, top)
    }

    /// The app's images offset by `(left, top)`, scale 1, no clipping.
    pub fn images(images: &'a [PositionedImage], left: f32, top: f32) -> Self {
        TextArea::at(TextContent::Images(images), left, top)
    }

    /// The same area clipped to `bounds` (target pixels): glyph pixels
    /// outside are not drawn.
    pub fn with_bounds(mut self, bounds: TextBounds) -> Self {
        self.bounds = bounds;
        self
    }

    /// The same area with sizes and positions scaled by `scale` (e.g. the
    /// window's scale factor; glyphs are rasterized at the scaled size).
    pub fn with_scale(mut self, scale: f32) -> Self {
        self.scale = scale;
        self
    }

    /// The same area with these decorations (see [`decorations`](Self::decorations)).
    pub fn with_decorations(mut self, decorations: &'a [Decoration]) -> Self {
        self.decorations = decorations;
        self
    }

    /// The same area with an outline `width` px wide in `color` under its glyphs.
    pub fn with_outline(mut self, width: f32, color: [u8; 4]) -> Self {
        self.effects.outline = Some(Outline { width, color });
        self
    }

    /// The same area with a shadow under its glyphs: moved by `offset` px,
    /// blurred by radius `blur` px, in `color`.
    pub fn with_shadow(mut self, offset: (f32, f32), blur: f32, color: [u8; 4]) -> Self {
        self.effects.shadow = Some(Shadow { offset, blur, color });
        self
    }

    /// The same area drawn through `transform`.
    pub fn transformed(mut self, transform: TextTransform) -> Self {
        self.transform = Some(transform);
        self
    }

    /// Positioned glyphs offset by `(left, top)`, scale 1, no clipping.
    pub fn glyphs(glyphs: &'a [PositionedGlyph], left: f32, top: f32) -> Self {
        TextArea::at(TextContent::Glyphs(glyphs), left, top)
    }

    /// A [`GlyphRun`] offset by `(left, top)`, scale 1, no clipping: drawn
    /// as [`glyphs`](Self::glyphs) would draw its glyphs. At whole-pixel
    /// offsets and scale 1, a renderer that drew the same run in an earlier
    /// frame reuses its quads without reading the glyphs (see
    /// [`TextContent::Run`]).
    pub fn run(run: &'a GlyphRun, left: f32, top: f32) -> Self {
        TextArea::at(TextContent::Run(run), left, top)
    }
}

impl TextArea<'_> {
    /// A glyph of this area in target pixels: offset by `left`/`top`, size
    /// and position scaled by `scale`. The one mapping of glyphs into an area.
    #[inline]
    pub(crate) fn place_glyph(&self, g: &PositionedGlyph) -> PositionedGlyph {
        let s = self.scale;
        PositionedGlyph { size: g.size * s, x: self.left + g.x * s, y: self.top + g.y * s, ..*g }
    }

    /// The area's decorations in target pixels, as [`place_glyph`](Self::place_glyph)
    /// places glyphs (edges snapped again after scaling).
    pub(crate) fn placed_decorations(&self) -> Vec<Decoration> {
        self.decorations.iter().filter_map(|d| d.placed(self.left, self.top, self.scale)).collect()
    }

    /// An image of this area in target pixels, as [`place_glyph`](Self::place_glyph).
    #[inline]
    pub(crate) fn place_image(&self, g: &PositionedImage) -> PositionedImage {
        let s = self.scale;
        PositionedImage { size: g.size * s, x: self.left + g.x * s, y: self.top + g.y * s, ..*g }
    }
}

/// Cuts the quads from `start` on (one area's, just appended: still in the
/// cache) to `b`, in place, dropping those wholly outside.
pub(crate) fn clip_from(quads: &mut Vec<GlyphQuad>, start: usize, b: &TextBounds) {
    // Most quads lie inside: they are passed over without being written
    // back, up to the first one to cut or drop.
    let tail = quads.get(start..).unwrap_or_default();
    let Some(first) = tail.iter().position(|q| !inside(q, b)) else { return };
    let from = start + first;
    let mut w = from;
    for i in from..quads.len() {
        if let Some(q) = clip(&quads[i], b) {
            quads[w] = q;
            w += 1;
        }
    }
    quads.truncate(w);
}

/// True when `q` lies wholly inside `b` and is not empty: what [`clip`]
/// returns unchanged.
#[inline]
fn inside(q: &GlyphQuad, b: &TextBounds) -> bool {
    let px_wide = q.px_width();
    let (x0, y0) = (q.x as i64, q.y as i64);
    px_wide > 0
        && q.height > 0
        && x0 >= b.left as i64
        && y0 >= b.top as i64
        && x0 + px_wide as i64 <= b.right as i64
        && y0 + q.height as i64 <= b.bottom as i64
}

/// The part of a quad inside `b`, with its texels cut to match.
/// (An LCD quad has three texels per pixel across.)
fn clip(q: &GlyphQuad, b: &TextBounds) -> Option<GlyphQuad> {
    let per_px = q.texels_per_px();
    let (x0, y0) = (q.x as i64, q.y as i64);
    let (x1, y1) = (x0 + q.px_width() as i64, y0 + q.height as i64);
    let (cx0, cy0) = (x0.max(b.left as i64), y0.max(b.top as i64));
    let (cx1, cy1) = (x1.min(b.right as i64), y1.min(b.bottom as i64));
    if cx0 >= cx1 || cy0 >= cy1 {
        return None;
    }
    // Inside the bounds, as most quads are: nothing to cut.
    if (cx0, cy0, cx1, cy1) == (x0, y0, x1, y1) {
        return Some(*q);
    }
    // A solid quad reads one texel wherever it is cut.
    let moves = if q.flags.contains(QuadFlags::SOLID) { 0 } else { 1 };
    Some(GlyphQuad {
        x: cx0 as i32,
        y: cy0 as i32,
        tex_x: q.tex_x + (cx0 - x0) as u16 * per_px * moves,
        tex_y: q.tex_y + (cy0 - y0) as u16 * moves,
        width: (cx1 - cx0) as u16 * per_px,
        height: (cy1 - cy0) as u16,
        ..*q
    })
}

/// The scissor rectangle `[x, y, w, h]` of an area's bounds on a target of
/// `size`; `None` when the bounds do not clip.
pub(crate) fn scissor(b: &TextBounds, size: (u32, u32)) -> Option<[u32; 4]> {
    if *b == TextBounds::default() {
        return None;
    }
    let x0 = b.left.clamp(0, size.0 as i32) as u32;
    let y0 = b.top.clamp(0, size.1 as i32) as u32;
    let x1 = b.right.clamp(0, size.0 as i32) as u32;
    let y1 = b.bottom.clamp(0, size.1 as i32) as u32;
    Some([x0, y0, x1.saturating_sub(x0), y1.saturating_sub(y0)])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An area places its images and its wrapped text as it places glyphs:
    /// an image at a glyph's pen and size lands where the glyph does
    /// (offset by the area's left and top, scaled by its scale), and a
    /// string's wrap width scales with its size.
    #[test]
    fn images_and_wrapped_text_are_placed_as_glyphs_are() {
        let mut cache = kerf_cache::GlyphCache::new(kerf_cache::CacheConfig::default()).unwrap();
        let font = cache.add_font(dejavu::sans::regular().to_vec()).unwrap();
        let source = cache
            .add_image_source(
                |_: u32, _: f32| -> Result<kerf_cache::rasterize::GlyphImage, String> {
                    Err("not drawn".into())
                },
            )
            .unwrap();
        let glyph = PositionedGlyph { font, glyph: 36, size: 14.0, x: 7.5, y: 21.0, color: [9; 4] };
        let image = PositionedImage { source, id: 3, size: 14.0, x: 7.5, y: 21.0, color: [9; 4] };
        for (left, top, scale) in [(0.0, 0.0, 1.0), (12.0, -5.0, 1.0), (3.25, 40.0, 2.5)] {
            let area = TextArea { left, top, scale, ..TextArea::glyphs(&[], 0.0, 0.0) };
            let (g, i) = (area.place_glyph(&glyph), area.place_image(&image));
            assert_eq!((i.x, i.y, i.size), (g.x, g.y, g.size), "at {left}, {top}, × {scale}");
            assert_eq!((i.source, i.id, i.color), (source, 3, [9; 4]));
            assert_eq!((g.x, g.y, g.size), (left + 7.5 * scale, top + 21.0 * scale, 14.0 * scale));
            let spec = TextSpec::new("wrapped", font, 14.0).at(7.5, 21.0).wrap(100.0);
            let placed = area.scaled(&spec);
            assert_eq!((placed.x, placed.y, placed.size), (g.x, g.y, g.size));
            assert_eq!(placed.max_width, Some(100.0 * scale), "× {scale}");
        }
    }

    /// Every target pixel `q` draws, with the texel it reads there, pixel
    /// by pixel: (x, y, texel x, texel y). An LCD quad reads three texels a
    /// pixel; a solid one reads its one texel everywhere.
    fn pixels(q: &GlyphQuad) -> Vec<(i32, i32, u32, u32)> {
        let per_px = q.texels_per_px();
        let moves = u32::from(!q.flags.contains(QuadFlags::SOLID));
        let mut out = Vec::new();
        for dy in 0..u32::from(q.height) {
            for dx in 0..u32::from(q.width / per_px) {
                let tex = (
                    u32::from(q.tex_x) + dx * u32::from(per_px) * moves,
                    u32::from(q.tex_y) + dy * moves,
                );
                out.push((q.x + dx as i32, q.y + dy as i32, tex.0, tex.1));
            }
        }
        out
    }

    /// Quads wholly inside stay as they are and in order (nothing is
    /// written back before the first quad to cut); an empty quad inside the
    /// bounds is dropped as one outside is, wherever it comes.
    #[test]
    fn quads_inside_are_kept_and_empty_ones_dropped() {
        let b = TextBounds { left: 0, top: 0, right: 100, bottom: 100 };
        let q = |x: i32, width: u16, flags: QuadFlags| GlyphQuad {
            x,
            y: 10,
            width,
            height: 8,
            flags,
            ..GlyphQuad::default()
        };
        let inside: Vec<GlyphQuad> = (0..6)
            .map(|i| q(i * 10, 9, QuadFlags::NONE))
            .chain([q(80, 60, QuadFlags::LCD)])
            .collect();
        let mut quads = inside.clone();
        clip_from(&mut quads, 0, &b);
        assert_eq!(quads, inside, "an LCD quad 20 px wide at 80 is inside");
        for at in [0, 3, 7] {
            let mut quads = inside.clone();
            quads.insert(at, q(50, 0, QuadFlags::NONE));
            clip_from(&mut quads, 0, &b);
            assert_eq!(quads, inside, "the empty quad at {at} is dropped");
        }
        let mut quads = inside.clone();
        quads.push(q(95, 9, QuadFlags::NONE));
        clip_from(&mut quads, 2, &b);
        assert_eq!(quads.len(), inside.len() + 1);
        assert_eq!(quads[..inside.len()], inside[..]);
        assert_eq!(quads.last().map(|q| q.width), Some(5), "cut at the right edge");
    }

    /// A first quad to cut or drop at each edge (the one the pass over the
    /// quads inside stops at) is cut or dropped, and the quads inside after
    /// it stay.
    #[test]
    fn a_first_quad_over_any_edge_is_cut_or_dropped() {
        let b = TextBounds { left: 0, top: 0, right: 100, bottom: 100 };
        let q = |x: i32, y: i32, width: u16, height: u16| GlyphQuad {
            x,
            y,
            width,
            height,
            tex_x: 20,
            tex_y: 30,
            ..GlyphQuad::default()
        };
        let inside: Vec<GlyphQuad> = (0..4).map(|i| q(i * 20, 40, 9, 8)).collect();
        // (first quad, what it becomes: x, y, tex_x, tex_y, width, height)
        let cases = [
            (q(-5, 40, 9, 8), Some((0, 40, 25, 30, 4, 8))),
            (q(95, 40, 9, 8), Some((95, 40, 20, 30, 5, 8))),
            (q(40, -3, 9, 8), Some((40, 0, 20, 33, 9, 5))),
            (q(40, 97, 9, 8), Some((40, 97, 20, 30, 9, 3))),
            (q(40, 40, 0, 8), None),
            (q(40, 40, 9, 0), None),
            (q(200, 40, 9, 8), None),
            (q(40, -20, 9, 8), None),
            (q(0, 40, 150, 8), Some((0, 40, 20, 30, 100, 8))),
            (q(40, 0, 9, 150), Some((40, 0, 20, 30, 9, 100))),
        ];
        for (first, want) in cases {
            let mut quads = vec![first];
            quads.extend(&inside);
            clip_from(&mut quads, 0, &b);
            let got = |q: &GlyphQuad| (q.x, q.y, q.tex_x, q.tex_y, q.width, q.height);
            let kept = quads.len() - inside.len();
            assert_eq!(quads[kept..], inside[..], "{first:?}");
            assert_eq!(quads.first().filter(|_| kept == 1).map(got), want, "{first:?}");
        }
    }

    /// Clipping keeps, of every quad after `start`, exactly its pixels
    /// inside the bounds, reading the same texels, in order; quads wholly
    /// outside go, quads before `start` stay as they are.
    #[test]
    fn clipping_keeps_exactly_the_pixels_inside_the_bounds() {
        let b = TextBounds { left: 10, top: 20, right: 60, bottom: 50 };
        let mut seed = 7u32;
        let mut next = |m: u32| {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (seed >> 8) % m
        };
        let flags = [QuadFlags::NONE, QuadFlags::LCD, QuadFlags::SOLID, QuadFlags::COLOR];
        let mut quads = vec![GlyphQuad { x: 99, width: 5, height: 5, ..GlyphQuad::default() }];
        for _ in 0..400 {
            let f = flags[next(4) as usize];
            let per = if f.contains(QuadFlags::LCD) { 3 } else { 1 };
            quads.push(GlyphQuad {
                x: next(80) as i32 - 10,
                y: next(70) as i32,
                tex_x: next(100) as u16,
                tex_y: next(100) as u16,
                width: (next(16) as u16 + 1) * per,
                height: next(16) as u16 + 1,
                flags: f,
                ..GlyphQuad::default()
            });
        }
        let inside = |p: &(i32, i32, u32, u32)| {
            p.0 >= b.left && p.0 < b.right && p.1 >= b.top && p.1 < b.bottom
        };
        let mut kinds = [0; 3];
        let want: Vec<Vec<_>> = quads[1..]
            .iter()
            .map(|q| {
                let all = pixels(q);
                let kept: Vec<_> = all.iter().copied().filter(inside).collect();
                kinds[if kept.is_empty() {
                    0
                } else if kept.len() < all.len() {
                    1
                } else {
                    2
                }] += 1;
                kept
            })
            .filter(|kept| !kept.is_empty())
            .collect();
        assert!(kinds.iter().all(|&n| n > 20), "outside, across, inside: {kinds:?}");
        let mut got = quads.clone();
        clip_from(&mut got, 1, &b);
        assert_eq!(got[0], quads[0], "before `start`: untouched");
        assert_eq!(got[1..].iter().map(pixels).collect::<Vec<_>>(), want);
    }
}
