//! Frames: the only way to look glyphs up, so every lookup knows its frame
//! number (and eviction knows what frames in flight use).

use crate::atlas::entry::GlyphEntry;
use crate::atlas::request::{Anchor, PositionedReq};
use crate::cache::GlyphCache;
use crate::color::run_subset;
use crate::counts::FrameCounts;
use crate::error::GlyphError;
use crate::font::decoration::{Decoration, SOLID_SIDE};
use crate::font::effect::{EffectLayer, Effects, GlyphEffect};
use crate::image::SOLID_SOURCE;
use crate::image::{image_font, is_image_font, PositionedImage};
use crate::key::{FontId, GlyphKey, GlyphSize, ImageSourceId, RenderMode};
use crate::output::FrameOutput;
use crate::quad::GlyphQuad;
use crate::quad::QuadFlags;
use crate::text::{PositionedGlyph, Skipped, TextSpec};
use std::sync::atomic::Ordering;

/// One frame of a [`GlyphCache`]: the only way to look glyphs up, so the
/// frame lifecycle cannot be forgotten. Glyphs looked up in this frame are
/// never evicted while it, or any of the next `frames_in_flight` frames, runs.
pub struct Frame<'a> {
    pub(crate) cache: &'a mut GlyphCache,
    pub(crate) finished: bool,
}

impl GlyphCache {
    /// Starts a frame. Every glyph looked up through the returned [`Frame`]
    /// is protected from eviction for this frame and the next
    /// `frames_in_flight` frames. The frame ends with [`Frame::finish`]; a
    /// frame dropped without `finish` also ends, and its uploads go out with
    /// the next finished frame.
    pub fn begin_frame(&mut self) -> Frame<'_> {
        self.start_frame(self.coverage.frame + 1);
        Frame { cache: self, finished: false }
    }

    /// Continues the current frame (begins the first one if none has begun):
    /// glyphs looked up through the returned [`Frame`] are marked as used by
    /// the same frame number as the batches before it. For several batches
    /// that reach the GPU in one submission (several renderers, passes or
    /// windows sharing the atlas): no batch of the frame evicts or moves a
    /// glyph an earlier batch of the same frame uses. Its [`Frame::finish`]
    /// hands out the uploads staged since the last finished batch.
    pub fn continue_frame(&mut self) -> Frame<'_> {
        if self.coverage.frame == 0 {
            return self.begin_frame();
        }
        self.start_frame(self.coverage.frame);
        Frame { cache: self, finished: false }
    }

    /// Starts (a new number) or continues (the same) frame `frame` in both atlases.
    fn start_frame(&mut self, frame: u64) {
        self.coverage.start_frame(frame);
        if let Some(c) = self.color.as_mut() {
            c.start_frame(frame);
        }
    }

    /// Ends the frame in both atlases: their trims and uploads, and the report.
    fn end_frame(&mut self) -> FrameOutput {
        let coverage = self.coverage.end_frame();
        self.sources.fonts.tick_outlines(self.coverage.frame);
        let mut out = FrameOutput {
            frame: self.coverage.frame,
            uploads: coverage.uploads,
            pages: coverage.pages,
            color_pages: 0,
            skipped: std::mem::take(&mut self.report.skipped),
            missing: std::mem::take(&mut self.report.missing),
            counts: FrameCounts {
                default_instance: self.sources.default_instance.swap(0, Ordering::Relaxed),
                ignored_axes: std::mem::take(&mut self.report.ignored_axes),
                ..coverage.counts
            },
        };
        if let Some(c) = self.color.as_mut() {
            let mut part = c.end_frame();
            out.uploads.append(&mut part.uploads);
            out.color_pages = part.pages;
            out.counts += part.counts;
        }
        out
    }
}

/// The key of the cache's solid texel block (decorations).
fn solid_key() -> GlyphKey {
    GlyphKey::image(SOLID_SOURCE, 0, GlyphSize(crate::key::SIZE_STEPS_PER_PX as u32))
}

