//! Retained runs ([`RetainedRun`]): a run drawn again from its recorded
//! quads must draw what looking every glyph up draws, keep its glyphs safe
//! from eviction, and never outlive what it recorded.

mod canvas;

use canvas::composite;
use kerf_cache::*;
use proptest::prelude::*;

const W: usize = 640;
const H: usize = 200;

fn cache(page: u32) -> (GlyphCache, FontId) {
    let config = CacheConfig { page_size: page, max_pages: 1, ..CacheConfig::default() };
    let mut c = GlyphCache::new(config).expect("config");
    let font = c.add_font(dejavu::sans::regular().to_vec()).expect("DejaVu Sans");
    (c, font)
}

/// A line of `n` glyphs from `first` at `size`, pens at fractional x.
fn line(font: FontId, first: u16, n: u16, size: f32, y: f32) -> Vec<PositionedGlyph> {
    (0..n)
        .map(|i| PositionedGlyph {
            font,
            glyph: first + i,
            size,
            x: 3.3 + i as f32 * (size * 0.7 + 0.27),
            y,
            color: [20, 30, 40, 255],
        })
        .collect()
}

/// One frame of `c` drawing `glyphs` through `run`: its output and quads.
fn retained_frame(
    c: &mut GlyphCache, glyphs: &[PositionedGlyph], run: &mut RetainedRun,
) -> (FrameOutput, Vec<GlyphQuad>) {
    let mut quads = Vec::new();
    let mut f = c.begin_frame();
    f.prepare_retained(glyphs, &mut quads, run);
    (f.finish(), quads)
}

/// A run through which `glyphs` went twice: its keys recorded, ready to be
/// drawn from its record.
fn ready_run(c: &mut GlyphCache, glyphs: &[PositionedGlyph]) -> RetainedRun {
    let mut run = RetainedRun::default();
    for _ in 0..2 {
        retained_frame(c, glyphs, &mut run);
    }
    assert!(run.is_ready());
    run
}

/// What a quad draws, but for where its texels are.
fn placed(q: &GlyphQuad) -> (i32, i32, u16, u16, [u8; 4], QuadFlags) {
    (q.x, q.y, q.width, q.height, q.color, q.flags)
}

/// One frame of areas: each area's glyphs, drawn by `a` through its retained
/// run and by `b` with plain lookups; both must draw the same.
fn frame_pair(
    a: &mut GlyphCache, runs: &mut [RetainedRun], b: &mut GlyphCache,
    areas: &[Vec<PositionedGlyph>],
) -> (FrameOutput, FrameOutput, Vec<GlyphQuad>) {
    let (mut qa, mut qb) = (Vec::new(), Vec::new());
    let mut fa = a.begin_frame();
    for (glyphs, run) in areas.iter().zip(runs.iter_mut()) {
        fa.prepare_retained(glyphs, &mut qa, run);
    }
    let oa = fa.finish();
    let mut fb = b.begin_frame();
    for glyphs in areas {
        fb.prepare(glyphs, &mut qb);
    }
    let ob = fb.finish();
    assert_eq!(
        qa.iter().map(placed).collect::<Vec<_>>(),
        qb.iter().map(placed).collect::<Vec<_>>()
    );
    assert!(composite(a, &qa, W, H) == composite(b, &qb, W, H), "the two caches draw differently");
    assert_eq!((oa.counts.lookups, oa.skipped.len()), (ob.counts.lookups, ob.skipped.len()));
    a.check_invariants().expect("invariants");
    (oa, ob, qa)
}

#[test]
fn a_steady_run_is_reused_and_counted_as_hits() {
    let (mut a, font) = cache(512);
    let (mut b, _) = cache(512);
    let areas = vec![line(font, 36, 30, 16.0, 40.0), line(font, 70, 20, 22.0, 90.0)];
    let mut runs = vec![RetainedRun::default(); 2];
    for frame in 0..5 {
        let (oa, _, quads) = frame_pair(&mut a, &mut runs, &mut b, &areas);
        assert_eq!(oa.counts.lookups, 50);
        if frame >= 1 {
            assert_eq!(oa.counts.hits, 50, "frame {frame}");
            assert!(runs.iter().all(RetainedRun::is_ready), "recorded by frame {frame}");
        }
        assert!(!quads.is_empty());
    }
    // From the third frame on, both areas' quads are their records'.
    let mut quads = Vec::new();
    let mut f = a.begin_frame();
    for (glyphs, run) in areas.iter().zip(runs.iter_mut()) {
        assert!(f.prepare_retained(glyphs, &mut quads, run), "drawn from its record");
    }
    assert_eq!(f.finish().counts.hits, 50);
}

