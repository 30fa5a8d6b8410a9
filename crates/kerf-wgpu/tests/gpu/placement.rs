//! Where glyphs land, against a reference kerf did not make: each glyph
//! rasterized by fontdue directly, placed at the pen the test chose plus the
//! area's offset (fontdue's own bearings), composited on the CPU.

use super::*;
use kerf_cache::PositionedGlyph;

/// Glyphs well apart (no two quads overlap), pens on whole pixels.
const TEXT: &str = "Kerf@gy|Q";
const SIZE: f32 = 16.0;
const W: u32 = 256;
const H: u32 = 96;

/// What a linear target shows for white glyphs on black with the neutral
/// correction: fontdue's coverage at each pen plus `offset`, rounded as
/// whole-pixel snapping rounds.
fn reference(font: &fontdue::Font, pens: &[(u16, f32, f32)], offset: (f32, f32)) -> Vec<u8> {
    let mut img = vec![0u8; (W * H) as usize];
    for &(glyph, x, y) in pens {
        let (m, bitmap) = font.rasterize_indexed(glyph, SIZE);
        let x0 = (x + offset.0).round() as i32 + m.xmin;
        let y0 = (y + offset.1).round() as i32 - (m.ymin + m.height as i32);
        for row in 0..m.height as i32 {
            for col in 0..m.width as i32 {
                let (px, py) = (x0 + col, y0 + row);
                assert!(px >= 0 && py >= 0 && px < W as i32 && py < H as i32, "inside the target");
                img[(py as u32 * W + px as u32) as usize] =
                    bitmap[(row * m.width as i32 + col) as usize];
            }
        }
    }
    img
}

/// Areas of shaped glyphs (`TextArea::glyphs`, the path every shaper adapter
/// takes) at whole-pixel offsets (the glyphs go to the cache unmoved and the
/// quads move after), at fractional ones and at the origin: every glyph's
/// ink where fontdue puts it, to within its rasterizer's rounding.
#[test]
fn shaped_glyphs_land_at_their_pens_plus_the_area_offset() {
    let (device, queue) = gpu();
    let cfg = CacheConfig { subpixel_bins: 1, ..CacheConfig::default() };
    let mut atlas = TextAtlas::new(&device, cfg).unwrap();
    let font = atlas.add_font(sans()).unwrap();
    let reference_font =
        fontdue::Font::from_bytes(dejavu::sans::regular(), fontdue::FontSettings::default())
            .unwrap();
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let mut r = TextRenderer::new(&device, &atlas, format, Default::default(), None);
    let mut vp = Viewport::new(&device, &atlas);
    vp.update(&queue, W, H);
    vp.set_correction(&queue, TextCorrection::NEUTRAL).unwrap();
    let target = Offscreen::new(&device, W, H, format).unwrap();
    let pens: Vec<(u16, f32, f32)> = TEXT
        .chars()
        .enumerate()
        .map(|(i, ch)| (reference_font.lookup_glyph_index(ch), 4.0 + 22.0 * i as f32, 24.0))
        .collect();
    let glyphs: Vec<PositionedGlyph> = pens
        .iter()
        .map(|&(glyph, x, y)| PositionedGlyph { font, glyph, size: SIZE, x, y, color: [255; 4] })
        .collect();
    // The same run twice in a row at each offset: the second prepare is
    // drawn from the retained run, which must move with the area too.
    // (12.75, 40.0) and (0.0, 12.75): one coordinate whole, the other
    // rounding up, so an area taken as whole by one coordinate alone (the
    // other truncated) lands a pixel off.
    let offsets = [
        (0.0, 0.0),
        (37.0, 23.0),
        (1.0, 0.0),
        (0.0, 1.0),
        (12.25, 40.25),
        (12.75, 40.0),
        (0.0, 12.75),
        (37.0, 23.0),
    ];
    for offset in offsets {
        for pass in 0..2 {
            let area = TextArea::glyphs(&glyphs, offset.0, offset.1);
            let rep = r.prepare(&device, &queue, &mut atlas, &[area], &vp).unwrap();
            assert!(rep.skipped.is_empty(), "{:?}", rep.skipped);
            let px = draw_and_read(&device, &queue, &r, &atlas, &target, wgpu::Color::BLACK);
            let expect = reference(&reference_font, &pens, offset);
            let (mut worst, mut at, mut ink) = (0i32, (0, 0), 0u64);
            for (i, &e) in expect.iter().enumerate() {
                ink += e as u64;
                let d = (px[i * 4] as i32 - e as i32).abs();
                if d > worst {
                    (worst, at) = (d, (i as u32 % W, i as u32 / W));
                }
            }
            assert!(ink > 255 * 200, "the reference has ink");
            assert!(
                worst <= 12,
                "offset {offset:?} (prepare {pass}): pixel {at:?} differs from fontdue's by {worst}"
            );
        }
    }
}
