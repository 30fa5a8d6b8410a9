use kerf::gpu::{
    headless, wgpu, CacheConfig, Offscreen, TextArea, TextAtlas, TextRenderer, TextSpec,
    TextTransform, Viewport,
};
fn rss_kb() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap();
    s.lines()
        .find(|l| l.starts_with("VmRSS"))
        .unwrap()
        .split_whitespace()
        .nth(1)
        .unwrap()
        .parse()
        .unwrap()
}
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rotate = std::env::args().nth(1).map_or(true, |a| a == "rot");
    let frames: u32 = std::env::args().nth(2).map_or(1000, |a| a.parse().unwrap());
    let gpu = headless()?;
    let (device, queue) = (&gpu.device, &gpu.queue);
    let mut atlas = TextAtlas::new(device, CacheConfig::default())?;
    let sans = atlas.add_font(dejavu::sans::regular().to_vec())?;
    let format = wgpu::TextureFormat::Rgba8UnormSrgb;
    let mut renderer =
        TextRenderer::new(device, &atlas, format, wgpu::MultisampleState::default(), None);
    let mut viewport = Viewport::new(device, &atlas);
    viewport.update(queue, 1000, 720);
    let target = Offscreen::new(device, 1000, 720, format)?;
    let mut t0 = std::time::Instant::now();
    for f in 0..frames {
        if f == 100 {
            t0 = std::time::Instant::now();
        }
        let mut a = TextArea::text(TextSpec::new("A rotated title", sans, 40.0), 100.0, 100.0);
        if rotate {
            a = a.transformed(TextTransform::rotation_about(0.35, 300.0, 120.0));
        }
        let b = TextArea::text(TextSpec::new("plain body text", sans, 16.0), 100.0, 300.0);
        let areas = if std::env::var("ONLYROT").is_ok() { vec![a] } else { vec![a, b] };
        renderer.prepare(device, queue, &mut atlas, &areas, &viewport)?;
        if std::env::var("NORENDER").is_ok() {
            if f % 200 == 0 {
                println!("frame {f}: rss {} len {}", rss_kb(), atlas.cache().len());
            }
            continue;
        }
        let mut enc = device.create_command_encoder(&Default::default());
        {
            let mut pass = target.pass(&mut enc, wgpu::Color::WHITE);
            if std::env::var("NODRAW").is_err() {
                renderer.render(&atlas, &mut pass)?;
            }
        }
        queue.submit([enc.finish()]);
        device.poll(wgpu::PollType::wait_indefinitely()).ok();
        if f % 200 == 0 {
            let r = gpu.instance.generate_report().unwrap();
            println!("frame {f}: rss {} KB report {:?}", rss_kb(), r.hub);
        }
    }
    println!(
        "mean frame after 100: {:.3} ms, rss {} KB",
        t0.elapsed().as_secs_f64() * 1e3 / (frames - 100) as f64,
        rss_kb()
    );
    Ok(())
}
