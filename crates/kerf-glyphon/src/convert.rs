//! A glyphon text area's buffer as kerf glyphs, converted only when what
//! it draws changed.
//!
//! glyphon's `prepare` takes the buffers every frame and walks every glyph.
//! kerf-glyphon walks the runs glyphon would draw (the same culling by the
//! area's bounds) once, folding what the conversion reads of each glyph
//! (font, glyph, size, weight, flags, colour, position) into a 64-bit
//! fingerprint. Runs already converted are kept by fingerprint: a buffer
//! that did not change, or only moved, is drawn from the same
//! [`GlyphRun`] as last frame, which kerf's renderer recognises without
//! reading it. An edited, re-shaped, scrolled or re-coloured buffer has
//! another fingerprint and is converted in the same `prepare`.

use crate::TextArea;
use kerf_cache::{CosmicFonts, FontError, GlyphCache, GlyphRun, PositionedGlyph};
use std::collections::HashMap;
use std::hash::{BuildHasher, BuildHasherDefault, Hasher};

/// Prepares after which a run not drawn is dropped.
const KEPT_PREPARES: u64 = 3;

/// The runs of `area`'s buffer that glyphon draws: from the first whose
/// line box meets the area's bounds vertically to the last in a row.
pub(crate) fn visible_runs<'b>(
    area: &TextArea<'b>,
) -> impl Iterator<Item = cosmic_text::LayoutRun<'b>> + use<'b> {
    let (top, scale, bounds) = (area.top, area.scale, area.bounds);
    let visible = move |run: &cosmic_text::LayoutRun<'_>| {
        let start = (top + run.line_top * scale) as i32;
        let end = start + (run.line_height * scale) as i32;
        start <= bounds.bottom && bounds.top <= end
    };
    area.buffer.layout_runs().skip_while(move |run| !visible(run)).take_while(visible)
}

/// The fingerprint of what converting `area`'s visible runs in
/// `default_color` reads.
pub(crate) fn fingerprint(area: &TextArea<'_>, default_color: [u8; 4]) -> u64 {
    let mut h = foldhash::fast::FixedState::with_seed(0x6b65_7266_676c_7970).build_hasher();
    h.write_u32(u32::from_le_bytes(default_color));
    for run in visible_runs(area) {
        h.write_u64(u64::from(run.line_y.to_bits()));
        // Runs are long stretches of one font: its bits are folded in
        // where it changes, not per glyph.
        let mut font = None;
        for g in run.glyphs {
            if font != Some(g.font_id) {
                font = Some(g.font_id);
                h.write_u64(font_bits(g.font_id));
            }
            fold_glyph(&mut h, g);
        }
    }
    h.finish()
}

/// Folds into `h` what converting glyph `g` reads of it besides its font
/// (folded where it changes): id, weight, flags, colour, size, position,
/// offsets. Four words, no two fields sharing a bit.
fn fold_glyph(h: &mut impl Hasher, g: &cosmic_text::LayoutGlyph) {
    // Bit 63: whether the glyph has a colour of its own (the flags use the
    // low bits of their 32).
    let (own, color) = g.color_opt.map_or((0, 0), |c| (1u64 << 63, u64::from(c.0)));
    h.write_u64(
        u64::from(g.glyph_id)
            | u64::from(g.font_weight.0) << 16
            | u64::from(g.cache_key_flags.bits() & 0x7fff_ffff) << 32
            | own,
    );
    h.write_u64(color | u64::from(g.font_size.to_bits()) << 32);
    h.write_u64(u64::from(g.x.to_bits()) | u64::from(g.y.to_bits()) << 32);
    h.write_u64(u64::from(g.x_offset.to_bits()) | u64::from(g.y_offset.to_bits()) << 32);
}

/// A font id as 64 bits (fontdb's ids are slot-map keys: index and version).
fn font_bits(id: cosmic_text::fontdb::ID) -> u64 {
    let mut h = IdHasher(0);
    std::hash::Hash::hash(&id, &mut h);
    h.0
}

/// A hasher that keeps what it is given (the keys are fingerprints already).
#[derive(Default)]
pub(crate) struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = self.0.rotate_left(32) ^ n;
    }
}

/// A converted run and the prepare it was last drawn in.
struct Kept {
    run: GlyphRun,
    used: u64,
}

