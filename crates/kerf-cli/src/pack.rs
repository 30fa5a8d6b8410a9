//! `kerf pack`: pack a glyph-size trace with any kerf packer and report it.

use crate::picture;
use crate::trace;
use kerf_pack::offline::{self, Outcome, SortKey, SortOrder, Strategy};
use kerf_pack::{Algorithm, MaxRectsHeuristic, Packer, PackerOptions};
use serde::Serialize;
use std::io::Read;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// How the trace is fed to the packer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Mode {
    /// Insert in file order, continuing past failures.
    Online,
    /// Sort first (see --sort), then insert.
    Sorted,
    /// MaxRects global best fit (the --algo must be a MaxRects variant).
    Global,
    /// Try every variant and sort order and keep the best packing.
    Meta,
}

/// Arguments of `kerf pack`.
#[derive(clap::Args, Debug)]
pub struct PackArgs {
    /// Trace file, one `w h` per line (`#` comments and blank lines ignored), or `-` for standard input.
    #[arg(default_value = "-")]
    pub file: String,
    /// Packer: maxrects-<bssf|blsf|baf|bl|cp>, skyline-<bl|mw>[-wm],
    /// guillotine-<baf|bssf|blsf|waf|wssf|wlsf>-<sas|las|slas|llas|minas|maxas|halve>[-rm][-slab],
    /// shelf-<nf|ff|bwf|bhf|baf|wwf|waf>[-wm].
    #[arg(long, default_value = "maxrects-bssf", value_parser = parse_algorithm)]
    pub algo: Algorithm,
    /// Bin size.
    #[arg(long, default_value = "1024x1024", value_parser = parse_size)]
    pub size: (u32, u32),
    /// Gutter between rectangles, in pixels.
    #[arg(long, default_value_t = 0)]
    pub padding: u32,
    /// Allow 90° rotation.
    #[arg(long)]
    pub rotate: bool,
    /// Drop free rectangles narrower or shorter than N pixels (slivers no glyph uses).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub min_free: u32,
    /// Online, sorted, global or meta.
    #[arg(long, value_enum, default_value = "online")]
    pub mode: Mode,
    /// Sort order for --mode sorted: <area|short|long|perimeter|diff|ratio>-<asc|desc>.
    #[arg(long, default_value = "area-desc", value_parser = parse_sort)]
    pub sort: SortOrder,
    /// Online mode: repeat the trace until the first failure (for traces that do not fill the bin).
    #[arg(long)]
    pub cycle: bool,
    /// Online mode: run every packer variant and print one table (or a JSON array without placements).
    #[arg(long)]
    pub all: bool,
    /// Run the trace (cycled) through kerf's main packers (plus --algo) and
    /// the peers etagere and guillotiere: fill to the first failure, then 20
    /// rounds of freeing a random quarter and refilling. One table (or JSON array).
    #[arg(long)]
    pub compare: bool,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Draw the packing as SVG.
    #[arg(long, value_name = "OUT")]
    pub svg: Option<PathBuf>,
    /// Draw the packing as PNG.
    #[arg(long, value_name = "OUT")]
    pub png: Option<PathBuf>,
}

pub(crate) fn parse_algorithm(s: &str) -> Result<Algorithm, String> {
    s.parse().map_err(|e: kerf_pack::UnknownAlgorithm| e.to_string())
}

fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s.split_once(['x', 'X']).ok_or_else(|| format!("expected WxH, got `{s}`"))?;
    let side =
        |v: &str| v.trim().parse::<u32>().map_err(|_| format!("`{v}` is not a positive integer"));
    Ok((side(w)?, side(h)?))
}

fn parse_sort(s: &str) -> Result<SortOrder, String> {
    let (key, dir) =
        s.rsplit_once('-').ok_or_else(|| format!("expected KEY-asc or KEY-desc, got `{s}`"))?;
    let key = match key {
        "area" => SortKey::Area,
        "short" => SortKey::ShortSide,
        "long" => SortKey::LongSide,
        "perimeter" => SortKey::Perimeter,
        "diff" => SortKey::SideDifference,
        "ratio" => SortKey::Ratio,
        _ => {
            return Err(format!(
                "unknown sort key `{key}` (area, short, long, perimeter, diff, ratio)"
            ))
        }
    };
    let descending = match dir {
        "desc" => true,
        "asc" => false,
        _ => return Err(format!("unknown direction `{dir}` (asc, desc)")),
    };
    Ok(SortOrder { key, descending })
}

/// One placed request as reported in JSON.
#[derive(Serialize, Clone, Copy)]
struct Placement {
    x: u32,
    y: u32,
    w: u32,
    h: u32,
    rotated: bool,
}

