//! Online rectangle packers with deallocation, for texture atlases.
//!
//! A glyph cache asks for `w × h` slots one at a time, in no order it can
//! choose, and gives slots back when glyphs are evicted. kerf-pack provides
//! every classic packing family behind one [`Packer`] trait, each able to
//! free what it placed so the space is really reused:
//!
//! | family | module | trade-off |
//! |---|---|---|
//! | MaxRects (BSSF, BLSF, BAF, BL, CP) | [`maxrects`] | densest packing; keeps the exact set of maximal free rects, also after frees |
//! | Skyline (BL, MinWaste, ± waste map) | [`skyline`] | fast and compact for similar heights; kerf's fallback |
//! | Guillotine (6 choices × 7 splits, ± merge, slab) | [`guillotine`] | disjoint free rects, simple frees |
//! | Shelf (NF, FF, BWF, BHF, BAF, WWF, WAF, ± waste map) | [`shelf`] | fastest; good for one font size |
//!
//! Every packer hands out generational [`AllocId`]s: freeing a stale id, an
//! id twice, or another packer's id is an error, never a silent free. Every
//! error leaves the packer unchanged. [`offline`] packs whole lists (sorted,
//! global best fit, or the best of every variant).
//!
//! ```
//! use kerf_pack::{MaxRects, MaxRectsHeuristic, Packer, PackerOptions, AllocError};
//!
//! let opts = PackerOptions { padding: 1, ..Default::default() };
//! let mut atlas = MaxRects::new(64, 64, MaxRectsHeuristic::BestShortSideFit, opts)?;
//! let a = atlas.allocate(40, 40)?;
//! let b = atlas.allocate(20, 63)?;
//! // The bin is too full for another 40×40 ...
//! assert_eq!(atlas.allocate(40, 40), Err(AllocError::NoSpace { w: 40, h: 40 }));
//! // ... until the first one is freed; its space is reused.
//! atlas.deallocate(a.id)?;
//! let c = atlas.allocate(40, 40)?;
//! assert!(!c.rect.intersects(&b.rect));
//! // Freeing twice is an error, not a corruption.
//! assert!(atlas.deallocate(a.id).is_err());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![no_std]
#![warn(missing_docs)]
// No panics reachable from the public API: errors are typed results.
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::todo,
        clippy::unimplemented
    )
)]

extern crate alloc;

mod algorithm;
mod colbits;
mod error;
mod evict_to_fit;
mod freeindex;
mod freelist;
mod geom;
mod heuristic;
mod maximal;
mod packer;
mod slots;
mod svg;
#[cfg(test)]
mod testrng;

pub mod guillotine;
pub mod maxrects;
pub mod offline;
pub mod shelf;
pub mod skyline;

/// Oracles for tests and fuzzing, not part of the packing API: slow,
/// obviously correct versions of what the packers compute fast.
#[doc(hidden)]
pub mod testing {
    pub use crate::maximal::maximal_free_rects_reference;
}

pub use algorithm::{Algorithm, UnknownAlgorithm};
pub use error::{AllocError, DeallocError, SizeError};
pub use evict_to_fit::Eviction;
pub use freelist::{FreeRectChoice, SplitRule};
pub use geom::Rect;
pub use guillotine::{Guillotine, GuillotineConfig};
pub use heuristic::{Candidate, Scorer};
pub use maxrects::{MaxRects, MaxRectsHeuristic};
pub use packer::{Packer, PackerOptions, MAX_SIDE};
pub use shelf::{Shelf, ShelfHeuristic};
pub use skyline::{Skyline, SkylineHeuristic};
pub use slots::{AllocId, Allocation, Iter};
pub use svg::{dump_svg, palette};
