//! `kerf profile --plot`: frame time, hit rate and occupancy over the run, as
//! a PNG. Lines are drawn by hand; labels are drawn with kerf's own glyph
//! cache (its quads composited on the CPU).

use kerf_cache::{CacheConfig, GlyphCache, TextSpec};
use std::io::BufWriter;
use std::path::Path;

const W: usize = 1000;
const PANEL: usize = 220;
const LEFT: usize = 70;
const RIGHT: usize = 20;
const TOP: usize = 30;
const COLORS: [[u8; 3]; 6] =
    [[31, 119, 180], [214, 39, 40], [44, 160, 44], [148, 103, 189], [255, 127, 14], [23, 190, 207]];

/// Per-frame series, for `--plot`.
#[derive(Clone, Debug, Default)]
pub struct Series {
    /// Workload name.
    pub name: String,
    /// Frame time, µs.
    pub frame_us: Vec<f64>,
    /// Hit rate of the frame, %.
    pub hit_rate: Vec<f64>,
    /// Live occupancy after the frame, %.
    pub occupancy: Vec<f64>,
}

struct Canvas {
    px: Vec<u8>,
    h: usize,
    cache: GlyphCache,
    font: kerf_cache::FontId,
}

/// Blends colour `c` at coverage `a` into pixel `(x, y)` of a `W`-wide RGB image.
fn blend(px: &mut [u8], h: usize, x: usize, y: usize, c: [u8; 3], a: f32) {
    if x < W && y < h {
        let i = (y * W + x) * 3;
        for (dst, &src) in px[i..i + 3].iter_mut().zip(c.iter()) {
            *dst = (src as f32 * a + *dst as f32 * (1.0 - a)).round() as u8;
        }
    }
}

impl Canvas {
    fn put(&mut self, x: usize, y: usize, c: [u8; 3], a: f32) {
        blend(&mut self.px, self.h, x, y, c, a);
    }

    fn line(&mut self, (x0, y0): (f64, f64), (x1, y1): (f64, f64), c: [u8; 3]) {
        let n = ((x1 - x0).abs().max((y1 - y0).abs()).ceil() as usize).max(1);
        for i in 0..=n {
            let t = i as f64 / n as f64;
            let (x, y) = (x0 + (x1 - x0) * t, y0 + (y1 - y0) * t);
            self.put(x.round() as usize, y.round() as usize, c, 1.0);
        }
    }

    fn text(&mut self, s: &str, x: f32, y: f32, size: f32, c: [u8; 3]) -> Result<(), String> {
        let mut quads = Vec::new();
        let mut frame = self.cache.begin_frame();
        frame
            .layout(&TextSpec::new(s, self.font, size).at(x, y), &mut quads)
            .map_err(|e| e.to_string())?;
        frame.finish();
        let side = self.cache.page_side() as usize;
        for q in quads {
            // The page is borrowed, not copied: its texels are read in place.
            let page = self.cache.pages()[q.page as usize].pixels();
            for dy in 0..q.height as usize {
                for dx in 0..q.width as usize {
                    let cov =
                        page[(q.tex_y as usize + dy) * side + q.tex_x as usize + dx] as f32 / 255.0;
                    let (px, py) = (q.x + dx as i32, q.y + dy as i32);
                    if px >= 0 && py >= 0 && cov > 0.0 {
                        blend(&mut self.px, self.h, px as usize, py as usize, c, cov);
                    }
                }
            }
        }
        Ok(())
    }
}

/// One stacked panel: a title and one line per series, all over the same x axis.
pub struct Panel {
    /// Title drawn above the panel.
    pub title: String,
    /// `(name, values)`; values are drawn against their index.
    pub lines: Vec<(String, Vec<f64>)>,
    /// Top of the y axis; `None` for the largest value.
    pub max: Option<f64>,
}

