//! Test-only: reading the font files of Debian packages that `.ci/run`
//! installs, for the font room's unit tests.

/// The bytes of the font file at `path`, from Debian's `package`; a panic
/// naming the package to install when it is missing.
pub(crate) fn system_font(path: &str, package: &str) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}; install Debian's {package}"))
}
