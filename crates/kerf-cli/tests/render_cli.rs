//! `kerf render` end to end: the glyphs it reports are HarfBuzz's, fallback
//! follows the font order, missing characters are reported, the PNG is the
//! size the JSON says, bad input is a one-line error.

use std::path::PathBuf;
use std::process::{Command, Output};

fn kerf(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kerf")).args(args).output().expect("run kerf")
}

/// A path for file `name` in this binary's directory under Cargo's scratch
/// directory for tests (target/tmp: not the system's temporary directory,
/// where a directory a run piled up).
fn tmp(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("kerf-render-test");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// DejaVu Sans as a file (the bytes kerf embeds), for --font and hb-shape.
/// Written once per process, whole under a name of its own and then renamed
/// into place: tests run in parallel, and rewriting the file in place while
/// another test's kerf read it showed that kerf an empty font.
fn dejavu() -> String {
    static PATH: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    PATH.get_or_init(|| {
        let (p, part) = (tmp("DejaVuSans.ttf"), tmp(&format!("DejaVuSans.{}", std::process::id())));
        std::fs::write(&part, dejavu::sans::regular()).unwrap();
        std::fs::rename(&part, &p).unwrap();
        p.to_string_lossy().into_owned()
    })
    .clone()
}

fn lohit() -> String {
    let p = "/usr/share/fonts/truetype/lohit-devanagari/Lohit-Devanagari.ttf";
    assert!(
        std::path::Path::new(p).exists(),
        "{p} not found: install the Debian package fonts-lohit-deva"
    );
    p.to_string()
}

/// A PNG's header and its pixels.
fn read_png(path: impl AsRef<std::path::Path>) -> (png::OutputInfo, Vec<u8>) {
    let file = std::fs::File::open(path).unwrap();
    let mut reader = png::Decoder::new(std::io::BufReader::new(file)).read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    (info, buf)
}

fn json(args: &[&str]) -> serde_json::Value {
    let out = kerf(args);
    assert!(out.status.success(), "kerf {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn render_json_glyphs_are_harfbuzz_glyphs() {
    let font = dejavu();
    let text = "office AVATAR";
    let v = json(&["render", "--font", &font, "--text", text, "--size", "32", "--json"]);
    let ids: Vec<u64> =
        v["glyphs"].as_array().unwrap().iter().map(|g| g["glyph"].as_u64().unwrap()).collect();
    let hb = Command::new("hb-shape")
        .args(["--output-format=json", "--no-glyph-names", &font, text])
        .output()
        .unwrap_or_else(|e| {
            panic!("hb-shape not found ({e}): install the Debian package libharfbuzz-bin")
        });
    let hb: serde_json::Value = serde_json::from_slice(&hb.stdout).unwrap();
    let hb_ids: Vec<u64> =
        hb.as_array().unwrap().iter().map(|g| g["g"].as_u64().unwrap()).collect();
    assert_eq!(ids, hb_ids);
    // Pens advance by HarfBuzz's advances (font units, 2048 per em in
    // DejaVu) from the 8 px margin, within 0.05 px (kerf matches within
    // 0.005 px; whole-pixel rounding must fail).
    let xs: Vec<f64> =
        v["glyphs"].as_array().unwrap().iter().map(|g| g["x"].as_f64().unwrap()).collect();
    let mut pen = 8.0;
    for (i, g) in hb.as_array().unwrap().iter().enumerate() {
        assert!((xs[i] - pen).abs() <= 0.05, "glyph {i} at {} (HarfBuzz {pen})", xs[i]);
        pen += g["ax"].as_f64().unwrap() * 32.0 / 2048.0;
    }
    // The baseline where cosmic-text puts a first line of height
    // ceil(1.25 × 32) = 40 px: the glyphs' box (DejaVu Sans' hhea ascender
    // 1901 and descender -483 per 2048) centred in the line, below the margin.
    let (ascent, descent) = (1901.0 * 32.0 / 2048.0, 483.0 * 32.0 / 2048.0);
    let baseline = 8.0 + (40.0 - (ascent + descent)) / 2.0 + ascent;
    for g in v["glyphs"].as_array().unwrap() {
        let y = g["y"].as_f64().unwrap();
        assert!((y - baseline).abs() <= 0.05, "pen y {y}, baseline {baseline}");
    }
    assert!(v["glyphs"]
        .as_array()
        .unwrap()
        .iter()
        .all(|g| g["font"] == font.as_str() && g["size"] == 32.0 && g["color"] == false));
    assert_eq!(v["missing"], 0);
}

#[test]
fn fallback_follows_the_font_order_and_missing_characters_are_reported() {
    let (d, l) = (dejavu(), lohit());
    let v = json(&["render", "--font", &d, "--font", &l, "--text", "abc हिन्दी", "--json"]);
    let fonts: Vec<&str> =
        v["glyphs"].as_array().unwrap().iter().map(|g| g["font"].as_str().unwrap()).collect();
    assert!(
        fonts[..4].iter().all(|f| *f == d),
        "Latin and the space from the first font: {fonts:?}"
    );
    assert!(fonts[4..].iter().all(|f| *f == l), "Devanagari from the second: {fonts:?}");
    // A private-use character no font has: the first font's .notdef, reported.
    let v = json(&["render", "--font", &d, "--text", "a\u{E000}b", "--json"]);
    assert_eq!(v["missing"], 1);
    assert_eq!(v["missing_code_points"], serde_json::json!([0xE000]));
    assert!(v["glyphs"]
        .as_array()
        .unwrap()
        .iter()
        .any(|g| g["glyph"] == 0 && g["font"] == d.as_str()));
}

#[test]
fn the_png_is_the_text_with_a_margin() {
    let png = tmp("render.png");
    let v = json(&[
        "render",
        "--text",
        "Hello, kerf\nsecond line",
        "--color",
        "102080",
        "--background",
        "f0e8d0",
        "--png",
        png.to_str().unwrap(),
        "--json",
    ]);
    let (info, buf) = read_png(&png);
    assert_eq!(
        (info.width as u64, info.height as u64),
        (v["width"].as_u64().unwrap(), v["height"].as_u64().unwrap())
    );
    assert!(info.height > 2 * 32, "two lines tall: {}", info.height);
    assert_eq!(&buf[..3], &[0xf0, 0xe8, 0xd0], "plain background at the corner");
    let ink = buf.chunks(4).filter(|p| p[0] < 0x80 && p[2] > 0x40).count();
    assert!(ink > 300, "the text is drawn in its colour ({ink} pixels)");
}

/// `--gamma/--contrast` and `--lcd` reach the renderer: neutral correction
/// draws thinner dark text than the default, LCD text has colour fringes and
/// BGR mirrors RGB. (Bins and hinting: the swash composites below.)
#[test]
fn sharpness_flags_change_the_picture() {
    let read = |args: &[&str]| -> Vec<u8> {
        let png = tmp(&format!("flags-{}.png", args.join("_").replace(['-', '.'], "")));
        let mut all = vec![
            "render",
            "--text",
            "illumination",
            "--size",
            "15.3",
            "--png",
            png.to_str().unwrap(),
        ];
        all.extend_from_slice(args);
        let out = kerf(&all);
        assert!(out.status.success(), "{all:?}: {}", String::from_utf8_lossy(&out.stderr));
        let mut reader =
            png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&png).unwrap()))
                .read_info()
                .unwrap();
        let mut buf = vec![0; reader.output_buffer_size()];
        reader.next_frame(&mut buf).unwrap();
        buf
    };
    let ink = |px: &[u8]| px.chunks(4).map(|p| 255 - p[0] as u64).sum::<u64>();
    let (neutral, default) = (read(&["--gamma", "1", "--contrast", "0"]), read(&[]));
    assert!(
        ink(&default) > ink(&neutral),
        "the default correction thickens dark text: {} vs {}",
        ink(&default),
        ink(&neutral)
    );
    // --lcd: black on white gains colour fringes (lavapipe has dual-source
    // blending); grayscale has none.
    let colored = |px: &[u8]| px.chunks(4).filter(|p| p[0] != p[2]).count();
    assert_eq!(colored(&default), 0, "grayscale text is gray");
    let (rgb, bgr) = (read(&["--lcd", "rgb"]), read(&["--lcd", "bgr"]));
    assert!(
        colored(&rgb) > 50 && colored(&bgr) > 50,
        "LCD text has colour fringes: {} / {}",
        colored(&rgb),
        colored(&bgr)
    );
    // BGR is RGB's panel mirrored: each pixel's red is RGB's blue and its
    // blue RGB's red (black on white blends each channel on its own).
    assert_eq!(rgb.len(), bgr.len());
    let mirrored: Vec<u8> = rgb.chunks(4).flat_map(|p| [p[2], p[1], p[0], p[3]]).collect();
    assert!(mirrored == bgr, "BGR pixels are RGB's with red and blue swapped");
    let j = json(&["render", "--text", "x", "--lcd", "bgr", "--hinting", "on", "--json"]);
    assert_eq!((j["lcd"].as_str(), j["hinting"].as_str()), (Some("bgr"), Some("on")));
}

