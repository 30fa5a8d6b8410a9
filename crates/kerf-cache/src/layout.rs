//! kerf's own text path (fontdue's layout: no shaping), with font fallback:
//! a string laid out in runs, each character in the first font of
//! [`TextSpec::font`] and [`TextSpec::fallback`] that has it; a character no
//! font has is drawn as the first font's missing-glyph box and reported.

use crate::cache::GlyphCache;
use crate::error::GlyphError;
use crate::font::decoration::Decoration;
use crate::font::effect::EffectLayer;
use crate::font::Advances;
use crate::key::FontId;
use crate::text::TextSpec;
use fontdue::layout::{LayoutSettings, TextStyle};

impl GlyphCache {
    /// Resets fontdue's layout and appends `text` at `px` (already checked),
    /// in runs of one font each when it has fallback fonts; with `report`,
    /// the characters no font has go to the frame's report.
    pub(crate) fn lay_out(&mut self, text: &TextSpec<'_>, px: f32, report: bool) {
        self.layout.reset(&LayoutSettings {
            x: if text.x.is_finite() { text.x } else { 0.0 },
            y: if text.y.is_finite() { text.y } else { 0.0 },
            max_width: text.max_width.filter(|w| w.is_finite() && *w > 0.0),
            line_height: if text.line_height.is_finite() && text.line_height > 0.0 {
                text.line_height
            } else {
                1.0
            },
            ..LayoutSettings::default()
        });
        // Each run is laid out in its own font alone (a one-font slice, the
        // font's id carried as the glyphs' user data): a lazy face's metrics
        // are parsed only when text is laid out in it, and never its
        // outlines. `check_text` has parsed every font of the spec already.
        let fonts = &self.sources.fonts;
        let parsed = |f: FontId| fonts.get(f).and_then(|font| font.layout_fontdue().ok());
        let layout = &mut self.layout;
        let mut append = |s: &str, f: FontId| {
            if let Some(fd) = parsed(f) {
                layout.append(&[fd], &TextStyle::with_user_data(s, px, 0, f));
            }
        };
        if text.fallback.is_empty() {
            append(text.text, text.font);
        } else {
            let has =
                |f: FontId, c: char| parsed(f).is_some_and(|fd| fd.lookup_glyph_index(c) != 0);
            let pick = |c: char, current: FontId| -> FontId {
                if c.is_control() || has(current, c) && current == text.font {
                    return current;
                }
                std::iter::once(text.font)
                    .chain(text.fallback.iter().copied())
                    .find(|&f| has(f, c))
                    .unwrap_or(text.font)
            };
            let mut run_start = 0;
            let mut run_font = text.font;
            for (i, c) in text.text.char_indices() {
                let f = pick(c, run_font);
                if f != run_font && i > run_start {
                    append(&text.text[run_start..i], run_font);
                    run_start = i;
                }
                run_font = f;
            }
            if run_start < text.text.len() {
                append(&text.text[run_start..], run_font);
            }
        }
        if !report {
            return;
        }
        for g in self.layout.glyphs() {
            if g.key.glyph_index == 0 && !g.char_data.is_control() {
                self.report.missing.push(g.parent);
            }
        }
    }

    /// The fonts of `text` (its font and fallback, checked) paired with
    /// the instances its style asks of them (empty when it asks nothing);
    /// axes the fonts lack are counted in the frame's report. A non-finite
    /// number is an error before any instance is made.
    pub(crate) fn styled_fonts(
        &mut self, text: &TextSpec<'_>,
    ) -> Result<Vec<(FontId, FontId)>, GlyphError> {
        let Some(style) = text.style() else { return Ok(Vec::new()) };
        style.check().map_err(|error| GlyphError::Style { font: text.font, error })?;
        let mut pairs = Vec::with_capacity(1 + text.fallback.len());
        for &f in std::iter::once(&text.font).chain(text.fallback) {
            if pairs.iter().any(|&(g, _)| g == f) {
                continue;
            }
            let (styled, ignored) = self.sources.instance(f, &style)?;
            self.report.ignored_axes += ignored.len() as u64;
            pairs.push((f, styled));
        }
        Ok(pairs)
    }

