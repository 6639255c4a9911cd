//! Every way talking to the GPU can fail, each saying what to do about it.

use crate::BufferId;
use nix::errno::Errno;
use std::path::PathBuf;
use std::time::Duration;

/// How the kernel says a submission's context was lost to a GPU reset: the errno of the CS or
/// WAIT_CS ioctl (drivers/gpu/drm/amd/amdgpu/amdgpu_cs.c, amdgpu_job.c), as RADV and radeonsi read
/// them. Which context caused the reset is the kernel's answer to AMDGPU_CTX_OP_QUERY_STATE2,
/// asked afterwards ([`WinsysError::ContextLost`]'s `guilty`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ResetKind {
    /// ECANCELED: the context is lost (a reset another context caused, radeonsi says).
    Cancelled,
    /// ENODATA: the kernel reset the context's job (soft recovery of a hang).
    SoftRecovery,
    /// ETIME: the kernel reset the GPU (hard recovery of a hang).
    HardRecovery,
}

impl ResetKind {
    /// The reset a submission or wait errno stands for, if it is one.
    pub const fn from_errno(errno: Errno) -> Option<ResetKind> {
        match errno {
            Errno::ECANCELED => Some(ResetKind::Cancelled),
            Errno::ENODATA => Some(ResetKind::SoftRecovery),
            Errno::ETIME => Some(ResetKind::HardRecovery),
            _ => None,
        }
    }

    pub const fn describe(self) -> &'static str {
        match self {
            ResetKind::Cancelled => "the context is lost to a GPU reset (ECANCELED)",
            ResetKind::SoftRecovery => {
                "the kernel reset the context's job after a hang (ENODATA: soft recovery)"
            }
            ResetKind::HardRecovery => {
                "the kernel reset the GPU after a hang (ETIME: hard recovery)"
            }
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WinsysError {
    #[error("no render node in {dir}: no GPU with a DRM render node is visible (is the amdgpu kernel module loaded? `lsmod | grep amdgpu`)")]
    NoRenderNode { dir: PathBuf },
    #[error(
        "no amdgpu render node in {dir} (render nodes found, none driven by amdgpu: {others})"
    )]
    NoAmdgpuNode { dir: PathBuf, others: String },
    #[error("{path} does not exist")]
    NotFound { path: PathBuf },
    #[error("permission denied opening {path}: add your user to the `render` group (`sudo usermod -aG render $USER`, then log in again)")]
    PermissionDenied { path: PathBuf },
    #[error("{path} is not a DRM device: {what}")]
    NotDrmDevice { path: PathBuf, what: String },
    #[error("{path} is not an AMD GPU: its kernel driver is '{driver}', not amdgpu")]
    NotAmdgpu { path: PathBuf, driver: String },
    #[error("{path} is {chip}, a compute-only chip: it has no graphics ring, so it has no POPS")]
    ComputeOnly { path: PathBuf, chip: String },
    #[error(
        "{path} is {chip}, which pops does not support (POPS through pops covers GFX9 to GFX12)"
    )]
    UnsupportedChip { path: PathBuf, chip: String },
    #[error("cannot open {path}: {errno}")]
    Open { path: PathBuf, errno: Errno },
    #[error(
        "libdrm_amdgpu could not initialize {path}: {errno} (is the kernel driver amdgpu 3.x?)"
    )]
    DeviceInit { path: PathBuf, errno: Errno },
    #[error("querying {what} failed: {errno}")]
    Query { what: &'static str, errno: Errno },
    #[error("out of memory while {what} ({errno}): free GPU memory and retry")]
    OutOfMemory { what: &'static str, errno: Errno },
    #[error("{what} failed: {errno}")]
    Kernel { what: &'static str, errno: Errno },
    #[error("the kernel rejected submission '{label}': {errno} ({hint}); see `sudo dmesg | grep amdgpu`")]
    SubmissionRejected {
        label: String,
        errno: Errno,
        hint: &'static str,
    },
    #[error("'{label}': {}{}", kind.describe(), guilt_text(*guilty))]
    ContextLost {
        label: String,
        kind: ResetKind,
        /// What AMDGPU_CTX_OP_QUERY_STATE2 said of this context afterwards: whether this process
        /// caused the reset (`None`: the query failed too).
        guilty: Option<bool>,
    },
    #[error(
        "the fence of submission {seq} did not signal within {timeout:?}: the GPU may be hung"
    )]
    FenceTimeout { seq: u64, timeout: Duration },
    #[error("the context was reset earlier; no further submissions are made on it")]
    ContextWasReset,
    #[error("the IB at {ib_va:#x} ({ib_bytes} bytes) does not lie inside any submitted buffer")]
    IbOutsideBuffers { ib_va: u64, ib_bytes: u64 },
    #[error("an IB must hold at least one dword")]
    EmptyIb,
    #[error(
        "an IB at {ib_va:#x} is not aligned to the device's {alignment}-byte IB start alignment"
    )]
    IbMisaligned { ib_va: u64, alignment: u32 },
    #[error("refusing to submit '{label}': the IB fails validation on {level} ({count} violation(s)); first: {first}")]
    InvalidIb {
        label: String,
        level: pm4::GfxLevel,
        count: usize,
        first: String,
    },
    #[error("an IB of {dwords} dwords is not padded to a multiple of {pad} dwords")]
    IbNotPadded { dwords: u32, pad: u32 },
    #[error("buffer {0:?} does not exist (freed, or from another winsys)")]
    UnknownBuffer(BufferId),
    #[error("context {0} does not exist")]
    UnknownContext(u32),
    #[error("buffer size must be at least one byte")]
    ZeroSize,
    #[error("access of {len} bytes at offset {offset} is outside buffer {buffer:?} of {size} bytes (offsets must be dword-aligned)")]
    OutOfBounds {
        buffer: BufferId,
        offset: u64,
        len: u64,
        size: u64,
    },
    #[error("building the command stream: {0}")]
    Encode(#[from] pm4::EncodeError),
    #[error("{path}: {message}")]
    CaptureIo { path: PathBuf, message: String },
    #[error("capture directory {path} holds files that are not a pops capture ({file}); choose an empty or new directory")]
    CaptureDirNotEmpty { path: PathBuf, file: String },
}

