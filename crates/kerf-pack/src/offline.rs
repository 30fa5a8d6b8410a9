//! Offline packing: the whole list is known up front. Sorted input (Jylänki
//! §6), MaxRects global best fit, and the meta-packer that tries every
//! variant and keeps the best result.

use crate::algorithm::Algorithm;
use crate::maxrects::{MaxRects, MaxRectsHeuristic};
use crate::packer::{Packer, PackerOptions};
use crate::slots::Allocation;
use crate::SizeError;
use alloc::boxed::Box;
use alloc::vec::Vec;
use core::cmp::Ordering;
use core::fmt;

/// What to sort requests by before packing them online (Jylänki §6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SortKey {
    /// `w × h`.
    Area,
    /// `min(w, h)`.
    ShortSide,
    /// `max(w, h)`.
    LongSide,
    /// `2 (w + h)`.
    Perimeter,
    /// `|w − h|`.
    SideDifference,
    /// `w / h`.
    Ratio,
}

impl SortKey {
    /// Every key, in the paper's order.
    pub const ALL: [SortKey; 6] = [
        SortKey::Area,
        SortKey::ShortSide,
        SortKey::LongSide,
        SortKey::Perimeter,
        SortKey::SideDifference,
        SortKey::Ratio,
    ];

    fn compare(self, a: (u32, u32), b: (u32, u32)) -> Ordering {
        let (a0, a1, b0, b1) = (a.0 as u64, a.1 as u64, b.0 as u64, b.1 as u64);
        match self {
            SortKey::Area => (a0 * a1).cmp(&(b0 * b1)),
            SortKey::ShortSide => a0.min(a1).cmp(&b0.min(b1)),
            SortKey::LongSide => a0.max(a1).cmp(&b0.max(b1)),
            SortKey::Perimeter => (a0 + a1).cmp(&(b0 + b1)),
            SortKey::SideDifference => a0.abs_diff(a1).cmp(&b0.abs_diff(b1)),
            SortKey::Ratio => (a0 * b1).cmp(&(b0 * a1)),
        }
    }
}

/// How requests are ordered before an online packer sees them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SortOrder {
    /// The key.
    pub key: SortKey,
    /// Largest first when true.
    pub descending: bool,
}

impl SortOrder {
    /// All twelve orders: each key ascending and descending.
    pub fn all() -> Vec<SortOrder> {
        SortKey::ALL
            .iter()
            .flat_map(|&key| {
                [SortOrder { key, descending: true }, SortOrder { key, descending: false }]
            })
            .collect()
    }

    /// Input indices in this order (a stable sort: ties keep input order).
    pub fn permutation(&self, sizes: &[(u32, u32)]) -> Vec<usize> {
        let mut idx: Vec<usize> = (0..sizes.len()).collect();
        idx.sort_by(|&a, &b| {
            let o = self.key.compare(sizes[a], sizes[b]);
            if self.descending {
                o.reverse()
            } else {
                o
            }
        });
        idx
    }
}

/// How an offline result was obtained.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// Online, in input order.
    Online(Algorithm),
    /// Online after sorting.
    Sorted(Algorithm, SortOrder),
    /// MaxRects global best fit.
    Global(MaxRectsHeuristic),
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Strategy::Online(a) => write!(f, "{a}"),
            Strategy::Sorted(a, o) => {
                write!(
                    f,
                    "{a} sorted by {:?} {}",
                    o.key,
                    if o.descending { "descending" } else { "ascending" }
                )
            }
            Strategy::Global(h) => write!(f, "maxrects-{} global", h.short_name()),
        }
    }
}

/// The result of packing a whole list.
pub struct Outcome {
    /// How it was packed.
    pub strategy: Strategy,
    /// One entry per request, in input order; `None` where it did not fit.
    pub placements: Vec<Option<Allocation>>,
    /// The packer holding the result (for pictures, or to keep packing online).
    pub packer: Box<dyn Packer + Send + Sync>,
}

impl Outcome {
    /// Number of requests placed.
    pub fn placed(&self) -> usize {
        self.placements.iter().filter(|p| p.is_some()).count()
    }

    /// Width and height of the smallest top-left-anchored box holding every placement.
    pub fn extent(&self) -> (u32, u32) {
        self.packer.iter().fold((0, 0), |(w, h), a| (w.max(a.rect.right()), h.max(a.rect.bottom())))
    }

    /// True when `self` is a better packing than `other`: more placed, then
    /// more area, then a smaller bounding box (an atlas that can be cropped).
    fn beats(&self, other: &Outcome) -> bool {
        let box_area = |o: &Outcome| {
            let (w, h) = o.extent();
            core::cmp::Reverse(w as u64 * h as u64)
        };
        (self.placed(), self.packer.used_area(), box_area(self))
            > (other.placed(), other.packer.used_area(), box_area(other))
    }
}

/// Packs `sizes` with `algorithm`, in input order or sorted first. Requests
/// that do not fit are skipped; packing continues with the next one.
pub fn pack_list(
    algorithm: Algorithm, order: Option<SortOrder>, width: u32, height: u32, opts: PackerOptions,
    sizes: &[(u32, u32)],
) -> Result<Outcome, SizeError> {
    let mut packer = algorithm.build(width, height, opts)?;
    let sequence = match order {
        Some(o) => o.permutation(sizes),
        None => (0..sizes.len()).collect(),
    };
    let mut placements = alloc::vec![None; sizes.len()];
    for i in sequence {
        placements[i] = packer.allocate(sizes[i].0, sizes[i].1).ok();
    }
    let strategy = match order {
        Some(o) => Strategy::Sorted(algorithm, o),
        None => Strategy::Online(algorithm),
    };
    Ok(Outcome { strategy, placements, packer })
}

/// Packs `sizes` with MaxRects global best fit (see [`MaxRects::insert_global`]).
pub fn pack_global(
    heuristic: MaxRectsHeuristic, width: u32, height: u32, opts: PackerOptions,
    sizes: &[(u32, u32)],
) -> Result<Outcome, SizeError> {
    let mut packer = MaxRects::new(width, height, heuristic, opts)?;
    let placements = packer.insert_global(sizes);
    Ok(Outcome { strategy: Strategy::Global(heuristic), placements, packer: Box::new(packer) })
}

/// The meta-packer: packs `sizes` with every built-in variant, in input order
/// and in all twelve sort orders, plus MaxRects global best fit (BSSF, BLSF,
/// BAF, BL; global CP is left out, its cost grows with the cube of the list),
/// and returns the best result: most requests placed, then most area, then
/// the smallest bounding box. Ties go to the first variant tried, in
/// [`Algorithm::all`] order. This runs about 1,500 packings: meant for
/// sprite sheets and prebuilt atlases, not for per-frame use.
pub fn pack_meta(
    width: u32, height: u32, opts: PackerOptions, sizes: &[(u32, u32)],
) -> Result<Outcome, SizeError> {
    let algorithms = Algorithm::all();
    let mut best: Outcome = pack_list(algorithms[0], None, width, height, opts, sizes)?;
    let mut consider = |o: Outcome| {
        if o.beats(&best) {
            best = o;
        }
    };
    let orders = SortOrder::all();
    for (i, &algorithm) in algorithms.iter().enumerate() {
        if i > 0 {
            consider(pack_list(algorithm, None, width, height, opts, sizes)?);
        }
        for &o in &orders {
            consider(pack_list(algorithm, Some(o), width, height, opts, sizes)?);
        }
    }
    for h in &MaxRectsHeuristic::ALL[..4] {
        consider(pack_global(*h, width, height, opts, sizes)?);
    }
    Ok(best)
}
