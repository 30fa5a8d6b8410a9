//! The one trait every online packer implements, its options, and the
//! bookkeeping (ids, padding, validation) they all share.

use crate::error::{AllocError, DeallocError, SizeError};
use crate::geom::Rect;
use crate::slots::{AllocId, Allocation, Iter, Live, Slots};
use alloc::vec::Vec;

/// The largest bin side, padding and request side accepted (2²⁴ px). Keeping
/// sides below this makes every coordinate sum fit `u32` and every area `u64`.
pub const MAX_SIDE: u32 = 1 << 24;

/// Options shared by every packer. `Default` gives the documented defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct PackerOptions {
    /// Empty pixels kept between any two rectangles (a gutter, so bilinear
    /// filtering of one glyph never reads its neighbour). Default 0.
    ///
    /// Implemented by reserving `w + padding` × `h + padding` for each request
    /// inside a bin enlarged by `padding` on the right and bottom, so rects
    /// touching the bin's right or bottom edge waste nothing.
    pub padding: u32,
    /// Allow turning a request by 90° when that fits better. Default off:
    /// glyph quads usually want their bitmap upright.
    pub allow_rotation: bool,
    /// Set aside free rectangles narrower or shorter than this many pixels
    /// (slivers most glyphs cannot use). Default 0: keep all.
    ///
    /// MaxRects lists only the maximal free rectangles of at least this size
    /// ([`MaxRects::maximal_free_rects`](crate::MaxRects::maximal_free_rects),
    /// [`Packer::free_rects`]) and searches the thinner ones only for a
    /// request narrower or shorter than it; it still keeps them, so a freed
    /// neighbour merges with them and no space is lost. Guillotine, Skyline
    /// and Shelf drop such leftovers from their free maps for good: under
    /// churn that space is lost (docs/packing.md).
    pub min_free_size: u32,
}

/// The vocabulary every kerf packer shares (MaxRects, Skyline, Guillotine, Shelf).
///
/// All methods leave the packer unchanged when they return an error.
pub trait Packer {
    /// Places a `w × h` rectangle, or says why not.
    fn allocate(&mut self, w: u32, h: u32) -> Result<Allocation, AllocError>;
    /// Frees an allocation so its space can be reused. Freeing the last live
    /// allocation always gives back the whole, unfragmented bin.
    fn deallocate(&mut self, id: AllocId) -> Result<(), DeallocError>;
    /// The live allocation an id names, if it is still live.
    fn get(&self, id: AllocId) -> Option<Allocation>;
    /// Frees everything; every id handed out so far becomes stale.
    fn clear(&mut self);
    /// Enlarges the bin to `w × h` (never shrinks it); live allocations stay where they are.
    fn grow(&mut self, w: u32, h: u32) -> Result<(), SizeError>;
    /// The bin's size `(width, height)`.
    fn size(&self) -> (u32, u32);
    /// Sum of the requested areas of live allocations (padding not counted).
    fn used_area(&self) -> u64;
    /// `used_area` over the bin's area, in `0.0..=1.0`.
    fn occupancy(&self) -> f64 {
        let (w, h) = self.size();
        self.used_area() as f64 / (w as f64 * h as f64)
    }
    /// Number of live allocations.
    fn len(&self) -> usize;
    /// True when nothing is allocated.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The live allocations, in slot order.
    fn iter(&self) -> Iter<'_>;
    /// The free space as this packer tracks it, clipped to the bin (for
    /// pictures and checks; space a packer has given up on is not listed).
    fn free_rects(&self) -> Vec<Rect>;
    /// The options this packer was made with.
    fn options(&self) -> &PackerOptions;
}

/// State every packer keeps: bin size, options, live allocations.
pub(crate) struct Core {
    pub width: u32,
    pub height: u32,
    pub opts: PackerOptions,
    pub slots: Slots,
    pub used: u64,
}

pub(crate) fn check_size(w: u32, h: u32, padding: u32) -> Result<(), SizeError> {
    if w == 0 || h == 0 {
        return Err(SizeError::ZeroSize);
    }
    if w > MAX_SIDE || h > MAX_SIDE || padding > MAX_SIDE {
        return Err(SizeError::TooLarge { max: MAX_SIDE });
    }
    Ok(())
}

impl Core {
    pub fn new(width: u32, height: u32, opts: PackerOptions) -> Result<Self, SizeError> {
        check_size(width, height, opts.padding)?;
        Ok(Core { width, height, opts, slots: Slots::new(), used: 0 })
    }

    /// The packing area including the padding margin on the right and bottom.
    pub fn inner(&self) -> (u32, u32) {
        (self.width + self.opts.padding, self.height + self.opts.padding)
    }

    /// Validates a request and returns its padded size.
    pub fn request(&self, w: u32, h: u32) -> Result<(u32, u32), AllocError> {
        if w == 0 || h == 0 {
            return Err(AllocError::ZeroSize { w, h });
        }
        let too_large = AllocError::TooLarge { w, h, bin_w: self.width, bin_h: self.height };
        if w > MAX_SIDE || h > MAX_SIDE {
            return Err(too_large);
        }
        let (pw, ph) = (w + self.opts.padding, h + self.opts.padding);
        let (iw, ih) = self.inner();
        let upright = pw <= iw && ph <= ih;
        let turned = self.opts.allow_rotation && ph <= iw && pw <= ih;
        if upright || turned {
            Ok((pw, ph))
        } else {
            Err(too_large)
        }
    }

