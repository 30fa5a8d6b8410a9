//! cosmic-text adapter (feature `cosmic-text`): a shaped
//! [`cosmic_text::Buffer`] becomes kerf's positioned glyphs, and the fonts
//! cosmic-text chose (fallback included) are loaded into the cache on first
//! sight, once per font face: never parsed again per frame.

use crate::cache::GlyphCache;
use crate::error::{FontError, GlyphError};
use crate::font::decoration::Decoration;
use crate::font::instance::{FontStyle, Tag};
use crate::font::{Font, FontLoading};
use crate::key::FontId;
use crate::text::PositionedGlyph;
use std::collections::BTreeMap;

/// Maps cosmic-text's font ids to the cache's, loading each face the first
/// time a layout uses it. Keep one per (cache, font system) pair.
#[derive(Debug, Default)]
pub struct CosmicFonts {
    // Ordered: a handful of fonts are a few integer compares (runs switch
    // fonts often in mixed-script text), where hashing costs more.
    ids: BTreeMap<cosmic_text::fontdb::ID, FontId>,
    /// The instance of each (face, weight, synthetic italic, hinting off) seen so far.
    styled: BTreeMap<(FontId, u16, bool, bool), FontId>,
    loading: FontLoading,
    /// Axis values set on every face (cosmic-text's attributes have none).
    variations: Vec<(Tag, f32)>,
    /// Axes of `variations` some face lacked.
    ignored_axes: Vec<Tag>,
}

impl CosmicFonts {
    /// An empty map; faces load with [`FontLoading::Auto`].
    pub fn new() -> CosmicFonts {
        CosmicFonts::default()
    }

    /// A cosmic-text colour as the straight sRGB RGBA kerf takes everywhere
    /// a colour is asked for (`default_color` of [`glyphs`](Self::glyphs),
    /// [`TextSpec::color`](crate::TextSpec::color), outlines, shadows).
    ///
    /// ```
    /// use kerf_cache::{cosmic_text::Color, CosmicFonts};
    /// assert_eq!(CosmicFonts::rgba(Color::rgba(20, 30, 80, 200)), [20, 30, 80, 200]);
    /// ```
    pub fn rgba(color: cosmic_text::Color) -> [u8; 4] {
        [color.r(), color.g(), color.b(), color.a()]
    }

    /// The same map loading faces first seen from now on as `loading` says
    /// ([`FontLoading::Eager`] trades a slower first sight of a large face
    /// for cheaper misses: an app that redraws many sizes of one face).
    pub fn loading(mut self, loading: FontLoading) -> CosmicFonts {
        self.loading = loading;
        self
    }

    /// The same map drawing every face with these axis values (user space,
    /// as CSS `font-variation-settings`; they win over the weight and
    /// italic cosmic-text asks). Faces lacking an axis ignore it; see
    /// [`ignored_axes`](Self::ignored_axes).
    pub fn variations(mut self, values: &[(Tag, f32)]) -> CosmicFonts {
        self.variations = values.to_vec();
        self.styled.clear();
        self
    }

    /// The axes of [`variations`](Self::variations) that a face drawn so far lacks.
    pub fn ignored_axes(&self) -> &[Tag] {
        &self.ignored_axes
    }

    /// The pen position on the baseline of glyph `g` of `run`, offset by
    /// `(left, top)`, unrounded. cosmic-text's glyph offsets are in ems (see
    /// `LayoutGlyph::physical`).
    pub fn pen(
        run: &cosmic_text::LayoutRun<'_>, g: &cosmic_text::LayoutGlyph, (left, top): (f32, f32),
    ) -> (f32, f32) {
        (left + g.x + g.font_size * g.x_offset, top + run.line_y + g.y - g.font_size * g.y_offset)
    }

