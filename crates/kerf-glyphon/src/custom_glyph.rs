//! Custom glyphs (icons, SVG) rasterized by the app's closure, as glyphon
//! 0.12 declares them, and how kerf draws them: the closure's images are
//! handed to two kerf image sources (coverage and RGBA) through a store
//! the atlas shares with them, so kerf caches, evicts and packs them like
//! glyphs.

use crate::Color;
use cosmic_text::SubpixelBin;
use kerf_cache::rasterize::GlyphImage;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

/// The app's identifier of a custom glyph.
pub type CustomGlyphId = u16;

/// A custom glyph to render
#[derive(Default, Debug, Clone, Copy, PartialEq)]
pub struct CustomGlyph {
    /// The unique identifier for this glyph
    pub id: CustomGlyphId,
    /// The position of the left edge of the glyph
    pub left: f32,
    /// The position of the top edge of the glyph
    pub top: f32,
    /// The width of the glyph
    pub width: f32,
    /// The height of the glyph
    pub height: f32,
    /// The color of this glyph (only relevant if the glyph is rendered with the
    /// type [`ContentType::Mask`])
    ///
    /// Set to `None` to use [`crate::TextArea::default_color`].
    pub color: Option<Color>,
    /// If `true`, then this glyph will be snapped to the nearest whole physical
    /// pixel and the resulting `SubpixelBin`'s in `RasterizationRequest` will always
    /// be `Zero` (useful for images and other large glyphs).
    pub snap_to_physical_pixel: bool,
    /// Additional metadata about the glyph
    pub metadata: usize,
}

/// A request to rasterize a custom glyph
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RasterizeCustomGlyphRequest {
    /// The unique identifier of the glyph
    pub id: CustomGlyphId,
    /// The width of the glyph in physical pixels
    pub width: u16,
    /// The height of the glyph in physical pixels
    pub height: u16,
    /// Binning of fractional X offset
    ///
    /// If `CustomGlyph::snap_to_physical_pixel` was set to `true`, then this
    /// will always be `Zero`.
    pub x_bin: SubpixelBin,
    /// Binning of fractional Y offset
    ///
    /// If `CustomGlyph::snap_to_physical_pixel` was set to `true`, then this
    /// will always be `Zero`.
    pub y_bin: SubpixelBin,
    /// The scaling factor applied to the text area (Note that `width` and
    /// `height` are already scaled by this factor.)
    pub scale: f32,
}

/// A rasterized custom glyph
#[derive(Debug, Clone)]
pub struct RasterizedCustomGlyph {
    /// The raw image data
    pub data: Vec<u8>,
    /// The type of image data contained in `data`
    pub content_type: ContentType,
}

/// The type of image data contained in a rasterized glyph
#[derive(Debug, Clone, Copy, Eq, PartialEq)]
pub enum ContentType {
    /// Each pixel contains 32 bits of rgba data
    Color,
    /// Each pixel contains a single 8 bit channel
    Mask,
}

impl ContentType {
    /// The number of bytes per pixel for this content type
    pub fn bytes_per_pixel(&self) -> usize {
        match self {
            Self::Color => 4,
            Self::Mask => 1,
        }
    }
}

/// What a custom glyph is cached by: glyphon's key (id, size in pixels,
/// sub-pixel bins). The closure must give the same image for the same key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct CustomKey {
    pub id: CustomGlyphId,
    pub width: u16,
    pub height: u16,
    pub x_bin: SubpixelBin,
    pub y_bin: SubpixelBin,
}

/// Why a custom glyph was not drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CustomGlyphSkip {
    /// Its width or height is zero at the area's scale.
    Empty,
    /// The closure returned `None`.
    NotRasterized,
    /// The closure returned data of another length than width × height ×
    /// the content type's bytes per pixel (glyphon panics).
    WrongLength,
    /// The closure returned another content type than it did before for
    /// the same key (glyphon panics).
    ContentTypeChanged,
}

/// One rasterized custom glyph, held for the image sources.
struct Held {
    width: u32,
    height: u32,
    data: Vec<u8>,
    /// The store's frame it was last asked for in.
    used: u64,
}

/// The closure's images, by the kerf image id each key was given: read
/// by the atlas's image sources when kerf rasterizes a miss.
#[derive(Default)]
pub(crate) struct Store {
    /// kerf's image id and content type of each key seen (ids are never reused).
    ids: HashMap<CustomKey, (u32, ContentType)>,
    /// The images asked for lately, by id.
    held: HashMap<u32, Held>,
    /// Counts `prepare`s: images not asked for in the last few are dropped
    /// (kerf's cache keeps its own copy; a later miss asks the closure again).
    frame: u64,
}

/// Frames an image stays in the store after it was last asked for.
const HELD_FRAMES: u64 = 4;

/// The store, shared by the atlas and its image sources.
pub(crate) type SharedStore = Arc<Mutex<Store>>;

impl Store {
    /// Starts a `prepare`: images unused for [`HELD_FRAMES`] are dropped.
    pub fn begin(&mut self) {
        self.frame += 1;
        let frame = self.frame;
        self.held.retain(|_, h| frame - h.used <= HELD_FRAMES);
    }

    /// kerf's image id and content type for `key`, rasterizing it through
    /// `rasterize` when it is not held.
    pub fn image(
        &mut self, key: CustomKey, scale: f32,
        rasterize: &mut dyn FnMut(RasterizeCustomGlyphRequest) -> Option<RasterizedCustomGlyph>,
    ) -> Result<(u32, ContentType), CustomGlyphSkip> {
        if key.width == 0 || key.height == 0 {
            return Err(CustomGlyphSkip::Empty);
        }
        let known = self.ids.get(&key).copied();
        if let Some((id, content)) = known {
            if let Some(h) = self.held.get_mut(&id) {
                h.used = self.frame;
                return Ok((id, content));
            }
        }
        let request = RasterizeCustomGlyphRequest {
            id: key.id,
            width: key.width,
            height: key.height,
            x_bin: key.x_bin,
            y_bin: key.y_bin,
            scale,
        };
        let out = rasterize(request).ok_or(CustomGlyphSkip::NotRasterized)?;
        let (w, h) = (u32::from(key.width), u32::from(key.height));
        if out.data.len() != w as usize * h as usize * out.content_type.bytes_per_pixel() {
            return Err(CustomGlyphSkip::WrongLength);
        }
        let id = match known {
            Some((_, content)) if content != out.content_type => {
                return Err(CustomGlyphSkip::ContentTypeChanged)
            }
            Some((id, _)) => id,
            None => {
                let id = self.ids.len() as u32;
                self.ids.insert(key, (id, out.content_type));
                id
            }
        };
        let held = Held { width: w, height: h, data: out.data, used: self.frame };
        self.held.insert(id, held);
        Ok((id, out.content_type))
    }

    /// The image kerf's source `id` names, placed with its top-left corner
    /// on the pen (kerf-glyphon puts the pen there).
    fn render(&self, id: u32) -> Result<GlyphImage, String> {
        let h = self.held.get(&id).ok_or_else(|| format!("custom glyph image {id} not held"))?;
        Ok(GlyphImage {
            width: h.width,
            height: h.height,
            left: 0,
            bottom: -(h.height as i32),
            pixels: h.data.to_vec(),
        })
    }
}

/// A kerf image source reading `store` (coverage or RGBA: the same ids).
pub(crate) fn source(store: &SharedStore) -> impl kerf_cache::ImageSource + 'static {
    let store = Arc::clone(store);
    move |id: u32, _size: f32| -> Result<GlyphImage, String> {
        store.lock().unwrap_or_else(PoisonError::into_inner).render(id)
    }
}
