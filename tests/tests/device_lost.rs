//! A device loss during interlocked work, end to end without an AMD GPU: stock RADV (its own
//! amdgpu winsys) on the amdgpu kernel-interface shim runs the `lost` scenario — interlocked
//! command buffers submitted without waiting, one again and again, a primary executing an
//! interlocked secondary and signalling a timeline semaphore a plain submission waits on — while
//! the shim injects a GPU reset (this context guilty) or a lost-context errno at a submission.
//! RADV reports the loss; the layer's one `device_lost` line names exactly the interlocked draws
//! of the submissions in flight, the one whose call returned the loss and the one completed just
//! before, with the register fields RADV really submitted for them (the shim's recording); the
//! application's results and exit status are the ones it has without the layer.

use pops_testkit::mesa::Mesa;
use pops_tests::radv_shim;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;

const BIN: &str = env!("CARGO_BIN_EXE_pops-vk-scenario");

struct Run {
    code: Option<i32>,
    /// The scenario's lines: one per submission, then the final wait.
    lines: Vec<Value>,
    stderr: String,
    report: Vec<Value>,
}

fn run(mesa: &Mesa, shim: &Path, chip: &str, dir: &Path, inject: (&str, &str), layer: bool) -> Run {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    let report = dir.join("report.jsonl");
    let out = radv_shim::command(
        mesa,
        shim,
        BIN,
        chip,
        dir,
        layer.then_some(report.as_path()),
    )
    .arg("lost")
    .env(inject.0, inject.1)
    .output()
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    Run {
        code: out.status.code(),
        lines: stdout
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        report: if layer {
            pops_tests::read_report(&report)
        } else {
            Vec::new()
        },
    }
}

/// What the application saw, without the handles (heap addresses differ between runs).
fn seen(r: &Run) -> Vec<Value> {
    r.lines
        .iter()
        .map(|l| {
            let mut l = l.clone();
            if let Some(o) = l.as_object_mut() {
                o.remove("queue");
                if let Some(cbs) = o.get_mut("command_buffers") {
                    *cbs = Value::from(cbs.as_array().map_or(0, Vec::len));
                }
            }
            l
        })
        .collect()
}

