//! glyphon 0.12's API over kerf: a glyphon app switches to kerf by
//! changing one line of its `Cargo.toml`.
//!
//! ```toml
//! [dependencies]
//! # glyphon = "0.12"
//! glyphon = { package = "kerf-glyphon", version = "0.1" }
//! ```
//!
//! Every public item of glyphon 0.12 is here at the same path, with the
//! same signatures and trait implementations: [`Cache`], [`TextAtlas`]
//! and [`ColorMode`], [`TextRenderer`], [`Viewport`] and [`Resolution`],
//! [`TextArea`] and [`TextBounds`], the custom glyph types, the errors, and
//! cosmic-text 0.19's re-exports (the module [`cosmic_text`] included). The
//! app's code does not change:
//!
//! ```
//! use kerf_glyphon::{
//!     Attrs, Buffer, Cache, Color, Family, FontSystem, Metrics, Resolution, Shaping,
//!     SwashCache, TextArea, TextAtlas, TextBounds, TextRenderer, Viewport,
//! };
//!
//! let (device, queue) = kerf_wgpu::headless_device()?;
//! let mut font_system = FontSystem::new_with_locale_and_db("en-US".into(), Default::default());
//! font_system.db_mut().load_font_data(dejavu::sans::regular().to_vec());
//! let mut swash_cache = SwashCache::new();
//! let cache = Cache::new(&device);
//! let format = wgpu::TextureFormat::Rgba8UnormSrgb;
//! let mut atlas = TextAtlas::new(&device, &queue, &cache, format);
//! let mut renderer = TextRenderer::new(&mut atlas, &device, wgpu::MultisampleState::default(), None);
//! let mut viewport = Viewport::new(&device, &cache);
//!
//! let mut buffer = Buffer::new(&mut font_system, Metrics::new(30.0, 42.0));
//! buffer.set_size(Some(300.0), None);
//! buffer.set_text("Hello, kerf!", &Attrs::new().family(Family::SansSerif), Shaping::Advanced, None);
//! buffer.shape_until_scroll(&mut font_system, false);
//!
//! viewport.update(&queue, Resolution { width: 320, height: 60 });
//! let area = TextArea {
//!     buffer: &buffer,
//!     left: 10.0,
//!     top: 10.0,
//!     scale: 1.0,
//!     bounds: TextBounds::default(),
//!     default_color: Color::rgb(20, 30, 80),
//!     custom_glyphs: &[],
//! };
//! renderer.prepare(&device, &queue, &mut font_system, &mut atlas, &viewport, [area], &mut swash_cache)?;
//! assert_eq!(renderer.report().instances, 11); // 12 characters, one blank
//! // ... renderer.render(&atlas, &viewport, &mut pass)?; queue.submit(..); atlas.trim();
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## What draws it
//! kerf's atlas and renderer ([`kerf_wgpu`]), set to glyphon's look:
//! glyphs rasterized by swash with hinting, four sub-pixel bins, plain
//! coverage blending ([`kerf_wgpu::TextAtlas::like_glyphon`]); colours as
//! the atlas's [`ColorMode`] says; every size rasterized as asked, also
//! while it changes from frame to frame ([`kerf_wgpu::ZoomPolicy::Exact`];
//! [`TextRenderer::set_zoom_policy`] chooses kerf's size steps instead).
//! The pictures equal glyphon's pixel for pixel in tests/pictures.rs
//! (colour emoji within 0.14/255 on average). The atlas holds about what
//! glyphon's holds: glyphs idle for ten frames give way before a page is
//! added.
//!
//! ## Where it differs from glyphon
//! - **The atlas is never full.** glyphon's `prepare` fails with
//!   [`PrepareError::AtlasFull`] when its atlas cannot grow. kerf evicts the
//!   least-recently-used glyphs no frame in flight draws and frees their
//!   space; a glyph that still finds no room (more distinct glyphs in one
//!   frame than the pages hold) is skipped, the rest of the frame drawn,
//!   and the skipped glyphs are listed in [`TextRenderer::skipped`] (and
//!   [`TextRenderer::report`]). `prepare` always returns `Ok`.
//! - **Unchanged buffers cost almost nothing.** glyphon walks every glyph
//!   of every buffer in every `prepare`. kerf-glyphon reads the runs
//!   glyphon would draw once, as a 64-bit fingerprint of what drawing them
//!   reads (font, glyph, size, weight, flags, colour, position); a buffer
//!   with a fingerprint seen in the last three prepares is drawn from the
//!   glyphs converted then, which kerf's renderer recognises without
//!   reading them. An edited, re-shaped or re-coloured buffer has another
//!   fingerprint and is converted in the same `prepare`; a moved one is
//!   the same glyphs at another offset. (Two different buffers share a
//!   fingerprint with odds of 2⁻⁶⁴.)
//! - **`trim`** ends kerf's frame: glyphs drawn since the last `trim` are
//!   protected from eviction until then (and for kerf's frames in flight
//!   after). An app that never calls it loses nothing: a renderer that
//!   prepares a second time ends the frame it prepared in.
//! - **Depth**: each depth `prepare_with_depth`'s closure gives is drawn by
//!   a kerf renderer of its own, the depth in its viewport's uniform; a
//!   depth outside 0..=1 (clipped by the GPU in glyphon) is not drawn and
//!   is counted in the report.
//! - **Custom glyphs** are asked of the closure when kerf does not hold
//!   them, cached, evicted and packed like glyphs. A closure returning
//!   data of the wrong length, or another content type than before for the
//!   same glyph, makes glyphon panic; here that glyph is skipped and
//!   reported ([`PrepareReport::custom_skipped`]).
//! - A renderer rendered with another atlas than it was prepared with
//!   returns [`RenderError::RemovedFromAtlas`] and draws nothing.
//!
//! ## Moving on
//! [`TextAtlas::kerf`] and [`TextAtlas::kerf_mut`] reach the kerf atlas
//! underneath; docs/migrating-from-glyphon.md says what kerf's own API adds
//! (transforms, outlines and shadows, LCD, retained runs an app keeps).

