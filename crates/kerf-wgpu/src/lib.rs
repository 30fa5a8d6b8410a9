//! kerf on wgpu: the text renderer a wgpu app links.
//!
//! [`TextAtlas`] owns kerf-cache's glyph cache and the `R8Unorm` texture array
//! that mirrors its pages (layer n = page n), plus an `Rgba8Unorm` array for
//! its colour pages (RGBA images). [`TextRenderer::prepare`] looks
//! glyphs up, lets the cache rasterize, place and evict, then uploads the new
//! glyphs' texels in **one buffer write per frame** and scatters them into
//! their pages with **one draw per dirty page** (`shaders/scatter.wgsl`), and
//! fills an instance buffer; [`TextRenderer::render`] records one instanced
//! draw into the caller's pass (`shaders/text.wgsl`), plus the transformed
//! areas' draws (`shaders/transformed.wgsl`), which consecutive areas share
//! ([`PrepareReport::draws`] counts them). Shaders and pipelines are compiled
//! on threads of their own from the moment they are asked for (the glyph
//! pipeline by [`TextRenderer::new`]), so the compile overlaps the app's
//! shaping and the first `prepare`; `render` waits for them
//! ([`TextRenderer::wait_for_pipeline`] waits earlier).
//!
//! ```
//! use kerf_wgpu::{CacheConfig, TextArea, TextAtlas, TextRenderer, TextSpec, Viewport};
//!
//! let (device, queue) = kerf_wgpu::headless_device()?;
//! let mut atlas = TextAtlas::new(&device, CacheConfig { page_size: 256, ..CacheConfig::default() })?;
//! let font = atlas.add_font(dejavu::sans::regular().to_vec())?;
//! let format = wgpu::TextureFormat::Rgba8UnormSrgb;
//! let mut renderer = TextRenderer::new(&device, &atlas, format, wgpu::MultisampleState::default(), None);
//! let mut viewport = Viewport::new(&device, &atlas);
//! viewport.update(&queue, 200, 40);
//!
//! let text = [TextArea::text(TextSpec::new("Hello, kerf", font, 20.0), 4.0, 4.0)];
//! let report = renderer.prepare(&device, &queue, &mut atlas, &text, &viewport)?;
//! assert_eq!(report.instances, 10); // 11 characters, one blank
//! assert_eq!(report.upload_calls, 1); // one dirty page, one upload
//!
//! let target = device.create_texture(&wgpu::TextureDescriptor {
//!     label: Some("target"),
//!     size: wgpu::Extent3d { width: 200, height: 40, depth_or_array_layers: 1 },
//!     mip_level_count: 1,
//!     sample_count: 1,
//!     dimension: wgpu::TextureDimension::D2,
//!     format,
//!     usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
//!     view_formats: &[],
//! });
//! let view = target.create_view(&Default::default());
//! let mut encoder = device.create_command_encoder(&Default::default());
//! {
//!     let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
//!         label: Some("text"),
//!         color_attachments: &[Some(wgpu::RenderPassColorAttachment {
//!             view: &view,
//!             depth_slice: None,
//!             resolve_target: None,
//!             ops: wgpu::Operations { load: wgpu::LoadOp::Clear(wgpu::Color::WHITE), store: wgpu::StoreOp::Store },
//!         })],
//!         ..Default::default()
//!     });
//!     renderer.render(&atlas, &mut pass)?;
//! }
//! queue.submit([encoder.finish()]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Several renderers in one submit
//! Renderers, passes, viewports or windows sharing one atlas and submitted
//! together bracket their prepares with [`TextAtlas::begin_frame`] and
//! [`TextAtlas::end_frame`] (after the submit): all those prepares are one
//! cache frame, so no prepare evicts or moves a glyph that an earlier one
//! of the same frame drew. A single renderer per submit needs neither.
//!
//! ```no_run
//! # fn f(device: &wgpu::Device, queue: &wgpu::Queue, atlas: &mut kerf_wgpu::TextAtlas,
//! #      renderers: &mut [kerf_wgpu::TextRenderer], areas: &[Vec<kerf_wgpu::TextArea<'_>>],
//! #      viewport: &kerf_wgpu::Viewport) -> Result<(), Box<dyn std::error::Error>> {
//! atlas.begin_frame()?;
//! for (renderer, texts) in renderers.iter_mut().zip(areas) {
//!     renderer.prepare(device, queue, atlas, texts, viewport)?;
//! }
//! // ... record every renderer's render() into the frame's passes, then:
//! // queue.submit([encoder.finish()]);
//! atlas.end_frame()?;
//! # Ok(()) }
//! ```
//!
//! ## Stale texels
//! A slot evicted and reused is never sampled with stale texels by a frame in
//! flight: the cache never evicts a glyph used by the current frame or the
//! `frames_in_flight` frames before it, and wgpu executes a `write_texture`
//! after all work submitted before it, so draws already submitted read the old
//! texels and later ones the new.

#![warn(missing_docs)]
// No panics reachable from the public API: errors are typed results.
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::todo,
        clippy::unimplemented
    )
)]

// The rooms, by stage: an area's glyphs are looked up and collected as
// quads (prepare/), some drawn from their outlines (outline/), their
// texels kept in the GPU's pages (atlas/), and recorded into the app's
// pass by pipelines (draw/). renderer/ holds the renderer they share.
mod atlas;
mod correction;
mod device;
mod draw;
mod error;
mod lcd_settings;
mod offscreen;
mod outline;
mod prepare;
mod renderer;
mod viewer;
mod viewport;

pub use atlas::textures::{GpuStats, TextAtlas};
pub use correction::{luminance_of, srgb_to_linear, CorrectionError, TextCorrection};
pub use device::{block_on, headless, headless_device, headless_with, HeadlessGpu, NoAdapter};
pub use draw::pipeline::{PipelineKey, LCD_SHADER, OUTLINE_SHADER, SHADER};
pub use draw::vertex::{GlyphInstance, LCD_PAGE_BIT, SOLID_PAGE_BIT};
pub use draw::vertex::{SampledQuad, BORDER_BIT, TRANSFORMS_PER_DRAW};
pub use error::{AtlasError, PrepareError, UsageError};
pub use kerf_cache::{
    rasterize::GlyphImage, CacheConfig, Decoration, FontId, FontStyle, GlyphCache, GlyphRun,
    ImageSourceId, PositionedGlyph, PositionedImage, Skipped, TextSpec,
};
pub use lcd_settings::{Antialiasing, GrayscaleReason, SubpixelOrder};
pub use offscreen::{read_texture, Offscreen, ReadbackError, TargetError};
pub use outline::{OutlinePolicy, OutlineQuad, UPRIGHT_OUTLINE_PX};
pub use prepare::area::{TextArea, TextBounds, TextContent};
pub use prepare::transform::{TextTransform, TRANSFORMED_RASTER_LIMIT_PX};
pub use prepare::zoom::ZoomPolicy;
pub use renderer::{PrepareReport, RendererFootprint, TextRenderer};
pub use viewer::{AtlasViewer, ViewOptions, ATLAS_VIEW_SHADER};
pub use viewport::{DepthError, Viewport};
pub use wgpu;
