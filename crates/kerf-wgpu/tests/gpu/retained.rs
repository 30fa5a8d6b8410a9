//! A renderer drawing what it drew last frame reuses its areas' recorded
//! quads (and, when every area was placed as before, its instance buffer as
//! it is): its instances must always be those of a renderer with no history.

use crate::common::*;
use kerf_wgpu::*;

/// A device, an atlas of two 256² pages with DejaVu Sans, and a viewport
/// of `w × h`.
fn setup(w: u32, h: u32) -> (wgpu::Device, wgpu::Queue, TextAtlas, FontId, Viewport) {
    let (device, queue) = gpu();
    let cfg = CacheConfig { page_size: 256, max_pages: 2, ..CacheConfig::default() };
    let mut atlas = TextAtlas::new(&device, cfg).unwrap();
    let font = atlas.add_font(sans()).unwrap();
    let mut viewport = Viewport::new(&device, &atlas);
    viewport.update(&queue, w, h);
    (device, queue, atlas, font, viewport)
}

/// The pens of `spec` laid out by the atlas's cache.
fn positions(atlas: &mut TextAtlas, spec: &TextSpec<'_>) -> Vec<PositionedGlyph> {
    let mut glyphs = Vec::new();
    atlas.cache_mut().positions(spec, &mut glyphs).unwrap();
    glyphs
}

/// The instances a renderer with no history makes of `areas`.
fn fresh_instances(
    device: &wgpu::Device, queue: &wgpu::Queue, atlas: &mut TextAtlas, areas: &[TextArea<'_>],
    viewport: &Viewport,
) -> Vec<GlyphInstance> {
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let mut fresh = TextRenderer::new(device, atlas, format, Default::default(), None);
    fresh.prepare(device, queue, atlas, areas, viewport).unwrap();
    fresh.instances().to_vec()
}

#[test]
fn a_renderer_with_history_draws_what_a_fresh_one_draws() {
    let (device, queue, mut atlas, font, viewport) = setup(640, 480);
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let mut lines = Vec::new();
    for (i, text) in ["Retained runs, drawn again.", "A second line, at 17 px."].iter().enumerate()
    {
        let mut glyphs = Vec::new();
        let spec = TextSpec::new(text, font, 14.0 + 3.0 * i as f32).at(4.3, 20.0 + 30.0 * i as f32);
        atlas.cache_mut().positions(&spec, &mut glyphs).unwrap();
        lines.push(glyphs);
    }
    let (a, b) = (&lines[0][..], &lines[1][..]);
    let clip = TextBounds { left: 0, top: 0, right: 120, bottom: 480 };
    let frames: Vec<Vec<TextArea<'_>>> = vec![
        vec![TextArea::glyphs(a, 0.0, 0.0), TextArea::glyphs(b, 10.0, 0.0)],
        vec![TextArea::glyphs(a, 0.0, 0.0), TextArea::glyphs(b, 10.0, 0.0)],
        vec![TextArea::glyphs(a, 0.0, 0.0), TextArea::glyphs(b, 10.0, 0.0)],
        vec![TextArea::glyphs(a, 0.0, 0.0), TextArea::glyphs(b, 10.0, 0.0)],
        // Moved by whole and by fractional pixels.
        vec![TextArea::glyphs(a, 5.0, 0.0), TextArea::glyphs(b, 10.0, 0.0)],
        vec![TextArea::glyphs(a, 5.0, 0.0), TextArea::glyphs(b, 10.25, 0.0)],
        vec![TextArea::glyphs(a, 5.0, 0.0), TextArea::glyphs(b, 10.25, 0.0)],
        // Clipped, then scaled.
        vec![
            TextArea { bounds: clip, ..TextArea::glyphs(a, 5.0, 0.0) },
            TextArea::glyphs(b, 10.25, 0.0),
        ],
        vec![
            TextArea { bounds: clip, ..TextArea::glyphs(a, 5.0, 0.0) },
            TextArea::glyphs(b, 10.25, 0.0),
        ],
        vec![
            TextArea { scale: 1.5, ..TextArea::glyphs(a, 5.0, 0.0) },
            TextArea::glyphs(b, 10.25, 0.0),
        ],
        // Swapped, one area less, one more.
        vec![TextArea::glyphs(b, 10.25, 0.0), TextArea::glyphs(a, 5.0, 0.0)],
        vec![TextArea::glyphs(b, 10.25, 0.0)],
        vec![TextArea::glyphs(b, 10.25, 0.0)],
        vec![
            TextArea::glyphs(b, 10.25, 0.0),
            TextArea::glyphs(a, 0.0, 0.0),
            TextArea::glyphs(a, 0.0, 60.0),
        ],
        vec![
            TextArea::glyphs(b, 10.25, 0.0),
            TextArea::glyphs(a, 0.0, 0.0),
            TextArea::glyphs(a, 0.0, 60.0),
        ],
        // Other glyphs placed as the last frame placed its area.
        vec![TextArea::glyphs(a, 0.0, 0.0)],
        vec![TextArea::glyphs(a, 0.0, 0.0)],
        vec![TextArea::glyphs(b, 0.0, 0.0)],
        vec![TextArea::glyphs(b, 0.0, 0.0)],
    ];
    // Exact: a size that moves is drawn exactly, as instances (the zoom
    // policy would draw it sampled, and only the renderer with history knows
    // that it moved).
    let mut kept = TextRenderer::new(&device, &atlas, format, Default::default(), None);
    kept.set_zoom_policy(ZoomPolicy::Exact);
    for (n, areas) in frames.iter().enumerate() {
        let report = kept.prepare(&device, &queue, &mut atlas, areas, &viewport).unwrap();
        let mut fresh = TextRenderer::new(&device, &atlas, format, Default::default(), None);
        fresh.set_zoom_policy(ZoomPolicy::Exact);
        fresh.prepare(&device, &queue, &mut atlas, areas, &viewport).unwrap();
        assert_eq!(kept.instances(), fresh.instances(), "frame {n}");
        assert!(!kept.instances().is_empty());
        if [1, 2, 3, 6, 8, 12, 14, 16, 18].contains(&n) {
            assert_eq!(
                report.counts.hits, report.counts.lookups,
                "frame {n} repeats the last: all cached"
            );
        }
        queue.submit([]);
    }
}

