//! The scene corpus: apps kerf's benches were not written for, each drawn
//! by kerf and by glyphon 0.12 in processes of their own, measured from
//! process start over thousands of frames.
//!
//! Scenes (see `scenes/`): `window` (the multi-script window with a
//! rotated heading and eight renderers), `dashboard` (400 small areas, 40
//! re-shaped a frame), `editor` (4K, syntax-coloured, scrolling), `hud` (300
//! rotating and scaling labels, floating numbers), `hud-flat` (the same
//! without rotation), `zoom` (a pinch-zoomed document), `zoom-cjk` (the
//! same of Chinese text, nearly every glyph distinct), `chat` (messages
//! arriving in mixed scripts and emoji, the panel dragged wider and
//! narrower), `scroll` (an article scrolled smoothly, by fractions of a
//! pixel a frame), `panes` (an IDE's five panes, each clipping its text,
//! scrolled and appended to: lines cut at the panes' edges somewhere else
//! every frame), `map` (300 place names on a map zooming from 8 to 2,000 px
//! per em and back, turning with it). Every frame is
//! whole: prepare, a pass that clears a window-sized offscreen target and
//! draws, the submit, and the wait until the GPU is done.
//!
//! ```text
//! cargo run --release --example scenes --features bench-glyphon -- all 10000
//! cargo run --release --example scenes --features bench-glyphon -- one hud kerf 2000
//! ```
//!
//! `all [FRAMES [ROUNDS [SCENE...]]]` runs every scene (or those named)
//! with each side (kerf, kerf-glyphon, glyphon) in turn (the
//! order alternating between rounds) and prints one table: first frame from
//! process start (the parent's clock, from spawn to the child's word that
//! its first frame is done), the median steady frame, the app thread's CPU
//! per frame (until the submit returned; the GPU's threads not counted),
//! peak RSS, RSS and live wgpu objects after frame 1,000 and after the last.
//! With ROUNDS above 1 it ends with kerf ÷ glyphon per scene as the median
//! of the rounds' ratios (each round's two processes run one after the
//! other, so their ratio moves less than either figure as the machine's
//! speed drifts): the table to quote.
//! `first [PAIRS [SCENE...]]` times only first frames: PAIRS (default 10)
//! alternated pairs of one-frame processes a scene, the medians of process
//! start → first frame and of each side's own share (its atlas and
//! renderers made → first frame done).
//! Both first run one unmeasured two-frame process per side and scene, so
//! that the driver's shader cache holds every pipeline before anything is
//! timed, as on a user's machine after the app's first run
//! (`SCENES_COLD=1` skips that).
//! `ab SCENE FRAMES ROUNDS VARIANT...` (`ab.rs`) runs variants of one
//! scene as alternated children, round after round: a variant is
//! `LABEL=SIDE[,ENV=VALUE...][@BINARY]` (a side, the switches below, and
//! another build of this binary to compare builds), and each figure is
//! printed as a median and as the median of its ratios to the first
//! variant's in the same round.
//! `one SCENE SIDE FRAMES` is one child; with `SCENES_PNG=FILE` it also
//! writes its last frame to FILE, and with `SCENES_PHASES=1` it prints where
//! its startup and each frame went (device, fonts and shaping; making the
//! renderer; converting, preparing, encoding, submitting, the GPU's work).
//! With `SCENES_ADAPTER=1` it prints the adapter it drew on; with
//! `SCENES_NEUTRAL=1` kerf's side draws without the gamma/contrast
//! correction (`TextCorrection::NEUTRAL`; glyphon has none), to see what
//! the correction costs a frame.
//! `SCENES_ZOOM=steps|exact|auto` sets kerf's zoom policy (default `auto`).
//! `SCENES_OUTLINES=never|default` sets kerf's outline policy: `never`
//! draws every glyph from bitmaps, as kerf did before the outline path.
//! `SCENES_GROW_FIRST=1` makes kerf's atlas add pages before it evicts
//! idle glyphs (`CacheConfig::evict_idle_before_growing: None`).
//! `SCENES_HINTING=1` makes kerf's atlas rasterize with swash and hinting
//! (`SwashRasterizer::new().hinting(true)`), as glyphon's rasters are:
//! the same glyph shapes on both sides.
//! `SCENES_GPU_UPLOADS=1` makes kerf's atlas upload as on a GPU (boxes of
//! at most 256 KiB whole, the rest scattered glyph by glyph) on a software
//! adapter too. `SCENES_NO_PAGE_COPIES=1` makes it keep no CPU copies of
//! its pages (`CacheConfig::page_copies: false`).
//! `SCENES_RASTER_THREADS=N` sets kerf's raster threads
//! (`CacheConfig::raster_threads`; 0: rayon's global pool).
//! kerf's side converts a buffer to glyphs when it was shaped anew and
//! keeps them (docs/migrating-from-glyphon.md); with
//! `SCENES_CONVERT_EVERY_FRAME=1` it converts every buffer every frame.
//! `SCENES_FLOOR=1` makes kerf's side the floor of any renderer of the
//! scene's cosmic-text buffers: it converts them as above, clears the
//! target and submits, and prepares and draws nothing.
//! With `SCENES_MEMORY=1` it prints the resident set after each startup
//! step and frame 1 and the last, and (kerf's side) what kerf holds then:
//! its pages' CPU copies, its texture arrays, its renderers' buffers, its
//! fonts (docs/performance.md, "Where each MiB goes"). `SCENES_MAPS=1`
//! prints that, and where the resident set lies by mapping (files, heap,
//! anonymous mappings), after the last frame only.

