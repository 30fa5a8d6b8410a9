//! kerf's fuzz harness (see `harness.rs`), shared by the cargo-fuzz targets
//! and by the main workspace's corpus replay test.
pub mod harness;
