//! kerf-glyphon's pictures against glyphon 0.12's, drawn by the same code
//! (tests/common: one harness built against each crate), from the same
//! buffers, on the same device: text at several sizes and fractional
//! offsets, bounds, scales, custom glyphs of both content types at scale
//! 1 and other scales, depth, and both colour modes. Each pair must be
//! within a mean of 1/255 with at most 0.5% of pixels off by more than
//! 32/255.

mod common;

use common::{assert_same, Area, Custom, Setup};
use cosmic_text::{Buffer, Family, FontSystem};

side!(draw_glyphon, glyphon);
side!(draw_kerf, kerf_glyphon);

type Edit<'e> = &'e mut dyn FnMut(usize, &mut [Buffer], &mut FontSystem);

/// Both sides' pictures of `frames` drawn over `make`'s buffers.
fn both(
    setup: Setup, make: &dyn Fn(&mut FontSystem) -> Vec<Buffer>, frames: &[Vec<Area>],
    edit: Edit<'_>,
) -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let gpu = common::gpu();
    let mut fs = common::font_system();
    let mut buffers = make(&mut fs);
    let g = draw_glyphon(&gpu, &mut fs, &mut buffers, frames, setup, edit);
    let mut buffers = make(&mut fs);
    let k = draw_kerf(&gpu, &mut fs, &mut buffers, frames, setup, edit);
    (g, k)
}

fn no_edit() -> impl FnMut(usize, &mut [Buffer], &mut FontSystem) {
    |_, _, _| {}
}

/// Paragraphs in three faces at 11 to 40 px, wrapped, some coloured.
fn paragraphs(fs: &mut FontSystem) -> Vec<Buffer> {
    vec![
        common::buffer(
            fs,
            "The quick brown fox jumps over the lazy dog. 0123456789 AVATAR office ffi",
            16.0,
            380.0,
            Family::SansSerif,
        ),
        common::buffer(fs, "Heading, 40 px: Wavy Ágúst", 40.0, 600.0, Family::Serif),
        common::buffer(
            fs,
            "small print at 11 px, kerning To Ty Va",
            11.0,
            300.0,
            Family::SansSerif,
        ),
        common::buffer(fs, "fn main() { println!(\"{}\", 42); }", 14.0, 400.0, Family::Monospace),
    ]
}

#[test]
fn text_at_sizes_and_fractional_offsets() {
    let areas = vec![
        Area::at(0, 10.0, 8.0),
        Area { color: [200, 40, 40, 255], ..Area::at(1, 12.3, 70.6) },
        Area::at(2, 300.25, 140.5),
        Area { color: [0, 120, 0, 200], ..Area::at(3, 7.75, 170.0) },
    ];
    let (g, k) = both(Setup::new(640, 220), &paragraphs, &[areas], &mut no_edit());
    assert_same("text", &g[0], &k[0], 2000);
}

#[test]
fn bounds_clip_as_glyphon_does() {
    let areas = vec![
        Area { bounds: Some([30, 20, 200, 45]), ..Area::at(0, 10.0, 8.0) },
        Area { bounds: Some([0, 90, 640, 110]), ..Area::at(1, 12.0, 70.0) },
        // Bounds beyond the target, and empty bounds (nothing drawn).
        Area { bounds: Some([-50, -50, 5000, 5000]), ..Area::at(2, 300.0, 140.0) },
        Area { bounds: Some([100, 100, 90, 90]), ..Area::at(3, 10.0, 170.0) },
    ];
    let (g, k) = both(Setup::new(640, 220), &paragraphs, &[areas], &mut no_edit());
    assert_same("bounds", &g[0], &k[0], 300);
}

#[test]
fn scaled_areas() {
    let areas = vec![
        Area { scale: 1.5, ..Area::at(0, 10.0, 8.0) },
        Area { scale: 2.0, ..Area::at(2, 20.5, 120.0) },
        Area { scale: 0.75, ..Area::at(1, 15.0, 190.25) },
        Area { scale: 1.25, bounds: Some([0, 240, 300, 262]), ..Area::at(3, 5.0, 235.0) },
    ];
    let (g, k) = both(Setup::new(640, 280), &paragraphs, &[areas], &mut no_edit());
    assert_same("scale", &g[0], &k[0], 2000);
}

