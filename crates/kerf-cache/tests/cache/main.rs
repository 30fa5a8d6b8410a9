//! Behaviour of the glyph cache: lookups, LRU eviction with deallocation,
//! frame protection, stats, bad input, uploads.

mod bad_input;
#[path = "../made/mod.rs"]
mod made;
mod pages;

use kerf_cache::*;
use kerf_cache::{
    pages::Upload,
    rasterize::{FontdueRasterizer, Rasterizer},
};

fn sans() -> Vec<u8> {
    dejavu::sans::regular().to_vec()
}

/// A cache with whole-pixel positioning (1 sub-pixel bin), so keys are the
/// plain `GlyphKey::new` ones; sub-pixel bins are tested in tests/subpixel.rs.
/// Uploads are dirty rectangles here; per-glyph and Auto uploads are tested
/// in tests/soak.rs (replayed onto a CPU copy of the pages), tests/images.rs
/// and, on a GPU, kerf-wgpu's tests/apps/.
fn cache(page: u32, pages: u32, in_flight: u32) -> (GlyphCache, FontId) {
    let mut c = GlyphCache::new(CacheConfig {
        page_size: page,
        max_pages: pages,
        frames_in_flight: in_flight,
        subpixel_bins: 1,
        uploads: UploadMode::DirtyRect,
        ..CacheConfig::default()
    })
    .unwrap();
    let f = c.add_font(sans()).unwrap();
    (c, f)
}

fn glyph_of(c: &GlyphCache, f: FontId, ch: char) -> u16 {
    c.fonts().get(f).unwrap().glyph_index(ch)
}

/// `s` at 16 px, one glyph every 12 px on the baseline y = 20.
fn row(c: &GlyphCache, f: FontId, s: &str) -> Vec<PositionedGlyph> {
    row_at(c, f, s, 16.0, 12.0, 20.0)
}

/// `s` at `px`, one glyph every `step` px on the baseline `y`.
fn row_at(c: &GlyphCache, f: FontId, s: &str, px: f32, step: f32, y: f32) -> Vec<PositionedGlyph> {
    s.chars()
        .enumerate()
        .map(|(i, ch)| PositionedGlyph {
            font: f,
            glyph: glyph_of(c, f, ch),
            size: px,
            x: step * i as f32,
            y,
            color: [0; 4],
        })
        .collect()
}

fn key(c: &GlyphCache, f: FontId, ch: char, px: f32) -> GlyphKey {
    GlyphKey::new(f, glyph_of(c, f, ch), GlyphSize::from_px(px, 1024.0).unwrap())
}

#[test]
fn hit_after_miss_and_stats_add_up() {
    let (mut c, f) = cache(256, 1, 0);
    assert_eq!(c.stats().hit_rate(), 0.0, "no lookup yet");
    let g = glyph_of(&c, f, 'A');
    let mut fr = c.begin_frame();
    let a = fr.glyph(f, g, 20.0).unwrap();
    let b = fr.glyph(f, g, 20.0).unwrap();
    assert_eq!(a, b);
    let out = fr.finish();
    assert_eq!(out.uploads.len(), 1);
    assert_eq!(out.uploads[0].regions(), 1);
    let s = c.stats().clone();
    assert_eq!((s.lookups, s.hits, s.misses, s.rasterized), (2, 1, 1, 1));
    assert_eq!(s.hits + s.misses, s.lookups);
    assert_eq!(s.hit_rate(), 0.5);
    // The upload holds exactly the glyph's bitmap (plus its cleared gutter).
    let key = GlyphKey::new(f, g, GlyphSize::from_px(20.0, 1024.0).unwrap());
    let img = FontdueRasterizer.rasterize(c.font_ref(f).unwrap(), &key).unwrap();
    let (w, h) = (img.width as usize, img.height as usize);
    assert!(w > 0 && h > 0);
    let Upload::Rect(u) = &out.uploads[0] else { panic!("one glyph alone fills its box") };
    assert_eq!((u.rect.x, u.rect.y), (a.x as u32, a.y as u32));
    for row in 0..h {
        let got = &u.data[row * u.rect.w as usize..][..w];
        assert_eq!(got, &img.pixels[row * w..][..w]);
    }
    assert_eq!(s.upload_bytes, u.data.len() as u64);
    assert_eq!((s.upload_calls, s.upload_regions), (1, 1));
    // A second frame with two new glyphs on the page: one more upload, two
    // more regions.
    let (b, c2) = (glyph_of(&c, f, 'B'), glyph_of(&c, f, 'C'));
    let mut fr = c.begin_frame();
    fr.glyph(f, b, 20.0).unwrap();
    fr.glyph(f, c2, 20.0).unwrap();
    let out = fr.finish();
    let s = c.stats();
    assert_eq!((s.upload_calls, s.upload_regions), (2, 3));
    assert_eq!(s.upload_bytes, u.data.len() as u64 + out.uploads[0].upload_bytes());
    // The atlas runs with the configuration given; a rebuild's uploads are
    // every page whole, texel for texel.
    assert_eq!((c.coverage_pages().config().page_size, c.coverage_pages().page_side()), (256, 256));
    let full = c.full_uploads();
    assert_eq!(full.len(), c.pages().len());
    for (i, up) in full.iter().enumerate() {
        assert_eq!((up.page, up.rect), (i as u32, kerf_cache::pages::Rect::new(0, 0, 256, 256)));
        assert!(up.data == c.pages()[i].pixels(), "page {i} whole");
    }
}

#[test]
fn positioned_glyph_quads_follow_pen_and_bearings() {
    let (mut c, f) = cache(256, 1, 0);
    let g = glyph_of(&c, f, 'g');
    let m = c.fonts().get(f).unwrap().fontdue().unwrap().metrics_indexed(g, 32.0);
    let mut quads = Vec::new();
    let mut fr = c.begin_frame();
    fr.prepare(
        &[PositionedGlyph {
            font: f,
            glyph: g,
            size: 32.0,
            x: 100.1,
            y: 50.0,
            color: [1, 2, 3, 4],
        }],
        &mut quads,
    );
    fr.finish();
    assert_eq!(quads.len(), 1);
    let q = quads[0];
    assert_eq!(q.x, 100 + m.xmin);
    assert_eq!(q.y, 50 - (m.ymin + m.height as i32));
    assert_eq!((q.width as usize, q.height as usize), (m.width, m.height));
    assert_eq!(q.color, [1, 2, 3, 4]);
}

#[test]
fn layout_wraps_and_skips_blanks() {
    let (mut c, f) = cache(512, 1, 0);
    let mut one_line = Vec::new();
    let mut wrapped = Vec::new();
    let text = "wrap these words onto several lines";
    let mut fr = c.begin_frame();
    fr.layout(&TextSpec::new(text, f, 16.0), &mut one_line).unwrap();
    fr.layout(&TextSpec::new(text, f, 16.0).wrap(80.0), &mut wrapped).unwrap();
    fr.finish();
    let visible = text.chars().filter(|c| !c.is_whitespace()).count();
    assert_eq!(one_line.len(), visible);
    assert_eq!(wrapped.len(), visible);
    let rows = |q: &[GlyphQuad]| {
        let mut ys: Vec<i32> = q.iter().map(|q| q.y + q.height as i32).collect();
        ys.sort();
        ys.dedup_by(|a, b| (*a - *b).abs() < 8);
        ys.len()
    };
    assert_eq!(rows(&one_line), 1);
    assert!(rows(&wrapped) >= 3, "wrapping at 80 px gives several lines");
    assert!(wrapped.iter().all(|q| q.x + q.width as i32 <= 80 + 2));
}