/// The JSON report of one packing.
#[derive(Serialize)]
pub struct Report {
    algorithm: String,
    width: u32,
    height: u32,
    requested: usize,
    placed: usize,
    first_failure: Option<usize>,
    placed_before_first_failure: usize,
    occupancy_at_first_failure: Option<f64>,
    occupancy: f64,
    ns_per_insert: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    placements: Option<Vec<Option<Placement>>>,
}

/// Result of an online run.
struct Online {
    packer: Box<dyn Packer + Send + Sync>,
    placements: Vec<Option<Placement>>,
    first_failure: Option<usize>,
    occupancy_at_first_failure: Option<f64>,
}

/// Inserts `sizes` in order (cycled up to the first failure when `cycle`).
fn run_online(
    algo: Algorithm, size: (u32, u32), opts: PackerOptions, sizes: &[(u32, u32)], cycle: bool,
) -> Result<Online, String> {
    let mut packer = algo.build(size.0, size.1, opts).map_err(|e| e.to_string())?;
    let mut out = Online {
        packer: algo.build(1, 1, opts).map_err(|e| e.to_string())?,
        placements: Vec::new(),
        first_failure: None,
        occupancy_at_first_failure: None,
    };
    let stream: Box<dyn Iterator<Item = &(u32, u32)>> = if cycle && !sizes.is_empty() {
        Box::new(sizes.iter().cycle())
    } else {
        Box::new(sizes.iter())
    };
    for (i, &(w, h)) in stream.enumerate() {
        let placed = packer.allocate(w, h).ok();
        out.placements.push(placed.map(|a| Placement {
            x: a.rect.x,
            y: a.rect.y,
            w: a.rect.w,
            h: a.rect.h,
            rotated: a.rotated,
        }));
        if placed.is_none() && out.first_failure.is_none() {
            out.first_failure = Some(i);
            out.occupancy_at_first_failure = Some(packer.occupancy());
            if cycle {
                break;
            }
        }
    }
    out.packer = packer;
    Ok(out)
}

/// Median nanoseconds per insert of the online loop over `sizes[..n]` (in a
/// fresh packer each run), over repeated runs for about `budget`.
fn time_online(
    algo: Algorithm, size: (u32, u32), opts: PackerOptions, seq: &[(u32, u32)], budget: Duration,
) -> f64 {
    if seq.is_empty() {
        return 0.0;
    }
    let mut samples = Vec::new();
    let start = Instant::now();
    while samples.len() < 3 || (start.elapsed() < budget && samples.len() < 101) {
        let Ok(mut p) = algo.build(size.0, size.1, opts) else { return 0.0 };
        let t = Instant::now();
        for &(w, h) in seq {
            let _ = std::hint::black_box(p.allocate(w, h));
        }
        samples.push(t.elapsed().as_nanos() as f64 / seq.len() as f64);
    }
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn report_online(
    algo: Algorithm, args: &PackArgs, opts: PackerOptions, sizes: &[(u32, u32)], budget: Duration,
    with_placements: bool,
) -> Result<(Report, Box<dyn Packer + Send + Sync>), String> {
    let run = run_online(algo, args.size, opts, sizes, args.cycle)?;
    let seq: Vec<(u32, u32)> = sizes.iter().copied().cycle().take(run.placements.len()).collect();
    let ns = time_online(algo, args.size, opts, &seq, budget);
    let placed = run.placements.iter().filter(|p| p.is_some()).count();
    let before = run.first_failure.unwrap_or(run.placements.len());
    let report = Report {
        algorithm: algo.to_string(),
        width: args.size.0,
        height: args.size.1,
        requested: run.placements.len(),
        placed,
        first_failure: run.first_failure,
        placed_before_first_failure: before,
        occupancy_at_first_failure: run.occupancy_at_first_failure,
        occupancy: run.packer.occupancy(),
        ns_per_insert: ns,
        placements: with_placements.then_some(run.placements),
    };
    Ok((report, run.packer))
}

fn report_offline(
    args: &PackArgs, opts: PackerOptions, sizes: &[(u32, u32)],
) -> Result<(Report, Box<dyn Packer + Send + Sync>), String> {
    let pack = || -> Result<Outcome, String> {
        match args.mode {
            Mode::Sorted => offline::pack_list(
                args.algo,
                Some(args.sort),
                args.size.0,
                args.size.1,
                opts,
                sizes,
            ),
            Mode::Global => {
                let Algorithm::MaxRects(h) = args.algo else {
                    return Err(format!(
                        "--mode global needs a MaxRects packer, not {}",
                        args.algo
                    ));
                };
                offline::pack_global(h, args.size.0, args.size.1, opts, sizes)
            }
            Mode::Meta => offline::pack_meta(args.size.0, args.size.1, opts, sizes),
            Mode::Online => unreachable!("online is reported by report_online"),
        }
        .map_err(|e| e.to_string())
    };
    let t = Instant::now();
    let outcome = pack()?;
    let ns = t.elapsed().as_nanos() as f64 / sizes.len().max(1) as f64;
    let placements: Vec<Option<Placement>> = outcome
        .placements
        .iter()
        .map(|p| {
            p.map(|a| Placement {
                x: a.rect.x,
                y: a.rect.y,
                w: a.rect.w,
                h: a.rect.h,
                rotated: a.rotated,
            })
        })
        .collect();
    let algorithm = match outcome.strategy {
        Strategy::Global(MaxRectsHeuristic::BestShortSideFit) => "maxrects-bssf global".to_string(),
        s => s.to_string(),
    };
    let placed = outcome.placed();
    let report = Report {
        algorithm,
        width: args.size.0,
        height: args.size.1,
        requested: sizes.len(),
        placed,
        first_failure: None,
        placed_before_first_failure: placed,
        occupancy_at_first_failure: None,
        occupancy: outcome.packer.occupancy(),
        ns_per_insert: ns,
        placements: Some(placements),
    };
    Ok((report, outcome.packer))
}

fn read_input(file: &str) -> Result<String, String> {
    if file == "-" {
        let mut s = String::new();
        std::io::stdin().read_to_string(&mut s).map_err(|e| format!("standard input: {e}"))?;
        Ok(s)
    } else {
        std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))
    }
}

