//! Progress where runs are long, as a user at a terminal sees it: `pops compare` and
//! `pops selftest --draw` run in a pseudo-terminal (util-linux `script`) show which run or
//! variant they are at and the time elapsed; with standard error a pipe, as in CI logs, they
//! show none of it and their results are unchanged.

mod common;

use std::process::Command;

/// `args` of pops in a pseudo-terminal: everything it wrote there.
fn in_terminal(args: &str) -> String {
    let pops = env!("CARGO_BIN_EXE_pops");
    let out = Command::new("script")
        .args(["-qec", &format!("{pops} {args}"), "/dev/null"])
        .env("TERM", "xterm")
        .output()
        .expect("util-linux script runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn compare_shows_each_run_on_a_terminal_only() {
    let reports = pops_testkit::scratch("progress-compare");
    let args = format!(
        "compare --experiment pixel-to-sample --runs 2 --reports {} -- true",
        reports.display()
    );
    let args = args.as_str();
    let tty = in_terminal(args);
    for want in [
        "pops compare: run 1 of 4 (without the experiment), ",
        "pops compare: run 2 of 4 (with pixel-to-sample), ",
        "pops compare: run 4 of 4 (with pixel-to-sample), ",
    ] {
        assert!(tty.contains(want), "{want:?} missing: {tty}");
    }
    assert!(tty.contains(" s elapsed"), "{tty}");
    let piped = common::pops().args(args.split(' ')).output().unwrap();
    let err = String::from_utf8_lossy(&piped.stderr);
    assert!(!err.contains("run 1 of"), "{err}");
    assert!(String::from_utf8_lossy(&piped.stdout).contains("GPU time of interlocked work"));
}

#[test]
fn selftest_draw_shows_each_variant_on_a_terminal_only() {
    let dir = common::fresh_path("progress-draw");
    let args = format!(
        "selftest --draw --capture {} --chip navi31 --variant pixel-ordered",
        dir.display()
    );
    let tty = in_terminal(&args);
    assert!(
        tty.contains("pops selftest --draw: variant 1 of ") && tty.contains(" s elapsed"),
        "{tty}"
    );
    let _ = std::fs::remove_dir_all(&dir);
    let piped = common::pops().args(args.split(' ')).output().unwrap();
    let err = String::from_utf8_lossy(&piped.stderr);
    assert!(!err.contains("variant 1 of"), "{err}");
    assert!(piped.status.success(), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
