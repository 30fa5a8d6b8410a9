//! Glyph outlines for drawing on the GPU: each glyph's outline read once,
//! whatever the size it is drawn at, as quadratic curves in em units
//! ([`read_curves`]), packed with horizontal bands that let a pixel read only the
//! curves near its row ([`pack()`]), and kept in one word arena with a budget,
//! least-recently-used eviction and deallocation ([`CurveStore`]), which
//! kerf-wgpu mirrors into a storage buffer.
//!
//! A record, in 32-bit words from its offset (floats as their bits; offsets
//! relative to the record):
//!
//! | words | what |
//! |---|---|
//! | 0–3 | bounds `xmin, ymin, xmax, ymax` (em, y up) |
//! | 4 | band count `n` (bands split `ymin..ymax` evenly) |
//! | 5 | curve count |
//! | 6 .. 22 | a 16 × 16 grid of cells over the bounds, two bits each: outside, inside, or reached by a curve ([`GRID`]) |
//! | 22 .. 22 + 2n | per band: the offset of its curve list, its length |
//! | lists | per band, the curves that reach into it (offset, and the first band listing it: [`OFFSET_BITS`]), by their right end, rightmost first; then the same by their left end, leftmost first (the table's length is one list's) |
//! | curves | 6 floats each: `p0, p1, p2`, monotone in x and in y |

mod pack;
mod read;
mod store;

pub use pack::{
    pack, BAND_TABLE, CELL_EDGE, CELL_INSIDE, CELL_OUTSIDE, GRID, GRID_SIDE, HEADER_WORDS,
    MAX_BANDS, OFFSET_BITS,
};
pub use read::{read_curves, Curve, CUBIC_TOLERANCE_EM};
pub use store::{CurveKey, CurveStore, CurveStoreStats, OutlineSlot};

/// Why a glyph cannot be drawn from its outline (it is drawn from a bitmap).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OutlineError {
    /// The font id names no loaded font.
    #[error("unknown font id {0:?}")]
    UnknownFont(crate::FontId),
    /// The font draws an effect (outline, shadow) or a synthetic bold, which
    /// change the outline's shape by a size in pixels.
    #[error("the font draws an effect or a synthetic bold")]
    Synthetic,
    /// The glyph is a colour glyph (COLR, bitmap): drawn as an image.
    #[error("glyph {0} is a colour glyph")]
    Colour(u16),
    /// The face's outline could not be read.
    #[error("the face's outline of glyph {0} could not be read")]
    BadFont(u16),
    /// The outline is larger than the store's whole budget, or the store is
    /// full of outlines used by frames in flight.
    #[error("the outline store has no room ({need} words; budget {budget})")]
    Full {
        /// Words the record needs.
        need: usize,
        /// The store's budget in words.
        budget: usize,
    },
}
