//! The loader chain: vkGetInstanceProcAddr / vkGetDeviceProcAddr, instance and device life
//! (settings, chip identification, the next layer's functions resolved once), and the
//! debug-utils messengers. Each hook calls down the chain exactly once with the application's own
//! arguments; the layer's work happens inside [`guarded`]. The object hooks are in
//! [`crate::objects`], the command-buffer hooks in [`crate::cmd_hooks`], both listed in
//! [`crate::intercept`]'s table.

use crate::compute::InterlockFeatures;
use crate::dispatch::{self, guarded, DeviceData, InstanceData};
use crate::ffi::{self, dispatch_key, LayerFunction};
use crate::report;
use crate::settings::{self, Settings};
use ash::vk;
use std::ffi::{c_char, CStr};
use std::sync::{Arc, Once};

type Void = unsafe extern "system" fn();

macro_rules! pfn {
    ($f:expr, $t:ty) => {{
        let f: $t = $f;
        // SAFETY: a function pointer cast to the generic PFN_vkVoidFunction, as the loader expects;
        // the caller casts it back to the type its name implies.
        Some(unsafe { std::mem::transmute::<$t, Void>(f) })
    }};
}

/// Casts the next layer's PFN_vkVoidFunction to the function type its name implies.
macro_rules! cast {
    ($p:expr, $t:ty) => {{
        let p: vk::PFN_vkVoidFunction = $p;
        // SAFETY: the pointer was returned for the name whose prototype is `$t`.
        p.map(|f| unsafe { std::mem::transmute::<Void, $t>(f) })
    }};
}

fn name_of(p_name: *const c_char) -> Option<&'static CStr> {
    if p_name.is_null() {
        return None;
    }
    // SAFETY: the loader and applications pass null-terminated names; the reference does not
    // outlive this call in practice (the 'static is only for the match below).
    Some(unsafe { CStr::from_ptr(p_name) })
}

/// Device-level hooks by name, returned only where the next layer has the function.
fn device_hook(name: &[u8]) -> vk::PFN_vkVoidFunction {
    match name {
        b"vkGetDeviceProcAddr" => pfn!(get_device_proc_addr, vk::PFN_vkGetDeviceProcAddr),
        _ => crate::intercept::hook(name),
    }
}

/// The instance-level functions this layer intercepts, beside the device-level ones of
/// [`crate::intercept::NAMES`].
pub const INSTANCE_INTERCEPTED: &[&str] = &[
    "vkGetInstanceProcAddr",
    "vkCreateInstance",
    "vkDestroyInstance",
    "vkCreateDevice",
    "vkCreateDebugUtilsMessengerEXT",
    "vkDestroyDebugUtilsMessengerEXT",
    "vkGetDeviceProcAddr",
];

/// Every name this layer intercepts (used by tests of pointer identity).
pub fn intercepted() -> impl Iterator<Item = &'static str> {
    INSTANCE_INTERCEPTED
        .iter()
        .chain(crate::intercept::NAMES)
        .copied()
}

/// The layer's vkGetInstanceProcAddr.
///
/// # Safety
/// Called by the loader or application with a valid (or null) instance and name.
pub unsafe extern "system" fn get_instance_proc_addr(
    instance: vk::Instance,
    p_name: *const c_char,
) -> vk::PFN_vkVoidFunction {
    crate::dispatch::ffi_boundary("get_instance_proc_addr", None, || {
        let name = name_of(p_name)?;
        let n = name.to_bytes();
        // Global commands answered with or without an instance.
        match n {
            b"vkGetInstanceProcAddr" => {
                return pfn!(get_instance_proc_addr, vk::PFN_vkGetInstanceProcAddr)
            }
            b"vkCreateInstance" => return pfn!(create_instance, vk::PFN_vkCreateInstance),
            _ => {}
        }
        if instance == vk::Instance::null() {
            // NULL instance: only global commands are defined, and the loader answers
            // vkEnumerateInstance* from the manifest; nothing else may be returned.
            return None;
        }
        // SAFETY: a non-null instance handle passed to GetInstanceProcAddr is a live instance.
        let inst = dispatch::instance(unsafe { dispatch_key(instance) })?;
        if n == b"vkGetDeviceProcAddr" {
            return pfn!(get_device_proc_addr, vk::PFN_vkGetDeviceProcAddr);
        }
        // SAFETY: the next layer's GIPA with the instance it created.
        let next = unsafe { (inst.next_gipa)(instance, p_name) };
        let ours = match n {
            b"vkDestroyInstance" => pfn!(destroy_instance, vk::PFN_vkDestroyInstance),
            b"vkCreateDevice" => pfn!(create_device, vk::PFN_vkCreateDevice),
            b"vkCreateDebugUtilsMessengerEXT" => pfn!(
                create_debug_utils_messenger,
                vk::PFN_vkCreateDebugUtilsMessengerEXT
            ),
            b"vkDestroyDebugUtilsMessengerEXT" => pfn!(
                destroy_debug_utils_messenger,
                vk::PFN_vkDestroyDebugUtilsMessengerEXT
            ),
            // The timing's hooks only for an instance whose devices time.
            _ if !inst.settings.timing && crate::intercept::TIMING_ONLY.contains(&n) => None,
            _ => device_hook(n),
        };
        match ours {
            Some(f) if next.is_some() => Some(f),
            _ => next,
        }
    })
}

