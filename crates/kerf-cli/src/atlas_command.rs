//! `kerf atlas`: build the glyph cache for a text and draw its pages.

use kerf_cache::{pages::Page, CacheConfig, GlyphCache, TextSpec};
use serde::Serialize;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

const DEFAULT_TEXT: &str = "The quick brown fox jumps over the lazy dog. 0123456789\n\
Ärger über façade, naïve crème brûlée — Łódź, Kraków, smörgåsbord.\n\
Λόγος και γλυφή: αλφάβητο ΑΒΓΔΕΖΗΘ. Шрифт и текст: съешь же ещё этих мягких французских булок.\n\
(x+y)² ≤ 3 → ∞ ≠ 0 € £ ¥ § ¶ † ‡ • … ‰ ™ © ®";

/// Arguments of `kerf atlas`.
#[derive(clap::Args, Debug)]
pub struct AtlasArgs {
    /// Font file (TrueType/OpenType); default: the embedded DejaVu Sans.
    /// Repeat it for fallback fonts, in order; colour glyphs (emoji) go to
    /// the colour pages, written as OUT-color-<n>.png.
    #[arg(long = "font", value_name = "FILE")]
    pub font: Vec<PathBuf>,
    /// The text to cache (default: a multi-script sample).
    #[arg(long, conflicts_with = "text_file")]
    pub text: Option<String>,
    /// Read the text from a UTF-8 file.
    #[arg(long, value_name = "FILE")]
    pub text_file: Option<PathBuf>,
    /// Sizes in px, comma-separated.
    #[arg(long, default_value = "12,16,24", value_delimiter = ',')]
    pub sizes: Vec<f32>,
    /// Page side in texels.
    #[arg(long, default_value_t = 512)]
    pub page_size: u32,
    /// Most pages.
    #[arg(long, default_value_t = 8)]
    pub pages: u32,
    /// Packer of every page (see `kerf pack --help`).
    #[arg(long, default_value = "maxrects-bssf", value_parser = crate::pack::parse_algorithm)]
    pub algo: kerf_cache::Algorithm,
    /// Write the pages as PNG: OUT for one page, OUT-<n>.png for several.
    #[arg(long, value_name = "OUT")]
    pub png: Option<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize)]
struct AtlasReport {
    pages: usize,
    page_size: u32,
    glyphs: usize,
    occupancy: Vec<f64>,
    skipped: usize,
    /// Colour pages (emoji), and the colour glyphs on them.
    color_pages: usize,
    color_glyphs: usize,
    files: Vec<String>,
    algorithm: String,
}

