//! The zoom policy: an area that shows the same content as at the last
//! `prepare` at another size (pinch-zoom, an animated size) is drawn from
//! cached size steps through the sampled path, so a zoom costs a few
//! rasters per step instead of every glyph at every frame's size; once its
//! size rests, it is drawn exactly again (texel for pixel, as if it had
//! never zoomed).

use crate::prepare::area::{Content, TextArea, TextContent};
use kerf_cache::{GlyphRun, GlyphSize};

/// How areas whose size changes between frames are drawn
/// ([`TextRenderer::set_zoom_policy`](crate::TextRenderer::set_zoom_policy)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZoomPolicy {
    /// Every frame at its exact size (every glyph misses while the size moves).
    Exact,
    /// While an area shows what it showed at the last `prepare` at another
    /// size, each glyph is drawn from a raster at the nearest of `per_octave`
    /// geometric size steps per doubling, scaled to its size with filtering
    /// (at most 2^(1/(2·per_octave)) off: 4.4% with 8 steps); at rest, exact.
    Steps {
        /// Size steps per doubling (1 to 64).
        per_octave: u32,
    },
    /// [`Steps`](Self::Steps) on a GPU. On a software adapter (wgpu's
    /// `DeviceType::Cpu`: lavapipe, llvmpipe, WARP), whose filtered samples
    /// are computed on the CPU fragment by fragment, a zooming area without
    /// a transform whose glyphs repeat (at most a quarter of them distinct:
    /// prose in an alphabet) is drawn as [`Exact`](Self::Exact) draws it:
    /// its few distinct glyphs rasterized at each size cost less than
    /// sampling every drawn one (docs/performance.md, "Zooming on a
    /// software adapter"). Other zooming areas there (CJK text, a transform,
    /// images) take the steps.
    Auto {
        /// Size steps per doubling (1 to 64) where steps are taken.
        per_octave: u32,
    },
}

impl Default for ZoomPolicy {
    /// [`ZoomPolicy::Auto`] with 8 steps an octave: the frame after the
    /// size stops moving is exact rendering, so nothing at rest changes.
    fn default() -> Self {
        ZoomPolicy::Auto { per_octave: 8 }
    }
}

impl ZoomPolicy {
    /// The size step nearest `px` (the exact size with [`ZoomPolicy::Exact`]).
    pub fn step_px(self, px: f32) -> f32 {
        match self {
            ZoomPolicy::Exact => px,
            ZoomPolicy::Steps { per_octave } | ZoomPolicy::Auto { per_octave } => {
                let k = per_octave.clamp(1, 64) as f32;
                if !(px.is_finite() && px > 0.0) {
                    return px;
                }
                ((px.log2() * k).round() / k).exp2()
            }
        }
    }
}

/// What each area showed at the last `prepare`, by area index: its
/// content's signature and its size.
#[derive(Debug, Default)]
pub(crate) struct ZoomTracker {
    last: Vec<Shown>,
    next: Vec<Shown>,
    /// The keys of an area's glyphs, sorted to count the distinct ones.
    keys: Vec<u64>,
    /// Contents read for their signature so far (what the tests count).
    #[cfg(test)]
    reads: usize,
}

/// What an area showed: its content's signature, its size, whether its
/// glyphs repeat (worked out once per content, when a software adapter
/// asks), and, for a [`GlyphRun`], the run itself: the same run shown again
/// has the same signature without its glyphs being read (held here, its
/// identity cannot pass to another run meanwhile).
#[derive(Clone, Debug, Default)]
struct Shown {
    sig: u64,
    size: f32,
    repeats: Option<bool>,
    run: Option<GlyphRun>,
}

/// Whether `area` shows `run` (or a clone of it).
fn shows(area: &TextArea<'_>, run: &GlyphRun) -> bool {
    matches!(area.content, TextContent::Run(r) if r.same_as(run))
}

/// The run `area` shows, if it shows one (kept to know it again).
fn run_of(area: &TextArea<'_>) -> Option<GlyphRun> {
    match area.content {
        TextContent::Run(r) => Some(r.clone()),
        _ => None,
    }
}

impl ZoomTracker {
    /// Starts a `prepare`.
    pub(crate) fn begin(&mut self) {
        self.next.clear();
    }

