//! TextRenderer: turns text areas into glyph instances and draws them
//! (`prepare` in three phases: check, collect, upload; then `render`).

use crate::atlas::textures::TextAtlas;
use crate::correction::TextCorrection;
use crate::draw::fit::CurveKey;
use crate::draw::pipeline::PipelineKey;
use crate::draw::vertex::GlyphInstance;
use crate::draw::vertex::{SampledQuad, TransformUniform};
use crate::lcd_settings::{Antialiasing, GrayscaleReason};
use crate::outline::{OutlinePolicy, OutlineQuad};
use crate::prepare::area_runs::{AreaRun, AreaRuns};
use crate::prepare::draw_order::DrawOrder;
use crate::prepare::held::HeldQuads;
use crate::prepare::sampled::Transformed;
use crate::prepare::zoom::{ZoomPolicy, ZoomTracker};
mod prepare;
pub(crate) mod render;
mod report;

pub use report::{PrepareReport, RendererFootprint};

use kerf_cache::{GlyphQuad, PositionedGlyph};

/// Draws text into a render pass. One renderer per pass configuration; many
/// renderers may share one [`TextAtlas`].
pub struct TextRenderer {
    pub(crate) pipeline: crate::draw::pipeline::MadePipeline,
    pub(crate) buffer: wgpu::Buffer,
    pub(crate) capacity: u64,
    /// The instances being built by `prepare`.
    pub(crate) quads: Vec<GlyphQuad>,
    /// The instances the instance buffer holds (the last `prepare`'s).
    pub(crate) uploaded: Vec<GlyphInstance>,
    /// Whether `uploaded` is in the order its areas made the quads (no
    /// colour quads moved last).
    pub(crate) uploaded_in_order: bool,
    /// Last `prepare`'s quads, for the areas drawn as then.
    pub(crate) held: HeldQuads,
    pub(crate) scratch: Vec<PositionedGlyph>,
    /// Per area: its glyphs' run kept from frame to frame, so an area drawn
    /// as an earlier frame drew it reuses its quads
    /// ([`kerf_cache::RetainedRun`]), and how its quads were placed.
    pub(crate) areas: AreaRuns,
    pub(crate) count: u32,
    pub(crate) atlas_id: u64,
    pub(crate) viewport: Option<wgpu::BindGroup>,
    pub(crate) key: PipelineKey,
    pub(crate) transformed: Transformed,
    /// The viewport size at the last prepare (the target a scissor is reset to).
    pub(crate) target_size: Option<(u32, u32)>,
    /// The anti-aliasing asked for, and the LCD pipeline when it is LCD and
    /// the device can blend per channel.
    pub(crate) antialiasing: Antialiasing,
    pub(crate) lcd_pipeline: Option<crate::draw::pipeline::MadePipeline>,
    /// The pipeline for colour quads, made when a `prepare` first has one.
    pub(crate) color_pipeline: Option<crate::draw::pipeline::MadePipeline>,
    /// The instances' draw order: runs of one kind.
    pub(crate) order: DrawOrder,
    /// The correction the pipelines were built for (a viewport's
    /// polynomials, or its tables), switched in `prepare` when a viewport
    /// has another.
    pub(crate) curve: CurveKey,
    /// Which glyphs are drawn from their outlines; whether the atlas hints
    /// (upright glyphs stay bitmaps) and its device can draw outlines.
    pub(crate) outline_policy: OutlinePolicy,
    pub(crate) hinted: bool,
    pub(crate) outlines_available: bool,
    /// How areas whose size moves are drawn, and their sizes last time.
    pub(crate) zoom: ZoomPolicy,
    pub(crate) zoom_sizes: ZoomTracker,
    /// The device is a software adapter (wgpu's `DeviceType::Cpu`): its
    /// fragments run on the CPU ([`ZoomPolicy::Auto`]).
    pub(crate) software: bool,
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
    /// depth-stencil state (pipelines are cached per atlas by that triple),
    /// writing colours in the target's space ([`PipelineKey::new`]).
    pub fn new(
        device: &wgpu::Device, atlas: &TextAtlas, format: wgpu::TextureFormat,
        multisample: wgpu::MultisampleState, depth_stencil: Option<wgpu::DepthStencilState>,
    ) -> TextRenderer {
        TextRenderer::with_key(device, atlas, PipelineKey::new(format, multisample, depth_stencil))
    }