/// A scrolled list: each area shows one line, at a fixed place, and the
/// lines move up and down by a few areas a frame, or two swap places. The
/// instances must be a fresh renderer's every frame: records follow their
/// lines to other areas, so a frame can come where every area drew from a
/// record and sits where its area sat, with other lines there. The lines
/// as slices and as [`GlyphRun`]s (known by reference), at whole-pixel
/// offsets and at fractional ones; the fresh renderer is always given
/// slices, so a run's path is checked against the slice's, and every frame
/// draws one quad a letter.
#[test]
fn a_scrolled_list_draws_what_a_fresh_renderer_draws() {
    let (device, queue, mut atlas, font, viewport) = setup(320, 240);
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india"];
    let lines: Vec<Vec<PositionedGlyph>> = words
        .iter()
        .map(|w| positions(&mut atlas, &TextSpec::new(w, font, 14.0).at(2.0, 14.0)))
        .collect();
    // The first line each frame shows, five areas 20 px apart; then the
    // second and third areas' lines swapped, twice.
    let tops = [0usize, 0, 0, 1, 3, 3, 2, 0, 4, 4];
    let runs: Vec<GlyphRun> = lines.iter().map(|l| GlyphRun::new(l.clone())).collect();
    let mut frames: Vec<Vec<usize>> = tops.iter().map(|&t| (t..t + 5).collect()).collect();
    frames.extend([vec![4, 6, 5, 7, 8], vec![4, 6, 5, 7, 8], vec![4, 5, 6, 7, 8]]);
    // (Then the same list two frames running, whole: drawn from its records.)
    frames.extend([vec![2, 3, 4, 5, 6], vec![2, 3, 4, 5, 6], vec![2, 3, 4, 5, 6]]);
    // Slices, runs at whole-pixel offsets, runs at fractional ones (placed
    // by the area, kept placed while the area stays).
    for (as_runs, dx) in [(false, 0.0), (true, 0.0), (true, 0.25)] {
        let mut kept = TextRenderer::new(&device, &atlas, format, Default::default(), None);
        for (n, shown) in frames.iter().enumerate() {
            let at = |k: usize, line: usize| match as_runs {
                false => TextArea::glyphs(&lines[line], 10.0, 20.0 * k as f32),
                true => TextArea::run(&runs[line], 10.0 + dx, 20.0 * k as f32 + 2.0 * dx),
            };
            let areas: Vec<TextArea<'_>> =
                shown.iter().enumerate().map(|(k, &line)| at(k, line)).collect();
            kept.prepare(&device, &queue, &mut atlas, &areas, &viewport).unwrap();
            // The fresh renderer is given the lines as slices at the same
            // places: a run placed by its area draws what the slice does.
            let slices: Vec<TextArea<'_>> = shown
                .iter()
                .enumerate()
                .map(|(k, &line)| {
                    TextArea::glyphs(&lines[line], 10.0 + dx, 20.0 * k as f32 + 2.0 * dx)
                })
                .collect();
            let fresh = fresh_instances(&device, &queue, &mut atlas, &slices, &viewport);
            let what = format!("frame {n}: lines {shown:?}, as runs {as_runs} at +{dx}");
            assert_eq!(kept.instances(), fresh, "{what}");
            // One quad a letter (the words have no spaces).
            let letters: usize = shown.iter().map(|&line| words[line].len()).sum();
            assert_eq!(kept.instances().len(), letters, "{what}");
            queue.submit([]);
        }
    }
}

