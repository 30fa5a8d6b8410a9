//! `kerf profile`: whole glyph-cache workloads, frame by frame, with the split
//! of a miss into rasterize / pack / stage.

use crate::corpus::{prose, shape_line, Rng, Zipf};
use crate::plot::Series;
use crate::runner::{CpuRunner, Runner};
use kerf_cache::{Algorithm, CacheConfig, FontId, GlyphCache, PositionedGlyph};
use serde::Serialize;
use std::path::PathBuf;

/// Where the glyph cache runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Backend {
    /// kerf-cache alone: lookups, rasterization, packing, staging and upload lists, no GPU.
    Cpu,
    /// kerf-wgpu on a real device: adds texture writes, instance uploads and the draw.
    Wgpu,
}

/// The built-in workloads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum WorkloadName {
    /// The same multi-size paragraph every frame (a UI that redraws its text).
    Latin,
    /// A console: new lines of text at random sizes arrive every frame, the last 48 stay visible.
    TextStream,
    /// Zipf(s = 1) draws over every glyph of the font at 10 sizes: a working set far larger than the atlas.
    CjkChurn,
    /// A long document with headings, body and code, scrolled a quarter line per frame.
    Scroll,
    /// Pinch-zoom: a paragraph whose size changes every frame, 12 → 96 px and
    /// back, geometrically, over 240 frames (every glyph misses every frame).
    Zoom,
    /// All five, one after another.
    All,
}

/// Arguments of `kerf profile`.
#[derive(clap::Args, Debug)]
pub struct ProfileArgs {
    /// Where the cache runs.
    #[arg(long, value_enum, default_value = "cpu")]
    pub backend: Backend,
    /// Built-in workload (ignored with --text).
    #[arg(long, value_enum, default_value = "all")]
    pub workload: WorkloadName,
    /// Draw this UTF-8 text file instead, line by line at a spread of sizes, scrolling.
    #[arg(long, value_name = "FILE")]
    pub text: Option<PathBuf>,
    /// Font file (TrueType/OpenType); default: the embedded DejaVu Sans (and Sans Mono for code).
    #[arg(long, value_name = "FILE")]
    pub font: Option<PathBuf>,
    /// Frames per workload.
    #[arg(long, default_value_t = 300)]
    pub frames: usize,
    /// Atlas page side in texels.
    #[arg(long, default_value_t = 1024)]
    pub page_size: u32,
    /// Most atlas pages.
    #[arg(long, default_value_t = 2)]
    pub pages: u32,
    /// Packer of every page (see `kerf pack --help`).
    #[arg(long, default_value = "maxrects-bssf", value_parser = crate::pack::parse_algorithm)]
    pub algo: Algorithm,
    /// Frames in flight whose glyphs are protected from eviction.
    #[arg(long, default_value_t = 2)]
    pub in_flight: u32,
    /// Sub-pixel x positions per pixel (1 = whole-pixel snapping; see CacheConfig::subpixel_bins).
    #[arg(long, default_value_t = kerf_cache::CacheConfig::default().subpixel_bins)]
    pub subpixel_bins: u32,
    /// How new texels are uploaded: auto (per dirty page, its bounding box
    /// when the new glyphs fill at least a third of it or it is at most
    /// 256 KiB, 1.5 MiB on a software adapter, else glyph by glyph),
    /// glyphs (each new glyph's texels packed tightly: one buffer write per
    /// frame, one scatter draw per dirty page) or dirty-rect (the bounding
    /// box of each dirty page: one texture write per dirty page).
    #[arg(long, default_value = "auto")]
    pub uploads: kerf_cache::UploadMode,
    /// Print JSON (an object for one workload, an array for several).
    #[arg(long)]
    pub json: bool,
    /// Draw frame time, hit rate and occupancy over the run to this PNG.
    #[arg(long, value_name = "FILE.png")]
    pub plot: Option<PathBuf>,
}

