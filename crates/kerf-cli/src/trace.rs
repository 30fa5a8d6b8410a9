//! Reading glyph-size traces: one `w h` per line, blank lines and `#` comments ignored.

use std::fmt;

/// A line of a trace that is not a positive `w h` pair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong with it.
    pub reason: String,
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.reason)
    }
}

impl std::error::Error for TraceError {}

/// Parses a trace; every size is at least 1×1.
pub fn parse(text: &str) -> Result<Vec<(u32, u32)>, TraceError> {
    let mut sizes = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let err = |reason: String| TraceError { line: i + 1, reason };
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [w, h] = fields.as_slice() else {
            return Err(err(format!("expected `w h`, got `{line}`")));
        };
        let side = |s: &str| -> Result<u32, TraceError> {
            match s.parse::<i64>() {
                Ok(v) if v > 0 && v <= u32::MAX as i64 => Ok(v as u32),
                Ok(v) => Err(err(format!("sizes must be positive and below 2^32, got {v}"))),
                Err(_) => Err(err(format!("`{s}` is not an integer"))),
            }
        };
        sizes.push((side(w)?, side(h)?));
    }
    Ok(sizes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_blank_lines_are_skipped() {
        assert_eq!(parse("# header\n3 4\n\n  5 6  # trailing\n").unwrap(), vec![(3, 4), (5, 6)]);
    }

    #[test]
    fn bad_lines_are_named() {
        for (text, line) in
            [("1 2\n3\n", 2), ("1 2 3\n", 1), ("\n\nx 2\n", 3), ("1 -2\n", 1), ("0 4\n", 1)]
        {
            assert_eq!(parse(text).unwrap_err().line, line, "{text:?}");
        }
    }
}
