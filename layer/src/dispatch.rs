//! Per-instance and per-device state, keyed by the loader's dispatch key.
//!
//! The maps sit behind `RwLock`s that are held only to clone an `Arc` out or to insert/remove;
//! no lock is ever held while calling down the chain, so a layer or driver below that calls back
//! into the loader (or another thread creating pipelines) never waits on us.

use crate::capture::{AttachmentUse, DrawState};
use crate::compute::{InterlockFeatures, ModuleAnalysis};
use crate::draws::{Bindable, CmdState};
use crate::settings::Settings;
use ash::vk;
use pm4::{Family, InterlockMode};
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

/// The next layer's instance-level functions this layer calls.
pub struct InstanceData {
    pub handle: vk::Instance,
    pub next_gipa: vk::PFN_vkGetInstanceProcAddr,
    pub destroy_instance: Option<vk::PFN_vkDestroyInstance>,
    pub get_physical_device_properties: Option<vk::PFN_vkGetPhysicalDeviceProperties>,
    pub get_physical_device_properties2: Option<vk::PFN_vkGetPhysicalDeviceProperties2>,
    pub get_physical_device_queue_family_properties:
        Option<vk::PFN_vkGetPhysicalDeviceQueueFamilyProperties>,
    pub enumerate_device_extension_properties: Option<vk::PFN_vkEnumerateDeviceExtensionProperties>,
    pub settings: Settings,
    pub app: String,
    pub create_debug_utils_messenger: Option<vk::PFN_vkCreateDebugUtilsMessengerEXT>,
    pub destroy_debug_utils_messenger: Option<vk::PFN_vkDestroyDebugUtilsMessengerEXT>,
    /// The application's debug-utils messengers, shared with the instance's devices.
    pub messengers: Arc<crate::messenger::Messengers>,
    /// Whether the layer still works for this instance, shared with its devices.
    pub health: Arc<Health>,
}

/// A shader module's SPIR-V, analysed the first time a graphics pipeline uses it as a fragment
/// stage: vertex, compute and unused modules never cost an analysis.
pub struct ModuleEntry {
    words: Box<[u32]>,
    analysis: OnceLock<Arc<ModuleAnalysis>>,
    /// The interlock experiment applied to the module (`words` are then the rewritten ones).
    pub experiment: Option<pops_report::Experiment>,
}

impl ModuleEntry {
    pub fn new(words: Vec<u32>) -> Self {
        ModuleEntry {
            words: words.into_boxed_slice(),
            analysis: OnceLock::new(),
            experiment: None,
        }
    }

    /// The module's words.
    pub fn words(&self) -> &[u32] {
        &self.words
    }

    pub fn analysis(&self) -> Arc<ModuleAnalysis> {
        self.analysis
            .get_or_init(|| crate::compute::analyze_module_cached(&self.words))
            .clone()
    }
}

/// What a graphics pipeline library contributes to pipelines linked from it.
#[derive(Clone, Debug)]
pub struct LibraryInfo {
    /// The fragment stage: the module analysis and entry point, with where it came from.
    pub fragment: Option<LibraryFragment>,
    pub draw: DrawState,
}

#[derive(Clone, Debug)]
pub struct LibraryFragment {
    pub analysis: Arc<ModuleAnalysis>,
    pub entry: String,
    pub source: &'static str,
    /// The stage's content hash (`shaders::spirv::stage_hash`); `None` where the SPIR-V is not
    /// visible (module identifiers, binaries).
    pub hash: Option<String>,
    /// The application's name of the shader module it came from, where it had one.
    pub module_name: Option<String>,
    /// The interlock experiment applied to it, if any.
    pub experiment: Option<pops_report::Experiment>,
}

/// Counters for the summary at vkDestroyDevice.
#[derive(Default)]
pub struct Stats {
    pub analysed: AtomicU64,
    pub interlocked: AtomicU64,
    pub flagged: AtomicU64,
    pub unknown: AtomicU64,
    /// Draw commands recorded with an interlocked fragment stage bound, and the draw records
    /// they gave (one per command buffer × bound object × draw state).
    pub draws: AtomicU64,
    pub draw_records: AtomicU64,
    pub by_mode: Mutex<HashMap<InterlockMode, u64>>,
}

