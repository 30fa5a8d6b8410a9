//! What a scene's process measures about itself: the app thread's CPU time,
//! the resident set, and wgpu's count of live GPU objects.

use kerf::gpu::wgpu;
use std::sync::OnceLock;
use std::time::Duration;

/// The CPU time this thread has run for: its own work, without the time it
/// waited or was preempted (on a software GPU the rasterizer's threads run
/// beside the app's; the wall clock would charge their work to the app).
pub fn thread_cpu() -> Duration {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `t` is a valid, writable timespec; the clock id is a constant
    // every Linux has, and the call writes nothing else.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    if rc != 0 {
        return Duration::ZERO;
    }
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// Whether the environment sets `name`, read into `cell` the first time.
fn set(cell: &OnceLock<bool>, name: &str) -> bool {
    *cell.get_or_init(|| std::env::var_os(name).is_some())
}

/// Whether `SCENES_PHASES` asks this process to print where its startup and
/// frames go (read once: a frame does not look at the environment).
pub fn phases() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    set(&ON, "SCENES_PHASES")
}

/// Whether `SCENES_CONVERT_EVERY_FRAME` asks kerf's side to convert every
/// buffer every frame instead of when it was shaped anew.
pub fn convert_every_frame() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    set(&ON, "SCENES_CONVERT_EVERY_FRAME")
}

/// Whether `SCENES_FLOOR` asks kerf's side for the floor of any renderer
/// of the scene's cosmic-text buffers: each frame converts them (reads
/// every glyph), clears the target and submits, but prepares and draws
/// nothing (read once).
pub fn floor() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    set(&ON, "SCENES_FLOOR")
}

/// Whether `SCENES_GROW_FIRST` asks kerf's atlas to add pages before it
/// evicts idle glyphs (`CacheConfig::evict_idle_before_growing: None`,
/// the order kerf's atlas followed before idle eviction; read once).
pub fn grow_first() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    set(&ON, "SCENES_GROW_FIRST")
}

/// Whether `SCENES_COLD` asks `all` and `first` to skip their unmeasured
/// warm-up processes (read once).
pub fn cold() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    set(&ON, "SCENES_COLD")
}

/// Whether `SCENES_GPU_UPLOADS` asks kerf's atlas to upload as it does on a
/// GPU (dirty boxes of at most `WHOLE_BOX_BYTES` whole, the rest scattered
/// glyph by glyph) on a software adapter too, where it writes boxes of up
/// to `SOFTWARE_WHOLE_BOX_BYTES` whole (read once).
pub fn gpu_uploads() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    set(&ON, "SCENES_GPU_UPLOADS")
}

/// Whether `SCENES_HINTING` asks kerf's atlas to rasterize with swash and
/// hinting (`kerf::cache::rasterize::SwashRasterizer`), as glyphon's
/// cosmic-text rasters are (read once).
pub fn hinting() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    set(&ON, "SCENES_HINTING")
}

/// Whether `SCENES_NO_PAGE_COPIES` asks kerf's atlas to keep no CPU copies
/// of its pages (`CacheConfig::page_copies` false; read once).
pub fn no_page_copies() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    set(&ON, "SCENES_NO_PAGE_COPIES")
}

/// The raster threads `SCENES_RASTER_THREADS` sets on kerf's atlas
/// (`CacheConfig::raster_threads`: 0 rayon's global pool; unset, the
/// default). Anything but a number is ignored with a word on stderr.
pub fn raster_threads() -> Option<usize> {
    let v = std::env::var("SCENES_RASTER_THREADS").ok()?;
    let n = v.parse().ok();
    if n.is_none() {
        eprintln!("SCENES_RASTER_THREADS={v:?} is not a number: ignored");
    }
    n
}

/// Whether `SCENES_MEMORY` asks this process to print its resident set
/// after each startup step and each phase of its frames (read once).
pub fn memory() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    set(&ON, "SCENES_MEMORY")
}

