//! `pops selftest --capture DIR --chip NAME` for every family of the chip database: it passes,
//! records every case as not executed, and the recorded IBs decode to exactly the intended
//! register writes.

use std::process::Command;

fn pops() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pops"))
}

#[test]
fn capture_selftest_passes_for_every_family() {
    for family in pm4::Family::ALL {
        let dir = std::env::temp_dir().join(format!(
            "pops-cli-selftest-{}-{}",
            family.name(),
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        let out = pops()
            .args(["selftest", "--json", "--chip", family.name(), "--capture"])
            .arg(&dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "{family}: {out:?}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["ok"], true, "{family}");
        assert_eq!(v["executed"], false);
        assert_eq!(v["family"], family.name());
        let cases = v["cases"].as_array().unwrap();
        assert_eq!(cases.len(), 17, "{family}");
        assert_eq!(cases[0]["case"], "fence");
        for c in cases {
            assert_eq!(c["outcome"], "recorded");
            assert_eq!(c["readback"], "not executed (capture)");
        }
        assert_eq!(v["capture"]["ok"], true);
        assert_eq!(v["capture"]["checks"].as_array().unwrap().len(), 17);
        assert!(dir.join("index.json").is_file());
        assert!(dir.join("submit-0016.bin").is_file());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn text_output_says_nothing_ran() {
    let dir = std::env::temp_dir().join(format!("pops-cli-selftest-text-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
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
    let dri = std::env::temp_dir().join(format!("pops-cli-selftest-dri-{}", std::process::id()));
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
    let dir = std::env::temp_dir().join(format!("pops-cli-selftest-bad-{}", std::process::id()));
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
