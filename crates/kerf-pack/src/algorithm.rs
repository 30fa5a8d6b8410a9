//! Every built-in packer variant as a value with a name, so tools can pick
//! one from the command line and the meta-packer can try them all.

use crate::freelist::{FreeRectChoice, SplitRule};
use crate::guillotine::{Guillotine, GuillotineConfig};
use crate::maxrects::{MaxRects, MaxRectsHeuristic};
use crate::packer::{Packer, PackerOptions};
use crate::shelf::{Shelf, ShelfHeuristic};
use crate::skyline::{Skyline, SkylineHeuristic};
use crate::SizeError;
use alloc::boxed::Box;
use alloc::vec::Vec;
use core::fmt;
use core::str::FromStr;

/// A built-in packer variant.
///
/// Names (`Display` and `FromStr`): `maxrects-<bssf|blsf|baf|bl|cp>`,
/// `skyline-<bl|mw>[-wm]`, `guillotine-<choice>-<split>[-rm][-slab]` with
/// choice `baf|bssf|blsf|waf|wssf|wlsf` and split
/// `sas|las|slas|llas|minas|maxas|halve`, and `shelf-<nf|ff|bwf|bhf|baf|wwf|waf>[-wm]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// MaxRects with a heuristic.
    MaxRects(MaxRectsHeuristic),
    /// Skyline with a heuristic, with or without the waste map.
    Skyline(SkylineHeuristic, bool),
    /// Guillotine with its configuration.
    Guillotine(GuillotineConfig),
    /// Shelf with a heuristic, with or without the waste map.
    Shelf(ShelfHeuristic, bool),
}

impl Default for Algorithm {
    /// MaxRects-BSSF, kerf's default packer.
    fn default() -> Self {
        Algorithm::MaxRects(MaxRectsHeuristic::BestShortSideFit)
    }
}

impl Algorithm {
    /// Skyline-BL with waste map, kerf's fallback packer.
    pub const FALLBACK: Algorithm = Algorithm::Skyline(SkylineHeuristic::BottomLeft, true);

    /// Every variant: 5 MaxRects, 4 Skyline, 6 × 7 × 2 Guillotine (slab
    /// rounding only with the `halve` split), 14 Shelf.
    pub fn all() -> Vec<Algorithm> {
        let mut v: Vec<Algorithm> =
            MaxRectsHeuristic::ALL.iter().map(|&h| Algorithm::MaxRects(h)).collect();
        for wm in [false, true] {
            v.extend(SkylineHeuristic::ALL.iter().map(|&h| Algorithm::Skyline(h, wm)));
        }
        for choice in FreeRectChoice::ALL {
            for split in SplitRule::ALL {
                for merge in [false, true] {
                    v.push(Algorithm::Guillotine(GuillotineConfig {
                        choice,
                        split,
                        merge,
                        slab: false,
                    }));
                }
            }
            v.push(Algorithm::Guillotine(GuillotineConfig {
                choice,
                split: SplitRule::Halve,
                merge: true,
                slab: true,
            }));
        }
        for wm in [false, true] {
            v.extend(ShelfHeuristic::ALL.iter().map(|&h| Algorithm::Shelf(h, wm)));
        }
        v
    }

    /// An empty packer of this variant.
    pub fn build(
        &self, width: u32, height: u32, opts: PackerOptions,
    ) -> Result<Box<dyn Packer + Send + Sync>, SizeError> {
        Ok(match *self {
            Algorithm::MaxRects(h) => Box::new(MaxRects::new(width, height, h, opts)?),
            Algorithm::Skyline(h, wm) => Box::new(Skyline::new(width, height, h, wm, opts)?),
            Algorithm::Guillotine(c) => Box::new(Guillotine::new(width, height, c, opts)?),
            Algorithm::Shelf(h, wm) => Box::new(Shelf::new(width, height, h, wm, opts)?),
        })
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let wm = |on: bool| if on { "-wm" } else { "" };
        match *self {
            Algorithm::MaxRects(h) => write!(f, "maxrects-{}", h.short_name()),
            Algorithm::Skyline(h, on) => write!(f, "skyline-{}{}", h.short_name(), wm(on)),
            Algorithm::Guillotine(c) => write!(
                f,
                "guillotine-{}-{}{}{}",
                c.choice.short_name(),
                c.split.short_name(),
                if c.merge { "-rm" } else { "" },
                if c.slab { "-slab" } else { "" }
            ),
            Algorithm::Shelf(h, on) => write!(f, "shelf-{}{}", h.short_name(), wm(on)),
        }
    }
}