/// A field of /proc/self/status in KiB (`VmRSS`, `VmHWM`), 0 where unknown.
pub fn status_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// Live GPU objects a frame could leak (buffers, textures, texture views,
/// bind groups, pipelines, command buffers), summed; 0 where the backend
/// keeps no report.
pub fn gpu_objects(instance: &wgpu::Instance) -> usize {
    let Some(r) = instance.generate_report() else { return 0 };
    let h = r.hub;
    [
        h.buffers.num_allocated,
        h.textures.num_allocated,
        h.texture_views.num_allocated,
        h.bind_groups.num_allocated,
        h.render_pipelines.num_allocated,
        h.command_buffers.num_allocated,
    ]
    .iter()
    .sum()
}

/// The median of `v` (sorted in place), 0 when empty.
pub fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// One process's figures for one scene and side, as printed on its last
/// line (`key=value` pairs) and read back by the parent.
#[derive(Clone, Debug, Default)]
pub struct Figures {
    /// Process start → first frame done (the parent's clock), ms.
    pub first_ms: f64,
    /// `main` entered → first frame done (the process's own clock), ms.
    pub startup_ms: f64,
    /// The side's own share of the first frame: making its atlas and
    /// renderers → first frame done (device, fonts and shaping, which both
    /// sides share, left out), ms.
    pub own_ms: f64,
    /// Median whole frame after warm-up (prepare, pass, submit, GPU done), ms.
    pub steady_ms: f64,
    /// Mean app-thread CPU per frame after warm-up, until the submit returned, ms.
    pub cpu_ms: f64,
    /// Peak resident set (VmHWM), MiB.
    pub peak_mib: f64,
    /// Resident set after frame 1,000, MiB (0 when fewer frames ran).
    pub rss_1k_mib: f64,
    /// Resident set after the last frame, MiB.
    pub rss_last_mib: f64,
    /// Live GPU objects after frame 1,000 (0 when fewer frames ran).
    pub objects_1k: usize,
    /// Live GPU objects after the last frame.
    pub objects_last: usize,
    /// Frames drawn.
    pub frames: usize,
}

impl Figures {
    /// The `key=value` line a child prints.
    pub fn line(&self) -> String {
        format!(
            "result startup_ms={:.2} own_ms={:.2} steady_ms={:.3} cpu_ms={:.3} peak_mib={:.1} rss_1k_mib={:.1} \
             rss_last_mib={:.1} objects_1k={} objects_last={} frames={}",
            self.startup_ms,
            self.own_ms,
            self.steady_ms,
            self.cpu_ms,
            self.peak_mib,
            self.rss_1k_mib,
            self.rss_last_mib,
            self.objects_1k,
            self.objects_last,
            self.frames
        )
    }

    /// Reads a child's `result` line back; `None` when it is not one.
    pub fn parse(line: &str) -> Option<Figures> {
        let rest = line.strip_prefix("result ")?;
        let mut f = Figures::default();
        for pair in rest.split_whitespace() {
            let (k, v) = pair.split_once('=')?;
            let x: f64 = v.parse().ok()?;
            match k {
                "startup_ms" => f.startup_ms = x,
                "own_ms" => f.own_ms = x,
                "steady_ms" => f.steady_ms = x,
                "cpu_ms" => f.cpu_ms = x,
                "peak_mib" => f.peak_mib = x,
                "rss_1k_mib" => f.rss_1k_mib = x,
                "rss_last_mib" => f.rss_last_mib = x,
                "objects_1k" => f.objects_1k = x as usize,
                "objects_last" => f.objects_last = x as usize,
                "frames" => f.frames = x as usize,
                _ => return None,
            }
        }
        Some(f)
    }
}

