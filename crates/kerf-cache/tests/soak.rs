//! Random frames of churn with invariant checks after every frame: no two live
//! glyphs overlap, every glyph is where its packer says, and every live glyph's
//! pixels are what the uploads so far have written to a simulated GPU page
//! (per-glyph uploads and dirty rectangles both; each equals the cache's CPU
//! copy of every page, byte for byte).

use kerf_cache::*;
use kerf_cache::{
    pages::{TexelFormat, Upload},
    rasterize::{bin_offset, snap_subpixel},
};
use proptest::prelude::*;

struct Mirror {
    side: usize,
    layers: Vec<Vec<u8>>,
}

impl Mirror {
    fn apply(&mut self, pages: u32, uploads: &[Upload]) {
        while self.layers.len() < pages as usize {
            self.layers.push(vec![0; self.side * self.side]);
        }
        for u in uploads {
            assert_eq!(u.atlas(), TexelFormat::Coverage);
            if let Upload::Rect(r) = u {
                assert_eq!(r.data.len(), r.rect.w as usize * r.rect.h as usize);
            }
            u.apply_to(&mut self.layers[u.page() as usize], self.side as u32);
        }
    }
}

/// Every live glyph's texels in the mirror equal a fresh rasterization of its
/// key (sub-pixel offset included).
fn check_pixels(c: &GlyphCache, m: &Mirror) {
    for (k, e) in c.entries() {
        if let Some(tiles) = c.tiles(k) {
            // A glyph larger than a page: every tile holds its part of the raster.
            let img = c.rasterize_key(k).unwrap();
            let area: usize =
                tiles.iter().map(|t| t.entry.width as usize * t.entry.height as usize).sum();
            assert_eq!(
                area,
                img.width as usize * img.height as usize,
                "{k:?}: tiles cover the bitmap"
            );
            for t in tiles {
                let layer = &m.layers[t.entry.page as usize];
                for row in 0..t.entry.height as usize {
                    let at = (t.entry.y as usize + row) * m.side + t.entry.x as usize;
                    let src = (t.dy as usize + row) * img.width as usize + t.dx as usize;
                    assert_eq!(
                        &layer[at..at + t.entry.width as usize],
                        &img.pixels[src..][..t.entry.width as usize],
                        "{k:?} tile row {row}"
                    );
                }
            }
            continue;
        }
        if e.is_blank() {
            continue;
        }
        let img = c.rasterize_key(k).unwrap();
        let (w, h) = (img.width as usize, img.height as usize);
        assert_eq!((w, h), (e.width as usize, e.height as usize));
        let layer = &m.layers[e.page as usize];
        for row in 0..h {
            let at = (e.y as usize + row) * m.side + e.x as usize;
            assert_eq!(&layer[at..at + w], &img.pixels[row * w..][..w], "{k:?} row {row}");
        }
    }
}

fn run(
    seed: u64, frames: usize, page: u32, pages: u32, algorithm: Algorithm, in_flight: u32,
) -> u64 {
    run_with(seed, frames, page, pages, algorithm, in_flight, Opts::default()).0
}

/// The soak's switches beyond the atlas's shape.
#[derive(Clone, Copy, Default)]
struct Opts {
    /// `release_idle_after`; the workload shrinks in the second half.
    idle: Option<u64>,
    /// Pages keep no CPU copies (`page_copies: false`): uploads in
    /// `Auto`, and the mirror is checked against fresh rasters only.
    no_copies: bool,
}

