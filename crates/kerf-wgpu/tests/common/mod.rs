//! Helpers shared by the GPU test files (each file uses some of them).
#![allow(dead_code)]

use kerf_cache::rasterize::{FontdueRasterizer, Rasterizer};
use kerf_wgpu::*;

pub fn gpu() -> (wgpu::Device, wgpu::Queue) {
    headless_device().unwrap_or_else(|e| panic!("{e}"))
}

/// A device like WebGL2's in one respect: no storage buffers in any shader
/// stage (the adapter's other limits), so kerf falls back to uniform
/// correction tables and dirty-rectangle uploads.
pub fn gpu_without_storage_buffers() -> (wgpu::Device, wgpu::Queue) {
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default()))
        .unwrap_or_else(|e| panic!("{}", NoAdapter(e.to_string())));
    let limits = wgpu::Limits {
        max_storage_buffers_per_shader_stage: 0,
        max_storage_buffer_binding_size: 0,
        ..adapter.limits()
    };
    let desc = wgpu::DeviceDescriptor { required_limits: limits, ..Default::default() };
    block_on(adapter.request_device(&desc)).expect("a device with fewer limits")
}

pub fn sans() -> Vec<u8> {
    dejavu::sans::regular().to_vec()
}

/// A renderer into a plain RGBA8 target: no multisampling, no depth.
pub fn rgba_renderer(device: &wgpu::Device, atlas: &TextAtlas) -> TextRenderer {
    TextRenderer::new(device, atlas, wgpu::TextureFormat::Rgba8Unorm, Default::default(), None)
}

/// Reads back every layer of the atlas texture.
pub fn read_layers(device: &wgpu::Device, queue: &wgpu::Queue, atlas: &TextAtlas) -> Vec<Vec<u8>> {
    let side = atlas.cache().page_side() as usize;
    let bytes = read_texture(device, queue, atlas.texture()).unwrap();
    bytes.chunks(side * side).map(<[u8]>::to_vec).collect()
}

/// Every page the cache holds equals the GPU layer (where pages keep CPU
/// copies); every live glyph equals a fresh rasterization of its key
/// (sub-pixel offset included).
pub fn check_atlas(device: &wgpu::Device, queue: &wgpu::Queue, atlas: &TextAtlas) {
    let layers = read_layers(device, queue, atlas);
    let cache = atlas.cache();
    assert!(layers.len() >= cache.pages().len());
    let side = cache.page_side() as usize;
    for (k, e) in cache.entries() {
        if e.is_blank() {
            continue;
        }
        let img = cache.rasterize_key(k).unwrap();
        let w = img.width as usize;
        let layer = &layers[e.page as usize];
        for row in 0..img.height as usize {
            let at = (e.y as usize + row) * side + e.x as usize;
            assert_eq!(
                &layer[at..at + w],
                &img.pixels[row * w..][..w],
                "{k:?} row {row} on the GPU"
            );
        }
    }
    for (i, page) in cache.pages().iter().enumerate().filter(|(_, p)| p.has_copy()) {
        assert!(layers[i] == page.pixels(), "layer {i} differs from the cache's page");
    }
    check_color_layers(device, queue, atlas);
}

/// The colour texture's layers equal the cache's colour pages (nothing to
/// check while the cache has none).
pub fn check_color_layers(device: &wgpu::Device, queue: &wgpu::Queue, atlas: &TextAtlas) {
    let Some(set) = atlas.cache().color_pages() else { return };
    let layers = read_texture(device, queue, atlas.color_texture()).unwrap();
    let page_bytes = (set.page_side() * set.page_side() * 4) as usize;
    for (i, page) in set.pages().iter().enumerate().filter(|(_, p)| p.has_copy()) {
        assert!(
            &layers[i * page_bytes..][..page_bytes] == page.pixels(),
            "colour layer {i} differs from the cache's page"
        );
    }
}

/// A small deterministic xorshift generator.
pub struct Rng(pub u64);