/// The next layer's device-level functions and what the layer knows of the device.
pub struct DeviceData {
    pub handle: vk::Device,
    /// The loader's dispatch key of the device (and of its command buffers).
    pub key: usize,
    pub next_gdpa: vk::PFN_vkGetDeviceProcAddr,
    pub device_name: String,
    pub app: String,
    pub chip: Option<Family>,
    pub features: InterlockFeatures,
    pub settings: Settings,
    pub modules: Mutex<HashMap<u64, Arc<ModuleEntry>>>,
    pub libraries: Mutex<HashMap<u64, Arc<LibraryInfo>>>,
    /// Per render pass, the attachments each subpass uses: what decides which pipeline create
    /// info members the specification makes valid.
    pub render_passes: Mutex<HashMap<u64, Arc<[AttachmentUse]>>>,
    pub stats: Stats,
    /// The next layer's command-buffer functions.
    /// The next layer's intercepted functions (crate::intercept's table).
    pub next: crate::intercept::Next,
    /// Set once the device has an interlocked pipeline or shader object: only then are command
    /// buffers tracked.
    pub tracking: AtomicBool,
    /// Interlocked complete pipelines and fragment shader objects, by handle.
    pub bindables: Mutex<HashMap<u64, Arc<Bindable>>>,
    /// Each command buffer's recording state.
    pub cmds: Mutex<HashMap<u64, CmdState, crate::compute::FastHash>>,
    /// How many command buffers have an interlocked fragment stage bound: draws look at their
    /// command buffer's state only while this is not 0.
    pub armed: std::sync::atomic::AtomicUsize,
    /// Command buffers allocated as secondary (their inheritance info is valid to read).
    pub secondaries: Mutex<std::collections::HashSet<u64>>,
    /// Depth/stencil images and their views: (format, samples).
    pub images: Mutex<HashMap<u64, (vk::Format, u32)>>,
    pub views: Mutex<HashMap<u64, (vk::Format, u32)>>,
    /// The application's names of pipelines, shader objects and shader modules
    /// (vkSetDebugUtilsObjectNameEXT, vkDebugMarkerSetObjectNameEXT).
    pub names: Mutex<HashMap<u64, String>>,
    /// The instance's debug-utils messengers.
    pub messengers: Arc<crate::messenger::Messengers>,
    /// The instance's health: a panic in the layer's work degrades the instance.
    pub health: Arc<Health>,
    /// The interlock experiment this device runs (the `experiment` setting), if any.
    pub experiment: Option<crate::experiment::Active>,
    /// Interlocked objects remembered so far ([`Bindable::seq`]).
    pub bindable_seq: AtomicU64,
    /// GPU time of interlocked work (the `timing` setting), where the device allows it.
    pub timing: Option<crate::timing::Timing>,
}

impl DeviceData {
    /// The interlocked pipeline or shader object of a handle, if it is one.
    pub fn bindable(&self, handle: u64) -> Option<Arc<Bindable>> {
        if handle == 0 {
            return None;
        }
        let m = self.bindables.lock().unwrap_or_else(|p| p.into_inner());
        m.get(&handle).cloned()
    }

    /// Remembers an interlocked pipeline or shader object; from now on draws are tracked.
    pub fn add_bindable(&self, mut b: Bindable) {
        b.seq = self.bindable_seq.fetch_add(1, Ordering::Relaxed) + 1;
        let mut m = self.bindables.lock().unwrap_or_else(|p| p.into_inner());
        m.insert(b.handle, Arc::new(b));
        self.tracking.store(true, Ordering::Relaxed);
    }

    /// An object is destroyed: its handle may be reused, so its name goes too.
    pub fn remove_bindable(&self, handle: u64) {
        let mut m = self.bindables.lock().unwrap_or_else(|p| p.into_inner());
        m.remove(&handle);
        drop(m);
        let mut n = self.names.lock().unwrap_or_else(|p| p.into_inner());
        n.remove(&handle);
    }

    /// A depth/stencil image view's (format, samples).
    pub fn view(&self, handle: u64) -> Option<(vk::Format, u32)> {
        let m = self.views.lock().unwrap_or_else(|p| p.into_inner());
        m.get(&handle).copied()
    }
}

type Map<T> = RwLock<HashMap<usize, Arc<T>>>;

fn instances() -> &'static Map<InstanceData> {
    static M: OnceLock<Map<InstanceData>> = OnceLock::new();
    M.get_or_init(Default::default)
}

fn devices() -> &'static Map<DeviceData> {
    static M: OnceLock<Map<DeviceData>> = OnceLock::new();
    M.get_or_init(Default::default)
}

pub fn insert_instance(key: usize, data: InstanceData) {
    let mut m = instances().write().unwrap_or_else(|p| p.into_inner());
    m.insert(key, Arc::new(data));
}

pub fn instance(key: usize) -> Option<Arc<InstanceData>> {
    let m = instances().read().unwrap_or_else(|p| p.into_inner());
    m.get(&key).cloned()
}

