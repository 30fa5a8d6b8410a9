//! Custom placement heuristics: a caller's scoring function over candidate
//! free rectangles, for MaxRects and Guillotine.

use crate::geom::Rect;
use alloc::boxed::Box;

/// One possible placement a custom heuristic is asked to score.
///
/// Sizes include padding, in the orientation the request would be placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// The free rectangle the request would go into, at its top-left corner.
    pub free: Rect,
    /// Width the request takes (padding included, after rotation).
    pub w: u32,
    /// Height the request takes (padding included, after rotation).
    pub h: u32,
    /// True when this candidate turns the request by 90°.
    pub rotated: bool,
    /// Width of the packing area (bin plus padding margin).
    pub bin_w: u32,
    /// Height of the packing area (bin plus padding margin).
    pub bin_h: u32,
}

/// A custom heuristic: lower scores are better. Ties are broken as for the
/// built-in heuristics (earliest free rect in the packer's list, then
/// upright before rotated).
pub type Scorer = Box<dyn Fn(&Candidate) -> i64 + Send + Sync>;
