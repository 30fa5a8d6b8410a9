//! Loaded fonts.

pub(crate) mod decoration;
pub(crate) mod effect;
pub(crate) mod instance;
mod metrics_face;
pub(crate) mod outline;
#[cfg(test)]
mod test_fonts;

use crate::error::{FontError, GlyphError, StyleError};
use crate::font::effect::GlyphEffect;
use crate::font::instance::{FontStyle, Instance, Resolved};
use crate::font::outline::{GlyfTables, OutlineStore};
use crate::key::FontId;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

/// How a face's glyph outlines are read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FontLoading {
    /// [`Eager`](Self::Eager) for a face of at most
    /// [`EAGER_MAX_GLYPHS`] glyphs, [`Lazy`](Self::Lazy) for a larger one.
    #[default]
    Auto,
    /// fontdue parses every outline when the face is added (about 5 µs and
    /// 3 KB a glyph: 31 ms and 19.5 MB for DejaVu Sans, 350 ms and 178 MB
    /// for WenQuanYi Micro Hei) and rasterizes from them.
    Eager,
    /// Only the tables are checked when the face is added; a glyph's outline
    /// is read from the font bytes when that glyph is rasterized, by kerf's
    /// own outline rasterizer (outline.rs, coverage.rs). kerf's own layout
    /// ([`TextSpec`](crate::TextSpec)) reads the face's character map,
    /// advances and line metrics, and no outline; fontdue parses the whole
    /// face only if [`Font::fontdue`] is called.
    Lazy,
}

/// The most glyphs a face may have for [`FontLoading::Auto`] to parse it
/// eagerly with fontdue (about a millisecond at most; fontdue parses a
/// glyph in about 4 µs, and a first frame draws few glyphs of a face).
pub const EAGER_MAX_GLYPHS: u16 = 256;

/// Font bytes shared with whoever else holds them (a font database, a
/// layout engine): kerf reads them in place and never copies them.
pub type SharedBytes = Arc<dyn AsRef<[u8]> + Send + Sync>;

/// One loaded font face: the bytes it came from and, for a face loaded
/// eagerly, fontdue's parse of every outline. Cloning is cheap and shares the
/// one parse: parse once, add to as many caches and threads as needed
/// ([`GlyphCache::add_parsed_font`](crate::GlyphCache::add_parsed_font)).
#[derive(Clone)]
pub struct Font {
    face: Arc<Face>,
    /// The instance drawn (`None`: the face as it is).
    instance: Option<Arc<Instance>>,
    /// The effect made of its glyphs' coverage (`None`: the glyphs).
    effect: Option<GlyphEffect>,
}

struct Face {
    bytes: SharedBytes,
    collection_index: u32,
    glyph_count: u16,
    units_per_em: u16,
    lazy: bool,
    /// The glyphs with colour data (`None`: no colour tables).
    color: Option<ColorGlyphs>,
    /// fontdue's parse: made at load for an eager face, on first use of
    /// [`Font::fontdue`] for a lazy one.
    fontdue: OnceLock<Result<fontdue::Font, FontError>>,
    /// fontdue's parse of the face's metrics alone (metrics_face.rs), for
    /// kerf's layout in a lazy face that fontdue has not parsed whole.
    layout: OnceLock<Result<fontdue::Font, FontError>>,
    /// Glyph outlines read from the bytes so far.
    outlines: AtomicU64,
    /// Outlines a lazy face has flattened, kept for the next raster.
    flat: OutlineStore,
    /// Where its outlines lie, for a face that draws from `glyf` alone: a
    /// read parses two tables, not the face.
    glyf: Option<GlyfTables>,
}

impl Font {
    /// Parses `bytes` (a TrueType/OpenType font, or a collection with
    /// `collection_index`) with [`FontLoading::Auto`]. Malformed bytes are an
    /// error; a parser panic is contained and reported as
    /// [`FontError::ParserPanicked`].
    pub fn from_bytes(
        bytes: impl Into<Arc<[u8]>>, collection_index: u32,
    ) -> Result<Font, FontError> {
        Font::from_bytes_with(bytes, collection_index, FontLoading::Auto)
    }

