//! One side of the multi-script scene as a winit app, to measure what an app
//! holds: a window, a wgpu surface, and the scene (Latin, Arabic, Hebrew,
//! Devanagari, CJK and colour emoji shaped by cosmic-text) drawn by kerf or
//! by glyphon 0.12 for a number of frames; then the process's peak resident
//! set (Linux's VmHWM) is printed and the app exits. Run each side in a
//! process of its own:
//!
//! ```text
//! cargo run --release --example app_memory --features demo,bench-glyphon -- kerf 120
//! cargo run --release --example app_memory --features demo,bench-glyphon -- glyphon 120
//! ```
//!
//! Under Xvfb on a machine without a display (`Xvfb :99 & DISPLAY=:99 ...`).

#[path = "../benches/glyphon/peak_rss.rs"]
mod peak_rss;
#[path = "../benches/glyphon/scene.rs"]
mod scene;
#[path = "demo/surface.rs"]
mod surface;

use kerf::gpu::{wgpu, CacheConfig, TextArea, TextAtlas, TextRenderer, Viewport};
use std::sync::Arc;
use winit::application::ApplicationHandler;
use winit::event::WindowEvent;
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::window::{Window, WindowId};

const WIDTH: u32 = 1000;
const HEIGHT: u32 = 720;

/// A renderer and what it keeps between frames. (One value for the whole
/// run: the variants' sizes do not matter.)
#[allow(clippy::large_enum_variant)]
enum Side {
    Kerf {
        atlas: TextAtlas,
        renderer: TextRenderer,
        viewport: Viewport,
        fonts: kerf::cache::CosmicFonts,
        glyphs: Vec<kerf::cache::PositionedGlyph>,
    },
    Glyphon {
        atlas: glyphon::TextAtlas,
        renderer: glyphon::TextRenderer,
        viewport: glyphon::Viewport,
        swash: glyphon::SwashCache,
    },
}

struct Gfx {
    window: Arc<Window>,
    surface: wgpu::Surface<'static>,
    device: wgpu::Device,
    queue: wgpu::Queue,
    format: wgpu::TextureFormat,
}

struct App {
    side_name: String,
    frames_left: u32,
    frames: u32,
    fs: glyphon::FontSystem,
    text: scene::Shaped,
    gfx: Option<Gfx>,
    side: Option<Side>,
    error: Option<String>,
}

