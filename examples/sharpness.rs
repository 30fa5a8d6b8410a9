//! Side-by-side pictures of kerf's text at small sizes: sub-pixel bins 1 vs 4,
//! the gamma/contrast correction (dark-on-light and light-on-dark), grayscale
//! vs LCD anti-aliasing, and hinting off vs on.
//!
//! `cargo run --release --example sharpness --features swash [-- OUT_DIR]`
//! writes `sharp-bins.png`, `sharp-gamma.png`, `sharp-lcd.png` and
//! `sharp-hinting.png` (default directory `docs/`; the last needs the `swash`
//! feature), each enlarged without filtering so single pixels stay visible.

use kerf::gpu::{
    headless, srgb_to_linear, wgpu, Antialiasing, CacheConfig, Offscreen, SubpixelOrder, TextArea,
    TextAtlas, TextCorrection, TextRenderer, TextSpec, Viewport,
};

const PANEL_W: u32 = 420;
/// Enlargement of every sheet but the LCD one (which shows stripes at 3×).
const ZOOM: u32 = 2;
const TEXT: &str =
    "Hamburgefonstiv illiterate minimum 1111 — The quick brown fox jumps over the lazy dog.";

struct Panel {
    label: String,
    size: f32,
    bins: u32,
    correction: TextCorrection,
    fg: [u8; 4],
    bg: [u8; 4],
    antialiasing: Antialiasing,
    /// Rasterize with swash, hinted or not (`None`: fontdue, the default).
    swash: Option<bool>,
}

impl Panel {
    /// Black on paper, 4 bins, the default correction, grayscale, unhinted.
    fn plain(label: String, size: f32) -> Panel {
        Panel {
            label,
            size,
            bins: 4,
            correction: TextCorrection::DEFAULT,
            fg: [20, 20, 20, 255],
            bg: [250, 250, 245, 255],
            antialiasing: Antialiasing::Grayscale,
            swash: None,
        }
    }
}

fn render_panel(
    gpu: &kerf::gpu::HeadlessGpu, p: &Panel, h: u32,
) -> Result<Vec<u8>, Box<dyn std::error::Error>> {
    let (device, queue) = (&gpu.device, &gpu.queue);
    let config = CacheConfig { page_size: 512, subpixel_bins: p.bins, ..CacheConfig::default() };
    let mut atlas = match p.swash {
        Some(hinting) => swash_atlas(device, config, hinting)?,
        None => TextAtlas::new(device, config)?,
    };
    let font = atlas.add_font(dejavu::sans::regular().to_vec())?;
    let format = wgpu::TextureFormat::Rgba8UnormSrgb;
    let mut renderer = TextRenderer::new(device, &atlas, format, Default::default(), None);
    if let Some(reason) = renderer.set_antialiasing(device, &atlas, p.antialiasing) {
        eprintln!("{}: drawn in grayscale ({reason:?})", p.label);
    }
    let mut viewport = Viewport::new(device, &atlas);
    viewport.update(queue, PANEL_W, h);
    viewport.set_correction(queue, p.correction)?;
    let label_color = [p.fg[0], p.fg[1], p.fg[2], 170];
    let label = TextSpec::new(&p.label, font, 11.0).color(label_color);
    let body = TextSpec::new(TEXT, font, p.size).color(p.fg).wrap(PANEL_W as f32 - 12.0);
    let areas = [TextArea::text(label, 6.0, 3.0), TextArea::text(body, 6.0, 19.0)];
    renderer.prepare(device, queue, &mut atlas, &areas, &viewport)?;
    let target = Offscreen::new(device, PANEL_W, h, format)?;
    let mut encoder = device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("sharpness panel") });
    {
        let lin = |c: u8| srgb_to_linear(c as f32 / 255.0) as f64;
        let bg = wgpu::Color { r: lin(p.bg[0]), g: lin(p.bg[1]), b: lin(p.bg[2]), a: 1.0 };
        let mut pass = target.pass(&mut encoder, bg);
        renderer.render(&atlas, &mut pass)?;
    }
    queue.submit([encoder.finish()]);
    Ok(target.read(device, queue)?)
}

