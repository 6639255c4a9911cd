//! `AmdgpuWinsys`: real submission to an amdgpu render node through libdrm_amdgpu.
//!
//! Modelled on RADV's winsys/amdgpu (radv_amdgpu_bo.c, radv_amdgpu_cs.c): a buffer is a BO
//! allocated in GTT or VRAM, a VA range reserved for it, the BO mapped there, and a CPU mapping;
//! a submission is a raw CS with one IB chunk and a BO list created for it and destroyed right
//! after. Device identification uses libdrm_amdgpu_sys's safe wrappers; the CS entry points it
//! does not export are declared in `ffi`.
//!
//! Every kernel object is held by a guard whose `Drop` releases it, so every path — errors
//! included — releases what it created; guards are declared so that Rust's field drop order
//! releases a buffer's CPU map, then its GPU mapping, then its VA range, then the BO, and the
//! winsys's buffers and contexts before the device and its file descriptor.

use crate::error::ResetKind;
use crate::ffi;
use crate::identify::{self, AsicClass};
use crate::uapi;
use crate::{
    BufferId, ContextId, DeviceInfo, Domain, Fence, FirmwareVersion, Readback, ResetStatus,
    Submission, Winsys, WinsysError,
};
use libdrm_amdgpu_sys::AMDGPU::{self, GPU_INFO};
use nix::errno::Errno;
use std::collections::BTreeMap;
use std::ffi::CStr;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};
use std::ptr;
use std::time::Duration;

/// GPU virtual addresses of buffers are aligned like RADV's large allocations (64 KiB), which
/// also satisfies every IB start alignment the kernel reports.
const VA_ALIGNMENT: u64 = 64 * 1024;
/// BO sizes are rounded to whole pages.
const PAGE: u64 = 4096;
/// The GFX IB padding every level accepts (PM4's 8-dword rule); the kernel may ask for more.
pub const MIN_IB_PAD_DWORDS: u32 = 8;

fn errno_of(r: i32) -> Errno {
    Errno::from_raw(r.abs())
}

/// libdrm returns negative errnos; some paths already hold an `Errno`.
struct ErrnoOrRet(Errno);

impl From<i32> for ErrnoOrRet {
    fn from(r: i32) -> Self {
        ErrnoOrRet(errno_of(r))
    }
}

impl From<Errno> for ErrnoOrRet {
    fn from(e: Errno) -> Self {
        ErrnoOrRet(e)
    }
}

fn kernel_err(what: &'static str, errno: impl Into<ErrnoOrRet>) -> WinsysError {
    let errno = errno.into().0;
    if errno == Errno::ENOMEM {
        WinsysError::OutOfMemory { what, errno }
    } else {
        WinsysError::Kernel { what, errno }
    }
}

/// A failed device initialization: out of memory told apart.
fn init_err(path: &Path, errno: Errno) -> WinsysError {
    if errno == Errno::ENOMEM {
        WinsysError::OutOfMemory {
            what: "initializing the device",
            errno,
        }
    } else {
        WinsysError::DeviceInit {
            path: path.to_path_buf(),
            errno,
        }
    }
}

/// A failed query: out of memory told apart.
fn query_err(what: &'static str, errno: Errno) -> WinsysError {
    if errno == Errno::ENOMEM {
        WinsysError::OutOfMemory {
            what: "querying the device",
            errno,
        }
    } else {
        WinsysError::Query { what, errno }
    }
}

/// libdrm_amdgpu's device, one reference.
struct Device(ffi::amdgpu_device_handle);

impl Drop for Device {
    fn drop(&mut self) {
        // SAFETY: the handle came from a successful amdgpu_device_initialize and this guard owns
        // exactly one reference; every BO, VA range and context made from it is dropped first
        // (field order of AmdgpuWinsys).
        unsafe { ffi::amdgpu_device_deinitialize(self.0) };
    }
}

struct Bo(ffi::amdgpu_bo_handle);