/// Glyph runs ([`GlyphRun`]) through retained runs: the same run is known
/// by reference, an equal run made anew by its glyphs, another run's glyphs
/// are looked up; every frame draws what plain lookups of the same glyphs
/// draw (another cache), and the run is reused exactly when its glyphs are
/// the ones it recorded and it is ready.
#[test]
fn glyph_runs_are_known_by_reference_and_draw_what_lookups_draw() {
    let (mut a, font) = cache(512);
    let (mut b, _) = cache(512);
    let first = GlyphRun::new(line(font, 36, 24, 16.0, 40.0));
    let equal: GlyphRun = line(font, 36, 24, 16.0, 40.0).into();
    // (Other glyphs: the same ones a pixel lower would be a move, reused.)
    let other = GlyphRun::new(line(font, 37, 24, 16.0, 40.0));
    assert!(first.same_as(&first.clone()) && !first.same_as(&equal));
    assert!(first.id() == first.clone().id() && first.id() != equal.id());
    assert_eq!(first.glyphs(), &line(font, 36, 24, 16.0, 40.0)[..]);
    assert_eq!((first.first_size(), GlyphRun::default().first_size()), (16.0, 0.0));
    let mut run = RetainedRun::default();
    // (run drawn, reused?): recorded the second time, reused the third;
    // an equal run is reused; another run's glyphs are not, then recorded.
    let frames = [
        (&first, false),
        (&first, false),
        (&first, true),
        (&equal, true),
        (&equal, true),
        (&other, false),
        (&other, false),
        (&other, true),
        (&first, false),
        (&first, false),
        (&first, true),
    ];
    // The last three again in LCD: the same run in another mode is not
    // the record (LCD quads are three texels a pixel).
    let frames = frames.into_iter().map(|(g, r)| (g, r, false));
    let frames = frames.chain([(&first, false, true), (&first, false, true), (&first, true, true)]);
    for (i, (glyphs, reused, lcd)) in frames.enumerate() {
        let (mut qa, mut qb) = (Vec::new(), Vec::new());
        let mut fa = a.begin_frame();
        assert_eq!(fa.prepare_run(glyphs, lcd, &mut qa, &mut run), reused, "frame {i}");
        let oa = fa.finish();
        let mut fb = b.begin_frame();
        match lcd {
            false => fb.prepare(glyphs, &mut qb),
            true => fb.prepare_lcd(glyphs, &mut qb),
        }
        let ob = fb.finish();
        assert_eq!(
            qa.iter().map(placed).collect::<Vec<_>>(),
            qb.iter().map(placed).collect::<Vec<_>>(),
            "frame {i}"
        );
        assert!(composite(&a, &qa, W, H) == composite(&b, &qb, W, H), "frame {i}");
        assert_eq!(oa.counts.lookups, ob.counts.lookups);
        a.check_invariants().expect("invariants");
    }
    // A run holds a clone of the glyph run, not a copy of its glyphs as a
    // run of a slice does.
    let run = ready_run(&mut a, &first); // (recorded: frames as above)
    let mut shared = RetainedRun::default();
    for _ in 0..2 {
        let mut f = a.begin_frame();
        f.prepare_run(&first, false, &mut Vec::new(), &mut shared);
        f.finish();
    }
    let glyph_bytes = first.len() * std::mem::size_of::<PositionedGlyph>();
    assert!(shared.is_ready());
    assert!(run.heap_bytes() >= shared.heap_bytes() + glyph_bytes);
}

/// A recorded run's extent is the box its quads cover, in pixels (an LCD
/// quad three texels a pixel across), worked out here from the quads a
/// plain lookup of the same glyphs makes; empty before anything is recorded.
#[test]
fn a_recorded_run_s_extent_is_the_box_its_quads_cover() {
    let (mut a, font) = cache(512);
    let glyphs = line(font, 36, 20, 18.0, 40.0);
    assert_eq!(RetainedRun::default().extent(), [0; 4]);
    for lcd in [false, true] {
        let mut run = RetainedRun::default();
        let mut quads = Vec::new();
        for _ in 0..3 {
            quads.clear();
            let mut f = a.begin_frame();
            match lcd {
                false => f.prepare_retained(&glyphs, &mut quads, &mut run),
                true => f.prepare_lcd_retained(&glyphs, &mut quads, &mut run),
            };
            f.finish();
        }
        assert!(run.is_ready());
        let per_px = if lcd { 3 } else { 1 };
        let left = quads.iter().map(|q| q.x).min().unwrap();
        let top = quads.iter().map(|q| q.y).min().unwrap();
        let right = quads.iter().map(|q| q.x + i32::from(q.width) / per_px).max().unwrap();
        let bottom = quads.iter().map(|q| q.y + i32::from(q.height)).max().unwrap();
        assert_eq!(run.extent(), [left, top, right, bottom], "lcd {lcd}");
        assert!(right - left > 200, "the line's width in pixels: {}", right - left);
    }
}

/// A clone of a ready run holds its glyphs and quads but not its keys' slot
/// (a slot is one run's): it records its keys the next time the same glyphs
/// come and is reused after, while the run it was cloned from stays reused.
#[test]
fn a_clone_records_its_own_keys_before_it_is_reused() {
    let (mut c, font) = cache(512);
    let glyphs = line(font, 36, 20, 18.0, 40.0);
    let mut run = ready_run(&mut c, &glyphs);
    let mut twin = run.clone();
    assert!(!twin.is_ready(), "a clone has no keys of its own yet");
    let least = glyphs.len() * std::mem::size_of::<PositionedGlyph>();
    assert!(twin.heap_bytes() >= least, "but the glyphs: {}", twin.heap_bytes());
    for frame in 0..3 {
        let (mut qa, mut qb) = (Vec::new(), Vec::new());
        let mut f = c.begin_frame();
        assert!(f.prepare_retained(&glyphs, &mut qa, &mut run), "frame {frame}: the original");
        let reused = f.prepare_retained(&glyphs, &mut qb, &mut twin);
        assert_eq!(reused, frame > 0, "frame {frame}: the clone records, then is reused");
        f.finish();
        assert!(twin.is_ready());
        assert_eq!(qa, qb);
    }
}

