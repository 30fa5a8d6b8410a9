//! Rasterizers on the same glyphs at the same sizes: kerf's default for the
//! face (fontdue's parse for an eagerly loaded face, kerf's outline
//! rasterizer for a lazily loaded one), fontdue, ab_glyph and swash.
//!
//! `cargo bench --bench raster --features bench-glyphon [-- --quick]`
//!
//! On a shared, noisy machine, `RASTER_PAIRS=<rounds>` times the sets in
//! pairs instead of with criterion: each round times a short batch of
//! every rasterizer back to back (the order turned each round), so the
//! machine's drift falls on all of them alike, and prints each one's
//! median ratio to fontdue over the rounds, with the quartiles.
//! `RASTER_SETS=<substring>` keeps the sets whose name holds it.
//!
//! Ids are `raster/<set>/<rasterizer>`; one iteration rasterizes every glyph
//! of the set once (measure and bitmap; no bitmap is kept). An iteration
//! draws the same glyphs as the one before, so a rasterizer whose walk
//! along an edge branches can have its branches learned. The `-sizes`
//! sets do not let it, as a cache's misses do not: the same glyphs, each
//! iteration at the next of 64 sizes from the set's size up, by steps of
//! 1/384 of it (`latin-48-sizes`: 48 to 55.875 px by eighths). A lazy face
//! keeps each glyph's flattened outline after its first read (as fontdue
//! keeps the outlines it parsed at load), so `kerf` after its first
//! iteration rasterizes from kept outlines; `kerf-first` rasterizes each
//! glyph from a face loaded just before the iteration (outside the
//! timing): every glyph's first read, what a first frame pays. Sets: `latin-16` and
//! `latin-48` (DejaVu Sans: Latin letters, digits and signs), `cjk-24`
//! (WenQuanYi Micro Hei, Debian's fonts-wqy-microhei: 300 ideographs).
//!
//! Before timing, each set prints each rasterizer's difference from an
//! exact-area reference written here (not kerf's): the outline read with
//! ttf-parser, curves cut into 32 segments, and each pixel's covered area
//! summed exactly along x over 64 rows a pixel (nonzero winding). So speed
//! is compared at equal quality: `mean` is the mean |coverage − reference|
//! over the pixels either inks (in 1/255), `worst` the largest, `ink` the
//! total coverage ÷ the reference's.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use kerf::cache::fonts::{Font, FontLoading, FontRef, SharedBytes};
use kerf::cache::rasterize::{FontdueRasterizer, Rasterizer};
use kerf::cache::{CacheConfig, GlyphCache, GlyphKey, GlyphSize};
use std::collections::HashMap;
use std::hint::black_box;

const CJK_FONT: &str = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc";
const LATIN: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789&@%?!{}ßøæΩΣλжЩ";

/// A bitmap placed in pixels: `left` from the pen, `top` above the baseline
/// (y up), rows top to bottom, one byte a pixel.
struct Placed {
    left: i32,
    top: i32,
    width: usize,
    height: usize,
    pixels: Vec<u8>,
}

impl Placed {
    /// Coverage at pixel (x right of the pen, y up from the baseline: the
    /// pixel whose bottom edge is at y).
    fn at(&self, x: i32, y: i32) -> u8 {
        let (col, row) = (x - self.left, self.top - 1 - y);
        if col < 0 || row < 0 || col as usize >= self.width || row as usize >= self.height {
            return 0;
        }
        self.pixels[row as usize * self.width + col as usize]
    }
}

/// One set: a face, a size and glyph ids, with each rasterizer ready.
struct Set {
    name: &'static str,
    bytes: Vec<u8>,
    index: u32,
    px: f32,
    glyphs: Vec<u16>,
    /// Sizes the timing goes through, an iteration each: `px` and the
    /// steps of `px / 384` above it (1: `px` alone).
    sizes: u16,
}

impl Set {
    fn new(name: &'static str, bytes: Vec<u8>, index: u32, px: f32, chars: &[char]) -> Set {
        let face = ttf_parser::Face::parse(&bytes, index).expect("face");
        let glyphs = chars.iter().filter_map(|&c| face.glyph_index(c)).map(|g| g.0).collect();
        Set { name, bytes, index, px, glyphs, sizes: 1 }
    }

