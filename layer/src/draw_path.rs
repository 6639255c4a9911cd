//! The draw commands' hot path, generated for every `draw` entry of crate::table. A draw is the
//! most frequent call an application makes, so what the layer adds to it is kept to a few
//! instructions:
//!
//! - each draw hook jumps through one pointer, its *target*. While the process has one device
//!   through the layer and none of its command buffers has an interlocked fragment stage bound,
//!   the target is the next layer's function itself: the draw costs the layer one load and one
//!   jump;
//! - otherwise the target is the counting path: a draw whose command buffer has a ready slot
//!   (crate::counter) adds one to it and jumps to the next layer. Anything else (the first draw
//!   after a change, another device, a table collision) takes the slow path, inside the
//!   boundary: the command buffer's state in its store (crate::stores::Recordings), which may
//!   make the slot ready again.
//!
//! These fast paths are the one exception to the boundary of crate::entry: loads, a compare, an
//! increment and a jump, with nothing that can panic.

use crate::boundary::{ffi_boundary, guarded};
use crate::device::Device;
use crate::registry;
use ash::vk;
use parking_lot::Mutex;
use std::sync::atomic::Ordering;

/// Serialises [`retarget`]: the targets always reflect the last device set and armed count.
static RETARGET: Mutex<()> = Mutex::new(());

/// The slow path: when any command buffer of `d` has an interlocked fragment stage bound, the
/// draw goes into `cb`'s state; the timing opens a range for the object drawn with.
fn count_slow(d: &Device, cb: vk::CommandBuffer) {
    if d.recordings.armed() == 0 {
        return;
    }
    let _ = guarded(&d.health, "draw", || {
        // Lock-free counting only for the process's one device: the counting path jumps to that
        // device's next layer.
        let drawn = d
            .recordings
            .draw(vk::Handle::as_raw(cb), registry::is_sole(d));
        // With the timing setting: the draw opens a timed range unless one is open for the
        // same object (a change of object closes it, crate::hooks::state).
        if let (Some(t), Some(b)) = (d.timing(), drawn) {
            t.draw(cb, &b);
        }
    });
}

/// One draw command's hook, target, next function and paths.
macro_rules! draw_path {
    (draw, $name:ident, $field:ident, $pfn:ty, [$cb:ident : $cbty:ty $(, $arg:ident : $ty:ty)*]) => {
        /// The hook handed to the application for this draw command.
        ///
        /// # Safety
        /// The Vulkan command's valid usage: a command buffer of a device created through this
        /// layer, in the recording state, and valid arguments.
        #[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
        pub unsafe extern "system" fn $name($cb: $cbty $(, $arg: $ty)*) {
            // SAFETY: a target is this command's counting path or the sole device's next
            // function for this command, both of type `$pfn`.
            let f = unsafe {
                std::mem::transmute::<*mut (), $pfn>(targets::$name.load(Ordering::Relaxed))
            };
            // SAFETY: the application's arguments, unchanged.
            unsafe { f($cb $(, $arg)*) }
        }

        /// The hook handed to the application for this draw command: one jump through its
        /// target, arguments untouched (x86-64 System V: they stay in their registers and on
        /// the stack).
        ///
        /// # Safety
        /// The Vulkan command's valid usage: a command buffer of a device created through this
        /// layer, in the recording state, and valid arguments.
        #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
        #[unsafe(naked)]
        pub unsafe extern "system" fn $name($cb: $cbty $(, $arg: $ty)*) {
            // SAFETY: a target is this command's counting path or the sole device's next
            // function for this command, both of this signature; the jump leaves every
            // argument register and the stack as the caller set them.
            core::arch::naked_asm!(
                "jmp qword ptr [rip + {target}]",
                target = sym targets::$name,
            )
        }

        #[allow(non_snake_case)]
        mod $name {
            use super::*;
            use std::sync::atomic::AtomicPtr;

            /// The sole device's next function; null before any device.
            pub static NEXT: AtomicPtr<()> = AtomicPtr::new(std::ptr::null_mut());

            /// The counting path.
            #[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
            pub unsafe extern "system" fn counting($cb: $cbty $(, $arg: $ty)*) {
                // SAFETY: this is a draw command on `cb`.
                if !unsafe { crate::counter::count(vk::Handle::as_raw($cb)) } {
                    // SAFETY: the application's arguments, unchanged.
                    return unsafe { slow($cb $(, $arg)*) };
                }
                // SAFETY: a ready slot belongs to a command buffer of the sole device, whose
                // next function this is (set before any slot could be ready).
                let f = unsafe { std::mem::transmute::<*mut (), $pfn>(NEXT.load(Ordering::Relaxed)) };
                // SAFETY: the application's arguments, unchanged.
                unsafe { f($cb $(, $arg)*) }
            }

            /// The counting path, as crate::counter::count with the common case — the draw's
            /// command buffer owns the slot made ready last — in five instructions: compare
            /// that slot's key with the command buffer (the first argument, `rdi`), add one to
            /// its pending count (`Slot` is `repr(C)`: key at 0, pending at 8) and jump to the
            /// next layer. Anything else goes to [`miss`] with the arguments untouched.
            #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
            #[unsafe(naked)]
            pub unsafe extern "system" fn counting($cb: $cbty $(, $arg: $ty)*) {
                // SAFETY: LAST always points at a live slot; its pending count is written only
                // by a draw on the command buffer whose handle is its key (crate::counter::Slot),
                // which this is; NEXT is the sole device's next function for this command (set
                // before any slot could be ready). Only rax and the flags are clobbered, neither
                // of which carries an argument; the stack is untouched.
                core::arch::naked_asm!(
                    "mov rax, qword ptr [rip + {last}]",
                    "cmp qword ptr [rax], rdi",
                    "jne {miss}",
                    "inc qword ptr [rax + 8]",
                    "jmp qword ptr [rip + {next}]",
                    last = sym crate::counter::LAST,
                    miss = sym miss,
                    next = sym NEXT,
                )
            }

            /// The counting path where the slot made ready last is another command buffer's:
            /// this one's table entry, else the slow path.
            #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
            unsafe extern "system" fn miss($cb: $cbty $(, $arg: $ty)*) {
                // SAFETY: this is a draw command on `cb`.
                if !unsafe { crate::counter::count_in_table(vk::Handle::as_raw($cb)) } {
                    // SAFETY: the application's arguments, unchanged.
                    return unsafe { slow($cb $(, $arg)*) };
                }
                // SAFETY: as in `counting`.
                let f = unsafe { std::mem::transmute::<*mut (), $pfn>(NEXT.load(Ordering::Relaxed)) };
                // SAFETY: the application's arguments, unchanged.
                unsafe { f($cb $(, $arg)*) }
            }

            /// The slow path, inside the boundary.
            #[cold]
            #[inline(never)]
            pub unsafe extern "system" fn slow($cb: $cbty $(, $arg: $ty)*) {
                ffi_boundary(stringify!($name), || {
                    registry::with_device_of($cb, |d| {
                        let Some(next) = d.next.$field else { return };
                        count_slow(d, $cb);
                        // SAFETY: the application's arguments, unchanged.
                        unsafe { next($cb $(, $arg)*) };
                    });
                })
            }
        }
    };
    ($kind:ident, $($rest:tt)*) => {};
}

