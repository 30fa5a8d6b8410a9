//! The scenes: what each draws and how its text changes from frame to
//! frame. Text is shaped by cosmic-text (the same buffers for both sides);
//! shaping happens in `advance`, before the frame's timing starts.

use crate::sides::{Area, Shaped};
use glyphon::{Attrs, Buffer, Color, Family, FontSystem, Metrics, Shaping, Style, Weight};
use std::collections::VecDeque;

/// The scenes, in the order `all` runs them.
pub const NAMES: [&str; 10] = [
    "window",
    "dashboard",
    "editor",
    "hud",
    "hud-flat",
    "zoom",
    "zoom-cjk",
    "chat",
    "scroll",
    "panes",
];

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

/// System fonts (Debian packages, as CI installs them).
const FONT_FILES: [(&str, &str); 6] = [
    ("/usr/share/fonts/truetype/lohit-devanagari/Lohit-Devanagari.ttf", "fonts-lohit-deva"),
    ("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc", "fonts-wqy-microhei"),
    ("/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf", "fonts-noto-color-emoji"),
    ("/usr/share/fonts/truetype/inter-vf/Inter.var.ttf", "fonts-inter-variable"),
    ("/usr/share/fonts/truetype/inter-vf/Inter-italic.var.ttf", "fonts-inter-variable"),
    ("/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf", "fonts-dejavu-core"),
];

/// The font system every scene shapes with: DejaVu Sans (from the `dejavu`
/// crate) and the system fonts above, as bytes. A missing font is an error
/// naming its Debian package.
pub fn font_system() -> Result<FontSystem, String> {
    let mut db = glyphon::fontdb::Database::new();
    db.load_font_data(dejavu::sans::regular().to_vec());
    for (path, package) in FONT_FILES {
        let bytes =
            std::fs::read(path).map_err(|e| format!("{path}: {e}; install Debian's {package}"))?;
        db.load_font_data(bytes);
    }
    Ok(FontSystem::new_with_locale_and_db("en-US".into(), db))
}

/// The scene called `name`.
pub fn build(name: &str, fs: &mut FontSystem) -> Result<Box<dyn Scene>, String> {
    Ok(match name {
        "window" => Box::new(Window::new(fs)),
        "dashboard" => Box::new(Dashboard::new(fs)),
        "editor" => Box::new(Editor::new(fs)),
        "hud" => Box::new(Hud::new(fs, true)),
        "hud-flat" => Box::new(Hud::new(fs, false)),
        "zoom" => Box::new(Zoom::new(fs, false)),
        "zoom-cjk" => Box::new(Zoom::new(fs, true)),
        "chat" => Box::new(Chat::new()),
        "scroll" => Box::new(Scroll::new(fs)),
        "panes" => Box::new(Panes::new(fs)),
        other => return Err(format!("unknown scene {other:?}: one of {NAMES:?}")),
    })
}

fn sans() -> Attrs<'static> {
    Attrs::new().family(Family::Name("DejaVu Sans"))
}

/// `text` in `attrs` at `px`, wrapped at `width` (or not at all), shaped.
fn shaped(
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
fn rich_line<'a>(
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
fn width_of(b: &Buffer) -> f32 {
    b.layout_runs().map(|r| r.line_w).fold(0.0, f32::max)
}

/// A small deterministic generator (the scenes are the same in every run).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 =
            self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) as u32
    }
    fn below(&mut self, n: u32) -> u32 {
        self.next() % n
    }
    fn unit(&mut self) -> f32 {
        self.next() as f32 / (1u64 << 31) as f32
    }
}

const WORDS: [&str; 24] = [
    "glyph", "atlas", "cache", "frame", "texture", "the", "of", "and", "render", "page", "quad",
    "shader", "window", "kerning", "baseline", "upload", "a", "to", "in", "ligature", "cursor",
    "layout", "scroll", "pixel",
];

/// `n` words of prose.
fn prose(rng: &mut Lcg, n: usize) -> String {
    let words: Vec<&str> = (0..n).map(|_| WORDS[rng.below(WORDS.len() as u32) as usize]).collect();
    words.join(" ")
}