    /// [`from_bytes`](Self::from_bytes) with the outlines read as `loading` says.
    pub fn from_bytes_with(
        bytes: impl Into<Arc<[u8]>>, collection_index: u32, loading: FontLoading,
    ) -> Result<Font, FontError> {
        let bytes: Arc<[u8]> = bytes.into();
        Font::from_shared(Arc::new(bytes), collection_index, loading)
    }

    /// [`from_bytes_with`](Self::from_bytes_with) for bytes held elsewhere
    /// too (cosmic-text's font database, parley's font blobs): the face
    /// reads them in place, so a font costs no copy of its file.
    pub fn from_shared(
        data: SharedBytes, collection_index: u32, loading: FontLoading,
    ) -> Result<Font, FontError> {
        let bytes: &[u8] = (*data).as_ref();
        if bytes.is_empty() {
            return Err(FontError::Empty);
        }
        let (glyph_count, units_per_em, glyf) = catch_unwind(AssertUnwindSafe(|| {
            ttf_parser::Face::parse(bytes, collection_index)
                .map(|f| (f.number_of_glyphs(), f.units_per_em(), GlyfTables::of(&f, bytes)))
        }))
        .map_err(|_| FontError::ParserPanicked)?
        .map_err(|e| FontError::Malformed(e.to_string()))?;
        if glyph_count == 0 {
            return Err(FontError::Malformed("font has no glyphs".into()));
        }
        // fontdue visits every code point every cmap subtable claims; a
        // corrupt subtable can claim billions (found by fuzzing: a loading
        // hang, not a panic). Refuse those before fontdue sees them.
        if let Some(n) = cmap_code_points(bytes, collection_index) {
            if n > MAX_CMAP_CODE_POINTS {
                return Err(FontError::Malformed(format!(
                    "cmap claims {n} code points; Unicode has {}",
                    0x11_0000
                )));
            }
        }
        let lazy = match loading {
            FontLoading::Auto => glyph_count > EAGER_MAX_GLYPHS,
            FontLoading::Eager => false,
            FontLoading::Lazy => true,
        };
        let face = Face {
            // Which glyphs have colour data; a colour table that makes the
            // parser panic is a damaged font.
            color: ColorGlyphs::of(bytes, collection_index)?,
            bytes: Arc::clone(&data),
            collection_index,
            glyph_count,
            units_per_em,
            lazy,
            fontdue: OnceLock::new(),
            layout: OnceLock::new(),
            outlines: AtomicU64::new(0),
            flat: OutlineStore::default(),
            glyf,
        };
        let font = Font { face: Arc::new(face), instance: None, effect: None };
        if !lazy {
            font.fontdue()?;
        }
        Ok(font)
    }

    /// fontdue's parse of the face (for its layout and metrics). An eager
    /// face has it from the start; a lazy face parses it on the first call,
    /// every outline included (see [`FontLoading::Eager`] for the cost), and
    /// keeps it. A face fontdue cannot parse is an error, every call.
    pub fn fontdue(&self) -> Result<&fontdue::Font, FontError> {
        let parsed = self.face.fontdue.get_or_init(|| {
            let face = metrics_face::parse_fontdue(self.bytes(), self.face.collection_index)?;
            self.face.outlines.fetch_add(face.glyph_count() as u64, Ordering::Relaxed);
            Ok(face)
        });
        parsed.as_ref().map_err(Clone::clone)
    }

    /// The fontdue parse kerf's layout reads (character map, advances, line
    /// metrics): [`fontdue`](Self::fontdue)'s for an eager face, or for a lazy
    /// one fontdue has parsed whole already; otherwise a parse of the face's
    /// metrics alone, which reads no outline and is kept.
    pub(crate) fn layout_fontdue(&self) -> Result<&fontdue::Font, FontError> {
        if !self.face.lazy {
            return self.fontdue();
        }
        if let Some(Ok(whole)) = self.face.fontdue.get() {
            return Ok(whole);
        }
        let parsed = self
            .face
            .layout
            .get_or_init(|| metrics_face::parse_metrics(self.bytes(), self.face.collection_index));
        parsed.as_ref().map_err(Clone::clone)
    }

