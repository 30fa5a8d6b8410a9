//! The GPU side of kerf-cache's pages: one `D2Array` texture per page set
//! (coverage `R8Unorm`, colour `Rgba8Unorm`), one layer per page.

use crate::atlas::scatter::{Scatter, Scattered};
use crate::correction::TextCorrection;
use crate::draw::pipeline::Shared;
use crate::error::{AtlasError, UsageError};
use kerf_cache::{
    pages::{Page, PageUpload, TexelFormat, Upload},
    CacheConfig, FontError, FontId, FrameOutput, GlyphCache, UploadMode,
};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Upload and growth counters of a [`TextAtlas`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GpuStats {
    /// Page writes made: one scatter draw (per-glyph uploads) or one
    /// `write_texture` (dirty rectangles) per dirty page per frame.
    pub upload_calls: u64,
    /// Bytes uploaded for them (per-glyph uploads: texels and region records).
    pub upload_bytes: u64,
    /// Buffer writes made for per-glyph uploads: at most one per `apply`,
    /// whichever page sets (coverage, colour) changed.
    pub buffer_writes: u64,
    /// Times a texture array grew (existing layers copied on the GPU).
    pub grows: u64,
    /// Layers copied by grows and shrinks.
    pub layers_copied: u64,
}

/// The colour pages' format (straight sRGB RGBA stored as it is) and its sRGB view.
const RGBA: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;
const RGBA_SRGB: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;

/// One page set on the GPU: a texture array (layer n = page n) and a view
/// per layer (the scatter's render targets).
struct PageArray {
    texture: wgpu::Texture,
    view: wgpu::TextureView,
    /// For RGBA pages: the array read as sRGB (texel loads return linear
    /// light), for pipelines drawing into sRGB targets.
    srgb_view: Option<wgpu::TextureView>,
    layer_views: Vec<wgpu::TextureView>,
    layers: u32,
    side: u32,
    format: wgpu::TextureFormat,
}

impl PageArray {
    fn new(
        device: &wgpu::Device, side: u32, layers: u32, format: wgpu::TextureFormat,
    ) -> PageArray {
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some(if format == wgpu::TextureFormat::R8Unorm {
                "kerf atlas pages"
            } else {
                "kerf atlas colour pages"
            }),
            size: wgpu::Extent3d { width: side, height: side, depth_or_array_layers: layers },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::TEXTURE_BINDING
                | wgpu::TextureUsages::COPY_DST
                | wgpu::TextureUsages::COPY_SRC
                | wgpu::TextureUsages::RENDER_ATTACHMENT,
            view_formats: if format == RGBA { &[RGBA_SRGB] } else { &[] },
        });
        let view = texture.create_view(&wgpu::TextureViewDescriptor {
            label: Some("kerf atlas pages view"),
            dimension: Some(wgpu::TextureViewDimension::D2Array),
            ..Default::default()
        });
        let srgb_view = (format == RGBA).then(|| {
            texture.create_view(&wgpu::TextureViewDescriptor {
                label: Some("kerf atlas colour pages sRGB view"),
                format: Some(RGBA_SRGB),
                dimension: Some(wgpu::TextureViewDimension::D2Array),
                ..Default::default()
            })
        });
        let layer_views = (0..layers)
            .map(|layer| {
                texture.create_view(&wgpu::TextureViewDescriptor {
                    label: Some("kerf atlas page layer"),
                    dimension: Some(wgpu::TextureViewDimension::D2),
                    base_array_layer: layer,
                    array_layer_count: Some(1),
                    ..Default::default()
                })
            })
            .collect();
        PageArray { texture, view, srgb_view, layer_views, layers, side, format }
    }

    /// A new array of `layers` layers holding this one's first layers,
    /// copied on the GPU (submitted at once, so writes queued afterwards land
    /// on top). Returns the layers copied.
    fn resize(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, layers: u32) -> u32 {
        let next = PageArray::new(device, self.side, layers, self.format);
        let kept = self.layers.min(layers);
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("kerf atlas resize"),
        });
        encoder.copy_texture_to_texture(
            self.texture.as_image_copy(),
            next.texture.as_image_copy(),
            wgpu::Extent3d { width: self.side, height: self.side, depth_or_array_layers: kept },
        );
        queue.submit([encoder.finish()]);
        *self = next;
        kept
    }

    /// One `write_texture` per upload. An upload without its texels
    /// ([`CacheConfig::copy_boxes`](kerf_cache::CacheConfig::copy_boxes)
    /// false, as [`TextAtlas::new`] sets it) is written straight from its
    /// page's CPU copy in `pages` (the rectangle's rows, a page's row
    /// apart), which holds them until the cache's next frame. Returns the
    /// (calls, bytes) written: an upload naming a page the cache does not
    /// have (none should) is neither written nor counted.
    fn write(&self, queue: &wgpu::Queue, uploads: &[PageUpload], pages: &[Page]) -> (u32, u64) {
        let (mut calls, mut bytes) = (0u32, 0u64);
        for u in uploads {
            let b = u.bytes_per_texel.max(1);
            let (data, offset, row) = if u.data.is_empty() {
                // (No page to read from: nothing this array holds to write.)
                let Some(p) = pages.get(u.page as usize) else { continue };
                let at = (u64::from(u.rect.y) * u64::from(p.side()) + u64::from(u.rect.x))
                    * u64::from(b);
                (p.pixels(), at, p.side() * b)
            } else {
                (&u.data[..], 0, u.rect.w * b)
            };
            queue.write_texture(
                wgpu::TexelCopyTextureInfo {
                    texture: &self.texture,
                    mip_level: 0,
                    origin: wgpu::Origin3d { x: u.rect.x, y: u.rect.y, z: u.page },
                    aspect: wgpu::TextureAspect::All,
                },
                data,
                wgpu::TexelCopyBufferLayout {
                    offset,
                    bytes_per_row: Some(row),
                    rows_per_image: Some(u.rect.h),
                },
                wgpu::Extent3d { width: u.rect.w, height: u.rect.h, depth_or_array_layers: 1 },
            );
            calls += 1;
            bytes += u.bytes();
        }
        (calls, bytes)
    }

    /// Grows or shrinks to fit `pages` (up to `max`), counting it in
    /// `stats`. Returns whether the layers changed (the bind groups must be
    /// made again).
    fn fit(
        &mut self, device: &wgpu::Device, queue: &wgpu::Queue, pages: u32, max: u32,
        stats: &mut GpuStats,
    ) -> bool {
        let before = self.layers;
        if pages > self.layers {
            let layers = pages.max(self.layers.saturating_mul(2)).min(max).max(pages);
            stats.layers_copied += self.resize(device, queue, layers) as u64;
            stats.grows += 1;
        } else if pages.max(1) <= self.layers / 2 {
            // Pages were released: give the layers back (the kept ones are copied on the GPU).
            stats.layers_copied += self.resize(device, queue, pages.max(1)) as u64;
        }
        self.layers != before
    }

    fn gpu_bytes(&self, bytes_per_texel: u64) -> u64 {
        self.layers as u64 * self.side as u64 * self.side as u64 * bytes_per_texel
    }
}

