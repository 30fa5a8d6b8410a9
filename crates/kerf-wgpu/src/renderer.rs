//! TextRenderer: turns text areas into glyph instances and draws them.

use crate::atlas::TextAtlas;
use crate::correction::{CorrectionError, TextCorrection, VIEWPORT_UNIFORM_BYTES};
use crate::error::{PrepareError, RenderError};
use crate::lcd::{Antialiasing, GrayscaleReason};
use crate::pipeline::{PipelineKey, TRANSFORM_UNIFORM_BYTES};
use crate::transform::{SampledQuad, TextTransform, TRANSFORMED_RASTER_LIMIT_PX};
use kerf_cache::{
    GlyphKey, GlyphQuad, GlyphSize, PositionedGlyph, PositionedImage, RenderMode, Skipped,
    TextSpec, LCD_PAGE_BIT,
};

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
        f.debug_struct("Viewport")
            .field("size", &self.size)
            .field("correction", &self.correction)
            .finish()
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
    pub fn set_correction(
        &mut self, queue: &wgpu::Queue, correction: TextCorrection,
    ) -> Result<(), CorrectionError> {
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
        queue.write_buffer(
            &self.buffer,
            0,
            bytemuck::cast_slice(&uniform_data(self.size, self.correction)),
        );
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
    /// Glyph pixels outside these bounds are not drawn (target pixels; for
    /// a transformed area, a scissor rectangle on the target).
    pub bounds: TextBounds,
    /// A transform of the whole area (rotation, scale, skew, 3D), or `None`
    /// for axis-aligned text drawn texel for pixel. Transformed glyphs are
    /// rasterized at their on-screen size (up to
    /// [`TRANSFORMED_RASTER_LIMIT_PX`]) and sampled with filtering.
    pub transform: Option<TextTransform>,
    /// Whether the area's text is drawn over opaque pixels (true from every
    /// constructor). LCD anti-aliasing needs an opaque background, as the
    /// per-channel coverage cannot be stored in one alpha value: an area
    /// marked transparent is drawn in grayscale by an LCD renderer (see
    /// [`over_transparent`](Self::over_transparent)).
    pub opaque_background: bool,
}

impl<'a> TextArea<'a> {
    /// The same area marked as drawn over a transparent or translucent
    /// background: grayscale even with LCD anti-aliasing on.
    pub fn over_transparent(mut self) -> Self {
        self.opaque_background = false;
        self
    }

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
        TextArea {
            content: TextContent::Text(spec),
            left,
            top,
            scale: 1.0,
            bounds: TextBounds::default(),
            transform: None,
            opaque_background: true,
        }
    }

    /// The app's images offset by `(left, top)`, scale 1, no clipping.
    pub fn images(images: &'a [PositionedImage], left: f32, top: f32) -> Self {
        TextArea {
            content: TextContent::Images(images),
            left,
            top,
            scale: 1.0,
            bounds: TextBounds::default(),
            transform: None,
            opaque_background: true,
        }
    }

    /// The same area drawn through `transform`.
    pub fn transformed(mut self, transform: TextTransform) -> Self {
        self.transform = Some(transform);
        self
    }

    /// Positioned glyphs offset by `(left, top)`, scale 1, no clipping.
    pub fn glyphs(glyphs: &'a [PositionedGlyph], left: f32, top: f32) -> Self {
        TextArea {
            content: TextContent::Glyphs(glyphs),
            left,
            top,
            scale: 1.0,
            bounds: TextBounds::default(),
            transform: None,
            opaque_background: true,
        }
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
    /// Page writes made: scatter draws (per-glyph uploads) or `write_texture` calls (dirty rectangles), at most one per dirty page.
    pub upload_calls: u32,
    /// Bytes uploaded.
    pub upload_bytes: u64,
    /// Texture layers after this prepare.
    pub layers: u32,
    /// Glyphs that could not be drawn, and why (never a failed frame).
    pub skipped: Vec<Skipped>,
    /// Characters of the prepared strings that no font has (the spec's font
    /// and its fallback fonts, [`TextSpec::fallback`]): drawn as the font's
    /// missing-glyph box, reported here in text order.
    pub missing: Vec<char>,
    /// With LCD anti-aliasing asked for ([`TextRenderer::set_antialiasing`]):
    /// the areas (by index) drawn in grayscale instead, and why. Empty with
    /// grayscale anti-aliasing.
    pub lcd_fallbacks: Vec<(usize, GrayscaleReason)>,
}

