//! `pops run` as a program: exit status passthrough, programs that are not
//! Vulkan applications, a missing program, a report path that cannot be written.
//!
//! The layer is found through `--layer` pointing at a manifest written here: these programs never
//! load Vulkan, so only its presence matters. The layer itself is exercised with pops-oit in
//! oit/tests/matrix.rs.

use std::path::PathBuf;
use std::process::{Command, Output};

fn layer_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("run-layer");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("VkLayer_pops_interlock.json"),
        r#"{"file_format_version":"1.2.1","layer":{"name":"VK_LAYER_POPS_interlock","type":"GLOBAL","library_path":"./libVkLayer_pops_interlock.so","api_version":"1.3.239","implementation_version":"1","description":"test"}}"#,
    )
    .unwrap();
    dir
}

fn report(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name)
}

fn pops_run(extra: &[&str], program: &[&str], report_name: &str) -> Output {
    let layer = layer_dir();
    let rep = report(report_name);
    Command::new(env!("CARGO_BIN_EXE_pops"))
        .env_remove("VK_POPS_INTERLOCK_VERIFY_ISA")
        .arg("run")
        .arg("--layer")
        .arg(&layer)
        .arg("--report")
        .arg(&rep)
        .args(extra)
        .arg("--")
        .args(program)
        .output()
        .expect("pops runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn exit_status_is_passed_through() {
    let o = pops_run(&[], &["sh", "-c", "exit 7"], "exit7.jsonl");
    assert_eq!(o.status.code(), Some(7), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("exited with status 7"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn death_by_signal_becomes_128_plus_n() {
    let o = pops_run(&[], &["sh", "-c", "kill -TERM $$"], "signal.jsonl");
    assert_eq!(o.status.code(), Some(128 + 15), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("sh crashed: killed by signal 15 (SIGTERM)"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn program_arguments_and_layer_environment_reach_the_program() {
    let o = pops_run(
        &[],
        &[
            "sh",
            "-c",
            "echo \"$VK_INSTANCE_LAYERS|$VK_POPS_INTERLOCK_REPORT|$1\"",
            "sh",
            "--not-an-option-of-pops",
        ],
        "env.jsonl",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("VK_LAYER_POPS_interlock|"), "{out}");
    assert!(out.contains("env.jsonl|--not-an-option-of-pops"), "{out}");
}

/// `--verify-isa` turns the layer's verify_isa setting on for the program, and only with it.
#[test]
fn verify_isa_flag_reaches_the_layer_setting() {
    let echo = [
        "sh",
        "-c",
        "echo \"verify_isa=[$VK_POPS_INTERLOCK_VERIFY_ISA]\"",
    ];
    let o = pops_run(&["--verify-isa"], &echo, "verify-isa.jsonl");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("verify_isa=[1]"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let o = pops_run(&[], &echo, "no-verify-isa.jsonl");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("verify_isa=[]"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
}

#[test]
fn true_is_not_a_vulkan_app_and_reports_nothing() {
    let o = pops_run(&[], &["true"], "true.jsonl");
    assert_eq!(o.status.code(), Some(0));
    assert!(
        stderr(&o).contains("no pipelines reported: true created no pipeline"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn false_fails_and_says_so() {
    let o = pops_run(&[], &["false"], "false.jsonl");
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(e.contains("no pipelines reported"), "{e}");
    assert!(e.contains("false exited with status 1"), "{e}");
}

#[test]
fn missing_program_is_named() {
    let o = pops_run(&[], &["/nonexistent/pops-no-such-program"], "missing.jsonl");
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("program '/nonexistent/pops-no-such-program' not found"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn unwritable_report_path_fails_before_running() {
    let layer = layer_dir();
    let marker = report("must-not-exist.txt");
    let _ = std::fs::remove_file(&marker);
    let o = Command::new(env!("CARGO_BIN_EXE_pops"))
        .args([
            "run",
            "--report",
            "/nonexistent-dir/report.jsonl",
            "--layer",
        ])
        .arg(&layer)
        .args(["--", "sh", "-c"])
        .arg(format!("touch {}", marker.display()))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("cannot write the report file /nonexistent-dir/report.jsonl"),
        "{}",
        stderr(&o)
    );
    assert!(!marker.exists(), "the program must not run");
}

#[test]
fn unknown_chip_is_rejected() {
    let o = pops_run(&["--chip", "gfx42"], &["true"], "chip.jsonl");
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("--chip"), "{}", stderr(&o));
}

#[test]
fn missing_layer_manifest_is_explained() {
    let empty = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("no-layer-here");
    std::fs::create_dir_all(&empty).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_pops"))
        .args(["run", "--layer"])
        .arg(&empty)
        .args(["--", "true"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("no VkLayer_pops_interlock.json there"),
        "{}",
        stderr(&o)
    );
}

/// `--amdgpu-shim` runs only as a chip the shim answers as, with the shim's library present;
/// either mistake is named before the program runs.
#[test]
fn amdgpu_shim_chip_and_library_are_checked_first() {
    let lib = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("not-a-shim.so");
    let o = pops_run(
        &["--amdgpu-shim", lib.to_str().unwrap(), "--chip", "navi14"],
        &["true"],
        "shim-chip.jsonl",
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("the shim has no navi14 (it has: vega10,"),
        "{}",
        stderr(&o)
    );
    let o = pops_run(
        &["--amdgpu-shim", lib.to_str().unwrap(), "--chip", "navi21"],
        &["true"],
        "shim-lib.jsonl",
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("is not a file"), "{}", stderr(&o));
}

/// Where the user names no place, `pops run` and `pops compare` write into a
/// folder of their own with an unpredictable name, created fresh. Links planted beforehand at the
/// names earlier versions used (`pops-run-<pid>.jsonl`, its `.amdgpu` folder, `pops-compare-<pid>`)
/// are not followed: the victim's file keeps its bytes and its folder stays empty. The shell plants
/// the links for its own pid, then `exec`s pops, which keeps that pid.
#[test]
fn default_report_places_are_fresh_and_follow_no_planted_link() {
    let tmp = pops_testkit::scratch("planted-links");
    let victim = tmp.join("victim.txt");
    let victim_dir = tmp.join("victim-dir");
    std::fs::write(&victim, b"the victim's data\n").unwrap();
    std::fs::create_dir(&victim_dir).unwrap();
    let layer = layer_dir();
    for (cmd, extra) in [
        ("run", &[][..]),
        (
            "compare",
            &["--experiment", "no-interlock", "--runs", "1"][..],
        ),
    ] {
        let o = Command::new("sh")
            .arg("-c")
            .arg(
                r#"for n in "pops-run-$$.jsonl" "pops-compare-$$"; do ln -s "$VICTIM" "$TMPDIR/$n"; done
                   ln -s "$VICTIM_DIR" "$TMPDIR/pops-run-$$.amdgpu"
                   exec "$POPS" "$@""#,
            )
            .arg("sh")
            .arg(cmd)
            .arg("--layer")
            .arg(&layer)
            .args(extra)
            .args(["--", "sh", "-c", "exit 0"])
            .env("TMPDIR", &tmp)
            .env("VICTIM", &victim)
            .env("VICTIM_DIR", &victim_dir)
            .env("POPS", env!("CARGO_BIN_EXE_pops"))
            .env_remove("VK_POPS_INTERLOCK_VERIFY_ISA")
            .output()
            .expect("pops runs");
        let err = stderr(&o);
        assert_eq!(
            std::fs::read(&victim).unwrap(),
            b"the victim's data\n",
            "pops {cmd} wrote through a planted link: {err}"
        );
        assert_eq!(
            std::fs::read_dir(&victim_dir).unwrap().count(),
            0,
            "pops {cmd}: {err}"
        );
        // What it wrote is in a folder of its own, owner-only.
        let prefix = format!("pops-{cmd}-");
        let own: Vec<_> = std::fs::read_dir(&tmp)
            .unwrap()
            .filter_map(Result::ok)
            .filter(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                name.starts_with(&prefix) && e.file_type().unwrap().is_dir()
            })
            .collect();
        assert_eq!(own.len(), 1, "pops {cmd}: one folder of its own: {err}");
        use std::os::unix::fs::PermissionsExt;
        let mode = own[0].metadata().unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700, "pops {cmd}: the folder is its owner's alone");
        if cmd == "run" {
            let report = own[0].path().join("report.jsonl");
            assert!(report.is_file(), "{err}");
            assert!(
                err.contains(&*report.to_string_lossy()),
                "the report is named: {err}"
            );
        }
    }
}