impl std::fmt::Debug for Frame<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Frame").field("number", &self.cache.coverage.frame).finish()
    }
}

impl Frame<'_> {
    /// This frame's number (1 for the first frame).
    pub fn number(&self) -> u64 {
        self.cache.coverage.frame
    }

    /// The cache (read-only) while the frame runs.
    pub fn cache(&self) -> &GlyphCache {
        self.cache
    }

    /// With `on`, misses looked up from now on (until this frame or batch
    /// ends, or this is called with false) take room from the
    /// least-recently-used glyphs no frame in flight uses before the atlas
    /// adds a page; a page is added only when eviction finds no room, so no
    /// glyph is refused that would otherwise fit. For glyphs at passing
    /// sizes (kerf-wgpu draws a zoom at its exact sizes this way), which
    /// would otherwise grow the atlas to its budget with sizes never drawn
    /// again. Off when a frame or batch begins.
    ///
    /// ```
    /// use kerf_cache::{CacheConfig, GlyphCache, TextSpec};
    /// let mut cache = GlyphCache::new(CacheConfig::default())?;
    /// let font = cache.add_font(dejavu::sans::regular().to_vec())?;
    /// let mut quads = Vec::new();
    /// let mut frame = cache.begin_frame();
    /// // A title animating its size: this frame's size will not come back.
    /// frame.prefer_eviction(true);
    /// frame.layout(&TextSpec::new("Zooming", font, 17.3), &mut quads)?;
    /// frame.prefer_eviction(false);
    /// frame.finish();
    /// assert_eq!(quads.len(), 7);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn prefer_eviction(&mut self, on: bool) {
        self.cache.coverage.evict_first = on;
        if let Some(c) = self.cache.color.as_mut() {
            c.evict_first = on;
        }
    }

    /// The glyphs the frame's batch calls have skipped so far (what
    /// [`finish`](Self::finish) will report), in order.
    pub fn skipped(&self) -> &[Skipped] {
        &self.cache.report.skipped
    }

    /// Removes the skipped entries from position `from` on that `pick`
    /// selects, and returns them (for a caller that draws them another way,
    /// e.g. a glyph too large for the atlas drawn from a smaller raster).
    pub fn take_skipped(&mut self, from: usize, pick: impl Fn(&Skipped) -> bool) -> Vec<Skipped> {
        let pending = &mut self.cache.report.skipped;
        if from >= pending.len() {
            // Nothing new since `from` (every prepare of every area asks).
            return Vec::new();
        }
        let (taken, kept): (Vec<Skipped>, Vec<Skipped>) =
            pending.drain(from..).partition(|s| pick(s));
        pending.extend(kept);
        taken
    }

    /// [`GlyphCache::positions`] while the frame runs (nothing reported).
    pub fn positions(
        &mut self, text: &TextSpec<'_>, out: &mut Vec<PositionedGlyph>,
    ) -> Result<(), GlyphError> {
        self.cache.positions(text, out)
    }

    /// Lays `text` out as positioned glyphs to draw in this frame (as
    /// [`positions`](Self::positions): pens on the baseline, unsnapped), and
    /// reports the characters no font has in the frame's output
    /// ([`FrameOutput::missing`]), as [`layout`](Self::layout) does. For
    /// text drawn some other way than `layout`, e.g. transformed.
    pub fn lay_out_glyphs(
        &mut self, text: &TextSpec<'_>, out: &mut Vec<PositionedGlyph>,
    ) -> Result<(), GlyphError> {
        self.cache.positions_in(text, out, true)
    }

    /// Looks up one glyph at sub-pixel offset 0, rasterizing and placing it on a miss.
    pub fn glyph(
        &mut self, font: FontId, glyph: u16, size_px: f32,
    ) -> Result<GlyphEntry, GlyphError> {
        let mode = self.cache.render_mode();
        self.glyph_in_mode(font, glyph, size_px, mode)
    }

    /// Glyph `glyph` of `font` as curves for drawing from its outline: its
    /// record in the outline store ([`GlyphCache::curves`]), read from the
    /// face and packed on its first use at any size, kept while this frame
    /// and the `frames_in_flight` after it run. `Ok(None)` for a glyph
    /// without an outline (a space). A font drawing an effect or a
    /// synthetic bold, a colour glyph, and a store with no room are errors:
    /// the glyph is drawn from a bitmap.
    pub fn outline(
        &mut self, font: FontId, glyph: u16,
    ) -> Result<Option<crate::curves::OutlineSlot>, crate::curves::OutlineError> {
        let cache = &mut *self.cache;
        let (frame, in_flight) = (cache.coverage.frame, cache.config.frames_in_flight);
        let fonts = &cache.sources.fonts;
        let key = crate::curves::CurveKey { font, glyph };
        cache.curves.get(key, frame, in_flight, || outline_curves(fonts, font, glyph))
    }

    /// Looks up one glyph for drawing with filtering (transformed text):
    /// [`RenderMode::Sampled`], offset 0, a border of zeros around the
    /// bitmap (the entry's size and bearings include it). A glyph larger
    /// than a page comes back in tiles ([`GlyphCache::tiles`]).
    pub fn sampled_glyph(
        &mut self, font: FontId, glyph: u16, size_px: f32,
    ) -> Result<GlyphEntry, GlyphError> {
        self.glyph_in_mode(font, glyph, size_px, RenderMode::Sampled)
    }

    /// Looks up one glyph at offset 0 in `mode` (a font id naming an image
    /// source is no font).
    fn glyph_in_mode(
        &mut self, font: FontId, glyph: u16, size_px: f32, mode: RenderMode,
    ) -> Result<GlyphEntry, GlyphError> {
        let size = self.cache.size_of(size_px)?;
        if is_image_font(font) {
            return Err(GlyphError::UnknownFont(font));
        }
        self.lookup(GlyphKey { mode, ..GlyphKey::new(font, glyph, size) })
    }

    /// Looks one key up in the coverage atlas, rasterizing and placing it on a miss.
    fn lookup(&mut self, key: GlyphKey) -> Result<GlyphEntry, GlyphError> {
        let cache = &mut *self.cache;
        cache.coverage.lookup(key, &cache.sources)
    }

    /// Looks up a run of positioned glyphs and appends one quad per visible
    /// glyph to `out`, in input order. Glyphs that cannot be drawn (bad size,
    /// unknown font, atlas full of in-flight glyphs, ...) are skipped and
    /// reported in the frame's output; the rest of the frame is drawn.
    pub fn prepare(&mut self, glyphs: &[PositionedGlyph], out: &mut Vec<GlyphQuad>) {
        let mode = self.cache.render_mode();
        self.prepare_in(glyphs, mode, out);
    }

    /// [`prepare`](Self::prepare) with LCD (sub-pixel) anti-aliasing:
    /// glyphs up to [`LCD_MAX_PX`](crate::limits::LCD_MAX_PX) are looked up as
    /// [`RenderMode::Lcd`] keys and their quads carry
    /// [`QuadFlags::LCD`](crate::QuadFlags::LCD) (three texels per pixel);
    /// larger ones are drawn in grayscale as by `prepare`.
    pub fn prepare_lcd(&mut self, glyphs: &[PositionedGlyph], out: &mut Vec<GlyphQuad>) {
        self.prepare_in(glyphs, RenderMode::Lcd, out);
    }

    fn prepare_in(
        &mut self, glyphs: &[PositionedGlyph], mode: RenderMode, out: &mut Vec<GlyphQuad>,
    ) {
        // The glyphs are read in place (pen-anchored requests).
        self.cache.run_slice(glyphs, out, mode);
    }

    /// Looks up the app's images (see [`GlyphCache::add_image_source`]) and
    /// appends one quad per visible image to `out`, in input order: a miss
    /// asks the image's source to render it. Images that cannot be drawn
    /// (unknown source, the source failed, bad size, atlas full) are skipped
    /// and reported in the frame's output, like glyphs.
    ///
    /// RGBA images come from the colour pages: their quads follow the
    /// coverage images' and carry [`QuadFlags::COLOR`](crate::QuadFlags::COLOR).
    pub fn prepare_images(&mut self, images: &[PositionedImage], out: &mut Vec<GlyphQuad>) {
        let req = |g: &PositionedImage| PositionedReq {
            font: image_font(g.source, g.id),
            glyph: g.id as u16,
            size: g.size,
            x: g.x,
            y: g.y,
            color: g.color,
            anchor: Anchor::ImagePen,
        };
        if !images.iter().any(|g| g.source.is_rgba()) {
            self.cache.run_requests(out, RenderMode::Image, |_, reqs| {
                reqs.extend(images.iter().map(req))
            });
            return;
        }
        // Two batches, one per page set; skipped indices mapped back to the input's.
        let reqs: Vec<PositionedReq> = images.iter().map(req).collect();
        let (rgba, coverage_idx): (Vec<usize>, Vec<usize>) =
            (0..images.len()).partition(|&i| images[i].source.is_rgba());
        let GlyphCache { coverage, color, sources, buffers, report, .. } = &mut *self.cache;
        let picked = &mut buffers.subset;
        run_subset(coverage, sources, picked, &reqs, &coverage_idx, RenderMode::Image, out, report);
        match color {
            Some(atlas) => {
                run_subset(atlas, sources, picked, &reqs, &rgba, RenderMode::Image, out, report)
            }
            None => {
                for &i in &rgba {
                    let reason = GlyphError::UnknownImageSource(images[i].source);
                    report.skipped.push(Skipped { index: i, key: None, reason });
                    coverage.stats.lookups += 1;
                    coverage.stats.misses += 1;
                    coverage.stats.skipped += 1;
                }
            }
        }
    }

    /// Looks up one image, rendering and placing it on a miss (an RGBA
    /// image in the colour pages: its entry's page carries [`COLOR_PAGE_BIT`](crate::COLOR_PAGE_BIT)).
    pub fn image(
        &mut self, source: ImageSourceId, id: u32, size_px: f32,
    ) -> Result<GlyphEntry, GlyphError> {
        let size = self.cache.size_of(size_px)?;
        let key = GlyphKey::image(source, id, size);
        if !source.is_rgba() {
            return self.lookup(key);
        }
        let cache = &mut *self.cache;
        let atlas = cache.color.as_mut().ok_or(GlyphError::UnknownImageSource(source))?;
        atlas.lookup(key, &cache.sources).map(GlyphEntry::on_color_page)
    }

    /// Appends a [`QuadFlags::SOLID`](crate::QuadFlags::SOLID) quad for each of `decorations`
    /// to `out` (a rectangle wider or taller than 65,535 px in several):
    /// each reads the one full-coverage texel the cache keeps (looked up
    /// like a glyph: placed on first use, protected while frames in flight
    /// draw it). Empty rectangles are left out. An error (the atlas has no
    /// room for the texel) appends nothing.
    pub fn decorations(
        &mut self, decorations: &[Decoration], out: &mut Vec<GlyphQuad>,
    ) -> Result<(), GlyphError> {
        if decorations.iter().all(|d| d.width == 0 || d.height == 0) {
            return Ok(());
        }
        let (page, tex_x, tex_y) = self.solid_texel()?;
        const MAX: u32 = u16::MAX as u32;
        for d in decorations {
            let mut y = 0;
            while y < d.height {
                let h = (d.height - y).min(MAX);
                let mut x = 0;
                while x < d.width {
                    let w = (d.width - x).min(MAX);
                    out.push(GlyphQuad {
                        x: d.x.saturating_add(x as i32),
                        y: d.y.saturating_add(y as i32),
                        tex_x,
                        tex_y,
                        width: w as u16,
                        height: h as u16,
                        page,
                        color: d.color,
                        flags: QuadFlags::SOLID,
                    });
                    x += w;
                }
                y += h;
            }
        }
        Ok(())
    }

    /// The page and texel a solid quad reads (full coverage, the centre of
    /// a block the cache keeps: its neighbours are full too), looked up
    /// like a glyph in this frame. For drawing sides that make their own
    /// quads of [`Decoration`]s (kerf-wgpu's transformed text).
    pub fn solid_texel(&mut self) -> Result<(u32, u16, u16), GlyphError> {
        let e = self.lookup(solid_key())?;
        let c = (SOLID_SIDE / 2) as u16;
        Ok((e.page, e.x + c, e.y + c))
    }

    /// The effect layers under `glyphs` (shadow, then outline, as
    /// [`Effects::layers`]): the same glyphs in each effect's font
    /// ([`effect_font`](Self::effect_font)), moved by its offset, in its
    /// colour, for drawing sides that draw effects of positioned glyphs
    /// (kerf-wgpu's areas). Invalid `effects` give no layers (check them
    /// with [`Effects::layers`] first); a glyph whose font has no effect
    /// font is left out of each layer and reported in `skipped` (`index`:
    /// its index in `glyphs`).
    pub fn effect_layers(
        &mut self, glyphs: &[PositionedGlyph], effects: &Effects, skipped: &mut Vec<Skipped>,
    ) -> Vec<Vec<PositionedGlyph>> {
        let cache = &mut *self.cache;
        let fonts = glyphs.iter().map(|g| g.font);
        let Ok(layers) = EffectLayer::all(effects, fonts, |f, e| cache.add_effect(f, e)) else {
            return Vec::new();
        };
        let mut out = Vec::with_capacity(layers.len());
        for layer in &layers {
            let mut drawn = Vec::with_capacity(glyphs.len());
            for (index, g) in glyphs.iter().enumerate() {
                match g.in_layer(layer) {
                    Ok(g) => drawn.push(g),
                    Err(reason) => skipped.push(Skipped { index, key: None, reason }),
                }
            }
            out.push(drawn);
        }
        out
    }

    /// The font drawing `effect` of font `font`'s glyphs
    /// ([`GlyphCache::add_effect`]), for drawing sides that draw effects of
    /// positioned glyphs.
    pub fn effect_font(&mut self, font: FontId, effect: GlyphEffect) -> Result<FontId, GlyphError> {
        self.cache.add_effect(font, effect)
    }

    /// The decorations `text` asks for ([`TextSpec::underline`] and the
    /// others), as [`layout`](Self::layout) draws them, over `glyphs`: what
    /// [`lay_out_glyphs`](Self::lay_out_glyphs) laid out for `text` (for
    /// drawing sides that place those glyphs themselves). None when `text`
    /// asks none.
    pub fn text_decorations(
        &self, text: &TextSpec<'_>, glyphs: &[PositionedGlyph],
    ) -> Vec<Decoration> {
        if text.decorations.is_empty() {
            return Vec::new();
        }
        let Some(g) = glyphs.first() else { return Vec::new() };
        self.cache.decoration_lines(
            text,
            g.size,
            glyphs.iter().map(|g| (g.font, g.glyph, g.x, g.y)),
        )
    }

    /// Lays `text` out with fontdue's layout and appends its quads to `out`.
    /// An unknown font or invalid size is an error and changes nothing.
    pub fn layout(
        &mut self, text: &TextSpec<'_>, out: &mut Vec<GlyphQuad>,
    ) -> Result<(), GlyphError> {
        let mode = self.cache.render_mode();
        self.layout_in(text, mode, out)
    }

    /// [`layout`](Self::layout) with LCD anti-aliasing, as
    /// [`prepare_lcd`](Self::prepare_lcd).
    pub fn layout_lcd(
        &mut self, text: &TextSpec<'_>, out: &mut Vec<GlyphQuad>,
    ) -> Result<(), GlyphError> {
        self.layout_in(text, RenderMode::Lcd, out)
    }

    fn layout_in(
        &mut self, text: &TextSpec<'_>, mode: RenderMode, out: &mut Vec<GlyphQuad>,
    ) -> Result<(), GlyphError> {
        let size = self.cache.check_text(text)?;
        let styled = self.cache.styled_fonts(text)?;
        let layers = self.cache.effect_layers(text, &styled)?;
        let cache = &mut *self.cache;
        let px = size.px();
        cache.lay_out(text, px, true);
        // Every glyph at its pen on its line's baseline, placed by the
        // rasterizer's own bearings (as `positions` and shaped text place
        // them): fontdue's layout gives the lines, not the bitmap boxes. The
        // pens are read once; effect layers and decorations reuse them.
        let mut pens = std::mem::take(&mut cache.buffers.pens);
        pens.clear();
        cache.line_pens(text, px, &styled, |font, glyph, x, y| {
            pens.push(PositionedGlyph { font, glyph, size: px, x, y, color: text.color })
        });
        // Under the text: its shadow, then its outline (grayscale coverage
        // keys, whatever the text's own mode), each in its colour. Every
        // font's effect font was made above (or the text refused).
        let effect_mode = cache.render_mode();
        let mut layer = std::mem::take(&mut cache.buffers.layer);
        for effect in &layers {
            layer.clear();
            layer.extend(pens.iter().filter_map(|g| g.in_layer(effect).ok()));
            cache.run_slice(&layer, out, effect_mode);
        }
        cache.run_slice(&pens, out, mode);
        let lines = if text.decorations.is_empty() {
            Vec::new()
        } else {
            cache.decoration_lines(text, px, pens.iter().map(|g| (g.font, g.glyph, g.x, g.y)))
        };
        cache.buffers.pens = pens;
        cache.buffers.layer = layer;
        if let Err(reason) = self.decorations(&lines, out) {
            let key = Some(solid_key());
            self.cache.report.skipped.push(Skipped { index: usize::MAX, key, reason });
        }
        Ok(())
    }

    /// Ends the frame: the uploads to make (at most one per dirty page) and
    /// what was skipped.
    pub fn finish(mut self) -> FrameOutput {
        self.finished = true;
        self.cache.end_frame()
    }
}

