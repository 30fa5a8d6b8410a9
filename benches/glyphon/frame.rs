//! Whole frames as the user sees them: prepare, a render pass that clears a
//! window-sized offscreen target and draws the text, the submit, and the
//! wait until the GPU is done. The same warm paragraph for kerf and glyphon,
//! and a pass with no text (the floor both pay).
//!
//! The `*-cpu` rows time the same frames up to the return of the submit:
//! everything the app's thread does (conversion, prepare, encoding, submit),
//! the wait for the GPU left out of the timing but still made every frame.
//! Where the GPU is fast (a real one) this is what bounds the frame. They
//! count the app thread's own CPU time (`CLOCK_THREAD_CPUTIME_ID`), not the
//! wall clock: on a software GPU with as many threads as cores, the
//! rasterizer's threads, woken by the submit, preempt the app's thread
//! before its submit returns, and the wall clock would charge their work to
//! the app.

use super::*;
use std::cell::Cell;
use std::time::{Duration, Instant};

thread_local! {
    /// [`thread_cpu`] when this thread's last [`pass_and_wait`] submit returned.
    static SUBMITTED_CPU: Cell<Duration> = const { Cell::new(Duration::ZERO) };
}

/// The CPU time this thread has run for: its own work, without the time it
/// waited or was preempted.
pub(crate) fn thread_cpu() -> Duration {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `t` is a valid, writable timespec; the clock id is a constant
    // every Linux has, and the call writes nothing else.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// One frame's pass: clear `target`, `draw` into it, submit, wait for the
/// GPU. Returns when the submit returned (the wait is not in it).
pub(crate) fn pass_and_wait(
    device: &wgpu::Device, queue: &wgpu::Queue, target: &wgpu::TextureView,
    draw: impl FnOnce(&mut wgpu::RenderPass<'_>),
) -> Instant {
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    {
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("bench frame"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: target,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color::WHITE),
                    store: wgpu::StoreOp::Store,
                },
            })],
            ..Default::default()
        });
        draw(&mut pass);
    }
    queue.submit([encoder.finish()]);
    let submitted = Instant::now();
    SUBMITTED_CPU.with(|c| c.set(thread_cpu()));
    device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
    submitted
}

/// The app thread's CPU time for one `frame`: from its start until its
/// submit returned (the frame's [`pass_and_wait`]).
fn frame_cpu(frame: &mut dyn FnMut() -> Instant) -> Duration {
    let start = thread_cpu();
    frame();
    SUBMITTED_CPU.with(Cell::get).saturating_sub(start)
}

/// Criterion's timing of `frame` run `iters` times, counting the app
/// thread's CPU time from each frame's start until its submit returned.
pub(crate) fn cpu_side(iters: u64, mut frame: impl FnMut() -> Instant) -> Duration {
    (0..iters).map(|_| frame_cpu(&mut frame)).sum()
}

/// kerf's cosmic-text adapter: every buffer of `text` as kerf glyphs.
pub(crate) fn cosmic_glyphs(
    k: &mut Kerf, fonts: &mut kerf::cache::CosmicFonts, fs: &FontSystem, text: &Shaped,
    out: &mut Vec<PositionedGlyph>,
) {
    for (b, top) in &text.buffers {
        fonts.glyphs(k.atlas.cache_mut(), fs, b, (0.0, *top), [0, 0, 0, 255], out).unwrap();
    }
}

/// One whole kerf frame: `glyphs` prepared, drawn into `target`, waited on.
pub(crate) fn kerf_frame_drawn(
    device: &wgpu::Device, queue: &wgpu::Queue, k: &mut Kerf, glyphs: &[PositionedGlyph],
    target: &wgpu::TextureView,
) -> Instant {
    let areas = [TextArea::glyphs(glyphs, 0.0, 0.0)];
    k.renderer.prepare(device, queue, &mut k.atlas, &areas, &k.viewport).unwrap();
    pass_and_wait(device, queue, target, |pass| k.renderer.render(&k.atlas, pass).unwrap())
}

/// One whole glyphon frame: every buffer of `text` prepared, drawn into
/// `target`, waited on, the atlas trimmed as an app does after a frame.
pub(crate) fn glyphon_frame_drawn(
    device: &wgpu::Device, queue: &wgpu::Queue, gl: &mut Glyphon, fs: &mut FontSystem,
    text: &Shaped, target: &wgpu::TextureView,
) -> Instant {
    let areas = glyphon_areas(text, 0..text.buffers.len(), 0.0);
    gl.prepare(device, queue, fs, areas);
    let submitted = pass_and_wait(device, queue, target, |pass| {
        gl.renderer.render(&gl.atlas, &gl.viewport, pass).unwrap()
    });
    gl.atlas.trim();
    submitted
}

