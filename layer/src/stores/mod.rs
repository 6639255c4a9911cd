//! The device's state, in stores that own their locks: every lock is taken inside a store's
//! method and released before it returns, never held while calling down the chain, and no hook
//! touches one.

mod attachments;
mod modules;
mod objects;
mod recordings;
mod render_passes;
pub mod stats;
mod submissions;
pub mod timing;
mod verdicts;

pub use attachments::Attachments;
pub use modules::{ModuleEntry, Modules};
pub use objects::Objects;
pub use recordings::{Rearm, Recordings};
pub use render_passes::RenderPasses;
pub use stats::Stats;
pub use submissions::Submissions;
pub use timing::Timing;
pub use verdicts::{CodeKept, VerdictStore};

use parking_lot::{Mutex, MutexGuard};
use std::collections::HashMap;

/// Values by Vulkan handle, behind their own lock.
pub struct Keyed<V>(Mutex<HashMap<u64, V>>);

impl<V> Default for Keyed<V> {
    fn default() -> Self {
        Keyed(Mutex::new(HashMap::new()))
    }
}

impl<V: Clone> Keyed<V> {
    fn map(&self) -> MutexGuard<'_, HashMap<u64, V>> {
        self.0.lock()
    }

    pub fn get(&self, handle: u64) -> Option<V> {
        self.map().get(&handle).cloned()
    }

    pub fn insert(&self, handle: u64, v: V) {
        self.map().insert(handle, v);
    }

    pub fn remove(&self, handle: u64) -> Option<V> {
        self.map().remove(&handle)
    }

    pub fn contains(&self, handle: u64) -> bool {
        self.map().contains_key(&handle)
    }
}
