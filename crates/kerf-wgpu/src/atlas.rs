//! The GPU side of kerf-cache's pages: one `D2Array` texture, one layer per page.

use crate::error::{AtlasError, FrameError};
use crate::pipeline::Shared;
use crate::scatter::{self, Scatter};
use kerf_cache::{CacheConfig, FontError, FontId, FrameOutput, GlyphCache, PageUpload, UploadMode};
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
    /// Times the texture array grew (existing layers copied on the GPU).
    pub grows: u64,
    /// Layers copied by grows and shrinks.
    pub layers_copied: u64,
}

/// kerf-cache's glyph cache plus the texture array that mirrors its pages.
///
/// Layer `n` of the texture is page `n` of the cache. The array starts with one
/// layer and grows (doubling, up to the page limit) by copying the existing
/// layers into a larger texture on the GPU, never by rasterizing again.
pub struct TextAtlas {
    cache: GlyphCache,
    pub(crate) shared: Arc<Shared>,
    texture: wgpu::Texture,
    /// One single-layer view per layer: the scatter's render targets.
    layer_views: Vec<wgpu::TextureView>,
    /// The per-glyph upload path ([`UploadMode::Glyphs`]); `None` for dirty rectangles.
    scatter: Option<Scatter>,
    pub(crate) bind_group: wgpu::BindGroup,
    /// The texture with a filtering sampler, for transformed text.
    pub(crate) sampled_bind_group: wgpu::BindGroup,
    layers: u32,
    max_layers: u32,
    pub(crate) id: u64,
    stats: GpuStats,
    /// An app frame is open ([`TextAtlas::begin_frame`]).
    frame_open: bool,
    /// A cache frame was begun inside the open app frame.
    frame_started: bool,
}

fn next_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

impl std::fmt::Debug for TextAtlas {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TextAtlas")
            .field("layers", &self.layers)
            .field("max_layers", &self.max_layers)
            .field("stats", &self.stats)
            .field("cache", &self.cache)
            .finish()
    }
}