/// One workload's figures. Times are wall-clock nanoseconds on this machine.
#[derive(Serialize, Debug, Clone)]
pub struct Report {
    /// Workload name.
    pub workload: String,
    /// Frames run.
    pub frames: usize,
    /// Glyph lookups (glyphs drawn or attempted).
    pub glyphs: u64,
    /// Lookups that found the glyph cached.
    pub hits: u64,
    /// Lookups that did not.
    pub misses: u64,
    /// Glyphs evicted (slots deallocated).
    pub evictions: u64,
    /// hits / glyphs.
    pub hit_rate: f64,
    /// Time per glyph of a frame whose glyphs are all cached (key to quad);
    /// `None` (JSON `null`) when no such frame was measured: the last
    /// frame, replayed, missed (it does not fit the pages at once).
    pub ns_per_hit: Option<f64>,
    /// Time per missed glyph: frame time less the hits' share, over misses;
    /// `None` when there were hits but no hit time to take off.
    pub ns_per_miss: Option<f64>,
    /// Rasterization time per rasterized glyph.
    pub raster_ns: f64,
    /// Packing time (allocate, evict, deallocate) per rasterized glyph.
    pub pack_ns: f64,
    /// Staging time (copy into the page, cut uploads) per rasterized glyph.
    pub stage_ns: f64,
    /// Mean live occupancy of the pages, over frames that evicted (the atlas was full);
    /// over the last frame when nothing was ever evicted.
    pub occupancy_mean: f64,
    /// Minimum of the same.
    pub occupancy_min: f64,
    /// Pages at the end.
    pub pages: u32,
    /// Glyphs not drawn (errors; 0 while each frame's working set fits the atlas).
    pub skipped: u64,
    /// Glyphs drawn degraded (another cached sub-pixel bin of the glyph)
    /// because the atlas had no room for theirs: drawn, not skipped.
    pub degraded: u64,
    /// Slowest frame.
    pub worst_frame_ns: u64,
    /// Median frame.
    pub median_frame_ns: u64,
    /// Uploads handed out per frame (at most one per dirty page).
    pub upload_calls_per_frame: f64,
    /// Upload bytes per frame.
    pub upload_bytes_per_frame: f64,
    /// Bytes of coverage rasterized per frame (what the uploads carry at least).
    pub raster_bytes_per_frame: f64,
    /// `auto` (the default), `glyphs` (per-glyph uploads) or `dirty-rect`.
    pub uploads: String,
    /// Median GPU time of the text pass (wgpu backend with timestamp queries).
    pub gpu_median_frame_ns: Option<u64>,
    /// Median wall time from the frame's submit until the GPU is done with
    /// it (wgpu backend): the GPU side of the frame as the app waits for it,
    /// beside `median_frame_ns` (prepare, the CPU side).
    pub gpu_done_median_ns: Option<u64>,
    /// `cpu` or `wgpu`.
    pub backend: String,
    /// Packer name.
    pub algorithm: String,
}

/// A stream of frames: fills `out` with the glyphs of frame `i`.
trait Workload {
    fn name(&self) -> String;
    fn frame(&mut self, i: usize, out: &mut Vec<PositionedGlyph>);
}

struct Fonts {
    main: FontId,
    mono: FontId,
}

fn line_at(line: &[PositionedGlyph], x: f32, y: f32, out: &mut Vec<PositionedGlyph>) {
    out.extend(line.iter().map(|g| PositionedGlyph { x: g.x + x, y: g.y + y, ..*g }));
}

/// The same paragraph each frame.
struct Latin {
    lines: Vec<(f32, Vec<PositionedGlyph>)>,
}

impl Latin {
    fn new(cache: &GlyphCache, f: &Fonts) -> Latin {
        let mut rng = Rng::new(1);
        let font = cache.fonts().get(f.main).expect("font loaded");
        let sizes = [12.0, 14.0, 16.0, 18.0, 20.0, 24.0];
        let mut y = 0.0;
        let lines = (0..40)
            .map(|i| {
                let px = sizes[i % sizes.len()];
                y += px * 1.3;
                (y, shape_line(font, f.main, &prose(&mut rng, 12), px, [20, 20, 20, 255]))
            })
            .collect();
        Latin { lines }
    }
}

