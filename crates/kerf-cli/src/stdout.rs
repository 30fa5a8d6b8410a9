//! Standard output that a closed pipe ends quietly (`kerf render --json |
//! head`): `println!` would panic on it.

/// Writes one line to standard output. When the reader has gone (a broken
/// pipe) the process ends quietly with status 0, as `head`'s writers do; any
/// other write error ends it with a one-line error and status 2.
pub fn line(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = writeln!(out, "{args}").and_then(|()| out.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("kerf: error: standard output: {e}");
        std::process::exit(2);
    }
}

/// `println!` through [`line`].
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::stdout::line(format_args!($($arg)*))
    };
}