/// The layer's vkGetDeviceProcAddr.
///
/// # Safety
/// Called by the loader or application with a valid device and name.
pub unsafe extern "system" fn get_device_proc_addr(
    device: vk::Device,
    p_name: *const c_char,
) -> vk::PFN_vkVoidFunction {
    crate::dispatch::ffi_boundary("get_device_proc_addr", None, || {
        let name = name_of(p_name)?;
        if device == vk::Device::null() {
            return None;
        }
        // SAFETY: a live device handle.
        let d = dispatch::device(unsafe { dispatch_key(device) })?;
        if name.to_bytes() == b"vkGetDeviceProcAddr" {
            return pfn!(get_device_proc_addr, vk::PFN_vkGetDeviceProcAddr);
        }
        // SAFETY: the next layer's GDPA with the device it created.
        let next = unsafe { (d.next_gdpa)(device, p_name) };
        // The timing's hooks only where the device times: the layer is otherwise invisible
        // to submissions.
        if d.timing.is_none() && crate::intercept::TIMING_ONLY.contains(&name.to_bytes()) {
            return next;
        }
        match device_hook(name.to_bytes()) {
            Some(f) if next.is_some() => Some(f),
            _ => next,
        }
    })
}

fn init_logging(settings: &Settings) {
    static INIT: Once = Once::new();
    INIT.call_once(|| {
        let _ = env_logger::Builder::new()
            .filter_level(log::LevelFilter::Trace)
            .format(|buf, rec| {
                use std::io::Write;
                writeln!(
                    buf,
                    "[VK_LAYER_POPS_interlock {}] {}",
                    rec.level(),
                    rec.args()
                )
            })
            .target(env_logger::Target::Stderr)
            .try_init();
    });
    log::set_max_level(settings.log.to_filter());
    for (name, value, source) in &settings.rejected {
        log::warn!("ignored {source} value '{value}' for setting '{name}'");
    }
    if let Some(e) = &settings.file_error {
        log::warn!("{e}; its settings are ignored");
    }
}

/// Finds the loader's link-info structure of `s_type` in a create info's chain. The loader owns
/// it (it is not the application's), and advancing it is how the chain is walked.
///
/// # Safety
/// `p_next` must be a valid pNext chain.
unsafe fn find_link<T>(mut p_next: *const std::ffi::c_void, s_type: vk::StructureType) -> *mut T {
    while !p_next.is_null() {
        // SAFETY: every chain element starts with sType/pNext; the loader's structures have
        // `function` right after them.
        let base = unsafe { &*(p_next as *const ffi::BaseIn) };
        if base.s_type == s_type {
            // SAFETY: the loader's link-info structures of this sType are laid out as
            // `LayerDeviceCreateInfo` (sType, pNext, function, union), so `function` is readable.
            let f = unsafe { &*(p_next as *const ffi::LayerDeviceCreateInfo) }.function;
            if f == LayerFunction::LAYER_LINK_INFO {
                return p_next as *mut T;
            }
        }
        p_next = base.p_next as *const std::ffi::c_void;
    }
    std::ptr::null_mut()
}