/// A frame lays text out as the cache does outside one (`positions`).
#[test]
fn positions_in_a_frame_are_the_caches() {
    let (mut c, f) = cache(256, 1, 0);
    let spec = TextSpec::new("two words", f, 18.0).at(3.5, 7.0);
    let mut outside = Vec::new();
    c.positions(&spec, &mut outside).unwrap();
    let mut inside = Vec::new();
    let mut fr = c.begin_frame();
    fr.positions(&spec, &mut inside).unwrap();
    fr.finish();
    assert_eq!(outside.len(), 9, "one per character, the space too");
    assert_eq!(inside, outside);
}

/// `line_height` scales the distance between wrapped lines: twice the
/// factor, twice the baseline step (fontdue's rule: the factor times the
/// font's ascent − descent + line gap).
#[test]
fn line_height_scales_the_step_between_lines() {
    let (mut c, f) = cache(512, 1, 0);
    let text = "wrap these words onto several lines";
    let step = |c: &mut GlyphCache, factor: f32| {
        let mut glyphs = Vec::new();
        let spec = TextSpec { line_height: factor, ..TextSpec::new(text, f, 16.0).wrap(80.0) };
        c.positions(&spec, &mut glyphs).unwrap();
        let mut ys: Vec<f32> = glyphs.iter().map(|g| g.y).collect();
        ys.dedup();
        assert!(ys.len() >= 3, "{ys:?}");
        (ys[1] - ys[0], ys[2] - ys[1])
    };
    let (one, one_next) = step(&mut c, 1.0);
    let (two, _) = step(&mut c, 2.0);
    let m = fontdue::Font::from_bytes(sans(), fontdue::FontSettings::default())
        .unwrap()
        .horizontal_line_metrics(16.0)
        .unwrap();
    assert!((one - m.new_line_size).abs() <= 1.0, "{one} vs {}", m.new_line_size);
    assert_eq!(one, one_next);
    assert!((two - 2.0 * one).abs() <= 1.0, "{two} vs 2 × {one}");
}

/// A sampled glyph is the coverage glyph with one texel of zeros on every
/// side, its bearings moved to match: the same ink lands on the same pixels.
#[test]
fn a_sampled_glyph_is_the_coverage_glyph_with_a_border_of_zeros() {
    let (mut c, f) = cache(256, 1, 0);
    let mut fr = c.begin_frame();
    let mut pairs = Vec::new();
    for ch in ['g', 'A', 'j', 'Q'] {
        let g = glyph_of(fr.cache(), f, ch);
        pairs.push((fr.glyph(f, g, 23.0).unwrap(), fr.sampled_glyph(f, g, 23.0).unwrap()));
    }
    fr.finish();
    let texel = |e: &GlyphEntry, x: usize, y: usize| {
        let p = &c.pages()[e.page as usize];
        p.pixels()[(e.y as usize + y) * p.side() as usize + e.x as usize + x]
    };
    for (plain, sampled) in pairs {
        assert_eq!((sampled.width, sampled.height), (plain.width + 2, plain.height + 2));
        assert_eq!((sampled.left, sampled.top), (plain.left - 1, plain.top + 1));
        for y in 0..sampled.height as usize {
            for x in 0..sampled.width as usize {
                let inside = (1..=plain.width as usize).contains(&x)
                    && (1..=plain.height as usize).contains(&y);
                let want = if inside { texel(&plain, x - 1, y - 1) } else { 0 };
                assert_eq!(texel(&sampled, x, y), want, "({x}, {y}) of {sampled:?}");
            }
        }
    }
}

/// The solid texel decorations read is full coverage, and so are its eight
/// neighbours (a bilinear sample around it reads only full texels).
#[test]
fn the_solid_texel_sits_inside_a_full_block() {
    let (mut c, _) = cache(256, 1, 0);
    let mut fr = c.begin_frame();
    let (page, x, y) = fr.solid_texel().unwrap();
    fr.finish();
    let p = &c.pages()[page as usize];
    let side = p.side() as usize;
    for dy in [-1i32, 0, 1] {
        for dx in [-1i32, 0, 1] {
            let (tx, ty) = ((x as i32 + dx) as usize, (y as i32 + dy) as usize);
            assert_eq!(p.pixels()[ty * side + tx], 255, "texel ({tx}, {ty})");
        }
    }
}

#[test]
fn lru_order_decides_victims_and_slots_are_deallocated() {
    // One small page, nothing protected beyond the current frame.
    let (mut c, f) = cache(64, 1, 0);
    let chars: Vec<char> =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".chars().collect();
    // Frame by frame, one glyph each, until the first eviction.
    let mut used = Vec::new();
    for &ch in &chars {
        let g = glyph_of(&c, f, ch);
        let mut fr = c.begin_frame();
        fr.glyph(f, g, 14.0).unwrap();
        fr.finish();
        used.push(ch);
        if c.stats().evictions > 0 {
            break;
        }
    }
    assert!(c.stats().evictions > 0, "a 64 px page must fill up");
    // Exactly the oldest glyphs were evicted.
    let evicted = c.stats().evictions as usize;
    for (i, &ch) in used.iter().enumerate() {
        let cached = c.peek(&key(&c, f, ch, 14.0)).is_some();
        assert_eq!(cached, i >= evicted, "glyph {ch} (use #{i}), {evicted} evicted");
    }
    // Every cached glyph is live in the packer, and the packer holds nothing else.
    c.check_invariants().unwrap();
    assert_eq!(c.pages()[0].glyphs(), c.len() - c.entries().filter(|(_, e)| e.is_blank()).count());
}

#[test]
fn recent_use_protects_from_eviction() {
    let (mut c, f) = cache(64, 1, 0);
    let a = glyph_of(&c, f, 'A');
    let mut fr = c.begin_frame();
    fr.glyph(f, a, 14.0).unwrap();
    fr.finish();
    // Touch 'A' every frame while streaming other glyphs through.
    for ch in "BCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".chars() {
        let g = glyph_of(&c, f, ch);
        let mut fr = c.begin_frame();
        fr.glyph(f, a, 14.0).unwrap();
        fr.glyph(f, g, 14.0).unwrap();
        fr.finish();
    }
    assert!(c.stats().evictions > 10);
    assert!(c.peek(&key(&c, f, 'A', 14.0)).is_some());
    c.check_invariants().unwrap();
}