    /// The set timed at `n` sizes in turn (see [`Set::sizes`]).
    fn at_sizes(self, name: &'static str, n: u16) -> Set {
        Set { name, sizes: n, ..self }
    }

    /// The sizes the timing goes through, an iteration each (see
    /// [`Set::sizes`]).
    fn timed_sizes(&self) -> Vec<f32> {
        (0..self.sizes).map(|k| self.px * (1.0 + f32::from(k) / 384.0)).collect()
    }
}

/// The exact-area reference of glyph `g` at `px` (see the module docs).
fn reference(face: &ttf_parser::Face<'_>, g: u16, px: f32) -> Placed {
    struct Lines {
        scale: f32,
        at: (f32, f32),
        start: (f32, f32),
        edges: Vec<((f32, f32), (f32, f32))>,
    }
    impl Lines {
        fn line(&mut self, to: (f32, f32)) {
            if to != self.at {
                self.edges.push((self.at, to));
            }
            self.at = to;
        }
    }
    const CUTS: usize = 32;
    impl ttf_parser::OutlineBuilder for Lines {
        fn move_to(&mut self, x: f32, y: f32) {
            self.close();
            self.at = (x * self.scale, y * self.scale);
            self.start = self.at;
        }
        fn line_to(&mut self, x: f32, y: f32) {
            self.line((x * self.scale, y * self.scale));
        }
        fn quad_to(&mut self, x1: f32, y1: f32, x: f32, y: f32) {
            let (p0, s) = (self.at, self.scale);
            let (p1, p2) = ((x1 * s, y1 * s), (x * s, y * s));
            for i in 1..=CUTS {
                let t = i as f32 / CUTS as f32;
                let u = 1.0 - t;
                let x = u * u * p0.0 + 2.0 * u * t * p1.0 + t * t * p2.0;
                let y = u * u * p0.1 + 2.0 * u * t * p1.1 + t * t * p2.1;
                self.line((x, y));
            }
        }
        fn curve_to(&mut self, x1: f32, y1: f32, x2: f32, y2: f32, x: f32, y: f32) {
            let (p0, s) = (self.at, self.scale);
            let (p1, p2, p3) = ((x1 * s, y1 * s), (x2 * s, y2 * s), (x * s, y * s));
            for i in 1..=CUTS {
                let t = i as f32 / CUTS as f32;
                let u = 1.0 - t;
                let (a, b, c, d) = (u * u * u, 3.0 * u * u * t, 3.0 * u * t * t, t * t * t);
                let x = a * p0.0 + b * p1.0 + c * p2.0 + d * p3.0;
                let y = a * p0.1 + b * p1.1 + c * p2.1 + d * p3.1;
                self.line((x, y));
            }
        }
        fn close(&mut self) {
            let start = self.start;
            self.line(start);
        }
    }
    let scale = px / face.units_per_em() as f32;
    let mut lines = Lines { scale, at: (0.0, 0.0), start: (0.0, 0.0), edges: Vec::new() };
    face.outline_glyph(ttf_parser::GlyphId(g), &mut lines);
    ttf_parser::OutlineBuilder::close(&mut lines);
    let edges = lines.edges;
    if edges.is_empty() {
        return Placed { left: 0, top: 0, width: 0, height: 0, pixels: Vec::new() };
    }
    let fold = |f: fn(f32, f32) -> f32, pick: fn(&(f32, f32)) -> f32, init: f32| {
        edges.iter().flat_map(|(a, b)| [pick(a), pick(b)]).fold(init, f)
    };
    let (x0, x1) = (fold(f32::min, |p| p.0, f32::MAX), fold(f32::max, |p| p.0, f32::MIN));
    let (y0, y1) = (fold(f32::min, |p| p.1, f32::MAX), fold(f32::max, |p| p.1, f32::MIN));
    let (left, right) = (x0.floor() as i32, x1.ceil() as i32);
    let (bottom, top) = (y0.floor() as i32, y1.ceil() as i32);
    let (width, height) = ((right - left) as usize, (top - bottom) as usize);
    let mut area = vec![0f64; width * height];
    const ROWS: usize = 64;
    let mut crossings: Vec<(f32, i32)> = Vec::new();
    for row in 0..height {
        let y_pixel = top - 1 - row as i32;
        for sub in 0..ROWS {
            let y = y_pixel as f32 + (sub as f32 + 0.5) / ROWS as f32;
            crossings.clear();
            for &((ax, ay), (bx, by)) in &edges {
                if (ay <= y) != (by <= y) {
                    let x = ax + (y - ay) / (by - ay) * (bx - ax);
                    crossings.push((x, if by > ay { 1 } else { -1 }));
                }
            }
            crossings.sort_by(|a, b| a.0.total_cmp(&b.0));
            let mut winding = 0;
            for pair in crossings.windows(2) {
                winding += pair[0].1;
                if winding == 0 {
                    continue;
                }
                // The span [a, b) of this sub-row is inside: add its length
                // to each pixel it crosses.
                let (a, b) = (pair[0].0 - left as f32, pair[1].0 - left as f32);
                let (mut x, end) = (a.max(0.0), b.min(width as f32));
                while x < end {
                    let cell = x.floor();
                    let next = (cell + 1.0).min(end);
                    area[row * width + cell as usize] += (next - x) as f64 / ROWS as f64;
                    x = next;
                }
            }
        }
    }
    let pixels = area.iter().map(|&a| (a.clamp(0.0, 1.0) * 255.0).round() as u8).collect();
    Placed { left, top, width, height, pixels }
}

