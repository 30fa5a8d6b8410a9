//! parley adapter (feature `parley`): a laid-out [`parley::Layout`] becomes
//! kerf's positioned glyphs, and the fonts parley chose (fallback included)
//! are loaded into the cache on first sight, once per font face.

use crate::cache::GlyphCache;
use crate::error::{FontError, GlyphError};
use crate::font::decoration::{Decoration, DecorationKind, LineMetrics};
use crate::font::instance::FontStyle;
use crate::key::FontId;
use crate::text::PositionedGlyph;
use std::collections::HashMap;

/// Maps parley's fonts (font data blob and face index) to the cache's,
/// loading each face the first time a layout uses it. Keep one per cache.
///
/// ```
/// use kerf_cache::parley::{fontique::Blob, FontContext, FontFamily, Layout, LayoutContext, StyleProperty};
/// use kerf_cache::{CacheConfig, GlyphCache, ParleyFonts};
/// use std::sync::Arc;
/// let mut fonts = FontContext::new();
/// fonts.collection.register_fonts(Blob::new(Arc::new(dejavu::sans::regular().to_vec())), None);
/// let mut layouts = LayoutContext::<()>::new();
/// let mut builder = layouts.ranged_builder(&mut fonts, "office", 1.0, false);
/// builder.push_default(StyleProperty::FontFamily(FontFamily::named("DejaVu Sans")));
/// builder.push_default(StyleProperty::FontSize(32.0));
/// let mut layout: Layout<()> = builder.build("office");
/// layout.break_all_lines(None);
///
/// let mut cache = GlyphCache::new(CacheConfig::default())?;
/// let mut glyphs = Vec::new();
/// ParleyFonts::new().glyphs(&mut cache, &layout, (0.0, 0.0), |_| [0, 0, 0, 255], &mut glyphs)?;
/// assert_eq!(glyphs.len(), 4, "o, ffi ligature, c, e");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Default)]
pub struct ParleyFonts {
    ids: HashMap<(u64, u32), FontId>,
    /// The instance of each (face, normalized coordinates, embolden, skew).
    styled: HashMap<(FontId, Vec<i16>, bool, u32), FontId>,
    loading: crate::font::FontLoading,
}

impl ParleyFonts {
    /// An empty map; faces load with [`FontLoading::Auto`](crate::fonts::FontLoading::Auto).
    pub fn new() -> ParleyFonts {
        ParleyFonts::default()
    }

    /// The same map loading faces first seen from now on as `loading` says
    /// (see [`FontLoading`](crate::fonts::FontLoading)).
    pub fn loading(mut self, loading: crate::font::FontLoading) -> ParleyFonts {
        self.loading = loading;
        self
    }

    /// The cache's font for parley's `font`, loaded on first sight.
    pub fn font(
        &mut self, cache: &mut GlyphCache, font: &parley::FontData,
    ) -> Result<FontId, FontError> {
        let key = (font.data.id(), font.index);
        if let Some(&f) = self.ids.get(&key) {
            return Ok(f);
        }
        // The blob is shared (reference-counted): no copy of the file.
        let data: crate::font::SharedBytes = std::sync::Arc::new(font.data.clone());
        let parsed = crate::font::Font::from_shared(data, font.index, self.loading)?;
        let f = cache.add_parsed_font(parsed)?;
        self.ids.insert(key, f);
        Ok(f)
    }

    /// The cache's font drawing `run` as parley asks: face `base` at the
    /// run's variation coordinates, emboldened and skewed as its
    /// `Synthesis` says. See [`GlyphCache::add_instance`].
    pub fn instance(
        &mut self, cache: &mut GlyphCache, base: FontId, run: &parley::Run<'_, impl parley::Brush>,
    ) -> Result<FontId, GlyphError> {
        let synthesis = run.synthesis();
        let (embolden, skew) = (synthesis.embolden(), synthesis.skew().unwrap_or(0.0));
        let default = run.normalized_coords().iter().all(|c| c.to_bits() == 0);
        if default && !embolden && skew == 0.0 {
            return Ok(base);
        }
        let coords: Vec<i16> = run.normalized_coords().iter().map(|c| c.to_bits()).collect();
        let key = (base, coords, embolden, skew.to_bits());
        if let Some(&f) = self.styled.get(&key) {
            return Ok(f);
        }
        let face = cache.fonts().get(base).ok_or(GlyphError::UnknownFont(base))?;
        let variations =
            crate::font::instance::user_values(face.bytes(), face.collection_index(), &key.1)
                .map_err(|error| GlyphError::Style { font: base, error })?;
        let style = FontStyle {
            variations,
            synthetic_bold: Some(embolden),
            synthetic_oblique: Some(skew),
            ..FontStyle::default()
        };
        let f = cache.add_instance(base, &style)?.font;
        self.styled.insert(key, f);
        Ok(f)
    }

