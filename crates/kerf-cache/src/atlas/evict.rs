//! Eviction: finding room for a glyph (a page with space, a new page, or
//! least-recently-used glyphs evicted and their slots deallocated), and
//! trimming idle glyphs and empty pages at the end of a frame.

use crate::atlas::page::Page;
use crate::atlas::Atlas;
use crate::config::UploadMode;
use crate::error::GlyphError;
use crate::key::GlyphKey;
use kerf_pack::{AllocId, PackerOptions, Rect};

impl Atlas {
    pub(crate) fn is_protected(&self, last_used: u64) -> bool {
        last_used + self.config.frames_in_flight as u64 >= self.frame
    }

    pub(crate) fn add_page(&mut self) -> bool {
        if self.pages.len() as u32 >= self.geometry.page_limit {
            return false;
        }
        let opts = PackerOptions { padding: self.config.padding, ..PackerOptions::default() };
        let side = self.geometry.side;
        match self.config.algorithm.build(side, side, opts) {
            Ok(p) => {
                let copy = self.config.page_copies;
                let mut page = Page::new(p, side, self.format.bytes_per_texel(), copy);
                if self.pages.len() < self.pages_ever {
                    // A released page's layer may still hold old texels on the
                    // GPU: upload the new (blank) page whole, or clear it, once.
                    match self.config.uploads {
                        UploadMode::DirtyRect => page.dirty = Some(Rect::new(0, 0, side, side)),
                        UploadMode::Glyphs | UploadMode::Auto => {
                            self.staging.clear_page(self.pages.len())
                        }
                    }
                }
                self.pages.push(page);
                self.pages_ever = self.pages_ever.max(self.pages.len());
                self.stats.pages_added += 1;
                true
            }
            Err(_) => false,
        }
    }

    /// Finds room for a `w × h` bitmap: a page with space, a new page, or
    /// space opened by evicting (and deallocating) least-recently-used glyphs
    /// no frame in flight uses; with `evict_first`, the eviction before the
    /// new page (a page is added only when eviction finds no room).
    pub(crate) fn allocate(&mut self, w: u32, h: u32) -> Result<(u32, Rect, AllocId), GlyphError> {
        let usable = self.retiring.unwrap_or(self.pages.len()).min(self.pages.len());
        if let Some(found) = self.try_pages(0..usable, w, h) {
            return Ok(found);
        }
        if self.retiring.take().is_some() {
            // The workload grew again: stop emptying the last pages and use them.
            if let Some(found) = self.try_pages(usable..self.pages.len(), w, h) {
                return Ok(found);
            }
        }
        if !self.evict_first || self.pages.is_empty() {
            // Glyphs idle for long give their room before a page is added.
            // (At the page limit, the eviction below would take the same
            // glyphs first: it goes down the same list.)
            if let Some(idle) = self.config.evict_idle_before_growing {
                if let Some(found) = self.allocate_by_idle_eviction(w, h, idle) {
                    return Ok(found);
                }
            }
            if let Some(found) = self.allocate_on_new_page(w, h) {
                return Ok(found);
            }
            return self.allocate_by_eviction(w, h);
        }
        match self.allocate_by_eviction(w, h) {
            Ok(found) => Ok(found),
            Err(full) => self.allocate_on_new_page(w, h).ok_or(full),
        }
    }

    /// A new page and the bitmap's slot on it, when the budget allows one.
    fn allocate_on_new_page(&mut self, w: u32, h: u32) -> Option<(u32, Rect, AllocId)> {
        if !self.add_page() {
            return None;
        }
        let i = self.pages.len() - 1;
        let a = self.pages[i].packer.allocate(w, h).ok()?;
        Some((i as u32, a.rect, a.id))
    }

