//! TextRenderer: turns text areas into glyph instances and draws them
//! (`prepare` in three phases: check, collect, upload; then `render`).

use crate::area::{clip_from, scaled_effects, scissor, Content, TextArea, TextBounds, TextContent};
use crate::area_runs::{AreaRun, AreaRuns, AreaStamp, Placed};
use crate::correction::TextCorrection;
use crate::draw_order::DrawOrder;
use crate::error::PrepareError;
use crate::fit::CurveKey;
use crate::held::HeldQuads;
use crate::lcd_settings::{Antialiasing, GrayscaleReason};
use crate::outline::{area_px, is_upright, OutlinePolicy, OutlineQuad};
use crate::pipeline::PipelineKey;
use crate::sampled::{draw_oversized, Raster, Route, Transformed};
use crate::textures::TextAtlas;
use crate::transform::{SampledQuad, TextTransform, TransformUniform};
use crate::vertex::{write_changed, GlyphInstance};
use crate::viewport::Viewport;
use crate::zoom::{ZoomPolicy, ZoomTracker};
pub(crate) mod draw;
mod report;

pub use report::{PrepareReport, RendererFootprint};

use kerf_cache::{GlyphQuad, PositionedGlyph, PositionedImage, RetainedRun, Reuse, Skipped};

/// What the second phase of `prepare` gathers besides the quads.
#[derive(Default)]
struct Collected {
    /// Areas drawn in grayscale although LCD was asked for, and why.
    lcd_fallbacks: Vec<(usize, GrayscaleReason)>,
    /// Sampled glyphs that could not be drawn.
    skipped: Vec<Skipped>,
    /// Glyphs the outline policy sent to outlines drawn from bitmaps.
    outline_fallbacks: Vec<(usize, kerf_cache::curves::OutlineError)>,
}