/// A rasterizer of a set's glyphs: each glyph placed in pixels.
type Raster<'a> = Box<dyn Fn(u16, f32) -> Placed + 'a>;

/// The rasterizers compared on `set`, by name.
fn rasterizers<'a>(
    set: &'a Set, kerf_font: &'a Font, key_font: kerf::cache::FontId,
) -> Vec<(&'static str, Raster<'a>)> {
    let fontdue = fontdue::Font::from_bytes(
        &set.bytes[..],
        fontdue::FontSettings { collection_index: set.index, ..Default::default() },
    )
    .expect("fontdue parses the face");
    let ab = ab_glyph::FontRef::try_from_slice_and_index(&set.bytes, set.index).expect("ab_glyph");
    // ab_glyph's scale is the height from descent to ascent, not the em.
    let ab_height = {
        use ab_glyph::Font as _;
        ab.height_unscaled() / ab.units_per_em().expect("units per em")
    };
    let swash_font = swash::FontRef::from_index(&set.bytes, set.index as usize).expect("swash");
    let swash_ctx = std::cell::RefCell::new(swash::scale::ScaleContext::new());
    vec![
        (
            "kerf",
            Box::new(move |g, px| {
                let size = GlyphSize::from_px(px, 1024.0).expect("size");
                let fref = FontRef {
                    font: kerf_font,
                    bytes: kerf_font.bytes(),
                    collection_index: set.index,
                };
                let key = GlyphKey::new(key_font, g, size);
                let img = FontdueRasterizer.rasterize(fref, &key).expect("kerf rasterizes");
                Placed {
                    left: img.left,
                    top: img.bottom + img.height as i32,
                    width: img.width as usize,
                    height: img.height as usize,
                    pixels: img.pixels,
                }
            }) as Raster<'a>,
        ),
        (
            "fontdue",
            Box::new(move |g, px| {
                let (m, pixels) = fontdue.rasterize_indexed(g, px);
                Placed {
                    left: m.xmin,
                    top: m.ymin + m.height as i32,
                    width: m.width,
                    height: m.height,
                    pixels,
                }
            }),
        ),
        (
            "ab_glyph",
            Box::new(move |g, px| {
                use ab_glyph::Font as _;
                let glyph = ab_glyph::GlyphId(g).with_scale(px * ab_height);
                let Some(outlined) = ab.outline_glyph(glyph) else {
                    return Placed { left: 0, top: 0, width: 0, height: 0, pixels: Vec::new() };
                };
                let b = outlined.px_bounds();
                let (width, height) = (b.width() as usize, b.height() as usize);
                let mut pixels = vec![0u8; width * height];
                outlined.draw(|x, y, c| {
                    if let Some(p) = pixels.get_mut(y as usize * width + x as usize) {
                        *p = (c.clamp(0.0, 1.0) * 255.0).round() as u8;
                    }
                });
                Placed { left: b.min.x as i32, top: -b.min.y as i32, width, height, pixels }
            }),
        ),
        (
            "swash",
            Box::new(move |g, px| {
                use swash::scale::{Render, Source};
                let mut ctx = swash_ctx.borrow_mut();
                let mut scaler = ctx.builder(swash_font).size(px).hint(false).build();
                let image = Render::new(&[Source::Outline])
                    .format(swash::zeno::Format::Alpha)
                    .render(&mut scaler, g)
                    .expect("swash renders the outline");
                let p = image.placement;
                Placed {
                    left: p.left,
                    top: p.top,
                    width: p.width as usize,
                    height: p.height as usize,
                    pixels: image.data,
                }
            }),
        ),
    ]
}

