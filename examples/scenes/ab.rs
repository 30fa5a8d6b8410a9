//! `scenes ab`: variants of one scene (sides, settings, other builds of
//! this binary) run as alternated child processes, round after round, and
//! compared as paired ratios. On a shared machine whose speed drifts over
//! minutes, the ratio of two runs made one after the other moves much less
//! than either run: each variant's figures are set beside the first
//! variant's of the same round, and the median of those ratios is printed.
//!
//! ```text
//! scenes ab editor 400 6 kerf=kerf neutral=kerf,SCENES_NEUTRAL=1 glyphon=glyphon
//! scenes ab zoom 500 6 new=kerf old=kerf@/tmp/scenes_before glyphon=glyphon
//! ```

use crate::measure::{median, Figures};

/// One variant: a label, the side its child draws, the environment it
/// adds, and the binary it runs (this one when `None`).
#[derive(Clone, Debug, PartialEq)]
pub struct Variant {
    pub label: String,
    pub side: String,
    pub env: Vec<(String, String)>,
    pub exe: Option<String>,
}

impl Variant {
    /// `LABEL=SIDE[,ENV=VALUE...][@BINARY]`.
    pub fn parse(spec: &str) -> Result<Variant, String> {
        let usage = || format!("variant {spec:?}: LABEL=SIDE[,ENV=VALUE...][@BINARY]");
        let (rest, exe) = match spec.split_once('@') {
            Some((rest, exe)) if !exe.is_empty() => (rest, Some(exe.to_string())),
            Some(_) => return Err(usage()),
            None => (spec, None),
        };
        let (label, settings) = rest.split_once('=').ok_or_else(usage)?;
        let mut parts = settings.split(',');
        let side = parts
            .next()
            .filter(|s| ["kerf", "glyphon", "kerf-glyphon"].contains(s))
            .ok_or_else(usage)?;
        let env = parts
            .map(|kv| match kv.split_once('=') {
                Some((k, v)) if !k.is_empty() => Ok((k.to_string(), v.to_string())),
                _ => Err(usage()),
            })
            .collect::<Result<Vec<_>, _>>()?;
        if label.is_empty() {
            return Err(usage());
        }
        Ok(Variant { label: label.to_string(), side: side.to_string(), env, exe })
    }
}

/// What `ab` (and `all`'s paired table) reports of a process: (name,
/// unit, value).
pub fn measures(f: &Figures) -> [(&'static str, &'static str, f64); 5] {
    [
        ("steady", "ms", f.steady_ms),
        ("app CPU", "ms", f.cpu_ms),
        ("first frame", "ms", f.first_ms),
        ("own share", "ms", f.own_ms),
        ("peak RSS", "MiB", f.peak_mib),
    ]
}

/// The median over `pairs` (a process and the one it is compared with,
/// run one after the other) of measure `m`'s ratio.
pub fn median_ratio<'a>(pairs: impl Iterator<Item = (&'a Figures, &'a Figures)>, m: usize) -> f64 {
    let mut ratios: Vec<f64> =
        pairs.map(|(f, base)| measures(f)[m].2 / measures(base)[m].2).collect();
    median(&mut ratios)
}

/// Runs `variants` of `scene`, `frames` frames a process, `rounds` rounds
/// (each round starts one variant later, so none is always first; after one
/// unmeasured two-frame process a variant unless `SCENES_COLD` is set), and
/// prints one table: each variant's medians and the medians of its ratios
/// to the first variant's figures in the same round.
pub fn run(scene: &str, frames: usize, rounds: usize, variants: &[Variant]) -> Result<(), String> {
    if variants.is_empty() {
        return Err("ab needs at least one variant".into());
    }
    let n = variants.len();
    // As `all` and `first` do: one unmeasured two-frame process a variant,
    // so that the driver's shader cache holds its pipelines.
    if !crate::measure::cold() {
        for v in variants {
            crate::child_of(v.exe.as_deref(), &v.env, scene, &v.side, 2)?;
        }
    }
    let mut got: Vec<Vec<Figures>> = vec![Vec::new(); n];
    for round in 0..rounds.max(1) {
        for k in 0..n {
            let i = (round + k) % n;
            let v = &variants[i];
            let f = crate::child_of(v.exe.as_deref(), &v.env, scene, &v.side, frames)?;
            eprintln!("round {round} {}: {}", v.label, f.line());
            got[i].push(f);
        }
    }
    let names = measures(&Figures::default()).map(|(name, unit, _)| (name, unit));
    print!("| variant |");
    for (name, unit) in names {
        print!(" {name} {unit} | ÷ {} |", variants[0].label);
    }
    println!();
    println!("|---|{}", "---|---|".repeat(names.len()));
    for (i, v) in variants.iter().enumerate() {
        print!("| {} |", v.label);
        for m in 0..names.len() {
            let mut own: Vec<f64> = got[i].iter().map(|f| measures(f)[m].2).collect();
            let ratio = median_ratio(got[i].iter().zip(&got[0]), m);
            print!(" {:.3} | {ratio:.3} |", median(&mut own));
        }
        println!();
    }
    Ok(())
}