    /// True when area `n` (the `n`th of this `prepare`) is zooming: it shows
    /// what area `n` showed at the last `prepare` (the same text, glyphs or
    /// images, whatever their positions) at another size. Another content
    /// at index `n` (a scrolled list, a new string) is not a zoom. Records
    /// what it shows. The content is hashed only when the size moved (or
    /// index `n` is new): a frame at rest reads no text; at rest it keeps
    /// the hash it had.
    pub(crate) fn zooming(&mut self, n: usize, area: &TextArea<'_>) -> bool {
        let size = size_of(area);
        // (Each area's record is read once a `prepare`: taken, not copied,
        // so a run held moves on without its count being touched.)
        let (now, zooming) = match self.last.get_mut(n).map(std::mem::take) {
            Some(mut last) if last.size == size => {
                // At rest the signature is kept unread; a run no longer
                // shown is not held.
                if !last.run.as_ref().is_some_and(|r| shows(area, r)) {
                    last.run = None;
                }
                (last, false)
            }
            Some(last) => {
                // The signature recorded when `area` shows the run recorded,
                // else its content's, read.
                let (sig, run) = match last.run {
                    Some(run) if shows(area, &run) => (last.sig, Some(run)),
                    _ => self.read(area),
                };
                let same = sig == last.sig;
                let repeats = if same { last.repeats } else { None };
                let now = Shown { sig, size, repeats, run };
                (now, same && last.size > 0.0 && size > 0.0)
            }
            None => {
                let (sig, run) = self.read(area);
                (Shown { sig, size, repeats: None, run }, false)
            }
        };
        // (Areas come in order: one push each.)
        if self.next.len() == n {
            self.next.push(now);
        } else {
            if self.next.len() < n {
                self.next.resize(n + 1, Shown::default());
            }
            self.next[n] = now;
        }
        zooming
    }

    /// `area`'s content read: its signature, and the run it shows (held to
    /// know it again unread).
    fn read(&mut self, area: &TextArea<'_>) -> (u64, Option<GlyphRun>) {
        #[cfg(test)]
        {
            self.reads += 1;
        }
        (signature(area), run_of(area))
    }

    /// True when area `n`, zooming in this `prepare` under `policy`, is
    /// drawn from size steps; false when it is drawn at its exact size
    /// ([`ZoomPolicy::Exact`], or [`ZoomPolicy::Auto`] on a `software`
    /// adapter for an untransformed area whose glyphs repeat). Call after
    /// [`zooming`](Self::zooming) returned true for `n`.
    pub(crate) fn in_steps(
        &mut self, n: usize, area: &TextArea<'_>, policy: ZoomPolicy, software: bool,
    ) -> bool {
        match policy {
            ZoomPolicy::Exact => false,
            ZoomPolicy::Steps { .. } => true,
            ZoomPolicy::Auto { .. } if !software || area.transform.is_some() => true,
            ZoomPolicy::Auto { .. } => {
                let Some(shown) = self.next.get_mut(n) else { return true };
                let repeats = match shown.repeats {
                    Some(r) => r,
                    None => {
                        let r = repeats(area, &mut self.keys);
                        shown.repeats = Some(r);
                        r
                    }
                };
                !repeats
            }
        }
    }

    /// Ends a `prepare`: its sizes become the last ones.
    pub(crate) fn end(&mut self) {
        std::mem::swap(&mut self.last, &mut self.next);
    }
}

/// True when an area's glyphs repeat: at most a quarter of them (of its
/// characters, for a string) are distinct, so rasterizing the distinct ones
/// at a new size serves four drawn glyphs each. Images never repeat (their
/// steps are rescaled copies, kept).
fn repeats(area: &TextArea<'_>, keys: &mut Vec<u64>) -> bool {
    keys.clear();
    match &area.content.as_slices() {
        Content::Text(spec) => keys.extend(spec.text.chars().map(u64::from)),
        Content::Glyphs(glyphs) => {
            keys.extend(glyphs.iter().map(|g| u64::from(g.font.index()) << 16 | u64::from(g.glyph)))
        }
        Content::Images(_) => return false,
    }
    let total = keys.len();
    keys.sort_unstable();
    keys.dedup();
    total > 0 && keys.len() * 4 <= total
}

