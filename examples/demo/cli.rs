//! The demo's command line (`--frames`, `--screenshot`, `--atlas`,
//! `--lose-device-at`) and what it writes: the screenshot PNG and its ink count.

use super::{Gfx, Scene};
use kerf::gpu::{wgpu, Offscreen};
use std::path::PathBuf;

pub(crate) struct Args {
    pub(crate) frames: Option<u64>,
    pub(crate) screenshot: Option<PathBuf>,
    pub(crate) atlas: bool,
    pub(crate) lose_device_at: Option<u64>,
}

pub(crate) fn parse_args() -> Result<Args, String> {
    let mut args = Args { frames: None, screenshot: None, atlas: false, lose_device_at: None };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--frames" => {
                let v = it.next().ok_or("--frames needs a number")?;
                args.frames = Some(v.parse().map_err(|_| format!("--frames: `{v}` is not a number"))?);
            }
            "--screenshot" => args.screenshot = Some(it.next().ok_or("--screenshot needs a file")?.into()),
            "--atlas" => args.atlas = true,
            "--lose-device-at" => {
                let v = it.next().ok_or("--lose-device-at needs a frame number")?;
                args.lose_device_at = Some(v.parse().map_err(|_| format!("--lose-device-at: `{v}` is not a number"))?);
            }
            other => {
                return Err(format!("unknown argument `{other}` (expected --frames N, --screenshot FILE, --atlas, --lose-device-at N)"))
            }
        }
    }
    if args.screenshot.is_some() && args.frames.is_none() {
        args.frames = Some(120);
    }
    Ok(args)
}

pub(crate) fn count_ink(rgba: &[u8]) -> usize {
    rgba.chunks_exact(4).filter(|p| (p[0] as i32) < 160 || (p[2] as i32) < 160).count()
}

pub(crate) fn save_png(path: &std::path::Path, w: u32, h: u32, rgba: &[u8]) -> Result<(), String> {
    let file = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), w, h);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    enc.write_header()
        .and_then(|mut wr| wr.write_image_data(rgba))
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// The clear colour: `wgpu::Color` is linear for sRGB targets.
pub(crate) fn srgb_clear(c: [f64; 3], srgb: bool) -> wgpu::Color {
    let f = |v: f64| if srgb { kerf::gpu::srgb_to_linear(v as f32) as f64 } else { v };
    wgpu::Color { r: f(c[0]), g: f(c[1]), b: f(c[2]), a: 1.0 }
}

pub(crate) type Encode<'a> =
    dyn Fn(&wgpu::TextureView, &Scene, &wgpu::Device) -> Result<wgpu::CommandEncoder, String> + 'a;

/// Renders the frame once more into an offscreen texture and reads it back as RGBA.
pub(crate) fn screenshot(gfx: &Gfx, scene: &Scene, encode: &Encode<'_>) -> Result<Vec<u8>, String> {
    let target =
        Offscreen::new(&gfx.device, gfx.config.width, gfx.config.height, gfx.config.format)
            .map_err(|e| e.to_string())?;
    let encoder = encode(&target.view, scene, &gfx.device)?;
    gfx.queue.submit([encoder.finish()]);
    target.read(&gfx.device, &gfx.queue).map_err(|e| e.to_string())
}