/// Difference of `a` from the reference `r`: (sum |a − r|, pixels either
/// inks, worst |a − r|, ink of a, ink of r), in 1/255.
fn difference(a: &Placed, r: &Placed, out: &mut [u64; 5]) {
    let mut seen: HashMap<(i32, i32), ()> = HashMap::new();
    for p in [a, r] {
        for row in 0..p.height as i32 {
            for col in 0..p.width as i32 {
                seen.insert((p.left + col, p.top - 1 - row), ());
            }
        }
    }
    for &(x, y) in seen.keys() {
        let (va, vr) = (a.at(x, y) as i64, r.at(x, y) as i64);
        if va == 0 && vr == 0 {
            continue;
        }
        let d = (va - vr).unsigned_abs();
        out[0] += d;
        out[1] += 1;
        out[2] = out[2].max(d);
        out[3] += va as u64;
        out[4] += vr as u64;
    }
}

fn sets() -> Vec<Set> {
    let latin: Vec<char> = LATIN.chars().collect();
    let cjk_bytes = std::fs::read(CJK_FONT)
        .unwrap_or_else(|e| panic!("{CJK_FONT}: {e}; install Debian's fonts-wqy-microhei"));
    // 300 ideographs spread over the CJK Unified block.
    let cjk: Vec<char> = (0..300).filter_map(|i| char::from_u32(0x4E00 + i * 67)).collect();
    let sans = || dejavu::sans::regular().to_vec();
    let sets = [
        Set::new("latin-16", sans(), 0, 16.0, &latin),
        Set::new("latin-48", sans(), 0, 48.0, &latin),
        Set::new("cjk-24", cjk_bytes, 0, 24.0, &cjk),
    ];
    // Each set again, each iteration at a size the 63 before it did not
    // draw: no walk along an edge repeats soon enough for a branch
    // predictor to learn it, as a cache's misses do not repeat.
    let names = ["latin-16-sizes", "latin-48-sizes", "cjk-24-sizes"];
    let varied: Vec<Set> = sets
        .iter()
        .zip(names)
        .map(|(s, name)| {
            Set { bytes: s.bytes.clone(), glyphs: s.glyphs.clone(), ..*s }.at_sizes(name, 64)
        })
        .collect();
    sets.into_iter().chain(varied).collect()
}

/// Each rasterizer's time ÷ fontdue's on `set` over `rounds` rounds of
/// short batches timed back to back (see the module docs), printed as the
/// median with the quartiles.
fn pairs(set: &Set, rs: &[(&'static str, Raster<'_>)], rounds: usize) {
    let sizes = set.timed_sizes();
    let batch = |r: &Raster<'_>, next: &mut usize, n: usize| {
        let t = std::time::Instant::now();
        for _ in 0..n {
            let px = sizes[*next % sizes.len()];
            *next += 1;
            for &g in &set.glyphs {
                black_box(r(black_box(g), px));
            }
        }
        t.elapsed().as_secs_f64() / n as f64
    };
    // Iterations a batch: about 2 ms of fontdue's.
    let fontdue = rs.iter().position(|(n, _)| *n == "fontdue").expect("fontdue is a peer");
    let once = batch(&rs[fontdue].1, &mut 0, 3);
    let n = ((2e-3 / once) as usize).clamp(1, 1000);
    let mut next = vec![0usize; rs.len()];
    let mut ratios = vec![Vec::new(); rs.len()];
    let mut times = vec![Vec::new(); rs.len()];
    for round in 0..rounds {
        let mut t = vec![0.0; rs.len()];
        for k in 0..rs.len() {
            let i = if round % 2 == 0 { k } else { rs.len() - 1 - k };
            t[i] = batch(&rs[i].1, &mut next[i], n);
        }
        for i in 0..rs.len() {
            ratios[i].push(t[i] / t[fontdue]);
            times[i].push(t[i]);
        }
    }
    let quartiles = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
        (at(0.25), at(0.5), at(0.75))
    };
    println!(
        "raster/{}: {rounds} rounds of {n} iterations, each ÷ fontdue's in its round",
        set.name
    );
    println!("| rasterizer | median µs | ÷ fontdue (median) | quartiles |");
    println!("|---|---|---|---|");
    for (i, (name, _)) in rs.iter().enumerate() {
        let (_, us, _) = quartiles(&mut times[i]);
        let (lo, mid, hi) = quartiles(&mut ratios[i]);
        println!("| {name} | {:.1} | {mid:.3} | {lo:.3} – {hi:.3} |", us * 1e6);
    }
}

