//! Scenes of an app's interface: a dashboard of cells, a HUD of labels,
//! zooming labels and an IDE's panes.

use super::common::*;
use crate::sides::{Area, Shaped};
use glyphon::{Attrs, Color, Family, FontSystem, Shaping};
use std::collections::VecDeque;

/// A dashboard (1600×1200): 400 small areas in a 20 × 20 grid, each a
/// label and a value; 40 of the values change and are re-shaped every frame.
pub(super) struct Dashboard {
    cells: Vec<Shaped>,
    rng: Lcg,
}

const DASH_COLS: usize = 20;
const DASH_CELLS: usize = 400;
const DASH_CHANGED: usize = 40;

impl Dashboard {
    pub(super) fn new(fs: &mut FontSystem) -> Dashboard {
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

/// A game HUD (1920×1080): 300 world-space labels, each rotating and
/// scaling as the camera moves, and floating numbers: five appear every
/// frame, rise and fade over 60 frames. `hud-flat` is the same with no
/// rotation (kerf's axis-aligned cost of the same text).
pub(super) struct Hud {
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
    pub(super) fn new(fs: &mut FontSystem, rotate: bool) -> Hud {
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
pub(super) struct Zoom {
    paragraphs: Vec<(Shaped, f32)>,
    scale: f32,
}

impl Zoom {
    pub(super) fn new(fs: &mut FontSystem, cjk: bool) -> Zoom {
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

/// An IDE's window (1920×1080) of five panes, each clipping its text to
/// its rectangle: a file tree scrolled back and forth by 0.6 px a frame, a
/// code editor scrolled by 1.7 px a frame (its long lines cut at the pane's
/// right edge), a terminal a log line arrives in every third frame (the
/// oldest cut at its top), an outline whose hovered entry changes colour
/// every tenth frame, a tab bar, and a tooltip following the pointer. Every
/// frame cuts lines at the panes' edges somewhere else.
pub(super) struct Panes {
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
    pub(super) fn new(fs: &mut FontSystem) -> Panes {
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
