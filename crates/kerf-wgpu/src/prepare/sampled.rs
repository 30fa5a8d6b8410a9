//! Quads drawn with filtering: the areas drawn through a transform, and the
//! glyphs of axis-aligned areas too large for the atlas even in tiles, drawn
//! from a smaller raster sampled up. Each area's transform is an entry of a
//! uniform array, and each quad names its area's: consecutive areas share a
//! draw (one per run of one kind of quad and one scissor rectangle, up to
//! [`TRANSFORMS_PER_DRAW`] areas), each block of transforms bound at a
//! dynamic offset.

use crate::atlas::textures::TextAtlas;
use crate::draw::fit::CurveKey;
use crate::draw::pipeline::{
    MadePipeline, PipelineKey, TRANSFORM_BLOCK_BYTES, TRANSFORM_UNIFORM_BYTES,
};
use crate::draw::vertex::write_changed;
use crate::draw::vertex::{SampledQuad, TransformUniform, BORDER_BIT, TRANSFORMS_PER_DRAW};
use crate::outline::OutlineQuad;
use crate::prepare::area::{Content, TextArea, TextContent};
use crate::prepare::draw_order::{is_colour, runs_of};
use crate::prepare::transform::{TextTransform, TRANSFORMED_RASTER_LIMIT_PX};
use crate::prepare::zoom::ZoomPolicy;
use kerf_cache::{
    Decoration, GlyphKey, GlyphSize, PositionedGlyph, PositionedImage, RenderMode, Skipped,
};

/// The transformed areas of the last `prepare`: their quads and transforms,
/// and the draws that cover them.
#[derive(Default)]
pub(crate) struct Transformed {
    /// The pipelines of coverage quads, clamped to their slot and bordered
    /// (see [`Kind`]), for the renderer's correction (the renderer drops
    /// them when its correction changes); each made when first drawn.
    pub(crate) pipeline: Option<MadePipeline>,
    pub(crate) bordered_pipeline: Option<MadePipeline>,
    /// The pipeline of colour quads, made when one is first drawn.
    pub(crate) color_pipeline: Option<MadePipeline>,
    pub(crate) quads: Vec<SampledQuad>,
    /// The quads' vertex buffer and its size in bytes.
    pub(crate) buffer: Option<(wgpu::Buffer, u64)>,
    /// One per run of quads of one [`Kind`] and one scissor rectangle, in
    /// area order, within a block of [`TRANSFORMS_PER_DRAW`] areas.
    pub(crate) draws: Vec<SampledDraw>,
    /// The areas' transforms, one after another.
    pub(crate) uniforms: Vec<TransformUniform>,
    pub(crate) uniform_buffer: Option<(wgpu::Buffer, wgpu::BindGroup, u64)>,
    pub(crate) positions: Vec<PositionedGlyph>,
    /// What `buffer` and the uniform buffer hold (empty for a buffer not
    /// written yet), for [`write_changed`].
    pub(crate) sent_quads: Vec<SampledQuad>,
    pub(crate) sent_uniforms: Vec<TransformUniform>,
    /// The outline path: its pipeline (for the renderer's correction), its
    /// quads ([`Kind::Outline`] draws index them), their buffer and what
    /// it holds.
    pub(crate) outline_pipeline: Option<MadePipeline>,
    pub(crate) outline_quads: Vec<OutlineQuad>,
    pub(crate) outline_buffer: Option<(wgpu::Buffer, u64)>,
    pub(crate) sent_outline_quads: Vec<OutlineQuad>,
}

/// One draw of transformed quads.
pub(crate) struct SampledDraw {
    /// The quads.
    pub(crate) quads: std::ops::Range<u32>,
    /// Their areas' block of transforms: its offset in the uniform buffer.
    pub(crate) uniform: u32,
    /// Their areas' scissor rectangle.
    pub(crate) scissor: Option<[u32; 4]>,
    /// Which pipeline draws them.
    pub(crate) kind: Kind,
}

impl SampledDraw {
    /// Whether the draw has quads and room to draw them: an empty scissor
    /// rectangle (bounds outside the target) draws nothing, and `render`
    /// records nothing for it.
    pub(crate) fn draws_anything(&self) -> bool {
        !self.quads.is_empty() && self.scissor.is_none_or(|[_, _, w, h]| w > 0 && h > 0)
    }
}