impl Drop for Bo {
    fn drop(&mut self) {
        // SAFETY: the handle came from a successful amdgpu_bo_alloc and is freed only here.
        unsafe { ffi::amdgpu_bo_free(self.0) };
    }
}

struct VaRange(ffi::amdgpu_va_handle);

impl Drop for VaRange {
    fn drop(&mut self) {
        // SAFETY: the handle came from a successful amdgpu_va_range_alloc and is freed only here,
        // after the mapping inside it has been removed (VaMapping drops first).
        unsafe { ffi::amdgpu_va_range_free(self.0) };
    }
}

struct VaMapping {
    bo: ffi::amdgpu_bo_handle,
    va: u64,
    size: u64,
}

impl Drop for VaMapping {
    fn drop(&mut self) {
        released("unmapping a buffer from the GPU address space", || {
            // SAFETY: the BO is alive (its guard drops after this one) and was mapped at exactly
            // (va, size) by a successful AMDGPU_VA_OP_MAP, not yet unmapped.
            unsafe {
                ffi::amdgpu_bo_va_op(self.bo, 0, self.size, self.va, 0, ffi::AMDGPU_VA_OP_UNMAP)
            }
        });
    }
}

/// Releases a kernel object with `release`, once more where the kernel refused the first time
/// (an interrupted or transiently failing ioctl): a refused release would otherwise leave the
/// object with the process until its file closes. A second refusal is reported on stderr; a
/// guard's `Drop` has no caller to return it to.
fn released(what: &str, mut release: impl FnMut() -> i32) {
    let r = release();
    if r != 0 && release() != 0 {
        eprintln!(
            "pops: {what} failed twice ({}); the kernel releases it when the device is closed",
            errno_of(r)
        );
    }
}

struct CpuMap {
    bo: ffi::amdgpu_bo_handle,
    ptr: *mut u8,
}

impl Drop for CpuMap {
    fn drop(&mut self) {
        // SAFETY: the BO is alive and was mapped once by a successful amdgpu_bo_cpu_map.
        unsafe { ffi::amdgpu_bo_cpu_unmap(self.bo) };
    }
}

/// A buffer: fields in release order.
struct Buffer {
    map: CpuMap,
    _mapping: VaMapping,
    _va_range: VaRange,
    _bo: Bo,
    kms_handle: u32,
    va: u64,
    size: u64,
}

struct BoList {
    dev: ffi::amdgpu_device_handle,
    handle: u32,
}

impl Drop for BoList {
    fn drop(&mut self) {
        released("destroying a buffer list", || {
            // SAFETY: the list came from a successful amdgpu_bo_list_create_raw on this device,
            // which outlives it, and is not yet destroyed; the kernel keeps its own references
            // for submitted jobs.
            unsafe { ffi::amdgpu_bo_list_destroy_raw(self.dev, self.handle) }
        });
    }
}

/// A GFX context by the kernel's id (crate::uapi: its release can be retried).
struct Context {
    fd: RawFd,
    id: u32,
    /// Set once a submission, wait or status query reported a reset; no more submissions.
    lost: bool,
}

impl Drop for Context {
    fn drop(&mut self) {
        released("freeing a GFX context", || {
            match uapi::ctx_free(self.fd, self.id) {
                Ok(()) => 0,
                Err(e) => -(e as i32),
            }
        });
    }
}

/// How often a submission the kernel refused for want of memory is tried again (RADV retries
/// such submissions too), a little later each time.
const SUBMIT_ENOMEM_TRIES: u32 = 4;
const SUBMIT_ENOMEM_BACKOFF: Duration = Duration::from_millis(5);