    /// Records a placement made for a `w × h` request.
    pub fn commit(&mut self, w: u32, h: u32, slot: Rect, rotated: bool) -> Allocation {
        let (rw, rh) = if rotated { (h, w) } else { (w, h) };
        self.used += w as u64 * h as u64;
        self.slots.insert(Rect::new(slot.x, slot.y, rw, rh), rotated, slot)
    }

    /// Forgets a live allocation and returns its slot.
    pub fn release(&mut self, id: AllocId) -> Result<Rect, DeallocError> {
        let Live { alloc, slot } = self.slots.remove(id)?;
        self.used -= alloc.rect.area();
        Ok(slot)
    }

    pub fn clear(&mut self) {
        self.slots.clear();
        self.used = 0;
    }

    /// Validates and applies a new size; returns the old inner size.
    pub fn grow(&mut self, w: u32, h: u32) -> Result<(u32, u32), SizeError> {
        check_size(w, h, self.opts.padding)?;
        if w < self.width || h < self.height {
            return Err(SizeError::Shrink { w: self.width, h: self.height });
        }
        let old = self.inner();
        self.width = w;
        self.height = h;
        Ok(old)
    }

    /// Clips free rects to the visible bin (dropping the padding margin).
    pub fn clip(&self, rects: impl Iterator<Item = Rect>) -> Vec<Rect> {
        let bin = Rect::new(0, 0, self.width, self.height);
        rects.filter_map(|r| r.intersection(&bin)).collect()
    }
}

/// Implements [`Packer`] for a type with a `core: Core` field and the engine
/// methods `place(pw, ph) -> Option<(slot, rotated)>`, `release_slot(slot)`,
/// `reset()`, `extend(old_inner)` and `free_space() -> impl Iterator<Item = Rect>`.
macro_rules! impl_packer {
    ($ty:ty) => {
        impl $crate::Packer for $ty {
            fn allocate(
                &mut self, w: u32, h: u32,
            ) -> Result<$crate::Allocation, $crate::AllocError> {
                let (pw, ph) = self.core.request(w, h)?;
                let (slot, rotated) =
                    self.place(pw, ph).ok_or($crate::AllocError::NoSpace { w, h })?;
                Ok(self.core.commit(w, h, slot, rotated))
            }
            fn deallocate(&mut self, id: $crate::AllocId) -> Result<(), $crate::DeallocError> {
                let slot = self.core.release(id)?;
                if self.core.slots.len() == 0 {
                    // The last allocation is gone: the whole bin is free again,
                    // however fragmented the packer's free list had become.
                    self.reset();
                } else {
                    self.release_slot(slot);
                }
                Ok(())
            }
            fn get(&self, id: $crate::AllocId) -> Option<$crate::Allocation> {
                self.core.slots.get(id).map(|l| l.alloc)
            }
            fn clear(&mut self) {
                self.core.clear();
                self.reset();
            }
            fn grow(&mut self, w: u32, h: u32) -> Result<(), $crate::SizeError> {
                let old = self.core.grow(w, h)?;
                if old != self.core.inner() {
                    self.extend(old);
                }
                Ok(())
            }
            fn size(&self) -> (u32, u32) {
                (self.core.width, self.core.height)
            }
            fn used_area(&self) -> u64 {
                self.core.used
            }
            fn len(&self) -> usize {
                self.core.slots.len()
            }
            fn iter(&self) -> $crate::Iter<'_> {
                $crate::Iter::new(&self.core.slots)
            }
            fn free_rects(&self) -> alloc::vec::Vec<$crate::Rect> {
                self.core.clip(self.free_space())
            }
            fn options(&self) -> &$crate::PackerOptions {
                &self.core.opts
            }
        }
    };
}
pub(crate) use impl_packer;

#[cfg(test)]
mod tests {
    use super::*;

    /// Sides and padding up to `MAX_SIDE` are accepted, one more is not.
    #[test]
    fn sizes_are_checked_at_the_limit() {
        for (w, h, p) in [(MAX_SIDE, 1, 0), (1, MAX_SIDE, 0), (1, 1, MAX_SIDE)] {
            assert_eq!(check_size(w, h, p), Ok(()), "{w}x{h} padding {p}");
        }
        for (w, h, p) in [(MAX_SIDE + 1, 1, 0), (1, MAX_SIDE + 1, 0), (1, 1, MAX_SIDE + 1)] {
            assert_eq!(check_size(w, h, p), Err(SizeError::TooLarge { max: MAX_SIDE }));
        }
        assert_eq!(check_size(0, 5, 0), Err(SizeError::ZeroSize));
        assert_eq!(check_size(5, 0, 0), Err(SizeError::ZeroSize));
    }
}