impl Rng {
    /// A number in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// The coverage image of `glyphs` (white on black, each drawn at its pen
/// position with whole-pixel pens), from a fresh rasterization of each glyph's
/// key: what a linear target shows when the glyphs are drawn with
/// [`TextCorrection::NEUTRAL`]. Glyphs must not overlap.
pub fn expected_coverage(
    cache: &GlyphCache, glyphs: &[PositionedGlyph], w: u32, h: u32,
) -> Vec<u8> {
    let mut img = vec![0u8; (w * h) as usize];
    for g in glyphs {
        let size = kerf_cache::GlyphSize::from_px(g.size, cache.config().max_glyph_px).unwrap();
        let (whole, sub) = kerf_cache::rasterize::snap_subpixel(g.x, cache.config().subpixel_bins);
        let key = kerf_cache::GlyphKey {
            mode: cache.render_mode(),
            subpixel_x: sub,
            ..kerf_cache::GlyphKey::new(g.font, g.glyph, size)
        };
        let r = FontdueRasterizer.rasterize(cache.font_ref(g.font).unwrap(), &key).unwrap();
        let x0 = whole + r.left;
        let y0 = g.y.round() as i32 - (r.bottom + r.height as i32);
        for row in 0..r.height as i32 {
            for col in 0..r.width as i32 {
                let (x, y) = (x0 + col, y0 + row);
                if x >= 0 && y >= 0 && x < w as i32 && y < h as i32 {
                    img[(y as u32 * w + x as u32) as usize] =
                        r.pixels[(row * r.width as i32 + col) as usize];
                }
            }
        }
    }
    img
}

/// A test icon for image sources: a diamond whose shading depends on `id`, `size` px square.
pub fn diamond(id: u32, size: f32) -> GlyphImage {
    let n = size.round().max(1.0) as i32;
    let c = n / 2;
    let pixels = (0..n * n)
        .map(|i| {
            let (x, y) = (i % n - c, i / n - c);
            if x.abs() + y.abs() <= c {
                (40 + (id as i32 * 53 + i) % 216) as u8
            } else {
                0
            }
        })
        .collect();
    GlyphImage { width: n as u32, height: n as u32, left: 0, bottom: 0, pixels }
}

/// Linear light to sRGB-encoded (0..1).
pub fn linear_to_srgb(c: f32) -> f32 {
    if c <= 0.0031308 {
        c * 12.92
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    }
}

/// Records `renderer` into one pass on `target` cleared to `clear`, submits,
/// and reads the target back.
pub fn draw_and_read(
    device: &wgpu::Device, queue: &wgpu::Queue, renderer: &TextRenderer, atlas: &TextAtlas,
    target: &Offscreen, clear: wgpu::Color,
) -> Vec<u8> {
    let mut enc = device.create_command_encoder(&Default::default());
    {
        let mut pass = target.pass(&mut enc, clear);
        renderer.render(atlas, &mut pass).unwrap();
    }
    queue.submit([enc.finish()]);
    target.read(device, queue).unwrap()
}

/// Column-major 4×4 product `a · b`.
pub fn mat_mul(a: [[f32; 4]; 4], b: [[f32; 4]; 4]) -> [[f32; 4]; 4] {
    let mut m = [[0.0; 4]; 4];
    for (c, col) in m.iter_mut().enumerate() {
        for (r, v) in col.iter_mut().enumerate() {
            *v = (0..4).map(|k| a[k][r] * b[c][k]).sum();
        }
    }
    m
}

/// The 3×3 homography from area pixels `(x, y, 1)` to homogeneous target pixels.
pub fn area_to_target(t: &TextTransform, w: f32, h: f32) -> [[f64; 3]; 3] {
    match *t {
        TextTransform::Affine([a, b, c, d, e, f]) => {
            [[a, c, e], [b, d, f], [0.0, 0.0, 1.0]].map(|r| r.map(f64::from))
        }
        TextTransform::Matrix { matrix: m, .. } => {
            // Rows x, y, w of the matrix, columns x, y and translation (z = 0).
            let hm = [
                [m[0][0], m[1][0], m[3][0]],
                [m[0][1], m[1][1], m[3][1]],
                [m[0][3], m[1][3], m[3][3]],
            ];
            let s = [[w / 2.0, 0.0, w / 2.0], [0.0, -h / 2.0, h / 2.0], [0.0, 0.0, 1.0]];
            std::array::from_fn(|r| {
                std::array::from_fn(|c| (0..3).map(|k| s[r][k] as f64 * hm[k][c] as f64).sum())
            })
        }
    }
}

/// The inverse of a 3×3 matrix.
pub fn invert3(m: [[f64; 3]; 3]) -> [[f64; 3]; 3] {
    let det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
        - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
        + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    std::array::from_fn(|r| {
        std::array::from_fn(|c| {
            let (r1, r2) = ((c + 1) % 3, (c + 2) % 3);
            let (c1, c2) = ((r + 1) % 3, (r + 2) % 3);
            (m[r1][c1] * m[r2][c2] - m[r1][c2] * m[r2][c1]) / det
        })
    })
}
