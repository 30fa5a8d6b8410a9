//! The glyph instance the vertex shader reads (`shaders/text.wgsl`'s
//! `Instance`): a cache quad with its page and flags packed into one layer
//! word, and the write of only the items of a buffer that changed since the last
//! frame (instances, and the transformed areas' quads and transforms).

use kerf_cache::{GlyphQuad, QuadFlags, COLOR_PAGE_BIT};

/// Set in a [`GlyphInstance::page`] when its texels are an LCD raster (three
/// per pixel); `common.wgsl`'s `LCD_PAGE_BIT`.
pub const LCD_PAGE_BIT: u32 = 1 << 29;

/// Set in a [`GlyphInstance::page`] when it is a solid rectangle (a
/// decoration, [`QuadFlags::SOLID`]): its size is pixels, every one reading
/// the texel at its tex corner; `common.wgsl`'s `SOLID_PAGE_BIT`.
pub const SOLID_PAGE_BIT: u32 = 1 << 28;

/// One glyph as the vertex shader reads it (one instance per glyph): where
/// on the target, where in the atlas, which colour. 24 bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct GlyphInstance {
    /// Top-left corner on the target, whole pixels.
    pub x: i32,
    /// Top-left corner on the target, whole pixels (y down).
    pub y: i32,
    /// Left texel in the page.
    pub tex_x: u16,
    /// Top texel in the page.
    pub tex_y: u16,
    /// Width in texels.
    pub width: u16,
    /// Height in texels.
    pub height: u16,
    /// The texture layer, with [`COLOR_PAGE_BIT`] for a layer of the colour
    /// array, [`LCD_PAGE_BIT`] for an LCD raster and [`SOLID_PAGE_BIT`] for a
    /// solid rectangle.
    pub page: u32,
    /// Straight sRGB colour, RGBA.
    pub color: [u8; 4],
}

impl From<&GlyphQuad> for GlyphInstance {
    #[inline]
    fn from(q: &GlyphQuad) -> GlyphInstance {
        let mut page = q.page;
        if q.flags.contains(QuadFlags::COLOR) {
            page |= COLOR_PAGE_BIT;
        }
        if q.flags.contains(QuadFlags::LCD) {
            page |= LCD_PAGE_BIT;
        }
        if q.flags.contains(QuadFlags::SOLID) {
            page |= SOLID_PAGE_BIT;
        }
        GlyphInstance {
            x: q.x,
            y: q.y,
            tex_x: q.tex_x,
            tex_y: q.tex_y,
            width: q.width,
            height: q.height,
            page,
            color: q.color,
        }
    }
}

/// Makes `held` (what a buffer holds) the items of `new`, each as `to`
/// makes it, and returns the index range that changed: what must be
/// written to the buffer. `None` when nothing did (a shorter draw of the
/// same prefix included). The first `from` items are known to be the same
/// (where `held` has them) and are not compared.
pub(crate) fn sync<S, T: PartialEq>(
    held: &mut Vec<T>, new: &[S], from: usize, to: impl Fn(&S) -> T,
) -> Option<std::ops::Range<usize>> {
    let (mut first, mut last) = (usize::MAX, 0);
    let kept = held.len().min(new.len());
    let from = from.min(kept);
    for (i, (old, q)) in held[from..kept].iter_mut().zip(&new[from..kept]).enumerate() {
        let item = to(q);
        if *old != item {
            *old = item;
            first = first.min(from + i);
            last = from + i + 1;
        }
    }
    held.truncate(new.len());
    if new.len() > kept {
        held.extend(new[kept..].iter().map(&to));
        first = first.min(kept);
        last = new.len();
    }
    (first < last).then_some(first..last)
}

/// [`sync`]s `held` with `new` (the first `from` items known to be the
/// same) and writes what changed to `buffer`, which
/// holds `held`: nothing in a frame that writes what the last one wrote
/// (each `write_buffer` takes a staging buffer). A new buffer comes with
/// `held` emptied.
pub(crate) fn write_changed<S, T: PartialEq + bytemuck::Pod>(
    queue: &wgpu::Queue, buffer: &wgpu::Buffer, held: &mut Vec<T>, new: &[S], from: usize,
    to: impl Fn(&S) -> T,
) {
    if let Some(changed) = sync(held, new, from, to) {
        let size = std::mem::size_of::<T>() as u64;
        queue.write_buffer(
            buffer,
            changed.start as u64 * size,
            bytemuck::cast_slice(&held[changed]),
        );
    }
}

