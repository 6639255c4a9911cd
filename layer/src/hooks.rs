//! The intercepted entry points. Each calls down the chain exactly once with the application's
//! own arguments; the layer's work happens after the call returns, inside [`guarded`], and only
//! reads the create infos.

use crate::capture::{self, DrawState, FragmentSource, Samples};
use crate::compute::{self, InterlockFeatures, ModuleAnalysis, Subject};
use crate::dispatch::{self, guarded, DeviceData, InstanceData, LibraryFragment, LibraryInfo};
use crate::ffi::{self, dispatch_key, LayerFunction};
use crate::report::{self, Kind, Record, Severity};
use crate::settings::{self, Settings};
use ash::vk;
use std::ffi::{c_char, CStr};
use std::sync::atomic::Ordering;
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
        b"vkDestroyDevice" => pfn!(destroy_device, vk::PFN_vkDestroyDevice),
        b"vkCreateShaderModule" => pfn!(create_shader_module, vk::PFN_vkCreateShaderModule),
        b"vkDestroyShaderModule" => pfn!(destroy_shader_module, vk::PFN_vkDestroyShaderModule),
        b"vkCreateGraphicsPipelines" => {
            pfn!(create_graphics_pipelines, vk::PFN_vkCreateGraphicsPipelines)
        }
        b"vkDestroyPipeline" => pfn!(destroy_pipeline, vk::PFN_vkDestroyPipeline),
        b"vkCreateShadersEXT" => pfn!(create_shaders_ext, vk::PFN_vkCreateShadersEXT),
        b"vkDestroyShaderEXT" => pfn!(destroy_shader_ext, vk::PFN_vkDestroyShaderEXT),
        b"vkCreateRenderPass" => pfn!(create_render_pass, vk::PFN_vkCreateRenderPass),
        b"vkCreateRenderPass2" => pfn!(create_render_pass2, vk::PFN_vkCreateRenderPass2),
        b"vkCreateRenderPass2KHR" => pfn!(create_render_pass2_khr, vk::PFN_vkCreateRenderPass2),
        b"vkDestroyRenderPass" => pfn!(destroy_render_pass, vk::PFN_vkDestroyRenderPass),
        _ => crate::cmd_hooks::hook(name),
    }
}

/// The names this layer intercepts (used by tests of pointer identity).
pub const INTERCEPTED: &[&str] = &[
    "vkGetInstanceProcAddr",
    "vkCreateInstance",
    "vkDestroyInstance",
    "vkCreateDevice",
    "vkCreateDebugUtilsMessengerEXT",
    "vkDestroyDebugUtilsMessengerEXT",
    "vkGetDeviceProcAddr",
    "vkDestroyDevice",
    "vkCreateShaderModule",
    "vkDestroyShaderModule",
    "vkCreateGraphicsPipelines",
    "vkDestroyPipeline",
    "vkCreateShadersEXT",
    "vkDestroyShaderEXT",
    "vkCreateRenderPass",
    "vkCreateRenderPass2",
    "vkCreateRenderPass2KHR",
    "vkDestroyRenderPass",
];

/// The layer's vkGetInstanceProcAddr.
///
/// # Safety
/// Called by the loader or application with a valid (or null) instance and name.
pub unsafe extern "system" fn get_instance_proc_addr(
    instance: vk::Instance,
    p_name: *const c_char,
) -> vk::PFN_vkVoidFunction {
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
        _ => device_hook(n),
    };
    match ours {
        Some(f) if next.is_some() => Some(f),
        _ => next,
    }
}

/// The layer's vkGetDeviceProcAddr.
///
/// # Safety
/// Called by the loader or application with a valid device and name.
pub unsafe extern "system" fn get_device_proc_addr(
    device: vk::Device,
    p_name: *const c_char,
) -> vk::PFN_vkVoidFunction {
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
    match device_hook(name.to_bytes()) {
        Some(f) if next.is_some() => Some(f),
        _ => next,
    }
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
}

