//! The draw stage: what `render` records into the app's render pass.

use super::TextRenderer;
use crate::atlas::textures::TextAtlas;
use crate::error::UsageError;
use crate::prepare::sampled::Kind;

impl TextRenderer {
    /// Records the draw of the prepared glyphs into `pass`: one instanced
    /// draw for the axis-aligned areas (one per run of coverage or colour
    /// quads), and the transformed areas' draws (consecutive areas share
    /// one: see [`TRANSFORMS_PER_DRAW`](crate::TRANSFORMS_PER_DRAW)).
    pub fn render(
        &self, atlas: &TextAtlas, pass: &mut wgpu::RenderPass<'_>,
    ) -> Result<(), UsageError> {
        let Some(viewport) = &self.viewport else { return Err(UsageError::NotPrepared) };
        if atlas.id != self.atlas_id {
            return Err(UsageError::AtlasMismatch);
        }
        let srgb = self.key.linear_light;
        match &self.lcd_pipeline {
            // The LCD stage handles every kind of quad itself.
            Some(lcd) => {
                draw_quads(pass, lcd.get(), atlas, srgb, viewport, &self.buffer, self.count)
            }
            None if self.count > 0 => {
                bind_quads(pass, atlas, srgb, viewport, &self.buffer);
                for (range, colour) in &self.order.runs {
                    let pipeline = if *colour {
                        self.color_pipeline.as_ref().map(|p| p.get())
                    } else {
                        Some(self.pipeline.get())
                    };
                    if let Some(p) = pipeline {
                        pass.set_pipeline(p);
                        pass.draw(0..4, range.clone());
                    }
                }
            }
            None => {}
        }
        let tr = &self.transformed;
        let Some((_, transforms, _)) = &tr.uniform_buffer else {
            return Ok(());
        };
        let mut bound: Option<Kind> = None;
        let mut block: Option<u32> = None;
        let outlines = atlas.outlines.bound.as_ref();
        for d in &tr.draws {
            let (range, scissor, kind) = (&d.quads, d.scissor, d.kind);
            let (pipeline, buffer) = match kind {
                Kind::Bordered => (&tr.bordered_pipeline, tr.buffer.as_ref().map(|b| &b.0)),
                Kind::Clamped => (&tr.pipeline, tr.buffer.as_ref().map(|b| &b.0)),
                Kind::Colour => (&tr.color_pipeline, tr.buffer.as_ref().map(|b| &b.0)),
                Kind::Outline => (&tr.outline_pipeline, tr.outline_buffer.as_ref().map(|b| &b.0)),
            };
            let (Some(pipeline), Some(buffer)) = (pipeline, buffer) else { continue };
            if !d.draws_anything() || (kind == Kind::Outline && outlines.is_none()) {
                continue;
            }
            if let Some([x, y, w, h]) = scissor {
                pass.set_scissor_rect(x, y, w, h);
            }
            if bound.is_none() {
                pass.set_bind_group(0, &atlas.sampled_bind_group, &[]);
                pass.set_bind_group(1, viewport, &[]);
            }
            if bound != Some(kind) {
                let was_outline = bound == Some(Kind::Outline);
                if bound.is_none() || was_outline || kind == Kind::Outline {
                    pass.set_vertex_buffer(0, buffer.slice(..));
                }
                if let (Kind::Outline, Some((_, group))) = (kind, outlines) {
                    pass.set_bind_group(3, group, &[]);
                }
                pass.set_pipeline(pipeline.get());
                bound = Some(kind);
            }
            if block != Some(d.uniform) {
                pass.set_bind_group(2, transforms, &[d.uniform]);
                block = Some(d.uniform);
            }
            pass.draw(0..4, range.clone());
            if let Some(full) = scissor.and(self.target_size) {
                pass.set_scissor_rect(0, 0, full.0, full.1);
            }
        }
        Ok(())
    }

    /// The draws [`render`](Self::render) records for the last `prepare`.
    pub(crate) fn draw_count(&self) -> u32 {
        // (The runs of one kind: none when there are no quads.)
        let runs = self.order.runs.len() as u32;
        let quads = if self.lcd_pipeline.is_some() { runs.min(1) } else { runs };
        quads + self.transformed.draws.iter().filter(|d| d.draws_anything()).count() as u32
    }
}

/// Records one instanced draw of `count` four-vertex quads (atlas at group
/// 0, its colour pages read as sRGB with `srgb`; viewport at group 1).
pub(crate) fn draw_quads(
    pass: &mut wgpu::RenderPass<'_>, pipeline: &wgpu::RenderPipeline, atlas: &TextAtlas,
    srgb: bool, viewport: &wgpu::BindGroup, buffer: &wgpu::Buffer, count: u32,
) {
    if count == 0 {
        return;
    }
    pass.set_pipeline(pipeline);
    bind_quads(pass, atlas, srgb, viewport, buffer);
    pass.draw(0..4, 0..count);
}

/// Binds what every quad pipeline reads: the atlas at group 0 (its colour
/// pages read as sRGB with `srgb`), the viewport at group 1, the instances.
/// The glyph, colour and LCD pipelines share one layout, so these stay
/// bound when the pipeline changes between draws.
fn bind_quads(
    pass: &mut wgpu::RenderPass<'_>, atlas: &TextAtlas, srgb: bool, viewport: &wgpu::BindGroup,
    buffer: &wgpu::Buffer,
) {
    pass.set_bind_group(0, if srgb { &atlas.srgb_bind_group } else { &atlas.bind_group }, &[]);
    pass.set_bind_group(1, viewport, &[]);
    pass.set_vertex_buffer(0, buffer.slice(..));
}
