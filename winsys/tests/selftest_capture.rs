//! The self-test against the capture backend, for every family of the chip database: every case
//! is recorded (never reported as run), and every recorded IB decodes with the pm4 decoder to
//! exactly the intended register writes.

use std::path::PathBuf;
use winsys::capture::CaptureWinsys;
use winsys::selftest::{self, Options, Outcome, ReadbackResult};
use winsys::Winsys;

fn dir(name: &str) -> PathBuf {
    let d = pops_testkit::scratch(&format!("selftest-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// The state cases `pops selftest` submits on `family`: every mode and sample count derived.
fn cases(family: pm4::Family) -> Vec<selftest::StateCase> {
    pm4::pops::coverage::every_mode(family)
        .derived
        .iter()
        .map(Into::into)
        .collect()
}

fn capture(
    family: pm4::Family,
    d: &std::path::Path,
) -> (selftest::Report, Vec<selftest::StateCase>) {
    let mut ws = CaptureWinsys::create(d, family).unwrap();
    let cases = cases(family);
    let report = selftest::run(&mut ws, &cases, &Options::default()).unwrap();
    assert!(!ws.executes());
    (report, cases)
}

#[test]
fn every_family_records_and_decodes_to_the_intended_writes() {
    for family in pm4::Family::ALL {
        let d = dir(family.name());
        let (report, cases) = capture(*family, &d);
        assert!(!report.executed);
        // The fence test, then every case given (pm4::pops::coverage checks which they are).
        assert_eq!(report.cases.len(), cases.len() + 1);
        for c in &report.cases {
            assert_eq!(c.outcome, Outcome::Recorded, "{family} {}", c.name);
            assert_eq!(c.readback, ReadbackResult::NotExecuted);
            assert_eq!(c.ib_dwords % 8, 0);
        }
        assert!(report.cases[1..].iter().all(|c| c.registers > 0));
        let v = selftest::verify_capture(&d, &cases).unwrap();
        assert!(v.all_ok(), "{family}:\n{}", v.to_table());
        assert_eq!(v.checks.len(), 17);
        std::fs::remove_dir_all(&d).unwrap();
    }
}

#[test]
fn the_capture_directory_is_byte_identical_across_runs() {
    let (a, b) = (dir("det-a"), dir("det-b"));
    capture(pm4::Family::Raven, &a);
    capture(pm4::Family::Raven, &b);
    let names = |d: &std::path::Path| {
        let mut v: Vec<_> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        v.sort();
        v
    };
    assert_eq!(names(&a), names(&b));
    for n in names(&a) {
        assert_eq!(
            std::fs::read(a.join(&n)).unwrap(),
            std::fs::read(b.join(&n)).unwrap(),
            "{n:?}"
        );
    }
    std::fs::remove_dir_all(&a).unwrap();
    std::fs::remove_dir_all(&b).unwrap();
}

/// The check is not vacuous: a changed register value, a missing write, or garbage in a recorded
/// IB is caught.
#[test]
fn a_tampered_capture_fails_verification() {
    let d = dir("tamper");
    let (_, cases) = capture(pm4::Family::Navi10, &d);
    let file = d.join("submit-0003.bin");
    let original = std::fs::read(&file).unwrap();
    let dwords: Vec<u32> = original
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let write = |dw: &[u32]| {
        let bytes: Vec<u8> = dw.iter().flat_map(|d| d.to_le_bytes()).collect();
        std::fs::write(&file, bytes).unwrap();
    };

    // CONTEXT_CONTROL is 3 dwords; the first SET_*_REG packet's first value follows its header
    // and offset dwords.
    let mut changed = dwords.clone();
    changed[5] ^= 1;
    write(&changed);
    let v = selftest::verify_capture(&d, &cases).unwrap();
    assert!(!v.all_ok());
    assert!(
        v.checks[3].problem.as_ref().unwrap().contains("write 0"),
        "{v:?}"
    );

    // Registers dropped from the stream: the RELEASE_MEM then follows CONTEXT_CONTROL at once.
    let mut garbage = dwords.clone();
    garbage[3] = 0x1234_5678; // a type-0 packet header
    write(&garbage);
    let v = selftest::verify_capture(&d, &cases).unwrap();
    assert!(v.checks[3]
        .problem
        .as_ref()
        .unwrap()
        .contains("does not decode"));

    write(&dwords);
    assert!(selftest::verify_capture(&d, &cases).unwrap().all_ok());
    std::fs::remove_dir_all(&d).unwrap();
}
