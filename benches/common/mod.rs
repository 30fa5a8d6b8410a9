//! What the benches need of an allocator, implemented for kerf's packers and
//! the peers (etagere, guillotiere), plus the bundled traces.

// Each bench uses part of this module.
#![allow(dead_code)]

use kerf::pack::{AllocId, MaxRects, Packer};

/// The little an allocator must do for the benches.
pub trait Bin {
    /// Allocation handle.
    type Id: Copy + Eq + std::hash::Hash;
    /// Places `w × h`, or `None` when it does not fit now.
    fn alloc(&mut self, w: u32, h: u32) -> Option<Self::Id>;
    /// Frees a live allocation.
    fn free(&mut self, id: Self::Id);
    /// The cheapest victims whose removal makes `w × h` fit (with `seed`:
    /// among those including `seed`) and their total cost, where supported.
    fn evict_to_fit(
        &self, _w: u32, _h: u32, _seed: Option<Self::Id>, _cost: &dyn Fn(Self::Id) -> Option<u64>,
    ) -> Option<(u64, Vec<Self::Id>)> {
        None
    }
}

/// Any kerf packer behind the trait object.
pub struct Kerf(pub Box<dyn Packer + Send + Sync>);
impl Bin for Kerf {
    type Id = AllocId;
    fn alloc(&mut self, w: u32, h: u32) -> Option<AllocId> {
        self.0.allocate(w, h).ok().map(|a| a.id)
    }
    fn free(&mut self, id: AllocId) {
        self.0.deallocate(id).expect("live id");
    }
}

/// kerf's MaxRects, with evict-to-fit.
pub struct KerfMaxRects(pub MaxRects);
impl Bin for KerfMaxRects {
    type Id = AllocId;
    fn alloc(&mut self, w: u32, h: u32) -> Option<AllocId> {
        self.0.allocate(w, h).ok().map(|a| a.id)
    }
    fn free(&mut self, id: AllocId) {
        self.0.deallocate(id).expect("live id");
    }
    fn evict_to_fit(
        &self, w: u32, h: u32, seed: Option<AllocId>, cost: &dyn Fn(AllocId) -> Option<u64>,
    ) -> Option<(u64, Vec<AllocId>)> {
        let found = match seed {
            Some(seed) => self.0.evict_to_fit_near(w, h, seed, |a| cost(a.id)),
            None => self.0.evict_to_fit(w, h, |a| cost(a.id)),
        };
        found.ok().flatten().map(|e| (e.cost, e.victims))
    }
}

/// etagere's shelf allocator.
pub struct Etagere(pub etagere::AtlasAllocator);
impl Bin for Etagere {
    type Id = etagere::AllocId;
    fn alloc(&mut self, w: u32, h: u32) -> Option<Self::Id> {
        self.0.allocate(etagere::size2(w as i32, h as i32)).map(|a| a.id)
    }
    fn free(&mut self, id: Self::Id) {
        self.0.deallocate(id)
    }
}

/// etagere's bucketed allocator (what glyphon uses).
pub struct EtagereBucketed(pub etagere::BucketedAtlasAllocator);
impl Bin for EtagereBucketed {
    type Id = etagere::AllocId;
    fn alloc(&mut self, w: u32, h: u32) -> Option<Self::Id> {
        self.0.allocate(etagere::size2(w as i32, h as i32)).map(|a| a.id)
    }
    fn free(&mut self, id: Self::Id) {
        self.0.deallocate(id)
    }
}

/// guillotiere's guillotine allocator.
pub struct Guillotiere(pub guillotiere::AtlasAllocator);
impl Bin for Guillotiere {
    type Id = guillotiere::AllocId;
    fn alloc(&mut self, w: u32, h: u32) -> Option<Self::Id> {
        self.0.allocate(guillotiere::size2(w as i32, h as i32)).map(|a| a.id)
    }
    fn free(&mut self, id: Self::Id) {
        self.0.deallocate(id)
    }
}

/// A bundled glyph-size trace (benches/data/NAME.txt).
pub fn trace(name: &str) -> Vec<(u32, u32)> {
    let path = format!("{}/benches/data/{name}.txt", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .lines()
        .map(|l| {
            let mut it = l.split_whitespace().map(|v| v.parse().expect("number"));
            (it.next().expect("w"), it.next().expect("h"))
        })
        .collect()
}

/// A xorshift generator: deterministic, dependency-free.
pub struct XorShift(pub u64);
impl XorShift {
    /// The next value.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}
