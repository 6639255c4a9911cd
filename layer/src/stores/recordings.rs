//! Command buffers while they record: each one's [`CmdState`] (what its draws bind, set and
//! render to), whether it is a secondary, and how many have an interlocked fragment stage bound
//! (the draw hooks' targets follow that count: crate::draw_path).

use crate::counter::Counter;
use crate::model::draws::{CmdState, DrawGroup, Rendering};
use crate::model::object::Interlocked;
use crate::model::FastHash;
use parking_lot::{Mutex, MutexGuard};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// One command buffer's state and its lock-free draw counter, once one was needed.
#[derive(Default)]
struct Entry {
    state: CmdState,
    counter: Option<Counter>,
}

impl Entry {
    /// Folds the draws counted lock-free into the state: before anything changes it.
    fn absorb(&mut self) {
        let n = self.counter.as_ref().map_or(0, Counter::absorb);
        self.state.absorb(n);
    }

    fn active(&self) -> bool {
        self.state.active().is_some()
    }
}

/// Whether a command changed what a command buffer's draws bind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rearm {
    /// An interlocked object was bound and now another one (or none) is: its timed range ends.
    pub object_changed: bool,
}

pub struct Recordings {
    states: Mutex<HashMap<u64, Entry, FastHash>>,
    secondaries: Mutex<HashSet<u64>>,
    /// How many command buffers have an interlocked fragment stage bound: draws look at their
    /// command buffer's state only while this is not 0.
    armed: AtomicUsize,
    /// Called when the armed count reaches or leaves 0 (crate::draw_path's retarget).
    on_armed: fn(),
}

impl Recordings {
    pub fn new(on_armed: fn()) -> Recordings {
        Recordings {
            states: Mutex::new(HashMap::default()),
            secondaries: Mutex::new(HashSet::new()),
            armed: AtomicUsize::new(0),
            on_armed,
        }
    }

    fn states(&self) -> MutexGuard<'_, HashMap<u64, Entry, FastHash>> {
        self.states.lock()
    }

    fn secondaries(&self) -> MutexGuard<'_, HashSet<u64>> {
        self.secondaries.lock()
    }

    /// How many command buffers have an interlocked fragment stage bound.
    pub fn armed(&self) -> usize {
        self.armed.load(Ordering::Relaxed)
    }

    /// Follows a command buffer's binding coming or going.
    fn rearm(&self, was: bool, is: bool) {
        let reaches_or_leaves_zero = match (was, is) {
            (false, true) => self.armed.fetch_add(1, Ordering::Relaxed) == 0,
            (true, false) => self.armed.fetch_sub(1, Ordering::Relaxed) == 1,
            _ => false,
        };
        if reaches_or_leaves_zero {
            (self.on_armed)();
        }
    }

    /// A command on `cb` that may change what its draws depend on: `f` updates the state.
    pub fn update(&self, cb: u64, f: impl FnOnce(&mut CmdState)) -> Rearm {
        let mut m = self.states();
        let e = m.entry(cb).or_default();
        e.absorb();
        let was = e.state.active().map(Arc::as_ptr);
        f(&mut e.state);
        e.state.changed();
        let is = e.state.active().map(Arc::as_ptr);
        self.rearm(was.is_some(), is.is_some());
        Rearm {
            object_changed: was.is_some() && was != is,
        }
    }

    /// What `cb`'s render pass instance is, for vkCmdNextSubpass.
    pub fn render_pass(&self, cb: u64) -> Option<(u64, u32)> {
        self.states().get(&cb).and_then(|e| e.state.render_pass)
    }

    /// `cb` begins recording (`inherited`: the render pass instance a secondary continues).
    pub fn begin(&self, cb: u64, inherited: Option<Rendering>) {
        let mut m = self.states();
        if let Some(old) = m.remove(&cb) {
            self.rearm(old.active(), false);
        }
        m.insert(
            cb,
            Entry {
                state: CmdState::begin(inherited),
                counter: None,
            },
        );
    }

    /// `cb` ends: its draw groups, each to become one draw record.
    pub fn end(&self, cb: u64) -> Vec<DrawGroup> {
        let mut m = self.states();
        let Some(mut e) = m.remove(&cb) else {
            return Vec::new();
        };
        e.absorb();
        self.rearm(e.active(), false);
        e.state.groups
    }

    /// Command buffers reset or freed (`freed`: they are no longer secondaries either).
    pub fn forget(&self, cbs: &[u64], freed: bool) {
        {
            let mut m = self.states();
            for cb in cbs {
                if let Some(e) = m.remove(cb) {
                    self.rearm(e.active(), false);
                }
            }
        }
        if freed {
            let mut s = self.secondaries();
            for cb in cbs {
                s.remove(cb);
            }
        }
    }

    /// Command buffers allocated as secondary: their inheritance info is valid to read.
    pub fn add_secondaries(&self, cbs: &[u64]) {
        self.secondaries().extend(cbs.iter().copied());
    }

    pub fn is_secondary(&self, cb: u64) -> bool {
        self.secondaries().contains(&cb)
    }

    /// A draw that the lock-free path did not count. Counted when an interlocked fragment stage
    /// is bound; with `lock_free`, the next draws that repeat it count lock-free. The object drawn
    /// with, if any.
    pub fn draw(&self, cb: u64, lock_free: bool) -> Option<Arc<Interlocked>> {
        let mut m = self.states();
        let e = m.get_mut(&cb)?;
        e.absorb();
        e.state.draw();
        if lock_free && e.state.last.is_some() {
            e.counter.get_or_insert_with(Counter::new).arm(cb);
        }
        e.state.active().cloned()
    }
}