/// Points one draw hook where it should go now (see [`retarget`]).
macro_rules! retarget_one {
    (draw, $name:ident, $field:ident, $sole:ident) => {
        let direct = $sole.and_then(|d| {
            let next = d.next.$field? as *mut ();
            $name::NEXT.store(next, Ordering::Relaxed);
            (d.recordings.armed() == 0).then_some(next)
        });
        targets::$name.store(
            direct.unwrap_or($name::counting as *mut ()),
            Ordering::Relaxed,
        );
    };
    ($kind:ident, $name:ident, $field:ident, $sole:ident) => {};
}

/// A draw hook's jump target.
macro_rules! target {
    (draw, $name:ident) => {
        /// The hook's jump target (see the module documentation).
        pub static $name: AtomicPtr<()> = AtomicPtr::new(super::$name::counting as *mut ());
    };
    ($kind:ident, $name:ident) => {};
}

macro_rules! draw_paths {
    (
        global [$($global:tt)*]
        instance [$($instance:tt)*]
        instance_calls [$($icalls:tt)*]
        device [$($dk:ident $dw:ident $dname:ident . $dfield:ident : $dpfn:ty => $dbody:path [$($darg:ident : $dty:ty),*] $(-> $dret:ty)?;)*]
        device_calls [$($dcalls:tt)*]
    ) => {
        $( draw_path!($dk, $dname, $dfield, $dpfn, [$($darg : $dty),*]); )*

        #[allow(non_upper_case_globals)] // named for the draw command they serve
        mod targets {
            use std::sync::atomic::AtomicPtr;
            $( target!($dk, $dname); )*
        }

        /// Points every draw hook where it should go now: straight to the next layer while the
        /// process has one device and none of its command buffers has an interlocked fragment
        /// stage bound, else to the counting path. Called when devices come and go and when a
        /// device's armed count leaves or reaches zero.
        pub fn retarget() {
            let _g = RETARGET.lock();
            registry::with_sole(|sole| {
                if sole.is_none() {
                    // Several devices (or none): no slot may stay ready, since the counting
                    // path jumps to one device's functions.
                    crate::counter::disarm_all();
                }
                $( retarget_one!($dk, $dname, $dfield, sole); )*
            });
        }
    };
}

crate::table::vulkan_table!(draw_paths);