impl Workload for Latin {
    fn name(&self) -> String {
        "latin".into()
    }
    fn frame(&mut self, _i: usize, out: &mut Vec<PositionedGlyph>) {
        for (y, line) in &self.lines {
            line_at(line, 8.0, *y, out);
        }
    }
}

/// Frames of a zoom cycle: 12 px to 96 px and back, geometrically.
const ZOOM_FRAMES: usize = 240;

/// The size of frame `i` of a zoom cycle.
fn zoom_px(i: usize) -> f32 {
    let t = (i % ZOOM_FRAMES) as f32 / (ZOOM_FRAMES / 2) as f32;
    let t = if t > 1.0 { 2.0 - t } else { t };
    12.0 * 8f32.powf(t)
}

/// A paragraph zoomed: laid out once at 16 px, drawn each frame at the
/// frame's size (positions scale with it, as a shaper's do).
struct Zoom {
    lines: Vec<Vec<PositionedGlyph>>,
}

impl Zoom {
    fn new(cache: &GlyphCache, f: &Fonts) -> Zoom {
        let mut rng = Rng::new(7);
        let font = cache.fonts().get(f.main).expect("font loaded");
        let lines =
            (0..10).map(|_| shape_line(font, f.main, &prose(&mut rng, 8), 16.0, [0, 0, 0, 255]));
        Zoom { lines: lines.collect() }
    }
}

impl Workload for Zoom {
    fn name(&self) -> String {
        "zoom".into()
    }
    fn frame(&mut self, i: usize, out: &mut Vec<PositionedGlyph>) {
        let px = zoom_px(i);
        let s = px / 16.0;
        for (n, line) in self.lines.iter().enumerate() {
            let y = (n + 1) as f32 * px * 1.3;
            out.extend(line.iter().map(|g| PositionedGlyph {
                x: 8.0 + g.x * s,
                y,
                size: px,
                ..*g
            }));
        }
    }
}

/// A console receiving new lines every frame.
struct TextStream {
    rng: Rng,
    font: kerf_cache::fonts::Font,
    id: FontId,
    lines: std::collections::VecDeque<Vec<PositionedGlyph>>,
}

impl Workload for TextStream {
    fn name(&self) -> String {
        "text-stream".into()
    }
    fn frame(&mut self, _i: usize, out: &mut Vec<PositionedGlyph>) {
        let sizes = [10.0, 11.0, 12.0, 13.0, 14.0, 16.0, 18.0, 20.0, 24.0, 28.0, 32.0];
        for _ in 0..8 {
            let px = sizes[self.rng.below(sizes.len() as u64) as usize];
            let text = prose(&mut self.rng, 10);
            self.lines.push_back(shape_line(&self.font, self.id, &text, px, [0, 0, 0, 255]));
            if self.lines.len() > 48 {
                self.lines.pop_front();
            }
        }
        let mut y = 0.0;
        for line in &self.lines {
            y += line.first().map_or(12.0, |g| g.size) * 1.25;
            line_at(line, 4.0, y, out);
        }
    }
}

/// Zipf draws over (glyph, size).
struct CjkChurn {
    rng: Rng,
    zipf: Zipf,
    keys: Vec<(u16, f32)>,
    id: FontId,
}

impl CjkChurn {
    fn new(cache: &GlyphCache, f: &Fonts) -> CjkChurn {
        let count = cache.fonts().get(f.main).expect("font loaded").glyph_count();
        let sizes = [12.0, 14.0, 16.0, 18.0, 20.0, 24.0, 28.0, 32.0, 40.0, 48.0];
        let mut keys: Vec<(u16, f32)> =
            (1..count).flat_map(|g| sizes.iter().map(move |&s| (g, s))).collect();
        let mut rng = Rng::new(7);
        for i in (1..keys.len()).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            keys.swap(i, j);
        }
        CjkChurn { rng, zipf: Zipf::new(keys.len(), 1.0), keys, id: f.main }
    }
}