/// The three kinds of sampled quad, each drawn by a pipeline of its own (no
/// fragment branches on its quad's kind).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Coverage whose slot carries a border of zeros ([`BORDER_BIT`]: a
    /// glyph's sampled raster, drawn half a texel inside it): samples stay
    /// between the slot's texel centres by themselves.
    Bordered,
    /// Other coverage (tiles of a glyph larger than a page, which abut; a
    /// decoration's solid texel): samples clamped to the slot.
    Clamped,
    /// RGBA quads on colour pages.
    Colour,
    /// Glyphs drawn from their outlines: the range indexes
    /// [`Transformed::outline_quads`].
    Outline,
}

impl Kind {
    /// The kind of a quad on `page` (its page word, with its bits).
    fn of(page: u32) -> Kind {
        if is_colour(page) {
            Kind::Colour
        } else if page & BORDER_BIT != 0 {
            Kind::Bordered
        } else {
            Kind::Clamped
        }
    }
}

impl Transformed {
    /// Forgets the last `prepare`'s quads and draws (buffers are kept).
    pub(crate) fn clear(&mut self) {
        self.quads.clear();
        self.draws.clear();
        self.uniforms.clear();
        self.positions.clear();
        self.outline_quads.clear();
    }

    /// Quads of `lines` (area pixels) sampling the cache's solid texel: one
    /// texel, so every sample of the quad reads full coverage.
    pub(crate) fn push_decorations(
        &mut self, frame: &mut kerf_cache::Frame<'_>, lines: &[Decoration],
        skipped: &mut Vec<Skipped>,
    ) {
        if lines.is_empty() {
            return;
        }
        match frame.solid_texel() {
            Ok((page, x, y)) => self.quads.extend(lines.iter().map(|d| SampledQuad {
                pos: [d.x as f32, d.y as f32],
                size: [d.width as f32, d.height as f32],
                tex: [x, y],
                tex_size: [1, 1],
                page,
                color: d.color,
                transform: 0,
            })),
            Err(reason) => skipped.push(Skipped { index: usize::MAX, key: None, reason }),
        }
    }

    /// Draws the quads pushed since `first` (one area's) through `t`,
    /// scissored to `scissor`: each run of one kind continues the draw
    /// before it where that draw is of the same kind and scissor and binds
    /// the same block of transforms, else starts a draw.
    pub(crate) fn push_draw(
        &mut self, first: u32, first_outline: u32, t: &TextTransform, scissor: Option<[u32; 4]>,
    ) {
        let index = self.uniforms.len();
        self.uniforms.push(t.uniform());
        let per = TRANSFORMS_PER_DRAW as usize;
        let uniform = (index / per * TRANSFORM_BLOCK_BYTES as usize) as u32;
        for q in &mut self.quads[first as usize..] {
            q.transform = (index % per) as u32;
        }
        // Runs of one kind, in order: the painter's order of overlapping
        // quads is kept, and no fragment branches on its quad's kind.
        let kinds = self.quads[first as usize..].iter().map(|q| Kind::of(q.page));
        let draws = &mut self.draws;
        runs_of(kinds, first, |quads, kind| match draws.last_mut() {
            Some(d) if (d.kind, d.scissor, d.uniform) == (kind, scissor, uniform) => {
                d.quads.end = quads.end;
            }
            _ => draws.push(SampledDraw { quads, uniform, scissor, kind }),
        });
        // The glyphs drawn from outlines, over the area's bitmaps (effects
        // under them).
        let outlines = first_outline..self.outline_quads.len() as u32;
        if !outlines.is_empty() {
            for q in &mut self.outline_quads[outlines.start as usize..] {
                q.transform = (index % per) as u32;
            }
            match self.draws.last_mut() {
                Some(d)
                    if (d.kind, d.scissor, d.uniform) == (Kind::Outline, scissor, uniform)
                        && d.quads.end == outlines.start =>
                {
                    d.quads.end = outlines.end;
                }
                _ => self.draws.push(SampledDraw {
                    quads: outlines,
                    uniform,
                    scissor,
                    kind: Kind::Outline,
                }),
            }
        }
    }

