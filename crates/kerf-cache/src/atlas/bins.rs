//! How many sub-pixel bins an atlas draws with now: the configured number
//! while its pages hold what the frames ask for, fewer under pressure.
//!
//! Every bin of a glyph is a bitmap of its own: at the default four bins a
//! frame of text can need up to four times the room it needs at one. When a
//! glyph finds no room even after evicting everything unprotected, the bins
//! are halved (down to one) from the next frame on (a frame's glyphs all
//! snap to the same bins), so the next misses take one
//! bitmap where they took up to four, and a glyph already cached at a bin
//! of the fewer is found again instead of rasterized anew. Requests drawn
//! at fewer bins than configured are counted as degraded.
//!
//! After [`FIRST_WAIT`] frames with room for everything, the bins double
//! again. Where the pressure comes back within that wait of a rise, the wait
//! doubles (up to [`MAX_WAIT`]), so an atlas that is too small for its text
//! settles at the bins it can hold and tries a rise only now and then.

/// Frames without pressure before the bins double.
pub(crate) const FIRST_WAIT: u64 = 120;
/// The longest wait before the bins double (about two minutes at 60 fps).
pub(crate) const MAX_WAIT: u64 = 7680;

/// The atlas's bins now and when they last changed.
#[derive(Clone, Debug)]
pub(crate) struct Bins {
    configured: u32,
    now: u32,
    /// The last frame a glyph found no room.
    last_full: Option<u64>,
    /// Whether the bins halve when the next frame starts.
    halve: bool,
    /// The frame the bins last doubled.
    raised_at: Option<u64>,
    /// Frames without pressure before the next rise.
    wait: u64,
}

impl Bins {
    /// The configured bins, all in use.
    pub(crate) fn new(configured: u32) -> Bins {
        let configured = configured.max(1);
        Bins {
            configured,
            now: configured,
            last_full: None,
            halve: false,
            raised_at: None,
            wait: FIRST_WAIT,
        }
    }

    /// The bins this frame's glyphs are snapped to.
    #[inline]
    pub(crate) fn now(&self) -> u32 {
        self.now
    }

    /// The bins the atlas was configured with.
    #[inline]
    pub(crate) fn configured(&self) -> u32 {
        self.configured
    }

    /// A glyph found no room in `frame`: the bins halve when the next
    /// frame starts.
    pub(crate) fn full(&mut self, frame: u64) {
        if self.last_full == Some(frame) {
            return;
        }
        self.last_full = Some(frame);
        self.halve = true;
        if let Some(raised) = self.raised_at.take() {
            if frame.saturating_sub(raised) < self.wait {
                self.wait = (self.wait * 2).min(MAX_WAIT);
            }
        }
    }

    /// Frame `frame` starts: the bins halve after a frame that found no
    /// room, and double when the last pressure and the last rise are a wait
    /// back.
    pub(crate) fn start(&mut self, frame: u64) {
        if std::mem::take(&mut self.halve) {
            self.now = (self.now / 2).max(1);
            return;
        }
        if self.now >= self.configured {
            return;
        }
        let wait = self.wait;
        let calm = |since: Option<u64>| since.is_none_or(|f| frame >= f.saturating_add(wait));
        if calm(self.last_full) && calm(self.raised_at) {
            if self.raised_at.is_some() {
                // The last rise held a whole wait: the next waits the first wait.
                self.wait = FIRST_WAIT;
            }
            self.now = (self.now * 2).min(self.configured);
            self.raised_at = Some(frame);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pressure_halves_once_a_frame_from_the_next_frame_down_to_one() {
        let mut b = Bins::new(4);
        assert_eq!((b.now(), b.configured()), (4, 4));
        b.full(10);
        b.full(10);
        assert_eq!(b.now(), 4, "the frame keeps its bins");
        b.start(11);
        assert_eq!(b.now(), 2, "once a frame");
        b.full(11);
        b.start(12);
        assert_eq!(b.now(), 1);
        b.full(12);
        b.start(13);
        assert_eq!(b.now(), 1, "never below one");
    }

    #[test]
    fn calm_frames_double_the_bins_and_pressure_soon_after_a_rise_waits_longer() {
        let mut b = Bins::new(4);
        b.full(10);
        b.start(11);
        b.full(11);
        b.start(12);
        for f in 13..11 + FIRST_WAIT {
            b.start(f);
            assert_eq!(b.now(), 1, "frame {f}");
        }
        b.start(11 + FIRST_WAIT);
        assert_eq!(b.now(), 2, "a rise after the wait");
        // Pressure right after the rise: the wait doubles.
        b.full(20 + FIRST_WAIT);
        b.start(21 + FIRST_WAIT);
        assert_eq!(b.now(), 1);
        b.start(20 + 2 * FIRST_WAIT);
        assert_eq!(b.now(), 1, "the wait is longer now");
        b.start(20 + 3 * FIRST_WAIT);
        assert_eq!(b.now(), 2);
        // Calm on: another rise a wait after the last one, to the configured bins.
        b.start(20 + 5 * FIRST_WAIT);
        assert_eq!(b.now(), 4);
        b.start(20 + 9 * FIRST_WAIT);
        assert_eq!(b.now(), 4, "never above the configured bins");
    }

    #[test]
    fn the_wait_stops_growing_at_its_cap() {
        let mut b = Bins::new(2);
        let mut frame = 1;
        for _ in 0..20 {
            b.full(frame);
            frame += 1;
            b.start(frame);
            while b.now() < 2 {
                frame += 1;
                b.start(frame);
            }
            frame += 1;
        }
        assert_eq!(b.wait, MAX_WAIT);
    }
}