unsafe extern "system" fn create_instance(
    p_create_info: *const vk::InstanceCreateInfo,
    p_allocator: *const vk::AllocationCallbacks,
    p_instance: *mut vk::Instance,
) -> vk::Result {
    crate::dispatch::ffi_boundary("create_instance", vk::Result::ERROR_UNKNOWN, || {
        if p_create_info.is_null() || p_instance.is_null() {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        }
        // SAFETY: the loader passes a valid create info.
        let ci = unsafe { &*p_create_info };
        // SAFETY: valid chain.
        let chain: *mut ffi::LayerInstanceCreateInfo =
            unsafe { find_link(ci.p_next, vk::StructureType::LOADER_INSTANCE_CREATE_INFO) };
        // SAFETY: the loader's link structure, checked for null.
        let link = unsafe {
            if chain.is_null() || (*chain).u.p_layer_info.is_null() {
                return vk::Result::ERROR_INITIALIZATION_FAILED;
            }
            &*(*chain).u.p_layer_info
        };
        let Some(next_gipa) = link.pfn_next_get_instance_proc_addr else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        };
        // SAFETY: GIPA(NULL, "vkCreateInstance") is defined for every layer and driver.
        let next_create = cast!(
            unsafe { next_gipa(vk::Instance::null(), c"vkCreateInstance".as_ptr()) },
            vk::PFN_vkCreateInstance
        );
        let Some(next_create) = next_create else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        };
        // Advance the link info for the next layer before calling down.
        // SAFETY: the loader's structure, non-null.
        unsafe { (*chain).u.p_layer_info = link.p_next };
        // SAFETY: the application's arguments, unchanged.
        let result = unsafe { next_create(p_create_info, p_allocator, p_instance) };
        if result != vk::Result::SUCCESS {
            return result;
        }
        // SAFETY: the call succeeded, so *p_instance is the new instance.
        let instance = unsafe { *p_instance };
        // Before the settings are read there is no instance health yet: a panic here only loses
        // the settings.
        let reading = dispatch::Health::default();
        let (settings, app) = guarded(&reading, "vkCreateInstance", || {
            // SAFETY: the application's create info, read only.
            let settings = unsafe { settings::load(ci.p_next) };
            // SAFETY: as above.
            let app = unsafe { app_name(ci) };
            (settings, app)
        })
        .unwrap_or_else(|| (Settings::default(), String::new()));
        let health = std::sync::Arc::new(dispatch::Health::new(settings.test_fault.clone()));
        let _ = guarded(&health, "logging", || init_logging(&settings));
        // SAFETY: next GIPA with the instance it created.
        let destroy_instance = cast!(
            unsafe { next_gipa(instance, c"vkDestroyInstance".as_ptr()) },
            vk::PFN_vkDestroyInstance
        );
        let get_physical_device_properties = cast!(
            // SAFETY: next GIPA with the instance it created; the name is a C string literal.
            unsafe { next_gipa(instance, c"vkGetPhysicalDeviceProperties".as_ptr()) },
            vk::PFN_vkGetPhysicalDeviceProperties
        );
        let get_physical_device_properties2 = cast!(
            // SAFETY: next GIPA with the instance it created; the name is a C string literal.
            unsafe { next_gipa(instance, c"vkGetPhysicalDeviceProperties2".as_ptr()) },
            vk::PFN_vkGetPhysicalDeviceProperties2
        );
        let enumerate_device_extension_properties = cast!(
            // SAFETY: next GIPA with the instance it created; the name is a C string literal.
            unsafe { next_gipa(instance, c"vkEnumerateDeviceExtensionProperties".as_ptr()) },
            vk::PFN_vkEnumerateDeviceExtensionProperties
        );
        log::debug!(
            "instance {:?} for '{app}': report {:?}, chip {:?}",
            instance,
            settings.report,
            settings.chip
        );
        // SAFETY: the new instance is live.
        let key = unsafe { dispatch_key(instance) };
        dispatch::insert_instance(
            key,
            InstanceData {
                handle: instance,
                next_gipa,
                destroy_instance,
                get_physical_device_properties,
                get_physical_device_properties2,
                get_physical_device_queue_family_properties: cast!(
                    // SAFETY: next GIPA with the instance it created; the name is a C string literal.
                    unsafe {
                        next_gipa(
                            instance,
                            c"vkGetPhysicalDeviceQueueFamilyProperties".as_ptr(),
                        )
                    },
                    vk::PFN_vkGetPhysicalDeviceQueueFamilyProperties
                ),
                enumerate_device_extension_properties,
                settings,
                app,
                create_debug_utils_messenger: cast!(
                    // SAFETY: next GIPA with the instance it created; the name is a C string literal.
                    unsafe { next_gipa(instance, c"vkCreateDebugUtilsMessengerEXT".as_ptr()) },
                    vk::PFN_vkCreateDebugUtilsMessengerEXT
                ),
                destroy_debug_utils_messenger: cast!(
                    // SAFETY: as above.
                    unsafe { next_gipa(instance, c"vkDestroyDebugUtilsMessengerEXT".as_ptr()) },
                    vk::PFN_vkDestroyDebugUtilsMessengerEXT
                ),
                messengers: Default::default(),
                health,
            },
        );
        result
    })
}

