//! Shaped text through kerf: a cosmic-text `Buffer` (shaping, bidi, font
//! fallback by cosmic-text) drawn with kerf-wgpu to a PNG, no window. The
//! program docs/migrating-from-glyphon.md shows beside its glyphon twin.
//!
//! `cargo run --release --example cosmic_text --features cosmic-text [-- OUT.png]`

use kerf::cache::cosmic_text::{
    fontdb, Attrs, Buffer, Color, Family, FontSystem, Metrics, Shaping,
};
use kerf::cache::{CosmicFonts, GlyphRun};
use kerf::gpu::{
    headless, wgpu, CacheConfig, Offscreen, TextArea, TextAtlas, TextRenderer, Viewport,
};

const W: u32 = 640;
const H: u32 = 160;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out_path = std::env::args().nth(1).unwrap_or_else(|| "out-cosmic.png".into());
    let gpu = headless()?;
    let (device, queue) = (&gpu.device, &gpu.queue);

    // cosmic-text: fonts, shaping and layout (here DejaVu Sans, embedded).
    let mut db = fontdb::Database::new();
    db.load_font_data(dejavu::sans::regular().to_vec());
    let mut font_system = FontSystem::new_with_locale_and_db("en-US".into(), db);
    let mut buffer = Buffer::new(&mut font_system, Metrics::new(30.0, 42.0));
    buffer.set_size(Some(W as f32 - 40.0), None);
    let text = "Hello, kerf! office AVATAR\nمرحبا بالعالم · שלום עולם";
    buffer.set_text(
        text,
        &Attrs::new().family(Family::Name("DejaVu Sans")),
        Shaping::Advanced,
        None,
    );
    buffer.shape_until_scroll(&mut font_system, false);

    // kerf: one atlas, one renderer, one viewport.
    let mut atlas =
        TextAtlas::new(device, CacheConfig { page_size: 512, ..CacheConfig::default() })?;
    let format = wgpu::TextureFormat::Rgba8UnormSrgb;
    let mut renderer =
        TextRenderer::new(device, &atlas, format, wgpu::MultisampleState::default(), None);
    let mut viewport = Viewport::new(device, &atlas);
    viewport.update(queue, W, H);

    // When the buffer is shaped (here once; again after any change to its
    // text, size or metrics): its glyphs, fonts loaded on first sight, kept
    // beside the buffer as a run (shared, never changed: a renderer knows it
    // again without reading it).
    let mut fonts = CosmicFonts::new();
    let mut glyphs = Vec::new();
    let default_color = Color::rgb(20, 30, 80);
    let color = [default_color.r(), default_color.g(), default_color.b(), default_color.a()];
    fonts.glyphs(atlas.cache_mut(), &font_system, &buffer, (0.0, 0.0), color, &mut glyphs)?;
    let run = GlyphRun::new(glyphs);

    // Per frame: prepare the kept glyphs where the area is, then render.
    let report = renderer.prepare(
        device,
        queue,
        &mut atlas,
        &[TextArea::run(&run, 20.0, 20.0)],
        &viewport,
    )?;

    let target = Offscreen::new(device, W, H, format)?;
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("cosmic-text frame"),
    });
    {
        let mut pass = target.pass(&mut encoder, wgpu::Color { r: 0.93, g: 0.92, b: 0.88, a: 1.0 });
        renderer.render(&atlas, &mut pass)?;
    }
    queue.submit([encoder.finish()]);
    let pixels = target.read(device, queue)?;
    let file = std::io::BufWriter::new(std::fs::File::create(&out_path)?);
    let mut png = png::Encoder::new(file, W, H);
    png.set_color(png::ColorType::Rgba);
    png.set_depth(png::BitDepth::Eight);
    png.write_header()?.write_image_data(&pixels)?;
    println!(
        "wrote {out_path}: {} glyphs shaped by cosmic-text, {} drawn, {} skipped",
        run.len(),
        report.instances,
        report.skipped.len()
    );
    Ok(())
}
