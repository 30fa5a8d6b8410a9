//! glyphon's `TextAtlas` over kerf's: one kerf atlas drawing as glyphon
//! does (`kerf_wgpu::TextAtlas::like_glyphon`), the cosmic-text font map,
//! the custom glyphs' store and their two image sources, and the frame
//! that `trim` ends.

use crate::custom_glyph::{self, SharedStore};
use crate::Cache;
use kerf_cache::{CacheConfig, CosmicFonts, ImageSourceId};
use std::sync::{Mutex, PoisonError};
use wgpu::{Device, Queue, TextureFormat};

/// The most coverage pages a kerf-glyphon atlas grows to (see
/// [`TextAtlas::with_color_mode`]).
const MAX_PAGES: u32 = 64;

/// The color mode of a [`TextAtlas`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColorMode {
    /// Accurate color management.
    ///
    /// Text colours and colour glyphs are decoded from sRGB to linear light
    /// before they are written, whatever the target's format: physically
    /// accurate blending on an sRGB target.
    Accurate,

    /// Web color management.
    ///
    /// Colours are written as the sRGB values they are, whatever the
    /// target's format, as browsers and most UI toolkits blend. Use it to
    /// render to a linear RGB texture holding sRGB colours.
    Web,
}

/// An atlas containing a cache of rasterized glyphs that can be rendered.
///
/// Built on [`kerf_wgpu::TextAtlas`]: glyphs live in texture-array pages
/// packed by MaxRects, least-recently-used glyphs are evicted and their
/// space freed when the pages fill, so the atlas never reports itself full.
pub struct TextAtlas {
    pub(crate) inner: kerf_wgpu::TextAtlas,
    pub(crate) fonts: CosmicFonts,
    pub(crate) format: TextureFormat,
    pub(crate) color_mode: ColorMode,
    pub(crate) store: SharedStore,
    pub(crate) mask_source: Option<ImageSourceId>,
    pub(crate) color_source: Option<ImageSourceId>,
    /// The frame renderers are preparing in (counted here), from the first
    /// `prepare` after a `trim` to the next `trim`.
    pub(crate) frame: Option<u64>,
    /// Frames opened so far.
    frames: u64,
}

impl std::fmt::Debug for TextAtlas {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TextAtlas")
            .field("format", &self.format)
            .field("color_mode", &self.color_mode)
            .field("inner", &self.inner)
            .finish()
    }
}

impl TextAtlas {
    /// Creates a new [`TextAtlas`] drawing into targets of `format`.
    pub fn new(device: &Device, queue: &Queue, cache: &Cache, format: TextureFormat) -> Self {
        Self::with_color_mode(device, queue, cache, format, ColorMode::Accurate)
    }

    /// Creates a new [`TextAtlas`] with the given [`ColorMode`].
    ///
    /// The atlas draws as glyphon does: glyphs rasterized by swash with
    /// hinting, four sub-pixel bins, plain coverage blending
    /// ([`kerf_wgpu::TextAtlas::like_glyphon`]).
    pub fn with_color_mode(
        device: &Device, _queue: &Queue, _cache: &Cache, format: TextureFormat,
        color_mode: ColorMode,
    ) -> Self {
        // kerf's default page sides, within the device's limits.
        let limits = device.limits();
        let d = CacheConfig::default();
        let (side, layers) = (limits.max_texture_dimension_2d, limits.max_texture_array_layers);
        // (Every wgpu device has at least 256 layers: the page counts fit.)
        let color = kerf_cache::ColorPages { page_size: d.color.page_size.min(side), ..d.color };
        let config = CacheConfig {
            page_size: d.page_size.min(side),
            // glyphon's atlas grows to the device's largest texture
            // (8192² texels, 64 MiB, on most devices) before a frame
            // fails; kerf's default stops at four pages and skips. Up to
            // 64 pages (64 MiB, kerf's memory budget) keeps a frame that
            // glyphon draws whole drawn whole; pages are added only when a
            // frame's glyphs need them.
            max_pages: MAX_PAGES.min(layers),
            color,
            // Peak memory as glyphon's: glyphon evicts any glyph the frame
            // does not draw before its atlas grows; kerf's default lets
            // idle glyphs give way to a new page only after two seconds
            // (120 frames). Here any glyph no frame in flight draws gives
            // way first, as in glyphon. In the scene corpus's zoom, where
            // every frame draws new sizes, kerf's default held 1.14×
            // glyphon's peak, this 1.05×, for more rasterizing (app CPU
            // 0.72× glyphon's instead of 0.35×); in its Chinese zoom, with
            // the 64 pages above, ten frames' patience held 250 MiB
            // against glyphon's 150, this 164. (Dropping the pages' CPU
            // copies saved little more and made the first frame compile
            // the upload scatter: 7 ms on lavapipe.)
            evict_idle_before_growing: Some(0),
            ..d
        };
        let inner = match kerf_wgpu::TextAtlas::like_glyphon(device, config) {
            Ok(atlas) => atlas,
            Err(e) => refused(e),
        };
        TextAtlas::from_kerf(inner, format, color_mode)
    }

