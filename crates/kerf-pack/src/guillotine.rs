//! Guillotine packing (Jylänki §3): the free space is a list of disjoint
//! rectangles; a request takes the top-left corner of one, and the L-shaped
//! rest is cut in two by a split rule. Freed slots merge back with every free
//! neighbour that shares a whole edge.

use crate::error::SizeError;
use crate::freelist::{Choice, FreeList, FreeRectChoice, SplitRule};
use crate::geom::Rect;
use crate::heuristic::Scorer;
use crate::packer::{impl_packer, Core, PackerOptions};

/// Guillotine-specific settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GuillotineConfig {
    /// Which free rect a request goes into.
    pub choice: FreeRectChoice,
    /// How the leftover is cut.
    pub split: SplitRule,
    /// Rectangle merge (`-rm`): merge split leftovers with neighbours that
    /// share a whole edge. Freed slots are merged whether or not this is set.
    pub merge: bool,
    /// Slab sizes: round each request up to the next power of two in both
    /// sides (capped at the bin), so freed slots fit future requests of the
    /// same class exactly; when no free rect fits the rounded size, the exact
    /// size is tried. With [`SplitRule::Halve`] this is a 2-D buddy allocator.
    pub slab: bool,
}

impl Default for GuillotineConfig {
    fn default() -> Self {
        GuillotineConfig {
            choice: FreeRectChoice::BestShortSideFit,
            split: SplitRule::MinArea,
            merge: true,
            slab: false,
        }
    }
}

/// The Guillotine packer with deallocation.
pub struct Guillotine {
    core: Core,
    config: GuillotineConfig,
    choice: Choice,
    free: FreeList,
}

impl Guillotine {
    /// An empty `width × height` bin.
    pub fn new(
        width: u32, height: u32, config: GuillotineConfig, opts: PackerOptions,
    ) -> Result<Self, SizeError> {
        Self::build(width, height, config, Choice::Named(config.choice), opts)
    }

    /// A bin whose free rect is chosen by `scorer` (lower is better) instead
    /// of `config.choice`.
    pub fn with_scorer(
        width: u32, height: u32, config: GuillotineConfig, scorer: Scorer, opts: PackerOptions,
    ) -> Result<Self, SizeError> {
        Self::build(width, height, config, Choice::Custom(scorer), opts)
    }

    fn build(
        width: u32, height: u32, config: GuillotineConfig, choice: Choice, opts: PackerOptions,
    ) -> Result<Self, SizeError> {
        let core = Core::new(width, height, opts)?;
        let free = FreeList::new(opts.min_free_size, core.inner());
        let mut g = Guillotine { core, config, choice, free };
        g.reset();
        Ok(g)
    }

    /// The settings this packer uses.
    pub fn config(&self) -> &GuillotineConfig {
        &self.config
    }

    fn place(&mut self, pw: u32, ph: u32) -> Option<(Rect, bool)> {
        let (iw, ih) = self.core.inner();
        let (w, h) = if self.config.slab {
            (pw.next_power_of_two().min(iw.max(pw)), ph.next_power_of_two().min(ih.max(ph)))
        } else {
            (pw, ph)
        };
        let rotate = self.core.opts.allow_rotation;
        let found = self.free.find(w, h, rotate, &self.choice, (iw, ih));
        // A rounded-up slab that no longer fits the bin falls back to the exact size.
        let (idx, rotated, w, h) = match found {
            Some((i, r)) => (i, r, w, h),
            None if (w, h) != (pw, ph) => {
                let (i, r) = self.free.find(pw, ph, rotate, &self.choice, (iw, ih))?;
                (i, r, pw, ph)
            }
            None => return None,
        };
        let (w, h) = if rotated { (h, w) } else { (w, h) };
        let slot = self.free.take(idx, w, h, self.config.split, self.config.merge);
        Some((slot, rotated))
    }

    fn release_slot(&mut self, slot: Rect) {
        self.free.add(slot);
    }

    fn reset(&mut self) {
        let (iw, ih) = self.core.inner();
        self.free.reset(iw, ih);
        self.free.push(Rect::new(0, 0, iw, ih), false);
    }

    fn extend(&mut self, old: (u32, u32)) {
        add_grown_strips(&mut self.free, old, self.core.inner());
    }

    fn free_space(&self) -> impl Iterator<Item = Rect> + '_ {
        self.free.iter()
    }
}

/// Adds the space a bin gains when it grows from `old` to `new` (inner sizes):
/// a strip on the right of full new height, and one below the old width.
pub(crate) fn add_grown_strips(free: &mut FreeList, old: (u32, u32), new: (u32, u32)) {
    free.regrid(new.0, new.1);
    for strip in grown_strips(old, new) {
        free.add(strip);
    }
}

/// The disjoint strips a bin gains growing from `old` to `new`.
pub(crate) fn grown_strips(old: (u32, u32), new: (u32, u32)) -> impl Iterator<Item = Rect> {
    [Rect::new(old.0, 0, new.0 - old.0, new.1), Rect::new(0, old.1, old.0, new.1 - old.1)]
        .into_iter()
        .filter(|r| !r.is_empty())
}

impl_packer!(Guillotine);
