//! Every kernel error at every position, on the amdgpu kernel interface of the test command's
//! shim (`shared/tools/amdgpu-shim`, `AMDGPU_ORACLE_FAIL`, `_RESET`, `_BUSY`), for every POPS chip
//! it has: each ioctl pops makes (gem_create, gem_va, gem_mmap, ctx, bo_list, cs, wait_cs, info)
//! fails in turn at each call of a `pops selftest` run. Every run ends either in a pass (the
//! failure was a release pops retried, or a submission refused for memory and retried) or in a
//! message naming the operation and the errno — out of memory told apart — with a non-zero exit;
//! nothing panics, and the shim reports no LEAK and no VIOLATION. Lost contexts, GPU resets and
//! hung fences at each submission come out as pops's typed outcomes.

mod common;

use serde_json::Value;
use std::path::Path;
use std::process::Output;

const IOCTLS: &[&str] = &[
    "gem_create",
    "gem_va",
    "gem_mmap",
    "ctx",
    "bo_list",
    "cs",
    "wait_cs",
    "info",
];

/// A sweep ends after this many runs in a row where the injected failure changed nothing (past
/// the last call of the ioctl, or absorbed by a retry).
const CLEAN_RUNS_TO_STOP: u32 = 8;

/// Words of the operations pops names in its errors.
const OPERATIONS: &[&str] = &[
    "allocating",
    "mapping",
    "creating",
    "submission",
    "submitting",
    "waiting",
    "querying",
    "initialize",
    "initializing",
    "reserving",
    "exporting",
];

/// `pops selftest ARGS` on the shim as `chip` with `env` set; its output and the shim's
/// VIOLATION/LEAK lines.
fn selftest(
    lib: &Path,
    chip: &str,
    dir: &Path,
    env: &[(&str, &str)],
    args: &[&str],
) -> (Output, String, Vec<String>) {
    let _ = std::fs::remove_dir_all(dir);
    let mut c = pops_testkit::shim::command(lib, env!("CARGO_BIN_EXE_pops"), chip, dir);
    c.args(["selftest", "--device", "/dev/dri/renderD128"])
        .args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let events = pops_testkit::shim::events(dir);
    (out, text, events)
}

/// One ioctl failing with `errno` at each of its calls in turn.
fn sweep(lib: &Path, chip: &str, ioctl: &str, errno: &str, dir: &Path) {
    let (mut k, mut clean, mut failed) = (1u32, 0u32, 0u32);
    while clean < CLEAN_RUNS_TO_STOP {
        let spec = format!("{ioctl}:{errno}:{k}");
        let (out, text, events) = selftest(lib, chip, dir, &[("AMDGPU_ORACLE_FAIL", &spec)], &[]);
        let at = format!("{chip} {spec}");
        assert!(!text.contains("panicked"), "{at}: {text}");
        assert!(events.is_empty(), "{at}: {events:?}\n{text}");
        match out.status.code() {
            Some(0) => {
                assert!(text.trim_end().ends_with("selftest: ok"), "{at}: {text}");
                clean += 1;
            }
            Some(1) => {
                clean = 0;
                failed += 1;
                let line = text
                    .lines()
                    .find(|l| l.contains(errno))
                    .unwrap_or_else(|| panic!("{at}: the errno is not named:\n{text}"));
                assert!(
                    OPERATIONS.iter().any(|o| line.contains(o)),
                    "{at}: the operation is not named: {line}"
                );
                if errno == "ENOMEM" {
                    assert!(line.contains("out of memory"), "{at}: {line}");
                } else {
                    assert!(!line.contains("out of memory"), "{at}: {line}");
                }
            }
            other => panic!("{at}: exit {other:?}:\n{text}"),
        }
        k += 1;
    }
    // A submission refused once for memory is retried, so no single refusal fails a run (a
    // refusal at every call is reported: losses_resets_and_hangs); any other errno does.
    if (ioctl, errno) == ("cs", "ENOMEM") {
        assert_eq!(
            failed, 0,
            "{chip}: a submission refused once for memory is retried"
        );
    } else {
        assert!(failed > 0, "{chip}: no call of {ioctl} failed a run");
    }
}

fn json_cases(text: &str) -> Vec<Value> {
    let line = text.lines().find(|l| l.starts_with('{')).unwrap();
    let v: Value = serde_json::from_str(line).unwrap();
    v["cases"].as_array().unwrap().clone()
}

