// The glyphon side of the corpus, written once against glyphon 0.12's API
// and included twice by sides.rs: with `api` glyphon itself and with `api`
// kerf-glyphon (the same code, the dependency swapped). No `//!` here: the
// file is `include!`d into a module.

/// glyphon's objects: one atlas, `renderers` text renderers on it, a viewport.
pub struct GlyphonSide {
    atlas: api::TextAtlas,
    renderers: Vec<api::TextRenderer>,
    viewport: api::Viewport,
    swash: api::SwashCache,
}

impl GlyphonSide {
    /// The side for a `size` target with `renderers` renderers, each with
    /// its default settings, as glyphon's docs make them.
    pub fn new(
        device: &wgpu::Device, queue: &wgpu::Queue, size: (u32, u32), renderers: usize,
    ) -> GlyphonSide {
        let cache = api::Cache::new(device);
        let mut atlas = api::TextAtlas::new(device, queue, &cache, super::FORMAT);
        let ms = wgpu::MultisampleState::default();
        let renderers =
            (0..renderers).map(|_| api::TextRenderer::new(&mut atlas, device, ms, None)).collect();
        let mut viewport = api::Viewport::new(device, &cache);
        viewport.update(queue, api::Resolution { width: size.0, height: size.1 });
        GlyphonSide { atlas, renderers, viewport, swash: api::SwashCache::new() }
    }

    /// Prepares each renderer's areas (its `TextArea` per buffer, with the
    /// area's offset, scale, colour and clip; rotation is not glyphon's).
    pub fn prepare(
        &mut self, device: &wgpu::Device, queue: &wgpu::Queue, fs: &mut api::FontSystem,
        areas: &[super::Area<'_>], size: (u32, u32),
    ) -> Result<(), String> {
        for (r, renderer) in self.renderers.iter_mut().enumerate() {
            let text = areas.iter().filter(|a| a.renderer == r).map(|a| {
                let [cr, cg, cb, ca] = a.color;
                let [left, top, right, bottom] = a.clip_on(size);
                api::TextArea {
                    buffer: a.buffer,
                    left: a.left,
                    top: a.top,
                    scale: a.scale,
                    bounds: api::TextBounds { left, top, right, bottom },
                    default_color: api::Color::rgba(cr, cg, cb, ca),
                    custom_glyphs: &[],
                }
            });
            renderer
                .prepare(device, queue, fs, &mut self.atlas, &self.viewport, text, &mut self.swash)
                .map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    /// Records every renderer's draw into `pass`.
    pub fn render(&self, pass: &mut wgpu::RenderPass<'_>) -> Result<(), String> {
        for renderer in &self.renderers {
            renderer.render(&self.atlas, &self.viewport, pass).map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    /// After the submit: the atlas trimmed, as glyphon asks.
    pub fn trim(&mut self) {
        self.atlas.trim();
    }
}