/// Lays panels out in `cols` columns and writes them enlarged to `path`.
fn sheet(
    gpu: &kerf::gpu::HeadlessGpu, panels: &[(Panel, u32)], cols: usize, zoom: u32,
    path: &std::path::Path,
) -> Result<(), Box<dyn std::error::Error>> {
    let rows: Vec<&[(Panel, u32)]> = panels.chunks(cols).collect();
    let row_h: Vec<u32> =
        rows.iter().map(|r| r.iter().map(|(_, h)| *h).max().unwrap_or(0)).collect();
    let (w, h) = (PANEL_W * cols as u32, row_h.iter().sum::<u32>());
    let mut img = vec![255u8; (w * h * 4) as usize];
    let mut y0 = 0;
    for (r, row) in rows.iter().enumerate() {
        for (c, (panel, ph)) in row.iter().enumerate() {
            let px = render_panel(gpu, panel, *ph)?;
            for y in 0..*ph {
                let src = &px[(y * PANEL_W * 4) as usize..((y + 1) * PANEL_W * 4) as usize];
                let at = (((y0 + y) * w + c as u32 * PANEL_W) * 4) as usize;
                img[at..at + src.len()].copy_from_slice(src);
            }
        }
        y0 += row_h[r];
    }
    let (zw, zh) = (w * zoom, h * zoom);
    let mut big = vec![0u8; (zw * zh * 4) as usize];
    for y in 0..zh {
        for x in 0..zw {
            let s = (((y / zoom) * w + x / zoom) * 4) as usize;
            let d = ((y * zw + x) * 4) as usize;
            big[d..d + 4].copy_from_slice(&img[s..s + 4]);
        }
    }
    let file = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut enc = png::Encoder::new(file, zw, zh);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    enc.write_header()?.write_image_data(&big)?;
    println!("wrote {} ({zw}x{zh})", path.display());
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::path::PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "docs".into()));
    let gpu = headless()?;
    println!("adapter: {} ({:?})", gpu.info.name, gpu.info.backend);
    let (ink, paper) = ([20, 20, 20, 255], [250, 250, 245, 255]);
    let neutral = TextCorrection::NEUTRAL;
    let mut panels = Vec::new();
    for size in [10.0, 12.0, 14.0, 18.0] {
        for bins in [1, 4] {
            let label = format!(
                "{size} px, {bins} sub-pixel bin{}",
                if bins == 1 { " (whole pixels)" } else { "s" }
            );
            panels.push((
                Panel {
                    bins,
                    correction: neutral,
                    fg: ink,
                    bg: paper,
                    ..Panel::plain(label, size)
                },
                if size < 15.0 { 64 } else { 84 },
            ));
        }
    }
    sheet(&gpu, &panels, 2, ZOOM, &dir.join("sharp-bins.png"))?;

    let strong = TextCorrection { gamma: 2.2, contrast: 0.5 };
    let mut panels = Vec::new();
    for (name, c) in [
        ("neutral (gamma 1, contrast 0)", neutral),
        ("default (gamma 1.4, contrast 0.2)", TextCorrection::DEFAULT),
        ("strong (gamma 2.2, contrast 0.5)", strong),
    ] {
        for (fg, bg) in [(ink, paper), ([235, 235, 230, 255], [24, 26, 30, 255])] {
            panels.push((
                Panel { correction: c, fg, bg, ..Panel::plain(format!("12 px, {name}"), 12.0) },
                64,
            ));
        }
    }
    sheet(&gpu, &panels, 2, ZOOM, &dir.join("sharp-gamma.png"))?;

    let mut panels = Vec::new();
    for size in [10.0, 12.0, 14.0, 18.0] {
        for (name, aa) in [
            ("grayscale", Antialiasing::Grayscale),
            ("LCD, RGB stripes", Antialiasing::Lcd(SubpixelOrder::Rgb)),
        ] {
            panels.push((
                Panel { antialiasing: aa, ..Panel::plain(format!("{size} px, {name}"), size) },
                if size < 15.0 { 64 } else { 84 },
            ));
        }
    }
    sheet(&gpu, &panels, 2, 3, &dir.join("sharp-lcd.png"))?;

    if cfg!(feature = "swash") {
        let mut panels = Vec::new();
        for size in [9.0, 10.0, 11.0, 12.0, 13.0, 14.0] {
            for hinting in [false, true] {
                let label =
                    format!("{size} px, swash, hinting {}", if hinting { "on" } else { "off" });
                panels.push((
                    Panel { swash: Some(hinting), ..Panel::plain(label, size) },
                    if size < 12.0 { 56 } else { 64 },
                ));
            }
        }
        sheet(&gpu, &panels, 2, ZOOM, &dir.join("sharp-hinting.png"))?;
    } else {
        println!("sharp-hinting.png needs --features swash");
    }
    Ok(())
}

/// An atlas rasterizing with swash.
#[cfg(feature = "swash")]
fn swash_atlas(
    device: &wgpu::Device, config: CacheConfig, hinting: bool,
) -> Result<TextAtlas, Box<dyn std::error::Error>> {
    Ok(TextAtlas::with_rasterizer(
        device,
        config,
        Box::new(kerf::cache::rasterize::SwashRasterizer::new().hinting(hinting)),
    )?)
}

#[cfg(not(feature = "swash"))]
fn swash_atlas(
    _: &wgpu::Device, _: CacheConfig, _: bool,
) -> Result<TextAtlas, Box<dyn std::error::Error>> {
    Err("swash pictures need the swash feature".into())
}