/// The window (1000×720): 18 lines of Latin, Arabic, Hebrew,
/// Devanagari, CJK and colour emoji at 12–24 px, Inter variable at 400,
/// 700 and italic, DejaVu Sans bold (synthesized), and a 40 px heading
/// rotated by 20° (glyphon draws it axis-aligned); the areas spread over
/// eight renderers on one atlas. Nothing changes between frames.
struct Window {
    lines: Vec<(Shaped, f32, f32)>,
    heading: Shaped,
}

impl Window {
    fn new(fs: &mut FontSystem) -> Window {
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

/// A dashboard (1600×1200): 400 small areas in a 20 × 20 grid, each a
/// label and a value; 40 of the values change and are re-shaped every frame.
struct Dashboard {
    cells: Vec<Shaped>,
    rng: Lcg,
}

const DASH_COLS: usize = 20;
const DASH_CELLS: usize = 400;
const DASH_CHANGED: usize = 40;

impl Dashboard {
    fn new(fs: &mut FontSystem) -> Dashboard {
        let mut rng = Lcg(0xda5b_0a4d);
        let cells = (0..DASH_CELLS)
            .map(|i| shaped(fs, &Dashboard::text(i, &mut rng), 13.0, Some(78.0), &sans()))
            .collect();
        Dashboard { cells, rng }
    }
    fn text(i: usize, rng: &mut Lcg) -> String {
        let names = ["cpu", "mem", "net", "disk", "gpu", "fps", "io", "temp"];
        format!("{} {}\n{}.{}%", names[i % names.len()], i, rng.below(100), rng.below(10))
    }
}

impl Scene for Dashboard {
    fn size(&self) -> (u32, u32) {
        (1600, 1200)
    }
    fn advance(&mut self, fs: &mut FontSystem, i: usize) {
        if i == 0 {
            return;
        }
        for k in 0..DASH_CHANGED {
            let cell = (i * DASH_CHANGED + k) % DASH_CELLS;
            let text = Dashboard::text(cell, &mut self.rng);
            let b = &mut self.cells[cell];
            b.set_text(&text, &sans(), Shaping::Advanced, None);
            b.shape_until_scroll(fs, false);
        }
    }
    fn areas(&self) -> Vec<Area<'_>> {
        self.cells
            .iter()
            .enumerate()
            .map(|(i, b)| Area::at(b, (i % DASH_COLS) as f32 * 80.0, (i / DASH_COLS) as f32 * 60.0))
            .collect()
    }
}

/// A code editor at 3840×2160: syntax-coloured DejaVu Sans Mono at 16 px,
/// one buffer per visible line made when it scrolls in, three lines
/// scrolled a frame through a 2,000-line file.
struct Editor {
    visible: VecDeque<(usize, Shaped)>,
    first: usize,
}

const EDITOR_LINE: f32 = 20.0;
const EDITOR_ROWS: usize = 108;
const EDITOR_FILE: usize = 2_000;

impl Editor {
    fn new(fs: &mut FontSystem) -> Editor {
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

/// A game HUD (1920×1080): 300 world-space labels, each rotating and
/// scaling as the camera moves, and floating numbers: five appear every
/// frame, rise and fade over 60 frames. `hud-flat` is the same with no
/// rotation (kerf's axis-aligned cost of the same text).
struct Hud {
    labels: Vec<Label>,
    numbers: VecDeque<(Shaped, f32, f32, usize)>,
    rotate: bool,
    frame: usize,
    rng: Lcg,
}

/// A world-space label: its text, place, width (for its pivot) and the
/// phases of its turn and scale.
struct Label {
    buffer: Shaped,
    x: f32,
    y: f32,
    width: f32,
    spin: f32,
    phase: f32,
}

const HUD_LABELS: usize = 300;
const HUD_SPAWN: usize = 5;
const HUD_LIFE: usize = 60;

impl Hud {
    fn new(fs: &mut FontSystem, rotate: bool) -> Hud {
        let mut rng = Lcg(0x4d0d_1abe);
        let kinds = ["Goblin archer", "Stone golem", "Merchant", "Guard captain", "Wolf", "Healer"];
        let labels = (0..HUD_LABELS)
            .map(|i| {
                let text = format!("{} {}", kinds[i % kinds.len()], 1 + rng.below(60));
                let buffer = shaped(fs, &text, 14.0, None, &sans());
                let (x, y) = (rng.unit() * 1750.0, rng.unit() * 1040.0);
                let spin = rng.unit() * std::f32::consts::TAU;
                let phase = rng.unit() * std::f32::consts::TAU;
                Label { width: width_of(&buffer), buffer, x, y, spin, phase }
            })
            .collect();
        Hud { labels, numbers: VecDeque::new(), rotate, frame: 0, rng }
    }
}

impl Scene for Hud {
    fn size(&self) -> (u32, u32) {
        (1920, 1080)
    }
    fn advance(&mut self, fs: &mut FontSystem, i: usize) {
        self.frame = i;
        while self.numbers.front().is_some_and(|n| i >= n.3 + HUD_LIFE) {
            self.numbers.pop_front();
        }
        for _ in 0..HUD_SPAWN {
            let text = format!("-{}", 1 + self.rng.below(999));
            let b = shaped(fs, &text, 18.0, None, &sans());
            let (x, y) = (self.rng.unit() * 1850.0, 100.0 + self.rng.unit() * 950.0);
            self.numbers.push_back((b, x, y, i));
        }
    }
    fn areas(&self) -> Vec<Area<'_>> {
        let t = self.frame as f32;
        let mut out: Vec<Area<'_>> = self
            .labels
            .iter()
            .map(|l| {
                let scale = 1.0 + 0.4 * (t * 0.03 + l.phase).sin();
                let rotation = if self.rotate { 0.3 * (t * 0.02 + l.spin).sin() } else { 0.0 };
                let pivot = (l.x + l.width * scale / 2.0, l.y + 9.0 * scale);
                let color = [20, 30, 90, 255];
                Area { scale, rotation, pivot, color, ..Area::at(&l.buffer, l.x, l.y) }
            })
            .collect();
        for (b, x, y, born) in &self.numbers {
            let age = (self.frame - born) as f32 / HUD_LIFE as f32;
            let alpha = (255.0 * (1.0 - age)) as u8;
            out.push(Area { color: [200, 20, 20, alpha], ..Area::at(b, *x, y - 40.0 * age) });
        }
        out
    }
}

/// A pinch-zoomed document (1600×1200): twelve paragraphs wrapped at
/// 700 px, scaled about the target's centre from 1× to 3× and back over
/// 240 frames. `zoom`: English prose (few distinct glyphs, repeated);
/// `zoom-cjk`: 200 ideographs a paragraph drawn at random from the 3,000
/// from U+4E00 (WenQuanYi Micro Hei, by fallback), nearly all distinct.
struct Zoom {
    paragraphs: Vec<(Shaped, f32)>,
    scale: f32,
}

impl Zoom {
    fn new(fs: &mut FontSystem, cjk: bool) -> Zoom {
        let mut rng = Lcg(0x200d_d0c5);
        let mut top = 20.0;
        let paragraphs = (0..12)
            .map(|_| {
                let text = if cjk {
                    (0..200).filter_map(|_| char::from_u32(0x4e00 + rng.below(3000))).collect()
                } else {
                    prose(&mut rng, 60)
                };
                let b = shaped(fs, &text, 16.0, Some(700.0), &sans());
                let t = top;
                top += b.layout_runs().count() as f32 * 16.0 * 1.3 + 12.0;
                (b, t)
            })
            .collect();
        Zoom { paragraphs, scale: 1.0 }
    }
}

impl Scene for Zoom {
    fn size(&self) -> (u32, u32) {
        (1600, 1200)
    }
    fn advance(&mut self, _: &mut FontSystem, i: usize) {
        let t = (i % 240) as f32 / 120.0;
        self.scale = 3f32.powf(if t > 1.0 { 2.0 - t } else { t });
    }
    fn areas(&self) -> Vec<Area<'_>> {
        // Scaled about the centre: a document point p lands at c + s·(p − c).
        let (cx, cy) = (800.0, 600.0);
        let s = self.scale;
        self.paragraphs
            .iter()
            .map(|(b, top)| Area {
                scale: s,
                ..Area::at(b, cx + s * (450.0 - cx), cy + s * (top - cy))
            })
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
struct Chat {
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
    fn new() -> Chat {
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
struct Scroll {
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
    fn new(fs: &mut FontSystem) -> Scroll {
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

/// An IDE's window (1920×1080) of five panes, each clipping its text to
/// its rectangle: a file tree scrolled back and forth by 0.6 px a frame, a
/// code editor scrolled by 1.7 px a frame (its long lines cut at the pane's
/// right edge), a terminal a log line arrives in every third frame (the
/// oldest cut at its top), an outline whose hovered entry changes colour
/// every tenth frame, a tab bar, and a tooltip following the pointer. Every
/// frame cuts lines at the panes' edges somewhere else.
struct Panes {
    /// The file tree's entries.
    tree: Vec<Shaped>,
    /// The editor's lines.
    code: Vec<Shaped>,
    /// The terminal's lines, oldest first, with their numbers.
    log: VecDeque<(usize, Shaped)>,
    /// The outline's entries.
    outline: Vec<Shaped>,
    /// The tab bar's titles and their left edges.
    tabs: Vec<(Shaped, f32)>,
    tooltip: Shaped,
    frame: usize,
}

const PANES_SIZE: (u32, u32) = (1920, 1080);
/// Pane rectangles (left, top, right, bottom).
const PANE_TREE: [i32; 4] = [0, 34, 280, 1080];
const PANE_CODE: [i32; 4] = [280, 34, 1500, 760];
const PANE_TERMINAL: [i32; 4] = [280, 760, 1500, 1080];
const PANE_OUTLINE: [i32; 4] = [1500, 34, 1920, 1080];
const PANE_LINE: f32 = 20.0;
const PANE_LOG_LINES: usize = 18;

impl Panes {
    fn new(fs: &mut FontSystem) -> Panes {
        let mut rng = Lcg(0x1de_9a4e5);
        let mono = Attrs::new().family(Family::Name("DejaVu Sans Mono"));
        let tree = (0..90)
            .map(|i| {
                let name = format!("{}{}_{i}.rs", "  ".repeat(i % 4), WORDS[i % WORDS.len()]);
                shaped(fs, &name, 14.0, None, &sans())
            })
            .collect();
        let code = (0..400)
            .map(|n| {
                let text = if n % 7 == 3 {
                    // A long line, cut at the pane's right edge.
                    format!("    let v{n} = [{}];", prose(&mut rng, 40).replace(' ', ", "))
                } else {
                    format!(
                        "    {} // {}",
                        prose(&mut rng, 3).replace(' ', "_"),
                        prose(&mut rng, 5)
                    )
                };
                shaped(fs, &text, 15.0, None, &mono)
            })
            .collect();
        let outline = (0..60)
            .map(|i| {
                shaped(
                    fs,
                    &format!("fn {}_{i}()", WORDS[(i * 7) % WORDS.len()]),
                    14.0,
                    None,
                    &sans(),
                )
            })
            .collect();
        let mut left = 8.0;
        let tabs = (0..8)
            .map(|i| {
                let b = shaped(
                    fs,
                    &format!("{}.rs", WORDS[(i * 5 + 2) % WORDS.len()]),
                    14.0,
                    None,
                    &sans(),
                );
                let l = left;
                left += width_of(&b) + 32.0;
                (b, l)
            })
            .collect();
        let tooltip = shaped(fs, "atlas.lookup(key) -> Option<GlyphEntry>", 13.0, None, &mono);
        let mut p = Panes { tree, code, log: VecDeque::new(), outline, tabs, tooltip, frame: 0 };
        for _ in 0..PANE_LOG_LINES {
            p.push_log(fs);
        }
        p
    }

    /// A new log line at the terminal's bottom.
    fn push_log(&mut self, fs: &mut FontSystem) {
        let n = self.log.back().map_or(0, |(n, _)| n + 1);
        let mono = Attrs::new().family(Family::Name("DejaVu Sans Mono"));
        let level = match n % 9 {
            0 => ("WARN ", Color::rgb(180, 120, 0)),
            4 => ("ERROR", Color::rgb(200, 30, 30)),
            _ => ("INFO ", Color::rgb(0, 130, 60)),
        };
        let stamp = format!("12:{:02}:{:02}.{:03} ", n / 3600 % 60, n / 60 % 60, n * 17 % 1000);
        let rest = format!(" frame {n}: {} glyphs, {} uploads", n * 13 % 4000, n % 17);
        let spans = [
            (stamp.as_str(), mono.clone().color(Color::rgb(110, 110, 110))),
            (level.0, mono.clone().color(level.1)),
            (rest.as_str(), mono.clone().color(Color::rgb(20, 20, 20))),
        ];
        let line = rich_line(fs, spans, &mono, 14.0, PANE_LINE);
        self.log.push_back((n, line));
        if self.log.len() > PANE_LOG_LINES {
            self.log.pop_front();
        }
    }
}

/// The areas of `lines` stacked `PANE_LINE` apart from `top` at `left`,
/// those that reach into `clip`, clipped to it.
fn pane_lines<'a>(
    lines: impl Iterator<Item = &'a Shaped>, left: f32, top: f32, clip: [i32; 4],
) -> impl Iterator<Item = Area<'a>> {
    lines.enumerate().filter_map(move |(i, b)| {
        let y = top + i as f32 * PANE_LINE;
        (y + PANE_LINE > clip[1] as f32 && y < clip[3] as f32)
            .then(|| Area { clip: Some(clip), ..Area::at(b, left, y) })
    })
}

impl Scene for Panes {
    fn size(&self) -> (u32, u32) {
        PANES_SIZE
    }
    fn advance(&mut self, fs: &mut FontSystem, i: usize) {
        self.frame = i;
        while self.log.back().map_or(0, |(n, _)| *n) < PANE_LOG_LINES - 1 + i / 3 {
            self.push_log(fs);
        }
    }
    fn areas(&self) -> Vec<Area<'_>> {
        let f = self.frame as f32;
        let mut out = Vec::new();
        // The tree: back and forth over 400 px, 0.6 px a frame.
        let swing = (f * 0.6) % 800.0;
        let tree_top = PANE_TREE[1] as f32 + 6.0 - swing.min(800.0 - swing);
        out.extend(pane_lines(self.tree.iter(), 12.0, tree_top, PANE_TREE));
        // The editor: down through the file at 1.7 px a frame.
        let span = self.code.len() as f32 * PANE_LINE - 700.0;
        let code_top = PANE_CODE[1] as f32 + 4.0 - (f * 1.7) % span;
        out.extend(pane_lines(self.code.iter(), 296.0, code_top, PANE_CODE));
        // The terminal: the newest line at the bottom.
        let log_top = PANE_TERMINAL[3] as f32 - 6.0 - self.log.len() as f32 * PANE_LINE;
        out.extend(pane_lines(self.log.iter().map(|(_, b)| b), 290.0, log_top, PANE_TERMINAL));
        // The outline, its hovered entry in blue.
        let hovered = self.frame / 10 % self.outline.len();
        let outline = pane_lines(self.outline.iter(), 1512.0, 40.0, PANE_OUTLINE);
        out.extend(outline.enumerate().map(|(i, a)| {
            if i == hovered {
                Area { color: [20, 80, 220, 255], ..a }
            } else {
                a
            }
        }));
        out.extend(self.tabs.iter().map(|(b, left)| Area::at(b, *left, 8.0)));
        // The tooltip follows the pointer on a circle.
        let (s, c) = (f * 0.021).sin_cos();
        out.push(Area::at(&self.tooltip, 800.0 + 220.0 * c, 400.0 + 160.0 * s));
        out
    }
}
