//! A window surface's configuration for a text app: an sRGB format where
//! the surface offers one (else its first), the window's size. Shared by
//! the demo and `examples/app_memory.rs` (which includes this file by path).

use kerf::gpu::wgpu;

/// The surface's default configuration at `size` (at least 1 × 1) with an
/// sRGB format where it offers one.
pub fn surface_config(
    surface: &wgpu::Surface<'_>, adapter: &wgpu::Adapter, size: winit::dpi::PhysicalSize<u32>,
) -> Result<wgpu::SurfaceConfiguration, String> {
    let caps = surface.get_capabilities(adapter);
    let format = caps
        .formats
        .iter()
        .copied()
        .find(|f| f.is_srgb())
        .or(caps.formats.first().copied())
        .ok_or("the surface has no formats")?;
    let mut config = surface
        .get_default_config(adapter, size.width.max(1), size.height.max(1))
        .ok_or("the surface does not work with this adapter")?;
    config.format = format;
    Ok(config)
}
