//! TextRenderer: turns text areas into glyph instances and draws them.

use crate::atlas::TextAtlas;
use crate::correction::{CorrectionError, TextCorrection, VIEWPORT_UNIFORM_BYTES};
use crate::error::{PrepareError, RenderError};
use crate::pipeline::PipelineKey;
use kerf_cache::{GlyphQuad, PositionedGlyph, PositionedImage, Skipped, TextSpec};

/// One glyph quad as the vertex shader reads it (one instance per glyph): the
/// cache's [`GlyphQuad`], uploaded as it is.
pub type GlyphInstance = GlyphQuad;

/// The target's size and text correction, as a uniform the shaders read.
pub struct Viewport {
    buffer: wgpu::Buffer,
    pub(crate) bind_group: wgpu::BindGroup,
    size: (u32, u32),
    correction: TextCorrection,
}

impl std::fmt::Debug for Viewport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Viewport").field("size", &self.size).field("correction", &self.correction).finish()
    }
}

impl Viewport {
    /// A viewport for renderers of `atlas`, initially 1×1 (call
    /// [`update`](Self::update)), with [`TextCorrection::DEFAULT`].
    pub fn new(device: &wgpu::Device, atlas: &TextAtlas) -> Viewport {
        // Written at creation, so a viewport drawn before `update` still has
        // a valid correction (and a 1×1 size).
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("kerf viewport uniforms"),
            size: VIEWPORT_UNIFORM_BYTES,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: true,
        });
        let initial = uniform_data((1, 1), TextCorrection::DEFAULT);
        if let Ok(mut view) = buffer.slice(..).get_mapped_range_mut() {
            view.copy_from_slice(bytemuck::cast_slice(&initial));
        }
        buffer.unmap();
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("kerf viewport bind group"),
            layout: &atlas.shared.viewport_layout,
            entries: &[wgpu::BindGroupEntry { binding: 0, resource: buffer.as_entire_binding() }],
        });
        Viewport { buffer, bind_group, size: (1, 1), correction: TextCorrection::DEFAULT }
    }

    /// Sets the target size in pixels (zero sides are treated as 1).
    pub fn update(&mut self, queue: &wgpu::Queue, width: u32, height: u32) {
        self.size = (width.max(1), height.max(1));
        self.write(queue);
    }

    /// Sets the gamma/contrast correction of text drawn to this target. A
    /// setting out of range is refused and changes nothing.
    pub fn set_correction(&mut self, queue: &wgpu::Queue, correction: TextCorrection) -> Result<(), CorrectionError> {
        correction.validate()?;
        self.correction = correction;
        self.write(queue);
        Ok(())
    }

    /// The text correction in use.
    pub fn correction(&self) -> TextCorrection {
        self.correction
    }

    fn write(&self, queue: &wgpu::Queue) {
        queue.write_buffer(&self.buffer, 0, bytemuck::cast_slice(&uniform_data(self.size, self.correction)));
    }

    /// The target size in pixels.
    pub fn size(&self) -> (u32, u32) {
        self.size
    }
}

/// The viewport uniform (common.wgsl's `Viewport`): size, depth, padding, gamma, contrast, padding.
fn uniform_data(size: (u32, u32), c: TextCorrection) -> [f32; 8] {
    [size.0 as f32, size.1 as f32, 0.0, 0.0, c.gamma, c.contrast, 0.0, 0.0]
}

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
    /// The app's own images (icons, rasterized SVG) from the atlas's image
    /// sources ([`TextAtlas::add_image_source`](crate::TextAtlas::add_image_source)),
    /// cached, evicted and re-requested like glyphs.
    Images(&'a [PositionedImage]),
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
    /// Glyph pixels outside these bounds are not drawn.
    pub bounds: TextBounds,
}