#[test]
fn in_flight_frames_are_protected_and_overflow_is_reported_not_fatal() {
    // frames_in_flight = 2: glyphs of the last two frames must survive.
    let (mut c, f) = cache(48, 1, 2);
    let text: Vec<char> = "ABCDEFGHIJKLMNOPQRSTUVWXYZ".chars().collect();
    let mut history: Vec<Vec<GlyphKey>> = Vec::new();
    for chunk in text.chunks(3).cycle().take(40) {
        let keys: Vec<GlyphKey> = chunk.iter().map(|&ch| key(&c, f, ch, 16.0)).collect();
        let glyphs: Vec<PositionedGlyph> = keys
            .iter()
            .map(|k| PositionedGlyph {
                font: f,
                glyph: k.glyph,
                size: 16.0,
                x: 0.0,
                y: 20.0,
                color: [0; 4],
            })
            .collect();
        let mut quads = Vec::new();
        let mut fr = c.begin_frame();
        fr.prepare(&glyphs, &mut quads);
        let out = fr.finish();
        for s in &out.skipped {
            assert_eq!(s.reason, GlyphError::AtlasFull);
        }
        assert_eq!(quads.len() + out.skipped.len(), glyphs.len());
        let skipped_keys: Vec<GlyphKey> = out.skipped.iter().filter_map(|s| s.key).collect();
        history.push(keys.into_iter().filter(|k| !skipped_keys.contains(k)).collect());
        // Every glyph drawn in this frame or the two before it is still cached.
        for frame_keys in history.iter().rev().take(3) {
            for k in frame_keys {
                assert!(c.peek(k).is_some(), "{k:?} evicted while in flight");
            }
        }
        c.check_invariants().unwrap();
    }
    assert!(c.stats().evictions > 0);
}

/// Glyphs drawn again in later frames come from the cache's key memo, not
/// from an LRU probe; their use must still count, both as recency (what the
/// LRU list evicts first) and as protection (a glyph the current frame drew).
#[test]
fn glyphs_drawn_from_the_memo_count_as_used() {
    // Nothing protected beyond the current frame: only recency decides.
    let (mut c, f) = cache(48, 1, 0);
    let run = |c: &GlyphCache, s: &str| row(c, f, s);
    let draw = |c: &mut GlyphCache, glyphs: &[PositionedGlyph]| -> (Vec<GlyphQuad>, FrameOutput) {
        let mut quads = Vec::new();
        let mut fr = c.begin_frame();
        fr.prepare(glyphs, &mut quads);
        (quads, fr.finish())
    };
    // Frame 1: 'A' and 'B' first (the LRU list's oldest), then fillers.
    let first = run(&c, "ABCDEFGH");
    draw(&mut c, &first);
    assert_eq!(c.stats().evictions, 0, "the first frame must fit");
    // Frames 2..=6: 'A' and 'B' again, found in the memo.
    let ab = run(&c, "AB");
    for _ in 0..5 {
        draw(&mut c, &ab);
    }
    assert_eq!(c.stats().hits, 10);
    // Frame 7 streams new glyphs through the page in one batch after 'A'
    // and 'B': the fillers unused since frame 1 go first, and 'A' and 'B',
    // drawn earlier in this very batch, must stay where its quads say.
    let mut seven = ab.clone();
    seven.extend(run(&c, "IJKLMNOPQRSTUVWXYZ"));
    let (quads, out) = draw(&mut c, &seven);
    assert!(c.stats().evictions > 0, "the page must overflow");
    for s in &out.skipped {
        assert_eq!(s.reason, GlyphError::AtlasFull);
    }
    for (q, ch) in quads.iter().zip(['A', 'B']) {
        let e = c
            .peek(&key(&c, f, ch, 16.0))
            .unwrap_or_else(|| panic!("'{ch}' evicted in the frame that drew it"));
        assert_eq!((q.tex_x, q.tex_y, q.page), (e.x, e.y, e.page), "'{ch}' moved under its quad");
    }
    let fillers_left =
        "CDEFGH".chars().filter(|&ch| c.peek(&key(&c, f, ch, 16.0)).is_some()).count();
    assert!(fillers_left < 6, "the least recently used glyphs (the fillers) go first");
    c.check_invariants().unwrap();
}

/// A glyph drawn every frame outlives glyphs drawn once, when its later uses
/// come from the key memo or from a retained run and the frame that evicts
/// does not draw it (so frame protection cannot hide a lost use): the
/// glyphs used only once must go first. 'A' and 'B' are looked up in the
/// map before them, so without their later uses they would be the oldest.
#[test]
fn glyphs_in_constant_use_outlive_glyphs_drawn_once() {
    // With a colour font loaded too, plain glyphs stay the coverage atlas's
    // (a run's uses must be recorded where its glyphs are).
    for (retained, emoji) in [(false, false), (true, false), (true, true)] {
        let (mut c, f) = cache(48, 1, 0);
        if emoji {
            const EMOJI: &str = "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf";
            let bytes = std::fs::read(EMOJI).unwrap_or_else(|e| {
                panic!("{EMOJI}: {e}; install Debian's fonts-noto-color-emoji")
            });
            c.add_font(bytes).unwrap();
        }
        let run = |c: &GlyphCache, s: &str| row(c, f, s);
        let mut record = RetainedRun::default();
        let mut draw = |c: &mut GlyphCache, glyphs: &[PositionedGlyph], keep: bool| {
            let mut quads = Vec::new();
            let mut fr = c.begin_frame();
            if keep {
                fr.prepare_retained(glyphs, &mut quads, &mut record);
            } else {
                fr.prepare(glyphs, &mut quads);
            }
            fr.finish()
        };
        // Frames 1 and 2: 'A' and 'B' looked up in the LRU map (missed and
        // placed, then found: now in the memo, or recorded in the run);
        // frame 3: the fillers, placed after them.
        let ab = run(&c, "AB");
        draw(&mut c, &ab, retained);
        draw(&mut c, &ab, retained);
        let fillers = run(&c, "CDEFGH");
        draw(&mut c, &fillers, false);
        assert_eq!(c.stats().evictions, 0, "the first frames must fit");
        // Frames 4..=8: 'A' and 'B' again, from the memo or the retained run.
        for _ in 0..5 {
            draw(&mut c, &ab, retained);
        }
        assert_eq!(c.stats().hits, 12, "'A' and 'B' found again");
        // Frame 9 draws five new glyphs only: the page must evict some.
        let new = run(&c, "IJKLM");
        let out = draw(&mut c, &new, false);
        assert!(out.skipped.is_empty(), "{:?}", out.skipped);
        assert!(c.stats().evictions > 0, "the page must overflow");
        for ch in ['A', 'B'] {
            assert!(
                c.peek(&key(&c, f, ch, 16.0)).is_some(),
                "'{ch}', drawn in every frame since (retained: {retained}), was evicted \
                 before glyphs unused since frame 3"
            );
        }
        let gone = "CDEFGH".chars().filter(|&ch| c.peek(&key(&c, f, ch, 16.0)).is_none()).count();
        assert!(gone > 0, "the glyphs drawn once made the room");
        c.check_invariants().unwrap();
    }
}