/// Draws text into a render pass. One renderer per pass configuration; many
/// renderers may share one [`TextAtlas`].
pub struct TextRenderer {
    pipeline: crate::pipeline::MadePipeline,
    buffer: wgpu::Buffer,
    capacity: u64,
    /// The instances being built by `prepare`.
    quads: Vec<GlyphQuad>,
    /// The instances the instance buffer holds (the last `prepare`'s).
    uploaded: Vec<GlyphInstance>,
    /// Whether `uploaded` is in the order its areas made the quads (no
    /// colour quads moved last).
    uploaded_in_order: bool,
    /// Last `prepare`'s quads, for the areas drawn as then.
    held: HeldQuads,
    scratch: Vec<PositionedGlyph>,
    /// Per area: its glyphs' run kept from frame to frame, so an area drawn
    /// as an earlier frame drew it reuses its quads
    /// ([`kerf_cache::RetainedRun`]), and how its quads were placed.
    areas: AreaRuns,
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
    lcd_pipeline: Option<crate::pipeline::MadePipeline>,
    /// The pipeline for colour quads, made when a `prepare` first has one.
    color_pipeline: Option<crate::pipeline::MadePipeline>,
    /// The instances' draw order: runs of one kind.
    order: DrawOrder,
    /// The correction the pipelines were built for (a viewport's
    /// polynomials, or its tables), switched in `prepare` when a viewport
    /// has another.
    curve: CurveKey,
    /// Which glyphs are drawn from their outlines; whether the atlas hints
    /// (upright glyphs stay bitmaps) and its device can draw outlines.
    outline_policy: OutlinePolicy,
    hinted: bool,
    outlines_available: bool,
    /// How areas whose size moves are drawn, and their sizes last time.
    zoom: ZoomPolicy,
    zoom_sizes: ZoomTracker,
    /// The device is a software adapter (wgpu's `DeviceType::Cpu`): its
    /// fragments run on the CPU ([`ZoomPolicy::Auto`]).
    software: bool,
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
        let curve = crate::fit::curve_key(TextCorrection::DEFAULT);
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
    ///
    /// Three phases: the areas are checked (nothing changes on an error);
    /// each area's glyphs are looked up in one cache frame and collected as
    /// instances; the atlas's uploads and the instances are written.
    pub fn prepare(
        &mut self, device: &wgpu::Device, queue: &wgpu::Queue, atlas: &mut TextAtlas,
        texts: &[TextArea<'_>], viewport: &Viewport,
    ) -> Result<PrepareReport, PrepareError> {
        self.check(atlas, texts)?;
        if *viewport.curve() != self.curve {
            self.curve = *viewport.curve();
            self.pipeline = atlas.shared.pipeline(device, &self.key, &self.curve);
            // Made again for the new correction when next drawn.
            self.transformed.pipeline = None;
            self.transformed.bordered_pipeline = None;
            if let Antialiasing::Lcd(order) = self.antialiasing {
                self.lcd_pipeline =
                    atlas.shared.lcd_pipeline(device, &self.key, order.is_bgr(), &self.curve);
            }
        }
        // (The quads are emptied by `held.begin`, last time's kept.)
        self.transformed.clear();
        let mut collected = Collected::default();
        let mut frame = atlas.cache_frame();
        self.zoom_sizes.begin();
        // Every area at its index of last time, drawn from its record,
        // placed as last time: the instances are the last prepare's.
        let same_areas = self.areas.follow(texts);
        let mut repeated = same_areas;
        self.held.begin(&mut self.quads, same_areas, texts.len());
        for (n, area) in texts.iter().enumerate() {
            repeated &= self.collect(&mut frame, n, area, viewport.size(), &mut collected);
        }
        let in_place = self.held.end(&mut self.quads);
        self.zoom_sizes.end();
        let mut out = frame.finish();
        out.skipped.extend(collected.skipped);
        let (upload_calls, upload_bytes) = atlas.apply(device, queue, &out);
        let outline_upload_bytes = atlas.sync_outlines(device, queue);
        self.transformed.upload(device, queue, atlas, &self.key, &self.curve);
        if !repeated {
            self.upload_instances(device, queue, in_place);
        }
        if self.color_pipeline.is_none() && self.order.runs.iter().any(|r| r.1) {
            self.color_pipeline = Some(atlas.shared.color_pipeline(device, &self.key));
        }
        self.viewport = Some(viewport.bind_group.clone());
        self.target_size = Some(viewport.size());
        Ok(PrepareReport {
            frame: out.frame,
            instances: self.count,
            counts: out.counts,
            upload_calls,
            upload_bytes,
            layers: atlas.layers(),
            draws: self.draw_count(),
            skipped: out.skipped,
            missing: out.missing,
            lcd_fallbacks: collected.lcd_fallbacks,
            outlines: self.transformed.outline_quads.len() as u32,
            outline_fallbacks: collected.outline_fallbacks,
            outline_upload_bytes,
        })
    }

    /// The first phase of [`prepare`](Self::prepare): refuses an area the
    /// renderer cannot draw (another atlas, bad scale or transform, unknown
    /// font, invalid size) before anything changes.
    fn check(&self, atlas: &TextAtlas, texts: &[TextArea<'_>]) -> Result<(), PrepareError> {
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
            scaled_effects(&area.effects, area.scale)
                .layers()
                .map_err(|error| PrepareError::Effects { area: i, error })?;
        }
        Ok(())
    }

    /// Whether area `n` is drawn with LCD anti-aliasing; when LCD is asked
    /// for and this area cannot have it, why (recorded in `collected`).
    fn lcd_for(
        &self, n: usize, area: &TextArea<'_>, zooming: bool, collected: &mut Collected,
    ) -> bool {
        if !matches!(self.antialiasing, Antialiasing::Lcd(_)) {
            return false;
        }
        let unavailable = self.lcd_unavailable();
        let fallback = match (&area.content, area.transform) {
            (TextContent::Images(_), _) => None,
            (_, Some(_)) => Some(GrayscaleReason::Transformed),
            _ if zooming => Some(GrayscaleReason::Zooming),
            _ if unavailable.is_some() => unavailable,
            _ if !area.opaque_background => Some(GrayscaleReason::TransparentBackground),
            _ => None,
        };
        if let Some(reason) = fallback {
            collected.lcd_fallbacks.push((n, reason));
        }
        fallback.is_none()
    }

    /// The outline policy in force: the renderer's, with upright text on
    /// bitmaps for a hinting atlas, and no outlines on a device that cannot
    /// draw them.
    fn policy_in_force(&self) -> OutlinePolicy {
        let mut p = self.outline_policy;
        if self.hinted {
            p.upright_from_px = None;
        }
        if !self.outlines_available {
            p = OutlinePolicy::NEVER;
        }
        p
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

    /// The second phase, for area `n`: its glyphs looked up in `frame` and
    /// appended as instances (a transformed area's, and glyphs too large for
    /// the atlas, as sampled quads with a draw of their own). True when its
    /// quads are the ones it appended last time, placed the same way.
    fn collect(
        &mut self, frame: &mut kerf_cache::Frame<'_>, n: usize, area: &TextArea<'_>,
        target: (u32, u32), collected: &mut Collected,
    ) -> bool {
        let previous = self.areas.stamps[n].take();
        let moving = self.zoom_sizes.zooming(n, area);
        let zooming = moving && self.zoom_sizes.in_steps(n, area, self.zoom, self.software);
        let lcd = self.lcd_for(n, area, zooming, collected);
        let max_px = frame.cache().config().max_glyph_px;
        let policy = self.policy_in_force();
        let sampled = match area.transform {
            // A transformed area whose on-screen size moves (a label
            // scaling with the camera): its on-screen size's steps.
            Some(t) if zooming => Some((t, Raster::Steps(t.raster_scale(), self.zoom))),
            Some(t) => Some((t, Raster::Scale(t.raster_scale()))),
            // A zooming area: its size steps, sampled, in place.
            None if zooming => Some((TextTransform::IDENTITY, Raster::Steps(1.0, self.zoom))),
            // Large upright text: from outlines.
            None if !lcd && policy.draws_outline(area_px(area), true) => {
                Some((TextTransform::IDENTITY, Raster::Scale(1.0)))
            }
            None => None,
        };
        if let Some((t, raster)) = sampled {
            let skipped = &mut collected.skipped;
            let clip = scissor(&area.bounds, target);
            let mut route = Route {
                raster,
                policy,
                upright: area.transform.is_none_or(|t| is_upright(&t)),
                area: n,
                snap_bins: area.transform.is_none().then(|| frame.cache().config().subpixel_bins),
                fallbacks: &mut collected.outline_fallbacks,
            };
            self.transformed.collect(frame, area, &t, clip, skipped, &mut route);
            return false;
        }
        // Placed as last time, its quads last time's if its run's are:
        // held (copied from last time's quads) when they are.
        let held = previous
            .filter(|p| {
                self.held.has(n)
                    && area.decorations.is_empty()
                    && AreaStamp::of(area, lcd, p.generation) == *p
            })
            .map(|p| p.generation);
        if held.is_none() {
            self.held.flush(&mut self.quads);
        }
        let start = self.quads.len();
        let skips_before = frame.skipped().len();
        // A zoom drawn at its exact sizes: sizes that pass, so its misses
        // take room from glyphs gone unused before the atlas grows.
        frame.prefer_eviction(moving);
        let reused = self.collect_aligned(frame, n, area, lcd, held, &mut collected.skipped);
        frame.prefer_eviction(false);
        if reused.is_some_and(|(_, _, held)| held) {
            self.held.hold(n, &mut self.quads);
            self.areas.stamps[n] = previous;
            return true;
        }
        let start = self.held.settle(&mut self.quads, start);
        // Quads reused from a record that lies inside the bounds need no cut.
        let inside = reused.is_some_and(|([l, t, r, b], _, _)| {
            let c = &area.bounds;
            l >= c.left && t >= c.top && r <= c.right && b <= c.bottom
        });
        if !area.decorations.is_empty() {
            if let Err(reason) = frame.decorations(&area.placed_decorations(), &mut self.quads) {
                collected.skipped.push(Skipped { index: usize::MAX, key: None, reason });
            }
        }
        // Glyphs too large for the whole atlas, even in tiles, are drawn
        // from a smaller raster, sampled up: never refused.
        let oversized = frame.take_skipped(skips_before, |s| {
            matches!(s.reason, kerf_cache::GlyphError::TooLarge { .. })
        });
        if !oversized.is_empty() {
            let tr = &mut self.transformed;
            let (first, first_outline) = (tr.quads.len() as u32, tr.outline_quads.len() as u32);
            draw_oversized(frame, area, &oversized, max_px, tr, &mut collected.skipped);
            tr.push_draw(
                first,
                first_outline,
                &TextTransform::IDENTITY,
                scissor(&area.bounds, target),
            );
        }
        if area.bounds != TextBounds::default() && !(inside && area.decorations.is_empty()) {
            clip_from(&mut self.quads, start, &area.bounds);
        }
        let Some((_, generation, _)) = reused.filter(|_| area.decorations.is_empty()) else {
            return false;
        };
        let stamp = AreaStamp::of(area, lcd, generation);
        self.areas.stamps[n] = Some(stamp);
        self.held.stamped(n, start..self.quads.len());
        previous == Some(stamp)
    }

    /// An axis-aligned area's quads, texel for pixel, appended to `self.quads`
    /// (area `n`'s glyphs through its retained run). When the run's recorded
    /// quads were reused: the box they cover where they were appended, the
    /// run's generation (`RetainedRun::generation`), and whether they are
    /// the ones it appended last time in the generation `held`: then
    /// nothing was appended ([`Reuse::Held`]).
    fn collect_aligned(
        &mut self, frame: &mut kerf_cache::Frame<'_>, n: usize, area: &TextArea<'_>, lcd: bool,
        held: Option<u64>, skipped: &mut Vec<Skipped>,
    ) -> Option<([i32; 4], u64, bool)> {
        let quads = &mut self.quads;
        let start = quads.len();
        // Whole-pixel offset at scale 1: round(x + left) == round(x) + left,
        // so the glyphs go to the cache as they are and the quads move after.
        let whole = area.scale == 1.0 && area.left.fract() == 0.0 && area.top.fract() == 0.0;
        let (dx, dy) = if whole { (area.left as i32, area.top as i32) } else { (0, 0) };
        let moved = |quads: &mut [GlyphQuad]| {
            if dx != 0 || dy != 0 {
                for q in quads {
                    q.x = q.x.saturating_add(dx);
                    q.y = q.y.saturating_add(dy);
                }
            }
        };
        // The box a reused run's quads cover, moved with them.
        let extent = |run: &RetainedRun, reuse: Reuse| {
            let [l, t, r, b] = run.extent();
            let moved = [
                l.saturating_add(dx),
                t.saturating_add(dy),
                r.saturating_add(dx),
                b.saturating_add(dy),
            ];
            (reuse != Reuse::LookedUp).then_some((moved, run.generation(), reuse == Reuse::Held))
        };
        // A run: known again without reading it (not even its glyphs'
        // place) when it comes as the area last placed it; at a whole-pixel
        // offset and scale 1 as it is, else placed by the area (the first
        // time at a place, as a slice is).
        if let TextContent::Run(r) = area.content {
            if area.effects.is_empty() {
                let AreaRun { run, placed } = &mut self.areas.runs[n];
                let glyphs = match whole {
                    true => Some(r),
                    false => Placed::glyphs(placed, r, area),
                };
                if let Some(glyphs) = glyphs {
                    let reuse = frame.prepare_run_held(glyphs, lcd, quads, run, held);
                    moved(&mut quads[start..]);
                    return extent(run, reuse);
                }
            }
        }
        match &area.content.as_slices() {
            Content::Text(spec) => {
                // Checked in the first phase with the same scaled spec: cannot fail.
                let _ = if lcd {
                    frame.layout_lcd(&area.scaled(spec), quads)
                } else {
                    frame.layout(&area.scaled(spec), quads)
                };
            }
            Content::Images(images) => {
                let placed: Vec<PositionedImage> =
                    images.iter().map(|g| area.place_image(g)).collect();
                frame.prepare_images(&placed, quads);
            }
            Content::Glyphs(glyphs) if !area.effects.is_empty() => {
                // Under the glyphs: their effect layers, in grayscale.
                let placed: Vec<PositionedGlyph> =
                    glyphs.iter().map(|g| area.place_glyph(g)).collect();
                let effects = scaled_effects(&area.effects, area.scale);
                for layer in frame.effect_layers(&placed, &effects, skipped) {
                    frame.prepare(&layer, quads);
                }
                if lcd {
                    frame.prepare_lcd(&placed, quads);
                } else {
                    frame.prepare(&placed, quads);
                }
            }
            Content::Glyphs(glyphs) => {
                let glyphs = if whole {
                    glyphs
                } else {
                    self.scratch.clear();
                    self.scratch.extend(glyphs.iter().map(|g| area.place_glyph(g)));
                    &self.scratch[..]
                };
                let run = &mut self.areas.runs[n].run;
                let reuse = frame.prepare_retained_held(glyphs, lcd, quads, run, held);
                moved(&mut quads[start..]);
                return extent(run, reuse);
            }
        }
        None
    }

    /// The last phase: the quads (each area's clipped to its bounds as it was
    /// collected) written to the instance buffer (only the instances that differ from what it
    /// holds: none in a frame that draws what the last one drew).
    /// `in_place`: how many first quads are last prepare's, where they
    /// were (their instances are not compared again).
    fn upload_instances(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, in_place: usize) {
        let mut from = if self.uploaded_in_order { in_place } else { 0 };
        let mut in_order = true;
        if self.lcd_pipeline.is_none() {
            self.order.colour_last(&mut self.quads);
            if self.order.reordered {
                self.held.reordered();
                (from, in_order) = (0, false);
            }
        }
        self.uploaded_in_order = in_order;
        self.count = self.quads.len() as u32;
        let bytes = (self.quads.len() * std::mem::size_of::<GlyphInstance>()) as u64;
        if bytes > self.capacity {
            self.capacity = bytes.next_power_of_two();
            self.buffer = instance_buffer(device, self.capacity);
            self.uploaded.clear();
        }
        write_changed(queue, &self.buffer, &mut self.uploaded, &self.quads, from, |q| {
            GlyphInstance::from(q)
        });
        self.order.split(self.uploaded.iter().map(|q| q.page));
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
                + tr.buffer.as_ref().map_or(0, |_| tr.capacity)
                + uniforms
                + outline_quads,
            cpu_bytes: cpu,
            areas: self.areas.runs.len(),
        }
    }
}

fn instance_buffer(device: &wgpu::Device, size: u64) -> wgpu::Buffer {
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
        let quads = tr.buffer.as_ref().expect("a turned area's shadow's quads").size();
        let outlines = tr.outline_buffer.as_ref().expect("a turned area's outline quads").0.size();
        assert_eq!(f.gpu_bytes, r.buffer.size() + quads + uniform_size + outlines);
        assert_eq!(f.areas, 3);
    }
}
