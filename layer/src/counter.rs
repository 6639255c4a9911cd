//! Lock-free counting of repeated draws: a command buffer whose draws repeat the previous draw's
//! state has a [`Slot`] in a small direct-mapped table, keyed by its handle; a draw that finds
//! its slot (first where the last slot made ready is, then in the table) adds one to the slot's
//! pending count. Pending draws are folded into the command buffer's state ([`Counter::absorb`])
//! before anything changes it, and before its records are written.
//!
//! Vulkan's external synchronisation of command buffers is what makes this sound without atomic
//! read-modify-write: a command buffer's draws, its state changes and its end are never
//! concurrent.

use parking_lot::Mutex;
use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicPtr, AtomicU64, Ordering};

/// A slot's key while its command buffer's draws may not be counted lock-free. Never a valid
/// handle, so no lookup matches it.
const IDLE: u64 = u64::MAX;

/// A command buffer's lock-free draw counter. `repr(C)`: the draw hooks' machine code
/// (crate::draw_path) reads `key` at offset 0 and adds to `pending` at offset 8.
#[repr(C)]
pub struct Slot {
    /// The command buffer whose repeated draws count here, or [`IDLE`].
    key: AtomicU64,
    /// Draws counted here and not yet folded into the command buffer's state.
    pending: UnsafeCell<u64>,
}

const _: () = assert!(std::mem::offset_of!(Slot, key) == 0);
const _: () = assert!(std::mem::offset_of!(Slot, pending) == 8);

// SAFETY: `pending` is written only by a draw on the command buffer whose handle is in `key`,
// and read and cleared only by a command on that same command buffer (under its store's lock).
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
pub(crate) static LAST: AtomicPtr<Slot> = AtomicPtr::new(&EMPTY as *const Slot as *mut Slot);

/// The entry of a command-buffer handle (Fibonacci hashing: handles are allocations a few
/// KiB apart, whose low bits alone would collide).
#[inline(always)]
fn way(cb: u64) -> usize {
    (cb.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - WAYS.trailing_zeros())) as usize
}

/// Counts a draw of `cb` in its ready slot, if it has one; `false` sends the draw to the slow
/// path.
///
/// # Safety
/// The caller is a draw command on `cb` (see [`Slot`]).
#[inline(always)]
#[cfg_attr(all(target_arch = "x86_64", target_os = "linux"), allow(dead_code))]
pub(crate) unsafe fn count(cb: u64) -> bool {
    // SAFETY: LAST always points at a live slot (slots are never freed).
    let s = unsafe { &*LAST.load(Ordering::Relaxed) };
    if s.key.load(Ordering::Relaxed) != cb {
        // SAFETY: the caller's.
        return unsafe { count_in_table(cb) };
    }
    // SAFETY: the slot is this command buffer's, and the caller is a draw on it.
    unsafe { *s.pending.get() += 1 };
    true
}

/// [`count`] where `cb`'s slot is not [`LAST`]: its table entry.
///
/// # Safety
/// The caller is a draw command on `cb` (see [`Slot`]).
#[inline(always)]
pub(crate) unsafe fn count_in_table(cb: u64) -> bool {
    // SAFETY: table entries always point at a live slot (slots are never freed).
    let s = unsafe { &*TABLE[way(cb)].load(Ordering::Relaxed) };
    if s.key.load(Ordering::Relaxed) != cb {
        return false;
    }
    // SAFETY: the slot is this command buffer's, and the caller is a draw on it.
    unsafe { *s.pending.get() += 1 };
    true
}

/// Makes no slot ready: draws go to the slow path until slots are armed again (several devices
/// now share the process). A slot's pending draws stay until its command buffer's next command
/// folds them in.
pub(crate) fn disarm_all() {
    for entry in TABLE.iter().chain(std::iter::once(&LAST)) {
        // SAFETY: entries always point at a live slot.
        unsafe { &*entry.load(Ordering::Relaxed) }
            .key
            .store(IDLE, Ordering::Relaxed);
    }
}

/// Slots of command buffers that no longer exist, for reuse. Slots are never freed: a lookup on
/// another thread may still read the key of a slot its table entry pointed at a moment ago.
static FREE: Mutex<Vec<&'static Slot>> = Mutex::new(Vec::new());

/// A command buffer's ownership of a slot; gives it back when dropped.
pub struct Counter(&'static Slot);

impl Counter {
    pub fn new() -> Counter {
        let reused = FREE.lock().pop();
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
    pub fn arm(&self, cb: u64) {
        self.0.key.store(cb, Ordering::Relaxed);
        let p = self.0 as *const Slot as *mut Slot;
        TABLE[way(cb)].store(p, Ordering::Relaxed);
        LAST.store(p, Ordering::Relaxed);
    }
}

impl Default for Counter {
    fn default() -> Self {
        Counter::new()
    }
}

impl Drop for Counter {
    fn drop(&mut self) {
        self.absorb();
        FREE.lock().push(self.0);
    }
}

impl std::fmt::Debug for Counter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Counter")
    }
}
