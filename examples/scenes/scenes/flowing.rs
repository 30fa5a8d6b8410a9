//! Scenes of flowing text: a multi-script window, a code editor, a chat
//! and a long document scrolled.

use super::common::*;
use crate::sides::{Area, Shaped};
use glyphon::{Attrs, Buffer, Color, Family, FontSystem, Style, Weight};
use std::collections::VecDeque;

/// The window (1000×720): 18 lines of Latin, Arabic, Hebrew,
/// Devanagari, CJK and colour emoji at 12–24 px, Inter variable at 400,
/// 700 and italic, DejaVu Sans bold (synthesized), and a 40 px heading
/// rotated by 20° (glyphon draws it axis-aligned); the areas spread over
/// eight renderers on one atlas. Nothing changes between frames.
pub(super) struct Window {
    lines: Vec<(Shaped, f32, f32)>,
    heading: Shaped,
}

impl Window {
    pub(super) fn new(fs: &mut FontSystem) -> Window {
        let mut lines = Vec::new();
        let mut top = 8.0;
        for (text, px) in crate::scene_lines::multiscript().into_iter().take(18) {
            lines.push((shaped(fs, &text, px, Some(980.0), &sans()), 10.0, top));
            top += px * 1.3;
        }
        let inter = Attrs::new().family(Family::Name("Inter"));
        let styled = [
            inter.clone(),
            inter.clone().weight(Weight::BOLD),
            inter.clone().style(Style::Italic),
            sans().weight(Weight::BOLD),
        ];
        for attrs in &styled {
            let text = "Typography: weights, italics and bold from one file 0123456789";
            lines.push((shaped(fs, text, 20.0, Some(980.0), attrs), 10.0, top));
            top += 26.0;
        }
        let heading = shaped(fs, "Rotated heading", 40.0, None, &sans());
        Window { lines, heading }
    }
}

impl Scene for Window {
    fn size(&self) -> (u32, u32) {
        (1000, 720)
    }
    fn renderers(&self) -> usize {
        8
    }
    fn advance(&mut self, _: &mut FontSystem, _: usize) {}
    fn areas(&self) -> Vec<Area<'_>> {
        let mut out: Vec<Area<'_>> = self
            .lines
            .iter()
            .enumerate()
            .map(|(i, (b, left, top))| Area { renderer: i % 8, ..Area::at(b, *left, *top) })
            .collect();
        let (left, top) = (600.0, 560.0);
        let pivot = (left + width_of(&self.heading) / 2.0, top + 26.0);
        out.push(Area {
            rotation: 20f32.to_radians(),
            pivot,
            color: [120, 20, 20, 255],
            renderer: 7,
            ..Area::at(&self.heading, left, top)
        });
        out
    }
}

/// A code editor at 3840×2160: syntax-coloured DejaVu Sans Mono at 16 px,
/// one buffer per visible line made when it scrolls in, three lines
/// scrolled a frame through a 2,000-line file.
pub(super) struct Editor {
    visible: VecDeque<(usize, Shaped)>,
    first: usize,
}

const EDITOR_LINE: f32 = 20.0;
const EDITOR_ROWS: usize = 108;
const EDITOR_FILE: usize = 2_000;

impl Editor {
    pub(super) fn new(fs: &mut FontSystem) -> Editor {
        let mut e = Editor { visible: VecDeque::new(), first: 0 };
        e.advance(fs, 0);
        e
    }

    /// Line `n` of the file as coloured spans.
    fn line(fs: &mut FontSystem, n: usize) -> Shaped {
        let mono = Attrs::new().family(Family::Name("DejaVu Sans Mono"));
        let keyword = mono.clone().color(Color::rgb(0, 0, 200));
        let string = mono.clone().color(Color::rgb(0, 120, 0));
        let comment = mono.clone().color(Color::rgb(120, 120, 120));
        let number = mono.clone().color(Color::rgb(200, 90, 0));
        let plain = mono.clone().color(Color::rgb(20, 20, 20));
        let indent = "    ".repeat(1 + n % 3);
        let spans: Vec<(String, Attrs<'_>)> = match n % 5 {
            0 => vec![
                (indent, plain.clone()),
                ("let ".into(), keyword),
                (format!("glyph_{n} = atlas.lookup(key, "), plain.clone()),
                (format!("{}", n * 7 % 1000), number),
                (");".into(), plain),
            ],
            1 => vec![
                (indent, plain.clone()),
                ("if ".into(), keyword.clone()),
                (format!("frame.count > {} {{ ", n % 97), plain.clone()),
                ("return ".into(), keyword),
                ("Err(\"page full\")".into(), string),
                ("; }".into(), plain),
            ],
            2 => vec![
                (indent, plain),
                (format!("// line {n}: evict the least recently used glyphs first"), comment),
            ],
            3 => vec![
                (indent, plain.clone()),
                ("for ".into(), keyword.clone()),
                ("quad ".into(), plain.clone()),
                ("in ".into(), keyword),
                (format!("quads.iter().skip({}) {{ draw(quad); }}", n % 13), plain),
            ],
            _ => vec![
                (indent, plain.clone()),
                (format!("println!(\"{{}} glyphs in {} pages\", ", n % 9), string),
                (format!("stats.glyphs_{});", n % 31), plain),
            ],
        };
        let spans = spans.iter().map(|(t, a)| (t.as_str(), a.clone()));
        rich_line(fs, spans, &mono, 16.0, EDITOR_LINE)
    }
}

