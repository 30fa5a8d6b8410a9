//! kerf against glyphon 0.12 (same wgpu 30 device, same font, same glyphs) and
//! kerf-cache against glyph_brush_draw_cache (same glyph stream, CPU only).
//!
//! `cargo bench --bench glyphon --features bench-glyphon [-- --quick]`
//!
//! Fairness: glyphon shapes with cosmic-text; shaping happens once, outside
//! the timed code, and kerf is fed exactly the glyph ids and positions
//! cosmic-text produced (same DejaVu Sans bytes, so the same glyph indices).
//! Both sides time `prepare` (lookup, rasterize misses, upload, vertex
//! buffer) and flush their texture writes with an empty `queue.submit` per
//! frame. glyphon rasterizes with swash, kerf with fontdue; the cold case
//! therefore also compares rasterizers.
//!
//! The multi-script groups feed the same cosmic-text buffers to both, and
//! kerf's timed frame includes its cosmic-text adapter (buffers to
//! positioned glyphs), as glyphon's `prepare` reads the buffers itself.
//! `multiscript_warm_prepare` times the same warm frames without the
//! submit (still made after each frame, untimed): on lavapipe an empty
//! submit is a hand-off to the driver's queue thread that costs tens of µs
//! of wall time, the same for both sides, which a short prepare cannot hide.

mod frame;
mod memory;
mod multiscript;
mod peak_rss;
mod scene;
mod styles;
mod zoom;

use scene::Shaped;

use criterion::{criterion_group, BatchSize, BenchmarkId, Criterion, Throughput};
use glyphon::{Cache, FontSystem, Resolution, SwashCache};
use kerf::cache::PositionedGlyph;
use kerf::gpu::{wgpu, CacheConfig, FontId, TextArea, TextAtlas, TextRenderer, Viewport};
use std::hint::black_box;

const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
const W: u32 = 1600;
const H: u32 = 1200;

const WORDS: &[&str] = &[
    "the",
    "quick",
    "brown",
    "fox",
    "jumps",
    "over",
    "lazy",
    "dog",
    "glyph",
    "cache",
    "atlas",
    "texture",
    "frame",
    "packing",
    "Ärger",
    "façade",
    "naïve",
    "Łódź",
    "Kraków",
    "λόγος",
    "γλυφή",
    "текст",
    "шрифт",
    "1234567890",
    "(x+y)²",
    "€£¥",
];