    /// Room opened by evicting least-recently-used glyphs no frame in
    /// flight uses, until the bitmap fits where one was freed.
    fn allocate_by_eviction(&mut self, w: u32, h: u32) -> Result<(u32, Rect, AllocId), GlyphError> {
        // Every recorded use (recency.rs) goes into the map before anything
        // is evicted (nothing to do when the oldest glyph is protected anyway:
        // a recorded use only makes it more recent).
        if self.uses.pending(&self.memo)
            && self.map.peek_lru().is_some_and(|(_, lru)| !self.is_protected(lru.last_used))
        {
            self.write_back_recency();
        }
        // The list is in order of use except where the memo's write-backs
        // moved glyphs drawn a while ago ahead of glyphs looked up since: a
        // protected glyph at the tail does not prove that every glyph is
        // protected. Protected glyphs are moved to the front (their
        // `last_used` kept) until an unprotected one comes up or every glyph
        // has been seen; then the atlas is full for the rest of the frame
        // (within a frame, protection only grows).
        let mut passed = 0usize;
        loop {
            let Some((&key, lru)) = self.map.peek_lru() else { return Err(GlyphError::AtlasFull) };
            if self.is_protected(lru.last_used) {
                if self.all_protected == Some(self.frame) || passed >= self.map.len() {
                    self.all_protected = Some(self.frame);
                    return Err(GlyphError::AtlasFull);
                }
                self.map.promote(&key);
                passed += 1;
                continue;
            }
            let Some(found) = self.evict_lru_for(w, h) else {
                return Err(GlyphError::AtlasFull);
            };
            if let Some(found) = found {
                return Ok(found);
            }
        }
    }

    /// Room opened by evicting least-recently-used glyphs unused for more
    /// than `idle_frames` frames (and by no frame in flight), until the
    /// bitmap fits where one was freed; `None` when the least recently used
    /// glyph is more recent than that (or none is left).
    fn allocate_by_idle_eviction(
        &mut self, w: u32, h: u32, idle_frames: u64,
    ) -> Option<(u32, Rect, AllocId)> {
        self.write_back_before_idle_eviction(idle_frames);
        // (The list is in order of use but where recorded uses moved glyphs
        // drawn a while ago ahead: a recent glyph at the tail may hide idle
        // ones behind it. The atlas then grows, as it did without this.)
        while self.lru_is_idle(idle_frames) {
            if let Some(found) = self.evict_lru_for(w, h)? {
                return Some(found);
            }
        }
        None
    }

    /// Writes every recorded use into the map when the least recently used
    /// glyph is idle (unused for more than `idle_frames` frames), so an idle
    /// eviction sees every use; nothing to do otherwise, since it evicts
    /// nothing then (a recorded use only makes a glyph more recent).
    fn write_back_before_idle_eviction(&mut self, idle_frames: u64) {
        if self.uses.pending(&self.memo) && self.lru_is_idle(idle_frames) {
            self.write_back_recency();
        }
    }

    /// Whether the least recently used glyph is idle ([`is_idle`](Self::is_idle)).
    fn lru_is_idle(&self, idle_frames: u64) -> bool {
        self.map.peek_lru().is_some_and(|(_, lru)| self.is_idle(lru.last_used, idle_frames))
    }

    /// Whether a glyph last used in frame `last_used` has been unused for
    /// more than `idle_frames` frames and no frame in flight uses it.
    fn is_idle(&self, last_used: u64, idle_frames: u64) -> bool {
        !self.is_protected(last_used) && last_used.saturating_add(idle_frames) < self.frame
    }

    /// Evicts the least recently used glyph (its slots deallocated): what it
    /// freed, `None` when the map is empty.
    fn evict_lru(&mut self) -> Option<Freed> {
        let (key, victim) = self.map.pop_lru()?;
        self.epoch += 1;
        self.memo.forget(&key, self.memo_epoch);
        self.stats.evictions += 1;
        if victim.tiled() {
            return Some(Freed::Tiles(self.free_tiles(&key)));
        }
        let Some(id) = victim.alloc else { return Some(Freed::Nothing) };
        let p = victim.entry.page as usize;
        let Some(page) = self.pages.get_mut(p) else { return Some(Freed::Nothing) };
        page.free(id);
        Some(Freed::Page(p))
    }