/// kerf-cache's glyph cache plus the texture arrays that mirror its pages.
///
/// Layer `n` of the coverage texture is page `n` of the cache; layer `n` of
/// the colour texture is colour page `n` (RGBA images). Each array starts
/// with one layer and grows (doubling, up to its page limit) by copying the
/// existing layers into a larger texture on the GPU, never by rasterizing again.
pub struct TextAtlas {
    cache: GlyphCache,
    pub(crate) shared: Arc<Shared>,
    coverage: PageArray,
    color: PageArray,
    /// The per-glyph upload path ([`UploadMode::Glyphs`], and sparse pages
    /// in [`UploadMode::Auto`]) of both page sets; `None` until a frame
    /// first scatters glyphs (never with dirty rectangles).
    scatter: Option<Scatter>,
    pub(crate) bind_group: wgpu::BindGroup,
    /// The same, its colour pages read through their sRGB view: for
    /// pipelines drawing into sRGB targets (no per-fragment decode).
    pub(crate) srgb_bind_group: wgpu::BindGroup,
    /// The textures with a filtering sampler, for transformed text.
    pub(crate) sampled_bind_group: wgpu::BindGroup,
    max_layers: u32,
    pub(crate) id: u64,
    stats: GpuStats,
    /// An app frame is open ([`TextAtlas::begin_frame`]).
    frame_open: bool,
    /// A cache frame was begun inside the open app frame.
    frame_started: bool,
    /// The correction a [`Viewport`](crate::Viewport) made for this atlas starts with.
    correction: TextCorrection,
    /// The outline store's mirror (the outline path), made when the first
    /// outline is stored.
    pub(crate) outlines: crate::outline::buffer::OutlineBuffer,
    /// Its rasterizer hints ([`like_glyphon`](Self::like_glyphon)): upright
    /// glyphs stay on bitmaps at every size.
    pub(crate) hinted: bool,
}