impl Workload for CjkChurn {
    fn name(&self) -> String {
        "cjk-churn".into()
    }
    fn frame(&mut self, _i: usize, out: &mut Vec<PositionedGlyph>) {
        for n in 0..2000 {
            let (glyph, size) = self.keys[self.zipf.sample(&mut self.rng)];
            let (col, row) = ((n % 50) as f32, (n / 50) as f32);
            out.push(PositionedGlyph {
                font: self.id,
                glyph,
                size,
                x: col * 30.0,
                y: 40.0 + row * 50.0,
                color: [0, 0, 0, 255],
            });
        }
    }
}

/// A long document scrolled a quarter line per frame.
struct Scroll {
    name: String,
    lines: Vec<Vec<PositionedGlyph>>,
    line_height: f32,
    visible: usize,
}

impl Scroll {
    fn document(cache: &GlyphCache, f: &Fonts) -> Scroll {
        let mut rng = Rng::new(3);
        let main = cache.fonts().get(f.main).expect("font loaded");
        let mono = cache.fonts().get(f.mono).expect("font loaded");
        let lines = (0..3000)
            .map(|i| match i % 40 {
                0 => shape_line(main, f.main, &prose(&mut rng, 4), 28.0, [0, 0, 80, 255]),
                30..=35 => shape_line(mono, f.mono, &prose(&mut rng, 8), 13.0, [80, 0, 0, 255]),
                _ => shape_line(main, f.main, &prose(&mut rng, 11), 15.0, [0, 0, 0, 255]),
            })
            .collect();
        Scroll { name: "scroll".into(), lines, line_height: 32.0, visible: 40 }
    }

    fn file(cache: &GlyphCache, id: FontId, text: &str, name: String) -> Scroll {
        let font = cache.fonts().get(id).expect("font loaded");
        let sizes = [10.0, 12.0, 14.0, 16.0, 20.0, 24.0, 32.0];
        let mut lines: Vec<Vec<PositionedGlyph>> = text
            .lines()
            .enumerate()
            .map(|(i, l)| shape_line(font, id, l, sizes[i % sizes.len()], [0, 0, 0, 255]))
            .collect();
        if lines.is_empty() {
            lines.push(Vec::new());
        }
        Scroll { name, lines, line_height: 40.0, visible: 40 }
    }
}

impl Workload for Scroll {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn frame(&mut self, i: usize, out: &mut Vec<PositionedGlyph>) {
        let offset = i as f32 * self.line_height / 4.0;
        let first = (offset / self.line_height) as usize;
        for k in first..first + self.visible + 1 {
            let line = &self.lines[k % self.lines.len()];
            line_at(line, 4.0, (k as f32 + 1.0) * self.line_height - offset, out);
        }
    }
}

fn config(args: &ProfileArgs) -> CacheConfig {
    CacheConfig {
        page_size: args.page_size,
        max_pages: args.pages,
        algorithm: args.algo,
        frames_in_flight: args.in_flight,
        subpixel_bins: args.subpixel_bins,
        uploads: args.uploads,
        memory_budget: u64::MAX,
        ..CacheConfig::default()
    }
}

fn load_fonts(cache: &mut GlyphCache, font: &Option<PathBuf>) -> Result<Fonts, String> {
    match font {
        Some(path) => {
            let id = crate::corpus::load_font_file(cache, path)?;
            Ok(Fonts { main: id, mono: id })
        }
        None => {
            let main =
                cache.add_font(dejavu::sans::regular().to_vec()).map_err(|e| e.to_string())?;
            let mono =
                cache.add_font(dejavu::sans_mono::regular().to_vec()).map_err(|e| e.to_string())?;
            Ok(Fonts { main, mono })
        }
    }
}