/// The runs a renderer drew lately, by fingerprint.
#[derive(Default)]
pub(crate) struct Runs {
    kept: HashMap<u64, Kept, BuildHasherDefault<IdHasher>>,
    /// Counts prepares.
    now: u64,
    /// Buffers converted and reused in the last prepare.
    pub converted: usize,
    pub reused: usize,
}

impl Runs {
    /// Starts a prepare.
    pub fn begin(&mut self) {
        self.now += 1;
        self.converted = 0;
        self.reused = 0;
    }

    /// Drops the runs not drawn in the last [`KEPT_PREPARES`] prepares.
    pub fn end(&mut self) {
        let now = self.now;
        self.kept.retain(|_, k| now - k.used < KEPT_PREPARES);
    }

    /// The fingerprint of `area`'s visible runs, converted into a kept run
    /// if none is kept for it. A font that fails to load ends the
    /// conversion of its run (the runs before it are kept) and is returned
    /// beside the fingerprint.
    pub fn get(
        &mut self, fonts: &mut CosmicFonts, cache: &mut GlyphCache,
        system: &cosmic_text::FontSystem, area: &TextArea<'_>, default_color: [u8; 4],
    ) -> (u64, Option<FontError>) {
        let key = fingerprint(area, default_color);
        if let Some(k) = self.kept.get_mut(&key) {
            k.used = self.now;
            self.reused += 1;
            return (key, None);
        }
        let mut glyphs: Vec<PositionedGlyph> = Vec::new();
        let mut error = None;
        for run in visible_runs(area) {
            if let Err(e) =
                fonts.run_glyphs(cache, system, &run, (0.0, 0.0), default_color, &mut glyphs)
            {
                error.get_or_insert(e);
            }
        }
        self.converted += 1;
        self.kept.insert(key, Kept { run: GlyphRun::new(glyphs), used: self.now });
        (key, error)
    }

    /// The run kept for `key` (one [`get`](Self::get) returned in this prepare).
    pub fn run(&self, key: u64) -> Option<&GlyphRun> {
        self.kept.get(&key).map(|k| &k.run)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Color, TextBounds};
    use cosmic_text::{Attrs, Buffer, Family, FontSystem, Metrics, Shaping};

    fn fonts() -> FontSystem {
        let mut fs = FontSystem::new_with_locale_and_db("en-US".into(), Default::default());
        fs.db_mut().load_font_data(dejavu::sans::regular().to_vec());
        fs.db_mut().load_font_data(dejavu::serif::regular().to_vec());
        fs.db_mut().load_font_data(dejavu::sans::oblique().to_vec());
        fs
    }

    fn shaped(fs: &mut FontSystem, text: &str, size: f32, width: f32) -> Buffer {
        let mut b = Buffer::new(fs, Metrics::new(size, size + 4.0));
        b.set_size(Some(width), None);
        b.set_text(text, &Attrs::new().family(Family::SansSerif), Shaping::Advanced, None);
        b.shape_until_scroll(fs, false);
        b
    }

