//! Typed errors of the wgpu side.

use thiserror::Error;

/// Why a [`TextAtlas`](crate::TextAtlas) could not be made or rebuilt.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum AtlasError {
    /// The page side is larger than the device's `max_texture_dimension_2d`.
    #[error("page size {asked} exceeds the device's max_texture_dimension_2d ({limit})")]
    PageTooLarge {
        /// Page side asked for.
        asked: u32,
        /// The device limit.
        limit: u32,
    },
    /// More pages than the device's `max_texture_array_layers`.
    #[error("{asked} pages exceed the device's max_texture_array_layers ({limit})")]
    TooManyPages {
        /// Pages asked for.
        asked: u32,
        /// The device limit.
        limit: u32,
    },
    /// The cache configuration was refused.
    #[error(transparent)]
    Config(#[from] kerf_cache::ConfigError),
}

/// Why [`TextRenderer::prepare`](crate::TextRenderer::prepare) did nothing.
/// Nothing was changed when one of these is returned.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum PrepareError {
    /// The renderer was made for another atlas.
    #[error("this renderer was made for another TextAtlas")]
    AtlasMismatch,
    /// A text area is invalid (unknown font, bad size or scale).
    #[error("text area {area}: {error}")]
    Area {
        /// Index of the offending area.
        area: usize,
        /// What is wrong with it.
        error: kerf_cache::GlyphError,
    },
    /// A text area's effects (outline width, shadow blur or offset) are out
    /// of range or not finite.
    #[error("text area {area}: {error}")]
    Effects {
        /// Index of the offending area.
        area: usize,
        /// What is wrong with them.
        error: kerf_cache::StyleError,
    },
    /// A text area's transform has non-finite numbers or is degenerate.
    #[error("text area {area}: the transform must be finite and invertible (raster_scale > 0)")]
    Transform {
        /// Index of the offending area.
        area: usize,
    },
    /// A text area's scale is not a positive finite number.
    #[error("text area {area}: scale {scale} must be finite and > 0")]
    Scale {
        /// Index of the offending area.
        area: usize,
        /// The scale given.
        scale: f32,
    },
}

/// A call made out of order or with the wrong partner, which a fix in the
/// calling code ends: [`TextRenderer::render`](crate::TextRenderer::render)
/// before `prepare` or with another atlas (nothing recorded), and
/// [`TextAtlas::begin_frame`](crate::TextAtlas::begin_frame) /
/// [`end_frame`](crate::TextAtlas::end_frame) out of pairs (nothing changed).
#[derive(Clone, Copy, Debug, Error, PartialEq, Eq)]
pub enum UsageError {
    /// `render` before `prepare`.
    #[error("render called before prepare")]
    NotPrepared,
    /// `render` with another atlas than the renderer was prepared with.
    #[error("this renderer was prepared with another TextAtlas")]
    AtlasMismatch,
    /// `begin_frame` while a frame is open (the open frame goes on).
    #[error("begin_frame called while a frame is open (call end_frame after the submit)")]
    FrameAlreadyOpen,
    /// `end_frame` without an open frame.
    #[error("end_frame called without begin_frame")]
    FrameNotOpen,
}
