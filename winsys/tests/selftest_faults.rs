//! The self-test's safety rules on a GPU that misbehaves: after a reset or a hang nothing more
//! is submitted, and the row says who was blamed. The misbehaviour is injected by a wrapper
//! around the capture backend (named for what it is: a fault injector, not a GPU), which fails
//! the Nth submission, wait or status query with the error the amdgpu backend would return.

use winsys::capture::CaptureWinsys;
use winsys::fault::{Fault, FaultInjector};
use winsys::selftest::{self, Options, Outcome};
use winsys::ResetKind;

fn run_with(fault: Fault, name: &str) -> (selftest::Report, usize) {
    let dir = pops_testkit::scratch(&format!("faults-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    let mut ws = FaultInjector::new(
        CaptureWinsys::create(&dir, pm4::Family::Navi10).unwrap(),
        fault,
    );
    let cases: Vec<selftest::StateCase> = pm4::pops::coverage::every_mode(pm4::Family::Navi10)
        .derived
        .iter()
        .map(Into::into)
        .collect();
    let report = selftest::run(&mut ws, &cases, &Options::default()).unwrap();
    let recorded = ws.inner().submissions().len();
    std::fs::remove_dir_all(&dir).unwrap();
    (report, recorded)
}

#[test]
fn a_reset_at_submission_stops_every_later_submission() {
    // Submission 3 is the third state case ("pixel-ordered 4x").
    let (report, recorded) = run_with(Fault::SubmitLost(3, ResetKind::SoftRecovery), "submit");
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
    let (report, recorded) = run_with(Fault::SubmitRejected(4), "rejected");
    assert_eq!(recorded, report.cases.len() - 1);
    assert!(matches!(&report.cases[4].outcome, Outcome::Failed(m) if m.contains("rejected")));
    assert!(report.cases[5..]
        .iter()
        .all(|c| c.outcome == Outcome::Recorded));
    let v = report.document();
    assert_eq!(v.cases[4].outcome, "failed");
    assert!(!v.ok);
}
