//! Shared by tests that need a font no Debian font package here provides
//! (an `avar` table, COLR layers, a face without `OS/2`, a face italic by
//! one sign alone, damaged tables): made from a real font's bytes by editing
//! its table directory. Checksums are left as they were; readers do not check them.
#![allow(dead_code)]

/// The table directory's records: (where the record is, its tag).
fn records(bytes: &[u8]) -> Vec<(usize, [u8; 4])> {
    let n = u16::from_be_bytes([bytes[4], bytes[5]]) as usize;
    (0..n).map(|i| 12 + 16 * i).map(|at| (at, bytes[at..at + 4].try_into().unwrap())).collect()
}

/// Where table `tag` starts in `bytes`, and its length.
pub fn table(bytes: &[u8], tag: &[u8; 4]) -> (usize, usize) {
    let (at, _) = records(bytes).into_iter().find(|(_, t)| t == tag).expect("the table");
    let field = |i: usize| u32::from_be_bytes(bytes[i..i + 4].try_into().unwrap()) as usize;
    (field(at + 8), field(at + 12))
}

/// `bytes` with `added` tables: the directory grows by their records (kept
/// sorted by tag), the old tables move down as many bytes, the new ones go
/// at the end, each on a 4-byte boundary.
pub fn with_tables(bytes: &[u8], added: &[([u8; 4], Vec<u8>)]) -> Vec<u8> {
    let old = records(bytes);
    let n = old.len() + added.len();
    let grow = 16 * added.len() as u32;
    let mut table: Vec<[u8; 16]> = old
        .iter()
        .map(|&(at, _)| {
            let mut r: [u8; 16] = bytes[at..at + 16].try_into().unwrap();
            let offset = u32::from_be_bytes(r[8..12].try_into().unwrap()) + grow;
            r[8..12].copy_from_slice(&offset.to_be_bytes());
            r
        })
        .collect();
    let mut body = bytes[12 + 16 * old.len()..].to_vec();
    for (tag, data) in added {
        while body.len() % 4 != 0 {
            body.push(0);
        }
        let mut r = [0u8; 16];
        r[..4].copy_from_slice(tag);
        r[8..12].copy_from_slice(&((12 + 16 * n + body.len()) as u32).to_be_bytes());
        r[12..].copy_from_slice(&(data.len() as u32).to_be_bytes());
        table.push(r);
        body.extend(data);
    }
    table.sort_by_key(|r| [r[0], r[1], r[2], r[3]]);
    let mut out = bytes[..12].to_vec();
    out[4..6].copy_from_slice(&(n as u16).to_be_bytes());
    table.iter().for_each(|r| out.extend(r));
    out.extend(body);
    out
}

/// `bytes` with table `tag` renamed `to` (same sort place): a face without it.
pub fn renamed(bytes: &[u8], tag: &[u8; 4], to: &[u8; 4]) -> Vec<u8> {
    let (at, _) = records(bytes).into_iter().find(|(_, t)| t == tag).expect("the table");
    let mut out = bytes.to_vec();
    out[at..at + 4].copy_from_slice(to);
    out
}

/// `bytes` with `value` written at `offset` into table `tag` (OS/2's
/// fsSelection is at 62, post's italic angle at 4).
pub fn patched(bytes: &[u8], tag: &[u8; 4], offset: usize, value: &[u8]) -> Vec<u8> {
    let at = table(bytes, tag).0 + offset;
    let mut out = bytes.to_vec();
    out[at..at + value.len()].copy_from_slice(value);
    out
}
