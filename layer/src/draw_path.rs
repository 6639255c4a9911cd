//! The draw commands' hot path. A draw is the most frequent call an application makes, so what
//! the layer adds to it is kept to a few instructions:
//!
//! - each draw hook jumps through one pointer, its *target*. While the process has one device
//!   through the layer and none of its command buffers has an interlocked fragment stage bound,
//!   the target is the next layer's function itself: the draw costs the layer one load and one
//!   jump;
//! - otherwise the target is the counting path: a command buffer whose draws repeat the previous
//!   draw's state has a [`Slot`] in a small direct-mapped table, keyed by its handle; a draw
//!   that finds its slot (first where the last slot made ready is, then in the table) adds one to the slot's pending count and jumps to the next layer.
//!   Anything else (the first draw after a change, another device, a table collision) takes the
//!   slow path: the command buffer's state under the device's lock
//!   ([`crate::draws::CmdState::draw`]), which may make the slot ready again.
//!
//! Pending draws are folded into the command buffer's state ([`Counter::absorb`]) before
//! anything changes it, and before its records are written. Vulkan's external synchronisation
//! of command buffers is what makes this sound without atomics read-modify-write: a command
//! buffer's draws, its state changes and its end are never concurrent.

use crate::dispatch::{self, guarded, DeviceData};
use crate::ffi::dispatch_key;
use ash::vk;
use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicPtr, AtomicU64, Ordering};
use std::sync::Mutex;

/// A slot's key while its command buffer's draws may not be counted lock-free. Never a valid
/// handle, so no lookup matches it.
const IDLE: u64 = u64::MAX;

/// A command buffer's lock-free draw counter.
pub struct Slot {
    /// The command buffer whose repeated draws count here, or [`IDLE`].
    key: AtomicU64,
    /// Draws counted here and not yet folded into the command buffer's state.
    pending: UnsafeCell<u64>,
}

// SAFETY: `pending` is written only by a draw on the command buffer whose handle is in `key`,
// and read and cleared only by a command on that same command buffer (under the device's lock).
// Vulkan requires the application to synchronise all commands on one command buffer externally,
// so these accesses never overlap. Other threads only read `key`, which is atomic.
unsafe impl Sync for Slot {}

/// What an empty table entry points at: a slot no handle matches.
static EMPTY: Slot = Slot {
    key: AtomicU64::new(IDLE),
    pending: UnsafeCell::new(0),
};

/// Table entries. A power of two; a collision costs only the slow path.
const WAYS: usize = 1024;

/// The direct-mapped table from command-buffer handle to its ready slot.
static TABLE: [AtomicPtr<Slot>; WAYS] =
    [const { AtomicPtr::new(&EMPTY as *const Slot as *mut Slot) }; WAYS];

/// The slot made ready last: checked before the table, so that the common case — one thread
/// recording many draws into one command buffer — costs no hashing.
static LAST: AtomicPtr<Slot> = AtomicPtr::new(&EMPTY as *const Slot as *mut Slot);

/// The entry of a command-buffer handle (Fibonacci hashing: handles are allocations a few
/// KiB apart, whose low bits alone would collide).
#[inline(always)]
fn way(cb: u64) -> usize {
    (cb.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - WAYS.trailing_zeros())) as usize
}

/// Slots of command buffers that no longer exist, for reuse. Slots are never freed: a lookup on
/// another thread may still read the key of a slot its table entry pointed at a moment ago.
static FREE: Mutex<Vec<&'static Slot>> = Mutex::new(Vec::new());

/// A command buffer's ownership of a slot; gives it back when the state is dropped.
pub struct Counter(&'static Slot);

impl Counter {
    fn new() -> Counter {
        let reused = FREE.lock().unwrap_or_else(|p| p.into_inner()).pop();
        Counter(reused.unwrap_or_else(|| {
            Box::leak(Box::new(Slot {
                key: AtomicU64::new(IDLE),
                pending: UnsafeCell::new(0),
            }))
        }))
    }

    /// Stops lock-free counting and returns the draws counted since the last call. Called only
    /// by a command on the slot's command buffer.
    pub fn absorb(&self) -> u64 {
        self.0.key.store(IDLE, Ordering::Relaxed);
        // SAFETY: see `Slot`: only commands on this slot's command buffer reach it.
        unsafe { std::mem::take(&mut *self.0.pending.get()) }
    }

    /// Lets the draws of `cb` count lock-free in this slot until the next [`Counter::absorb`].
    fn arm(&self, cb: u64) {
        self.0.key.store(cb, Ordering::Relaxed);
        let p = self.0 as *const Slot as *mut Slot;
        TABLE[way(cb)].store(p, Ordering::Relaxed);
        LAST.store(p, Ordering::Relaxed);
    }
}

impl Drop for Counter {
    fn drop(&mut self) {
        self.absorb();
        FREE.lock().unwrap_or_else(|p| p.into_inner()).push(self.0);
    }
}

impl std::fmt::Debug for Counter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Counter")
    }
}

