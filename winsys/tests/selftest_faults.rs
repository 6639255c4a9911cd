//! The self-test's safety rules on a GPU that misbehaves: after a reset or a hang nothing more
//! is submitted, and the row says who was blamed. The misbehaviour is injected by a wrapper
//! around the capture backend (named for what it is: a fault injector, not a GPU), which fails
//! the Nth submission, wait or status query with the error the amdgpu backend would return.

use std::time::Duration;
use winsys::capture::CaptureWinsys;
use winsys::selftest::{self, Options, Outcome};
use winsys::{
    BufferId, ContextId, DeviceInfo, Domain, Fence, Readback, ResetKind, ResetStatus, Submission,
    Winsys, WinsysError,
};

#[derive(Clone, Copy)]
enum Fault {
    SubmitFails(usize, ResetKind),
    WaitTimesOut(usize),
    ResetAfter(usize),
    Rejected(usize),
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
            Fault::SubmitFails(at, kind) if at == n => Err(WinsysError::ContextLost {
                label: sub.label.into(),
                kind,
            }),
            Fault::Rejected(at) if at == n => Err(WinsysError::from_submit_errno(
                sub.label,
                nix::errno::Errno::EINVAL,
            )),
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

fn run_with(fault: Fault, name: &str) -> (selftest::Report, usize) {
    let dir = std::env::temp_dir().join(format!("pops-faults-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut ws = FaultInjector {
        inner: CaptureWinsys::create(&dir, pm4::Family::Navi10).unwrap(),
        fault,
        submits: 0,
        waits: 0,
        queries: 0,
    };
    let plan = selftest::pops_cases(pm4::Family::Navi10);
    let report = selftest::run(&mut ws, &plan.cases, &Options::default()).unwrap();
    let recorded = ws.inner.submissions().len();
    std::fs::remove_dir_all(&dir).unwrap();
    (report, recorded)
}

#[test]
fn a_reset_at_submission_stops_every_later_submission() {
    // Submission 3 is the third state case ("pixel-ordered 4x").
    let (report, recorded) = run_with(
        Fault::SubmitFails(3, ResetKind::GuiltySoftRecovery),
        "submit",
    );
    assert_eq!(recorded, 3, "nothing reaches the backend after the reset");
    let c = &report.cases[3];
    assert!(
        matches!(&c.outcome, Outcome::Reset(m) if m.contains("soft recovery")),
        "{:?}",
        c.outcome
    );
    for c in &report.cases[4..] {
        assert!(
            matches!(&c.outcome, Outcome::NotSubmitted(m) if m.contains("pixel-ordered 4x")),
            "{:?}",
            c.outcome
        );
    }
    assert!(!report.all_ok());
}

#[test]
fn a_hang_stops_every_later_submission() {
    let (report, recorded) = run_with(Fault::WaitTimesOut(5), "hang");
    assert_eq!(recorded, 6);
    assert!(matches!(report.cases[5].outcome, Outcome::Timeout(_)));
    assert!(report.cases[6..]
        .iter()
        .all(|c| matches!(c.outcome, Outcome::NotSubmitted(_))));
}

#[test]
fn a_reset_seen_only_in_the_status_query_also_stops() {
    let (report, recorded) = run_with(Fault::ResetAfter(2), "status");
    assert_eq!(recorded, 3);
    assert!(
        matches!(&report.cases[2].outcome, Outcome::Reset(m) if m.contains("guilty=true")),
        "{:?}",
        report.cases[2].outcome
    );
    assert!(matches!(report.cases[3].outcome, Outcome::NotSubmitted(_)));
}

#[test]
fn a_rejected_submission_fails_its_case_and_the_rest_still_run() {
    let (report, recorded) = run_with(Fault::Rejected(4), "rejected");
    assert_eq!(recorded, report.cases.len() - 1);
    assert!(matches!(&report.cases[4].outcome, Outcome::Failed(m) if m.contains("rejected")));
    assert!(report.cases[5..]
        .iter()
        .all(|c| c.outcome == Outcome::Recorded));
    let v = report.to_json();
    assert_eq!(v["cases"][4]["outcome"], "failed");
    assert_eq!(v["ok"], false);
}
