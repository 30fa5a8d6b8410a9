//! What the demo draws besides the shaped band: the scrolling document
//! (random prose in several fonts and sizes) and the icons, drawn on demand
//! as coverage or RGBA images.

use kerf::gpu::GlyphImage;

/// One line of the document: which font, size relative to the base, colour, text.
pub(crate) struct Line {
    pub(crate) font: usize,
    pub(crate) scale: f32,
    pub(crate) color: [u8; 4],
    pub(crate) text: String,
}

pub(crate) fn document() -> Vec<Line> {
    const WORDS: &[&str] = &[
        "glyph",
        "cache",
        "atlas",
        "texture",
        "packing",
        "evict",
        "frame",
        "render",
        "quick",
        "brown",
        "fox",
        "lazy",
        "dog",
        "Ärger",
        "façade",
        "naïve",
        "Łódź",
        "smörgåsbord",
        "Ørsted",
        "λόγος",
        "γλυφή",
        "κείμενο",
        "ψυχή",
        "текст",
        "шрифт",
        "ёжик",
        "щука",
        "Հայերեն",
        "ქართული",
        "1234567890",
        "(x+y)²",
        "≤≥≠",
        "→⇒",
        "€£¥",
        "«quoted»",
        "Iñtërnâtiônàl",
    ];
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    let mut lines = Vec::new();
    for section in 0..300 {
        // Sections change size, so new glyphs keep arriving and old ones get evicted.
        let body = [1.0, 0.85, 1.25, 1.1, 1.5, 0.95, 1.35][section % 7];
        let title: Vec<&str> = (0..4).map(|_| WORDS[next(WORDS.len())]).collect();
        let heading = 1.6 + (section % 5) as f32 * 0.25;
        lines.push(Line {
            font: 2,
            scale: heading,
            color: [20, 30, 90, 255],
            text: format!("{}. {}", section + 1, title.join(" ")),
        });
        for p in 0..6 {
            let words: Vec<&str> = (0..11).map(|_| WORDS[next(WORDS.len())]).collect();
            let (font, scale, color) = match p {
                4 => (3, body * 0.9, [120, 30, 120, 255]),
                5 => (1, body * 1.15, [90, 30, 20, 255]),
                _ => (0, body, [25, 25, 25, 255]),
            };
            lines.push(Line { font, scale, color, text: words.join(" ") });
        }
    }
    lines
}

/// The same shapes in colour (an RGBA image source): each shape's coverage
/// as alpha over a two-colour gradient.
pub(crate) fn color_icon(id: u32, size: f32) -> Result<GlyphImage, String> {
    let mono = icon(id, size)?;
    let n = mono.width.max(1);
    let palette = [
        [220, 60, 40],
        [240, 170, 20],
        [40, 150, 220],
        [120, 60, 200],
        [30, 170, 90],
        [230, 80, 150],
        [250, 200, 40],
    ];
    let (a, b) = (palette[id as usize % 7], palette[(id as usize + 3) % 7]);
    let mut pixels = Vec::with_capacity(mono.pixels.len() * 4);
    for (i, &cov) in mono.pixels.iter().enumerate() {
        let t = (i as u32 / n) as f32 / n as f32;
        let mix = |c: usize| (a[c] as f32 * (1.0 - t) + b[c] as f32 * t).round() as u8;
        pixels.extend_from_slice(&[mix(0), mix(1), mix(2), cov]);
    }
    Ok(GlyphImage { pixels, ..mono })
}

/// The demo's icons, drawn on demand at any size: anti-aliased shapes from
/// signed distances (circle, ring, square, triangle, diamond, plus, star).
pub(crate) fn icon(id: u32, size: f32) -> Result<GlyphImage, String> {
    let n = size.round().clamp(1.0, 512.0) as u32;
    let r = n as f32 / 2.0;
    let pixels = (0..n * n)
        .map(|i| {
            let (x, y) = (((i % n) as f32 + 0.5 - r) / r, ((i / n) as f32 + 0.5 - r) / r);
            let len = (x * x + y * y).sqrt();
            // Signed distance in units of the half size: negative inside.
            let d = match id % 7 {
                0 => len - 0.85,
                1 => (len - 0.7).abs() - 0.15,
                2 => x.abs().max(y.abs()) - 0.75,
                3 => (y * 0.5 + x.abs() * 0.866).max(-y) - 0.6,
                4 => x.abs() + y.abs() - 0.9,
                5 => (x.abs().min(y.abs()) - 0.2).max(x.abs().max(y.abs()) - 0.85),
                _ => {
                    let a = y.atan2(x) * 5.0 / 2.0;
                    len - (0.55 + 0.3 * a.cos().abs())
                }
            };
            ((0.5 - d * r).clamp(0.0, 1.0) * 255.0).round() as u8
        })
        .collect();
    Ok(GlyphImage { width: n, height: n, left: 0, bottom: 0, pixels })
}
