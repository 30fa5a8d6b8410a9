//! Glyph effects cached in the atlas: an outline (the glyph's coverage
//! dilated by a disk) and a shadow (its coverage blurred by a Gaussian).
//! An effect is a font of its own in the cache
//! ([`GlyphCache::add_effect`](crate::GlyphCache::add_effect)), so each
//! effect of each glyph is a key of its own: made once on a miss from the
//! glyph's coverage, evicted and made again like any glyph, on the same
//! pages and budget. This file is the vocabulary and the one place a text's
//! effect layers are built ([`EffectLayer`]: kerf's laid-out text and the
//! drawing side's positioned glyphs alike); the pixels are `morph.rs`.

use crate::error::{GlyphError, StyleError};
use crate::key::FontId;

/// Effect sizes are kept in steps of 1/8 px (equal-looking effects share
/// their glyphs).
pub const EFFECT_STEPS_PER_PX: f32 = 8.0;
/// The widest outline and the largest blur radius, in pixels.
pub const MAX_EFFECT_PX: f32 = 64.0;

/// What an effect makes of a glyph's coverage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GlyphEffect {
    /// The coverage dilated by a disk of this radius (1/8 px steps): drawn
    /// under the glyph, the ring around it is an outline `width/8` px wide.
    Outline {
        /// Width in 1/8 px.
        width_eighths: u16,
    },
    /// The coverage blurred by a Gaussian of this radius (1/8 px steps; the
    /// CSS blur radius: twice the standard deviation; 0 is a hard shadow).
    Shadow {
        /// Blur radius in 1/8 px.
        blur_eighths: u16,
    },
}

impl GlyphEffect {
    /// An outline `width` px wide (in (0, [`MAX_EFFECT_PX`]]).
    pub fn outline(width: f32) -> Result<GlyphEffect, StyleError> {
        let q = quantize("outline width", width)?;
        if q == 0 {
            return Err(StyleError::EffectSize { what: "outline width", value: width });
        }
        Ok(GlyphEffect::Outline { width_eighths: q })
    }

    /// A shadow blurred by radius `blur` px (in [0, [`MAX_EFFECT_PX`]]).
    pub fn shadow(blur: f32) -> Result<GlyphEffect, StyleError> {
        Ok(GlyphEffect::Shadow { blur_eighths: quantize("shadow blur", blur)? })
    }

    /// How far the effect reaches past the glyph's bitmap, in whole pixels.
    pub fn reach(&self) -> u32 {
        match *self {
            GlyphEffect::Outline { width_eighths } => {
                (width_eighths as f32 / EFFECT_STEPS_PER_PX).ceil() as u32 + 1
            }
            GlyphEffect::Shadow { blur_eighths } => kernel_radius(sigma(blur_eighths)) as u32,
        }
    }
}

/// An outline drawn under text: its width in pixels and its colour.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Outline {
    /// Width in pixels (in (0, [`MAX_EFFECT_PX`]]).
    pub width: f32,
    /// Straight sRGB colour, RGBA.
    pub color: [u8; 4],
}

/// A shadow drawn under text (and under its outline): moved by `offset`,
/// blurred by `blur`, in `color`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shadow {
    /// Offset in pixels (x right, y down).
    pub offset: (f32, f32),
    /// Blur radius in pixels (CSS: twice the Gaussian's standard deviation;
    /// 0 is a hard shadow; at most [`MAX_EFFECT_PX`]).
    pub blur: f32,
    /// Straight sRGB colour, RGBA.
    pub color: [u8; 4],
}

/// The effects drawn under a text, each layer in its own colour: the
/// shadow, then the outline, then the text.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Effects {
    /// An outline.
    pub outline: Option<Outline>,
    /// A shadow.
    pub shadow: Option<Shadow>,
}

/// One layer of effects to draw: the effect, the colour and the offset.
pub(crate) type Layer = (GlyphEffect, [u8; 4], (f32, f32));

impl Effects {
    /// True when there is nothing to draw under the text.
    pub fn is_empty(&self) -> bool {
        self.outline.is_none() && self.shadow.is_none()
    }

    /// The layers under the text, in drawing order; an out-of-range or
    /// non-finite size or offset is an error.
    pub fn layers(&self) -> Result<Vec<Layer>, StyleError> {
        let mut out = Vec::new();
        if let Some(s) = self.shadow {
            for (what, v) in [("shadow offset x", s.offset.0), ("shadow offset y", s.offset.1)] {
                if !v.is_finite() {
                    return Err(StyleError::NotFinite { what: what.into(), value: v });
                }
            }
            out.push((GlyphEffect::shadow(s.blur)?, s.color, s.offset));
        }
        if let Some(o) = self.outline {
            out.push((GlyphEffect::outline(o.width)?, o.color, (0.0, 0.0)));
        }
        Ok(out)
    }
}

