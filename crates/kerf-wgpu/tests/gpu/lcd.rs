//! LCD anti-aliasing on a real device: the stripe order, and the areas drawn in grayscale.

use super::*;

/// Draws "lIl" in black on white at 24 px, x at a quarter pixel, with
/// `antialiasing`, on a linear RGBA target without correction; returns the
/// picture, the renderer's report and the atlas.
fn draw_lcd_stems(
    gpu: &HeadlessGpu, antialiasing: Antialiasing, area: impl Fn(TextArea<'_>) -> TextArea<'_>,
) -> (Vec<u8>, PrepareReport, TextAtlas, Option<GrayscaleReason>, Vec<GlyphInstance>) {
    let (device, queue) = (&gpu.device, &gpu.queue);
    let mut atlas = TextAtlas::new(
        device,
        CacheConfig { page_size: 256, max_pages: 2, ..CacheConfig::default() },
    )
    .unwrap();
    let font = atlas.add_font(sans()).unwrap();
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let mut renderer =
        TextRenderer::new(device, &atlas, format, wgpu::MultisampleState::default(), None);
    let unavailable = renderer.set_antialiasing(device, &atlas, antialiasing);
    assert_eq!(renderer.antialiasing(), antialiasing);
    let mut viewport = Viewport::new(device, &atlas);
    viewport.update(queue, 64, 40);
    viewport.set_correction(queue, TextCorrection::NEUTRAL).unwrap();
    let g = atlas.cache().fonts().get(font).unwrap().glyph_index('l');
    let i = atlas.cache().fonts().get(font).unwrap().glyph_index('I');
    let glyphs: Vec<PositionedGlyph> = [(g, 8.25), (i, 24.6), (g, 40.0)]
        .iter()
        .map(|&(glyph, x)| PositionedGlyph {
            font,
            glyph,
            size: 24.0,
            x,
            y: 30.0,
            color: [0, 0, 0, 255],
        })
        .collect();
    let report = renderer
        .prepare(device, queue, &mut atlas, &[area(TextArea::glyphs(&glyphs, 0.0, 0.0))], &viewport)
        .unwrap();
    let target = Offscreen::new(device, 64, 40, format).unwrap();
    let img = draw_and_read(device, queue, &renderer, &atlas, &target, wgpu::Color::WHITE);
    (img, report, atlas, unavailable, renderer.instances().to_vec())
}

/// LCD text on a device with dual-source blending: every channel of every
/// pixel is white minus its own stripe's coverage (red the left third for
/// RGB, the right third for BGR), so a stem's left edge is reddish for RGB
/// and bluish for BGR; the same text on a device without the feature, or
/// over a transparent background, is grayscale and reported.
#[test]
fn lcd_channels_follow_the_stripe_order_and_fall_back_to_grayscale() {
    let gpu = headless().unwrap_or_else(|e| panic!("{e}"));
    assert!(
        gpu.device.features().contains(wgpu::Features::DUAL_SOURCE_BLENDING),
        "adapter {:?} lacks dual-source blending; lavapipe (mesa-vulkan-drivers) has it",
        gpu.info.name
    );
    let (w, h) = (64usize, 40usize);
    let mut edges = Vec::new();
    for order in [SubpixelOrder::Rgb, SubpixelOrder::Bgr] {
        let (img, report, atlas, unavailable, instances) =
            draw_lcd_stems(&gpu, Antialiasing::Lcd(order), |a| a);
        assert_eq!(unavailable, None);
        assert!(report.lcd_fallbacks.is_empty(), "{:?}", report.lcd_fallbacks);
        assert!(report.skipped.is_empty());
        assert_eq!(report.draws, 1, "LCD text is one draw");
        // The CPU picture from the cache's pages: each LCD quad's pixel takes
        // its three texels as the channels' coverage.
        let mut want = vec![255u8; w * h * 4];
        let cache = atlas.cache();
        let mut quads = 0;
        for q in &instances {
            assert_eq!(
                q.page & kerf_wgpu::LCD_PAGE_BIT,
                kerf_wgpu::LCD_PAGE_BIT,
                "24 px glyphs are LCD"
            );
            quads += 1;
            let page = &cache.pages()[(q.page & !kerf_wgpu::LCD_PAGE_BIT) as usize];
            let side = page.side() as usize;
            for row in 0..q.height as usize {
                for px in 0..q.width as usize / 3 {
                    let t = |k: usize| {
                        page.pixels()
                            [(q.tex_y as usize + row) * side + q.tex_x as usize + 3 * px + k]
                            as f32
                            / 255.0
                    };
                    let cov = match order {
                        SubpixelOrder::Rgb => [t(0), t(1), t(2)],
                        SubpixelOrder::Bgr => [t(2), t(1), t(0)],
                    };
                    let (x, y) = (q.x as usize + px, q.y as usize + row);
                    for c in 0..3 {
                        let d = &mut want[(y * w + x) * 4 + c];
                        *d = (*d as f32 * (1.0 - cov[c])).round() as u8;
                    }
                }
            }
        }
        assert_eq!(quads, 3);
        let worst = img
            .iter()
            .zip(&want)
            .enumerate()
            .filter(|(i, _)| i % 4 != 3)
            .map(|(_, (a, b))| (*a as i32 - *b as i32).abs())
            .max()
            .unwrap();
        assert!(
            worst <= 2,
            "{order:?}: a channel is off by {worst}/255 from the stripes' coverage"
        );
        // The first stem's left edge: the first column with ink in the middle row.
        let row = h / 2 + 2;
        let x = (0..w).find(|&x| img[(row * w + x) * 4 + 1] < 250).expect("ink");
        let px = &img[(row * w + x) * 4..][..3];
        edges.push((px[0] as i32, px[2] as i32));
    }
    // Black on white: a channel is brighter where its stripe sees less ink.
    // At a stem's left edge the left stripe sees least: red for RGB, blue for BGR.
    let ((r_rgb, b_rgb), (r_bgr, b_bgr)) = (edges[0], edges[1]);
    assert!(r_rgb > b_rgb + 20, "RGB: left edge red {r_rgb} vs blue {b_rgb}");
    assert!(b_bgr > r_bgr + 20, "BGR: left edge blue {b_bgr} vs red {r_bgr}");

    // Without dual-source blending: grayscale, said in the report.
    let plain = headless_with(wgpu::Features::empty()).unwrap_or_else(|e| panic!("{e}"));
    assert!(!plain.device.features().contains(wgpu::Features::DUAL_SOURCE_BLENDING));
    let (img, report, _, unavailable, _) =
        draw_lcd_stems(&plain, Antialiasing::Lcd(SubpixelOrder::Rgb), |a| a);
    assert_eq!(unavailable, Some(GrayscaleReason::NoDualSourceBlending));
    assert_eq!(report.lcd_fallbacks, vec![(0, GrayscaleReason::NoDualSourceBlending)]);
    assert_grayscale(&img, "no dual-source blending");
    // Over a transparent background: grayscale too.
    let (img, report, _, _, _) =
        draw_lcd_stems(&gpu, Antialiasing::Lcd(SubpixelOrder::Rgb), |a| a.over_transparent());
    assert_eq!(report.lcd_fallbacks, vec![(0, GrayscaleReason::TransparentBackground)]);
    assert_grayscale(&img, "transparent background");
}

fn assert_grayscale(img: &[u8], what: &str) {
    assert!(img.chunks(4).any(|p| p[0] < 128), "{what}: text drawn");
    for p in img.chunks(4) {
        assert!(p[0] == p[1] && p[1] == p[2], "{what}: pixel {p:?} is not gray");
    }
}

/// A string with fallback fonts through the renderer: a character no font
/// has is drawn (the first font's missing-glyph box) and listed in the report.
#[test]
fn characters_no_font_has_are_reported_by_prepare() {
    let (device, queue) = gpu();
    let mut atlas =
        TextAtlas::new(&device, CacheConfig { page_size: 256, ..CacheConfig::default() }).unwrap();
    let sans_font = atlas.add_font(sans()).unwrap();
    let mono = atlas.add_font(dejavu::sans_mono::regular().to_vec()).unwrap();
    let fallback = [mono];
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let mut r = TextRenderer::new(&device, &atlas, format, Default::default(), None);
    let mut vp = Viewport::new(&device, &atlas);
    vp.update(&queue, 200, 40);
    let spec = TextSpec::new("ok \u{E000}!", sans_font, 16.0).fallback(&fallback);
    let rep =
        r.prepare(&device, &queue, &mut atlas, &[TextArea::text(spec, 2.0, 2.0)], &vp).unwrap();
    assert_eq!(rep.missing, vec!['\u{E000}']);
    assert_eq!(rep.instances, 4, "o, k, the missing box and '!' drawn");
    assert!(rep.skipped.is_empty());
    // Transformed text is laid out the same way and reported the same way.
    let turned =
        TextArea::text(spec, 2.0, 2.0).transformed(TextTransform::rotation_about(0.3, 20.0, 10.0));
    let rep = r.prepare(&device, &queue, &mut atlas, &[turned], &vp).unwrap();
    assert_eq!(rep.missing, vec!['\u{E000}'], "transformed text reports what no font has");
    assert_eq!(rep.outlines, 4, "o, k, the missing box and '!' drawn from outlines, transformed");
    assert!(rep.skipped.is_empty());
}