/// A list scrolled smoothly: five areas a fraction of a pixel lower each
/// frame (runs reuse their records moved by whole pixels), the last of
/// three rows 20.3 px apart (their rounded baselines move apart as they
/// scroll: each row moves on its own); then frames where every area stays
/// where it was but glyphs changed in place lie a pixel lower or to the
/// right (one line's), or the middle row of the three a pixel up and down
/// (inside the same box): their records are reused moved, so their
/// instances differ from the last frame's although their areas were placed
/// the same way. The instances must be a fresh renderer's every frame.
#[test]
fn a_smoothly_scrolled_list_draws_what_a_fresh_renderer_draws() {
    let (device, queue, mut atlas, font, viewport) = setup(320, 240);
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let words = ["alpha", "bravo", "charlie", "delta", "echo"];
    let positions = |atlas: &mut TextAtlas, w: &str, y: f32| {
        let mut glyphs = Vec::new();
        let spec = TextSpec::new(w, font, 14.0).at(2.3, y);
        atlas.cache_mut().positions(&spec, &mut glyphs).unwrap();
        glyphs
    };
    let mut lines: Vec<Vec<PositionedGlyph>> =
        words.iter().map(|w| positions(&mut atlas, w, 14.0)).collect();
    let rows = ["foxtrot", "golf", "hotel"];
    for (i, w) in rows.iter().enumerate() {
        let row = positions(&mut atlas, w, 14.0 + 20.3 * i as f32);
        lines[4].extend(row);
    }
    let middle = words[4].len() + rows[0].len();
    let middle = middle..middle + rows[1].len();
    let mut kept = TextRenderer::new(&device, &atlas, format, Default::default(), None);
    for n in 0..16 {
        let scroll = match n {
            0..8 => 0.35 * n as f32,
            _ => 2.8,
        };
        if (9..13).contains(&n) {
            // The same areas at the same places; line 2's glyphs moved in
            // place (the same slice), a whole pixel a frame.
            let (dx, dy) = if n % 2 == 0 { (1.0, 0.0) } else { (0.0, 1.0) };
            for g in &mut lines[2] {
                (g.x, g.y) = (g.x + dx, g.y + dy);
            }
        }
        if n >= 13 {
            // The middle row of the last area, up and down a pixel.
            let dy = if n % 2 == 0 { 1.0 } else { -1.0 };
            for g in &mut lines[4][middle.clone()] {
                g.y += dy;
            }
        }
        let areas: Vec<TextArea<'_>> = lines
            .iter()
            .enumerate()
            .map(|(k, l)| TextArea::glyphs(l, 10.0, 20.0 * k as f32 + 0.2 + scroll))
            .collect();
        kept.prepare(&device, &queue, &mut atlas, &areas, &viewport).unwrap();
        let fresh = fresh_instances(&device, &queue, &mut atlas, &areas, &viewport);
        assert_eq!(kept.instances(), fresh, "frame {n}, scrolled {scroll}");
        let letters: usize = words.iter().chain(&rows).map(|w| w.len()).sum();
        assert_eq!(kept.instances().len(), letters, "frame {n}");
        queue.submit([]);
    }
}

