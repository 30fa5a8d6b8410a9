//! The outline path against an exact-area reference written here from the
//! outline (not kerf's code): glyphs drawn from their curves on the GPU,
//! turned, skewed and in perspective, at ems from 12 to 2,000 px.
//!
//! The reference reads the outline with ttf-parser, maps it to target
//! pixels through the same transform, cuts its curves into segments within
//! 1/256 px and sums each pixel's covered area exactly (nonzero winding,
//! as FreeType's smooth rasterizer). The GPU draws white text over black
//! with no coverage correction into a linear target, so a pixel reads its
//! coverage.

use super::common::*;
use kerf_wgpu::*;

/// A face's bytes, or a failure naming the Debian package to install.
pub fn system_font(path: &str, package: &str) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}; install Debian's {package}"))
}

/// Exact-area coverage of `glyph` of `face` (variations set on it), its
/// font units mapped to target pixels by `map`, in a `w × h` window.
pub fn reference(
    face: &ttf_parser::Face<'_>, glyph: u16, map: &dyn Fn(f64, f64) -> (f64, f64), w: usize,
    h: usize,
) -> Vec<f32> {
    let mut flat = Flatten { map, pen: (0.0, 0.0), start: (0.0, 0.0), segs: Vec::new() };
    face.outline_glyph(ttf_parser::GlyphId(glyph), &mut flat);
    ttf_parser::OutlineBuilder::close(&mut flat);
    let mut acc = vec![0f64; (w + 2) * h];
    for &(a, b) in &flat.segs {
        accumulate(&mut acc, w, h, a, b);
    }
    let mut out = vec![0f32; w * h];
    for y in 0..h {
        let mut sum = 0.0;
        for x in 0..w {
            sum += acc[y * (w + 2) + x];
            out[y * w + x] = sum.abs().min(1.0) as f32;
        }
    }
    out
}

type P = (f64, f64);

struct Flatten<'a> {
    map: &'a dyn Fn(f64, f64) -> P,
    pen: P,
    start: P,
    /// Segments in target pixels.
    segs: Vec<(P, P)>,
}

impl Flatten<'_> {
    fn curve(&mut self, ctrl: &[P], end: P) {
        // Points in font units along the curve; as many segments as keep a
        // segment within 1/256 px of the curve (second differences of the
        // mapped control polygon).
        let mut pts = vec![self.pen];
        pts.extend_from_slice(ctrl);
        pts.push(end);
        let m: Vec<P> = pts.iter().map(|p| (self.map)(p.0, p.1)).collect();
        let mut dd: f64 = 0.0;
        for w in m.windows(3) {
            dd = dd.max((w[0].0 - 2.0 * w[1].0 + w[2].0).hypot(w[0].1 - 2.0 * w[1].1 + w[2].1));
        }
        let n = ((dd * (pts.len() - 1) as f64 * 256.0 / 8.0).sqrt().ceil() as usize).clamp(1, 4096);
        let at = |t: f64| -> P {
            // de Casteljau.
            let mut q = pts.clone();
            while q.len() > 1 {
                q = q
                    .windows(2)
                    .map(|w| (w[0].0 + (w[1].0 - w[0].0) * t, w[0].1 + (w[1].1 - w[0].1) * t))
                    .collect();
            }
            q[0]
        };
        let mut prev = (self.map)(self.pen.0, self.pen.1);
        for i in 1..=n {
            let p = if i == n { end } else { at(i as f64 / n as f64) };
            let mp = (self.map)(p.0, p.1);
            self.segs.push((prev, mp));
            prev = mp;
        }
        self.pen = end;
    }
}