mod ab;
mod measure;
/// The multi-script lines the glyphon benches draw (the window's paragraph).
#[path = "../../benches/glyphon/scene.rs"]
#[allow(dead_code)]
mod scene_lines;
mod scenes;
mod sides;

use measure::Figures;
use std::io::{BufRead, Write};
use std::time::Instant;

/// How `ab` is called.
const AB_USAGE: &str = "ab SCENE FRAMES ROUNDS LABEL=SIDE[,ENV=VALUE...][@BINARY]...";

/// Frames before the steady figures start.
const WARM_UP: usize = 100;

fn main() {
    let start = Instant::now();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize| args.get(i).map(String::as_str);
    let result = match arg(0) {
        Some("one") => match (arg(1), arg(2), arg(3).and_then(|n| n.parse().ok())) {
            (Some(scene), Some(side), Some(frames)) => run_one(scene, side, frames, start),
            _ => Err("usage: scenes one SCENE kerf|glyphon|kerf-glyphon FRAMES".into()),
        },
        Some("all") | None => {
            let frames = arg(1).and_then(|n| n.parse().ok()).unwrap_or(10_000);
            let rounds = arg(2).and_then(|n| n.parse().ok()).unwrap_or(1);
            let only: Vec<&str> = args.iter().skip(3).map(String::as_str).collect();
            run_all(frames, rounds, &only)
        }
        Some("first") => {
            let pairs = arg(1).and_then(|n| n.parse().ok()).unwrap_or(10);
            let only: Vec<&str> = args.iter().skip(2).map(String::as_str).collect();
            run_first(pairs, &only)
        }
        Some("ab") => match (arg(1), arg(2).and_then(|n| n.parse().ok()), arg(3).and_then(|n| n.parse().ok())) {
            (Some(scene), Some(frames), Some(rounds)) => args
                .iter()
                .skip(4)
                .map(|v| ab::Variant::parse(v))
                .collect::<Result<Vec<_>, _>>()
                .and_then(|variants| ab::run(scene, frames, rounds, &variants)),
            _ => Err(AB_USAGE.into()),
        },
        Some(other) => Err(format!(
            "unknown command {other:?}: all [FRAMES [ROUNDS [SCENE...]]] | first [PAIRS [SCENE...]] | one SCENE SIDE FRAMES | {AB_USAGE}"
        )),
    };
    if let Err(e) = result {
        eprintln!("scenes: {e}");
        std::process::exit(1);
    }
}

