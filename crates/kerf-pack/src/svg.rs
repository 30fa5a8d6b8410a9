//! A picture of any packer's state, as SVG: each allocation a coloured
//! rectangle, the free space as translucent outlines on a dark bin.

use crate::packer::Packer;
use alloc::string::String;
use core::fmt::Write;

/// A stable, well-spread colour for the `i`-th rectangle, as `(r, g, b)`.
pub fn palette(i: u32) -> (u8, u8, u8) {
    // Golden-ratio hue steps in a cheap HSV-to-RGB conversion.
    let hue = ((i as u64 * 0x9E37_79B9) >> 16) % 360;
    let sector = hue / 60;
    let f = ((hue % 60) * 255 / 60) as u8;
    let (hi, lo) = (230u8, 70u8);
    let rise = lo + (f as u16 * (hi - lo) as u16 / 255) as u8;
    let fall = hi - (rise - lo);
    match sector {
        0 => (hi, rise, lo),
        1 => (fall, hi, lo),
        2 => (lo, hi, rise),
        3 => (lo, fall, hi),
        4 => (rise, lo, hi),
        _ => (hi, lo, fall),
    }
}

/// Renders the packer's allocations and free space as an SVG document.
pub fn dump_svg(packer: &dyn Packer) -> String {
    let (w, h) = packer.size();
    let mut s = String::new();
    let _ = writeln!(
        s,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}">"##
    );
    let _ = writeln!(s, r##"<rect x="0" y="0" width="{w}" height="{h}" fill="#202020"/>"##);
    for a in packer.iter() {
        let (r, g, b) = palette(a.id.index());
        let rc = a.rect;
        let _ = writeln!(
            s,
            r##"<rect x="{}" y="{}" width="{}" height="{}" fill="rgb({r},{g},{b})"/>"##,
            rc.x, rc.y, rc.w, rc.h
        );
    }
    for f in packer.free_rects() {
        let _ = writeln!(
            s,
            r##"<rect x="{}" y="{}" width="{}" height="{}" fill="#ffffff" fill-opacity="0.06" stroke="#80ff80" stroke-opacity="0.5" stroke-width="0.5"/>"##,
            f.x, f.y, f.w, f.h
        );
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    /// Neighbouring rectangles get colours far apart, and every colour is
    /// within the palette's band (never black or white on the dark bin).
    #[test]
    fn the_palette_spreads_colours() {
        let colours: Vec<(u8, u8, u8)> = (0..24).map(palette).collect();
        for (i, c) in colours.iter().enumerate() {
            for ch in [c.0, c.1, c.2] {
                assert!((70..=230).contains(&ch), "colour {i}: {c:?}");
            }
            let next = colours[(i + 1) % colours.len()];
            let dist = (c.0 as i32 - next.0 as i32).abs()
                + (c.1 as i32 - next.1 as i32).abs()
                + (c.2 as i32 - next.2 as i32).abs();
            assert!(dist > 60, "colours {i} and {} too close: {c:?} {next:?}", i + 1);
        }
    }
}
