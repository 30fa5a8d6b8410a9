//! The storage buffer that mirrors the cache's outline store: grown (and
//! written whole) when the store's arena outgrows it, else written where
//! records changed.

/// The GPU side of [`kerf_cache::curves::CurveStore`].
#[derive(Default)]
pub(crate) struct OutlineBuffer {
    /// The buffer and its bind group (`shaders/outline.wgsl`'s group 3).
    pub(crate) bound: Option<(wgpu::Buffer, wgpu::BindGroup)>,
    /// Words the buffer holds.
    capacity: usize,
}

/// Words the first buffer holds (16 KiB).
const FIRST_WORDS: usize = 4096;

impl OutlineBuffer {
    /// Brings the buffer up to `store`'s words: a larger buffer written
    /// whole when the arena grew past it, else the ranges written since the
    /// last sync. Returns the bytes written.
    pub(crate) fn sync(
        &mut self, device: &wgpu::Device, queue: &wgpu::Queue, layout: &wgpu::BindGroupLayout,
        store: &mut kerf_cache::curves::CurveStore,
    ) -> u64 {
        let dirty = store.take_dirty();
        let words = store.words();
        if words.is_empty() {
            return 0;
        }
        if words.len() > self.capacity || self.bound.is_none() {
            self.capacity = words.len().next_power_of_two().max(FIRST_WORDS);
            let buffer = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("kerf outline store"),
                size: self.capacity as u64 * 4,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("kerf outline store bind group"),
                layout,
                entries: &[wgpu::BindGroupEntry {
                    binding: 0,
                    resource: buffer.as_entire_binding(),
                }],
            });
            queue.write_buffer(&buffer, 0, bytemuck::cast_slice(words));
            self.bound = Some((buffer, bind_group));
            return words.len() as u64 * 4;
        }
        let mut bytes = 0;
        if let Some((buffer, _)) = &self.bound {
            for r in dirty {
                let (s, e) = (r.start as usize, (r.end as usize).min(words.len()));
                if s < e {
                    queue.write_buffer(buffer, s as u64 * 4, bytemuck::cast_slice(&words[s..e]));
                    bytes += (e - s) as u64 * 4;
                }
            }
        }
        bytes
    }

    /// Bytes of GPU memory held.
    pub(crate) fn gpu_bytes(&self) -> u64 {
        if self.bound.is_some() {
            self.capacity as u64 * 4
        } else {
            0
        }
    }
}