impl Drop for Frame<'_> {
    fn drop(&mut self) {
        if !self.finished {
            // Uploads stay pending in the pages and go out with the next finished frame.
            self.cache.report.skipped.clear();
        }
    }
}

/// Glyph `glyph` of `font` as curves in ems (the instance's variations and
/// synthetic oblique applied), or why it is not drawn from its outline.
fn outline_curves(
    fonts: &crate::font::FontSet, id: FontId, glyph: u16,
) -> Result<Vec<crate::curves::Curve>, crate::curves::OutlineError> {
    use crate::curves::OutlineError;
    let font = fonts.get(id).ok_or(OutlineError::UnknownFont(id))?;
    let instance = font.instance();
    if font.effect().is_some() || instance.is_some_and(|i| i.embolden()) {
        return Err(OutlineError::Synthetic);
    }
    if fonts.is_color_glyph(id, glyph) {
        return Err(OutlineError::Colour(glyph));
    }
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let face = crate::font::instance_face(font.bytes(), font.collection_index(), instance)
            .map_err(|_| OutlineError::BadFont(glyph))?;
        let oblique = instance.map_or(0.0, |i| i.oblique());
        Ok(crate::curves::read_curves(&face, glyph, oblique))
    }))
    .map_err(|_| OutlineError::BadFont(glyph))?
}
