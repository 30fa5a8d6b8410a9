//! Pictures of a packing: SVG (from kerf-pack) and PNG.

use kerf_pack::{palette, Packer};
use std::io::BufWriter;
use std::path::Path;

/// Writes the packer's state as an RGB PNG, one pixel per bin pixel:
/// allocations in distinct colours, free rects outlined in green.
pub fn write_png(packer: &dyn Packer, path: &Path) -> Result<(), String> {
    let (w, h) = packer.size();
    let (wu, hu) = (w as usize, h as usize);
    let bytes = wu.checked_mul(hu).and_then(|n| n.checked_mul(3)).filter(|&n| n <= 1 << 30);
    let Some(bytes) = bytes else {
        return Err(format!("a {w}x{h} picture is too large to draw"));
    };
    let mut img = vec![0x20u8; bytes];
    let mut put = |x: u32, y: u32, c: (u8, u8, u8)| {
        let i = (y as usize * wu + x as usize) * 3;
        img[i..i + 3].copy_from_slice(&[c.0, c.1, c.2]);
    };
    for a in packer.iter() {
        let c = palette(a.id.index());
        for y in a.rect.y..a.rect.bottom() {
            for x in a.rect.x..a.rect.right() {
                put(x, y, c);
            }
        }
    }
    let green = (0x60, 0xe0, 0x60);
    for f in packer.free_rects() {
        for x in f.x..f.right() {
            put(x, f.y, green);
            put(x, f.bottom() - 1, green);
        }
        for y in f.y..f.bottom() {
            put(f.x, y, green);
            put(f.right() - 1, y, green);
        }
    }
    let file = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut enc = png::Encoder::new(BufWriter::new(file), w, h);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    let mut writer = enc.write_header().map_err(|e| format!("{}: {e}", path.display()))?;
    writer.write_image_data(&img).map_err(|e| format!("{}: {e}", path.display()))
}

/// Writes the packer's state as SVG.
pub fn write_svg(packer: &dyn Packer, path: &Path) -> Result<(), String> {
    std::fs::write(path, kerf_pack::dump_svg(packer))
        .map_err(|e| format!("{}: {e}", path.display()))
}