fn row(r: &Report) -> String {
    let at_ff =
        r.occupancy_at_first_failure.map_or("-".to_string(), |o| format!("{:.2}%", o * 100.0));
    format!(
        "| {} | {} | {} | {} / {} | {:.2}% | {:.0} |",
        r.algorithm,
        r.placed_before_first_failure,
        at_ff,
        r.placed,
        r.requested,
        r.occupancy * 100.0,
        r.ns_per_insert
    )
}

/// Prints a line; a closed pipe (`kerf pack | head`) ends the output quietly.
fn emit(line: &str) -> Result<(), String> {
    out!("{line}");
    Ok(())
}

const HEADER: &str = "| packer | placed before first failure | occupancy then | placed / requested | occupancy | ns/insert |\n|---|---|---|---|---|---|";

/// Runs `kerf pack`.
pub fn run(args: &PackArgs) -> Result<(), String> {
    let sizes =
        trace::parse(&read_input(&args.file)?).map_err(|e| format!("{}: {e}", args.file))?;
    let opts = PackerOptions {
        padding: args.padding,
        allow_rotation: args.rotate,
        min_free_size: args.min_free,
    };
    if args.compare {
        if args.mode != Mode::Online || args.padding != 0 || args.rotate || args.min_free != 0 {
            return Err(
                "--compare runs online, without padding or rotation (the peers' defaults)".into()
            );
        }
        let rows = crate::compare::compare(&sizes, args.size, Some(args.algo))?;
        if args.json {
            return emit(&serde_json::to_string(&rows).map_err(|e| e.to_string())?);
        }
        emit(crate::compare::HEADER)?;
        for r in &rows {
            emit(&crate::compare::row(r))?;
        }
        return Ok(());
    }
    if args.all {
        if args.mode != Mode::Online {
            return Err("--all runs the online mode only".into());
        }
        let mut reports = Vec::new();
        if !args.json {
            emit(HEADER)?;
        }
        for algo in Algorithm::all() {
            let (r, _) =
                report_online(algo, args, opts, &sizes, Duration::from_millis(100), false)?;
            if !args.json {
                emit(&row(&r))?;
            }
            reports.push(r);
        }
        if args.json {
            emit(&serde_json::to_string(&reports).map_err(|e| e.to_string())?)?;
        }
        return Ok(());
    }
    let (report, packer) = match args.mode {
        Mode::Online => {
            report_online(args.algo, args, opts, &sizes, Duration::from_millis(500), true)?
        }
        _ => report_offline(args, opts, &sizes)?,
    };
    if let Some(path) = &args.svg {
        picture::write_svg(packer.as_ref(), path)?;
    }
    if let Some(path) = &args.png {
        picture::write_png(packer.as_ref(), path)?;
    }
    if args.json {
        emit(&serde_json::to_string(&report).map_err(|e| e.to_string())?)
    } else {
        emit(HEADER)?;
        emit(&row(&report))
    }
}
