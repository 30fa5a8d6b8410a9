//! The two text renderers a scene is drawn by, written as an app written
//! from each one's docs would: kerf (`CosmicFonts::glyphs` converting a
//! cosmic-text buffer when it was shaped anew and keeping its glyphs beside
//! the buffer as a `GlyphRun`, as docs/migrating-from-glyphon.md says, one
//! `TextArea` per buffer; with
//! `SCENES_CONVERT_EVERY_FRAME=1` every buffer is converted every frame)
//! and glyphon 0.12 (its `TextArea` per buffer, the atlas trimmed after each
//! frame), written once (`glyphon_side.rs`) and built twice: against
//! glyphon, and against kerf-glyphon (glyphon's API over kerf; the side
//! `kerf-glyphon`).
//! Both get the same buffers, offsets, scales, colours and clip; glyphon
//! cannot rotate, so it draws rotated areas axis-aligned.

use glyphon::{Buffer, FontSystem};

/// The glyphon side built against glyphon 0.12.
mod on_glyphon {
    use glyphon as api;
    use kerf::gpu::wgpu;
    include!("glyphon_side.rs");
}

/// The same source built against kerf-glyphon.
mod on_kerf_glyphon {
    use kerf::gpu::wgpu;
    use kerf_glyphon as api;
    include!("glyphon_side.rs");
}
use kerf::cache::{GlyphRun, PositionedGlyph};
use kerf::gpu::{wgpu, CacheConfig, TextArea, TextAtlas, TextRenderer, TextTransform, Viewport};
use std::cell::OnceCell;
use std::time::Duration;

/// A shaped cosmic-text buffer and the glyphs kerf's side converted it to
/// (kept beside it, with the default colour they were converted in): any
/// mutable use of the buffer (setting its text or size, shaping it) drops
/// them, so they are never drawn for it again.
pub struct Shaped {
    buffer: Buffer,
    kept: Kept,
}

/// kerf's glyphs of a buffer, converted when first drawn after a shaping,
/// with the default colour they were converted in.
pub type Kept = OnceCell<([u8; 4], GlyphRun)>;

impl Shaped {
    /// `buffer` (shaped), nothing converted yet.
    pub fn new(buffer: Buffer) -> Shaped {
        Shaped { buffer, kept: OnceCell::new() }
    }
}

impl std::ops::Deref for Shaped {
    type Target = Buffer;
    fn deref(&self) -> &Buffer {
        &self.buffer
    }
}

impl std::ops::DerefMut for Shaped {
    /// (Its converted glyphs dropped: the buffer may change.)
    fn deref_mut(&mut self) -> &mut Buffer {
        self.kept = OnceCell::new();
        &mut self.buffer
    }
}

/// The target's format (an sRGB window surface's).
pub const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;

/// One buffer drawn this frame.
pub struct Area<'b> {
    /// The shaped text.
    pub buffer: &'b Buffer,
    /// kerf's glyphs of it, kept beside it ([`Shaped`]).
    pub kept: &'b Kept,
    /// Offset, target pixels.
    pub left: f32,
    /// Offset, target pixels.
    pub top: f32,
    /// Scale of sizes and positions.
    pub scale: f32,
    /// Rotation, radians (clockwise, y down) about `pivot`; 0 is axis-aligned.
    pub rotation: f32,
    /// The rotation's centre, target pixels.
    pub pivot: (f32, f32),
    /// Straight sRGB RGBA for glyphs without their own colour.
    pub color: [u8; 4],
    /// Which of the scene's renderers draws it.
    pub renderer: usize,
    /// The clip rectangle (left, top, right, bottom), target pixels; `None`:
    /// the whole target.
    pub clip: Option<[i32; 4]>,
}

