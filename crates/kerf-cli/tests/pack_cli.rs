//! `kerf pack` end to end: the binary on the bundled traces and on bad input.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn kerf(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kerf"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run kerf");
    let mut input = child.stdin.take().unwrap();
    // A child that rejects its arguments may exit before reading stdin: a
    // broken pipe here is expected then, and its exit status is what the test checks.
    let _ = input.write_all(stdin.unwrap_or("").as_bytes());
    drop(input);
    child.wait_with_output().unwrap()
}

fn trace_path(name: &str) -> String {
    format!("{}/../../benches/data/{name}.txt", env!("CARGO_MANIFEST_DIR"))
}

fn read_trace(name: &str) -> Vec<(u64, u64)> {
    std::fs::read_to_string(trace_path(name))
        .unwrap()
        .lines()
        .map(|l| {
            let v: Vec<u64> = l.split_whitespace().map(|x| x.parse().unwrap()).collect();
            (v[0], v[1])
        })
        .collect()
}

#[test]
fn json_report_is_consistent_with_the_trace() {
    let out = kerf(&["pack", &trace_path("text-stream"), "--size", "512x512", "--json"], None);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let input = read_trace("text-stream");
    assert_eq!(v["algorithm"], "maxrects-bssf");
    assert_eq!((v["width"].as_u64(), v["height"].as_u64()), (Some(512), Some(512)));
    assert_eq!(v["requested"].as_u64(), Some(input.len() as u64));
    let placements = v["placements"].as_array().unwrap();
    assert_eq!(placements.len(), input.len());
    let mut rects = Vec::new();
    let mut area = 0;
    let mut first_failure = None;
    for (i, (p, &(w, h))) in placements.iter().zip(&input).enumerate() {
        if p.is_null() {
            first_failure.get_or_insert(i);
            continue;
        }
        let r: Vec<u64> = ["x", "y", "w", "h"].iter().map(|k| p[k].as_u64().unwrap()).collect();
        assert_eq!((r[2], r[3]), (w, h), "line {i}: placed size");
        assert!(r[0] + r[2] <= 512 && r[1] + r[3] <= 512, "line {i}: outside the bin");
        assert_eq!(p["rotated"], false);
        area += w * h;
        rects.push(r);
    }
    for (i, a) in rects.iter().enumerate() {
        for b in &rects[i + 1..] {
            let apart = a[0] + a[2] <= b[0]
                || b[0] + b[2] <= a[0]
                || a[1] + a[3] <= b[1]
                || b[1] + b[3] <= a[1];
            assert!(apart, "{a:?} overlaps {b:?}");
        }
    }
    assert_eq!(v["placed"].as_u64(), Some(rects.len() as u64));
    assert_eq!(v["first_failure"].as_u64(), first_failure.map(|f| f as u64));
    assert_eq!(v["placed_before_first_failure"].as_u64(), first_failure.map(|f| f as u64));
    let occupancy = v["occupancy"].as_f64().unwrap();
    assert!((occupancy - area as f64 / (512.0 * 512.0)).abs() < 1e-9);
    assert!(v["occupancy_at_first_failure"].as_f64().unwrap() < occupancy);
    assert!(v["ns_per_insert"].as_f64().unwrap() > 0.0);
}

#[test]
fn cycle_stops_at_the_first_failure() {
    let out = kerf(
        &["pack", &trace_path("latin-mixed"), "--cycle", "--json", "--algo", "skyline-bl-wm"],
        None,
    );
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let requested = v["requested"].as_u64().unwrap();
    assert!(requested > 1404, "the trace was repeated");
    assert_eq!(v["first_failure"].as_u64(), Some(requested - 1));
    assert_eq!(v["placed"].as_u64(), Some(requested - 1));
}

#[test]
fn malformed_lines_are_named_and_fail() {
    let out = kerf(&["pack", "-"], Some("4 5\n# comment\n7 x\n"));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 3"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn stdin_input_and_table_output() {
    let out = kerf(
        &["pack", "-", "--size", "16x16", "--algo", "shelf-ff-wm"],
        Some("8 8\n8 8\n8 8\n8 8\n8 8\n"),
    );
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("| shelf-ff-wm | 4 | 100.00% | 4 / 5 |"), "{text}");
}

#[test]
fn unknown_packer_and_bad_size_are_errors() {
    for args in [
        vec!["pack", "--algo", "maxrects-zz"],
        vec!["pack", "--size", "0x10"],
        vec!["pack", "--size", "12"],
    ] {
        let out = kerf(&args, Some("1 1\n"));
        assert!(!out.status.success(), "{args:?}");
        assert!(!out.stderr.is_empty());
    }
    let out = kerf(&["pack", "--mode", "global", "--algo", "shelf-nf"], Some("1 1\n"));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("MaxRects"));
}