/// A device-lost list as (submission, command buffer) pairs.
fn pairs(list: &Value) -> BTreeSet<(u64, String)> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["submission"].as_u64().unwrap(),
                d["command_buffer"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The scenario's submissions `range` that carried interlocked draws, as the pairs a list has.
fn expected(lines: &[Value], keep: impl Fn(u64, &Value) -> bool) -> BTreeSet<(u64, String)> {
    lines
        .iter()
        .filter(|l| l.get("submission").is_some())
        .filter(|l| keep(l["submission"].as_u64().unwrap(), l))
        .flat_map(|l| {
            let n = l["submission"].as_u64().unwrap();
            l["command_buffers"]
                .as_array()
                .unwrap()
                .iter()
                .map(move |c| (n, c.as_str().unwrap().to_string()))
                .collect::<Vec<_>>()
        })
        .collect()
}

fn check(mesa: &Mesa, shim: &Path, chip: &str, inject: (&str, &str)) {
    let at = format!("{} {chip} {}={}", mesa.label(), inject.0, inject.1);
    let dir = pops_testkit::scratch(&format!("lost-{chip}-{}", inject.1.replace(':', "-")));
    let plain = run(mesa, shim, chip, &dir.join("plain"), inject, false);
    let with = run(mesa, shim, chip, &dir.join("layer"), inject, true);
    assert_eq!(plain.code, Some(0), "{at}: {}", plain.stderr);
    assert_eq!(with.code, plain.code, "{at}: {}", with.stderr);
    assert_eq!(seen(&with), seen(&plain), "{at}: the application's results");

    let failed: Vec<u64> = with
        .lines
        .iter()
        .filter(|l| l["result"] == "ERROR_DEVICE_LOST")
        .map(|l| l["submission"].as_u64().unwrap())
        .collect();
    assert_eq!(
        failed.len(),
        1,
        "{at}: RADV reports the loss once: {:?}",
        with.lines
    );
    let k = failed[0];
    let lost: Vec<&Value> = with
        .report
        .iter()
        .filter(|r| r["kind"] == "device_lost")
        .collect();
    assert_eq!(lost.len(), 1, "{at}: one device_lost line");
    let l = lost[0];
    assert_eq!(l["call"], "vkQueueSubmit", "{at}");
    assert_eq!(l["queue"], with.lines[0]["queue"], "{at}");
    assert_eq!(l["chip"], chip, "{at}");
    // Submission 1 is waited for: just before; 2..k-1 are in flight; k returned the loss.
    assert_eq!(
        pairs(&l["at_loss"]),
        expected(&with.lines, |n, _| n == k),
        "{at}: at the loss"
    );
    assert_eq!(
        pairs(&l["in_flight"]),
        expected(&with.lines, |n, _| n > 1 && n < k),
        "{at}: in flight"
    );
    assert_eq!(
        pairs(&l["recent"]),
        expected(&with.lines, |n, _| n == 1 && k > 1),
        "{at}: just before"
    );
    assert!(
        with.stderr.contains("device lost (vkQueueSubmit on queue"),
        "{at}: the log says it: {}",
        with.stderr
    );
    // Each listed draw is its draw record, with the fields RADV submitted for it.
    let level = pm4::Family::parse(chip).unwrap().gfx_level();
    // RADV 26 runs the secondary through an IB the shim does not record: that submission's
    // draws cannot be compared (RADV 25 copies secondaries inline with `noibs`).
    let recording = pops_tests::submitted::draws_but_chained(&dir.join("layer"), level);
    let secondary = with
        .lines
        .iter()
        .filter(|l| l["secondary"] == true)
        .filter_map(|l| l["submission"].as_u64())
        .collect::<Vec<_>>();
    assert!(
        recording.chained.iter().all(|n| secondary.contains(n)),
        "{at}: only the secondary's submissions chain an IB: {:?} of {secondary:?}",
        recording.chained
    );
    if mesa.major() == Some(25) {
        assert!(
            recording.chained.is_empty(),
            "{at}: noibs inlines secondaries"
        );
    }
    let submitted = recording.draws;
    let draw_records: Vec<&Value> = with.report.iter().filter(|r| r["kind"] == "draw").collect();
    for list in ["in_flight", "at_loss", "recent"] {
        for d in l[list].as_array().unwrap() {
            let rec = draw_records
                .iter()
                .find(|r| r["id"] == d["record"])
                .unwrap_or_else(|| panic!("{at}: {list} entry names no draw record: {d}"));
            for f in [
                "handle",
                "stage_hash",
                "interlock",
                "samples",
                "chip",
                "registers",
                "diagnostics",
            ] {
                assert_eq!(d[f], rec[f], "{at}: {list}.{f}");
            }
            // The record adds up every command buffer recorded with its object and state; the
            // listed draws are those of the command buffer submitted.
            assert!(
                d["draws"].as_u64().unwrap() <= rec["draws"].as_u64().unwrap(),
                "{at}: {list}.draws {d} of {rec}"
            );
            let n = d["submission"].as_u64().unwrap();
            if n == k || recording.chained.contains(&n) {
                continue; // refused by the kernel, or chained: nothing of it can be read
            }
            let typed: pops_report::Record =
                serde_json::from_value((*rec).clone()).expect("a report record");
            let ok = submitted
                .iter()
                .filter(|s| s.submission == n && s.pops())
                .any(|s| pops_tests::submitted::agrees(&typed, s, level).is_ok());
            assert!(
                ok,
                "{at}: {list} submission {n}: no POPS draw RADV submitted has the record's fields"
            );
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_device_loss_names_the_interlocked_draws_in_flight_at_the_loss_and_just_before() {
    if !Path::new(radv_shim::RADV).is_file() {
        return pops_testkit::missing("RADV not installed");
    }
    let Some(shim) = pops_testkit::shim::library_or_skip() else {
        return;
    };
    // Where the loss shows: RADV meets it at the submission after a reset, or at the
    // submission the kernel refuses; positions cover a plain submission (4), the secondary's
    // primary (3), the first submission and resubmissions.
    let injections = [
        ("AMDGPU_ORACLE_RESET", "1:guilty"),
        ("AMDGPU_ORACLE_RESET", "3:guilty"),
        ("AMDGPU_ORACLE_RESET", "5:guilty"),
        ("AMDGPU_ORACLE_FAIL", "cs:ECANCELED:1"),
        ("AMDGPU_ORACLE_FAIL", "cs:ENODATA:3"),
        ("AMDGPU_ORACLE_FAIL", "cs:ETIME:4"),
        ("AMDGPU_ORACLE_FAIL", "cs:ECANCELED:7"),
    ];
    for mesa in pops_testkit::mesa::all_or_skip() {
        std::thread::scope(|s| {
            for chip in ["navi31", "vega10"] {
                let (shim, mesa) = (&shim, &mesa);
                s.spawn(move || {
                    for inject in injections {
                        check(mesa, shim, chip, inject);
                    }
                    innocent(mesa, shim, chip);
                });
            }
        });
    }
}

/// A reset that blames another process: RADV 25.0 does not ask the kernel about it (it has no
/// device status check), so the application sees no loss, and neither does the layer.
fn innocent(mesa: &Mesa, shim: &Path, chip: &str) {
    let inject = ("AMDGPU_ORACLE_RESET", "3:innocent");
    let dir = pops_testkit::scratch(&format!("lost-{chip}-innocent"));
    let plain = run(mesa, shim, chip, &dir.join("plain"), inject, false);
    let with = run(mesa, shim, chip, &dir.join("layer"), inject, true);
    assert_eq!(with.code, Some(0), "{chip}: {}", with.stderr);
    assert_eq!(seen(&with), seen(&plain), "{chip}");
    assert!(
        with.lines
            .iter()
            .all(|l| l["result"] != "ERROR_DEVICE_LOST" && l["lost"] != true),
        "{chip}: {:?}",
        with.lines
    );
    assert!(
        with.report.iter().all(|r| r["kind"] != "device_lost"),
        "{chip}"
    );
    assert!(with.report.iter().any(|r| r["kind"] == "draw"), "{chip}");
    std::fs::remove_dir_all(&dir).unwrap();
}