#[test]
fn bad_input_is_a_one_line_error() {
    let bad = tmp("bad.ttf");
    std::fs::write(&bad, b"not a font at all").unwrap();
    for args in [
        vec!["render", "--font", bad.to_str().unwrap(), "--text", "x"],
        vec!["render", "--font", "/definitely/not/here.ttf", "--text", "x"],
        vec!["render"],
        vec!["render", "--text", "x", "--size=-3"],
        vec!["render", "--text", "x", "--size=NaN"],
        vec!["render", "--text", "x", "--subpixel-bins", "0"],
        vec!["render", "--text", "x", "--gamma", "0"],
        vec!["render", "--text", "x", "--contrast=-2"],
        vec!["render", "--text", "x", "--weight", "0"],
        vec!["render", "--text", "x", "--variations", "wght=NaN"],
        vec!["render", "--text", "x", "--variations", "wg=700"],
        vec!["render", "--text", "x", "--variations", "wght"],
        vec!["render", "--text", "x", "--outline-width", "NaN"],
        vec!["render", "--text", "x", "--outline-width", "100"],
        vec!["render", "--text", "x", "--shadow-offset", "3"],
        vec!["render", "--text", "x", "--shadow-offset", "1,1", "--shadow-blur=-1"],
    ] {
        let out = kerf(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        let err = err.lines().filter(|l| !l.contains("XDG_RUNTIME_DIR")).collect::<Vec<_>>();
        assert_eq!(err.len(), 1, "{args:?}: one-line error, got {err:?}");
        assert!(err[0].starts_with("kerf: error:"), "{args:?}: {err:?}");
    }
}

/// Colour emoji through `kerf render`: the ZWJ sequence 👩‍💻 is one glyph,
/// HarfBuzz's, marked as a colour glyph, and the PNG has colour in it
/// (🦀, not 😀, which DejaVu Sans, first in the fallback order, has in black).
#[test]
fn emoji_are_one_colour_glyph_per_zwj_sequence() {
    const EMOJI: &str = "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf";
    assert!(
        std::path::Path::new(EMOJI).exists(),
        "{EMOJI} missing; install Debian's fonts-noto-color-emoji"
    );
    let text = "a👩‍💻🦀";
    let j = json(&["render", "--font", &dejavu(), "--font", EMOJI, "--text", text, "--json"]);
    let glyphs = j["glyphs"].as_array().unwrap();
    assert_eq!(glyphs.len(), 3, "'a', the ZWJ sequence as one glyph, 🦀: {glyphs:?}");
    let hb = std::process::Command::new("hb-shape")
        .args(["--no-glyph-names", "--no-positions", "--no-clusters", EMOJI, "👩‍💻🦀"])
        .output()
        .expect("hb-shape (Debian's libharfbuzz-bin)");
    let hb = String::from_utf8_lossy(&hb.stdout);
    let ids: Vec<u64> = hb
        .trim()
        .trim_matches(|c| c == '[' || c == ']')
        .split('|')
        .map(|g| g.parse().unwrap())
        .collect();
    assert_eq!(ids.len(), 2, "{hb}");
    for (g, id) in glyphs[1..].iter().zip(&ids) {
        assert_eq!(g["glyph"].as_u64(), Some(*id), "{g}");
        assert_eq!(g["color"].as_bool(), Some(true));
        assert_eq!(g["font"].as_str(), Some(EMOJI));
    }
    assert_eq!(glyphs[0]["color"].as_bool(), Some(false));
    let png = tmp("emoji.png");
    let out = kerf(&[
        "render",
        "--font",
        &dejavu(),
        "--font",
        EMOJI,
        "--text",
        text,
        "--png",
        png.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut reader = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&png).unwrap()))
        .read_info()
        .unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    reader.next_frame(&mut buf).unwrap();
    let colourful = buf
        .chunks(4)
        .filter(|p| p[..3].iter().max().unwrap() - p[..3].iter().min().unwrap() > 80)
        .count();
    assert!(colourful > 200, "the emoji are drawn in colour ({colourful} saturated pixels)");
}

