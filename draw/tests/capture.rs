//! The whole `pops selftest --draw` run against the capture backend, for every family of the
//! chip database: every variant is built, recorded (never reported as executed), read back from
//! the capture directory, decoded, and compared with the reference draw.

mod common;

use draw::run::{run, Options, Outcome};
use draw::variant::standard;
use draw::verify::verify_capture;
use winsys::capture::CaptureWinsys;

#[test]
fn every_family_records_decodes_and_matches_the_reference() {
    let reference = common::reference("libdrm-draw/gfx9_draw_ib.bin", "capture run")
        .map(|p| p.parent().expect("folder").to_path_buf());
    for fam in draw::reference::families() {
        let dir = pops_testkit::scratch(fam.name());
        let cap_dir = dir.join("capture");
        let mut ws = CaptureWinsys::create(&cap_dir, fam).expect("capture winsys");
        let report = run(&mut ws, &standard(), &Options::default()).expect("run");
        drop(ws);
        assert!(!report.executed, "{fam}: capture never executes");
        for r in &report.results {
            assert_eq!(
                r.outcome,
                Outcome::NotExecuted,
                "{fam} {}: {:?}",
                r.variant,
                r.outcome
            );
            assert!(
                r.checks.is_empty() && r.timing.ticks.is_empty(),
                "{fam}: no results invented"
            );
        }
        assert!(report.all_ok());
        assert!(!report.document().executed);
        assert!(report.to_table().contains("not executed (capture)"));
        let v = verify_capture(&cap_dir, &report, reference.as_deref()).expect("verify");
        assert!(v.all_ok(), "{fam}:\n{}", v.to_table());
        assert_eq!(v.submissions.len(), standard().len());
        if reference.is_some() {
            assert!(v
                .submissions
                .iter()
                .all(|s| s.same_as_reference.unwrap_or(0) > 100));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