/// Serialises [`retarget`]: the targets always reflect the last device set and armed count.
static RETARGET: Mutex<()> = Mutex::new(());

/// The slow path: the device of `cb`; when any of its command buffers has an interlocked
/// fragment stage bound, the draw goes into `cb`'s state, and the slot is made ready if the
/// next draw may just count.
fn count_slow(d: &DeviceData, cb: vk::CommandBuffer) {
    if d.armed.load(Ordering::Relaxed) == 0 {
        return;
    }
    let _ = guarded(&d.health, "draw", || {
        let raw = vk::Handle::as_raw(cb);
        let drawn = {
            let mut m = d.cmds.lock().unwrap_or_else(|p| p.into_inner());
            let Some(st) = m.get_mut(&raw) else {
                return;
            };
            st.absorb();
            st.draw();
            // Lock-free counting only where the next draw repeats this one, and only for the
            // process's one device: the counting path jumps to that device's next layer.
            if st.last.is_some() && dispatch::is_sole(d) {
                st.counter.get_or_insert_with(Counter::new).arm(raw);
            }
            st.active().cloned()
        };
        // With the timing setting: the draw opens a timed range unless one is open for the
        // same object (a change of object closes it, crate::cmd_hooks).
        if let (Some(t), Some(b)) = (&d.timing, drawn) {
            t.draw(cb, &b);
        }
    });
}

/// Runs `f` with the device of `cb` (lock-free when it is the process's only device).
#[inline(always)]
fn on_device<T>(cb: vk::CommandBuffer, f: impl FnOnce(&DeviceData) -> T) -> Option<T> {
    if vk::Handle::as_raw(cb) == 0 {
        return None;
    }
    // SAFETY: hooks are only reachable for command buffers of devices created through this
    // layer, which share their device's dispatch key.
    dispatch::with_device(unsafe { dispatch_key(cb) }, f)
}

/// Generates, for each draw command: its target and the sole device's next function, the hook
/// handed to the application, the counting path and the slow path; and [`retarget`].
macro_rules! draw_paths {
    ($( $hook:ident, $field:ident, $pfn:ty, ($($arg:ident : $ty:ty),*); )*) => {
        #[allow(non_upper_case_globals)] // named for the draw command they serve
        mod targets {
            use std::sync::atomic::AtomicPtr;
            $(
                /// The hook's jump target (see the module documentation).
                pub static $hook: AtomicPtr<()> = AtomicPtr::new(super::counting::$hook as *mut ());
            )*
        }
        #[allow(non_upper_case_globals)]
        mod nexts {
            use std::sync::atomic::AtomicPtr;
            $(
                /// The sole device's next function; null before any device.
                pub static $hook: AtomicPtr<()> = AtomicPtr::new(std::ptr::null_mut());
            )*
        }

        $(
            /// The hook handed to the application for this draw command.
            ///
            /// # Safety
            /// The Vulkan command's valid usage: a command buffer of a device created through
            /// this layer, in the recording state, and valid arguments.
            pub unsafe extern "system" fn $hook(cb: vk::CommandBuffer, $($arg: $ty),*) {
                // SAFETY: a target is this command's counting path or the sole device's next
                // function for this command, both of type `$pfn`.
                let f = unsafe {
                    std::mem::transmute::<*mut (), $pfn>(targets::$hook.load(Ordering::Relaxed))
                };
                // SAFETY: the application's arguments, unchanged.
                unsafe { f(cb, $($arg),*) }
            }
        )*

        mod counting {
            use super::*;
            $(
                pub unsafe extern "system" fn $hook(cb: vk::CommandBuffer, $($arg: $ty),*) {
                    let raw = vk::Handle::as_raw(cb);
                    // SAFETY: LAST and table entries always point at a live slot (slots are
                    // never freed).
                    let mut s = unsafe { &*LAST.load(Ordering::Relaxed) };
                    if s.key.load(Ordering::Relaxed) != raw {
                        // SAFETY: as above.
                        s = unsafe { &*TABLE[way(raw)].load(Ordering::Relaxed) };
                        if s.key.load(Ordering::Relaxed) != raw {
                            // SAFETY: the application's arguments, unchanged.
                            return unsafe { slow::$hook(cb, $($arg),*) };
                        }
                    }
                    // SAFETY: the slot is this command buffer's (see `Slot`).
                    unsafe { *s.pending.get() += 1 };
                    // SAFETY: a ready slot belongs to a command buffer of the sole device, whose
                    // next function this is (set before any slot could be ready).
                    let f = unsafe {
                        std::mem::transmute::<*mut (), $pfn>(nexts::$hook.load(Ordering::Relaxed))
                    };
                    // SAFETY: the application's arguments, unchanged.
                    unsafe { f(cb, $($arg),*) }
                }
            )*
        }

        mod slow {
            use super::*;
            $(
                #[cold]
                #[inline(never)]
                pub unsafe extern "system" fn $hook(cb: vk::CommandBuffer, $($arg: $ty),*) {
                    crate::dispatch::ffi_boundary(stringify!($hook), (), || {
                        on_device(cb, |d| {
                            let Some(next) = d.next.$field else { return };
                            count_slow(d, cb);
                            // SAFETY: the application's arguments, unchanged.
                            unsafe { next(cb, $($arg),*) };
                        });
                    })
                }
            )*
        }

        /// Points every draw hook where it should go now: straight to the next layer while the
        /// process has one device and none of its command buffers has an interlocked fragment
        /// stage bound, else to the counting path. Called when devices come and go and when a
        /// device's armed count leaves or reaches zero (under its command-buffer lock).
        pub fn retarget() {
            let _g = RETARGET.lock().unwrap_or_else(|p| p.into_inner());
            dispatch::with_sole(|sole| {
                if sole.is_none() {
                    // Several devices (or none): no slot may stay ready, since the counting
                    // path jumps to one device's functions. A slot's pending draws stay until
                    // its command buffer's next command folds them in.
                    for entry in TABLE.iter().chain(std::iter::once(&LAST)) {
                        // SAFETY: entries always point at a live slot.
                        unsafe { &*entry.load(Ordering::Relaxed) }
                            .key
                            .store(IDLE, Ordering::Relaxed);
                    }
                }
                $(
                    let direct = sole.and_then(|d| {
                        let next = d.next.$field? as *mut ();
                        nexts::$hook.store(next, Ordering::Relaxed);
                        (d.armed.load(Ordering::Relaxed) == 0).then_some(next)
                    });
                    targets::$hook.store(
                        direct.unwrap_or(counting::$hook as *mut ()),
                        Ordering::Relaxed,
                    );
                )*
            });
        }
    };
}