fn raster(c: &mut Criterion) {
    let rounds: Option<usize> = std::env::var("RASTER_PAIRS").ok().and_then(|v| v.parse().ok());
    let only = std::env::var("RASTER_SETS").unwrap_or_default();
    let mut group = c.benchmark_group("raster");
    for set in sets().into_iter().filter(|s| s.name.contains(&only)) {
        // kerf's default for the face: `Font::from_bytes` chooses eager or
        // lazy loading as a cache does.
        let font = Font::from_bytes(set.bytes.clone(), set.index).expect("kerf loads the face");
        let mut cache = GlyphCache::new(CacheConfig::default()).expect("cache");
        let id = cache.add_parsed_font(font.clone()).expect("font");
        let face = ttf_parser::Face::parse(&set.bytes, set.index).expect("face");
        let refs: Vec<Placed> = set.glyphs.iter().map(|&g| reference(&face, g, set.px)).collect();
        let rs = rasterizers(&set, &font, id);
        println!(
            "raster/{} ({} glyphs, {} px; kerf's face {}): difference from the exact-area reference",
            set.name,
            set.glyphs.len(),
            set.px,
            if font.is_lazy() { "lazy: kerf's outline rasterizer" } else { "eager: fontdue's parse" },
        );
        println!("| rasterizer | mean (1/255) | worst (1/255) | ink ÷ reference |");
        println!("|---|---|---|---|");
        for (name, r) in &rs {
            let mut d = [0u64; 5];
            for (&g, reference) in set.glyphs.iter().zip(&refs) {
                difference(&r(g, set.px), reference, &mut d);
            }
            println!(
                "| {name} | {:.2} | {} | {:.4} |",
                d[0] as f64 / d[1].max(1) as f64,
                d[2],
                d[3] as f64 / d[4].max(1) as f64
            );
        }
        if let Some(rounds) = rounds {
            pairs(&set, &rs, rounds.max(1));
            continue;
        }
        // The first read of every glyph: a face loaded (lazily, as the
        // default loads it) before each iteration, outside the timing.
        if font.is_lazy() && set.sizes == 1 {
            let size = GlyphSize::from_px(set.px, 1024.0).expect("size");
            let shared: SharedBytes = std::sync::Arc::new(set.bytes.clone());
            group.bench_function(format!("{}/kerf-first", set.name), |b| {
                b.iter_batched(
                    || {
                        Font::from_shared(shared.clone(), set.index, FontLoading::Lazy)
                            .expect("kerf loads the face")
                    },
                    |fresh| {
                        let fref = FontRef {
                            font: &fresh,
                            bytes: fresh.bytes(),
                            collection_index: set.index,
                        };
                        for &g in &set.glyphs {
                            let key = GlyphKey::new(id, g, size);
                            black_box(FontdueRasterizer.rasterize(fref, &key).expect("rasterizes"));
                        }
                        fresh
                    },
                    BatchSize::PerIteration,
                )
            });
        }
        let sizes = set.timed_sizes();
        for (name, r) in &rs {
            group.bench_function(format!("{}/{name}", set.name), |b| {
                let mut next = 0;
                b.iter(|| {
                    let px = sizes[next % sizes.len()];
                    next += 1;
                    for &g in &set.glyphs {
                        black_box(r(black_box(g), px));
                    }
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, raster);
criterion_main!(benches);