pub fn remove_instance(key: usize) -> Option<Arc<InstanceData>> {
    let mut m = instances().write().unwrap_or_else(|p| p.into_inner());
    m.remove(&key)
}

/// The device, when the process has exactly one (the usual case): the command-recording hooks,
/// called per draw, find it with one atomic load instead of the map's lock. Updated under the
/// map's write lock whenever a device comes or goes. A pointer read here stays valid while its
/// device exists; recording on a device while destroying it is invalid usage.
static SOLE_DEVICE: std::sync::atomic::AtomicPtr<DeviceData> =
    std::sync::atomic::AtomicPtr::new(std::ptr::null_mut());

fn update_sole(m: &HashMap<usize, Arc<DeviceData>>) {
    let p = match m.values().next() {
        Some(d) if m.len() == 1 => Arc::as_ptr(d) as *mut DeviceData,
        _ => std::ptr::null_mut(),
    };
    SOLE_DEVICE.store(p, Ordering::Release);
}

pub fn insert_device(key: usize, data: DeviceData) {
    let mut m = devices().write().unwrap_or_else(|p| p.into_inner());
    m.insert(key, Arc::new(data));
    update_sole(&m);
}

/// Runs `f` on the device of dispatch key `key`: lock-free when it is the process's only device.
#[inline]
pub fn with_device<T>(key: usize, f: impl FnOnce(&DeviceData) -> T) -> Option<T> {
    let p = SOLE_DEVICE.load(Ordering::Acquire);
    // SAFETY: a non-null SOLE_DEVICE points into an Arc the devices map holds; it is cleared
    // before that Arc leaves the map (remove_device), and the application may not record on a
    // device it is destroying.
    if let Some(d) = unsafe { p.as_ref() } {
        if d.key == key {
            return Some(f(d));
        }
    }
    device(key).map(|d| f(&d))
}

/// Whether `d` is the process's only device through the layer.
pub fn is_sole(d: &DeviceData) -> bool {
    std::ptr::eq(SOLE_DEVICE.load(Ordering::Acquire), d)
}

/// Runs `f` with the process's only device through the layer, if there is exactly one; the
/// device cannot leave while `f` runs.
pub fn with_sole<T>(f: impl FnOnce(Option<&DeviceData>) -> T) -> T {
    let m = devices().read().unwrap_or_else(|p| p.into_inner());
    let sole = match m.values().next() {
        Some(d) if m.len() == 1 => Some(&**d),
        _ => None,
    };
    f(sole)
}

pub fn device(key: usize) -> Option<Arc<DeviceData>> {
    let m = devices().read().unwrap_or_else(|p| p.into_inner());
    m.get(&key).cloned()
}

pub fn remove_device(key: usize) -> Option<Arc<DeviceData>> {
    let mut m = devices().write().unwrap_or_else(|p| p.into_inner());
    let d = m.remove(&key);
    update_sole(&m);
    d
}

/// Whether the layer still does its work for one instance and its devices. A contained panic
/// switches only that instance to pass-through: other instances of the process (another
/// application context, a tool's own instance) keep their analysis.
#[derive(Debug, Default)]
pub struct Health {
    degraded: AtomicBool,
    /// Debug builds only: the name of the guarded work that panics on purpose (the test setting
    /// `test_fault` given through VK_EXT_layer_settings), to test the containment.
    fault: Option<String>,
}

impl Health {
    pub fn new(fault: Option<String>) -> Health {
        Health {
            degraded: AtomicBool::new(false),
            fault: if cfg!(debug_assertions) { fault } else { None },
        }
    }

    /// Whether a contained panic switched this instance to pure pass-through.
    pub fn degraded(&self) -> bool {
        self.degraded.load(Ordering::Relaxed)
    }
}

/// The whole body of every function the layer hands to the loader runs in here: a panic
/// anywhere in it — the layer's own work is already contained by [`guarded`], so this catches
/// what is left, the glue around it — never unwinds into the caller's C frames (which would
/// abort the application) but returns `fallback` (`VK_ERROR_UNKNOWN`, NULL, nothing) and is
/// logged. The draw hooks' fast paths (crate::draw_path) are the one exception: loads, a
/// compare, an increment and a jump, with nothing that can panic; their slow path runs in here.
pub fn ffi_boundary<T>(what: &str, fallback: T, body: impl FnOnce() -> T) -> T {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(v) => v,
        Err(_) => {
            log::error!("internal error in {what}: contained at the boundary to the application");
            fallback
        }
    }
}