    /// fontdue's parse when the face was loaded eagerly (its rasterizer then
    /// draws from it); `None` for a lazy face.
    /// fontdue draws neither variations nor synthesis: an instance is drawn
    /// from its outlines, as a lazy face is.
    pub(crate) fn eager_fontdue(&self) -> Option<&fontdue::Font> {
        if self.face.lazy || self.instance.is_some() {
            return None;
        }
        self.face.fontdue.get().and_then(|r| r.as_ref().ok())
    }

    /// True when outlines are read glyph by glyph ([`FontLoading::Lazy`]).
    pub fn is_lazy(&self) -> bool {
        self.face.lazy
    }

    /// How many glyph outlines have been read from the font bytes: every
    /// glyph's (counted as the face's glyph count) once fontdue has parsed
    /// the face, plus one each time a lazy face's glyph is measured or
    /// rasterized. A lazy face just added has read none.
    pub fn outlines_read(&self) -> u64 {
        self.face.outlines.load(Ordering::Relaxed)
    }

    /// Where this font's flattened outlines are kept: the face's store, for
    /// the face itself and for instances that only embolden or slant it
    /// (they transform the same outline); `None` for an instance with
    /// variations (its outlines are another shape).
    pub(crate) fn outline_store(&self) -> Option<&OutlineStore> {
        match &self.instance {
            Some(i) if !i.variations().is_empty() => None,
            _ => Some(&self.face.flat),
        }
    }

    /// Where the face's outlines lie in its bytes, when it draws from its
    /// `glyf` table alone. (Its instances' too: with no `gvar` table,
    /// variations do not move a `glyf` outline.)
    pub(crate) fn glyf_tables(&self) -> Option<&GlyfTables> {
        self.face.glyf.as_ref()
    }

    /// Counts one outline read by the rasterizer.
    pub(crate) fn count_outline_read(&self) {
        self.face.outlines.fetch_add(1, Ordering::Relaxed);
    }

    /// The bytes the font was loaded from.
    pub fn bytes(&self) -> &[u8] {
        (*self.face.bytes).as_ref()
    }

    /// The face index inside a font collection (0 for a plain font file).
    pub fn collection_index(&self) -> u32 {
        self.face.collection_index
    }

    /// Number of glyphs in the face; valid glyph indices are below it.
    pub fn glyph_count(&self) -> u16 {
        self.face.glyph_count
    }

    /// Font units per em (the design grid outlines are drawn on).
    pub fn units_per_em(&self) -> u16 {
        self.face.units_per_em
    }

    /// The glyph index for a character (0, the missing glyph, when absent).
    pub fn glyph_index(&self, c: char) -> u16 {
        if let Some(f) = self.eager_fontdue() {
            return f.lookup_glyph_index(c);
        }
        ttf_parser::Face::parse(self.bytes(), self.face.collection_index)
            .ok()
            .and_then(|f| f.glyph_index(c))
            .map_or(0, |g| g.0)
    }

    /// Glyph `glyph`'s horizontal advance at `px` pixels per em, exact (0
    /// for a glyph the font has no advance for); an instance's at its
    /// variation coordinates (HVAR), synthesis leaving advances as they are.
    /// (kerf's own layout reads many advances with the tables parsed once.)
    pub fn advance(&self, glyph: u16, px: f32) -> f32 {
        self.advances().get(glyph, px)
    }