    /// A renderer for passes as `key` describes them, with the colour space
    /// it says ([`PipelineKey::linear_light`]: glyphon's `ColorMode::Web`
    /// draws on an sRGB target with it false).
    pub fn with_key(device: &wgpu::Device, atlas: &TextAtlas, key: PipelineKey) -> TextRenderer {
        // Built for the default correction; `prepare` switches for a
        // viewport with another.
        let curve = crate::draw::fit::curve_key(TextCorrection::DEFAULT);
        let pipeline = atlas.shared.pipeline(device, &key, &curve);
        let capacity = 1024;
        TextRenderer {
            pipeline,
            buffer: instance_buffer(device, capacity),
            capacity,
            quads: Vec::new(),
            uploaded: Vec::new(),
            uploaded_in_order: true,
            held: HeldQuads::default(),
            scratch: Vec::new(),
            areas: AreaRuns::default(),
            count: 0,
            atlas_id: atlas.id,
            viewport: None,
            key,
            transformed: Transformed::default(),
            target_size: None,
            antialiasing: Antialiasing::Grayscale,
            zoom: ZoomPolicy::default(),
            zoom_sizes: ZoomTracker::default(),
            software: device.adapter_info().device_type == wgpu::DeviceType::Cpu,
            lcd_pipeline: None,
            color_pipeline: None,
            order: DrawOrder::default(),
            curve,
            outline_policy: OutlinePolicy::default(),
            hinted: atlas.hinted,
            outlines_available: atlas.shared.outlines,
        }
    }

    /// Waits until this renderer's glyph pipeline is made. [`new`](Self::new)
    /// starts compiling it on a thread of its own, so that the app goes on
    /// (shaping, the first [`prepare`](Self::prepare)'s rasterizing) while
    /// the driver compiles; [`render`](Self::render) waits for it anyway.
    /// Call this where a wait costs nothing, a loading screen say, to keep
    /// the compile out of the first frame entirely.
    pub fn wait_for_pipeline(&self) {
        self.pipeline.get();
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
                atlas.shared.lcd_pipeline(device, &self.key, order.is_bgr(), &self.curve)
            }
        };
        self.lcd_unavailable()
    }

    /// How areas whose size changes from one `prepare` to the next are drawn
    /// (default [`ZoomPolicy::Auto`]: from cached size steps while the size
    /// moves, exactly once it rests; on a software adapter, text whose
    /// glyphs repeat exactly at every size). An area zooms when it shows the same
    /// content (string and font, glyph ids, images) as the area at its index
    /// in the last `prepare` call, at another size; other content there (a
    /// scrolled list, a new string) is drawn exactly. A transformed area's
    /// size is its on-screen size (its scale times the transform's largest
    /// stretch): a label scaled by its transform every frame zooms, one that
    /// only turns does not.
    pub fn set_zoom_policy(&mut self, policy: ZoomPolicy) {
        self.zoom = policy;
    }

    /// The zoom policy ([`set_zoom_policy`](Self::set_zoom_policy)).
    pub fn zoom_policy(&self) -> ZoomPolicy {
        self.zoom
    }

    /// The anti-aliasing asked for with [`set_antialiasing`](Self::set_antialiasing).
    pub fn antialiasing(&self) -> Antialiasing {
        self.antialiasing
    }

    /// Why LCD text cannot be drawn at all, when it is asked for.
    pub(crate) fn lcd_unavailable(&self) -> Option<GrayscaleReason> {
        match (self.antialiasing, &self.lcd_pipeline) {
            (Antialiasing::Lcd(_), None) => Some(GrayscaleReason::NoDualSourceBlending),
            _ => None,
        }
    }

    /// Which glyphs are drawn from their outlines
    /// ([`OutlinePolicy::default`]: turned, skewed and projected text at
    /// every size, upright text from
    /// [`UPRIGHT_OUTLINE_PX`](crate::UPRIGHT_OUTLINE_PX) up).
    pub fn set_outline_policy(&mut self, policy: OutlinePolicy) {
        self.outline_policy = policy;
    }

    /// The outline policy set ([`set_outline_policy`](Self::set_outline_policy)).
    pub fn outline_policy(&self) -> OutlinePolicy {
        self.outline_policy
    }

    /// The quads of the transformed areas of the last `prepare`, in area order.
    pub fn transformed_instances(&self) -> &[SampledQuad] {
        &self.transformed.quads
    }

    /// The instances of the last `prepare` (for inspection and tests).
    pub fn instances(&self) -> &[GlyphInstance] {
        &self.uploaded
    }

    /// Bytes this renderer holds between frames: its GPU buffers (instances,
    /// transformed quads, area transforms, outline quads) and its CPU
    /// buffers (capacities). The outline store's buffer is the atlas's
    /// ([`TextAtlas::outline_gpu_bytes`]).
    /// Flat once a workload repeats; see [`kerf_cache::Footprint`] for the cache's.
    pub fn footprint(&self) -> RendererFootprint {
        let tr = &self.transformed;
        let uniforms = tr.uniform_buffer.as_ref().map_or(0, |(_, _, cap)| *cap);
        let cpu = self.quads.capacity() * std::mem::size_of::<GlyphQuad>()
            + self.uploaded.capacity() * std::mem::size_of::<GlyphInstance>()
            + self.scratch.capacity() * std::mem::size_of::<PositionedGlyph>()
            + (tr.quads.capacity() + tr.sent_quads.capacity()) * std::mem::size_of::<SampledQuad>()
            + tr.positions.capacity() * std::mem::size_of::<PositionedGlyph>()
            + (tr.uniforms.capacity() + tr.sent_uniforms.capacity())
                * std::mem::size_of::<TransformUniform>()
            + (tr.outline_quads.capacity() + tr.sent_outline_quads.capacity())
                * std::mem::size_of::<OutlineQuad>()
            + self.areas.runs.iter().map(AreaRun::heap_bytes).sum::<usize>()
            + self.held.heap_bytes();
        let outline_quads = tr.outline_buffer.as_ref().map_or(0, |(_, cap)| *cap);
        RendererFootprint {
            gpu_bytes: self.capacity
                + tr.buffer.as_ref().map_or(0, |(_, cap)| *cap)
                + uniforms
                + outline_quads,
            cpu_bytes: cpu,
            areas: self.areas.runs.len(),
        }
    }
}

