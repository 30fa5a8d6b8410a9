//! Text and glyph streams for `kerf profile` and `kerf atlas`: deterministic,
//! multi-script, and laid out once outside the timed code.

use kerf_cache::{FontId, GlyphCache, PositionedGlyph};
use std::path::Path;

/// Words in Latin (with accents), Greek and Cyrillic: what DejaVu covers and
/// what a multi-language UI draws.
const WORDS: &[&str] = &[
    "the",
    "quick",
    "brown",
    "fox",
    "jumps",
    "over",
    "lazy",
    "dog",
    "glyph",
    "cache",
    "atlas",
    "texture",
    "frame",
    "packing",
    "render",
    "kerning",
    "baseline",
    "Ärger",
    "Übermut",
    "façade",
    "naïve",
    "crème",
    "brûlée",
    "señor",
    "Łódź",
    "Kraków",
    "smörgåsbord",
    "Ørsted",
    "ĳsbeer",
    "Đorđe",
    "λόγος",
    "γλυφή",
    "κείμενο",
    "αλφάβητο",
    "ψυχή",
    "текст",
    "шрифт",
    "кэш",
    "Москва",
    "ёжик",
    "щука",
    "1234567890",
    "(x+y)²",
    "≤≥≠",
    "→←",
    "€£¥",
    "—",
    "“quoted”",
    "Iñtërnâtiônàlizætiøn",
    "WYSIWYG",
    "0xDEADBEEF",
    "fn main()",
    "{ }",
    "[ ]",
    "#define",
    "v1.2.3",
    "@user",
];

/// Loads a font file into `cache`; errors name the file (a one-line message for the CLI).
pub fn load_font_file(cache: &mut GlyphCache, path: &Path) -> Result<FontId, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    cache.add_font(bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// A deterministic xorshift generator.
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// Next value in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n.max(1)
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        self.below(1 << 53) as f64 / (1u64 << 53) as f64
    }
}

/// `n` words of generated prose.
pub fn prose(rng: &mut Rng, n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(WORDS[rng.below(WORDS.len() as u64) as usize]);
    }
    s
}

/// A line of glyphs laid out left to right from pen x = 0 on baseline y = 0,
/// with fontdue's advances and kerning (a lazily loaded face is parsed by
/// fontdue for them; a face fontdue cannot parse gives no glyphs).
pub fn shape_line(
    font: &kerf_cache::fonts::Font, id: FontId, text: &str, px: f32, color: [u8; 4],
) -> Vec<PositionedGlyph> {
    let Ok(font) = font.fontdue() else { return Vec::new() };
    let mut out = Vec::with_capacity(text.len());
    let mut x = 0.0f32;
    let mut prev: Option<u16> = None;
    for ch in text.chars() {
        if ch.is_control() {
            continue;
        }
        let glyph = font.lookup_glyph_index(ch);
        if let Some(p) = prev {
            x += font.horizontal_kern_indexed(p, glyph, px).unwrap_or(0.0);
        }
        out.push(PositionedGlyph { font: id, glyph, size: px, x, y: 0.0, color });
        x += font.metrics_indexed(glyph, px).advance_width;
        prev = Some(glyph);
    }
    out
}

/// Zipf(s) sampler over `0..n` by inverse CDF.
pub struct Zipf {
    cdf: Vec<f64>,
}

impl Zipf {
    /// Ranks `0..n`, weight `1 / (rank + 1)^s`.
    pub fn new(n: usize, s: f64) -> Zipf {
        let mut cdf = Vec::with_capacity(n);
        let mut acc = 0.0;
        for k in 0..n {
            acc += 1.0 / ((k + 1) as f64).powf(s);
            cdf.push(acc);
        }
        for c in &mut cdf {
            *c /= acc;
        }
        Zipf { cdf }
    }

    /// One rank.
    pub fn sample(&self, rng: &mut Rng) -> usize {
        let u = rng.unit();
        self.cdf.partition_point(|&c| c < u).min(self.cdf.len().saturating_sub(1))
    }
}
