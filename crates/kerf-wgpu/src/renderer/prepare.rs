//! The prepare stage: [`TextRenderer::prepare`] in three phases. The
//! areas are checked (nothing changes on an error); each area's glyphs are
//! looked up in one cache frame and collected as quads, the area taking
//! one way (`collect`): texel for pixel through its retained run, or
//! through its transform as sampled bitmaps and outlines; then the atlas's
//! uploads, the outline store's records and the instances are written.

use super::{instance_buffer, PrepareReport, TextRenderer};
use crate::atlas::textures::TextAtlas;
use crate::draw::vertex::{write_changed, GlyphInstance};
use crate::error::PrepareError;
use crate::lcd_settings::{Antialiasing, GrayscaleReason};
use crate::outline::OutlinePolicy;
use crate::prepare::area::{
    clip_from, scaled_effects, scissor, Content, TextArea, TextBounds, TextContent,
};
use crate::prepare::area_runs::{AreaRun, AreaStamp, Placed};
use crate::prepare::route::Route;
use crate::prepare::sampled::{draw_oversized, Raster};
use crate::prepare::transform::TextTransform;
use crate::prepare::{area_px, is_upright};
use crate::viewport::Viewport;
use kerf_cache::{GlyphQuad, PositionedGlyph, PositionedImage, RetainedRun, Reuse, Skipped};

/// What the second phase of `prepare` gathers besides the quads.
#[derive(Default)]
pub(crate) struct Collected {
    /// Areas drawn in grayscale although LCD was asked for, and why.
    lcd_fallbacks: Vec<(usize, GrayscaleReason)>,
    /// Sampled glyphs that could not be drawn.
    skipped: Vec<Skipped>,
    /// Glyphs the outline policy sent to outlines drawn from bitmaps.
    outline_fallbacks: Vec<(usize, kerf_cache::curves::OutlineError)>,
}