/// What an area shows, whatever its size and place: a hash (FNV-1a) of its
/// kind and its string and font, or its glyphs' fonts and ids, or its
/// images' sources and ids.
fn signature(area: &TextArea<'_>) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    let mut eat = |v: u64| {
        h ^= v;
        h = h.wrapping_mul(0x0100_0000_01b3);
    };
    match &area.content.as_slices() {
        Content::Text(spec) => {
            eat(1);
            eat(u64::from(spec.font.index()));
            spec.text.bytes().for_each(|b| eat(u64::from(b)));
        }
        Content::Glyphs(glyphs) => {
            eat(2);
            glyphs.iter().for_each(|g| eat(u64::from(g.font.index()) << 16 | u64::from(g.glyph)));
        }
        Content::Images(images) => {
            eat(3);
            images.iter().for_each(|i| eat(u64::from(i.source.index()) << 32 | u64::from(i.id)));
        }
    }
    h
}

/// An area's size for the policy: its text's size (a spec's, or its first
/// glyph's or image's) times its scale and its transform's largest stretch
/// (its on-screen size; a turn alone does not move it), as the glyph size
/// it asks for (1/64 px: a transform's rounding is not a zoom); 0 when it
/// has none.
fn size_of(area: &TextArea<'_>) -> f32 {
    let size = match area.content {
        // (Kept beside the run's reference: its glyphs are not read.)
        TextContent::Run(r) => r.first_size(),
        content => match content.as_slices() {
            Content::Text(spec) => spec.size,
            Content::Glyphs(g) => g.first().map_or(0.0, |g| g.size),
            Content::Images(i) => i.first().map_or(0.0, |i| i.size),
        },
    };
    let stretch = area.transform.map_or(1.0, |t| t.raster_scale());
    GlyphSize::from_px(size * area.scale * stretch, f32::MAX).map_or(0.0, GlyphSize::px)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Repeating glyphs: a quarter or fewer distinct, counted by font and
    /// id (the same id in four fonts is four glyphs), characters for a
    /// string; an empty area does not repeat.
    #[test]
    fn glyphs_repeat_when_a_quarter_or_fewer_are_distinct() {
        let mut cache = kerf_cache::GlyphCache::new(kerf_cache::CacheConfig::default()).unwrap();
        let fonts: Vec<kerf_cache::FontId> =
            (0..4).map(|_| cache.add_font(dejavu::sans::regular().to_vec()).unwrap()).collect();
        let g = |font, glyph| kerf_cache::PositionedGlyph {
            font,
            glyph,
            size: 16.0,
            x: 0.0,
            y: 0.0,
            color: [0; 4],
        };
        let mut keys = Vec::new();
        let mut of = |glyphs: &[kerf_cache::PositionedGlyph]| {
            repeats(&TextArea::glyphs(glyphs, 0.0, 0.0), &mut keys)
        };
        let two: Vec<_> = (0..8).map(|i| g(fonts[0], 10 + i % 2)).collect();
        assert!(of(&two), "8 glyphs, 2 distinct");
        let three: Vec<_> = (0..8).map(|i| g(fonts[0], 10 + i % 3)).collect();
        assert!(!of(&three), "8 glyphs, 3 distinct");
        let fonts4: Vec<_> = fonts.iter().map(|&f| g(f, 10)).collect();
        assert!(!of(&[fonts4.clone(), fonts4.clone()].concat()), "8 glyphs, 4 distinct by font");
        assert!(!of(&[]), "no glyphs");
        let spec = |text: &'static str| {
            let area = TextArea::text(kerf_cache::TextSpec::new(text, fonts[0], 16.0), 0.0, 0.0);
            repeats(&area, &mut Vec::new())
        };
        assert!(spec("abababab") && !spec("abcabcab") && !spec(""));
    }

    /// A zoom is the same content at another size, whether it comes as a
    /// run seen before (known by reference), a new run of the same glyphs
    /// or their slice; other glyphs, or a first sight, are not; at rest
    /// nothing zooms, and a run replaced at rest is not taken for the one
    /// it replaced.
    #[test]
    fn a_zoom_is_the_same_content_at_another_size() {
        let mut cache = kerf_cache::GlyphCache::new(kerf_cache::CacheConfig::default()).unwrap();
        let font = cache.add_font(dejavu::sans::regular().to_vec()).unwrap();
        let glyphs = |first: u16| -> Vec<kerf_cache::PositionedGlyph> {
            (0..6)
                .map(|i| kerf_cache::PositionedGlyph {
                    font,
                    glyph: first + i,
                    size: 16.0,
                    x: 10.0 * f32::from(i),
                    y: 0.0,
                    color: [0; 4],
                })
                .collect()
        };
        let (run, twin, other) =
            (GlyphRun::new(glyphs(10)), GlyphRun::new(glyphs(10)), GlyphRun::new(glyphs(40)));
        fn at(run: &GlyphRun, scale: f32) -> TextArea<'_> {
            TextArea::run(run, 0.0, 0.0).with_scale(scale)
        }
        let mut t = ZoomTracker::default();
        fn frame(t: &mut ZoomTracker, areas: &[TextArea<'_>]) -> Vec<bool> {
            t.begin();
            let z = areas.iter().enumerate().map(|(n, a)| t.zooming(n, a)).collect();
            t.end();
            z
        }
        assert_eq!(frame(&mut t, &[at(&run, 1.0)]), [false], "first sight");
        assert_eq!(frame(&mut t, &[at(&run, 1.0)]), [false], "at rest");
        assert_eq!(t.reads, 1, "read at first sight only");
        assert_eq!(frame(&mut t, &[at(&run, 1.5)]), [true], "the same run, larger");
        assert_eq!(frame(&mut t, &[at(&run.clone(), 2.0)]), [true], "a clone of it, larger");
        assert_eq!(t.reads, 1, "a run shown again is known without reading it");
        assert_eq!(frame(&mut t, &[at(&twin, 2.5)]), [true], "another run of the same glyphs");
        assert_eq!(t.reads, 2, "another run is read");
        let g = glyphs(10);
        let slice = TextArea::glyphs(&g, 0.0, 0.0).with_scale(3.0);
        assert_eq!(frame(&mut t, &[slice]), [true], "the same glyphs as a slice");
        assert_eq!(frame(&mut t, &[at(&twin, 3.0)]), [false], "the run again, at rest");
        assert_eq!(frame(&mut t, &[at(&other, 3.5)]), [false], "other glyphs");
        // Replaced at rest: the next size change compares the new content
        // with what was shown before it, read.
        assert_eq!(frame(&mut t, &[at(&run, 3.5)]), [false], "a run replacing another at rest");
        assert_eq!(frame(&mut t, &[at(&run, 4.0)]), [false], "it was not what had been shown");
        assert_eq!(frame(&mut t, &[at(&run, 4.5)]), [true], "now it is");
        // A run held since it was shown is not taken for another one.
        assert_eq!(frame(&mut t, &[at(&other, 5.0)]), [false], "other glyphs again");
        assert_eq!(frame(&mut t, &[at(&twin, 5.5)]), [false], "not the run held");
        // Nothing zooms from or to nothing (a scale of 0 draws no glyph).
        assert_eq!(frame(&mut t, &[at(&twin, 0.0)]), [false], "to nothing");
        assert_eq!(frame(&mut t, &[at(&twin, 1.0)]), [false], "from nothing");
        // An area asked about past one not asked about (a renderer that
        // skips an index) is kept at its own index.
        t.begin();
        assert!(!t.zooming(0, &at(&other, 1.0)));
        assert!(!t.zooming(2, &at(&run, 1.0)));
        t.end();
        t.begin();
        assert!(!t.zooming(0, &at(&other, 1.0)));
        assert!(t.zooming(2, &at(&run, 2.0)), "area 2, the same run, larger");
        t.end();
        // An area gone for two frames and back at another size is new at
        // its index: what it showed before it left is forgotten.
        let mut t = ZoomTracker::default();
        assert_eq!(frame(&mut t, &[at(&other, 1.0), at(&run, 1.0)]), [false, false]);
        assert_eq!(frame(&mut t, &[at(&other, 1.0)]), [false]);
        assert_eq!(frame(&mut t, &[at(&other, 1.0)]), [false]);
        let back = frame(&mut t, &[at(&other, 1.0), at(&run, 2.0)]);
        assert_eq!(back, [false, false], "back after two frames away: not a zoom");
    }

    #[test]
    fn steps_are_geometric_and_near() {
        let p = ZoomPolicy::Steps { per_octave: 8 };
        assert_eq!(p.step_px(16.0), 16.0);
        assert_eq!(p.step_px(32.0), 32.0);
        for px in [9.0f32, 12.3, 17.0, 50.0, 95.5] {
            let s = p.step_px(px);
            assert!((s / px).log2().abs() <= 1.0 / 16.0 + 1e-6, "{px} → {s}");
        }
        // Sizes between two steps share one.
        assert_eq!(p.step_px(16.1), p.step_px(16.2));
        assert_eq!(ZoomPolicy::Exact.step_px(16.1), 16.1);
    }
}