impl Scene for Editor {
    fn size(&self) -> (u32, u32) {
        (3840, 2160)
    }
    fn advance(&mut self, fs: &mut FontSystem, i: usize) {
        self.first = (i * 3) % EDITOR_FILE;
        while self
            .visible
            .front()
            .is_some_and(|(n, _)| *n < self.first || *n >= self.first + EDITOR_ROWS)
        {
            self.visible.pop_front();
        }
        while self
            .visible
            .back()
            .is_some_and(|(n, _)| *n < self.first || *n >= self.first + EDITOR_ROWS)
        {
            self.visible.pop_back();
        }
        // The file wrapped round: start over.
        if self.visible.front().is_some_and(|(n, _)| *n != self.first) {
            self.visible.clear();
        }
        let mut next = self.visible.back().map_or(self.first, |(n, _)| n + 1);
        while next < self.first + EDITOR_ROWS {
            self.visible.push_back((next, Editor::line(fs, next)));
            next += 1;
        }
    }
    fn areas(&self) -> Vec<Area<'_>> {
        self.visible
            .iter()
            .map(|(n, b)| Area::at(b, 8.0, (n - self.first) as f32 * EDITOR_LINE))
            .collect()
    }
}

/// A chat panel (1280×800), a scene added after the others and not tuned
/// for: a message arrives every fourth frame (prose of 3 to 27 words, often
/// with an emoji, sometimes with a run of ideographs drawn at random from
/// 3,000, or a phrase of Arabic, Hebrew or Devanagari), the list slides up
/// to make room over a few frames (fractional offsets), messages scrolled
/// off the top are dropped, and the panel's width is dragged from 760 to
/// 1,240 px and back over 600 frames: every visible message is wrapped
/// again each frame its width changes. The user's own messages (one in
/// three) sit on the right, in another colour.
pub(super) struct Chat {
    /// Oldest first: the buffer, its height and whether it is the user's.
    messages: VecDeque<(Shaped, f32, bool)>,
    /// The panel's width, whole pixels.
    width: f32,
    /// How far below its place the list still is, sliding up.
    slide: f32,
    rng: Lcg,
}

const CHAT_SIZE: (u32, u32) = (1280, 800);
const CHAT_PX: f32 = 15.0;
const CHAT_GAP: f32 = 8.0;

impl Chat {
    pub(super) fn new() -> Chat {
        Chat { messages: VecDeque::new(), width: 0.0, slide: 0.0, rng: Lcg(0xc4a7_0001) }
    }

    /// The panel's width at frame `i`: 760 → 1,240 → 760 px over 600 frames.
    fn width_at(i: usize) -> f32 {
        let t = (i % 600) as f32 / 300.0;
        (760.0 + 480.0 * if t > 1.0 { 2.0 - t } else { t }).round()
    }

    /// A message's text.
    fn text(rng: &mut Lcg) -> String {
        const EMOJI: [&str; 10] = ["👍", "😀", "🎉", "🦀", "🙏", "✨", "🌍", "👩‍💻", "❤️", "🔥"];
        const PHRASES: [&str; 3] = [
            "مرحبا بالعالم، هذا نص عربي",
            "שלום עולם, זה טקסט בעברית",
            "नमस्ते दुनिया, यह हिन्दी का पाठ है",
        ];
        let words = 3 + rng.below(25) as usize;
        let mut text = prose(rng, words);
        let roll = rng.below(100);
        if roll < 15 {
            let n = 4 + rng.below(17);
            text.push(' ');
            text.extend((0..n).filter_map(|_| char::from_u32(0x4e00 + rng.below(3000))));
        } else if roll < 36 {
            text.push(' ');
            text.push_str(PHRASES[rng.below(3) as usize]);
        }
        if rng.below(100) < 35 {
            text.push(' ');
            text.push_str(EMOJI[rng.below(EMOJI.len() as u32) as usize]);
        }
        text
    }

    /// The width messages wrap at in a panel `width` wide.
    fn wrap(width: f32) -> f32 {
        width * 0.7
    }