fn prose(seed: &mut u64, n: usize) -> String {
    (0..n)
        .map(|_| {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            WORDS[(*seed % WORDS.len() as u64) as usize]
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn font_system() -> FontSystem {
    let mut db = glyphon::fontdb::Database::new();
    db.load_font_data(dejavu::sans::regular().to_vec());
    FontSystem::new_with_locale_and_db("en-US".into(), db)
}

/// [`scene::shape`] at the benches' target width.
fn shape(fs: &mut FontSystem, lines: &[(String, f32)]) -> Shaped {
    scene::shape(fs, lines, W as f32)
}

/// The same glyphs as kerf positioned glyphs (pen on the baseline).
fn kerf_glyphs(
    shaped: &Shaped, range: std::ops::Range<usize>, dy: f32, font: FontId,
) -> Vec<PositionedGlyph> {
    let mut out = Vec::new();
    for (b, top) in &shaped.buffers[range] {
        for run in b.layout_runs() {
            for g in run.glyphs {
                out.push(PositionedGlyph {
                    font,
                    glyph: g.glyph_id,
                    size: g.font_size,
                    x: g.x + g.x_offset,
                    y: top + dy + run.line_y + g.y_offset,
                    color: [0, 0, 0, 255],
                });
            }
        }
    }
    out
}

fn glyphon_areas(
    shaped: &Shaped, range: std::ops::Range<usize>, dy: f32,
) -> Vec<glyphon::TextArea<'_>> {
    shaped.buffers[range]
        .iter()
        .map(|(b, top)| glyphon::TextArea {
            buffer: b,
            left: 0.0,
            top: top + dy,
            scale: 1.0,
            bounds: glyphon::TextBounds { left: 0, top: 0, right: W as i32, bottom: H as i32 },
            default_color: glyphon::Color::rgb(0, 0, 0),
            custom_glyphs: &[],
        })
        .collect()
}

struct Kerf {
    atlas: TextAtlas,
    renderer: TextRenderer,
    viewport: Viewport,
    font: FontId,
}

fn kerf_side(device: &wgpu::Device, queue: &wgpu::Queue) -> Kerf {
    kerf_side_bins(device, queue, CacheConfig::default().subpixel_bins)
}

/// kerf with `bins` sub-pixel x bins (the default is 4; 1 is whole-pixel
/// snapping) and the default uploads.
fn kerf_side_bins(device: &wgpu::Device, queue: &wgpu::Queue, bins: u32) -> Kerf {
    kerf_side_with(device, queue, bins, kerf::cache::UploadMode::default())
}

/// kerf with `bins` sub-pixel x bins and the given upload mode.
fn kerf_side_with(
    device: &wgpu::Device, queue: &wgpu::Queue, bins: u32, uploads: kerf::cache::UploadMode,
) -> Kerf {
    let config = CacheConfig {
        page_size: 1024,
        max_pages: 8,
        subpixel_bins: bins,
        uploads,
        ..CacheConfig::default()
    };
    kerf_side_config(device, queue, config)
}

/// kerf on an atlas of `config`, DejaVu Sans loaded, a window-sized viewport.
fn kerf_side_config(device: &wgpu::Device, queue: &wgpu::Queue, config: CacheConfig) -> Kerf {
    let mut atlas = TextAtlas::new(device, config).unwrap();
    let font = atlas.add_font(dejavu::sans::regular().to_vec()).unwrap();
    let renderer =
        TextRenderer::new(device, &atlas, FORMAT, wgpu::MultisampleState::default(), None);
    let mut viewport = Viewport::new(device, &atlas);
    viewport.update(queue, W, H);
    Kerf { atlas, renderer, viewport, font }
}

struct Glyphon {
    atlas: glyphon::TextAtlas,
    renderer: glyphon::TextRenderer,
    viewport: glyphon::Viewport,
    swash: SwashCache,
}

impl Glyphon {
    /// glyphon's `prepare` of `areas` by this side's renderer.
    fn prepare<'a>(
        &mut self, device: &wgpu::Device, queue: &wgpu::Queue, fs: &mut FontSystem,
        areas: impl IntoIterator<Item = glyphon::TextArea<'a>>,
    ) {
        self.renderer
            .prepare(device, queue, fs, &mut self.atlas, &self.viewport, areas, &mut self.swash)
            .unwrap();
    }
}

fn glyphon_side(device: &wgpu::Device, queue: &wgpu::Queue) -> Glyphon {
    let cache = Cache::new(device);
    let mut atlas = glyphon::TextAtlas::new(device, queue, &cache, FORMAT);
    let renderer =
        glyphon::TextRenderer::new(&mut atlas, device, wgpu::MultisampleState::default(), None);
    let mut viewport = glyphon::Viewport::new(device, &cache);
    viewport.update(queue, Resolution { width: W, height: H });
    Glyphon { atlas, renderer, viewport, swash: SwashCache::new() }
}

type Group<'a> = criterion::BenchmarkGroup<'a, criterion::measurement::WallTime>;

/// Times `frame` followed by an empty `queue.submit`, or with
/// `submit_timed` false, `frame` alone (the submit is still made after
/// each frame, untimed).
fn bench_frames(
    g: &mut Group<'_>, name: &str, queue: &wgpu::Queue, submit_timed: bool, mut frame: impl FnMut(),
) {
    g.bench_function(name, |b| {
        if submit_timed {
            b.iter(|| {
                frame();
                queue.submit([]);
            })
        } else {
            b.iter_custom(|n| {
                let mut spent = std::time::Duration::ZERO;
                for _ in 0..n {
                    let t = std::time::Instant::now();
                    frame();
                    spent += t.elapsed();
                    queue.submit([]);
                }
                spent
            })
        }
    });
}

/// kerf's warm prepare of `glyphs` (its atlas filled first), the submit
/// timed or not (see [`bench_frames`]).
fn kerf_warm(
    g: &mut Group<'_>, name: &str, device: &wgpu::Device, queue: &wgpu::Queue, k: &mut Kerf,
    glyphs: &[PositionedGlyph], submit_timed: bool,
) {
    let areas = [TextArea::glyphs(glyphs, 0.0, 0.0)];
    k.renderer.prepare(device, queue, &mut k.atlas, &areas, &k.viewport).unwrap();
    bench_frames(g, name, queue, submit_timed, || {
        black_box(k.renderer.prepare(device, queue, &mut k.atlas, &areas, &k.viewport).unwrap());
    });
}

/// glyphon's warm prepare of every line of `text` (its atlas filled first),
/// the submit timed or not (see [`bench_frames`]).
fn glyphon_warm(
    g: &mut Group<'_>, device: &wgpu::Device, queue: &wgpu::Queue, fs: &mut FontSystem,
    text: &Shaped, submit_timed: bool,
) {
    let mut gl = glyphon_side(device, queue);
    let mut frame = || {
        let areas = glyphon_areas(text, 0..text.buffers.len(), 0.0);
        gl.prepare(device, queue, fs, areas);
        gl.atlas.trim();
    };
    frame();
    bench_frames(g, "glyphon", queue, submit_timed, frame);
}

/// glyphon's cold prepare of every line of `text` (a new atlas and swash cache each time).
fn glyphon_cold(
    g: &mut Group<'_>, device: &wgpu::Device, queue: &wgpu::Queue, fs: &mut FontSystem,
    text: &Shaped,
) {
    g.bench_function("glyphon", |b| {
        b.iter_batched(
            || glyphon_side(device, queue),
            |mut gl| {
                let areas = glyphon_areas(text, 0..text.buffers.len(), 0.0);
                gl.prepare(device, queue, fs, areas);
                gl.atlas.trim();
                queue.submit([]);
                gl
            },
            BatchSize::PerIteration,
        )
    });
}

fn paragraph() -> Vec<(String, f32)> {
    let mut seed = 0x1234_5678_9abc_def1;
    (0..30).map(|i| (prose(&mut seed, 10), [12.0, 14.0, 16.0, 20.0, 24.0][i % 5])).collect()
}

fn document() -> Vec<(String, f32)> {
    let mut seed = 0x0fed_cba9_8765_4321;
    (0..400)
        .map(|i| {
            (prose(&mut seed, 9), if i % 25 == 0 { 28.0 } else { [13.0, 15.0, 15.0, 17.0][i % 4] })
        })
        .collect()
}

fn benches(c: &mut Criterion) {
    let gpu = kerf::gpu::headless().unwrap_or_else(|e| panic!("{e}"));
    let (device, queue) = (&gpu.device, &gpu.queue);
    eprintln!("device: {} ({:?})", gpu.info.name, gpu.info.backend);
    let mut fs = font_system();
    let para = shape(&mut fs, &paragraph());
    let n_lines = para.buffers.len();
    let probe = kerf_side(device, queue);
    let glyphs = kerf_glyphs(&para, 0..n_lines, 0.0, probe.font);
    eprintln!("paragraph: {} glyphs", glyphs.len());

    let mut g = c.benchmark_group("prepare_warm");
    g.throughput(Throughput::Elements(glyphs.len() as u64));
    for (name, bins, lcd) in [("kerf", 4, false), ("kerf-bins1", 1, false), ("kerf-lcd", 4, true)] {
        let mut k = kerf_side_bins(device, queue, bins);
        if lcd {
            let aa = kerf::gpu::Antialiasing::Lcd(kerf::gpu::SubpixelOrder::Rgb);
            if let Some(reason) = k.renderer.set_antialiasing(device, &k.atlas, aa) {
                eprintln!("kerf-lcd: drawn in grayscale ({reason:?})");
            }
        }
        kerf_warm(&mut g, name, device, queue, &mut k, &glyphs, true);
    }
    glyphon_warm(&mut g, device, queue, &mut fs, &para, true);
    g.finish();
    // The same warm frames with only `prepare` timed (the submit still
    // follows each, untimed): on lavapipe an empty submit right after the
    // last one waits for the driver's queue thread, longer the shorter the
    // prepare before it, so the row above mixes the two.
    let mut g = c.benchmark_group("prepare_warm_prepare");
    g.throughput(Throughput::Elements(glyphs.len() as u64));
    let mut k = kerf_side_bins(device, queue, 4);
    kerf_warm(&mut g, "kerf", device, queue, &mut k, &glyphs, false);
    glyphon_warm(&mut g, device, queue, &mut fs, &para, false);
    g.finish();

    let mut g = c.benchmark_group("prepare_cold");
    g.sample_size(10);
    g.throughput(Throughput::Elements(glyphs.len() as u64));
    let (auto, glyph_uploads, dirty_rect) = (
        kerf::cache::UploadMode::Auto,
        kerf::cache::UploadMode::Glyphs,
        kerf::cache::UploadMode::DirtyRect,
    );
    for (name, bins, uploads) in [
        ("kerf", 4, auto),
        ("kerf-bins1", 1, auto),
        ("kerf-glyphs", 4, glyph_uploads),
        ("kerf-dirty-rect", 4, dirty_rect),
    ] {
        g.bench_function(name, |b| {
            b.iter_batched(
                || kerf_side_with(device, queue, bins, uploads),
                |mut k| {
                    let areas = [TextArea::glyphs(&glyphs, 0.0, 0.0)];
                    black_box(
                        k.renderer
                            .prepare(device, queue, &mut k.atlas, &areas, &k.viewport)
                            .unwrap(),
                    );
                    queue.submit([]);
                    k
                },
                BatchSize::PerIteration,
            )
        });
    }
    glyphon_cold(&mut g, device, queue, &mut fs, &para);
    g.finish();

    // Scroll: a 400-line document, 40 lines visible, a quarter line per frame.
    let doc = shape(&mut fs, &document());
    let line_h = 20.0f32;
    let visible = 40usize;
    let mut g = c.benchmark_group("scroll_frame");
    for side in ["kerf", "glyphon"] {
        g.bench_function(BenchmarkId::from_parameter(side), |b| {
            let mut k = kerf_side(device, queue);
            let mut gl = glyphon_side(device, queue);
            let mut frame = 0usize;
            b.iter(|| {
                let offset = frame as f32 * line_h / 4.0;
                let first = (offset / line_h) as usize % (doc.buffers.len() - visible);
                let range = first..first + visible;
                let dy = -doc.buffers[first].1 + (first as f32 * line_h - offset);
                if side == "kerf" {
                    let glyphs = kerf_glyphs(&doc, range, dy, k.font);
                    let areas = [TextArea::glyphs(&glyphs, 0.0, 0.0)];
                    black_box(
                        k.renderer
                            .prepare(device, queue, &mut k.atlas, &areas, &k.viewport)
                            .unwrap(),
                    );
                } else {
                    let areas = glyphon_areas(&doc, range, dy);
                    gl.prepare(device, queue, &mut fs, areas);
                    gl.atlas.trim();
                }
                queue.submit([]);
                frame += 1;
            })
        });
    }
    g.finish();

    // Churn: every frame draws 4 lines at a size no recent frame used (200
    // sizes, 1/8 px apart, in turn), so nearly every glyph is a miss: the
    // frame is rasterize + place + upload. glyphon writes each new glyph with
    // its own `write_texture`; kerf (Auto, the default) packs the frame's
    // new texels into one buffer write and scatters them with one draw per
    // dirty page, or writes a page's dirty box when its new glyphs fill at
    // least a third of it (and, for comparison, its fixed modes: always
    // glyph by glyph; dirty rectangles, one `write_texture` per dirty
    // page). kerf's renderers draw exactly (`ZoomPolicy::Exact`): the same
    // lines at a new size each frame are a zoom, drawn from cached size
    // steps with no misses at all by `ZoomPolicy::Steps` (the row
    // `kerf-zoom` shows it; the default on a GPU), and
    // this group times misses. Both atlases are bounded to the same 1 MiB: the device's textures
    // are at most 1024 px (glyphon's atlas grows to that and then evicts its
    // least recently used glyphs), and kerf has one 1024 px page. The 200
    // sizes' glyphs need several times that, so both sides churn.
    let (device, queue) = &limited_device(1024);
    let mut seed = 0x5eed_c4a5_e000_0001u64;
    let churn_text: Vec<String> = (0..4).map(|_| prose(&mut seed, 9)).collect();
    let pool: Vec<Shaped> = (0..200)
        .map(|i| {
            shape(
                &mut fs,
                &churn_text
                    .iter()
                    .map(|t| (t.clone(), 10.0 + i as f32 * 0.125))
                    .collect::<Vec<_>>(),
            )
        })
        .collect();
    let per_frame = kerf_glyphs(&pool[0], 0..4, 0.0, probe.font).len();
    let mut g = c.benchmark_group("prepare_churn");
    g.throughput(Throughput::Elements(per_frame as u64));
    // (kerf-eager: DejaVu Sans parsed whole by fontdue instead of loaded
    // lazily, as `FontLoading::Eager` does: cheaper misses.)
    let lazy = kerf::cache::fonts::FontLoading::Auto;
    let eager = kerf::cache::fonts::FontLoading::Eager;
    let exact = kerf::gpu::ZoomPolicy::Exact;
    for (name, uploads, bins, loading, zoom) in [
        ("kerf", auto, 4, lazy, exact),
        ("kerf-eager", auto, 4, eager, exact),
        ("kerf-glyphs", glyph_uploads, 4, lazy, exact),
        ("kerf-dirty-rect", dirty_rect, 4, lazy, exact),
        ("kerf-bins1", auto, 1, lazy, exact),
        ("kerf-zoom", auto, 4, lazy, kerf::gpu::ZoomPolicy::Steps { per_octave: 8 }),
    ] {
        let config = CacheConfig {
            page_size: 1024,
            max_pages: 1,
            uploads,
            subpixel_bins: bins,
            ..CacheConfig::default()
        };
        let mut atlas = TextAtlas::new(device, config).unwrap();
        let parsed =
            kerf::cache::fonts::Font::from_bytes_with(dejavu::sans::regular().to_vec(), 0, loading);
        let font = atlas.cache_mut().add_parsed_font(parsed.unwrap()).unwrap();
        let mut renderer =
            TextRenderer::new(device, &atlas, FORMAT, wgpu::MultisampleState::default(), None);
        renderer.set_zoom_policy(zoom);
        let mut viewport = Viewport::new(device, &atlas);
        viewport.update(queue, W, H);
        let frames: Vec<Vec<PositionedGlyph>> =
            pool.iter().map(|p| kerf_glyphs(p, 0..4, 0.0, font)).collect();
        let mut frame = 0usize;
        g.bench_function(name, |b| {
            b.iter(|| {
                let areas = [TextArea::glyphs(&frames[frame % frames.len()], 0.0, 0.0)];
                black_box(renderer.prepare(device, queue, &mut atlas, &areas, &viewport).unwrap());
                queue.submit([]);
                frame += 1;
            })
        });
        let st = atlas.cache().stats();
        eprintln!(
            "prepare_churn {name}: {} frames, hit rate {:.1}%, {} evictions, {:.0} bytes rasterized and {:.0} uploaded per frame; {:.1} glyphs rasterized per frame, each: raster {:.0} ns, pack {:.0} ns, stage {:.0} ns",
            st.frames,
            st.hit_rate() * 100.0,
            st.evictions,
            st.rasterized_bytes as f64 / st.frames as f64,
            atlas.gpu_stats().upload_bytes as f64 / st.frames as f64,
            st.rasterized as f64 / st.frames as f64,
            st.raster_ns as f64 / st.rasterized as f64,
            st.pack_ns as f64 / st.rasterized as f64,
            st.stage_ns as f64 / st.rasterized as f64,
        );
    }
    {
        let mut gl = glyphon_side(device, queue);
        let mut frame = 0usize;
        g.bench_function("glyphon", |b| {
            b.iter(|| {
                let areas = glyphon_areas(&pool[frame % pool.len()], 0..4, 0.0);
                gl.prepare(device, queue, &mut fs, areas);
                gl.atlas.trim();
                queue.submit([]);
                frame += 1;
            })
        });
    }
    g.finish();

    // CPU caches on the same glyph stream: kerf-cache vs glyph_brush_draw_cache, warm.
    let mut g = c.benchmark_group("cpu_cache_warm");
    g.throughput(Throughput::Elements(glyphs.len() as u64));
    {
        let mut cache =
            kerf::cache::GlyphCache::new(CacheConfig { page_size: 1024, ..CacheConfig::default() })
                .unwrap();
        let f = cache.add_font(dejavu::sans::regular().to_vec()).unwrap();
        let glyphs: Vec<PositionedGlyph> =
            glyphs.iter().map(|g| PositionedGlyph { font: f, ..*g }).collect();
        let mut quads = Vec::new();
        g.bench_function("kerf-cache", |b| {
            b.iter(|| {
                quads.clear();
                let mut frame = cache.begin_frame();
                frame.prepare(&glyphs, &mut quads);
                black_box(frame.finish());
            })
        });
    }
    {
        use ab_glyph::{point, Glyph, GlyphId, PxScale};
        let font = ab_glyph::FontArc::try_from_vec(dejavu::sans::regular().to_vec()).unwrap();
        let mut dc = glyph_brush_draw_cache::DrawCache::builder().dimensions(1024, 1024).build();
        let abg: Vec<Glyph> = glyphs
            .iter()
            .map(|g| Glyph {
                id: GlyphId(g.glyph),
                scale: PxScale::from(g.size),
                position: point(g.x, g.y),
            })
            .collect();
        g.bench_function("glyph_brush_draw_cache", |b| {
            b.iter(|| {
                for gl in &abg {
                    dc.queue_glyph(0, gl.clone());
                }
                dc.cache_queued(std::slice::from_ref(&font), |_, data| {
                    black_box(data);
                })
                .unwrap();
                for gl in &abg {
                    black_box(dc.rect_for(0, gl));
                }
            })
        });
    }
    g.finish();
}

/// A device whose textures are at most `side` px.
fn limited_device(side: u32) -> (wgpu::Device, wgpu::Queue) {
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter =
        kerf::gpu::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default()))
            .unwrap();
    let limits = wgpu::Limits { max_texture_dimension_2d: side, ..adapter.limits() };
    kerf::gpu::block_on(
        adapter.request_device(&wgpu::DeviceDescriptor {
            required_limits: limits,
            ..Default::default()
        }),
    )
    .unwrap()
}

