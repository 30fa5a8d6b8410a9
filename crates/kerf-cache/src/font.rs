//! Loaded fonts.

use crate::error::FontError;
use crate::key::FontId;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

/// One loaded font face: the parsed fontdue font and the bytes it came from
/// (kept so a rasterizer other than fontdue can parse them too). Parse once,
/// clone into as many caches as needed ([`GlyphCache::add_parsed_font`](crate::GlyphCache::add_parsed_font)).
#[derive(Clone)]
pub struct Font {
    face: fontdue::Font,
    bytes: Arc<[u8]>,
    collection_index: u32,
    /// The glyphs with colour data (`None`: no colour tables).
    color: Option<ColorGlyphs>,
}

impl Font {
    /// Parses `bytes` (a TrueType/OpenType font, or a collection with
    /// `collection_index`). Malformed bytes are an error; a parser panic is
    /// contained and reported as [`FontError::ParserPanicked`].
    pub fn from_bytes(
        bytes: impl Into<Arc<[u8]>>, collection_index: u32,
    ) -> Result<Font, FontError> {
        let bytes: Arc<[u8]> = bytes.into();
        if bytes.is_empty() {
            return Err(FontError::Empty);
        }
        // fontdue visits every code point every cmap subtable claims; a
        // corrupt subtable can claim billions (found by fuzzing: a loading
        // hang, not a panic). Refuse those before fontdue sees them.
        if let Some(n) = cmap_code_points(&bytes, collection_index) {
            if n > MAX_CMAP_CODE_POINTS {
                return Err(FontError::Malformed(format!(
                    "cmap claims {n} code points; Unicode has {}",
                    0x11_0000
                )));
            }
        }
        let settings =
            fontdue::FontSettings { collection_index, scale: 40.0, load_substitutions: true };
        let data = Arc::clone(&bytes);
        let parsed =
            catch_unwind(AssertUnwindSafe(|| fontdue::Font::from_bytes(&data[..], settings)));
        match parsed {
            Ok(Ok(face)) if face.glyph_count() > 0 => {
                // Which glyphs have colour data; a colour table that makes
                // the parser panic is a damaged font.
                let color = ColorGlyphs::of(&bytes, collection_index)?;
                Ok(Font { face, bytes, collection_index, color })
            }
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

/// The most code points the cmap subtables together may claim (two full
/// Unicode ranges: a format 4 and a format 12 subtable covering everything).
const MAX_CMAP_CODE_POINTS: u64 = 2 * 0x11_0000;

/// How many code points fontdue would visit in the font's cmap subtables, read
/// from the raw table (bounded by the bytes present). `None` when the face or
/// its cmap cannot be found (fontdue then reports its own error).
fn cmap_code_points(bytes: &[u8], index: u32) -> Option<u64> {
    let face = ttf_parser::RawFace::parse(bytes, index).ok()?;
    let cmap = face.table(ttf_parser::Tag::from_bytes(b"cmap"))?;
    let u16_at = |at: usize| cmap.get(at..at + 2).map(|b| u16::from_be_bytes([b[0], b[1]]));
    let u32_at =
        |at: usize| cmap.get(at..at + 4).map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
    let tables = u16_at(2)? as usize;
    let mut total = 0u64;
    for t in 0..tables {
        let Some(off) = u32_at(4 + 8 * t + 4) else { break };
        let off = off as usize;
        match u16_at(off) {
            Some(4) => {
                let seg = u16_at(off + 6).unwrap_or(0) as usize / 2;
                let (ends, starts) = (off + 14, off + 16 + 2 * seg);
                for i in 0..seg {
                    let (Some(end), Some(start)) = (u16_at(ends + 2 * i), u16_at(starts + 2 * i))
                    else {
                        break;
                    };
                    if start == 0xFFFF && end == 0xFFFF {
                        break;
                    }
                    if end >= start {
                        total += (end - start) as u64 + 1;
                    }
                }
            }
            Some(12) | Some(13) => {
                let groups = u32_at(off + 12).unwrap_or(0) as usize;
                for g in 0..groups {
                    let at = off + 16 + 12 * g;
                    let (Some(start), Some(end)) = (u32_at(at), u32_at(at + 4)) else { break };
                    if end >= start {
                        total += (end - start) as u64 + 1;
                    }
                }
            }
            _ => {}
        }
    }
    Some(total)
}

/// The fonts of one cache, in load order; a [`FontId`] is an index here.
/// Fonts are never unloaded while the cache lives, so ids never dangle.
#[derive(Debug, Default)]
pub struct FontSet {
    fonts: Vec<fontdue::Font>,
    meta: Vec<(Arc<[u8]>, u32)>,
    /// Per font, its glyphs with colour data (`None`: no colour tables).
    color: Vec<Option<ColorGlyphs>>,
}

impl FontSet {
    /// Adds a parsed font and returns its id.
    pub fn push(&mut self, font: Font) -> Result<FontId, FontError> {
        let n = self.fonts.len();
        let id = u32::try_from(n).map_err(|_| FontError::TooManyFonts(n))?;
        self.color.push(font.color);
        self.fonts.push(font.face);
        self.meta.push((font.bytes, font.collection_index));
        Ok(FontId(id))
    }

    /// True when glyph `glyph` of font `id` has colour data (COLR layers, a
    /// CBDT or sbix bitmap): it is drawn from the colour pages where
    /// kerf-cache's `swash` feature is on.
    #[inline]
    pub fn is_color_glyph(&self, id: FontId, glyph: u16) -> bool {
        matches!(self.color.get(id.0 as usize), Some(Some(c)) if c.contains(glyph))
    }

    /// True when font `id` has colour glyphs.
    pub fn has_color_glyphs(&self, id: FontId) -> bool {
        matches!(self.color.get(id.0 as usize), Some(Some(_)))
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

/// The glyphs of a font face that have colour data (COLR layers, a CBDT or
/// sbix bitmap): what kerf draws from the colour pages.
#[derive(Clone, Debug)]
pub struct ColorGlyphs(Arc<[u64]>);

impl ColorGlyphs {
    /// The colour glyphs of face `index` of `bytes`, read with ttf-parser
    /// (no outlines parsed); `None` for a face without colour tables or one
    /// ttf-parser cannot read. Colour tables so damaged that the parser
    /// panics are [`FontError::Malformed`] (the panic is contained).
    pub fn of(bytes: &[u8], index: u32) -> Result<Option<ColorGlyphs>, FontError> {
        catch_unwind(AssertUnwindSafe(|| color_glyph_bits(bytes, index)))
            .map(|bits| bits.map(ColorGlyphs))
            .map_err(|_| FontError::Malformed("damaged colour tables (COLR/CBDT/sbix)".into()))
    }

    /// True when glyph `glyph` has colour data.
    #[inline]
    pub fn contains(&self, glyph: u16) -> bool {
        self.0.get(glyph as usize / 64).is_some_and(|w| w >> (glyph % 64) & 1 == 1)
    }
}

/// A bit per glyph with colour data, for a font with COLR, CBDT or sbix
/// tables; `None` for other fonts (and faces ttf-parser cannot read).
fn color_glyph_bits(bytes: &[u8], index: u32) -> Option<Arc<[u64]>> {
    let face = ttf_parser::Face::parse(bytes, index).ok()?;
    let t = face.tables();
    if t.colr.is_none() && t.cbdt.is_none() && t.sbix.is_none() {
        return None;
    }
    let n = face.number_of_glyphs();
    let mut bits = vec![0u64; (n as usize).div_ceil(64)];
    let mut any = false;
    for g in 0..n {
        let id = ttf_parser::GlyphId(g);
        if face.is_color_glyph(id) || face.glyph_raster_image(id, u16::MAX).is_some() {
            bits[g as usize / 64] |= 1 << (g % 64);
            any = true;
        }
    }
    any.then(|| bits.into())
}
