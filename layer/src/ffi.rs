//! The loader–layer interface of `vk_layer.h`, which `ash` does not carry (it is not in vk.xml).
//!
//! Layouts follow the Vulkan-Headers `vk_layer.h` of the installed loader (interface version 2);
//! `layer/tests/loader_abi.rs` compiles a C program against that header and holds every size,
//! member offset and constant here to it.

use ash::vk;
use std::ffi::{c_char, c_void};

/// `PFN_GetPhysicalDeviceProcAddr`: the loader asks a layer for unknown physical-device functions.
pub type PfnGetPhysicalDeviceProcAddr = unsafe extern "system" fn(
    instance: vk::Instance,
    p_name: *const c_char,
) -> vk::PFN_vkVoidFunction;

/// The interface version this layer speaks: version 2 adds `pfnGetPhysicalDeviceProcAddr`.
pub const CURRENT_LOADER_LAYER_INTERFACE_VERSION: u32 = 2;

/// `VkNegotiateLayerStructType::LAYER_NEGOTIATE_INTERFACE_STRUCT`.
pub const LAYER_NEGOTIATE_INTERFACE_STRUCT: i32 = 1;

/// `VkNegotiateLayerInterface`.
#[repr(C)]
pub struct NegotiateLayerInterface {
    pub s_type: i32,
    pub p_next: *mut c_void,
    pub loader_layer_interface_version: u32,
    pub pfn_get_instance_proc_addr: Option<vk::PFN_vkGetInstanceProcAddr>,
    pub pfn_get_device_proc_addr: Option<vk::PFN_vkGetDeviceProcAddr>,
    pub pfn_get_physical_device_proc_addr: Option<PfnGetPhysicalDeviceProcAddr>,
}

/// `VkLayerFunction`: what the union of a loader create info holds.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LayerFunction(pub i32);

impl LayerFunction {
    /// `VK_LAYER_LINK_INFO`: `u.pLayerInfo` is this layer's link in the chain.
    pub const LAYER_LINK_INFO: Self = Self(0);
}

/// `VkLayerInstanceLink`.
#[repr(C)]
pub struct LayerInstanceLink {
    pub p_next: *mut LayerInstanceLink,
    pub pfn_next_get_instance_proc_addr: Option<vk::PFN_vkGetInstanceProcAddr>,
    pub pfn_next_get_physical_device_proc_addr: Option<PfnGetPhysicalDeviceProcAddr>,
}

/// `VkLayerInstanceCreateInfo` (sType `VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO`). The union's
/// largest member is two function pointers; only `pLayerInfo` is read here.
#[repr(C)]
pub struct LayerInstanceCreateInfo {
    pub s_type: vk::StructureType,
    pub p_next: *const c_void,
    pub function: LayerFunction,
    pub u: LayerInstanceCreateInfoUnion,
}

#[repr(C)]
pub union LayerInstanceCreateInfoUnion {
    pub p_layer_info: *mut LayerInstanceLink,
    pub layer_device: [*const c_void; 2],
}

/// `VkLayerDeviceLink`.
#[repr(C)]
pub struct LayerDeviceLink {
    pub p_next: *mut LayerDeviceLink,
    pub pfn_next_get_instance_proc_addr: Option<vk::PFN_vkGetInstanceProcAddr>,
    pub pfn_next_get_device_proc_addr: Option<vk::PFN_vkGetDeviceProcAddr>,
}

/// `VkLayerDeviceCreateInfo` (sType `VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO`).
#[repr(C)]
pub struct LayerDeviceCreateInfo {
    pub s_type: vk::StructureType,
    pub p_next: *const c_void,
    pub function: LayerFunction,
    pub u: LayerDeviceCreateInfoUnion,
}

#[repr(C)]
pub union LayerDeviceCreateInfoUnion {
    pub p_layer_info: *mut LayerDeviceLink,
    pub pfn_set_device_loader_data: *const c_void,
}

/// A generic `VkBaseInStructure`-shaped view used to walk pNext chains.
#[repr(C)]
pub struct BaseIn {
    pub s_type: vk::StructureType,
    pub p_next: *const BaseIn,
}

/// Finds the first structure of `s_type` in a pNext chain.
///
/// # Safety
/// `p_next` must be null or point to a valid Vulkan pNext chain.
pub unsafe fn find_in_chain(mut p_next: *const c_void, s_type: vk::StructureType) -> *const c_void {
    while !p_next.is_null() {
        // SAFETY: the caller guarantees every element of the chain starts with sType/pNext.
        let base = unsafe { &*(p_next as *const BaseIn) };
        if base.s_type == s_type {
            return p_next;
        }
        p_next = base.p_next as *const c_void;
    }
    std::ptr::null()
}

/// Finds the loader's link-info structure of `s_type` in a create info's chain. The loader owns
/// it (it is not the application's), and advancing it is how the chain is walked.
///
/// # Safety
/// `p_next` must be a valid pNext chain.
pub unsafe fn find_link<T>(
    mut p_next: *const std::ffi::c_void,
    s_type: vk::StructureType,
) -> *mut T {
    while !p_next.is_null() {
        // SAFETY: every chain element starts with sType/pNext; the loader's structures have
        // `function` right after them.
        let base = unsafe { &*(p_next as *const BaseIn) };
        if base.s_type == s_type {
            // SAFETY: the loader's link-info structures of this sType are laid out as
            // `LayerDeviceCreateInfo` (sType, pNext, function, union), so `function` is readable.
            let f = unsafe { &*(p_next as *const LayerDeviceCreateInfo) }.function;
            if f == LayerFunction::LAYER_LINK_INFO {
                return p_next as *mut T;
            }
        }
        p_next = base.p_next as *const std::ffi::c_void;
    }
    std::ptr::null_mut()
}

/// The loader's dispatch key of a dispatchable handle: the dispatch-table pointer stored in its
/// first word. Instances and their physical devices share one; a device and its queues and
/// command buffers share another.
///
/// # Safety
/// `handle` must be a live dispatchable Vulkan handle created through the loader.
pub unsafe fn dispatch_key<T: vk::Handle>(handle: T) -> usize {
    let p = handle.as_raw() as usize as *const usize;
    // SAFETY: dispatchable handles point to an object whose first member is the dispatch pointer.
    unsafe { p.read() }
}

/// `VkPipelineBinaryInfoKHR` (VK_KHR_pipeline_binary, newer than the Vulkan headers `ash` is
/// generated from). Layout as in the Vulkan registry: sType, pNext, binaryCount,
/// pPipelineBinaries.
#[repr(C)]
pub struct PipelineBinaryInfoKHR {
    pub s_type: vk::StructureType,
    pub p_next: *const c_void,
    pub binary_count: u32,
    /// `const VkPipelineBinaryKHR*` (non-dispatchable 64-bit handles).
    pub p_pipeline_binaries: *const u64,
}

/// `VK_STRUCTURE_TYPE_PIPELINE_BINARY_INFO_KHR` (Vulkan registry: 1000483002).
pub const STRUCTURE_TYPE_PIPELINE_BINARY_INFO_KHR: vk::StructureType =
    vk::StructureType::from_raw(1_000_483_002);