/// A run stops being ready when its glyphs could not all be drawn again:
/// evicted, then refused for want of room, its record is dropped (the keys
/// are kept for the next clean prepare).
#[test]
fn a_run_whose_glyphs_were_skipped_is_not_ready() {
    let (mut c, f) = cache(48, 1, 1);
    let mut run = RetainedRun::default();
    let ab = row(&c, f, "AB");
    for _ in 0..2 {
        let mut fr = c.begin_frame();
        fr.prepare_retained(&ab, &mut Vec::new(), &mut run);
        fr.finish();
    }
    assert!(run.is_ready());
    assert_eq!(c.footprint().recency_records, 1, "the run's record of uses");
    // Frame 3 fills the page with glyphs (A and B still protected); frame 4
    // evicts A and B for new ones, which then hold the page: A and B find no
    // room.
    for s in ["CDEFGHIJ", "KLMNOPQR"] {
        let glyphs = row(&c, f, s);
        let mut fr = c.begin_frame();
        fr.prepare(&glyphs, &mut Vec::new());
        if s.starts_with('K') {
            fr.prepare_retained(&ab, &mut Vec::new(), &mut run);
            let out = fr.finish();
            assert!(
                out.skipped.iter().any(|s| s.reason == GlyphError::AtlasFull),
                "{:?}",
                out.skipped
            );
        } else {
            fr.finish();
        }
    }
    assert!(c.stats().evictions > 0);
    assert!(!run.is_ready(), "a record of quads the atlas no longer holds");
}

/// A glyph drawn from the memo and written back into the LRU list later
/// sits ahead of glyphs placed since: eviction must look past protected
/// glyphs at the tail to find it, not report the atlas full.
#[test]
fn eviction_finds_old_glyphs_the_memo_moved_ahead() {
    let run = row;
    let draw = |c: &mut GlyphCache, glyphs: &[PositionedGlyph]| -> FrameOutput {
        let mut quads = Vec::new();
        let mut fr = c.begin_frame();
        fr.prepare(glyphs, &mut quads);
        fr.finish()
    };
    let stream = "BCDEFGHIJKLMNOPQRSTUVWXYZ";
    // Control: the stream alone on an empty page.
    let (mut control, f) = cache(48, 1, 1);
    let glyphs = run(&control, f, stream);
    let skipped_alone = draw(&mut control, &glyphs).skipped.len();
    assert!(skipped_alone > 0, "the stream must overflow the page");
    // 'A' drawn in frames 1-3 (the third time from the memo), then unused.
    let (mut c, f) = cache(48, 1, 1);
    let a = run(&c, f, "A");
    for _ in 0..3 {
        draw(&mut c, &a);
    }
    for _ in 0..5 {
        draw(&mut c, &[]);
    }
    // The stream: 'A' is evicted for it (it is not in flight), and about
    // the glyphs that overflow an empty page are skipped (the packer's free
    // space differs a little for the slot 'A' had).
    let glyphs = run(&c, f, stream);
    let out = draw(&mut c, &glyphs);
    assert!(out.skipped.iter().all(|s| s.reason == GlyphError::AtlasFull));
    assert!(c.peek(&key(&c, f, 'A', 16.0)).is_none(), "'A' was evictable");
    assert!(
        out.skipped.len() <= skipped_alone + 1,
        "{} skipped, {skipped_alone} on an empty page",
        out.skipped.len()
    );
    c.check_invariants().unwrap();
}

#[test]
fn a_continued_frame_never_evicts_what_its_earlier_batches_drew() {
    // frames_in_flight = 0: only the current frame protects its glyphs.
    let (mut c, f) = cache(48, 1, 0);
    let mut fr = c.begin_frame();
    let first = fr.number();
    let a = fr.glyph(f, glyph_of(fr.cache(), f, 'A'), 16.0).unwrap();
    fr.finish();
    // Later batches of the same frame stream glyphs through a tiny page.
    let mut full = 0;
    for ch in "BCDEFGHIJKLMNOPQRSTUVWXYZ".chars() {
        let mut fr = c.continue_frame();
        assert_eq!(fr.number(), first, "a continued frame keeps its number");
        if fr.glyph(f, glyph_of(fr.cache(), f, ch), 16.0) == Err(GlyphError::AtlasFull) {
            full += 1;
        }
        fr.finish();
        assert_eq!(
            c.peek(&key(&c, f, 'A', 16.0)),
            Some(a),
            "'A' must stay where the first batch drew it"
        );
        c.check_invariants().unwrap();
    }
    assert!(full > 0, "the page must run out: the batches are one frame");
    // The next frame may evict it.
    for ch in "BCDEFGHIJKLMNOPQRSTUVWXYZ".chars() {
        let mut fr = c.begin_frame();
        fr.glyph(f, glyph_of(fr.cache(), f, ch), 16.0).unwrap();
        fr.finish();
    }
    assert!(c.peek(&key(&c, f, 'A', 16.0)).is_none());
    assert_eq!(c.stats().frames, 1 + 25);
}

/// A glyph larger than a page is drawn in tiles: the tiles' texels are the
/// raster's, the quads cover the bitmap exactly once, and the glyph is
/// evicted (every tile freed) and placed again like any other.
#[test]
fn a_glyph_larger_than_a_page_is_drawn_in_tiles() {
    let (mut c, f) = cache(256, 8, 0);
    let w = glyph_of(&c, f, 'W');
    let size = 600.0;
    let key = key(&c, f, 'W', size);
    let image = FontdueRasterizer.rasterize(c.font_ref(f).unwrap(), &key).unwrap();
    assert!(
        image.width > 256 && image.height > 256,
        "the test needs a glyph larger than a page: {}x{}",
        image.width,
        image.height
    );
    for round in 0..3 {
        let mut quads = Vec::new();
        let mut fr = c.begin_frame();
        fr.prepare(
            &[PositionedGlyph { font: f, glyph: w, size, x: 40.0, y: 700.0, color: [9; 4] }],
            &mut quads,
        );
        let out = fr.finish();
        assert!(out.skipped.is_empty(), "round {round}: {:?}", out.skipped);
        let tiles = c.tiles(&key).expect("cached in tiles").to_vec();
        assert_eq!(quads.len(), tiles.len());
        assert_eq!(c.footprint().tiled, 1, "one glyph kept in tiles");
        // The quads tile the bitmap: same total area, each tile's texels are the raster's.
        let area: u32 = quads.iter().map(|q| q.width as u32 * q.height as u32).sum();
        assert_eq!(area, image.width * image.height);
        let (x0, y0) = (40 + image.left, 700 - (image.bottom + image.height as i32));
        for (q, t) in quads.iter().zip(&tiles) {
            assert_eq!((q.x - x0, q.y - y0), (t.dx as i32, t.dy as i32));
            assert!(
                q.width as u32 <= 127 && q.height as u32 <= 127,
                "tiles are at most half a page less the padding"
            );
            let page = c.pages()[t.entry.page as usize].pixels();
            for row in 0..q.height as usize {
                let at = (t.entry.y as usize + row) * 256 + t.entry.x as usize;
                let src = (t.dy as usize + row) * image.width as usize + t.dx as usize;
                assert_eq!(
                    &page[at..at + q.width as usize],
                    &image.pixels[src..src + q.width as usize],
                    "tile {t:?} row {row}"
                );
            }
        }
        c.check_invariants().unwrap();
        // Fill the atlas with other glyphs until the big one is evicted.
        let mut frames = 0;
        while c.tiles(&key).is_some() {
            let mut fr = c.begin_frame();
            for (i, ch) in "abcdefghijklmnopqrstuvwxyz".chars().enumerate() {
                let g = glyph_of(fr.cache(), f, ch);
                fr.glyph(f, g, 60.0 + (frames * 26 + i) as f32).unwrap();
            }
            fr.finish();
            c.check_invariants().unwrap();
            frames += 1;
            assert!(frames < 100, "the big glyph must be evicted under pressure");
        }
        assert!(c.peek(&key).is_none());
    }
}