/// Custom glyphs of both content types, snapped and on sub-pixel bins, at
/// scale 1 and 1.5, coloured by the glyph and by the area; one the closure
/// does not rasterize, and one of zero size.
#[test]
fn custom_glyphs_of_both_content_types_at_several_scales() {
    let c = |id, left, top, size: f32, snap| Custom {
        id,
        left,
        top,
        width: size,
        height: size,
        color: None,
        snap,
        metadata: 0,
    };
    let icons = vec![
        c(0, 0.0, 0.0, 20.0, true),
        Custom { color: Some([10, 150, 10, 255]), ..c(0, 30.3, 2.6, 24.0, false) },
        c(1, 60.0, 0.0, 32.0, true),
        c(1, 100.4, 3.3, 17.0, false),
        c(2, 130.0, 0.0, 20.0, true),
        c(0, 160.0, 0.0, 0.0, true),
    ];
    let areas = vec![
        Area { custom: icons.clone(), ..Area::at(0, 10.0, 10.0) },
        Area { custom: icons.clone(), scale: 1.5, ..Area::at(2, 10.5, 80.0) },
        Area { custom: icons, scale: 2.0, color: [160, 0, 90, 255], ..Area::at(3, 300.0, 150.0) },
    ];
    let (g, k) = both(Setup::new(640, 260), &paragraphs, &[areas], &mut no_edit());
    assert_same("custom glyphs", &g[0], &k[0], 3000);
}

/// Two areas overlapping at depths 0.2 and 0.6 (metadata 2 and 6) over a
/// depth attachment: the far one is hidden where the near one's quads are.
#[test]
fn depth_from_metadata() {
    let make = |fs: &mut FontSystem| {
        // A glyph's metadata is its span's (`Attrs::metadata`).
        let mut near = common::buffer(fs, "", 40.0, 600.0, Family::SansSerif);
        let mut far = common::buffer(fs, "", 40.0, 600.0, Family::SansSerif);
        for (b, text, family, m) in [
            (&mut near, "NEAR near NEAR", Family::SansSerif, 2),
            (&mut far, "far FAR far FAR", Family::Serif, 6),
        ] {
            let attrs = cosmic_text::Attrs::new().family(family).metadata(m);
            b.set_text(text, &attrs, cosmic_text::Shaping::Advanced, None);
            b.shape_until_scroll(fs, false);
        }
        let metadata =
            |b: &Buffer| b.layout_runs().flat_map(|r| r.glyphs.iter().map(|g| g.metadata)).max();
        assert_eq!((metadata(&near), metadata(&far)), (Some(2), Some(6)));
        vec![near, far]
    };
    // And an icon with each, at the area's depth, overlapping the other's.
    let icon = |id, metadata| Custom {
        id,
        left: 330.0,
        top: 5.0,
        width: 36.0,
        height: 36.0,
        color: None,
        snap: true,
        metadata,
    };
    let areas = vec![
        Area { color: [0, 0, 200, 255], custom: vec![icon(0, 2)], ..Area::at(0, 10.0, 10.0) },
        Area { color: [200, 0, 0, 255], custom: vec![icon(1, 6)], ..Area::at(1, 22.0, 22.0) },
    ];
    let setup = Setup { depth: true, ..Setup::new(400, 90) };
    let (g, k) = both(setup, &make, std::slice::from_ref(&areas), &mut no_edit());
    assert_same("depth", &g[0], &k[0], 1500);
    // The far one drawn first: the near one is drawn over it, not hidden
    // behind its quads.
    let reversed: Vec<Area> = areas.iter().rev().cloned().collect();
    let (gr, kr) = both(setup, &make, &[reversed], &mut no_edit());
    assert_same("depth, far first", &gr[0], &kr[0], 1500);
    // The depth test did something: drawn without it, the far text shows
    // over the near one's boxes.
    let (plain, _) = both(Setup::new(400, 90), &make, &[areas], &mut no_edit());
    let (mean, _) = common::difference(&g[0], &plain[0]);
    assert!(mean > 0.5, "depth changed nothing ({mean:.3}/255)");
}