impl TextAtlas {
    /// An empty atlas on `device`. The page size and page count are checked
    /// against the device's limits: asking for more is an error here, never a
    /// failure later.
    pub fn new(device: &wgpu::Device, mut config: CacheConfig) -> Result<TextAtlas, AtlasError> {
        let limits = device.limits();
        if config.page_size > limits.max_texture_dimension_2d {
            return Err(AtlasError::PageTooLarge { asked: config.page_size, limit: limits.max_texture_dimension_2d });
        }
        if config.max_pages > limits.max_texture_array_layers {
            return Err(AtlasError::TooManyPages { asked: config.max_pages, limit: limits.max_texture_array_layers });
        }
        config.max_texture_side = config.max_texture_side.min(limits.max_texture_dimension_2d);
        if !scatter::supported(device) {
            // No storage buffers in the vertex and fragment stages (e.g. WebGL2):
            // upload dirty rectangles with plain texture writes instead.
            config.uploads = UploadMode::DirtyRect;
        }
        let cache = GlyphCache::new(config)?;
        let shared = Arc::new(Shared::new(device));
        let max_layers = cache.page_limit();
        let (texture, layer_views, bind_group, sampled_bind_group) = make_texture(device, &shared, cache.page_side(), 1);
        let scatter = make_scatter(device, &cache);
        Ok(TextAtlas {
            cache,
            shared,
            texture,
            layer_views,
            scatter,
            bind_group,
            sampled_bind_group,
            layers: 1,
            max_layers,
            id: next_id(),
            stats: GpuStats::default(),
            frame_open: false,
            frame_started: false,
        })
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
    /// A frame already open is [`FrameError::AlreadyOpen`] and changes nothing.
    pub fn begin_frame(&mut self) -> Result<u64, FrameError> {
        if self.frame_open {
            return Err(FrameError::AlreadyOpen);
        }
        self.frame_open = true;
        self.frame_started = false;
        Ok(self.cache.frame_number())
    }

    /// Closes the app frame opened by [`begin_frame`](Self::begin_frame)
    /// (call it after the frame's `queue.submit`). No frame open is
    /// [`FrameError::NotOpen`] and changes nothing. Returns the cache frame
    /// number the frame's prepares used (unchanged if none ran).
    pub fn end_frame(&mut self) -> Result<u64, FrameError> {
        if !self.frame_open {
            return Err(FrameError::NotOpen);
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

    /// Adds a source of the app's own images; see
    /// [`GlyphCache::add_image_source`] and [`TextContent::Images`](crate::TextContent::Images).
    pub fn add_image_source(&mut self, source: impl kerf_cache::ImageSource + 'static) -> Result<kerf_cache::ImageSourceId, kerf_cache::ImageSourceError> {
        self.cache.add_image_source(source)
    }

    /// The glyph cache (fonts, pages, stats).
    pub fn cache(&self) -> &GlyphCache {
        &self.cache
    }

    /// The glyph cache, mutably (to load fonts, clear, run frames by hand).
    pub fn cache_mut(&mut self) -> &mut GlyphCache {
        &mut self.cache
    }

    /// The texture array (layer n = page n), `R8Unorm`.
    pub fn texture(&self) -> &wgpu::Texture {
        &self.texture
    }

    /// Layers the texture has now (at least the cache's page count).
    pub fn layers(&self) -> u32 {
        self.layers
    }

    /// Upload and growth counters.
    pub fn gpu_stats(&self) -> &GpuStats {
        &self.stats
    }

    /// Brings the texture up to date with a finished cache frame: grows the
    /// array if the cache added pages, then writes the new texels. Per-glyph
    /// uploads (the default) go up in one buffer write and are scattered into
    /// their pages by one draw per dirty page, submitted at once; dirty
    /// rectangles take one `write_texture` each (at most one per dirty page).
    /// Returns the number of page writes and the bytes uploaded.
    pub fn apply(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, out: &FrameOutput) -> (u32, u64) {
        if out.pages > self.layers {
            self.grow(device, queue, out.pages);
        } else if out.pages.max(1) <= self.layers / 2 {
            // Pages were released: give the layers back (the kept ones are copied on the GPU).
            self.resize(device, queue, out.pages.max(1));
        }
        let (mut calls, mut bytes) = self.write(queue, &out.uploads);
        if let Some(scatter) = &mut self.scatter {
            let (draws, written) = scatter.apply(device, queue, &self.layer_views, &out.glyphs);
            self.stats.upload_calls += draws as u64;
            self.stats.upload_bytes += written;
            calls += draws;
            bytes += written;
        }
        (calls, bytes)
    }

    fn write(&mut self, queue: &wgpu::Queue, uploads: &[PageUpload]) -> (u32, u64) {
        let mut bytes = 0u64;
        for u in uploads {
            queue.write_texture(
                wgpu::TexelCopyTextureInfo {
                    texture: &self.texture,
                    mip_level: 0,
                    origin: wgpu::Origin3d { x: u.rect.x, y: u.rect.y, z: u.page },
                    aspect: wgpu::TextureAspect::All,
                },
                &u.data,
                wgpu::TexelCopyBufferLayout { offset: 0, bytes_per_row: Some(u.rect.w), rows_per_image: Some(u.rect.h) },
                wgpu::Extent3d { width: u.rect.w, height: u.rect.h, depth_or_array_layers: 1 },
            );
            bytes += u.data.len() as u64;
        }
        self.stats.upload_calls += uploads.len() as u64;
        self.stats.upload_bytes += bytes;
        (uploads.len() as u32, bytes)
    }

    /// Grows the array to hold at least `pages` layers, copying the existing
    /// layers on the GPU. The copy is submitted at once, so texture writes
    /// queued afterwards land on top of it.
    fn grow(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, pages: u32) {
        let layers = pages.max(self.layers.saturating_mul(2)).min(self.max_layers).max(pages);
        self.resize(device, queue, layers);
        self.stats.grows += 1;
    }

    /// A new array of `layers` layers holding the old array's first layers, copied on the GPU.
    fn resize(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, layers: u32) {
        let side = self.cache.page_side();
        let (texture, layer_views, bind_group, sampled_bind_group) = make_texture(device, &self.shared, side, layers);
        let kept = self.layers.min(layers);
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("kerf atlas resize") });
        encoder.copy_texture_to_texture(
            self.texture.as_image_copy(),
            texture.as_image_copy(),
            wgpu::Extent3d { width: side, height: side, depth_or_array_layers: kept },
        );
        queue.submit([encoder.finish()]);
        self.stats.layers_copied += kept as u64;
        self.texture = texture;
        self.layer_views = layer_views;
        self.bind_group = bind_group;
        self.sampled_bind_group = sampled_bind_group;
        self.layers = layers;
    }

    /// Bytes of GPU texture the atlas holds (one byte per texel, every layer).
    pub fn gpu_bytes(&self) -> u64 {
        let side = self.cache.page_side() as u64;
        self.layers as u64 * side * side
    }

    /// Re-creates the texture on a (new) device from the cache's own copy of
    /// every page, e.g. after the device was lost. No glyph is rasterized again.
    pub fn rebuild(&mut self, device: &wgpu::Device, queue: &wgpu::Queue) {
        self.shared = Arc::new(Shared::new(device));
        let layers = (self.cache.pages().len() as u32).max(1);
        let (texture, layer_views, bind_group, sampled_bind_group) = make_texture(device, &self.shared, self.cache.page_side(), layers);
        self.texture = texture;
        self.layer_views = layer_views;
        self.bind_group = bind_group;
        self.sampled_bind_group = sampled_bind_group;
        self.scatter = make_scatter(device, &self.cache);
        self.layers = layers;
        self.id = next_id();
        let uploads = self.cache.full_uploads();
        self.write(queue, &uploads);
    }
}

fn make_scatter(device: &wgpu::Device, cache: &GlyphCache) -> Option<Scatter> {
    (cache.config().uploads == UploadMode::Glyphs).then(|| Scatter::new(device, cache.page_side(), cache.config().padding))
}

type AtlasTexture = (wgpu::Texture, Vec<wgpu::TextureView>, wgpu::BindGroup, wgpu::BindGroup);

fn make_texture(device: &wgpu::Device, shared: &Shared, side: u32, layers: u32) -> AtlasTexture {
    let texture = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("kerf atlas pages"),
        size: wgpu::Extent3d { width: side, height: side, depth_or_array_layers: layers },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::R8Unorm,
        usage: wgpu::TextureUsages::TEXTURE_BINDING
            | wgpu::TextureUsages::COPY_DST
            | wgpu::TextureUsages::COPY_SRC
            | wgpu::TextureUsages::RENDER_ATTACHMENT,
        view_formats: &[],
    });
    let view = texture.create_view(&wgpu::TextureViewDescriptor {
        label: Some("kerf atlas pages view"),
        dimension: Some(wgpu::TextureViewDimension::D2Array),
        ..Default::default()
    });
    let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("kerf atlas bind group"),
        layout: &shared.atlas_layout,
        entries: &[wgpu::BindGroupEntry { binding: 0, resource: wgpu::BindingResource::TextureView(&view) }],
    });
    let sampled_bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("kerf sampled atlas bind group"),
        layout: &shared.sampled_atlas_layout,
        entries: &[
            wgpu::BindGroupEntry { binding: 0, resource: wgpu::BindingResource::TextureView(&view) },
            wgpu::BindGroupEntry { binding: 1, resource: wgpu::BindingResource::Sampler(&shared.sampler) },
        ],
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
    (texture, layer_views, bind_group, sampled_bind_group)
}
