//! Safety on a misbehaving GPU: after a reset or a hang nothing more is submitted, the row of the
//! variant that caused it says so, and every later variant is "not submitted". The misbehaviour
//! is injected by a wrapper around the capture backend (a fault injector, not a GPU: it never
//! claims to execute anything) that fails the Nth wait or status query as amdgpu would.

use draw::run::{run, Options, Outcome};
use draw::variant::standard;
use std::time::Duration;
use winsys::capture::CaptureWinsys;
use winsys::{
    BufferId, ContextId, DeviceInfo, Domain, Fence, Readback, ResetKind, ResetStatus, Submission,
    Winsys, WinsysError,
};

mod common;

#[derive(Clone, Copy)]
enum Fault {
    WaitTimesOut(usize),
    ResetAfter(usize),
    SubmitLost(usize),
}

struct FaultInjector {
    inner: CaptureWinsys,
    fault: Fault,
    submits: usize,
    waits: usize,
    queries: usize,
}

impl Winsys for FaultInjector {
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
    fn submit(&mut self, ctx: ContextId, sub: &Submission<'_>) -> Result<Fence, WinsysError> {
        let n = self.submits;
        self.submits += 1;
        match self.fault {
            Fault::SubmitLost(at) if at == n => Err(WinsysError::ContextLost {
                label: sub.label.into(),
                kind: ResetKind::GuiltyHardRecovery,
            }),
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

fn run_with(fault: Fault, tag: &str) -> (draw::run::Report, usize) {
    let dir = common::temp_dir(tag);
    let inner = CaptureWinsys::create(&dir.join("capture"), pm4::Family::Navi21).unwrap();
    let mut ws = FaultInjector {
        inner,
        fault,
        submits: 0,
        waits: 0,
        queries: 0,
    };
    let report = run(&mut ws, &standard(), &Options::default()).unwrap();
    let submits = ws.submits;
    let _ = std::fs::remove_dir_all(&dir);
    (report, submits)
}

fn assert_stopped_after(report: &draw::run::Report, at: usize, submits: usize) {
    assert_eq!(submits, at + 1, "no submission after the fault");
    for (i, r) in report.results.iter().enumerate() {
        if i < at {
            assert_eq!(r.outcome, Outcome::NotExecuted, "{}", r.variant);
        } else if i > at {
            match &r.outcome {
                Outcome::NotSubmitted(why) => {
                    assert!(why.contains(&report.results[at].variant.name()), "{why}")
                }
                o => panic!("{}: {o:?}", r.variant),
            }
        }
    }
    assert!(!report.all_ok());
}

#[test]
fn a_hang_stops_all_further_submissions_and_names_the_variant() {
    let (report, submits) = run_with(Fault::WaitTimesOut(2), "hang");
    let r = &report.results[2];
    assert!(
        matches!(&r.outcome, Outcome::Timeout(m) if m.contains(&r.variant.name())),
        "{:?}",
        r.outcome
    );
    assert_stopped_after(&report, 2, submits);
    assert!(report.to_table().contains("TIMEOUT"));
}

#[test]
fn a_reset_seen_in_the_status_stops_all_further_submissions() {
    let (report, submits) = run_with(Fault::ResetAfter(3), "reset");
    let r = &report.results[3];
    assert!(
        matches!(&r.outcome, Outcome::Reset(m) if m.contains("guilty=true") && m.contains(&r.variant.name())),
        "{:?}",
        r.outcome
    );
    assert_stopped_after(&report, 3, submits);
    assert_eq!(report.to_json()["variants"][3]["outcome"], "RESET");
}

#[test]
fn a_context_lost_at_submission_stops_all_further_submissions() {
    let (report, submits) = run_with(Fault::SubmitLost(0), "lost");
    assert!(matches!(&report.results[0].outcome, Outcome::Reset(m) if m.contains("ETIME")));
    assert_stopped_after(&report, 0, submits);
}