    /// A reader of this font's advances with its tables parsed once (and an
    /// instance's coordinates set once), for a run of glyphs.
    pub(crate) fn advances(&self) -> Advances<'_> {
        let face = match self.eager_fontdue() {
            Some(_) => None,
            None => instance_face(self.bytes(), self.face.collection_index, self.instance()).ok(),
        };
        Advances { font: self, face }
    }

    /// A handle naming this face without keeping it alive.
    pub(crate) fn handle(&self) -> FaceHandle {
        FaceHandle(Arc::downgrade(&self.face))
    }

    /// True when both share one parsed face (instances of one face included).
    pub fn same_face(&self, other: &Font) -> bool {
        Arc::ptr_eq(&self.face, &other.face)
    }

    /// The instance this font draws (`None`: the face as it is).
    pub fn instance(&self) -> Option<&Instance> {
        self.instance.as_deref()
    }

    /// The instance's identity, for caches keyed by outline (equal for two
    /// fonts drawing the same instance of one face, and for none).
    pub(crate) fn instance_arc(&self) -> Option<&Arc<Instance>> {
        self.instance.as_ref()
    }

    /// `style` resolved against this face (see [`Instance::resolve`]).
    pub fn resolve(&self, style: &FontStyle) -> Result<Resolved, StyleError> {
        Instance::resolve(self.bytes(), self.face.collection_index, style)
    }

    /// This face drawn as `instance`: the same bytes and parse, shared (the
    /// face as it is for the default instance).
    pub fn with_instance(&self, instance: Instance) -> Font {
        let instance = (!instance.is_default()).then(|| Arc::new(instance));
        Font { face: Arc::clone(&self.face), instance, effect: None }
    }

    /// The effect this font's glyphs are made with (`None`: the glyphs).
    pub fn effect(&self) -> Option<GlyphEffect> {
        self.effect
    }

    /// This font (instance included) with `effect` made of its glyphs.
    pub fn with_effect(&self, effect: GlyphEffect) -> Font {
        Font { effect: Some(effect), ..self.clone() }
    }
}

/// Face `index` of `bytes`, parsed, with `instance`'s axis values set
/// (the default instance where it sets none).
pub(crate) fn instance_face<'a>(
    bytes: &'a [u8], index: u32, instance: Option<&Instance>,
) -> Result<ttf_parser::Face<'a>, ttf_parser::FaceParsingError> {
    let mut face = ttf_parser::Face::parse(bytes, index)?;
    for (tag, v) in instance.map_or(&[][..], |i| i.variations()) {
        face.set_variation(ttf_parser::Tag::from_bytes(tag), *v);
    }
    Ok(face)
}

/// A font's advances, its tables parsed once ([`Font::advances`]).
pub(crate) struct Advances<'a> {
    font: &'a Font,
    /// The parsed tables at the instance's coordinates; `None` for an eager
    /// face (fontdue's metrics) or tables that cannot be read.
    face: Option<ttf_parser::Face<'a>>,
}

impl Advances<'_> {
    /// See [`Font::advance`].
    pub(crate) fn get(&self, glyph: u16, px: f32) -> f32 {
        if let Some(f) = self.font.eager_fontdue() {
            return f
                .metrics_indexed(glyph.min(f.glyph_count().saturating_sub(1)), px)
                .advance_width;
        }
        let units =
            self.face.as_ref().and_then(|f| f.glyph_hor_advance(ttf_parser::GlyphId(glyph)));
        units.map_or(0.0, |u| f32::from(u) * px / f32::from(self.font.face.units_per_em.max(1)))
    }
}

/// Names a face without keeping it alive; while the handle lives no other
/// face is allocated where it was, so it never names another face.
pub(crate) struct FaceHandle(std::sync::Weak<Face>);

impl FaceHandle {
    /// True when the handle names `font`'s face.
    pub(crate) fn is(&self, font: &Font) -> bool {
        std::ptr::eq(self.0.as_ptr(), Arc::as_ptr(&font.face))
    }
}

impl std::fmt::Debug for Font {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Font")
            .field("glyphs", &self.face.glyph_count)
            .field("bytes", &self.bytes().len())
            .field("lazy", &self.face.lazy)
            .field("instance", &self.instance)
            .field("outlines_read", &self.outlines_read())
            .finish()
    }
}

