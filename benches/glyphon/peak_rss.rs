//! The process's peak resident set, for the memory runs of the glyphon
//! benches and `examples/app_memory.rs` (which includes this file by path).

/// This process's peak resident set in KiB (Linux's VmHWM), 0 where unknown.
pub fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}
