//! `kerf render`: shape a text with cosmic-text, draw it through kerf-wgpu
//! offscreen (lavapipe where there is no GPU), and write a PNG just large
//! enough for it, and/or a JSON account of every glyph drawn.

use kerf_cache::cosmic_text::{
    fontdb, Attrs, Buffer, Family, FontSystem, Metrics, Shaping, Style, UnderlineStyle, Weight,
};
use kerf_cache::{fonts::ColorGlyphs, CacheConfig, CosmicFonts};
use kerf_wgpu::{
    wgpu, Antialiasing, Offscreen, SubpixelOrder, TextArea, TextAtlas, TextCorrection,
    TextRenderer, Viewport,
};
use serde::Serialize;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

/// Empty pixels around the text (more where effects reach out: see [`margin`]).
const MARGIN: f32 = 8.0;

/// The margin around the text: [`MARGIN`] plus how far its outline and
/// shadow reach (a Gaussian's 3σ past its offset).
fn margin(e: &kerf_cache::Effects) -> f32 {
    let outline = e.outline.map_or(0.0, |o| o.width);
    let shadow = e.shadow.map_or(0.0, |s| s.offset.0.abs().max(s.offset.1.abs()) + 1.5 * s.blur);
    MARGIN + outline.max(shadow).ceil()
}

/// Arguments of `kerf render`.
#[derive(clap::Args, Debug)]
pub struct RenderArgs {
    /// A font file (TrueType/OpenType; `FILE:INDEX` for a face of a collection,
    /// else its first face). Repeat it: the order is the fallback order.
    /// Default: the embedded DejaVu Sans.
    #[arg(long = "font", value_name = "FILE")]
    pub fonts: Vec<String>,
    /// The text to draw (`\n` breaks lines).
    #[arg(long, conflicts_with = "text_file")]
    pub text: Option<String>,
    /// Draw the contents of this UTF-8 file instead.
    #[arg(long, value_name = "FILE")]
    pub text_file: Option<PathBuf>,
    /// Font size in pixels.
    #[arg(long, default_value_t = 32.0)]
    pub size: f32,
    /// Wrap lines at this width in pixels (default: no wrapping).
    #[arg(long)]
    pub width: Option<f32>,
    /// Text colour, RRGGBB.
    #[arg(long, default_value = "000000", value_parser = parse_rgb)]
    pub color: [u8; 3],
    /// Background colour, RRGGBB.
    #[arg(long, default_value = "ffffff", value_parser = parse_rgb)]
    pub background: [u8; 3],
    /// Write the image here (8-bit RGBA PNG).
    #[arg(long, value_name = "OUT.png")]
    pub png: Option<PathBuf>,
    /// Print one JSON object: width, height, missing, missing_code_points, glyphs.
    #[arg(long)]
    pub json: bool,
    /// Sub-pixel x positions per pixel (1 = whole-pixel snapping; see CacheConfig::subpixel_bins).
    #[arg(long, default_value_t = CacheConfig::default().subpixel_bins)]
    pub subpixel_bins: u32,
    /// Text gamma (see TextCorrection; 1 with --contrast 0 is no correction).
    #[arg(long, default_value_t = TextCorrection::DEFAULT.gamma)]
    pub gamma: f32,
    /// Text contrast (see TextCorrection).
    #[arg(long, default_value_t = TextCorrection::DEFAULT.contrast)]
    pub contrast: f32,
    /// Hint outlines to the pixel grid (with the swash rasterizer; `off`
    /// draws with fontdue, kerf's default rasterizer).
    #[arg(long, value_enum, default_value_t = OnOff::Off)]
    pub hinting: OnOff,
    /// LCD (sub-pixel) anti-aliasing for a display with RGB or BGR stripes;
    /// grayscale where the GPU lacks dual-source blending (said on stderr
    /// and in --json).
    #[arg(long, value_enum, default_value_t = Lcd::Off)]
    pub lcd: Lcd,
    /// Font weight (CSS, 1 to 1000): a variable font's `wght` axis, or
    /// synthetic bold from 600 on a face of weight 500 or less.
    #[arg(long, default_value_t = 400)]
    pub weight: u16,
    /// Italic: the face's `ital` axis, or a synthetic 14° oblique.
    #[arg(long)]
    pub italic: bool,
    /// Variation axis values, `TAG=V[,TAG=V]` (e.g. `wght=650,opsz=20`),
    /// clamped to each axis's range; they win over --weight and --italic.
    /// A `wght` given here also sets the weight cosmic-text shapes with
    /// (its advances); other axes change the outlines only.
    #[arg(long, value_name = "TAG=V[,TAG=V]")]
    pub variations: Option<String>,
    /// Underline the text (at the font's `post` underline).
    #[arg(long)]
    pub underline: bool,
    /// Strike the text through (at the font's `OS/2` strikeout).
    #[arg(long)]
    pub strikethrough: bool,
    /// An outline this many pixels wide under the text (0: none).
    #[arg(long, default_value_t = 0.0)]
    pub outline_width: f32,
    /// The outline's colour, RRGGBB.
    #[arg(long, default_value = "ffffff", value_parser = parse_rgb)]
    pub outline_color: [u8; 3],
    /// A shadow under the text, moved by `DX,DY` pixels.
    #[arg(long, value_name = "DX,DY")]
    pub shadow_offset: Option<String>,
    /// The shadow's blur radius in pixels (with --shadow-offset).
    #[arg(long, default_value_t = 0.0)]
    pub shadow_blur: f32,
    /// The shadow's colour, RRGGBB.
    #[arg(long, default_value = "808080", value_parser = parse_rgb)]
    pub shadow_color: [u8; 3],
}

