//! The same label turned 30° at 16, 300 and 2,000 px per em, drawn from
//! bitmaps (kerf's path before outlines, `OutlinePolicy::NEVER`: a raster
//! of up to 256 px sampled with filtering) and from outlines (the
//! default): docs/outlines.png. Each panel is 256 × 256 target pixels
//! around one edge of the `&`; the 16 px panel is enlarged 8× without
//! filtering so single pixels show.
//!
//! `cargo run --release --example outline_sizes [-- OUT.png]`

use kerf::gpu::{
    headless, wgpu, CacheConfig, Offscreen, OutlinePolicy, PositionedGlyph, TextArea, TextAtlas,
    TextRenderer, TextTransform, Viewport,
};

const PANEL: u32 = 256;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = std::env::args().nth(1).unwrap_or_else(|| "docs/outlines.png".into());
    let gpu = headless()?;
    let (device, queue) = (&gpu.device, &gpu.queue);
    let format = wgpu::TextureFormat::Rgba8UnormSrgb;
    let mut atlas = TextAtlas::new(device, CacheConfig::default())?;
    let font = atlas.add_font(dejavu::sans::regular().to_vec())?;
    let glyph = atlas.cache().fonts().get(font).ok_or("font")?.glyph_index('&');
    let mut viewport = Viewport::new(device, &atlas);
    viewport.update(queue, PANEL, PANEL);
    let target = Offscreen::new(device, PANEL, PANEL, format)?;
    let (w, h) = (3 * PANEL, 2 * PANEL);
    let mut sheet = vec![255u8; (w * h * 4) as usize];
    for (row, policy) in [OutlinePolicy::NEVER, OutlinePolicy::default()].into_iter().enumerate() {
        let mut renderer = TextRenderer::new(device, &atlas, format, Default::default(), None);
        renderer.set_outline_policy(policy);
        for (col, (px, zoom)) in [(16.0f32, 8u32), (300.0, 1), (2000.0, 1)].into_iter().enumerate()
        {
            // The panel shows 256 / zoom target pixels about a point on the
            // `&`'s lower bowl (0.25 em right of the pen, 0.1 em up).
            let span = PANEL as f32 / zoom as f32;
            let (cx, cy) = (span / 2.0, span / 2.0);
            let pen = (cx - 0.25 * px, cy + 0.1 * px);
            let g = PositionedGlyph {
                font,
                glyph,
                size: px,
                x: pen.0,
                y: pen.1,
                color: [0, 0, 0, 255],
            };
            let glyphs = [g];
            let area = TextArea::glyphs(&glyphs, 0.0, 0.0)
                .transformed(TextTransform::rotation_about(30f32.to_radians(), cx, cy));
            renderer.prepare(device, queue, &mut atlas, &[area], &viewport)?;
            let mut enc = device.create_command_encoder(&Default::default());
            {
                let mut pass = target.pass(&mut enc, wgpu::Color::WHITE);
                renderer.render(&atlas, &mut pass)?;
            }
            queue.submit([enc.finish()]);
            let pixels = target.read(device, queue)?;
            for y in 0..PANEL {
                for x in 0..PANEL {
                    let (sx, sy) = (x / zoom, y / zoom);
                    let from = ((sy * PANEL + sx) * 4) as usize;
                    let to = (((row as u32 * PANEL + y) * w + col as u32 * PANEL + x) * 4) as usize;
                    sheet[to..to + 4].copy_from_slice(&pixels[from..from + 4]);
                }
            }
        }
    }
    // A grey rule between the panels.
    for y in 0..h {
        for x in 0..w {
            if x % PANEL == 0 || y % PANEL == 0 {
                let i = ((y * w + x) * 4) as usize;
                sheet[i..i + 3].copy_from_slice(&[160, 160, 160]);
            }
        }
    }
    let file = std::io::BufWriter::new(std::fs::File::create(&out)?);
    let mut enc = png::Encoder::new(file, w, h);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    enc.write_header()?.write_image_data(&sheet)?;
    println!(
        "wrote {out}: rows bitmaps, outlines; columns 16 px (8×), 300 px, 2,000 px, turned 30°"
    );
    Ok(())
}
