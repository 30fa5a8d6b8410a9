//! A device without a window, for tests, examples and headless rendering.

use thiserror::Error;

/// No adapter or device could be had.
#[derive(Debug, Error)]
#[error("no wgpu adapter/device found ({0}). On a machine without a GPU install Mesa's lavapipe Vulkan driver (Debian/Ubuntu: `apt-get install mesa-vulkan-drivers`)")]
pub struct NoAdapter(pub String);

/// A device without a window, and what adapter it runs on.
#[derive(Debug)]
pub struct HeadlessGpu {
    /// The device.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    /// The adapter's name, backend and type.
    pub info: wgpu::AdapterInfo,
    /// The instance the device came from: its
    /// [`generate_report`](wgpu::Instance::generate_report) counts the live
    /// GPU objects (buffers, textures, bind groups, pipelines), a leak check
    /// without the noise of the resident set.
    pub instance: wgpu::Instance,
}

/// Requests any adapter (a real GPU if present, else a software one such as
/// lavapipe) and a device with that adapter's limits, without a window.
pub fn headless_device() -> Result<(wgpu::Device, wgpu::Queue), NoAdapter> {
    headless().map(|g| (g.device, g.queue))
}

/// [`headless_device`], also returning the adapter's description. The device
/// has the adapter's timestamp queries (for `kerf profile`) and dual-source
/// blending (for LCD text) where the adapter offers them.
pub fn headless() -> Result<HeadlessGpu, NoAdapter> {
    headless_with(wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::DUAL_SOURCE_BLENDING)
}

/// [`headless`] with the optional features `wanted` (those the adapter has)
/// instead: `wgpu::Features::empty()` gives a device with none, e.g. to see
/// how text is drawn where dual-source blending is missing.
pub fn headless_with(wanted: wgpu::Features) -> Result<HeadlessGpu, NoAdapter> {
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
        power_preference: wgpu::PowerPreference::HighPerformance,
        compatible_surface: None,
        ..Default::default()
    }))
    .map_err(|e| NoAdapter(e.to_string()))?;
    let desc = wgpu::DeviceDescriptor {
        label: Some("kerf headless device"),
        required_limits: adapter.limits(),
        required_features: adapter.features() & wanted,
        ..Default::default()
    };
    let info = adapter.get_info();
    let (device, queue) =
        block_on(adapter.request_device(&desc)).map_err(|e| NoAdapter(e.to_string()))?;
    Ok(HeadlessGpu { device, queue, info, instance })
}

/// Runs a future to completion on this thread (wgpu's futures complete on
/// native platforms without an executor; this parks until woken).
pub fn block_on<F: std::future::Future>(fut: F) -> F::Output {
    use std::task::{Context, Poll, Wake, Waker};
    struct Thread(std::thread::Thread);
    impl Wake for Thread {
        fn wake(self: std::sync::Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Waker::from(std::sync::Arc::new(Thread(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut fut = std::pin::pin!(fut);
    loop {
        match fut.as_mut().poll(&mut cx) {
            Poll::Ready(v) => return v,
            Poll::Pending => std::thread::park(),
        }
    }
}