#[test]
fn eviction_frees_space_for_a_glyph_that_failed() {
    // Fill a page within one frame, so nothing may be evicted; a big glyph fails.
    let (mut c, f) = cache(96, 1, 0);
    let big = glyph_of(&c, f, 'W');
    let small: Vec<u16> =
        "abcdefghijklmnopqrstuvwxyz0123456789".chars().map(|ch| glyph_of(&c, f, ch)).collect();
    let mut fr = c.begin_frame();
    for &g in &small {
        for px in [12.0, 13.0, 14.0] {
            let _ = fr.glyph(f, g, px);
        }
    }
    let err = fr.glyph(f, big, 60.0).unwrap_err();
    assert_eq!(err, GlyphError::AtlasFull);
    fr.finish();
    c.check_invariants().unwrap();
    let before = c.len();
    // Next frame: the same glyph fits, by evicting last frame's glyphs.
    let mut fr = c.begin_frame();
    let e = fr.glyph(f, big, 60.0).unwrap();
    fr.finish();
    assert!(!e.is_blank());
    assert!(c.stats().evictions > 0);
    assert!(c.len() < before + 1);
    c.check_invariants().unwrap();
}

#[test]
fn pages_are_added_up_to_the_limit_and_budget() {
    let (mut c, f) = cache(64, 3, 0);
    let mut fr = c.begin_frame();
    for ch in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".chars() {
        let g = fr.cache().fonts().get(f).unwrap().glyph_index(ch);
        let _ = fr.glyph(f, g, 24.0);
    }
    let out = fr.finish();
    assert_eq!(out.pages, 3);
    assert!(out.uploads.len() <= 3 && out.uploads.len() >= 2);
    assert!(
        !out.skipped.is_empty() || c.stats().skipped > 0,
        "52 glyphs at 24 px do not fit three 64 px pages"
    );

    // The memory budget caps pages too.
    let cfg = CacheConfig {
        page_size: 64,
        max_pages: 10,
        memory_budget: 2 * 64 * 64,
        ..CacheConfig::default()
    };
    assert_eq!(cfg.page_limit(), 2);
    // And the GPU's texture limit clamps the page size.
    let cfg = CacheConfig { page_size: 4096, max_texture_side: 2048, ..CacheConfig::default() };
    assert_eq!(GlyphCache::new(cfg).unwrap().page_side(), 2048);
}

#[test]
fn dropped_frame_uploads_go_out_with_the_next_frame() {
    let (mut c, f) = cache(128, 1, 0);
    let g = glyph_of(&c, f, 'Q');
    {
        let mut fr = c.begin_frame();
        fr.glyph(f, g, 20.0).unwrap();
        // dropped without finish
    }
    let out = c.begin_frame().finish();
    assert_eq!(out.uploads.len(), 1);
    assert_eq!(out.frame, 2);
}

/// One frame of `text` at `size` px through two caches holding the same
/// font `f`: their outputs, which must hand out as many uploads.
fn same_frame(
    a: &mut GlyphCache, b: &mut GlyphCache, f: FontId, text: &str, size: f32,
) -> (FrameOutput, FrameOutput) {
    let glyphs: Vec<PositionedGlyph> =
        row(a, f, text).iter().map(|g| PositionedGlyph { size, ..*g }).collect();
    let mut frames = [a.begin_frame(), b.begin_frame()]
        .map(|mut fr| {
            fr.prepare(&glyphs, &mut Vec::new());
            fr.finish()
        })
        .into_iter();
    let (a, b) = (frames.next().unwrap(), frames.next().unwrap());
    assert_eq!(a.uploads.len(), b.uploads.len(), "{text} at {size} px");
    (a, b)
}

/// A cache that does not copy boxes hands out the same boxes without
/// texels, and the page holds what a copying cache's box carries (the
/// texels a backend writes from the page instead), over frames that add
/// glyphs and evict.
#[test]
fn boxes_not_copied_are_the_pages_texels_a_copying_cache_hands_out() {
    let (mut copying, f) = cache(128, 1, 0);
    let mut borrowing =
        GlyphCache::new(CacheConfig { copy_boxes: false, ..copying.config().clone() }).unwrap();
    assert_eq!(borrowing.add_font(sans()).unwrap(), f);
    let (mut boxes, mut evictions) = (0, 0);
    for (n, text) in
        ["Hamburgefonstiv", "Quixotic jumps", "WAVE 0123", "Hamburg again"].iter().enumerate()
    {
        let (a, b) = same_frame(&mut copying, &mut borrowing, f, text, 20.0 + 14.0 * n as f32);
        evictions += b.counts.evictions;
        for (ua, ub) in a.uploads.iter().zip(&b.uploads) {
            let (Upload::Rect(ra), Upload::Rect(rb)) = (ua, ub) else {
                panic!("frame {n}: dirty rectangles were asked for");
            };
            assert_eq!((ra.page, ra.rect, ra.regions), (rb.page, rb.rect, rb.regions));
            assert!(rb.data.is_empty() && !ra.data.is_empty());
            assert_eq!(ua.upload_bytes(), ra.data.len() as u64);
            assert_eq!(ub.upload_bytes(), ra.data.len() as u64);
            // The borrowing cache's page, cut to the box, is the copy.
            let page = &borrowing.pages()[rb.page as usize];
            let side = page.side() as usize;
            let (x, w) = (rb.rect.x as usize, rb.rect.w as usize);
            let cut: Vec<u8> = (rb.rect.y as usize..(rb.rect.y + rb.rect.h) as usize)
                .flat_map(|y| page.pixels()[y * side + x..y * side + x + w].to_vec())
                .collect();
            assert_eq!(cut, ra.data, "frame {n}");
            boxes += 1;
        }
    }
    assert!(boxes >= 4 && evictions > 0, "{boxes} boxes, {evictions} evictions");
    // A device rebuild's uploads carry their texels either way.
    assert!(borrowing.full_uploads().iter().all(|u| u.data.len() as u64 == u.bytes()));
}