#[test]
fn glyphs_drawn_from_a_record_are_not_evicted_under_them() {
    // One area stays the same for many frames (drawn from its record) while
    // another draws new glyphs at a new size every frame, filling the page:
    // eviction must take the churned glyphs, never the steady area's, or
    // the steady area's quads would point at another glyph's texels.
    let (mut a, font) = cache(256);
    let (mut b, _) = cache(256);
    let steady = line(font, 36, 24, 15.0, 40.0);
    let mut runs = vec![RetainedRun::default(); 2];
    let mut evictions = 0;
    for frame in 0..40 {
        // (20 churned glyphs leave the page some room: at 22 the last
        // frames filled it exactly, and whether a bin fit turned on one
        // level of an edge pixel, which trimming keeps or drops.)
        let churn = line(font, 40 + (frame % 7) as u16, 20, 18.0 + frame as f32 * 0.5, 120.0);
        let (oa, _, _) = frame_pair(&mut a, &mut runs, &mut b, &[steady.clone(), churn]);
        evictions += oa.counts.evictions;
        assert!(oa.skipped.is_empty(), "frame {frame}: {:?}", oa.skipped);
    }
    assert!(evictions > 100, "the page churned ({evictions} evictions)");
    // The steady area was drawn from its record in the last frames.
    assert!(runs[0].is_ready());
}

#[test]
fn a_record_is_not_reused_after_the_cache_changes_or_in_another_cache() {
    let (mut a, font) = cache(512);
    let glyphs = line(font, 36, 30, 16.0, 40.0);
    let mut run = ready_run(&mut a, &glyphs);
    // Cleared: every glyph is rasterized again, and the quads are right.
    a.clear();
    let (out, again) = retained_frame(&mut a, &glyphs, &mut run);
    assert_eq!(out.counts.hits, 0, "a cleared cache has nothing to hit");
    let (mut b, font_b) = cache(512);
    assert_eq!(font_b, font);
    let mut plain = Vec::new();
    let mut f = b.begin_frame();
    f.prepare(&glyphs, &mut plain);
    f.finish();
    assert!(composite(&a, &again, W, H) == composite(&b, &plain, W, H));
    // The same run in another cache: looked up there, not copied.
    retained_frame(&mut b, &glyphs, &mut run);
    let (out, other) = retained_frame(&mut b, &glyphs, &mut run);
    assert_eq!(out.counts.lookups, 30);
    assert!(composite(&b, &other, W, H) == composite(&b, &plain, W, H));
    // Changed glyphs are looked up (a moved glyph draws where it now is).
    let mut moved = glyphs.clone();
    moved[3].x += 9.0;
    let (_, q) = retained_frame(&mut a, &moved, &mut run);
    assert_eq!(q[3].x, again[3].x + 9);
    assert!(!run.is_ready(), "a new run is recorded only when it comes again");
}

#[test]
fn a_record_outlived_by_its_glyphs_slots_is_not_reused() {
    // Run 1 records a line, then sits out while churn evicts the line's
    // glyphs and another area draws the line again (its glyphs cached anew,
    // elsewhere on the page). Every key of run 1 is cached again, so only
    // the epoch tells that its record points at old slots.
    let (mut a, font) = cache(256);
    let (mut b, _) = cache(256);
    let line_s = line(font, 36, 16, 20.0, 40.0);
    let other = line(font, 80, 16, 20.0, 80.0);
    let mut runs = vec![RetainedRun::default(); 2];
    let (_, _, first) = frame_pair(&mut a, &mut runs, &mut b, &[other.clone(), line_s.clone()]);
    frame_pair(&mut a, &mut runs, &mut b, &[other.clone(), line_s.clone()]);
    assert!(runs[1].is_ready());
    let mut evictions = 0;
    for frame in 0..30 {
        let churn = line(font, 40 + (frame % 5) as u16, 20, 24.0 + frame as f32 * 0.5, 120.0);
        evictions += frame_pair(&mut a, &mut runs, &mut b, &[churn]).0.counts.evictions;
    }
    assert!(evictions > 100, "the page churned ({evictions} evictions)");
    frame_pair(&mut a, &mut runs, &mut b, std::slice::from_ref(&line_s));
    let (_, _, last) = frame_pair(&mut a, &mut runs, &mut b, &[line_s.clone(), line_s.clone()]);
    let texels = |q: &[GlyphQuad]| q.iter().map(|q| (q.tex_x, q.tex_y)).collect::<Vec<_>>();
    let n = first.len() / 2;
    assert_ne!(texels(&first[n..]), texels(&last[n..]), "the line's glyphs moved");
}

