//! `kerf profile` and `kerf atlas` end to end.

use kerf_cache::{CacheConfig, GlyphCache, TextSpec};
use std::process::{Command, Output};

/// The text `kerf atlas` caches in the tests.
const ATLAS_TEXT: &str = "Sphinx of black quartz, judge my vow! 0123456789 ÆØÅ";

fn kerf(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kerf")).args(args).output().expect("run kerf")
}

/// A path for file `name` in this binary's directory under Cargo's scratch
/// directory for tests (target/tmp, not the system's temporary directory).
fn tmp(name: &str) -> std::path::PathBuf {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("kerf-cache-cli-test");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// `kerf profile --json` of `frames` cjk-churn frames through one page of
/// `page` px with no frames in flight, parsed.
fn cjk_churn_json(frames: &str, page: &str) -> serde_json::Value {
    let out = kerf(&[
        "profile",
        "--workload",
        "cjk-churn",
        "--frames",
        frames,
        "--page-size",
        page,
        "--pages",
        "1",
        "--in-flight",
        "0",
        "--json",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn profile_json_has_the_issue_keys_and_figures_that_add_up() {
    let v = cjk_churn_json("8", "1024");
    for key in [
        "workload",
        "frames",
        "glyphs",
        "hits",
        "misses",
        "evictions",
        "hit_rate",
        "ns_per_hit",
        "ns_per_miss",
        "raster_ns",
        "pack_ns",
        "stage_ns",
        "occupancy_mean",
        "occupancy_min",
        "pages",
        "skipped",
        "worst_frame_ns",
        "median_frame_ns",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    assert_eq!(v["workload"], "cjk-churn");
    assert_eq!(v["glyphs"], 8 * 2000);
    let (h, m) = (v["hits"].as_u64().unwrap(), v["misses"].as_u64().unwrap());
    assert_eq!(h + m, 16000);
    assert!(v["evictions"].as_u64().unwrap() > 0, "one 1024 px page must churn");
    assert_eq!(v["skipped"], 0);
    let occ = v["occupancy_mean"].as_f64().unwrap();
    assert!(occ > 0.0 && occ <= 1.0);
}

/// `ns_per_hit` is a time only where an all-hit frame was measured: a
/// frame that does not fit its one small page never replays as all hits,
/// and its hit and miss times are `null` (not 0, which reads as "free");
/// a frame that fits has both.
#[test]
fn profile_json_says_null_for_what_it_did_not_measure() {
    let small = cjk_churn_json("3", "256");
    assert!(small["skipped"].as_u64().unwrap() > 0, "2,000 CJK glyphs do not fit 256 px");
    assert!(small["hits"].as_u64().unwrap() > 0);
    assert!(small["ns_per_hit"].is_null(), "{}", small["ns_per_hit"]);
    assert!(small["ns_per_miss"].is_null(), "{}", small["ns_per_miss"]);
    let roomy = cjk_churn_json("3", "2048");
    assert_eq!(roomy["skipped"], 0);
    assert!(roomy["ns_per_hit"].as_f64().unwrap() > 0.0, "{}", roomy["ns_per_hit"]);
    assert!(roomy["ns_per_miss"].as_f64().unwrap() > 0.0, "{}", roomy["ns_per_miss"]);
}

#[test]
fn profile_all_workloads_and_a_text_file() {
    let out = kerf(&["profile", "--frames", "3", "--json"]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> =
        v.as_array().unwrap().iter().map(|r| r["workload"].as_str().unwrap()).collect();
    assert_eq!(names, ["latin", "text-stream", "cjk-churn", "scroll", "zoom"]);
    // Zoom: a new size every frame, so little but a frame's own repeats hits;
    // the same paragraph drawn at one size (latin) hits from frame 2 on.
    let rate = |i: usize| v[i]["hits"].as_f64().unwrap() / v[i]["glyphs"].as_f64().unwrap();
    assert!(rate(4) < 0.5 && rate(0) > 0.5, "zoom {} vs latin {}", rate(4), rate(0));
    for r in v.as_array().unwrap() {
        let (glyphs, hits, misses) = (
            r["glyphs"].as_u64().unwrap(),
            r["hits"].as_u64().unwrap(),
            r["misses"].as_u64().unwrap(),
        );
        assert_eq!(r["frames"], 3, "{}", r["workload"]);
        assert!(glyphs > 0 && hits + misses == glyphs, "{r}");
    }
    // The same paragraph three times: the second and third frames only hit.
    let latin = &v[0];
    assert_eq!(latin["glyphs"].as_u64().unwrap() % 3, 0);
    assert!(
        latin["hits"].as_u64().unwrap() >= latin["glyphs"].as_u64().unwrap() * 2 / 3,
        "{latin}"
    );

    let text = tmp("doc.txt");
    let lines = ["first line", "zweite Zeile äöü", "τρίτη γραμμή"];
    std::fs::write(&text, lines.join("\n") + "\n").unwrap();
    let out = kerf(&["profile", "--text", text.to_str().unwrap(), "--frames", "4"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("text:"));
    // A text file scrolls by a quarter line a frame with 41 lines in view
    // (the file's lines repeated): in 4 frames the view starts at line 0,
    // so each frame draws lines 0..=40, one glyph per character.
    let out = kerf(&["profile", "--text", text.to_str().unwrap(), "--frames", "4", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let per_frame: usize = (0..41).map(|k| lines[k % 3].chars().count()).sum();
    assert_eq!(v["glyphs"], 4 * per_frame as u64, "{v}");
    assert_eq!(v["hits"].as_u64().unwrap() + v["misses"].as_u64().unwrap(), 4 * per_frame as u64);
}

#[test]
fn atlas_writes_pages_and_bad_fonts_fail_cleanly() {
    let png = tmp("atlas.png");
    let out = kerf(&[
        "atlas",
        "--text",
        ATLAS_TEXT,
        "--sizes",
        "12,40",
        "--page-size",
        "256",
        "--png",
        png.to_str().unwrap(),
        "--json",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let pages = v["pages"].as_u64().unwrap();
    assert!(pages >= 1);
    assert_eq!(v["files"].as_array().unwrap().len() as u64, pages);
    // The same cache built through the library: the PNGs are its pages
    // (coverage c drawn as 0x10 + c·0xef/255 in red, free rectangles
    // outlined in green), and the JSON counts its glyphs.
    let mut cache = GlyphCache::new(CacheConfig {
        page_size: 256,
        max_pages: 8,
        memory_budget: u64::MAX,
        ..CacheConfig::default()
    })
    .unwrap();
    let font = cache.add_font(dejavu::sans::regular().to_vec()).unwrap();
    let mut quads = Vec::new();
    let mut frame = cache.begin_frame();
    for (px, y) in [(12.0, 0.0), (40.0, 96.0)] {
        frame
            .layout(&TextSpec::new(ATLAS_TEXT, font, px).at(0.0, y).wrap(1600.0), &mut quads)
            .unwrap();
    }
    frame.finish();
    assert_eq!(pages, cache.pages().len() as u64);
    assert_eq!(
        v["glyphs"].as_u64().unwrap(),
        cache.pages().iter().map(|p| p.glyphs() as u64).sum::<u64>()
    );
    let distinct = ATLAS_TEXT
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<std::collections::BTreeSet<_>>()
        .len() as u64;
    assert!(
        v["glyphs"].as_u64().unwrap() >= 2 * distinct,
        "every character at both sizes ({distinct} characters): {v}"
    );
    for (f, page) in v["files"].as_array().unwrap().iter().zip(cache.pages()) {
        let decoder = png::Decoder::new(std::io::BufReader::new(
            std::fs::File::open(f.as_str().unwrap()).unwrap(),
        ));
        let mut reader = decoder.read_info().unwrap();
        let mut rgb = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut rgb).unwrap();
        assert_eq!((info.width, info.height, info.color_type), (256, 256, png::ColorType::Rgb));
        let (mut inked, mut compared) = (0, 0);
        for (p, &c) in rgb.chunks(3).zip(page.pixels()) {
            if p == [0x40, 0xc0, 0x40] {
                continue; // a free rectangle's outline
            }
            compared += 1;
            assert_eq!(p[0] as u32, 0x10 + c as u32 * 0xef / 255, "a page texel of coverage {c}");
            inked += (c > 0) as usize;
        }
        assert!(compared > 256 * 200 && inked > 1000, "{compared} texels compared, {inked} inked");
    }

    let bad = tmp("bad.ttf");
    std::fs::write(&bad, b"\x00\x01\x00\x00 this is not really a font").unwrap();
    for font in [bad.to_str().unwrap(), "/definitely/not/here.ttf"] {
        let out = kerf(&["atlas", "--font", font]);
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim().lines().count(), 1, "one-line error, got: {err}");
        assert!(err.starts_with("kerf: error:"));
    }
}

#[test]
fn profile_on_the_gpu_reports_uploads_and_plots() {
    let plot = tmp("plot.png");
    let out = kerf(&[
        "profile",
        "--backend",
        "wgpu",
        "--workload",
        "text-stream",
        "--frames",
        "5",
        "--json",
        "--plot",
        plot.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "needs a wgpu adapter (lavapipe: apt-get install mesa-vulkan-drivers): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["backend"], "wgpu");
    assert_eq!(v["skipped"], 0);
    // The GPU side of the frame (submit to done) beside prepare; on the CPU
    // backend it is absent.
    let done = v["gpu_done_median_ns"].as_u64().expect("GPU frame time");
    assert!(done > 0);
    let cpu = kerf(&["profile", "--workload", "text-stream", "--frames", "3", "--json"]);
    let cpu: serde_json::Value = serde_json::from_slice(&cpu.stdout).unwrap();
    assert!(cpu["gpu_done_median_ns"].is_null());
    let calls = v["upload_calls_per_frame"].as_f64().unwrap();
    assert!(
        calls > 0.0 && calls <= v["pages"].as_f64().unwrap(),
        "at most one upload per page per frame: {calls}"
    );
    assert_eq!(&std::fs::read(&plot).unwrap()[1..4], b"PNG");
}

#[test]
fn profile_json_reports_raster_bytes_and_per_glyph_uploads_stay_near_them() {
    let mut per_mode = Vec::new();
    for uploads in ["glyphs", "dirty-rect"] {
        let out = kerf(&[
            "profile",
            "--backend",
            "wgpu",
            "--workload",
            "cjk-churn",
            "--frames",
            "12",
            "--page-size",
            "512",
            "--uploads",
            uploads,
            "--json",
        ]);
        assert!(
            out.status.success(),
            "needs a wgpu adapter (lavapipe: apt-get install mesa-vulkan-drivers): {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["uploads"], uploads);
        let raster = v["raster_bytes_per_frame"].as_f64().unwrap();
        let upload = v["upload_bytes_per_frame"].as_f64().unwrap();
        assert!(raster > 10_000.0, "the churn rasterizes every frame: {raster}");
        per_mode.push((raster, upload));
    }
    let ((raster, glyphs), (raster2, dirty)) = (per_mode[0], per_mode[1]);
    assert_eq!(raster, raster2, "same workload");
    assert!(
        glyphs <= 1.25 * raster,
        "per-glyph uploads: {glyphs} bytes per frame for {raster} rasterized"
    );
    assert!(dirty > glyphs, "dirty rectangles carry more: {dirty} vs {glyphs}");
}

#[test]
fn a_short_soak_keeps_memory_under_the_budget_and_comes_back_down() {
    for backend in ["cpu", "wgpu"] {
        let frames = if backend == "cpu" { "2000" } else { "400" };
        let out = kerf(&[
            "soak",
            "--backend",
            backend,
            "--frames",
            frames,
            "--page-size",
            "256",
            "--idle",
            "50",
            "--json",
        ]);
        assert!(
            out.status.success(),
            "{backend}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["invariant_checks"].as_u64(), v["frames"].as_u64());
        assert!(v["evictions"].as_u64().unwrap() > 0, "{backend}: the soak must churn");
        assert!(v["peak_atlas_bytes"].as_u64() <= v["budget_bytes"].as_u64());
        assert_eq!(v["final_atlas_bytes"], v["floor_bytes"], "{backend}: back down to the floor");
        assert!(
            v["checks"].as_array().unwrap().iter().all(|c| c[1] == true),
            "{backend}: {}",
            v["checks"]
        );
    }
}

/// `kerf atlas` with a fallback emoji font writes the colour pages too, as
/// RGB pictures with colour in them.
#[test]
fn atlas_writes_colour_pages_for_emoji() {
    const EMOJI: &str = "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf";
    assert!(
        std::path::Path::new(EMOJI).exists(),
        "{EMOJI} missing; install Debian's fonts-noto-color-emoji"
    );
    let png = tmp("emoji-atlas.png");
    let dejavu = tmp("DejaVuSans.ttf");
    std::fs::write(&dejavu, dejavu::sans::regular()).unwrap();
    let out = kerf(&[
        "atlas",
        "--font",
        dejavu.to_str().unwrap(),
        "--font",
        EMOJI,
        "--text",
        "ab 🦀🎉🚀",
        "--sizes",
        "20,32",
        "--png",
        png.to_str().unwrap(),
        "--json",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["color_pages"], 1);
    assert_eq!(v["color_glyphs"], 6, "three emoji at two sizes");
    assert_eq!(v["glyphs"], 4, "'a' and 'b' at two sizes in the coverage pages");
    let colour = png.with_file_name("emoji-atlas-color-0.png");
    let mut reader =
        png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&colour).unwrap()))
            .read_info()
            .unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    reader.next_frame(&mut buf).unwrap();
    let saturated =
        buf.chunks(3).filter(|p| p.iter().max().unwrap() - p.iter().min().unwrap() > 100).count();
    assert!(
        saturated > 500,
        "the colour page has the emoji in colour ({saturated} saturated pixels)"
    );
}