/// The effects the arguments ask for, checked.
fn effects(args: &RenderArgs) -> Result<kerf_cache::Effects, String> {
    let mut e = kerf_cache::Effects::default();
    if args.outline_width != 0.0 {
        let [r, g, b] = args.outline_color;
        e.outline = Some(kerf_cache::Outline { width: args.outline_width, color: [r, g, b, 255] });
    }
    if let Some(offset) = &args.shadow_offset {
        let (dx, dy) = offset
            .split_once(',')
            .and_then(|(x, y)| Some((x.trim().parse::<f32>().ok()?, y.trim().parse::<f32>().ok()?)))
            .ok_or_else(|| format!("--shadow-offset `{offset}` is not DX,DY"))?;
        let [r, g, b] = args.shadow_color;
        e.shadow = Some(kerf_cache::Shadow {
            offset: (dx, dy),
            blur: args.shadow_blur,
            color: [r, g, b, 255],
        });
    }
    e.layers().map_err(|err| format!("--outline-width/--shadow-*: {err}"))?;
    Ok(e)
}

/// `--variations`: axis tags and values.
fn parse_variations(s: &str) -> Result<Vec<(kerf_cache::fonts::Tag, f32)>, String> {
    let mut out = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (tag, value) =
            part.split_once('=').ok_or_else(|| format!("`{part}` is not TAG=VALUE"))?;
        let tag: kerf_cache::fonts::Tag = tag
            .as_bytes()
            .try_into()
            .ok()
            .filter(|t: &[u8; 4]| t.iter().all(|b| (0x20..0x7f).contains(b)))
            .ok_or_else(|| format!("axis tag `{tag}` is not four ASCII characters"))?;
        let value: f32 = value.parse().map_err(|_| format!("`{value}` is not a number"))?;
        if !value.is_finite() {
            return Err(format!("axis {} value must be finite", kerf_cache::fonts::tag_name(tag)));
        }
        out.push((tag, value));
    }
    Ok(out)
}

/// `on` or `off`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OnOff {
    /// Enabled.
    On,
    /// Disabled.
    Off,
}

/// `--lcd`: the display's stripe order, or grayscale.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Lcd {
    /// Red, green, blue stripes.
    Rgb,
    /// Blue, green, red stripes.
    Bgr,
    /// Grayscale anti-aliasing.
    Off,
}

impl Lcd {
    fn antialiasing(self) -> Antialiasing {
        match self {
            Lcd::Rgb => Antialiasing::Lcd(SubpixelOrder::Rgb),
            Lcd::Bgr => Antialiasing::Lcd(SubpixelOrder::Bgr),
            Lcd::Off => Antialiasing::Grayscale,
        }
    }
}

fn parse_rgb(s: &str) -> Result<[u8; 3], String> {
    let s = s.trim_start_matches('#');
    let v = (s.len() == 6)
        .then(|| u32::from_str_radix(s, 16).ok())
        .flatten()
        .ok_or_else(|| format!("`{s}` is not RRGGBB"))?;
    Ok([(v >> 16) as u8, (v >> 8) as u8, v as u8])
}