/// Runs `kerf atlas`.
pub fn run(args: &AtlasArgs) -> Result<(), String> {
    let text = match (&args.text, &args.text_file) {
        (Some(t), _) => t.clone(),
        (None, Some(p)) => {
            std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?
        }
        (None, None) => DEFAULT_TEXT.to_string(),
    };
    let mut cache = GlyphCache::new(CacheConfig {
        page_size: args.page_size,
        max_pages: args.pages,
        memory_budget: u64::MAX,
        algorithm: args.algo,
        ..CacheConfig::default()
    })
    .map_err(|e| e.to_string())?;
    let mut fonts = Vec::new();
    for p in &args.font {
        fonts.push(crate::corpus::load_font_file(&mut cache, p)?);
    }
    if fonts.is_empty() {
        fonts.push(cache.add_font(dejavu::sans::regular().to_vec()).map_err(|e| e.to_string())?);
    }
    let (font, fallback) = (fonts[0], &fonts[1..]);
    let mut quads = Vec::new();
    let mut frame = cache.begin_frame();
    let mut y = 0.0;
    for &px in &args.sizes {
        let spec = TextSpec::new(&text, font, px).at(0.0, y).wrap(1600.0).fallback(fallback);
        frame.layout(&spec, &mut quads).map_err(|e| format!("size {px}: {e}"))?;
        y += px * 8.0;
    }
    let out = frame.finish();
    let mut files = Vec::new();
    if let Some(png) = &args.png {
        let n = cache.pages().len();
        for (i, page) in cache.pages().iter().enumerate() {
            let path = if n == 1 { png.clone() } else { numbered(png, i) };
            write_page(page, &path)?;
            files.push(path.display().to_string());
        }
        for (i, page) in cache.color_pages().map_or(&[][..], |c| c.pages()).iter().enumerate() {
            let path = numbered(png, format_args!("color-{i}"));
            write_color_page(page, &path)?;
            files.push(path.display().to_string());
        }
    }
    let report = AtlasReport {
        pages: cache.pages().len(),
        page_size: cache.page_side(),
        glyphs: cache.pages().iter().map(|p| p.glyphs()).sum(),
        occupancy: cache.pages().iter().map(|p| p.occupancy()).collect(),
        skipped: out.skipped.len(),
        color_pages: cache.color_pages().map_or(0, |c| c.pages().len()),
        color_glyphs: cache.color_pages().map_or(0, |c| c.pages().iter().map(|p| p.glyphs()).sum()),
        files,
        algorithm: args.algo.to_string(),
    };
    if args.json {
        out!("{}", serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?);
    } else {
        out!(
            "{} pages of {}x{} ({}), {} glyphs, {} skipped",
            report.pages,
            report.page_size,
            report.page_size,
            report.algorithm,
            report.glyphs,
            report.skipped
        );
        for (i, o) in report.occupancy.iter().enumerate() {
            out!("page {i}: occupancy {:.2}%", o * 100.0);
        }
        for f in &report.files {
            out!("wrote {f}");
        }
        for s in out.skipped.iter().take(5) {
            out!("skipped glyph #{}: {}", s.index, s.reason);
        }
    }
    Ok(())
}

/// A colour page (straight sRGB RGBA) over the coverage pages' dark blue.
fn write_color_page(page: &Page, path: &Path) -> Result<(), String> {
    let bg = [0x10u32, 0x14, 0x30];
    let img: Vec<u8> = page
        .pixels()
        .chunks_exact(4)
        .flat_map(|p| {
            let a = p[3] as u32;
            [0, 1, 2].map(|c| ((p[c] as u32 * a + bg[c] * (255 - a)) / 255) as u8)
        })
        .collect();
    write_rgb(path, page.side(), &img)
}

/// OUT-<label>.png beside OUT (label: a page number, or `color-<n>`).
fn numbered(path: &Path, label: impl std::fmt::Display) -> PathBuf {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "atlas".into());
    path.with_file_name(format!("{stem}-{label}.png"))
}

/// Coverage in white on dark blue, free rectangles outlined in green.
fn write_page(page: &Page, path: &Path) -> Result<(), String> {
    let side = page.side() as usize;
    let mut img = Vec::with_capacity(side * side * 3);
    for &c in page.pixels() {
        let c = c as u32;
        img.extend_from_slice(&[
            (0x10 + (c * 0xef) / 255) as u8,
            (0x14 + (c * 0xeb) / 255) as u8,
            (0x30 + (c * 0xcf) / 255) as u8,
        ]);
    }
    let mut put = |x: u32, y: u32| {
        let i = (y as usize * side + x as usize) * 3;
        img[i..i + 3].copy_from_slice(&[0x40, 0xc0, 0x40]);
    };
    for f in page.free_rects() {
        for x in f.x..f.right() {
            put(x, f.y);
            put(x, f.bottom() - 1);
        }
        for y in f.y..f.bottom() {
            put(f.x, y);
            put(f.right() - 1, y);
        }
    }
    write_rgb(path, page.side(), &img)
}

/// Writes a `side × side` RGB picture as PNG.
fn write_rgb(path: &Path, side: u32, img: &[u8]) -> Result<(), String> {
    let file = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut enc = png::Encoder::new(BufWriter::new(file), side, side);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    let mut writer = enc.write_header().map_err(|e| format!("{}: {e}", path.display()))?;
    writer.write_image_data(img).map_err(|e| format!("{}: {e}", path.display()))
}