/// A panel of 30 labels, a few made again each frame with other lengths
/// (so the labels after them lie elsewhere in the instances); labels as
/// glyph runs at whole and at fractional offsets and as glyph slices, one
/// clipped; one moved a pixel for some frames, one turned; in some frames an image
/// drawn before them (its colour quads then go after the coverage quads:
/// the quads are no longer in their areas' order); an area dropped and
/// added back. The renderer copies the labels drawn as last time from last
/// time's quads (held.rs); its instances must be a fresh renderer's every
/// frame.
#[test]
fn a_panel_whose_labels_change_a_few_at_a_time_draws_what_a_fresh_renderer_draws() {
    let (device, queue, mut atlas, font, viewport) = setup(640, 480);
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let src = atlas
        .add_rgba_image_source(|_: u32, size: f32| {
            let n = size.round().max(1.0) as u32;
            let pixels = (0..n * n).flat_map(|_| [200, 40, 0, 255]).collect();
            Ok(GlyphImage { width: n, height: n, left: 0, bottom: 0, pixels })
        })
        .unwrap();
    let image =
        [PositionedImage { source: src, id: 1, size: 16.0, x: 2.0, y: 470.0, color: [0; 4] }];
    let make = |atlas: &mut TextAtlas, text: &str| {
        positions(atlas, &TextSpec::new(text, font, 13.0).at(0.0, 12.0))
    };
    let mut rng = Rng(0x5eed_1abe1);
    let text = |rng: &mut Rng, k: usize| {
        let digits = 1 + rng.below(4) as u32;
        format!("cell {k}: {}", rng.below(10u64.pow(digits)))
    };
    let mut labels: Vec<Vec<PositionedGlyph>> =
        (0..30).map(|k| make(&mut atlas, &text(&mut rng, k))).collect();
    let mut runs: Vec<GlyphRun> = labels.iter().map(|l| GlyphRun::new(l.clone())).collect();
    let clip = TextBounds { left: 0, top: 0, right: 150, bottom: 480 };
    let mut kept = TextRenderer::new(&device, &atlas, format, Default::default(), None);
    for n in 0..26 {
        if n >= 3 {
            for _ in 0..3 {
                let k = rng.below(30) as usize;
                labels[k] = make(&mut atlas, &text(&mut rng, k));
                runs[k] = GlyphRun::new(labels[k].clone());
            }
        }
        let mut areas: Vec<TextArea<'_>> = (0..30)
            .map(|k| {
                let (x, y) = ((k % 5) as f32 * 120.0, (k / 5) as f32 * 30.0 + 20.0);
                let area = match k % 3 {
                    0 => TextArea::run(&runs[k], x, y),
                    1 => TextArea::run(&runs[k], x + 0.5, y + 0.25),
                    _ => TextArea::glyphs(&labels[k], x, y),
                };
                match k {
                    7 => TextArea { bounds: clip, ..area },
                    12 if (8..12).contains(&n) => TextArea { left: area.left + 1.0, ..area },
                    // Turned for two frames: its quads leave the others'
                    // (the labels around it are held from either side).
                    16 if (22..24).contains(&n) => {
                        area.transformed(TextTransform::rotation_about(0.3, x, y))
                    }
                    _ => area,
                }
            })
            .collect();
        if (14..18).contains(&n) {
            areas.insert(0, TextArea::images(&image, 0.0, 0.0));
        }
        if n == 20 {
            areas.pop();
        }
        let report = kept.prepare(&device, &queue, &mut atlas, &areas, &viewport).unwrap();
        let fresh = fresh_instances(&device, &queue, &mut atlas, &areas, &viewport);
        assert_eq!(kept.instances(), fresh, "frame {n}");
        if (14..18).contains(&n) {
            // The image's colour quad drawn after the labels' quads.
            let last = kept.instances().last().map(|i| i.page & kerf_cache::COLOR_PAGE_BIT);
            assert_eq!(last, Some(kerf_cache::COLOR_PAGE_BIT), "frame {n}");
        }
        assert_eq!(report.instances as usize, fresh.len(), "frame {n}");
        queue.submit([]);
    }
    // The renderer's CPU bytes count this prepare's quads, last time's kept
    // for the held labels, and the instances: each at least as many as
    // there are instances now (no frame above drew fewer than nine-tenths).
    let (cpu, n) = (kept.footprint().cpu_bytes, kept.instances().len());
    let quad = std::mem::size_of::<kerf_cache::GlyphQuad>();
    let least = n * (2 * quad + std::mem::size_of::<GlyphInstance>()) * 9 / 10;
    assert!(cpu >= least, "{cpu} bytes < {least}");
    assert!(cpu <= 64 * least, "{cpu} bytes");
}