    /// The cache's font for cosmic-text's `id`, loaded from `fonts` on first sight.
    /// Bytes the database holds (loaded as data, or a file it has mapped)
    /// are shared, not copied; a file it has not mapped yet is read.
    pub fn font(
        &mut self, cache: &mut GlyphCache, fonts: &cosmic_text::FontSystem,
        id: cosmic_text::fontdb::ID,
    ) -> Result<FontId, FontError> {
        if let Some(&f) = self.ids.get(&id) {
            return Ok(f);
        }
        let missing = || FontError::Malformed(format!("cosmic-text font {id:?} has no data"));
        let f = match fonts.db().face_source(id) {
            // Bytes in the database (fonts the app loaded as data), or a
            // file the database has mapped (cosmic-text maps a system font
            // file when it first shapes with it): shared with it, not copied.
            Some((cosmic_text::fontdb::Source::Binary(data), index))
            | Some((cosmic_text::fontdb::Source::SharedFile(_, data), index)) => {
                cache.add_parsed_font(Font::from_shared(data, index, self.loading)?)?
            }
            // A file not yet mapped: read by the database, and copied.
            _ => {
                let (bytes, index) = fonts
                    .db()
                    .with_face_data(id, |data, index| (data.to_vec(), index))
                    .ok_or_else(missing)?;
                cache.add_parsed_font(Font::from_bytes_with(bytes, index, self.loading)?)?
            }
        };
        self.ids.insert(id, f);
        Ok(f)
    }

    /// The cache's font drawing `g` as cosmic-text asks: face `base` at the
    /// glyph's weight (a `wght` axis set as cosmic-text's own swash path
    /// sets it, or synthetic bold on a face of weight ≤ 500 without one) and
    /// with a synthetic oblique where cosmic-text marks the glyph
    /// `FAKE_ITALIC` (its face is not italic); unhinted where it marks the
    /// glyph `DISABLE_HINTING` and the cache's rasterizer hints (as
    /// cosmic-text's own swash path, which hints unless told not to). See
    /// [`GlyphCache::add_instance`].
    pub fn instance(
        &mut self, cache: &mut GlyphCache, base: FontId, g: &cosmic_text::LayoutGlyph,
    ) -> Result<FontId, GlyphError> {
        let flags = g.cache_key_flags;
        let italic = flags.contains(cosmic_text::CacheKeyFlags::FAKE_ITALIC);
        let unhinted = flags.contains(cosmic_text::CacheKeyFlags::DISABLE_HINTING);
        let weight = g.font_weight.0;
        let seen = (base, weight, italic, unhinted);
        if let Some(&f) = self.styled.get(&seen) {
            return Ok(f);
        }
        let style = FontStyle {
            variations: self.variations.clone(),
            ..FontStyle::new().weight(f32::from(weight)).italic(italic).no_hinting(unhinted)
        };
        let styled = cache.add_instance(base, &style)?;
        for tag in styled.ignored_axes {
            if !self.ignored_axes.contains(&tag) {
                self.ignored_axes.push(tag);
            }
        }
        let f = styled.font;
        self.styled.insert(seen, f);
        Ok(f)
    }

    /// Appends the decorations of `buffer`'s layout runs (underline, double
    /// underline, strikethrough, overline: cosmic-text's `TextDecoration`
    /// attributes) to `out`, offset by `(left, top)`, exactly where
    /// cosmic-text's own renderer (`render_decoration`) puts them: across the
    /// span's glyphs, at the positions and thicknesses of the font's `post`
    /// and `OS/2` tables (cosmic-text reads them), thickness rounded up to
    /// whole pixels, in the decoration's colour, else the span's, else
    /// `default_color`. Draw them with the glyphs (kerf-wgpu:
    /// `TextArea::with_decorations`).
    pub fn decorations(
        buffer: &cosmic_text::Buffer, (left, top): (f32, f32), default_color: [u8; 4],
        out: &mut Vec<Decoration>,
    ) {
        let rgba = |c: Option<cosmic_text::Color>| c.map(CosmicFonts::rgba);
        for run in buffer.layout_runs() {
            for span in run.decorations {
                let glyphs = run.glyphs.get(span.glyph_range.clone()).unwrap_or(&[]);
                // Min and max over the glyphs: right-to-left runs are stored reversed.
                let x0 = glyphs.iter().map(|g| g.x).fold(f32::INFINITY, f32::min);
                let x1 = glyphs.iter().map(|g| g.x + g.w).fold(f32::NEG_INFINITY, f32::max);
                let width = x1 - x0;
                if !(width >= 1.0 && x0.is_finite()) {
                    continue;
                }
                let (px, d) = (span.font_size, &span.data);
                let td = &d.text_decoration;
                let span_color = rgba(span.color_opt).unwrap_or(default_color);
                // cosmic-text's snapping: truncated edges, thickness rounded up.
                let mut rect = |y: f32, thickness: f32, color: Option<cosmic_text::Color>| {
                    let (x, y) = ((left + x0) as i32, (top + y) as i32);
                    let color = rgba(color).unwrap_or(span_color);
                    out.push(Decoration {
                        x,
                        y,
                        width: width as u32,
                        height: thickness as u32,
                        color,
                    });
                };
                let under = (d.underline_metrics.thickness * px).max(1.0).ceil();
                let under_y = run.line_y - d.underline_metrics.offset * px;
                match td.underline {
                    cosmic_text::UnderlineStyle::None => {}
                    cosmic_text::UnderlineStyle::Single => {
                        rect(under_y, under, td.underline_color_opt)
                    }
                    cosmic_text::UnderlineStyle::Double => {
                        // The second line a thickness below the first's bottom.
                        rect(under_y, under, td.underline_color_opt);
                        rect(under_y + 2.0 * under, under, td.underline_color_opt);
                    }
                }
                if td.strikethrough {
                    let t = (d.strikethrough_metrics.thickness * px).max(1.0).ceil();
                    let y = run.line_y - d.strikethrough_metrics.offset * px;
                    rect(y, t, td.strikethrough_color_opt);
                }
                if td.overline {
                    // At the ascent, not above the line's top.
                    let y = (run.line_y - d.ascent * px).max(run.line_top);
                    rect(y, under, td.overline_color_opt);
                }
            }
        }
    }

