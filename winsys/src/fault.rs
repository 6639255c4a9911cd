//! A fault injector for testing recovery paths.
//!
//! [`FaultInjector`] wraps another [`Winsys`] and makes exactly one call fail the way the amdgpu
//! backend would when a GPU hangs, resets or refuses a job. It is **not a GPU** and never claims
//! to execute anything ([`Winsys::executes`] is always false): it exists because the rules "after
//! a reset or a hang nothing more is submitted" and "the row names who was blamed" can otherwise
//! only be exercised by crashing real hardware. Everything it does not fail is passed through
//! unchanged to the wrapped backend (normally [`crate::capture::CaptureWinsys`]), so what did
//! reach the backend can still be inspected through [`FaultInjector::inner`].

use crate::{
    BufferId, ContextId, DeviceInfo, Domain, Fence, Readback, ResetKind, ResetStatus, Submission,
    Winsys, WinsysError,
};
use nix::errno::Errno;
use std::time::Duration;

/// Which call fails, counted from 0 per kind of call, and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The Nth submission reports the context lost with this reset kind, as the kernel's
    /// ECANCELED/ETIME/ENODEV from the CS ioctl do.
    SubmitLost(usize, ResetKind),
    /// The Nth submission is refused by the kernel (EINVAL): a bad job, not a reset.
    SubmitRejected(usize),
    /// The Nth fence wait times out, as on a hung GPU.
    WaitTimesOut(usize),
    /// The Nth reset-status query reports a reset this context is guilty of.
    ResetAfter(usize),
}

/// A [`Winsys`] wrapper that injects one [`Fault`] into another backend.
pub struct FaultInjector<W: Winsys> {
    inner: W,
    fault: Fault,
    submits: usize,
    waits: usize,
    queries: usize,
}

impl<W: Winsys> FaultInjector<W> {
    pub fn new(inner: W, fault: Fault) -> Self {
        FaultInjector {
            inner,
            fault,
            submits: 0,
            waits: 0,
            queries: 0,
        }
    }

    /// The wrapped backend, to see what reached it.
    pub fn inner(&self) -> &W {
        &self.inner
    }

    /// How many submissions were attempted through the injector, the failed one included.
    pub fn submits_attempted(&self) -> usize {
        self.submits
    }
}

impl<W: Winsys> Winsys for FaultInjector<W> {
    fn info(&self) -> &DeviceInfo {
        self.inner.info()
    }
    fn executes(&self) -> bool {
        false
    }
    fn create_buffer(&mut self, size: u64, domain: Domain) -> Result<BufferId, WinsysError> {
        self.inner.create_buffer(size, domain)
    }
    fn gpu_address(&self, b: BufferId) -> Result<u64, WinsysError> {
        self.inner.gpu_address(b)
    }
    fn buffer_size(&self, b: BufferId) -> Result<u64, WinsysError> {
        self.inner.buffer_size(b)
    }
    fn write(&mut self, b: BufferId, offset: u64, dw: &[u32]) -> Result<(), WinsysError> {
        self.inner.write(b, offset, dw)
    }
    fn read(&self, b: BufferId, offset: u64, n: usize) -> Result<Readback, WinsysError> {
        self.inner.read(b, offset, n)
    }
    fn free_buffer(&mut self, b: BufferId) -> Result<(), WinsysError> {
        self.inner.free_buffer(b)
    }
    fn create_context(&mut self) -> Result<ContextId, WinsysError> {
        self.inner.create_context()
    }
    fn place_buffers_from(&mut self, base: u64) -> Result<(), WinsysError> {
        self.inner.place_buffers_from(base)
    }
    fn submit(&mut self, ctx: ContextId, sub: &Submission<'_>) -> Result<Fence, WinsysError> {
        let n = self.submits;
        self.submits += 1;
        match self.fault {
            Fault::SubmitLost(at, kind) if at == n => Err(WinsysError::ContextLost {
                label: sub.label.into(),
                kind,
                guilty: None,
            }),
            Fault::SubmitRejected(at) if at == n => {
                Err(WinsysError::from_submit_errno(sub.label, Errno::EINVAL))
            }
            _ => self.inner.submit(ctx, sub),
        }
    }
    fn wait(&mut self, fence: Fence, timeout: Duration) -> Result<(), WinsysError> {
        let n = self.waits;
        self.waits += 1;
        match self.fault {
            Fault::WaitTimesOut(at) if at == n => Err(WinsysError::FenceTimeout {
                seq: fence.seq,
                timeout,
            }),
            _ => self.inner.wait(fence, timeout),
        }
    }
    fn reset_status(&mut self, ctx: ContextId) -> Result<ResetStatus, WinsysError> {
        let n = self.queries;
        self.queries += 1;
        match self.fault {
            Fault::ResetAfter(at) if at == n => Ok(ResetStatus {
                reset: true,
                guilty: true,
                ..ResetStatus::default()
            }),
            _ => self.inner.reset_status(ctx),
        }
    }
}
