//! pops's libdrm path, run for real on the amdgpu kernel interface of the test command's shim
//! (`shared/tools/amdgpu-shim`: the kernel's own checks of every GEM, VA, context, BO-list, CS and
//! wait ioctl, the IBs recorded as the GPU would fetch them, the command processor's memory writes
//! carried out, a leak report), on every POPS chip it has, through the hardware workflow's own
//! script (`scripts/hardware-run.sh`):
//!
//! - `pops devices` identifies the chip (family, level, PCI id against the shim's sysfs);
//! - `pops selftest` passes: the fence test sees its value through the CP's writes;
//! - `pops selftest --draw` submits every variant and says what it can: no shader output;
//! - every IB pops submitted passes `pops lint` and is, dword for dword, the IB the capture
//!   backend records for the same chip and case, both runs placing their buffers from one GPU
//!   address (`--gpu-va-base`);
//! - the shim reports no VIOLATION and no LEAK line.

mod common;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Both runs place their buffers from here: the IBs then name the same addresses.
const VA_BASE: &str = "0x800000000";

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}: {text}", path.display()))
}

fn dwords(path: &Path) -> Vec<u32> {
    std::fs::read(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The IBs the shim recorded in `dir`, in submission order (one IB per submission here).
fn submitted_ibs(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !(name.starts_with("submissions-") && name.ends_with(".jsonl")) {
            continue;
        }
        for line in std::fs::read_to_string(e.path()).unwrap().lines() {
            let s: Value = serde_json::from_str(line).unwrap();
            assert_eq!(s["result"], 0, "{line}");
            let ibs = s["ibs"].as_array().unwrap();
            assert_eq!(ibs.len(), 1, "{line}");
            out.push(dir.join(ibs[0]["file"].as_str().unwrap()));
        }
    }
    out
}

/// The IBs a capture recorded, in order.
fn captured_ibs(dir: &Path) -> Vec<PathBuf> {
    json(&dir.join("index.json"))["submissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| dir.join(s["ib_file"].as_str().unwrap()))
        .collect()
}

/// Every IB submitted in `shim_dir` equals the captured one, and passes `pops lint`.
fn same_ibs_and_lint_clean(chip: &str, level: &str, shim_dir: &Path, capture_dir: &Path) {
    let submitted = submitted_ibs(shim_dir);
    let captured = captured_ibs(capture_dir);
    assert!(
        !submitted.is_empty(),
        "{chip}: nothing submitted in {}",
        shim_dir.display()
    );
    assert_eq!(
        submitted.len(),
        captured.len(),
        "{chip}: {}",
        shim_dir.display()
    );
    for (s, c) in submitted.iter().zip(&captured) {
        let (a, b) = (dwords(s), dwords(c));
        let first = a.iter().zip(&b).position(|(x, y)| x != y);
        assert!(
            a == b,
            "{chip}: {} and {} differ ({} vs {} dwords, first at {first:?})",
            s.display(),
            c.display(),
            a.len(),
            b.len()
        );
        let lint = common::pops()
            .args(["lint", "--gfx", level])
            .arg(s)
            .output()
            .unwrap();
        assert!(
            lint.status.success(),
            "{chip}: pops lint {}: {}",
            s.display(),
            String::from_utf8_lossy(&lint.stdout)
        );
    }
}

/// The PCI device id the shim's sysfs gives for its render node, read by a program of its own.
fn sysfs_device_id(lib: &Path, chip: &str, dir: &Path) -> String {
    let out = pops_testkit::shim::command(lib, "cat", chip, dir)
        .arg("/sys/dev/char/226:128/device/device")
        .output()
        .unwrap();
    let id = String::from_utf8_lossy(&out.stdout).trim().to_string();
    format!("1002:{}", id.trim_start_matches("0x"))
}

fn check_chip(lib: &Path, chip: &str) {
    let out = common::fresh_path(&format!("shim-{chip}"));
    let status = Command::new("bash")
        .arg(workspace().join("scripts/hardware-run.sh"))
        .arg(&out)
        .env("POPS", env!("CARGO_BIN_EXE_pops"))
        .env("SHIM", lib)
        .env("SHIM_CHIP", chip)
        .env("GPU_VA_BASE", VA_BASE)
        // The node named, as a user with several GPUs does (`pops devices` finds it itself).
        .env("DEVICE", "/dev/dri/renderD128")
        .env("DRAW_RUNS", "1")
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&status.stdout).into_owned()
        + &String::from_utf8_lossy(&status.stderr);
    let steps: Vec<(String, i32)> = std::fs::read_to_string(out.join("steps.txt"))
        .unwrap()
        .lines()
        .map(|l| {
            let (n, s) = l.split_once(' ').unwrap();
            (n.to_string(), s.parse().unwrap())
        })
        .collect();
    let step = |name: &str| steps.iter().find(|(n, _)| n == name).map(|(_, s)| *s);
    let family = pm4::Family::parse(chip).unwrap();
    for name in ["devices", "selftest", "selftest-capture", "draw-capture"] {
        assert_eq!(step(name), Some(0), "{chip}: step {name}: {log}");
    }
    // The draw completes without any shader output: its own verdict and exit status.
    assert_eq!(step("draw"), Some(3), "{chip}: {log}");

    // Identified as the shim's chip.
    let devices = json(&out.join("devices.json"));
    let d = &devices["devices"][0];
    assert_eq!(devices["devices"].as_array().unwrap().len(), 1, "{devices}");
    assert_eq!(d["family"], family.name(), "{d}");
    assert_eq!(d["gfx_level"], family.gfx_level().name(), "{d}");
    assert_eq!(d["pci_id"], sysfs_device_id(lib, chip, &out), "{d}");
    assert!(d["quirks"].is_array(), "{d}");

    // The self-test ran on the "GPU": the fence value came back through the CP's write.
    let selftest = json(&out.join("selftest.json"));
    assert_eq!(selftest["ok"], true, "{selftest}");
    assert_eq!(selftest["executed"], true, "{selftest}");
    assert_eq!(
        selftest["cases"][0]["readback"],
        winsys::selftest::FENCE_MAGIC,
        "{selftest}"
    );

    let level = family.gfx_level().name();
    same_ibs_and_lint_clean(
        chip,
        level,
        &out.join("shim/selftest"),
        &out.join("capture"),
    );
    // Every draw variant submitted and completed; no shader output anywhere.
    let draw = json(&out.join("draw.json"));
    assert_eq!(draw["verdict"], "no-shader-output", "{draw}");
    for v in draw["variants"].as_array().unwrap() {
        assert_eq!(v["outcome"], "NO SHADER OUTPUT", "{v}");
        assert_eq!(v["runs"], 1, "{v}");
    }

    same_ibs_and_lint_clean(
        chip,
        level,
        &out.join("shim/draw"),
        &out.join("draw-capture"),
    );
    for step in ["devices", "selftest", "draw", "draw-timing"] {
        let events = pops_testkit::shim::events(&out.join("shim").join(step));
        assert!(events.is_empty(), "{chip} {step}: {events:?}");
    }
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn the_hardware_run_passes_on_every_pops_chip_of_the_shim() {
    let Some(lib) = pops_testkit::shim::library_or_skip() else {
        return;
    };
    let chips = pops_testkit::shim::chips();
    std::thread::scope(|s| {
        for chunk in chips.chunks(5) {
            let lib = &lib;
            s.spawn(move || {
                for chip in chunk {
                    check_chip(lib, chip);
                }
            });
        }
    });
}

/// The check compares what it must: a capture placed elsewhere in the address space differs.
#[test]
fn ibs_placed_at_other_addresses_differ() {
    let Some(lib) = pops_testkit::shim::library_or_skip() else {
        return;
    };
    let out = common::fresh_path("shim-elsewhere");
    std::fs::create_dir_all(&out).unwrap();
    let shim_dir = out.join("shim");
    let run = pops_testkit::shim::command(&lib, env!("CARGO_BIN_EXE_pops"), "navi21", &shim_dir)
        .args([
            "selftest",
            "--device",
            "/dev/dri/renderD128",
            "--gpu-va-base",
            VA_BASE,
        ])
        .output()
        .unwrap();
    assert!(run.status.success());
    let cap = out.join("capture");
    let c = common::pops()
        .args(["selftest", "--capture"])
        .arg(&cap)
        .args(["--chip", "navi21", "--gpu-va-base", "0x900000000"])
        .output()
        .unwrap();
    assert!(c.status.success());
    let differ =
        std::panic::catch_unwind(|| same_ibs_and_lint_clean("navi21", "gfx10.3", &shim_dir, &cap));
    assert!(
        differ.is_err(),
        "different addresses must not compare equal"
    );
    std::fs::remove_dir_all(&out).unwrap();
}
