//! The scenes: what each draws and how its text changes from frame to
//! frame. Text is shaped by cosmic-text (the same buffers for both sides);
//! shaping happens in `advance`, before the frame's timing starts.

use glyphon::FontSystem;

mod common;
mod flowing;
mod interfaces;
mod map;

pub use common::Scene;

use flowing::{Chat, Editor, Scroll, Window};
use interfaces::{Dashboard, Hud, Panes, Zoom};
use map::Map;

/// The scenes, in the order `all` runs them.
pub const NAMES: [&str; 11] = [
    "window",
    "dashboard",
    "editor",
    "hud",
    "hud-flat",
    "zoom",
    "zoom-cjk",
    "chat",
    "scroll",
    "panes",
    "map",
];

/// System fonts (Debian packages, as CI installs them).
const FONT_FILES: [(&str, &str); 6] = [
    ("/usr/share/fonts/truetype/lohit-devanagari/Lohit-Devanagari.ttf", "fonts-lohit-deva"),
    ("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc", "fonts-wqy-microhei"),
    ("/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf", "fonts-noto-color-emoji"),
    ("/usr/share/fonts/truetype/inter-vf/Inter.var.ttf", "fonts-inter-variable"),
    ("/usr/share/fonts/truetype/inter-vf/Inter-italic.var.ttf", "fonts-inter-variable"),
    ("/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf", "fonts-dejavu-core"),
];

/// The font system every scene shapes with: DejaVu Sans (from the `dejavu`
/// crate) and the system fonts above, as bytes. A missing font is an error
/// naming its Debian package.
pub fn font_system() -> Result<FontSystem, String> {
    let mut db = glyphon::fontdb::Database::new();
    db.load_font_data(dejavu::sans::regular().to_vec());
    for (path, package) in FONT_FILES {
        let bytes =
            std::fs::read(path).map_err(|e| format!("{path}: {e}; install Debian's {package}"))?;
        db.load_font_data(bytes);
    }
    Ok(FontSystem::new_with_locale_and_db("en-US".into(), db))
}

/// The scene called `name`.
pub fn build(name: &str, fs: &mut FontSystem) -> Result<Box<dyn Scene>, String> {
    Ok(match name {
        "window" => Box::new(Window::new(fs)),
        "dashboard" => Box::new(Dashboard::new(fs)),
        "editor" => Box::new(Editor::new(fs)),
        "hud" => Box::new(Hud::new(fs, true)),
        "hud-flat" => Box::new(Hud::new(fs, false)),
        "zoom" => Box::new(Zoom::new(fs, false)),
        "zoom-cjk" => Box::new(Zoom::new(fs, true)),
        "chat" => Box::new(Chat::new()),
        "scroll" => Box::new(Scroll::new(fs)),
        "panes" => Box::new(Panes::new(fs)),
        "map" => Box::new(Map::new(fs)),
        other => return Err(format!("unknown scene {other:?}: one of {NAMES:?}")),
    })
}