/// This process draws `scene` with `side` for `frames` frames and prints
/// `first-frame` when the first is done, then its figures.
fn run_one(scene: &str, side: &str, frames: usize, start: Instant) -> Result<(), String> {
    let memory = measure::memory();
    let rss = |step: &str| {
        if memory {
            eprintln!("rss {:7.1} MiB  {step}", measure::status_kib("VmRSS") as f64 / 1024.0);
        }
    };
    rss("process start");
    let gpu = kerf::gpu::headless().map_err(|e| e.to_string())?;
    let (device, queue) = (&gpu.device, &gpu.queue);
    if std::env::var_os("SCENES_ADAPTER").is_some() {
        let i = &gpu.info;
        eprintln!(
            "{scene}/{side}: {} ({:?}, {:?}, driver {} {})",
            i.name, i.backend, i.device_type, i.driver, i.driver_info
        );
    }
    rss("device");
    let mut fs = scenes::font_system()?;
    rss("font system (fonts loaded)");
    let mut s = scenes::build(scene, &mut fs)?;
    rss("scene shaped");
    let size = s.size();
    let target = kerf::gpu::Offscreen::new(device, size.0, size.1, sides::FORMAT)
        .map_err(|e| e.to_string())?;
    rss("target");
    let before_side = start.elapsed().as_secs_f64() * 1e3;
    let mut r = sides::Side::new(side, device, queue, size, s.renderers())?;
    rss("atlas and renderers made");
    if measure::phases() {
        let ready = start.elapsed().as_secs_f64() * 1e3;
        eprintln!("startup: device, fonts, shaping, target {before_side:.1} ms; renderer made {ready:.1} ms");
    }
    let warm = WARM_UP.min(frames / 10);
    let (mut walls, mut cpus) = (Vec::new(), Vec::new());
    let mut f = Figures { frames, ..Figures::default() };
    let mib = |kib: u64| kib as f64 / 1024.0;
    for i in 0..frames {
        s.advance(&mut fs, i);
        let areas = s.areas();
        let t = Instant::now();
        let cpu = r.frame(device, queue, &mut fs, &areas, size, &target)?;
        let wall = t.elapsed();
        if i == 0 {
            rss("first frame");
            f.startup_ms = start.elapsed().as_secs_f64() * 1e3;
            f.own_ms = f.startup_ms - before_side;
            let mut out = std::io::stdout().lock();
            writeln!(out, "first-frame").and_then(|()| out.flush()).map_err(|e| e.to_string())?;
        }
        if i >= warm {
            walls.push(wall.as_secs_f64() * 1e3);
            cpus.push(cpu.as_secs_f64() * 1e3);
        }
        if i + 1 == 1_000 {
            f.rss_1k_mib = mib(measure::status_kib("VmRSS"));
            f.objects_1k = measure::gpu_objects(&gpu.instance);
        }
    }
    rss("last frame");
    if memory || measure::maps() {
        r.print_memory();
    }
    if measure::maps() {
        measure::print_mappings();
    }
    if measure::phases() && !cpus.is_empty() {
        let mut c = cpus.clone();
        c.sort_by(f64::total_cmp);
        let at = |q: f64| c[((c.len() - 1) as f64 * q) as usize];
        eprintln!(
            "app CPU ms a frame: median {:.3}, p90 {:.3}, p99 {:.3}, max {:.3}; the top 1% is {:.0}% of the sum",
            at(0.5),
            at(0.9),
            at(0.99),
            at(1.0),
            100.0 * c[c.len() - c.len().div_ceil(100)..].iter().sum::<f64>() / c.iter().sum::<f64>()
        );
    }
    f.steady_ms = measure::median(&mut walls);
    f.cpu_ms = cpus.iter().sum::<f64>() / cpus.len().max(1) as f64;
    f.rss_last_mib = mib(measure::status_kib("VmRSS"));
    f.objects_last = measure::gpu_objects(&gpu.instance);
    f.peak_mib = mib(measure::status_kib("VmHWM"));
    if let Some(path) = std::env::var_os("SCENES_PNG") {
        save_png(&target.read(device, queue).map_err(|e| e.to_string())?, size, &path)?;
    }
    println!("{}", f.line());
    Ok(())
}

