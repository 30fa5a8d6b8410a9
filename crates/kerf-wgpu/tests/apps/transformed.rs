//! Transformed areas (rotated, 3D) against a CPU reference built from the pens and the matrix.

use super::*;

/// What a linear target shows for white sampled quads over black, computed
/// on the CPU: each pixel centre mapped back into area space, bilinear
/// samples of the page clamped to the slot's texel centres, composited in order.
fn reference(
    atlas: &TextAtlas, quads: &[SampledQuad], t: &TextTransform, w: u32, h: u32,
) -> Vec<f32> {
    let inv = invert3(area_to_target(t, w as f32, h as f32));
    (0..w * h)
        .map(|i| {
            let (px, py) = ((i % w) as f64 + 0.5, (i / w) as f64 + 0.5);
            shade_at(atlas, quads, &inv, px, py) as f32
        })
        .collect()
}

/// The composite of white sampled `quads` over black at the target pixel
/// centre `(px, py)`, mapped back into area space by `inv` (see [`reference`]).
fn shade_at(
    atlas: &TextAtlas, quads: &[SampledQuad], inv: &[[f64; 3]; 3], px: f64, py: f64,
) -> f64 {
    let side = atlas.cache().page_side() as i64;
    let v = [0, 1, 2].map(|r| inv[r][0] * px + inv[r][1] * py + inv[r][2]);
    let (ax, ay) = (v[0] / v[2], v[1] / v[2]);
    let mut p = 0.0f64;
    for q in quads {
        let (fx, fy) =
            ((ax - q.pos[0] as f64) / q.size[0] as f64, (ay - q.pos[1] as f64) / q.size[1] as f64);
        if !(0.0..1.0).contains(&fx) || !(0.0..1.0).contains(&fy) {
            continue;
        }
        let page = atlas.cache().pages()[(q.page & !BORDER_BIT) as usize].pixels();
        let texel = |x: i64, y: i64| {
            page[(y.clamp(0, side - 1) * side + x.clamp(0, side - 1)) as usize] as f64 / 255.0
        };
        let (tx, ty) = (q.tex[0] as f64, q.tex[1] as f64);
        let u =
            (tx + fx * q.tex_size[0] as f64).clamp(tx + 0.5, tx + q.tex_size[0] as f64 - 0.5) - 0.5;
        let v =
            (ty + fy * q.tex_size[1] as f64).clamp(ty + 0.5, ty + q.tex_size[1] as f64 - 0.5) - 0.5;
        let (x0, y0) = (u.floor() as i64, v.floor() as i64);
        let (a, b) = (u - u.floor(), v - v.floor());
        let c = texel(x0, y0) * (1.0 - a) * (1.0 - b)
            + texel(x0 + 1, y0) * a * (1.0 - b)
            + texel(x0, y0 + 1) * (1.0 - a) * b
            + texel(x0 + 1, y0 + 1) * a * b;
        p = c + p * (1.0 - c);
    }
    p
}

/// The quads a transformed string must draw, built without the renderer:
/// the string's pens on the baseline (its layout at the area's place), and
/// each glyph's entry cached at the on-screen size (the font size times the
/// transform's largest stretch, within the raster limit), its bitmap at the
/// pen plus its bearings, `k` texels to an area pixel.
fn quads_from_pens(
    atlas: &mut TextAtlas, spec: TextSpec<'_>, left: f32, top: f32, t: &TextTransform,
) -> Vec<SampledQuad> {
    let mut pens = Vec::new();
    atlas.cache_mut().positions(&spec.at(left + spec.x, top + spec.y), &mut pens).expect("pens");
    let size = GlyphSize::from_px(
        (spec.size * t.raster_scale()).min(TRANSFORMED_RASTER_LIMIT_PX),
        f32::MAX,
    )
    .expect("size");
    let k = size.px() / spec.size;
    let mut quads = Vec::new();
    for p in pens {
        let key = GlyphKey {
            mode: kerf_cache::RenderMode::Sampled,
            ..GlyphKey::new(p.font, p.glyph, size)
        };
        let e = atlas
            .cache()
            .peek(&key)
            .unwrap_or_else(|| panic!("{key:?} cached for the transformed area"));
        if e.is_blank() {
            continue;
        }
        quads.push(SampledQuad {
            pos: [p.x + e.left as f32 / k, p.y - e.top as f32 / k],
            size: [e.width as f32 / k, e.height as f32 / k],
            tex: [e.x, e.y],
            tex_size: [e.width, e.height],
            // A sampled glyph's raster carries a border of zeros.
            page: e.page | BORDER_BIT,
            color: p.color,
            transform: 0,
        });
    }
    quads
}