/// A runner for `config`: kerf-cache alone, or kerf-wgpu on `gpu`.
pub fn make_runner(
    config: CacheConfig, gpu: Option<&crate::gpu::Gpu>,
) -> Result<Box<dyn Runner + '_>, String> {
    match gpu {
        None => Ok(Box::new(CpuRunner {
            cache: GlyphCache::new(config).map_err(|e| e.to_string())?,
            quads: Vec::new(),
        })),
        Some(g) => Ok(Box::new(crate::gpu::GpuRunner::new(g, config)?)),
    }
}

fn profile_one(
    args: &ProfileArgs, gpu: Option<&crate::gpu::Gpu>,
    make: &dyn Fn(&mut GlyphCache, &Fonts) -> Box<dyn Workload>,
) -> Result<(Report, Series), String> {
    let mut runner = make_runner(config(args), gpu)?;
    let fonts = load_fonts(runner.cache_mut(), &args.font)?;
    let mut work = make(runner.cache_mut(), &fonts);
    let mut glyphs = Vec::new();
    let mut frame_ns = Vec::with_capacity(args.frames);
    let mut gpu_ns = Vec::new();
    let mut done_ns = Vec::new();
    let mut occ: Vec<f64> = Vec::new();
    let mut skipped = 0u64;
    let mut degraded = 0u64;
    let (mut upload_calls, mut upload_bytes) = (0u64, 0u64);
    let mut series = Series::default();
    let raster_start = runner.cache().stats().rasterized_bytes;
    let progress = crate::gpu::Progress::new(args.frames as u64, &work.name());
    for i in 0..args.frames {
        glyphs.clear();
        work.frame(i, &mut glyphs);
        let r = runner.frame(&glyphs)?;
        frame_ns.push(r.ns);
        gpu_ns.extend(r.gpu_ns);
        done_ns.extend(r.done_ns);
        skipped += r.skipped as u64;
        degraded += r.counts.degraded;
        upload_calls += r.upload_calls as u64;
        upload_bytes += r.upload_bytes;
        let o = live_occupancy(runner.cache());
        if r.counts.evictions > 0 {
            occ.push(o);
        }
        series.frame_us.push(r.ns as f64 / 1e3);
        series.hit_rate.push(if r.counts.lookups == 0 {
            100.0
        } else {
            r.counts.hits as f64 * 100.0 / r.counts.lookups as f64
        });
        series.occupancy.push(o * 100.0);
        progress.tick();
    }
    progress.finish();
    if occ.is_empty() {
        occ.push(live_occupancy(runner.cache()));
    }
    let stats = runner.cache().stats().clone();
    let raster_bytes = stats.rasterized_bytes - raster_start;
    let total_ns: u64 = frame_ns.iter().sum();
    // Hits: replay the last frame (now fully cached) and keep the fastest of a few runs.
    let mut ns_per_hit: Option<f64> = None;
    if !glyphs.is_empty() {
        for _ in 0..5 {
            let r = runner.frame(&glyphs)?;
            let ns = r.ns as f64 / glyphs.len() as f64;
            if r.counts.hits == glyphs.len() as u64 {
                ns_per_hit = Some(ns_per_hit.map_or(ns, |best| best.min(ns)));
            }
        }
    }
    let per = |ns: u64, n: u64| if n == 0 { 0.0 } else { ns as f64 / n as f64 };
    // The misses' time is the frames' time less the hits' share: unknown
    // when there were hits and no hit time was measured.
    let hit_share = match ns_per_hit {
        Some(ns) => Some(ns * stats.hits as f64),
        None if stats.hits == 0 => Some(0.0),
        None => None,
    };
    frame_ns.sort_unstable();
    gpu_ns.sort_unstable();
    done_ns.sort_unstable();
    let frames = args.frames.max(1) as f64;
    series.name = work.name();
    let report = Report {
        workload: work.name(),
        frames: args.frames,
        glyphs: stats.lookups,
        hits: stats.hits,
        misses: stats.misses,
        evictions: stats.evictions,
        hit_rate: stats.hit_rate(),
        ns_per_hit,
        ns_per_miss: match hit_share {
            _ if stats.misses == 0 => Some(0.0),
            Some(share) => Some((total_ns as f64 - share).max(0.0) / stats.misses as f64),
            None => None,
        },
        raster_ns: per(stats.raster_ns, stats.rasterized),
        pack_ns: per(stats.pack_ns, stats.rasterized),
        stage_ns: per(stats.stage_ns, stats.rasterized),
        occupancy_mean: occ.iter().sum::<f64>() / occ.len() as f64,
        occupancy_min: occ.iter().cloned().fold(f64::INFINITY, f64::min),
        pages: runner.cache().pages().len() as u32,
        skipped,
        degraded,
        worst_frame_ns: frame_ns.last().copied().unwrap_or(0),
        median_frame_ns: frame_ns.get(frame_ns.len() / 2).copied().unwrap_or(0),
        upload_calls_per_frame: upload_calls as f64 / frames,
        upload_bytes_per_frame: upload_bytes as f64 / frames,
        raster_bytes_per_frame: raster_bytes as f64 / frames,
        // The flag's own spelling (`glyphs`, `dirty-rect`).
        uploads: args.uploads.to_string(),
        gpu_median_frame_ns: gpu_ns.get(gpu_ns.len() / 2).copied(),
        gpu_done_median_ns: done_ns.get(done_ns.len() / 2).copied(),
        backend: if gpu.is_some() { "wgpu".into() } else { "cpu".into() },
        algorithm: args.algo.to_string(),
    };
    Ok((report, series))
}