fn next_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

impl std::fmt::Debug for TextAtlas {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TextAtlas")
            .field("layers", &self.coverage.layers)
            .field("color_layers", &self.color.layers)
            .field("max_layers", &self.max_layers)
            .field("stats", &self.stats)
            .field("cache", &self.cache)
            .finish()
    }
}

impl TextAtlas {
    /// An empty atlas on `device`. The page sizes and page counts are
    /// checked against the device's limits: asking for more is an error
    /// here, never a failure later.
    pub fn new(device: &wgpu::Device, config: CacheConfig) -> Result<TextAtlas, AtlasError> {
        TextAtlas::with_rasterizer(
            device,
            config,
            Box::new(kerf_cache::rasterize::FontdueRasterizer),
        )
    }

    /// An atlas that draws as glyphon 0.12 does, in one call: glyphs
    /// rasterized by swash with hinting (cosmic-text's own rasterizer, as
    /// glyphon uses it; glyphs whose cosmic-text attributes disable hinting
    /// are drawn unhinted), 4 sub-pixel bins, and viewports made for it
    /// blending plain coverage ([`TextCorrection::NEUTRAL`]) instead of
    /// kerf's gamma-corrected default. `config`'s other settings are kept.
    ///
    /// kerf's own defaults ([`new`](Self::new)) are unhinted outlines drawn
    /// with a contrast and gamma correction: shapes as the font draws them.
    #[cfg(feature = "swash")]
    pub fn like_glyphon(
        device: &wgpu::Device, config: CacheConfig,
    ) -> Result<TextAtlas, AtlasError> {
        let config = CacheConfig { subpixel_bins: 4, ..config };
        let swash = kerf_cache::rasterize::SwashRasterizer::new().hinting(true);
        let mut atlas = TextAtlas::with_rasterizer(device, config, Box::new(swash))?;
        atlas.correction = TextCorrection::NEUTRAL;
        atlas.hinted = true;
        Ok(atlas)
    }

    /// The text correction [`Viewport::new`](crate::Viewport::new) starts
    /// with for this atlas: [`TextCorrection::DEFAULT`], or
    /// [`TextCorrection::NEUTRAL`] for `like_glyphon` (the `swash` feature).
    pub fn default_correction(&self) -> TextCorrection {
        self.correction
    }

    /// [`new`](Self::new) with another glyph rasterizer (e.g.
    /// `kerf_cache::rasterize::SwashRasterizer` for hinting, with kerf-cache's `swash`
    /// feature).
    pub fn with_rasterizer(
        device: &wgpu::Device, mut config: CacheConfig,
        rasterizer: Box<dyn kerf_cache::rasterize::Rasterizer>,
    ) -> Result<TextAtlas, AtlasError> {
        let limits = device.limits();
        for (asked, pages) in
            [(config.page_size, config.max_pages), (config.color.page_size, config.color.max_pages)]
        {
            if asked > limits.max_texture_dimension_2d {
                return Err(AtlasError::PageTooLarge {
                    asked,
                    limit: limits.max_texture_dimension_2d,
                });
            }
            if pages > limits.max_texture_array_layers {
                return Err(AtlasError::TooManyPages {
                    asked: pages,
                    limit: limits.max_texture_array_layers,
                });
            }
        }
        config.max_texture_side = config.max_texture_side.min(limits.max_texture_dimension_2d);
        if config.whole_box_bytes.is_none()
            && device.adapter_info().device_type == wgpu::DeviceType::Cpu
        {
            // A software adapter runs the scatter's render pass on the CPU:
            // copying a box of up to 1.5 MiB costs less.
            config.whole_box_bytes = Some(kerf_cache::pages::SOFTWARE_WHOLE_BOX_BYTES);
        }
        if !crate::draw::pipeline::storage_supported(device) {
            // No storage buffers in the fragment stage (e.g. WebGL2): upload
            // dirty rectangles with plain texture writes instead, cut from
            // the pages' CPU copies (kept, whatever the config asked).
            config.uploads = UploadMode::DirtyRect;
            config.page_copies = true;
        }
        // Boxes and scattered glyphs are written from the pages' CPU copies
        // (`apply` runs before the cache's next frame): the cache need not
        // copy them first.
        config.copy_boxes = false;
        config.copy_glyph_texels = false;
        let cache = GlyphCache::with_rasterizer(config, rasterizer)?;
        let shared = Arc::new(Shared::new(device));
        let max_layers = cache.page_limit();
        let (coverage, color) = make_arrays(device, &cache, 1, 0);
        let (bind_group, srgb_bind_group, sampled_bind_group) =
            bind_groups(device, &shared, &coverage, &color);
        Ok(TextAtlas {
            cache,
            shared,
            coverage,
            color,
            // (Made on the first scattered upload, see `apply`.)
            scatter: None,
            bind_group,
            srgb_bind_group,
            sampled_bind_group,
            max_layers,
            id: next_id(),
            stats: GpuStats::default(),
            frame_open: false,
            frame_started: false,
            correction: TextCorrection::DEFAULT,
            outlines: Default::default(),
            hinted: false,
        })
    }

