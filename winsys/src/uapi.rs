//! The amdgpu kernel interface for GFX contexts, command submission and fence waits, as the
//! ioctls of `include/uapi/drm/amdgpu_drm.h` on the render node's file.
//!
//! Everything else (buffers, VA mappings, buffer lists, identification) goes through libdrm. These
//! three do not, for one reason: libdrm's `amdgpu_cs_ctx_free` forgets its context whatever the
//! kernel answered, so a context whose release the kernel refused once (an interrupted or failed
//! ioctl) could never be released again and would stay with the process until its file closes.
//! Holding the kernel's context id here lets a release be retried, and every submission and wait
//! names the context by that id, as libdrm's own `amdgpu_cs_submit_raw2` and
//! `amdgpu_cs_query_fence_status` do.

use nix::errno::Errno;
use std::os::fd::RawFd;
use std::time::Duration;

/// `struct drm_amdgpu_ctx_in`.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct CtxIn {
    op: u32,
    flags: u32,
    ctx_id: u32,
    priority: i32,
}

/// `union drm_amdgpu_ctx`: 16 bytes, `in` on entry, `out` (alloc: ctx_id; state: flags, hangs,
/// reset_status) on return.
#[repr(C)]
#[derive(Clone, Copy)]
union Ctx {
    input: CtxIn,
    out: [u64; 2],
}

/// `struct drm_amdgpu_cs_in`.
#[repr(C)]
#[derive(Clone, Copy)]
struct CsIn {
    ctx_id: u32,
    bo_list_handle: u32,
    num_chunks: u32,
    flags: u32,
    /// Points to `num_chunks` `u64`s, each the address of a `drm_amdgpu_cs_chunk`.
    chunks: u64,
}

/// `union drm_amdgpu_cs`: `out` is the submission's sequence number.
#[repr(C)]
#[derive(Clone, Copy)]
union Cs {
    input: CsIn,
    out: u64,
}

/// `struct drm_amdgpu_wait_cs_in`.
#[repr(C)]
#[derive(Clone, Copy)]
struct WaitCsIn {
    handle: u64,
    /// Absolute CLOCK_MONOTONIC time in ns (`AMDGPU_TIMEOUT_INFINITE` for none).
    timeout: u64,
    ip_type: u32,
    ip_instance: u32,
    ring: u32,
    ctx_id: u32,
}

/// `union drm_amdgpu_wait_cs`: `out` is 0 when the submission completed, 1 while busy.
#[repr(C)]
#[derive(Clone, Copy)]
union WaitCs {
    input: WaitCsIn,
    out: u64,
}

const _: () = {
    assert!(std::mem::size_of::<Ctx>() == 16);
    assert!(std::mem::size_of::<Cs>() == 24);
    assert!(std::mem::size_of::<WaitCs>() == 32);
};

// DRM_COMMAND_BASE (0x40) + DRM_AMDGPU_CTX (0x02), _CS (0x04), _WAIT_CS (0x09), on the DRM ioctl
// type 'd', read-write.
nix::ioctl_readwrite!(drm_amdgpu_ctx, b'd', 0x42, Ctx);
nix::ioctl_readwrite!(drm_amdgpu_cs, b'd', 0x44, Cs);
nix::ioctl_readwrite!(drm_amdgpu_wait_cs, b'd', 0x49, WaitCs);

const AMDGPU_CTX_OP_ALLOC_CTX: u32 = 1;
const AMDGPU_CTX_OP_FREE_CTX: u32 = 2;
const AMDGPU_CTX_OP_QUERY_STATE2: u32 = 4;
/// `AMDGPU_TIMEOUT_INFINITE`.
const TIMEOUT_INFINITE: u64 = u64::MAX;

fn ctx_op(fd: RawFd, op: u32, ctx_id: u32) -> Result<[u64; 2], Errno> {
    let mut arg = Ctx {
        input: CtxIn {
            op,
            ctx_id,
            ..CtxIn::default()
        },
    };
    // SAFETY: `fd` is an open amdgpu render node; `arg` is a valid, initialised 16-byte union the
    // kernel reads as `in` and overwrites with `out`.
    unsafe { drm_amdgpu_ctx(fd, &mut arg) }?;
    // SAFETY: after a successful ioctl the kernel wrote `out`; any bit pattern is a valid [u64; 2].
    Ok(unsafe { arg.out })
}

/// AMDGPU_CTX_OP_ALLOC_CTX at normal priority: the new context's id.
pub fn ctx_alloc(fd: RawFd) -> Result<u32, Errno> {
    ctx_op(fd, AMDGPU_CTX_OP_ALLOC_CTX, 0).map(|out| out[0] as u32)
}

