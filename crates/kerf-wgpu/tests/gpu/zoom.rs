//! The zoom policy on a real device: while an area's size moves it is drawn
//! from size steps (sampled quads, far fewer rasters than exact rendering),
//! and the frame after it rests equals exact rendering texel for texel.

use super::common::*;
use kerf_wgpu::*;

const W: u32 = 480;
const H: u32 = 160;

struct Side {
    device: wgpu::Device,
    queue: wgpu::Queue,
    atlas: TextAtlas,
    renderer: TextRenderer,
    viewport: Viewport,
    font: FontId,
    target: Offscreen,
}

fn side(policy: ZoomPolicy) -> Side {
    let (device, queue) = gpu();
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let mut atlas = TextAtlas::new(&device, CacheConfig::default()).unwrap();
    let font = atlas.add_font(sans()).unwrap();
    let mut renderer = TextRenderer::new(&device, &atlas, format, Default::default(), None);
    renderer.set_zoom_policy(policy);
    let mut viewport = Viewport::new(&device, &atlas);
    viewport.update(&queue, W, H);
    let target = Offscreen::new(&device, W, H, format).unwrap();
    Side { device, queue, atlas, renderer, viewport, font, target }
}

impl Side {
    /// Draws the paragraph at `px`: the read-back and the report.
    fn frame(&mut self, px: f32) -> (Vec<u8>, PrepareReport) {
        let spec = TextSpec::new("Zoom into the glyph cache", self.font, px).at(8.0, 8.0);
        let areas = [TextArea::text(spec, 0.0, 0.0)];
        let report = self
            .renderer
            .prepare(&self.device, &self.queue, &mut self.atlas, &areas, &self.viewport)
            .unwrap();
        let img = draw_and_read(
            &self.device,
            &self.queue,
            &self.renderer,
            &self.atlas,
            &self.target,
            wgpu::Color::WHITE,
        );
        (img, report)
    }
}

#[test]
fn a_zoom_draws_from_size_steps_and_rests_exactly() {
    let sizes: Vec<f32> = (0..40).map(|i| 12.0 * 3f32.powf(i as f32 / 39.0)).collect();
    let mut steps = side(ZoomPolicy::default());
    let mut exact = side(ZoomPolicy::Exact);
    for &px in &sizes {
        let (a, ra) = steps.frame(px);
        let (b, _) = exact.frame(px);
        if px != sizes[0] {
            assert_eq!(ra.instances, 0, "a zooming frame is drawn from sampled quads");
            assert!(!steps.renderer.transformed_instances().is_empty());
        }
        // Close to exact even mid-zoom: the same ink within 10% (a step is
        // sampled bilinearly, a blur the contrast curve darkens: 3–9% more
        // ink than the exact frame, whose sub-pixel bins are exact coverage).
        let ink = |img: &[u8]| img.chunks(4).map(|p| (255 - p[0]) as f64).sum::<f64>();
        assert!((ink(&a) / ink(&b) - 1.0).abs() < 0.10, "{px} px: ink {} vs {}", ink(&a), ink(&b));
    }
    let (rasters_steps, rasters_exact) =
        (steps.atlas.cache().stats().rasterized, exact.atlas.cache().stats().rasterized);
    eprintln!(
        "40 zoom frames: rasterized {rasters_steps} glyphs from size steps, {rasters_exact} exact"
    );
    assert!(
        rasters_steps * 3 < rasters_exact,
        "steps rasterized {rasters_steps}, exact {rasters_exact}"
    );
    // At rest: the next frame at the same size is exact rendering.
    let last = *sizes.last().unwrap();
    let (rest, report) = steps.frame(last);
    assert!(report.instances > 0 && steps.renderer.transformed_instances().is_empty());
    let mut fresh = side(ZoomPolicy::Exact);
    let (reference, _) = fresh.frame(last);
    assert!(rest == reference, "the resting frame equals exact rendering texel for texel");
}

#[test]
fn other_content_at_the_same_place_is_not_a_zoom() {
    let mut s = side(ZoomPolicy::default());
    let mut draw = |text: &'static str, px: f32| {
        let spec = TextSpec::new(text, s.font, px).at(8.0, 8.0);
        let report = s
            .renderer
            .prepare(
                &s.device,
                &s.queue,
                &mut s.atlas,
                &[TextArea::text(spec, 0.0, 0.0)],
                &s.viewport,
            )
            .unwrap();
        (report.instances, s.renderer.transformed_instances().len())
    };
    draw("a heading", 28.0);
    // Another line scrolled into index 0 at another size: exact.
    let (exact, sampled) = draw("a body line", 14.0);
    assert!(exact > 0 && sampled == 0);
    // The same line resized: a zoom.
    let (exact, sampled) = draw("a body line", 15.0);
    assert!(exact == 0 && sampled > 0);
}
