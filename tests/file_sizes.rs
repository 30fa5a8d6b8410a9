//! No Rust file under `crates/*/src`, `examples/` or `benches/` is longer
//! than 700 lines: a file that grows past that has grown a second job and
//! is split by job (DEVELOPERS' guide). The test names every file over the
//! limit with its length.

use std::path::{Path, PathBuf};

/// Most lines a source file may have.
const MAX_LINES: usize = 700;

/// Every `.rs` file under `dir`, recursively, in a stable order.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut paths: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The folders the rule covers, under the repository root `root`: each
/// crate's `src`, `examples` and `benches`.
fn covered(root: &Path) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Ok(crates) = std::fs::read_dir(root.join("crates")) {
        let mut crates: Vec<PathBuf> = crates.map(|e| e.unwrap().path().join("src")).collect();
        crates.sort();
        dirs.extend(crates);
    }
    dirs.push(root.join("examples"));
    dirs.push(root.join("benches"));
    dirs
}

/// Each file under `dirs` longer than `max` lines, as "path: N lines"
/// (the path relative to `root`).
fn over_limit(root: &Path, dirs: &[PathBuf], max: usize) -> Vec<String> {
    let mut files = Vec::new();
    for dir in dirs {
        rust_files(dir, &mut files);
    }
    files
        .iter()
        .filter_map(|f| {
            let lines = std::fs::read_to_string(f).unwrap().lines().count();
            let shown = f.strip_prefix(root).unwrap_or(f).display();
            (lines > max).then(|| format!("{shown}: {lines} lines"))
        })
        .collect()
}

#[test]
fn no_source_file_is_longer_than_700_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dirs = covered(root);
    let mut seen = Vec::new();
    for dir in &dirs {
        rust_files(dir, &mut seen);
    }
    // (The walk itself found the tree: a renamed folder must not pass by
    // finding nothing.)
    assert!(seen.len() > 100, "only {} Rust files found under {dirs:?}", seen.len());
    assert!(seen.iter().any(|f| f.ends_with("crates/kerf-wgpu/src/lib.rs")));
    let over = over_limit(root, &dirs, MAX_LINES);
    assert!(over.is_empty(), "over {MAX_LINES} lines (split each by job): {}", over.join(", "));
}

/// The check fails on a file one line over the limit, and names it, in a
/// tree the test makes; a file exactly at the limit passes.
#[test]
fn a_file_one_line_over_the_limit_is_named() {
    let root = std::env::temp_dir().join(format!("kerf-file-sizes-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let src = root.join("crates/kerf-x/src/deep");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::create_dir_all(root.join("examples")).unwrap();
    std::fs::write(src.join("long.rs"), "//\n".repeat(MAX_LINES + 1)).unwrap();
    std::fs::write(src.join("at_limit.rs"), "//\n".repeat(MAX_LINES)).unwrap();
    std::fs::write(root.join("examples/long.txt"), "x\n".repeat(MAX_LINES + 1)).unwrap();
    let over = over_limit(&root, &covered(&root), MAX_LINES);
    std::fs::remove_dir_all(&root).unwrap();
    assert_eq!(over, vec![format!("crates/kerf-x/src/deep/long.rs: {} lines", MAX_LINES + 1)]);
}
