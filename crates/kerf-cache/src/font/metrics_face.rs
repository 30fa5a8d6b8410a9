//! A face of metrics only, for kerf's own layout (fontdue's `Layout`).
//!
//! fontdue's layout reads a face's character map, advances and line metrics,
//! but `fontdue::Font::from_bytes` parses every outline the face has first
//! (DejaVu Sans: about 20 ms and 19.5 MB). A lazily loaded face is drawn by
//! kerf's own rasterizer and never needs those outlines, so its layout parse
//! is made from a font file holding only the tables fontdue's layout reads:
//! the same character map, advances and line metrics, and no outline.

use crate::error::FontError;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// The tables copied, in the ascending tag order an sfnt directory keeps:
/// what `ttf_parser::Face::parse` requires (`head`, `hhea`, `maxp`) and what
/// fontdue reads for layout: the character map, advances, line metrics
/// (`OS/2` may replace `hhea`'s) and the substitutions whose glyphs fontdue
/// gives advances to (`GSUB`).
const KEPT: [&[u8; 4]; 7] = [b"GSUB", b"OS/2", b"cmap", b"head", b"hhea", b"hmtx", b"maxp"];

/// An sfnt file holding only face `index`'s [`KEPT`] tables of `bytes` (a
/// font or a collection), each as it is there; `None` when the face's table
/// directory cannot be read.
pub(crate) fn metrics_only(bytes: &[u8], index: u32) -> Option<Vec<u8>> {
    let raw = ttf_parser::RawFace::parse(bytes, index).ok()?;
    let tables: Vec<(&[u8; 4], &[u8])> = KEPT
        .iter()
        .filter_map(|&tag| raw.table(ttf_parser::Tag::from_bytes(tag)).map(|t| (tag, t)))
        .collect();
    sfnt(&tables)
}

/// An sfnt file of `tables` (tags in ascending order), each 4-byte aligned;
/// `None` past the format's 4 GiB.
fn sfnt(tables: &[(&[u8; 4], &[u8])]) -> Option<Vec<u8>> {
    let count = tables.len();
    let directory = 12 + 16 * count;
    let padded = |len: usize| len.div_ceil(4) * 4;
    let mut out = Vec::new();
    // The offset table: version 1.0 (TrueType outlines or none), then the
    // binary-search fields every sfnt carries.
    let search = if count == 0 { 0 } else { 1usize << count.ilog2() };
    out.extend_from_slice(&0x0001_0000u32.to_be_bytes());
    for field in [count, search * 16, search.max(1).ilog2() as usize, (count - search) * 16] {
        out.extend_from_slice(&(field as u16).to_be_bytes());
    }
    let mut offset = directory;
    for (tag, table) in tables {
        out.extend_from_slice(*tag);
        out.extend_from_slice(&checksum(table).to_be_bytes());
        out.extend_from_slice(&u32::try_from(offset).ok()?.to_be_bytes());
        out.extend_from_slice(&u32::try_from(table.len()).ok()?.to_be_bytes());
        offset += padded(table.len());
    }
    for (_, table) in tables {
        out.extend_from_slice(table);
        out.resize(padded(out.len()), 0);
    }
    Some(out)
}

/// The sfnt checksum of a table: its big-endian 32-bit words summed, the
/// last one padded with zeros.
fn checksum(table: &[u8]) -> u32 {
    table.chunks(4).fold(0u32, |sum, word| {
        let mut w = [0u8; 4];
        w[..word.len()].copy_from_slice(word);
        sum.wrapping_add(u32::from_be_bytes(w))
    })
}

/// fontdue's parse of `data` (face `index`), with a parser panic contained.
pub(crate) fn parse_fontdue(data: &[u8], index: u32) -> Result<fontdue::Font, FontError> {
    let settings =
        fontdue::FontSettings { collection_index: index, scale: 40.0, load_substitutions: true };
    match catch_unwind(AssertUnwindSafe(|| fontdue::Font::from_bytes(data, settings))) {
        // (ttf-parser refuses a face of no glyphs: `maxp` is malformed.)
        Ok(Ok(face)) => Ok(face),
        Ok(Err(e)) => Err(FontError::Malformed(e.to_string())),
        Err(_) => Err(FontError::ParserPanicked),
    }
}

