//! Every instance and device created through the layer, by the loader's dispatch key — the one
//! place that maps a dispatchable handle to the layer's state (google/vk-layer-for-rust's way).
//!
//! The maps sit behind `RwLock`s that are held only to clone an `Arc` out or to insert/remove;
//! no lock is ever held while calling down the chain, so a layer or driver below that calls back
//! into the loader (or another thread creating pipelines) never waits on us. The process's sole
//! device, the usual case, is also reachable without any lock, for the command-recording hooks.

use crate::device::Device;
use crate::ffi::dispatch_key;
use crate::instance::Instance;
use ash::vk;
use parking_lot::RwLock;
use std::collections::HashMap;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::{Arc, OnceLock};

type Map<T> = RwLock<HashMap<usize, Arc<T>>>;

fn instances() -> &'static Map<Instance> {
    static M: OnceLock<Map<Instance>> = OnceLock::new();
    M.get_or_init(Default::default)
}

fn devices() -> &'static Map<Device> {
    static M: OnceLock<Map<Device>> = OnceLock::new();
    M.get_or_init(Default::default)
}

pub fn insert_instance(key: usize, data: Instance) {
    let mut m = instances().write();
    m.insert(key, Arc::new(data));
}

pub fn instance(key: usize) -> Option<Arc<Instance>> {
    let m = instances().read();
    m.get(&key).cloned()
}

pub fn remove_instance(key: usize) -> Option<Arc<Instance>> {
    let mut m = instances().write();
    m.remove(&key)
}

/// The instance of a dispatchable instance-level handle (an instance or a physical device,
/// which share their instance's dispatch key).
pub fn instance_of<H: vk::Handle + Copy>(h: H) -> Option<Arc<Instance>> {
    if h.as_raw() == 0 {
        return None;
    }
    // SAFETY: instance-level hooks are only reachable for handles of instances created through
    // the loader, whose first word is the dispatch key.
    instance(unsafe { dispatch_key(h) })
}

/// The device, when the process has exactly one (the usual case): the command-recording hooks,
/// called per draw, find it with one atomic load instead of the map's lock. Updated under the
/// map's write lock whenever a device comes or goes. A pointer read here stays valid while its
/// device exists; recording on a device while destroying it is invalid usage.
static SOLE_DEVICE: AtomicPtr<Device> = AtomicPtr::new(std::ptr::null_mut());

fn update_sole(m: &HashMap<usize, Arc<Device>>) {
    let p = match m.values().next() {
        Some(d) if m.len() == 1 => Arc::as_ptr(d) as *mut Device,
        _ => std::ptr::null_mut(),
    };
    SOLE_DEVICE.store(p, Ordering::Release);
}

pub fn insert_device(key: usize, data: Device) {
    let mut m = devices().write();
    m.insert(key, Arc::new(data));
    update_sole(&m);
}

/// Runs `f` on the device of dispatch key `key`: lock-free when it is the process's only device.
#[inline]
pub fn with_device<T>(key: usize, f: impl FnOnce(&Device) -> T) -> Option<T> {
    let p = SOLE_DEVICE.load(Ordering::Acquire);
    // SAFETY: a non-null SOLE_DEVICE points into an Arc the devices map holds; it is cleared
    // before that Arc leaves the map (remove_device), and the application may not use a device
    // it is destroying.
    if let Some(d) = unsafe { p.as_ref() } {
        if d.key == key {
            return Some(f(d));
        }
    }
    device(key).map(|d| f(&d))
}

/// Runs `f` on the device of a dispatchable device-level handle (a device, queue or command
/// buffer, which share their device's dispatch key).
#[inline]
pub fn with_device_of<H: vk::Handle + Copy, T>(h: H, f: impl FnOnce(&Device) -> T) -> Option<T> {
    if h.as_raw() == 0 {
        return None;
    }
    // SAFETY: device-level hooks are only reachable for handles of devices created through this
    // layer, whose first word is the dispatch key.
    with_device(unsafe { dispatch_key(h) }, f)
}

/// Whether `d` is the process's only device through the layer.
pub fn is_sole(d: &Device) -> bool {
    std::ptr::eq(SOLE_DEVICE.load(Ordering::Acquire), d)
}

/// Runs `f` with the process's only device through the layer, if there is exactly one; the
/// device cannot leave while `f` runs.
pub fn with_sole<T>(f: impl FnOnce(Option<&Device>) -> T) -> T {
    let m = devices().read();
    let sole = match m.values().next() {
        Some(d) if m.len() == 1 => Some(&**d),
        _ => None,
    };
    f(sole)
}

pub fn device(key: usize) -> Option<Arc<Device>> {
    let m = devices().read();
    m.get(&key).cloned()
}

pub fn remove_device(key: usize) -> Option<Arc<Device>> {
    let mut m = devices().write();
    let d = m.remove(&key);
    update_sole(&m);
    d
}

/// Every live device, where the map can be read without waiting (process exit: a thread that
/// holds it may never run again).
pub fn devices_now() -> Vec<Arc<Device>> {
    devices()
        .try_read()
        .map(|m| m.values().cloned().collect())
        .unwrap_or_default()
}