/// A label with an emoji, held, before a label emptied in place, after a
/// frame that moved the emoji's colour quad after the other label's quads
/// and frames that wrote nothing (every area as before): the instance
/// buffer then holds last time's quads in another order than their areas',
/// so the held label's instances must be compared again. (Colour glyphs
/// are drawn by swash: the `swash` feature.)
#[cfg(feature = "swash")]
#[test]
fn a_held_label_with_an_emoji_is_written_again_after_its_quads_were_reordered() {
    const EMOJI_FONT: &str = "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf";
    let (device, queue, mut atlas, font, viewport) = setup(320, 240);
    let emoji = std::fs::read(EMOJI_FONT)
        .unwrap_or_else(|e| panic!("{EMOJI_FONT}: {e}; install Debian's fonts-noto-color-emoji"));
    let emoji = atlas.add_font(emoji).unwrap();
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let mut first = positions(&mut atlas, &TextSpec::new("ab", font, 16.0).at(2.0, 20.0));
    first.extend(positions(&mut atlas, &TextSpec::new("\u{1F600}", emoji, 16.0).at(30.0, 20.0)));
    let second = positions(&mut atlas, &TextSpec::new("cd", font, 16.0).at(2.0, 60.0));
    let none: Vec<PositionedGlyph> = Vec::new();
    let mut kept = TextRenderer::new(&device, &atlas, format, Default::default(), None);
    for n in 0..8 {
        let then = if n < 7 { &second } else { &none };
        let areas = [TextArea::glyphs(&first, 0.0, 0.0), TextArea::glyphs(then, 0.0, 0.0)];
        kept.prepare(&device, &queue, &mut atlas, &areas, &viewport).unwrap();
        let fresh = fresh_instances(&device, &queue, &mut atlas, &areas, &viewport);
        assert_eq!(kept.instances(), fresh, "frame {n}");
        let colour = kept.instances().iter().position(|i| i.page & kerf_cache::COLOR_PAGE_BIT != 0);
        let expected = if n < 7 { 4 } else { 2 };
        assert_eq!(colour, Some(expected), "frame {n}: the emoji's quad drawn last");
        queue.submit([]);
    }
}