    /// Writes the transformed areas' quads and transforms (one buffer write
    /// each), making the pipeline (for correction `curve`) and buffers on
    /// first use.
    pub(crate) fn upload(
        &mut self, device: &wgpu::Device, queue: &wgpu::Queue, atlas: &TextAtlas,
        key: &PipelineKey, curve: &CurveKey,
    ) {
        let tr = self;
        if tr.draws.is_empty() {
            return;
        }
        let has = |kind: Kind| tr.draws.iter().any(|d| d.kind == kind);
        if tr.pipeline.is_none() && has(Kind::Clamped) {
            tr.pipeline = Some(atlas.shared.sampled_pipeline(device, key, curve, false));
        }
        if tr.bordered_pipeline.is_none() && has(Kind::Bordered) {
            tr.bordered_pipeline = Some(atlas.shared.sampled_pipeline(device, key, curve, true));
        }
        if tr.color_pipeline.is_none() && has(Kind::Colour) {
            tr.color_pipeline = Some(atlas.shared.sampled_color_pipeline(device, key));
        }
        if tr.outline_pipeline.is_none() && has(Kind::Outline) {
            tr.outline_pipeline = atlas.shared.outline_pipeline(device, key, curve);
        }
        if !tr.outline_quads.is_empty() {
            let (slot, sent) = (&mut tr.outline_buffer, &mut tr.sent_outline_quads);
            write_quads(
                device,
                queue,
                "kerf outline glyph instances",
                slot,
                sent,
                &tr.outline_quads,
            );
        }
        let (slot, sent) = (&mut tr.buffer, &mut tr.sent_quads);
        write_quads(device, queue, "kerf transformed glyph instances", slot, sent, &tr.quads);
        // Whole blocks: the last block's binding reaches its end.
        let need = (tr.uniforms.len() as u64 * TRANSFORM_UNIFORM_BYTES)
            .next_multiple_of(TRANSFORM_BLOCK_BYTES);
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
                        size: wgpu::BufferSize::new(TRANSFORM_BLOCK_BYTES),
                    }),
                }],
            });
            tr.uniform_buffer = Some((buffer, bind_group, cap));
            tr.sent_uniforms.clear();
        }
        if let Some((buffer, _, _)) = &tr.uniform_buffer {
            write_changed(queue, buffer, &mut tr.sent_uniforms, &tr.uniforms, 0, |u| *u);
        }
    }
}

/// Writes `items` into the vertex buffer in `slot` (its size in bytes
/// beside it): those that changed since `sent`, all of them into a new
/// buffer (a power of two, at least 1 KiB) made when there is none or they
/// outgrow it.
fn write_quads<T: PartialEq + bytemuck::Pod>(
    device: &wgpu::Device, queue: &wgpu::Queue, label: &'static str,
    slot: &mut Option<(wgpu::Buffer, u64)>, sent: &mut Vec<T>, items: &[T],
) {
    let bytes = std::mem::size_of_val(items) as u64;
    if slot.as_ref().is_none_or(|(_, cap)| *cap < bytes) {
        let cap = bytes.max(1024).next_power_of_two();
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: cap,
            usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        *slot = Some((buffer, cap));
        sent.clear();
    }
    if let Some((buffer, _)) = slot {
        write_changed(queue, buffer, sent, items, 0, |q| *q);
    }
}

/// The raster size for a glyph of `px` area pixels drawn `raster` target
/// pixels per area pixel: its on-screen size, within the limit.
fn raster_px(px: f32, raster: Raster, max_px: f32) -> f32 {
    let px = match raster {
        Raster::Scale(s) => px * s,
        Raster::Steps(s, policy) => policy.step_px(px * s),
    };
    px.min(TRANSFORMED_RASTER_LIMIT_PX.min(max_px))
}

impl Raster {
    /// Target pixels per area pixel (before any size step).
    pub(crate) fn scale(&self) -> f32 {
        match *self {
            Raster::Scale(s) | Raster::Steps(s, _) => s,
        }
    }
}

