//! kerf's own text path (fontdue's layout: no shaping), with font fallback:
//! a string laid out in runs, each character in the first font of
//! [`TextSpec::font`] and [`TextSpec::fallback`] that has it; a character no
//! font has is drawn as the first font's missing-glyph box and reported.

use crate::cache::GlyphCache;
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
        let fonts = self.sources.fonts.as_slice();
        if text.fallback.is_empty() {
            self.layout.append(fonts, &TextStyle::new(text.text, px, text.font.0 as usize));
        } else {
            let has = |f: FontId, c: char| {
                fonts.get(f.0 as usize).is_some_and(|font| font.lookup_glyph_index(c) != 0)
            };
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
                    self.layout.append(
                        fonts,
                        &TextStyle::new(&text.text[run_start..i], px, run_font.0 as usize),
                    );
                    run_start = i;
                }
                run_font = f;
            }
            if run_start < text.text.len() {
                self.layout.append(
                    fonts,
                    &TextStyle::new(&text.text[run_start..], px, run_font.0 as usize),
                );
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
}