pub(crate) fn instance_buffer(device: &wgpu::Device, size: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("kerf glyph instances"),
        size,
        usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prepare::area::TextArea;
    use crate::prepare::transform::TextTransform;
    use crate::viewport::Viewport;
    use kerf_cache::{CacheConfig, TextSpec};

    /// A renderer's CPU bytes are, by their definition in `footprint`'s
    /// docs, each of its buffers' capacity times its element's size, and
    /// its GPU bytes its buffers' sizes: checked after frames that fill
    /// every buffer (an upright area held from last time, a turned one).
    #[test]
    fn the_footprint_is_each_buffers_capacity_times_its_element() {
        let gpu = crate::headless().unwrap_or_else(|e| panic!("{e}"));
        let (device, queue) = (&gpu.device, &gpu.queue);
        let mut atlas = TextAtlas::new(device, CacheConfig::default()).unwrap();
        let font = atlas.add_font(dejavu::sans::regular().to_vec()).unwrap();
        let format = wgpu::TextureFormat::Rgba8Unorm;
        let mut r = TextRenderer::new(device, &atlas, format, Default::default(), None);
        let mut viewport = Viewport::new(device, &atlas);
        viewport.update(queue, 200, 100);
        let upright = TextSpec::new("Footprints of a renderer", font, 14.0);
        // (Its shadow from bitmaps, its glyphs from outlines.)
        let turned = TextSpec::new("turned", font, 20.0).shadow((1.0, 1.0), 0.0, [0, 0, 0, 255]);
        let mut shaped = Vec::new();
        let line = TextSpec::new("glyphs at a fraction", font, 12.0).at(0.0, 80.0);
        atlas.cache_mut().positions(&line, &mut shaped).unwrap();
        for _ in 0..4 {
            let areas = [
                TextArea::text(upright, 4.0, 20.0),
                // (At a fractional offset: placed through the scratch.)
                TextArea::glyphs(&shaped, 0.5, 0.25),
                TextArea::text(turned, 40.0, 60.0)
                    .transformed(TextTransform::rotation_about(0.4, 40.0, 60.0)),
            ];
            r.prepare(device, queue, &mut atlas, &areas, &viewport).unwrap();
            queue.submit([]);
        }
        let tr = &r.transformed;
        let terms = [
            r.quads.capacity() * std::mem::size_of::<GlyphQuad>(),
            r.uploaded.capacity() * std::mem::size_of::<GlyphInstance>(),
            r.scratch.capacity() * std::mem::size_of::<PositionedGlyph>(),
            (tr.quads.capacity() + tr.sent_quads.capacity()) * std::mem::size_of::<SampledQuad>(),
            tr.positions.capacity() * std::mem::size_of::<PositionedGlyph>(),
            (tr.uniforms.capacity() + tr.sent_uniforms.capacity())
                * std::mem::size_of::<TransformUniform>(),
            (tr.outline_quads.capacity() + tr.sent_outline_quads.capacity())
                * std::mem::size_of::<OutlineQuad>(),
            r.areas.runs.iter().map(AreaRun::heap_bytes).sum::<usize>(),
            r.held.heap_bytes(),
        ];
        for (i, t) in terms.iter().enumerate() {
            assert!(*t > 0, "term {i} is empty: the frames fill every buffer");
        }
        let f = r.footprint();
        assert_eq!(f.cpu_bytes, terms.iter().sum::<usize>());
        let uniforms = tr.uniform_buffer.as_ref().map(|(b, _, cap)| (b.size(), *cap));
        let (uniform_size, uniform_cap) = uniforms.expect("a turned area's transforms");
        assert_eq!(uniform_size, uniform_cap);
        let quads = tr.buffer.as_ref().expect("a turned area's shadow's quads").0.size();
        let outlines = tr.outline_buffer.as_ref().expect("a turned area's outline quads").0.size();
        assert_eq!(f.gpu_bytes, r.buffer.size() + quads + uniform_size + outlines);
        assert_eq!(f.areas, 3);
    }
}
