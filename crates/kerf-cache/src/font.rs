//! Loaded fonts.

use crate::error::FontError;
use crate::key::FontId;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

/// One loaded font face: the parsed fontdue font and the bytes it came from
/// (kept so a rasterizer other than fontdue can parse them too).
pub struct Font {
    face: fontdue::Font,
    bytes: Arc<[u8]>,
    collection_index: u32,
}

impl Font {
    /// Parses `bytes` (a TrueType/OpenType font, or a collection with
    /// `collection_index`). Malformed bytes are an error; a parser panic is
    /// contained and reported as [`FontError::ParserPanicked`].
    pub fn from_bytes(bytes: impl Into<Arc<[u8]>>, collection_index: u32) -> Result<Font, FontError> {
        let bytes: Arc<[u8]> = bytes.into();
        if bytes.is_empty() {
            return Err(FontError::Empty);
        }
        let settings = fontdue::FontSettings { collection_index, scale: 40.0, load_substitutions: true };
        let data = Arc::clone(&bytes);
        let parsed = catch_unwind(AssertUnwindSafe(|| fontdue::Font::from_bytes(&data[..], settings)));
        match parsed {
            Ok(Ok(face)) if face.glyph_count() > 0 => Ok(Font { face, bytes, collection_index }),
            Ok(Ok(_)) => Err(FontError::Malformed("font has no glyphs".into())),
            Ok(Err(e)) => Err(FontError::Malformed(e.to_string())),
            Err(_) => Err(FontError::ParserPanicked),
        }
    }

    /// The fontdue font, for metrics and layout.
    pub fn fontdue(&self) -> &fontdue::Font {
        &self.face
    }

    /// The bytes the font was loaded from.
    pub fn bytes(&self) -> &Arc<[u8]> {
        &self.bytes
    }

    /// The face index inside a font collection (0 for a plain font file).
    pub fn collection_index(&self) -> u32 {
        self.collection_index
    }

    /// Number of glyphs in the face; valid glyph indices are below it.
    pub fn glyph_count(&self) -> u16 {
        self.face.glyph_count()
    }

    /// The glyph index for a character (0, the missing glyph, when absent).
    pub fn glyph_index(&self, c: char) -> u16 {
        self.face.lookup_glyph_index(c)
    }
}

impl std::fmt::Debug for Font {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Font")
            .field("name", &self.face.name())
            .field("glyphs", &self.face.glyph_count())
            .field("bytes", &self.bytes.len())
            .finish()
    }
}

/// The fonts of one cache, in load order; a [`FontId`] is an index here.
/// Fonts are never unloaded while the cache lives, so ids never dangle.
#[derive(Debug, Default)]
pub struct FontSet {
    fonts: Vec<fontdue::Font>,
    meta: Vec<(Arc<[u8]>, u32)>,
}

impl FontSet {
    /// Adds a parsed font and returns its id.
    pub fn push(&mut self, font: Font) -> Result<FontId, FontError> {
        let n = self.fonts.len();
        let id = u32::try_from(n).map_err(|_| FontError::TooManyFonts(n))?;
        self.fonts.push(font.face);
        self.meta.push((font.bytes, font.collection_index));
        Ok(FontId(id))
    }

    /// The fontdue font an id names.
    pub fn get(&self, id: FontId) -> Option<&fontdue::Font> {
        self.fonts.get(id.0 as usize)
    }

    /// The bytes and collection index an id's font was loaded from.
    pub fn source(&self, id: FontId) -> Option<(&Arc<[u8]>, u32)> {
        self.meta.get(id.0 as usize).map(|(b, i)| (b, *i))
    }

    /// Every font, indexed by `FontId::index` (the slice fontdue's layout takes).
    pub fn as_slice(&self) -> &[fontdue::Font] {
        &self.fonts
    }

    /// Number of fonts.
    pub fn len(&self) -> usize {
        self.fonts.len()
    }

    /// True when no font is loaded.
    pub fn is_empty(&self) -> bool {
        self.fonts.is_empty()
    }
}