/// Writes the last frame's texels (RGBA rows of `size`) to `path` as a PNG.
fn save_png(px: &[u8], size: (u32, u32), path: &std::ffi::OsStr) -> Result<(), String> {
    let file = std::fs::File::create(path).map_err(|e| e.to_string())?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), size.0, size.1);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    enc.write_header().and_then(|mut w| w.write_image_data(px)).map_err(|e| e.to_string())
}

/// Runs `scene` with `side` as a child process; its figures with the first
/// frame timed from the spawn.
fn child(scene: &str, side: &str, frames: usize) -> Result<Figures, String> {
    child_of(None, &[], scene, side, frames)
}

/// [`child`] run from `exe` (this binary when `None`: another build of it,
/// to compare builds) with `env` added to its environment.
fn child_of(
    exe: Option<&str>, env: &[(String, String)], scene: &str, side: &str, frames: usize,
) -> Result<Figures, String> {
    let exe = match exe {
        Some(path) => std::path::PathBuf::from(path),
        None => std::env::current_exe().map_err(|e| e.to_string())?,
    };
    let spawned = Instant::now();
    let mut c = std::process::Command::new(&exe)
        .args(["one", scene, side, &frames.to_string()])
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdout(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("{}: {e}", exe.display()))?;
    let stdout = c.stdout.take().ok_or("no stdout")?;
    let mut first_ms = None;
    let mut figures = None;
    for line in std::io::BufReader::new(stdout).lines() {
        let line = line.map_err(|e| e.to_string())?;
        if line == "first-frame" {
            first_ms = Some(spawned.elapsed().as_secs_f64() * 1e3);
        } else if let Some(f) = Figures::parse(&line) {
            figures = Some(f);
        }
    }
    let status = c.wait().map_err(|e| e.to_string())?;
    match (figures, first_ms) {
        (Some(f), Some(first_ms)) if status.success() => Ok(Figures { first_ms, ..f }),
        _ => Err(format!("{scene} with {side} failed: {status}")),
    }
}

/// One unmeasured two-frame process per side for each of `scenes`, so that
/// the driver's shader cache holds both sides' pipelines before anything is
/// timed, as on a user's machine after the app's first run. Without it the
/// first process of a side pays the driver's compile: on NVIDIA's driver
/// that is 30–35 MiB of peak RSS and tens of milliseconds, charged to
/// whichever scene happened to come first (`SCENES_COLD=1` skips it).
fn warm_shader_caches(scenes: &[&str]) -> Result<(), String> {
    if measure::cold() {
        return Ok(());
    }
    for scene in scenes {
        for side in ["kerf", "glyphon", "kerf-glyphon"] {
            child(scene, side, 2)?;
        }
    }
    Ok(())
}

/// The scenes named in `only`, or all of them.
fn chosen(only: &[&str]) -> Vec<&'static str> {
    scenes::NAMES.into_iter().filter(|s| only.is_empty() || only.contains(s)).collect()
}

/// The first frame alone: for every scene (or those in `only`), `pairs`
/// rounds of one-frame processes, one per side, the order turning a step
/// each round; the medians of process start → first frame done and of the
/// side's own share (its atlas and renderers made → first frame done),
/// each side's beside glyphon's as the median of the rounds' ratios. A
/// single round is at the mercy of the machine's minute (the shared
/// device and font start of 50–120 ms moves more than either side's
/// share).
fn run_first(pairs: usize, only: &[&str]) -> Result<(), String> {
    println!("| scene | side | first frame ms | ÷ glyphon | own share ms | ÷ glyphon |");
    println!("|---|---|---|---|---|---|");
    let scenes = chosen(only);
    warm_shader_caches(&scenes)?;
    for &scene in &scenes {
        // Per side: (first, own) of each round.
        let mut got: Vec<Vec<(f64, f64)>> = vec![Vec::new(); SIDES.len()];
        for round in 0..pairs.max(1) {
            let mut order: Vec<usize> = (0..SIDES.len()).collect();
            order.rotate_left(round % SIDES.len());
            for i in order {
                let f = child(scene, SIDES[i], 1)?;
                got[i].push((f.first_ms, f.own_ms));
            }
        }
        let glyphon = SIDES.len() - 1;
        for (i, side) in SIDES.iter().enumerate() {
            let mut first: Vec<f64> = got[i].iter().map(|r| r.0).collect();
            let mut own: Vec<f64> = got[i].iter().map(|r| r.1).collect();
            let ratio = |k: usize| {
                let mut r: Vec<f64> = got[i]
                    .iter()
                    .zip(&got[glyphon])
                    .map(|(a, g)| if k == 0 { a.0 / g.0 } else { a.1 / g.1 })
                    .collect();
                measure::median(&mut r)
            };
            println!(
                "| {scene} | {side} | {:.1} | {:.2} | {:.1} | {:.2} |",
                measure::median(&mut first),
                ratio(0),
                measure::median(&mut own),
                ratio(1)
            );
        }
    }
    Ok(())
}