/// `frame_paragraph`: the warm paragraph drawn whole, kerf (default
/// correction), glyphon, and an empty pass.
pub(crate) fn frame_case(c: &mut Criterion) {
    let gpu = kerf::gpu::headless().unwrap_or_else(|e| panic!("{e}"));
    let (device, queue) = (&gpu.device, &gpu.queue);
    let mut fs = font_system();
    let para = shape(&mut fs, &paragraph());
    let target = kerf::gpu::Offscreen::new(device, W, H, FORMAT).unwrap();
    let mut k = kerf_side(device, queue);
    let glyphs = kerf_glyphs(&para, 0..para.buffers.len(), 0.0, k.font);
    let mut gl = glyphon_side(device, queue);
    print_quad_area("frame_paragraph", device, queue, &mut k, &glyphs, &mut gl, &mut fs, &para);
    print_alternating(
        "frame_paragraph",
        200,
        || kerf_frame_drawn(device, queue, &mut k, &glyphs, &target.view),
        || glyphon_frame_drawn(device, queue, &mut gl, &mut fs, &para, &target.view),
    );
    let mut g = c.benchmark_group("frame_paragraph");
    g.throughput(Throughput::Elements(glyphs.len() as u64));
    g.bench_function("empty", |b| b.iter(|| pass_and_wait(device, queue, &target.view, |_| {})));
    g.bench_function("empty-cpu", |b| {
        b.iter_custom(|n| cpu_side(n, || pass_and_wait(device, queue, &target.view, |_| {})))
    });
    g.bench_function("kerf", |b| {
        b.iter(|| kerf_frame_drawn(device, queue, &mut k, &glyphs, &target.view))
    });
    g.bench_function("glyphon", |b| {
        b.iter(|| glyphon_frame_drawn(device, queue, &mut gl, &mut fs, &para, &target.view))
    });
    g.bench_function("kerf-cpu", |b| {
        b.iter_custom(|n| {
            cpu_side(n, || kerf_frame_drawn(device, queue, &mut k, &glyphs, &target.view))
        })
    });
    g.bench_function("glyphon-cpu", |b| {
        b.iter_custom(|n| {
            cpu_side(n, || {
                glyphon_frame_drawn(device, queue, &mut gl, &mut fs, &para, &target.view)
            })
        })
    });
    g.finish();
}

/// How many renderers share one atlas in `frame_eight` (an app with a text
/// renderer per panel).
const RENDERERS: usize = 8;