#![warn(missing_docs)]
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

mod atlas;
mod convert;
mod custom_glyph;
mod error;
mod renderer;
mod viewport;

pub use atlas::{ColorMode, TextAtlas};
pub use custom_glyph::{
    ContentType, CustomGlyph, CustomGlyphId, CustomGlyphSkip, RasterizeCustomGlyphRequest,
    RasterizedCustomGlyph,
};
pub use error::{PrepareError, RenderError};
pub use renderer::{PrepareReport, TextRenderer};
pub use viewport::{Cache, Viewport};

// Re-export all top-level types from `cosmic-text` for convenience.
#[doc(no_inline)]
pub use cosmic_text::{
    self, fontdb, Action, Affinity, Attrs, AttrsList, AttrsOwned, Buffer, BufferLine, CacheKey,
    Color, Command, Cursor, Edit, Editor, Family, FamilyOwned, Font, FontSystem, LayoutCursor,
    LayoutGlyph, LayoutLine, LayoutRun, LayoutRunIter, Metrics, ShapeGlyph, ShapeLine, ShapeSpan,
    ShapeWord, Shaping, Stretch, Style, SubpixelBin, SwashCache, SwashContent, SwashImage, Weight,
    Wrap,
};

/// The screen resolution to use when rendering text.
#[repr(C)]
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct Resolution {
    /// The width of the screen in pixels.
    pub width: u32,
    /// The height of the screen in pixels.
    pub height: u32,
}

/// Controls the visible area of the text. Any text outside of the visible area will be clipped.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct TextBounds {
    /// The position of the left edge of the visible area.
    pub left: i32,
    /// The position of the top edge of the visible area.
    pub top: i32,
    /// The position of the right edge of the visible area.
    pub right: i32,
    /// The position of the bottom edge of the visible area.
    pub bottom: i32,
}

/// The default visible area doesn't clip any text.
impl Default for TextBounds {
    fn default() -> Self {
        Self { left: i32::MIN, top: i32::MIN, right: i32::MAX, bottom: i32::MAX }
    }
}

/// A text area containing text to be rendered along with its overflow behavior.
#[derive(Clone)]
pub struct TextArea<'a> {
    /// The buffer containing the text to be rendered.
    pub buffer: &'a Buffer,
    /// The left edge of the buffer.
    pub left: f32,
    /// The top edge of the buffer.
    pub top: f32,
    /// The scaling to apply to the buffer.
    pub scale: f32,
    /// The visible bounds of the text area. This is used to clip the text and doesn't have to
    /// match the `left` and `top` values.
    pub bounds: TextBounds,
    /// The default color of the text area.
    pub default_color: Color,
    /// Additional custom glyphs to render.
    pub custom_glyphs: &'a [CustomGlyph],
}
