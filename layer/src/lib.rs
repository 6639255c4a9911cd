//! `VK_LAYER_POPS_interlock`, loaded through `VK_INSTANCE_LAYERS`.
//!
//! `libVkLayer_pops_interlock.so` exports only `vkNegotiateLoaderLayerInterfaceVersion`
//! (loader–layer interface 2). It intercepts shader-module, graphics-pipeline and shader-object
//! creation, analyses each fragment shader's interlock use and reports the AMD register state and
//! PM4 a driver must program for it, while passing every call down the chain unchanged and exactly
//! once. Everything it does not intercept is the next layer's own function pointer.
//!
//! Layout: [`ffi`] (vk_layer.h), [`dispatch`] (per-instance/per-device state keyed by dispatch
//! key), [`hooks`] (the intercepted entry points), [`capture`] (reading create infos),
//! [`compute`] (analysis, state, diagnostics: pure), [`draws`] (command-buffer tracking: the
//! state of each draw), [`report`] (JSON Lines), [`settings`].
#![allow(non_snake_case)]

pub mod capture;
pub mod chip;
pub mod cmd_hooks;
pub mod compute;
pub mod dispatch;
pub mod draw_path;
pub mod draws;
pub mod experiment;
pub mod ffi;
pub mod hooks;
pub mod intercept;
pub mod messenger;
pub mod objects;
pub mod queue_hooks;
pub mod records;
pub mod report;
pub mod settings;
pub mod timing;

#[cfg(test)]
mod fake_next;

use ash::vk;

/// The loader's entry point: agrees on interface version 2 and hands out the layer's
/// GetInstanceProcAddr and GetDeviceProcAddr. No physical-device functions are intercepted, so
/// `pfnGetPhysicalDeviceProcAddr` is NULL (the loader then calls the next layer directly).
///
/// # Safety
/// Called by the Vulkan loader with a valid `VkNegotiateLayerInterface`.
#[no_mangle]
pub unsafe extern "system" fn vkNegotiateLoaderLayerInterfaceVersion(
    p_version_struct: *mut ffi::NegotiateLayerInterface,
) -> vk::Result {
    if p_version_struct.is_null() {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    }
    // SAFETY: non-null, and the loader passes a valid struct it owns for this call.
    let v = unsafe { &mut *p_version_struct };
    if v.s_type != ffi::LAYER_NEGOTIATE_INTERFACE_STRUCT || v.loader_layer_interface_version < 1 {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    }
    if v.loader_layer_interface_version > ffi::CURRENT_LOADER_LAYER_INTERFACE_VERSION {
        v.loader_layer_interface_version = ffi::CURRENT_LOADER_LAYER_INTERFACE_VERSION;
    }
    v.pfn_get_instance_proc_addr = Some(hooks::get_instance_proc_addr);
    v.pfn_get_device_proc_addr = Some(hooks::get_device_proc_addr);
    if v.loader_layer_interface_version >= 2 {
        v.pfn_get_physical_device_proc_addr = None;
    }
    vk::Result::SUCCESS
}
