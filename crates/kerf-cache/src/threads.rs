//! The threads that rasterize a batch's misses (with the `parallel`
//! feature): at most [`CacheConfig::raster_threads`](crate::CacheConfig::raster_threads)
//! of them, in a pool of kerf's own, one a thread count in the process and
//! shared by every cache that asks for that count; or rayon's global pool;
//! or none.
//!
//! Why a pool of its own: every thread that rasterizes keeps its buffers
//! (cells, points) and, under glibc, a malloc arena of its own, which holds
//! on to what a burst of misses freed. Rayon's global pool has a thread a
//! core, so on a many-core machine a burst spreads that over every core's
//! thread; a few threads keep most of the speed-up of a burst at a fraction
//! of the memory (docs/cache.md, "Raster threads").

use std::sync::{Arc, Mutex};

/// Where a cache's misses are rasterized when a batch is large enough.
#[derive(Clone, Debug)]
pub(crate) enum Threads {
    /// On the calling thread, one after another.
    Calling,
    /// On rayon's global pool (a thread a core unless the app set it up
    /// otherwise).
    Global,
    /// On kerf's own pool of this many threads.
    Own(Arc<rayon::ThreadPool>),
}

/// kerf's pools, by their thread count: built on first use, kept for the
/// process (as rayon's global pool is).
static POOLS: Mutex<Vec<(usize, Arc<rayon::ThreadPool>)>> = Mutex::new(Vec::new());

impl Threads {
    /// The threads for a setting of `raster_threads`: 0 is rayon's global
    /// pool; otherwise at most that many, and no more than the machine's
    /// cores (one: the calling thread). A pool that cannot be built (no
    /// threads can be spawned) leaves the calling thread.
    pub(crate) fn of(raster_threads: usize) -> Threads {
        if raster_threads == 0 {
            return Threads::Global;
        }
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let n = raster_threads.min(cores);
        if n <= 1 {
            return Threads::Calling;
        }
        let mut pools = POOLS.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, pool)) = pools.iter().find(|(k, _)| *k == n) {
            return Threads::Own(pool.clone());
        }
        match rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .thread_name(|i| format!("kerf-raster-{i}"))
            .build()
        {
            Ok(pool) => {
                let pool = Arc::new(pool);
                pools.push((n, pool.clone()));
                Threads::Own(pool)
            }
            Err(_) => Threads::Calling,
        }
    }

    /// How many threads rasterize at once.
    pub(crate) fn count(&self) -> usize {
        match self {
            Threads::Calling => 1,
            Threads::Global => rayon::current_num_threads(),
            Threads::Own(pool) => pool.current_num_threads(),
        }
    }

    /// Runs `op` where these threads' rayon calls go to them: inside kerf's
    /// own pool, or here (for the global pool, and for the calling thread,
    /// whose callers check [`count`](Self::count) before going parallel).
    pub(crate) fn install<R: Send>(&self, op: impl FnOnce() -> R + Send) -> R {
        match self {
            Threads::Own(pool) => pool.install(op),
            Threads::Calling | Threads::Global => op(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_count_gets_one_shared_pool_of_at_most_the_cores() {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        assert!(matches!(Threads::of(0), Threads::Global));
        assert!(matches!(Threads::of(1), Threads::Calling));
        let many = Threads::of(cores + 5);
        assert_eq!(many.count(), cores, "no more threads than cores");
        if cores >= 2 {
            let (Threads::Own(a), Threads::Own(b)) = (Threads::of(2), Threads::of(2)) else {
                panic!("two threads on {cores} cores are a pool of kerf's own");
            };
            assert!(Arc::ptr_eq(&a, &b), "one pool a thread count");
            assert_eq!(a.current_num_threads(), 2);
            // Work installed there runs on its threads.
            let name = Threads::Own(a).install(|| std::thread::current().name().map(String::from));
            assert!(
                name.as_deref().is_some_and(|n| n.starts_with("kerf-raster-")),
                "ran on {name:?}"
            );
        }
    }
}
