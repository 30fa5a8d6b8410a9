//! `kerf soak`: many frames of churn with random text, sizes and fonts,
//! invariants checked every frame, memory recorded over time. The workload
//! is large for the first half and small for the second: memory must
//! plateau under the budget, then come back down to the floor.

use crate::corpus::Rng;
use crate::profile::Backend;
use kerf_cache::{CacheConfig, FontId, PositionedGlyph};
use serde::Serialize;
use std::path::PathBuf;
use std::time::Instant;

/// Arguments of `kerf soak`.
#[derive(clap::Args, Debug)]
pub struct SoakArgs {
    /// Frames to run (half large workload, half small).
    #[arg(long, default_value_t = 100_000)]
    pub frames: u64,
    /// Where the cache runs (`wgpu`: through kerf-wgpu on a real device).
    #[arg(long, value_enum, default_value = "cpu")]
    pub backend: Backend,
    /// Page side.
    #[arg(long, default_value_t = 512)]
    pub page_size: u32,
    /// Most pages (the budget is this many pages).
    #[arg(long, default_value_t = 4)]
    pub pages: u32,
    /// Evict glyphs unused for this many frames, release emptied pages.
    #[arg(long, default_value_t = 300)]
    pub idle: u64,
    /// Memory samples taken over the run.
    #[arg(long, default_value_t = 200)]
    pub samples: u64,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// Plot RSS, atlas bytes and cached glyphs over the run to this PNG.
    #[arg(long, value_name = "FILE.png")]
    pub plot: Option<PathBuf>,
}

#[derive(Serialize, Debug, Clone)]
struct Sample {
    frame: u64,
    rss_bytes: u64,
    atlas_bytes: u64,
    glyphs: usize,
    pages: usize,
}

#[derive(Serialize, Debug)]
struct SoakReport {
    backend: String,
    frames: u64,
    glyph_lookups: u64,
    hit_rate: f64,
    evictions: u64,
    relocated: u64,
    pages_added: u64,
    pages_released: u64,
    skipped: u64,
    invariant_checks: u64,
    budget_bytes: u64,
    floor_bytes: u64,
    peak_atlas_bytes: u64,
    final_atlas_bytes: u64,
    rss_first_half_peak: u64,
    rss_second_half_peak: u64,
    rss_final: u64,
    seconds: f64,
    checks: Vec<(String, bool)>,
    samples: Vec<Sample>,
}

fn rss_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1).and_then(|v| v.parse::<u64>().ok()))
        .map_or(0, |pages| pages * 4096)
}

