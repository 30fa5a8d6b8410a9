//! Renders a multi-size, multi-script paragraph to a PNG with no window, on
//! whatever adapter exists (a GPU, or lavapipe: `apt-get install mesa-vulkan-drivers`).
//!
//! `cargo run --release --example headless [-- OUT.png]` (default `out.png`).

use kerf::gpu::{
    headless, wgpu, CacheConfig, Offscreen, TextArea, TextAtlas, TextRenderer, TextSpec, Viewport,
};
use std::time::Instant;

const W: u32 = 960;
const H: u32 = 700;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out_path = std::env::args().nth(1).unwrap_or_else(|| "out.png".into());
    let gpu = headless()?;
    let (device, queue) = (&gpu.device, &gpu.queue);
    println!("adapter: {} ({:?}, {:?})", gpu.info.name, gpu.info.backend, gpu.info.device_type);

    let mut atlas = TextAtlas::new(
        device,
        CacheConfig { page_size: 512, max_pages: 4, ..CacheConfig::default() },
    )?;
    let sans = atlas.add_font(dejavu::sans::regular().to_vec())?;
    let serif = atlas.add_font(dejavu::serif::regular().to_vec())?;
    let bold = atlas.add_font(dejavu::sans::bold().to_vec())?;
    let mono = atlas.add_font(dejavu::sans_mono::regular().to_vec())?;

    let paragraphs = [
        (bold, 34.0, [20, 30, 90, 255], "kerf — a GPU glyph cache"),
        (sans, 17.0, [30, 30, 30, 255], "MaxRects packing with real deallocation, LRU eviction that frees space, and one texture upload per dirty page per frame. The quick brown fox jumps over the lazy dog."),
        (serif, 21.0, [60, 20, 20, 255], "Ἐν ἀρχῇ ἦν ὁ λόγος — Съешь же ещё этих мягких французских булок, да выпей чаю."),
        (sans, 13.0, [40, 40, 40, 255], "Ærøskøbing · Łódź · Kraków · Ça va très bien, merci ! · Größenwahn · Iñtërnâtiônàlizætiøn · ½ ⅓ ¼ ⅛ · ∀x∈ℝ: x² ≥ 0 · → ⇒ ⇔"),
        (serif, 28.0, [10, 90, 40, 255], "Ճշմարտություն · ქართული ენა · Հայերեն"),
        (mono, 15.0, [120, 40, 120, 255], "fn main() { println!(\"{}\", 0xDEAD_BEEFu32); } // sizes 11 to 34 px"),
        (sans, 11.0, [80, 80, 80, 255], "Small print at 11 px: every glyph here was rasterized once, packed by kerf-pack, and drawn from a texture-array layer."),
    ];
    let mut areas = Vec::new();
    let mut y = 20.0;
    for (font, size, color, text) in paragraphs {
        areas.push(TextArea::text(
            TextSpec::new(text, font, size).color(color).wrap(W as f32 - 60.0),
            30.0,
            y,
        ));
        let lines = (text.chars().count() as f32 * size * 0.6 / (W as f32 - 60.0)).ceil().max(1.0);
        y += lines * size * 1.25 + 16.0;
    }
    // A size ramp: one glyph run per size, each size its own cache entries.
    let ramp: Vec<(f32, String)> =
        [9.0f32, 10.5, 12.0, 14.0, 16.0, 19.0, 22.0, 26.0, 31.0, 37.0, 44.0]
            .iter()
            .map(|&s| (s, format!("{s} px Aa Ωω Жж")))
            .collect();
    for (size, text) in &ramp {
        areas.push(TextArea::text(
            TextSpec::new(text, sans, *size).color([30, 30, 30, 255]),
            30.0,
            y,
        ));
        y += size * 1.2 + 2.0;
    }

    let format = wgpu::TextureFormat::Rgba8UnormSrgb;
    let mut renderer =
        TextRenderer::new(device, &atlas, format, wgpu::MultisampleState::default(), None);
    let mut viewport = Viewport::new(device, &atlas);
    viewport.update(queue, W, H);

    let t = Instant::now();
    let cold = renderer.prepare(device, queue, &mut atlas, &areas, &viewport)?;
    let cold_ns = t.elapsed().as_nanos() as f64;
    let t = Instant::now();
    let warm = renderer.prepare(device, queue, &mut atlas, &areas, &viewport)?;
    let warm_ns = t.elapsed().as_nanos() as f64;

    let target = Offscreen::new(device, W, H, format)?;
    let mut encoder = device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("headless frame") });
    {
        let mut pass = target.pass(&mut encoder, wgpu::Color { r: 0.93, g: 0.92, b: 0.88, a: 1.0 });
        renderer.render(&atlas, &mut pass)?;
    }
    queue.submit([encoder.finish()]);
    let pixels = target.read(device, queue)?;

    let file = std::io::BufWriter::new(std::fs::File::create(&out_path)?);
    let mut enc = png::Encoder::new(file, W, H);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    enc.write_header()?.write_image_data(&pixels)?;

    let stats = atlas.cache().stats();
    println!("wrote {out_path} ({W}x{H})");
    println!(
        "glyphs drawn: {}, cached glyphs: {}, pages: {}, occupancy: {}",
        warm.instances,
        atlas.cache().len(),
        atlas.cache().pages().len(),
        atlas
            .cache()
            .pages()
            .iter()
            .map(|p| format!("{:.1}%", p.occupancy() * 100.0))
            .collect::<Vec<_>>()
            .join(" ")
    );
    println!(
        "cold prepare: {:.1} µs ({:.0} ns/glyph), {} upload calls, {} bytes; warm prepare: {:.1} µs ({:.0} ns/glyph), {} uploads",
        cold_ns / 1e3,
        cold_ns / cold.counts.lookups.max(1) as f64,
        cold.upload_calls,
        cold.upload_bytes,
        warm_ns / 1e3,
        warm_ns / warm.counts.lookups.max(1) as f64,
        warm.upload_calls
    );
    println!(
        "cache: {} lookups, {} hits, {} rasterized, {} skipped",
        stats.lookups, stats.hits, stats.rasterized, stats.skipped
    );
    Ok(())
}