/// A lost context, a reset or a hung fence at submission `n` (1-based): that case says it, later
/// ones are not submitted, earlier ones passed.
fn stops_at(cases: &[Value], n: usize, outcome: &str, detail: &[&str], at: &str) {
    for (i, c) in cases.iter().enumerate() {
        let want = match (i + 1).cmp(&n) {
            std::cmp::Ordering::Less => "passed",
            std::cmp::Ordering::Equal => outcome,
            std::cmp::Ordering::Greater => "not-submitted",
        };
        assert_eq!(c["outcome"], want, "{at}: case {i}: {c}");
        if i + 1 == n {
            let d = c["detail"].as_str().unwrap();
            for w in detail {
                assert!(d.contains(w), "{at}: {d}");
            }
        }
    }
}

fn losses_resets_and_hangs(lib: &Path, chip: &str, dir: &Path) {
    let (_, text, _) = selftest(lib, chip, dir, &[], &["--json"]);
    let submissions = json_cases(&text).len();
    for n in 1..=submissions {
        for errno in ["ECANCELED", "ENODATA", "ETIME"] {
            let spec = format!("cs:{errno}:{n}");
            let (out, text, events) = selftest(
                lib,
                chip,
                dir,
                &[("AMDGPU_ORACLE_FAIL", &spec)],
                &["--json"],
            );
            let at = format!("{chip} {spec}");
            assert_eq!(out.status.code(), Some(1), "{at}: {text}");
            assert!(events.is_empty(), "{at}: {events:?}");
            let detail = [errno, "AMDGPU_CTX_OP_QUERY_STATE2"];
            stops_at(&json_cases(&text), n, "reset", &detail, &at);
        }
        for kind in ["guilty", "innocent", "vramlost"] {
            let spec = format!("{n}:{kind}");
            let (out, text, events) = selftest(
                lib,
                chip,
                dir,
                &[("AMDGPU_ORACLE_RESET", &spec)],
                &["--json"],
            );
            let at = format!("{chip} reset {spec}");
            assert_eq!(out.status.code(), Some(1), "{at}: {text}");
            assert!(events.is_empty(), "{at}: {events:?}");
            let flags = match kind {
                "guilty" => "guilty=true",
                "innocent" => "guilty=false",
                _ => "vram_lost=true",
            };
            stops_at(&json_cases(&text), n, "reset", &["reset=true", flags], &at);
        }
        let busy = n.to_string();
        let (out, text, events) = selftest(
            lib,
            chip,
            dir,
            &[("AMDGPU_ORACLE_BUSY", &busy)],
            &["--json", "--timeout-ms", "50"],
        );
        let at = format!("{chip} busy {n}");
        assert_eq!(out.status.code(), Some(1), "{at}: {text}");
        assert!(events.is_empty(), "{at}: {events:?}");
        stops_at(
            &json_cases(&text),
            n,
            "timeout",
            &["did not signal within 50ms"],
            &at,
        );
    }
    // A submission refused for memory is tried again; refused every time, it is reported.
    let (out, text, _) = selftest(
        lib,
        chip,
        dir,
        &[("AMDGPU_ORACLE_FAIL", "cs:ENOMEM:2")],
        &[],
    );
    assert!(
        out.status.success(),
        "{chip}: one refusal is retried: {text}"
    );
    let (out, text, events) = selftest(
        lib,
        chip,
        dir,
        &[("AMDGPU_ORACLE_FAIL", "cs:ENOMEM:*")],
        &["--json"],
    );
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(events.is_empty(), "{events:?}");
    for c in json_cases(&text) {
        assert_eq!(c["outcome"], "failed", "{c}");
        assert!(
            c["detail"]
                .as_str()
                .unwrap()
                .contains("out of memory while submitting"),
            "{c}"
        );
    }
}

#[test]
fn every_kernel_error_at_every_position_is_typed_named_and_leak_free() {
    let Some(lib) = pops_testkit::shim::library_or_skip() else {
        return;
    };
    let chips = pops_testkit::shim::chips();
    std::thread::scope(|s| {
        for (t, chunk) in chips.chunks(5).enumerate() {
            let lib = &lib;
            s.spawn(move || {
                for chip in chunk {
                    let dir = common::fresh_path(&format!("faults-{t}"));
                    for ioctl in IOCTLS {
                        for errno in ["EIO", "ENOMEM"] {
                            sweep(lib, chip, ioctl, errno, &dir);
                        }
                    }
                    losses_resets_and_hangs(lib, chip, &dir);
                    let _ = std::fs::remove_dir_all(&dir);
                }
            });
        }
    });
}
