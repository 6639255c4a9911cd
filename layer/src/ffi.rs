//! The loader–layer interface of `vk_layer.h`, which `ash` does not carry (it is not in vk.xml):
//! its structures from `ash-layer`, and the raw-memory helpers the layer walks chains with.
//! `layer/tests/loader_abi.rs` compiles a C program against the installed Vulkan-Headers'
//! `vk_layer.h` and holds every size, member offset and constant to it.

use ash::vk;
use std::ffi::c_void;

/// The loader–layer structures of `vk_layer.h`, from `ash-layer` (bindings atop ash; the
/// layouts checked against the header by `layer/tests/loader_abi.rs`).
pub use ash_layer::{
    LayerDeviceCreateInfo, LayerDeviceCreateInfoUnion, LayerDeviceLink, LayerFunction,
    LayerInstanceCreateInfo, LayerInstanceCreateInfoUnion, LayerInstanceLink,
    NegotiateLayerInterface, NegotiateLayerStructType,
    PFN_vk_layerGetPhysicalDeviceProcAddr as PfnGetPhysicalDeviceProcAddr,
};

/// The interface version this layer speaks: version 2 adds `pfnGetPhysicalDeviceProcAddr`.
pub const CURRENT_LOADER_LAYER_INTERFACE_VERSION: u32 = 2;

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

/// `VkPipelineCreateInfoKHR` (VK_KHR_pipeline_binary): sType, pNext — the pNext is the
/// pipeline's own create info.
#[repr(C)]
pub struct PipelineCreateInfoKHR {
    pub s_type: vk::StructureType,
    pub p_next: *mut c_void,
}

/// `VK_MAX_PIPELINE_BINARY_KEY_SIZE_KHR` (Vulkan registry: 32).
pub const MAX_PIPELINE_BINARY_KEY_SIZE_KHR: usize = 32;

/// `VkPipelineBinaryKeyKHR` (VK_KHR_pipeline_binary): sType, pNext, keySize, key.
#[repr(C)]
pub struct PipelineBinaryKeyKHR {
    pub s_type: vk::StructureType,
    pub p_next: *mut c_void,
    pub key_size: u32,
    pub key: [u8; MAX_PIPELINE_BINARY_KEY_SIZE_KHR],
}

impl Default for PipelineBinaryKeyKHR {
    fn default() -> Self {
        PipelineBinaryKeyKHR {
            s_type: STRUCTURE_TYPE_PIPELINE_BINARY_KEY_KHR,
            p_next: std::ptr::null_mut(),
            key_size: 0,
            key: [0; MAX_PIPELINE_BINARY_KEY_SIZE_KHR],
        }
    }
}

impl PipelineBinaryKeyKHR {
    /// The key's valid bytes (the specification: two keys are equal where `keySize` and the
    /// first `keySize` bytes are).
    pub fn bytes(&self) -> Option<&[u8]> {
        let n = self.key_size as usize;
        (n > 0).then(|| self.key.get(..n)).flatten()
    }
}

/// `VkPhysicalDevicePipelineBinaryFeaturesKHR` (VK_KHR_pipeline_binary): sType, pNext,
/// pipelineBinaries.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct PhysicalDevicePipelineBinaryFeaturesKHR {
    pub s_type: vk::StructureType,
    pub p_next: *mut c_void,
    pub pipeline_binaries: vk::Bool32,
}

impl Default for PhysicalDevicePipelineBinaryFeaturesKHR {
    fn default() -> Self {
        PhysicalDevicePipelineBinaryFeaturesKHR {
            s_type: STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_BINARY_FEATURES_KHR,
            p_next: std::ptr::null_mut(),
            pipeline_binaries: vk::FALSE,
        }
    }
}

/// `vkGetPipelineKeyKHR` (VK_KHR_pipeline_binary).
#[allow(non_camel_case_types)]
pub type PFN_vkGetPipelineKeyKHR = unsafe extern "system" fn(
    device: vk::Device,
    p_pipeline_create_info: *const PipelineCreateInfoKHR,
    p_pipeline_key: *mut PipelineBinaryKeyKHR,
) -> vk::Result;

/// `VkPipelineBinaryCreateInfoKHR` (VK_KHR_pipeline_binary): sType, pNext, pKeysAndDataInfo,
/// pipeline, pPipelineCreateInfo — the layer sets only `pipeline`.
#[repr(C)]
pub struct PipelineBinaryCreateInfoKHR {
    pub s_type: vk::StructureType,
    pub p_next: *const c_void,
    pub p_keys_and_data_info: *const c_void,
    pub pipeline: vk::Pipeline,
    pub p_pipeline_create_info: *const PipelineCreateInfoKHR,
}