    /// Writes the outline records stored since the last call to the GPU
    /// (the outline path's storage buffer); the bytes written.
    pub(crate) fn sync_outlines(&mut self, device: &wgpu::Device, queue: &wgpu::Queue) -> u64 {
        let Some((layout, _)) = &self.shared.outline_layouts else { return 0 };
        self.outlines.sync(device, queue, layout, self.cache.curves_mut())
    }

    /// Bytes of GPU memory the outline store's buffer holds.
    pub fn outline_gpu_bytes(&self) -> u64 {
        self.outlines.gpu_bytes()
    }

    /// Whether this atlas's device can draw glyphs from their outlines (it
    /// reads two storage buffers in the fragment stage); where it cannot,
    /// every glyph is drawn from bitmaps.
    pub fn draws_outlines(&self) -> bool {
        self.shared.outlines
    }

    /// Opens an app frame: every [`TextRenderer::prepare`](crate::TextRenderer::prepare)
    /// until [`end_frame`](Self::end_frame) joins one cache frame, so a
    /// glyph any renderer prepared is neither evicted nor moved by a later
    /// `prepare` of the same frame, nor by the `frames_in_flight` frames
    /// after it. Call it when several renderers, passes, viewports or windows
    /// share the atlas and their draws go to the GPU in one `queue.submit`;
    /// call `end_frame` after that submit. Without `begin_frame`, each
    /// `prepare` is a frame of its own (right for one renderer per submit).
    /// Returns the number of the last cache frame begun.
    ///
    /// A frame already open is [`UsageError::FrameAlreadyOpen`] and changes nothing.
    pub fn begin_frame(&mut self) -> Result<u64, UsageError> {
        if self.frame_open {
            return Err(UsageError::FrameAlreadyOpen);
        }
        self.frame_open = true;
        self.frame_started = false;
        Ok(self.cache.frame_number())
    }

    /// Closes the app frame opened by [`begin_frame`](Self::begin_frame)
    /// (call it after the frame's `queue.submit`). No frame open is
    /// [`UsageError::FrameNotOpen`] and changes nothing. Returns the cache frame
    /// number the frame's prepares used (unchanged if none ran).
    pub fn end_frame(&mut self) -> Result<u64, UsageError> {
        if !self.frame_open {
            return Err(UsageError::FrameNotOpen);
        }
        self.frame_open = false;
        self.frame_started = false;
        Ok(self.cache.frame_number())
    }

    /// True between [`begin_frame`](Self::begin_frame) and [`end_frame`](Self::end_frame).
    pub fn frame_open(&self) -> bool {
        self.frame_open
    }

