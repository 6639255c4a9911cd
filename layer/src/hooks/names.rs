//! The application's names of pipelines, shader objects and shader modules
//! (vkSetDebugUtilsObjectNameEXT, vkDebugMarkerSetObjectNameEXT): the names records carry.

use crate::boundary::guarded;
use crate::device::Device;
use ash::vk;
use std::ffi::{c_char, CStr};

/// Remembers a name; an empty or NULL name removes it.
///
/// # Safety
/// `name` must be NULL or a valid NUL-terminated string.
unsafe fn remember(d: &Device, object: u64, name: *const c_char) {
    let _ = guarded(&d.health, "object name", || {
        // SAFETY: per the caller.
        let name = (!name.is_null())
            .then(|| {
                unsafe { CStr::from_ptr(name) }
                    .to_string_lossy()
                    .into_owned()
            })
            .filter(|n| !n.is_empty());
        d.objects.set_name(object, name);
    });
}

/// After a successful naming call: remembers the name of the objects records name.
///
/// # Safety
/// `name` must be NULL or a valid NUL-terminated string.
unsafe fn named(
    d: &Device,
    r: vk::Result,
    recorded: bool,
    object: u64,
    name: *const c_char,
) -> vk::Result {
    if r == vk::Result::SUCCESS && recorded {
        // SAFETY: per the caller.
        unsafe { remember(d, object, name) };
    }
    r
}

/// vkSetDebugUtilsObjectNameEXT.
///
/// # Safety
/// The application's arguments.
pub unsafe fn debug_utils(
    d: &Device,
    next: vk::PFN_vkSetDebugUtilsObjectNameEXT,
    device: vk::Device,
    info: *const vk::DebugUtilsObjectNameInfoEXT,
) -> vk::Result {
    // SAFETY: the application's arguments, unchanged.
    let r = unsafe { next(device, info) };
    if info.is_null() {
        return r;
    }
    // SAFETY: a valid name info, with a valid name.
    unsafe {
        let i = &*info;
        let recorded = matches!(
            i.object_type,
            vk::ObjectType::PIPELINE | vk::ObjectType::SHADER_EXT | vk::ObjectType::SHADER_MODULE
        );
        named(d, r, recorded, i.object_handle, i.p_object_name)
    }
}

/// vkDebugMarkerSetObjectNameEXT.
///
/// # Safety
/// The application's arguments.
pub unsafe fn debug_marker(
    d: &Device,
    next: vk::PFN_vkDebugMarkerSetObjectNameEXT,
    device: vk::Device,
    info: *const vk::DebugMarkerObjectNameInfoEXT,
) -> vk::Result {
    // SAFETY: the application's arguments, unchanged.
    let r = unsafe { next(device, info) };
    if info.is_null() {
        return r;
    }
    // SAFETY: a valid name info, with a valid name.
    unsafe {
        let i = &*info;
        let recorded = matches!(
            i.object_type,
            vk::DebugReportObjectTypeEXT::PIPELINE | vk::DebugReportObjectTypeEXT::SHADER_MODULE
        );
        named(d, r, recorded, i.object, i.p_object_name)
    }
}