/// `VkPipelineBinaryHandlesInfoKHR` (VK_KHR_pipeline_binary): sType, pNext,
/// pipelineBinaryCount, pPipelineBinaries.
#[repr(C)]
pub struct PipelineBinaryHandlesInfoKHR {
    pub s_type: vk::StructureType,
    pub p_next: *const c_void,
    pub pipeline_binary_count: u32,
    /// `VkPipelineBinaryKHR*` (non-dispatchable 64-bit handles).
    pub p_pipeline_binaries: *mut u64,
}

/// `VkPipelineBinaryDataInfoKHR` (VK_KHR_pipeline_binary): sType, pNext, pipelineBinary.
#[repr(C)]
pub struct PipelineBinaryDataInfoKHR {
    pub s_type: vk::StructureType,
    pub p_next: *mut c_void,
    pub pipeline_binary: u64,
}

/// `vkCreatePipelineBinariesKHR` (VK_KHR_pipeline_binary).
#[allow(non_camel_case_types)]
pub type PFN_vkCreatePipelineBinariesKHR = unsafe extern "system" fn(
    device: vk::Device,
    p_create_info: *const PipelineBinaryCreateInfoKHR,
    p_allocator: *const vk::AllocationCallbacks,
    p_binaries: *mut PipelineBinaryHandlesInfoKHR,
) -> vk::Result;

/// `vkGetPipelineBinaryDataKHR` (VK_KHR_pipeline_binary).
#[allow(non_camel_case_types)]
pub type PFN_vkGetPipelineBinaryDataKHR = unsafe extern "system" fn(
    device: vk::Device,
    p_info: *const PipelineBinaryDataInfoKHR,
    p_pipeline_binary_key: *mut PipelineBinaryKeyKHR,
    p_pipeline_binary_data_size: *mut usize,
    p_pipeline_binary_data: *mut c_void,
) -> vk::Result;

/// `vkDestroyPipelineBinaryKHR` (VK_KHR_pipeline_binary).
#[allow(non_camel_case_types)]
pub type PFN_vkDestroyPipelineBinaryKHR = unsafe extern "system" fn(
    device: vk::Device,
    pipeline_binary: u64,
    p_allocator: *const vk::AllocationCallbacks,
);

/// `VK_PIPELINE_CREATE_2_CAPTURE_DATA_BIT_KHR` (Vulkan registry: bit 31 of
/// VkPipelineCreateFlagBits2KHR): the driver keeps the pipeline's binaries for
/// vkCreatePipelineBinariesKHR.
pub const PIPELINE_CREATE_2_CAPTURE_DATA_BIT_KHR: vk::PipelineCreateFlags2KHR =
    vk::PipelineCreateFlags2KHR::from_raw(1 << 31);

/// `VK_STRUCTURE_TYPE_PIPELINE_BINARY_CREATE_INFO_KHR` (Vulkan registry: 1000483001).
pub const STRUCTURE_TYPE_PIPELINE_BINARY_CREATE_INFO_KHR: vk::StructureType =
    vk::StructureType::from_raw(1_000_483_001);
/// `VK_STRUCTURE_TYPE_PIPELINE_BINARY_DATA_INFO_KHR` (Vulkan registry: 1000483006).
pub const STRUCTURE_TYPE_PIPELINE_BINARY_DATA_INFO_KHR: vk::StructureType =
    vk::StructureType::from_raw(1_000_483_006);
/// `VK_STRUCTURE_TYPE_PIPELINE_BINARY_HANDLES_INFO_KHR` (Vulkan registry: 1000483009).
pub const STRUCTURE_TYPE_PIPELINE_BINARY_HANDLES_INFO_KHR: vk::StructureType =
    vk::StructureType::from_raw(1_000_483_009);
/// `VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_BINARY_FEATURES_KHR` (Vulkan registry: 1000483000).
pub const STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_BINARY_FEATURES_KHR: vk::StructureType =
    vk::StructureType::from_raw(1_000_483_000);
/// `VK_STRUCTURE_TYPE_PIPELINE_BINARY_KEY_KHR` (Vulkan registry: 1000483003).
pub const STRUCTURE_TYPE_PIPELINE_BINARY_KEY_KHR: vk::StructureType =
    vk::StructureType::from_raw(1_000_483_003);
/// `VK_STRUCTURE_TYPE_PIPELINE_CREATE_INFO_KHR` (Vulkan registry: 1000483007).
pub const STRUCTURE_TYPE_PIPELINE_CREATE_INFO_KHR: vk::StructureType =
    vk::StructureType::from_raw(1_000_483_007);
