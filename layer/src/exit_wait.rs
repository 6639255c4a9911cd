//! Pipeline creations the layer asked the driver to print its code for, still running on another
//! thread when the process exits: the exit waits for them (a bounded time) before the static
//! objects of the libraries the driver used go.
//!
//! Why: `verify_isa` creates a pipeline library (and a pipeline whose binaries cannot be read)
//! with VK_PIPELINE_CREATE_CAPTURE_INTERNAL_REPRESENTATIONS_BIT_KHR. RADV then prints the code
//! through an LLVM target machine for the chip; where the LLVM it was built with does not know
//! the chip (Mesa 25.0.7 with LLVM 15 on GFX11.5), LLVM writes a warning to its error stream. An
//! application that exits while one of its threads still creates such a pipeline (Zink compiles
//! on threads of its own, and piglit exits without waiting for them) has that warning written
//! to a stream the exit has already destroyed, and the C++ runtime aborts the process. Without
//! the setting the driver prints nothing; so the layer, having asked for the printing, lets those
//! creations return before the exit goes on — those that begin while it waits too — and asks for
//! no printing afterwards where valid usage lets it (a pipeline then created is recorded as not
//! verified, saying why). Measured (docs/perf-layer.md): Zink's `shader_runner` died at exit in
//! 7 of 170 runs with the layer before this.
//!
//! Exit handlers run in the reverse order of their registration, so the handler is registered
//! right after the first such creation returns: after the driver's first printing registered its
//! stream's destructor, so the wait runs before that destructor.

use parking_lot::{Condvar, Mutex};
use std::sync::Once;
use std::time::{Duration, Instant};

/// The creations that asked for printed code and are running, and whether the exit has waited
/// for them.
pub struct Creations {
    state: Mutex<State>,
    /// Signalled when the last one returns.
    returned: Condvar,
    /// The exit handler to register after the first creation returns (none in tests).
    at_exit: Option<extern "C" fn()>,
    registered: Once,
}

struct State {
    running: usize,
    exited: bool,
}

/// The process's.
static CREATIONS: Creations = Creations::new(Some(wait_at_exit));

/// A creation that asks for printed code, while it runs in the driver.
#[must_use = "the creation counts as running while this is held"]
pub struct Printing<'a>(&'a Creations);

/// [`Creations::begin`] of the process's creations.
pub fn begin() -> Option<Printing<'static>> {
    CREATIONS.begin()
}

impl Creations {
    /// None running; `at_exit`: the handler registered after the first creation returns.
    pub const fn new(at_exit: Option<extern "C" fn()>) -> Creations {
        Creations {
            state: Mutex::new(State {
                running: 0,
                exited: false,
            }),
            returned: Condvar::new(),
            at_exit,
            registered: Once::new(),
        }
    }

    /// Counts a creation that asks the driver to print its code as running, until the result
    /// is dropped; `None` once the exit has waited: what is created then should not be printed
    /// (crate::hooks::pipelines asks for no printing where valid usage lets it).
    pub fn begin(&self) -> Option<Printing<'_>> {
        let mut s = self.state.lock();
        if s.exited {
            return None;
        }
        s.running += 1;
        Some(Printing(self))
    }

    /// Waits until no creation that asked for printing is running — those that begin meanwhile
    /// (an application's thread still compiling while the exit runs) are waited for too — at
    /// most `limit`; from then on [`Creations::begin`] refuses. Whether none is running.
    pub fn exit(&self, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        let mut s = self.state.lock();
        while s.running > 0 {
            if self.returned.wait_until(&mut s, deadline).timed_out() {
                break;
            }
        }
        s.exited = true;
        s.running == 0
    }
}

impl Drop for Printing<'_> {
    fn drop(&mut self) {
        let c = self.0;
        let mut s = c.state.lock();
        s.running -= 1;
        if s.running == 0 {
            c.returned.notify_all();
        }
        drop(s);
        if let Some(handler) = c.at_exit {
            c.registered.call_once(|| {
                // SAFETY: the handler is a plain function of this library that never unwinds;
                // glibc runs a library's exit handlers when the library is unloaded, too, so
                // it is never called after the code is gone.
                if unsafe { libc::atexit(handler) } != 0 {
                    log::warn!("verify_isa: no exit handler: an exit does not wait for pipeline creations still printing their code");
                }
            });
        }
    }
}

extern "C" fn wait_at_exit() {
    let _ = std::panic::catch_unwind(|| {
        if !CREATIONS.exit(crate::background::VERDICT_WAIT) {
            log::warn!("verify_isa: the process exits while a pipeline creation is still printing its code");
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The exit waits for the creations counted until they return — one that begins while it
    /// waits too.
    #[test]
    fn the_exit_waits_for_creations_still_printing() {
        static C: Creations = Creations::new(None);
        let running = C.begin().expect("before the exit");
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            // A thread of the application begins another while the exit waits.
            let late = C.begin().expect("while the exit waits");
            drop(running);
            std::thread::sleep(Duration::from_millis(50));
            drop(late);
        });
        assert!(C.exit(Duration::from_secs(10)));
        t.join().unwrap();
        assert!(
            C.begin().is_none(),
            "none asks for printing once the exit has waited"
        );
        let s = C.state.lock();
        assert!(s.exited && s.running == 0);
    }

    /// An exit gives up at its limit on a creation that does not return.
    #[test]
    fn the_exit_gives_up_on_a_creation_that_does_not_return() {
        static C: Creations = Creations::new(None);
        let stuck = C.begin().expect("before the exit");
        assert!(!C.exit(Duration::from_millis(20)));
        drop(stuck);
        assert!(C.exit(Duration::from_millis(20)));
        assert!(C.begin().is_none());
    }
}