    /// Appends every glyph of `buffer`'s layout runs to `out`: pen positions on
    /// the baseline, offset by `(left, top)`, in the glyph's colour or
    /// `default_color` (straight sRGB RGBA). The positions are the shaper's
    /// (GPOS kerning, marks, ligatures, bidi reordering), unrounded: the cache
    /// snaps x to its sub-pixel bins. A font that fails to load is an error;
    /// the glyphs before it are appended.
    ///
    /// The glyphs are plain data: convert a buffer when it has been shaped
    /// (again after any change to its text, size or metrics) and keep them
    /// while it is unchanged, drawing them every frame; convert at `(0.0,
    /// 0.0)` and place the area with its offset, so a buffer that only
    /// moves needs no conversion. Converting reads every glyph of the
    /// buffer's layout, which an app of many buffers pays in cache misses.
    pub fn glyphs(
        &mut self, cache: &mut GlyphCache, fonts: &cosmic_text::FontSystem,
        buffer: &cosmic_text::Buffer, (left, top): (f32, f32), default_color: [u8; 4],
        out: &mut Vec<PositionedGlyph>,
    ) -> Result<(), FontError> {
        // Room for every glyph at once: a buffer converted into a new
        // vector grew it a doubling at a time (half of a conversion's time).
        out.reserve(buffer.layout_runs().map(|run| run.glyphs.len()).sum());
        for run in buffer.layout_runs() {
            self.run_glyphs(cache, fonts, &run, (left, top), default_color, out)?;
        }
        Ok(())
    }

    /// Appends the glyphs of one layout run to `out`, as
    /// [`glyphs`](Self::glyphs) appends a whole buffer's: for an app that
    /// draws only some of a buffer's runs (those inside a clip, say).
    pub fn run_glyphs(
        &mut self, cache: &mut GlyphCache, fonts: &cosmic_text::FontSystem,
        run: &cosmic_text::LayoutRun<'_>, (left, top): (f32, f32), default_color: [u8; 4],
        out: &mut Vec<PositionedGlyph>,
    ) -> Result<(), FontError> {
        // Runs are long stretches of one font and style: the last mapping
        // is reused before the maps are asked.
        type Seen = (cosmic_text::fontdb::ID, u16, cosmic_text::CacheKeyFlags);
        let mut last: Option<(Seen, FontId)> = None;
        for g in run.glyphs {
            let seen = (g.font_id, g.font_weight.0, g.cache_key_flags);
            let font = match last {
                Some((s, f)) if s == seen => f,
                _ => {
                    let base = self.font(cache, fonts, g.font_id)?;
                    let f = self.instance(cache, base, g).map_err(GlyphError::into_font_error)?;
                    last = Some((seen, f));
                    f
                }
            };
            let color = g.color_opt.map_or(default_color, CosmicFonts::rgba);
            let (x, y) = CosmicFonts::pen(run, g, (left, top));
            out.push(PositionedGlyph { font, glyph: g.glyph_id, size: g.font_size, x, y, color });
        }
        Ok(())
    }
}