#[test]
fn glyphs_drawn_from_a_record_are_not_trimmed_as_idle() {
    // Glyphs unused for 3 frames are released at the end of a frame: a run
    // drawn from its record every frame uses its glyphs every frame.
    let config = CacheConfig { release_idle_after: Some(3), ..CacheConfig::default() };
    let mut c = GlyphCache::new(config).expect("config");
    let font = c.add_font(dejavu::sans::regular().to_vec()).expect("DejaVu Sans");
    let glyphs = line(font, 36, 20, 16.0, 40.0);
    let mut run = RetainedRun::default();
    for frame in 0..20 {
        let (out, _) = retained_frame(&mut c, &glyphs, &mut run);
        assert_eq!(out.counts.evictions, 0, "frame {frame}");
        if frame > 0 {
            assert_eq!(out.counts.hits, 20, "frame {frame}");
        }
    }
    assert!(run.is_ready());
}

#[test]
fn a_skipped_glyph_is_never_recorded() {
    // An invalid size is skipped and reported: a record would hide the report.
    let (mut a, font) = cache(512);
    let mut glyphs = line(font, 36, 10, 16.0, 40.0);
    glyphs[4].size = f32::NAN;
    let mut run = RetainedRun::default();
    for frame in 0..4 {
        let (out, quads) = retained_frame(&mut a, &glyphs, &mut run);
        assert_eq!(out.skipped.len(), 1, "frame {frame} reports the glyph");
        assert_eq!(quads.len(), 9);
    }
    assert!(!run.is_ready());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Frames of three areas, each drawing one of a few lines (or a new
    /// size) at random on a small page: through retained runs, the same as
    /// plain lookups, whatever evicts what.
    #[test]
    fn retained_frames_draw_what_lookups_draw(
        picks in prop::collection::vec((0usize..5, 0usize..5, 0usize..5), 1..30),
    ) {
        let (mut a, font) = cache(256);
        let (mut b, _) = cache(256);
        let lines: Vec<Vec<PositionedGlyph>> = (0..5)
            .map(|i| line(font, 36 + 9 * i as u16, 14, 14.0 + 5.0 * i as f32, 30.0 + 30.0 * i as f32))
            .collect();
        let mut runs = vec![RetainedRun::default(); 3];
        for (n, &(x, y, z)) in picks.iter().enumerate() {
            let mut areas = vec![lines[x].clone(), lines[y].clone(), lines[z].clone()];
            if n % 4 == 3 {
                // Now and then a size no frame used: misses that evict.
                areas[1] = line(font, 50, 14, 30.0 + n as f32 * 0.25, 150.0);
            }
            frame_pair(&mut a, &mut runs, &mut b, &areas);
        }
    }
}

/// A run's heap bytes cover what it recorded: at least one glyph per glyph
/// drawn, and once it is ready to be reused, one quad per glyph too; nothing
/// before its first frame.
#[test]
fn a_runs_heap_bytes_cover_its_record() {
    let (mut c, font) = cache(512);
    let mut run = RetainedRun::default();
    assert_eq!(run.heap_bytes(), 0);
    let glyphs = line(font, 36, 20, 18.0, 40.0);
    retained_frame(&mut c, &glyphs, &mut run);
    let per_glyph = std::mem::size_of::<PositionedGlyph>();
    assert!(run.heap_bytes() >= glyphs.len() * per_glyph, "{}", run.heap_bytes());
    retained_frame(&mut c, &glyphs, &mut run);
    assert!(run.is_ready());
    let least = glyphs.len() * (per_glyph + std::mem::size_of::<GlyphQuad>());
    assert!(run.heap_bytes() >= least, "{} < {least}", run.heap_bytes());
}

/// A run is reused only when every field of every glyph is the same: a
/// change of one field alone (the glyph id, the font, the size, a pen, the
/// colour) in one glyph draws what plain lookups draw, not the old record.
#[test]
fn a_change_of_any_one_field_is_seen() {
    let (mut a, font) = cache(512);
    let other = a.add_font(dejavu::serif::regular().to_vec()).expect("DejaVu Serif");
    let (mut b, _) = cache(512);
    b.add_font(dejavu::serif::regular().to_vec()).expect("DejaVu Serif");
    let base = line(font, 36, 12, 18.0, 40.0);
    let changes: [fn(&mut PositionedGlyph, FontId); 6] = [
        |g, _| g.glyph += 1,
        |g, f| g.font = f,
        |g, _| g.size = 22.0,
        |g, _| g.x += 7.0,
        |g, _| g.y += 5.0,
        |g, _| g.color = [200, 30, 40, 255],
    ];
    for (i, change) in changes.iter().enumerate() {
        let mut runs = vec![RetainedRun::default()];
        frame_pair(&mut a, &mut runs, &mut b, std::slice::from_ref(&base));
        frame_pair(&mut a, &mut runs, &mut b, std::slice::from_ref(&base));
        let mut changed = base.clone();
        change(&mut changed[5], other);
        let (_, _, quads) = frame_pair(&mut a, &mut runs, &mut b, &[changed]);
        assert_eq!(quads.len(), base.len(), "change {i}");
    }
    // Two fields changed by the same bits at once: one change must not hide
    // the other (the glyph id and the size, the pen's x and y, the y and
    // the colour, the colour and the x, each pair XORed by the same low
    // bit; the pen's x and y by the same higher bits, which move it).
    let flip = |v: f32| f32::from_bits(v.to_bits() ^ 1);
    let pairs: [fn(&mut PositionedGlyph); 5] = [
        |g| (g.glyph, g.size) = (g.glyph ^ 1, f32::from_bits(g.size.to_bits() ^ 1)),
        |g| (g.x, g.y) = (f32::from_bits(g.x.to_bits() ^ 1), f32::from_bits(g.y.to_bits() ^ 1)),
        |g| {
            g.y = f32::from_bits(g.y.to_bits() ^ 1);
            g.color = (u32::from_ne_bytes(g.color) ^ 1).to_ne_bytes();
        },
        |g| {
            g.x = f32::from_bits(g.x.to_bits() ^ 1);
            g.color = (u32::from_ne_bytes(g.color) ^ 1).to_ne_bytes();
        },
        |g| {
            // (40 px becomes 48.)
            g.x = f32::from_bits(g.x.to_bits() ^ 0x0060_0000);
            g.y = f32::from_bits(g.y.to_bits() ^ 0x0060_0000);
        },
    ];
    assert_ne!(flip(1.0), 1.0);
    for (i, change) in pairs.iter().enumerate() {
        let mut runs = vec![RetainedRun::default()];
        frame_pair(&mut a, &mut runs, &mut b, std::slice::from_ref(&base));
        frame_pair(&mut a, &mut runs, &mut b, std::slice::from_ref(&base));
        let mut changed = base.clone();
        change(&mut changed[5]);
        let (_, _, quads) = frame_pair(&mut a, &mut runs, &mut b, &[changed]);
        assert_eq!(quads.len(), base.len(), "pair {i}");
    }
    // The same in a run drawn from its record a pixel lower each frame, so
    // that the move comparison decides, with pairs next to each other in it
    // (each with a field that changes the quad: the font, the glyph, the
    // colour). (The two fonts' ids differ in their low bit, as the glyph
    // ids do.)
    let moving: [fn(&mut PositionedGlyph, FontId); 4] = [
        |g, f| (g.font, g.glyph) = (f, g.glyph ^ 1),
        |g, _| (g.glyph, g.size) = (g.glyph ^ 1, f32::from_bits(g.size.to_bits() ^ 1)),
        |g, _| {
            g.size = f32::from_bits(g.size.to_bits() ^ 1);
            g.color = (u32::from_ne_bytes(g.color) ^ 1).to_ne_bytes();
        },
        |g, _| {
            g.x = f32::from_bits(g.x.to_bits() ^ 1);
            g.color = (u32::from_ne_bytes(g.color) ^ 1).to_ne_bytes();
        },
    ];
    for (i, change) in changes.iter().chain(&moving).enumerate() {
        let mut runs = vec![RetainedRun::default()];
        // Recorded as it moves, then drawn from the record a pixel lower.
        for k in 0..4 {
            frame_pair(&mut a, &mut runs, &mut b, &[moved(&base, (0.0, k as f32))]);
        }
        let mut changed = moved(&base, (0.0, 4.0));
        change(&mut changed[5], other);
        let (_, _, quads) = frame_pair(&mut a, &mut runs, &mut b, &[changed]);
        assert_eq!(quads.len(), base.len(), "moving pair {i}");
    }
}

/// A run whose glyphs keep changing writes each new record over its own:
/// however often it is recorded, the cache holds one run record for it
/// (not one for each recording, left until a prune), beside the uses of
/// the two lines' keys handed in as each record is overwritten.
#[test]
fn a_run_recorded_again_and_again_holds_one_record() {
    let (mut c, font) = cache(512);
    let lines = [line(font, 36, 12, 16.0, 40.0), line(font, 50, 12, 16.0, 40.0)];
    let mut run = RetainedRun::default();
    let mut most = 0;
    for frame in 0..60 {
        // Each line for two frames: recorded on its second.
        retained_frame(&mut c, &lines[(frame / 2) % 2], &mut run);
        most = most.max(c.footprint().recency_records);
    }
    assert!(run.is_ready());
    assert!(most <= 1 + 2 * 12, "{most} records for one run of 12 glyphs");
}

/// Glyphs that only look like a moving run at their ends are never
/// recorded: before a record, a run counts the frames its glyphs move
/// alike by its first and last glyph, and only when they are as many. A
/// label that gains a glyph in its middle each frame keeps its first glyph
/// and moves its last by whole pixels; one that gains a glyph at its front
/// moves its last by whole pixels too (its first is a new glyph): neither
/// is the same run moved, so neither is ever recorded (each is looked up
/// every frame, the glyphs being others each time).
#[test]
fn a_run_that_grows_is_never_counted_as_moving() {
    let (mut c, font) = cache(512);
    let at = |glyph: u16, i: usize| PositionedGlyph {
        font,
        glyph,
        size: 16.0,
        x: 10.0 + 10.0 * i as f32,
        y: 40.0,
        color: [0, 0, 0, 255],
    };
    // 'a', k × 'x', 'b' (glyph ids of DejaVu Sans); then k × 'x', 'b'.
    let middle = |k: usize| -> Vec<PositionedGlyph> {
        let mut g = vec![at(68, 0)];
        g.extend((1..=k).map(|i| at(91, i)));
        g.push(at(69, k + 1));
        g
    };
    let front = |k: usize| -> Vec<PositionedGlyph> {
        let mut g: Vec<_> = (0..k).map(|i| at(91 + (k % 2) as u16, i)).collect();
        g.push(at(69, k));
        g
    };
    for (what, grow) in [("middle", &middle as &dyn Fn(usize) -> Vec<_>), ("front", &front)] {
        let mut run = RetainedRun::default();
        for k in 1..12 {
            let (_, quads) = retained_frame(&mut c, &grow(k), &mut run);
            assert!(!quads.is_empty());
            assert!(!run.is_ready(), "{what}: recorded at frame {k}");
        }
    }
}

/// `glyphs` moved by `(dx, dy)`.
fn moved(glyphs: &[PositionedGlyph], (dx, dy): (f32, f32)) -> Vec<PositionedGlyph> {
    glyphs.iter().map(|g| PositionedGlyph { x: g.x + dx, y: g.y + dy, ..*g }).collect()
}

/// One frame of `glyphs` drawn by `a` through `run` and by `b` with plain
/// lookups, which must draw the same (quads, CPU composite, counts):
/// whether `a` drew from the record, its quads and the box they cover.
fn moved_frame(
    a: &mut GlyphCache, b: &mut GlyphCache, glyphs: &[PositionedGlyph], run: &mut RetainedRun,
    what: &str,
) -> (bool, Vec<GlyphQuad>, [i32; 4]) {
    let (mut qa, mut qb) = (Vec::new(), Vec::new());
    let mut fa = a.begin_frame();
    let reused = fa.prepare_retained(glyphs, &mut qa, run);
    let oa = fa.finish();
    let mut fb = b.begin_frame();
    fb.prepare(glyphs, &mut qb);
    let ob = fb.finish();
    assert_eq!(
        qa.iter().map(placed).collect::<Vec<_>>(),
        qb.iter().map(placed).collect::<Vec<_>>(),
        "{what}"
    );
    assert!(composite(a, &qa, W, H) == composite(b, &qb, W, H), "{what}");
    assert_eq!((oa.counts.lookups, oa.counts.hits), (ob.counts.lookups, ob.counts.hits));
    a.check_invariants().expect("invariants");
    let right = |q: &GlyphQuad| q.x + i32::from(q.width);
    let bottom = |q: &GlyphQuad| q.y + i32::from(q.height);
    let min = |f: &dyn Fn(&GlyphQuad) -> i32| qa.iter().map(f).min().unwrap_or(0);
    let max = |f: &dyn Fn(&GlyphQuad) -> i32| qa.iter().map(f).max().unwrap_or(0);
    let extent = [min(&|q| q.x), min(&|q| q.y), max(&right), max(&bottom)];
    (reused, qa, extent)
}

/// A list scrolled smoothly moves its rows by fractions of a pixel: a row
/// whose pens keep their sub-pixel bins and round alike is drawn from its
/// record moved by whole pixels, and draws what lookups draw; a move of
/// half a pixel across takes other bins and is looked up (and the glyphs,
/// moving, are recorded on the second frame in a row they move alike).
#[test]
fn a_run_moved_by_whole_pixels_is_drawn_from_its_record_moved() {
    let (mut a, font) = cache(512);
    let (mut b, _) = cache(512);
    let base = line(font, 36, 16, 16.0, 60.25);
    // (move from the base, reused?)
    let frames = [
        ((0.0, 0.0), false),
        ((0.0, 0.0), false),
        ((0.0, 0.0), true),
        ((0.0, 0.35), true),
        ((0.0, 0.7), true),
        ((0.0, 1.05), true),
        ((0.0, -12.6), true),
        ((3.0, -12.6), true),
        ((-2.0, 40.3), true),
        ((-1.5, 40.3), false),
        ((-1.5, 40.9), false),
        ((-1.5, 41.2), false),
        ((-1.5, 41.4), true),
        ((0.0, 0.0), false),
    ];
    let mut run = RetainedRun::default();
    let mut last: Option<(Vec<GlyphQuad>, u64)> = None;
    for (i, &(by, reused)) in frames.iter().enumerate() {
        let what = format!("frame {i}");
        let (from_record, quads, extent) =
            moved_frame(&mut a, &mut b, &moved(&base, by), &mut run, &what);
        assert_eq!(from_record, reused, "{what}");
        if reused {
            // The extent is where the appended quads lie, and the
            // generation changes exactly when the quads do.
            assert_eq!(run.extent(), extent, "{what}");
            if let Some((q, generation)) = &last {
                assert_eq!(*q == quads, *generation == run.generation(), "{what}");
            }
            last = Some((quads, run.generation()));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Two areas, each of two rows (baselines a fraction apart), moved at
    /// random each frame: by whole pixels, by quarters, by any fraction,
    /// in x and y, on a page small enough that new sizes evict. Through
    /// retained runs they draw what plain lookups draw.
    #[test]
    fn moved_runs_draw_what_lookups_draw(
        moves in prop::collection::vec((0usize..4, 0.0f32..40.0, 0usize..3, -15.0f32..40.0), 1..24),
    ) {
        let (mut a, font) = cache(256);
        let (mut b, _) = cache(256);
        let rows = |first: u16, y: f32| {
            let mut g = line(font, first, 8, 15.0, y);
            g.extend(line(font, first + 8, 8, 15.0, y + 19.5));
            g
        };
        let bases = [rows(36, 30.3), rows(60, 100.0)];
        let mut runs = vec![RetainedRun::default(); 2];
        let mut at = [(0.0f32, 0.0f32); 2];
        for (n, &(kx, x, ky, y)) in moves.iter().enumerate() {
            // One area moves a frame, to a place whole, on a quarter or
            // anywhere across, and whole or anywhere down.
            let k = n % 2;
            at[k] = ([0.0, x.round(), (x * 4.0).round() / 4.0, x][kx], [0.0, y.round(), y][ky]);
            let mut areas: Vec<Vec<PositionedGlyph>> =
                bases.iter().zip(&at).map(|(g, &by)| moved(g, by)).collect();
            if n % 5 == 4 {
                // Now and then a size no frame used: misses that evict.
                areas[1] = line(font, 50, 14, 28.0 + n as f32 * 0.5, 150.0);
            }
            frame_pair(&mut a, &mut runs, &mut b, &areas);
        }
    }
}

/// Rows: a run of lines whose baselines lie a fraction apart (a line
/// height of 20.8 px) rounds its rows differently as it scrolls by
/// fractions, and is still drawn from its record, each row moved by its
/// own whole pixels.
#[test]
fn a_run_of_rows_scrolled_by_fractions_is_drawn_from_its_record() {
    let (mut a, font) = cache(512);
    let (mut b, _) = cache(512);
    let mut base = line(font, 36, 12, 16.0, 30.0);
    base.extend(line(font, 50, 12, 16.0, 50.8));
    base.extend(line(font, 64, 12, 16.0, 71.6));
    let mut run = RetainedRun::default();
    let mut reused = 0;
    for i in 0..24 {
        let glyphs = moved(&base, (0.0, 0.35 * i as f32));
        let what = format!("frame {i}");
        let (from_record, _, extent) = moved_frame(&mut a, &mut b, &glyphs, &mut run, &what);
        // Recorded as they move on the third frame, their rows' quads found
        // on the fourth (the rows round apart), reused from the fifth.
        assert_eq!(from_record, i >= 4, "{what}");
        reused += usize::from(from_record);
        if from_record {
            assert_eq!(run.extent(), extent, "{what}");
        }
    }
    assert_eq!(reused, 20);
    // Its heap holds the glyphs and quads recorded, its three rows' ends
    // and, moved, each row's move.
    let least = base.len()
        * (std::mem::size_of::<PositionedGlyph>() + std::mem::size_of::<GlyphQuad>())
        + 3 * 8
        + 8;
    assert!((least..4 * least).contains(&run.heap_bytes()), "{} for {least}", run.heap_bytes());
}

/// A glyph in tiles in the first row: looked up row by row its tiles come
/// before the next row's quads, where one batch puts them after, so the
/// record does not know its rows and moves only as a whole. Every frame
/// still draws what lookups draw.
#[test]
fn a_record_whose_rows_come_out_otherwise_moves_only_whole() {
    let config = CacheConfig { page_size: 256, max_pages: 4, ..CacheConfig::default() };
    let mut caches: Vec<GlyphCache> =
        (0..2).map(|_| GlyphCache::new(config.clone()).unwrap()).collect();
    let font = caches[0].add_font(dejavu::sans::regular().to_vec()).unwrap();
    caches[1].add_font(dejavu::sans::regular().to_vec()).unwrap();
    let big =
        PositionedGlyph { font, glyph: 58, size: 300.0, x: 2.3, y: 280.0, color: [0, 0, 0, 255] };
    let mut base = vec![big];
    base.extend(line(font, 36, 6, 16.0, 300.3));
    let mut run = RetainedRun::default();
    // (move, reused?): recorded on the second frame; a move alike for both
    // rows is reused, one that rounds the rows apart is looked up.
    let frames = [(0.0, false), (0.0, false), (1.0, true), (1.1, true), (1.4, false), (1.4, false)];
    let mut tiled = false;
    for (i, &(dy, reused)) in frames.iter().enumerate() {
        let glyphs = moved(&base, (0.0, dy));
        let mut quads = [Vec::new(), Vec::new()];
        let mut from_record = false;
        for (k, (c, q)) in caches.iter_mut().zip(&mut quads).enumerate() {
            let mut f = c.begin_frame();
            if k == 0 {
                from_record = f.prepare_retained(&glyphs, q, &mut run);
            } else {
                f.prepare(&glyphs, q);
            }
            let out = f.finish();
            assert!(out.skipped.is_empty(), "{:?}", out.skipped);
        }
        assert_eq!(
            quads[0].iter().map(placed).collect::<Vec<_>>(),
            quads[1].iter().map(placed).collect::<Vec<_>>(),
            "frame {i}"
        );
        tiled |= quads[0].len() > base.len();
        assert_eq!(from_record, reused, "frame {i}");
    }
    assert!(tiled, "the big glyph is drawn in tiles");
}

/// A run recorded in grayscale is not drawn from its record in LCD (its
/// quads are three texels a pixel there), nor the other way round: the
/// same glyphs through the same run, switching mode, draw what plain
/// lookups in that mode draw.
#[test]
fn a_record_is_not_reused_in_another_mode() {
    let (mut a, font) = cache(512);
    let (mut b, _) = cache(512);
    let glyphs = line(font, 36, 10, 14.0, 40.0);
    let mut run = ready_run(&mut a, &glyphs);
    for (i, lcd) in [true, true, true, false, false, false].into_iter().enumerate() {
        let (mut qa, mut qb) = (Vec::new(), Vec::new());
        let mut fa = a.begin_frame();
        let reused = match lcd {
            true => fa.prepare_lcd_retained(&glyphs, &mut qa, &mut run),
            false => fa.prepare_retained(&glyphs, &mut qa, &mut run),
        };
        fa.finish();
        let mut fb = b.begin_frame();
        match lcd {
            true => fb.prepare_lcd(&glyphs, &mut qb),
            false => fb.prepare(&glyphs, &mut qb),
        }
        fb.finish();
        assert_eq!(
            qa.iter().map(placed).collect::<Vec<_>>(),
            qb.iter().map(placed).collect::<Vec<_>>(),
            "frame {i}, LCD {lcd}"
        );
        // The first two frames in a mode record it; the third reuses it.
        assert_eq!(reused, i % 3 == 2, "frame {i}, LCD {lcd}");
    }
}

/// Two areas in a frame, one scrolling by whole pixels and drawn from its
/// record moved, one still and drawn from its record as it is: each run's
/// move is its own (the moving one's must not reach the still one), and
/// both draw what plain lookups draw.
#[test]
fn a_still_run_beside_a_moving_one_is_not_moved() {
    let (mut a, font) = cache(512);
    let (mut b, _) = cache(512);
    let (scrolling, still) = (line(font, 36, 10, 15.0, 30.0), line(font, 50, 10, 15.0, 150.0));
    let mut runs = vec![RetainedRun::default(); 2];
    for k in 0..10 {
        let areas = [moved(&scrolling, (0.0, k as f32)), still.clone()];
        frame_pair(&mut a, &mut runs, &mut b, &areas);
    }
    assert!(runs.iter().all(RetainedRun::is_ready));
}

/// Glyph runs made anew each frame, moved by whole pixels (a list whose
/// rows are converted again as they scroll), then the same run two frames
/// in a row: drawn from the record moved, and the record kept with the
/// glyphs it was made of, so a run known by reference the next frame is
/// drawn where it is, not where the record was made.
#[test]
fn glyph_runs_moved_then_known_by_reference_draw_what_lookups_draw() {
    let (mut a, font) = cache(512);
    let (mut b, _) = cache(512);
    let base = line(font, 36, 12, 16.0, 40.0);
    let mut run = RetainedRun::default();
    let mut runs: Vec<GlyphRun> =
        (0..8).map(|k| GlyphRun::new(moved(&base, (0.0, k as f32)))).collect();
    // Each moved run twice: the second time it is the one the record knows.
    runs = runs.into_iter().flat_map(|r| [r.clone(), r]).collect();
    for (i, glyphs) in runs.iter().enumerate() {
        let (mut qa, mut qb) = (Vec::new(), Vec::new());
        let mut fa = a.begin_frame();
        fa.prepare_run(glyphs, false, &mut qa, &mut run);
        fa.finish();
        let mut fb = b.begin_frame();
        fb.prepare(glyphs, &mut qb);
        fb.finish();
        assert_eq!(
            qa.iter().map(placed).collect::<Vec<_>>(),
            qb.iter().map(placed).collect::<Vec<_>>(),
            "frame {i}"
        );
    }
}

/// A run that gains or loses a glyph at its end (text typed or deleted),
/// the others as recorded or moved alike, is looked up: a record is never
/// drawn for glyphs of another count.
#[test]
fn a_run_that_grows_or_shrinks_is_looked_up() {
    let (mut a, font) = cache(512);
    let (mut b, _) = cache(512);
    let long = line(font, 36, 12, 16.0, 40.0);
    for (shorter, by) in [(true, 0.0), (false, 0.0), (true, 2.0), (false, 2.0)] {
        let short = &long[..11];
        let (first, then) = if shorter { (&long[..], short) } else { (short, &long[..]) };
        let mut runs = vec![RetainedRun::default()];
        for _ in 0..3 {
            frame_pair(&mut a, &mut runs, &mut b, &[first.to_vec()]);
        }
        assert!(runs[0].is_ready());
        let (_, _, quads) = frame_pair(&mut a, &mut runs, &mut b, &[moved(then, (0.0, by))]);
        assert_eq!(quads.len(), then.len(), "shorter {shorter}, moved {by}");
    }
}
