//! The race test (`pops-oit --race`) where interlocked shaders execute here: today's lavapipe
//! (Mesa 26.x in the sid root), small sizes, in every way pops-oit compiles its fragment shaders,
//! under the layer; and `pops compare` of one interlock pair there. The H200's figures, where the
//! control shows races, are in docs/race.md.

use std::path::{Path, PathBuf};
use std::process::Output;

const LAVAPIPE: &str = "/usr/share/vulkan/icd.d/lvp_icd.json";

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// `pops` with the layer built, and today's Mesa; `None` (a loud skip) where either is missing.
fn todays_mesa_and_pops() -> Option<(pops_testkit::mesa::Mesa, PathBuf)> {
    let mesa = pops_testkit::mesa::all_or_skip()
        .into_iter()
        .find(|m| m.major() >= Some(26))?;
    let profile = Path::new(env!("CARGO_BIN_EXE_pops-oit")).parent()?;
    match pops_testkit::built::pops_and_layer(profile) {
        Ok(pops) => Some((mesa, pops)),
        Err(e) => {
            pops_testkit::missing(format!("pops and the layer are needed: {e}"));
            None
        }
    }
}

/// Every interlock mode is exact on today's lavapipe in every compile mode,
/// under the layer; the control's verdict is said either way (lavapipe runs the fragments of one
/// pixel one after another, so its control shows no race: the run says so instead of passing it
/// off as proof).
#[test]
fn the_race_test_is_exact_on_todays_lavapipe_in_every_compile_mode() {
    let Some((mesa, pops)) = todays_mesa_and_pops() else {
        return;
    };
    for mode in [
        None,
        Some("--dynamic"),
        Some("--dynamic-blend"),
        Some("--libraries"),
        Some("--shader-objects"),
    ] {
        let at = format!("{} lavapipe {}", mesa.label(), mode.unwrap_or("pipelines"));
        let report = pops_testkit::scratch("race").join("report.jsonl");
        let o = mesa
            .command(&pops)
            .arg("run")
            .arg("--report")
            .arg(&report)
            .arg("--")
            .arg(env!("CARGO_BIN_EXE_pops-oit"))
            .args([
                "--race",
                "--width",
                "16",
                "--height",
                "8",
                "--primitives",
                "12",
            ])
            .args(mode)
            .env("VK_DRIVER_FILES", LAVAPIPE)
            .env_remove("VK_ICD_FILENAMES")
            .env_remove("RADV_FORCE_FAMILY")
            .output()
            .expect("pops runs");
        let out = text(&o);
        assert_eq!(o.status.code(), Some(0), "{at}: {out}");
        assert!(
            out.contains("race: 24 of 24 interlocked combinations exact (0 lost updates, 0 order violations where ordered)"),
            "{at}: {out}"
        );
        // 5 modes × 4 anti-aliasing modes × 2 storages, less sample interlock with a per-pixel
        // unit under MSAA (2 modes × 2 × 2): 32 combinations measured or not applicable, none
        // unsupported or failed.
        let lines: Vec<&str> = out.lines().filter(|l| l.starts_with("race ")).collect();
        assert_eq!(lines.len(), 40, "{at}: {out}");
        assert_eq!(
            lines
                .iter()
                .filter(|l| l.contains(": not applicable: "))
                .count(),
            8,
            "{at}: {out}"
        );
        assert!(
            !out.contains("unsupported") && !out.contains("ERROR"),
            "{at}: {out}"
        );
        let control = out
            .lines()
            .find(|l| l.starts_with("race: the control (no interlock)"))
            .unwrap_or_else(|| panic!("{at}: no control verdict: {out}"));
        assert!(
            control.contains("the test sees races on this device")
                || control.contains("so the interlocked results prove nothing about ordering here"),
            "{at}: {control}"
        );
    }
}

/// `pops compare` of one interlock pair where shaders run: pixel-ordered
/// against the same shaders made pixel-unordered, GPU time per pipeline and the image's hash.
#[test]
fn pops_compare_runs_one_interlock_pair_on_todays_lavapipe() {
    let Some((mesa, pops)) = todays_mesa_and_pops() else {
        return;
    };
    let dir = pops_testkit::scratch("compare");
    let image = dir.join("oit.png");
    let page = dir.join("compare.html");
    let o = mesa
        .command(&pops)
        .args([
            "compare",
            "--experiment",
            "ordered-to-unordered",
            "--runs",
            "2",
        ])
        .arg("--reports")
        .arg(dir.join("reports"))
        .arg("--html")
        .arg(&page)
        .arg("--image")
        .arg(&image)
        .arg("--")
        .arg(env!("CARGO_BIN_EXE_pops-oit"))
        .args(["--algorithm", "interlock-pixel-ordered", "--width", "64"])
        .args(["--height", "48", "--triangles", "30", "--output"])
        .arg(&image)
        .env("VK_DRIVER_FILES", LAVAPIPE)
        .env_remove("VK_ICD_FILENAMES")
        .output()
        .expect("pops compare runs");
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    assert!(
        out.contains("interlock-pixel-ordered_noaa/colour [pixel-ordered | pixel-unordered (pixel-ordered -> pixel-unordered)]"),
        "{out}"
    );
    assert!(
        out.contains("identical with and without ordered-to-unordered"),
        "{out}"
    );
    assert!(page.is_file(), "{out}");
}