/// Runs `kerf soak`.
pub fn run(args: &SoakArgs) -> Result<(), String> {
    if args.frames < 4 {
        return Err("--frames must be at least 4".into());
    }
    let config = CacheConfig {
        page_size: args.page_size,
        max_pages: args.pages,
        memory_budget: u64::MAX,
        release_idle_after: Some(args.idle),
        min_pages: 1,
        ..CacheConfig::default()
    };
    let gpu = match args.backend {
        Backend::Cpu => None,
        Backend::Wgpu => Some(crate::gpu::Gpu::new()?),
    };
    let mut target = crate::profile::make_runner(config, gpu.as_ref())?;
    let fonts: Vec<FontId> =
        [dejavu::sans::regular(), dejavu::serif::italic(), dejavu::sans_mono::bold()]
            .iter()
            .map(|b| target.cache_mut().add_font(b.to_vec()).map_err(|e| e.to_string()))
            .collect::<Result<_, _>>()?;
    let side = target.cache().page_side() as u64;
    let budget = args.pages as u64 * side * side;
    let floor = side * side;
    // Characters: Latin-1, Latin Extended-A, Greek, Cyrillic.
    let ranges: [(u32, u32); 4] = [(0x21, 0x7e), (0xc0, 0x17f), (0x391, 0x3c9), (0x410, 0x44f)];
    let small: Vec<char> = "status: ok 0123456789".chars().collect();
    let mut rng = Rng::new(11);
    let mut glyphs = Vec::with_capacity(64);
    let every = (args.frames / args.samples.max(1)).max(1);
    let mut samples = Vec::new();
    let mut skipped = 0u64;
    let mut checks = 0u64;
    let progress = crate::gpu::Progress::new(args.frames, "soak");
    let start = Instant::now();
    let half = args.frames / 2;
    for frame in 0..args.frames {
        glyphs.clear();
        if frame < half {
            for k in 0..60 {
                let (lo, hi) = ranges[rng.below(ranges.len() as u64) as usize];
                let ch = char::from_u32(lo + rng.below((hi - lo + 1) as u64) as u32).unwrap_or('?');
                let font = fonts[rng.below(fonts.len() as u64) as usize];
                let glyph = target.cache().fonts().get(font).map_or(0, |f| f.glyph_index(ch));
                let size = 8.0 + rng.below(64) as f32 * 0.5;
                glyphs.push(PositionedGlyph {
                    font,
                    glyph,
                    size,
                    x: (k % 20) as f32 * 40.0,
                    y: 40.0 + (k / 20) as f32 * 60.0,
                    color: [0, 0, 0, 255],
                });
            }
        } else {
            for (k, &ch) in small.iter().enumerate() {
                let glyph = target.cache().fonts().get(fonts[0]).map_or(0, |f| f.glyph_index(ch));
                glyphs.push(PositionedGlyph {
                    font: fonts[0],
                    glyph,
                    size: 14.0,
                    x: k as f32 * 9.0,
                    y: 20.0,
                    color: [0, 0, 0, 255],
                });
            }
        }
        skipped += target.frame(&glyphs)?.skipped as u64;
        target
            .cache()
            .check_invariants()
            .map_err(|e| format!("frame {frame}: invariant broken: {e}"))?;
        checks += 1;
        if frame % every == 0 || frame + 1 == args.frames {
            samples.push(Sample {
                frame,
                rss_bytes: rss_bytes(),
                atlas_bytes: target.atlas_bytes(),
                glyphs: target.cache().len(),
                pages: target.cache().pages().len(),
            });
        }
        progress.tick();
    }
    progress.finish();
    let stats = target.cache().stats().clone();
    let peak_atlas = samples.iter().map(|s| s.atlas_bytes).max().unwrap_or(0);
    let final_atlas = samples.last().map_or(0, |s| s.atlas_bytes);
    let rss_first =
        samples.iter().filter(|s| s.frame < half).map(|s| s.rss_bytes).max().unwrap_or(0);
    let rss_second =
        samples.iter().filter(|s| s.frame >= half).map(|s| s.rss_bytes).max().unwrap_or(0);
    let rss_final = samples.last().map_or(0, |s| s.rss_bytes);
    // Plateau: over the last half of the large phase RSS grows by at most 10%.
    let q = |from: u64, to: u64| {
        samples
            .iter()
            .filter(|s| s.frame >= from && s.frame < to)
            .map(|s| s.rss_bytes)
            .max()
            .unwrap_or(0)
    };
    let rss_q2 = q(half / 4, half / 2);
    let rss_q4 = q(half / 2, half);
    let checks_list = vec![
        (
            "atlas bytes never above the budget".to_string(),
            samples.iter().all(|s| s.atlas_bytes <= budget),
        ),
        ("atlas back down to the floor (one page) at the end".to_string(), final_atlas == floor),
        (
            "RSS plateaus in the large phase (second quarter vs last quarter, +10% at most)"
                .to_string(),
            rss_q4 <= rss_q2 + rss_q2 / 10,
        ),
        (
            "RSS does not grow once the workload shrinks".to_string(),
            rss_second <= rss_first + rss_first / 20,
        ),
        ("no glyph skipped".to_string(), skipped == 0),
    ];
    let ok = checks_list.iter().all(|c| c.1);
    let report = SoakReport {
        backend: if gpu.is_some() { "wgpu".into() } else { "cpu".into() },
        frames: args.frames,
        glyph_lookups: stats.lookups,
        hit_rate: stats.hit_rate(),
        evictions: stats.evictions,
        relocated: stats.relocated,
        pages_added: stats.pages_added,
        pages_released: stats.pages_released,
        skipped,
        invariant_checks: checks,
        budget_bytes: budget,
        floor_bytes: floor,
        peak_atlas_bytes: peak_atlas,
        final_atlas_bytes: final_atlas,
        rss_first_half_peak: rss_first,
        rss_second_half_peak: rss_second,
        rss_final,
        seconds: start.elapsed().as_secs_f64(),
        checks: checks_list.clone(),
        samples: samples.clone(),
    };
    if let Some(path) = &args.plot {
        use crate::plot::Panel;
        let mb = |f: fn(&Sample) -> u64| {
            samples.iter().map(|s| f(s) as f64 / 1048576.0).collect::<Vec<_>>()
        };
        let panels = [
            Panel {
                title: "resident memory (MiB)".into(),
                lines: vec![("RSS".into(), mb(|s| s.rss_bytes))],
                max: None,
            },
            Panel {
                title: format!("atlas texels (MiB; budget {:.2})", budget as f64 / 1048576.0),
                lines: vec![("atlas".into(), mb(|s| s.atlas_bytes))],
                max: Some(budget as f64 / 1048576.0 * 1.25),
            },
            Panel {
                title: "cached glyphs".into(),
                lines: vec![("glyphs".into(), samples.iter().map(|s| s.glyphs as f64).collect())],
                max: None,
            },
        ];
        crate::plot::write_panels(
            path,
            &panels,
            &format!("sample (every {every} frames; the workload shrinks half-way)"),
        )?;
    }
    if args.json {
        out!("{}", serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?);
    } else {
        out!(
            "kerf soak --backend {}: {} frames in {:.1} s, {} lookups, hit rate {:.2}%, {} evictions, {} relocated, pages +{} -{}, {} skipped, {} invariant checks",
            report.backend,
            report.frames,
            report.seconds,
            report.glyph_lookups,
            report.hit_rate * 100.0,
            report.evictions,
            report.relocated,
            report.pages_added,
            report.pages_released,
            report.skipped,
            report.invariant_checks
        );
        out!(
            "atlas: budget {} B, peak {} B, final {} B (floor {} B); RSS: large-phase peak {:.1} MiB, small-phase peak {:.1} MiB, final {:.1} MiB",
            budget,
            peak_atlas,
            final_atlas,
            floor,
            rss_first as f64 / 1048576.0,
            rss_second as f64 / 1048576.0,
            rss_final as f64 / 1048576.0
        );
        for (name, pass) in &report.checks {
            out!("{} {name}", if *pass { "ok  " } else { "FAIL" });
        }
    }
    if ok {
        Ok(())
    } else {
        Err("soak checks failed".into())
    }
}