impl ttf_parser::OutlineBuilder for Flatten<'_> {
    fn move_to(&mut self, x: f32, y: f32) {
        ttf_parser::OutlineBuilder::close(self);
        self.start = (x as f64, y as f64);
        self.pen = self.start;
    }
    fn line_to(&mut self, x: f32, y: f32) {
        self.curve(&[], (x as f64, y as f64));
    }
    fn quad_to(&mut self, x1: f32, y1: f32, x: f32, y: f32) {
        self.curve(&[(x1 as f64, y1 as f64)], (x as f64, y as f64));
    }
    fn curve_to(&mut self, x1: f32, y1: f32, x2: f32, y2: f32, x: f32, y: f32) {
        self.curve(&[(x1 as f64, y1 as f64), (x2 as f64, y2 as f64)], (x as f64, y as f64));
    }
    fn close(&mut self) {
        if self.pen != self.start {
            self.curve(&[], self.start);
        }
    }
}

/// Adds segment `a b` (target pixels) to the accumulation rows: each piece
/// inside one pixel adds its height times the part of the pixel right of
/// it, and its height to the pixels right of that (a running sum along the
/// row then gives each pixel's winding-weighted area).
fn accumulate(acc: &mut [f64], w: usize, h: usize, a: P, b: P) {
    if a.1 == b.1 {
        return;
    }
    let mut ts = Vec::new();
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let (ylo, yhi) = (a.1.min(b.1).max(0.0), a.1.max(b.1).min(h as f64));
    let mut k = ylo.floor() + 1.0;
    while k < yhi {
        ts.push((k - a.1) / dy);
        k += 1.0;
    }
    // The window's top and bottom edges.
    for edge in [0.0, h as f64] {
        ts.push((edge - a.1) / dy);
    }
    if dx != 0.0 {
        let (xlo, xhi) = (a.0.min(b.0).max(0.0), a.0.max(b.0).min(w as f64));
        let mut k = xlo.floor() + 1.0;
        while k < xhi {
            ts.push((k - a.0) / dx);
            k += 1.0;
        }
        for edge in [0.0, w as f64] {
            ts.push((edge - a.0) / dx);
        }
    }
    ts.retain(|t| *t > 0.0 && *t < 1.0);
    ts.extend([0.0, 1.0]);
    ts.sort_by(f64::total_cmp);
    for p in ts.windows(2) {
        let (pa, pb) = ((a.0 + dx * p[0], a.1 + dy * p[0]), (a.0 + dx * p[1], a.1 + dy * p[1]));
        let (xm, ym) = ((pa.0 + pb.0) / 2.0, (pa.1 + pb.1) / 2.0);
        if ym < 0.0 || ym >= h as f64 || xm >= w as f64 {
            continue;
        }
        let row = &mut acc[ym as usize * (w + 2)..][..w + 2];
        let d = pb.1 - pa.1;
        if xm < 0.0 {
            row[0] += d;
        } else {
            let i = xm.floor();
            let f = xm - i;
            row[i as usize] += d * (1.0 - f);
            row[i as usize + 1] += d * f;
        }
    }
}

/// How a GPU read-back compares with the reference: the mean and the
/// largest |difference| (in 1/255) over the pixels either inks, the
/// partial pixels' count over the reference's, and the ink over its ink.
#[derive(Clone, Copy, Debug, Default)]
pub struct Compared {
    pub mean: f64,
    pub worst: f64,
    /// Where the worst pixel is (shown in failures' Debug output).
    #[allow(dead_code)]
    pub worst_at: (usize, usize),
    pub edges: f64,
    pub ink: f64,
}

pub fn compare(gpu: &[f32], reference: &[f32], w: usize) -> Compared {
    let (mut n, mut sum, mut worst, mut at) = (0usize, 0.0, 0.0f64, (0, 0));
    let (mut ink_g, mut ink_r, mut part_g, mut part_r) = (0.0, 0.0, 0usize, 0usize);
    let partial = |c: f32| {
        let q = (c * 255.0).round();
        (1.0..=254.0).contains(&q)
    };
    for (i, (&g, &r)) in gpu.iter().zip(reference).enumerate() {
        ink_g += g as f64;
        ink_r += r as f64;
        part_g += partial(g) as usize;
        part_r += partial(r) as usize;
        if g > 0.0 || r > 0.0 {
            let d = ((g - r).abs() * 255.0) as f64;
            n += 1;
            sum += d;
            if d > worst {
                worst = d;
                at = (i % w, i / w);
            }
        }
    }
    Compared {
        mean: sum / n.max(1) as f64,
        worst,
        worst_at: at,
        edges: part_g as f64 / part_r.max(1) as f64,
        ink: ink_g / ink_r.max(1e-9),
    }
}