/// vkCreateDebugUtilsMessengerEXT: calls down, then remembers the messenger for the layer's
/// findings.
unsafe extern "system" fn create_debug_utils_messenger(
    instance: vk::Instance,
    info: *const vk::DebugUtilsMessengerCreateInfoEXT,
    alloc: *const vk::AllocationCallbacks,
    out: *mut vk::DebugUtilsMessengerEXT,
) -> vk::Result {
    crate::dispatch::ffi_boundary(
        "create_debug_utils_messenger",
        vk::Result::ERROR_UNKNOWN,
        || {
            // SAFETY: a live instance.
            let Some(inst) = dispatch::instance(unsafe { dispatch_key(instance) }) else {
                return vk::Result::ERROR_INITIALIZATION_FAILED;
            };
            let Some(next) = inst.create_debug_utils_messenger else {
                return vk::Result::ERROR_EXTENSION_NOT_PRESENT;
            };
            // SAFETY: the application's arguments, unchanged.
            let r = unsafe { next(instance, info, alloc, out) };
            if r == vk::Result::SUCCESS && !info.is_null() && !out.is_null() {
                let _ = guarded(&inst.health, "vkCreateDebugUtilsMessengerEXT", || {
                    // SAFETY: success: a valid create info and the new messenger.
                    unsafe { inst.messengers.add(*out, &*info) }
                });
            }
            r
        },
    )
}

/// vkDestroyDebugUtilsMessengerEXT: forgets the messenger, then calls down.
unsafe extern "system" fn destroy_debug_utils_messenger(
    instance: vk::Instance,
    messenger: vk::DebugUtilsMessengerEXT,
    alloc: *const vk::AllocationCallbacks,
) {
    crate::dispatch::ffi_boundary("destroy_debug_utils_messenger", (), || {
        // SAFETY: a live instance.
        let Some(inst) = dispatch::instance(unsafe { dispatch_key(instance) }) else {
            return;
        };
        inst.messengers.remove(messenger);
        if let Some(next) = inst.destroy_debug_utils_messenger {
            // SAFETY: the application's arguments, unchanged.
            unsafe { next(instance, messenger, alloc) };
        }
    })
}

/// # Safety
/// `ci` must be a valid `VkInstanceCreateInfo`.
unsafe fn app_name(ci: &vk::InstanceCreateInfo) -> String {
    // SAFETY: pApplicationInfo and its name are null or valid per valid usage.
    let from_info = unsafe {
        if ci.p_application_info.is_null() || (*ci.p_application_info).p_application_name.is_null()
        {
            None
        } else {
            Some(
                CStr::from_ptr((*ci.p_application_info).p_application_name)
                    .to_string_lossy()
                    .into_owned(),
            )
        }
    };
    from_info
        .filter(|s| !s.is_empty())
        .or_else(|| {
            std::env::current_exe()
                .ok()
                .and_then(|p| p.file_name().map(|f| f.to_string_lossy().into_owned()))
        })
        .unwrap_or_default()
}

unsafe extern "system" fn destroy_instance(
    instance: vk::Instance,
    p_allocator: *const vk::AllocationCallbacks,
) {
    crate::dispatch::ffi_boundary("destroy_instance", (), || {
        if instance == vk::Instance::null() {
            return;
        }
        // SAFETY: a live instance (its destruction is what this call does).
        let Some(inst) = dispatch::remove_instance(unsafe { dispatch_key(instance) }) else {
            return;
        };
        let _ = guarded(&inst.health, "vkDestroyInstance", || {
            report::flush_all(true)
        });
        if let Some(f) = inst.destroy_instance {
            // SAFETY: the application's arguments, unchanged.
            unsafe { f(instance, p_allocator) };
        }
    })
}