/// AMDGPU_CTX_OP_FREE_CTX.
pub fn ctx_free(fd: RawFd, ctx_id: u32) -> Result<(), Errno> {
    ctx_op(fd, AMDGPU_CTX_OP_FREE_CTX, ctx_id).map(drop)
}

/// AMDGPU_CTX_OP_QUERY_STATE2: the context's AMDGPU_CTX_QUERY2_FLAGS_*.
pub fn ctx_query_state2(fd: RawFd, ctx_id: u32) -> Result<u64, Errno> {
    ctx_op(fd, AMDGPU_CTX_OP_QUERY_STATE2, ctx_id).map(|out| out[0])
}

/// DRM_AMDGPU_CS with the given chunks on `ctx_id`: the submission's sequence number.
pub fn cs_submit(
    fd: RawFd,
    ctx_id: u32,
    bo_list: u32,
    chunks: &[*const crate::ffi::drm_amdgpu_cs_chunk],
) -> Result<u64, Errno> {
    let pointers: Vec<u64> = chunks.iter().map(|c| *c as u64).collect();
    let mut arg = Cs {
        input: CsIn {
            ctx_id,
            bo_list_handle: bo_list,
            num_chunks: pointers.len() as u32,
            flags: 0,
            chunks: pointers.as_ptr() as u64,
        },
    };
    // SAFETY: `fd` is an open amdgpu render node; `arg` points at `pointers`, which holds the
    // addresses of the caller's live chunks for the duration of the call.
    unsafe { drm_amdgpu_cs(fd, &mut arg) }?;
    // SAFETY: after a successful ioctl the kernel wrote `out`.
    Ok(unsafe { arg.out })
}

/// Waits for submission `seq` of `ctx_id` on GFX ring 0 at most `timeout`: `true` when it
/// completed, `false` when it is still busy.
pub fn wait_cs(fd: RawFd, ctx_id: u32, seq: u64, timeout: Duration) -> Result<bool, Errno> {
    let mut arg = WaitCs {
        input: WaitCsIn {
            handle: seq,
            timeout: absolute_timeout(timeout),
            ip_type: crate::ffi::AMDGPU_HW_IP_GFX,
            ip_instance: 0,
            ring: 0,
            ctx_id,
        },
    };
    // SAFETY: `fd` is an open amdgpu render node; `arg` is a valid, initialised union.
    unsafe { drm_amdgpu_wait_cs(fd, &mut arg) }?;
    // SAFETY: after a successful ioctl the kernel wrote `out`.
    Ok(unsafe { arg.out } == 0)
}

/// The kernel takes an absolute CLOCK_MONOTONIC deadline, as libdrm computes it
/// (`amdgpu_cs_calculate_timeout`): now + timeout, infinite on overflow.
fn absolute_timeout(timeout: Duration) -> u64 {
    let now = nix::time::clock_gettime(nix::time::ClockId::CLOCK_MONOTONIC)
        .map(|t| Duration::new(t.tv_sec() as u64, t.tv_nsec() as u32))
        .unwrap_or_default();
    now.checked_add(timeout)
        .and_then(|t| u64::try_from(t.as_nanos()).ok())
        .unwrap_or(TIMEOUT_INFINITE)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ioctl numbers are the uapi's: _IOWR('d', 0x42, 16 bytes) and so on.
    #[test]
    fn ioctl_numbers_match_amdgpu_drm_h() {
        // (dir RW = 3) << 30 | size << 16 | 'd' << 8 | nr
        let iowr = |nr: u64, size: u64| (3 << 30) | (size << 16) | (0x64 << 8) | nr;
        assert_eq!(
            nix::request_code_readwrite!(b'd', 0x42, std::mem::size_of::<Ctx>()) as u64,
            iowr(0x42, 16)
        );
        assert_eq!(
            nix::request_code_readwrite!(b'd', 0x44, std::mem::size_of::<Cs>()) as u64,
            iowr(0x44, 24)
        );
        assert_eq!(
            nix::request_code_readwrite!(b'd', 0x49, std::mem::size_of::<WaitCs>()) as u64,
            iowr(0x49, 32)
        );
    }

    #[test]
    fn deadlines_are_absolute_and_saturate() {
        let t = absolute_timeout(Duration::from_secs(1));
        assert!(t > 1_000_000_000);
        assert_eq!(absolute_timeout(Duration::MAX), TIMEOUT_INFINITE);
    }
}
