//! Safety on a misbehaving GPU: after a reset or a hang nothing more is submitted, the row of the
//! variant that caused it says so, and every later variant is "not submitted". The misbehaviour
//! is injected by a wrapper around the capture backend (a fault injector, not a GPU: it never
//! claims to execute anything) that fails the Nth wait or status query as amdgpu would.

use draw::run::{run, Options, Outcome};
use draw::variant::standard;
use winsys::capture::CaptureWinsys;
use winsys::fault::{Fault, FaultInjector};
use winsys::ResetKind;

mod common;

fn run_with(fault: Fault, tag: &str) -> (draw::run::Report, usize) {
    let dir = pops_testkit::scratch(tag);
    let inner = CaptureWinsys::create(&dir.join("capture"), pm4::Family::Navi21).unwrap();
    let mut ws = FaultInjector::new(inner, fault);
    let report = run(&mut ws, &standard(), &Options::default()).unwrap();
    let submits = ws.submits_attempted();
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
    assert_eq!(report.document().variants[3].outcome, "RESET");
}

#[test]
fn a_context_lost_at_submission_stops_all_further_submissions() {
    let (report, submits) = run_with(Fault::SubmitLost(0, ResetKind::HardRecovery), "lost");
    assert!(matches!(&report.results[0].outcome, Outcome::Reset(m) if m.contains("ETIME")));
    assert_stopped_after(&report, 0, submits);
}