/// The sides `all` runs; each is set beside the last, glyphon.
const SIDES: [&str; 3] = ["kerf", "kerf-glyphon", "glyphon"];

/// Every scene (or those in `only`) with every side, `rounds` times, as one table.
fn run_all(frames: usize, rounds: usize, only: &[&str]) -> Result<(), String> {
    println!(
        "| scene | side | first frame ms | steady ms | app CPU ms/frame | peak RSS MiB | RSS @1k | RSS @{frames} | wgpu objects @1k / @{frames} |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let scenes = chosen(only);
    warm_shader_caches(&scenes)?;
    // Each scene's figures of each side but glyphon, beside glyphon's of
    // the same round.
    let mut pairs: Vec<Vec<Vec<(Figures, Figures)>>> =
        vec![vec![Vec::new(); SIDES.len() - 1]; scenes.len()];
    for round in 0..rounds {
        for (n, &scene) in scenes.iter().enumerate() {
            // The order turns a step each round.
            let mut order = SIDES;
            order.rotate_left(round % SIDES.len());
            let mut got = Vec::new();
            for side in order {
                let f = child(scene, side, frames)?;
                println!(
                    "| {scene} | {side} | {:.1} | {:.2} | {:.3} | {:.1} | {:.1} | {:.1} | {} / {} |",
                    f.first_ms,
                    f.steady_ms,
                    f.cpu_ms,
                    f.peak_mib,
                    f.rss_1k_mib,
                    f.rss_last_mib,
                    f.objects_1k,
                    f.objects_last
                );
                got.push((side, f));
            }
            let figures = |name: &str| got.iter().find(|(s, _)| *s == name).map(|(_, f)| f.clone());
            let Some(g) = figures("glyphon") else { continue };
            for (i, side) in SIDES[..SIDES.len() - 1].iter().enumerate() {
                let Some(k) = figures(side) else { continue };
                println!(
                    "| {scene} | {side} / glyphon | {:.2} | {:.2} | {:.2} | {:.2} | | | |",
                    k.first_ms / g.first_ms,
                    k.steady_ms / g.steady_ms,
                    k.cpu_ms / g.cpu_ms,
                    k.peak_mib / g.peak_mib
                );
                pairs[n][i].push((k, g.clone()));
            }
        }
    }
    if rounds > 1 {
        print_paired(&scenes, &pairs);
    }
    Ok(())
}

/// After several rounds of `all`: each scene's side ÷ glyphon as the
/// median of its rounds' ratios (each round's processes ran one after the
/// other, so their ratio moves less than either figure as the machine's
/// speed drifts).
fn print_paired(scenes: &[&str], pairs: &[Vec<Vec<(Figures, Figures)>>]) {
    let names = ab::measures(&Figures::default()).map(|(name, _, _)| name);
    let rounds = pairs.iter().flatten().map(Vec::len).max().unwrap_or(0);
    println!();
    println!("each side ÷ glyphon, the median of {rounds} rounds' ratios:");
    println!();
    print!("| scene | side |");
    for name in names {
        print!(" {name} |");
    }
    println!();
    println!("|---|---|{}", "---|".repeat(names.len()));
    for (scene, sides) in scenes.iter().zip(pairs) {
        for (side, got) in SIDES.iter().zip(sides) {
            print!("| {scene} | {side} |");
            for m in 0..names.len() {
                print!(" {:.2} |", ab::median_ratio(got.iter().map(|(k, g)| (k, g)), m));
            }
            println!();
        }
    }
}