/// fontdue's parse of [`metrics_only`]'s file for face `index` of `bytes`.
pub(crate) fn parse_metrics(bytes: &[u8], index: u32) -> Result<fontdue::Font, FontError> {
    let file = metrics_only(bytes, index)
        .ok_or_else(|| FontError::Malformed("the table directory cannot be read".into()))?;
    parse_fontdue(&file, 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::font::test_fonts::system_font;

    /// The metrics-only parse against fontdue's parse of the whole face (the
    /// reference): the same character map, every mapped glyph's advance and
    /// the same line metrics, in a file a fraction of the font's size.
    #[test]
    fn the_metrics_face_reads_as_the_whole_face_does() {
        let faces = [
            ("DejaVu Sans", dejavu::sans::regular().to_vec(), 0),
            ("DejaVu Sans Mono", dejavu::sans_mono::regular().to_vec(), 0),
            (
                "Inter (variable, OS/2 metrics)",
                system_font(
                    "/usr/share/fonts/truetype/inter-vf/Inter.var.ttf",
                    "fonts-inter-variable",
                ),
                0,
            ),
            (
                "WenQuanYi Micro Hei, second face of the collection",
                system_font("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc", "fonts-wqy-microhei"),
                1,
            ),
            (
                "Lohit Devanagari",
                system_font(
                    "/usr/share/fonts/truetype/lohit-devanagari/Lohit-Devanagari.ttf",
                    "fonts-lohit-deva",
                ),
                0,
            ),
        ];
        for (name, bytes, index) in faces {
            let whole = parse_fontdue(&bytes, index).unwrap();
            let file = metrics_only(&bytes, index).unwrap();
            assert!(
                file.len() * 2 < bytes.len(),
                "{name}: {} of {} bytes",
                file.len(),
                bytes.len()
            );
            let metrics = parse_metrics(&bytes, index).unwrap();
            assert_eq!(metrics.glyph_count(), whole.glyph_count(), "{name}");
            assert_eq!(metrics.units_per_em(), whole.units_per_em(), "{name}");
            assert!(whole.chars().len() > 200, "{name}: {} characters", whole.chars().len());
            assert_eq!(metrics.chars(), whole.chars(), "{name}: character map");
            for px in [7.0f32, 16.0, 33.5] {
                let (a, b) =
                    (metrics.horizontal_line_metrics(px), whole.horizontal_line_metrics(px));
                let (a, b) = (a.unwrap(), b.unwrap());
                assert_eq!(
                    (a.ascent, a.descent, a.line_gap, a.new_line_size),
                    (b.ascent, b.descent, b.line_gap, b.new_line_size),
                    "{name} at {px} px"
                );
                for (&c, &g) in whole.chars() {
                    assert_eq!(
                        metrics.metrics_indexed(g.get(), px).advance_width,
                        whole.metrics_indexed(g.get(), px).advance_width,
                        "{name}: {c:?} at {px} px"
                    );
                }
            }
        }
    }

    /// A face whose `maxp` says it has no glyph is refused (by the parser,
    /// which is why no glyph count is checked after it), not laid out in.
    #[test]
    fn a_face_of_no_glyphs_is_malformed() {
        let sans = dejavu::sans::regular();
        let raw = ttf_parser::RawFace::parse(sans, 0).unwrap();
        let table = |tag: &[u8; 4]| raw.table(ttf_parser::Tag::from_bytes(tag)).unwrap();
        let mut maxp = table(b"maxp").to_vec();
        maxp[4..6].copy_from_slice(&0u16.to_be_bytes());
        let file = sfnt(&[(b"head", table(b"head")), (b"hhea", table(b"hhea")), (b"maxp", &maxp)])
            .unwrap();
        let refused = parse_fontdue(&file, 0).map(|f| f.glyph_count());
        assert!(matches!(&refused, Err(FontError::Malformed(_))), "{refused:?}");
        // The same file with its glyphs counted parses.
        let file = sfnt(&[
            (b"head", table(b"head")),
            (b"hhea", table(b"hhea")),
            (b"maxp", table(b"maxp")),
        ])
        .unwrap();
        assert_eq!(parse_fontdue(&file, 0).unwrap().glyph_count(), 6253);
    }

    #[test]
    fn a_directory_that_cannot_be_read_is_an_error() {
        assert!(metrics_only(b"not a font", 0).is_none());
        assert!(matches!(parse_metrics(b"\0\x01\0\0\0\0", 0), Err(FontError::Malformed(_))));
        let sans = dejavu::sans::regular();
        assert!(metrics_only(sans, 1).is_none(), "a plain font has one face");
    }

    /// The file is a well-formed sfnt: directory fields, table order,
    /// alignment and checksums as the OpenType spec has them.
    #[test]
    fn the_file_is_a_well_formed_sfnt() {
        let bytes = dejavu::sans::regular();
        let file = metrics_only(bytes, 0).unwrap();
        let be16 = |at: usize| u16::from_be_bytes([file[at], file[at + 1]]) as usize;
        let be32 = |at: usize| u32::from_be_bytes(file[at..at + 4].try_into().unwrap()) as usize;
        assert_eq!(be32(0), 0x0001_0000);
        let n = be16(4);
        assert_eq!(n, KEPT.len(), "DejaVu Sans has every kept table");
        // 7 tables: the largest power of two at most 7 is 4.
        assert_eq!((be16(6), be16(8), be16(10)), (64, 2, 7 * 16 - 64));
        let raw = ttf_parser::RawFace::parse(bytes, 0).unwrap();
        for (i, tag) in KEPT.iter().enumerate() {
            let at = 12 + 16 * i;
            assert_eq!(&file[at..at + 4], &tag[..]);
            let (sum, offset, len) = (be32(at + 4), be32(at + 8), be32(at + 12));
            assert_eq!(offset % 4, 0);
            let table = &file[offset..offset + len];
            assert_eq!(table, raw.table(ttf_parser::Tag::from_bytes(tag)).unwrap());
            if **tag != *b"head" {
                // DejaVu's own directory says the same sum (`head`'s excludes
                // its checksum adjustment).
                let theirs = raw.table_records.into_iter().find(|r| r.tag.to_bytes() == **tag);
                assert_eq!(
                    sum as u32,
                    theirs.unwrap().check_sum,
                    "{:?}",
                    std::str::from_utf8(*tag)
                );
            }
        }
    }
}