impl<'a> TextArea<'a> {
    /// `spec` placed in this area: offset by `left`/`top`, sizes and
    /// positions scaled by `scale`.
    fn scaled(&self, spec: &TextSpec<'a>) -> TextSpec<'a> {
        let s = self.scale;
        TextSpec {
            size: spec.size * s,
            x: self.left + spec.x * s,
            y: self.top + spec.y * s,
            max_width: spec.max_width.map(|w| w * s),
            ..*spec
        }
    }

    /// A laid-out string at `(left, top)`, scale 1, no clipping.
    pub fn text(spec: TextSpec<'a>, left: f32, top: f32) -> Self {
        TextArea { content: TextContent::Text(spec), left, top, scale: 1.0, bounds: TextBounds::default() }
    }

    /// The app's images offset by `(left, top)`, scale 1, no clipping.
    pub fn images(images: &'a [PositionedImage], left: f32, top: f32) -> Self {
        TextArea { content: TextContent::Images(images), left, top, scale: 1.0, bounds: TextBounds::default() }
    }

    /// Positioned glyphs offset by `(left, top)`, scale 1, no clipping.
    pub fn glyphs(glyphs: &'a [PositionedGlyph], left: f32, top: f32) -> Self {
        TextArea { content: TextContent::Glyphs(glyphs), left, top, scale: 1.0, bounds: TextBounds::default() }
    }
}

/// What one `prepare` did.
#[derive(Clone, Debug, Default)]
pub struct PrepareReport {
    /// The cache frame number.
    pub frame: u64,
    /// Glyph instances to draw.
    pub instances: u32,
    /// Glyph lookups, and how many hit the cache.
    pub lookups: u64,
    /// Lookups that found the glyph cached.
    pub hits: u64,
    /// Glyphs evicted to make room.
    pub evictions: u64,
    /// `write_texture` calls made (at most one per dirty page).
    pub upload_calls: u32,
    /// Bytes uploaded.
    pub upload_bytes: u64,
    /// Texture layers after this prepare.
    pub layers: u32,
    /// Glyphs that could not be drawn, and why (never a failed frame).
    pub skipped: Vec<Skipped>,
}

/// Draws text into a render pass. One renderer per pass configuration; many
/// renderers may share one [`TextAtlas`].
pub struct TextRenderer {
    pipeline: wgpu::RenderPipeline,
    buffer: wgpu::Buffer,
    capacity: u64,
    quads: Vec<GlyphQuad>,
    scratch: Vec<PositionedGlyph>,
    count: u32,
    atlas_id: u64,
    viewport: Option<wgpu::BindGroup>,
}

impl std::fmt::Debug for TextRenderer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TextRenderer").field("instances", &self.count).field("capacity", &self.capacity).finish()
    }
}

impl TextRenderer {
    /// A renderer for passes with this colour format, multisample state and
    /// depth-stencil state (pipelines are cached per atlas by that triple).
    pub fn new(
        device: &wgpu::Device,
        atlas: &TextAtlas,
        format: wgpu::TextureFormat,
        multisample: wgpu::MultisampleState,
        depth_stencil: Option<wgpu::DepthStencilState>,
    ) -> TextRenderer {
        let pipeline = atlas.shared.pipeline(device, &PipelineKey { format, multisample, depth_stencil });
        let capacity = 1024;
        TextRenderer {
            pipeline,
            buffer: instance_buffer(device, capacity),
            capacity,
            quads: Vec::new(),
            scratch: Vec::new(),
            count: 0,
            atlas_id: atlas.id,
            viewport: None,
        }
    }

