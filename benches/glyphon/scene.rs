//! The scenes both sides draw: lines shaped by cosmic-text, one buffer a
//! line, and the multi-script scene's fonts. Shared by the glyphon benches
//! and `examples/app_memory.rs` (which includes this file by path).

use glyphon::{Attrs, Buffer, Family, FontSystem, Metrics, Shaping};

/// Lines shaped by cosmic-text: one buffer per line (so a scroll can pass
/// just the visible lines), with the top of each.
pub struct Shaped {
    /// (buffer, top).
    pub buffers: Vec<(Buffer, f32)>,
}

/// `lines` (text, size in px) shaped in DejaVu Sans (and the font system's
/// fallback), wrapped at `width`, stacked at 1.3 × their size.
pub fn shape(fs: &mut FontSystem, lines: &[(String, f32)], width: f32) -> Shaped {
    let attrs = Attrs::new().family(Family::Name("DejaVu Sans"));
    let mut top = 0.0;
    let buffers = lines
        .iter()
        .map(|(text, size)| {
            let mut b = Buffer::new(fs, Metrics::new(*size, size * 1.3));
            b.set_size(Some(width), None);
            b.set_text(text, &attrs, Shaping::Advanced, None);
            b.shape_until_scroll(fs, false);
            let t = top;
            top += size * 1.3;
            (b, t)
        })
        .collect();
    Shaped { buffers }
}

/// System fonts for the multi-script scene (Debian packages, as CI installs them).
const SCRIPT_FONTS: [(&str, &str); 3] = [
    ("/usr/share/fonts/truetype/lohit-devanagari/Lohit-Devanagari.ttf", "fonts-lohit-deva"),
    ("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc", "fonts-wqy-microhei"),
    ("/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf", "fonts-noto-color-emoji"),
];

/// Lines of Latin, Arabic, Hebrew, Devanagari, CJK and colour emoji (ZWJ
/// sequences too), at five sizes.
pub fn multiscript() -> Vec<(String, f32)> {
    let lines = [
        "The glyph cache draws text as people write it 👍",
        "مرحبا بالعالم، هذا نص عربي للاختبار 🌍",
        "שלום עולם, זה טקסט בעברית לבדיקה ✨",
        "नमस्ते दुनिया, यह हिन्दी का पाठ है 🙏",
        "你好，世界。这是中文测试文本，字形缓存 🀄",
        "Mixed: kerf 👩‍💻 draws 😀🎉🦀 and العربية with 中文",
    ];
    (0..30)
        .map(|i| (lines[i % lines.len()].to_string(), [12.0, 14.0, 16.0, 20.0, 24.0][i % 5]))
        .collect()
}

/// The multi-script scene at `width`: a font system holding DejaVu Sans,
/// Lohit Devanagari, WenQuanYi Micro Hei and Noto Color Emoji as bytes, and
/// the lines shaped by it. A missing font panics naming its Debian package.
pub fn scene_at(width: f32) -> (FontSystem, Shaped) {
    let mut db = glyphon::fontdb::Database::new();
    db.load_font_data(dejavu::sans::regular().to_vec());
    for (path, package) in SCRIPT_FONTS {
        let bytes = std::fs::read(path)
            .unwrap_or_else(|e| panic!("{path}: {e}; install Debian's {package}"));
        db.load_font_data(bytes);
    }
    let mut fs = FontSystem::new_with_locale_and_db("en-US".into(), db);
    let text = shape(&mut fs, &multiscript(), width);
    (fs, text)
}