/// A cache that does not copy glyph texels hands out the same glyph
/// uploads without them (same pages, regions and offsets), and the rows
/// read from its pages are, byte for byte, the texels a copying cache's
/// uploads carry, over frames that add glyphs, overlap slots and evict;
/// a CPU mirror fed from those rows ends equal to the pages.
#[test]
fn glyph_texels_not_copied_are_read_from_the_pages_as_a_copying_cache_hands_them_out() {
    let config = CacheConfig {
        page_size: 128,
        max_pages: 1,
        frames_in_flight: 0,
        subpixel_bins: 1,
        uploads: UploadMode::Glyphs,
        ..CacheConfig::default()
    };
    let mut copying = GlyphCache::new(config.clone()).unwrap();
    let mut borrowing =
        GlyphCache::new(CacheConfig { copy_glyph_texels: false, ..config }).unwrap();
    let f = copying.add_font(sans()).unwrap();
    assert_eq!(borrowing.add_font(sans()).unwrap(), f);
    let mut mirror = vec![0u8; 128 * 128];
    let (mut uploads, mut texels, mut evictions) = (0, 0, 0);
    for (n, text) in ["Hamburgefonstiv", "Quixotic jumps", "WAVE 0123", "Hamburg again", "xyzzy"]
        .iter()
        .enumerate()
    {
        let (a, b) = same_frame(&mut copying, &mut borrowing, f, text, 18.0 + 13.0 * n as f32);
        evictions += b.counts.evictions;
        for (ua, ub) in a.uploads.iter().zip(&b.uploads) {
            let (Upload::Glyphs(ga), Upload::Glyphs(gb)) = (ua, ub) else {
                panic!("frame {n}: glyph uploads were asked for");
            };
            assert_eq!((ga.page, ga.clear, &ga.regions), (gb.page, gb.clear, &gb.regions));
            assert!(gb.bytes.is_empty() && !ga.bytes.is_empty(), "frame {n}");
            assert_eq!(ga.texel_bytes(), ga.bytes.len(), "frame {n}");
            assert_eq!(gb.texel_bytes(), ga.bytes.len(), "frame {n}");
            // What goes up either way: the texels and a 12-byte record a glyph.
            let sent = (ga.bytes.len() + 12 * ga.regions.len()) as u64;
            assert_eq!((ua.upload_bytes(), ub.upload_bytes()), (sent, sent), "frame {n}");
            let page = &borrowing.pages()[gb.page as usize];
            let read: Vec<u8> = gb.texel_rows(page).flatten().copied().collect();
            assert_eq!(read, ga.bytes, "frame {n}");
            // The copying cache's rows are its bytes, whatever page is passed.
            let carried: Vec<u8> = ga.texel_rows(page).flatten().copied().collect();
            assert_eq!(carried, ga.bytes, "frame {n}");
            // Without texels, a mirror is left alone; with them, it follows.
            let before = mirror.clone();
            gb.apply_to(&mut mirror, 128);
            assert_eq!(mirror, before, "frame {n}");
            ga.apply_to(&mut mirror, 128);
            uploads += 1;
            texels += read.len();
        }
        assert_eq!(mirror, borrowing.pages()[0].pixels(), "frame {n}");
    }
    assert!(uploads >= 5 && texels > 5_000 && evictions > 0, "{uploads} {texels} {evictions}");
}

/// Pages without CPU copies: the same glyphs in the same slots as a copying
/// cache's, every upload glyph by glyph and carrying its texels, which a
/// mirror fed from them ends equal to the copying cache's pages, frame
/// after frame (Auto uploads, so the copying cache sends boxes too); no
/// page texels in memory, nothing for a rebuild, and dirty rectangles
/// refused.
#[test]
fn pages_without_copies_hold_no_texels_and_upload_what_a_copying_cache_keeps() {
    let config = CacheConfig {
        page_size: 128,
        max_pages: 1,
        frames_in_flight: 0,
        subpixel_bins: 1,
        ..CacheConfig::default()
    };
    let mut copying = GlyphCache::new(config.clone()).unwrap();
    let bare = CacheConfig { page_copies: false, ..config };
    let refused = GlyphCache::new(CacheConfig { uploads: UploadMode::DirtyRect, ..bare.clone() });
    assert_eq!(refused.err(), Some(ConfigError::DirtyRectWithoutCopies));
    let mut bare = GlyphCache::new(bare).unwrap();
    let f = copying.add_font(sans()).unwrap();
    assert_eq!(bare.add_font(sans()).unwrap(), f);
    let mut mirror = vec![0u8; 128 * 128];
    let (mut boxes, mut evictions) = (0, 0);
    for (n, text) in ["Hamburgefonstiv", "Quixotic jumps", "WAVE 0123", "Hamburg again", "xyzzy"]
        .iter()
        .enumerate()
    {
        let (a, b) = same_frame(&mut copying, &mut bare, f, text, 18.0 + 13.0 * n as f32);
        evictions += b.counts.evictions;
        boxes += a.uploads.iter().filter(|u| matches!(u, Upload::Rect(_))).count();
        for u in &b.uploads {
            let Upload::Glyphs(g) = u else { panic!("frame {n}: a box without a copy") };
            assert_eq!(g.bytes.len(), g.texel_bytes(), "frame {n}");
            g.apply_to(&mut mirror, 128);
        }
        assert_eq!(mirror, copying.pages()[0].pixels(), "frame {n}");
        let placed = |c: &GlyphCache| {
            let mut e: Vec<_> = c.entries().map(|(k, e)| (*k, e)).collect();
            e.sort_by_key(|(k, _)| (k.glyph, k.size));
            e
        };
        assert_eq!(placed(&bare), placed(&copying), "frame {n}");
        assert!(!bare.pages()[0].has_copy() && bare.pages()[0].pixels().is_empty());
    }
    assert!(boxes > 0 && evictions > 0, "{boxes} boxes, {evictions} evictions");
    // The last frame again: all hits, nothing to upload either way.
    let (a, b) = same_frame(&mut copying, &mut bare, f, "xyzzy", 18.0 + 13.0 * 4.0);
    assert!(a.uploads.is_empty() && b.uploads.is_empty(), "{:?}", b.uploads);
    assert_eq!(b.counts.hits, b.counts.lookups);
    assert_eq!(bare.footprint().page_bytes, 0);
    assert_eq!(copying.footprint().page_bytes, 128 * 128);
    assert!(bare.full_uploads().is_empty() && !copying.full_uploads().is_empty());
}

/// With the default configuration a glyph left unused for ten seconds at
/// 60 fps leaves the cache: drawn in frame 0, it is still cached after the
/// frame 600 frames later and gone after the next (unused for more than
/// 600 frames), while the glyph drawn every frame stays.
#[test]
fn by_default_a_glyph_unused_for_more_than_600_frames_leaves_the_cache() {
    let mut c = GlyphCache::new(CacheConfig::default()).unwrap();
    let f = c.add_font(sans()).unwrap();
    let (both, one) = (row(&c, f, "AB"), row(&c, f, "B"));
    let mut gone = None;
    for frame in 0..700u64 {
        let mut fr = c.begin_frame();
        fr.prepare(if frame == 0 { &both } else { &one }, &mut Vec::new());
        fr.finish();
        if gone.is_none() && c.len() < 2 {
            gone = Some(frame);
        }
    }
    assert_eq!(gone, Some(601), "A was last drawn in frame 0");
    assert_eq!(c.len(), 1, "B, drawn every frame, stays");
}