unsafe extern "system" fn create_device(
    physical_device: vk::PhysicalDevice,
    p_create_info: *const vk::DeviceCreateInfo,
    p_allocator: *const vk::AllocationCallbacks,
    p_device: *mut vk::Device,
) -> vk::Result {
    crate::dispatch::ffi_boundary("create_device", vk::Result::ERROR_UNKNOWN, || {
        if p_create_info.is_null() || p_device.is_null() {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        }
        // Physical devices share their instance's dispatch key.
        // SAFETY: a live physical device.
        let Some(inst) = dispatch::instance(unsafe { dispatch_key(physical_device) }) else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        };
        // SAFETY: the loader passes a valid create info.
        let ci = unsafe { &*p_create_info };
        // SAFETY: valid chain.
        let chain: *mut ffi::LayerDeviceCreateInfo =
            unsafe { find_link(ci.p_next, vk::StructureType::LOADER_DEVICE_CREATE_INFO) };
        // SAFETY: the loader's link structure, checked for null.
        let link = unsafe {
            if chain.is_null() || (*chain).u.p_layer_info.is_null() {
                return vk::Result::ERROR_INITIALIZATION_FAILED;
            }
            &*(*chain).u.p_layer_info
        };
        let (Some(next_gipa), Some(next_gdpa)) = (
            link.pfn_next_get_instance_proc_addr,
            link.pfn_next_get_device_proc_addr,
        ) else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        };
        // SAFETY: GetInstanceProcAddr(instance, "vkCreateDevice") per the loader's chain rules.
        let next_create = cast!(
            unsafe { next_gipa(inst.handle, c"vkCreateDevice".as_ptr()) },
            vk::PFN_vkCreateDevice
        );
        let Some(next_create) = next_create else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        };
        // SAFETY: the loader's structure, non-null; advanced before calling down.
        unsafe { (*chain).u.p_layer_info = link.p_next };
        // The interlock experiment, if configured, may need a feature the application did not
        // enable: the device is then created from a copy of its create info with the feature on,
        // and again as the application asked where the device lacks it.
        let plan = guarded(&inst.health, "experiment", || {
            // SAFETY: the application's valid create info.
            unsafe { crate::experiment::for_device(&inst.settings, ci) }
        })
        .unwrap_or(Ok(None));
        let mut experiment = None;
        let mut refusal = None;
        let original = |p_ci: *const vk::DeviceCreateInfo| {
            // SAFETY: the application's arguments (or a copy with one feature enabled).
            unsafe { next_create(physical_device, p_ci, p_allocator, p_device) }
        };
        let result = match plan {
            Ok(None) => original(p_create_info),
            Ok(Some((active, false))) => {
                experiment = Some(active);
                original(p_create_info)
            }
            Ok(Some((active, true))) => {
                // SAFETY: the application's valid create info, which chains interlock features.
                match unsafe { crate::experiment::with_feature_enabled(&active, ci) } {
                    Some(copy) => {
                        let r = original(&copy.info);
                        if r == vk::Result::SUCCESS {
                            experiment = Some(active);
                            r
                        } else {
                            refusal = Some(format!(
                                "experiment {} refused: the device does not accept the interlock feature its new mode needs ({r}); nothing is changed",
                                active.experiment
                            ));
                            original(p_create_info)
                        }
                    }
                    None => {
                        refusal = Some(format!(
                            "experiment {} refused: the application did not enable the interlock feature its new mode needs, and its device create info chains a structure the layer does not copy; nothing is changed",
                            active.experiment
                        ));
                        original(p_create_info)
                    }
                }
            }
            Err(message) => {
                refusal = Some(message);
                original(p_create_info)
            }
        };
        if result != vk::Result::SUCCESS {
            return result;
        }
        // SAFETY: success, so *p_device is the new device.
        let device = unsafe { *p_device };
        let mut props = vk::PhysicalDeviceProperties::default();
        if let Some(f) = inst.get_physical_device_properties {
            // SAFETY: a query on the application's physical device; no state changes.
            unsafe { f(physical_device, &mut props) };
        }
        let device_name = props
            .device_name_as_c_str()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let vendor_id = props.vendor_id;
        let timing = if inst.settings.timing {
            guarded(&inst.health, "timing", || {
                // SAFETY: queries on the application's physical device and the new device.
                unsafe { timing_for(&inst, physical_device, device, next_gdpa, &props.limits) }
            })
            .and_then(|t| {
                t.map_err(|e| log::warn!("device '{device_name}': timing refused: {e}"))
                    .ok()
            })
        } else {
            None
        };
        let (chip, features) = guarded(&inst.health, "vkCreateDevice", || {
            let by_pci = || {
                // SAFETY: queries on the application's physical device through the next layer.
                let pci = unsafe { pci_bus_address(&inst, physical_device) }?;
                crate::chip::family_from_render_node(&pci)
            };
            let (chip, source, err) = crate::chip::choose(
                inst.settings.chip.as_deref(),
                vendor_id,
                &device_name,
                &by_pci,
            );
            if let Some(e) = err {
                log::warn!("chip setting ignored: {e}");
            }
            log::info!(
                "device '{device_name}' (vendor 0x{vendor_id:04x}): chip {} ({source:?})",
                chip.map_or("none", |f| f.name())
            );
            // SAFETY: the application's create info, read only.
            let features = unsafe { interlock_features(ci) };
            (chip, features)
        })
        .unwrap_or_default();
        // SAFETY: the application's valid create info.
        if let Some(message) = &refusal {
            log::warn!("device '{device_name}': {message}");
        }
        let data = DeviceData {
            handle: device,
            // SAFETY: the new device is live.
            key: unsafe { dispatch_key(device) },
            next_gdpa,
            device_name,
            app: inst.app.clone(),
            chip,
            features,
            settings: inst.settings.clone(),
            modules: Default::default(),
            libraries: Default::default(),
            render_passes: Default::default(),
            stats: Default::default(),
            next: crate::intercept::Next::load(|name| {
                // SAFETY: next GDPA with the device it created.
                unsafe { next_gdpa(device, name.as_ptr()) }
            }),
            tracking: Default::default(),
            bindables: Default::default(),
            cmds: Default::default(),
            armed: Default::default(),
            secondaries: Default::default(),
            images: Default::default(),
            views: Default::default(),
            names: Default::default(),
            messengers: inst.messengers.clone(),
            health: inst.health.clone(),
            experiment,
            bindable_seq: Default::default(),
            timing,
        };
        // SAFETY: the new device is live.
        dispatch::insert_device(unsafe { dispatch_key(device) }, data);
        crate::draw_path::retarget();
        result
    })
}

