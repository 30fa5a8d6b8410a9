//! Font instances: variation coordinates and synthesis (bold, oblique),
//! checked against references kerf did not make: HarfBuzz's `hb-view`
//! (Debian `libharfbuzz-bin`) drawing Inter (Debian `fonts-inter-variable`)
//! at the same weights, swash's emboldening, and the slant the spec asks.

use kerf_cache::*;
use kerf_cache::{
    fonts::{user_values, FontRef},
    rasterize::{FontdueRasterizer, GlyphImage, Rasterizer},
};

mod canvas;
mod made;
use canvas::composite;
use proptest::prelude::*;
use std::path::PathBuf;
use std::process::Command;

mod shaping;
use shaping::font_file;

const TEXT: &str = "Hamburgefonstiv";
const PX: f32 = 32.0;

fn inter_file() -> PathBuf {
    font_file("inter-vf/Inter.var.ttf", "fonts-inter-variable")
}

/// The ink (coverage summed, in pixels) `hb-view` draws for `text` at `px`
/// with `variations` (`wght=700`), read from its grayscale PNG.
fn hb_view_ink(font: &std::path::Path, text: &str, px: f32, variations: &str) -> f64 {
    let out = std::env::temp_dir().join(format!(
        "kerf-hb-view-{}-{}.png",
        std::process::id(),
        variations.replace(['=', ','], "_")
    ));
    let status = Command::new("hb-view")
        .arg(format!("--font-size={px}"))
        .arg(format!("--variations={variations}"))
        .arg("--margin=8")
        .args(["-O", "png", "-o"])
        .arg(&out)
        .arg(font)
        .arg(text)
        .status()
        .unwrap_or_else(|e| {
            panic!("hb-view not found ({e}): install the Debian package libharfbuzz-bin")
        });
    assert!(status.success(), "hb-view failed");
    let decoder = png::Decoder::new(std::fs::File::open(&out).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let _ = std::fs::remove_file(&out);
    let channels = info.color_type.samples();
    // Black on white: ink is what is not white (the first channel).
    buf[..info.buffer_size()].chunks(channels).map(|p| (255 - p[0]) as f64 / 255.0).sum()
}

const W: usize = 640;
const H: usize = 96;

/// kerf's ink for `spec` (drawn at (8, 16)) through `cache`.
fn kerf_ink(cache: &mut GlyphCache, spec: TextSpec<'_>) -> (f64, FrameOutput) {
    let mut quads = Vec::new();
    let mut frame = cache.begin_frame();
    frame.layout(&spec.at(8.0, 16.0), &mut quads).unwrap();
    let out = frame.finish();
    let canvas = composite(cache, &quads, W, H);
    (canvas.iter().map(|&v| v as f64).sum(), out)
}

#[test]
fn inter_at_wght_700_is_as_much_heavier_as_harfbuzz_draws_it() {
    let path = inter_file();
    let mut cache = GlyphCache::new(CacheConfig::default()).unwrap();
    let inter = cache.add_font(std::fs::read(&path).unwrap()).unwrap();
    let (regular, _) = kerf_ink(&mut cache, TextSpec::new(TEXT, inter, PX));
    let (bold, out) = kerf_ink(&mut cache, TextSpec::new(TEXT, inter, PX).weight(700.0));
    assert_eq!((out.counts.default_instance, out.counts.ignored_axes), (0, 0));
    let (hb_regular, hb_bold) =
        (hb_view_ink(&path, TEXT, PX, "wght=400"), hb_view_ink(&path, TEXT, PX, "wght=700"));
    let (ours, theirs) = (bold / regular, hb_bold / hb_regular);
    eprintln!("ink 700/400: kerf {ours:.4}, hb-view {theirs:.4}; regular {regular:.1} vs {hb_regular:.1}, bold {bold:.1} vs {hb_bold:.1}");
    assert!(theirs > 1.3, "hb-view's bold is heavier: {theirs:.3}");
    assert!(
        (ours / theirs - 1.0).abs() <= 0.08,
        "ink 700/400: kerf {ours:.3}, hb-view {theirs:.3}"
    );
    // The same instance through explicit variations is the same font.
    let by_axis = cache.add_instance(inter, &FontStyle::new().variation(*b"wght", 700.0)).unwrap();
    let by_weight = cache.add_instance(inter, &FontStyle::new().weight(700.0)).unwrap();
    assert_eq!(by_axis.font, by_weight.font);
    // And each of kerf's inks is close to HarfBuzz's own (another rasterizer).
    for (k, h) in [(regular, hb_regular), (bold, hb_bold)] {
        assert!((k / h - 1.0).abs() < 0.05, "ink kerf {k:.1} vs hb-view {h:.1}");
    }
}

#[test]
fn variable_advances_follow_the_instance() {
    let mut cache = GlyphCache::new(CacheConfig::default()).unwrap();
    let inter = cache.add_font(std::fs::read(inter_file()).unwrap()).unwrap();
    let mut regular = Vec::new();
    let mut bold = Vec::new();
    cache.positions(&TextSpec::new(TEXT, inter, PX), &mut regular).unwrap();
    cache.positions(&TextSpec::new(TEXT, inter, PX).weight(900.0), &mut bold).unwrap();
    assert_eq!(regular.len(), bold.len());
    let width = |g: &[PositionedGlyph]| g.last().unwrap().x - g[0].x;
    // hb-shape's pens (kerning off: kerf's own layout does not shape), at
    // wght 400 and 900: every pen within 0.1 px.
    let path = inter_file();
    for (ours, wght) in [(&regular, 400), (&bold, 900)] {
        let options = [format!("--variations=wght={wght}"), "--features=-kern".to_string()];
        let options: Vec<&str> = options.iter().map(String::as_str).collect();
        let (theirs, _) = shaping::hb_shape_with(&path, 0, TEXT, "ltr", ours[0].x, &options);
        assert_eq!(theirs.len(), ours.len());
        for (k, h) in ours.iter().zip(&theirs) {
            assert_eq!(k.glyph, h.id);
            assert!((k.x - h.x).abs() < 0.1, "wght {wght}: pen {} vs hb-shape {}", k.x, h.x);
        }
    }
    assert!(width(&bold) > width(&regular) + 10.0);
}

#[test]
fn synthesis_follows_the_browser_rules() {
    let mut cache = GlyphCache::new(CacheConfig::default()).unwrap();
    let regular = cache.add_font(dejavu::sans::regular().to_vec()).unwrap();
    let bold_face = cache.add_font(dejavu::sans::bold().to_vec()).unwrap();
    let inter = cache.add_font(std::fs::read(inter_file()).unwrap()).unwrap();
    let instance = |cache: &mut GlyphCache, f: FontId, s: FontStyle| {
        let id = cache.add_instance(f, &s).unwrap().font;
        cache.fonts().get(id).unwrap().instance().cloned().unwrap_or_default()
    };
    // Bold from a weight of 600 and up, on a face of 500 or less without wght.
    assert!(instance(&mut cache, regular, FontStyle::new().weight(600.0)).embolden());
    assert!(!instance(&mut cache, regular, FontStyle::new().weight(550.0)).embolden());
    assert!(!instance(&mut cache, bold_face, FontStyle::new().weight(800.0)).embolden());
    // A face with a wght axis varies instead.
    let i = instance(&mut cache, inter, FontStyle::new().weight(800.0));
    assert!(!i.embolden());
    assert_eq!(i.variations(), &[(*b"wght", 800.0)]);
    // Italic of an upright face: a 14° oblique; Inter's roman has no ital axis.
    let o = instance(&mut cache, regular, FontStyle::new().italic(true));
    assert!((o.oblique() - 14f32.to_radians().tan()).abs() < 1e-6);
    let o = instance(&mut cache, inter, FontStyle::new().italic(true));
    assert!(o.oblique() > 0.2);
    // Forced off.
    let none = FontStyle { synthetic_bold: Some(false), ..FontStyle::new().weight(900.0) };
    assert_eq!(cache.add_instance(regular, &none).unwrap().font, regular);
    // A face marked italic by its OS/2 flag alone (angle 0), or slanted by
    // its `post` angle alone (no flag): both made here from DejaVu Sans,
    // both italic already, so no synthetic oblique on top.
    let flagged = made::patched(dejavu::sans::regular(), b"OS/2", 62, &[0, 1]);
    let angled = made::patched(dejavu::sans::regular(), b"post", 4, &(-12i32 << 16).to_be_bytes());
    for (bytes, flag, angle) in [(flagged, true, 0.0), (angled, false, -12.0)] {
        let face = ttf_parser::Face::parse(&bytes, 0).unwrap();
        assert_eq!((face.style() == ttf_parser::Style::Italic, face.italic_angle()), (flag, angle));
        let f = cache.add_font(bytes).unwrap();
        assert_eq!(instance(&mut cache, f, FontStyle::new().italic(true)).oblique(), 0.0);
    }
}

#[test]
fn out_of_range_values_are_clamped_missing_axes_ignored_and_nan_refused() {
    let mut cache = GlyphCache::new(CacheConfig::default()).unwrap();
    let inter = cache.add_font(std::fs::read(inter_file()).unwrap()).unwrap();
    let max = cache.add_instance(inter, &FontStyle::new().variation(*b"wght", 900.0)).unwrap();
    let over = cache.add_instance(inter, &FontStyle::new().variation(*b"wght", 5000.0)).unwrap();
    assert_eq!(max.font, over.font, "5000 is clamped to the axis's 900");
    let odd = cache
        .add_instance(inter, &FontStyle::new().variation(*b"ZZZZ", 1.0).variation(*b"wght", 900.0))
        .unwrap();
    assert_eq!((odd.font, odd.ignored_axes), (max.font, vec![*b"ZZZZ"]));
    let fonts = cache.fonts().len();
    let stats = cache.stats().clone();
    for bad in [
        FontStyle::new().weight(f32::NAN),
        FontStyle::new().variation(*b"wght", f32::INFINITY),
        FontStyle { synthetic_oblique: Some(f32::NAN), ..FontStyle::new() },
        FontStyle { synthetic_oblique: Some(75.0), ..FontStyle::new() },
    ] {
        let e = cache.add_instance(inter, &bad).unwrap_err();
        assert!(matches!(e, GlyphError::Style { .. }), "{e}");
    }
    let mut other = GlyphCache::new(CacheConfig::default()).unwrap();
    let foreign = (0..5).map(|_| other.add_font(dejavu::sans::regular().to_vec()).unwrap()).last();
    assert!(matches!(
        cache.add_instance(foreign.unwrap(), &FontStyle::new().weight(700.0)),
        Err(GlyphError::UnknownFont(_))
    ));
    // A laid-out string with a NaN weight: an error, nothing drawn or made.
    let mut quads = Vec::new();
    let mut frame = cache.begin_frame();
    let e = frame.layout(&TextSpec::new(TEXT, inter, PX).weight(f32::NAN), &mut quads);
    assert!(matches!(e, Err(GlyphError::Style { .. })));
    let out = frame.finish();
    assert!(quads.is_empty() && out.uploads.is_empty());
    assert_eq!(cache.fonts().len(), fonts, "no font made by a refused style");
    assert_eq!(cache.stats().lookups, stats.lookups);
    cache.check_invariants().unwrap();
    // A missing axis asked by a laid-out string is counted.
    let mut frame = cache.begin_frame();
    frame
        .layout(&TextSpec::new("x", inter, PX).variations(&[(*b"wdth", 80.0)]), &mut quads)
        .unwrap();
    assert_eq!(frame.finish().counts.ignored_axes, 1);
}

/// Rows of a canvas, each the ink centroid x of the row (rows with ink).
fn row_centroids(canvas: &[f32], w: usize, h: usize) -> Vec<(f64, f64)> {
    (0..h)
        .filter_map(|y| {
            let row = &canvas[y * w..(y + 1) * w];
            let mass: f64 = row.iter().map(|&v| v as f64).sum();
            (mass > 0.5).then(|| {
                let m: f64 =
                    row.iter().enumerate().map(|(x, &v)| v as f64 * (x as f64 + 0.5)).sum();
                (y as f64 + 0.5, m / mass)
            })
        })
        .collect()
}

/// The least-squares slope of x against y.
fn slope(points: &[(f64, f64)]) -> f64 {
    let n = points.len() as f64;
    let (my, mx) = points.iter().fold((0.0, 0.0), |(a, b), p| (a + p.0 / n, b + p.1 / n));
    let num: f64 = points.iter().map(|p| (p.0 - my) * (p.1 - mx)).sum();
    let den: f64 = points.iter().map(|p| (p.0 - my) * (p.0 - my)).sum();
    num / den
}

#[test]
fn a_synthetic_oblique_leans_fourteen_degrees_in_every_mode() {
    // A vertical stem ('l') leans right by tan 14° = 0.249 of its height.
    let expect = 14f64.to_radians().tan();
    for bins in [1, 4] {
        let mut cache =
            GlyphCache::new(CacheConfig { subpixel_bins: bins, ..CacheConfig::default() }).unwrap();
        let font = cache.add_font(dejavu::sans::regular().to_vec()).unwrap();
        let mut quads = Vec::new();
        let mut frame = cache.begin_frame();
        frame.layout(&TextSpec::new("l", font, 64.0).at(20.3, 8.0).italic(), &mut quads).unwrap();
        frame.finish();
        let canvas = composite(&cache, &quads, 128, 96);
        let rows = row_centroids(&canvas, 128, 96);
        // y grows down: a right lean is a negative slope of x against y.
        let s = -slope(&rows[2..rows.len() - 2]);
        eprintln!("bins {bins}: oblique slope {s:.4}, expected {expect:.4}");
        assert!((s - expect).abs() < 0.01, "bins {bins}: slope {s:.4}, expected {expect:.4}");
        // Upright for comparison.
        let mut up = Vec::new();
        let mut frame = cache.begin_frame();
        frame.layout(&TextSpec::new("l", font, 64.0).at(20.3, 8.0), &mut up).unwrap();
        frame.finish();
        let rows = row_centroids(&composite(&cache, &up, 128, 96), 128, 96);
        assert!(slope(&rows[2..rows.len() - 2]).abs() < 0.005);
    }
}

#[cfg(feature = "swash")]
#[test]
fn synthetic_bold_adds_the_ink_swash_adds() {
    use kerf_cache::rasterize::SwashRasterizer;
    // swash's embolden (FreeType's algorithm) is the reference: the same
    // strength gives the same extra ink, at several sizes and modes.
    for px in [12.0, 16.0, 24.0, 40.0] {
        let mut inks = Vec::new();
        for swash in [false, true] {
            let mut cache = if swash {
                GlyphCache::with_rasterizer(
                    CacheConfig::default(),
                    Box::new(SwashRasterizer::new()),
                )
                .unwrap()
            } else {
                GlyphCache::new(CacheConfig::default()).unwrap()
            };
            let f = cache.add_font(dejavu::sans::regular().to_vec()).unwrap();
            let (regular, _) = kerf_ink(&mut cache, TextSpec::new(TEXT, f, px));
            let (bold, _) = kerf_ink(&mut cache, TextSpec::new(TEXT, f, px).weight(700.0));
            inks.push((regular, bold));
        }
        let (ours, theirs) = (inks[0].1 - inks[0].0, inks[1].1 - inks[1].0);
        eprintln!("{px} px: ink added by synthetic bold: kerf {ours:.1}, swash {theirs:.1} (regular {:.1})", inks[0].0);
        assert!(ours > 0.1 * inks[0].0, "{px} px: bold adds ink ({ours:.1})");
        assert!(
            (ours / theirs - 1.0).abs() < 0.1,
            "{px} px: added ink kerf {ours:.1}, swash {theirs:.1}"
        );
    }
}

#[test]
fn a_rasterizer_without_instances_draws_the_default_and_says_so() {
    /// fontdue's rasterizer behind a trait object that does not say it draws instances.
    struct Plain;
    impl Rasterizer for Plain {
        fn measure(&self, font: FontRef<'_>, key: &GlyphKey) -> Result<(u32, u32), RasterError> {
            FontdueRasterizer.measure(font, key)
        }
        fn rasterize(&self, font: FontRef<'_>, key: &GlyphKey) -> Result<GlyphImage, RasterError> {
            assert!(font.font.instance().is_none(), "handed the face, not the instance");
            FontdueRasterizer.rasterize(font, key)
        }
    }
    let mut cache = GlyphCache::with_rasterizer(CacheConfig::default(), Box::new(Plain)).unwrap();
    let f = cache.add_font(dejavu::sans::regular().to_vec()).unwrap();
    let (_, out) = kerf_ink(&mut cache, TextSpec::new("bold", f, PX).weight(700.0));
    assert_eq!(out.counts.default_instance, 4);
    let (_, out) = kerf_ink(&mut cache, TextSpec::new("bold", f, PX).weight(700.0));
    assert_eq!(out.counts.default_instance, 0, "hits rasterize nothing");
}

/// `bytes` (a font without `avar`) with an `avar` table added: `wght` maps
/// 0.5 to 0.25 (normalized), every other axis is the identity. A font made
/// here, as Debian's variable fonts have no `avar`.
fn with_avar(bytes: &[u8]) -> Vec<u8> {
    let face = ttf_parser::Face::parse(bytes, 0).unwrap();
    let axes: Vec<[u8; 4]> = face.variation_axes().into_iter().map(|a| a.tag.to_bytes()).collect();
    let mut avar = vec![0, 1, 0, 0, 0, 0];
    avar.extend((axes.len() as u16).to_be_bytes());
    for tag in &axes {
        let map: &[(i16, i16)] = if tag == b"wght" {
            &[(-16384, -16384), (0, 0), (8192, 4096), (16384, 16384)]
        } else {
            &[(-16384, -16384), (0, 0), (16384, 16384)]
        };
        avar.extend((map.len() as u16).to_be_bytes());
        for &(from, to) in map {
            avar.extend(from.to_be_bytes());
            avar.extend(to.to_be_bytes());
        }
    }
    made::with_tables(bytes, &[(*b"avar", avar)])
}

/// The font made above is what it says: ttf-parser reads its `avar` and
/// normalizes `wght` through it (the weight halfway to the maximum lands a
/// quarter of the way), so the round trip below exercises the inverse map.
#[test]
fn the_made_avar_bends_the_weight_axis() {
    let plain = std::fs::read(inter_file()).unwrap();
    let bent = with_avar(&plain);
    let coord = |bytes: &[u8]| {
        let mut face = ttf_parser::Face::parse(bytes, 0).unwrap();
        let axis = face
            .variation_axes()
            .into_iter()
            .find(|a| a.tag == ttf_parser::Tag::from_bytes(b"wght"))
            .unwrap();
        let half = (axis.def_value + axis.max_value) / 2.0;
        face.set_variation(axis.tag, half).unwrap();
        let i = face.variation_axes().into_iter().position(|a| a.tag == axis.tag).unwrap();
        face.variation_coordinates()[i].get()
    };
    assert_eq!((coord(&plain), coord(&bent)), (8192, 4096));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// parley's normalized coordinates back to user values: what ttf-parser
    /// normalizes a user value to (fvar, then avar) comes back within a
    /// coordinate step, in Inter as it is and with an `avar` that bends
    /// `wght` (the inverse of its segment map brings the weight back).
    #[test]
    fn user_values_undo_normalization(w in 100f32..=900.0, bent in any::<bool>()) {
        let plain = std::fs::read(inter_file()).unwrap();
        let bytes = if bent { with_avar(&plain) } else { plain };
        let mut face = ttf_parser::Face::parse(&bytes, 0).unwrap();
        face.set_variation(ttf_parser::Tag::from_bytes(b"wght"), w).unwrap();
        let coords: Vec<i16> = face.variation_coordinates().iter().map(|c| c.get()).collect();
        let back = user_values(&bytes, 0, &coords).unwrap();
        let wght = back.iter().find(|(t, _)| t == b"wght").unwrap().1;
        prop_assert!((wght - w).abs() < 0.2, "{w} came back as {wght}");
    }
}