/// A renderer drawing white text over black into a linear target with no
/// coverage correction: read-backs are coverage.
pub struct Bench {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub atlas: TextAtlas,
    pub renderer: TextRenderer,
    pub viewport: Viewport,
}

impl Bench {
    pub fn new() -> Bench {
        let (device, queue) = gpu();
        let atlas = TextAtlas::new(&device, CacheConfig::default()).unwrap();
        let mut renderer = TextRenderer::new(
            &device,
            &atlas,
            wgpu::TextureFormat::Rgba8Unorm,
            Default::default(),
            None,
        );
        // Every glyph from its outline, upright ones too (the policy's
        // switch is tested on its own).
        renderer.set_outline_policy(OutlinePolicy::ALWAYS);
        let mut viewport = Viewport::new(&device, &atlas);
        viewport.set_correction(&queue, TextCorrection::NEUTRAL).unwrap();
        Bench { device, queue, atlas, renderer, viewport }
    }

    /// Draws `glyphs` (area pixels) through `t` into a `w × h` target: the
    /// coverage read back, and the report.
    pub fn draw(
        &mut self, glyphs: &[PositionedGlyph], t: Option<TextTransform>, w: u32, h: u32,
    ) -> (Vec<f32>, PrepareReport) {
        self.viewport.update(&self.queue, w, h);
        let mut area = TextArea::glyphs(glyphs, 0.0, 0.0);
        if let Some(t) = t {
            area = area.transformed(t);
        }
        let report = self
            .renderer
            .prepare(&self.device, &self.queue, &mut self.atlas, &[area], &self.viewport)
            .unwrap();
        let target = Offscreen::new(&self.device, w, h, wgpu::TextureFormat::Rgba8Unorm).unwrap();
        let px = draw_and_read(
            &self.device,
            &self.queue,
            &self.renderer,
            &self.atlas,
            &target,
            wgpu::Color::BLACK,
        );
        (px.chunks(4).map(|p| p[0] as f32 / 255.0).collect(), report)
    }
}

/// A face to test: its bytes and collection index, the axis values drawn,
/// and the glyphs always in the set.
struct Face {
    name: String,
    bytes: Vec<u8>,
    index: u32,
    wght: Option<f32>,
    chars: Vec<char>,
}

fn faces() -> Vec<Face> {
    let face = |name: &str, bytes: Vec<u8>, index, wght, chars: &str| Face {
        name: name.into(),
        bytes,
        index,
        wght,
        chars: chars.chars().collect(),
    };
    let inter =
        system_font("/usr/share/fonts/truetype/inter-vf/Inter.var.ttf", "fonts-inter-variable");
    let wqy = system_font("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc", "fonts-wqy-microhei");
    let serif =
        system_font("/usr/share/fonts/opentype/freefont/FreeSerif.otf", "fonts-freefont-otf");
    vec![
        face("DejaVu Sans", dejavu::sans::regular().to_vec(), 0, None, "&a@g"),
        face("DejaVu Sans Bold", dejavu::sans::bold().to_vec(), 0, None, "r&a@"),
        face("Inter wght 100", inter.clone(), 0, Some(100.0), "&a@r"),
        face("Inter wght 400", inter.clone(), 0, Some(400.0), "&a@r"),
        face("Inter wght 900", inter, 0, Some(900.0), "&a@r"),
        face("FreeSerif (CFF)", serif, 0, None, "&a@r"),
        face("WenQuanYi Micro Hei", wqy, 0, None, "鬱龍驚靈"),
    ]
}

