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
//! creations return before the exit goes on. Measured: Zink's `shader_runner` aborted in 15 of 100
//! runs without this wait (docs/perf-layer.md).
//!
//! Exit handlers run in the reverse order of their registration, so the handler is registered
//! right after the first such creation returns: after the driver's first printing registered its
//! stream's destructor, so the wait runs before that destructor.

use parking_lot::{Condvar, Mutex};
use std::sync::Once;
use std::time::{Duration, Instant};

/// The creations running, and whether the exit has begun.
struct State {
    running: usize,
    exiting: bool,
}

static STATE: Mutex<State> = Mutex::new(State {
    running: 0,
    exiting: false,
});
/// Signalled when the last one returns.
static RETURNED: Condvar = Condvar::new();
static REGISTERED: Once = Once::new();

/// A creation that asks for printed code, while it runs in the driver.
#[must_use = "the creation counts as running while this is held"]
pub struct Printing(());

/// Counts a creation that asks the driver to print its code as running, until the result is
/// dropped; `None` once the process exits: a creation that begins then does not ask for the
/// printing (its code is not verified), or the exit would race it again.
pub fn begin() -> Option<Printing> {
    let mut s = STATE.lock();
    if s.exiting {
        return None;
    }
    s.running += 1;
    Some(Printing(()))
}

impl Drop for Printing {
    fn drop(&mut self) {
        let mut s = STATE.lock();
        s.running -= 1;
        if s.running == 0 {
            RETURNED.notify_all();
        }
        drop(s);
        REGISTERED.call_once(|| {
            // SAFETY: `wait_at_exit` is a plain function of this library that never unwinds;
            // glibc runs a library's exit handlers when the library is unloaded, too, so it is
            // never called after the code is gone.
            if unsafe { libc::atexit(wait_at_exit) } != 0 {
                log::warn!("verify_isa: no exit handler: an exit does not wait for pipeline creations still printing their code");
            }
        });
    }
}

/// From now on no creation asks for printing; waits until none that did is running, at most
/// `limit`; whether none is.
pub fn exit(limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    let mut s = STATE.lock();
    s.exiting = true;
    while s.running > 0 {
        if RETURNED.wait_until(&mut s, deadline).timed_out() {
            return s.running == 0;
        }
    }
    true
}

extern "C" fn wait_at_exit() {
    let _ = std::panic::catch_unwind(|| {
        if !exit(crate::background::VERDICT_WAIT) {
            log::warn!("verify_isa: the process exits while a pipeline creation is still printing its code");
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The exit waits for the creations counted until they return, gives up at its limit while
    /// one is still running, and no creation that begins after it counts (it asks for no
    /// printing).
    #[test]
    fn the_exit_waits_for_creations_still_printing_and_no_longer() {
        let running = begin().expect("before the exit");
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            drop(running);
        });
        assert!(exit(Duration::from_secs(10)));
        t.join().unwrap();
        assert!(begin().is_none());
        let s = STATE.lock();
        assert!(s.exiting && s.running == 0);
    }
}