/// One drawn glyph, as `--json` prints it.
#[derive(Serialize, Debug)]
struct GlyphOut {
    /// The font as given on the command line, or `dejavu-sans`.
    font: String,
    /// Glyph id in that font.
    glyph: u16,
    /// Pen position on the baseline, image pixels, before any snapping.
    x: f32,
    y: f32,
    /// Size in pixels.
    size: f32,
    /// True for a colour glyph (none yet: no colour rasterizer).
    color: bool,
}

#[derive(Serialize, Debug)]
struct Report {
    width: u32,
    height: u32,
    missing: usize,
    missing_code_points: Vec<u32>,
    /// Whether outlines were hinted.
    hinting: OnOff,
    /// The LCD setting asked for.
    lcd: Lcd,
    /// Why LCD text was drawn in grayscale instead (only with --png and --lcd rgb|bgr).
    #[serde(skip_serializing_if = "Option::is_none")]
    lcd_fallback: Option<String>,
    /// The weight asked, italic or not, and the axis values asked.
    weight: u16,
    italic: bool,
    variations: Vec<(String, f32)>,
    /// Axes of --variations that no font has (ignored).
    ignored_axes: Vec<String>,
    glyphs: Vec<GlyphOut>,
}

/// Loads the fonts into a cosmic-text database: each kept face and the name
/// it is reported under. The first font's family is the one asked for.
fn load_fonts(
    specs: &[String],
) -> Result<(fontdb::Database, HashMap<fontdb::ID, String>, String), String> {
    let mut db = fontdb::Database::new();
    let mut names = HashMap::new();
    let sources: Vec<(String, Vec<u8>, u32)> = if specs.is_empty() {
        vec![("dejavu-sans".to_string(), dejavu::sans::regular().to_vec(), 0)]
    } else {
        specs
            .iter()
            .map(|spec| {
                // FILE:INDEX when the suffix is a number and FILE exists.
                let (file, index) = match spec.rsplit_once(':') {
                    Some((f, i))
                        if i.parse::<u32>().is_ok() && std::path::Path::new(f).exists() =>
                    {
                        (f, i.parse().unwrap_or(0))
                    }
                    _ => (spec.as_str(), 0),
                };
                let bytes = std::fs::read(file).map_err(|e| format!("{file}: {e}"))?;
                Ok((spec.clone(), bytes, index))
            })
            .collect::<Result<_, String>>()?
    };
    let mut family = None;
    for (name, bytes, index) in sources {
        // The cache's own parser checks the bytes first: a damaged file is an error here.
        kerf_cache::fonts::Font::from_bytes(bytes.clone(), index)
            .map_err(|e| format!("{name}: {e}"))?;
        let ids = db.load_font_source(fontdb::Source::Binary(Arc::new(bytes)));
        let keep = *ids
            .get(index as usize)
            .ok_or_else(|| format!("{name}: no face {index} ({} faces)", ids.len()))?;
        for &id in ids.iter().filter(|&&id| id != keep) {
            db.remove_face(id);
        }
        if family.is_none() {
            family = db.face(keep).and_then(|f| f.families.first()).map(|f| f.0.clone());
        }
        names.insert(keep, name);
    }
    Ok((db, names, family.ok_or("the first font has no family name")?))
}

