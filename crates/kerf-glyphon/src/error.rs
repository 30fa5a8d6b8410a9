//! glyphon's error types, as glyphon 0.12 declares them.

use std::error::Error;
use std::fmt::{self, Display, Formatter};

/// An error that occurred while preparing text for rendering.
///
/// glyphon returns [`AtlasFull`](Self::AtlasFull) when its atlas cannot
/// grow; kerf-glyphon never does: kerf evicts the least-recently-used
/// glyphs that no frame in flight draws and frees their space, and a glyph
/// that still finds no room is skipped and listed in
/// [`TextRenderer::skipped`](crate::TextRenderer::skipped). The variant is
/// kept so that apps matching on it compile.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum PrepareError {
    /// The glyph texture atlas is full (never returned by kerf-glyphon).
    AtlasFull,
}

impl Display for PrepareError {
    fn fmt(&self, f: &mut Formatter) -> fmt::Result {
        write!(f, "Prepare error: glyph texture atlas is full")
    }
}

impl Error for PrepareError {}

/// An error that occurred while rendering text.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum RenderError {
    /// The renderer was prepared with another atlas than the one given to
    /// `render`: its glyphs are not in this one. Nothing is drawn.
    RemovedFromAtlas,
    /// The screen resolution changed since the last `prepare`. Declared by
    /// glyphon 0.12, which never returns it; neither does kerf-glyphon (a
    /// renderer draws with the resolution its last `prepare` wrote). Kept
    /// so that apps matching on it compile.
    ScreenResolutionChanged,
}

impl Display for RenderError {
    fn fmt(&self, f: &mut Formatter) -> fmt::Result {
        match self {
            RenderError::RemovedFromAtlas => {
                write!(f, "Render error: glyph no longer exists within the texture atlas")
            }
            RenderError::ScreenResolutionChanged => {
                write!(f, "Render error: screen resolution changed since last `prepare` call")
            }
        }
    }
}

impl Error for RenderError {}
