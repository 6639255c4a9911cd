//! The part of libdrm / libdrm_amdgpu that command submission needs and that
//! `libdrm_amdgpu_sys` 0.8 does not make public (its raw bindings module is private and its
//! `DeviceHandle` does not expose the device pointer). Declarations follow libdrm's `amdgpu.h`,
//! `xf86drm.h` and the kernel's `amdgpu_drm.h`; the struct layouts are the same as in
//! `libdrm_amdgpu_sys`'s generated bindings, checked by the size assertions below.
#![allow(non_camel_case_types)]

use std::ffi::{c_char, c_int, c_void};

#[repr(C)]
pub struct amdgpu_device {
    _opaque: [u8; 0],
}
#[repr(C)]
pub struct amdgpu_bo {
    _opaque: [u8; 0],
}
#[repr(C)]
pub struct amdgpu_va {
    _opaque: [u8; 0],
}

pub type amdgpu_device_handle = *mut amdgpu_device;
pub type amdgpu_bo_handle = *mut amdgpu_bo;
pub type amdgpu_va_handle = *mut amdgpu_va;

#[repr(C)]
pub struct amdgpu_bo_alloc_request {
    pub alloc_size: u64,
    pub phys_alignment: u64,
    pub preferred_heap: u32,
    pub flags: u64,
}

#[repr(C)]
pub struct drm_amdgpu_bo_list_entry {
    pub bo_handle: u32,
    pub bo_priority: u32,
}

#[repr(C)]
pub struct drm_amdgpu_cs_chunk {
    pub chunk_id: u32,
    pub length_dw: u32,
    pub chunk_data: u64,
}

#[repr(C)]
pub struct drm_amdgpu_cs_chunk_ib {
    pub _pad: u32,
    pub flags: u32,
    pub va_start: u64,
    pub ib_bytes: u32,
    pub ip_type: u32,
    pub ip_instance: u32,
    pub ring: u32,
}

#[repr(C)]
pub struct drmVersion {
    pub version_major: c_int,
    pub version_minor: c_int,
    pub version_patchlevel: c_int,
    pub name_len: c_int,
    pub name: *mut c_char,
    pub date_len: c_int,
    pub date: *mut c_char,
    pub desc_len: c_int,
    pub desc: *mut c_char,
}

const _: () = {
    assert!(std::mem::size_of::<amdgpu_bo_alloc_request>() == 32);
    assert!(std::mem::size_of::<drm_amdgpu_bo_list_entry>() == 8);
    assert!(std::mem::size_of::<drm_amdgpu_cs_chunk>() == 16);
    assert!(std::mem::size_of::<drm_amdgpu_cs_chunk_ib>() == 32);
};

// amdgpu_drm.h
pub const AMDGPU_GEM_DOMAIN_GTT: u32 = 0x2;
pub const AMDGPU_GEM_DOMAIN_VRAM: u32 = 0x4;
pub const AMDGPU_GEM_CREATE_CPU_ACCESS_REQUIRED: u64 = 1 << 0;
pub const AMDGPU_GEM_CREATE_VRAM_CLEARED: u64 = 1 << 3;
pub const AMDGPU_VM_PAGE_READABLE: u64 = 1 << 1;
pub const AMDGPU_VM_PAGE_WRITEABLE: u64 = 1 << 2;
pub const AMDGPU_VM_PAGE_EXECUTABLE: u64 = 1 << 3;
pub const AMDGPU_VA_OP_MAP: u32 = 1;
pub const AMDGPU_VA_OP_UNMAP: u32 = 2;
pub const AMDGPU_HW_IP_GFX: u32 = 0;
pub const AMDGPU_CHUNK_ID_IB: u32 = 0x01;
pub const AMDGPU_CTX_QUERY2_FLAGS_RESET: u64 = 1 << 0;
pub const AMDGPU_CTX_QUERY2_FLAGS_VRAMLOST: u64 = 1 << 1;
pub const AMDGPU_CTX_QUERY2_FLAGS_GUILTY: u64 = 1 << 2;
pub const AMDGPU_CTX_QUERY2_FLAGS_RESET_IN_PROGRESS: u64 = 1 << 5;
// amdgpu.h
pub const AMDGPU_GPU_VA_RANGE_GENERAL: c_int = 0;
pub const AMDGPU_BO_HANDLE_TYPE_KMS: c_int = 1;

#[link(name = "drm")]
extern "C" {
    pub fn drmGetVersion(fd: c_int) -> *mut drmVersion;
    pub fn drmFreeVersion(v: *mut drmVersion);
}

#[link(name = "drm_amdgpu")]
extern "C" {
    pub fn amdgpu_device_initialize(
        fd: c_int,
        major_version: *mut u32,
        minor_version: *mut u32,
        device_handle: *mut amdgpu_device_handle,
    ) -> c_int;
    pub fn amdgpu_device_deinitialize(device_handle: amdgpu_device_handle) -> c_int;

    pub fn amdgpu_bo_alloc(
        dev: amdgpu_device_handle,
        alloc_buffer: *mut amdgpu_bo_alloc_request,
        buf_handle: *mut amdgpu_bo_handle,
    ) -> c_int;
    pub fn amdgpu_bo_free(buf_handle: amdgpu_bo_handle) -> c_int;
    pub fn amdgpu_bo_export(
        buf_handle: amdgpu_bo_handle,
        type_: c_int,
        shared_handle: *mut u32,
    ) -> c_int;
    pub fn amdgpu_bo_cpu_map(buf_handle: amdgpu_bo_handle, cpu: *mut *mut c_void) -> c_int;
    pub fn amdgpu_bo_cpu_unmap(buf_handle: amdgpu_bo_handle) -> c_int;

    pub fn amdgpu_va_range_alloc(
        dev: amdgpu_device_handle,
        va_range_type: c_int,
        size: u64,
        va_base_alignment: u64,
        va_base_required: u64,
        va_base_allocated: *mut u64,
        va_range_handle: *mut amdgpu_va_handle,
        flags: u64,
    ) -> c_int;
    pub fn amdgpu_va_range_free(va_range_handle: amdgpu_va_handle) -> c_int;
    pub fn amdgpu_bo_va_op(
        bo: amdgpu_bo_handle,
        offset: u64,
        size: u64,
        addr: u64,
        flags: u64,
        ops: u32,
    ) -> c_int;

    pub fn amdgpu_bo_list_create_raw(
        dev: amdgpu_device_handle,
        number_of_buffers: u32,
        buffers: *mut drm_amdgpu_bo_list_entry,
        result: *mut u32,
    ) -> c_int;
    pub fn amdgpu_bo_list_destroy_raw(dev: amdgpu_device_handle, bo_list: u32) -> c_int;
}