/// Draws text into a render pass. One renderer per pass configuration; many
/// renderers may share one [`TextAtlas`].
pub struct TextRenderer {
    pipeline: wgpu::RenderPipeline,
    buffer: wgpu::Buffer,
    capacity: u64,
    /// The instances being built by `prepare`.
    quads: Vec<GlyphQuad>,
    /// The instances the instance buffer holds (the last `prepare`'s).
    uploaded: Vec<GlyphQuad>,
    scratch: Vec<PositionedGlyph>,
    count: u32,
    atlas_id: u64,
    viewport: Option<wgpu::BindGroup>,
    key: PipelineKey,
    transformed: Transformed,
    /// The viewport size at the last prepare (the target a scissor is reset to).
    target_size: Option<(u32, u32)>,
    /// The anti-aliasing asked for, and the LCD pipeline when it is LCD and
    /// the device can blend per channel.
    antialiasing: Antialiasing,
    lcd_pipeline: Option<wgpu::RenderPipeline>,
}

/// The transformed areas of the last `prepare`: their quads, one draw each.
#[derive(Default)]
struct Transformed {
    pipeline: Option<wgpu::RenderPipeline>,
    quads: Vec<SampledQuad>,
    buffer: Option<wgpu::Buffer>,
    capacity: u64,
    /// One per transformed area: its quads, its uniform's offset, its scissor.
    draws: Vec<(std::ops::Range<u32>, u32, Option<[u32; 4]>)>,
    uniforms: Vec<u8>,
    /// Bytes between two areas' transforms: the uniform, rounded up to the
    /// device's dynamic-offset alignment.
    uniform_stride: usize,
    uniform_buffer: Option<(wgpu::Buffer, wgpu::BindGroup, u64)>,
    positions: Vec<PositionedGlyph>,
}

impl Transformed {
    /// One draw of the quads pushed since `first`, through `t`, scissored to `scissor`.
    fn push_draw(&mut self, first: u32, t: &TextTransform, scissor: Option<[u32; 4]>) {
        let offset = self.uniforms.len();
        self.uniforms.extend_from_slice(bytemuck::cast_slice(&t.uniform()));
        self.uniforms.resize(offset + self.uniform_stride, 0);
        self.draws.push((first..self.quads.len() as u32, offset as u32, scissor));
    }
}

impl std::fmt::Debug for TextRenderer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TextRenderer")
            .field("instances", &self.count)
            .field("capacity", &self.capacity)
            .finish()
    }
}

impl TextRenderer {
    /// A renderer for passes with this colour format, multisample state and
    /// depth-stencil state (pipelines are cached per atlas by that triple).
    pub fn new(
        device: &wgpu::Device, atlas: &TextAtlas, format: wgpu::TextureFormat,
        multisample: wgpu::MultisampleState, depth_stencil: Option<wgpu::DepthStencilState>,
    ) -> TextRenderer {
        let key = PipelineKey { format, multisample, depth_stencil };
        let pipeline = atlas.shared.pipeline(device, &key);
        let capacity = 1024;
        TextRenderer {
            pipeline,
            buffer: instance_buffer(device, capacity),
            capacity,
            quads: Vec::new(),
            uploaded: Vec::new(),
            scratch: Vec::new(),
            count: 0,
            atlas_id: atlas.id,
            viewport: None,
            key,
            transformed: Transformed {
                uniform_stride: (TRANSFORM_UNIFORM_BYTES as usize).next_multiple_of(
                    device.limits().min_uniform_buffer_offset_alignment.max(1) as usize,
                ),
                ..Transformed::default()
            },
            target_size: None,
            antialiasing: Antialiasing::Grayscale,
            lcd_pipeline: None,
        }
    }

    /// Sets how glyphs are anti-aliased: [`Antialiasing::Grayscale`] (the
    /// default) or [`Antialiasing::Lcd`] (sub-pixel: one coverage per colour
    /// stripe, blended per channel, for text over opaque pixels on a display
    /// with that stripe order). LCD needs [`wgpu::Features::DUAL_SOURCE_BLENDING`]
    /// on the device; without it the text is drawn in grayscale and the
    /// return value, like every [`PrepareReport::lcd_fallbacks`], says so.
    /// Returns `None` when the setting takes effect as asked.
    pub fn set_antialiasing(
        &mut self, device: &wgpu::Device, atlas: &TextAtlas, antialiasing: Antialiasing,
    ) -> Option<GrayscaleReason> {
        self.antialiasing = antialiasing;
        self.lcd_pipeline = match antialiasing {
            Antialiasing::Grayscale => None,
            Antialiasing::Lcd(order) => {
                atlas.shared.lcd_pipeline(device, &self.key, order.is_bgr())
            }
        };
        self.lcd_unavailable()
    }

