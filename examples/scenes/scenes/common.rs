//! What every scene shares: the [`Scene`] trait, shaping helpers and a
//! deterministic generator of prose.

use crate::sides::Area;
use crate::sides::Shaped;
use glyphon::{Attrs, Buffer, Family, FontSystem, Metrics, Shaping};

/// A scene: its target, its renderers, its text frame by frame.
pub trait Scene {
    /// The target's width and height.
    fn size(&self) -> (u32, u32);
    /// How many text renderers draw it (on one atlas).
    fn renderers(&self) -> usize {
        1
    }
    /// Moves to frame `i`, re-shaping what changed.
    fn advance(&mut self, fs: &mut FontSystem, i: usize);
    /// What frame `i` draws.
    fn areas(&self) -> Vec<Area<'_>>;
}

pub(super) fn sans() -> Attrs<'static> {
    Attrs::new().family(Family::Name("DejaVu Sans"))
}

/// `text` in `attrs` at `px`, wrapped at `width` (or not at all), shaped.
pub(super) fn shaped(
    fs: &mut FontSystem, text: &str, px: f32, width: Option<f32>, attrs: &Attrs<'_>,
) -> Shaped {
    let mut b = Buffer::new(fs, Metrics::new(px, px * 1.3));
    b.set_size(width, None);
    b.set_text(text, attrs, Shaping::Advanced, None);
    b.shape_until_scroll(fs, false);
    Shaped::new(b)
}

/// One unwrapped line of `spans` (text and attributes; `default` for the
/// rest) at `px` on lines `line` px apart, shaped.
pub(super) fn rich_line<'a>(
    fs: &mut FontSystem, spans: impl IntoIterator<Item = (&'a str, Attrs<'a>)>,
    default: &Attrs<'_>, px: f32, line: f32,
) -> Shaped {
    let mut b = Buffer::new(fs, Metrics::new(px, line));
    b.set_size(None, None);
    b.set_rich_text(spans, default, Shaping::Advanced, None);
    b.shape_until_scroll(fs, false);
    Shaped::new(b)
}

/// The widest line of `b`, pixels.
pub(super) fn width_of(b: &Buffer) -> f32 {
    b.layout_runs().map(|r| r.line_w).fold(0.0, f32::max)
}

/// A small deterministic generator (the scenes are the same in every run).
pub(super) struct Lcg(pub(super) u64);

impl Lcg {
    pub(super) fn next(&mut self) -> u32 {
        self.0 =
            self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) as u32
    }
    pub(super) fn below(&mut self, n: u32) -> u32 {
        self.next() % n
    }
    pub(super) fn unit(&mut self) -> f32 {
        self.next() as f32 / (1u64 << 31) as f32
    }
}

pub(super) const WORDS: [&str; 24] = [
    "glyph", "atlas", "cache", "frame", "texture", "the", "of", "and", "render", "page", "quad",
    "shader", "window", "kerning", "baseline", "upload", "a", "to", "in", "ligature", "cursor",
    "layout", "scroll", "pixel",
];

/// `n` words of prose.
pub(super) fn prose(rng: &mut Lcg, n: usize) -> String {
    let words: Vec<&str> = (0..n).map(|_| WORDS[rng.below(WORDS.len() as u32) as usize]).collect();
    words.join(" ")
}