    /// Height of a laid-out message.
    fn height(b: &Buffer) -> f32 {
        b.layout_runs().count() as f32 * CHAT_PX * 1.3
    }
}

impl Scene for Chat {
    fn size(&self) -> (u32, u32) {
        CHAT_SIZE
    }
    fn advance(&mut self, fs: &mut FontSystem, i: usize) {
        let width = Chat::width_at(i);
        if width != self.width {
            self.width = width;
            for (b, height, _) in &mut self.messages {
                b.set_size(Some(Chat::wrap(width)), None);
                b.shape_until_scroll(fs, false);
                *height = Chat::height(b);
            }
        }
        if i % 4 == 0 {
            let text = Chat::text(&mut self.rng);
            let b = shaped(fs, &text, CHAT_PX, Some(Chat::wrap(width)), &sans());
            let height = Chat::height(&b);
            self.slide += height + CHAT_GAP;
            self.messages.push_back((b, height, self.rng.below(3) == 0));
        }
        self.slide = if self.slide < 0.5 { 0.0 } else { self.slide * 0.6 };
        // Drop what lies wholly above the panel.
        let mut bottom = CHAT_SIZE.1 as f32 - 12.0 + self.slide;
        let mut keep = 0;
        for (_, height, _) in self.messages.iter().rev() {
            if bottom < 0.0 {
                break;
            }
            bottom -= height + CHAT_GAP;
            keep += 1;
        }
        while self.messages.len() > keep {
            self.messages.pop_front();
        }
    }
    fn areas(&self) -> Vec<Area<'_>> {
        let mut bottom = CHAT_SIZE.1 as f32 - 12.0 + self.slide;
        let right = (CHAT_SIZE.0 as f32 + self.width) / 2.0 - 16.0;
        let left = (CHAT_SIZE.0 as f32 - self.width) / 2.0 + 16.0;
        let mut out = Vec::with_capacity(self.messages.len());
        for (b, height, own) in self.messages.iter().rev() {
            let top = bottom - height;
            let x = if *own { right - width_of(b) } else { left };
            let color = if *own { [10, 60, 160, 255] } else { [20, 20, 20, 255] };
            out.push(Area { color, ..Area::at(b, x, top) });
            bottom = top - CHAT_GAP;
        }
        out
    }
}

/// A long article (1280×800) scrolled smoothly, as a touchpad scrolls it:
/// 2.35 px a frame, so every paragraph sits at a fractional offset that
/// changes each frame; 60 paragraphs of prose at 16 px (cosmic-text's
/// line height of 1.3 em, 20.8 px) wrapped at 900 px, with a 24 px
/// heading every tenth. Only the paragraphs in view are drawn; at the end
/// it starts over from the top.
pub(super) struct Scroll {
    /// Each paragraph and its top in the article.
    paragraphs: Vec<(Shaped, f32)>,
    /// The article's height.
    height: f32,
    /// How far it is scrolled.
    offset: f32,
}

const SCROLL_SIZE: (u32, u32) = (1280, 800);
const SCROLL_SPEED: f32 = 2.35;

impl Scroll {
    pub(super) fn new(fs: &mut FontSystem) -> Scroll {
        let mut rng = Lcg(0x5c40_11ed);
        let mut top = 24.0;
        let paragraphs = (0..60)
            .map(|i| {
                let b = match i % 10 {
                    0 => shaped(fs, &prose(&mut rng, 6), 24.0, Some(900.0), &sans()),
                    _ => {
                        let words = 30 + rng.below(60) as usize;
                        shaped(fs, &prose(&mut rng, words), 16.0, Some(900.0), &sans())
                    }
                };
                let t = top;
                let px = b.metrics().line_height;
                top += b.layout_runs().count() as f32 * px + 14.0;
                (b, t)
            })
            .collect();
        Scroll { paragraphs, height: top, offset: 0.0 }
    }
}

impl Scene for Scroll {
    fn size(&self) -> (u32, u32) {
        SCROLL_SIZE
    }
    fn advance(&mut self, _: &mut FontSystem, i: usize) {
        let span = (self.height - SCROLL_SIZE.1 as f32).max(1.0);
        self.offset = (i as f32 * SCROLL_SPEED) % span;
    }
    fn areas(&self) -> Vec<Area<'_>> {
        let view = SCROLL_SIZE.1 as f32;
        self.paragraphs
            .iter()
            .enumerate()
            .filter_map(|(i, (b, top))| {
                let y = top - self.offset;
                let next = self.paragraphs.get(i + 1).map_or(self.height, |p| p.1);
                (next - self.offset > 0.0 && y < view).then(|| Area::at(b, 190.0, y))
            })
            .collect()
    }
}