/// A font as a rasterizer sees it: the loaded face, and the raw bytes for
/// rasterizers that parse fonts themselves.
#[derive(Clone, Copy)]
pub struct FontRef<'a> {
    /// The loaded face (fontdue's parse where it was loaded eagerly).
    pub font: &'a Font,
    /// The bytes the font was loaded from.
    pub bytes: &'a [u8],
    /// The face index inside a collection.
    pub collection_index: u32,
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
    fonts: Vec<Font>,
    /// Each font's base: its own id for a face, the face's for an instance.
    bases: Vec<FontId>,
    /// The instances made so far, by base and instance.
    instances: std::collections::HashMap<(FontId, Instance), FontId>,
    /// Each font without its effect (its own id for a font without one).
    plain: Vec<FontId>,
    /// The effect fonts made so far, by plain font and effect.
    effects: std::collections::HashMap<(FontId, GlyphEffect), FontId>,
    /// The styles asked lately and their answers ([`instance`](Self::instance)):
    /// a styled string laid out every frame resolves its style once, not
    /// once a frame (resolving reads the face's tables).
    asked: Vec<(FontId, FontStyle, FontId, Vec<crate::font::instance::Tag>)>,
}

/// How many recent style answers [`FontSet`] keeps.
const ASKED: usize = 64;

impl FontSet {
    /// Adds a parsed font and returns its id.
    pub fn push(&mut self, font: Font) -> Result<FontId, FontError> {
        let n = self.fonts.len();
        let id = FontId(u32::try_from(n).map_err(|_| FontError::TooManyFonts(n))?);
        self.fonts.push(font);
        self.bases.push(id);
        self.plain.push(id);
        Ok(id)
    }

    /// The font drawing `style` of font `id`'s face: `id`'s base face itself
    /// when the style asks nothing of it, else its instance (made on the
    /// first ask, the same id after), and the axes asked that the face
    /// lacks. An instance font's style is asked of its base face (styles do
    /// not stack). Unknown ids and non-finite numbers are errors; the set
    /// is unchanged after any error.
    pub fn instance(
        &mut self, id: FontId, style: &FontStyle,
    ) -> Result<(FontId, Vec<crate::font::instance::Tag>), GlyphError> {
        if let Some((_, _, font, ignored)) = self.asked.iter().find(|a| a.0 == id && a.1 == *style)
        {
            return Ok((*font, ignored.clone()));
        }
        let answer = self.resolve_instance(id, style)?;
        if self.asked.len() >= ASKED {
            self.asked.clear();
        }
        self.asked.push((id, style.clone(), answer.0, answer.1.clone()));
        Ok(answer)
    }

    /// [`instance`](Self::instance), without the memo of recent answers.
    fn resolve_instance(
        &mut self, id: FontId, style: &FontStyle,
    ) -> Result<(FontId, Vec<crate::font::instance::Tag>), GlyphError> {
        let base = *self.bases.get(id.0 as usize).ok_or(GlyphError::UnknownFont(id))?;
        let face = &self.fonts[base.0 as usize];
        let Resolved { instance, ignored_axes } =
            face.resolve(style).map_err(|error| GlyphError::Style { font: id, error })?;
        if instance.is_default() {
            return Ok((base, ignored_axes));
        }
        let key = (base, instance);
        if let Some(&known) = self.instances.get(&key) {
            return Ok((known, ignored_axes));
        }
        let font = face.with_instance(key.1.clone());
        let made = self.push(font).map_err(|e| GlyphError::Font { font: id, error: e })?;
        self.bases[made.0 as usize] = base;
        self.instances.insert(key, made);
        Ok((made, ignored_axes))
    }

    /// The font drawing `effect` of font `id`'s glyphs (an instance's
    /// included; asked of an effect font, of its plain font: effects do not
    /// stack): made on the first ask, the same id after. Unknown ids are
    /// an error; the set is unchanged after it.
    pub fn effect(&mut self, id: FontId, effect: GlyphEffect) -> Result<FontId, GlyphError> {
        let plain = *self.plain.get(id.0 as usize).ok_or(GlyphError::UnknownFont(id))?;
        if let Some(&known) = self.effects.get(&(plain, effect)) {
            return Ok(known);
        }
        let font = self.fonts[plain.0 as usize].with_effect(effect);
        let made = self.push(font).map_err(|e| GlyphError::Font { font: id, error: e })?;
        self.bases[made.0 as usize] = self.bases[plain.0 as usize];
        self.plain[made.0 as usize] = plain;
        self.effects.insert((plain, effect), made);
        Ok(made)
    }

