//! Font fallback on kerf's own text path (fontdue layout, no shaping): each
//! character from the first font that has it; characters no font has are
//! drawn as the first font's missing-glyph box and reported.

use kerf_cache::*;

const CJK_FONT: &str = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc";

fn cache() -> (GlyphCache, FontId, FontId) {
    let cjk = std::fs::read(CJK_FONT)
        .unwrap_or_else(|e| panic!("{CJK_FONT}: {e}; install Debian's fonts-wqy-microhei"));
    let mut c = GlyphCache::new(CacheConfig::default()).expect("config");
    let sans = c.add_font(dejavu::sans::regular().to_vec()).expect("DejaVu Sans");
    let cjk = c.add_font(cjk).expect("WenQuanYi Micro Hei");
    (c, sans, cjk)
}

fn laid_out(
    c: &mut GlyphCache, spec: &TextSpec<'_>,
) -> (Vec<PositionedGlyph>, Vec<GlyphQuad>, FrameOutput) {
    let mut pens = Vec::new();
    c.positions(spec, &mut pens).expect("positions");
    let mut quads = Vec::new();
    let mut frame = c.begin_frame();
    frame.layout(spec, &mut quads).expect("layout");
    let out = frame.finish();
    (pens, quads, out)
}

#[test]
fn each_character_takes_the_first_font_that_has_it() {
    let (mut c, sans, cjk) = cache();
    let fallback = [cjk];
    let text = "kerf 中文 ok";
    let spec = TextSpec::new(text, sans, 20.0).at(4.0, 4.0).fallback(&fallback);
    let (pens, quads, out) = laid_out(&mut c, &spec);
    assert!(out.missing.is_empty(), "{:?}", out.missing);
    assert!(out.skipped.is_empty());
    let fonts = c.fonts();
    let want: Vec<(FontId, u16)> = text
        .chars()
        .map(|ch| {
            let in_sans = fonts.get(sans).unwrap().glyph_index(ch);
            if in_sans != 0 {
                (sans, in_sans)
            } else {
                (cjk, fonts.get(cjk).unwrap().glyph_index(ch))
            }
        })
        .collect();
    // 'k', 'e', ... and the spaces from DejaVu; the two Han characters from WenQuanYi.
    assert_eq!(want.iter().filter(|(f, _)| *f == cjk).count(), 2);
    let got: Vec<(FontId, u16)> = pens.iter().map(|g| (g.font, g.glyph)).collect();
    assert_eq!(got, want);
    // Pens advance by each glyph's own font's advance.
    for w in pens.windows(2) {
        let adv = c.fonts().get(w[0].font).unwrap().advance(w[0].glyph, 20.0);
        assert!((w[1].x - w[0].x - adv).abs() < 1e-3, "{w:?}");
    }
    // Every visible glyph drawn, the Han ones from WenQuanYi's keys.
    assert_eq!(quads.len(), text.chars().filter(|c| !c.is_whitespace()).count());
    for (ch, g) in ['中', '文'].iter().zip(pens.iter().filter(|g| g.font == cjk)) {
        let key = GlyphKey {
            mode: c.render_mode(),
            ..GlyphKey::new(cjk, g.glyph, GlyphSize::from_px(20.0, 1e4).unwrap())
        };
        assert!(
            c.entries().any(|(k, _)| k.font == key.font && k.glyph == key.glyph),
            "{ch} cached from the fallback font"
        );
    }
}

#[test]
fn characters_no_font_has_are_drawn_as_missing_boxes_and_reported() {
    let (mut c, sans, cjk) = cache();
    let fallback = [cjk];
    // U+E000 (private use) and U+1D11E (musical G clef): in neither font.
    let text = "a\u{E000}中\u{1D11E}";
    for fb in [&fallback[..], &[]] {
        let spec = TextSpec::new(text, sans, 20.0).fallback(fb);
        let (pens, quads, out) = laid_out(&mut c, &spec);
        let mut want = vec!['\u{E000}'];
        if fb.is_empty() {
            want.push('中');
        }
        want.push('\u{1D11E}');
        assert_eq!(out.missing, want, "fallback {fb:?}");
        // The missing ones are the first font's glyph 0 (its box), drawn.
        let notdef = pens.iter().filter(|g| g.font == sans && g.glyph == 0).count();
        assert_eq!(notdef, want.len());
        assert_eq!(quads.len(), 4, "nothing dropped");
    }
    // A fallback font the cache does not have: an error, nothing drawn or reported.
    let mut other = GlyphCache::new(CacheConfig::default()).expect("config");
    let ids: Vec<FontId> =
        (0..3).map(|_| other.add_font(dejavu::sans::regular().to_vec()).expect("font")).collect();
    let bad = [ids[2]];
    let spec = TextSpec::new(text, sans, 20.0).fallback(&bad);
    let mut quads = Vec::new();
    let mut frame = c.begin_frame();
    assert!(matches!(frame.layout(&spec, &mut quads), Err(GlyphError::UnknownFont(_))));
    let out = frame.finish();
    assert!(quads.is_empty() && out.missing.is_empty());
}