/// Live glyph area over the area of the pages in use.
fn live_occupancy(cache: &GlyphCache) -> f64 {
    let pages = cache.pages();
    if pages.is_empty() {
        return 0.0;
    }
    pages.iter().map(|p| p.occupancy()).sum::<f64>() / pages.len() as f64
}

/// Runs `kerf profile`.
pub fn run(args: &ProfileArgs) -> Result<(), String> {
    if args.frames == 0 {
        return Err("--frames must be at least 1".into());
    }
    let gpu = match args.backend {
        Backend::Cpu => None,
        Backend::Wgpu => Some(crate::gpu::Gpu::new()?),
    };
    let gpu = gpu.as_ref();
    let mut results = Vec::new();
    if let Some(path) = &args.text {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let name = format!("text:{}", path.display());
        results.push(profile_one(args, gpu, &|c, f| {
            Box::new(Scroll::file(c, f.main, &text, name.clone()))
        })?);
    } else {
        let all = args.workload == WorkloadName::All;
        if all || args.workload == WorkloadName::Latin {
            results.push(profile_one(args, gpu, &|c, f| Box::new(Latin::new(c, f)))?);
        }
        if all || args.workload == WorkloadName::TextStream {
            results.push(profile_one(args, gpu, &|c, f| {
                Box::new(TextStream {
                    rng: Rng::new(5),
                    font: font_clone(c, f.main),
                    id: f.main,
                    lines: Default::default(),
                })
            })?);
        }
        if all || args.workload == WorkloadName::CjkChurn {
            results.push(profile_one(args, gpu, &|c, f| Box::new(CjkChurn::new(c, f)))?);
        }
        if all || args.workload == WorkloadName::Scroll {
            results.push(profile_one(args, gpu, &|c, f| Box::new(Scroll::document(c, f)))?);
        }
        if all || args.workload == WorkloadName::Zoom {
            results.push(profile_one(args, gpu, &|c, f| Box::new(Zoom::new(c, f)))?);
        }
    }
    let (reports, series): (Vec<Report>, Vec<Series>) = results.into_iter().unzip();
    if let Some(path) = &args.plot {
        crate::plot::write(path, &series)?;
    }
    if args.json {
        let s = if reports.len() == 1 {
            serde_json::to_string_pretty(&reports[0])
        } else {
            serde_json::to_string_pretty(&reports)
        };
        out!("{}", s.map_err(|e| e.to_string())?);
    } else {
        print_table(args, &reports, gpu);
    }
    Ok(())
}