/// The transforms of the quality table, about `(cx, cy)` in a `w × h` target.
fn transforms(cx: f32, cy: f32, w: f32, h: f32) -> Vec<(&'static str, TextTransform)> {
    let turn = |deg: f32| TextTransform::rotation_about(deg.to_radians(), cx, cy);
    // A skew: x leans by 0.35 of y, about the centre.
    let skew = TextTransform::Affine([1.0, 0.0, -0.35, 1.0, 0.35 * cy, 0.0]);
    // The text plane turned 35° about the vertical axis through the centre,
    // seen in perspective from 12 units (the window 2 units tall), through a
    // lens long enough to show it at about its own size: the whole plane of
    // a glyph at 2,000 px per em stays in front of the camera.
    let k = 2.0 / h;
    let centre = [
        [k, 0.0, 0.0, 0.0],
        [0.0, -k, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        [-cx * k, cy * k, 0.0, 1.0],
    ];
    let (s, c) = 35f32.to_radians().sin_cos();
    let turn3 = [[c, 0.0, -s, 0.0], [0.0, 1.0, 0.0, 0.0], [s, 0.0, c, 0.0], [0.0, 0.0, -12.0, 1.0]];
    let (f, aspect, near, far) = (5.0 / 25f32.to_radians().tan(), w / h, 0.1, 100.0);
    let proj = [
        [f / aspect, 0.0, 0.0, 0.0],
        [0.0, f, 0.0, 0.0],
        [0.0, 0.0, far / (near - far), -1.0],
        [0.0, 0.0, near * far / (near - far), 0.0],
    ];
    let matrix = mat_mul(proj, mat_mul(turn3, centre));
    vec![
        ("0°", turn(0.0)),
        ("30°", turn(30.0)),
        ("90°", turn(90.0)),
        ("skew", skew),
        ("perspective", TextTransform::Matrix { matrix, raster_scale: 1.0 }),
    ]
}

/// Maps font units of a glyph at `px` with its pen at `pen` (area pixels)
/// through `t` to target pixels.
fn glyph_map(
    t: &TextTransform, pen: (f32, f32), px: f32, upem: f64, w: u32, h: u32,
) -> impl Fn(f64, f64) -> (f64, f64) {
    let m = area_to_target(t, w as f32, h as f32);
    let s = px as f64 / upem;
    move |x: f64, y: f64| {
        let (ax, ay) = (pen.0 as f64 + x * s, pen.1 as f64 - y * s);
        let v = [0, 1, 2].map(|r| m[r][0] * ax + m[r][1] * ay + m[r][2]);
        (v[0] / v[2], v[1] / v[2])
    }
}

/// The quality table's bounds, per glyph, size and transform: mean
/// |difference| over the inked pixels and the worst pixel, in 1/255.
const MEAN_BOUND: f64 = 0.5;
const WORST_BOUND: f64 = 16.0;

/// Every face and always-tested glyph at ems of 12, 16, 48, 300, 900 and 2,000
/// px, turned 0°, 30° and 90°, skewed and in perspective: each read-back
/// against the exact-area reference. Ems of 900 and 2,000 px are drawn in a
/// 384-pixel window about the glyph's middle. Prints the table (mean and
/// worst per face, size and transform); fails past the bounds, and where a
/// turned glyph's edges are wider than 1.3× the reference's or its ink
/// more than 3% off.
#[test]
fn glyphs_from_outlines_match_the_exact_area_reference() {
    let mut bench = Bench::new();
    let mut rows = Vec::new();
    let mut failures = Vec::new();
    for f in faces() {
        let mut face = ttf_parser::Face::parse(&f.bytes, f.index).unwrap();
        let mut font = bench.atlas.cache_mut().add_font_indexed(f.bytes.clone(), f.index).unwrap();
        if let Some(w) = f.wght {
            face.set_variation(ttf_parser::Tag::from_bytes(b"wght"), w);
            let style = kerf_cache::FontStyle::new().variation(*b"wght", w);
            font = bench.atlas.cache_mut().add_instance(font, &style).unwrap().font;
        }
        let upem = face.units_per_em() as f64;
        for px in [12.0f32, 16.0, 48.0, 300.0, 900.0, 2000.0] {
            for (tname, _) in transforms(0.0, 0.0, 1.0, 1.0) {
                // Whole glyphs up to 900 px turned 30° (the edge and ink
                // check's range); larger ones in a window.
                let window = px > 400.0 && !(px == 900.0 && tname == "30°");
                let side = if window { 384 } else { (px * 1.6) as u32 + 24 };
                let (mut mean, mut worst, mut edges, mut ink, mut n) =
                    (0.0f64, 0.0f64, 0.0f64, 0.0f64, 0);
                for &ch in &f.chars {
                    let glyph =
                        face.glyph_index(ch).unwrap_or_else(|| panic!("{} has no {ch}", f.name)).0;
                    let bb = face.glyph_bounding_box(ttf_parser::GlyphId(glyph)).unwrap();
                    let s = px / upem as f32;
                    // The glyph's middle at the target's centre.
                    let mid = (
                        (bb.x_min + bb.x_max) as f32 / 2.0 * s,
                        (bb.y_min + bb.y_max) as f32 / 2.0 * s,
                    );
                    let (cx, cy) = (side as f32 / 2.0, side as f32 / 2.0);
                    let pen = (cx - mid.0, cy + mid.1);
                    let t = transforms(cx, cy, side as f32, side as f32)
                        .into_iter()
                        .find(|(n, _)| *n == tname)
                        .unwrap()
                        .1;
                    let g = PositionedGlyph {
                        font,
                        glyph,
                        size: px,
                        x: pen.0,
                        y: pen.1,
                        color: [255; 4],
                    };
                    let (gpu, report) = bench.draw(&[g], Some(t), side, side);
                    assert_eq!(report.outlines, 1, "{} {ch} {px} {tname}: {report:?}", f.name);
                    let map = glyph_map(&t, pen, px, upem, side, side);
                    let r = reference(&face, glyph, &map, side as usize, side as usize);
                    let c = compare(&gpu, &r, side as usize);
                    mean += c.mean;
                    worst = worst.max(c.worst);
                    n += 1;
                    let whole = !window;
                    if whole {
                        edges = edges.max(c.edges);
                        ink = ink.max((c.ink - 1.0).abs());
                    }
                    let turned = tname == "30°" && (16.0..=900.0).contains(&px);
                    if c.mean > MEAN_BOUND
                        || c.worst > WORST_BOUND
                        || (whole && turned && (c.edges > 1.3 || (c.ink - 1.0).abs() > 0.03))
                    {
                        failures.push(format!("{} {ch} {px} px {tname}: {c:?}", f.name));
                    }
                }
                rows.push(format!(
                    "| {} | {px} | {tname} | {:.2} | {:.1} | {} | {} |",
                    f.name,
                    mean / n as f64,
                    worst,
                    if window { "–".to_string() } else { format!("{edges:.2}") },
                    if window { "–".to_string() } else { format!("{:.2}%", ink * 100.0) },
                ));
            }
        }
    }
    eprintln!(
        "| face | px/em | transform | mean /255 | worst /255 | edges × ref (max) | ink off (max) |"
    );
    eprintln!("|---|---|---|---|---|---|---|");
    for r in &rows {
        eprintln!("{r}");
    }
    assert!(
        failures.is_empty(),
        "{} cases past the bounds:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // Nothing was rasterized: every glyph came from its outline, read once.
    assert_eq!(bench.atlas.cache().stats().rasterized, 0);
}

/// Every glyph of DejaVu Sans and of DejaVu Sans Bold that has an outline,
/// at 16 px per em turned 30°, each in its own area (its own transform)
/// and cell: against the reference, with the quality table's bounds.
#[test]
fn every_glyph_of_dejavu_sans_and_bold_turned() {
    const PER_ROW: usize = 16;
    let px = 16.0f32;
    let mut bench = Bench::new();
    for (name, bytes) in
        [("DejaVu Sans", dejavu::sans::regular()), ("DejaVu Sans Bold", dejavu::sans::bold())]
    {
        let face = ttf_parser::Face::parse(bytes, 0).unwrap();
        let font = bench.atlas.add_font(bytes.to_vec()).unwrap();
        let s = px / face.units_per_em() as f32;
        // Glyphs with an outline, by their extent: cells sized per batch.
        let mut glyphs: Vec<(u16, ttf_parser::Rect, f32)> = (0..face.number_of_glyphs())
            .filter_map(|g| {
                let bb = face.glyph_bounding_box(ttf_parser::GlyphId(g))?;
                let extent = (bb.width() as f32).hypot(bb.height() as f32) * s;
                Some((g, bb, extent))
            })
            .collect();
        glyphs.sort_by(|a, b| a.2.total_cmp(&b.2));
        let (mut worst, mut sum, mut n, mut failures) = (0.0f64, 0.0, 0usize, Vec::new());
        for batch in glyphs.chunks(PER_ROW * PER_ROW) {
            let cell = batch.iter().map(|g| g.2).fold(0.0, f32::max).ceil() as u32 + 6;
            let side = cell * PER_ROW as u32;
            let placed: Vec<(PositionedGlyph, TextTransform, (u32, u32))> = batch
                .iter()
                .enumerate()
                .map(|(i, &(glyph, bb, _))| {
                    let origin = ((i % PER_ROW) as u32 * cell, (i / PER_ROW) as u32 * cell);
                    let c =
                        (origin.0 as f32 + cell as f32 / 2.0, origin.1 as f32 + cell as f32 / 2.0);
                    let mid = (
                        (bb.x_min as f32 + bb.x_max as f32) / 2.0 * s,
                        (bb.y_min as f32 + bb.y_max as f32) / 2.0 * s,
                    );
                    let g = PositionedGlyph {
                        font,
                        glyph,
                        size: px,
                        x: c.0 - mid.0,
                        y: c.1 + mid.1,
                        color: [255; 4],
                    };
                    (g, TextTransform::rotation_about(30f32.to_radians(), c.0, c.1), origin)
                })
                .collect();
            let singles: Vec<[PositionedGlyph; 1]> = placed.iter().map(|p| [p.0]).collect();
            let areas: Vec<TextArea<'_>> = singles
                .iter()
                .zip(&placed)
                .map(|(g, p)| TextArea::glyphs(g, 0.0, 0.0).transformed(p.1))
                .collect();
            bench.viewport.update(&bench.queue, side, side);
            let report = bench
                .renderer
                .prepare(&bench.device, &bench.queue, &mut bench.atlas, &areas, &bench.viewport)
                .unwrap();
            assert_eq!(report.outlines as usize, batch.len(), "{report:?}");
            let target =
                Offscreen::new(&bench.device, side, side, wgpu::TextureFormat::Rgba8Unorm).unwrap();
            let px_read = draw_and_read(
                &bench.device,
                &bench.queue,
                &bench.renderer,
                &bench.atlas,
                &target,
                wgpu::Color::BLACK,
            );
            for (g, t, origin) in &placed {
                // The cell's own window of the read-back and of the reference.
                let c = cell as usize;
                let gpu: Vec<f32> = (0..c * c)
                    .map(|i| {
                        let (x, y) = (origin.0 as usize + i % c, origin.1 as usize + i / c);
                        px_read[(y * side as usize + x) * 4] as f32 / 255.0
                    })
                    .collect();
                let m = affine(t);
                let (ox, oy) = (origin.0 as f64, origin.1 as f64);
                let sc = s as f64;
                let map = |x: f64, y: f64| {
                    let (ax, ay) = (g.x as f64 + x * sc, g.y as f64 - y * sc);
                    (m[0] * ax + m[2] * ay + m[4] - ox, m[1] * ax + m[3] * ay + m[5] - oy)
                };
                let r = reference(&face, g.glyph, &map, c, c);
                let cmp = compare(&gpu, &r, c);
                worst = worst.max(cmp.worst);
                sum += cmp.mean;
                n += 1;
                if cmp.mean > MEAN_BOUND || cmp.worst > WORST_BOUND {
                    failures.push(format!("{name} glyph {}: {cmp:?}", g.glyph));
                }
            }
        }
        eprintln!(
            "{name}: {n} glyphs at {px} px turned 30°: mean {:.2}/255, worst {worst:.1}/255",
            sum / n as f64
        );
        assert!(n > 5000, "{name}: {n} glyphs");
        assert!(
            failures.is_empty(),
            "{} glyphs past the bounds:\n{}",
            failures.len(),
            failures.join("\n")
        );
    }
}

/// The affine map of `t` (area pixels to target pixels).
fn affine(t: &TextTransform) -> [f64; 6] {
    match *t {
        TextTransform::Affine(m) => m.map(f64::from),
        TextTransform::Matrix { .. } => unreachable!("an affine transform"),
    }
}

/// At the size where upright text switches to outlines
/// ([`UPRIGHT_OUTLINE_PX`]), the two paths draw the same text within
/// 1/255 on average over the inked pixels (kerf's default correction, pens
/// snapped alike): a label zooming through that size does not jump. Just
/// below it the default policy draws bitmaps, at it outlines.
#[test]
fn text_switching_to_outlines_does_not_jump() {
    let (device, queue) = gpu();
    let mut atlas = TextAtlas::new(&device, CacheConfig::default()).unwrap();
    let font = atlas.add_font(sans()).unwrap();
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let (w, h) = (1500u32, 170u32);
    let mut viewport = Viewport::new(&device, &atlas);
    viewport.update(&queue, w, h);
    let target = Offscreen::new(&device, w, h, format).unwrap();
    let mut draw = |policy: OutlinePolicy, px: f32, color: [u8; 4], clear: wgpu::Color| {
        let mut r = TextRenderer::new(&device, &atlas, format, Default::default(), None);
        r.set_outline_policy(policy);
        let spec = TextSpec::new("Hamburgefonstiv &@g", font, px).color(color);
        let area = TextArea::text(spec, 10.3, 20.0);
        let rep = r.prepare(&device, &queue, &mut atlas, &[area], &viewport).unwrap();
        (draw_and_read(&device, &queue, &r, &atlas, &target, clear), rep)
    };
    let at = UPRIGHT_OUTLINE_PX;
    for (color, clear) in [([255; 4], wgpu::Color::BLACK), ([0, 0, 0, 255], wgpu::Color::WHITE)] {
        let (bitmap, rep) = draw(OutlinePolicy::NEVER, at, color, clear);
        assert_eq!(rep.outlines, 0);
        let (outline, rep) = draw(OutlinePolicy::default(), at, color, clear);
        assert!(rep.outlines >= 17, "{rep:?}");
        let background = if color[0] == 255 { 0 } else { 255 };
        let (mut n, mut sum, mut worst) = (0usize, 0.0f64, 0u8);
        for (a, b) in bitmap.chunks(4).zip(outline.chunks(4)) {
            if a[0] != background || b[0] != background {
                n += 1;
                let d = a[0].abs_diff(b[0]);
                sum += d as f64;
                worst = worst.max(d);
            }
        }
        let mean = sum / n as f64;
        eprintln!(
            "at {at} px, {color:?} text: mean {mean:.3}/255, worst {worst}/255 over {n} pixels"
        );
        assert!(mean <= 1.0, "the paths differ by {mean:.2}/255 on average");
        let (_, below) = draw(OutlinePolicy::default(), at - 0.5, color, clear);
        assert_eq!(below.outlines, 0, "below the size: bitmaps");
    }
}

/// A turned glyph's cost in the atlas and the outline store does not grow
/// with the size it is drawn at: from 16 to 2,000 px per em it takes no
/// atlas texel, and its outline is read and stored once.
#[test]
fn a_turned_glyphs_memory_does_not_grow_with_its_size() {
    let mut bench = Bench::new();
    bench.renderer.set_outline_policy(OutlinePolicy::default());
    let font = bench.atlas.add_font(sans()).unwrap();
    let glyph = bench.atlas.cache().fonts().get(font).unwrap().glyph_index('&');
    let mut words = None;
    for px in [16.0, 300.0, 900.0, 2000.0] {
        let g = PositionedGlyph { font, glyph, size: px, x: 20.0, y: 200.0, color: [255; 4] };
        let t = TextTransform::rotation_about(0.5, 100.0, 100.0);
        let (_, rep) = bench.draw(&[g], Some(t), 256, 256);
        assert_eq!(rep.outlines, 1);
        let stats = bench.atlas.cache().curves().stats();
        assert_eq!((stats.reads, stats.records), (1, 1), "{px} px: {stats:?}");
        assert_eq!(*words.get_or_insert(stats.used_words), stats.used_words);
        assert_eq!(bench.atlas.cache().stats().rasterized, 0, "{px} px: no atlas texel");
    }
}

/// An outline store too small for what a frame draws never fails the
/// frame: glyphs that find no room are drawn from bitmaps and reported;
/// the next frames, with room made by evicting older outlines, draw them
/// from outlines again.
#[test]
fn a_full_outline_store_falls_back_to_bitmaps() {
    let mut bench = Bench::new();
    bench.renderer.set_outline_policy(OutlinePolicy::default());
    let font = bench.atlas.add_font(sans()).unwrap();
    // Room for about a dozen Latin glyphs' records.
    bench.atlas.cache_mut().curves_mut().set_budget_bytes(4 * 2400);
    let f = bench.atlas.cache().fonts().get(font).unwrap().clone();
    let line = |text: &str| -> Vec<PositionedGlyph> {
        text.chars()
            .enumerate()
            .map(|(i, c)| PositionedGlyph {
                font,
                glyph: f.glyph_index(c),
                size: 24.0,
                x: 10.0 + 20.0 * i as f32,
                y: 60.0,
                color: [255; 4],
            })
            .collect()
    };
    let t = Some(TextTransform::rotation_about(0.3, 100.0, 50.0));
    let (_, rep) = bench.draw(&line("@&gBQW8%ABCDEFGH"), t, 400, 100);
    assert!(rep.skipped.is_empty(), "{:?}", rep.skipped);
    let full = rep
        .outline_fallbacks
        .iter()
        .filter(|(_, e)| matches!(e, kerf_cache::curves::OutlineError::Full { .. }))
        .count();
    assert!(full > 0 && rep.outlines > 0, "{rep:?}");
    assert_eq!(rep.outlines as usize + full, 16);
    assert_eq!(bench.renderer.transformed_instances().len(), full, "the rest from bitmaps");
    bench.atlas.cache().curves().check().unwrap();
    // Later frames draw other glyphs: once the frames in flight that used
    // the old outlines are done, those give way.
    let mut last = None;
    for text in ["abc", "xyz", "klm", "def", "uvw", "nop"] {
        let (_, rep) = bench.draw(&line(text), t, 240, 100);
        assert!(rep.skipped.is_empty());
        assert_eq!(rep.outlines as usize + rep.outline_fallbacks.len(), 3, "{text}: {rep:?}");
        last = Some(rep.outlines);
    }
    assert_eq!(last, Some(3), "the store made room");
    assert!(bench.atlas.cache().curves().stats().evictions > 0);
    bench.atlas.cache().curves().check().unwrap();
}
