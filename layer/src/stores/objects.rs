//! The device's objects as draws and records see them: interlocked pipelines and shader objects
//! (numbered in creation order), pipeline libraries, and the application's names of pipelines,
//! shader objects and shader modules (vkSetDebugUtilsObjectNameEXT,
//! vkDebugMarkerSetObjectNameEXT).

use super::Keyed;
use crate::model::object::{Interlocked, Library};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

#[derive(Default)]
pub struct Objects {
    interlocked: Keyed<Arc<Interlocked>>,
    /// Interlocked objects remembered so far ([`Interlocked::seq`]).
    seq: AtomicU64,
    /// Set once the device has an interlocked object: only then are command buffers tracked.
    any: AtomicBool,
    libraries: Keyed<Arc<Library>>,
    names: Keyed<String>,
}

impl Objects {
    /// The interlocked pipeline or shader object of a handle, if it is one.
    pub fn interlocked(&self, handle: u64) -> Option<Arc<Interlocked>> {
        if handle == 0 {
            return None;
        }
        self.interlocked.get(handle)
    }

    /// Remembers an interlocked pipeline or shader object, numbered in creation order; from now
    /// on command buffers are tracked. Returns its number.
    pub fn add_interlocked(&self, mut o: Interlocked) -> u64 {
        let seq = self.seq.fetch_add(1, Ordering::Relaxed) + 1;
        o.seq = seq;
        self.interlocked.insert(o.handle, Arc::new(o));
        self.any.store(true, Ordering::Relaxed);
        seq
    }

    /// Whether the device has had an interlocked object.
    pub fn any_interlocked(&self) -> bool {
        self.any.load(Ordering::Relaxed)
    }

    pub fn library(&self, handle: u64) -> Option<Arc<Library>> {
        self.libraries.get(handle)
    }

    pub fn add_library(&self, handle: u64, l: Library) {
        self.libraries.insert(handle, Arc::new(l));
    }

    /// An object is destroyed: its handle may be reused, so its name goes too.
    pub fn remove(&self, handle: u64) {
        self.interlocked.remove(handle);
        self.libraries.remove(handle);
        self.names.remove(handle);
    }

    /// The application's name of an object.
    pub fn name(&self, handle: u64) -> Option<String> {
        self.names.get(handle)
    }

    /// The application names an object (`None`: an empty or NULL name removes it); an
    /// interlocked object carries its name from now on.
    pub fn set_name(&self, handle: u64, name: Option<String>) {
        match &name {
            Some(n) => self.names.insert(handle, n.clone()),
            None => {
                self.names.remove(handle);
            }
        }
        if let Some(o) = self.interlocked(handle) {
            o.name.set(name);
        }
    }
}