/// The case glyphon reports `AtlasFull` and kerf draws: a device whose
/// textures are at most 512 px, and one frame with more glyph area than that.
fn atlas_full_case(_c: &mut Criterion) {
    let (device, queue) = limited_device(512);
    let mut fs = font_system();
    let chars: String = ('A'..='Z').chain('a'..='z').chain('Α'..='Ω').chain('а'..='я').collect();
    let shaped = shape(&mut fs, &[(chars.clone(), 64.0), (chars, 48.0)]);
    let mut gl = glyphon_side(&device, &queue);
    let r = gl.renderer.prepare(
        &device,
        &queue,
        &mut fs,
        &mut gl.atlas,
        &gl.viewport,
        glyphon_areas(&shaped, 0..2, 0.0),
        &mut gl.swash,
    );
    eprintln!("atlas-full case, glyphon (512 px texture limit): {r:?}");
    for pages in [4u32, 1] {
        let mut atlas = TextAtlas::new(
            &device,
            CacheConfig { page_size: 512, max_pages: pages, ..CacheConfig::default() },
        )
        .unwrap();
        let font = atlas.add_font(dejavu::sans::regular().to_vec()).unwrap();
        let mut renderer =
            TextRenderer::new(&device, &atlas, FORMAT, wgpu::MultisampleState::default(), None);
        let vp = Viewport::new(&device, &atlas);
        let glyphs = kerf_glyphs(&shaped, 0..2, 0.0, font);
        let rep = renderer
            .prepare(&device, &queue, &mut atlas, &[TextArea::glyphs(&glyphs, 0.0, 0.0)], &vp)
            .unwrap();
        eprintln!(
            "atlas-full case, kerf (512 px pages, at most {pages}): Ok, {} glyphs drawn, {} skipped and reported, {} layers",
            rep.instances,
            rep.skipped.len(),
            rep.layers
        );
    }
}

use frame::frame_case;
use multiscript::multiscript_case;

criterion_group!(
    glyphon_vs_kerf,
    atlas_full_case,
    benches,
    multiscript_case,
    frame_case,
    frame::frame_scenes_case,
    zoom::zoom_case,
    styles::styles_case
);

fn main() {
    // One side's peak memory, in a process of its own (memory.rs).
    if let Ok(side) = std::env::var("KERF_BENCH_MEMORY") {
        memory::run(&side);
        return;
    }
    glyphon_vs_kerf();
    Criterion::default().configure_from_args().final_summary();
}
