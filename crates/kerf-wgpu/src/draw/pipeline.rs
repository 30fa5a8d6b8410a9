//! The shader, layouts and a pipeline cache shared by every renderer of an atlas.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use crate::draw::fit::CurveKey;
use crate::draw::made::Made;

/// The WGSL source of kerf's glyph shader (`shaders/common.wgsl` + `shaders/text.wgsl`).
pub const SHADER: &str =
    concat!(include_str!("../../shaders/common.wgsl"), include_str!("../../shaders/text.wgsl"));

/// The WGSL source of transformed text (`shaders/common.wgsl` +
/// `shaders/filtered.wgsl` + `shaders/area_transform.wgsl` +
/// `shaders/transformed.wgsl`).
pub const TRANSFORMED_SHADER: &str = concat!(
    include_str!("../../shaders/common.wgsl"),
    include_str!("../../shaders/filtered.wgsl"),
    include_str!("../../shaders/area_transform.wgsl"),
    include_str!("../../shaders/transformed.wgsl")
);

/// The WGSL source of the outline path (`shaders/common.wgsl` +
/// `shaders/filtered.wgsl` + `shaders/area_transform.wgsl` +
/// `shaders/outline.wgsl`): glyphs drawn from their curves.
pub const OUTLINE_SHADER: &str = concat!(
    include_str!("../../shaders/common.wgsl"),
    include_str!("../../shaders/filtered.wgsl"),
    include_str!("../../shaders/area_transform.wgsl"),
    include_str!("../../shaders/outline.wgsl")
);

/// The WGSL source of LCD text (`shaders/common.wgsl` + `shaders/text.wgsl` +
/// `shaders/text_lcd.wgsl`, after `enable dual_source_blending;`): built only
/// on devices with [`wgpu::Features::DUAL_SOURCE_BLENDING`].
pub const LCD_SHADER: &str = concat!(
    "enable dual_source_blending;\n",
    include_str!("../../shaders/common.wgsl"),
    include_str!("../../shaders/text.wgsl"),
    include_str!("../../shaders/text_lcd.wgsl")
);

/// The correction tables' lines in common.wgsl, as written (a read-only
/// storage buffer) and for devices without storage buffers in the fragment
/// stage (a uniform: arrays of it have a 16-byte stride, so vec4s).
const TABLES_BEGIN: &str = "// tables: begin\n";
const TABLES_END: &str = "// tables: end\n";
const UNIFORM_TABLES: &str = "@group(1) @binding(1) var<uniform> tables: array<vec4<f32>, 128>;
fn table(i: u32) -> f32 {
    return tables[i >> 2u][i & 3u];
}
";

/// `wgsl` (one of kerf's shaders, which declare the correction tables as a
/// read-only storage buffer) as it is for a device with storage buffers in
/// the fragment stage (`storage`), or with the tables as a uniform for one
/// without (WebGL2): the same tables, the same values read.
pub(crate) fn tables_as(wgsl: &'static str, storage: bool) -> std::borrow::Cow<'static, str> {
    match (storage, wgsl.find(TABLES_BEGIN), wgsl.find(TABLES_END)) {
        (false, Some(begin), Some(end)) => {
            let body = begin + TABLES_BEGIN.len();
            [&wgsl[..body], UNIFORM_TABLES, &wgsl[end..]].concat().into()
        }
        _ => wgsl.into(),
    }
}

/// Per-channel blending of LCD text: `dst = src0 + dst * (1 - src1)`.
const LCD_BLEND: wgpu::BlendState = wgpu::BlendState {
    color: wgpu::BlendComponent {
        src_factor: wgpu::BlendFactor::One,
        dst_factor: wgpu::BlendFactor::OneMinusSrc1,
        operation: wgpu::BlendOperation::Add,
    },
    alpha: wgpu::BlendComponent {
        src_factor: wgpu::BlendFactor::One,
        dst_factor: wgpu::BlendFactor::OneMinusSrcAlpha,
        operation: wgpu::BlendOperation::Add,
    },
};

/// Bytes of one area's transform uniform (transformed.wgsl's `Transform`).
pub(crate) const TRANSFORM_UNIFORM_BYTES: u64 = 80;

const _: () = assert!(
    std::mem::size_of::<crate::draw::vertex::TransformUniform>() as u64 == TRANSFORM_UNIFORM_BYTES
);

/// Bytes of the transforms one draw binds: [`TRANSFORMS_PER_DRAW`] of them
/// (a multiple of 256, so every block starts at an offset that any device's
/// dynamic-offset alignment allows).
///
/// [`TRANSFORMS_PER_DRAW`]: crate::TRANSFORMS_PER_DRAW
pub(crate) const TRANSFORM_BLOCK_BYTES: u64 =
    TRANSFORM_UNIFORM_BYTES * crate::draw::vertex::TRANSFORMS_PER_DRAW as u64;

/// What a render pipeline depends on besides the shader: the pass's colour
/// format, multisample state and depth-stencil state, and the space colours
/// are written in.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PipelineKey {
    /// Colour target format.
    pub format: wgpu::TextureFormat,
    /// Multisample state of the pass.
    pub multisample: wgpu::MultisampleState,
    /// Depth-stencil state, when the pass has a depth-stencil attachment.
    pub depth_stencil: Option<wgpu::DepthStencilState>,
    /// True: colours (text colours and RGBA images' texels, straight sRGB)
    /// are decoded to linear light before they are written, as an sRGB
    /// target wants (it encodes them again). False: they are written as the
    /// sRGB values they are, as a linear (`Unorm`) target holding sRGB
    /// values wants. [`PipelineKey::new`] sets it from the format; setting
    /// it the other way draws as glyphon's `ColorMode` does (`Web` on an
    /// sRGB target: false; `Accurate` on a linear target: true).
    pub linear_light: bool,
}