    fn area(buffer: &Buffer) -> TextArea<'_> {
        TextArea {
            buffer,
            left: 0.0,
            top: 0.0,
            scale: 1.0,
            bounds: TextBounds::default(),
            default_color: Color::rgb(0, 0, 0),
            custom_glyphs: &[],
        }
    }

    /// What a fingerprint must see: every change to what is drawn, and
    /// nothing else (a clone, a move, an offset).
    #[test]
    fn the_fingerprint_follows_what_is_drawn() {
        let mut fs = fonts();
        let b = shaped(&mut fs, "Hello there, world", 16.0, 400.0);
        let black = [0, 0, 0, 255];
        let f = fingerprint(&area(&b), black);
        let moved = Box::new(b.clone());
        assert_eq!(fingerprint(&area(&moved), black), f, "a clone, elsewhere in memory");
        assert_eq!(fingerprint(&TextArea { left: 7.5, top: 3.0, ..area(&b) }, black), f, "moved");
        assert_ne!(fingerprint(&area(&b), [0, 0, 1, 255]), f, "another default colour");
        let changes = [
            shaped(&mut fs, "Hello there, world!", 16.0, 400.0),
            shaped(&mut fs, "Hello there, worle", 16.0, 400.0),
            shaped(&mut fs, "Hello there, world", 17.0, 400.0),
            shaped(&mut fs, "Hello there, world", 16.0, 60.0),
        ];
        // Another line height: the glyphs' own fields are the same, the
        // line's y is not.
        let mut taller = b.clone();
        taller.set_metrics(Metrics::new(16.0, 26.0));
        taller.shape_until_scroll(&mut fs, false);
        assert_ne!(fingerprint(&area(&taller), black), f, "another line height");
        for (i, c) in changes.iter().enumerate() {
            assert_ne!(fingerprint(&area(c), black), f, "change {i}");
        }
        let mut spans = b.clone();
        let red = Attrs::new().family(Family::SansSerif).color(Color::rgb(200, 0, 0));
        spans.set_rich_text(
            [("Hello ", Attrs::new().family(Family::SansSerif)), ("there, world", red)],
            &Attrs::new().family(Family::SansSerif),
            Shaping::Advanced,
            None,
        );
        spans.shape_until_scroll(&mut fs, false);
        assert_ne!(fingerprint(&area(&spans), black), f, "a span's own colour");
        let mut serif = b.clone();
        serif.set_text(
            "Hello there, world",
            &Attrs::new().family(Family::Name("DejaVu Serif")),
            Shaping::Advanced,
            None,
        );
        serif.shape_until_scroll(&mut fs, false);
        assert_ne!(fingerprint(&area(&serif), black), f, "another font");
        // Another face of the same glyph ids and advances: only the font
        // tells them apart.
        let upright = shaped(&mut fs, "Hello", 16.0, 400.0);
        let mut oblique = upright.clone();
        let slanted =
            Attrs::new().family(Family::Name("DejaVu Sans")).style(cosmic_text::Style::Oblique);
        oblique.set_text("Hello", &slanted, Shaping::Advanced, None);
        oblique.shape_until_scroll(&mut fs, false);
        let ids = |b: &Buffer| -> Vec<(u16, u32)> {
            b.layout_runs()
                .flat_map(|r| r.glyphs.iter().map(|g| (g.glyph_id, g.x.to_bits())))
                .collect()
        };
        assert_eq!(ids(&oblique), ids(&upright), "the same ids at the same places");
        let faces = |b: &Buffer| b.layout_runs().next().map(|r| r.glyphs[0].font_id);
        assert_ne!(faces(&oblique), faces(&upright), "another face");
        let upright_print = fingerprint(&area(&upright), black);
        assert_ne!(fingerprint(&area(&oblique), black), upright_print, "only the face differs");
    }

    /// Every field the conversion reads changes the folded words, alone:
    /// no field is lost or shares bits with another.
    #[test]
    fn every_field_a_glyph_is_drawn_with_is_folded_in() {
        use cosmic_text::{CacheKeyFlags, LayoutGlyph};
        let fs = fonts();
        let font_id = fs.db().faces().next().expect("a face").id;
        let base = LayoutGlyph {
            start: 0,
            end: 1,
            font_size: 16.0,
            font_weight: cosmic_text::Weight(400),
            line_height_opt: None,
            font_id,
            glyph_id: 36,
            x: 3.25,
            y: 0.5,
            w: 9.0,
            level: unicode_bidi::Level::ltr(),
            x_offset: 0.0,
            y_offset: 0.0,
            color_opt: None,
            metadata: 0,
            cache_key_flags: CacheKeyFlags::empty(),
        };
        let words = |g: &LayoutGlyph| {
            let mut h = Words(Vec::new());
            fold_glyph(&mut h, g);
            h.0
        };
        let changes: Vec<(&str, LayoutGlyph)> = vec![
            ("glyph", LayoutGlyph { glyph_id: 37, ..base.clone() }),
            ("glyph's top bit", LayoutGlyph { glyph_id: 36 | 0x8000, ..base.clone() }),
            ("weight", LayoutGlyph { font_weight: cosmic_text::Weight(700), ..base.clone() }),
            (
                "weight's top bit",
                LayoutGlyph { font_weight: cosmic_text::Weight(0x8190), ..base.clone() },
            ),
            (
                "fake italic",
                LayoutGlyph { cache_key_flags: CacheKeyFlags::FAKE_ITALIC, ..base.clone() },
            ),
            (
                "no hinting",
                LayoutGlyph { cache_key_flags: CacheKeyFlags::DISABLE_HINTING, ..base.clone() },
            ),
            (
                "transparent black of its own",
                LayoutGlyph { color_opt: Some(Color(0)), ..base.clone() },
            ),
            ("a colour", LayoutGlyph { color_opt: Some(Color::rgb(1, 2, 3)), ..base.clone() }),
            ("size", LayoutGlyph { font_size: 16.5, ..base.clone() }),
            ("x", LayoutGlyph { x: 3.5, ..base.clone() }),
            ("y", LayoutGlyph { y: 0.75, ..base.clone() }),
            ("x offset", LayoutGlyph { x_offset: 0.125, ..base.clone() }),
            ("y offset", LayoutGlyph { y_offset: 0.125, ..base.clone() }),
        ];
        let mut seen = vec![words(&base)];
        for (what, g) in &changes {
            let w = words(g);
            assert!(!seen.contains(&w), "{what} is not folded in apart from the others");
            seen.push(w);
        }
        // What drawing does not read is not folded in.
        let unread = LayoutGlyph { start: 5, end: 9, w: 1.0, metadata: 3, ..base.clone() };
        assert_eq!(words(&unread), words(&base));
    }

    /// A hasher that keeps the words it is given.
    struct Words(Vec<u64>);
    impl Hasher for Words {
        fn finish(&self) -> u64 {
            0
        }
        fn write(&mut self, _: &[u8]) {
            unreachable!("fold_glyph writes words")
        }
        fn write_u64(&mut self, n: u64) {
            self.0.push(n);
        }
    }

    /// glyphon's culling: the runs from the first whose line box meets the
    /// bounds to the last in a row, at the area's top and scale.
    #[test]
    fn visible_runs_are_those_whose_line_boxes_meet_the_bounds() {
        let mut fs = fonts();
        let text = (0..10).map(|i| format!("line {i}")).collect::<Vec<_>>().join("\n");
        let b = shaped(&mut fs, &text, 16.0, 400.0);
        // Lines 20 px apart: line i spans 20i..20i+20 at top 0.
        let lines =
            |a: TextArea<'_>| -> Vec<usize> { visible_runs(&a).map(|r| r.line_i).collect() };
        let bounds = TextBounds { left: 0, top: 45, right: 100, bottom: 79 };
        assert_eq!(lines(TextArea { bounds, ..area(&b) }), vec![2, 3]);
        assert_eq!(lines(TextArea { bounds, top: 20.0, ..area(&b) }), vec![1, 2]);
        assert_eq!(lines(TextArea { bounds, scale: 2.0, ..area(&b) }), vec![1]);
        // Line 1 at scale 2 spans 40..80: its scaled height reaches 65.
        let low = TextBounds { left: 0, top: 65, right: 100, bottom: 79 };
        assert_eq!(lines(TextArea { bounds: low, scale: 2.0, ..area(&b) }), vec![1]);
        let edge = TextBounds { left: 0, top: 40, right: 100, bottom: 40 };
        assert_eq!(lines(TextArea { bounds: edge, ..area(&b) }), vec![1, 2], "touching edges");
        assert_eq!(lines(area(&b)).len(), 10);
        let past = TextBounds { left: 0, top: 500, right: 100, bottom: 600 };
        assert!(lines(TextArea { bounds: past, ..area(&b) }).is_empty());
    }

    /// Runs converted are kept by fingerprint for three prepares after
    /// their last use, then dropped; a kept run is not converted again.
    #[test]
    fn runs_are_kept_while_drawn_and_dropped_after() {
        let mut fs = fonts();
        let mut cache = kerf_cache::GlyphCache::new(Default::default()).expect("cache");
        let mut cosmic = CosmicFonts::new();
        let (a, b) =
            (shaped(&mut fs, "abcde", 16.0, 400.0), shaped(&mut fs, "second", 16.0, 400.0));
        let mut runs = Runs::default();
        let black = [0, 0, 0, 255];
        runs.begin();
        let (ka, _) = runs.get(&mut cosmic, &mut cache, &fs, &area(&a), black);
        let (kb, _) = runs.get(&mut cosmic, &mut cache, &fs, &area(&b), black);
        runs.end();
        assert_eq!((runs.converted, runs.reused), (2, 0));
        assert_eq!(runs.run(ka).map(|r| r.len()), Some(5));
        let first = runs.run(ka).cloned().expect("kept");
        for prepare in 0..3 {
            runs.begin();
            let (again, error) = runs.get(&mut cosmic, &mut cache, &fs, &area(&a), black);
            runs.end();
            assert_eq!((again, error.is_none()), (ka, true));
            assert_eq!((runs.converted, runs.reused), (0, 1), "prepare {prepare}");
            assert!(runs.run(ka).is_some_and(|r| r.same_as(&first)), "the same run");
            assert_eq!(runs.run(kb).is_some(), prepare < 2, "b is kept {prepare}");
        }
    }
}