/// vkCreateDebugUtilsMessengerEXT: calls down, then remembers the messenger for the layer's
/// findings.
unsafe extern "system" fn create_debug_utils_messenger(
    instance: vk::Instance,
    info: *const vk::DebugUtilsMessengerCreateInfoEXT,
    alloc: *const vk::AllocationCallbacks,
    out: *mut vk::DebugUtilsMessengerEXT,
) -> vk::Result {
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
}

/// vkDestroyDebugUtilsMessengerEXT: forgets the messenger, then calls down.
unsafe extern "system" fn destroy_debug_utils_messenger(
    instance: vk::Instance,
    messenger: vk::DebugUtilsMessengerEXT,
    alloc: *const vk::AllocationCallbacks,
) {
    // SAFETY: a live instance.
    let Some(inst) = dispatch::instance(unsafe { dispatch_key(instance) }) else {
        return;
    };
    inst.messengers.remove(messenger);
    if let Some(next) = inst.destroy_debug_utils_messenger {
        // SAFETY: the application's arguments, unchanged.
        unsafe { next(instance, messenger, alloc) };
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

unsafe extern "system" fn destroy_instance(
    instance: vk::Instance,
    p_allocator: *const vk::AllocationCallbacks,
) {
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
}

unsafe extern "system" fn create_device(
    physical_device: vk::PhysicalDevice,
    p_create_info: *const vk::DeviceCreateInfo,
    p_allocator: *const vk::AllocationCallbacks,
    p_device: *mut vk::Device,
) -> vk::Result {
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
    // SAFETY: the application's arguments, unchanged.
    let result = unsafe { next_create(physical_device, p_create_info, p_allocator, p_device) };
    if result != vk::Result::SUCCESS {
        return result;
    }
    // SAFETY: success, so *p_device is the new device.
    let device = unsafe { *p_device };
    macro_rules! dfn {
        ($name:literal, $t:ty) => {
            // SAFETY: next GDPA with the device it created.
            cast!(unsafe { next_gdpa(device, $name.as_ptr()) }, $t)
        };
    }
    let (device_name, vendor_id) = match inst.get_physical_device_properties {
        Some(f) => {
            let mut props = vk::PhysicalDeviceProperties::default();
            // SAFETY: a query on the application's physical device; no state changes.
            unsafe { f(physical_device, &mut props) };
            let name = props
                .device_name_as_c_str()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            (name, props.vendor_id)
        }
        None => (String::new(), 0),
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
    let data = DeviceData {
        handle: device,
        // SAFETY: the new device is live.
        key: unsafe { dispatch_key(device) },
        next_gdpa,
        destroy_device: dfn!(c"vkDestroyDevice", vk::PFN_vkDestroyDevice),
        create_shader_module: dfn!(c"vkCreateShaderModule", vk::PFN_vkCreateShaderModule),
        destroy_shader_module: dfn!(c"vkDestroyShaderModule", vk::PFN_vkDestroyShaderModule),
        create_graphics_pipelines: dfn!(
            c"vkCreateGraphicsPipelines",
            vk::PFN_vkCreateGraphicsPipelines
        ),
        destroy_pipeline: dfn!(c"vkDestroyPipeline", vk::PFN_vkDestroyPipeline),
        create_shaders_ext: dfn!(c"vkCreateShadersEXT", vk::PFN_vkCreateShadersEXT),
        destroy_shader_ext: dfn!(c"vkDestroyShaderEXT", vk::PFN_vkDestroyShaderEXT),
        create_render_pass: dfn!(c"vkCreateRenderPass", vk::PFN_vkCreateRenderPass),
        create_render_pass2: dfn!(c"vkCreateRenderPass2", vk::PFN_vkCreateRenderPass2),
        create_render_pass2_khr: dfn!(c"vkCreateRenderPass2KHR", vk::PFN_vkCreateRenderPass2),
        destroy_render_pass: dfn!(c"vkDestroyRenderPass", vk::PFN_vkDestroyRenderPass),
        device_name,
        app: inst.app.clone(),
        chip,
        features,
        settings: inst.settings.clone(),
        modules: Default::default(),
        libraries: Default::default(),
        render_passes: Default::default(),
        stats: Default::default(),
        cmd: crate::cmd_hooks::CmdNext::load(|name| {
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
    };
    // SAFETY: the new device is live.
    dispatch::insert_device(unsafe { dispatch_key(device) }, data);
    crate::draw_path::retarget();
    result
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

unsafe extern "system" fn destroy_device(
    device: vk::Device,
    p_allocator: *const vk::AllocationCallbacks,
) {
    if device == vk::Device::null() {
        return;
    }
    // SAFETY: a live device.
    let Some(d) = dispatch::remove_device(unsafe { dispatch_key(device) }) else {
        return;
    };
    crate::draw_path::retarget();
    let _ = guarded(&d.health, "vkDestroyDevice", || {
        summary(&d);
        report::flush_all(true);
    });
    if let Some(f) = d.destroy_device {
        // SAFETY: the application's arguments, unchanged.
        unsafe { f(device, p_allocator) };
    }
}

fn summary(d: &DeviceData) {
    let s = &d.stats;
    let by_mode = s.by_mode.lock().unwrap_or_else(|p| p.into_inner());
    let mut modes: Vec<String> = by_mode.iter().map(|(m, n)| format!("{m}: {n}")).collect();
    modes.sort();
    log::info!(
        "device '{}' destroyed: {} fragment stages analysed, {} with interlock ({}), {} flagged, {} unknown",
        d.device_name,
        s.analysed.load(Ordering::Relaxed),
        s.interlocked.load(Ordering::Relaxed),
        if modes.is_empty() { "-".to_string() } else { modes.join(", ") },
        s.flagged.load(Ordering::Relaxed),
        s.unknown.load(Ordering::Relaxed),
    );
    log::info!(
        "device '{}': {} draws with an interlocked fragment stage, in {} draw records (command buffer × bound object × draw state)",
        d.device_name,
        s.draws.load(Ordering::Relaxed),
        s.draw_records.load(Ordering::Relaxed),
    );
}

/// How many fragment stages the layer has analysed and recorded on `device` (tests).
#[cfg(test)]
pub fn analysed_count(device: vk::Device) -> u64 {
    device_of(device).map_or(0, |d| d.stats.analysed.load(Ordering::Relaxed))
}

fn device_of(device: vk::Device) -> Option<Arc<DeviceData>> {
    if device == vk::Device::null() {
        return None;
    }
    // SAFETY: device-level hooks are only reachable for devices created through this layer.
    dispatch::device(unsafe { dispatch_key(device) })
}

unsafe extern "system" fn create_shader_module(
    device: vk::Device,
    p_create_info: *const vk::ShaderModuleCreateInfo,
    p_allocator: *const vk::AllocationCallbacks,
    p_module: *mut vk::ShaderModule,
) -> vk::Result {
    let Some(d) = device_of(device) else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    let Some(next) = d.create_shader_module else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    // SAFETY: the application's arguments, unchanged.
    let result = unsafe { next(device, p_create_info, p_allocator, p_module) };
    if result != vk::Result::SUCCESS || p_create_info.is_null() || p_module.is_null() {
        return result;
    }
    let _ = guarded(&d.health, "vkCreateShaderModule", || {
        // SAFETY: success, so the create info was valid and *p_module is the new module.
        let (words, module) = unsafe {
            let ci = &*p_create_info;
            (
                capture::code_words(ci.p_code as *const u8, ci.code_size),
                vk::Handle::as_raw(*p_module),
            )
        };
        let entry = Arc::new(dispatch::ModuleEntry::new(words));
        let mut m = d.modules.lock().unwrap_or_else(|p| p.into_inner());
        m.insert(module, entry);
    });
    result
}

/// Remembers which attachments each subpass of a new render pass uses.
fn remember_render_pass(
    d: &DeviceData,
    p_render_pass: *mut vk::RenderPass,
    uses: Vec<capture::AttachmentUse>,
) {
    // SAFETY: creation succeeded, so *p_render_pass is the new render pass.
    let rp = vk::Handle::as_raw(unsafe { *p_render_pass });
    let mut m = d.render_passes.lock().unwrap_or_else(|p| p.into_inner());
    m.insert(rp, uses.into());
}

unsafe extern "system" fn create_render_pass(
    device: vk::Device,
    p_create_info: *const vk::RenderPassCreateInfo,
    p_allocator: *const vk::AllocationCallbacks,
    p_render_pass: *mut vk::RenderPass,
) -> vk::Result {
    let Some(d) = device_of(device) else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    let Some(next) = d.create_render_pass else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    // SAFETY: the application's arguments, unchanged.
    let result = unsafe { next(device, p_create_info, p_allocator, p_render_pass) };
    if result == vk::Result::SUCCESS && !p_create_info.is_null() && !p_render_pass.is_null() {
        let _ = guarded(&d.health, "vkCreateRenderPass", || {
            // SAFETY: success, so the create info was valid.
            let uses = unsafe { capture::render_pass_use(&*p_create_info) };
            remember_render_pass(&d, p_render_pass, uses);
        });
    }
    result
}

/// vkCreateRenderPass2 and vkCreateRenderPass2KHR, each calling its own next function (`next`
/// picks it).
///
/// # Safety
/// The application's arguments of either function.
unsafe fn create_render_pass2_with(
    name: &str,
    next: fn(&DeviceData) -> Option<vk::PFN_vkCreateRenderPass2>,
    device: vk::Device,
    p_create_info: *const vk::RenderPassCreateInfo2,
    p_allocator: *const vk::AllocationCallbacks,
    p_render_pass: *mut vk::RenderPass,
) -> vk::Result {
    let Some(d) = device_of(device) else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    let Some(next) = next(&d) else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    // SAFETY: the application's arguments, unchanged.
    let result = unsafe { next(device, p_create_info, p_allocator, p_render_pass) };
    if result == vk::Result::SUCCESS && !p_create_info.is_null() && !p_render_pass.is_null() {
        let _ = guarded(&d.health, name, || {
            // SAFETY: success, so the create info was valid.
            let uses = unsafe { capture::render_pass2_use(&*p_create_info) };
            remember_render_pass(&d, p_render_pass, uses);
        });
    }
    result
}

unsafe extern "system" fn create_render_pass2(
    device: vk::Device,
    p_create_info: *const vk::RenderPassCreateInfo2,
    p_allocator: *const vk::AllocationCallbacks,
    p_render_pass: *mut vk::RenderPass,
) -> vk::Result {
    // SAFETY: forwarded from the caller.
    unsafe {
        create_render_pass2_with(
            "vkCreateRenderPass2",
            |d| d.create_render_pass2,
            device,
            p_create_info,
            p_allocator,
            p_render_pass,
        )
    }
}

unsafe extern "system" fn create_render_pass2_khr(
    device: vk::Device,
    p_create_info: *const vk::RenderPassCreateInfo2,
    p_allocator: *const vk::AllocationCallbacks,
    p_render_pass: *mut vk::RenderPass,
) -> vk::Result {
    // SAFETY: forwarded from the caller.
    unsafe {
        create_render_pass2_with(
            "vkCreateRenderPass2KHR",
            |d| d.create_render_pass2_khr,
            device,
            p_create_info,
            p_allocator,
            p_render_pass,
        )
    }
}

unsafe extern "system" fn destroy_render_pass(
    device: vk::Device,
    render_pass: vk::RenderPass,
    p_allocator: *const vk::AllocationCallbacks,
) {
    let Some(d) = device_of(device) else {
        return;
    };
    {
        let mut m = d.render_passes.lock().unwrap_or_else(|p| p.into_inner());
        m.remove(&vk::Handle::as_raw(render_pass));
    }
    if let Some(next) = d.destroy_render_pass {
        // SAFETY: the application's arguments, unchanged.
        unsafe { next(device, render_pass, p_allocator) };
    }
}

unsafe extern "system" fn destroy_shader_module(
    device: vk::Device,
    module: vk::ShaderModule,
    p_allocator: *const vk::AllocationCallbacks,
) {
    let Some(d) = device_of(device) else {
        return;
    };
    {
        let mut m = d.modules.lock().unwrap_or_else(|p| p.into_inner());
        m.remove(&vk::Handle::as_raw(module));
    }
    if let Some(next) = d.destroy_shader_module {
        // SAFETY: the application's arguments, unchanged.
        unsafe { next(device, module, p_allocator) };
    }
}

unsafe extern "system" fn create_graphics_pipelines(
    device: vk::Device,
    pipeline_cache: vk::PipelineCache,
    create_info_count: u32,
    p_create_infos: *const vk::GraphicsPipelineCreateInfo,
    p_allocator: *const vk::AllocationCallbacks,
    p_pipelines: *mut vk::Pipeline,
) -> vk::Result {
    let Some(d) = device_of(device) else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    let Some(next) = d.create_graphics_pipelines else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    // SAFETY: the application's arguments, unchanged.
    let result = unsafe {
        next(
            device,
            pipeline_cache,
            create_info_count,
            p_create_infos,
            p_allocator,
            p_pipelines,
        )
    };
    // Whatever the result — success, VK_PIPELINE_COMPILE_REQUIRED, or the error of one of several
    // pipelines — each element of pPipelines is a created pipeline or VK_NULL_HANDLE (the
    // specification: a failed creation sets its element to VK_NULL_HANDLE, and the
    // implementation attempts every other), so exactly the created ones are recorded.
    if create_info_count == 0 || p_create_infos.is_null() || p_pipelines.is_null() {
        return result;
    }
    // The attachments a render pass's subpass uses, cloned out of the map's lock.
    let subpass_use = |rp: vk::RenderPass, subpass: u32| {
        let passes = d.render_passes.lock().unwrap_or_else(|p| p.into_inner());
        passes
            .get(&vk::Handle::as_raw(rp))
            .and_then(|s| s.get(subpass as usize).copied())
    };
    let _ = guarded(&d.health, "vkCreateGraphicsPipelines", || {
        // SAFETY: the call returned, so both arrays hold createInfoCount elements; a non-null
        // pipeline was created from the create info at its index.
        let (infos, pipelines) = unsafe {
            (
                std::slice::from_raw_parts(p_create_infos, create_info_count as usize),
                std::slice::from_raw_parts(p_pipelines, create_info_count as usize),
            )
        };
        for (info, p) in infos.iter().zip(pipelines) {
            if *p == vk::Pipeline::null() {
                continue;
            }
            // SAFETY: a valid create info of a pipeline that was created.
            let cap = unsafe { capture::capture(info, subpass_use) };
            process_pipeline(&d, vk::Handle::as_raw(*p), cap);
        }
    });
    result
}

fn unknown(reason: &str) -> Arc<ModuleAnalysis> {
    Arc::new(Err(reason.to_string()))
}

/// The per-pipeline work: resolve the fragment stage (own or from linked libraries), merge the
/// draw state, remember libraries, report.
pub fn process_pipeline(d: &DeviceData, handle: u64, cap: capture::PipelineCapture) {
    let mut fragment: Option<LibraryFragment> = cap.fragment.as_ref().map(|src| {
        let analysis = match src {
            FragmentSource::Module { module, .. } => {
                let entry = {
                    let m = d.modules.lock().unwrap_or_else(|p| p.into_inner());
                    m.get(module).cloned()
                };
                // Analysed outside the map's lock, once per module.
                match entry {
                    Some(e) => e.analysis(),
                    None => unknown("the shader module was not created through the layer"),
                }
            }
            FragmentSource::Inline { words, .. } => compute::analyze_module_cached(words),
            FragmentSource::Identifier { .. } => unknown(
                "the stage gives a shader module identifier; its SPIR-V is not visible to layers",
            ),
            FragmentSource::Binary => unknown(
                "the pipeline is created from pipeline binaries; its SPIR-V is not visible to layers",
            ),
        };
        let hash = match src {
            FragmentSource::Module { module, entry } => {
                let m = d.modules.lock().unwrap_or_else(|p| p.into_inner());
                m.get(module).cloned()
            }
            .and_then(|e| compute::stage_hash(e.words(), entry, cap.fragment_spec.as_ref())),
            FragmentSource::Inline { words, entry } => {
                compute::stage_hash(words, entry, cap.fragment_spec.as_ref())
            }
            FragmentSource::Identifier { .. } | FragmentSource::Binary => None,
        };
        LibraryFragment {
            analysis,
            entry: src.entry().to_string(),
            source: src.label(),
            hash,
        }
    });
    let mut draw = cap.draw.clone();
    if !cap.libraries.is_empty() {
        let libs = d.libraries.lock().unwrap_or_else(|p| p.into_inner());
        for l in &cap.libraries {
            if let Some(li) = libs.get(l) {
                draw.merge_from(&li.draw);
                if fragment.is_none() {
                    fragment = li.fragment.clone().map(|f| LibraryFragment {
                        source: "library",
                        ..f
                    });
                }
            }
        }
    }
    if cap.is_library {
        let mut libs = d.libraries.lock().unwrap_or_else(|p| p.into_inner());
        libs.insert(
            handle,
            Arc::new(LibraryInfo {
                fragment: fragment.clone(),
                draw: draw.clone(),
            }),
        );
    }
    let Some(frag) = fragment else {
        return;
    };
    let kind = if cap.is_library {
        Kind::Library
    } else {
        Kind::Pipeline
    };
    let entry = compute::fragment_entry(&frag.analysis, &frag.entry);
    if kind == Kind::Pipeline && entry.as_ref().is_ok_and(|e| e.interlock.is_some()) {
        d.add_bindable(crate::draws::Bindable {
            handle,
            kind,
            fragment: frag.clone(),
            draw: draw.clone(),
            dynamic: cap.dynamic,
        });
    }
    emit(
        d,
        kind,
        handle,
        frag.source,
        frag.hash.as_deref(),
        &frag.entry,
        entry,
        &draw,
    );
}

#[allow(clippy::too_many_arguments)]
fn emit(
    d: &DeviceData,
    kind: Kind,
    handle: u64,
    source: &str,
    stage_hash: Option<&str>,
    entry_name: &str,
    entry: Result<&compute::EntryAnalysis, String>,
    draw: &DrawState,
) {
    let subject = Subject {
        stage_hash,
        app: &d.app,
        device: &d.device_name,
        kind,
        handle,
        source,
        chip: d.chip,
        features: d.features,
    };
    let mode = entry.as_ref().ok().and_then(|e| e.interlock);
    let rec = compute::build_record(&subject, entry_name, entry, draw);
    let s = &d.stats;
    s.analysed.fetch_add(1, Ordering::Relaxed);
    let flagged = rec
        .diagnostics
        .iter()
        .any(|x| matches!(x.severity, Severity::Warning | Severity::Error));
    if rec.interlock == "unknown" {
        s.unknown.fetch_add(1, Ordering::Relaxed);
    }
    if let Some(m) = mode {
        s.interlocked.fetch_add(1, Ordering::Relaxed);
        *s.by_mode
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(m)
            .or_default() += 1;
        if flagged {
            s.flagged.fetch_add(1, Ordering::Relaxed);
        }
        log_line(&rec, flagged);
    } else if rec.interlock == "unknown" {
        log::debug!(
            "{} {} ({}): interlock unknown",
            kind_name(kind),
            rec.handle,
            rec.source
        );
    }
    if rec.interlock != "none" || d.settings.report_all {
        write_report(d, &rec);
    }
    tell_messengers(d, &rec);
}

/// A record's findings, for the application's debug-utils messengers (the `debug_messages`
/// setting).
pub(crate) fn tell_messengers(d: &DeviceData, rec: &Record) {
    if !d.settings.debug_messages || rec.diagnostics.is_empty() {
        return;
    }
    let handle = u64::from_str_radix(rec.handle.trim_start_matches("0x"), 16).unwrap_or(0);
    let object_type = match rec.kind {
        Kind::ShaderObject => vk::ObjectType::SHADER_EXT,
        Kind::Draw if rec.bound == Some("shader_object") => vk::ObjectType::SHADER_EXT,
        _ => vk::ObjectType::PIPELINE,
    };
    let name = rec.name.clone().or_else(|| {
        d.names
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&handle)
            .cloned()
    });
    let subject = crate::messenger::Subject {
        object_type,
        handle,
        name: name.as_deref(),
        context: format!(
            "{} {}, stage {}, {} interlock, {} sample(s), chip {}",
            kind_name(rec.kind),
            rec.handle,
            rec.stage_hash.as_deref().unwrap_or("unknown"),
            rec.interlock,
            rec.samples.map_or("dynamic".to_string(), |n| n.to_string()),
            rec.chip.as_deref().unwrap_or("none")
        ),
        samples: rec.samples,
    };
    d.messengers.deliver(&subject, &rec.diagnostics);
}

fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::Pipeline => "pipeline",
        Kind::Library => "library",
        Kind::ShaderObject => "shader object",
        Kind::Draw => "draws",
    }
}

fn log_line(rec: &Record, flagged: bool) {
    // The line is built only where it will be logged: at the default level most are not.
    let level = if flagged {
        log::Level::Warn
    } else {
        log::Level::Info
    };
    if !log::log_enabled!(level) {
        return;
    }
    let codes: Vec<&str> = rec.diagnostics.iter().map(|d| d.code.as_str()).collect();
    let line = format!(
        "{} {} #{} (stage {}) entry '{}': {} interlock, {} sample(s), chip {}{}",
        kind_name(rec.kind),
        rec.handle,
        rec.id,
        rec.stage_hash.as_deref().unwrap_or("unknown"),
        rec.entry_point,
        rec.interlock,
        rec.samples.map_or("dynamic".to_string(), |n| n.to_string()),
        rec.chip.as_deref().unwrap_or("none"),
        if codes.is_empty() {
            String::new()
        } else {
            format!(" [{}]", codes.join(", "))
        }
    );
    if flagged {
        log::warn!("{line}");
    } else {
        log::info!("{line}");
    }
}

pub(crate) fn write_report(d: &DeviceData, rec: &Record) {
    let Some(path) = &d.settings.report else {
        return;
    };
    if let Err(e) = report::append(path, rec) {
        static ONCE: Once = Once::new();
        ONCE.call_once(|| log::error!("cannot write report {}: {e}", path.display()));
    }
}

unsafe extern "system" fn destroy_pipeline(
    device: vk::Device,
    pipeline: vk::Pipeline,
    p_allocator: *const vk::AllocationCallbacks,
) {
    let Some(d) = device_of(device) else {
        return;
    };
    {
        let mut l = d.libraries.lock().unwrap_or_else(|p| p.into_inner());
        l.remove(&vk::Handle::as_raw(pipeline));
    }
    d.remove_bindable(vk::Handle::as_raw(pipeline));
    if let Some(next) = d.destroy_pipeline {
        // SAFETY: the application's arguments, unchanged.
        unsafe { next(device, pipeline, p_allocator) };
    }
}

unsafe extern "system" fn create_shaders_ext(
    device: vk::Device,
    create_info_count: u32,
    p_create_infos: *const vk::ShaderCreateInfoEXT,
    p_allocator: *const vk::AllocationCallbacks,
    p_shaders: *mut vk::ShaderEXT,
) -> vk::Result {
    let Some(d) = device_of(device) else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    let Some(next) = d.create_shaders_ext else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    // SAFETY: the application's arguments, unchanged.
    let result = unsafe {
        next(
            device,
            create_info_count,
            p_create_infos,
            p_allocator,
            p_shaders,
        )
    };
    // "When this function returns, whether or not it succeeds, it is guaranteed that every
    // element of pShaders will have been overwritten by either VK_NULL_HANDLE or a valid
    // VkShaderEXT handle": exactly the non-null elements were created, whatever the result.
    if create_info_count == 0 || p_create_infos.is_null() || p_shaders.is_null() {
        return result;
    }
    let _ = guarded(&d.health, "vkCreateShadersEXT", || {
        // SAFETY: both arrays hold createInfoCount elements; failed ones are VK_NULL_HANDLE.
        let (infos, shaders) = unsafe {
            (
                std::slice::from_raw_parts(p_create_infos, create_info_count as usize),
                std::slice::from_raw_parts(p_shaders, create_info_count as usize),
            )
        };
        for (info, s) in infos.iter().zip(shaders) {
            if *s == vk::ShaderEXT::null() || !info.stage.contains(vk::ShaderStageFlags::FRAGMENT) {
                continue;
            }
            // SAFETY: pName is a valid string per valid usage.
            let entry_name = if info.p_name.is_null() {
                "main".to_string()
            } else {
                unsafe { CStr::from_ptr(info.p_name) }
                    .to_string_lossy()
                    .into_owned()
            };
            let (analysis, source, hash) = if info.code_type == vk::ShaderCodeTypeEXT::SPIRV {
                // SAFETY: pCode holds codeSize bytes.
                let words =
                    unsafe { capture::code_words(info.p_code as *const u8, info.code_size) };
                // SAFETY: pSpecializationInfo is NULL or valid.
                let spec = unsafe { capture::specialization(info.p_specialization_info) };
                let hash = compute::stage_hash(&words, &entry_name, spec.as_ref());
                (compute::analyze_module(&words), "shader_object_spirv", hash)
            } else {
                (
                    Err("the shader object was created from a driver binary".to_string()),
                    "shader_object_binary",
                    None,
                )
            };
            let draw = DrawState {
                samples: Some(Samples::Dynamic),
                ..Default::default()
            };
            let analysis = Arc::new(analysis);
            let entry = compute::fragment_entry(&analysis, &entry_name);
            if entry.as_ref().is_ok_and(|e| e.interlock.is_some()) {
                // A shader object's state is all set at draw time.
                d.add_bindable(crate::draws::Bindable {
                    handle: vk::Handle::as_raw(*s),
                    kind: Kind::ShaderObject,
                    fragment: LibraryFragment {
                        analysis: analysis.clone(),
                        entry: entry_name.clone(),
                        source,
                        hash: hash.clone(),
                    },
                    draw: draw.clone(),
                    dynamic: capture::Dynamic::all(),
                });
            }
            emit(
                &d,
                Kind::ShaderObject,
                vk::Handle::as_raw(*s),
                source,
                hash.as_deref(),
                &entry_name,
                entry,
                &draw,
            );
        }
    });
    result
}

unsafe extern "system" fn destroy_shader_ext(
    device: vk::Device,
    shader: vk::ShaderEXT,
    p_allocator: *const vk::AllocationCallbacks,
) {
    let Some(d) = device_of(device) else {
        return;
    };
    d.remove_bindable(vk::Handle::as_raw(shader));
    if let Some(next) = d.destroy_shader_ext {
        // SAFETY: the application's arguments, unchanged.
        unsafe { next(device, shader, p_allocator) };
    }
}
