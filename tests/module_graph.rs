//! Modules inside each crate depend one way: no import circles. A module's
//! arrows are the `crate::NAME` paths its file names (in `use` lines and in
//! code), where NAME is another module file of the same crate; the test
//! fails naming the first circle it finds.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Every module file under `dir`, as (module path, text): `a/b.rs` and
/// `a/b/mod.rs` are both `a::b`; lib.rs and main.rs are the crate root, left out.
fn module_files(dir: &Path, prefix: &str, out: &mut BTreeMap<String, String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let join = |name: &str| {
            if prefix.is_empty() {
                name.to_string()
            } else {
                format!("{prefix}::{name}")
            }
        };
        if path.is_dir() {
            module_files(&path, &join(&stem), out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let name = match stem.as_str() {
                "lib" | "main" if prefix.is_empty() => continue,
                "mod" => prefix.to_string(),
                _ => join(&stem),
            };
            out.insert(name, std::fs::read_to_string(&path).unwrap());
        }
    }
}

/// The module a `crate::` path names: the longest run of its leading
/// segments that is a module file.
fn target(path: &str, files: &BTreeMap<String, String>) -> Option<String> {
    let segments: Vec<String> = path.split("::").map(ident).collect();
    (1..=segments.len()).rev().map(|n| segments[..n].join("::")).find(|m| files.contains_key(m))
}

/// The path text at the start of `s`: identifiers joined by `::`.
fn path_text(s: &str) -> &str {
    let end = s.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')).unwrap_or(s.len());
    s[..end].trim_end_matches(':')
}

/// Module path -> the modules its file names through `crate::`, in every
/// folder under `src`.
fn arrows(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = BTreeMap::new();
    module_files(src, "", &mut files);
    let mut graph = BTreeMap::new();
    for (name, text) in &files {
        let mut to = BTreeSet::new();
        for line in text.lines() {
            let code = line.trim_start();
            if code.starts_with("//") {
                continue; // comments and doc links are not imports
            }
            for (i, _) in code.match_indices("crate::") {
                // `crate::` as a path start, not the tail of `kerf_cache::` etc.
                if i > 0 && code[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
                    continue;
                }
                let rest = &code[i + "crate::".len()..];
                let head = path_text(rest);
                // `use crate::a::{b::X, c::Y}`: every module in the braces.
                let tail = &rest[head.len()..];
                let mut paths = vec![head.to_string()];
                if let Some(inner) =
                    tail.strip_prefix("::{").or(tail.strip_prefix('{').filter(|_| head.is_empty()))
                {
                    let inner = &inner[..inner.find('}').unwrap_or(inner.len())];
                    for part in inner.split(',') {
                        let part = path_text(part.trim());
                        paths.push(if head.is_empty() {
                            part.to_string()
                        } else {
                            format!("{head}::{part}")
                        });
                    }
                }
                for p in paths {
                    if let Some(m) = target(&p, &files).filter(|m| m != name) {
                        to.insert(m);
                    }
                }
            }
        }
        graph.insert(name.clone(), to);
    }
    graph
}

/// The identifier `s` starts with.
fn ident(s: &str) -> String {
    s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect()
}

/// A circle in `graph`, as the modules along it, if there is one.
fn circle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    // Depth-first search with colours: 1 on the path, 2 done.
    fn visit(
        n: &str, graph: &BTreeMap<String, BTreeSet<String>>, state: &mut BTreeMap<String, u8>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(n.to_string(), 1);
        path.push(n.to_string());
        for m in &graph[n] {
            match state.get(m.as_str()) {
                Some(1) => {
                    let at = path.iter().position(|p| p == m).unwrap();
                    let mut c = path[at..].to_vec();
                    c.push(m.clone());
                    return Some(c);
                }
                Some(_) => {}
                None => {
                    if let Some(c) = visit(m, graph, state, path) {
                        return Some(c);
                    }
                }
            }
        }
        path.pop();
        state.insert(n.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in graph.keys() {
        if !state.contains_key(n.as_str()) {
            if let Some(c) = visit(n, graph, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

#[test]
fn modules_inside_each_crate_depend_one_way() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for krate in ["kerf-pack", "kerf-cache", "kerf-wgpu", "kerf-cli"] {
        let graph = arrows(&root.join("crates").join(krate).join("src"));
        assert!(graph.len() > 5, "{krate}: modules read");
        assert!(graph.values().any(|to| !to.is_empty()), "{krate}: arrows read");
        if let Some(c) = circle(&graph) {
            panic!("{krate}: modules import each other in a circle: {}", c.join(" -> "));
        }
    }
    // kerf-cache's rooms are folders: the graph reaches into them, and few
    // files are left at the top.
    let src = root.join("crates/kerf-cache/src");
    let graph = arrows(&src);
    for room in ["font", "raster", "atlas", "shape"] {
        assert!(graph.keys().any(|m| m.starts_with(&format!("{room}::"))), "{room}/ read");
    }
    assert!(
        graph["atlas::lookup"].contains("atlas::page") || graph["atlas::lookup"].contains("atlas"),
        "arrows into a folder"
    );
    // The atlas knows no font, rasterizer, shaper or cache: only the vocabulary.
    for (m, to) in &graph {
        if m == "atlas" || m.starts_with("atlas::") {
            for t in to {
                let room = t.split("::").next().unwrap();
                assert!(
                    ![
                        "font", "raster", "shape", "source", "cache", "color", "frame", "layout",
                        "retain"
                    ]
                    .contains(&room),
                    "{m} imports {t}: the atlas must not know fonts, rasterizers or the API"
                );
            }
        }
    }
    let top = std::fs::read_dir(&src)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "rs"))
        .count();
    assert!(top <= 20, "kerf-cache has {top} files at the top of src/ (at most 20)");
}

/// Paths into folders, braces and `mod.rs` files are read as arrows.
#[test]
fn paths_into_folders_are_arrows() {
    let files: BTreeMap<String, String> =
        ["a", "a::b", "a::b::c", "d"].iter().map(|m| (m.to_string(), String::new())).collect();
    assert_eq!(target("a::b::c::X", &files).as_deref(), Some("a::b::c"));
    assert_eq!(target("a::b::Y", &files).as_deref(), Some("a::b"));
    assert_eq!(target("a::Z", &files).as_deref(), Some("a"));
    assert_eq!(target("e::Z", &files), None);
    assert_eq!(path_text("a::b::{c, d}"), "a::b");
    assert_eq!(path_text("a::b::X;"), "a::b::X");
}

/// The check finds a circle where there is one (and none in a line).
#[test]
fn the_circle_check_finds_circles() {
    let g = |edges: &[(&str, &str)]| {
        let mut m: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in edges {
            m.entry(a.to_string()).or_default().insert(b.to_string());
            m.entry(b.to_string()).or_default();
        }
        m
    };
    assert_eq!(circle(&g(&[("a", "b"), ("b", "c")])), None);
    assert_eq!(circle(&g(&[("a", "b"), ("b", "c"), ("c", "a")])).map(|c| c.len()), Some(4));
}