/// Writes three stacked panels (frame time, hit rate, occupancy), one line per workload.
pub fn write(path: &Path, series: &[Series]) -> Result<(), String> {
    let panel = |title: &str, get: fn(&Series) -> &Vec<f64>, max| Panel {
        title: title.to_string(),
        lines: series.iter().map(|s| (s.name.clone(), get(s).clone())).collect(),
        max,
    };
    let panels = [
        panel("frame time (µs)", |s| &s.frame_us, None),
        panel("hit rate (%)", |s| &s.hit_rate, Some(100.0)),
        panel("live occupancy (%)", |s| &s.occupancy, Some(100.0)),
    ];
    write_panels(path, &panels, "frame")
}

/// Writes stacked panels sharing one x axis labelled `x_label`.
pub fn write_panels(path: &Path, panels: &[Panel], x_label: &str) -> Result<(), String> {
    let h = TOP + panels.len() * PANEL + 30;
    let mut cache =
        GlyphCache::new(CacheConfig { page_size: 512, max_pages: 1, ..CacheConfig::default() })
            .map_err(|e| e.to_string())?;
    let font = cache.add_font(dejavu::sans::regular().to_vec()).map_err(|e| e.to_string())?;
    let mut c = Canvas { px: vec![255; W * h * 3], h, cache, font };
    let points =
        panels.iter().flat_map(|p| p.lines.iter().map(|l| l.1.len())).max().unwrap_or(1).max(2);
    let mut legend_x = LEFT as f32;
    let mut names: Vec<&str> = Vec::new();
    for p in panels {
        for (n, _) in &p.lines {
            if !names.contains(&n.as_str()) {
                names.push(n);
            }
        }
    }
    for (i, name) in names.iter().enumerate() {
        let col = COLORS[i % COLORS.len()];
        c.text(name, legend_x, 6.0, 14.0, col)?;
        legend_x += 20.0 + 9.0 * name.chars().count() as f32;
    }
    for (p, panel) in panels.iter().enumerate() {
        let y0 = TOP + p * PANEL;
        let (plot_top, plot_bottom) = (y0 + 20, y0 + PANEL - 20);
        let max = panel
            .max
            .unwrap_or_else(|| {
                panel.lines.iter().flat_map(|l| l.1.iter().cloned()).fold(0.0f64, f64::max)
            })
            .max(1e-9);
        for k in 0..=4 {
            let y = plot_bottom as f64 - (plot_bottom - plot_top) as f64 * k as f64 / 4.0;
            c.line((LEFT as f64, y), ((W - RIGHT) as f64, y), [225, 225, 225]);
            let v = max * k as f64 / 4.0;
            let label = if max < 10.0 { format!("{v:.2}") } else { format!("{v:.0}") };
            c.text(&label, 4.0, y as f32 - 7.0, 11.0, [90, 90, 90])?;
        }
        c.line((LEFT as f64, plot_top as f64), (LEFT as f64, plot_bottom as f64), [60, 60, 60]);
        c.text(&panel.title, LEFT as f32 + 6.0, y0 as f32, 14.0, [20, 20, 20])?;
        for (name, v) in &panel.lines {
            let i = names.iter().position(|n| n == name).unwrap_or(0);
            let col = COLORS[i % COLORS.len()];
            let xy = |j: usize, val: f64| {
                let x = LEFT as f64 + (W - LEFT - RIGHT) as f64 * j as f64 / (points - 1) as f64;
                let y = plot_bottom as f64
                    - (plot_bottom - plot_top) as f64 * (val / max).clamp(0.0, 1.0);
                (x, y)
            };
            for j in 1..v.len() {
                c.line(xy(j - 1, v[j - 1]), xy(j, v[j]), col);
            }
        }
    }
    c.text(x_label, (W / 2) as f32 - 50.0, (h - 22) as f32, 12.0, [60, 60, 60])?;
    let file = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut enc = png::Encoder::new(BufWriter::new(file), W as u32, h as u32);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    let mut writer = enc.write_header().map_err(|e| format!("{}: {e}", path.display()))?;
    writer.write_image_data(&c.px).map_err(|e| format!("{}: {e}", path.display()))
}