/// A name that names no packer variant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownAlgorithm(pub alloc::string::String);

impl fmt::Display for UnknownAlgorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown packer '{}' (try maxrects-bssf, skyline-bl-wm, guillotine-bssf-minas-rm, shelf-ff)",
            self.0
        )
    }
}

impl core::error::Error for UnknownAlgorithm {}

fn lookup<T: Copy>(all: &[T], name: &str, short: fn(T) -> &'static str) -> Option<T> {
    all.iter().copied().find(|&v| short(v) == name)
}

impl FromStr for Algorithm {
    type Err = UnknownAlgorithm;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let unknown = || UnknownAlgorithm(s.into());
        let lower = s.to_ascii_lowercase();
        let mut parts: Vec<&str> = lower.split('-').collect();
        let mut flag = |name: &str| {
            let at = parts.iter().position(|p| *p == name);
            at.map(|i| parts.remove(i)).is_some()
        };
        let (wm, rm, slab) = (flag("wm"), flag("rm"), flag("slab"));
        let parsed = match parts.as_slice() {
            ["maxrects", h] if !(wm || rm || slab) => {
                lookup(&MaxRectsHeuristic::ALL, h, MaxRectsHeuristic::short_name)
                    .map(Algorithm::MaxRects)
            }
            ["skyline", h] if !(rm || slab) => {
                lookup(&SkylineHeuristic::ALL, h, SkylineHeuristic::short_name)
                    .map(|h| Algorithm::Skyline(h, wm))
            }
            ["shelf", h] if !(rm || slab) => {
                lookup(&ShelfHeuristic::ALL, h, ShelfHeuristic::short_name)
                    .map(|h| Algorithm::Shelf(h, wm))
            }
            ["guillotine", c, sp] if !wm => {
                let choice = lookup(&FreeRectChoice::ALL, c, FreeRectChoice::short_name);
                let split = lookup(&SplitRule::ALL, sp, SplitRule::short_name);
                choice.zip(split).map(|(choice, split)| {
                    Algorithm::Guillotine(GuillotineConfig { choice, split, merge: rm, slab })
                })
            }
            _ => None,
        };
        parsed.ok_or_else(unknown)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    #[test]
    fn every_name_round_trips() {
        let all = Algorithm::all();
        for a in &all {
            assert_eq!(a.to_string().parse::<Algorithm>(), Ok(*a), "{a}");
        }
        let mut names: Vec<_> = all.iter().map(|a| a.to_string()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), all.len(), "names are unique");
    }

    #[test]
    fn bad_names_are_errors() {
        for bad in [
            "",
            "maxrects",
            "maxrects-xx",
            "maxrects-bssf-wm",
            "skyline-bl-rm",
            "skyline-bl-slab",
            "shelf-ff-rm",
            "shelf-ff-slab",
            "guillotine-bssf-minas-wm",
            "guillotine-bssf",
            "shelf-nf-x",
        ] {
            let err = bad.parse::<Algorithm>().unwrap_err();
            let text = err.to_string();
            assert!(text.contains(&alloc::format!("'{bad}'")), "{bad}: {text}");
            assert!(text.contains("maxrects-bssf"), "names a valid packer: {text}");
        }
        // Each flag where it is allowed.
        for good in ["skyline-bl-wm", "shelf-ff-wm", "guillotine-bssf-minas-slab"] {
            assert_eq!(good.parse::<Algorithm>().unwrap().to_string(), good);
        }
        assert_eq!(
            "guillotine-bssf-minas-rm".parse::<Algorithm>().unwrap().to_string(),
            "guillotine-bssf-minas-rm"
        );
    }
}
