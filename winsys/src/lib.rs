//! `winsys`: the one place pops talks to a GPU kernel driver.
//!
//! The interface is modelled on RADV's `radeon_winsys` (src/amd/vulkan/radv_radeon_winsys.h):
//! a device with its identification, buffers placed in GTT or VRAM and mapped into the GPU's
//! virtual address space, GFX contexts, indirect-buffer (IB) submission with the list of buffers
//! the IB touches, fences waited on with a timeout, and the context reset status.
//!
//! Two backends implement [`Winsys`]:
//! - [`amdgpu::AmdgpuWinsys`], real submission through libdrm_amdgpu on a render node;
//! - [`capture::CaptureWinsys`], which emulates a chosen family where no AMD GPU exists and
//!   records every submission to a directory that `pops decode` reads back.
//!
//! Command streams are built once, by [`cs`], outside the backends, so both backends
//! are handed identical bytes. [`selftest`] is the hardware self-test run by `pops selftest`.
//! [`fault::FaultInjector`] wraps a backend to test the recovery paths (not a third GPU backend).

pub mod amdgpu;
pub mod capture;
pub mod cs;
pub mod error;
pub mod fault;
mod ffi;
pub mod identify;
pub mod selftest;
mod uapi;

pub use error::{ResetKind, WinsysError};

use pm4::{Family, GfxLevel};
use std::path::PathBuf;
use std::time::Duration;

/// Where a buffer lives. GTT is system memory the GPU reaches over PCIe; VRAM is the GPU's own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Domain {
    Gtt,
    Vram,
}

impl Domain {
    pub const fn name(self) -> &'static str {
        match self {
            Domain::Gtt => "gtt",
            Domain::Vram => "vram",
        }
    }
}

/// A buffer of one winsys. Ids are never reused within a winsys, so a stale id is an error, not
/// a different buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BufferId(pub u32);

/// A GFX context of one winsys.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ContextId(pub u32);

/// What a submission returns: the kernel's sequence number on the context's GFX ring.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fence {
    pub context: ContextId,
    pub seq: u64,
}

/// A firmware version as the kernel reports it (`amdgpu_query_firmware_version`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FirmwareVersion {
    pub version: u32,
    pub feature: u32,
}

/// What pops needs to know about the device it submits to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    pub family: Family,
    pub gfx_level: GfxLevel,
    /// libdrm_amdgpu_sys's ASIC name (`NAVI21`, `GFX1103_R2`, …), or `capture` for emulation.
    pub asic: String,
    /// Marketing name from libdrm's amdgpu.ids, where known.
    pub marketing_name: Option<String>,
    /// PCI bus address (`0000:03:00.0`).
    pub pci_bus: Option<String>,
    /// PCI device id and revision (the vendor is AMD's, 0x1002), as the kernel reports them.
    pub pci_id: Option<(u32, u32)>,
    /// The render node the device was opened through.
    pub render_node: Option<PathBuf>,
    pub shader_engines: u32,
    /// Micro-engine (ME) firmware: the CP front end that executes the IB.
    pub me_firmware: Option<FirmwareVersion>,
    /// Prefetch parser (PFP) firmware.
    pub pfp_firmware: Option<FirmwareVersion>,
    /// Every IB is padded to a multiple of this many dwords.
    pub ib_pad_dwords: u32,
    /// Every IB starts at a GPU address aligned to this many bytes.
    pub ib_start_alignment: u32,
    /// The kernel driver's DRM interface version (major, minor, patch); `None` for capture.
    pub drm_version: Option<(i32, i32, i32)>,
    /// Frequency of the GPU timestamp counter that RELEASE_MEM / EVENT_WRITE_EOP write with
    /// `DATA_SEL_TIMESTAMP`, in kHz, as the kernel reports it (`drm_amdgpu_info_device::
    /// gpu_counter_freq`, "in KHz" in amdgpu_drm.h). Needed to turn timestamp ticks into time;
    /// `None` where nothing executes (capture) or the kernel reported 0, which Mesa's
    /// ac_gpu_info also treats as unknown ("timestamps will be wrong").
    pub gpu_counter_freq_khz: Option<u64>,
}

/// What a CPU read of a buffer gives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Readback {
    /// The dwords as the GPU left them.
    Executed(Vec<u32>),
    /// Nothing ran: the backend only recorded the work (capture). Never pretend otherwise.
    NotExecuted,
}

/// One IB submission: the IB by GPU address and size, and every buffer it reads or writes,
/// the IB's own buffer included (the kernel pins exactly these for the job).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Submission<'a> {
    pub ib_va: u64,
    pub ib_dwords: u32,
    pub buffers: &'a [BufferId],
    /// A short name recorded with the submission (capture) and used in error reports.
    pub label: &'a str,
}

/// The state of a context after something may have gone wrong
/// (`amdgpu_cs_query_reset_state2`'s flags, RADV's `ctx_query_reset_status`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ResetStatus {
    /// The GPU was reset since the context was created.
    pub reset: bool,
    /// This context caused it.
    pub guilty: bool,
    /// VRAM contents were lost.
    pub vram_lost: bool,
    /// A reset is under way right now.
    pub in_progress: bool,
}

impl ResetStatus {
    pub const fn is_clean(&self) -> bool {
        !self.reset && !self.guilty && !self.vram_lost && !self.in_progress
    }
}

