//! Shared by tests that look at what the quads draw: a CPU composite of
//! quads from the cache's pages, as the GPU draws them.
#![allow(dead_code)]

use kerf_cache::*;

/// Composites quads onto a `w × h` coverage canvas from the cache's pages
/// (what the GPU draws: texel for pixel, coverage added and clamped).
pub fn composite(c: &GlyphCache, quads: &[GlyphQuad], w: usize, h: usize) -> Vec<f32> {
    let mut canvas = vec![0f32; w * h];
    for q in quads {
        let page = &c.pages()[q.page as usize];
        let side = page.side() as usize;
        for row in 0..q.height as usize {
            for col in 0..q.width as usize {
                let (x, y) = (q.x + col as i32, q.y + row as i32);
                assert!(
                    x >= 0 && y >= 0 && (x as usize) < w && (y as usize) < h,
                    "quad {q:?} leaves the canvas"
                );
                let v = page.pixels()[(q.tex_y as usize + row) * side + q.tex_x as usize + col]
                    as f32
                    / 255.0;
                let d = &mut canvas[y as usize * w + x as usize];
                *d = (*d + v).min(1.0);
            }
        }
    }
    canvas
}