    /// Looks up (rasterizing and uploading misses) every glyph of `texts`,
    /// uploads at most one region per dirty atlas page, and fills the instance
    /// buffer. Invalid areas are refused before anything changes; glyphs that
    /// cannot be placed are skipped and reported, the rest is drawn.
    pub fn prepare(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        atlas: &mut TextAtlas,
        texts: &[TextArea<'_>],
        viewport: &Viewport,
    ) -> Result<PrepareReport, PrepareError> {
        if atlas.id != self.atlas_id {
            return Err(PrepareError::AtlasMismatch);
        }
        for (i, area) in texts.iter().enumerate() {
            if !(area.scale.is_finite() && area.scale > 0.0) {
                return Err(PrepareError::Scale { area: i, scale: area.scale });
            }
            if let TextContent::Text(spec) = &area.content {
                atlas.cache().check_text(&area.scaled(spec)).map_err(|error| PrepareError::Area { area: i, error })?;
            }
        }
        self.quads.clear();
        let mut frame = atlas.cache_frame();
        let mut spans = Vec::with_capacity(texts.len());
        for area in texts {
            let start = self.quads.len();
            let s = area.scale;
            match &area.content {
                TextContent::Text(spec) => {
                    // Checked above with the same scaled spec: cannot fail.
                    let _ = frame.layout(&area.scaled(spec), &mut self.quads);
                }
                TextContent::Glyphs(glyphs) if s == 1.0 && area.left.fract() == 0.0 && area.top.fract() == 0.0 => {
                    // Whole-pixel offset at scale 1: round(x + left) == round(x) + left,
                    // so the glyphs go to the cache as they are and the quads move after.
                    frame.prepare(glyphs, &mut self.quads);
                    let (dx, dy) = (area.left as i32, area.top as i32);
                    if dx != 0 || dy != 0 {
                        for q in &mut self.quads[start..] {
                            q.x = q.x.saturating_add(dx);
                            q.y = q.y.saturating_add(dy);
                        }
                    }
                }
                TextContent::Images(images) => {
                    let placed: Vec<PositionedImage> = images
                        .iter()
                        .map(|g| PositionedImage { size: g.size * s, x: area.left + g.x * s, y: area.top + g.y * s, ..*g })
                        .collect();
                    frame.prepare_images(&placed, &mut self.quads);
                }
                TextContent::Glyphs(glyphs) => {
                    self.scratch.clear();
                    self.scratch.extend(glyphs.iter().map(|g| PositionedGlyph {
                        size: g.size * s,
                        x: area.left + g.x * s,
                        y: area.top + g.y * s,
                        ..*g
                    }));
                    frame.prepare(&self.scratch, &mut self.quads);
                }
            }
            spans.push((start, self.quads.len(), area.bounds));
        }
        let out = frame.finish();
        let (upload_calls, upload_bytes) = atlas.apply(device, queue, &out);
        if spans.iter().any(|(_, _, b)| *b != TextBounds::default()) {
            clip_all(&mut self.quads, &spans);
        }
        self.count = self.quads.len() as u32;
        let bytes = (self.quads.len() * std::mem::size_of::<GlyphInstance>()) as u64;
        if bytes > self.capacity {
            self.capacity = bytes.next_power_of_two();
            self.buffer = instance_buffer(device, self.capacity);
        }
        if !self.quads.is_empty() {
            queue.write_buffer(&self.buffer, 0, bytemuck::cast_slice(&self.quads));
        }
        self.viewport = Some(viewport.bind_group.clone());
        Ok(PrepareReport {
            frame: out.frame,
            instances: self.count,
            lookups: out.lookups,
            hits: out.hits,
            evictions: out.evictions,
            upload_calls,
            upload_bytes,
            layers: atlas.layers(),
            skipped: out.skipped,
        })
    }

    /// Records the draw of the prepared glyphs into `pass` (one instanced draw).
    pub fn render(&self, atlas: &TextAtlas, pass: &mut wgpu::RenderPass<'_>) -> Result<(), RenderError> {
        let Some(viewport) = &self.viewport else { return Err(RenderError::NotPrepared) };
        if atlas.id != self.atlas_id {
            return Err(RenderError::AtlasMismatch);
        }
        draw_quads(pass, &self.pipeline, atlas, viewport, &self.buffer, self.count);
        Ok(())
    }

    /// The instances of the last `prepare` (for inspection and tests).
    pub fn instances(&self) -> &[GlyphInstance] {
        &self.quads
    }
}

/// Records one instanced draw of `count` four-vertex quads (atlas at group 0, viewport at group 1).
pub(crate) fn draw_quads(
    pass: &mut wgpu::RenderPass<'_>,
    pipeline: &wgpu::RenderPipeline,
    atlas: &TextAtlas,
    viewport: &wgpu::BindGroup,
    buffer: &wgpu::Buffer,
    count: u32,
) {
    if count == 0 {
        return;
    }
    pass.set_pipeline(pipeline);
    pass.set_bind_group(0, &atlas.bind_group, &[]);
    pass.set_bind_group(1, viewport, &[]);
    pass.set_vertex_buffer(0, buffer.slice(..));
    pass.draw(0..4, 0..count);
}

fn instance_buffer(device: &wgpu::Device, size: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("kerf glyph instances"),
        size,
        usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// Cuts every area's quads to its bounds, in place, dropping those wholly outside.
fn clip_all(quads: &mut Vec<GlyphQuad>, spans: &[(usize, usize, TextBounds)]) {
    let mut w = 0;
    for &(start, end, b) in spans {
        for r in start..end {
            if let Some(q) = clip(&quads[r], &b) {
                quads[w] = q;
                w += 1;
            }
        }
    }
    quads.truncate(w);
}

/// The part of a quad inside `b`, with its texels cut to match.
fn clip(q: &GlyphQuad, b: &TextBounds) -> Option<GlyphQuad> {
    let (x0, y0) = (q.x as i64, q.y as i64);
    let (x1, y1) = (x0 + q.width as i64, y0 + q.height as i64);
    let (cx0, cy0) = (x0.max(b.left as i64), y0.max(b.top as i64));
    let (cx1, cy1) = (x1.min(b.right as i64), y1.min(b.bottom as i64));
    if cx0 >= cx1 || cy0 >= cy1 {
        return None;
    }
    Some(GlyphQuad {
        x: cx0 as i32,
        y: cy0 as i32,
        tex_x: q.tex_x + (cx0 - x0) as u16,
        tex_y: q.tex_y + (cy0 - y0) as u16,
        width: (cx1 - cx0) as u16,
        height: (cy1 - cy0) as u16,
        ..*q
    })
}