/// The kernel's verdict on a lost context, for its message.
fn guilt_text(guilty: Option<bool>) -> &'static str {
    match guilty {
        Some(true) => "; AMDGPU_CTX_OP_QUERY_STATE2: this process's context is guilty",
        Some(false) => "; AMDGPU_CTX_OP_QUERY_STATE2: this process's context is innocent",
        None => "",
    }
}

impl WinsysError {
    /// A lost context's error with the kernel's verdict on it (AMDGPU_CTX_OP_QUERY_STATE2).
    pub fn with_guilt(self, verdict: Option<bool>) -> WinsysError {
        match self {
            WinsysError::ContextLost { label, kind, .. } => WinsysError::ContextLost {
                label,
                kind,
                guilty: verdict,
            },
            e => e,
        }
    }

    /// Classifies a failed `amdgpu_cs_submit_raw2`, as RADV's `radv_amdgpu_cs_submit` does:
    /// a lost context is a reset (with its blame), ENOMEM is worth retrying, anything else is the
    /// kernel refusing the stream.
    pub fn from_submit_errno(label: &str, errno: Errno) -> WinsysError {
        if let Some(kind) = ResetKind::from_errno(errno) {
            return WinsysError::ContextLost {
                label: label.to_string(),
                kind,
                guilty: None,
            };
        }
        match errno {
            Errno::ENOMEM => WinsysError::OutOfMemory {
                what: "submitting",
                errno,
            },
            _ => WinsysError::SubmissionRejected {
                label: label.to_string(),
                errno,
                hint: submit_errno_hint(errno),
            },
        }
    }

    /// Whether the operation may succeed if simply retried later.
    pub const fn is_retryable(&self) -> bool {
        matches!(self, WinsysError::OutOfMemory { .. })
    }

    /// Whether the error means the context (or the whole GPU) was reset.
    pub const fn is_reset(&self) -> bool {
        matches!(
            self,
            WinsysError::ContextLost { .. } | WinsysError::ContextWasReset
        )
    }

    pub(crate) fn io(path: &std::path::Path, e: std::io::Error) -> WinsysError {
        WinsysError::CaptureIo {
            path: path.to_path_buf(),
            message: e.to_string(),
        }
    }
}

/// What the kernel's amdgpu CS ioctl means by the errnos it returns for a malformed submission.
const fn submit_errno_hint(errno: Errno) -> &'static str {
    match errno {
        Errno::EINVAL => "malformed submission: bad chunk, IB size, ring or flags",
        Errno::ENOENT => "a buffer list, context or IB address the kernel does not know",
        Errno::EFAULT => "the kernel could not read the submission's chunks",
        Errno::EPERM | Errno::EACCES => "not allowed to submit on this device",
        Errno::EDEADLK => "the GPU is being reset; recreate the context",
        Errno::EINTR | Errno::ERESTART => "interrupted; submit again",
        Errno::ENODEV => "the device is gone (unplugged or the driver was unbound)",
        _ => "unexpected error",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// radeonsi's amdgpu_cs.c: "-ECANCELED … the context is lost", "-ENODATA … a soft
    /// recovery", "-ETIME … a hard recovery": each a lost context, never a generic error; the
    /// kernel's verdict on blame is added when known.
    #[test]
    fn lost_context_errnos_are_resets() {
        for (errno, kind) in [
            (Errno::ECANCELED, ResetKind::Cancelled),
            (Errno::ENODATA, ResetKind::SoftRecovery),
            (Errno::ETIME, ResetKind::HardRecovery),
        ] {
            let e = WinsysError::from_submit_errno("fence", errno);
            assert_eq!(
                e,
                WinsysError::ContextLost {
                    label: "fence".into(),
                    kind,
                    guilty: None
                }
            );
            assert!(e.is_reset());
            assert!(!e.is_retryable());
        }
        assert!(WinsysError::from_submit_errno("x", Errno::ETIME)
            .to_string()
            .contains("hard recovery"));
        let e = WinsysError::from_submit_errno("x", Errno::ENODATA).with_guilt(Some(true));
        assert!(
            e.to_string().ends_with("this process's context is guilty"),
            "{e}"
        );
    }

    #[test]
    fn enomem_is_retryable_and_other_errnos_are_rejections() {
        let e = WinsysError::from_submit_errno("x", Errno::ENOMEM);
        assert!(e.is_retryable(), "{e}");
        let e = WinsysError::from_submit_errno("state", Errno::EINVAL);
        assert!(matches!(
            e,
            WinsysError::SubmissionRejected {
                errno: Errno::EINVAL,
                ..
            }
        ));
        assert!(e.to_string().contains("dmesg"), "{e}");
        assert!(!e.is_reset());
    }

    #[test]
    fn permission_error_says_to_join_the_render_group() {
        let e = WinsysError::PermissionDenied {
            path: "/dev/dri/renderD128".into(),
        };
        assert!(e.to_string().contains("`render` group"), "{e}");
    }
}