/// A rotated area, a sheared and scaled one, and one in 3D (perspective), each
/// compared with a CPU reference of the same quads; the axis-aligned path
/// stays texel for pixel.
#[test]
fn rotated_and_3d_areas_match_a_cpu_reference() {
    let (w, h) = (320u32, 200u32);
    let config = CacheConfig { page_size: 512, ..CacheConfig::default() };
    let (device, queue, mut atlas, font, mut r, vp) = neutral_rig(config, w, h);
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let spec = TextSpec::new("Kerf turns: Wq&@ 0123", font, 22.0).color([255; 4]);
    // 3D: the text plane turned 50° about the vertical axis, seen in perspective.
    let (cx, cy) = (110.0, 12.0);
    let centre = [
        [0.01, 0.0, 0.0, 0.0],
        [0.0, -0.01, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        [-cx * 0.01, cy * 0.01, 0.0, 1.0],
    ];
    let (s, c) = 50f32.to_radians().sin_cos();
    let turn = [[c, 0.0, -s, 0.0], [0.0, 1.0, 0.0, 0.0], [s, 0.0, c, 0.0], [0.0, 0.0, -2.2, 1.0]];
    let (f, aspect, near, far) = (1.0 / 30f32.to_radians().tan(), w as f32 / h as f32, 0.1, 10.0);
    let proj = [
        [f / aspect, 0.0, 0.0, 0.0],
        [0.0, f, 0.0, 0.0],
        [0.0, 0.0, far / (near - far), -1.0],
        [0.0, 0.0, near * far / (near - far), 0.0],
    ];
    let matrix = mat_mul(proj, mat_mul(turn, centre));
    for (name, t) in [
        ("rotated 30°", TextTransform::rotation_about(30f32.to_radians(), 110.0, 12.0)),
        ("skewed and scaled", TextTransform::Affine([1.1, 0.0, -0.5, 2.0, 30.0, -110.0])),
        ("3D perspective", TextTransform::Matrix { matrix, raster_scale: 1.0 }),
    ] {
        let area = TextArea::text(spec, 40.0, 80.0).transformed(t);
        // The first frame after the last transform's may be drawn from the
        // zoom policy's size steps (the on-screen size moved); the second,
        // at rest, at the exact on-screen size.
        r.prepare(&device, &queue, &mut atlas, &[area], &vp).unwrap();
        let rep = r.prepare(&device, &queue, &mut atlas, &[area], &vp).unwrap();
        assert!(rep.skipped.is_empty(), "{name}: {:?}", rep.skipped);
        assert_eq!(rep.instances, 0, "{name}: no axis-aligned quads");
        let quads = quads_from_pens(&mut atlas, spec, 40.0, 80.0, &t);
        assert_eq!(quads.len(), spec.text.chars().filter(|c| *c != ' ').count(), "{name}");
        let drawn = r.transformed_instances();
        assert_eq!(drawn.len(), quads.len(), "{name}");
        for (d, q) in drawn.iter().zip(&quads) {
            let close = |a: [f32; 2], b: [f32; 2]| {
                (a[0] - b[0]).abs() <= 1e-3 && (a[1] - b[1]).abs() <= 1e-3
            };
            assert!(
                close(d.pos, q.pos)
                    && close(d.size, q.size)
                    && (d.tex, d.tex_size, d.page) == (q.tex, q.tex_size, q.page),
                "{name}: drew {d:?}, the pens say {q:?}"
            );
        }
        let target = Offscreen::new(&device, w, h, format).unwrap();
        let px = draw_and_read(&device, &queue, &r, &atlas, &target, wgpu::Color::BLACK);
        let expect = reference(&atlas, &quads, &t, w, h);
        // Every pixel within 3/255 of the reference (lavapipe is within 1.2;
        // a half-texel offset or a wrong corner is off by tens of levels).
        let (mut worst, mut sum_gpu, mut sum_cpu, mut inked) =
            ((0.0f32, 0usize), 0f64, 0f64, 0usize);
        for (i, e) in expect.iter().enumerate() {
            let got = px[i * 4] as f32 / 255.0;
            if (got - e).abs() > worst.0 {
                worst = ((got - e).abs(), i);
            }
            sum_gpu += got as f64;
            sum_cpu += *e as f64;
            if *e > 0.5 {
                inked += 1;
            }
        }
        assert!(inked > 300, "{name}: the text must be visible ({inked} inked pixels)");
        let (x, y) = (worst.1 as u32 % w, worst.1 as u32 / w);
        assert!(
            worst.0 <= 3.0 / 255.0,
            "{name}: pixel ({x}, {y}) is {:.1}/255 from the reference",
            worst.0 * 255.0
        );
        assert!(
            (sum_gpu - sum_cpu).abs() <= 0.002 * sum_cpu,
            "{name}: total ink {sum_gpu:.1} vs {sum_cpu:.1}"
        );
    }
    // Zoomed past the raster limit: rasterized at the limit, sampled up.
    let zoom = TextArea::text(TextSpec::new("Z", font, 80.0).color([255; 4]), 0.0, 0.0)
        .transformed(TextTransform::Affine([5.0, 0.0, 0.0, 5.0, 0.0, 0.0]));
    r.prepare(&device, &queue, &mut atlas, &[zoom], &vp).unwrap();
    let sizes: Vec<f32> = atlas
        .cache()
        .entries()
        .filter(|(k, _)| k.mode == kerf_cache::RenderMode::Sampled)
        .map(|(k, _)| k.size.px())
        .collect();
    assert!(sizes.contains(&TRANSFORMED_RASTER_LIMIT_PX), "{sizes:?}");
    let q = r.transformed_instances()[0];
    assert!(
        (q.size[0] * TRANSFORMED_RASTER_LIMIT_PX / 80.0 - q.tex_size[0] as f32).abs() < 0.01,
        "drawn at 80 px in area space: {q:?}"
    );
    // Bad transforms are refused before anything changes.
    let frames = atlas.cache().stats().frames;
    let bad = TextArea::text(spec, 0.0, 0.0)
        .transformed(TextTransform::Affine([1.0, 2.0, 2.0, 4.0, 0.0, 0.0]));
    assert_eq!(
        r.prepare(&device, &queue, &mut atlas, &[bad], &vp).unwrap_err(),
        PrepareError::Transform { area: 0 }
    );
    assert_eq!(atlas.cache().stats().frames, frames);
    check_atlas(&device, &queue, &atlas);
}

/// More transformed areas in one frame than one draw's block of transforms
/// holds (`TRANSFORMS_PER_DRAW`): each a letter in a cell of its own,
/// turned about the cell's centre by an angle of its own, every fifth
/// clipped to the left half of its cell. Each must be drawn through its own
/// transform and scissor rectangle: the CPU reference takes each area's
/// quads from its pens and maps each cell's pixels back through that area's
/// transform alone, within its bounds.
#[test]
fn many_transformed_areas_each_draw_through_their_own_transform() {
    let (cols, rows, cell) = (20u32, 14u32, 32u32);
    let (w, h) = (cols * cell, rows * cell);
    let (device, queue, mut atlas, font, mut r, vp) = neutral_rig(CacheConfig::default(), w, h);
    let n = (cols * rows) as usize;
    assert!(n > 2 * TRANSFORMS_PER_DRAW as usize, "the areas span three blocks");
    let letters = ["T", "L", "F", "P", "J", "7", "k"];
    let spec = |i: usize| TextSpec::new(letters[i % letters.len()], font, 18.0).color([255; 4]);
    let corner = |i: usize| ((i as u32 % cols * cell) as f32, (i as u32 / cols * cell) as f32);
    let transform = |i: usize| {
        let (x, y) = corner(i);
        let c = cell as f32 / 2.0;
        TextTransform::rotation_about(0.2 + i as f32 * 0.37, x + c, y + c)
    };
    let bounds = |i: usize| {
        let (x, y) = corner(i);
        (i % 5 == 0).then(|| TextBounds {
            left: x as i32,
            top: y as i32,
            right: (x + cell as f32 / 2.0) as i32,
            bottom: (y + cell as f32) as i32,
        })
    };
    let areas: Vec<TextArea<'_>> = (0..n)
        .map(|i| {
            let (x, y) = corner(i);
            let a = TextArea::text(spec(i), x + 9.0, y + 6.0).transformed(transform(i));
            match bounds(i) {
                Some(b) => a.with_bounds(b),
                None => a,
            }
        })
        .collect();
    // The second frame is at rest: every glyph at its exact on-screen size.
    r.prepare(&device, &queue, &mut atlas, &areas, &vp).unwrap();
    let rep = r.prepare(&device, &queue, &mut atlas, &areas, &vp).unwrap();
    assert!(rep.skipped.is_empty(), "{:?}", rep.skipped);
    // One draw for each stretch of areas under one scissor rectangle (all
    // quads here are bordered coverage) within one block of transforms.
    let per = TRANSFORMS_PER_DRAW as usize;
    let starts =
        (0..n).filter(|&i| i == 0 || bounds(i) != bounds(i - 1) || i / per != (i - 1) / per);
    assert_eq!(rep.draws as usize, starts.count(), "consecutive areas share draws");
    let target = Offscreen::new(&device, w, h, wgpu::TextureFormat::Rgba8Unorm).unwrap();
    let px = draw_and_read(&device, &queue, &r, &atlas, &target, wgpu::Color::BLACK);
    let (mut worst, mut sum_gpu, mut sum_cpu) = ((0.0f64, 0usize), 0f64, 0f64);
    for i in 0..n {
        let (x, y) = corner(i);
        let quads = quads_from_pens(&mut atlas, spec(i), x + 9.0, y + 6.0, &transform(i));
        assert!(!quads.is_empty(), "area {i}");
        let inv = invert3(area_to_target(&transform(i), w as f32, h as f32));
        let clip = bounds(i);
        for (cx, cy) in (0..cell).flat_map(|dy| (0..cell).map(move |dx| (dx, dy))) {
            let (tx, ty) = (x as u32 + cx, y as u32 + cy);
            let inside = clip.is_none_or(|b| (tx as i32) < b.right);
            let e = if inside {
                shade_at(&atlas, &quads, &inv, tx as f64 + 0.5, ty as f64 + 0.5)
            } else {
                0.0
            };
            let at = (ty * w + tx) as usize;
            let got = px[at * 4] as f64 / 255.0;
            if (got - e).abs() > worst.0 {
                worst = ((got - e).abs(), at);
            }
            sum_gpu += got;
            sum_cpu += e;
        }
    }
    let (x, y) = (worst.1 as u32 % w, worst.1 as u32 / w);
    let area = (y / cell * cols + x / cell) as usize;
    assert!(
        worst.0 <= 3.0 / 255.0,
        "pixel ({x}, {y}) of area {area} is {:.1}/255 from the reference",
        worst.0 * 255.0
    );
    assert!(sum_cpu > 20.0 * n as f64, "every letter inks (total {sum_cpu:.1})");
    assert!((sum_gpu - sum_cpu).abs() <= 0.002 * sum_cpu, "ink {sum_gpu:.1} vs {sum_cpu:.1}");
    // The renderer's footprint holds at least what it keeps for these
    // areas: each one's transform (80 bytes) and each quad on the CPU; the
    // uniform buffer in whole blocks and the quads' buffer on the GPU.
    // (A lower bound: vectors hold more than they use.)
    let fp = r.footprint();
    let quad_bytes = std::mem::size_of_val(r.transformed_instances());
    assert!(fp.cpu_bytes >= n * 80 + quad_bytes, "{fp:?}: {n} areas, {quad_bytes} B of quads");
    let blocks = n.div_ceil(per) as u64;
    assert!(fp.gpu_bytes >= blocks * per as u64 * 80 + quad_bytes as u64, "{fp:?}");
}

/// `PrepareReport::draws` counts what `render` records: nothing for no
/// text, one draw for axis-aligned text, one more for a transformed area,
/// none for a transformed area whose bounds leave nothing to draw (its
/// scissor rectangle is empty), and one for two transformed areas in a row.
#[test]
fn the_report_counts_the_draws_render_records() {
    let (w, h) = (200u32, 100u32);
    let (device, queue, mut atlas, font, mut r, vp) = neutral_rig(CacheConfig::default(), w, h);
    let spec = TextSpec::new("Draws", font, 20.0);
    let flat = TextArea::text(spec, 10.0, 10.0);
    let turned = |x: f32| {
        TextArea::text(spec, x, 50.0).transformed(TextTransform::rotation_about(
            0.3,
            x + 20.0,
            60.0,
        ))
    };
    let narrow = TextBounds { left: 50, top: 50, right: 50, bottom: 90 };
    let flat_bounds = TextBounds { left: 0, top: 60, right: 200, bottom: 60 };
    for (what, areas, draws) in [
        ("nothing", vec![], 0),
        ("axis-aligned text", vec![flat], 1),
        ("and a transformed area", vec![flat, turned(10.0)], 2),
        ("and one with no width", vec![flat, turned(10.0).with_bounds(narrow)], 1),
        ("and one with no height", vec![flat, turned(10.0).with_bounds(flat_bounds)], 1),
        ("and two in a row", vec![flat, turned(10.0), turned(110.0)], 2),
    ] {
        r.prepare(&device, &queue, &mut atlas, &areas, &vp).unwrap();
        let rep = r.prepare(&device, &queue, &mut atlas, &areas, &vp).unwrap();
        assert_eq!(rep.draws, draws, "{what}");
    }
}

/// A viewport whose correction changes reaches transformed text too: after
/// the change, a renderer that drew with the default correction draws the
/// same pixels as a fresh renderer that only knew the new one.
#[test]
fn a_new_correction_reaches_transformed_text() {
    let (device, queue) = gpu();
    let mut atlas = TextAtlas::new(&device, CacheConfig::default()).unwrap();
    let font = atlas.add_font(sans()).unwrap();
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let (w, h) = (240u32, 80u32);
    let target = Offscreen::new(&device, w, h, format).unwrap();
    let spec = TextSpec::new("Turned text, corrected", font, 18.0).color([20, 20, 20, 255]);
    let area = TextArea::text(spec, 10.0, 20.0)
        .transformed(TextTransform::rotation_about(0.15, 100.0, 30.0));
    let draw = |r: &mut TextRenderer, vp: &Viewport, atlas: &mut TextAtlas| {
        r.prepare(&device, &queue, atlas, &[area], vp).unwrap();
        draw_and_read(&device, &queue, r, atlas, &target, wgpu::Color::WHITE)
    };
    let mut vp = Viewport::new(&device, &atlas);
    vp.update(&queue, w, h);
    let mut r = TextRenderer::new(&device, &atlas, format, Default::default(), None);
    r.set_outline_policy(OutlinePolicy::NEVER);
    let default = draw(&mut r, &vp, &mut atlas);
    vp.set_correction(&queue, TextCorrection::NEUTRAL).unwrap();
    let switched = draw(&mut r, &vp, &mut atlas);
    let mut fresh = TextRenderer::new(&device, &atlas, format, Default::default(), None);
    fresh.set_outline_policy(OutlinePolicy::NEVER);
    let neutral = draw(&mut fresh, &vp, &mut atlas);
    assert!(switched == neutral, "the switched renderer draws the neutral correction");
    let differ = default.chunks(4).zip(neutral.chunks(4)).filter(|(a, b)| a != b).count();
    assert!(differ > 100, "the corrections differ visibly ({differ} pixels)");
}

/// A glyph larger than a page, in a transformed area, is drawn from tiles
/// that abut, each sampled within its own slot (beyond a tile's edge lie
/// other glyphs' texels or a gutter): the picture of the same glyphs from
/// one slot each on a larger page but along the seams, where a tile's
/// samples stop at its edge (measured: 120 bytes of 360,000 off by more
/// than 16 levels; sampled past the tiles' edges, as the bordered stage
/// samples, 1,194).
#[test]
fn a_tiled_glyph_in_a_transformed_area_draws_like_one_slot() {
    let draw = |page: u32| {
        let (w, h) = (300u32, 300u32);
        let config = CacheConfig { page_size: page, max_pages: 32, ..CacheConfig::default() };
        let (device, queue, mut atlas, font, mut r, vp) = neutral_rig(config, w, h);
        let format = wgpu::TextureFormat::Rgba8Unorm;
        // Filler first, so other glyphs' texels lie beside the tiles.
        let filler = TextSpec::new("abcdefgh", font, 30.0).at(0.0, 280.0).color([255; 4]);
        let spec = TextSpec::new("W@", font, 120.0).at(10.0, 20.0).color([255; 4]);
        let t = TextTransform::Affine([1.13, 0.0, 0.0, 1.13, 3.3, 2.7]);
        let areas =
            [TextArea::text(filler, 0.0, 0.0), TextArea::text(spec, 0.0, 0.0).transformed(t)];
        r.prepare(&device, &queue, &mut atlas, &areas, &vp).unwrap();
        let rep = r.prepare(&device, &queue, &mut atlas, &areas, &vp).unwrap();
        assert!(rep.skipped.is_empty(), "{:?}", rep.skipped);
        let n = r.transformed_instances().len();
        let target = Offscreen::new(&device, w, h, format).unwrap();
        (draw_and_read(&device, &queue, &r, &atlas, &target, wgpu::Color::BLACK), n)
    };
    let (tiled, tiles) = draw(64);
    let (whole, slots) = draw(1024);
    assert!(tiles > slots && slots == 2, "{tiles} tiles, {slots} slots");
    let off: Vec<u8> = tiled.iter().zip(&whole).map(|(a, b)| a.abs_diff(*b)).collect();
    let many = off.iter().filter(|&&d| d > 16).count();
    assert!(many <= 300, "{many} bytes off by more than 16 ({tiles} tiles)");
}
