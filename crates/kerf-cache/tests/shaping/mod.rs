//! Shared by the shaper adapters' tests (cosmic.rs, parley.rs): HarfBuzz's
//! `hb-shape` (Debian `libharfbuzz-bin`) as the reference, the fonts, and
//! the checks every adapter must pass.
#![allow(dead_code)]

use kerf_cache::fonts::Font;
use kerf_cache::*;
use std::path::{Path, PathBuf};
use std::process::Command;

pub const PX: f32 = 32.0;

/// A font file for a script: the dejavu crate's file, or a Debian package's.
pub fn font_file(file: &str, package: &str) -> PathBuf {
    let candidates = [
        PathBuf::from(format!("/usr/share/fonts/truetype/{file}")),
        PathBuf::from(format!("/usr/share/fonts/{file}")),
    ];
    candidates
        .into_iter()
        .find(|p| p.exists())
        .unwrap_or_else(|| panic!("font {file} not found: install the Debian package {package}"))
}

pub fn dejavu_file() -> PathBuf {
    // The same bytes the dejavu crate embeds, as a file for hb-shape, in
    // Cargo's scratch directory for tests (under target/, not the system's
    // temporary directory, where one file a run piled up): written once per
    // process, whole under a name of its own and then renamed into place, so
    // a test of another process reading it meanwhile reads whole bytes
    // (a file rewritten in place while another test read it read as empty).
    static PATH: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    PATH.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
        let path = dir.join("DejaVuSans.ttf");
        let part = dir.join(format!("DejaVuSans.ttf.{}", std::process::id()));
        std::fs::write(&part, dejavu::sans::regular()).unwrap();
        std::fs::rename(&part, &path).unwrap();
        path
    })
    .clone()
}

/// One glyph as HarfBuzz places it: id, pen x and y offset in px (y down).
#[derive(Debug, Clone, Copy)]
pub struct HbGlyph {
    pub id: u16,
    pub x: f32,
    pub y: f32,
}

/// `hb-shape` of `text` in direction `dir`, starting at pen x `x0`: glyphs in
/// visual order, and the pen after the run.
pub fn hb_shape(font: &Path, index: u32, text: &str, dir: &str, x0: f32) -> (Vec<HbGlyph>, f32) {
    hb_shape_with(font, index, text, dir, x0, &[])
}

/// [`hb_shape`] with more `hb-shape` options (`--features=-kern`, ...).
pub fn hb_shape_with(
    font: &Path, index: u32, text: &str, dir: &str, x0: f32, options: &[&str],
) -> (Vec<HbGlyph>, f32) {
    let out = Command::new("hb-shape")
        .args([
            "--output-format=json",
            "--no-glyph-names",
            &format!("--face-index={index}"),
            &format!("--direction={dir}"),
        ])
        .args(options)
        .arg(font)
        .arg(text)
        .output()
        .unwrap_or_else(|e| {
            panic!("hb-shape not found ({e}): install the Debian package libharfbuzz-bin")
        });
    assert!(out.status.success(), "hb-shape failed: {}", String::from_utf8_lossy(&out.stderr));
    let face = ttf_upem(font, index);
    let scale = PX / face;
    let json = String::from_utf8_lossy(&out.stdout);
    let mut pen = x0;
    let mut glyphs = Vec::new();
    // Objects like {"g":36,"cl":0,"dx":0,"dy":0,"ax":1270,"ay":0}.
    for obj in json.split('{').skip(1) {
        let field = |name: &str| -> f32 {
            let at =
                obj.find(&format!("\"{name}\":")).unwrap_or_else(|| panic!("no {name} in {obj}"))
                    + name.len()
                    + 3;
            obj[at..].split([',', '}']).next().unwrap().trim().parse().unwrap()
        };
        glyphs.push(HbGlyph {
            id: field("g") as u16,
            x: pen + field("dx") * scale,
            y: -field("dy") * scale,
        });
        pen += field("ax") * scale;
    }
    (glyphs, pen)
}

/// Units per em of face `index` of `font`.
pub fn ttf_upem(font: &Path, index: u32) -> f32 {
    let bytes = std::fs::read(font).unwrap();
    Font::from_bytes(bytes, index)
        .map(|f| f.units_per_em() as f32)
        .unwrap_or_else(|e| panic!("{}: {e}", font.display()))
}

/// Face `index` of `font`'s vertical metrics at [`PX`], read with
/// ttf-parser as the OpenType spec picks them (OS/2's typographic values
/// when its USE_TYPO_METRICS bit is set, `hhea`'s otherwise): ascent,
/// descent (positive, below the baseline) and line gap.
pub fn vertical_metrics(font: &Path, index: u32) -> (f32, f32, f32) {
    let bytes = std::fs::read(font).unwrap();
    let face = ttf_parser::Face::parse(&bytes, index).unwrap();
    let scale = PX / face.units_per_em() as f32;
    let (a, d, g) = (face.ascender(), face.descender(), face.line_gap());
    (a as f32 * scale, -(d as f32) * scale, g as f32 * scale)
}

/// Where a shaper puts its first baseline, from the font's vertical
/// metrics (ascent, descent, line gap) by the shaper's own documented rule.
pub type BaselineRule = fn((f32, f32, f32)) -> f32;

