//! The whole stack on the amdgpu kernel interface of the test command's shim
//! (`shared/tools/amdgpu-shim`): stock RADV with its own amdgpu winsys (not null hardware) runs
//! `pops-oit --matrix` with `VK_LAYER_POPS_interlock`, every combination submitted through libdrm
//! and the kernel's checks, on every POPS chip of the shim. Shaders do not run there, so pops-oit
//! says so as its own verdict; the layer identifies the chip from the device itself, and the POPS
//! fields of every draw record it writes are the ones RADV really wrote in the IBs it submitted —
//! a second check of the draw records, through the real submission path.

use serde_json::Value;
use std::path::Path;

use pops_testkit::mesa::Mesa;
use pops_tests::radv_shim::RADV;

fn skip(reason: &str) {
    pops_testkit::missing(reason);
}

fn check_chip(mesa: &Mesa, shim: &Path, chip: &str) {
    let at = format!("{} {chip}", mesa.label());
    let dir = pops_testkit::scratch(&format!("oit-shim-{chip}"));
    let report = dir.join("report.jsonl");
    let out = pops_tests::radv_shim::command(
        mesa,
        shim,
        env!("CARGO_BIN_EXE_pops-oit"),
        chip,
        &dir,
        Some(&report),
    )
    .args([
        "--matrix",
        "--width",
        "160",
        "--height",
        "96",
        "--triangles",
        "40",
    ])
    .output()
    .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    // Every combination submitted and completed, none with shader output: pops-oit's own
    // verdict, not sixteen image failures.
    assert_eq!(out.status.code(), Some(3), "{at}: {text}");
    assert!(
        text.contains("summary: 0 pass, 0 fail, 0 error, 0 unsupported, 0 created only, 16 submitted without shader output"),
        "{at}: {text}"
    );
    let events = pops_testkit::shim::events(&dir);
    assert!(events.is_empty(), "{at}: {events:?}");

    let family = pm4::Family::parse(chip).unwrap();
    let records = pops_tests::records(&report);
    let draws: Vec<&pops_report::Record> = records
        .iter()
        .filter(|r| r.kind == pops_report::Kind::Draw)
        .collect();
    assert!(!draws.is_empty(), "{at}: no draw record");
    for r in &records {
        assert_eq!(
            r.chip.as_deref(),
            Some(family.name()),
            "{at}: the layer's chip: {r:?}"
        );
    }
    // The draws RADV submitted with POPS on, and their register fields.
    let submitted: Vec<_> = pops_tests::submitted::draws(&dir, family.gfx_level())
        .into_iter()
        .filter(|d| d.pops())
        .collect();
    // One submission per combination and frame: every recorded draw ran once.
    let recorded: u64 = draws.iter().map(|r| r.draws.unwrap()).sum();
    assert_eq!(recorded, submitted.len() as u64, "{chip}");
    let mut compared = 0;
    for r in &draws {
        let agreeing = submitted
            .iter()
            .filter_map(|d| pops_tests::submitted::agrees(r, d, family.gfx_level()).ok());
        let n = agreeing.max().unwrap_or_else(|| {
            let why = submitted
                .iter()
                .map(|d| pops_tests::submitted::agrees(r, d, family.gfx_level()).unwrap_err());
            panic!(
                "{at}: no submitted draw has the record's fields: {:?}\n{r:?}",
                why.collect::<Vec<_>>()
            )
        });
        compared += n;
    }
    for d in &submitted {
        assert!(
            draws
                .iter()
                .any(|r| pops_tests::submitted::agrees(r, d, family.gfx_level()).is_ok()),
            "{at}: submission {}'s draw has no record",
            d.submission
        );
    }
    assert!(
        compared > 8 * draws.len(),
        "{at}: {compared} fields compared"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn radv_on_the_shim_submits_what_the_draw_records_say_on_every_pops_chip() {
    if !Path::new(RADV).is_file() {
        return skip(&format!("RADV ({RADV}) not installed"));
    }
    let Some(shim) = pops_testkit::shim::library_or_skip() else {
        return;
    };
    for mesa in pops_testkit::mesa::all_or_skip() {
        let chips = pops_testkit::shim::chips_for(&mesa);
        std::thread::scope(|s| {
            for chunk in chips.chunks(chips.len().div_ceil(2)) {
                let (shim, mesa) = (&shim, &mesa);
                s.spawn(move || {
                    for chip in chunk {
                        check_chip(mesa, shim, chip);
                    }
                });
            }
        });
    }
}

/// pops-oit on RADV over the shim, with or without the layer: exit status, standard output with
/// its CPU times masked (they differ between runs), the report's lines and the shim's dir.
fn oit_run(
    mesa: &Mesa,
    shim: &Path,
    chip: &str,
    dir: &Path,
    args: &[&str],
    inject: (&str, &str),
    layer: bool,
) -> (Option<i32>, String, Vec<Value>) {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    let report = dir.join("report.jsonl");
    let out = pops_tests::radv_shim::command(
        mesa,
        shim,
        env!("CARGO_BIN_EXE_pops-oit"),
        chip,
        dir,
        layer.then_some(report.as_path()),
    )
    .args(["--width", "64", "--height", "32", "--triangles", "10"])
    .args(args)
    .env(inject.0, inject.1)
    .output()
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let masked: String = stdout
        .split_whitespace()
        .map(|w| {
            if w.ends_with("ms") && w[..w.len() - 2].parse::<f64>().is_ok() {
                "#ms"
            } else {
                w
            }
        })
        .collect::<Vec<_>>()
        .join(" ");
    let lines = if layer {
        pops_tests::read_report(&report)
    } else {
        Vec::new()
    };
    (out.status.code(), masked, lines)
}

/// A GPU reset or a lost context during pops-oit's matrix: the application's output and exit
/// status are the same with the layer; the device-lost line names the interlocked draws of the
/// submission RADV was refused (the shim's failed submission), and those just before it with
/// the fields RADV submitted for them; pops-oit waits for every submission, so nothing is in
/// flight. A run whose algorithm has no interlock gets the line too, saying "no interlocked
/// work".
#[test]
fn a_device_loss_during_the_matrix_names_its_draws_and_changes_nothing_else() {
    if !Path::new(RADV).is_file() {
        return skip(&format!("RADV ({RADV}) not installed"));
    }
    let Some(shim) = pops_testkit::shim::library_or_skip() else {
        return;
    };
    for mesa in pops_testkit::mesa::all_or_skip() {
        for chip in ["navi31", "vega10"] {
            for inject in [
                ("AMDGPU_ORACLE_RESET", "2:guilty"),
                ("AMDGPU_ORACLE_FAIL", "cs:ENODATA:5"),
                ("AMDGPU_ORACLE_FAIL", "cs:ETIME:11"),
            ] {
                let at = format!("{} {chip} {}={}", mesa.label(), inject.0, inject.1);
                let dir = pops_testkit::scratch(&format!("oit-lost-{chip}"));
                let plain = oit_run(&mesa, &shim, chip, &dir, &["--matrix"], inject, false);
                let (code, out, report) =
                    oit_run(&mesa, &shim, chip, &dir, &["--matrix"], inject, true);
                assert_eq!(
                    (code, &out),
                    (plain.0, &plain.1),
                    "{at}: the application's output"
                );
                assert_eq!(code, Some(1), "{at}: {out}");
                let lost: Vec<&Value> = report
                    .iter()
                    .filter(|r| r["kind"] == "device_lost")
                    .collect();
                assert_eq!(lost.len(), 1, "{at}");
                let l = lost[0];
                assert!(l["in_flight"].as_array().unwrap().is_empty(), "{at}: {l}");
                // The submission the kernel refused: the shim's failed one, first of its kind.
                let subs: Vec<Value> = std::fs::read_dir(&dir)
                    .unwrap()
                    .flatten()
                    .filter(|e| e.file_name().to_string_lossy().starts_with("submissions-"))
                    .flat_map(|e| {
                        std::fs::read_to_string(e.path())
                            .unwrap()
                            .lines()
                            .map(|x| serde_json::from_str::<Value>(x).unwrap())
                            .collect::<Vec<_>>()
                    })
                    .collect();
                let refused = subs
                    .iter()
                    .find(|s| s["result"] != 0)
                    .unwrap_or_else(|| panic!("{at}: no refused submission"))["submission"]
                    .as_u64()
                    .unwrap();
                let at_loss = l["at_loss"].as_array().unwrap();
                assert!(
                    !at_loss.is_empty(),
                    "{at}: the matrix's combinations are all interlocked up to the linked list"
                );
                for d in at_loss {
                    assert_eq!(d["submission"], refused, "{at}: {d}");
                }
                let level = pm4::Family::parse(chip).unwrap().gfx_level();
                let submitted = pops_tests::submitted::draws(&dir, level);
                let recent = l["recent"].as_array().unwrap();
                assert_eq!(recent.len() as u64, (refused - 1).min(8), "{at}: {l}");
                for d in recent {
                    let rec = report
                        .iter()
                        .find(|r| r["kind"] == "draw" && r["id"] == d["record"])
                        .unwrap_or_else(|| panic!("{at}: no draw record {d}"));
                    let n = d["submission"].as_u64().unwrap();
                    assert!(n < refused, "{at}: {d}");
                    let rec: pops_report::Record =
                        serde_json::from_value(rec.clone()).expect("a report record");
                    assert!(
                        submitted
                            .iter()
                            .filter(|s| s.submission == n && s.pops())
                            .any(|s| pops_tests::submitted::agrees(&rec, s, level).is_ok()),
                        "{at}: submission {n}"
                    );
                }
                std::fs::remove_dir_all(&dir).unwrap();
            }
            // No interlock anywhere: the line says so.
            let dir = pops_testkit::scratch(&format!("oit-lost-plain-{chip}"));
            let args = [
                "--algorithm",
                "linkedlist",
                "--aa",
                "msaa4",
                "--frames",
                "3",
            ];
            let inject = ("AMDGPU_ORACLE_RESET", "1:guilty");
            let plain = oit_run(&mesa, &shim, chip, &dir, &args, inject, false);
            let (code, out, report) = oit_run(&mesa, &shim, chip, &dir, &args, inject, true);
            assert_eq!((code, &out), (plain.0, &plain.1), "{chip}: {out}");
            let lost: Vec<&Value> = report
                .iter()
                .filter(|r| r["kind"] == "device_lost")
                .collect();
            assert_eq!(lost.len(), 1, "{chip}: {out}");
            for list in ["in_flight", "at_loss", "recent"] {
                assert!(
                    lost[0][list].as_array().unwrap().is_empty(),
                    "{chip}: {}",
                    lost[0]
                );
            }
            assert!(
                lost[0]["message"]
                    .as_str()
                    .unwrap()
                    .contains("no interlocked work"),
                "{chip}: {}",
                lost[0]
            );
            std::fs::remove_dir_all(&dir).unwrap();
        }
    }
}
