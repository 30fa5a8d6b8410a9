//! GPU objects made on a thread of their own (shader modules, pipelines),
//! and the end of those threads.

use std::sync::{Arc, Mutex, OnceLock};

/// A GPU object made on a thread of its own from its creation, so that the
/// app goes on meanwhile: the glyph shader's parse (naga) from the atlas's
/// creation, a glyph pipeline's compile (lavapipe's LLVM, a GPU driver's
/// compiler) from the renderer's, while the app shapes and the first
/// `prepare` rasterizes. The first [`get`](Self::get) waits for it. Where
/// no thread can be started it is made by that first `get`; where the thread
/// panicked (a validation error under wgpu's default error handler), the
/// first `get` makes it again, on the caller's thread, and the error is
/// raised there.
///
/// Its owner [`join`](Self::join)s the thread before it is gone (the
/// atlas's pipeline cache, when the atlas is dropped): a compile left
/// running while the process exits meets the driver's exit handlers, and on
/// lavapipe that ended `kerf render` with a signal after its error message.
pub(crate) struct Made<T> {
    value: OnceLock<T>,
    make: Box<dyn Fn() -> T + Send + Sync>,
    /// The thread making it, until it is joined.
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
}

impl<T: Send + Sync + 'static> Made<T> {
    /// `make` started on a thread of its own (on targets with threads).
    pub fn start(make: impl Fn() -> T + Send + Sync + 'static) -> Arc<Made<T>> {
        let made = Arc::new(Made {
            value: OnceLock::new(),
            make: Box::new(make),
            thread: Mutex::new(None),
        });
        #[cfg(not(target_arch = "wasm32"))]
        {
            let on_thread = Arc::clone(&made);
            // No thread (the system refused one): the first `get` makes it.
            let spawned =
                std::thread::Builder::new().name("kerf pipelines".into()).spawn(move || {
                    on_thread.get();
                });
            if let Ok(handle) = spawned {
                *made.thread.lock().unwrap_or_else(|e| e.into_inner()) = Some(handle);
            }
        }
        made
    }

    /// The object, waiting for its thread to finish it (or making it).
    pub fn get(&self) -> &T {
        self.value.get_or_init(|| (self.make)())
    }

    /// Waits until its thread has ended (at once when it has, or never
    /// started): afterwards nothing of it runs, and what the thread held
    /// (the device, the shader) is let go. A thread that panicked is
    /// joined as well, its panic dropped: the next `get` makes the object.
    pub fn join(&self) {
        let handle = self.thread.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(handle) = handle {
            // (Never itself: its own thread holds no owner of it.)
            if handle.thread().id() != std::thread::current().id() {
                let _ = handle.join();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::time::Duration;

    /// What a thread made is what every caller gets, made once however many
    /// wait for it.
    #[test]
    fn a_thing_made_on_its_thread_is_made_once_for_every_caller() {
        let calls = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&calls);
        let made = Made::start(move || {
            counted.fetch_add(1, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(20));
            String::from("pipeline")
        });
        let waiters: Vec<_> = (0..4)
            .map(|_| {
                let m = Arc::clone(&made);
                std::thread::spawn(move || m.get().clone())
            })
            .collect();
        for w in waiters {
            assert_eq!(w.join().unwrap(), "pipeline");
        }
        assert_eq!(made.get(), "pipeline");
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }

    /// Where the thread panicked (wgpu's default handler panics on a
    /// validation error), the caller makes it again, and gets it.
    #[test]
    fn a_thing_whose_thread_panicked_is_made_by_its_caller() {
        let made = Made::start(|| {
            if std::thread::current().name() == Some("kerf pipelines") {
                panic!("planted: the maker's own thread fails");
            }
            7u32
        });
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(*made.get(), 7);
        made.join();
        assert_eq!(*made.get(), 7, "joined after its panic, still got");
    }

    /// `join` returns only once the thread has let go of everything it
    /// held: a slow make still running when its owner goes is waited for,
    /// not left to run into the process's exit.
    #[test]
    fn joining_waits_for_a_make_in_flight_and_what_it_holds() {
        let done = Arc::new(AtomicBool::new(false));
        let held = Arc::new(());
        let (flag, hold) = (Arc::clone(&done), Arc::clone(&held));
        let made = Made::start(move || {
            let _keep = &hold;
            std::thread::sleep(Duration::from_millis(80));
            flag.store(true, Ordering::SeqCst);
        });
        made.join();
        assert!(done.load(Ordering::SeqCst), "joined before the make was done");
        // The thread's own reference to it, and so the closure's capture,
        // is only dropped when the last owner goes; the thread has ended.
        assert_eq!(Arc::strong_count(&made), 1, "the thread still holds it");
        drop(made);
        assert_eq!(Arc::strong_count(&held), 1, "what the make held is let go");
    }
}