/// What a shaper test gives back: the cache the adapter loaded the face
/// into, kerf's glyphs, and the first line's baseline y as the shaper's own
/// layout reports it (cosmic-text's `line_y`, parley's line metrics).
pub type Shaped = (GlyphCache, Vec<PositionedGlyph>, f32);

/// How far a pen may be from HarfBuzz's: kerf matches within 0.005 px
/// today, and a rounding to whole (or half) pixels must fail.
pub const PEN_TOLERANCE: f32 = 0.05;

/// kerf's glyphs equal HarfBuzz's runs, laid one after the other in visual
/// order, pens within [`PEN_TOLERANCE`] in x and in y on the shaper's own
/// baseline (the layout starts at (0, 0)).
pub fn check(
    name: &str, font: &Path, index: u32, text: &str, runs: &[(&str, &str)],
    shaper: fn(&Path, &str) -> Shaped, rule: BaselineRule,
) {
    let (cache, mut ours, baseline) = shaper(font, text);
    ours.sort_by(|a, b| a.x.total_cmp(&b.x));
    let mut theirs = Vec::new();
    let mut pen = 0.0;
    for (run, dir) in runs {
        let (g, end) = hb_shape(font, index, run, dir, pen);
        theirs.extend(g);
        pen = end;
    }
    theirs.sort_by(|a, b| a.x.total_cmp(&b.x));
    let ids: Vec<u16> = ours.iter().map(|g| g.glyph).collect();
    let hb_ids: Vec<u16> = theirs.iter().map(|g| g.id).collect();
    assert_eq!(ids, hb_ids, "{name}: glyph ids");
    let metrics = vertical_metrics(font, index);
    let want_baseline = rule(metrics);
    assert!(
        (baseline - want_baseline).abs() <= PEN_TOLERANCE,
        "{name}: the shaper's first baseline {baseline}, the font's metrics {metrics:?} say {want_baseline}"
    );
    for (a, b) in ours.iter().zip(&theirs) {
        assert!(
            (a.x - b.x).abs() <= PEN_TOLERANCE,
            "{name}: glyph {} at x {} (HarfBuzz {})",
            a.glyph,
            a.x,
            b.x
        );
        let want_y = want_baseline + b.y;
        assert!(
            (a.y - want_y).abs() <= PEN_TOLERANCE,
            "{name}: glyph {} at y {} (the font's baseline {want_baseline} + HarfBuzz {})",
            a.glyph,
            a.y,
            b.y
        );
        assert_eq!(a.size, PX);
    }
    // One cache font per face, whatever the number of glyphs.
    assert_eq!(cache.fonts().len(), 1, "{name}: the face is loaded once");
}

/// The HarfBuzz comparisons every adapter must pass: Latin with kerning and
/// ligatures, Arabic, Hebrew, mixed direction, Devanagari and CJK. `$shaper`
/// shapes a text with only the given font and returns kerf's glyphs.
#[macro_export]
macro_rules! harfbuzz_tests {
    ($shaper:path, $rule:expr) => {
        #[test]
        fn latin_with_kerning_and_ligatures_matches_harfbuzz() {
            let f = dejavu_file();
            check("kerning", &f, 0, "AVATAR Wave To", &[("AVATAR Wave To", "ltr")], $shaper, $rule);
            check(
                "ligatures",
                &f,
                0,
                "office affluent",
                &[("office affluent", "ltr")],
                $shaper,
                $rule,
            );
        }

        #[test]
        fn arabic_and_hebrew_match_harfbuzz() {
            let f = dejavu_file();
            check("arabic", &f, 0, "مرحبا بالعالم", &[("مرحبا بالعالم", "rtl")], $shaper, $rule);
            check("hebrew", &f, 0, "שלום עולם", &[("שלום עולם", "rtl")], $shaper, $rule);
            // Harakat stacked on a letter: HarfBuzz moves them up (a y offset).
            let marks = "\u{628}\u{650}\u{651} \u{62a}\u{64e}\u{651}";
            check("harakat", &f, 0, marks, &[(marks, "rtl")], $shaper, $rule);
        }

        #[test]
        fn mixed_direction_text_matches_harfbuzz_run_by_run() {
            let f = dejavu_file();
            // A left-to-right paragraph with a Hebrew run inside: bidi reorders the
            // Hebrew run, each run shaped in its own direction.
            check(
                "mixed",
                &f,
                0,
                "abc שלום xyz",
                &[("abc ", "ltr"), ("שלום", "rtl"), (" xyz", "ltr")],
                $shaper,
                $rule,
            );
        }

        #[test]
        fn devanagari_and_cjk_match_harfbuzz() {
            let deva = font_file("lohit-devanagari/Lohit-Devanagari.ttf", "fonts-lohit-deva");
            check(
                "devanagari",
                &deva,
                0,
                "क्षत्रिय हिन्दी",
                &[("क्षत्रिय हिन्दी", "ltr")],
                $shaper,
                $rule,
            );
            let cjk = font_file("wqy/wqy-microhei.ttc", "fonts-wqy-microhei");
            check("cjk", &cjk, 0, "字形缓存", &[("字形缓存", "ltr")], $shaper, $rule);
        }
    };
}