/// Real submission to one amdgpu device.
pub struct AmdgpuWinsys {
    // Field order is release order.
    buffers: BTreeMap<u32, Buffer>,
    contexts: BTreeMap<u32, Context>,
    next_buffer: u32,
    next_context: u32,
    info: DeviceInfo,
    /// Submit IBs that fail [`pm4::validate`] (deliberate experiments only).
    allow_invalid_ibs: bool,
    /// Where the next buffer is placed in the GPU's address space, when the caller chose
    /// ([`Winsys::place_buffers_from`]); libdrm's allocator otherwise.
    va_plan: Option<u64>,
    /// libdrm_amdgpu_sys's handle, used for identification queries only.
    _query: AMDGPU::DeviceHandle,
    dev: Device,
    _fd: OwnedFd,
}

/// One render node and what opening it gave.
#[derive(Debug)]
pub struct ProbedNode {
    pub path: PathBuf,
    pub outcome: Result<DeviceInfo, WinsysError>,
}

/// Reads the kernel driver's name of an open DRM file descriptor (drmGetVersion).
fn driver_name(fd: &OwnedFd) -> Option<String> {
    // SAFETY: fd is an open file descriptor; drmGetVersion issues DRM_IOCTL_VERSION on it and
    // returns NULL when the ioctl fails (not a DRM device).
    let v = unsafe { ffi::drmGetVersion(fd.as_raw_fd()) };
    if v.is_null() {
        return None;
    }
    // SAFETY: v is non-null and points to a drmVersion that libdrm allocated; name is either
    // NULL or a NUL-terminated string owned by it, copied before drmFreeVersion releases it.
    let name = unsafe {
        let n = (*v).name;
        let s = if n.is_null() {
            String::new()
        } else {
            CStr::from_ptr(n).to_string_lossy().into_owned()
        };
        ffi::drmFreeVersion(v);
        s
    };
    Some(name)
}

impl AmdgpuWinsys {
    /// Lets IBs that fail [`pm4::validate`] through to the kernel. Off by default: such an IB
    /// writes something no command processor of the level holds, with undefined results. Turn it
    /// on only for a deliberate experiment on a machine you are prepared to reset.
    pub fn allow_invalid_ibs(&mut self, allow: bool) {
        self.allow_invalid_ibs = allow;
    }

    /// Opens a render node, checks it is an amdgpu GPU with a graphics ring that pops supports,
    /// and reads its identification.
    pub fn open(path: &Path) -> Result<AmdgpuWinsys, WinsysError> {
        let fd = identify::open_node(path)?;
        match driver_name(&fd) {
            None => {
                return Err(WinsysError::NotDrmDevice {
                    path: path.to_path_buf(),
                    what: "DRM_IOCTL_VERSION failed on it".into(),
                })
            }
            Some(name) if name != "amdgpu" => {
                return Err(WinsysError::NotAmdgpu {
                    path: path.to_path_buf(),
                    driver: name,
                })
            }
            Some(_) => {}
        }

        let mut major = 0u32;
        let mut minor = 0u32;
        let mut handle: ffi::amdgpu_device_handle = ptr::null_mut();
        // SAFETY: fd is an open amdgpu DRM descriptor (checked above); the out-pointers are valid
        // locals. libdrm duplicates the descriptor internally.
        let r = unsafe {
            ffi::amdgpu_device_initialize(fd.as_raw_fd(), &mut major, &mut minor, &mut handle)
        };
        if r != 0 || handle.is_null() {
            return Err(init_err(path, failure_errno(r)));
        }
        let dev = Device(handle);

        // The same fd was just initialized successfully, so libdrm hands this handle the same
        // device with one more reference.
        // (Only now: libdrm_amdgpu_sys's initializer dereferences the device it got even when
        // initialization failed.)
        let lib = libdrm_amdgpu_sys::LibDrmAmdgpu::new().map_err(|()| WinsysError::DeviceInit {
            path: path.to_path_buf(),
            errno: Errno::ENOSYS,
        })?;
        let (query, _, _) = lib
            .init_device_handle_with_fd(&fd)
            .map_err(|r| init_err(path, errno_of(r)))?;
        let info = identify_device(path, &query)?;
        Ok(AmdgpuWinsys {
            allow_invalid_ibs: false,
            va_plan: None,
            buffers: BTreeMap::new(),
            contexts: BTreeMap::new(),
            next_buffer: 0,
            next_context: 0,
            info,
            _query: query,
            dev,
            _fd: fd,
        })
    }