impl<'b> Area<'b> {
    /// `buffer` at (`left`, `top`), unscaled, unrotated, black, renderer 0,
    /// clipped to the target.
    pub fn at(shaped: &'b Shaped, left: f32, top: f32) -> Area<'b> {
        Area {
            buffer: &shaped.buffer,
            kept: &shaped.kept,
            left,
            top,
            scale: 1.0,
            rotation: 0.0,
            pivot: (0.0, 0.0),
            color: [0, 0, 0, 255],
            renderer: 0,
            clip: None,
        }
    }

    /// The clip rectangle (left, top, right, bottom) on a target of `size`.
    fn clip_on(&self, size: (u32, u32)) -> [i32; 4] {
        self.clip.unwrap_or([0, 0, size.0 as i32, size.1 as i32])
    }
}

/// A renderer and what it keeps between frames.
#[allow(clippy::large_enum_variant)]
pub enum Side {
    /// kerf: one atlas, `renderers` text renderers on it.
    Kerf {
        atlas: TextAtlas,
        renderers: Vec<TextRenderer>,
        viewport: Viewport,
        fonts: kerf::cache::CosmicFonts,
        glyphs: Vec<PositionedGlyph>,
        ranges: Vec<Option<std::ops::Range<usize>>>,
    },
    /// glyphon 0.12: one atlas, `renderers` text renderers on it.
    Glyphon(on_glyphon::GlyphonSide),
    /// The same code on kerf-glyphon.
    KerfGlyphon(on_kerf_glyphon::GlyphonSide),
}

impl Side {
    /// The side named `name` (`kerf` or `glyphon`) for a `size` target with
    /// `renderers` renderers, each with its default settings.
    pub fn new(
        name: &str, device: &wgpu::Device, queue: &wgpu::Queue, size: (u32, u32), renderers: usize,
    ) -> Result<Side, String> {
        let ms = wgpu::MultisampleState::default();
        match name {
            "kerf" => {
                let t = std::time::Instant::now();
                let mut config = match crate::measure::grow_first() {
                    true => CacheConfig { evict_idle_before_growing: None, ..Default::default() },
                    false => CacheConfig::default(),
                };
                if crate::measure::gpu_uploads() {
                    config.whole_box_bytes = Some(kerf::cache::pages::WHOLE_BOX_BYTES);
                }
                if crate::measure::no_page_copies() {
                    config.page_copies = false;
                }
                if let Some(n) = crate::measure::raster_threads() {
                    config.raster_threads = n;
                }
                let atlas = if crate::measure::hinting() {
                    let swash = kerf::cache::rasterize::SwashRasterizer::new().hinting(true);
                    TextAtlas::with_rasterizer(device, config, Box::new(swash))
                } else {
                    TextAtlas::new(device, config)
                }
                .map_err(|e| e.to_string())?;
                let a = t.elapsed().as_secs_f64() * 1e3;
                let renderers: Vec<TextRenderer> = (0..renderers)
                    .map(|_| TextRenderer::new(device, &atlas, FORMAT, ms, None))
                    .map(|mut r| {
                        if let Some(policy) = crate::measure::zoom_policy() {
                            r.set_zoom_policy(policy);
                        }
                        if let Some(policy) = crate::measure::outline_policy() {
                            r.set_outline_policy(policy);
                        }
                        r
                    })
                    .collect();
                let b = t.elapsed().as_secs_f64() * 1e3;
                let mut viewport = Viewport::new(device, &atlas);
                viewport.update(queue, size.0, size.1);
                if std::env::var_os("SCENES_NEUTRAL").is_some() {
                    viewport
                        .set_correction(queue, kerf::gpu::TextCorrection::NEUTRAL)
                        .map_err(|e| e.to_string())?;
                }
                if crate::measure::phases() {
                    let c = t.elapsed().as_secs_f64() * 1e3;
                    eprintln!("kerf: atlas {a:.2} ms, renderers {b:.2}, viewport {c:.2}");
                }
                Ok(Side::Kerf {
                    atlas,
                    renderers,
                    viewport,
                    fonts: kerf::cache::CosmicFonts::new(),
                    glyphs: Vec::new(),
                    ranges: Vec::new(),
                })
            }
            "glyphon" => {
                Ok(Side::Glyphon(on_glyphon::GlyphonSide::new(device, queue, size, renderers)))
            }
            "kerf-glyphon" => Ok(Side::KerfGlyphon(on_kerf_glyphon::GlyphonSide::new(
                device, queue, size, renderers,
            ))),
            other => Err(format!("unknown side {other:?}: kerf, glyphon or kerf-glyphon")),
        }
    }

    /// Prints what kerf holds (pages' CPU copies, texture arrays,
    /// renderers' buffers, fonts); nothing for glyphon, which says nothing.
    pub fn print_memory(&self) {
        let Side::Kerf { atlas, renderers, .. } = self else { return };
        let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
        let cache = atlas.cache();
        eprintln!("kerf cache: {:?}", cache.stats());
        let f = cache.footprint();
        let side = u64::from(cache.page_side());
        let coverage = u64::from(atlas.layers()) * side * side;
        let colour = atlas.color_texture().size();
        let colour = u64::from(colour.width * colour.height * colour.depth_or_array_layers) * 4;
        let (gpu, cpu) = renderers
            .iter()
            .map(|r| r.footprint())
            .fold((0, 0), |(g, c), r| (g + r.gpu_bytes, c + r.cpu_bytes as u64));
        eprintln!(
            "kerf holds: pages' CPU copies {:.2} MiB ({} glyphs), texture arrays {:.2} MiB \
             (coverage {} layers of {side}², colour {:.2}), renderers' GPU buffers {:.2} MiB, \
             their CPU buffers {:.2} MiB, staging {:.2} MiB, {} fonts, {} recency records, \
             {} decoded strikes, {} tiled",
            mib(f.page_bytes),
            f.glyphs,
            mib(coverage + colour),
            atlas.layers(),
            mib(colour),
            mib(gpu),
            mib(cpu),
            mib(f.staging_bytes as u64),
            f.fonts,
            f.recency_records,
            f.decoded_strikes,
            f.tiled,
        );
    }