/// `frame_multiscript` (the multi-script scene with emoji, warm: kerf's
/// adapter converts the cosmic-text buffers each frame, glyphon prepares
/// them) and `frame_eight` (the same buffers split over eight renderers on
/// one atlas, drawn in one pass), whole frames.
pub(crate) fn frame_scenes_case(c: &mut Criterion) {
    let gpu = kerf::gpu::headless().unwrap_or_else(|e| panic!("{e}"));
    let (device, queue) = (&gpu.device, &gpu.queue);
    let (mut fs, text) = crate::scene::scene_at(W as f32);
    let target = kerf::gpu::Offscreen::new(device, W, H, FORMAT).unwrap();
    let mut k = kerf_side(device, queue);
    let mut fonts = kerf::cache::CosmicFonts::new();
    let mut glyphs = Vec::new();
    cosmic_glyphs(&mut k, &mut fonts, &fs, &text, &mut glyphs);
    let mut gl = glyphon_side(device, queue);
    print_quad_area("frame_multiscript", device, queue, &mut k, &glyphs, &mut gl, &mut fs, &text);
    let mut kerf_frame = |k: &mut Kerf, glyphs: &mut Vec<PositionedGlyph>, fs: &FontSystem| {
        glyphs.clear();
        cosmic_glyphs(k, &mut fonts, fs, &text, glyphs);
        kerf_frame_drawn(device, queue, k, glyphs, &target.view)
    };
    {
        // Both closures need the font system: kerf's reads it, glyphon's writes.
        let fs = std::cell::RefCell::new(&mut fs);
        print_alternating(
            "frame_multiscript",
            200,
            || kerf_frame(&mut k, &mut glyphs, &fs.borrow()),
            || {
                glyphon_frame_drawn(
                    device,
                    queue,
                    &mut gl,
                    &mut fs.borrow_mut(),
                    &text,
                    &target.view,
                )
            },
        );
    }
    let mut g = c.benchmark_group("frame_multiscript");
    g.throughput(Throughput::Elements(glyphs.len() as u64));
    g.bench_function("kerf", |b| b.iter(|| kerf_frame(&mut k, &mut glyphs, &fs)));
    g.bench_function("kerf-cpu", |b| {
        b.iter_custom(|n| cpu_side(n, || kerf_frame(&mut k, &mut glyphs, &fs)))
    });
    g.bench_function("glyphon", |b| {
        b.iter(|| glyphon_frame_drawn(device, queue, &mut gl, &mut fs, &text, &target.view))
    });
    g.bench_function("glyphon-cpu", |b| {
        b.iter_custom(|n| {
            cpu_side(n, || {
                glyphon_frame_drawn(device, queue, &mut gl, &mut fs, &text, &target.view)
            })
        })
    });
    g.finish();

    // Eight renderers, each drawing every eighth buffer, one atlas.
    let parts: Vec<std::ops::Range<usize>> = (0..RENDERERS)
        .map(|r| {
            let n = text.buffers.len();
            r * n / RENDERERS..(r + 1) * n / RENDERERS
        })
        .collect();
    let mut kerf_renderers: Vec<TextRenderer> = (0..RENDERERS)
        .map(|_| {
            TextRenderer::new(device, &k.atlas, FORMAT, wgpu::MultisampleState::default(), None)
        })
        .collect();
    let mut part_glyphs: Vec<Vec<PositionedGlyph>> = vec![Vec::new(); RENDERERS];
    let mut glyphon_renderers: Vec<glyphon::TextRenderer> = (0..RENDERERS)
        .map(|_| {
            glyphon::TextRenderer::new(
                &mut gl.atlas,
                device,
                wgpu::MultisampleState::default(),
                None,
            )
        })
        .collect();
    let mut kerf_eight = |fs: &FontSystem| {
        for ((r, range), out) in kerf_renderers.iter_mut().zip(&parts).zip(&mut part_glyphs) {
            out.clear();
            for (buf, top) in &text.buffers[range.clone()] {
                let cache = k.atlas.cache_mut();
                fonts.glyphs(cache, fs, buf, (0.0, *top), [0, 0, 0, 255], out).unwrap();
            }
            let areas = [TextArea::glyphs(out, 0.0, 0.0)];
            r.prepare(device, queue, &mut k.atlas, &areas, &k.viewport).unwrap();
        }
        pass_and_wait(device, queue, &target.view, |pass| {
            for r in &kerf_renderers {
                r.render(&k.atlas, pass).unwrap();
            }
        })
    };
    let mut glyphon_eight = |fs: &mut FontSystem| {
        for (r, range) in glyphon_renderers.iter_mut().zip(&parts) {
            // This renderer's turn on the shared atlas.
            std::mem::swap(&mut gl.renderer, r);
            gl.prepare(device, queue, fs, glyphon_areas(&text, range.clone(), 0.0));
            std::mem::swap(&mut gl.renderer, r);
        }
        let submitted = pass_and_wait(device, queue, &target.view, |pass| {
            for r in &glyphon_renderers {
                r.render(&gl.atlas, &gl.viewport, pass).unwrap();
            }
        });
        gl.atlas.trim();
        submitted
    };
    {
        let fs = std::cell::RefCell::new(&mut fs);
        print_alternating(
            "frame_eight",
            200,
            || kerf_eight(&fs.borrow()),
            || glyphon_eight(&mut fs.borrow_mut()),
        );
    }
    let mut g = c.benchmark_group("frame_eight");
    g.throughput(Throughput::Elements(glyphs.len() as u64));
    g.bench_function("kerf", |b| b.iter(|| kerf_eight(&fs)));
    g.bench_function("kerf-cpu", |b| b.iter_custom(|n| cpu_side(n, || kerf_eight(&fs))));
    g.bench_function("glyphon", |b| b.iter(|| glyphon_eight(&mut fs)));
    g.bench_function("glyphon-cpu", |b| b.iter_custom(|n| cpu_side(n, || glyphon_eight(&mut fs))));
    g.finish();
}

