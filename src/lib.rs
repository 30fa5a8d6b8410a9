//! kerf: a GPU glyph-cache runtime for text rendering.
//!
//! This crate re-exports kerf's parts: [`pack`], the rectangle packers
//! (MaxRects, Skyline, Guillotine, Shelf) with deallocation, and [`cache`], the
//! glyph cache without a GPU (fonts, rasterizer, pages, LRU eviction, uploads),
//! and [`gpu`], the wgpu text renderer (texture-array atlas, batched uploads).
//!
//! ```
//! use kerf::pack::{Algorithm, Packer, PackerOptions};
//!
//! let mut page = Algorithm::default().build(256, 256, PackerOptions::default())?;
//! let glyph = page.allocate(12, 17)?;
//! assert_eq!((glyph.rect.w, glyph.rect.h), (12, 17));
//! page.deallocate(glyph.id)?;
//! assert!(page.is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![warn(missing_docs)]

pub use kerf_cache as cache;
pub use kerf_pack as pack;
pub use kerf_wgpu as gpu;

/// The README's examples, compiled and run as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