/// Runs `kerf render`.
pub fn run(args: &RenderArgs) -> Result<(), String> {
    if !(args.size.is_finite() && args.size > 0.0 && args.size <= MAX_SIZE) {
        return Err(format!("--size {} must be in (0, {MAX_SIZE}]", args.size));
    }
    if args.width.is_some_and(|w| !(w.is_finite() && w > 0.0)) {
        return Err("--width must be a positive number".into());
    }
    // Checked before any work, so a bad setting is an error even without --png.
    if !(1..=1000).contains(&args.weight) {
        return Err(format!("--weight {} must be in 1..=1000", args.weight));
    }
    let variations = parse_variations(args.variations.as_deref().unwrap_or(""))
        .map_err(|e| format!("--variations: {e}"))?;
    let effects = effects(args)?;
    let margin = margin(&effects);
    config(args).validate().map_err(|e| format!("--subpixel-bins: {e}"))?;
    correction(args).validate().map_err(|e| format!("--gamma/--contrast: {e}"))?;
    let text = match (&args.text, &args.text_file) {
        (Some(t), _) => t.clone(),
        (None, Some(f)) => {
            std::fs::read_to_string(f).map_err(|e| format!("{}: {e}", f.display()))?
        }
        (None, None) => return Err("give --text STR or --text-file FILE".into()),
    };
    let (db, names, family) = load_fonts(&args.fonts)?;
    let mut font_system = FontSystem::new_with_locale_and_db("en-US".into(), db);
    let mut buffer =
        Buffer::new(&mut font_system, Metrics::new(args.size, (args.size * 1.25).ceil()));
    buffer.set_size(args.width, None);
    let style = if args.italic { Style::Italic } else { Style::Normal };
    // cosmic-text shapes with the weight (a variable font's advances): a
    // `wght` in --variations is that weight too.
    let wght = variations.iter().find(|(t, _)| t == b"wght").map(|v| v.1.clamp(1.0, 1000.0));
    let weight = wght.map_or(args.weight, |w| w.round() as u16);
    let mut attrs = Attrs::new().family(Family::Name(&family)).weight(Weight(weight)).style(style);
    if args.underline {
        attrs = attrs.underline(UnderlineStyle::Single);
    }
    if args.strikethrough {
        attrs = attrs.strikethrough();
    }
    buffer.set_text(&text, &attrs, Shaping::Advanced, None);
    buffer.shape_until_scroll(&mut font_system, false);
    // Axes no loaded font has: ignored, said on stderr and in --json.
    let axes = kerf_cache::FontStyle { variations: variations.clone(), ..Default::default() };
    let mut ignored_axes: Vec<kerf_cache::fonts::Tag> = variations.iter().map(|v| v.0).collect();
    for face in font_system.db().faces() {
        let lacks = font_system
            .db()
            .with_face_data(face.id, |data, index| {
                kerf_cache::fonts::Instance::resolve(data, index, &axes)
            })
            .and_then(Result::ok)
            .map(|r| r.ignored_axes);
        ignored_axes.retain(|t| lacks.as_ref().is_none_or(|l| l.contains(t)));
    }
    for tag in &ignored_axes {
        eprintln!(
            "kerf render: no font has the axis `{}`: ignored",
            kerf_cache::fonts::tag_name(*tag)
        );
    }

    // Size of the text, and what no font covers (.notdef drawn, reported).
    let (mut w, mut h) = (0.0f32, 0.0f32);
    let mut missing = Vec::new();
    let mut report_glyphs = Vec::new();
    // Which glyphs are colour glyphs (drawn from the colour pages), per face.
    let mut colour: HashMap<fontdb::ID, Option<ColorGlyphs>> = HashMap::new();
    for run in buffer.layout_runs() {
        w = w.max(run.line_w);
        h = h.max(run.line_top + run.line_height);
        for g in run.glyphs {
            if g.glyph_id == 0 {
                missing.extend(run.text.get(g.start..g.end).unwrap_or("").chars().map(u32::from));
            }
            let (x, y) = CosmicFonts::pen(&run, g, (margin, margin));
            let face = match colour.entry(g.font_id) {
                std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::hash_map::Entry::Vacant(e) => {
                    let glyphs = font_system.db().with_face_data(g.font_id, ColorGlyphs::of);
                    e.insert(glyphs.transpose().map_err(|e| e.to_string())?.flatten())
                }
            };
            let color = face.as_ref().is_some_and(|c| c.contains(g.glyph_id));
            report_glyphs.push(GlyphOut {
                font: names.get(&g.font_id).cloned().unwrap_or_default(),
                glyph: g.glyph_id,
                x,
                y,
                size: g.font_size,
                color,
            });
        }
    }
    let (width, height) =
        ((w + 2.0 * margin).ceil().max(1.0) as u32, (h + 2.0 * margin).ceil().max(1.0) as u32);

    let mut lcd_fallback = None;
    if let Some(path) = &args.png {
        let look = Look { variations: variations.clone(), effects, margin };
        let (pixels, fallback) = draw(&font_system, &buffer, args, &look, width, height)?;
        if let Some(reason) = fallback {
            eprintln!("kerf render: --lcd drawn in grayscale ({reason:?})");
            lcd_fallback = Some(format!("{reason:?}"));
        }
        let file = std::io::BufWriter::new(
            std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?,
        );
        let mut enc = png::Encoder::new(file, width, height);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        enc.write_header()
            .and_then(|mut w| w.write_image_data(&pixels))
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let report = Report {
        width,
        height,
        missing: missing.len(),
        missing_code_points: missing,
        hinting: args.hinting,
        lcd: args.lcd,
        lcd_fallback,
        weight: args.weight,
        italic: args.italic,
        variations: variations.iter().map(|(t, v)| (kerf_cache::fonts::tag_name(*t), *v)).collect(),
        ignored_axes: ignored_axes.iter().map(|t| kerf_cache::fonts::tag_name(*t)).collect(),
        glyphs: report_glyphs,
    };
    if args.json {
        out!("{}", serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?);
    } else {
        out!(
            "{} glyphs, {}x{} px, {} missing{}",
            report.glyphs.len(),
            width,
            height,
            report.missing,
            args.png.as_ref().map_or(String::new(), |p| format!(", wrote {}", p.display()))
        );
    }
    Ok(())
}

/// Draws the buffer through kerf-wgpu on a `width × height` sRGB target;
/// the pixels, and why LCD text was drawn in grayscale if it was.
/// What the text looks like beyond its attributes: axis values, effects,
/// and the margin they leave around it.
struct Look {
    variations: Vec<(kerf_cache::fonts::Tag, f32)>,
    effects: kerf_cache::Effects,
    margin: f32,
}

fn draw(
    font_system: &FontSystem, buffer: &Buffer, args: &RenderArgs, look: &Look, width: u32,
    height: u32,
) -> Result<(Vec<u8>, Option<kerf_wgpu::GrayscaleReason>), String> {
    let gpu = kerf_wgpu::headless().map_err(|e| e.to_string())?;
    let (device, queue) = (&gpu.device, &gpu.queue);
    let mut atlas = match args.hinting {
        OnOff::On => TextAtlas::with_rasterizer(
            device,
            config(args),
            Box::new(kerf_cache::rasterize::SwashRasterizer::new().hinting(true)),
        ),
        OnOff::Off => TextAtlas::new(device, config(args)),
    }
    .map_err(|e| e.to_string())?;
    let format = wgpu::TextureFormat::Rgba8UnormSrgb;
    let mut renderer =
        TextRenderer::new(device, &atlas, format, wgpu::MultisampleState::default(), None);
    let unavailable = renderer.set_antialiasing(device, &atlas, args.lcd.antialiasing());
    let mut viewport = Viewport::new(device, &atlas);
    viewport.update(queue, width, height);
    viewport.set_correction(queue, correction(args)).map_err(|e| e.to_string())?;
    let margin = look.margin;
    let mut fonts = CosmicFonts::new().variations(&look.variations);
    let mut glyphs = Vec::new();
    let [r, g, b] = args.color;
    fonts
        .glyphs(
            atlas.cache_mut(),
            font_system,
            buffer,
            (margin, margin),
            [r, g, b, 255],
            &mut glyphs,
        )
        .map_err(|e| e.to_string())?;
    let mut decorations = Vec::new();
    CosmicFonts::decorations(buffer, (margin, margin), [r, g, b, 255], &mut decorations);
    let mut area = TextArea::glyphs(&glyphs, 0.0, 0.0).with_decorations(&decorations);
    area.effects = look.effects;
    let report = renderer
        .prepare(device, queue, &mut atlas, &[area], &viewport)
        .map_err(|e| e.to_string())?;
    let fallback = unavailable.or(report.lcd_fallbacks.first().map(|f| f.1));
    let target = Offscreen::new(device, width, height, format).map_err(|e| e.to_string())?;
    let bg = args.background.map(|c| kerf_wgpu::srgb_to_linear(c as f32 / 255.0) as f64);
    let mut encoder = device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("kerf render") });
    {
        let mut pass =
            target.pass(&mut encoder, wgpu::Color { r: bg[0], g: bg[1], b: bg[2], a: 1.0 });
        renderer.render(&atlas, &mut pass).map_err(|e| e.to_string())?;
    }
    queue.submit([encoder.finish()]);
    Ok((target.read(device, queue).map_err(|e| e.to_string())?, fallback))
}

/// The largest `--size`: glyphs larger than a page are drawn in tiles, up to
/// this many pixels per em.
const MAX_SIZE: f32 = 4096.0;

fn config(args: &RenderArgs) -> CacheConfig {
    CacheConfig {
        page_size: 1024,
        // Room for a few glyphs at MAX_SIZE (16 tiles of a page each).
        max_pages: 64,
        max_glyph_px: MAX_SIZE,
        subpixel_bins: args.subpixel_bins,
        ..CacheConfig::default()
    }
}

fn correction(args: &RenderArgs) -> TextCorrection {
    TextCorrection { gamma: args.gamma, contrast: args.contrast }
}
