//! The kerf demo window: a long multi-script, multi-size document that scrolls
//! by itself, so glyphs stream through the cache and get evicted, with a HUD
//! of the cache's figures, a rotating and zooming heading (a transformed text
//! area, sampled with filtering), a row of icons from an image source (cached
//! and evicted like glyphs), a band of text as people write it (Arabic,
//! Hebrew, Devanagari, CJK and colour emoji, shaped by cosmic-text, with the
//! system fonts of Debian's fonts-lohit-deva, fonts-wqy-microhei and
//! fonts-noto-color-emoji where installed) and an on-screen view of the atlas
//! pages, colour pages included.
//!
//! `cargo run --release --example demo --features demo [-- --frames N --screenshot FILE.png]`
//!
//! Keys: space toggles autoscroll; ↑ ↓ PgUp PgDn and the wheel scroll; + and -
//! change the text size; p cycles the page size; k cycles the packer; a shows
//! the atlas pages (free space in green); g outlines live glyphs there; t
//! turns and zooms a label from 16 to 2,000 px per em and back (drawn from
//! its outlines); o switches the outline path off and on (every glyph from
//! bitmaps: compare the edges); l destroys the device (the demo recreates it
//! and rebuilds the atlas from the cache); Esc quits.
//!
//! With `--frames N` the demo runs N frames and exits; with `--screenshot FILE`
//! it saves the last frame as PNG and exits with an error if it has no text.
//! `--atlas` starts with the atlas view on; `--lose-device-at N` destroys the
//! device at frame N (what `l` does), to check the recovery path unattended.

mod cli;
mod content;
mod scene;
mod surface;

