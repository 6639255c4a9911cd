//! `pops selftest --capture DIR --chip NAME` for every family of the chip database: it passes,
//! records every case as not executed, and the recorded IBs decode to exactly the intended
//! register writes.

mod common;

use common::{fresh_path, pops};
use pops_report::selftest::{CaptureIndex, FenceReadback, SelftestDocument};
use pops_report::{DecodeDocument, StateDocument};

#[test]
fn capture_selftest_passes_for_every_family() {
    for family in pm4::Family::ALL {
        let dir = fresh_path(&format!("selftest-{}", family.name()));
        let out = pops()
            .args(["selftest", "--json", "--chip", family.name(), "--capture"])
            .arg(&dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "{family}: {out:?}");
        let v: SelftestDocument = serde_json::from_slice(&out.stdout).unwrap();
        assert!(v.ok, "{family}");
        assert!(!v.executed);
        assert_eq!(v.family, family.name());
        assert_eq!(v.cases.len(), 17, "{family}");
        assert_eq!(v.cases[0].case, "fence");
        for c in &v.cases {
            assert_eq!(c.outcome, "recorded");
            assert_eq!(
                c.readback,
                Some(FenceReadback::Note("not executed (capture)".into()))
            );
        }
        let capture = v.capture.expect("the capture's check");
        assert!(capture.ok);
        assert_eq!(capture.checks.len(), 17);
        assert!(dir.join("index.json").is_file());
        assert!(dir.join("submit-0016.bin").is_file());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn text_output_says_nothing_ran() {
    let dir = fresh_path("selftest-text");
    let out = pops()
        .args(["selftest", "--chip", "gfx11", "--capture"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("capture: recorded, not executed"), "{text}");
    assert!(text.contains("not executed (capture)"), "{text}");
    assert!(text.contains("excluded shading-rate-ordered 1x"), "{text}");
    assert!(text.trim_end().ends_with("selftest: ok"), "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn without_a_gpu_the_hardware_selftest_fails_with_the_reason() {
    let dri = fresh_path("selftest-dri");
    std::fs::create_dir_all(&dri).unwrap();
    let out = pops()
        .args(["selftest", "--dri-dir"])
        .arg(&dri)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("no render node in"), "{err}");
    let out = pops()
        .args(["selftest", "--device", "/dev/null"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("is not a DRM device"));
    std::fs::remove_dir_all(&dri).unwrap();
}

#[test]
fn unknown_and_compute_only_chips_are_refused() {
    let dir = fresh_path("selftest-bad");
    for (chip, msg) in [("navi99", "unknown chip"), ("mi200", "compute-only")] {
        let out = pops()
            .args(["selftest", "--chip", chip, "--capture"])
            .arg(&dir)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{chip}");
        assert!(
            String::from_utf8(out.stderr).unwrap().contains(msg),
            "{chip}"
        );
    }
    assert!(!dir.exists(), "nothing is created for a refused chip");
}

/// A render node the user may not open: pops says to join the `render` group. Simulated by a
/// root-owned 0600 DRM node (mknod) opened by `pops` running as `nobody`; needs root to set up.
#[test]
fn a_node_the_user_may_not_open_says_to_join_the_render_group() {
    use nix::sys::stat::{makedev, mknod, Mode, SFlag};
    use std::os::unix::process::CommandExt;
    let dir = fresh_path("perm");
    std::fs::create_dir_all(&dir).unwrap();
    let node = dir.join("renderD128");
    if mknod(
        &node,
        SFlag::S_IFCHR,
        Mode::from_bits_truncate(0o600),
        makedev(226, 128),
    )
    .is_err()
    {
        pops_testkit::skipped(
            "needs root to create a DRM node and run pops as another user".to_string(),
        );
        std::fs::remove_dir_all(&dir).unwrap();
        return;
    }
    let out = match pops()
        .args(["selftest", "--device"])
        .arg(&node)
        .uid(65534)
        .gid(65534)
        .output()
    {
        Ok(o) => o,
        Err(e) => {
            pops_testkit::skipped(format!("cannot run pops as nobody ({e})"));
            std::fs::remove_dir_all(&dir).unwrap();
            return;
        }
    };
    let err = String::from_utf8_lossy(&out.stderr);
    if err.contains("Permission denied") && !err.contains("permission denied opening") {
        pops_testkit::skipped(format!(
            "the pops binary is not reachable by nobody here: {err}"
        ));
    } else {
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains("add your user to the `render` group"), "{err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The capture is for people too: `pops decode --gfx <level> FILE` reads every recorded IB, and
/// a state IB's register writes are those `pops state` gives for the same chip, mode and samples.
#[test]
fn pops_decode_reads_the_captured_ibs_back() {
    let dir = fresh_path("selftest-dec");
    let out = pops()
        .args(["selftest", "--chip", "navi31", "--json", "--capture"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let index: CaptureIndex =
        serde_json::from_slice(&std::fs::read(dir.join("index.json")).unwrap()).unwrap();
    let level = index.gfx_level.as_str();
    assert_eq!(level, "gfx11");
    // Submission 12 is "sample-ordered 8x" (fence, then 4 sample counts per mode).
    let s = &index.submissions[12];
    assert_eq!(s.ib_file, "submit-0012.bin");
    let decoded = pops()
        .args(["decode", "--json", "--gfx", level])
        .arg(dir.join("submit-0012.bin"))
        .output()
        .unwrap();
    assert!(decoded.status.success(), "{decoded:?}");
    let d: DecodeDocument = serde_json::from_slice(&decoded.stdout).unwrap();
    let writes: Vec<(u32, u32)> = d
        .packets
        .iter()
        .flat_map(|p| &p.writes)
        .map(|w| (w.address, w.value))
        .collect();
    let state = pops()
        .args([
            "state",
            "--json",
            "--chip",
            "navi31",
            "--interlock",
            "sample-ordered",
            "--samples",
            "8",
        ])
        .output()
        .unwrap();
    assert!(state.status.success(), "{state:?}");
    let st: StateDocument = serde_json::from_slice(&state.stdout).unwrap();
    let mut expected: Vec<(u32, u32)> = st
        .registers
        .values()
        .map(|r| (r.address, r.value))
        .collect();
    let mut got = writes.clone();
    expected.sort();
    got.sort();
    assert_eq!(got, expected);
    std::fs::remove_dir_all(&dir).unwrap();
}
