//! `pops selftest --draw --capture DIR --chip NAME` for every family: the whole draw run goes to
//! the capture backend, every variant is reported as not executed, and the recorded IBs decode
//! and match the reference draw (when `shared/reference` is beside the checkout).

mod common;

use common::{fresh_path, pops};

/// Whether `pops selftest --draw` finds the reference folder it compares against (the path its
/// `default_reference` uses). Absent: SKIPPED for the comparison, or a failure when `CI=true`.
fn reference_present() -> bool {
    pops_testkit::reference("libdrm-draw", "comparison with the reference draw").is_some()
}

#[test]
fn capture_draw_passes_for_every_family_and_never_claims_execution() {
    let compared = reference_present();
    for family in draw::reference::families() {
        let dir = fresh_path(&format!("draw-{}", family.name()));
        let out = pops()
            .args([
                "selftest",
                "--draw",
                "--json",
                "--chip",
                family.name(),
                "--capture",
            ])
            .arg(&dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "{family}: {out:?}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["ok"], true, "{family}");
        assert_eq!(v["executed"], false);
        // A capture has no timestamp counter, so no frequency and no time, only (no) ticks.
        assert!(v["gpu_counter_freq_khz"].is_null(), "{family}");
        let variants = v["variants"].as_array().unwrap();
        assert!(variants.len() >= 14, "{family}");
        for x in variants {
            assert_eq!(x["outcome"], "not executed (capture)");
            assert_eq!(x["runs"], 0);
            assert!(x["gpu_ticks"]["median"].is_null());
            assert!(x["gpu_time_us"].is_null());
        }
        assert_eq!(v["capture"]["ok"], true, "{family}: {}", v["capture"]);
        if compared {
            assert_eq!(
                v["capture"]["reference"], "compared",
                "{family}: {}",
                v["capture"]
            );
        }
        assert_eq!(
            v["capture"]["submissions"].as_array().unwrap().len(),
            variants.len()
        );
        // The recorded IBs read back through `pops decode`.
        let decoded = pops()
            .args(["decode", "--gfx", family.name()])
            .arg(dir.join("submit-0000.bin"))
            .output()
            .unwrap();
        assert!(decoded.status.success(), "{family}: {decoded:?}");
        assert!(String::from_utf8_lossy(&decoded.stdout).contains("DRAW_INDEX_AUTO"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn variant_filter_table_output_and_refusals() {
    let dir = fresh_path("draw-filter");
    let out = pops()
        .args([
            "selftest",
            "--draw",
            "--variant",
            "control",
            "--chip",
            "raven",
            "--capture",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("control-1x"));
    assert!(text.contains("NOT executed"));
    assert!(!text.contains("pixel-ordered"));
    let _ = std::fs::remove_dir_all(&dir);
    let bad = pops()
        .args([
            "selftest",
            "--draw",
            "--variant",
            "nonsense",
            "--chip",
            "raven",
            "--capture",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("no variant starts with 'nonsense'"));
    let _ = std::fs::remove_dir_all(&dir);
}