impl PipelineKey {
    /// The key for a pass of `format`, `multisample` and `depth_stencil`,
    /// colours in the target's space ([`linear_light`](Self::linear_light)
    /// true for an sRGB format).
    pub fn new(
        format: wgpu::TextureFormat, multisample: wgpu::MultisampleState,
        depth_stencil: Option<wgpu::DepthStencilState>,
    ) -> PipelineKey {
        PipelineKey { format, multisample, depth_stencil, linear_light: format.is_srgb() }
    }
}

/// Shader module, bind group layouts and the render pipelines made so far,
/// keyed by [`PipelineKey`].
pub(crate) struct Shared {
    /// The glyph shader, parsed on a thread of its own from the atlas's
    /// creation (see [`Made`]).
    pub shader: Arc<Made<wgpu::ShaderModule>>,
    pub atlas_layout: wgpu::BindGroupLayout,
    pub viewport_layout: wgpu::BindGroupLayout,
    /// True when the correction tables are a storage buffer (the device has
    /// storage buffers in the fragment stage); false: a uniform buffer.
    pub storage_tables: bool,
    pub pipeline_layout: wgpu::PipelineLayout,
    /// Glyph pipelines by key and correction mode (the polynomials baked
    /// in, or the tables).
    pub pipelines: Mutex<HashMap<(PipelineKey, CurveKey), MadePipeline>>,
    /// Colour-quad pipelines by key.
    pub color_pipelines: Mutex<HashMap<PipelineKey, MadePipeline>>,
    /// Transformed text: shader (made on first use: an app that never
    /// transforms text does not parse it before its first frame), filterable
    /// atlas layout (texture + sampler), per-area transform layout (dynamic
    /// offset), pipelines.
    pub sampled_shader: OnceLock<Arc<Made<wgpu::ShaderModule>>>,
    pub sampled_atlas_layout: wgpu::BindGroupLayout,
    pub transform_layout: wgpu::BindGroupLayout,
    pub sampled_pipeline_layout: wgpu::PipelineLayout,
    pub sampler: wgpu::Sampler,
    pub sampled_pipelines: Mutex<HashMap<(PipelineKey, CurveKey, bool), MadePipeline>>,
    pub sampled_color_pipelines: Mutex<HashMap<PipelineKey, MadePipeline>>,
    /// The outline path: shader (made on first use), the outline store's
    /// layout (a read-only storage buffer), pipelines by key and correction.
    pub outline_shader: OnceLock<Arc<Made<wgpu::ShaderModule>>>,
    /// (`None` where the device cannot draw outlines: see `outlines`.)
    pub outline_layouts: Option<(wgpu::BindGroupLayout, wgpu::PipelineLayout)>,
    pub outline_pipelines: Mutex<HashMap<(PipelineKey, CurveKey), MadePipeline>>,
    /// True when the device can draw outlines (two storage buffers in the
    /// fragment stage: the correction tables and the outline store).
    pub outlines: bool,
    /// LCD text (dual-source blending): the shader (made on first use, where
    /// the device has the feature), and pipelines by key, stripe order (true:
    /// BGR) and correction mode.
    pub lcd_shader: OnceLock<Arc<Made<wgpu::ShaderModule>>>,
    pub lcd_pipelines: Mutex<HashMap<(PipelineKey, bool, CurveKey), MadePipeline>>,
}