    /// [`evict_lru`](Self::evict_lru), then the bitmap tried where the glyph
    /// was: `None` when the map is empty, `Some(None)` when it does not fit
    /// there.
    #[allow(clippy::type_complexity)]
    fn evict_lru_for(&mut self, w: u32, h: u32) -> Option<Option<(u32, Rect, AllocId)>> {
        match self.evict_lru()? {
            Freed::Tiles(pages) => {
                for p in pages {
                    if let Ok(a) = self.pages[p as usize].packer.allocate(w, h) {
                        return Some(Some((p, a.rect, a.id)));
                    }
                }
            }
            Freed::Page(p) => {
                let page = &mut self.pages[p];
                if let Ok(a) = page.packer.allocate(w, h) {
                    return Some(Some((p as u32, a.rect, a.id)));
                }
                page.note_failure(w, h);
            }
            Freed::Nothing => {}
        }
        Some(None)
    }

    pub(crate) fn try_pages(
        &mut self, range: std::ops::Range<usize>, w: u32, h: u32,
    ) -> Option<(u32, Rect, AllocId)> {
        for i in range {
            let page = &mut self.pages[i];
            if page.known_full(w, h) {
                continue;
            }
            match page.packer.allocate(w, h) {
                Ok(a) => return Some((i as u32, a.rect, a.id)),
                Err(_) => page.note_failure(w, h),
            }
        }
        None
    }

    /// Frees the slots of an evicted tiled glyph; the pages they were on.
    pub(crate) fn free_tiles(&mut self, key: &GlyphKey) -> Vec<u32> {
        let tiles = self.tiles.remove(key).unwrap_or_default();
        let mut pages: Vec<u32> = Vec::with_capacity(tiles.len());
        for t in tiles {
            if let Some(page) = self.pages.get_mut(t.entry.page as usize) {
                page.free(t.alloc);
            }
            if !pages.contains(&t.entry.page) {
                pages.push(t.entry.page);
            }
        }
        pages
    }

    /// Evicts glyphs unused for more than `idle_frames` frames (never one a
    /// frame in flight uses); when the live glyphs would fit in half of one
    /// page fewer, starts emptying the last page (no new glyph goes there, and
    /// a glyph looked up there moves to a lower page, its texels copied, not
    /// rasterized); releases empty pages at the end of the array, down to
    /// `min_pages`, once no frame in flight can reference them. Returns
    /// (glyphs evicted, pages released). Runs at the end of every frame when
    /// `release_idle_after` is set.
    pub(crate) fn trim(&mut self, idle_frames: u64) -> (u64, u32) {
        let mut evicted = 0;
        self.write_back_before_idle_eviction(idle_frames);
        while self.lru_is_idle(idle_frames) && self.evict_lru().is_some() {
            evicted += 1;
        }
        let floor = self.config.min_pages.max(1) as usize;
        let n = self.pages.len();
        let page_area = self.geometry.side as u64 * self.geometry.side as u64;
        if self.retiring.is_none() && n > floor {
            // The live glyphs would fill at most half of one page fewer: start
            // emptying the last page (its glyphs move down when next used).
            let used: u64 = self.pages.iter().map(|p| p.packer.used_area()).sum();
            if used.saturating_mul(2) <= (n as u64 - 1) * page_area {
                self.retiring = Some(n - 1);
                // Remembered glyphs there must be looked up, to move.
                self.epoch += 1;
                self.memo_epoch += 1;
            }
        }
        let frame = self.frame;
        for page in &mut self.pages {
            if page.packer.is_empty() {
                page.empty_since.get_or_insert(frame);
            } else {
                page.empty_since = None;
            }
        }
        // A page empty for longer than the frames in flight is referenced by no frame.
        let in_flight = self.config.frames_in_flight as u64;
        let mut released = 0;
        while self.pages.len() > floor
            && self
                .pages
                .last()
                .is_some_and(|p| p.empty_since.is_some_and(|e| e + in_flight < frame))
        {
            self.pages.pop();
            released += 1;
        }
        if self.retiring.is_some_and(|r| r >= self.pages.len()) {
            self.retiring = None;
        }
        self.staging.truncate(self.pages.len());
        self.stats.pages_released += released as u64;
        (evicted, released)
    }
}

/// What evicting one glyph freed ([`Atlas::evict_lru`]).
enum Freed {
    /// Its slot on this page.
    Page(usize),
    /// Its tiles' slots, on these pages.
    Tiles(Vec<u32>),
    /// Nothing (a blank glyph holds no slot).
    Nothing,
}
