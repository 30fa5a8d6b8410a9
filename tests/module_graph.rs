//! Modules inside each crate depend one way: no import circles. A module's
//! arrows are the `crate::NAME` paths its file names (in `use` lines and in
//! code), where NAME is another module file of the same crate; the test
//! fails naming the first circle it finds.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Module name -> the modules its file names through `crate::`.
fn arrows(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = BTreeMap::new();
    for entry in std::fs::read_dir(src).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rs") {
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            if name != "lib" && name != "main" {
                files.insert(name, std::fs::read_to_string(&path).unwrap());
            }
        }
    }
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
                let target = ident(rest);
                // `use crate::{a::X, b::Y}`: every module in the braces.
                if rest.starts_with('{') {
                    let inner = &rest[1..rest.find('}').unwrap_or(rest.len())];
                    for part in inner.split(',') {
                        let m = ident(part.trim());
                        if files.contains_key(&m) && &m != name {
                            to.insert(m);
                        }
                    }
                } else if files.contains_key(&target) && &target != name {
                    to.insert(target);
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