impl Shared {
    pub fn new(device: &wgpu::Device) -> Shared {
        let storage_tables = storage_supported(device);
        let shader = start_module(device, "kerf glyph shader", SHADER, storage_tables);
        let texture_entry = |binding, filterable| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::FRAGMENT,
            ty: wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Float { filterable },
                view_dimension: wgpu::TextureViewDimension::D2Array,
                multisampled: false,
            },
            count: None,
        };
        // Binding 0: coverage pages; binding 2: colour pages.
        let atlas_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("kerf atlas layout"),
            entries: &[texture_entry(0, false), texture_entry(2, false)],
        });
        let viewport_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("kerf viewport layout"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: wgpu::BufferSize::new(
                            crate::correction::VIEWPORT_UNIFORM_BYTES,
                        ),
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Buffer {
                        ty: if storage_tables {
                            wgpu::BufferBindingType::Storage { read_only: true }
                        } else {
                            wgpu::BufferBindingType::Uniform
                        },
                        has_dynamic_offset: false,
                        min_binding_size: wgpu::BufferSize::new(
                            crate::correction::CORRECTION_TABLE_BYTES,
                        ),
                    },
                    count: None,
                },
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("kerf pipeline layout"),
            bind_group_layouts: &[Some(&atlas_layout), Some(&viewport_layout)],
            immediate_size: 0,
        });
        let sampled_atlas_layout =
            device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some("kerf sampled atlas layout"),
                entries: &[
                    texture_entry(0, true),
                    wgpu::BindGroupLayoutEntry {
                        binding: 1,
                        visibility: wgpu::ShaderStages::FRAGMENT,
                        ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                        count: None,
                    },
                    texture_entry(2, true),
                ],
            });
        let transform_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("kerf transform layout"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: true,
                    min_binding_size: wgpu::BufferSize::new(TRANSFORM_BLOCK_BYTES),
                },
                count: None,
            }],
        });
        let sampled_pipeline_layout =
            device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("kerf transformed pipeline layout"),
                bind_group_layouts: &[
                    Some(&sampled_atlas_layout),
                    Some(&viewport_layout),
                    Some(&transform_layout),
                ],
                immediate_size: 0,
            });
        let outlines = storage_tables && device.limits().max_storage_buffers_per_shader_stage >= 2;
        let outline_layouts = outlines.then(|| {
            let outline_layout =
                device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                    label: Some("kerf outline store layout"),
                    entries: &[wgpu::BindGroupLayoutEntry {
                        binding: 0,
                        visibility: wgpu::ShaderStages::FRAGMENT,
                        ty: wgpu::BindingType::Buffer {
                            ty: wgpu::BufferBindingType::Storage { read_only: true },
                            has_dynamic_offset: false,
                            min_binding_size: None,
                        },
                        count: None,
                    }],
                });
            let outline_pipeline_layout =
                device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                    label: Some("kerf outline pipeline layout"),
                    bind_group_layouts: &[
                        Some(&sampled_atlas_layout),
                        Some(&viewport_layout),
                        Some(&transform_layout),
                        Some(&outline_layout),
                    ],
                    immediate_size: 0,
                });
            (outline_layout, outline_pipeline_layout)
        });
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("kerf atlas sampler"),
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            ..Default::default()
        });
        Shared {
            lcd_shader: OnceLock::new(),
            lcd_pipelines: Mutex::new(HashMap::new()),
            shader,
            atlas_layout,
            viewport_layout,
            storage_tables,
            pipeline_layout,
            pipelines: Mutex::new(HashMap::new()),
            color_pipelines: Mutex::new(HashMap::new()),
            sampled_shader: OnceLock::new(),
            sampled_atlas_layout,
            transform_layout,
            sampled_pipeline_layout,
            sampler,
            sampled_pipelines: Mutex::new(HashMap::new()),
            sampled_color_pipelines: Mutex::new(HashMap::new()),
            outline_shader: OnceLock::new(),
            outline_layouts,
            outline_pipelines: Mutex::new(HashMap::new()),
            outlines,
        }
    }

    /// The shader module in `cell`, of `wgsl`, started on first request.
    fn module(
        &self, cell: &OnceLock<Arc<Made<wgpu::ShaderModule>>>, device: &wgpu::Device,
        label: &'static str, wgsl: &'static str,
    ) -> Arc<Made<wgpu::ShaderModule>> {
        let made = cell.get_or_init(|| start_module(device, label, wgsl, self.storage_tables));
        Arc::clone(made)
    }

    /// The pipeline for `key`, made on a thread of its own from its first
    /// request (see [`Made`]); every later request gets the same one.
    pub fn pipeline(
        &self, device: &wgpu::Device, key: &PipelineKey, curve: &CurveKey,
    ) -> MadePipeline {
        cached(&self.pipelines, &(key.clone(), *curve), || {
            let entry_points = ("vs_main", "fs_coverage", "fs_coverage");
            self.glyph_kind("kerf glyph pipeline", entry_points, crate::draw::fit::constants(curve))
                .start(device, key)
        })
    }

    /// The pipeline for `key` that draws colour quads (RGBA images: emoji,
    /// the app's images), made on first use. Coverage and colour quads are
    /// drawn by separate pipelines, in runs, so no fragment branches on the
    /// kind of its quad.
    pub fn color_pipeline(&self, device: &wgpu::Device, key: &PipelineKey) -> MadePipeline {
        cached(&self.color_pipelines, key, || {
            let entry_points = ("vs_main", "fs_color", "fs_color");
            self.glyph_kind("kerf colour glyph pipeline", entry_points, Vec::new())
                .start(device, key)
        })
    }

    /// An axis-aligned quad pipeline of the glyph shader (instances of
    /// [`GlyphInstance`](crate::GlyphInstance), premultiplied blending).
    fn glyph_kind(
        &self, label: &'static str, entry_points: (&'static str, &'static str, &'static str),
        constants: Vec<(&'static str, f64)>,
    ) -> QuadPipeline {
        QuadPipeline {
            label,
            layout: self.pipeline_layout.clone(),
            module: Arc::clone(&self.shader),
            entry_points,
            stride: std::mem::size_of::<crate::draw::vertex::GlyphInstance>() as u64,
            attributes: &GLYPH_ATTRIBUTES,
            blend: wgpu::BlendState::PREMULTIPLIED_ALPHA_BLENDING,
            constants,
        }
    }

    /// The LCD pipeline for `key` and stripe order (`bgr`), made on first
    /// use; `None` on a device without dual-source blending.
    pub fn lcd_pipeline(
        &self, device: &wgpu::Device, key: &PipelineKey, bgr: bool, curve: &CurveKey,
    ) -> Option<MadePipeline> {
        if !device.features().contains(wgpu::Features::DUAL_SOURCE_BLENDING) {
            return None;
        }
        Some(cached(&self.lcd_pipelines, &(key.clone(), bgr, *curve), || {
            let mut constants = crate::draw::fit::constants(curve);
            constants.push(("LCD_BGR", if bgr { 1.0 } else { 0.0 }));
            let entry_points = ("vs_main", "fs_lcd_linear", "fs_lcd_srgb");
            QuadPipeline {
                module: self.module(&self.lcd_shader, device, "kerf LCD glyph shader", LCD_SHADER),
                blend: LCD_BLEND,
                ..self.glyph_kind("kerf LCD glyph pipeline", entry_points, constants)
            }
            .start(device, key)
        }))
    }

    /// The transformed-text pipeline for `key` and correction `curve`, made
    /// on first use: coverage quads, `bordered` ones (their slot has a
    /// border of zeros, [`BORDER_BIT`](crate::BORDER_BIT): samples need no
    /// clamp) or the others (clamped to their slot).
    pub fn sampled_pipeline(
        &self, device: &wgpu::Device, key: &PipelineKey, curve: &CurveKey, bordered: bool,
    ) -> MadePipeline {
        cached(&self.sampled_pipelines, &(key.clone(), *curve, bordered), || {
            let fs = if bordered { "fs_sampled_bordered" } else { "fs_sampled" };
            let constants = crate::draw::fit::constants(curve);
            self.sampled_kind(device, ("vs_transformed", fs, fs), constants).start(device, key)
        })
    }

    /// The transformed-text pipeline for `key` that draws colour quads
    /// (RGBA images), made on first use.
    pub fn sampled_color_pipeline(&self, device: &wgpu::Device, key: &PipelineKey) -> MadePipeline {
        cached(&self.sampled_color_pipelines, key, || {
            let entry_points =
                ("vs_transformed", "fs_sampled_color_linear", "fs_sampled_color_srgb");
            self.sampled_kind(device, entry_points, Vec::new()).start(device, key)
        })
    }

    /// The outline pipeline for `key` and correction `curve`, made on first
    /// use (`shaders/outline.wgsl`).
    /// `None` where the device cannot draw outlines.
    pub fn outline_pipeline(
        &self, device: &wgpu::Device, key: &PipelineKey, curve: &CurveKey,
    ) -> Option<MadePipeline> {
        let (_, layout) = self.outline_layouts.as_ref()?;
        Some(cached(&self.outline_pipelines, &(key.clone(), *curve), || {
            QuadPipeline {
                label: "kerf outline glyph pipeline",
                layout: layout.clone(),
                module: self.module(
                    &self.outline_shader,
                    device,
                    "kerf outline glyph shader",
                    OUTLINE_SHADER,
                ),
                entry_points: ("vs_outline", "fs_outline", "fs_outline"),
                stride: std::mem::size_of::<crate::outline::OutlineQuad>() as u64,
                attributes: &crate::outline::OUTLINE_ATTRIBUTES,
                blend: wgpu::BlendState::PREMULTIPLIED_ALPHA_BLENDING,
                constants: crate::draw::fit::constants(curve),
            }
            .start(device, key)
        }))
    }

    /// A transformed-text pipeline with these entry points and constants.
    fn sampled_kind(
        &self, device: &wgpu::Device, entry_points: (&'static str, &'static str, &'static str),
        constants: Vec<(&'static str, f64)>,
    ) -> QuadPipeline {
        QuadPipeline {
            label: "kerf transformed glyph pipeline",
            layout: self.sampled_pipeline_layout.clone(),
            module: self.module(
                &self.sampled_shader,
                device,
                "kerf transformed glyph shader",
                TRANSFORMED_SHADER,
            ),
            entry_points,
            stride: std::mem::size_of::<crate::draw::vertex::SampledQuad>() as u64,
            attributes: &SAMPLED_ATTRIBUTES,
            blend: wgpu::BlendState::PREMULTIPLIED_ALPHA_BLENDING,
            constants,
        }
    }
}

impl Drop for Shared {
    /// Every thread the atlas started (shaders, pipelines) ends before its
    /// cache is gone, so that none runs into the process's exit ([`Made`]).
    fn drop(&mut self) {
        join_all(&self.pipelines);
        join_all(&self.color_pipelines);
        join_all(&self.lcd_pipelines);
        join_all(&self.sampled_pipelines);
        join_all(&self.sampled_color_pipelines);
        join_all(&self.outline_pipelines);
        self.shader.join();
        for cell in [&self.lcd_shader, &self.sampled_shader] {
            if let Some(module) = cell.get() {
                module.join();
            }
        }
    }
}

/// Joins the threads of every pipeline in `map` ([`Made::join`]).
fn join_all<K>(map: &Mutex<HashMap<K, MadePipeline>>) {
    let map = map.lock().unwrap_or_else(|e| e.into_inner());
    for made in map.values() {
        made.join();
    }
}

/// [`SampledQuad`](crate::SampledQuad): pos, size: [f32; 2]; tex, tex_size: [u16; 2]; page: u32; color: [u8; 4]; transform: u32.
const SAMPLED_ATTRIBUTES: [wgpu::VertexAttribute; 7] = wgpu::vertex_attr_array![
    0 => Float32x2,
    1 => Float32x2,
    2 => Uint16x2,
    3 => Uint16x2,
    4 => Uint32,
    5 => Unorm8x4,
    6 => Uint32,
];

/// [`GlyphInstance`](crate::GlyphInstance): x, y: i32; tex_x, tex_y, width, height: u16; page: u32; color: [u8; 4].
const GLYPH_ATTRIBUTES: [wgpu::VertexAttribute; 5] = wgpu::vertex_attr_array![
    0 => Sint32x2,
    1 => Uint16x2,
    2 => Uint16x2,
    3 => Uint32,
    4 => Unorm8x4,
];

/// A quad pipeline (glyph, colour, LCD, transformed) made on a thread of
/// its own ([`Made`]).
pub(crate) type MadePipeline = Arc<Made<wgpu::RenderPipeline>>;

/// The pipeline in `map` for `key`, started by `start` on first request.
fn cached<K: Clone + Eq + std::hash::Hash>(
    map: &Mutex<HashMap<K, MadePipeline>>, key: &K, start: impl FnOnce() -> MadePipeline,
) -> MadePipeline {
    let mut map = map.lock().unwrap_or_else(|e| e.into_inner());
    Arc::clone(map.entry(key.clone()).or_insert_with(start))
}

/// A shader module of `wgsl`, with the correction tables as the device
/// reads them (`storage`), parsed on a thread of its own (see [`Made`]).
fn start_module(
    device: &wgpu::Device, label: &'static str, wgsl: &'static str, storage: bool,
) -> Arc<Made<wgpu::ShaderModule>> {
    let device = device.clone();
    Made::start(move || {
        device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(label),
            source: wgpu::ShaderSource::Wgsl(tables_as(wgsl, storage)),
        })
    })
}