use cli::{count_ink, parse_args, save_png, screenshot, srgb_clear, Args};
use content::{document, Line};
use kerf::cache::{Decoration, COLOR_PAGE_BIT};
use kerf::gpu::{
    wgpu, OutlinePolicy, PositionedImage, TextArea, TextBounds, TextSpec, TextTransform,
    ViewOptions,
};
use scene::Scene;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;
use winit::application::ApplicationHandler;
use winit::event::{ElementState, KeyEvent, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::keyboard::{Key, NamedKey};
use winit::window::{Window, WindowId};

const PAGE_SIZES: [u32; 4] = [256, 512, 1024, 2048];
const PACKERS: [&str; 4] =
    ["maxrects-bssf", "skyline-bl-wm", "guillotine-bssf-sas-rm", "shelf-ff-wm"];
const HUD_HEIGHT: f32 = 78.0;
/// The band at the bottom with the shaped multi-script lines.
const WORLD_HEIGHT: f32 = 150.0;
const BG: [f64; 3] = [0.96, 0.95, 0.92];

struct Gfx {
    surface: wgpu::Surface<'static>,
    adapter: wgpu::Adapter,
    device: wgpu::Device,
    queue: wgpu::Queue,
    config: wgpu::SurfaceConfiguration,
    lost: Arc<AtomicBool>,
}

impl Gfx {
    fn device(
        adapter: &wgpu::Adapter, lost: &Arc<AtomicBool>,
    ) -> Result<(wgpu::Device, wgpu::Queue), String> {
        let desc = wgpu::DeviceDescriptor {
            label: Some("kerf demo device"),
            required_limits: adapter.limits(),
            ..Default::default()
        };
        let (device, queue) =
            kerf::gpu::block_on(adapter.request_device(&desc)).map_err(|e| e.to_string())?;
        let flag = Arc::clone(lost);
        device.set_device_lost_callback(move |reason, msg| {
            eprintln!("device lost ({reason:?}): {msg}");
            flag.store(true, Ordering::SeqCst);
        });
        Ok((device, queue))
    }

    fn configure(&mut self, width: u32, height: u32) {
        self.config.width = width.max(1);
        self.config.height = height.max(1);
        self.surface.configure(&self.device, &self.config);
    }
}

#[derive(Default)]
struct Hud {
    instances: u32,
    lookups: u64,
    hits: u64,
    evictions: u64,
    upload_calls: u32,
    upload_bytes: u64,
    skipped: usize,
}

struct App {
    args: Args,
    doc: Vec<Line>,
    window: Option<Arc<Window>>,
    instance: Option<wgpu::Instance>,
    gfx: Option<Gfx>,
    scene: Option<Scene>,
    scroll: f32,
    autoscroll: bool,
    base_size: f32,
    page_idx: usize,
    packer_idx: usize,
    show_atlas: bool,
    show_glyphs: bool,
    /// The frame the turning, zooming label started (`t`), if it is shown.
    spin_from: Option<u64>,
    /// The outline path is on (`o`).
    outlines: bool,
    frame_ms: VecDeque<f64>,
    frames: u64,
    hud: Hud,
    error: Option<String>,
    recoveries: u32,
}

impl App {
    fn fail(&mut self, event_loop: &ActiveEventLoop, e: String) {
        eprintln!("demo: {e}");
        self.error = Some(e);
        event_loop.exit();
    }

    fn init(&mut self, event_loop: &ActiveEventLoop) -> Result<(), String> {
        let attrs = Window::default_attributes()
            .with_title("kerf demo")
            .with_inner_size(winit::dpi::LogicalSize::new(1280.0, 800.0));
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
        .map_err(|e| {
            format!("{e} (on a machine without a GPU: apt-get install mesa-vulkan-drivers)")
        })?;
        let info = adapter.get_info();
        println!("adapter: {} ({:?})", info.name, info.backend);
        let lost = Arc::new(AtomicBool::new(false));
        let (device, queue) = Gfx::device(&adapter, &lost)?;
        let size = window.inner_size();
        let mut config = surface::surface_config(&surface, &adapter, size)?;
        config.present_mode = wgpu::PresentMode::AutoVsync;
        config.desired_maximum_frame_latency = 2;
        let mut gfx = Gfx { surface, adapter, device, queue, config, lost };
        gfx.configure(size.width, size.height);
        self.scene = Some(Scene::new(&gfx, PAGE_SIZES[self.page_idx], PACKERS[self.packer_idx])?);
        self.gfx = Some(gfx);
        self.instance = Some(instance);
        self.window = Some(window);
        Ok(())
    }

    fn rebuild_scene(&mut self) -> Result<(), String> {
        if let Some(gfx) = &self.gfx {
            self.scene =
                Some(Scene::new(gfx, PAGE_SIZES[self.page_idx], PACKERS[self.packer_idx])?);
        }
        Ok(())
    }

    /// The device was lost: a new one from the same adapter, the atlas rebuilt
    /// from the cache's pages (nothing rasterized again).
    fn recover(&mut self) -> Result<(), String> {
        let (Some(gfx), Some(scene)) = (self.gfx.as_mut(), self.scene.as_mut()) else {
            return Ok(());
        };
        gfx.lost.store(false, Ordering::SeqCst);
        let (device, queue) = Gfx::device(&gfx.adapter, &gfx.lost)?;
        gfx.device = device;
        gfx.queue = queue;
        let (w, h) = (gfx.config.width, gfx.config.height);
        gfx.configure(w, h);
        scene.rebuild(gfx);
        self.recoveries += 1;
        println!(
            "device recreated; atlas rebuilt from {} cached glyphs",
            scene.atlas.cache().len()
        );
        Ok(())
    }

    fn line_height(&self, l: &Line) -> f32 {
        (self.base_size * l.scale * 1.35).ceil()
    }

    fn hud_text(&self) -> String {
        let mut sorted: Vec<f64> = self.frame_ms.iter().copied().collect();
        sorted.sort_by(f64::total_cmp);
        let median = sorted.get(sorted.len() / 2).copied().unwrap_or(0.0);
        let worst = sorted.last().copied().unwrap_or(0.0);
        let Some(scene) = &self.scene else { return String::new() };
        let cache = scene.atlas.cache();
        let occ: Vec<String> =
            cache.pages().iter().map(|p| format!("{:.0}%", p.occupancy() * 100.0)).collect();
        let h = &self.hud;
        format!(
            "kerf demo · {} · {} px pages: {} · occupancy {} · {} cached glyphs · {} px text\n\
             frame {:.2} ms median, {:.2} ms worst · {} glyphs drawn · hits {} · misses {} · evictions {} ({} total) · uploads {} ({} B) · skipped {}\n\
             space autoscroll · ↑↓ PgUp PgDn wheel · +/- size · p page size · k packer · a atlas · g glyph boxes · l lose device · esc",
            PACKERS[self.packer_idx],
            cache.page_side(),
            cache.pages().len(),
            if occ.is_empty() { "-".to_string() } else { occ.join(" ") },
            cache.len(),
            self.base_size,
            median,
            worst,
            h.instances,
            h.hits,
            h.lookups - h.hits,
            h.evictions,
            cache.stats().evictions,
            h.upload_calls,
            h.upload_bytes,
            h.skipped
        )
    }

    fn redraw(&mut self, event_loop: &ActiveEventLoop) -> Result<(), String> {
        let start = Instant::now();
        if self.args.lose_device_at == Some(self.frames) {
            if let Some(gfx) = &self.gfx {
                println!("frame {}: destroying the device", self.frames);
                gfx.device.destroy();
                gfx.lost.store(true, Ordering::SeqCst);
            }
        }
        if self.gfx.as_ref().is_some_and(|g| g.lost.load(Ordering::SeqCst)) {
            self.recover()?;
        }
        let Some(window) = self.window.clone() else { return Ok(()) };
        let size = window.inner_size();
        if size.width == 0 || size.height == 0 {
            return Ok(()); // minimised
        }
        // Scroll.
        if self.autoscroll {
            self.scroll += self.base_size * 0.8;
        }
        let total: f32 = self.doc.iter().map(|l| self.line_height(l)).sum();
        if self.scroll > total - 200.0 || self.scroll < 0.0 {
            self.scroll = 0.0;
        }
        let (w, h) = (size.width as f32, size.height as f32);
        let doc_right = if self.show_atlas { w * 0.5 } else { w };
        // Text areas: the visible lines, and the HUD.
        let hud = self.hud_text();
        // A box behind the typography panel (a solid quad of kerf's own).
        let (sx, sy) = (doc_right - 330.0, HUD_HEIGHT + 150.0);
        let bg = [(BG[0] * 255.0) as u8, (BG[1] * 255.0) as u8, (BG[2] * 255.0) as u8, 255];
        let (bx, by) = (sx as i32 - 12, sy as i32 - 10);
        let backdrop = [Decoration { x: bx, y: by, width: 320, height: 110, color: bg }];
        let mut areas: Vec<TextArea<'_>> = Vec::new();
        let Some(scene) = &self.scene else { return Ok(()) };
        let fonts = scene.fonts;
        let world = scene.world.clone();
        let bounds = TextBounds {
            left: 0,
            top: HUD_HEIGHT as i32,
            right: doc_right as i32,
            bottom: (h - WORLD_HEIGHT) as i32,
        };
        let mut y = HUD_HEIGHT + 8.0 - self.scroll;
        for line in &self.doc {
            let lh = self.line_height(line);
            if y + lh >= HUD_HEIGHT && y <= h - WORLD_HEIGHT {
                let spec = TextSpec::new(&line.text, fonts[line.font], self.base_size * line.scale)
                    .color(line.color);
                areas.push(TextArea { bounds, ..TextArea::text(spec, 20.0, y) });
            }
            y += lh;
            if y > h {
                break;
            }
        }
        // A heading that turns and zooms (a transformed area), and a row of icons.
        let t = self.frames as f32;
        let (hx, hy) = (doc_right - 190.0, HUD_HEIGHT + 70.0);
        let heading = TextSpec::new("kerf", fonts[2], 44.0)
            .color([30, 70, 160, 255])
            .outline(2.0, [255, 255, 255, 255])
            .shadow((3.0, 4.0), 4.0, [0, 0, 40, 140]);
        let zoom = 1.0 + 0.45 * (t * 0.021).sin();
        let turn = TextTransform::rotation_about(0.35 * (t * 0.013).sin(), hx + 50.0, hy + 25.0);
        let TextTransform::Affine([a, b, c, d, e, f]) = turn else { unreachable!() };
        let (zx, zy) = (hx + 50.0, hy + 25.0);
        let transform = TextTransform::Affine([
            a * zoom,
            b * zoom,
            c * zoom,
            d * zoom,
            e * zoom + zx * (1.0 - zoom),
            f * zoom + zy * (1.0 - zoom),
        ]);
        areas.push(TextArea::text(heading, hx, hy).transformed(transform));
        // `t`: a label turning and zooming from 16 to 2,000 px per em and
        // back over 480 frames, about the window's centre.
        if let Some(from) = self.spin_from {
            let f = (self.frames - from) as f32;
            let u = (f / 240.0) % 2.0;
            let u = if u > 1.0 { 2.0 - u } else { u };
            let zoom = 125f32.powf(u);
            let (cx, cy) = (w / 2.0, h / 2.0);
            let spec = TextSpec::new("Exact at any size", fonts[0], 16.0).color([150, 20, 40, 255]);
            let (s, c) = (f * 0.01).sin_cos();
            // Its middle (about 70 × 6 px at 16 px) at the centre, turned and zoomed.
            let (mx, my) = (cx - 70.0, cy + 6.0);
            let (a, b, cc, d) = (c * zoom, s * zoom, -s * zoom, c * zoom);
            let t =
                TextTransform::Affine([a, b, cc, d, cx - a * mx - cc * my, cy - b * mx - d * my]);
            areas.push(TextArea::text(spec, mx - 70.0, my - 12.0).transformed(t));
        }
        // A weight sweeping 100 → 900 on Inter's wght axis (in steps of 50:
        // 17 instances, each cached like a font), and decorated text.
        areas.push(TextArea::glyphs(&[], 0.0, 0.0).with_decorations(&backdrop));
        if let Some(inter) = scene.inter {
            let weight = 500.0 - 400.0 * (t * 0.02).cos();
            let spec = TextSpec::new("Variable weight", inter, 26.0)
                .weight((weight / 50.0).round() * 50.0)
                .color([20, 20, 20, 255]);
            areas.push(TextArea::text(spec, sx, sy));
        }
        let decorated = TextSpec::new("underlined, struck through", fonts[0], 16.0)
            .underline()
            .color([90, 30, 110, 255]);
        areas.push(TextArea::text(decorated, sx, sy + 40.0));
        areas.push(TextArea::text(
            TextSpec::new("strikethrough and overline", fonts[1], 16.0)
                .strikethrough()
                .overline()
                .color([110, 60, 20, 255]),
            sx,
            sy + 64.0,
        ));
        // Seven tinted coverage icons, then the same shapes in colour (RGBA, untinted).
        let icons: Vec<PositionedImage> = (0..14)
            .map(|i| PositionedImage {
                source: if i < 7 { scene.icons } else { scene.color_icons },
                id: i % 7,
                size: 22.0,
                x: w - 440.0 + i as f32 * 30.0,
                y: HUD_HEIGHT - 8.0,
                color: [40, 120, 60, 255],
            })
            .collect();
        areas.push(TextArea::images(&icons, 0.0, 0.0));
        // The multi-script band at the bottom (shaped once; emoji from the colour pages).
        let band = TextBounds {
            left: 0,
            top: (h - WORLD_HEIGHT) as i32,
            right: doc_right as i32,
            bottom: h as i32,
        };
        areas.push(TextArea {
            bounds: band,
            ..TextArea::glyphs(&world, 20.0, h - WORLD_HEIGHT + 8.0)
        });
        let hud_spec = TextSpec::new(&hud, fonts[0], 13.0).color([150, 20, 20, 255]);
        areas.push(TextArea {
            bounds: TextBounds { left: 0, top: 0, right: w as i32, bottom: HUD_HEIGHT as i32 },
            ..TextArea::text(hud_spec, 10.0, 8.0)
        });

        let (Some(gfx), Some(scene)) = (self.gfx.as_mut(), self.scene.as_mut()) else {
            return Ok(());
        };
        if gfx.config.width != size.width || gfx.config.height != size.height {
            gfx.configure(size.width, size.height);
        }
        scene.viewport.update(&gfx.queue, size.width, size.height);
        let report = scene
            .renderer
            .prepare(&gfx.device, &gfx.queue, &mut scene.atlas, &areas, &scene.viewport)
            .map_err(|e| e.to_string())?;
        if self.show_atlas {
            // Coverage pages, then colour pages (emoji, RGBA icons).
            let cache = scene.atlas.cache();
            let colour = cache.color_pages().map_or(0, |c| c.pages().len()) as u32;
            let ids: Vec<u32> = (0..cache.pages().len().max(1) as u32)
                .chain((0..colour).map(|p| p | COLOR_PAGE_BIT))
                .collect();
            let pages = ids.len() as u32;
            let cols = if pages > 1 { 2 } else { 1 };
            let side = ((w * 0.5 - 30.0) / cols as f32)
                .min((h - HUD_HEIGHT - 20.0) / pages.div_ceil(cols) as f32)
                - 6.0;
            let layout: Vec<(u32, f32, f32, f32)> = ids
                .iter()
                .enumerate()
                .map(|(i, &p)| {
                    let i = i as u32;
                    (
                        p,
                        w * 0.5 + 10.0 + (i % cols) as f32 * (side + 6.0),
                        HUD_HEIGHT + 10.0 + (i / cols) as f32 * (side + 6.0),
                        side,
                    )
                })
                .collect();
            let options = ViewOptions { free: true, glyphs: self.show_glyphs };
            scene.viewer.prepare(
                &gfx.device,
                &gfx.queue,
                &scene.atlas,
                &scene.viewport,
                &layout,
                options,
            );
        }
        self.hud = Hud {
            instances: report.instances,
            lookups: report.counts.lookups,
            hits: report.counts.hits,
            evictions: report.counts.evictions,
            upload_calls: report.upload_calls,
            upload_bytes: report.upload_bytes,
            skipped: report.skipped.len(),
        };
        let frame = match gfx.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t)
            | wgpu::CurrentSurfaceTexture::Suboptimal(t) => t,
            wgpu::CurrentSurfaceTexture::Timeout | wgpu::CurrentSurfaceTexture::Occluded => {
                return Ok(())
            }
            wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Validation => {
                gfx.configure(size.width, size.height);
                return Ok(());
            }
            wgpu::CurrentSurfaceTexture::Lost => {
                let instance = self.instance.as_ref().ok_or("no instance")?;
                gfx.surface =
                    instance.create_surface(Arc::clone(&window)).map_err(|e| e.to_string())?;
                gfx.configure(size.width, size.height);
                return Ok(());
            }
        };
        let view = frame.texture.create_view(&Default::default());
        let show_atlas = self.show_atlas;
        let srgb = gfx.config.format.is_srgb();
        let encode = |view: &wgpu::TextureView,
                      scene: &Scene,
                      device: &wgpu::Device|
         -> Result<wgpu::CommandEncoder, String> {
            let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("kerf demo frame"),
            });
            {
                let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                    label: Some("kerf demo pass"),
                    color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                        view,
                        depth_slice: None,
                        resolve_target: None,
                        ops: wgpu::Operations {
                            load: wgpu::LoadOp::Clear(srgb_clear(BG, srgb)),
                            store: wgpu::StoreOp::Store,
                        },
                    })],
                    ..Default::default()
                });
                scene.renderer.render(&scene.atlas, &mut pass).map_err(|e| e.to_string())?;
                if show_atlas {
                    scene.viewer.render(&scene.atlas, &mut pass).map_err(|e| e.to_string())?;
                }
            }
            Ok(encoder)
        };
        let encoder = encode(&view, scene, &gfx.device)?;
        gfx.queue.submit([encoder.finish()]);
        window.pre_present_notify();
        gfx.queue.present(frame);
        self.frames += 1;
        self.frame_ms.push_back(start.elapsed().as_secs_f64() * 1e3);
        if self.frame_ms.len() > 120 {
            self.frame_ms.pop_front();
        }
        if self.args.frames.is_some_and(|n| self.frames >= n) {
            if let Some(path) = self.args.screenshot.clone() {
                let pixels = screenshot(gfx, scene, &encode)?;
                save_png(&path, gfx.config.width, gfx.config.height, &pixels)?;
                let inked = count_ink(&pixels);
                println!(
                    "wrote {} ({}x{}), {inked} text pixels",
                    path.display(),
                    gfx.config.width,
                    gfx.config.height
                );
                if inked < 500 {
                    return Err(format!("the screenshot has no text ({inked} inked pixels)"));
                }
            }
            println!("{}", self.hud_text().lines().take(2).collect::<Vec<_>>().join("\n"));
            if self.args.lose_device_at.is_some() && self.recoveries == 0 {
                return Err("the device was to be lost but no recovery happened".into());
            }
            event_loop.exit();
        }
        Ok(())
    }

    fn key(&mut self, event_loop: &ActiveEventLoop, key: &Key) -> Result<(), String> {
        match key {
            Key::Named(NamedKey::Escape) => event_loop.exit(),
            Key::Named(NamedKey::Space) => self.autoscroll = !self.autoscroll,
            Key::Named(NamedKey::ArrowDown) => self.scroll += self.base_size * 1.35,
            Key::Named(NamedKey::ArrowUp) => self.scroll -= self.base_size * 1.35,
            Key::Named(NamedKey::PageDown) => self.scroll += 600.0,
            Key::Named(NamedKey::PageUp) => self.scroll -= 600.0,
            Key::Character(c) => match c.as_str() {
                "+" | "=" => self.base_size = (self.base_size + 1.0).min(72.0),
                "-" => self.base_size = (self.base_size - 1.0).max(6.0),
                "p" => {
                    self.page_idx = (self.page_idx + 1) % PAGE_SIZES.len();
                    self.rebuild_scene()?;
                }
                "k" => {
                    self.packer_idx = (self.packer_idx + 1) % PACKERS.len();
                    self.rebuild_scene()?;
                }
                "a" => self.show_atlas = !self.show_atlas,
                "g" => self.show_glyphs = !self.show_glyphs,
                "t" => {
                    self.spin_from = match self.spin_from {
                        Some(_) => None,
                        None => Some(self.frames),
                    }
                }
                "o" => {
                    self.outlines = !self.outlines;
                    if let Some(scene) = self.scene.as_mut() {
                        scene.renderer.set_outline_policy(if self.outlines {
                            OutlinePolicy::default()
                        } else {
                            OutlinePolicy::NEVER
                        });
                    }
                }
                "l" => {
                    if let Some(gfx) = &self.gfx {
                        gfx.device.destroy();
                        gfx.lost.store(true, Ordering::SeqCst);
                    }
                }
                _ => {}
            },
            _ => {}
        }
        Ok(())
    }
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.window.is_none() {
            if let Err(e) = self.init(event_loop) {
                self.fail(event_loop, e);
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        let result = match event {
            WindowEvent::CloseRequested => {
                event_loop.exit();
                Ok(())
            }
            WindowEvent::Resized(size) => {
                if let Some(gfx) = self.gfx.as_mut() {
                    if size.width > 0 && size.height > 0 {
                        gfx.configure(size.width, size.height);
                    }
                }
                Ok(())
            }
            WindowEvent::MouseWheel { delta, .. } => {
                self.scroll -= match delta {
                    MouseScrollDelta::LineDelta(_, y) => y * self.base_size * 1.35 * 3.0,
                    MouseScrollDelta::PixelDelta(p) => p.y as f32,
                };
                Ok(())
            }
            WindowEvent::KeyboardInput {
                event: KeyEvent { logical_key, state: ElementState::Pressed, .. },
                ..
            } => self.key(event_loop, &logical_key),
            WindowEvent::RedrawRequested => self.redraw(event_loop),
            _ => Ok(()),
        };
        if let Err(e) = result {
            self.fail(event_loop, e);
        }
    }

    fn about_to_wait(&mut self, _event_loop: &ActiveEventLoop) {
        if let Some(w) = &self.window {
            w.request_redraw();
        }
    }
}

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("demo: {e}");
            std::process::exit(2);
        }
    };
    let event_loop = match EventLoop::new() {
        Ok(l) => l,
        Err(e) => {
            eprintln!("demo: no display ({e}); on a headless machine run it under Xvfb, or use `cargo run --release --example headless`");
            std::process::exit(1);
        }
    };
    let mut app = App {
        args,
        doc: document(),
        window: None,
        instance: None,
        gfx: None,
        scene: None,
        scroll: 0.0,
        autoscroll: true,
        base_size: 16.0,
        page_idx: 1,
        packer_idx: 0,
        show_atlas: false,
        // set from args below
        show_glyphs: false,
        spin_from: None,
        outlines: true,
        frame_ms: VecDeque::new(),
        frames: 0,
        hud: Hud::default(),
        error: None,
        recoveries: 0,
    };
    app.show_atlas = app.args.atlas;
    if let Err(e) = event_loop.run_app(&mut app) {
        eprintln!("demo: {e}");
        std::process::exit(1);
    }
    if app.error.is_some() {
        std::process::exit(1);
    }
}
