//! The demo's scene: the atlas and its renderer, viewport and atlas view,
//! the fonts and image sources, and the multi-script band shaped once.

use crate::content::{color_icon, icon};
use crate::Gfx;
use kerf::cache::cosmic_text::{fontdb, Attrs, Buffer, Family, FontSystem, Metrics, Shaping};
use kerf::cache::{Algorithm, CosmicFonts, PositionedGlyph};
use kerf::gpu::{
    wgpu, AtlasViewer, CacheConfig, FontId, ImageSourceId, TextAtlas, TextRenderer, Viewport,
};

const WORLD_TEXT: &str = "Arabic: مرحبا بالعالم — Hebrew: שלום עולם — Devanagari: नमस्ते दुनिया\n\
CJK: 你好，世界。字形缓存 — emoji: 👩‍💻 😀 🎉 🦀 🚀 🌍 🍕 — Latin: ffi fl Té";
/// System fonts for the band (Debian package), in fallback order after DejaVu Sans.
const WORLD_FONTS: [(&str, &str); 3] = [
    ("/usr/share/fonts/truetype/lohit-devanagari/Lohit-Devanagari.ttf", "fonts-lohit-deva"),
    ("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc", "fonts-wqy-microhei"),
    ("/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf", "fonts-noto-color-emoji"),
];
pub(crate) struct Scene {
    pub(crate) atlas: TextAtlas,
    pub(crate) renderer: TextRenderer,
    pub(crate) viewport: Viewport,
    pub(crate) viewer: AtlasViewer,
    pub(crate) fonts: [FontId; 4],
    pub(crate) icons: ImageSourceId,
    pub(crate) color_icons: ImageSourceId,
    /// The multi-script band, shaped once: pens relative to the band's corner.
    pub(crate) world: Vec<PositionedGlyph>,
    /// Inter (a variable font, Debian's fonts-inter-variable) where installed.
    pub(crate) inter: Option<FontId>,
}

/// Inter, whose `wght` axis the demo sweeps.
const INTER: (&str, &str) =
    ("/usr/share/fonts/truetype/inter-vf/Inter.var.ttf", "fonts-inter-variable");

/// Shapes [`WORLD_TEXT`] with cosmic-text (DejaVu Sans, then the system
/// fonts found) and loads its faces into the atlas: positioned glyphs.
fn shape_world(atlas: &mut TextAtlas) -> Result<Vec<PositionedGlyph>, String> {
    let mut db = fontdb::Database::new();
    db.load_font_data(dejavu::sans::regular().to_vec());
    for (path, package) in WORLD_FONTS {
        match std::fs::read(path) {
            Ok(bytes) => db.load_font_data(bytes),
            Err(_) => eprintln!(
                "demo: {path} not found (Debian's {package}): its script shows as missing boxes"
            ),
        }
    }
    let mut fonts = FontSystem::new_with_locale_and_db("en-US".into(), db);
    let mut buffer = Buffer::new(&mut fonts, Metrics::new(22.0, 32.0));
    // Wrapped to fit beside the atlas view of a 1280 px window.
    buffer.set_size(Some(590.0), None);
    buffer.set_text(
        WORLD_TEXT,
        &Attrs::new().family(Family::Name("DejaVu Sans")),
        Shaping::Advanced,
        None,
    );
    buffer.shape_until_scroll(&mut fonts, false);
    let mut glyphs = Vec::new();
    CosmicFonts::new()
        .glyphs(atlas.cache_mut(), &fonts, &buffer, (0.0, 0.0), [40, 40, 60, 255], &mut glyphs)
        .map_err(|e| e.to_string())?;
    Ok(glyphs)
}

impl Scene {
    pub(crate) fn new(gfx: &Gfx, page_size: u32, packer: &str) -> Result<Scene, String> {
        let algorithm: Algorithm = packer.parse().map_err(|e| format!("{e}"))?;
        let config = CacheConfig { page_size, max_pages: 2, algorithm, ..CacheConfig::default() };
        let mut atlas = TextAtlas::new(&gfx.device, config).map_err(|e| e.to_string())?;
        let mut font = |b: &[u8]| atlas.add_font(b.to_vec()).map_err(|e| e.to_string());
        let fonts = [
            font(dejavu::sans::regular())?,
            font(dejavu::serif::regular())?,
            font(dejavu::sans::bold())?,
            font(dejavu::sans_mono::regular())?,
        ];
        let icons = atlas.add_image_source(icon).map_err(|e| e.to_string())?;
        let color_icons = atlas.add_rgba_image_source(color_icon).map_err(|e| e.to_string())?;
        let format = gfx.config.format;
        let renderer =
            TextRenderer::new(&gfx.device, &atlas, format, wgpu::MultisampleState::default(), None);
        let viewport = Viewport::new(&gfx.device, &atlas);
        let viewer = AtlasViewer::new(&gfx.device, &atlas, format);
        let world = shape_world(&mut atlas)?;
        let inter = match std::fs::read(INTER.0) {
            Ok(bytes) => Some(atlas.add_font(bytes).map_err(|e| e.to_string())?),
            Err(_) => {
                eprintln!("demo: {} not found (Debian's {}): no weight sweep", INTER.0, INTER.1);
                None
            }
        };
        Ok(Scene { atlas, renderer, viewport, viewer, fonts, icons, color_icons, world, inter })
    }

    /// After a device loss: the same cache, GPU objects made anew on the new device.
    pub(crate) fn rebuild(&mut self, gfx: &Gfx) {
        self.atlas.rebuild(&gfx.device, &gfx.queue);
        let format = gfx.config.format;
        self.renderer = TextRenderer::new(
            &gfx.device,
            &self.atlas,
            format,
            wgpu::MultisampleState::default(),
            None,
        );
        self.viewport = Viewport::new(&gfx.device, &self.atlas);
        self.viewer = AtlasViewer::new(&gfx.device, &self.atlas, format);
    }
}