#[test]
fn parallel_rasterization_places_deterministically() {
    let text = "The quick brown fox jumps over the lazy dog. ÀÉÎÕÜ ßŁŒ αβγδ жзий 0123456789";
    let run = |threshold: usize| {
        let mut c = GlyphCache::new(CacheConfig {
            page_size: 256,
            parallel_threshold: threshold,
            ..CacheConfig::default()
        })
        .unwrap();
        let f = c.add_font(sans()).unwrap();
        let mut quads = Vec::new();
        let mut fr = c.begin_frame();
        for px in [11.0, 17.5, 23.0] {
            fr.layout(&TextSpec::new(text, f, px), &mut quads).unwrap();
        }
        let out = fr.finish();
        (quads, out.uploads)
    };
    let (q1, u1) = run(1);
    let (q2, u2) = run(usize::MAX);
    assert_eq!(q1, q2);
    assert_eq!(u1, u2);
}

#[test]
fn skyline_pages_work_too() {
    let mut c = GlyphCache::new(CacheConfig {
        page_size: 64,
        algorithm: Algorithm::FALLBACK,
        frames_in_flight: 0,
        ..CacheConfig::default()
    })
    .unwrap();
    let f = c.add_font(sans()).unwrap();
    for i in 0..50 {
        let mut fr = c.begin_frame();
        let mut quads = Vec::new();
        let text: String =
            (0..20).map(|j| char::from(b'!' + ((i * 7 + j * 3) % 90) as u8)).collect();
        fr.layout(&TextSpec::new(&text, f, 14.0 + (i % 5) as f32), &mut quads).unwrap();
        let out = fr.finish();
        assert!(out.skipped.is_empty());
        c.check_invariants().unwrap();
    }
    assert!(c.stats().evictions > 0);
}

#[test]
fn idle_glyphs_are_released_and_pages_come_back_down_to_the_floor() {
    let cfg = CacheConfig {
        page_size: 64,
        max_pages: 4,
        release_idle_after: Some(5),
        min_pages: 1,
        frames_in_flight: 1,
        subpixel_bins: 1,
        ..CacheConfig::default()
    };
    let mut c = GlyphCache::new(cfg).unwrap();
    let f = c.add_font(sans()).unwrap();
    // A big working set: every page in use.
    for size in [20.0, 22.0, 24.0] {
        let mut fr = c.begin_frame();
        let mut quads = Vec::new();
        fr.layout(&TextSpec::new("ABCDEFGHIJKLMNOPQRSTUVWXYZ", f, size), &mut quads).unwrap();
        fr.finish();
    }
    assert_eq!(c.pages().len(), 4);
    let peak = c.atlas_bytes();
    assert_eq!(peak, 4 * 64 * 64);
    // The workload shrinks to one short word.
    let mut last = 0;
    for _ in 0..20 {
        let mut fr = c.begin_frame();
        let mut quads = Vec::new();
        fr.layout(&TextSpec::new("ok", f, 12.0), &mut quads).unwrap();
        let out = fr.finish();
        last = out.pages;
        c.check_invariants().unwrap();
    }
    assert_eq!(last, 1, "pages released down to min_pages");
    assert_eq!(c.atlas_bytes(), 64 * 64);
    assert!(c.stats().pages_released >= 3);
    let ok = c.fonts().get(f).unwrap().glyph_index('o');
    assert!(
        c.peek(&GlyphKey::new(f, ok, GlyphSize::from_px(12.0, 1024.0).unwrap())).is_some(),
        "glyphs in use stay"
    );
    // With release off, nothing goes.
    let mut keep = GlyphCache::new(CacheConfig {
        release_idle_after: None,
        page_size: 64,
        ..CacheConfig::default()
    })
    .unwrap();
    let f2 = keep.add_font(sans()).unwrap();
    let mut fr = keep.begin_frame();
    fr.layout(&TextSpec::new("ABC", f2, 20.0), &mut Vec::new()).unwrap();
    fr.finish();
    for _ in 0..50 {
        keep.begin_frame().finish();
    }
    assert_eq!(keep.len(), 3);
    // An explicit trim evicts the three idle glyphs and says so; the one
    // page stays (the floor).
    let pages = keep.pages().len();
    assert_eq!(keep.trim(5), (3, 0));
    assert_eq!((keep.len(), keep.pages().len()), (0, pages));
    assert_eq!(keep.trim(5), (0, 0), "nothing left to trim");
}

/// Frames that each draw a line at a size no later frame draws (a zoom
/// drawn at its exact sizes) on a cache of up to four 128 px pages, with
/// and without [`Frame::prefer_eviction`]: `(pages, evictions, skipped)`.
fn passing_sizes(prefer: bool) -> (usize, u64, u64) {
    let (mut c, f) = cache(128, 4, 1);
    let glyphs: Vec<u16> = "the quick brown fox".chars().map(|ch| glyph_of(&c, f, ch)).collect();
    for i in 0..40 {
        let px = 14.0 + i as f32 * 0.5;
        let mut fr = c.begin_frame();
        fr.prefer_eviction(prefer);
        for &g in &glyphs {
            fr.glyph(f, g, px).unwrap();
        }
        fr.finish();
        c.check_invariants().unwrap();
    }
    (c.pages().len(), c.stats().evictions, c.stats().skipped)
}

#[test]
fn passing_sizes_that_prefer_eviction_reuse_room_instead_of_adding_pages() {
    let (grown, evicted_grown, skipped_grown) = passing_sizes(false);
    let (kept, evicted_kept, skipped_kept) = passing_sizes(true);
    // Without the preference the atlas grows to its limit before evicting.
    assert_eq!(grown, 4, "{grown} pages, {evicted_grown} evictions");
    // With it, old sizes make the room (two frames' glyphs are protected
    // with one frame in flight: up to two pages), no glyph refused.
    assert!(kept <= 2, "{kept} pages, {evicted_kept} evictions");
    assert!(evicted_kept > evicted_grown);
    assert_eq!((skipped_grown, skipped_kept), (0, 0));
}

/// A frame that draws each character of `text` at 28 px.
fn frame_at_28(c: &mut GlyphCache, f: FontId, text: &str) -> FrameOutput {
    let mut fr = c.begin_frame();
    for ch in text.chars() {
        let g = fr.cache().fonts().get(f).unwrap().glyph_index(ch);
        fr.glyph(f, g, 28.0).unwrap();
    }
    fr.finish()
}