/// Runs the layer's own work (never a call down the chain) with panics contained: a panic
/// switches the instance `health` belongs to to pass-through, and is logged once.
pub fn guarded<T>(health: &Health, what: &str, f: impl FnOnce() -> T) -> Option<T> {
    if health.degraded() {
        return None;
    }
    let fault = health.fault.as_deref() == Some(what);
    match catch_unwind(AssertUnwindSafe(|| {
        if fault {
            panic!("fault injected in {what} (test_fault)");
        }
        f()
    })) {
        Ok(v) => Some(v),
        Err(payload) => {
            if !health.degraded.swap(true, Ordering::Relaxed) {
                let msg = payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "non-string panic".to_string());
                log::error!(
                    "internal error in {what}: {msg}; VK_LAYER_POPS_interlock now passes every call of this instance through without analysis"
                );
            }
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_boundary_turns_a_panic_into_the_fallback() {
        let prev = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let r = ffi_boundary("test", 7, || -> i32 { panic!("boom") });
        std::panic::set_hook(prev);
        assert_eq!(r, 7);
        assert_eq!(ffi_boundary("test", 7, || 3), 3);
    }

    /// By construction: every function the layer hands to the loader runs its whole body in
    /// `ffi_boundary`, but for the draw hooks' fast paths (a jump; loads, a compare, an
    /// increment and a jump), which are listed here by name.
    #[test]
    fn every_hook_body_runs_in_the_boundary() {
        let sources = [
            ("hooks.rs", include_str!("hooks.rs")),
            ("objects.rs", include_str!("objects.rs")),
            ("cmd_hooks.rs", include_str!("cmd_hooks.rs")),
            ("queue_hooks.rs", include_str!("queue_hooks.rs")),
            ("draw_path.rs", include_str!("draw_path.rs")),
            ("lib.rs", include_str!("lib.rs")),
        ];
        let mut checked = 0;
        for (file, text) in sources {
            let lines: Vec<&str> = text.lines().collect();
            for (i, l) in lines.iter().enumerate() {
                let t = l.trim_start();
                let Some(rest) = t
                    .strip_prefix("pub(crate) unsafe extern \"system\" fn ")
                    .or_else(|| t.strip_prefix("pub unsafe extern \"system\" fn "))
                    .or_else(|| t.strip_prefix("unsafe extern \"system\" fn "))
                else {
                    continue;
                };
                if t.starts_with("unsafe extern \"system\" fn callback") {
                    continue;
                }
                let name: String = rest.chars().take_while(|c| *c != '(').collect();
                // The fast paths of the draw hooks (draw_path's module documentation).
                let fast = file == "draw_path.rs"
                    && lines[i.saturating_sub(8)..i].iter().any(|p| {
                        p.contains("The hook handed to the application")
                            || p.contains("mod counting")
                    });
                if fast || name == "vkNegotiateLoaderLayerInterfaceVersion" {
                    continue;
                }
                let body = lines[i..(i + 12).min(lines.len())].join("\n");
                let open = body.find('{').unwrap_or(0);
                let first = body[open + 1..]
                    .lines()
                    .map(str::trim)
                    .find(|l| !l.is_empty())
                    .unwrap_or("");
                assert!(
                    first.starts_with("crate::dispatch::ffi_boundary("),
                    "{file}: {name} does not run its body in ffi_boundary (first line: {first})"
                );
                checked += 1;
            }
        }
        assert!(checked > 25, "{checked} hooks checked");
    }

    /// A panic is contained, degrades only the instance it happened in, and is never retried
    /// there.
    #[test]
    fn a_panic_degrades_only_its_instance() {
        let (a, b) = (Health::default(), Health::default());
        assert_eq!(guarded(&a, "test", || 3), Some(3));
        let prev = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        assert_eq!(guarded::<u32>(&a, "test", || panic!("boom")), None);
        std::panic::set_hook(prev);
        assert!(a.degraded());
        assert_eq!(
            guarded(&a, "test", || 3),
            None,
            "a degraded instance does no work"
        );
        assert!(!b.degraded());
        assert_eq!(
            guarded(&b, "test", || 4),
            Some(4),
            "other instances keep working"
        );
    }

    /// The test fault (debug builds) panics exactly in the named work.
    #[test]
    fn the_test_fault_panics_in_the_named_work_only() {
        let h = Health::new(Some("vkCreateShaderModule".into()));
        assert_eq!(guarded(&h, "vkCreateGraphicsPipelines", || 1), Some(1));
        let prev = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        assert_eq!(guarded(&h, "vkCreateShaderModule", || 1), None);
        std::panic::set_hook(prev);
        assert!(h.degraded());
    }
}