impl App {
    fn init(&mut self, event_loop: &ActiveEventLoop) -> Result<(), String> {
        let attrs = Window::default_attributes()
            .with_title("kerf app_memory")
            .with_inner_size(winit::dpi::PhysicalSize::new(WIDTH, HEIGHT));
        let window = Arc::new(event_loop.create_window(attrs).map_err(|e| e.to_string())?);
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_with_display_handle_from_env(
                Box::new(event_loop.owned_display_handle()),
            ));
        let surface = instance.create_surface(Arc::clone(&window)).map_err(|e| e.to_string())?;
        let adapter = kerf::gpu::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            compatible_surface: Some(&surface),
            ..Default::default()
        }))
        .map_err(|e| format!("{e} (without a GPU: apt-get install mesa-vulkan-drivers)"))?;
        let (device, queue) =
            kerf::gpu::block_on(adapter.request_device(&wgpu::DeviceDescriptor::default()))
                .map_err(|e| e.to_string())?;
        let size = window.inner_size();
        let config = surface::surface_config(&surface, &adapter, size)?;
        let format = config.format;
        surface.configure(&device, &config);
        let ms = wgpu::MultisampleState::default();
        let side = match self.side_name.as_str() {
            "kerf" => {
                let config =
                    CacheConfig { page_size: 1024, max_pages: 8, ..CacheConfig::default() };
                let atlas = TextAtlas::new(&device, config).map_err(|e| e.to_string())?;
                let renderer = TextRenderer::new(&device, &atlas, format, ms, None);
                let mut viewport = Viewport::new(&device, &atlas);
                viewport.update(&queue, size.width, size.height);
                let fonts = kerf::cache::CosmicFonts::new();
                Side::Kerf { atlas, renderer, viewport, fonts, glyphs: Vec::new() }
            }
            "glyphon" => {
                let cache = glyphon::Cache::new(&device);
                let mut atlas = glyphon::TextAtlas::new(&device, &queue, &cache, format);
                let renderer = glyphon::TextRenderer::new(&mut atlas, &device, ms, None);
                let mut viewport = glyphon::Viewport::new(&device, &cache);
                let resolution = glyphon::Resolution { width: size.width, height: size.height };
                viewport.update(&queue, resolution);
                Side::Glyphon { atlas, renderer, viewport, swash: glyphon::SwashCache::new() }
            }
            other => return Err(format!("unknown side {other:?}: kerf or glyphon")),
        };
        self.side = Some(side);
        self.gfx = Some(Gfx { window, surface, device, queue, format });
        Ok(())
    }

    /// Draws one frame of the scene and presents it.
    fn draw(&mut self) -> Result<(), String> {
        let (Some(gfx), Some(side)) = (self.gfx.as_ref(), self.side.as_mut()) else {
            return Ok(());
        };
        let (device, queue) = (&gfx.device, &gfx.queue);
        let frame = match gfx.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t)
            | wgpu::CurrentSurfaceTexture::Suboptimal(t) => t,
            // Not drawable now (the window hidden, a resize): the next redraw.
            _ => return Ok(()),
        };
        let view = frame.texture.create_view(&wgpu::TextureViewDescriptor {
            format: Some(gfx.format),
            ..Default::default()
        });
        match side {
            Side::Kerf { atlas, renderer, viewport, fonts, glyphs } => {
                glyphs.clear();
                for (buffer, top) in &self.text.buffers {
                    fonts
                        .glyphs(
                            atlas.cache_mut(),
                            &self.fs,
                            buffer,
                            (0.0, *top),
                            [0, 0, 0, 255],
                            glyphs,
                        )
                        .map_err(|e| e.to_string())?;
                }
                let areas = [TextArea::glyphs(glyphs, 0.0, 0.0)];
                renderer
                    .prepare(device, queue, atlas, &areas, viewport)
                    .map_err(|e| e.to_string())?;
                present(device, queue, &view, |pass| {
                    renderer.render(atlas, pass).map_err(|e| e.to_string())
                })?;
            }
            Side::Glyphon { atlas, renderer, viewport, swash } => {
                let areas = self.text.buffers.iter().map(|(buffer, top)| glyphon::TextArea {
                    buffer,
                    left: 0.0,
                    top: *top,
                    scale: 1.0,
                    bounds: glyphon::TextBounds {
                        left: 0,
                        top: 0,
                        right: WIDTH as i32,
                        bottom: HEIGHT as i32,
                    },
                    default_color: glyphon::Color::rgb(0, 0, 0),
                    custom_glyphs: &[],
                });
                renderer
                    .prepare(device, queue, &mut self.fs, atlas, viewport, areas, swash)
                    .map_err(|e| e.to_string())?;
                present(device, queue, &view, |pass| {
                    renderer.render(atlas, viewport, pass).map_err(|e| e.to_string())
                })?;
                atlas.trim();
            }
        }
        gfx.window.pre_present_notify();
        queue.present(frame);
        self.frames += 1;
        Ok(())
    }
}

/// Clears `view` to white, lets `draw` record into the pass, submits.
fn present(
    device: &wgpu::Device, queue: &wgpu::Queue, view: &wgpu::TextureView,
    draw: impl FnOnce(&mut wgpu::RenderPass<'_>) -> Result<(), String>,
) -> Result<(), String> {
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    {
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("app_memory frame"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color::WHITE),
                    store: wgpu::StoreOp::Store,
                },
            })],
            ..Default::default()
        });
        draw(&mut pass)?;
    }
    queue.submit([encoder.finish()]);
    Ok(())
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.gfx.is_none() {
            if let Err(e) = self.init(event_loop) {
                self.error = Some(e);
                event_loop.exit();
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::RedrawRequested => {
                if let Err(e) = self.draw() {
                    self.error = Some(e);
                    event_loop.exit();
                } else if self.frames >= self.frames_left {
                    event_loop.exit();
                }
            }
            _ => {}
        }
    }

    fn about_to_wait(&mut self, _event_loop: &ActiveEventLoop) {
        if let Some(gfx) = &self.gfx {
            gfx.window.request_redraw();
        }
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let side_name = args.next().unwrap_or_else(|| "kerf".into());
    let frames = args.next().and_then(|n| n.parse().ok()).unwrap_or(120);
    let event_loop = match EventLoop::new() {
        Ok(l) => l,
        Err(e) => {
            eprintln!("app_memory: no display ({e}); run it under Xvfb");
            std::process::exit(1);
        }
    };
    let (fs, text) = scene::scene_at(WIDTH as f32);
    let mut app = App {
        side_name,
        frames_left: frames,
        frames: 0,
        fs,
        text,
        gfx: None,
        side: None,
        error: None,
    };
    if let Err(e) = event_loop.run_app(&mut app) {
        eprintln!("app_memory: {e}");
        std::process::exit(1);
    }
    if let Some(e) = app.error {
        eprintln!("app_memory: {e}");
        std::process::exit(1);
    }
    println!("{}: {} frames, peak RSS {} KiB", app.side_name, app.frames, peak_rss::peak_rss_kib());
}
