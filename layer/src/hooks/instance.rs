//! Instance life: vkCreateInstance (settings, logging, the next layer's functions resolved
//! once), vkDestroyInstance, and the application's debug-utils messengers.

use crate::boundary::{guarded, Health};
use crate::ffi::{self, dispatch_key};
use crate::instance::Instance;
use crate::next::InstanceNext;
use crate::registry;
use crate::report;
use crate::settings::{self, Settings};
use crate::table::vkfn;
use ash::vk;
use std::ffi::CStr;
use std::sync::{Arc, Once};

/// vkCreateInstance: advances the loader's link, calls down, then reads the settings and
/// remembers the instance.
///
/// # Safety
/// The loader's arguments.
pub unsafe fn create(
    p_create_info: *const vk::InstanceCreateInfo,
    p_allocator: *const vk::AllocationCallbacks,
    p_instance: *mut vk::Instance,
) -> vk::Result {
    if p_create_info.is_null() || p_instance.is_null() {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    }
    // SAFETY: the loader passes a valid create info.
    let ci = unsafe { &*p_create_info };
    // SAFETY: the create info's valid chain.
    let Some(next_gipa) = (unsafe { take_link(ci) }) else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    // SAFETY: GIPA(NULL, "vkCreateInstance") is defined for every layer and driver.
    let next_create = unsafe { next_gipa(vk::Instance::null(), c"vkCreateInstance".as_ptr()) };
    let Some(next_create) = next_create else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    // SAFETY: the pointer was returned for vkCreateInstance.
    let next_create = unsafe {
        std::mem::transmute::<unsafe extern "system" fn(), vk::PFN_vkCreateInstance>(next_create)
    };
    // SAFETY: the application's arguments, unchanged.
    let result = unsafe { next_create(p_create_info, p_allocator, p_instance) };
    if result != vk::Result::SUCCESS {
        return result;
    }
    // SAFETY: the call succeeded, so *p_instance is the new instance.
    let instance = unsafe { *p_instance };
    // SAFETY: the application's create info, read only.
    let (settings, app) = unsafe { read_settings(ci) };
    let health = Arc::new(Health::new(settings.test_fault.clone()));
    let _ = guarded(&health, "logging", || init_logging(&settings));
    log::debug!(
        "instance {:?} for '{app}': report {:?}, chip {:?}",
        instance,
        settings.report,
        settings.chip
    );
    let next = InstanceNext::load(|name| {
        // SAFETY: the next layer's GIPA with the instance it created.
        unsafe { next_gipa(instance, name.as_ptr()) }
    });
    // SAFETY: the new instance is live.
    let key = unsafe { dispatch_key(instance) };
    // SAFETY: the application's create info, read only.
    let properties2 = unsafe { has_properties2(ci) };
    registry::insert_instance(
        key,
        Instance {
            handle: instance,
            next_gipa,
            next,
            settings,
            app,
            messengers: Default::default(),
            health,
            properties2,
        },
    );
    result
}

/// Whether the instance has vkGetPhysicalDeviceFeatures2: Vulkan 1.1 or
/// VK_KHR_get_physical_device_properties2.
///
/// # Safety
/// `ci` must be a valid `VkInstanceCreateInfo`.
unsafe fn has_properties2(ci: &vk::InstanceCreateInfo) -> bool {
    // SAFETY: pApplicationInfo is null or valid.
    let api = unsafe { ci.p_application_info.as_ref() }.map_or(0, |a| a.api_version);
    if vk::api_version_major(api) > 1 || vk::api_version_minor(api) >= 1 {
        return true;
    }
    // SAFETY: ppEnabledExtensionNames holds enabledExtensionCount NUL-terminated names.
    unsafe { crate::vk::capture::slice(ci.pp_enabled_extension_names, ci.enabled_extension_count) }
        .iter()
        // SAFETY: as above.
        .any(|&p| {
            !p.is_null()
                && unsafe { CStr::from_ptr(p) } == vk::KHR_GET_PHYSICAL_DEVICE_PROPERTIES2_NAME
        })
}