#[test]
fn pictures_are_written() {
    // (Cargo's scratch directory for tests: target/tmp.)
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("kerf-pack-cli-test");
    std::fs::create_dir_all(&dir).unwrap();
    let (svg, png) = (dir.join("p.svg"), dir.join("p.png"));
    let out = kerf(
        &[
            "pack",
            "-",
            "--size",
            "40x30",
            "--svg",
            svg.to_str().unwrap(),
            "--png",
            png.to_str().unwrap(),
        ],
        Some("10 10\n20 5\n"),
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let svg = std::fs::read_to_string(&svg).unwrap();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert!(svg.contains(r#"width="10" height="10""#) && svg.contains(r#"width="20" height="5""#));
    let decoder = png::Decoder::new(std::fs::File::open(&png).unwrap());
    let reader = decoder.read_info().unwrap();
    assert_eq!((reader.info().width, reader.info().height), (40, 30));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sorted_and_global_modes_report() {
    for mode in ["sorted", "global"] {
        let out = kerf(
            &["pack", &trace_path("latin-mixed"), "--size", "256x256", "--mode", mode, "--json"],
            None,
        );
        assert!(out.status.success(), "{mode}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        // Largest-first packing fills 256² almost completely, with few glyphs.
        assert!(v["placed"].as_u64().unwrap() > 0, "{mode}");
        assert!(v["occupancy"].as_f64().unwrap() > 0.95, "{mode}: {}", v["occupancy"]);
        assert_eq!(v["first_failure"], serde_json::Value::Null);
    }
}

#[test]
fn compare_lists_kerf_and_the_peers() {
    let out = kerf(
        &["pack", &trace_path("latin-mixed"), "--size", "128x128", "--compare", "--json"],
        None,
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r["allocator"].as_str().unwrap()).collect();
    for want in
        ["kerf maxrects-bssf", "kerf skyline-bl-wm", "etagere", "etagere bucketed", "guillotiere"]
    {
        assert!(names.contains(&want), "{want} missing from {names:?}");
    }
    // The fill figures are the trace's: the glyphs placed before the first
    // failure are the first N of the cycled trace, and the occupancy then is
    // their requested area over the bin's. kerf's MaxRects-BSSF and
    // etagere, run here on the same trace, place the same N.
    let trace = read_trace("latin-mixed");
    let row = |name: &str| {
        rows.iter().find(|r| r["allocator"] == name).unwrap_or_else(|| panic!("{name} row"))
    };
    for r in &rows {
        let n = r["placed_before_first_failure"].as_u64().unwrap() as usize;
        let area: u64 = (0..n).map(|i| trace[i % trace.len()]).map(|(w, h)| w * h).sum();
        let want = area as f64 / (128.0 * 128.0);
        let occ = r["occupancy_at_first_failure"].as_f64().unwrap();
        assert!(
            (occ - want).abs() < 1e-9,
            "{}: occupancy {occ}, the first {n} glyphs cover {want}",
            r["allocator"]
        );
    }
    let fill = |alloc: &mut dyn FnMut(u32, u32) -> bool| {
        (0..)
            .take_while(|&i| {
                let (w, h) = trace[i % trace.len()];
                alloc(w as u32, h as u32)
            })
            .count() as u64
    };
    let mut maxrects = kerf_pack::Algorithm::default()
        .build(128, 128, kerf_pack::PackerOptions::default())
        .unwrap();
    assert_eq!(
        row("kerf maxrects-bssf")["placed_before_first_failure"],
        fill(&mut |w, h| maxrects.allocate(w, h).is_ok())
    );
    let mut etagere = etagere::AtlasAllocator::new(etagere::size2(128, 128));
    assert_eq!(
        row("etagere")["placed_before_first_failure"],
        fill(&mut |w, h| etagere.allocate(etagere::size2(w as i32, h as i32)).is_some())
    );
    for r in &rows {
        let occ = r["occupancy_at_first_failure"].as_f64().unwrap();
        assert!(occ > 0.0 && occ <= 1.0, "{r}");
        assert!(r["placed_before_first_failure"].as_u64().unwrap() > 0);
        assert!(r["churn_mean_occupancy"].as_f64().unwrap() <= 1.0);
    }
    let out = kerf(&["pack", "-", "--compare", "--padding", "1"], Some("1 1\n"));
    assert_eq!(out.status.code(), Some(2), "--compare refuses options the peers do not have");
}