/// One effect layer under a text (its shadow or its outline): the text's
/// glyphs again, each in its font's effect font, moved by the layer's
/// offset, in the layer's colour.
#[derive(Debug)]
pub(crate) struct EffectLayer {
    color: [u8; 4],
    offset: (f32, f32),
    /// Each font the text draws in, with its effect font for this layer or
    /// why the cache has none.
    fonts: Vec<(FontId, Result<FontId, GlyphError>)>,
}

impl EffectLayer {
    /// `effects`' layers in drawing order (shadow, then outline), for
    /// glyphs drawn in `fonts`: each font's effect font made once a layer
    /// by `make`. An out-of-range or non-finite effect is an error; a font
    /// `make` refuses is kept as its error ([`failure`](Self::failure)).
    pub(crate) fn all(
        effects: &Effects, fonts: impl IntoIterator<Item = FontId>,
        mut make: impl FnMut(FontId, GlyphEffect) -> Result<FontId, GlyphError>,
    ) -> Result<Vec<EffectLayer>, StyleError> {
        if effects.is_empty() {
            return Ok(Vec::new());
        }
        let layers = effects.layers()?;
        // Each font once, in first-seen order (a text's glyphs repeat a few).
        let mut distinct: Vec<FontId> = Vec::new();
        for f in fonts {
            if !distinct.contains(&f) {
                distinct.push(f);
            }
        }
        Ok(layers
            .into_iter()
            .map(|(effect, color, offset)| {
                let fonts = distinct.iter().map(|&f| (f, make(f, effect))).collect();
                EffectLayer { color, offset, fonts }
            })
            .collect())
    }

    /// The first font whose effect font could not be made, with why.
    pub(crate) fn failure(&self) -> Option<&GlyphError> {
        self.fonts.iter().find_map(|(_, r)| r.as_ref().err())
    }

    /// The font this layer draws `font`'s glyphs in; why it has none.
    pub(crate) fn font_for(&self, font: FontId) -> Result<FontId, GlyphError> {
        match self.fonts.iter().find(|p| p.0 == font) {
            Some((_, made)) => made.clone(),
            None => Err(GlyphError::UnknownFont(font)),
        }
    }

    /// The layer's offset from the glyphs it is under, in pixels.
    pub(crate) fn offset(&self) -> (f32, f32) {
        self.offset
    }

    /// The layer's colour.
    pub(crate) fn color(&self) -> [u8; 4] {
        self.color
    }
}

fn quantize(what: &'static str, v: f32) -> Result<u16, StyleError> {
    if !v.is_finite() {
        return Err(StyleError::NotFinite { what: what.into(), value: v });
    }
    if !(0.0..=MAX_EFFECT_PX).contains(&v) {
        return Err(StyleError::EffectSize { what, value: v });
    }
    Ok((v * EFFECT_STEPS_PER_PX).round() as u16)
}

/// The Gaussian's standard deviation for a blur radius (CSS: radius = 2σ).
pub(crate) fn sigma(blur_eighths: u16) -> f32 {
    blur_eighths as f32 / EFFECT_STEPS_PER_PX / 2.0
}

/// Kernel half-width: three standard deviations.
pub(crate) fn kernel_radius(sigma: f32) -> usize {
    (3.0 * sigma).ceil() as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Layers come shadow first, each font's effect font made once a layer;
    /// a font the maker refuses is kept as its error, reported by `failure`
    /// and by `font_for`, the others still mapped.
    #[test]
    fn layers_map_each_font_once_and_keep_refusals() {
        let effects = Effects {
            outline: Some(Outline { width: 1.0, color: [1; 4] }),
            shadow: Some(Shadow { offset: (1.0, 2.0), blur: 0.5, color: [2; 4] }),
        };
        let (a, b) = (FontId(0), FontId(1));
        let mut made = Vec::new();
        let layers = EffectLayer::all(&effects, [a, b, a], |f, e| {
            made.push((f, e));
            if f == b {
                Err(GlyphError::UnknownFont(b))
            } else {
                Ok(FontId(10 + made.len() as u32))
            }
        })
        .unwrap();
        assert_eq!(made.len(), 4, "two fonts, two layers: {made:?}");
        assert_eq!((layers[0].color(), layers[0].offset()), ([2; 4], (1.0, 2.0)));
        assert_eq!((layers[1].color(), layers[1].offset()), ([1; 4], (0.0, 0.0)));
        for l in &layers {
            assert_eq!(l.failure(), Some(&GlyphError::UnknownFont(b)));
            assert!(l.font_for(a).is_ok());
            assert_eq!(l.font_for(FontId(7)), Err(GlyphError::UnknownFont(FontId(7))));
        }
        let fine = EffectLayer::all(&effects, [a], |_, _| Ok(FontId(3))).unwrap();
        assert!(fine.iter().all(|l| l.failure().is_none()));
        assert!(EffectLayer::all(&Effects::default(), [a], |_, _| Ok(a)).unwrap().is_empty());
    }
}