/// Prints the pixels the scene's quads cover, kerf's (drawn once) and
/// glyphon's (each glyph's swash image, as glyphon places it), coverage and
/// colour apart: on a software rasterizer the fragments are the frame.
#[allow(clippy::too_many_arguments)]
fn print_quad_area(
    group: &str, device: &wgpu::Device, queue: &wgpu::Queue, k: &mut Kerf,
    glyphs: &[PositionedGlyph], gl: &mut Glyphon, fs: &mut FontSystem, text: &Shaped,
) {
    let areas = [TextArea::glyphs(glyphs, 0.0, 0.0)];
    k.renderer.prepare(device, queue, &mut k.atlas, &areas, &k.viewport).unwrap();
    let (mut kerf_cov, mut kerf_col) = (0u64, 0u64);
    let colour = |q: &kerf::gpu::GlyphInstance| q.page & kerf::cache::COLOR_PAGE_BIT != 0;
    let runs =
        1 + k.renderer.instances().windows(2).filter(|w| colour(&w[0]) != colour(&w[1])).count();
    eprintln!("{group}: {} instances in {runs} runs of one kind", k.renderer.instances().len());
    for q in k.renderer.instances() {
        let a = q.width as u64 * q.height as u64;
        if q.page & kerf::cache::COLOR_PAGE_BIT != 0 {
            kerf_col += a;
        } else {
            kerf_cov += a;
        }
    }
    let (mut gl_cov, mut gl_col) = (0u64, 0u64);
    for (b, top) in &text.buffers {
        for run in b.layout_runs() {
            for g in run.glyphs {
                let key = g.physical((0.0, *top), 1.0).cache_key;
                let Some(img) = gl.swash.get_image(fs, key) else { continue };
                let a = img.placement.width as u64 * img.placement.height as u64;
                match img.content {
                    glyphon::cosmic_text::SwashContent::Mask => gl_cov += a,
                    _ => gl_col += a,
                }
            }
        }
    }
    eprintln!(
        "{group} quads: kerf {kerf_cov} coverage + {kerf_col} colour px, glyphon {gl_cov} + {gl_col} px"
    );
}

/// Frames of kerf and glyphon taken in turns (who goes first alternating),
/// `pairs` of them after a warm-up, each timed whole (start to GPU done)
/// and by the app thread's CPU time up to its submit: prints the medians
/// and kerf's speed-up for both. On a shared, noisy machine the criterion
/// rows, measured one after the other, can swing by a quarter; frames taken
/// in turns see the same load, so their ratio holds still.
fn print_alternating(
    group: &str, pairs: usize, mut kerf: impl FnMut() -> Instant,
    mut glyphon: impl FnMut() -> Instant,
) {
    let time = |f: &mut dyn FnMut() -> Instant| {
        let start = Instant::now();
        let cpu = frame_cpu(f);
        (start.elapsed(), cpu)
    };
    for _ in 0..20 {
        time(&mut kerf);
        time(&mut glyphon);
    }
    let (mut k, mut g) = (Vec::with_capacity(pairs), Vec::with_capacity(pairs));
    for i in 0..pairs {
        if i % 2 == 0 {
            k.push(time(&mut kerf));
            g.push(time(&mut glyphon));
        } else {
            g.push(time(&mut glyphon));
            k.push(time(&mut kerf));
        }
    }
    let median = |v: &[(Duration, Duration)], part: fn(&(Duration, Duration)) -> Duration| {
        let mut d: Vec<Duration> = v.iter().map(part).collect();
        d.sort_unstable();
        d[d.len() / 2]
    };
    let (km, gm) = (median(&k, |t| t.0), median(&g, |t| t.0));
    let (kc, gc) = (median(&k, |t| t.1), median(&g, |t| t.1));
    eprintln!(
        "{group} in turns ({pairs} pairs): kerf median {:.3} ms, glyphon {:.3} ms, kerf {:.2}x glyphon's speed; \
         app thread's CPU to submit: kerf {:.0} µs, glyphon {:.0} µs, {:.2}x",
        km.as_secs_f64() * 1e3,
        gm.as_secs_f64() * 1e3,
        gm.as_secs_f64() / km.as_secs_f64(),
        kc.as_secs_f64() * 1e6,
        gc.as_secs_f64() * 1e6,
        gc.as_secs_f64() / kc.as_secs_f64()
    );
}