    /// The anti-aliasing asked for with [`set_antialiasing`](Self::set_antialiasing).
    pub fn antialiasing(&self) -> Antialiasing {
        self.antialiasing
    }

    /// Why LCD text cannot be drawn at all, when it is asked for.
    fn lcd_unavailable(&self) -> Option<GrayscaleReason> {
        match (self.antialiasing, &self.lcd_pipeline) {
            (Antialiasing::Lcd(_), None) => Some(GrayscaleReason::NoDualSourceBlending),
            _ => None,
        }
    }

    /// Looks up (rasterizing and uploading misses) every glyph of `texts`,
    /// uploads at most one region per dirty atlas page, and fills the instance
    /// buffer. Invalid areas are refused before anything changes; glyphs that
    /// cannot be placed are skipped and reported, the rest is drawn.
    pub fn prepare(
        &mut self, device: &wgpu::Device, queue: &wgpu::Queue, atlas: &mut TextAtlas,
        texts: &[TextArea<'_>], viewport: &Viewport,
    ) -> Result<PrepareReport, PrepareError> {
        if atlas.id != self.atlas_id {
            return Err(PrepareError::AtlasMismatch);
        }
        for (i, area) in texts.iter().enumerate() {
            if !(area.scale.is_finite() && area.scale > 0.0) {
                return Err(PrepareError::Scale { area: i, scale: area.scale });
            }
            if area.transform.is_some_and(|t| !t.is_valid()) {
                return Err(PrepareError::Transform { area: i });
            }
            if let TextContent::Text(spec) = &area.content {
                atlas
                    .cache()
                    .check_text(&area.scaled(spec))
                    .map_err(|error| PrepareError::Area { area: i, error })?;
            }
        }
        self.quads.clear();
        let tr = &mut self.transformed;
        tr.quads.clear();
        tr.draws.clear();
        tr.uniforms.clear();
        tr.positions.clear();
        let max_px = atlas.cache().config().max_glyph_px;
        let mut transformed_skipped = Vec::new();
        let mut frame = atlas.cache_frame();
        let mut spans = Vec::with_capacity(texts.len());
        let mut lcd_fallbacks = Vec::new();
        let lcd_asked = matches!(self.antialiasing, Antialiasing::Lcd(_));
        let unavailable = self.lcd_unavailable();
        for (n, area) in texts.iter().enumerate() {
            let start = self.quads.len();
            let skips_before = frame.skipped().len();
            let s = area.scale;
            // LCD for this area, or why not.
            let fallback = match (&area.content, area.transform) {
                _ if !lcd_asked => None,
                (TextContent::Images(_), _) => None,
                (_, Some(_)) => Some(GrayscaleReason::Transformed),
                _ if unavailable.is_some() => unavailable,
                _ if !area.opaque_background => Some(GrayscaleReason::TransparentBackground),
                _ => None,
            };
            if let Some(reason) = fallback {
                lcd_fallbacks.push((n, reason));
            }
            let lcd = lcd_asked && fallback.is_none();
            if let Some(t) = area.transform {
                let tr = &mut self.transformed;
                let first = tr.quads.len() as u32;
                let place = |g: &PositionedGlyph| PositionedGlyph {
                    size: g.size * s,
                    x: area.left + g.x * s,
                    y: area.top + g.y * s,
                    ..*g
                };
                let raster = t.raster_scale();
                match &area.content {
                    TextContent::Text(spec) => {
                        // Pens on the baseline; characters no font has are
                        // reported, as for untransformed text. (Checked
                        // above: cannot fail.)
                        let start = tr.positions.len();
                        let _ = frame.lay_out_glyphs(&area.scaled(spec), &mut tr.positions);
                        for (i, g) in tr.positions[start..].iter().enumerate() {
                            sampled_glyph(
                                &mut frame,
                                g,
                                raster,
                                max_px,
                                &mut tr.quads,
                                i,
                                &mut transformed_skipped,
                            );
                        }
                    }
                    TextContent::Glyphs(glyphs) => {
                        for (i, g) in glyphs.iter().enumerate() {
                            sampled_glyph(
                                &mut frame,
                                &place(g),
                                raster,
                                max_px,
                                &mut tr.quads,
                                i,
                                &mut transformed_skipped,
                            );
                        }
                    }
                    TextContent::Images(images) => {
                        for (i, g) in images.iter().enumerate() {
                            let g = PositionedImage {
                                size: g.size * s,
                                x: area.left + g.x * s,
                                y: area.top + g.y * s,
                                ..*g
                            };
                            sampled_image(
                                &mut frame,
                                &g,
                                raster,
                                max_px,
                                &mut tr.quads,
                                i,
                                &mut transformed_skipped,
                            );
                        }
                    }
                }
                tr.push_draw(first, &t, scissor(&area.bounds, viewport.size()));
                spans.push((start, start, area.bounds));
                continue;
            }
            match &area.content {
                TextContent::Text(spec) => {
                    // Checked above with the same scaled spec: cannot fail.
                    let _ = if lcd {
                        frame.layout_lcd(&area.scaled(spec), &mut self.quads)
                    } else {
                        frame.layout(&area.scaled(spec), &mut self.quads)
                    };
                }
                TextContent::Glyphs(glyphs)
                    if s == 1.0 && area.left.fract() == 0.0 && area.top.fract() == 0.0 =>
                {
                    // Whole-pixel offset at scale 1: round(x + left) == round(x) + left,
                    // so the glyphs go to the cache as they are and the quads move after.
                    if lcd {
                        frame.prepare_lcd(glyphs, &mut self.quads);
                    } else {
                        frame.prepare(glyphs, &mut self.quads);
                    }
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
                        .map(|g| PositionedImage {
                            size: g.size * s,
                            x: area.left + g.x * s,
                            y: area.top + g.y * s,
                            ..*g
                        })
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
                    if lcd {
                        frame.prepare_lcd(&self.scratch, &mut self.quads);
                    } else {
                        frame.prepare(&self.scratch, &mut self.quads);
                    }
                }
            }
            // Glyphs too large for the whole atlas, even in tiles, are drawn
            // from a smaller raster, sampled up: never refused.
            let oversized = frame.take_skipped(skips_before, |s| {
                matches!(s.reason, kerf_cache::GlyphError::TooLarge { .. })
            });
            if !oversized.is_empty() {
                let tr = &mut self.transformed;
                let first = tr.quads.len() as u32;
                draw_oversized(&mut frame, area, &oversized, max_px, tr, &mut transformed_skipped);
                tr.push_draw(
                    first,
                    &TextTransform::Affine([1.0, 0.0, 0.0, 1.0, 0.0, 0.0]),
                    scissor(&area.bounds, viewport.size()),
                );
            }
            spans.push((start, self.quads.len(), area.bounds));
        }
        let mut out = frame.finish();
        out.skipped.extend(transformed_skipped);
        let (upload_calls, upload_bytes) = atlas.apply(device, queue, &out);
        self.upload_transformed(device, queue, atlas);
        if spans.iter().any(|(_, _, b)| *b != TextBounds::default()) {
            clip_all(&mut self.quads, &spans);
        }
        self.count = self.quads.len() as u32;
        let bytes = (self.quads.len() * std::mem::size_of::<GlyphInstance>()) as u64;
        if bytes > self.capacity {
            self.capacity = bytes.next_power_of_two();
            self.buffer = instance_buffer(device, self.capacity);
            self.uploaded.clear();
        }
        // Only the instances that differ from what the buffer holds are
        // written: none in a frame that draws what the last one drew.
        if let Some(changed) = changed_range(&self.uploaded, &self.quads) {
            let size = std::mem::size_of::<GlyphInstance>() as u64;
            queue.write_buffer(
                &self.buffer,
                changed.start as u64 * size,
                bytemuck::cast_slice(&self.quads[changed]),
            );
        }
        std::mem::swap(&mut self.quads, &mut self.uploaded);
        self.viewport = Some(viewport.bind_group.clone());
        self.target_size = Some(viewport.size());
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
            missing: out.missing,
            lcd_fallbacks,
        })
    }

    /// Writes the transformed areas' quads and transforms (one buffer write
    /// each), making the pipeline and buffers on first use.
    fn upload_transformed(
        &mut self, device: &wgpu::Device, queue: &wgpu::Queue, atlas: &TextAtlas,
    ) {
        let tr = &mut self.transformed;
        if tr.draws.is_empty() {
            return;
        }
        if tr.pipeline.is_none() {
            tr.pipeline = Some(atlas.shared.sampled_pipeline(device, &self.key));
        }
        let bytes = (tr.quads.len() * std::mem::size_of::<SampledQuad>()) as u64;
        if bytes > tr.capacity || tr.buffer.is_none() {
            tr.capacity = bytes.max(1024).next_power_of_two();
            tr.buffer = Some(device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("kerf transformed glyph instances"),
                size: tr.capacity,
                usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }));
        }
        if let (Some(buffer), false) = (&tr.buffer, tr.quads.is_empty()) {
            queue.write_buffer(buffer, 0, bytemuck::cast_slice(&tr.quads));
        }
        let need = tr.uniforms.len() as u64;
        if tr.uniform_buffer.as_ref().is_none_or(|(_, _, cap)| *cap < need) {
            let cap = need.next_power_of_two();
            let buffer = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("kerf area transforms"),
                size: cap,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("kerf area transforms bind group"),
                layout: &atlas.shared.transform_layout,
                entries: &[wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: &buffer,
                        offset: 0,
                        size: wgpu::BufferSize::new(TRANSFORM_UNIFORM_BYTES),
                    }),
                }],
            });
            tr.uniform_buffer = Some((buffer, bind_group, cap));
        }
        if let Some((buffer, _, _)) = &tr.uniform_buffer {
            queue.write_buffer(buffer, 0, &tr.uniforms);
        }
    }

    /// Records the draw of the prepared glyphs into `pass`: one instanced
    /// draw for the axis-aligned areas, one per transformed area.
    pub fn render(
        &self, atlas: &TextAtlas, pass: &mut wgpu::RenderPass<'_>,
    ) -> Result<(), RenderError> {
        let Some(viewport) = &self.viewport else { return Err(RenderError::NotPrepared) };
        if atlas.id != self.atlas_id {
            return Err(RenderError::AtlasMismatch);
        }
        draw_quads(
            pass,
            self.lcd_pipeline.as_ref().unwrap_or(&self.pipeline),
            atlas,
            viewport,
            &self.buffer,
            self.count,
        );
        let tr = &self.transformed;
        let (Some(pipeline), Some(buffer), Some((_, transforms, _))) =
            (&tr.pipeline, &tr.buffer, &tr.uniform_buffer)
        else {
            return Ok(());
        };
        if tr.draws.iter().all(|d| d.0.is_empty()) {
            return Ok(());
        }
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, &atlas.sampled_bind_group, &[]);
        pass.set_bind_group(1, viewport, &[]);
        pass.set_vertex_buffer(0, buffer.slice(..));
        for (range, offset, scissor) in &tr.draws {
            if range.is_empty() {
                continue;
            }
            if let Some([x, y, w, h]) = *scissor {
                if w == 0 || h == 0 {
                    continue;
                }
                pass.set_scissor_rect(x, y, w, h);
            }
            pass.set_bind_group(2, transforms, &[*offset]);
            pass.draw(0..4, range.clone());
            if let Some(full) = scissor.and(self.target_size) {
                pass.set_scissor_rect(0, 0, full.0, full.1);
            }
        }
        Ok(())
    }

    /// The quads of the transformed areas of the last `prepare`, in area order.
    pub fn transformed_instances(&self) -> &[SampledQuad] {
        &self.transformed.quads
    }

    /// The instances of the last `prepare` (for inspection and tests).
    pub fn instances(&self) -> &[GlyphInstance] {
        &self.uploaded
    }
}