    /// Appends the underlines and strikethroughs of `layout`'s glyph runs
    /// (parley's `Style::underline` and `strikethrough`) to `out`, offset by
    /// `(left, top)`: across each run, at the offset and thickness the style
    /// gives, else the ones the run's face gives in its `post` and `OS/2`
    /// tables ([`Font::line_metrics`](crate::fonts::Font::line_metrics)), in the
    /// colour `color` gives the decoration's brush; edges snapped to whole
    /// pixels. Draw them with the glyphs (kerf-wgpu:
    /// `TextArea::with_decorations`). A font that fails to load is an error.
    pub fn decorations<B: parley::Brush>(
        &mut self, cache: &mut GlyphCache, layout: &parley::Layout<B>, (left, top): (f32, f32),
        color: impl Fn(&B) -> [u8; 4], out: &mut Vec<Decoration>,
    ) -> Result<(), FontError> {
        for line in layout.lines() {
            for item in line.items() {
                let parley::PositionedLayoutItem::GlyphRun(run) = item else { continue };
                let style = run.style();
                if style.underline.is_none() && style.strikethrough.is_none() {
                    continue;
                }
                let font = self.font(cache, run.run().font())?;
                let Some(face) = cache.fonts().get(font) else { continue };
                let px = run.run().font_size();
                let (x0, x1) = (left + run.offset(), left + run.offset() + run.advance());
                let y = top + run.baseline();
                let kinds = [
                    (&style.underline, DecorationKind::Underline),
                    (&style.strikethrough, DecorationKind::Strikethrough),
                ];
                for (deco, kind) in kinds {
                    let Some(d) = deco else { continue };
                    let own = face.line_metrics(kind);
                    let em = |v: Option<f32>| v.map(|v| v / px.max(f32::MIN_POSITIVE));
                    let m = LineMetrics {
                        top: em(d.offset).unwrap_or(own.top),
                        thickness: em(d.size).unwrap_or(own.thickness),
                    };
                    out.extend(Decoration::line(m, x0, x1, y, px, color(&d.brush)));
                }
            }
        }
        Ok(())
    }

    /// Appends every glyph of `layout` (after `break_all_lines` and, if
    /// wanted, `align`) to `out`: pen positions on the baseline, offset by
    /// `(left, top)`, unrounded (the cache snaps x to its sub-pixel bins),
    /// each in the colour `color` gives its run's brush (straight sRGB RGBA).
    /// Inline boxes are the app's to draw. A font that fails to load is an
    /// error; the glyphs before it are appended.
    pub fn glyphs<B: parley::Brush>(
        &mut self, cache: &mut GlyphCache, layout: &parley::Layout<B>, (left, top): (f32, f32),
        color: impl Fn(&B) -> [u8; 4], out: &mut Vec<PositionedGlyph>,
    ) -> Result<(), FontError> {
        for line in layout.lines() {
            for item in line.items() {
                let parley::PositionedLayoutItem::GlyphRun(run) = item else { continue };
                let base = self.font(cache, run.run().font())?;
                let font =
                    self.instance(cache, base, run.run()).map_err(GlyphError::into_font_error)?;
                let size = run.run().font_size();
                let rgba = color(&run.style().brush);
                // OpenType glyph ids are 16-bit; parley widens them to u32.
                out.extend(run.positioned_glyphs().filter_map(|g| {
                    let glyph = u16::try_from(g.id).ok()?;
                    Some(PositionedGlyph {
                        font,
                        glyph,
                        size,
                        x: left + g.x,
                        y: top + g.y,
                        color: rgba,
                    })
                }));
            }
        }
        Ok(())
    }
}