    /// Opens every render node of a DRI directory, in order. Nodes of other drivers are kept
    /// with their [`WinsysError::NotAmdgpu`] so callers can say what they skipped.
    pub fn probe_all(dri_dir: &Path) -> Result<Vec<ProbedNode>, WinsysError> {
        Ok(identify::render_nodes(dri_dir)?
            .into_iter()
            .map(|path| {
                let outcome = AmdgpuWinsys::open(&path).map(|ws| ws.info.clone());
                ProbedNode { path, outcome }
            })
            .collect())
    }

    /// Opens the first usable amdgpu render node of a DRI directory. Errors say why none was
    /// usable: no render node at all, none driven by amdgpu, or the first amdgpu node's problem
    /// (permission, compute-only, …).
    pub fn open_first(dri_dir: &Path) -> Result<AmdgpuWinsys, WinsysError> {
        let nodes = identify::render_nodes(dri_dir)?;
        let mut others = Vec::new();
        let mut first_err = None;
        for path in nodes {
            match AmdgpuWinsys::open(&path) {
                Ok(ws) => return Ok(ws),
                Err(WinsysError::NotAmdgpu { driver, .. }) => {
                    others.push(format!("{} ({driver})", path.display()))
                }
                Err(WinsysError::NotDrmDevice { what, .. }) => {
                    others.push(format!("{} (not DRM: {what})", path.display()))
                }
                Err(e) => {
                    first_err.get_or_insert(e);
                }
            }
        }
        Err(first_err.unwrap_or(WinsysError::NoAmdgpuNode {
            dir: dri_dir.to_path_buf(),
            others: others.join(", "),
        }))
    }

    fn buffer(&self, id: BufferId) -> Result<&Buffer, WinsysError> {
        self.buffers
            .get(&id.0)
            .ok_or(WinsysError::UnknownBuffer(id))
    }

    fn context(&mut self, id: ContextId) -> Result<&mut Context, WinsysError> {
        self.contexts
            .get_mut(&id.0)
            .ok_or(WinsysError::UnknownContext(id.0))
    }
}

/// The errno of a call that failed either by its return value or by handing back a null handle
/// despite returning 0 (EFAULT then).
fn failure_errno(r: i32) -> Errno {
    if r == 0 {
        Errno::EFAULT
    } else {
        errno_of(r)
    }
}

/// The timestamp counter frequency from the kernel's value. libdrm copies
/// `amdgpu_gpu_info::gpu_counter_freq` from `drm_amdgpu_info_device::gpu_counter_freq`
/// (AMDGPU_INFO_DEV_INFO, kHz); 0 means the kernel does not know it.
fn counter_freq_khz(reported: u32) -> Option<u64> {
    (reported != 0).then_some(u64::from(reported))
}