    /// glyphon's atlas over a kerf atlas made by the app (its own
    /// [`CacheConfig`], rasterizer or correction): the way on to kerf's
    /// own API for an app that wants one of its settings.
    pub fn from_kerf(
        mut inner: kerf_wgpu::TextAtlas, format: TextureFormat, color_mode: ColorMode,
    ) -> Self {
        let store = SharedStore::new(Mutex::new(Default::default()));
        let mask_source = inner.add_image_source(custom_glyph::source(&store)).ok();
        let color_source = inner.add_rgba_image_source(custom_glyph::source(&store)).ok();
        TextAtlas {
            inner,
            fonts: CosmicFonts::new(),
            format,
            color_mode,
            store,
            mask_source,
            color_source,
            frame: None,
            frames: 0,
        }
    }

    /// Ends the frame: glyphs drawn since the last `trim` may be evicted
    /// from now on (glyphon frees the glyphs no renderer drew since).
    /// Call it after the frame's submit, as glyphon asks. An app that never
    /// calls it loses nothing: a renderer preparing a second time ends the
    /// frame it prepared in.
    pub fn trim(&mut self) {
        if self.frame.take().is_some() {
            // The atlas's frame is open (this atlas opened it): closing it
            // cannot fail.
            let _ = self.inner.end_frame();
        }
        self.store.lock().unwrap_or_else(PoisonError::into_inner).begin();
    }

    /// The kerf atlas underneath: its cache's figures, its fonts, its
    /// settings, for an app moving on to kerf's own API.
    pub fn kerf(&self) -> &kerf_wgpu::TextAtlas {
        &self.inner
    }

    /// The kerf atlas underneath, to change.
    pub fn kerf_mut(&mut self) -> &mut kerf_wgpu::TextAtlas {
        &mut self.inner
    }

    /// The target format renderers of this atlas draw into.
    pub fn format(&self) -> TextureFormat {
        self.format
    }

    /// The atlas's colour mode.
    pub fn color_mode(&self) -> ColorMode {
        self.color_mode
    }

    /// Opens a kerf frame for a `prepare` if none is open; returns it.
    pub(crate) fn frame(&mut self) -> u64 {
        if let Some(f) = self.frame {
            return f;
        }
        // An app driving the kerf atlas itself may have a frame open: its
        // frame is joined then (and ended by the app).
        let _ = self.inner.begin_frame();
        self.frames += 1;
        self.frame = Some(self.frames);
        self.frames
    }

    /// Ends the open frame and opens the next (a renderer preparing twice
    /// before a `trim`).
    pub(crate) fn next_frame(&mut self) -> u64 {
        self.trim();
        self.frame()
    }
}

/// An atlas within the device's own limits refused: not reachable with
/// kerf's default configuration, and glyphon's signature has no error to
/// return, so it is reported the one way left.
#[allow(clippy::panic)]
fn refused(e: kerf_wgpu::AtlasError) -> kerf_wgpu::TextAtlas {
    panic!("kerf-glyphon: an atlas within the device's limits was refused: {e}")
}
