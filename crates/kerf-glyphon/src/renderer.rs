//! glyphon's `TextRenderer` over kerf's: each `prepare` turns glyphon's
//! text areas into kerf areas (kept runs for the buffers, images for the
//! custom glyphs) and prepares one kerf renderer per depth drawn.

use crate::convert::Runs;
use crate::custom_glyph::{CustomGlyphSkip, CustomKey};
use crate::{
    ColorMode, ContentType, FontSystem, PrepareError, RasterizeCustomGlyphRequest,
    RasterizedCustomGlyph, RenderError, SwashCache, TextArea, TextAtlas, Viewport,
};
use cosmic_text::SubpixelBin;
use kerf_cache::{CosmicFonts, PositionedGlyph, PositionedImage, Skipped};
use kerf_wgpu::{PipelineKey, TextBounds as KerfBounds, ZoomPolicy};
use std::ops::Range;
use std::sync::PoisonError;
use wgpu::{DepthStencilState, Device, MultisampleState, Queue, RenderPass};

/// A text renderer that uses cached glyphs to render text into an existing render pass.
///
/// Each `prepare` draws the areas' buffers through kerf: a buffer whose
/// drawn runs did not change since an earlier frame is not converted
/// again (see the crate docs), and its quads are reused.
pub struct TextRenderer {
    /// One kerf renderer and viewport per depth drawn; the first is depth 0.
    layers: Vec<Layer>,
    key: PipelineKey,
    /// The zoom policy of every layer.
    zoom: ZoomPolicy,
    runs: Runs,
    /// The atlas frame this renderer last prepared in.
    frame: Option<u64>,
    report: PrepareReport,
    /// Scratch of a prepare: what goes to kerf, in order.
    items: Vec<Item>,
    glyphs: Vec<PositionedGlyph>,
    images: Vec<PositionedImage>,
}

/// What a kerf renderer of one depth holds.
struct Layer {
    depth: f32,
    renderer: kerf_wgpu::TextRenderer,
    viewport: kerf_wgpu::Viewport,
    /// True when the last prepare drew something at this depth.
    drawn: bool,
}

/// One kerf area of a prepare.
struct Item {
    layer: usize,
    what: What,
    left: f32,
    top: f32,
    scale: f32,
    bounds: KerfBounds,
}

/// What an [`Item`] draws.
enum What {
    /// A kept run, by fingerprint.
    Run(u64),
    /// Glyphs of the scratch (a buffer drawn at several depths).
    Glyphs(Range<usize>),
    /// Images of the scratch (custom glyphs), placed in target pixels.
    Images(Range<usize>),
}

/// What the last `prepare` left out and did, beyond glyphon's API: kerf
/// never fails a frame for want of room, it skips glyphs and says so here.
#[derive(Clone, Debug, Default)]
pub struct PrepareReport {
    /// Glyphs kerf skipped (no room left after eviction, a glyph the font
    /// cannot draw), as kerf's renderers reported them (indices are within
    /// the areas kerf-glyphon passed them).
    pub skipped: Vec<Skipped>,
    /// Custom glyphs not drawn: (area, glyph index, why).
    pub custom_skipped: Vec<(usize, usize, CustomGlyphSkip)>,
    /// Areas not drawn: a scale or offset that is not finite, a scale
    /// not above 0.
    pub areas_skipped: Vec<usize>,
    /// Glyphs not drawn because their depth was outside 0..=1 (clipped by
    /// the GPU in glyphon).
    pub depth_clipped: usize,
    /// Fonts that failed to load, and kerf errors that left a depth undrawn.
    pub errors: Vec<String>,
    /// Buffers converted to kerf glyphs in this prepare (changed or new).
    pub converted: usize,
    /// Buffers drawn from runs kept from an earlier prepare.
    pub reused: usize,
    /// Glyph instances drawn.
    pub instances: u32,
}