/// Set in a [`SampledQuad::page`] when its texels carry
/// [`RenderMode::Sampled`](kerf_cache::RenderMode::Sampled)'s border of
/// zeros (a glyph drawn whole, not in tiles): the quad is drawn half a texel
/// inside its rectangle on every side. Samples are clamped to the slot's
/// texel centres, so the outer half of the border reads the border texel
/// alone (zero coverage): the inset draws the same pixels with fewer
/// fragments, which a software rasterizer pays for one by one.
/// `transformed.wgsl`'s `BORDER_BIT`.
pub const BORDER_BIT: u32 = 1 << 27;

/// One area's transform as `transformed.wgsl` reads it
/// ([`TextTransform::uniform`]).
pub(crate) type TransformUniform = [u32; 20];

/// One glyph of a transformed area as the vertex shader reads it: the
/// bitmap's rectangle in area pixels (float), its texels in the atlas, its colour.
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct SampledQuad {
    /// Top-left corner, area pixels.
    pub pos: [f32; 2],
    /// Width and height, area pixels.
    pub size: [f32; 2],
    /// Left and top texel in the page.
    pub tex: [u16; 2],
    /// Width and height in texels.
    pub tex_size: [u16; 2],
    /// The page (texture array layer), with [`COLOR_PAGE_BIT`](kerf_cache::COLOR_PAGE_BIT)
    /// on colour pages and [`BORDER_BIT`] where the texels carry a border.
    pub page: u32,
    /// Straight sRGB colour, RGBA.
    pub color: [u8; 4],
    /// Its area's transform: which of the [`TRANSFORMS_PER_DRAW`] transforms
    /// its draw binds (consecutive areas share one draw, each quad naming
    /// its own area's transform).
    pub transform: u32,
}

/// The transforms one draw of transformed quads binds (a uniform array of
/// 80-byte transforms, 10 KiB: under the 16 KiB of a uniform binding that
/// every device allows). Up to this many consecutive transformed areas are
/// drawn by one draw; `transformed.wgsl`'s `TRANSFORMS_PER_DRAW`.
pub const TRANSFORMS_PER_DRAW: u32 = 128;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_changed_instances_are_written() {
        let q = |x: i32| GlyphQuad { x, ..GlyphQuad::default() };
        let quads: Vec<GlyphQuad> = (0..10).map(q).collect();
        let held = |n: usize| -> Vec<GlyphInstance> {
            quads[..n].iter().map(GlyphInstance::from).collect()
        };
        assert_eq!(sync(&mut held(10), &quads, 0, |q| GlyphInstance::from(q)), None);
        assert_eq!(sync(&mut Vec::new(), &quads, 0, |q| GlyphInstance::from(q)), Some(0..10));
        assert_eq!(sync(&mut held(10), &[], 0, |q| GlyphInstance::from(q)), None);
        let mut shorter = held(10);
        assert_eq!(
            sync(&mut shorter, &quads[..4], 0, |q| GlyphInstance::from(q)),
            None,
            "a shorter draw of the same prefix"
        );
        assert_eq!(shorter.len(), 4);
        let mut new = quads.clone();
        new[3] = q(30);
        new[6] = q(60);
        let mut h = held(10);
        assert_eq!(sync(&mut h, &new, 0, |q| GlyphInstance::from(q)), Some(3..7));
        assert_eq!(h[3].x, 30);
        new.push(q(99));
        assert_eq!(sync(&mut held(10), &new, 0, |q| GlyphInstance::from(q)), Some(3..11));
        assert_eq!(sync(&mut held(5), &quads, 0, |q| GlyphInstance::from(q)), Some(5..10));
        // The first `from` known to be the same: not compared (a change
        // there is not seen), the rest as before.
        let mut h = held(10);
        let mut new = quads.clone();
        new[1] = q(10);
        new[8] = q(80);
        assert_eq!(sync(&mut h, &new, 3, |q| GlyphInstance::from(q)), Some(8..9));
        assert_eq!(h[1].x, 1, "not compared, not written");
        assert_eq!(sync(&mut held(10), &new, 0, |q| GlyphInstance::from(q)), Some(1..9));
        // Past what is held: everything new is written.
        assert_eq!(sync(&mut held(2), &quads, 7, |q| GlyphInstance::from(q)), Some(2..10));
    }

    #[test]
    fn flags_become_layer_bits() {
        let q = GlyphQuad { page: 3, flags: QuadFlags::COLOR, ..GlyphQuad::default() };
        assert_eq!(GlyphInstance::from(&q).page, 3 | COLOR_PAGE_BIT);
        let q = GlyphQuad { page: 2, flags: QuadFlags::LCD, ..GlyphQuad::default() };
        assert_eq!(GlyphInstance::from(&q).page, 2 | LCD_PAGE_BIT);
        assert_eq!(GlyphInstance::from(&GlyphQuad { page: 7, ..q }).page & 0xffff, 7);
        assert_eq!(std::mem::size_of::<GlyphInstance>(), 24);
    }
}