/// The outline policy `SCENES_OUTLINES` sets on kerf's renderers (`never`:
/// every glyph from bitmaps, the path before outlines; `default`), to weigh
/// the two paths in one scene. Anything else is ignored with a word on
/// stderr.
pub fn outline_policy() -> Option<kerf::gpu::OutlinePolicy> {
    use kerf::gpu::OutlinePolicy;
    let v = std::env::var("SCENES_OUTLINES").ok()?;
    match v.as_str() {
        "never" => Some(OutlinePolicy::NEVER),
        "default" => Some(OutlinePolicy::default()),
        other => {
            eprintln!("SCENES_OUTLINES={other:?} is neither never nor default: ignored");
            None
        }
    }
}

/// The zoom policy `SCENES_ZOOM` sets on kerf's renderers (`steps`, `exact`
/// or `auto`; unset: the default, `auto`), to weigh the policies in one
/// scene. Anything else is ignored with a word on stderr.
pub fn zoom_policy() -> Option<kerf::gpu::ZoomPolicy> {
    use kerf::gpu::ZoomPolicy;
    let v = std::env::var("SCENES_ZOOM").ok()?;
    match v.as_str() {
        "steps" => Some(ZoomPolicy::Steps { per_octave: 8 }),
        "exact" => Some(ZoomPolicy::Exact),
        "auto" => Some(ZoomPolicy::default()),
        other => {
            eprintln!("SCENES_ZOOM={other:?} is none of steps, exact, auto: ignored");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_line_reads_back() {
        let f = Figures { steady_ms: 2.5, objects_last: 41, frames: 10_000, ..Figures::default() };
        let g = Figures::parse(&f.line()).unwrap();
        assert_eq!((g.steady_ms, g.objects_last, g.frames), (2.5, 41, 10_000));
        assert!(Figures::parse("first-frame").is_none());
    }
}

/// Whether `SCENES_MAPS` asks this process to print, after its last frame,
/// where its resident set lies (see [`print_mappings`]; read once).
pub fn maps() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    set(&ON, "SCENES_MAPS")
}

/// Prints the resident set by mapping kind, from /proc/self/smaps: each
/// file (the binary, libraries, a GPU driver's device files) by name, the
/// heap, and anonymous mappings by size (large ones are where big
/// allocations and a driver's host-visible memory go).
pub fn print_mappings() {
    let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap_or_default();
    let mut by: std::collections::BTreeMap<String, (u64, u32)> = Default::default();
    let mut name = String::new();
    for line in smaps.lines() {
        let mut words = line.split_whitespace();
        let first = words.next().unwrap_or("");
        if first.contains('-') && !first.ends_with(':') {
            // A mapping's header: range perms offset dev inode [path].
            let (range, path) = (first, words.nth(4).unwrap_or(""));
            let bytes = range
                .split_once('-')
                .and_then(|(a, b)| {
                    Some(u64::from_str_radix(b, 16).ok()? - u64::from_str_radix(a, 16).ok()?)
                })
                .unwrap_or(0);
            name = match path {
                "" if bytes >= 1 << 20 => "[anon ≥ 1 MiB]".into(),
                "" => "[anon < 1 MiB]".into(),
                p if p.starts_with("/usr/lib") || p.starts_with("/lib") => {
                    let file = p.rsplit('/').next().unwrap_or(p);
                    format!("lib {}", file.split(".so").next().unwrap_or(file))
                }
                p => p.to_string(),
            };
        } else if first == "Rss:" {
            let kib: u64 = words.next().and_then(|v| v.parse().ok()).unwrap_or(0);
            let e = by.entry(name.clone()).or_default();
            e.0 += kib;
            e.1 += 1;
        }
    }
    let mut rows: Vec<_> = by.into_iter().filter(|(_, (kib, _))| *kib >= 512).collect();
    rows.sort_by_key(|row| std::cmp::Reverse(row.1 .0));
    let total: u64 = rows.iter().map(|(_, (kib, _))| kib).sum();
    eprintln!("resident set by mapping (≥ 0.5 MiB each, {:.1} MiB in all):", total as f64 / 1024.0);
    for (name, (kib, n)) in rows.iter().take(14) {
        eprintln!("  {:8.1} MiB  {name} ({n} mappings)", *kib as f64 / 1024.0);
    }
}