draw_paths! {
    cmd_draw, cmd_draw, vk::PFN_vkCmdDraw, (a: u32, b: u32, c: u32, e: u32);
    cmd_draw_indexed, cmd_draw_indexed, vk::PFN_vkCmdDrawIndexed, (a: u32, b: u32, c: u32, e: i32, f: u32);
    cmd_draw_indirect, cmd_draw_indirect, vk::PFN_vkCmdDrawIndirect, (b: vk::Buffer, o: vk::DeviceSize, n: u32, s: u32);
    cmd_draw_indexed_indirect, cmd_draw_indexed_indirect, vk::PFN_vkCmdDrawIndexedIndirect, (b: vk::Buffer, o: vk::DeviceSize, n: u32, s: u32);
    cmd_draw_indirect_count, cmd_draw_indirect_count, vk::PFN_vkCmdDrawIndirectCount, (b: vk::Buffer, o: vk::DeviceSize, cbuf: vk::Buffer, co: vk::DeviceSize, n: u32, s: u32);
    cmd_draw_indirect_count_khr, cmd_draw_indirect_count_khr, vk::PFN_vkCmdDrawIndirectCount, (b: vk::Buffer, o: vk::DeviceSize, cbuf: vk::Buffer, co: vk::DeviceSize, n: u32, s: u32);
    cmd_draw_indexed_indirect_count, cmd_draw_indexed_indirect_count, vk::PFN_vkCmdDrawIndexedIndirectCount, (b: vk::Buffer, o: vk::DeviceSize, cbuf: vk::Buffer, co: vk::DeviceSize, n: u32, s: u32);
    cmd_draw_indexed_indirect_count_khr, cmd_draw_indexed_indirect_count_khr, vk::PFN_vkCmdDrawIndexedIndirectCount, (b: vk::Buffer, o: vk::DeviceSize, cbuf: vk::Buffer, co: vk::DeviceSize, n: u32, s: u32);
    cmd_draw_mesh_tasks_ext, cmd_draw_mesh_tasks_ext, vk::PFN_vkCmdDrawMeshTasksEXT, (x: u32, y: u32, z: u32);
    cmd_draw_mesh_tasks_indirect_ext, cmd_draw_mesh_tasks_indirect_ext, vk::PFN_vkCmdDrawMeshTasksIndirectEXT, (b: vk::Buffer, o: vk::DeviceSize, n: u32, s: u32);
    cmd_draw_mesh_tasks_indirect_count_ext, cmd_draw_mesh_tasks_indirect_count_ext, vk::PFN_vkCmdDrawMeshTasksIndirectCountEXT, (b: vk::Buffer, o: vk::DeviceSize, cbuf: vk::Buffer, co: vk::DeviceSize, n: u32, s: u32);
    cmd_draw_multi_ext, cmd_draw_multi_ext, vk::PFN_vkCmdDrawMultiEXT, (n: u32, p: *const vk::MultiDrawInfoEXT, i: u32, f: u32, s: u32);
    cmd_draw_multi_indexed_ext, cmd_draw_multi_indexed_ext, vk::PFN_vkCmdDrawMultiIndexedEXT, (n: u32, p: *const vk::MultiDrawIndexedInfoEXT, i: u32, f: u32, s: u32, o: *const i32);
}