    /// `text`'s effect layers (shadow, outline), each with the effect font
    /// of every font the text draws in (`styled`'s instances, or its fonts):
    /// an invalid effect, or a font without an effect font, is an error
    /// before any glyph is looked up.
    pub(crate) fn effect_layers(
        &mut self, text: &TextSpec<'_>, styled: &[(FontId, FontId)],
    ) -> Result<Vec<EffectLayer>, GlyphError> {
        let drawn = std::iter::once(text.font)
            .chain(text.fallback.iter().copied())
            .map(|f| styled.iter().find(|p| p.0 == f).map_or(f, |p| p.1));
        let fonts = &mut self.sources.fonts;
        let layers = EffectLayer::all(&text.effects, drawn, |f, e| fonts.effect(f, e))
            .map_err(|error| GlyphError::Style { font: text.font, error })?;
        match layers.iter().find_map(EffectLayer::failure) {
            Some(e) => Err(e.clone()),
            None => Ok(layers),
        }
    }

    /// The decorations `text` asks for, one of each kind per line of its
    /// laid-out `pens` (font, glyph, pen x, baseline y, in text order): from
    /// the line's first pen to its last glyph's advance (one advance read a
    /// line), placed by the spec's font's metrics, in its colour.
    pub(crate) fn decoration_lines(
        &self, text: &TextSpec<'_>, px: f32,
        pens: impl IntoIterator<Item = (FontId, u16, f32, f32)>,
    ) -> Vec<Decoration> {
        let fonts = &self.sources.fonts;
        let Some(font) = fonts.get(text.font) else { return Vec::new() };
        // (first pen, last glyph's font, glyph and pen, baseline) per line.
        let mut lines: Vec<(f32, FontId, u16, f32, f32)> = Vec::new();
        for (f, glyph, x, y) in pens {
            match lines.last_mut() {
                Some(l) if l.4 == y => (l.1, l.2, l.3) = (f, glyph, x),
                _ => lines.push((x, f, glyph, x, y)),
            }
        }
        let spans: Vec<(f32, f32, f32)> = lines
            .iter()
            .map(|&(x0, f, glyph, x, y)| {
                (x0, x + fonts.get(f).map_or(0.0, |font| font.advance(glyph, px)), y)
            })
            .collect();
        let mut out = Vec::new();
        for kind in text.decorations.kinds() {
            let m = font.line_metrics(kind);
            out.extend(
                spans
                    .iter()
                    .filter_map(|&(x0, x1, y)| Decoration::line(m, x0, x1, y, px, text.color)),
            );
        }
        out
    }

    /// Calls `f(font, glyph, pen_x, baseline_y)` for each glyph of the text
    /// [`lay_out`](Self::lay_out) laid out last (control characters left
    /// out): pens restart at the spec's x on each of fontdue's lines and
    /// advance by the exact advances of the fontdue parse the layout used
    /// (its layout rounds each advance up to whole pixels; only its line
    /// breaks and baselines are kept).
    ///
    /// With `styled` ([`styled_fonts`](Self::styled_fonts)) each glyph goes
    /// out in its font's instance; an instance with variations advances by
    /// its own advances (HVAR), not the default instance's (line breaks
    /// stay the default instance's).
    pub(crate) fn line_pens(
        &self, text: &TextSpec<'_>, px: f32, styled: &[(FontId, FontId)],
        mut f: impl FnMut(FontId, u16, f32, f32),
    ) {
        let x0 = if text.x.is_finite() { text.x } else { 0.0 };
        let Some(lines) = self.layout.lines() else { return };
        let glyphs = self.layout.glyphs();
        let fonts = &self.sources.fonts;
        let instance_of =
            |font: FontId| styled.iter().find(|&&(f, _)| f == font).map_or(font, |&(_, s)| s);
        // An instance with variations advances by its own advances: each
        // such font's tables are read once for the whole text.
        let mut varied: Vec<(FontId, Advances<'_>)> = Vec::new();
        let mut advance = |font: FontId, drawn: FontId, glyph: u16| {
            if let Some((_, a)) = varied.iter().find(|(f, _)| *f == drawn) {
                return a.get(glyph, px);
            }
            let instance = fonts
                .get(drawn)
                .filter(|f| f.instance().is_some_and(|i| !i.variations().is_empty()));
            if let Some(f) = instance {
                let a = f.advances();
                let v = a.get(glyph, px);
                varied.push((drawn, a));
                return v;
            }
            let parsed = fonts.get(font).and_then(|f| f.layout_fontdue().ok());
            parsed.map_or(0.0, |fd| fd.metrics_indexed(glyph, px).advance_width)
        };
        for line in lines {
            let mut pen = x0;
            let end = line.glyph_end.min(glyphs.len().saturating_sub(1));
            for g in glyphs.get(line.glyph_start..=end).unwrap_or(&[]) {
                if g.char_data.is_control() {
                    continue;
                }
                let drawn = instance_of(g.user_data);
                f(drawn, g.key.glyph_index, pen, line.baseline_y);
                pen += advance(g.user_data, drawn, g.key.glyph_index);
            }
        }
    }
}