impl TextRenderer {
    /// Looks up (rasterizing and uploading misses) every glyph of `texts`,
    /// uploads at most one region per dirty atlas page, and fills the instance
    /// buffer. Invalid areas are refused before anything changes; glyphs that
    /// cannot be placed are skipped and reported, the rest is drawn.
    ///
    /// Three phases: the areas are checked (nothing changes on an error);
    /// each area's glyphs are looked up in one cache frame and collected as
    /// instances; the atlas's uploads and the instances are written.
    pub fn prepare(
        &mut self, device: &wgpu::Device, queue: &wgpu::Queue, atlas: &mut TextAtlas,
        texts: &[TextArea<'_>], viewport: &Viewport,
    ) -> Result<PrepareReport, PrepareError> {
        self.check(atlas, texts)?;
        if *viewport.curve() != self.curve {
            self.curve = *viewport.curve();
            self.pipeline = atlas.shared.pipeline(device, &self.key, &self.curve);
            // Made again for the new correction when next drawn.
            self.transformed.pipeline = None;
            self.transformed.bordered_pipeline = None;
            if let Antialiasing::Lcd(order) = self.antialiasing {
                self.lcd_pipeline =
                    atlas.shared.lcd_pipeline(device, &self.key, order.is_bgr(), &self.curve);
            }
        }
        // (The quads are emptied by `held.begin`, last time's kept.)
        self.transformed.clear();
        let mut collected = Collected::default();
        let mut frame = atlas.cache_frame();
        self.zoom_sizes.begin();
        // Every area at its index of last time, drawn from its record,
        // placed as last time: the instances are the last prepare's.
        let same_areas = self.areas.follow(texts);
        let mut repeated = same_areas;
        self.held.begin(&mut self.quads, same_areas, texts.len());
        for (n, area) in texts.iter().enumerate() {
            repeated &= self.collect(&mut frame, n, area, viewport.size(), &mut collected);
        }
        let in_place = self.held.end(&mut self.quads);
        self.zoom_sizes.end();
        let mut out = frame.finish();
        out.skipped.extend(collected.skipped);
        let (upload_calls, upload_bytes) = atlas.apply(device, queue, &out);
        let outline_upload_bytes = atlas.sync_outlines(device, queue);
        self.transformed.upload(device, queue, atlas, &self.key, &self.curve);
        if !repeated {
            self.upload_instances(device, queue, in_place);
        }
        if self.color_pipeline.is_none() && self.order.runs.iter().any(|r| r.1) {
            self.color_pipeline = Some(atlas.shared.color_pipeline(device, &self.key));
        }
        self.viewport = Some(viewport.bind_group.clone());
        self.target_size = Some(viewport.size());
        Ok(PrepareReport {
            frame: out.frame,
            instances: self.count,
            counts: out.counts,
            upload_calls,
            upload_bytes,
            layers: atlas.layers(),
            draws: self.draw_count(),
            skipped: out.skipped,
            missing: out.missing,
            lcd_fallbacks: collected.lcd_fallbacks,
            outlines: self.transformed.outline_quads.len() as u32,
            outline_fallbacks: collected.outline_fallbacks,
            outline_upload_bytes,
        })
    }

    /// The first phase of [`prepare`](Self::prepare): refuses an area the
    /// renderer cannot draw (another atlas, bad scale or transform, unknown
    /// font, invalid size) before anything changes.
    fn check(&self, atlas: &TextAtlas, texts: &[TextArea<'_>]) -> Result<(), PrepareError> {
        if atlas.id != self.atlas_id {
            return Err(PrepareError::AtlasMismatch);
        }
        for (i, area) in texts.iter().enumerate() {
            if !(area.scale.is_finite() && area.scale > 0.0) {
                return Err(PrepareError::Scale { area: i, scale: area.scale });
            }
            if area.transform.is_some_and(|t| !t.is_valid()) {
                return Err(PrepareError::Transform { area: i });
            }
            if let TextContent::Text(spec) = &area.content {
                atlas
                    .cache()
                    .check_text(&area.scaled(spec))
                    .map_err(|error| PrepareError::Area { area: i, error })?;
            }
            scaled_effects(&area.effects, area.scale)
                .layers()
                .map_err(|error| PrepareError::Effects { area: i, error })?;
        }
        Ok(())
    }

    /// Whether area `n` is drawn with LCD anti-aliasing; when LCD is asked
    /// for and this area cannot have it, why (recorded in `collected`).
    fn lcd_for(
        &self, n: usize, area: &TextArea<'_>, zooming: bool, collected: &mut Collected,
    ) -> bool {
        if !matches!(self.antialiasing, Antialiasing::Lcd(_)) {
            return false;
        }
        let unavailable = self.lcd_unavailable();
        let fallback = match (&area.content, area.transform) {
            (TextContent::Images(_), _) => None,
            (_, Some(_)) => Some(GrayscaleReason::Transformed),
            _ if zooming => Some(GrayscaleReason::Zooming),
            _ if unavailable.is_some() => unavailable,
            _ if !area.opaque_background => Some(GrayscaleReason::TransparentBackground),
            _ => None,
        };
        if let Some(reason) = fallback {
            collected.lcd_fallbacks.push((n, reason));
        }
        fallback.is_none()
    }

    /// The outline policy in force: the renderer's, with upright text on
    /// bitmaps for a hinting atlas, and no outlines on a device that cannot
    /// draw them.
    fn policy_in_force(&self) -> OutlinePolicy {
        let mut p = self.outline_policy;
        if self.hinted {
            p.upright_from_px = None;
        }
        if !self.outlines_available {
            p = OutlinePolicy::NEVER;
        }
        p
    }

    /// The second phase, for area `n`: its glyphs looked up in `frame` and
    /// appended as instances (a transformed area's, and glyphs too large for
    /// the atlas, as sampled quads with a draw of their own). True when its
    /// quads are the ones it appended last time, placed the same way.
    fn collect(
        &mut self, frame: &mut kerf_cache::Frame<'_>, n: usize, area: &TextArea<'_>,
        target: (u32, u32), collected: &mut Collected,
    ) -> bool {
        let previous = self.areas.stamps[n].take();
        let moving = self.zoom_sizes.zooming(n, area);
        let zooming = moving && self.zoom_sizes.in_steps(n, area, self.zoom, self.software);
        let lcd = self.lcd_for(n, area, zooming, collected);
        let max_px = frame.cache().config().max_glyph_px;
        let policy = self.policy_in_force();
        let sampled = match area.transform {
            // A transformed area whose on-screen size moves (a label
            // scaling with the camera): its on-screen size's steps.
            Some(t) if zooming => Some((t, Raster::Steps(t.raster_scale(), self.zoom))),
            Some(t) => Some((t, Raster::Scale(t.raster_scale()))),
            // A zooming area: its size steps, sampled, in place.
            None if zooming => Some((TextTransform::IDENTITY, Raster::Steps(1.0, self.zoom))),
            // Large upright text: from outlines.
            None if !lcd && policy.draws_outline(area_px(area), true) => {
                Some((TextTransform::IDENTITY, Raster::Scale(1.0)))
            }
            None => None,
        };
        if let Some((t, raster)) = sampled {
            let skipped = &mut collected.skipped;
            let clip = scissor(&area.bounds, target);
            let mut route = Route {
                raster,
                min_stretch: t.min_stretch(),
                policy,
                upright: area.transform.is_none_or(|t| is_upright(&t)),
                area: n,
                snap_bins: area.transform.is_none().then(|| frame.cache().config().subpixel_bins),
                fallbacks: &mut collected.outline_fallbacks,
            };
            self.transformed.collect(frame, area, &t, clip, skipped, &mut route);
            return false;
        }
        // Placed as last time, its quads last time's if its run's are:
        // held (copied from last time's quads) when they are.
        let held = previous
            .filter(|p| {
                self.held.has(n)
                    && area.decorations.is_empty()
                    && AreaStamp::of(area, lcd, p.generation) == *p
            })
            .map(|p| p.generation);
        if held.is_none() {
            self.held.flush(&mut self.quads);
        }
        let start = self.quads.len();
        let skips_before = frame.skipped().len();
        // A zoom drawn at its exact sizes: sizes that pass, so its misses
        // take room from glyphs gone unused before the atlas grows.
        frame.prefer_eviction(moving);
        let reused = self.collect_aligned(frame, n, area, lcd, held, &mut collected.skipped);
        frame.prefer_eviction(false);
        if reused.is_some_and(|(_, _, held)| held) {
            self.held.hold(n, &mut self.quads);
            self.areas.stamps[n] = previous;
            return true;
        }
        let start = self.held.settle(&mut self.quads, start);
        // Quads reused from a record that lies inside the bounds need no cut.
        let inside = reused.is_some_and(|([l, t, r, b], _, _)| {
            let c = &area.bounds;
            l >= c.left && t >= c.top && r <= c.right && b <= c.bottom
        });
        if !area.decorations.is_empty() {
            if let Err(reason) = frame.decorations(&area.placed_decorations(), &mut self.quads) {
                collected.skipped.push(Skipped { index: usize::MAX, key: None, reason });
            }
        }
        // Glyphs too large for the whole atlas, even in tiles, are drawn
        // from a smaller raster, sampled up: never refused.
        let oversized = frame.take_skipped(skips_before, |s| {
            matches!(s.reason, kerf_cache::GlyphError::TooLarge { .. })
        });
        if !oversized.is_empty() {
            let tr = &mut self.transformed;
            let (first, first_outline) = (tr.quads.len() as u32, tr.outline_quads.len() as u32);
            draw_oversized(frame, area, &oversized, max_px, tr, &mut collected.skipped);
            tr.push_draw(
                first,
                first_outline,
                &TextTransform::IDENTITY,
                scissor(&area.bounds, target),
            );
        }
        if area.bounds != TextBounds::default() && !(inside && area.decorations.is_empty()) {
            clip_from(&mut self.quads, start, &area.bounds);
        }
        let Some((_, generation, _)) = reused.filter(|_| area.decorations.is_empty()) else {
            return false;
        };
        let stamp = AreaStamp::of(area, lcd, generation);
        self.areas.stamps[n] = Some(stamp);
        self.held.stamped(n, start..self.quads.len());
        previous == Some(stamp)
    }

    /// An axis-aligned area's quads, texel for pixel, appended to `self.quads`
    /// (area `n`'s glyphs through its retained run). When the run's recorded
    /// quads were reused: the box they cover where they were appended, the
    /// run's generation (`RetainedRun::generation`), and whether they are
    /// the ones it appended last time in the generation `held`: then
    /// nothing was appended ([`Reuse::Held`]).
    fn collect_aligned(
        &mut self, frame: &mut kerf_cache::Frame<'_>, n: usize, area: &TextArea<'_>, lcd: bool,
        held: Option<u64>, skipped: &mut Vec<Skipped>,
    ) -> Option<([i32; 4], u64, bool)> {
        let quads = &mut self.quads;
        let start = quads.len();
        // Whole-pixel offset at scale 1: round(x + left) == round(x) + left,
        // so the glyphs go to the cache as they are and the quads move after.
        let whole = area.scale == 1.0 && area.left.fract() == 0.0 && area.top.fract() == 0.0;
        let (dx, dy) = if whole { (area.left as i32, area.top as i32) } else { (0, 0) };
        let moved = |quads: &mut [GlyphQuad]| {
            if dx != 0 || dy != 0 {
                for q in quads {
                    q.x = q.x.saturating_add(dx);
                    q.y = q.y.saturating_add(dy);
                }
            }
        };
        // The box a reused run's quads cover, moved with them.
        let extent = |run: &RetainedRun, reuse: Reuse| {
            let [l, t, r, b] = run.extent();
            let moved = [
                l.saturating_add(dx),
                t.saturating_add(dy),
                r.saturating_add(dx),
                b.saturating_add(dy),
            ];
            (reuse != Reuse::LookedUp).then_some((moved, run.generation(), reuse == Reuse::Held))
        };
        // A run: known again without reading it (not even its glyphs'
        // place) when it comes as the area last placed it; at a whole-pixel
        // offset and scale 1 as it is, else placed by the area (the first
        // time at a place, as a slice is).
        if let TextContent::Run(r) = area.content {
            if area.effects.is_empty() {
                let AreaRun { run, placed } = &mut self.areas.runs[n];
                let glyphs = match whole {
                    true => Some(r),
                    false => Placed::glyphs(placed, r, area),
                };
                if let Some(glyphs) = glyphs {
                    let reuse = frame.prepare_run_held(glyphs, lcd, quads, run, held);
                    moved(&mut quads[start..]);
                    return extent(run, reuse);
                }
            }
        }
        match &area.content.as_slices() {
            Content::Text(spec) => {
                // Checked in the first phase with the same scaled spec: cannot fail.
                let _ = if lcd {
                    frame.layout_lcd(&area.scaled(spec), quads)
                } else {
                    frame.layout(&area.scaled(spec), quads)
                };
            }
            Content::Images(images) => {
                let placed: Vec<PositionedImage> =
                    images.iter().map(|g| area.place_image(g)).collect();
                frame.prepare_images(&placed, quads);
            }
            Content::Glyphs(glyphs) if !area.effects.is_empty() => {
                // Under the glyphs: their effect layers, in grayscale.
                let placed: Vec<PositionedGlyph> =
                    glyphs.iter().map(|g| area.place_glyph(g)).collect();
                let effects = scaled_effects(&area.effects, area.scale);
                for layer in frame.effect_layers(&placed, &effects, skipped) {
                    frame.prepare(&layer, quads);
                }
                if lcd {
                    frame.prepare_lcd(&placed, quads);
                } else {
                    frame.prepare(&placed, quads);
                }
            }
            Content::Glyphs(glyphs) => {
                let glyphs = if whole {
                    glyphs
                } else {
                    self.scratch.clear();
                    self.scratch.extend(glyphs.iter().map(|g| area.place_glyph(g)));
                    &self.scratch[..]
                };
                let run = &mut self.areas.runs[n].run;
                let reuse = frame.prepare_retained_held(glyphs, lcd, quads, run, held);
                moved(&mut quads[start..]);
                return extent(run, reuse);
            }
        }
        None
    }

    /// The last phase: the quads (each area's clipped to its bounds as it was
    /// collected) written to the instance buffer (only the instances that differ from what it
    /// holds: none in a frame that draws what the last one drew).
    /// `in_place`: how many first quads are last prepare's, where they
    /// were (their instances are not compared again).
    fn upload_instances(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, in_place: usize) {
        let mut from = if self.uploaded_in_order { in_place } else { 0 };
        let mut in_order = true;
        if self.lcd_pipeline.is_none() {
            self.order.colour_last(&mut self.quads);
            if self.order.reordered {
                self.held.reordered();
                (from, in_order) = (0, false);
            }
        }
        self.uploaded_in_order = in_order;
        self.count = self.quads.len() as u32;
        let bytes = (self.quads.len() * std::mem::size_of::<GlyphInstance>()) as u64;
        if bytes > self.capacity {
            self.capacity = bytes.next_power_of_two();
            self.buffer = instance_buffer(device, self.capacity);
            self.uploaded.clear();
        }
        write_changed(queue, &self.buffer, &mut self.uploaded, &self.quads, from, |q| {
            GlyphInstance::from(q)
        });
        self.order.split(self.uploaded.iter().map(|q| q.page));
    }
}