/// The size a sampled glyph is rasterized at: its on-screen size (its size
/// times a transform's largest stretch), or, while an area zooms, the size
/// step nearest its on-screen size.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Raster {
    /// Size times this.
    Scale(f32),
    /// The step of a [`ZoomPolicy`] nearest the size times this.
    Steps(f32, ZoomPolicy),
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
        transform: 0,
    };
    if !e.is_blank() {
        // A glyph's sampled raster carries a border of zeros (not an image's,
        // not a tile's: tiles of one bitmap abut).
        let border = if key.mode == RenderMode::Sampled { BORDER_BIT } else { 0 };
        out.push(quad(e.x, e.y, e.width, e.height, e.page | border, 0.0, 0.0));
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

/// One item of a transformed area: a glyph or an image.
#[derive(Clone, Copy)]
pub(crate) enum Item<'a> {
    Glyph(&'a PositionedGlyph),
    Image(&'a PositionedImage),
}

impl Item<'_> {
    /// The item's size, pen and colour.
    fn place(&self) -> (f32, [f32; 2], [u8; 4]) {
        match self {
            Item::Glyph(g) => (g.size, [g.x, g.y], g.color),
            Item::Image(g) => (g.size, [g.x, g.y], g.color),
        }
    }
}

/// Looks up one glyph or image of a transformed area at its raster size and
/// appends its quads; a failed lookup is reported in `skipped`.
pub(crate) fn sampled(
    frame: &mut kerf_cache::Frame<'_>, item: Item<'_>, raster: Raster, max_px: f32,
    out: &mut Vec<SampledQuad>, index: usize, skipped: &mut Vec<Skipped>,
) {
    let (px, pen, color) = item.place();
    let r = raster_px(px, raster, max_px);
    let found = match item {
        Item::Glyph(g) => frame.sampled_glyph(g.font, g.glyph, r),
        Item::Image(g) => frame.image(g.source, g.id, r),
    };
    match found {
        Ok(e) => {
            let Some(size) = GlyphSize::from_px(r, max_px) else { return };
            let key = match item {
                Item::Glyph(g) => {
                    GlyphKey { mode: RenderMode::Sampled, ..GlyphKey::new(g.font, g.glyph, size) }
                }
                Item::Image(g) => GlyphKey::image(g.source, g.id, size),
            };
            push_sampled(frame, &key, &e, pen, size.px() / px, color, out);
        }
        Err(reason) => skipped.push(Skipped { index, key: None, reason }),
    }
}

/// Draws the glyphs (or images) of an axis-aligned area that the atlas could
/// not hold even in tiles: each from a raster small enough that its tiles
/// take at most a quarter of the atlas's texels, sampled up to its size
/// (appended to `tr` as quads in target pixels). What still fails is reported.
pub(crate) fn draw_oversized(
    frame: &mut kerf_cache::Frame<'_>, area: &TextArea<'_>, oversized: &[Skipped], max_px: f32,
    tr: &mut Transformed, skipped: &mut Vec<Skipped>,
) {
    // The raster scale at which `area_texels` of tiles take at most a
    // quarter of `atlas`'s texels.
    let scale = |atlas: &kerf_cache::pages::Atlas, area_texels: f64| {
        let texels = atlas.page_limit() as f64 * (atlas.page_side() as f64).powi(2);
        (texels / 4.0 / area_texels).sqrt().min(1.0) as f32
    };
    let mut laid_out = Vec::new();
    if let TextContent::Text(spec) = &area.content {
        // The same glyph sequence the layout's skipped indices count.
        let _ = frame.positions(&area.scaled(spec), &mut laid_out);
    }
    for sk in oversized {
        let kerf_cache::GlyphError::TooLarge { width, height, .. } = sk.reason else { continue };
        let area_texels = (width as f64 * height as f64).max(1.0);
        match &area.content.as_slices() {
            Content::Images(images) => {
                let Some(g) = images.get(sk.index) else { continue };
                let g = area.place_image(g);
                let set = if g.source.is_rgba() {
                    frame.cache().color_pages()
                } else {
                    Some(frame.cache().coverage_pages())
                };
                let Some(set) = set else { continue };
                let f = scale(set, area_texels);
                sampled(
                    frame,
                    Item::Image(&g),
                    Raster::Scale(f),
                    max_px,
                    &mut tr.quads,
                    sk.index,
                    skipped,
                );
            }
            content => {
                let g = match content {
                    Content::Glyphs(glyphs) => glyphs.get(sk.index).map(|g| area.place_glyph(g)),
                    _ => laid_out.get(sk.index).copied(),
                };
                let Some(g) = g else { continue };
                let f = scale(frame.cache().coverage_pages(), area_texels);
                sampled(
                    frame,
                    Item::Glyph(&g),
                    Raster::Scale(f),
                    max_px,
                    &mut tr.quads,
                    sk.index,
                    skipped,
                );
            }
        }
    }
}