/// The text stream shapes new lines every frame and needs a font of its own
/// (the cache's is borrowed by the frame; a clone shares the parsed face).
fn font_clone(cache: &GlyphCache, id: FontId) -> kerf_cache::fonts::Font {
    cache.fonts().get(id).expect("font loaded").clone()
}

/// `v` with `digits` decimals, or `-` where it was not measured.
fn or_dash(v: Option<f64>, digits: usize) -> String {
    v.map_or_else(|| "-".to_string(), |v| format!("{v:.digits$}"))
}

fn print_table(args: &ProfileArgs, reports: &[Report], gpu: Option<&crate::gpu::Gpu>) {
    let backend = match gpu {
        None => "cpu".to_string(),
        Some(g) => format!("wgpu on {} ({:?})", g.info.name, g.info.backend),
    };
    out!(
        "kerf profile --backend {backend}: {} frames, {} px pages x {}, {}, {} frames in flight, {} sub-pixel bins, uploads {}",
        args.frames,
        args.page_size,
        args.pages,
        args.algo,
        args.in_flight,
        args.subpixel_bins,
        reports.first().map_or("", |r| r.uploads.as_str())
    );
    out!(
        "{:<14} {:>8} {:>7} {:>8} {:>8} {:>9} {:>9} {:>8} {:>7} {:>7} {:>13} {:>5} {:>7} {:>8} {:>9} {:>9} {:>8}",
        "workload", "glyphs", "hit%", "ns/hit", "Mglyph/s", "ns/miss", "raster", "pack", "stage", "evict", "occ mean/min", "pages", "skipped", "degraded", "median µs", "worst µs", "uploads"
    );
    for r in reports {
        out!(
            "{:<14} {:>8} {:>7.2} {:>8} {:>8} {:>9} {:>9.0} {:>8.0} {:>7.0} {:>7} {:>6.1}/{:>5.1}% {:>5} {:>7} {:>8} {:>9.1} {:>9.1} {:>8.2}",
            r.workload,
            r.glyphs,
            r.hit_rate * 100.0,
            or_dash(r.ns_per_hit, 1),
            or_dash(r.ns_per_hit.filter(|ns| *ns > 0.0).map(|ns| 1e3 / ns), 1),
            or_dash(r.ns_per_miss, 0),
            r.raster_ns,
            r.pack_ns,
            r.stage_ns,
            r.evictions,
            r.occupancy_mean * 100.0,
            r.occupancy_min * 100.0,
            r.pages,
            r.skipped,
            r.degraded,
            r.median_frame_ns as f64 / 1e3,
            r.worst_frame_ns as f64 / 1e3,
            r.upload_calls_per_frame
        );
    }
    for r in reports {
        out!(
            "{}: bytes per frame: rasterized {:.0}, uploaded {:.0} ({:.2}x)",
            r.workload,
            r.raster_bytes_per_frame,
            r.upload_bytes_per_frame,
            if r.raster_bytes_per_frame > 0.0 {
                r.upload_bytes_per_frame / r.raster_bytes_per_frame
            } else {
                0.0
            }
        );
    }
    for r in reports.iter().filter(|r| r.gpu_done_median_ns.is_some()) {
        out!(
            "{}: median frame: prepare {:.1} µs, submit to GPU done {:.1} µs",
            r.workload,
            r.median_frame_ns as f64 / 1e3,
            r.gpu_done_median_ns.unwrap_or(0) as f64 / 1e3
        );
    }
    for r in reports.iter().filter(|r| r.gpu_median_frame_ns.is_some()) {
        out!(
            "{}: GPU text pass median {:.1} µs",
            r.workload,
            r.gpu_median_frame_ns.unwrap_or(0) as f64 / 1e3
        );
    }
    out!("(raster/pack/stage: ns per rasterized glyph; occupancy over frames that evicted; uploads: page writes per frame, at most one per dirty page)");
}