    /// The face font `id` draws an instance of (`id` itself for a face).
    pub fn base(&self, id: FontId) -> Option<FontId> {
        self.bases.get(id.0 as usize).copied()
    }

    /// True when glyph `glyph` of font `id` has colour data (COLR layers, a
    /// CBDT or sbix bitmap): it is drawn from the colour pages where
    /// kerf-cache's `swash` feature is on.
    #[inline]
    pub fn is_color_glyph(&self, id: FontId, glyph: u16) -> bool {
        matches!(self.get(id), Some(f) if f.effect.is_none() && f.face.color.as_ref().is_some_and(|c| c.contains(glyph)))
    }

    /// True when font `id` has colour glyphs.
    pub fn has_color_glyphs(&self, id: FontId) -> bool {
        self.get(id).is_some_and(|f| f.face.color.is_some())
    }

    /// The font an id names.
    pub fn get(&self, id: FontId) -> Option<&Font> {
        self.fonts.get(id.0 as usize)
    }

    /// The bytes and collection index an id's font was loaded from.
    pub fn source(&self, id: FontId) -> Option<(&[u8], u32)> {
        self.get(id).map(|f| (f.bytes(), f.collection_index()))
    }

    /// Every font, indexed by [`FontId::index`].
    pub fn iter(&self) -> impl Iterator<Item = &Font> {
        self.fonts.iter()
    }

    /// A cache drawing from these fonts has ended `frame`: each face's
    /// outline store drops what has gone unread too long
    /// ([`OutlineStore::tick`]).
    pub(crate) fn tick_outlines(&self, frame: u64) {
        // (A face is its own base; instances share their face's store.)
        for (i, (font, base)) in self.fonts.iter().zip(&self.bases).enumerate() {
            if base.0 as usize == i {
                font.face.flat.tick(frame);
            }
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::font::test_fonts::system_font;

    /// The raw count against ttf-parser's own walk of the same subtables
    /// (formats 4 and 12, each code point of each subtable once; format 4's
    /// closing 0xFFFF segment is not a code point).
    #[test]
    fn cmap_code_points_counts_what_the_subtables_claim() {
        for bytes in [dejavu::sans::regular(), dejavu::sans_mono::regular()] {
            let face = ttf_parser::Face::parse(bytes, 0).unwrap();
            let mut want = 0u64;
            for t in face.tables().cmap.unwrap().subtables {
                use ttf_parser::cmap::Format;
                if matches!(
                    t.format,
                    Format::SegmentMappingToDeltaValues(_) | Format::SegmentedCoverage(_)
                ) {
                    t.codepoints(|c| want += u64::from(c != 0xFFFF));
                }
            }
            assert!(want > 3000, "{want}");
            assert_eq!(cmap_code_points(bytes, 0), Some(want));
        }
    }

    /// A TrueType face without `gvar` keeps its `glyf` tables' places from
    /// its load, lazy or eager, and they read its outlines from its bytes;
    /// a variable face (Inter, with `gvar`) keeps none.
    #[test]
    fn plain_truetype_faces_keep_their_glyf_tables_and_variable_ones_none() {
        for loading in [FontLoading::Lazy, FontLoading::Eager] {
            let font = Font::from_bytes_with(dejavu::sans::regular(), 0, loading).unwrap();
            let tables = font.glyf_tables().expect("DejaVu Sans draws from glyf alone");
            assert!(tables.table(font.bytes()).is_some());
        }
        let inter =
            system_font("/usr/share/fonts/truetype/inter-vf/Inter.var.ttf", "fonts-inter-variable");
        let font = Font::from_bytes(inter, 0).unwrap();
        assert!(font.glyf_tables().is_none());
    }
}