/// A GPU kernel interface, as RADV's `radeon_winsys` shapes it. Buffers are mapped for the CPU
/// and into the GPU's address space when created, and released when freed or when the winsys
/// is dropped.
pub trait Winsys {
    fn info(&self) -> &DeviceInfo;

    /// Whether submitted work really runs (false for capture).
    fn executes(&self) -> bool;

    /// Allocates a buffer of at least `size` bytes, maps it for the CPU and at a GPU address.
    fn create_buffer(&mut self, size: u64, domain: Domain) -> Result<BufferId, WinsysError>;

    /// The buffer's GPU virtual address.
    fn gpu_address(&self, buffer: BufferId) -> Result<u64, WinsysError>;

    /// The buffer's size in bytes (after the backend's rounding).
    fn buffer_size(&self, buffer: BufferId) -> Result<u64, WinsysError>;

    /// Writes dwords through the CPU mapping at a byte offset.
    fn write(&mut self, buffer: BufferId, offset: u64, dwords: &[u32]) -> Result<(), WinsysError>;

    /// Reads `count` dwords through the CPU mapping at a byte offset.
    fn read(&self, buffer: BufferId, offset: u64, count: usize) -> Result<Readback, WinsysError>;

    /// Unmaps and releases a buffer.
    fn free_buffer(&mut self, buffer: BufferId) -> Result<(), WinsysError>;

    /// Creates a GFX context.
    fn create_context(&mut self) -> Result<ContextId, WinsysError>;

    /// Places the buffers created from now on at GPU addresses from `base` on, in creation
    /// order, each 64 KiB aligned, instead of where the backend would choose. Two backends told
    /// the same base give every buffer the same address, so the IBs built for them are the same
    /// bytes: how a submission to a device is compared dword for dword with a capture.
    fn place_buffers_from(&mut self, base: u64) -> Result<(), WinsysError>;

    /// Submits one IB on the context's GFX ring.
    fn submit(&mut self, ctx: ContextId, sub: &Submission<'_>) -> Result<Fence, WinsysError>;

    /// Waits for a fence; [`WinsysError::FenceTimeout`] when it has not signalled in time.
    fn wait(&mut self, fence: Fence, timeout: Duration) -> Result<(), WinsysError>;

    /// The context's reset status.
    fn reset_status(&mut self, ctx: ContextId) -> Result<ResetStatus, WinsysError>;
}

/// Refuses an IB that [`pm4::validate`] rejects: a write to no register of the level, to a
/// kernel-owned register, or a packet of the wrong length is undefined on real hardware. Both
/// backends call this before submitting unless the caller explicitly allowed invalid IBs.
pub fn check_ib_valid(level: pm4::GfxLevel, label: &str, ib: &[u32]) -> Result<(), WinsysError> {
    match pm4::validate::validate(level, ib).into_result() {
        Ok(_) => Ok(()),
        Err(e) => Err(WinsysError::InvalidIb {
            label: label.to_string(),
            level,
            count: e.violations.len(),
            first: e.first().to_string(),
        }),
    }
}

/// Checks that the IB `[ib_va, ib_va + 4·ib_dwords)` lies inside one of the submitted buffers,
/// given each buffer's `(id, va, size)`. Both backends check this before submitting: an IB
/// outside its buffer list faults the GPU instead of failing cleanly.
pub fn check_ib_in_buffers(
    ib_va: u64,
    ib_dwords: u32,
    buffers: &[(BufferId, u64, u64)],
) -> Result<BufferId, WinsysError> {
    if ib_dwords == 0 {
        return Err(WinsysError::EmptyIb);
    }
    let end = ib_va.checked_add(4 * u64::from(ib_dwords));
    buffers
        .iter()
        .find(|(_, va, size)| {
            end.is_some_and(|end| ib_va >= *va && end <= va.saturating_add(*size))
        })
        .map(|(id, _, _)| *id)
        .ok_or(WinsysError::IbOutsideBuffers {
            ib_va,
            ib_bytes: 4 * u64::from(ib_dwords),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ib_must_lie_wholly_inside_one_submitted_buffer() {
        let bufs = [
            (BufferId(0), 0x8_0000_0000, 0x1000),
            (BufferId(1), 0x8_0001_0000, 0x1000),
        ];
        assert_eq!(
            check_ib_in_buffers(0x8_0001_0000, 8, &bufs),
            Ok(BufferId(1))
        );
        assert_eq!(
            check_ib_in_buffers(0x8_0000_0ff0, 4, &bufs),
            Ok(BufferId(0)),
            "ending exactly at the buffer's end is inside"
        );
        assert_eq!(
            check_ib_in_buffers(0x8_0000_0ff0, 8, &bufs),
            Err(WinsysError::IbOutsideBuffers {
                ib_va: 0x8_0000_0ff0,
                ib_bytes: 32
            }),
            "running past the end is outside"
        );
        assert!(check_ib_in_buffers(0x7_ffff_fff0, 8, &bufs).is_err());
        assert!(check_ib_in_buffers(u64::MAX - 4, 8, &bufs).is_err());
        assert_eq!(
            check_ib_in_buffers(0x8_0000_0000, 0, &bufs),
            Err(WinsysError::EmptyIb)
        );
    }
}