#[test]
fn web_colour_mode_on_srgb_and_accurate_on_linear_targets() {
    let areas = vec![
        Area { color: [200, 60, 20, 255], ..Area::at(0, 10.0, 8.0) },
        Area {
            custom: vec![Custom {
                id: 1,
                left: 0.0,
                top: 0.0,
                width: 30.0,
                height: 30.0,
                color: None,
                snap: true,
                metadata: 0,
            }],
            ..Area::at(1, 12.0, 70.0)
        },
    ];
    for (format, web) in [
        (wgpu::TextureFormat::Rgba8UnormSrgb, true),
        (wgpu::TextureFormat::Rgba8Unorm, true),
        (wgpu::TextureFormat::Rgba8Unorm, false),
    ] {
        let setup = Setup { format, web, ..Setup::new(640, 130) };
        let (g, k) = both(setup, &paragraphs, std::slice::from_ref(&areas), &mut no_edit());
        assert_same(&format!("{format:?}, web {web}"), &g[0], &k[0], 1500);
    }
}

/// A buffer edited between two frames (its text set again and re-shaped)
/// draws its new text in the second frame, as glyphon does; one only
/// moved draws where it now is.
#[test]
fn an_edited_buffer_draws_its_new_text_in_the_same_frame() {
    let frames = vec![
        vec![Area::at(0, 10.0, 8.0), Area::at(1, 10.0, 60.0)],
        vec![Area::at(0, 10.0, 8.0), Area::at(1, 40.0, 70.0)],
        vec![Area::at(0, 10.0, 8.0), Area::at(1, 40.0, 70.0)],
    ];
    let mut edit = |frame: usize, buffers: &mut [Buffer], fs: &mut FontSystem| {
        if frame == 1 {
            let attrs = cosmic_text::Attrs::new().family(Family::SansSerif);
            buffers[0].set_text(
                "Edited: a different line now",
                &attrs,
                cosmic_text::Shaping::Advanced,
                None,
            );
            buffers[0].shape_until_scroll(fs, false);
        }
        if frame == 2 {
            // Re-shaped at another width: wrapped differently.
            buffers[0].set_size(Some(120.0), None);
            buffers[0].shape_until_scroll(fs, false);
        }
    };
    let (g, k) = both(Setup::new(400, 160), &paragraphs, &frames, &mut edit);
    for f in 0..3 {
        assert_same(&format!("frame {f}"), &g[f], &k[f], 800);
    }
    for f in 1..3 {
        let (mean, _) = common::difference(&k[f - 1], &k[f]);
        assert!(mean > 0.5, "frame {f} looks like frame {}: the edit was not drawn", f - 1);
    }
}

/// Colour emoji (Noto Color Emoji's bitmap strikes, scaled) beside text,
/// through cosmic-text's fallback, at scale 1 and 1.5.
#[test]
fn colour_emoji_through_fallback() {
    const EMOJI: &str = "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf";
    let bytes = std::fs::read(EMOJI)
        .unwrap_or_else(|e| panic!("{EMOJI}: {e}: install Debian's fonts-noto-color-emoji"));
    let make = move |fs: &mut FontSystem| {
        fs.db_mut().load_font_data(bytes.clone());
        vec![
            common::buffer(fs, "Party 🎉 time 😀 ok 🚀", 24.0, 500.0, Family::SansSerif),
            common::buffer(fs, "small 🙂 emoji", 13.0, 300.0, Family::SansSerif),
        ]
    };
    let areas = vec![
        Area::at(0, 10.0, 10.0),
        Area { scale: 1.5, ..Area::at(1, 10.5, 60.0) },
        Area::at(1, 300.25, 20.0),
    ];
    let (g, k) = both(Setup::new(520, 110), &make, &[areas], &mut no_edit());
    assert_same("emoji", &g[0], &k[0], 2000);
}
