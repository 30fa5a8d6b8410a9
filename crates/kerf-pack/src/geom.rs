//! Axis-aligned integer rectangles in bin coordinates (origin top-left, y down).

/// An axis-aligned rectangle: `x, y` is the top-left corner, `w, h` the size in pixels.
///
/// Rectangles are half-open: a rect covers columns `x..x + w` and rows `y..y + h`,
/// so two rects that share an edge do not overlap.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Rect {
    /// Left edge.
    pub x: u32,
    /// Top edge.
    pub y: u32,
    /// Width.
    pub w: u32,
    /// Height.
    pub h: u32,
}

impl Rect {
    /// A rectangle at `(x, y)` of size `w × h`.
    pub const fn new(x: u32, y: u32, w: u32, h: u32) -> Self {
        Rect { x, y, w, h }
    }

    /// One past the right-most column (`x + w`).
    pub const fn right(&self) -> u32 {
        self.x + self.w
    }

    /// One past the bottom row (`y + h`).
    pub const fn bottom(&self) -> u32 {
        self.y + self.h
    }

    /// Area in pixels, without overflow.
    pub const fn area(&self) -> u64 {
        self.w as u64 * self.h as u64
    }

    /// True when the rect covers no pixel.
    pub const fn is_empty(&self) -> bool {
        self.w == 0 || self.h == 0
    }

    /// True when `other` lies entirely inside `self` (edges may coincide).
    pub const fn contains(&self, other: &Rect) -> bool {
        other.x >= self.x
            && other.y >= self.y
            && other.right() <= self.right()
            && other.bottom() <= self.bottom()
    }

    /// True when the two rects share at least one pixel.
    pub const fn intersects(&self, other: &Rect) -> bool {
        self.x < other.right()
            && other.x < self.right()
            && self.y < other.bottom()
            && other.y < self.bottom()
    }

    /// The shared pixels of two rects, if any.
    pub fn intersection(&self, other: &Rect) -> Option<Rect> {
        if !self.intersects(other) {
            return None;
        }
        let x = self.x.max(other.x);
        let y = self.y.max(other.y);
        Some(Rect::new(
            x,
            y,
            self.right().min(other.right()) - x,
            self.bottom().min(other.bottom()) - y,
        ))
    }

    /// True when the rects overlap or share a boundary segment or corner
    /// (closed rectangles intersect).
    pub(crate) const fn touches(&self, other: &Rect) -> bool {
        self.x <= other.right()
            && other.x <= self.right()
            && self.y <= other.bottom()
            && other.y <= self.bottom()
    }

    /// Length of the boundary shared by two rects that do not overlap
    /// (the contact-point score of MaxRects-CP).
    pub(crate) fn common_edge(&self, other: &Rect) -> u32 {
        fn overlap(a0: u32, a1: u32, b0: u32, b1: u32) -> u32 {
            a1.min(b1).saturating_sub(a0.max(b0))
        }
        let mut len = 0;
        if self.x == other.right() || self.right() == other.x {
            len += overlap(self.y, self.bottom(), other.y, other.bottom());
        }
        if self.y == other.bottom() || self.bottom() == other.y {
            len += overlap(self.x, self.right(), other.x, other.right());
        }
        len
    }

    /// The parts of `self` outside `hole`, as up to four disjoint rects:
    /// full-height strips left and right of the hole, then the pieces above
    /// and below it.
    pub(crate) fn subtract(&self, hole: &Rect, out: &mut impl FnMut(Rect)) {
        let Some(cut) = self.intersection(hole) else {
            out(*self);
            return;
        };
        if cut.x > self.x {
            out(Rect::new(self.x, self.y, cut.x - self.x, self.h));
        }
        if cut.right() < self.right() {
            out(Rect::new(cut.right(), self.y, self.right() - cut.right(), self.h));
        }
        if cut.y > self.y {
            out(Rect::new(cut.x, self.y, cut.w, cut.y - self.y));
        }
        if cut.bottom() < self.bottom() {
            out(Rect::new(cut.x, cut.bottom(), cut.w, self.bottom() - cut.bottom()));
        }
    }

    /// The rect with width and height swapped, at the same corner.
    pub const fn transposed(&self) -> Rect {
        Rect::new(self.x, self.y, self.h, self.w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    /// The contact score of MaxRects-CP: the length two rects share on each
    /// side, zero when they only meet at a corner or do not meet.
    #[test]
    fn common_edge_is_the_shared_boundary() {
        let a = Rect::new(10, 10, 10, 10);
        for (b, len) in [
            (Rect::new(20, 12, 5, 5), 5),  // right of a
            (Rect::new(2, 15, 8, 30), 5),  // left, running past a's bottom
            (Rect::new(12, 20, 5, 5), 5),  // below
            (Rect::new(0, 0, 40, 10), 10), // above, wider than a
            (Rect::new(20, 20, 5, 5), 0),  // corner only
            (Rect::new(30, 12, 5, 5), 0),  // apart, rows overlapping
            (Rect::new(12, 0, 5, 4), 0),   // apart, columns overlapping
        ] {
            assert_eq!(a.common_edge(&b), len, "{b:?}");
            assert_eq!(b.common_edge(&a), len, "{b:?} (swapped)");
        }
    }

    #[test]
    fn subtract_covers_the_difference_exactly() {
        let a = Rect::new(0, 0, 10, 8);
        let hole = Rect::new(3, 2, 4, 9);
        let mut parts = Vec::new();
        a.subtract(&hole, &mut |r| parts.push(r));
        let area: u64 = parts.iter().map(Rect::area).sum();
        assert_eq!(area, a.area() - a.intersection(&hole).unwrap().area());
        for (i, p) in parts.iter().enumerate() {
            assert!(a.contains(p));
            assert!(!p.intersects(&hole));
            for q in &parts[i + 1..] {
                assert!(!p.intersects(q));
            }
        }
    }

    #[test]
    fn edges_touch_but_do_not_intersect() {
        let a = Rect::new(0, 0, 4, 4);
        let b = Rect::new(4, 1, 2, 2);
        assert!(!a.intersects(&b));
        assert!(a.touches(&b));
        assert_eq!(a.common_edge(&b), 2);
    }
}