/// What differs between kerf's instanced quad pipelines: shader, layout, instance format.
struct QuadPipeline {
    label: &'static str,
    layout: wgpu::PipelineLayout,
    /// The shader (waited for by the pipeline's thread).
    module: Arc<Made<wgpu::ShaderModule>>,
    /// Vertex entry point, fragment entry points for linear and sRGB targets.
    entry_points: (&'static str, &'static str, &'static str),
    stride: u64,
    attributes: &'static [wgpu::VertexAttribute],
    blend: wgpu::BlendState,
    /// Values of the shader's pipeline-overridable constants.
    constants: Vec<(&'static str, f64)>,
}

impl QuadPipeline {
    /// This pipeline for `key`, compiled on a thread of its own (see [`Made`]).
    fn start(self, device: &wgpu::Device, key: &PipelineKey) -> MadePipeline {
        let (device, key) = (device.clone(), key.clone());
        Made::start(move || self.make(&device, &key))
    }

    /// Four-vertex strips, one instance per quad, blended with `blend`.
    fn make(&self, device: &wgpu::Device, key: &PipelineKey) -> wgpu::RenderPipeline {
        let buffers = [Some(wgpu::VertexBufferLayout {
            array_stride: self.stride,
            step_mode: wgpu::VertexStepMode::Instance,
            attributes: self.attributes,
        })];
        let targets = [Some(wgpu::ColorTargetState {
            format: key.format,
            blend: Some(self.blend),
            write_mask: wgpu::ColorWrites::ALL,
        })];
        let (vs, fs_linear, fs_srgb) = self.entry_points;
        let module = self.module.get();
        device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some(self.label),
            layout: Some(&self.layout),
            vertex: wgpu::VertexState {
                module,
                entry_point: Some(vs),
                // Colours are decoded for sRGB targets once per vertex.
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants: &[("SRGB_TARGET", if key.linear_light { 1.0 } else { 0.0 })],
                    ..Default::default()
                },
                buffers: &buffers,
            },
            primitive: wgpu::PrimitiveState {
                topology: wgpu::PrimitiveTopology::TriangleStrip,
                ..Default::default()
            },
            depth_stencil: key.depth_stencil.clone(),
            multisample: key.multisample,
            fragment: Some(wgpu::FragmentState {
                module,
                entry_point: Some(if key.linear_light { fs_srgb } else { fs_linear }),
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants: &self.constants,
                    ..Default::default()
                },
                targets: &targets,
            }),
            multiview_mask: None,
            cache: None,
        })
    }
}