/// The next layer's vkGetInstanceProcAddr from the loader's link info, which is advanced for the
/// next layer before this one calls down.
///
/// # Safety
/// `ci` must be the loader's valid create info.
unsafe fn take_link(ci: &vk::InstanceCreateInfo) -> Option<vk::PFN_vkGetInstanceProcAddr> {
    // SAFETY: valid chain.
    let chain: *mut ffi::LayerInstanceCreateInfo =
        unsafe { ffi::find_link(ci.p_next, vk::StructureType::LOADER_INSTANCE_CREATE_INFO) };
    // SAFETY: the loader's link structure, checked for null.
    unsafe {
        if chain.is_null() || (*chain).u.p_layer_info.is_null() {
            return None;
        }
        let link = &*(*chain).u.p_layer_info;
        let gipa = link.pfn_next_get_instance_proc_addr?;
        (*chain).u.p_layer_info = link.p_next;
        Some(gipa)
    }
}

/// The settings and the application's name. Before they are read there is no instance health
/// yet: a panic here only loses the settings.
///
/// # Safety
/// `ci` must be the application's valid create info.
unsafe fn read_settings(ci: &vk::InstanceCreateInfo) -> (Settings, String) {
    let reading = Health::default();
    guarded(&reading, vkfn::vkCreateInstance, || {
        // SAFETY: the application's create info, read only.
        let settings = unsafe { settings::load(ci.p_next) };
        // SAFETY: as above.
        let app = unsafe { app_name(ci) };
        (settings, app)
    })
    .unwrap_or_else(|| (Settings::default(), String::new()))
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

/// vkDestroyInstance: forgets the instance, flushes the report, then calls down.
///
/// # Safety
/// The application's arguments.
pub unsafe fn destroy(
    inst: &Instance,
    next: vk::PFN_vkDestroyInstance,
    instance: vk::Instance,
    p_allocator: *const vk::AllocationCallbacks,
) {
    // SAFETY: a live instance (its destruction is what this call does).
    registry::remove_instance(unsafe { dispatch_key(instance) });
    let _ = guarded(&inst.health, vkfn::vkDestroyInstance, || {
        report::flush_all(true)
    });
    // SAFETY: the application's arguments, unchanged.
    unsafe { next(instance, p_allocator) };
}

/// vkCreateDebugUtilsMessengerEXT: calls down, then remembers the messenger for the layer's
/// findings.
///
/// # Safety
/// The application's arguments.
pub unsafe fn create_messenger(
    inst: &Instance,
    next: vk::PFN_vkCreateDebugUtilsMessengerEXT,
    instance: vk::Instance,
    info: *const vk::DebugUtilsMessengerCreateInfoEXT,
    alloc: *const vk::AllocationCallbacks,
    out: *mut vk::DebugUtilsMessengerEXT,
) -> vk::Result {
    // SAFETY: the application's arguments, unchanged.
    let r = unsafe { next(instance, info, alloc, out) };
    if r == vk::Result::SUCCESS && !info.is_null() && !out.is_null() {
        let _ = guarded(&inst.health, vkfn::vkCreateDebugUtilsMessengerEXT, || {
            // SAFETY: success: a valid create info and the new messenger.
            unsafe { inst.messengers.add(*out, &*info) }
        });
    }
    r
}

/// vkDestroyDebugUtilsMessengerEXT: the records still waiting for verdicts are written and the
/// findings the layer's thread held for the instance's messengers told first (the messenger
/// would never hear them; waiting for the verdicts a bounded time), then the messenger is
/// forgotten and the call goes down.
///
/// # Safety
/// The application's arguments.
pub unsafe fn destroy_messenger(
    inst: &Instance,
    next: vk::PFN_vkDestroyDebugUtilsMessengerEXT,
    instance: vk::Instance,
    messenger: vk::DebugUtilsMessengerEXT,
    alloc: *const vk::AllocationCallbacks,
) {
    let _ = guarded(&inst.health, vkfn::vkDestroyDebugUtilsMessengerEXT, || {
        for d in crate::registry::devices_now() {
            if std::sync::Arc::ptr_eq(&d.messengers, &inst.messengers) {
                crate::records::settle_messages(&d);
            }
        }
    });
    inst.messengers.remove(messenger);
    // SAFETY: the application's arguments, unchanged.
    unsafe { next(instance, messenger, alloc) };
}
