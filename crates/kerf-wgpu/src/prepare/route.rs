//! Which way a transformed area's glyphs are drawn: each glyph from its
//! outline where the renderer's outline policy says so and it has one, else
//! from a bitmap sampled with filtering (a fallback, reported); effect
//! layers always from bitmaps.

use crate::outline::{OutlinePolicy, OutlineQuad};
use crate::prepare::area::{scaled_effects, Content, TextArea};
use crate::prepare::sampled::{sampled, Item, Raster, Transformed};
use crate::prepare::transform::TextTransform;
use kerf_cache::curves::OutlineError;
use kerf_cache::{PositionedGlyph, Skipped};

/// How a transformed area's glyphs are drawn: the size of their bitmaps,
/// and whether they take outlines instead.
pub(crate) struct Route<'a> {
    /// The bitmaps' raster size.
    pub(crate) raster: Raster,
    /// Target pixels per area pixel along the transform's least stretched
    /// direction (for the outline quads' margin).
    pub(crate) min_stretch: f32,
    /// The renderer's policy (with outlines off where the device has none).
    pub(crate) policy: OutlinePolicy,
    /// The area's transform only scales and moves.
    pub(crate) upright: bool,
    /// The area's index, for the report.
    pub(crate) area: usize,
    /// For an area without a transform: the atlas's sub-pixel bins. Pens
    /// are snapped as the atlas path snaps them (x to a bin, y to a whole
    /// pixel), so text that grows past the outline size does not move.
    pub(crate) snap_bins: Option<u32>,
    /// Glyphs the policy sent to outlines that were drawn from bitmaps.
    pub(crate) fallbacks: &'a mut Vec<(usize, OutlineError)>,
}

impl Transformed {
    /// A transformed area's quads, each glyph looked up at its on-screen
    /// size, and their draw through `t`, scissored to `scissor`.
    pub(crate) fn collect(
        &mut self, frame: &mut kerf_cache::Frame<'_>, area: &TextArea<'_>, t: &TextTransform,
        scissor: Option<[u32; 4]>, skipped: &mut Vec<Skipped>, route: &mut Route<'_>,
    ) {
        let raster = route.raster;
        let first = self.quads.len() as u32;
        let first_outline = self.outline_quads.len() as u32;
        let max_px = frame.cache().config().max_glyph_px;
        match &area.content.as_slices() {
            Content::Text(spec) => {
                // Pens on the baseline; characters no font has are reported,
                // as for untransformed text. (Checked before: cannot fail.)
                let start = self.positions.len();
                let spec = area.scaled(spec);
                let _ = frame.lay_out_glyphs(&spec, &mut self.positions);
                let glyphs = self.positions.split_off(start);
                self.effect_layers(frame, &glyphs, &spec.effects, max_px, skipped, route);
                for (i, g) in glyphs.iter().enumerate() {
                    self.glyph(frame, g, max_px, i, skipped, route);
                }
                let lines = frame.text_decorations(&spec, &glyphs);
                self.push_decorations(frame, &lines, skipped);
                self.positions.extend(glyphs);
            }
            Content::Glyphs(glyphs) => {
                let placed: Vec<PositionedGlyph> =
                    glyphs.iter().map(|g| area.place_glyph(g)).collect();
                let effects = scaled_effects(&area.effects, area.scale);
                self.effect_layers(frame, &placed, &effects, max_px, skipped, route);
                for (i, g) in placed.iter().enumerate() {
                    self.glyph(frame, g, max_px, i, skipped, route);
                }
            }
            Content::Images(images) => {
                for (i, g) in images.iter().enumerate() {
                    let g = area.place_image(g);
                    sampled(frame, Item::Image(&g), raster, max_px, &mut self.quads, i, skipped);
                }
            }
        }
        if !area.decorations.is_empty() {
            self.push_decorations(frame, &area.placed_decorations(), skipped);
        }
        self.push_draw(first, first_outline, t, scissor);
    }

    /// The effect layers (outline, shadow) of `glyphs`, from bitmaps: their
    /// shapes grow by sizes in pixels. Reported once for the area when its
    /// glyphs take outlines.
    pub(crate) fn effect_layers(
        &mut self, frame: &mut kerf_cache::Frame<'_>, glyphs: &[PositionedGlyph],
        effects: &kerf_cache::Effects, max_px: f32, skipped: &mut Vec<Skipped>,
        route: &mut Route<'_>,
    ) {
        let raster = route.raster;
        let layers = frame.effect_layers(glyphs, effects, skipped);
        if let Some(g) = layers.first().and_then(|l| l.first()) {
            if route.policy.draws_outline(g.size * raster.scale(), route.upright) {
                route.fallbacks.push((route.area, OutlineError::Synthetic));
            }
        }
        for layer in layers {
            for (i, g) in layer.iter().enumerate() {
                sampled(frame, Item::Glyph(g), raster, max_px, &mut self.quads, i, skipped);
            }
        }
    }

    /// One glyph of a transformed area: from its outline where the route
    /// says so and it has one, else from a bitmap (a fallback reported).
    pub(crate) fn glyph(
        &mut self, frame: &mut kerf_cache::Frame<'_>, g: &PositionedGlyph, max_px: f32,
        index: usize, skipped: &mut Vec<Skipped>, route: &mut Route<'_>,
    ) {
        let raster = route.raster;
        let px = g.size * raster.scale();
        if route.policy.draws_outline(px, route.upright) && px.is_finite() && px > 0.0 {
            match frame.outline(g.font, g.glyph) {
                Ok(Some(slot)) => {
                    let pen = match route.snap_bins {
                        Some(bins) => {
                            let (whole, sub) = kerf_cache::rasterize::snap_subpixel(g.x, bins);
                            [whole as f32 + f32::from(sub) / 256.0, g.y.round()]
                        }
                        None => [g.x, g.y],
                    };
                    self.outline_quads.push(OutlineQuad {
                        pen,
                        // A target pixel of margin, in ems (along the least
                        // stretched direction): a pixel whose centre lies
                        // farther out reaches no ink (its footprint reaches
                        // at most √2/2 px from its centre).
                        scale: [g.size, 1.0 / (g.size * route.min_stretch.max(1e-6))],
                        bounds: slot.bounds,
                        record: slot.offset,
                        color: g.color,
                        transform: 0,
                        _pad: 0,
                    });
                    return;
                }
                Ok(None) => return,
                Err(e) => route.fallbacks.push((route.area, e)),
            }
        }
        sampled(frame, Item::Glyph(g), raster, max_px, &mut self.quads, index, skipped);
    }
}
