//! Glyph-cache benches: the hit path (key to quad) and the miss path against
//! rasterization alone, for the two main page packers.
//!
//! `cargo bench --bench cache` (add `-- --quick` for a short run).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use kerf::cache::{
    rasterize::{FontdueRasterizer, Rasterizer},
    Algorithm, CacheConfig, FontId, GlyphCache, GlyphKey, GlyphSize, PositionedGlyph,
};
use std::hint::black_box;

const TEXT: &str = "The quick brown fox jumps over the lazy dog; Ärger über façade — λόγος, шрифт. 0123456789 (x+y)² {}[]";

fn glyph_run(cache: &GlyphCache, font: FontId, sizes: &[f32]) -> Vec<PositionedGlyph> {
    let f = cache.fonts().get(font).unwrap();
    let mut out = Vec::new();
    for (line, &px) in sizes.iter().enumerate() {
        let mut x = 0.0;
        for ch in TEXT.chars() {
            let glyph = f.glyph_index(ch);
            out.push(PositionedGlyph {
                font,
                glyph,
                size: px,
                x,
                y: 30.0 * line as f32,
                color: [0, 0, 0, 255],
            });
            x += f.advance(glyph, px);
        }
    }
    out
}

fn new_cache(algorithm: Algorithm) -> (GlyphCache, FontId) {
    new_cache_bins(algorithm, CacheConfig::default().subpixel_bins)
}

fn new_cache_bins(algorithm: Algorithm, subpixel_bins: u32) -> (GlyphCache, FontId) {
    let mut cache = GlyphCache::new(CacheConfig {
        algorithm,
        page_size: 1024,
        subpixel_bins,
        ..CacheConfig::default()
    })
    .unwrap();
    let font = cache.add_font(dejavu::sans::regular().to_vec()).unwrap();
    (cache, font)
}

fn hits(c: &mut Criterion) {
    let mut g = c.benchmark_group("cache_hit");
    // 20 lines at 10 sizes: 2,000 glyphs per frame, ~700 distinct keys (per bin).
    // And a paragraph: the same 20 lines at one size (~100 keys per bin).
    let cases = [
        ("prepare_2000_cached", 4, false, 10),
        ("prepare_2000_cached_bins1", 1, false, 10),
        ("prepare_2000_cached_lcd", 4, true, 10),
        ("paragraph_2000", 4, false, 1),
        ("paragraph_2000_bins1", 1, false, 1),
    ];
    for (name, bins, lcd, n_sizes) in cases {
        let (mut cache, font) = new_cache_bins(Algorithm::default(), bins);
        let sizes: Vec<f32> = (0..20).map(|i| 12.0 + (i % n_sizes) as f32 * 2.0).collect();
        let glyphs = glyph_run(&cache, font, &sizes);
        let mut quads = Vec::with_capacity(glyphs.len());
        let prepare =
            |frame: &mut kerf::cache::Frame<'_>, glyphs: &[PositionedGlyph], quads: &mut Vec<_>| {
                if lcd {
                    frame.prepare_lcd(glyphs, quads)
                } else {
                    frame.prepare(glyphs, quads)
                }
            };
        {
            let mut frame = cache.begin_frame();
            prepare(&mut frame, &glyphs, &mut quads);
            frame.finish();
        }
        g.throughput(Throughput::Elements(glyphs.len() as u64));
        g.bench_function(name, |b| {
            b.iter(|| {
                quads.clear();
                let mut frame = cache.begin_frame();
                prepare(&mut frame, black_box(&glyphs), &mut quads);
                black_box(frame.finish());
            })
        });
    }
    g.finish();
}

fn misses(c: &mut Criterion) {
    let mut g = c.benchmark_group("cache_miss");
    g.sample_size(20);
    let (probe, font) = new_cache(Algorithm::default());
    // Every distinct glyph of the text at 16, 20, 24, 28 and 32 px.
    let glyphs = glyph_run(&probe, font, &[16.0, 20.0, 24.0, 28.0, 32.0]);
    let mut keys: Vec<GlyphKey> = glyphs
        .iter()
        .map(|g| GlyphKey::new(font, g.glyph, GlyphSize::from_px(g.size, 1024.0).unwrap()))
        .collect();
    keys.sort();
    keys.dedup();
    g.throughput(Throughput::Elements(keys.len() as u64));
    // Rasterization alone: the floor every cache pays.
    let fref = probe.font_ref(font).unwrap();
    g.bench_function("rasterize_only", |b| {
        b.iter(|| {
            for k in &keys {
                black_box(FontdueRasterizer.rasterize(fref, k).unwrap());
            }
        })
    });
    for algo in [Algorithm::default(), Algorithm::FALLBACK] {
        let (mut cache, font2) = new_cache(algo);
        assert_eq!(font, font2);
        let mut quads = Vec::new();
        g.bench_function(BenchmarkId::new("cold_frame", algo.to_string()), |b| {
            b.iter(|| {
                cache.clear();
                quads.clear();
                let mut frame = cache.begin_frame();
                frame.prepare(black_box(&glyphs), &mut quads);
                black_box(frame.finish());
            })
        });
    }
    g.finish();
}

criterion_group!(cache, hits, misses);
criterion_main!(cache);