    /// The cache frame a `prepare` runs in: a new one per call outside an app
    /// frame; inside one, a new one for the first call and the same for the rest.
    pub(crate) fn cache_frame(&mut self) -> kerf_cache::Frame<'_> {
        if self.frame_open && self.frame_started {
            return self.cache.continue_frame();
        }
        self.frame_started = self.frame_open;
        self.cache.begin_frame()
    }

    /// Loads a font into the cache.
    pub fn add_font(&mut self, bytes: impl Into<Arc<[u8]>>) -> Result<FontId, FontError> {
        self.cache.add_font(bytes)
    }

    /// Adds a source of the app's own coverage images; see
    /// [`GlyphCache::add_image_source`] and [`TextContent::Images`](crate::TextContent::Images).
    pub fn add_image_source(
        &mut self, source: impl kerf_cache::ImageSource + 'static,
    ) -> Result<kerf_cache::ImageSourceId, kerf_cache::ImageSourceError> {
        self.cache.add_image_source(source)
    }

    /// Adds a source of RGBA images (drawn from the colour texture, not
    /// tinted); see [`GlyphCache::add_rgba_image_source`].
    pub fn add_rgba_image_source(
        &mut self, source: impl kerf_cache::ImageSource + 'static,
    ) -> Result<kerf_cache::ImageSourceId, kerf_cache::ImageSourceError> {
        self.cache.add_rgba_image_source(source)
    }

    /// The glyph cache (fonts, pages, stats).
    pub fn cache(&self) -> &GlyphCache {
        &self.cache
    }

    /// The glyph cache, mutably (to load fonts, clear, run frames by hand).
    pub fn cache_mut(&mut self) -> &mut GlyphCache {
        &mut self.cache
    }

    /// The coverage texture array (layer n = page n), `R8Unorm`.
    pub fn texture(&self) -> &wgpu::Texture {
        &self.coverage.texture
    }

    /// The colour texture array (layer n = colour page n), `Rgba8Unorm`
    /// holding straight sRGB RGBA; one 1×1 layer until the first RGBA image.
    pub fn color_texture(&self) -> &wgpu::Texture {
        &self.color.texture
    }

    /// Layers the coverage texture has now (at least the cache's page count).
    pub fn layers(&self) -> u32 {
        self.coverage.layers
    }

    /// Layers the colour texture has now.
    pub fn color_layers(&self) -> u32 {
        self.color.layers
    }

    /// Upload and growth counters.
    pub fn gpu_stats(&self) -> &GpuStats {
        &self.stats
    }

    /// Brings the textures up to date with a finished cache frame: grows an
    /// array if the cache added pages, then writes the new texels. Per-glyph
    /// uploads (the default) go up in one buffer write per page set and are
    /// scattered into their pages by one draw per dirty page, submitted at
    /// once; dirty rectangles take one `write_texture` each (at most one per
    /// dirty page). Returns the number of page writes and the bytes uploaded.
    pub fn apply(
        &mut self, device: &wgpu::Device, queue: &wgpu::Queue, out: &FrameOutput,
    ) -> (u32, u64) {
        let mut rebind =
            self.coverage.fit(device, queue, out.pages, self.max_layers, &mut self.stats);
        if let Some(set) = self.cache.color_pages() {
            if self.color.side != set.page_side() {
                // The colour atlas's first use: the 1×1 placeholder becomes real pages.
                self.color = PageArray::new(
                    device,
                    set.page_side(),
                    out.color_pages.max(1),
                    wgpu::TextureFormat::Rgba8Unorm,
                );
                // (The colour scatter is made when colour glyphs are first
                // scattered: its pipeline costs milliseconds to make.)
                if let Some(scatter) = &mut self.scatter {
                    scatter.drop_color();
                }
                rebind = true;
            }
            rebind |=
                self.color.fit(device, queue, out.color_pages, set.page_limit(), &mut self.stats);
        }
        if rebind {
            (self.bind_group, self.srgb_bind_group, self.sampled_bind_group) =
                bind_groups(device, &self.shared, &self.coverage, &self.color);
        }
        // One list for both arrays: boxes written now, glyph pages gathered
        // for the scatter (one buffer write and one submit for all of them).
        let (mut calls, mut bytes) = (0u32, 0u64);
        let mut scattered: Vec<Scattered<'_>> = Vec::new();
        for u in &out.uploads {
            // The array written and the pages whose CPU copies a box is
            // written from.
            let (array, pages) = match u.atlas() {
                TexelFormat::Coverage => (&self.coverage, self.cache.pages()),
                TexelFormat::Rgba => {
                    (&self.color, self.cache.color_pages().map_or(&[][..], |c| c.pages()))
                }
            };
            match u {
                Upload::Rect(r) => {
                    let (c, b) = array.write(queue, std::slice::from_ref(r), pages);
                    (calls, bytes) = (calls + c, bytes + b);
                }
                Upload::Glyphs(g) => {
                    // (No page to read from: nothing this array holds to write.)
                    let Some(page) = pages.get(g.page as usize) else { continue };
                    scattered.push(Scattered { layers: &array.layer_views, uploads: g, page });
                }
            }
        }
        if !scattered.is_empty() {
            // The scatter is made on the first frame that scatters glyphs
            // (its shader and pipeline take about a millisecond to make, and
            // lavapipe compiles them at their first draw): a first frame
            // fills fresh pages in boxes, and an app whose glyphs stay cached
            // never scatters. (Without scatter support the uploads are boxes.)
            let (side, padding) = (self.cache.page_side(), self.cache.config().padding);
            let scatter = self.scatter.get_or_insert_with(|| Scatter::new(device, side, padding));
            let color = scattered.iter().any(|s| s.uploads.atlas == TexelFormat::Rgba);
            if let (true, false, Some(set)) = (color, scatter.has_color(), self.cache.color_pages())
            {
                scatter.set_color(device, set.page_side(), set.config().padding);
            }
            let (draws, written) = scatter.apply(device, queue, &scattered);
            (calls, bytes) = (calls + draws, bytes + written);
            self.stats.buffer_writes += (written > 0) as u64;
        }
        self.stats.upload_calls += calls as u64;
        self.stats.upload_bytes += bytes;
        (calls, bytes)
    }

    /// Bytes of GPU texture the atlas holds (every layer of both arrays; the
    /// colour array's 1×1 placeholder is not counted).
    pub fn gpu_bytes(&self) -> u64 {
        let color = if self.cache.color_pages().is_some() { self.color.gpu_bytes(4) } else { 0 };
        self.coverage.gpu_bytes(1) + color
    }

    /// Re-creates the textures on a (new) device, e.g. after the device was
    /// lost: from the cache's own copy of every page where it keeps them
    /// (no glyph is rasterized again); else the cache is
    /// [`clear`](GlyphCache::clear)ed and glyphs are rasterized when next
    /// drawn ([`CacheConfig::page_copies`](kerf_cache::CacheConfig::page_copies)).
    /// Prepare again before the next draw either way.
    pub fn rebuild(&mut self, device: &wgpu::Device, queue: &wgpu::Queue) {
        if !self.cache.config().page_copies {
            self.cache.clear();
        }
        self.shared = Arc::new(Shared::new(device));
        let layers = (self.cache.pages().len() as u32).max(1);
        let color_layers = self.cache.color_pages().map_or(0, |c| c.pages().len() as u32);
        (self.coverage, self.color) = make_arrays(device, &self.cache, layers, color_layers);
        (self.bind_group, self.srgb_bind_group, self.sampled_bind_group) =
            bind_groups(device, &self.shared, &self.coverage, &self.color);
        self.scatter = None;
        // The outline store's words go to a new buffer on the new device
        // when the next prepare syncs them (all of them: no buffer yet).
        self.outlines = Default::default();
        self.id = next_id();
        // (Full uploads carry their texels.)
        self.coverage.write(queue, &self.cache.full_uploads(), &[]);
        if let Some(set) = self.cache.color_pages() {
            self.color.write(queue, &set.full_uploads(), &[]);
        }
    }
}

