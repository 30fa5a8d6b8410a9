//! What a frame asks for (positioned glyphs, or strings to lay out) and what it gets back (quads).

use crate::error::GlyphError;
use crate::font::decoration::Decorations;
use crate::font::effect::{EffectLayer, Effects, Outline, Shadow};
use crate::font::instance::{FontStyle, Tag};
use crate::key::{FontId, GlyphKey};

/// A glyph already positioned by a shaper (rustybuzz, cosmic-text, ...): font,
/// glyph index, size and the pen position on the baseline.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PositionedGlyph {
    /// The font.
    pub font: FontId,
    /// The glyph index in the font.
    pub glyph: u16,
    /// Size in pixels per em (quantised to 1/64 px by the cache).
    pub size: f32,
    /// Pen x, in target pixels, unrounded: the cache snaps it to
    /// [`CacheConfig::subpixel_bins`](crate::CacheConfig::subpixel_bins)
    /// offsets a pixel (the glyph is rasterized at the bin's offset and drawn
    /// at the whole pixel below), or to the nearest whole pixel with 1 bin.
    pub x: f32,
    /// Baseline y, in target pixels, y growing downwards.
    pub y: f32,
    /// Straight (not premultiplied) sRGB colour, RGBA.
    pub color: [u8; 4],
}

impl PositionedGlyph {
    /// This glyph as effect layer `layer` draws it: in its font's effect
    /// font, moved by the layer's offset, in the layer's colour; why not when
    /// its font has no effect font.
    pub(crate) fn in_layer(&self, layer: &EffectLayer) -> Result<PositionedGlyph, GlyphError> {
        let (dx, dy) = layer.offset();
        let font = layer.font_for(self.font)?;
        Ok(PositionedGlyph { font, x: self.x + dx, y: self.y + dy, color: layer.color(), ..*self })
    }
}

/// A string to lay out with fontdue's layout and draw.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TextSpec<'a> {
    /// The text; `\n` breaks lines.
    pub text: &'a str,
    /// The font.
    pub font: FontId,
    /// Size in pixels per em.
    pub size: f32,
    /// Left edge of the text block.
    pub x: f32,
    /// Top edge of the text block (y down).
    pub y: f32,
    /// Wrap lines at this width (word wrapping); `None` for no wrapping.
    pub max_width: Option<f32>,
    /// Line height as a multiple of the font's line height (1.0 = the font's own).
    pub line_height: f32,
    /// Straight sRGB colour, RGBA.
    pub color: [u8; 4],
    /// Fonts to take a character from when `font` lacks it, in order (the
    /// first that has it wins). A character no font has is drawn as `font`'s
    /// missing-glyph box and reported in [`FrameOutput::missing`](crate::FrameOutput::missing).
    /// This path does no shaping (see the cosmic-text adapter for that).
    pub fallback: &'a [FontId],
    /// The weight asked (CSS 1..=1000; `None`: the fonts' own). See
    /// [`FontStyle`](crate::FontStyle): a `wght` axis set, or synthetic bold.
    pub weight: Option<f32>,
    /// Italic asked: an `ital` axis set, or a synthetic oblique.
    pub italic: bool,
    /// Variation axis values (user space), clamped to each font's axes;
    /// axes a font lacks are ignored and counted in
    /// [`FrameCounts::ignored_axes`](crate::FrameCounts::ignored_axes).
    pub variations: &'a [(Tag, f32)],
    /// Lines drawn with the text (underline, strikethrough, overline), in
    /// its colour, placed by the font's own metrics, over each laid-out line.
    pub decorations: Decorations,
    /// An outline and a shadow drawn under the text (see [`Effects`]).
    pub effects: Effects,
}

impl<'a> TextSpec<'a> {
    /// `text` in `font` at `size` px, at the origin, black, no wrapping, no fallback.
    pub fn new(text: &'a str, font: FontId, size: f32) -> Self {
        TextSpec {
            text,
            font,
            size,
            x: 0.0,
            y: 0.0,
            max_width: None,
            line_height: 1.0,
            color: [0, 0, 0, 255],
            fallback: &[],
            weight: None,
            italic: false,
            variations: &[],
            decorations: Decorations::default(),
            effects: Effects::default(),
        }
    }

    /// The same text with an outline `width` px wide in `color` under it.
    pub fn outline(mut self, width: f32, color: [u8; 4]) -> Self {
        self.effects.outline = Some(Outline { width, color });
        self
    }

    /// The same text with a shadow under it: moved by `offset` px, blurred
    /// by radius `blur` px, in `color`.
    pub fn shadow(mut self, offset: (f32, f32), blur: f32, color: [u8; 4]) -> Self {
        self.effects.shadow = Some(Shadow { offset, blur, color });
        self
    }

    /// The same text underlined.
    pub fn underline(mut self) -> Self {
        self.decorations.underline = true;
        self
    }

    /// The same text struck through.
    pub fn strikethrough(mut self) -> Self {
        self.decorations.strikethrough = true;
        self
    }

    /// The same text overlined.
    pub fn overline(mut self) -> Self {
        self.decorations.overline = true;
        self
    }

    /// The same text at weight `w` (CSS 1..=1000).
    pub fn weight(mut self, w: f32) -> Self {
        self.weight = Some(w);
        self
    }

    /// The same text in italic.
    pub fn italic(mut self) -> Self {
        self.italic = true;
        self
    }

    /// The same text with these variation axis values (user space).
    pub fn variations(mut self, values: &'a [(Tag, f32)]) -> Self {
        self.variations = values;
        self
    }

    /// The style the text asks of its fonts (`None`: nothing).
    pub fn style(&self) -> Option<FontStyle> {
        if self.weight.is_none() && !self.italic && self.variations.is_empty() {
            return None;
        }
        Some(FontStyle {
            weight: self.weight,
            italic: self.italic,
            variations: self.variations.to_vec(),
            ..FontStyle::default()
        })
    }

    /// The same text with fallback fonts, in order.
    pub fn fallback(mut self, fonts: &'a [FontId]) -> Self {
        self.fallback = fonts;
        self
    }

    /// The same text placed with its top-left corner at `(x, y)`.
    pub fn at(mut self, x: f32, y: f32) -> Self {
        self.x = x;
        self.y = y;
        self
    }

    /// The same text in another colour.
    pub fn color(mut self, color: [u8; 4]) -> Self {
        self.color = color;
        self
    }

    /// The same text wrapped at `width` px.
    pub fn wrap(mut self, width: f32) -> Self {
        self.max_width = Some(width);
        self
    }
}

/// A glyph the frame could not draw, and why. The rest of the frame is drawn.
#[derive(Clone, Debug, PartialEq)]
pub struct Skipped {
    /// Index of the glyph in the `prepare` input (for `layout`, in the
    /// laid-out glyph sequence); `usize::MAX` for a laid-out string's
    /// decorations (the atlas had no room for the texel they read).
    pub index: usize,
    /// The glyph's key, when its size was valid.
    pub key: Option<GlyphKey>,
    /// Why it was skipped.
    pub reason: GlyphError,
}