/// Everything pops wants to know about an opened amdgpu device.
fn identify_device(path: &Path, q: &AMDGPU::DeviceHandle) -> Result<DeviceInfo, WinsysError> {
    let gpu = q
        .query_gpu_info()
        .map_err(|r| query_err("GPU info (AMDGPU_INFO_DEV_INFO)", errno_of(r)))?;
    let asic = gpu.get_asic_name();
    let family = match identify::classify_asic(asic) {
        AsicClass::Graphics(f) => f,
        AsicClass::ComputeOnly(chip) => {
            return Err(WinsysError::ComputeOnly {
                path: path.to_path_buf(),
                chip: chip.to_string(),
            })
        }
        AsicClass::Unsupported(chip) => {
            return Err(WinsysError::UnsupportedChip {
                path: path.to_path_buf(),
                chip,
            })
        }
    };
    let gfx = q
        .get_hw_ip_info(AMDGPU::HW_IP::HW_IP_TYPE::GFX)
        .map_err(|r| query_err("GFX IP info (AMDGPU_INFO_HW_IP_INFO)", errno_of(r)))?;
    if gfx.count == 0 || gfx.info.available_rings == 0 {
        return Err(WinsysError::ComputeOnly {
            path: path.to_path_buf(),
            chip: format!("{asic}"),
        });
    }
    let fw = |t| {
        q.query_firmware_version(t, 0, 0)
            .ok()
            .map(|v| FirmwareVersion {
                version: v.version,
                feature: v.feature,
            })
    };
    let pad = (gfx.info.ib_size_alignment / 4)
        .max(MIN_IB_PAD_DWORDS)
        .next_power_of_two();
    let drm = q.get_drm_version_struct().ok();
    Ok(DeviceInfo {
        family,
        gfx_level: family.gfx_level(),
        asic: format!("{asic}"),
        marketing_name: gpu.find_device_name(),
        pci_bus: q.get_pci_bus_info().ok().map(|b| b.to_string()),
        pci_id: Some((gpu.device_id(), gpu.pci_rev_id())),
        render_node: Some(path.to_path_buf()),
        shader_engines: gpu.max_se(),
        me_firmware: fw(AMDGPU::FW_VERSION::FW_TYPE::GFX_ME),
        pfp_firmware: fw(AMDGPU::FW_VERSION::FW_TYPE::GFX_PFP),
        ib_pad_dwords: pad,
        ib_start_alignment: gfx.info.ib_start_alignment.max(4),
        drm_version: drm.map(|d| (d.version_major, d.version_minor, d.version_patchlevel)),
        gpu_counter_freq_khz: counter_freq_khz(gpu.gpu_counter_freq),
    })
}

impl Winsys for AmdgpuWinsys {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn executes(&self) -> bool {
        true
    }

    fn create_buffer(&mut self, size: u64, domain: Domain) -> Result<BufferId, WinsysError> {
        if size == 0 {
            return Err(WinsysError::ZeroSize);
        }
        let size = size.div_ceil(PAGE) * PAGE;
        let (heap, flags) = match domain {
            Domain::Gtt => (ffi::AMDGPU_GEM_DOMAIN_GTT, 0),
            Domain::Vram => (
                ffi::AMDGPU_GEM_DOMAIN_VRAM,
                ffi::AMDGPU_GEM_CREATE_CPU_ACCESS_REQUIRED | ffi::AMDGPU_GEM_CREATE_VRAM_CLEARED,
            ),
        };
        let mut req = ffi::amdgpu_bo_alloc_request {
            alloc_size: size,
            phys_alignment: PAGE,
            preferred_heap: heap,
            flags,
        };
        let mut bo_handle: ffi::amdgpu_bo_handle = ptr::null_mut();
        // SAFETY: the device is alive; req and bo_handle are valid for the call.
        let r = unsafe { ffi::amdgpu_bo_alloc(self.dev.0, &mut req, &mut bo_handle) };
        if r != 0 {
            return Err(kernel_err("allocating a buffer", r));
        }
        let bo = Bo(bo_handle);

        let mut kms_handle = 0u32;
        // SAFETY: bo is a live BO; kms_handle is a valid out-pointer.
        let r =
            unsafe { ffi::amdgpu_bo_export(bo.0, ffi::AMDGPU_BO_HANDLE_TYPE_KMS, &mut kms_handle) };
        if r != 0 {
            return Err(kernel_err("exporting a buffer's KMS handle", r));
        }

        let mut va = 0u64;
        let mut va_handle: ffi::amdgpu_va_handle = ptr::null_mut();
        // The caller's address where it chose one (0: libdrm's allocator chooses).
        let required = self.va_plan.unwrap_or(0);
        // SAFETY: the device is alive; out-pointers are valid locals.
        let r = unsafe {
            ffi::amdgpu_va_range_alloc(
                self.dev.0,
                ffi::AMDGPU_GPU_VA_RANGE_GENERAL,
                size,
                VA_ALIGNMENT,
                required,
                &mut va,
                &mut va_handle,
                0,
            )
        };
        if r != 0 {
            return Err(kernel_err("reserving GPU virtual addresses", r));
        }
        let va_range = VaRange(va_handle);
        if self.va_plan.is_some() {
            self.va_plan = Some((va + size).next_multiple_of(VA_ALIGNMENT));
        }

        // SAFETY: bo is live and [va, va + size) was just reserved for it.
        let r = unsafe {
            ffi::amdgpu_bo_va_op(
                bo.0,
                0,
                size,
                va,
                ffi::AMDGPU_VM_PAGE_READABLE
                    | ffi::AMDGPU_VM_PAGE_WRITEABLE
                    | ffi::AMDGPU_VM_PAGE_EXECUTABLE,
                ffi::AMDGPU_VA_OP_MAP,
            )
        };
        if r != 0 {
            return Err(kernel_err("mapping a buffer into the GPU address space", r));
        }
        let mapping = VaMapping { bo: bo.0, va, size };

        let mut cpu: *mut std::ffi::c_void = ptr::null_mut();
        // SAFETY: bo is live and CPU-accessible (GTT, or VRAM with CPU_ACCESS_REQUIRED).
        let r = unsafe { ffi::amdgpu_bo_cpu_map(bo.0, &mut cpu) };
        if r != 0 || cpu.is_null() {
            return Err(kernel_err("mapping a buffer for the CPU", failure_errno(r)));
        }
        let map = CpuMap {
            bo: bo.0,
            ptr: cpu.cast(),
        };

        let id = self.next_buffer;
        self.next_buffer += 1;
        self.buffers.insert(
            id,
            Buffer {
                map,
                _mapping: mapping,
                _va_range: va_range,
                _bo: bo,
                kms_handle,
                va,
                size,
            },
        );
        Ok(BufferId(id))
    }

