//! Glyph outlines read from a face's bytes and flattened to closed polygons
//! in font units ([`FlatOutline`], its edges sorted by kind once), read and
//! flattened per size class ([`flatten`]), and kept per glyph and size class
//! after their first read ([`OutlineStore`]), so a glyph rasterized again
//! (evicted and drawn anew, another sub-pixel offset, another size of the
//! same class) skips the font's tables and the curve flattening.

mod flat;
mod flatten;
mod store;

pub(crate) use flat::{EdgeIndex, Edges, FlatOutline, Sorted};
pub(crate) use flatten::{flatten, flatten_glyf, size_class, GlyfTables};
pub(crate) use store::OutlineStore;