/// Returns (evictions, pages released, glyphs relocated).
fn run_with(
    seed: u64, frames: usize, page: u32, pages: u32, algorithm: Algorithm, in_flight: u32,
    opts: Opts,
) -> (u64, u64, u64) {
    let Opts { idle, no_copies } = opts;
    let mut c = GlyphCache::new(CacheConfig {
        page_size: page,
        max_pages: pages,
        algorithm,
        frames_in_flight: in_flight,
        parallel_threshold: 8,
        release_idle_after: idle,
        // Odd seeds upload per glyph (the default), even ones dirty
        // rectangles; without copies, whatever Auto picks (never a box).
        uploads: if no_copies {
            UploadMode::Auto
        } else if seed % 2 == 0 {
            UploadMode::DirtyRect
        } else {
            UploadMode::Glyphs
        },
        page_copies: !no_copies,
        ..CacheConfig::default()
    })
    .unwrap();
    let fonts = [
        c.add_font(dejavu::sans::regular().to_vec()).unwrap(),
        c.add_font(dejavu::serif::bold().to_vec()).unwrap(),
    ];
    let mut m = Mirror { side: c.page_side() as usize, layers: Vec::new() };
    let mut s = seed | 1;
    let mut rnd = move |n: u64| {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s % n
    };
    let mut in_use: Vec<Vec<GlyphKey>> = Vec::new();
    let mut tiled = 0u64;
    for frame in 0..frames {
        // With idle release on, the workload shrinks in the second half (few glyphs, one size).
        let shrink = idle.is_some() && frame > frames / 2;
        let n = if shrink { 1 + rnd(4) as usize } else { 1 + rnd(40) as usize };
        let glyphs: Vec<PositionedGlyph> = (0..n)
            .map(|_| {
                let font = fonts[rnd(2) as usize];
                let ch = if shrink {
                    char::from(b'a' + rnd(6) as u8)
                } else {
                    char::from_u32(0x21 + rnd(0x17f - 0x21) as u32).unwrap_or('?')
                };
                let glyph = c.fonts().get(font).unwrap().glyph_index(ch);
                // Now and then a glyph larger than small pages (drawn in tiles).
                let size = if shrink {
                    12.0
                } else if rnd(60) == 0 {
                    150.0
                } else {
                    [9.0, 12.0, 12.5, 16.0, 23.0, 40.0][rnd(6) as usize]
                };
                // Pens at quarter and odd fractions: every sub-pixel bin is
                // used (whole pixels once shrunk, so the small set stays small).
                let x = if shrink {
                    rnd(800) as f32
                } else {
                    rnd(3200) as f32 / 4.0 + [0.0, 0.1, 0.37][rnd(3) as usize]
                };
                PositionedGlyph { font, glyph, size, x, y: rnd(600) as f32, color: [255; 4] }
            })
            .collect();
        let mut quads = Vec::new();
        let mut fr = c.begin_frame();
        fr.prepare(&glyphs, &mut quads);
        let out = fr.finish();
        m.apply(out.pages, &out.uploads);
        let mut per_page = vec![0; out.pages as usize];
        for u in &out.uploads {
            per_page[u.page() as usize] += 1;
        }
        assert!(per_page.iter().all(|&n| n <= 1), "more than one upload for a page in one frame");
        for sk in &out.skipped {
            // Only a full atlas skips valid glyphs, or a glyph whose tiles need more than every page.
            let big = sk.key.is_some_and(|k| k.size.px() == 150.0);
            assert!(
                sk.reason == GlyphError::AtlasFull
                    || big && matches!(sk.reason, GlyphError::TooLarge { .. }),
                "{sk:?}"
            );
        }
        let keys: Vec<GlyphKey> = glyphs
            .iter()
            .map(|g| GlyphKey {
                mode: c.render_mode(),
                // The bins this frame snapped to (fewer than configured
                // under pressure).
                subpixel_x: snap_subpixel(g.x, c.coverage_pages().subpixel_bins()).1,
                ..GlyphKey::new(g.font, g.glyph, GlyphSize::from_px(g.size, 1024.0).unwrap())
            })
            .filter(|k| !out.skipped.iter().any(|s| s.key == Some(*k)))
            .collect();
        in_use.push(keys);
        // A glyph drawn degraded (its bin had no room) was drawn from
        // another bin of it: that one must stay.
        let bins = c.config().subpixel_bins;
        let drawn = |k: &GlyphKey| {
            c.peek(k).is_some()
                || (0..bins)
                    .any(|b| c.peek(&GlyphKey { subpixel_x: bin_offset(b, bins), ..*k }).is_some())
        };
        for frame in in_use.iter().rev().take(in_flight as usize + 1) {
            for k in frame {
                assert!(drawn(k), "{k:?} evicted while in flight");
            }
        }
        c.check_invariants().unwrap();
        check_pixels(&c, &m);
        tiled += c.entries().filter(|(k, _)| c.tiles(k).is_some()).count() as u64;
        for (i, page) in c.pages().iter().enumerate() {
            assert_eq!(page.has_copy(), !no_copies);
            assert!(
                no_copies || m.layers[i] == page.pixels(),
                "frame {frame}: layer {i} differs from the cache's page"
            );
        }
        if no_copies {
            assert!(out.uploads.iter().all(|u| matches!(u, Upload::Glyphs(_))));
            assert_eq!(c.footprint().page_bytes, 0);
        }
        let st = c.stats();
        assert_eq!(st.hits + st.misses, st.lookups);
    }
    if page < 140 && idle.is_none() && frames >= 300 {
        assert!(tiled > 0, "the soak must cache glyphs in tiles");
    }
    (c.stats().evictions, c.stats().pages_released, c.stats().relocated)
}

#[test]
fn soak_with_release_moves_glyphs_and_gives_pages_back() {
    let (evictions, released, relocated) =
        // (Seed 5: per-glyph uploads, and a page emptied under glyphs in use.)
        run_with(5, 600, 96, 4, Algorithm::default(), 2, Opts { idle: Some(20), ..Opts::default() });
    assert!(evictions > 0);
    assert!(released > 0, "the shrinking workload must give pages back");
    assert!(relocated > 0, "glyphs in use on a page being emptied must move");
}

/// The same soak with pages that keep no CPU copies: every upload carries
/// its texels (the mirror, fed only from uploads, holds every live glyph
/// as a fresh raster of its key draws it), glyphs on a page being emptied
/// are drawn again where they move, and no page holds CPU texels.
#[test]
fn soak_without_page_copies_uploads_every_texel_and_moves_glyphs_by_drawing_them_again() {
    let opts = Opts { idle: Some(20), no_copies: true };
    let (evictions, released, relocated) = run_with(5, 600, 96, 4, Algorithm::default(), 2, opts);
    assert!(evictions > 0);
    assert!(released > 0, "the shrinking workload must give pages back");
    assert!(relocated > 0, "glyphs in use on a page being emptied must move");
}

#[test]
fn soak_maxrects() {
    assert!(run(1, 400, 128, 2, Algorithm::default(), 2) > 0, "the soak must churn");
}

#[test]
fn soak_skyline() {
    assert!(run(2, 300, 128, 2, Algorithm::FALLBACK, 1) > 0, "the soak must churn");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, .. ProptestConfig::default() })]
    #[test]
    fn soak_random_configs(seed in any::<u64>(), page in 64u32..200, pages in 1u32..4, in_flight in 0u32..3, alg in 0usize..4, idle in proptest::option::of(5u64..40)) {
        let algorithm = [
            Algorithm::default(),
            Algorithm::FALLBACK,
            "guillotine-bssf-sas-rm".parse().unwrap(),
            "shelf-ff-wm".parse().unwrap(),
        ][alg];
        run_with(seed, 80, page, pages, algorithm, in_flight, Opts { idle, no_copies: seed % 3 == 0 });
    }
}
