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
    // Size steps are a bitmap path's: transformed text from outlines is
    // tested in outlines.rs.
    renderer.set_outline_policy(OutlinePolicy::NEVER);
    let mut viewport = Viewport::new(&device, &atlas);
    viewport.update(&queue, W, H);
    let target = Offscreen::new(&device, W, H, format).unwrap();
    Side { device, queue, atlas, renderer, viewport, font, target }
}

impl Side {
    /// Draws the paragraph at `px`: the read-back and the report.
    fn frame(&mut self, px: f32) -> (Vec<u8>, PrepareReport) {
        self.frame_of("Zoom into the glyph cache", px)
    }

    /// Draws `text` at `px`: the read-back and the report.
    fn frame_of(&mut self, text: &str, px: f32) -> (Vec<u8>, PrepareReport) {
        let spec = TextSpec::new(text, self.font, px).at(8.0, 8.0);
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

/// The default policy on the adapter the tests run on: on a software
/// adapter (lavapipe, as CI runs them) prose whose letters repeat (15
/// distinct in 79) zooms at its exact sizes, the same pixels as
/// `ZoomPolicy::Exact` draws every frame; on a GPU it zooms in steps like
/// any area. A string of distinct letters zooms in steps on both (see
/// `a_zoom_draws_from_size_steps_and_rests_exactly`, which draws one with
/// the default policy).
#[test]
fn the_default_zooms_repeating_text_exactly_on_a_software_adapter() {
    let prose = "the cat sat on the mat, the rat sat at the hat; the bat ate the oat at the gate";
    let mut auto = side(ZoomPolicy::default());
    let software = auto.device.adapter_info().device_type == wgpu::DeviceType::Cpu;
    let mut exact = side(ZoomPolicy::Exact);
    for i in 0..12 {
        let px = 10.0 * 1.04f32.powi(i);
        let (a, report) = auto.frame_of(prose, px);
        let (b, _) = exact.frame_of(prose, px);
        let sampled = auto.renderer.transformed_instances().len();
        if i == 0 || software {
            assert!(report.instances > 0 && sampled == 0, "{px} px: {report:?}, {sampled}");
            assert!(a == b, "{px} px: drawn as exact rendering draws it");
        } else {
            assert!(report.instances == 0 && sampled > 0, "{px} px: {report:?}, {sampled}");
        }
    }
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

impl Side {
    /// Prepares the string at `px`, transformed by `t`: the report.
    fn transformed(&mut self, px: f32, t: TextTransform) -> PrepareReport {
        let spec = TextSpec::new("Goblin archer 12", self.font, px).at(8.0, 8.0);
        let areas = [TextArea::text(spec, 0.0, 0.0).transformed(t)];
        self.renderer
            .prepare(&self.device, &self.queue, &mut self.atlas, &areas, &self.viewport)
            .unwrap()
    }

    /// The sizes of the sampled glyphs cached.
    fn sampled_sizes(&self) -> Vec<f32> {
        let mut sizes: Vec<f32> = self
            .atlas
            .cache()
            .entries()
            .filter(|(k, _)| k.mode == kerf_cache::RenderMode::Sampled)
            .map(|(k, _)| k.size.px())
            .collect();
        sizes.sort_by(f32::total_cmp);
        sizes.dedup();
        sizes
    }
}

/// A label whose transform scales it every frame (a world-space label as
/// the camera moves) zooms like a resized area: its glyphs come from the
/// size steps of its on-screen size, far fewer rasters than one per frame.
/// A label that only turns keeps its on-screen size: drawn at exactly that
/// size, nothing rasterized after its first frame.
#[test]
fn a_label_scaled_by_its_transform_zooms_in_steps_and_one_that_turns_does_not() {
    let turn = |i: usize, s: f32| {
        let (sin, cos) = (0.02 * i as f32).sin_cos();
        TextTransform::Affine([s * cos, s * sin, -s * sin, s * cos, 100.0, 40.0])
    };
    let mut steps = side(ZoomPolicy::default());
    let mut exact = side(ZoomPolicy::Exact);
    for i in 0..60 {
        let s = 3f32.powf(i as f32 / 59.0);
        steps.transformed(14.0, turn(i, s));
        exact.transformed(14.0, turn(i, s));
    }
    let policy = ZoomPolicy::default();
    let on_steps = steps.sampled_sizes();
    // The first frame is exact (nothing to zoom from yet), the rest steps.
    let first = kerf_cache::GlyphSize::from_px(14.0, f32::MAX).unwrap().px();
    for px in &on_steps {
        let step = kerf_cache::GlyphSize::from_px(policy.step_px(*px), f32::MAX).unwrap().px();
        assert!(*px == step || *px == first, "{px} px is neither a step nor the first size");
    }
    let (a, b) = (steps.atlas.cache().stats().rasterized, exact.atlas.cache().stats().rasterized);
    assert!(a * 3 < b, "steps rasterized {a}, exact {b}");
    assert!(exact.sampled_sizes().len() >= 59, "exact: one size a frame");
    // Turning only: the on-screen size stays 20 px, and so do the rasters.
    let mut turning = side(ZoomPolicy::default());
    turning.transformed(20.0, turn(0, 1.0));
    let before = turning.atlas.cache().stats().rasterized;
    for i in 1..30 {
        turning.transformed(20.0, turn(i, 1.0));
    }
    assert_eq!(turning.atlas.cache().stats().rasterized, before, "a turn rasterizes nothing");
    let sizes = turning.sampled_sizes();
    assert_eq!(sizes.len(), 1, "{sizes:?}");
    assert!((sizes[0] - 20.0).abs() < 0.02, "{sizes:?}");
}

/// The zoom policy watches the on-screen size: an area scaled up by 2 whose
/// transform scales it down by 2 shows its text at the same size, so it is
/// not a zoom and stays at its exact size (no size step is rasterized).
#[test]
fn area_scale_and_transform_scale_make_one_on_screen_size() {
    let mut s = side(ZoomPolicy::default());
    let spec = TextSpec::new("Goblin archer 12", s.font, 14.0).at(8.0, 8.0);
    for (scale, t) in [(1.0, 1.0), (2.0, 0.5), (4.0, 0.25)] {
        let area = TextArea::text(spec, 0.0, 0.0)
            .with_scale(scale)
            .transformed(TextTransform::Affine([t, 0.0, 0.0, t, 20.0, 20.0]));
        s.renderer.prepare(&s.device, &s.queue, &mut s.atlas, &[area], &s.viewport).unwrap();
    }
    let sizes = s.sampled_sizes();
    assert_eq!(sizes, [14.0], "one on-screen size, exact");
    // The text's own size counts the same way: 14 px at scale 2, then
    // 28 px at scale 1, under one turn, is one on-screen size.
    let mut s = side(ZoomPolicy::default());
    let turn = TextTransform::rotation_about(0.2, 50.0, 20.0);
    for (px, scale) in [(14.0, 2.0), (28.0, 1.0)] {
        let spec = TextSpec::new("Goblin archer 12", s.font, px).at(8.0, 8.0);
        let area = TextArea::text(spec, 0.0, 0.0).with_scale(scale).transformed(turn);
        s.renderer.prepare(&s.device, &s.queue, &mut s.atlas, &[area], &s.viewport).unwrap();
    }
    assert_eq!(s.sampled_sizes(), [28.0], "one on-screen size, exact");
}

/// The default keeps size steps for a transformed area on any adapter (its
/// glyphs are sampled whatever their size, so exact sizes would save no
/// filtering): prose whose letters repeat, scaled by its transform every
/// frame, is rasterized at size steps, not at one size a frame.
#[test]
fn a_transformed_zoom_keeps_its_steps_under_the_default() {
    let prose = "the cat sat on the mat, the rat sat at the hat; the bat ate the oat at the gate";
    let mut s = side(ZoomPolicy::default());
    for i in 0..30 {
        let k = 1.5f32.powf(i as f32 / 29.0);
        let spec = TextSpec::new(prose, s.font, 14.0).at(8.0, 8.0);
        let t = TextTransform::Affine([k, 0.0, 0.0, k, 0.0, 0.0]);
        let areas = [TextArea::text(spec, 0.0, 0.0).transformed(t)];
        s.renderer.prepare(&s.device, &s.queue, &mut s.atlas, &areas, &s.viewport).unwrap();
    }
    let steps = ZoomPolicy::Steps { per_octave: 8 };
    let first = kerf_cache::GlyphSize::from_px(14.0, f32::MAX).unwrap().px();
    let sizes = s.sampled_sizes();
    for px in &sizes {
        let step = kerf_cache::GlyphSize::from_px(steps.step_px(*px), f32::MAX).unwrap().px();
        assert!(*px == step || *px == first, "{px} px is neither a step nor the first size");
    }
    assert!(sizes.len() <= 6, "{sizes:?}");
}

/// Glyphs first asked for at a size the cache refuses (0 px: skipped and
/// reported) and then at a real size have nothing to zoom from: the second
/// frame is drawn exactly, not from size steps.
#[test]
fn a_size_that_drew_nothing_is_not_zoomed_from() {
    let mut s = side(ZoomPolicy::Steps { per_octave: 8 });
    let ids: Vec<u16> = {
        let font = s.atlas.cache().fonts().get(s.font).unwrap();
        "Zoom".chars().map(|c| font.glyph_index(c)).collect()
    };
    let mut draw = |px: f32| {
        let glyphs: Vec<PositionedGlyph> = ids
            .iter()
            .enumerate()
            .map(|(i, &glyph)| PositionedGlyph {
                font: s.font,
                glyph,
                size: px,
                x: 10.0 + 12.0 * i as f32,
                y: 40.0,
                color: [0, 0, 0, 255],
            })
            .collect();
        let areas = [TextArea::glyphs(&glyphs, 0.0, 0.0)];
        let report =
            s.renderer.prepare(&s.device, &s.queue, &mut s.atlas, &areas, &s.viewport).unwrap();
        (report, s.renderer.transformed_instances().len())
    };
    let (nothing, _) = draw(0.0);
    assert_eq!(nothing.instances, 0);
    let (report, sampled) = draw(16.0);
    assert!(report.instances > 0 && sampled == 0, "{report:?}, {sampled} sampled");
}