    fn gpu_address(&self, buffer: BufferId) -> Result<u64, WinsysError> {
        Ok(self.buffer(buffer)?.va)
    }

    fn buffer_size(&self, buffer: BufferId) -> Result<u64, WinsysError> {
        Ok(self.buffer(buffer)?.size)
    }

    fn write(&mut self, buffer: BufferId, offset: u64, dwords: &[u32]) -> Result<(), WinsysError> {
        let b = self.buffer(buffer)?;
        check_bounds(buffer, offset, 4 * dwords.len() as u64, b.size)?;
        // SAFETY: [offset, offset + 4·len) lies inside the live CPU mapping of b.size bytes
        // (checked above) and offset is dword-aligned; the source is a valid slice that cannot
        // overlap GPU memory.
        unsafe {
            ptr::copy_nonoverlapping(
                dwords.as_ptr(),
                b.map.ptr.add(offset as usize).cast::<u32>(),
                dwords.len(),
            )
        };
        Ok(())
    }

    fn read(&self, buffer: BufferId, offset: u64, count: usize) -> Result<Readback, WinsysError> {
        let b = self.buffer(buffer)?;
        check_bounds(buffer, offset, 4 * count as u64, b.size)?;
        let mut out = vec![0u32; count];
        // SAFETY: as in write; the destination is a fresh vector of `count` dwords.
        unsafe {
            ptr::copy_nonoverlapping(
                b.map.ptr.add(offset as usize).cast::<u32>().cast_const(),
                out.as_mut_ptr(),
                count,
            )
        };
        Ok(Readback::Executed(out))
    }

    fn free_buffer(&mut self, buffer: BufferId) -> Result<(), WinsysError> {
        self.buffers
            .remove(&buffer.0)
            .map(drop)
            .ok_or(WinsysError::UnknownBuffer(buffer))
    }

    fn place_buffers_from(&mut self, base: u64) -> Result<(), WinsysError> {
        self.va_plan = Some(base.next_multiple_of(VA_ALIGNMENT));
        Ok(())
    }

