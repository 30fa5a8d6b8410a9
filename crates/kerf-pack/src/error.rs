//! Typed errors. Every failing call leaves the packer exactly as it was.

use core::fmt;

/// Why [`Packer::allocate`](crate::Packer::allocate) placed nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AllocError {
    /// A side of the request is zero.
    ZeroSize {
        /// Requested width.
        w: u32,
        /// Requested height.
        h: u32,
    },
    /// The request (plus padding) is larger than the bin in some orientation
    /// it may take, so it can never fit, whatever is freed.
    TooLarge {
        /// Requested width.
        w: u32,
        /// Requested height.
        h: u32,
        /// Bin width.
        bin_w: u32,
        /// Bin height.
        bin_h: u32,
    },
    /// The bin has no free region large enough right now; freeing or growing may help.
    NoSpace {
        /// Requested width.
        w: u32,
        /// Requested height.
        h: u32,
    },
}

/// Why [`Packer::deallocate`](crate::Packer::deallocate) freed nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeallocError {
    /// The id was made by another packer.
    ForeignId,
    /// The id's slot was already freed (double free), cleared, or reused since.
    StaleId,
    /// The id names a slot this packer never handed out.
    UnknownId,
}

/// Why a packer could not be created or grown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SizeError {
    /// A side is zero.
    ZeroSize,
    /// A side exceeds [`MAX_SIDE`](crate::MAX_SIDE), or padding does.
    TooLarge {
        /// The largest side allowed.
        max: u32,
    },
    /// `grow` was asked for a size smaller than the current one in some dimension.
    Shrink {
        /// Current width.
        w: u32,
        /// Current height.
        h: u32,
    },
}

impl fmt::Display for AllocError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            AllocError::ZeroSize { w, h } => {
                write!(f, "cannot allocate an empty rectangle ({w}x{h})")
            }
            AllocError::TooLarge { w, h, bin_w, bin_h } => {
                write!(f, "a {w}x{h} rectangle (with padding) can never fit a {bin_w}x{bin_h} bin")
            }
            AllocError::NoSpace { w, h } => write!(f, "no free space for a {w}x{h} rectangle"),
        }
    }
}

impl fmt::Display for DeallocError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DeallocError::ForeignId => "allocation id belongs to another packer",
            DeallocError::StaleId => "allocation id was already freed (double free or cleared)",
            DeallocError::UnknownId => "allocation id was never handed out by this packer",
        })
    }
}

impl fmt::Display for SizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            SizeError::ZeroSize => f.write_str("bin sides must be at least 1 pixel"),
            SizeError::TooLarge { max } => {
                write!(f, "bin sides and padding must be at most {max} pixels")
            }
            SizeError::Shrink { w, h } => write!(f, "a bin can only grow; it is {w}x{h}"),
        }
    }
}

impl core::error::Error for AllocError {}
impl core::error::Error for DeallocError {}
impl core::error::Error for SizeError {}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    /// Each message says what went wrong with the figures a user needs.
    #[test]
    fn messages_name_the_sizes() {
        let cases: [(&dyn fmt::Display, &[&str]); 9] = [
            (&AllocError::ZeroSize { w: 0, h: 7 }, &["empty", "0x7"]),
            (&AllocError::TooLarge { w: 9, h: 8, bin_w: 4, bin_h: 5 }, &["9x8", "4x5", "never"]),
            (&AllocError::NoSpace { w: 3, h: 2 }, &["no free space", "3x2"]),
            (&DeallocError::ForeignId, &["another packer"]),
            (&DeallocError::StaleId, &["already freed"]),
            (&DeallocError::UnknownId, &["never handed out"]),
            (&SizeError::ZeroSize, &["at least 1"]),
            (&SizeError::TooLarge { max: 65536 }, &["at most 65536"]),
            (&SizeError::Shrink { w: 12, h: 34 }, &["only grow", "12x34"]),
        ];
        for (err, words) in cases {
            let text = err.to_string();
            for w in words {
                assert!(text.contains(w), "{text:?} lacks {w:?}");
            }
        }
    }
}