/// The index range of `new` that differs from `old` (what the buffer holds),
/// `None` when nothing does (or `new` is empty).
fn changed_range(old: &[GlyphQuad], new: &[GlyphQuad]) -> Option<std::ops::Range<usize>> {
    let first = old.iter().zip(new).position(|(a, b)| a != b).unwrap_or(old.len().min(new.len()));
    if first == new.len() {
        return None;
    }
    let last = if old.len() == new.len() {
        new.len() - old.iter().rev().zip(new.iter().rev()).position(|(a, b)| a != b).unwrap_or(0)
    } else {
        new.len()
    };
    Some(first..last)
}

/// Records one instanced draw of `count` four-vertex quads (atlas at group 0, viewport at group 1).
pub(crate) fn draw_quads(
    pass: &mut wgpu::RenderPass<'_>, pipeline: &wgpu::RenderPipeline, atlas: &TextAtlas,
    viewport: &wgpu::BindGroup, buffer: &wgpu::Buffer, count: u32,
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
/// (An LCD quad has three texels per pixel across.)
fn clip(q: &GlyphQuad, b: &TextBounds) -> Option<GlyphQuad> {
    let per_px = if q.page & LCD_PAGE_BIT != 0 { 3 } else { 1 };
    let (x0, y0) = (q.x as i64, q.y as i64);
    let (x1, y1) = (x0 + (q.width / per_px) as i64, y0 + q.height as i64);
    let (cx0, cy0) = (x0.max(b.left as i64), y0.max(b.top as i64));
    let (cx1, cy1) = (x1.min(b.right as i64), y1.min(b.bottom as i64));
    if cx0 >= cx1 || cy0 >= cy1 {
        return None;
    }
    Some(GlyphQuad {
        x: cx0 as i32,
        y: cy0 as i32,
        tex_x: q.tex_x + (cx0 - x0) as u16 * per_px,
        tex_y: q.tex_y + (cy0 - y0) as u16,
        width: (cx1 - cx0) as u16 * per_px,
        height: (cy1 - cy0) as u16,
        ..*q
    })
}

/// The scissor rectangle `[x, y, w, h]` of an area's bounds on a target of
/// `size`; `None` when the bounds do not clip.
fn scissor(b: &TextBounds, size: (u32, u32)) -> Option<[u32; 4]> {
    if *b == TextBounds::default() {
        return None;
    }
    let x0 = b.left.clamp(0, size.0 as i32) as u32;
    let y0 = b.top.clamp(0, size.1 as i32) as u32;
    let x1 = b.right.clamp(0, size.0 as i32) as u32;
    let y1 = b.bottom.clamp(0, size.1 as i32) as u32;
    Some([x0, y0, x1.saturating_sub(x0), y1.saturating_sub(y0)])
}

/// The raster size for a glyph of `px` area pixels drawn `raster` target
/// pixels per area pixel: its on-screen size, within the limit.
fn raster_px(px: f32, raster: f32, max_px: f32) -> f32 {
    (px * raster).min(TRANSFORMED_RASTER_LIMIT_PX.min(max_px))
}

/// Appends the quads of one cached entry (its tiles, for a glyph larger than
/// a page) at `pen` in area pixels; `k` texels per area pixel.
fn push_sampled(
    frame: &kerf_cache::Frame<'_>, key: &GlyphKey, e: &kerf_cache::GlyphEntry, pen: [f32; 2],
    k: f32, color: [u8; 4], out: &mut Vec<SampledQuad>,
) {
    let (bx, by) = (pen[0] + e.left as f32 / k, pen[1] - e.top as f32 / k);
    let quad = |tx: u16, ty: u16, w: u16, h: u16, page: u32, dx: f32, dy: f32| SampledQuad {
        pos: [bx + dx / k, by + dy / k],
        size: [w as f32 / k, h as f32 / k],
        tex: [tx, ty],
        tex_size: [w, h],
        page,
        color,
    };
    if !e.is_blank() {
        out.push(quad(e.x, e.y, e.width, e.height, e.page, 0.0, 0.0));
    } else if let Some(tiles) = frame.cache().tiles(key) {
        // An RGBA image's tiles are on colour pages.
        let bit = if key.is_color() { kerf_cache::COLOR_PAGE_BIT } else { 0 };
        out.extend(tiles.iter().map(|t| {
            quad(
                t.entry.x,
                t.entry.y,
                t.entry.width,
                t.entry.height,
                t.entry.page | bit,
                t.dx as f32,
                t.dy as f32,
            )
        }));
    }
}

/// Looks up one glyph of a transformed area at its raster size and appends its quads.
fn sampled_glyph(
    frame: &mut kerf_cache::Frame<'_>, g: &PositionedGlyph, raster: f32, max_px: f32,
    out: &mut Vec<SampledQuad>, index: usize, skipped: &mut Vec<Skipped>,
) {
    let r = raster_px(g.size, raster, max_px);
    match frame.sampled_glyph(g.font, g.glyph, r) {
        Ok(e) => {
            let Some(size) = GlyphSize::from_px(r, max_px) else { return };
            let key =
                GlyphKey { mode: RenderMode::Sampled, ..GlyphKey::new(g.font, g.glyph, size) };
            push_sampled(frame, &key, &e, [g.x, g.y], size.px() / g.size, g.color, out);
        }
        Err(reason) => skipped.push(Skipped { index, key: None, reason }),
    }
}

/// Looks up one image of a transformed area at its raster size and appends its quads.
fn sampled_image(
    frame: &mut kerf_cache::Frame<'_>, g: &PositionedImage, raster: f32, max_px: f32,
    out: &mut Vec<SampledQuad>, index: usize, skipped: &mut Vec<Skipped>,
) {
    let r = raster_px(g.size, raster, max_px);
    match frame.image(g.source, g.id, r) {
        Ok(e) => {
            let Some(size) = GlyphSize::from_px(r, max_px) else { return };
            let key = GlyphKey::image(g.source, g.id, size);
            push_sampled(frame, &key, &e, [g.x, g.y], size.px() / g.size, g.color, out);
        }
        Err(reason) => skipped.push(Skipped { index, key: None, reason }),
    }
}

/// Draws the glyphs (or images) of an axis-aligned area that the atlas could
/// not hold even in tiles: each from a raster small enough that its tiles
/// take at most a quarter of the atlas's texels, sampled up to its size
/// (appended to `tr` as quads in target pixels). What still fails is reported.
fn draw_oversized(
    frame: &mut kerf_cache::Frame<'_>, area: &TextArea<'_>, oversized: &[Skipped], max_px: f32,
    tr: &mut Transformed, skipped: &mut Vec<Skipped>,
) {
    let s = area.scale;
    let place = |g: &PositionedGlyph| PositionedGlyph {
        size: g.size * s,
        x: area.left + g.x * s,
        y: area.top + g.y * s,
        ..*g
    };
    let budget =
        |atlas: &kerf_cache::Atlas| atlas.page_limit() as f64 * (atlas.page_side() as f64).powi(2);
    let mut laid_out = Vec::new();
    if let TextContent::Text(spec) = &area.content {
        // The same glyph sequence the layout's skipped indices count.
        let _ = frame.positions(&area.scaled(spec), &mut laid_out);
    }
    for sk in oversized {
        let kerf_cache::GlyphError::TooLarge { width, height, .. } = sk.reason else { continue };
        let area_texels = (width as f64 * height as f64).max(1.0);
        match &area.content {
            TextContent::Images(images) => {
                let Some(g) = images.get(sk.index) else { continue };
                let g = PositionedImage {
                    size: g.size * s,
                    x: area.left + g.x * s,
                    y: area.top + g.y * s,
                    ..*g
                };
                let set = if g.source.is_rgba() {
                    frame.cache().color_pages()
                } else {
                    Some(frame.cache().coverage_pages())
                };
                let Some(set) = set else { continue };
                let f = (budget(set) / 4.0 / area_texels).sqrt().min(1.0) as f32;
                sampled_image(frame, &g, f, max_px, &mut tr.quads, sk.index, skipped);
            }
            content => {
                let g = match content {
                    TextContent::Glyphs(glyphs) => glyphs.get(sk.index).map(place),
                    _ => laid_out.get(sk.index).copied(),
                };
                let Some(g) = g else { continue };
                let f = (budget(frame.cache().coverage_pages()) / 4.0 / area_texels).sqrt().min(1.0)
                    as f32;
                sampled_glyph(frame, &g, f, max_px, &mut tr.quads, sk.index, skipped);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_changed_instances_are_written() {
        let q = |x: i32| GlyphQuad { x, ..GlyphQuad::default() };
        let old: Vec<GlyphQuad> = (0..10).map(q).collect();
        assert_eq!(changed_range(&old, &old), None);
        assert_eq!(changed_range(&[], &old), Some(0..10));
        assert_eq!(changed_range(&old, &[]), None);
        assert_eq!(
            changed_range(&old, &old[..4]),
            None,
            "a shorter draw of the same prefix writes nothing"
        );
        let mut new = old.clone();
        new[3] = q(30);
        new[6] = q(60);
        assert_eq!(changed_range(&old, &new), Some(3..7));
        new.push(q(99));
        assert_eq!(changed_range(&old, &new), Some(3..11));
        assert_eq!(changed_range(&old[..5], &old), Some(5..10));
    }
}