    fn create_context(&mut self) -> Result<ContextId, WinsysError> {
        let fd = self._fd.as_raw_fd();
        let kernel_id = uapi::ctx_alloc(fd).map_err(|e| kernel_err("creating a GFX context", e))?;
        let id = self.next_context;
        self.next_context += 1;
        self.contexts.insert(
            id,
            Context {
                fd,
                id: kernel_id,
                lost: false,
            },
        );
        Ok(ContextId(id))
    }

    fn submit(&mut self, ctx: ContextId, sub: &Submission<'_>) -> Result<Fence, WinsysError> {
        let pad = self.info.ib_pad_dwords;
        let align = self.info.ib_start_alignment;
        let mut entries = Vec::with_capacity(sub.buffers.len());
        let mut ranges = Vec::with_capacity(sub.buffers.len());
        for id in sub.buffers {
            let b = self.buffer(*id)?;
            entries.push(ffi::drm_amdgpu_bo_list_entry {
                bo_handle: b.kms_handle,
                bo_priority: 0,
            });
            ranges.push((*id, b.va, b.size));
        }
        let ib_buffer = crate::check_ib_in_buffers(sub.ib_va, sub.ib_dwords, &ranges)?;
        if !self.allow_invalid_ibs {
            let b = self.buffer(ib_buffer)?;
            let ib = match self.read(ib_buffer, sub.ib_va - b.va, sub.ib_dwords as usize)? {
                crate::Readback::Executed(dw) => dw,
                crate::Readback::NotExecuted => Vec::new(),
            };
            crate::check_ib_valid(self.info.gfx_level, sub.label, &ib)?;
        }
        if !sub.ib_va.is_multiple_of(u64::from(align)) {
            return Err(WinsysError::IbMisaligned {
                ib_va: sub.ib_va,
                alignment: align,
            });
        }
        if !sub.ib_dwords.is_multiple_of(pad) {
            return Err(WinsysError::IbNotPadded {
                dwords: sub.ib_dwords,
                pad,
            });
        }
        let dev = self.dev.0;
        let context = self.context(ctx)?;
        if context.lost {
            return Err(WinsysError::ContextWasReset);
        }

        let mut list_handle = 0u32;
        // SAFETY: the device is alive; entries holds entries.len() valid KMS handles of live BOs.
        let r = unsafe {
            ffi::amdgpu_bo_list_create_raw(
                dev,
                entries.len() as u32,
                entries.as_mut_ptr(),
                &mut list_handle,
            )
        };
        if r != 0 {
            return Err(kernel_err("creating the submission's buffer list", r));
        }
        let list = BoList {
            dev,
            handle: list_handle,
        };

        let ib = ffi::drm_amdgpu_cs_chunk_ib {
            _pad: 0,
            flags: 0,
            va_start: sub.ib_va,
            ib_bytes: 4 * sub.ib_dwords,
            ip_type: ffi::AMDGPU_HW_IP_GFX,
            ip_instance: 0,
            ring: 0,
        };
        let chunk = ffi::drm_amdgpu_cs_chunk {
            chunk_id: ffi::AMDGPU_CHUNK_ID_IB,
            length_dw: (std::mem::size_of::<ffi::drm_amdgpu_cs_chunk_ib>() / 4) as u32,
            chunk_data: ptr::addr_of!(ib) as u64,
        };
        let mut tries = 0;
        let submitted = loop {
            tries += 1;
            match uapi::cs_submit(context.fd, context.id, list.handle, &[&chunk]) {
                Err(Errno::ENOMEM) if tries < SUBMIT_ENOMEM_TRIES => {
                    std::thread::sleep(SUBMIT_ENOMEM_BACKOFF * tries)
                }
                r => break r,
            }
        };
        drop(list);
        let seq = match submitted {
            Ok(seq) => seq,
            Err(errno) => {
                let e = WinsysError::from_submit_errno(sub.label, errno);
                if !e.is_reset() {
                    return Err(e);
                }
                // The context is lost: nothing more goes to it, and the kernel says whether this
                // process caused the reset.
                context.lost = true;
                let guilty = uapi::ctx_query_state2(context.fd, context.id)
                    .ok()
                    .map(|flags| reset_status_from_flags(flags).guilty);
                return Err(e.with_guilt(guilty));
            }
        };
        Ok(Fence { context: ctx, seq })
    }