/// The device's timing (the `timing` setting), or why it cannot have it.
///
/// # Safety
/// `pd` must be a physical device of `inst`, `device` the live device created on it through
/// `next_gdpa`.
unsafe fn timing_for(
    inst: &InstanceData,
    pd: vk::PhysicalDevice,
    device: vk::Device,
    next_gdpa: vk::PFN_vkGetDeviceProcAddr,
    limits: &vk::PhysicalDeviceLimits,
) -> Result<crate::timing::Timing, String> {
    let families = match inst.get_physical_device_queue_family_properties {
        Some(f) => {
            let mut n = 0u32;
            // SAFETY: the standard two-call enumeration on a live physical device.
            unsafe { f(pd, &mut n, std::ptr::null_mut()) };
            let mut v = vec![vk::QueueFamilyProperties::default(); n as usize];
            // SAFETY: as above, with room for `n`.
            unsafe { f(pd, &mut n, v.as_mut_ptr()) };
            v.truncate(n as usize);
            v
        }
        None => Vec::new(),
    };
    let get = |name: &std::ffi::CStr| {
        // SAFETY: next GDPA with the device it created.
        unsafe { next_gdpa(device, name.as_ptr()) }
    };
    let fns = (|| {
        Some(crate::timing::Fns {
            create_query_pool: cast!(get(c"vkCreateQueryPool"), vk::PFN_vkCreateQueryPool)?,
            destroy_query_pool: cast!(get(c"vkDestroyQueryPool"), vk::PFN_vkDestroyQueryPool)?,
            cmd_reset_query_pool: cast!(get(c"vkCmdResetQueryPool"), vk::PFN_vkCmdResetQueryPool)?,
            cmd_write_timestamp: cast!(get(c"vkCmdWriteTimestamp"), vk::PFN_vkCmdWriteTimestamp)?,
            get_query_pool_results: cast!(
                get(c"vkGetQueryPoolResults"),
                vk::PFN_vkGetQueryPoolResults
            )?,
        })
    })();
    crate::timing::Timing::new(device, fns, limits, &families)
}