/// The two arrays for `cache`: coverage with `layers` layers, colour with
/// `color_layers` (a 1×1 placeholder while the cache has no colour pages).
fn make_arrays(
    device: &wgpu::Device, cache: &GlyphCache, layers: u32, color_layers: u32,
) -> (PageArray, PageArray) {
    let coverage = PageArray::new(device, cache.page_side(), layers, wgpu::TextureFormat::R8Unorm);
    let color = match cache.color_pages() {
        Some(set) => PageArray::new(
            device,
            set.page_side(),
            color_layers.max(1),
            wgpu::TextureFormat::Rgba8Unorm,
        ),
        None => PageArray::new(device, 1, 1, wgpu::TextureFormat::Rgba8Unorm),
    };
    (coverage, color)
}

/// The bind groups of the exact and the sampled pipelines: both arrays (and the sampler).
fn bind_groups(
    device: &wgpu::Device, shared: &Shared, coverage: &PageArray, color: &PageArray,
) -> (wgpu::BindGroup, wgpu::BindGroup, wgpu::BindGroup) {
    let exact = |color: &wgpu::TextureView| {
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("kerf atlas bind group"),
            layout: &shared.atlas_layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureView(&coverage.view),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: wgpu::BindingResource::TextureView(color),
                },
            ],
        })
    };
    let srgb = exact(color.srgb_view.as_ref().unwrap_or(&color.view));
    let sampled = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("kerf sampled atlas bind group"),
        layout: &shared.sampled_atlas_layout,
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::TextureView(&coverage.view),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: wgpu::BindingResource::Sampler(&shared.sampler),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: wgpu::BindingResource::TextureView(&color.view),
            },
        ],
    });
    (exact(&color.view), srgb, sampled)
}