/// A kerf renderer for `key` on `atlas` drawing zooms as `zoom` says.
fn kerf_renderer(
    device: &Device, atlas: &TextAtlas, key: &PipelineKey, zoom: ZoomPolicy,
) -> kerf_wgpu::TextRenderer {
    let mut renderer = kerf_wgpu::TextRenderer::with_key(device, &atlas.inner, key.clone());
    renderer.set_zoom_policy(zoom);
    renderer
}

impl TextRenderer {
    /// Creates a new `TextRenderer`.
    pub fn new(
        atlas: &mut TextAtlas, device: &Device, multisample: MultisampleState,
        depth_stencil: Option<DepthStencilState>,
    ) -> Self {
        let key = PipelineKey {
            format: atlas.format,
            multisample,
            depth_stencil,
            linear_light: atlas.color_mode == ColorMode::Accurate,
        };
        let zoom = ZoomPolicy::Exact;
        let renderer = kerf_renderer(device, atlas, &key, zoom);
        let viewport = kerf_wgpu::Viewport::new(device, &atlas.inner);
        TextRenderer {
            zoom,
            layers: vec![Layer { depth: 0.0, renderer, viewport, drawn: false }],
            key,
            runs: Runs::default(),
            frame: None,
            report: PrepareReport::default(),
            items: Vec::new(),
            glyphs: Vec::new(),
            images: Vec::new(),
        }
    }