/// Text `A` (4 glyphs at 28 px; a 64 px page holds six) drawn in frame 0,
/// then `gap` frames that draw nothing (or, with `recent`, `A` again in
/// the last of them), then text `B` (another 4 glyphs at 28 px, more than
/// the page has left), on a cache of up to four 64 px pages with
/// `evict_idle_before_growing: idle`: `(pages after A, pages after B,
/// evictions, whether A's first glyph is still cached)`.
fn idle_then_new(idle: Option<u64>, gap: u64, recent: bool) -> (usize, usize, u64, bool) {
    let mut c = GlyphCache::new(CacheConfig {
        page_size: 64,
        max_pages: 4,
        frames_in_flight: 1,
        subpixel_bins: 1,
        evict_idle_before_growing: idle,
        ..CacheConfig::default()
    })
    .unwrap();
    let f = c.add_font(sans()).unwrap();
    let draw = |c: &mut GlyphCache, text: &str| {
        let out = frame_at_28(c, f, text);
        assert!(out.skipped.is_empty());
        out.pages as usize
    };
    let a = "ABCD";
    let after_a = draw(&mut c, a);
    for i in 0..gap {
        if recent && i + 1 == gap {
            draw(&mut c, a);
        } else {
            c.begin_frame().finish();
        }
    }
    let after_b = draw(&mut c, "EFGH");
    c.check_invariants().unwrap();
    let first = GlyphKey::new(f, glyph_of(&c, f, 'A'), GlyphSize::from_px(28.0, 1024.0).unwrap());
    (after_a, after_b, c.stats().evictions, c.peek(&first).is_some())
}

#[test]
fn glyphs_idle_for_long_give_their_room_before_a_page_is_added() {
    // Drawn 10 frames ago, idle for more than 5: B takes A's room, the
    // atlas stays one page.
    let (a, b, evicted, kept) = idle_then_new(Some(5), 10, false);
    assert_eq!(a, 1, "A fills one page");
    assert_eq!(b, 1, "B took idle glyphs' room: {evicted} evictions");
    assert!(evicted > 0 && !kept, "{evicted} evictions, A's first glyph kept: {kept}");
    // The same gap but A drawn again last frame: not idle, so a page is
    // added and nothing is evicted.
    assert_eq!(idle_then_new(Some(5), 10, true), (1, 2, 0, true));
    // Idle for less than the setting: a page is added.
    assert_eq!(idle_then_new(Some(20), 10, false), (1, 2, 0, true));
    // The bound: when B is looked up, A has gone unused for 11 frames (the
    // 10 between and B's own), more than 10 but not more than 11.
    assert_eq!(idle_then_new(Some(10), 10, false).1, 1);
    assert_eq!(idle_then_new(Some(11), 10, false), (1, 2, 0, true));
    // Without the setting the atlas grows first, as before.
    assert_eq!(idle_then_new(None, 10, false), (1, 2, 0, true));
}

/// Glyphs drawn every frame through the batch's key memo or a retained run
/// (whose uses reach the LRU map only when written back) are never idle:
/// neither the idle trim nor the idle eviction before a page is added
/// takes them. `(evictions, lookups that missed after the first frame)`
/// over 40 frames of "ABCD", then "EFGH" (more than the page has left).
fn drawn_through_records(retained: bool, trim: bool) -> (u64, u64) {
    let mut c = GlyphCache::new(CacheConfig {
        page_size: 64,
        max_pages: 4,
        frames_in_flight: 1,
        subpixel_bins: 1,
        release_idle_after: trim.then_some(5),
        evict_idle_before_growing: Some(5),
        ..CacheConfig::default()
    })
    .unwrap();
    let f = c.add_font(sans()).unwrap();
    let line = |c: &GlyphCache, text: &str| row_at(c, f, text, 28.0, 30.0, 40.0);
    let a = line(&c, "ABCD");
    let mut run = RetainedRun::default();
    let mut quads = Vec::new();
    let mut missed = 0;
    for frame in 0..40 {
        quads.clear();
        let mut fr = c.begin_frame();
        if retained {
            fr.prepare_retained(&a, &mut quads, &mut run);
        } else {
            fr.prepare(&a, &mut quads);
        }
        let out = fr.finish();
        assert_eq!(quads.len(), 4);
        if frame > 0 {
            missed += out.counts.lookups - out.counts.hits;
        }
        c.check_invariants().unwrap();
    }
    assert!(!retained || run.is_ready());
    // A is in use: B gets a page of its own, A stays.
    let b = line(&c, "EFGH");
    let mut fr = c.begin_frame();
    fr.prepare(&a, &mut quads);
    fr.prepare(&b, &mut quads);
    let out = fr.finish();
    assert!(out.skipped.is_empty());
    missed += out.counts.lookups - out.counts.hits - 4;
    c.check_invariants().unwrap();
    (c.stats().evictions, missed)
}

#[test]
fn glyphs_drawn_every_frame_through_the_memo_or_a_run_are_never_idle() {
    for retained in [false, true] {
        for trim in [false, true] {
            assert_eq!(
                drawn_through_records(retained, trim),
                (0, 0),
                "retained run: {retained}, idle trim: {trim}"
            );
        }
    }
}

#[test]
fn idle_eviction_never_takes_what_it_cannot_use_at_the_page_limit() {
    // At the page limit the setting does nothing of its own: the usual
    // eviction (any unprotected glyph) makes room, and B is drawn whole.
    let mut c = GlyphCache::new(CacheConfig {
        page_size: 64,
        max_pages: 1,
        frames_in_flight: 1,
        subpixel_bins: 1,
        evict_idle_before_growing: Some(1_000),
        ..CacheConfig::default()
    })
    .unwrap();
    let f = c.add_font(sans()).unwrap();
    for text in ["ABCD", "", "", "EFGH"] {
        let out = frame_at_28(&mut c, f, text);
        assert!(out.skipped.is_empty(), "{:?}", out.skipped);
        assert_eq!(out.pages, 1);
    }
    assert!(c.stats().evictions > 0);
    c.check_invariants().unwrap();
}

#[test]
fn preferring_eviction_still_adds_a_page_when_everything_is_in_use() {
    // One frame's glyphs fill more than a page: nothing may be evicted, so
    // the preference falls back to a new page rather than refusing a glyph.
    let (mut c, f) = cache(64, 8, 0);
    let mut fr = c.begin_frame();
    fr.prefer_eviction(true);
    for ch in "ABCDEFGHIJKLMNOP".chars() {
        let g = fr.cache().fonts().get(f).unwrap().glyph_index(ch);
        fr.glyph(f, g, 28.0).unwrap();
    }
    let out = fr.finish();
    assert!(out.pages >= 2, "{} pages", out.pages);
    assert!(out.skipped.is_empty());
    assert_eq!(c.stats().evictions, 0);
    // The preference ends with the frame: the next frame's misses (more
    // than the last page has room for) grow the atlas again, although last
    // frame's glyphs could now be evicted.
    let pages = out.pages;
    let mut fr = c.begin_frame();
    for ch in "QRSTUVWX".chars() {
        let g = fr.cache().fonts().get(f).unwrap().glyph_index(ch);
        fr.glyph(f, g, 40.0).unwrap();
    }
    let out = fr.finish();
    assert!(out.pages > pages, "{} pages after {pages}", out.pages);
    assert_eq!(c.stats().evictions, 0, "a page was added, nothing evicted");
    c.check_invariants().unwrap();
}
