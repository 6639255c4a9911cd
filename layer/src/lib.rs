//! `VK_LAYER_POPS_interlock`, loaded through `VK_INSTANCE_LAYERS`.
//!
//! `libVkLayer_pops_interlock.so` exports only `vkNegotiateLoaderLayerInterfaceVersion`
//! (loader–layer interface 2). It intercepts shader-module, graphics-pipeline and shader-object
//! creation and command recording, analyses each fragment shader's interlock use and reports
//! the AMD register state and PM4 a driver must program for it, per object and per draw, while
//! passing every call down the chain unchanged and exactly once. Everything it does not
//! intercept is the next layer's own function pointer.
//!
//! The shape, from the application inwards:
//!
//! - the FFI shell: `table` lists every intercepted function once; [`entry`] generates the
//!   entry points (each body inside [`boundary`]) and answers vkGet*ProcAddr; [`next`] holds the
//!   next layer's functions, resolved once; [`draw_path`] is the draw commands' hot path, with
//!   `counter`; [`registry`] maps dispatch keys to [`instance`]s and [`device`]s; [`ffi`] is
//!   vk_layer.h;
//! - [`hooks`]: the bodies, one module per concept, reaching state only through
//! - [`stores`]: the device's state, each store owning its lock;
//! - [`model`]: the pure cores (capture, analysis, draws, findings, records, timing,
//!   experiments), using pm4's and pops_report's types;
//! - out and around: [`records`] (log, report, messengers), [`report`] (the JSONL file),
//!   [`messenger`], [`settings`], [`chip`], [`chain`] (create-info copies for experiments).
#![allow(non_snake_case)]

pub mod background;
pub mod boundary;
pub mod chain;
pub mod chip;
mod counter;
pub mod device;
pub mod draw_path;
pub mod entry;
pub mod exit_wait;
pub mod ffi;
pub mod hooks;
pub mod instance;
pub mod messenger;
/// The layer's decisions: the `layer_model` crate (no unsafe code, no Vulkan memory).
pub use layer_model as model;
pub mod next;
pub mod records;
pub mod registry;
pub mod report;
pub mod settings;
pub mod stores;
mod table;
pub use table::PROTOTYPES;
pub mod vk;

#[cfg(test)]
mod fake_next;

/// The loader's entry point: agrees on interface version 2 and hands out the layer's
/// GetInstanceProcAddr and GetDeviceProcAddr. No physical-device functions are intercepted, so
/// `pfnGetPhysicalDeviceProcAddr` is NULL (the loader then calls the next layer directly).
///
/// # Safety
/// Called by the Vulkan loader with a valid `VkNegotiateLayerInterface`.
#[no_mangle]
pub unsafe extern "system" fn vkNegotiateLoaderLayerInterfaceVersion(
    p_version_struct: *mut ffi::NegotiateLayerInterface,
) -> ash::vk::Result {
    if p_version_struct.is_null() {
        return ash::vk::Result::ERROR_INITIALIZATION_FAILED;
    }
    // SAFETY: non-null, and the loader passes a valid struct it owns for this call.
    let v = unsafe { &mut *p_version_struct };
    if v.s_type != ffi::NegotiateLayerStructType::INTERFACE_STRUCT
        || v.loader_layer_interface_version < 1
    {
        return ash::vk::Result::ERROR_INITIALIZATION_FAILED;
    }
    if v.loader_layer_interface_version > ffi::CURRENT_LOADER_LAYER_INTERFACE_VERSION {
        v.loader_layer_interface_version = ffi::CURRENT_LOADER_LAYER_INTERFACE_VERSION;
    }
    v.pfn_get_instance_proc_addr = Some(entry::vkGetInstanceProcAddr);
    v.pfn_get_device_proc_addr = Some(entry::vkGetDeviceProcAddr);
    if v.loader_layer_interface_version >= 2 {
        v.pfn_get_physical_device_proc_addr = None;
    }
    ash::vk::Result::SUCCESS
}
