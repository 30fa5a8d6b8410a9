//! Generational allocation ids and the table of live allocations every packer shares.

use crate::error::DeallocError;
use crate::geom::Rect;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU32, Ordering};

/// Names one allocation of one packer.
///
/// An id carries the packer it came from and the generation of its slot, so a
/// stale id (already freed, or freed by `clear`) or an id from another packer
/// is reported as an error instead of freeing somebody else's rectangle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AllocId {
    owner: u32,
    index: u32,
    generation: u32,
}

impl AllocId {
    /// The slot index, dense from 0; useful as a key into a side table.
    pub fn index(&self) -> u32 {
        self.index
    }
}

/// One placed rectangle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Allocation {
    /// Hand this back to `deallocate` to free the space.
    pub id: AllocId,
    /// Where the rectangle lies in the bin. When `rotated`, `rect.w` is the
    /// requested height and `rect.h` the requested width.
    pub rect: Rect,
    /// True when the request was turned by 90° to fit.
    pub rotated: bool,
}

struct Entry {
    generation: u32,
    live: Option<Live>,
}

#[derive(Clone, Copy)]
pub(crate) struct Live {
    pub alloc: Allocation,
    /// The region reserved in the packer's own coordinates (padding included).
    pub slot: Rect,
}

fn next_owner() -> u32 {
    static NEXT: AtomicU32 = AtomicU32::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// Live allocations of one packer, indexed by generational ids.
pub(crate) struct Slots {
    owner: u32,
    entries: Vec<Entry>,
    free: Vec<u32>,
    len: usize,
}

impl Slots {
    pub fn new() -> Self {
        Slots { owner: next_owner(), entries: Vec::new(), free: Vec::new(), len: 0 }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// Stores a placement and returns its allocation.
    pub fn insert(&mut self, rect: Rect, rotated: bool, slot: Rect) -> Allocation {
        let index = match self.free.pop() {
            Some(i) => i,
            None => {
                self.entries.push(Entry { generation: 0, live: None });
                (self.entries.len() - 1) as u32
            }
        };
        let entry = &mut self.entries[index as usize];
        let id = AllocId { owner: self.owner, index, generation: entry.generation };
        let alloc = Allocation { id, rect, rotated };
        entry.live = Some(Live { alloc, slot });
        self.len += 1;
        alloc
    }

    fn check(&self, id: AllocId) -> Result<&Entry, DeallocError> {
        if id.owner != self.owner {
            return Err(DeallocError::ForeignId);
        }
        let entry = self.entries.get(id.index as usize).ok_or(DeallocError::UnknownId)?;
        if entry.generation != id.generation || entry.live.is_none() {
            return Err(if id.generation > entry.generation {
                DeallocError::UnknownId
            } else {
                DeallocError::StaleId
            });
        }
        Ok(entry)
    }

    pub fn get(&self, id: AllocId) -> Option<&Live> {
        self.check(id).ok().and_then(|e| e.live.as_ref())
    }

    /// Looks an id up without removing it.
    pub fn peek(&self, id: AllocId) -> Result<Live, DeallocError> {
        self.check(id).and_then(|e| e.live.ok_or(DeallocError::StaleId))
    }

    /// Removes a live allocation (`peek` first: an id that is not live is an error).
    pub fn remove(&mut self, id: AllocId) -> Result<Live, DeallocError> {
        self.peek(id)?;
        let entry = &mut self.entries[id.index as usize];
        let live = entry.live.take().ok_or(DeallocError::StaleId)?;
        entry.generation = entry.generation.wrapping_add(1);
        self.free.push(id.index);
        self.len -= 1;
        Ok(live)
    }

    /// Frees every slot, invalidating all ids handed out so far.
    pub fn clear(&mut self) {
        self.free.clear();
        for (i, e) in self.entries.iter_mut().enumerate().rev() {
            if e.live.take().is_some() {
                e.generation = e.generation.wrapping_add(1);
            }
            self.free.push(i as u32);
        }
        self.len = 0;
    }

    pub fn iter(&self) -> impl Iterator<Item = &Live> + '_ {
        self.entries.iter().filter_map(|e| e.live.as_ref())
    }
}

/// Iterator over a packer's live allocations, in slot order.
pub struct Iter<'a> {
    inner: core::slice::Iter<'a, Entry>,
}

impl<'a> Iter<'a> {
    pub(crate) fn new(slots: &'a Slots) -> Self {
        Iter { inner: slots.entries.iter() }
    }
}

impl Iterator for Iter<'_> {
    type Item = Allocation;
    fn next(&mut self) -> Option<Allocation> {
        self.inner.by_ref().find_map(|e| e.live.as_ref().map(|l| l.alloc))
    }
}
