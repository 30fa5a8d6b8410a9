//! glyphon 0.12's public surface, as an app uses it: every item at its
//! path, with the auto traits and derives glyphon's have (a glyphon app
//! that keeps its text objects in a `Send + Sync` resource, or clones and
//! compares glyphon's small types, compiles against kerf-glyphon too).
//! Checked against glyphon itself in the same test, so a trait glyphon
//! drops or adds shows here first.

fn send_sync<T: Send + Sync>() {}
fn plain<T: Clone + Copy + std::fmt::Debug + PartialEq>() {}
fn error<T: std::error::Error + Clone + Copy + Eq + Send + Sync + 'static>() {}

macro_rules! surface {
    ($g:ident) => {{
        use $g as g;
        send_sync::<g::TextAtlas>();
        send_sync::<g::TextRenderer>();
        send_sync::<g::Viewport>();
        send_sync::<g::Cache>();
        send_sync::<g::TextArea<'static>>();
        let _: fn(&g::Cache) -> g::Cache = Clone::clone;
        fn debug<T: std::fmt::Debug>() {}
        debug::<g::Cache>();
        debug::<g::Viewport>();
        debug::<g::RasterizedCustomGlyph>();
        plain::<g::Resolution>();
        plain::<g::TextBounds>();
        plain::<g::ColorMode>();
        plain::<g::ContentType>();
        plain::<g::CustomGlyph>();
        plain::<g::RasterizeCustomGlyphRequest>();
        error::<g::PrepareError>();
        error::<g::RenderError>();
        let _: g::CustomGlyph = Default::default();
        let _: g::TextBounds = Default::default();
        let _: g::CustomGlyphId = 7u16;
        assert_eq!(g::ContentType::Color.bytes_per_pixel(), 4);
        assert_eq!(g::ContentType::Mask.bytes_per_pixel(), 1);
        let b = g::TextBounds::default();
        assert_eq!((b.left, b.top, b.right, b.bottom), (i32::MIN, i32::MIN, i32::MAX, i32::MAX));
        let r = g::RasterizedCustomGlyph { data: vec![0], content_type: g::ContentType::Mask };
        let _ = format!("{:?}", r.clone());
        // The re-exports, the module included.
        let _: Option<g::cosmic_text::Metrics> = None;
        let _: Option<(g::Attrs<'static>, g::Family<'static>, g::Shaping, g::Wrap, g::Weight)> =
            None;
        let _: Option<(g::SwashCache, g::FontSystem, g::Buffer, g::Color, g::CacheKey)> = None;
        let _: Option<g::fontdb::ID> = None;
        (
            format!("{}", g::PrepareError::AtlasFull),
            format!("{}", g::RenderError::RemovedFromAtlas),
            format!("{}", g::RenderError::ScreenResolutionChanged),
        )
    }};
}

#[test]
fn the_surface_is_glyphons() {
    // The same items and traits on both, and the same messages.
    assert_eq!(surface!(glyphon), surface!(kerf_glyphon));
}