/// The device's PCI address from VK_EXT_pci_bus_info, where the device has the extension.
///
/// # Safety
/// `pd` must be a physical device of `inst`.
unsafe fn pci_bus_address(inst: &InstanceData, pd: vk::PhysicalDevice) -> Option<String> {
    let enumerate = inst.enumerate_device_extension_properties?;
    let props2 = inst.get_physical_device_properties2?;
    let mut n = 0u32;
    // SAFETY: the standard two-call enumeration on a live physical device.
    unsafe {
        if enumerate(pd, std::ptr::null(), &mut n, std::ptr::null_mut()) != vk::Result::SUCCESS {
            return None;
        }
        let mut exts = vec![vk::ExtensionProperties::default(); n as usize];
        let r = enumerate(pd, std::ptr::null(), &mut n, exts.as_mut_ptr());
        if r.as_raw() < 0 {
            return None;
        }
        exts.truncate(n as usize);
        if !exts
            .iter()
            .any(|e| e.extension_name_as_c_str().ok() == Some(vk::EXT_PCI_BUS_INFO_NAME))
        {
            return None;
        }
        let mut pci = vk::PhysicalDevicePCIBusInfoPropertiesEXT::default();
        let mut p2 = vk::PhysicalDeviceProperties2::default().push_next(&mut pci);
        props2(pd, &mut p2);
        Some(crate::chip::pci_address(
            pci.pci_domain,
            pci.pci_bus,
            pci.pci_device,
            pci.pci_function,
        ))
    }
}

/// # Safety
/// `ci` must be a valid `VkDeviceCreateInfo`.
unsafe fn interlock_features(ci: &vk::DeviceCreateInfo) -> InterlockFeatures {
    // SAFETY: valid chain per the caller.
    let p = unsafe {
        ffi::find_in_chain(
            ci.p_next,
            vk::StructureType::PHYSICAL_DEVICE_FRAGMENT_SHADER_INTERLOCK_FEATURES_EXT,
        )
    } as *const vk::PhysicalDeviceFragmentShaderInterlockFeaturesEXT;
    if p.is_null() {
        return InterlockFeatures::default();
    }
    // SAFETY: sType identifies the structure.
    let f = unsafe { &*p };
    InterlockFeatures {
        pixel: f.fragment_shader_pixel_interlock == vk::TRUE,
        sample: f.fragment_shader_sample_interlock == vk::TRUE,
        shading_rate: f.fragment_shader_shading_rate_interlock == vk::TRUE,
    }
}

pub(crate) unsafe extern "system" fn destroy_device(
    device: vk::Device,
    p_allocator: *const vk::AllocationCallbacks,
) {
    crate::dispatch::ffi_boundary("destroy_device", (), || {
        if device == vk::Device::null() {
            return;
        }
        // SAFETY: a live device.
        let Some(d) = dispatch::remove_device(unsafe { dispatch_key(device) }) else {
            return;
        };
        crate::draw_path::retarget();
        let _ = guarded(&d.health, "vkDestroyDevice", || {
            if let Some(t) = &d.timing {
                let (units, total, dropped) = t.finish();
                crate::records::write_timing(&d, units, Some((&total, dropped)));
            }
            crate::records::summary(&d);
            report::flush_all(true);
        });
        if let Some(f) = d.next.destroy_device {
            // SAFETY: the application's arguments, unchanged.
            unsafe { f(device, p_allocator) };
        }
    })
}

/// How many fragment stages the layer has analysed and recorded on `device` (tests).
#[cfg(test)]
pub fn analysed_count(device: vk::Device) -> u64 {
    device_of(device).map_or(0, |d| {
        d.stats.analysed.load(std::sync::atomic::Ordering::Relaxed)
    })
}

pub(crate) fn device_of(device: vk::Device) -> Option<Arc<DeviceData>> {
    if device == vk::Device::null() {
        return None;
    }
    // SAFETY: device-level hooks are only reachable for devices created through this layer.
    dispatch::device(unsafe { dispatch_key(device) })
}