    fn wait(&mut self, fence: Fence, timeout: Duration) -> Result<(), WinsysError> {
        let context = self.context(fence.context)?;
        match uapi::wait_cs(context.fd, context.id, fence.seq, timeout) {
            Ok(true) => Ok(()),
            Ok(false) => Err(WinsysError::FenceTimeout {
                seq: fence.seq,
                timeout,
            }),
            Err(errno) => match ResetKind::from_errno(errno) {
                Some(kind) => {
                    context.lost = true;
                    let guilty = uapi::ctx_query_state2(context.fd, context.id)
                        .ok()
                        .map(|flags| reset_status_from_flags(flags).guilty);
                    Err(WinsysError::ContextLost {
                        label: format!("fence {}", fence.seq),
                        kind,
                        guilty,
                    })
                }
                None => Err(kernel_err("waiting for a fence", errno)),
            },
        }
    }

    fn reset_status(&mut self, ctx: ContextId) -> Result<ResetStatus, WinsysError> {
        let context = self.context(ctx)?;
        let flags = uapi::ctx_query_state2(context.fd, context.id)
            .map_err(|e| kernel_err("querying the context's reset state", e))?;
        let status = reset_status_from_flags(flags);
        if !status.is_clean() {
            context.lost = true;
        }
        Ok(status)
    }
}

/// Decodes `amdgpu_cs_query_reset_state2`'s AMDGPU_CTX_QUERY2_FLAGS_*.
pub fn reset_status_from_flags(flags: u64) -> ResetStatus {
    ResetStatus {
        reset: flags & ffi::AMDGPU_CTX_QUERY2_FLAGS_RESET != 0,
        guilty: flags & ffi::AMDGPU_CTX_QUERY2_FLAGS_GUILTY != 0,
        vram_lost: flags & ffi::AMDGPU_CTX_QUERY2_FLAGS_VRAMLOST != 0,
        in_progress: flags & ffi::AMDGPU_CTX_QUERY2_FLAGS_RESET_IN_PROGRESS != 0,
    }
}

pub(crate) fn check_bounds(
    buffer: BufferId,
    offset: u64,
    len: u64,
    size: u64,
) -> Result<(), WinsysError> {
    let end = offset.checked_add(len);
    if !offset.is_multiple_of(4) || end.is_none_or(|e| e > size) {
        return Err(WinsysError::OutOfBounds {
            buffer,
            offset,
            len,
            size,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reset_flags_decode() {
        assert!(reset_status_from_flags(0).is_clean());
        let s = reset_status_from_flags(0b101);
        assert!(s.reset && s.guilty && !s.vram_lost && !s.in_progress);
        assert!(reset_status_from_flags(1 << 5).in_progress);
        assert!(reset_status_from_flags(1 << 1).vram_lost);
    }

    #[test]
    fn bounds_are_checked_with_overflow_and_alignment() {
        let b = BufferId(3);
        assert!(check_bounds(b, 0, 16, 16).is_ok());
        assert!(check_bounds(b, 4, 16, 16).is_err());
        assert!(check_bounds(b, 2, 4, 16).is_err());
        assert!(check_bounds(b, u64::MAX - 1, 8, 16).is_err());
    }

    #[test]
    fn counter_frequency_zero_is_unknown_and_kilohertz_pass_through() {
        assert_eq!(counter_freq_khz(0), None);
        // 100 MHz reads back as 100000 kHz, unscaled.
        assert_eq!(counter_freq_khz(100_000), Some(100_000));
        assert_eq!(counter_freq_khz(u32::MAX), Some(u64::from(u32::MAX)));
    }
}