/// True when `device` can run the scatter (a storage buffer readable from
/// the fragment stage); otherwise the atlas uploads dirty rectangles.
pub(crate) fn storage_supported(device: &wgpu::Device) -> bool {
    device.limits().max_storage_buffers_per_shader_stage >= 1
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The value a shader source gives `const NAME: u32 = 0x...u;`.
    fn wgsl_const(source: &str, name: &str) -> u32 {
        let at = source.find(&format!("const {name}: u32 = 0x")).expect("the constant") + 16;
        let hex: String =
            source[at + name.len()..].chars().take_while(char::is_ascii_hexdigit).collect();
        u32::from_str_radix(&hex, 16).expect("hex digits")
    }

    /// Dropping an atlas's pipeline cache ends the threads it started: no
    /// parse or compile is left running (holding the shader, the pipeline
    /// and the device) into the process's exit.
    #[test]
    fn dropping_the_cache_ends_its_compiles() {
        let gpu = crate::headless().unwrap_or_else(|e| panic!("{e}"));
        let shared = Shared::new(&gpu.device);
        let key = PipelineKey::new(
            wgpu::TextureFormat::Rgba8Unorm,
            wgpu::MultisampleState::default(),
            None,
        );
        let curve = crate::draw::fit::curve_key(crate::TextCorrection::DEFAULT);
        // Started now: the module's parse and the pipeline's compile take
        // milliseconds, so both are under way when the cache goes.
        let pipeline = shared.pipeline(&gpu.device, &key, &curve);
        let shader = Arc::clone(&shared.shader);
        drop(shared);
        assert_eq!(Arc::strong_count(&pipeline), 1, "its thread still holds the pipeline");
        // Ours and the pipeline's maker's: not its parsing thread's.
        assert_eq!(Arc::strong_count(&shader), 2, "its thread still holds the shader");
        // What the threads made is there (or is made now).
        let _ = pipeline.get();
    }

    /// The page bits the renderer sets are the bits the shaders test, and
    /// no two share a bit (nor reach the texture array's layers: a page
    /// index is far below 2^27).
    #[test]
    fn page_bits_agree_with_the_shaders() {
        assert_eq!(wgsl_const(TRANSFORMED_SHADER, "BORDER_BIT"), crate::BORDER_BIT);
        assert_eq!(wgsl_const(SHADER, "COLOR_PAGE_BIT"), kerf_cache::COLOR_PAGE_BIT);
        assert_eq!(wgsl_const(SHADER, "LCD_PAGE_BIT"), crate::LCD_PAGE_BIT);
        assert_eq!(wgsl_const(SHADER, "SOLID_PAGE_BIT"), crate::SOLID_PAGE_BIT);
        let bits = [
            crate::BORDER_BIT,
            kerf_cache::COLOR_PAGE_BIT,
            crate::LCD_PAGE_BIT,
            crate::SOLID_PAGE_BIT,
        ];
        for (i, a) in bits.iter().enumerate() {
            assert_eq!(a.count_ones(), 1, "{a:#x}");
            assert!(*a >= 1 << 27, "{a:#x} above any page index");
            for b in &bits[i + 1..] {
                assert_eq!(a & b, 0, "{a:#x} and {b:#x}");
            }
        }
    }

    /// The value a shader source gives `const NAME: u32 = 22u;`.
    fn wgsl_decimal(source: &str, name: &str) -> u32 {
        let at = source.find(&format!("const {name}: u32 = ")).expect("the constant");
        let rest = &source[at + name.len() + 14..];
        rest[..rest.find('u').expect("a u32 literal")].parse().expect("a decimal")
    }

    #[test]
    fn the_outline_record_layout_agrees_with_the_shader() {
        use kerf_cache::curves as c;
        assert_eq!(wgsl_decimal(OUTLINE_SHADER, "GRID"), c::GRID as u32);
        assert_eq!(wgsl_decimal(OUTLINE_SHADER, "GRID_SIDE"), c::GRID_SIDE as u32);
        assert_eq!(wgsl_decimal(OUTLINE_SHADER, "CELL_EDGE"), c::CELL_EDGE);
        assert_eq!(wgsl_decimal(OUTLINE_SHADER, "BAND_TABLE"), c::BAND_TABLE as u32);
        assert_eq!(wgsl_decimal(OUTLINE_SHADER, "OFFSET_BITS"), c::OFFSET_BITS);
        assert_eq!(wgsl_const(OUTLINE_SHADER, "OFFSET_MASK"), (1 << c::OFFSET_BITS) - 1);
    }
}
