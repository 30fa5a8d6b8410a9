//! Whole frames as the user sees them: prepare, a render pass that clears a
//! window-sized offscreen target and draws the text, the submit, and the
//! wait until the GPU is done. The same warm paragraph for kerf and glyphon,
//! and a pass with no text (the floor both pay).

use super::*;

/// One frame's pass: clear `target`, `draw` into it, submit, wait for the GPU.
pub(crate) fn pass_and_wait(
    device: &wgpu::Device, queue: &wgpu::Queue, target: &wgpu::TextureView,
    draw: impl FnOnce(&mut wgpu::RenderPass<'_>),
) {
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
    device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
}

/// `frame_paragraph`: the warm paragraph drawn whole, kerf (default
/// correction), glyphon, and an empty pass.
pub(crate) fn frame_case(c: &mut Criterion) {
    let gpu = kerf::gpu::headless().unwrap_or_else(|e| panic!("{e}"));
    let (device, queue) = (&gpu.device, &gpu.queue);
    let mut fs = font_system();
    let para = shape(&mut fs, &paragraph());
    let target = kerf::gpu::Offscreen::new(device, W, H, FORMAT);
    let mut k = kerf_side(device, queue);
    let glyphs = kerf_glyphs(&para, 0..para.buffers.len(), 0.0, k.font);
    let mut gl = glyphon_side(device, queue);
    let mut g = c.benchmark_group("frame_paragraph");
    g.throughput(Throughput::Elements(glyphs.len() as u64));
    g.bench_function("empty", |b| b.iter(|| pass_and_wait(device, queue, &target.view, |_| {})));
    let areas = [TextArea::glyphs(&glyphs, 0.0, 0.0)];
    g.bench_function("kerf", |b| {
        b.iter(|| {
            k.renderer.prepare(device, queue, &mut k.atlas, &areas, &k.viewport).unwrap();
            pass_and_wait(device, queue, &target.view, |pass| {
                k.renderer.render(&k.atlas, pass).unwrap()
            });
        })
    });
    g.bench_function("glyphon", |b| {
        b.iter(|| {
            let areas = glyphon_areas(&para, 0..para.buffers.len(), 0.0);
            gl.renderer
                .prepare(device, queue, &mut fs, &mut gl.atlas, &gl.viewport, areas, &mut gl.swash)
                .unwrap();
            pass_and_wait(device, queue, &target.view, |pass| {
                gl.renderer.render(&gl.atlas, &gl.viewport, pass).unwrap()
            });
            gl.atlas.trim();
        })
    });
    g.finish();
}