/// A glyph larger than a page is drawn in tiles: `--size 1100` renders, and
/// its PNG holds ink about a glyph's size.
#[test]
fn sizes_beyond_a_page_are_drawn_in_tiles() {
    let png = tmp("big.png");
    let out = kerf(&["render", "--text", "H", "--size", "1100", "--png", png.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (info, buf) = read_png(&png);
    assert!(info.height > 1100, "{}x{}", info.width, info.height);
    let px = info.line_size / info.width as usize;
    // DejaVu's H is 0.73 em tall: rows with ink span about 800 px.
    let rows = (0..info.height as usize)
        .filter(|&y| {
            buf[y * info.line_size..(y + 1) * info.line_size].chunks(px).any(|p| p[0] < 128)
        })
        .count();
    assert!((700..=900).contains(&rows), "{rows} rows with ink");
}

/// A text taller than the device's textures is a one-line error naming the
/// limit, not a panic.
#[test]
fn a_target_over_the_device_limit_is_an_error() {
    let text = "line\n".repeat(6000);
    let out = kerf(&[
        "render",
        "--text",
        &text,
        "--size",
        "16",
        "--png",
        tmp("tall.png").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    let err: Vec<_> = err.lines().filter(|l| !l.contains("XDG_RUNTIME_DIR")).collect();
    assert_eq!(err.len(), 1, "{err:?}");
    assert!(err[0].contains("exceeds the device's limit"), "{err:?}");
}

/// Every command's output into a pipe closed early ends quietly: status 0,
/// nothing on stderr.
#[test]
fn a_closed_stdout_ends_quietly() {
    use std::io::Read;
    use std::process::Stdio;
    // More JSON than a pipe holds (64 KiB), so writes go on after the close.
    let long = "glyphs to print as json ".repeat(200);
    let args = ["render", "--text", &long, "--width", "800", "--json"];
    let mut child = Command::new(env!("CARGO_BIN_EXE_kerf"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Read one byte, then close our end (as `| head -c1` does).
    let mut one = [0u8; 1];
    child.stdout.take().unwrap().read_exact(&mut one).unwrap();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(out.status.code(), Some(0), "{err}");
}

/// Linear coverage (0..1) of black text on white in an 8-bit sRGB PNG,
/// summed: the text's ink.
fn png_ink(path: &std::path::Path) -> f64 {
    let (info, buf) = read_png(path);
    let channels = info.color_type.samples();
    let linear = |v: u8| {
        let c = v as f64 / 255.0;
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    buf[..info.buffer_size()].chunks(channels).map(|p| 1.0 - linear(p[0])).sum()
}

fn inter() -> String {
    let p = "/usr/share/fonts/truetype/inter-vf/Inter.var.ttf";
    assert!(
        std::path::Path::new(p).exists(),
        "{p} not found: install the Debian package fonts-inter-variable"
    );
    p.to_string()
}

/// `--weight`, `--variations` and `--italic` reach the picture: Inter at
/// weight 700 is as much heavier than at 400 as HarfBuzz's `hb-view` draws
/// it (within 8%), `--variations wght=700` draws the same, and an axis no
/// font has is reported.
#[test]
fn weight_variations_and_italic_reach_the_picture() {
    let font = inter();
    let draw = |name: &str, extra: &[&str]| {
        let png = tmp(name);
        let mut args = vec!["render", "--font", &font, "--text", "Hamburgefonstiv", "--png"];
        let path = png.to_string_lossy().into_owned();
        args.push(&path);
        args.extend(["--gamma", "1", "--contrast", "0"]);
        args.extend(extra);
        let out = kerf(&args);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        png_ink(&png)
    };
    let regular = draw("w400.png", &[]);
    let bold = draw("w700.png", &["--weight", "700"]);
    let by_axis = draw("wght700.png", &["--variations", "wght=700"]);
    let italic = draw("italic.png", &["--italic"]);
    let hb = |wght: u32| {
        let png = tmp(&format!("hb{wght}.png"));
        let status = Command::new("hb-view")
            .args(["--font-size=32", &format!("--variations=wght={wght}"), "-O", "png", "-o"])
            .arg(&png)
            .arg(inter())
            .arg("Hamburgefonstiv")
            .status()
            .expect("hb-view: install the Debian package libharfbuzz-bin");
        assert!(status.success());
        // hb-view writes plain 8-bit gray (no sRGB curve): its values are coverage.
        let (info, buf) = read_png(&png);
        let n = info.color_type.samples();
        buf[..info.buffer_size()].chunks(n).map(|p| (255 - p[0]) as f64 / 255.0).sum::<f64>()
    };
    let (ours, theirs) = (bold / regular, hb(700) / hb(400));
    assert!((ours / theirs - 1.0).abs() < 0.08, "ink 700/400: kerf {ours:.3}, hb-view {theirs:.3}");
    assert!(
        (by_axis / bold - 1.0).abs() < 0.01,
        "--variations wght=700 {by_axis:.1} vs --weight 700 {bold:.1}"
    );
    assert!(
        (italic / regular - 1.0).abs() < 0.05,
        "a slant keeps the ink: {italic:.1} vs {regular:.1}"
    );
    let v = json(&["render", "--text", "x", "--variations", "ZZZZ=1,wght=700", "--json"]);
    assert_eq!(v["ignored_axes"], serde_json::json!(["ZZZZ", "wght"]), "DejaVu Sans has no axes");
}

/// `--underline` and `--strikethrough` draw solid lines across the text.
#[test]
fn underline_and_strikethrough_are_solid_lines() {
    let full_rows = |extra: &[&str]| {
        let png = tmp(&format!("deco{}.png", extra.len()));
        let mut args = vec!["render", "--text", "Underlined text", "--png", png.to_str().unwrap()];
        args.extend(extra);
        assert!(kerf(&args).status.success());
        let (info, buf) = read_png(&png);
        let w = info.width as usize;
        // Rows dark over the middle 80% of the picture's width.
        buf[..info.buffer_size()]
            .chunks(4 * w)
            .enumerate()
            .filter(|(_, row)| row[4 * (w / 10)..4 * (w * 9 / 10)].chunks(4).all(|p| p[0] < 40))
            .map(|(y, _)| y)
            .collect::<Vec<_>>()
    };
    assert!(full_rows(&[]).is_empty(), "plain text has no solid row");
    let under = full_rows(&["--underline"]);
    let both = full_rows(&["--underline", "--strikethrough"]);
    assert!(!under.is_empty(), "an underline");
    assert!(
        both.len() > under.len() && both.iter().min() < under.iter().min(),
        "{both:?} vs {under:?}"
    );
}

/// `--outline-*` and `--shadow-*` draw under the text, in their colours,
/// and the picture grows to hold them.
#[test]
fn outline_and_shadow_draw_under_the_text() {
    let draw = |name: &str, extra: &[&str]| {
        let png = tmp(name);
        let mut args = vec!["render", "--text", "Hi", "--size", "48", "--color", "0000ff", "--png"];
        let path = png.to_string_lossy().into_owned();
        args.push(&path);
        args.extend(extra);
        assert!(kerf(&args).status.success());
        let (info, buf) = read_png(&png);
        (
            info.width,
            buf[..info.buffer_size()].chunks(4).map(|p| [p[0], p[1], p[2]]).collect::<Vec<_>>(),
        )
    };
    let (w0, plain) = draw("plain.png", &[]);
    let (w1, fx) = draw(
        "fx.png",
        &[
            "--outline-width",
            "3",
            "--outline-color",
            "ff0000",
            "--shadow-offset",
            "6,6",
            "--shadow-blur",
            "2",
            "--shadow-color",
            "00ff00",
        ],
    );
    assert!(w1 > w0, "the picture grows for the effects: {w0} → {w1}");
    let count = |img: &[[u8; 3]], f: fn(&[u8; 3]) -> bool| img.iter().filter(|p| f(p)).count();
    let red = |p: &[u8; 3]| p[0] > 200 && p[1] < 80 && p[2] < 80;
    let green = |p: &[u8; 3]| p[1] > 150 && p[0] < 120 && p[2] < 120;
    let blue = |p: &[u8; 3]| p[2] > 200 && p[0] < 80 && p[1] < 80;
    assert_eq!(count(&plain, red) + count(&plain, green), 0);
    assert!(count(&fx, red) > 100, "an outline");
    assert!(count(&fx, green) > 20, "a shadow peeking out");
    // The text stays on top: as much solid blue as without effects (±10%).
    let (b0, b1) = (count(&plain, blue) as f64, count(&fx, blue) as f64);
    assert!((b1 / b0 - 1.0).abs() < 0.1, "blue {b0} vs {b1}");
}

/// One glyph as a reference rasterizer draws it: its bitmap's top-left
/// pixel in the picture, its width, and its coverage bytes.
struct Drawn {
    left: i64,
    top: i64,
    width: usize,
    data: Vec<u8>,
}

/// `kerf render --json --png` of `text` with `args`: what it printed, and
/// the PNG's size and pixels.
struct Rendered {
    json: serde_json::Value,
    width: i64,
    height: i64,
    pixels: Vec<u8>,
}

fn render(name: &str, text: &str, args: &[&str]) -> Rendered {
    let png = tmp(name);
    let mut all = vec!["render", "--text", text, "--png", png.to_str().unwrap(), "--json"];
    all.extend_from_slice(args);
    let json = json(&all);
    let (info, pixels) = read_png(&png);
    Rendered { json, width: info.width as i64, height: info.height as i64, pixels }
}

/// `rendered` compared with a CPU composite of its JSON's glyphs drawn by
/// `raster` (given each glyph's id, size and pen), laid over white as plain
/// coverage in linear light and stored as sRGB (the target is
/// `Rgba8UnormSrgb`, so the GPU blends in linear light): the worst channel
/// difference, and the PNG's ink and the composite's. Asserts the text is gray.
fn composite(rendered: &Rendered, raster: impl Fn(u16, f32, f64, f64) -> Drawn) -> (i32, i64, i64) {
    let (v, buf, w, h) = (&rendered.json, &rendered.pixels, rendered.width, rendered.height);
    // Coverage of each pixel, combined as independent layers.
    let mut cover = vec![0.0f32; (w * h) as usize];
    for g in v["glyphs"].as_array().unwrap() {
        let (id, size) = (g["glyph"].as_u64().unwrap() as u16, g["size"].as_f64().unwrap() as f32);
        let d = raster(id, size, g["x"].as_f64().unwrap(), g["y"].as_f64().unwrap());
        for (i, &c) in d.data.iter().enumerate() {
            let (px, py) = (d.left + (i % d.width) as i64, d.top + (i / d.width) as i64);
            assert!((0..w).contains(&px) && (0..h).contains(&py), "glyph {id} leaves the picture");
            let at = &mut cover[(py * w + px) as usize];
            *at = 1.0 - (1.0 - *at) * (1.0 - c as f32 / 255.0);
        }
    }
    let (mut worst, mut ink_png, mut ink_ref) = (0i32, 0i64, 0i64);
    for (i, c) in cover.iter().enumerate() {
        // sRGB's transfer function (IEC 61966-2-1), black over white.
        let linear = 1.0 - c;
        let encoded = if linear <= 0.0031308 {
            12.92 * linear
        } else {
            1.055 * linear.powf(1.0 / 2.4) - 0.055
        };
        let want = (255.0 * encoded).round() as i32;
        let got = buf[i * 4] as i32;
        assert!(buf[i * 4..i * 4 + 3].iter().all(|&b| b as i32 == got), "gray text");
        worst = worst.max((got - want).abs());
        ink_png += 255 - got as i64;
        ink_ref += 255 - want as i64;
    }
    (worst, ink_png, ink_ref)
}

/// fontdue's coverage (not kerf's rasterizer) of DejaVu Sans at the pen
/// rounded to whole pixels.
fn fontdue_glyph(id: u16, size: f32, x: f64, y: f64) -> Drawn {
    static FONT: std::sync::OnceLock<fontdue::Font> = std::sync::OnceLock::new();
    let font = FONT.get_or_init(|| {
        fontdue::Font::from_bytes(dejavu::sans::regular(), Default::default()).unwrap()
    });
    let (x, y) = (x.round() as i64, y.round() as i64);
    let (m, data) = font.rasterize_indexed(id, size);
    Drawn {
        left: x + m.xmin as i64,
        top: y - m.height as i64 - m.ymin as i64,
        width: m.width,
        data,
    }
}

/// swash's coverage of DejaVu Sans, hinted or not, at the pen's x snapped to
/// the nearest quarter pixel (`--subpixel-bins 4`: whole part and offset)
/// and its y rounded, the outline moved by the offset.
fn swash_glyph(hint: bool) -> impl Fn(u16, f32, f64, f64) -> Drawn {
    use swash::scale::{Render, ScaleContext, Source};
    use swash::zeno::{Format, Vector};
    move |id, size, x, y| {
        let font = swash::FontRef::from_index(dejavu::sans::regular(), 0).unwrap();
        let mut context = ScaleContext::new();
        let mut scaler = context.builder(font).size(size).hint(hint).build();
        let q = (x * 4.0).round() as i64;
        let (whole, offset) = (q.div_euclid(4), q.rem_euclid(4) as f32 / 4.0);
        let image = Render::new(&[Source::Outline])
            .format(Format::Alpha)
            .offset(Vector::new(offset, 0.0))
            .render(&mut scaler, id)
            .unwrap();
        let p = image.placement;
        Drawn {
            left: whole + p.left as i64,
            top: y.round() as i64 - p.top as i64,
            width: p.width as usize,
            data: image.data,
        }
    }
}

/// Plain coverage (`--gamma 1 --contrast 0`), with `args` after it.
fn neutral<'a>(args: &[&'a str]) -> Vec<&'a str> {
    let mut all = vec!["--gamma", "1", "--contrast", "0"];
    all.extend_from_slice(args);
    all
}

/// The PNG is the glyphs the JSON lists (HarfBuzz's, by the test above)
/// rasterized by fontdue, not by kerf, at their pens rounded to whole pixels
/// (`--subpixel-bins 1`), as plain coverage. kerf's own rasterizer and
/// fontdue's differ by up to 24/255 at an edge texel, so each pixel may
/// differ by that much, where a glyph drawn one pixel off differs by over
/// 100 at its stems.
#[test]
fn the_png_is_a_cpu_composite_of_the_json_glyphs() {
    let r = render("composite.png", "Hello, kerf\nWave To", &neutral(&["--subpixel-bins", "1"]));
    let glyphs = r.json["glyphs"].as_array().unwrap();
    assert_eq!(glyphs.len(), 18, "two spaces included: {glyphs:?}");
    let (worst, ink_png, ink_ref) = composite(&r, fontdue_glyph);
    eprintln!("worst pixel {worst}/255, ink {ink_png} vs fontdue's {ink_ref}");
    assert!(worst <= 24, "worst pixel {worst}/255 off the CPU composite");
    assert!((ink_png - ink_ref).abs() * 200 <= ink_ref, "ink {ink_png} vs {ink_ref}");
}

/// Sub-pixel bins and hinting reach the rasterizer: at 15.3 px (pens at
/// fractions of a pixel) the PNG is swash's composite at the pens snapped to
/// quarter pixels, unhinted or hinted as asked, and not the other one's, nor
/// the whole-pixel composite. Unhinted, kerf draws with its own rasterizer
/// (measured within 28/255 of swash; allowed 32); hinted, with swash (within
/// 1; allowed 2). A wrong choice is over 170 off.
#[test]
fn bins_and_hinting_draw_what_swash_draws_at_the_snapped_pens() {
    let text = "illumination Wave";
    let r = render("bins.png", text, &neutral(&["--size", "15.3"]));
    let (worst, ..) = composite(&r, swash_glyph(false));
    let (whole, ..) = composite(&r, fontdue_glyph);
    let (unhinted, ..) = composite(&r, swash_glyph(true));
    eprintln!("bins 4: {worst}/255 off swash, {whole} off whole pixels, {unhinted} off hinted");
    assert!(worst <= 32 && whole > 100 && unhinted > 100, "{worst} {whole} {unhinted}");
    let r = render("hinted.png", text, &neutral(&["--size", "15.3", "--hinting", "on"]));
    let (worst, ..) = composite(&r, swash_glyph(true));
    let (plain, ..) = composite(&r, swash_glyph(false));
    eprintln!("hinted: {worst}/255 off swash hinted, {plain} off unhinted");
    assert!(worst <= 2 && plain > 100, "{worst} {plain}");
}