    /// One whole frame: `areas` prepared by their renderers, drawn in one
    /// pass that clears `target` (of `size`) to white, submitted, waited on. Returns
    /// the app thread's CPU time from the call until the submit returned.
    #[allow(clippy::too_many_arguments)]
    pub fn frame(
        &mut self, device: &wgpu::Device, queue: &wgpu::Queue, fs: &mut FontSystem,
        areas: &[Area<'_>], size: (u32, u32), target: &kerf::gpu::Offscreen,
    ) -> Result<Duration, String> {
        let cpu0 = crate::measure::thread_cpu();
        let t0 = std::time::Instant::now();
        let phases = crate::measure::phases();
        let memory = crate::measure::memory();
        let mut marks: Vec<(&str, f64)> = Vec::new();
        let mut mark = |what: &'static str| {
            if phases {
                marks.push((what, t0.elapsed().as_secs_f64() * 1e3));
            }
            if memory {
                let mib = crate::measure::status_kib("VmRSS") as f64 / 1024.0;
                eprintln!("rss {mib:7.1} MiB    {what}");
            }
        };
        let mut encoder = device.create_command_encoder(&Default::default());
        match self {
            Side::Kerf { atlas, renderers, viewport, fonts, glyphs, ranges } => {
                // A buffer shaped since it was last converted is converted
                // and its glyphs kept beside it; the others' are reused.
                // (`SCENES_CONVERT_EVERY_FRAME`: every buffer, every frame;
                // a buffer drawn in another default colour than its kept
                // glyphs', converted for the frame.)
                let every = crate::measure::convert_every_frame();
                glyphs.clear();
                ranges.clear();
                for a in areas {
                    if !every && a.kept.get().is_none() {
                        let mut run = Vec::new();
                        fonts
                            .glyphs(atlas.cache_mut(), fs, a.buffer, (0.0, 0.0), a.color, &mut run)
                            .map_err(|e| e.to_string())?;
                        let _ = a.kept.set((a.color, GlyphRun::new(run)));
                    }
                    if !every && a.kept.get().is_some_and(|(c, _)| *c == a.color) {
                        ranges.push(None);
                        continue;
                    }
                    let start = glyphs.len();
                    fonts
                        .glyphs(atlas.cache_mut(), fs, a.buffer, (0.0, 0.0), a.color, glyphs)
                        .map_err(|e| e.to_string())?;
                    ranges.push(Some(start..glyphs.len()));
                }
                mark("converted");
                // The floor (`SCENES_FLOOR`): the conversion, the clear and
                // the submit, which any renderer of these buffers pays.
                let floor = crate::measure::floor();
                for (r, renderer) in renderers.iter_mut().enumerate().filter(|_| !floor) {
                    let text: Vec<TextArea<'_>> = areas
                        .iter()
                        .zip(ranges.iter())
                        .filter(|(a, _)| a.renderer == r)
                        .map(|(a, range)| {
                            let t = match range {
                                Some(range) => {
                                    TextArea::glyphs(&glyphs[range.clone()], a.left, a.top)
                                }
                                None => match a.kept.get() {
                                    Some((_, run)) => TextArea::run(run, a.left, a.top),
                                    None => TextArea::glyphs(&[], a.left, a.top),
                                },
                            };
                            let [left, top, right, bottom] = a.clip_on(size);
                            let bounds = kerf::gpu::TextBounds { left, top, right, bottom };
                            let t = t.with_scale(a.scale).with_bounds(bounds);
                            if a.rotation == 0.0 {
                                t
                            } else {
                                let (x, y) = a.pivot;
                                t.transformed(TextTransform::rotation_about(a.rotation, x, y))
                            }
                        })
                        .collect();
                    renderer
                        .prepare(device, queue, atlas, &text, viewport)
                        .map_err(|e| e.to_string())?;
                }
                mark("prepared");
                let mut pass = target.pass(&mut encoder, wgpu::Color::WHITE);
                for renderer in renderers.iter().filter(|_| !floor) {
                    renderer.render(atlas, &mut pass).map_err(|e| e.to_string())?;
                }
            }
            Side::Glyphon(side) => {
                side.prepare(device, queue, fs, areas, size)?;
                mark("prepared");
                side.render(&mut target.pass(&mut encoder, wgpu::Color::WHITE))?;
            }
            Side::KerfGlyphon(side) => {
                side.prepare(device, queue, fs, areas, size)?;
                mark("prepared");
                side.render(&mut target.pass(&mut encoder, wgpu::Color::WHITE))?;
            }
        }
        mark("encoded");
        let commands = encoder.finish();
        mark("finished");
        queue.submit([commands]);
        mark("submitted");
        let cpu = crate::measure::thread_cpu().saturating_sub(cpu0);
        device.poll(wgpu::PollType::wait_indefinitely()).map_err(|e| e.to_string())?;
        mark("done");
        if phases {
            eprintln!("phases (ms since the frame began): {marks:?}");
        }
        match self {
            Side::Glyphon(side) => side.trim(),
            Side::KerfGlyphon(side) => side.trim(),
            Side::Kerf { .. } => {}
        }
        Ok(cpu)
    }
}
