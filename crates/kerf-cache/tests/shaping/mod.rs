//! Shared by the shaper adapters' tests (cosmic.rs, parley.rs): HarfBuzz's
//! `hb-shape` (Debian `libharfbuzz-bin`) as the reference, the fonts, and
//! the checks every adapter must pass.
#![allow(dead_code)]

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
    candidates.into_iter().find(|p| p.exists()).unwrap_or_else(|| panic!("font {file} not found: install the Debian package {package}"))
}

pub fn dejavu_file() -> PathBuf {
    // The same bytes the dejavu crate embeds, as a file for hb-shape: written
    // once per process, under a name of its own (tests run in parallel, and a
    // file rewritten while another test reads it reads as empty).
    static PATH: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    PATH.get_or_init(|| {
        let path = std::env::temp_dir().join(format!("kerf-test-DejaVuSans-{}.ttf", std::process::id()));
        std::fs::write(&path, dejavu::sans::regular()).unwrap();
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
    let out = Command::new("hb-shape")
        .args(["--output-format=json", "--no-glyph-names", &format!("--face-index={index}"), &format!("--direction={dir}")])
        .arg(font)
        .arg(text)
        .output()
        .unwrap_or_else(|e| panic!("hb-shape not found ({e}): install the Debian package libharfbuzz-bin"));
    assert!(out.status.success(), "hb-shape failed: {}", String::from_utf8_lossy(&out.stderr));
    let face = ttf_upem(font, index);
    let scale = PX / face;
    let json = String::from_utf8_lossy(&out.stdout);
    let mut pen = x0;
    let mut glyphs = Vec::new();
    // Objects like {"g":36,"cl":0,"dx":0,"dy":0,"ax":1270,"ay":0}.
    for obj in json.split('{').skip(1) {
        let field = |name: &str| -> f32 {
            let at = obj.find(&format!("\"{name}\":")).unwrap_or_else(|| panic!("no {name} in {obj}")) + name.len() + 3;
            obj[at..].split([',', '}']).next().unwrap().trim().parse().unwrap()
        };
        glyphs.push(HbGlyph { id: field("g") as u16, x: pen + field("dx") * scale, y: -field("dy") * scale });
        pen += field("ax") * scale;
    }
    (glyphs, pen)
}

/// Units per em of face `index` of `font`.
pub fn ttf_upem(font: &Path, index: u32) -> f32 {
    let bytes = std::fs::read(font).unwrap();
    Font::from_bytes(bytes, index).map(|f| f.fontdue().units_per_em()).unwrap_or_else(|e| panic!("{}: {e}", font.display()))
}

/// kerf's glyphs equal HarfBuzz's runs, laid one after the other in visual order.
pub fn check(name: &str, font: &Path, index: u32, text: &str, runs: &[(&str, &str)], shaper: fn(&Path, &str) -> (GlyphCache, Vec<PositionedGlyph>)) {
    let (cache, mut ours) = shaper(font, text);
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
    let baseline = ours[0].y - theirs[0].y;
    for (a, b) in ours.iter().zip(&theirs) {
        assert!((a.x - b.x).abs() <= 0.6, "{name}: glyph {} at x {} (HarfBuzz {})", a.glyph, a.x, b.x);
        assert!((a.y - baseline - b.y).abs() <= 0.6, "{name}: glyph {} at y {} (HarfBuzz {})", a.glyph, a.y - baseline, b.y);
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
    ($shaper:path) => {
        #[test]
        fn latin_with_kerning_and_ligatures_matches_harfbuzz() {
            let f = dejavu_file();
            check("kerning", &f, 0, "AVATAR Wave To", &[("AVATAR Wave To", "ltr")], $shaper);
            check("ligatures", &f, 0, "office affluent", &[("office affluent", "ltr")], $shaper);
        }

        #[test]
        fn arabic_and_hebrew_match_harfbuzz() {
            let f = dejavu_file();
            check("arabic", &f, 0, "مرحبا بالعالم", &[("مرحبا بالعالم", "rtl")], $shaper);
            check("hebrew", &f, 0, "שלום עולם", &[("שלום עולם", "rtl")], $shaper);
        }

        #[test]
        fn mixed_direction_text_matches_harfbuzz_run_by_run() {
            let f = dejavu_file();
            // A left-to-right paragraph with a Hebrew run inside: bidi reorders the
            // Hebrew run, each run shaped in its own direction.
            check("mixed", &f, 0, "abc שלום xyz", &[("abc ", "ltr"), ("שלום", "rtl"), (" xyz", "ltr")], $shaper);
        }

        #[test]
        fn devanagari_and_cjk_match_harfbuzz() {
            let deva = font_file("lohit-devanagari/Lohit-Devanagari.ttf", "fonts-lohit-deva");
            check("devanagari", &deva, 0, "क्षत्रिय हिन्दी", &[("क्षत्रिय हिन्दी", "ltr")], $shaper);
            let cjk = font_file("wqy/wqy-microhei.ttc", "fonts-wqy-microhei");
            check("cjk", &cjk, 0, "字形缓存", &[("字形缓存", "ltr")], $shaper);
        }
    };
}