    /// Prepares all of the provided text areas for rendering.
    #[allow(clippy::too_many_arguments)]
    pub fn prepare<'a>(
        &mut self, device: &Device, queue: &Queue, font_system: &mut FontSystem,
        atlas: &mut TextAtlas, viewport: &Viewport,
        text_areas: impl IntoIterator<Item = TextArea<'a>>, _cache: &mut SwashCache,
    ) -> Result<(), PrepareError> {
        self.prepare_inner(
            device,
            queue,
            font_system,
            atlas,
            viewport,
            text_areas,
            None,
            &mut |_| None,
        );
        Ok(())
    }

    /// Prepares all of the provided text areas for rendering, each glyph at
    /// the depth `metadata_to_depth` gives its metadata.
    #[allow(clippy::too_many_arguments)]
    pub fn prepare_with_depth<'a>(
        &mut self, device: &Device, queue: &Queue, font_system: &mut FontSystem,
        atlas: &mut TextAtlas, viewport: &Viewport,
        text_areas: impl IntoIterator<Item = TextArea<'a>>, _cache: &mut SwashCache,
        mut metadata_to_depth: impl FnMut(usize) -> f32,
    ) -> Result<(), PrepareError> {
        self.prepare_inner(
            device,
            queue,
            font_system,
            atlas,
            viewport,
            text_areas,
            Some(&mut metadata_to_depth),
            &mut |_| None,
        );
        Ok(())
    }

    /// Prepares all of the provided text areas for rendering, custom glyphs
    /// rasterized by `rasterize_custom_glyph` when they are not cached.
    #[allow(clippy::too_many_arguments)]
    pub fn prepare_with_custom<'a>(
        &mut self, device: &Device, queue: &Queue, font_system: &mut FontSystem,
        atlas: &mut TextAtlas, viewport: &Viewport,
        text_areas: impl IntoIterator<Item = TextArea<'a>>, _cache: &mut SwashCache,
        mut rasterize_custom_glyph: impl FnMut(
            RasterizeCustomGlyphRequest,
        ) -> Option<RasterizedCustomGlyph>,
    ) -> Result<(), PrepareError> {
        self.prepare_inner(
            device,
            queue,
            font_system,
            atlas,
            viewport,
            text_areas,
            None,
            &mut rasterize_custom_glyph,
        );
        Ok(())
    }

    /// Prepares all of the provided text areas for rendering, with depths
    /// and custom glyphs.
    #[allow(clippy::too_many_arguments)]
    pub fn prepare_with_depth_and_custom<'a>(
        &mut self, device: &Device, queue: &Queue, font_system: &mut FontSystem,
        atlas: &mut TextAtlas, viewport: &Viewport,
        text_areas: impl IntoIterator<Item = TextArea<'a>>, _cache: &mut SwashCache,
        mut metadata_to_depth: impl FnMut(usize) -> f32,
        mut rasterize_custom_glyph: impl FnMut(
            RasterizeCustomGlyphRequest,
        ) -> Option<RasterizedCustomGlyph>,
    ) -> Result<(), PrepareError> {
        self.prepare_inner(
            device,
            queue,
            font_system,
            atlas,
            viewport,
            text_areas,
            Some(&mut metadata_to_depth),
            &mut rasterize_custom_glyph,
        );
        Ok(())
    }

    /// Renders all layouts that were previously provided to `prepare`.
    pub fn render(
        &self, atlas: &TextAtlas, _viewport: &Viewport, pass: &mut RenderPass<'_>,
    ) -> Result<(), RenderError> {
        for layer in self.layers.iter().filter(|l| l.drawn) {
            match layer.renderer.render(&atlas.inner, pass) {
                Ok(()) => {}
                Err(kerf_wgpu::UsageError::AtlasMismatch) => {
                    return Err(RenderError::RemovedFromAtlas)
                }
                // Not prepared: nothing to draw, as glyphon.
                Err(_) => {}
            }
        }
        Ok(())
    }

    /// Sets how text whose size changes from frame to frame is drawn (see
    /// [`ZoomPolicy`]). kerf-glyphon starts with [`ZoomPolicy::Exact`],
    /// glyphon's way: every size rasterized, the picture glyphon's in every
    /// frame. [`ZoomPolicy::Auto`] (kerf's own default) draws a zooming
    /// area from rasters at size steps, scaled, until it rests: far fewer
    /// rasterizations, at most 4.4% off in size while it moves.
    pub fn set_zoom_policy(&mut self, policy: ZoomPolicy) {
        self.zoom = policy;
        for layer in &mut self.layers {
            layer.renderer.set_zoom_policy(policy);
        }
    }

    /// What the last `prepare` skipped and did (kerf-glyphon's own: glyphon
    /// has no such report).
    pub fn report(&self) -> &PrepareReport {
        &self.report
    }

    /// Glyphs skipped by the last `prepare` for want of room after
    /// eviction, or because the font could not draw them (glyphon would
    /// have failed the frame with `AtlasFull` for the first).
    pub fn skipped(&self) -> &[Skipped] {
        &self.report.skipped
    }

    /// The layer drawing at `depth`, made if there is none; `None` for a
    /// depth outside 0..=1 (clipped by glyphon's GPU), counted in the
    /// report as `glyphs` glyphs not drawn.
    fn layer(
        &mut self, device: &Device, queue: &Queue, atlas: &TextAtlas, depth: f32, glyphs: usize,
    ) -> Option<usize> {
        if !(0.0..=1.0).contains(&depth) {
            self.report.depth_clipped += glyphs;
            return None;
        }
        if let Some(i) = self.layers.iter().position(|l| l.depth.to_bits() == depth.to_bits()) {
            return Some(i);
        }
        let renderer = kerf_renderer(device, atlas, &self.key, self.zoom);
        let mut viewport = kerf_wgpu::Viewport::new(device, &atlas.inner);
        // In range: checked above.
        let _ = viewport.set_depth(queue, depth);
        self.layers.push(Layer { depth, renderer, viewport, drawn: false });
        Some(self.layers.len() - 1)
    }

    #[allow(clippy::too_many_arguments)]
    fn prepare_inner<'a>(
        &mut self, device: &Device, queue: &Queue, font_system: &mut FontSystem,
        atlas: &mut TextAtlas, viewport: &Viewport,
        text_areas: impl IntoIterator<Item = TextArea<'a>>,
        mut depth: Option<&mut dyn FnMut(usize) -> f32>,
        rasterize: &mut dyn FnMut(RasterizeCustomGlyphRequest) -> Option<RasterizedCustomGlyph>,
    ) {
        // A second prepare in the frame this renderer prepared in: its
        // last quads are replaced, so the app went on to its next frame.
        self.frame = Some(match self.frame {
            Some(f) if atlas.frame == Some(f) => atlas.next_frame(),
            _ => atlas.frame(),
        });
        let resolution = viewport.resolution();
        self.report = PrepareReport::default();
        self.items.clear();
        self.glyphs.clear();
        self.images.clear();
        self.runs.begin();
        let has_depth = depth.is_some();
        // Without a depth closure, everything at depth 0, as glyphon.
        let mut zero = |_: usize| 0.0;
        let depth_of: &mut dyn FnMut(usize) -> f32 = match depth.as_mut() {
            Some(f) => *f,
            None => &mut zero,
        };
        let mut depths: Vec<f32> = Vec::new();
        let mut at_depth: Vec<(usize, PositionedGlyph)> = Vec::new();
        for (index, area) in text_areas.into_iter().enumerate() {
            let placed = area.scale.is_finite() && area.left.is_finite() && area.top.is_finite();
            if !(placed && area.scale > 0.0) {
                self.report.areas_skipped.push(index);
                continue;
            }
            let b = area.bounds;
            let bounds = KerfBounds { left: b.left, top: b.top, right: b.right, bottom: b.bottom };
            let default_color = CosmicFonts::rgba(area.default_color);

            // Custom glyphs first, as glyphon draws them.
            if !area.custom_glyphs.is_empty() {
                let mut store = atlas.store.lock().unwrap_or_else(PoisonError::into_inner);
                let mut placed: Vec<(usize, PositionedImage)> = Vec::new();
                for (i, glyph) in area.custom_glyphs.iter().enumerate() {
                    let x = area.left + glyph.left * area.scale;
                    let y = area.top + glyph.top * area.scale;
                    let width = (glyph.width * area.scale).round() as u16;
                    let height = (glyph.height * area.scale).round() as u16;
                    let (x, y, x_bin, y_bin) = if glyph.snap_to_physical_pixel {
                        (x.round() as i32, y.round() as i32, SubpixelBin::Zero, SubpixelBin::Zero)
                    } else {
                        let (x, x_bin) = SubpixelBin::new(x);
                        let (y, y_bin) = SubpixelBin::new(y);
                        (x, y, x_bin, y_bin)
                    };
                    let key = CustomKey { id: glyph.id, width, height, x_bin, y_bin };
                    let (id, content) = match store.image(key, area.scale, rasterize) {
                        Ok(found) => found,
                        Err(why) => {
                            self.report.custom_skipped.push((index, i, why));
                            continue;
                        }
                    };
                    let (source, color) = match content {
                        ContentType::Mask => (
                            atlas.mask_source,
                            CosmicFonts::rgba(glyph.color.unwrap_or(area.default_color)),
                        ),
                        ContentType::Color => (atlas.color_source, [255; 4]),
                    };
                    let Some(source) = source else { continue };
                    let d = depth_of(glyph.metadata);
                    let Some(layer) = self.layer(device, queue, atlas, d, 1) else { continue };
                    let image =
                        PositionedImage { source, id, size: 1.0, x: x as f32, y: y as f32, color };
                    placed.push((layer, image));
                }
                drop(store);
                // Each depth's images together, in their order.
                placed.sort_by_key(|(layer, _)| *layer);
                for chunk in placed.chunk_by(|a, b| a.0 == b.0) {
                    let start = self.images.len();
                    self.images.extend(chunk.iter().map(|(_, image)| *image));
                    let what = What::Images(start..self.images.len());
                    let layer = chunk[0].0;
                    self.items.push(Item { layer, what, left: 0.0, top: 0.0, scale: 1.0, bounds });
                }
            }

            // The buffer: its kept run, or converted now.
            let (key, error) = self.runs.get(
                &mut atlas.fonts,
                atlas.inner.cache_mut(),
                font_system,
                &area,
                default_color,
            );
            if let Some(e) = error {
                self.report.errors.push(format!("text area {index}: {e}"));
            }
            // glyphon truncates the area's top with each glyph's y (its
            // line's y rounded on its own): a whole top keeps them apart.
            let (left, top, scale) = (area.left, area.top.trunc(), area.scale);
            if !has_depth {
                let Some(layer) = self.layer(device, queue, atlas, 0.0, 0) else { continue };
                self.items.push(Item { layer, what: What::Run(key), left, top, scale, bounds });
                continue;
            }
            depths.clear();
            for run in crate::convert::visible_runs(&area) {
                depths.extend(run.glyphs.iter().map(|g| depth_of(g.metadata)));
            }
            let Some(run) = self.runs.run(key) else { continue };
            let uniform = depths.windows(2).all(|w| w[0].to_bits() == w[1].to_bits());
            if uniform && depths.len() == run.len() {
                let d = depths.first().copied().unwrap_or(0.0);
                let Some(layer) = self.layer(device, queue, atlas, d, run.len()) else { continue };
                self.items.push(Item { layer, what: What::Run(key), left, top, scale, bounds });
                continue;
            }
            // Several depths in one buffer: each depth's glyphs as a slice.
            let run = run.glyphs().to_vec();
            at_depth.clear();
            for (j, g) in run.iter().enumerate() {
                let d = depths.get(j).copied().unwrap_or(0.0);
                let Some(layer) = self.layer(device, queue, atlas, d, 1) else { continue };
                at_depth.push((layer, *g));
            }
            at_depth.sort_by_key(|(layer, _)| *layer);
            for chunk in at_depth.chunk_by(|a, b| a.0 == b.0) {
                let start = self.glyphs.len();
                self.glyphs.extend(chunk.iter().map(|(_, g)| *g));
                let what = What::Glyphs(start..self.glyphs.len());
                let layer = chunk[0].0;
                self.items.push(Item { layer, what, left, top, scale, bounds });
            }
        }
        self.runs.end();
        self.report.converted = self.runs.converted;
        self.report.reused = self.runs.reused;

        // Each depth's kerf renderer prepares its areas; depths not drawn
        // now are dropped (the first, depth 0, is kept).
        let size = (resolution.width, resolution.height);
        let mut areas: Vec<kerf_wgpu::TextArea<'_>> = Vec::new();
        for (l, layer) in self.layers.iter_mut().enumerate() {
            areas.clear();
            for item in self.items.iter().filter(|item| item.layer == l) {
                let area = match &item.what {
                    What::Run(key) => match self.runs.run(*key) {
                        Some(run) => kerf_wgpu::TextArea::run(run, item.left, item.top),
                        None => continue,
                    },
                    What::Glyphs(range) => kerf_wgpu::TextArea::glyphs(
                        &self.glyphs[range.clone()],
                        item.left,
                        item.top,
                    ),
                    What::Images(range) => kerf_wgpu::TextArea::images(
                        &self.images[range.clone()],
                        item.left,
                        item.top,
                    ),
                };
                areas.push(area.with_scale(item.scale).with_bounds(item.bounds));
            }
            layer.drawn = !areas.is_empty();
            if !layer.drawn && l > 0 {
                continue;
            }
            if layer.viewport.size() != size {
                layer.viewport.update(queue, size.0, size.1);
            }
            match layer.renderer.prepare(device, queue, &mut atlas.inner, &areas, &layer.viewport) {
                Ok(report) => {
                    self.report.instances += report.instances;
                    self.report.skipped.extend(report.skipped);
                }
                Err(e) => {
                    self.report.errors.push(format!("depth {}: {e}", layer.depth));
                    layer.drawn = false;
                }
            }
        }
        let mut l = 0;
        self.layers.retain(|layer| {
            l += 1;
            l == 1 || layer.drawn
        });
    }
}
