//! `kerf profile --backend wgpu`: frames through kerf-wgpu on a real device,
//! drawn into an offscreen target; and the progress bar of long runs.

use kerf_cache::{CacheConfig, GlyphCache, PositionedGlyph};
use kerf_wgpu::{wgpu, TextArea, TextAtlas, TextRenderer, Viewport};
use std::time::{Duration, Instant};

/// The device all workloads of one run share.
pub struct Gpu {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub info: wgpu::AdapterInfo,
}

impl Gpu {
    pub fn new() -> Result<Gpu, String> {
        let g = kerf_wgpu::headless().map_err(|e| e.to_string())?;
        Ok(Gpu { device: g.device, queue: g.queue, info: g.info })
    }
}

const TARGET: (u32, u32) = (1600, 1200);

pub struct GpuRunner<'a> {
    gpu: &'a Gpu,
    atlas: TextAtlas,
    renderer: TextRenderer,
    viewport: Viewport,
    target: kerf_wgpu::Offscreen,
    timing: Option<(wgpu::QuerySet, wgpu::Buffer, wgpu::Buffer)>,
}

impl<'a> GpuRunner<'a> {
    pub fn new(gpu: &'a Gpu, config: CacheConfig) -> Result<GpuRunner<'a>, String> {
        let device = &gpu.device;
        let atlas = TextAtlas::new(device, config).map_err(|e| e.to_string())?;
        let format = wgpu::TextureFormat::Rgba8UnormSrgb;
        let renderer =
            TextRenderer::new(device, &atlas, format, wgpu::MultisampleState::default(), None);
        let mut viewport = Viewport::new(device, &atlas);
        viewport.update(&gpu.queue, TARGET.0, TARGET.1);
        let target = kerf_wgpu::Offscreen::new(device, TARGET.0, TARGET.1, format)
            .map_err(|e| e.to_string())?;
        let timing = device.features().contains(wgpu::Features::TIMESTAMP_QUERY).then(|| {
            let set = device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("kerf profile timestamps"),
                ty: wgpu::QueryType::Timestamp,
                count: 2,
            });
            let resolve = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("kerf profile timestamp resolve"),
                size: 16,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            });
            let read = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("kerf profile timestamp read"),
                size: 16,
                usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
                mapped_at_creation: false,
            });
            (set, resolve, read)
        });
        Ok(GpuRunner { gpu, atlas, renderer, viewport, target, timing })
    }
}

impl crate::runner::Runner for GpuRunner<'_> {
    fn cache(&self) -> &GlyphCache {
        self.atlas.cache()
    }
    fn cache_mut(&mut self) -> &mut GlyphCache {
        self.atlas.cache_mut()
    }
    fn atlas_bytes(&self) -> u64 {
        self.atlas.gpu_bytes()
    }
    fn frame(&mut self, glyphs: &[PositionedGlyph]) -> Result<crate::runner::FrameResult, String> {
        let (device, queue) = (&self.gpu.device, &self.gpu.queue);
        let t = Instant::now();
        let area = [TextArea::glyphs(glyphs, 0.0, 0.0)];
        let report = self
            .renderer
            .prepare(device, queue, &mut self.atlas, &area, &self.viewport)
            .map_err(|e| e.to_string())?;
        let ns = t.elapsed().as_nanos() as u64;
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("kerf profile frame"),
        });
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("kerf profile text pass"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &self.target.view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color::WHITE),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                timestamp_writes: self.timing.as_ref().map(|(set, _, _)| {
                    wgpu::RenderPassTimestampWrites {
                        query_set: set,
                        beginning_of_pass_write_index: Some(0),
                        end_of_pass_write_index: Some(1),
                    }
                }),
                ..Default::default()
            });
            self.renderer.render(&self.atlas, &mut pass).map_err(|e| e.to_string())?;
        }
        if let Some((set, resolve, read)) = &self.timing {
            encoder.resolve_query_set(set, 0..2, resolve, 0);
            encoder.copy_buffer_to_buffer(resolve, 0, read, 0, 16);
        }
        let submitted = Instant::now();
        queue.submit([encoder.finish()]);
        let mut gpu_ns = None;
        if let Some((_, _, read)) = &self.timing {
            let slice = read.slice(..);
            slice.map_async(wgpu::MapMode::Read, |_| {});
            device.poll(wgpu::PollType::wait_indefinitely()).map_err(|e| e.to_string())?;
            if let Ok(view) = slice.get_mapped_range() {
                let t: Vec<u64> = view
                    .chunks_exact(8)
                    .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
                    .collect();
                if let [begin, end, ..] = t[..] {
                    gpu_ns = Some(
                        (end.saturating_sub(begin) as f64 * queue.get_timestamp_period() as f64)
                            as u64,
                    );
                }
            }
            read.unmap();
        } else {
            device.poll(wgpu::PollType::wait_indefinitely()).map_err(|e| e.to_string())?;
        }
        let done_ns = Some(submitted.elapsed().as_nanos() as u64);
        Ok(crate::runner::FrameResult {
            ns,
            done_ns,
            counts: report.counts,
            skipped: report.skipped.len(),
            upload_calls: report.upload_calls,
            upload_bytes: report.upload_bytes,
            gpu_ns,
        })
    }
}

/// A progress bar that appears only when a run lasts longer than a second
/// (and only on a terminal).
pub struct Progress {
    bar: indicatif::ProgressBar,
    start: Instant,
}

impl Progress {
    pub fn new(len: u64, name: &str) -> Progress {
        let bar = indicatif::ProgressBar::with_draw_target(
            Some(len),
            indicatif::ProgressDrawTarget::hidden(),
        );
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{msg:>12} [{bar:40}] {pos}/{len} frames, {eta} left",
        ) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_message(name.to_string());
        Progress { bar, start: Instant::now() }
    }

    pub fn tick(&self) {
        if self.bar.is_hidden() && self.start.elapsed() > Duration::from_secs(1) {
            self.bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        }
        self.bar.inc(1);
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
