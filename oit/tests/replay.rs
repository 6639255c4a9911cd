//! Captured pipelines replayed under the layer, as driver developers replay fossil-db archives:
//! pops-oit's matrix captured with Valve's Fossilize layer on RADV over the amdgpu shim, then
//! `fossilize-replay` of the archive under `pops run --verify-isa`, on both Mesas. The replayer
//! chains every feature structure it knows with pipelineExecutableInfo off (without
//! `--enable-pipeline-stats`): the layer turns the feature on below it, so every interlocked
//! pipeline is verified; and where verify_isa cannot read a device's code, every interlocked
//! record says `isa-not-verified` and why — never a record without a verdict.

use std::path::{Path, PathBuf};
use std::process::Output;

const RADV: &str = "/usr/share/vulkan/icd.d/radeon_icd.json";

/// pops-oit's matrix, small: what every capture and run here draws.
const SMALL_MATRIX: [&str; 7] = [
    "--matrix",
    "--width",
    "32",
    "--height",
    "16",
    "--triangles",
    "10",
];

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The Fossilize build the test command makes (`POPS_FOSSILIZE`, else `target/fossilize/bin`).
fn fossilize() -> Option<PathBuf> {
    let dir = std::env::var_os("POPS_FOSSILIZE")
        .map(PathBuf::from)
        .unwrap_or_else(|| pops_testkit::mesa::workspace().join("target/fossilize/bin"));
    if dir.join("fossilize-replay").is_file() {
        Some(dir)
    } else {
        pops_testkit::missing(
            "Fossilize is not built (scripts/test-all.sh builds ../shared/tools/fossilize)",
        );
        None
    }
}

fn pops() -> Option<PathBuf> {
    let profile = Path::new(env!("CARGO_BIN_EXE_pops-oit")).parent()?;
    match pops_testkit::built::pops_and_layer(profile) {
        Ok(p) => Some(p),
        Err(e) => {
            pops_testkit::missing(format!("pops and the layer are needed: {e}"));
            None
        }
    }
}

/// pops-oit's matrix (with `extra` options) captured by the Fossilize layer on the shim as navi31
/// under `mesa`'s loader (an archive records its API version): the archive written in `dir`.
fn capture(
    mesa: &pops_testkit::mesa::Mesa,
    shim: &Path,
    foz: &Path,
    dir: &Path,
    extra: &[&str],
) -> PathBuf {
    let o = pops_testkit::shim::on(
        mesa.command(env!("CARGO_BIN_EXE_pops-oit")),
        shim,
        "navi31",
        &dir.join("capture-shim"),
    )
    .args(SMALL_MATRIX)
    .args(extra)
    .env("VK_ADD_LAYER_PATH", foz)
    .env("VK_INSTANCE_LAYERS", "VK_LAYER_fossilize")
    .env("FOSSILIZE_DUMP_PATH", dir.join("capture"))
    .env("FOSSILIZE_DUMP_SYNC", "1")
    .env("VK_DRIVER_FILES", RADV)
    .env_remove("VK_ICD_FILENAMES")
    .env_remove("RADV_FORCE_FAMILY")
    .output()
    .expect("pops-oit runs");
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "foz"))
        .unwrap_or_else(|| panic!("{}: no archive: {}", mesa.label(), text(&o)))
}

/// The hashes Fossilize's own lister gives for `tag` (4: shader modules, 6: graphics
/// pipelines) in `archive`.
fn fossilize_list(foz: &Path, archive: &Path, tag: u32) -> std::collections::BTreeSet<String> {
    let o = std::process::Command::new(foz.join("fossilize-list"))
        .args(["--tag", &tag.to_string()])
        .arg(archive)
        .output()
        .expect("fossilize-list runs");
    assert!(o.status.success(), "{}", text(&o));
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

/// pops-oit's modes that create pipelines (shader objects are never captured): monolithic
/// pipelines, dynamic blending, pipelines linked from libraries.
const PIPELINE_MODES: [&[&str]; 3] = [&[], &["--dynamic"], &["--libraries"]];

/// The `isa-*` codes of each interlocked pipeline record, each record's sorted, the records
/// sorted.
fn sorted_isa(records: Vec<Vec<String>>) -> Vec<Vec<String>> {
    let mut v: Vec<Vec<String>> = records
        .into_iter()
        .map(|mut c| {
            c.retain(|c| c.starts_with("isa-"));
            c.sort();
            c.dedup();
            c
        })
        .collect();
    v.sort();
    v
}

/// Each interlocked pipeline record's fragment module (as the archive names it) with its
/// `isa-*` codes, distinct: what a replay and a live run of the same pipelines must both give
/// (an archive holds each distinct pipeline once; an application may create one twice).
fn verdicts_by_module(report: &Path) -> std::collections::BTreeSet<(String, Vec<String>)> {
    let text = std::fs::read_to_string(report).unwrap_or_default();
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["kind"] == "pipeline" && v["interlock"] != "none")
        .map(|v| {
            let codes = v["diagnostics"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|d| d["code"].as_str().map(str::to_string))
                .collect();
            let module = v["fossilize_module"].as_str().unwrap_or("none").to_string();
            (module, sorted_isa(vec![codes]).remove(0))
        })
        .collect()
}

/// What runs under `pops run --verify-isa` here: pops, the shim, the Mesa.
struct Verified<'a> {
    mesa: &'a pops_testkit::mesa::Mesa,
    pops: &'a Path,
    shim: &'a Path,
}

impl Verified<'_> {
    /// `program args` run under `pops run --amdgpu-shim --chip C --verify-isa`, its report in
    /// `report`.
    fn run(
        &self,
        chip: &str,
        report: &Path,
        program: impl AsRef<std::ffi::OsStr>,
        args: &[&std::ffi::OsStr],
    ) -> Output {
        self.mesa
            .command(self.pops)
            .arg("run")
            .arg("--amdgpu-shim")
            .arg(self.shim)
            .args(["--chip", chip, "--verify-isa", "--report"])
            .arg(report)
            .arg("--")
            .arg(program)
            .args(args)
            .env("VK_POPS_INTERLOCK_VERIFY_ISA_CACHE", "off")
            .env_remove("VK_ICD_FILENAMES")
            .env_remove("RADV_FORCE_FAMILY")
            .env("VK_LOADER_LAYERS_DISABLE", "~implicit~")
            .output()
            .expect("pops runs")
    }

    /// `archive` replayed as `chip`: its report's verdicts by module, and what pops printed.
    fn replay(
        &self,
        foz: &Path,
        archive: &Path,
        chip: &str,
        dir: &Path,
    ) -> (std::collections::BTreeSet<(String, Vec<String>)>, String) {
        let report = dir.join(format!("replay-{chip}.jsonl"));
        let o = self.run(
            chip,
            &report,
            foz.join("fossilize-replay"),
            &[archive.as_os_str()],
        );
        (verdicts_by_module(&report), text(&o))
    }

    /// The verdicts of pops-oit's matrix (with `extra`) run live as `chip` (what a
    /// replay must give).
    fn live(
        &self,
        chip: &str,
        extra: &[&str],
        dir: &Path,
    ) -> std::collections::BTreeSet<(String, Vec<String>)> {
        let report = dir.join(format!("live-{chip}.jsonl"));
        let args: Vec<&std::ffi::OsStr> = SMALL_MATRIX
            .iter()
            .chain(extra)
            .map(std::ffi::OsStr::new)
            .collect();
        let o = self.run(chip, &report, env!("CARGO_BIN_EXE_pops-oit"), &args);
        let codes = verdicts_by_module(&report);
        assert!(!codes.is_empty(), "{chip} {extra:?}: {}", text(&o));
        codes
    }
}

/// The interlocked pipeline records of a report, with their diagnostic codes.
fn interlocked_codes(report: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(report).unwrap_or_default();
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["kind"] == "pipeline" && v["interlock"] != "none")
        .map(|v| {
            v["diagnostics"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|d| d["code"].as_str().map(str::to_string))
                .collect()
        })
        .collect()
}

/// Captures of pops-oit in each mode that creates pipelines, replayed
/// by fossilize-replay without `--enable-pipeline-stats` under `pops run --verify-isa`, give
/// each interlocked pipeline the live run's verdicts, on both Mesas, as every POPS chip the shim
/// offers; the monolithic matrix is verified clean everywhere.
#[test]
fn a_replayed_capture_has_every_interlocked_pipeline_verified_on_both_mesas() {
    let (Some(foz), Some(pops)) = (fossilize(), pops()) else {
        return;
    };
    let Some(shim) = pops_testkit::shim::library_or_skip() else {
        return;
    };
    for mesa in pops_testkit::mesa::all_or_skip() {
        let dir = pops_testkit::scratch("replay");
        // Every POPS chip the shim offers (GFX12 with today's Mesa only).
        let chips = pops_testkit::shim::chips_for(&mesa);
        // The capture, on the shim (nothing runs: pipelines are created), under this Mesa's
        // loader (an archive records its API version).
        let archive = capture(&mesa, &shim, &foz, &dir, &[]);
        let run = Verified {
            mesa: &mesa,
            pops: &pops,
            shim: &shim,
        };
        for mode in PIPELINE_MODES.into_iter().filter(|m| !m.is_empty()) {
            let sub = dir.join(mode[0].trim_start_matches('-'));
            let _ = std::fs::create_dir_all(&sub);
            let archive = capture(&mesa, &shim, &foz, &sub, mode);
            for chip in &chips {
                let at = format!("{} {chip} {mode:?}", mesa.label());
                let (replayed, out) = run.replay(&foz, &archive, chip, &sub);
                assert!(!replayed.is_empty(), "{at}: {out}");
                assert_eq!(
                    replayed,
                    run.live(chip, mode, &sub),
                    "{at}: the replay's verdicts are not the live run's"
                );
            }
        }
        for chip in &chips {
            let at = format!("{} {chip}", mesa.label());
            let live = run.live(chip, &[], &dir);
            let report = dir.join(format!("replay-{chip}.jsonl"));
            let (replayed, out) = run.replay(&foz, &archive, chip, &dir);
            assert!(
                out.contains("graphics pipelines:         22"),
                "{at}: {out}"
            );
            let records = interlocked_codes(&report);
            assert_eq!(records.len(), 12, "{at}: {out}");
            // Each record names its module as the archive does.
            let modules = fossilize_list(&foz, &archive, 4);
            let named = std::fs::read_to_string(&report).unwrap_or_default();
            let named: Vec<String> = named
                .lines()
                .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
                .filter(|v| v["kind"] == "pipeline" && v["interlock"] != "none")
                .map(|v| v["fossilize_module"].as_str().unwrap_or("none").to_string())
                .collect();
            assert!(
                named.iter().all(|m| modules.contains(m)),
                "{at}: {named:?} not all among {modules:?}"
            );
            for codes in &records {
                assert!(
                    codes.iter().any(|c| c == "isa-verified"),
                    "{at}: {codes:?}: {out}"
                );
            }
            assert_eq!(replayed, live, "{at}: not the live run's verdicts");
            assert!(
                out.contains(": 12 interlocked pipeline(s), librar(ies) and shader object(s): 12 verified clean"),
                "{at}: {out}"
            );
        }
        replay_on_the_machines_device(&mesa, &pops, &foz, &archive, &dir);
        children_of_the_replayer_land_in_one_report(&run, &foz, &archive, &dir);
    }
}

/// The replayer's child processes (`--master-process`, two of them) all write
/// the one report: every interlocked pipeline of the archive, each verified.
fn children_of_the_replayer_land_in_one_report(
    run: &Verified<'_>,
    foz: &Path,
    archive: &Path,
    dir: &Path,
) {
    let report = dir.join("children.jsonl");
    let o = run.run(
        "navi31",
        &report,
        foz.join("fossilize-replay"),
        &[
            std::ffi::OsStr::new("--master-process"),
            std::ffi::OsStr::new("--num-threads"),
            std::ffi::OsStr::new("2"),
            archive.as_os_str(),
        ],
    );
    let records = interlocked_codes(&report);
    assert_eq!(records.len(), 12, "{}", text(&o));
    assert!(
        records
            .iter()
            .all(|c| c.iter().any(|c| c == "isa-verified")),
        "{records:?}"
    );
}

/// `pops replay --gpu`: the archive replayed on the machine's own device, here lavapipe (no
/// AMD chip): today's, with interlock, gives every interlocked pipeline "not verified" and why,
/// exit 2; Debian 12's has no interlock: a clear error, exit 2, nothing replayed.
fn replay_on_the_machines_device(
    mesa: &pops_testkit::mesa::Mesa,
    pops: &Path,
    foz: &Path,
    archive: &Path,
    dir: &Path,
) {
    let csv = dir.join("gpu.csv");
    let o = mesa
        .command(pops)
        .args(["replay", "--gpu", "--replayer"])
        .arg(foz.join("fossilize-replay"))
        .arg("--csv")
        .arg(&csv)
        .arg("--reports")
        .arg(dir.join("gpu"))
        .arg(archive)
        .env("VK_DRIVER_FILES", "/usr/share/vulkan/icd.d/lvp_icd.json")
        .env_remove("VK_ICD_FILENAMES")
        .env("VK_LOADER_LAYERS_DISABLE", "~implicit~")
        .output()
        .expect("pops replay runs");
    let out = text(&o);
    assert_eq!(o.status.code(), Some(2), "{}: {out}", mesa.label());
    if mesa.major() < Some(26) {
        assert!(
            out.contains("--gpu: this machine has no Vulkan device with fragment shader interlock"),
            "{out}"
        );
        return;
    }
    assert!(
        out.contains(" as gpu with ")
            && out.contains(": 12 interlocked pipeline(s): 0 verified clean, 12 not verified (the device is no AMD chip pops models"),
        "{out}"
    );
    let rows = std::fs::read_to_string(&csv).unwrap_or_default();
    assert_eq!(
        rows.lines()
            .filter(|l| l.contains(",not verified,"))
            .count(),
        12,
        "{rows}"
    );
}

/// Where verify_isa is asked and the device's code cannot be read (today's
/// lavapipe: no AMD chip, no pipeline executables), every interlocked record says
/// `isa-not-verified` and why.
#[test]
fn verify_isa_on_a_device_pops_cannot_read_leaves_no_record_without_a_verdict() {
    let Some(pops) = pops() else {
        return;
    };
    for mesa in pops_testkit::mesa::all_or_skip() {
        if mesa.major() < Some(26) {
            continue; // Debian 12's lavapipe has no interlock.
        }
        let report = pops_testkit::scratch("unreadable").join("report.jsonl");
        let o = mesa
            .command(&pops)
            .args(["run", "--verify-isa", "--report"])
            .arg(&report)
            .arg("--")
            .arg(env!("CARGO_BIN_EXE_pops-oit"))
            .args(SMALL_MATRIX)
            .env("VK_DRIVER_FILES", "/usr/share/vulkan/icd.d/lvp_icd.json")
            .env_remove("VK_ICD_FILENAMES")
            .output()
            .expect("pops runs");
        let out = text(&o);
        let records = interlocked_codes(&report);
        assert_eq!(records.len(), 12, "{out}");
        for codes in &records {
            assert!(codes.iter().any(|c| c == "isa-not-verified"), "{codes:?}");
        }
        assert!(
            out.contains(
                "12 not verified (the device is no AMD chip pops models: its code is not verified)"
            ),
            "{out}"
        );
    }
}

/// `pops replay` as a driver developer runs it, on one capture (pops-oit linked from pipeline
/// libraries, captured on Debian 12's Mesa), as navi21, navi31 and gfx1150 over the shim:
/// Debian 12's Mesa replays clean (exit 0); today's carries the epilog store gap on navi31 and
/// gfx1150 (GFX11, GFX11.5) only, named as the known defect (exit 1); and `--compare` of the two
/// CSVs lists exactly those pipelines as new findings; GFX12 the same
/// on RADV's null devices.
#[test]
fn pops_replay_and_its_comparison_find_the_epilog_gap_as_new_in_todays_mesa() {
    let (Some(foz), Some(pops)) = (fossilize(), pops()) else {
        return;
    };
    let Some(shim) = pops_testkit::shim::library_or_skip() else {
        return;
    };
    let mesas = pops_testkit::mesa::all_or_skip();
    if mesas.len() < 2 {
        return;
    }
    let dir = pops_testkit::scratch("pops-replay");
    let archive = capture(&mesas[0], &shim, &foz, &dir, &["--libraries"]);
    let mut csvs = Vec::new();
    for (k, mesa) in mesas.iter().enumerate() {
        let csv = dir.join(format!("mesa{k}.csv"));
        let o = mesa
            .command(&pops)
            .arg("replay")
            .arg("--amdgpu-shim")
            .arg(&shim)
            .args(["--chip", "navi21", "--chip", "navi31", "--chip", "gfx1150"])
            .arg("--replayer")
            .arg(foz.join("fossilize-replay"))
            .arg("--csv")
            .arg(&csv)
            .arg("--reports")
            .arg(dir.join(format!("reports{k}")))
            .arg(&archive)
            // The driver named by its manifest, as a driver developer names a build.
            .args(["--mesa", mesa.radv_icd()])
            .env("VK_POPS_INTERLOCK_VERIFY_ISA_CACHE", "off")
            .env_remove("VK_ICD_FILENAMES")
            .env_remove("RADV_FORCE_FAMILY")
            .env("VK_LOADER_LAYERS_DISABLE", "~implicit~")
            .output()
            .expect("pops replay runs");
        let out = text(&o);
        let gap = mesa.major() >= Some(26);
        // Every row names its own pipeline of the archive, as Fossilize's lister lists them.
        let listed = fossilize_list(&foz, &archive, 6);
        let rows = std::fs::read_to_string(&csv).unwrap_or_default();
        for chip in ["navi21", "navi31", "gfx1150"] {
            let named: std::collections::BTreeSet<&str> = rows
                .lines()
                .filter(|l| l.split(',').nth(3) == Some(chip))
                .filter_map(|l| l.split(',').nth(1))
                .collect();
            assert_eq!(named.len(), 12, "{} {chip}: {rows}", mesa.label());
            assert!(
                named.iter().all(|p| listed.contains(*p)),
                "{} {chip}: {named:?} not all among {listed:?}",
                mesa.label()
            );
        }
        assert_eq!(o.status.code(), Some(gap as i32), "{}: {out}", mesa.label());
        assert!(
            out.contains("as navi21 with radv")
                && out.contains(": 12 interlocked pipeline(s): 12 verified clean"),
            "{}: {out}",
            mesa.label()
        );
        let navi31 = if gap {
            ": 12 interlocked pipeline(s): 0 verified clean, 12 with isa-ordered-section-open-at-epilog"
        } else {
            ": 12 interlocked pipeline(s): 12 verified clean"
        };
        // GFX11 and GFX11.5 alike (the known defect's chips).
        for chip in ["navi31", "gfx1150"] {
            assert!(
                out.lines()
                    .any(|l| l.contains(&format!(" as {chip} with radv")) && l.ends_with(navi31)),
                "{} {chip}: {out}",
                mesa.label()
            );
        }
        assert_eq!(
            out.contains("driver defects found: aco-epilog-store-gap"),
            gap,
            "{}: {out}",
            mesa.label()
        );
        csvs.push(csv);
    }
    the_current_mesa_named_from_the_host_replays_as_inside_it(
        &mesas[1], &pops, &foz, &shim, &archive, &csvs[1],
    );
    let o = std::process::Command::new(&pops)
        .args(["replay", "--compare"])
        .args(&csvs)
        .output()
        .expect("pops replay --compare runs");
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    let new: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("NEW FINDING"))
        .collect();
    assert!(!new.is_empty(), "{out}");
    assert!(
        new.iter().all(|l| (l.contains(" as navi31: verified")
            || l.contains(" as gfx1150: verified"))
            && l.ends_with(" isa-ordered-section-open-at-epilog")),
        "{out}"
    );
    // Every pipeline of the archive on both GFX11 chips: 12 each.
    assert_eq!(new.len(), 24, "{out}");
    assert!(out.contains(", 0 otherwise changed, "), "{out}");
    gfx12_on_null_devices_lists_only_the_gap_as_new(&mesas, &pops, &foz, &archive, &dir);
}

/// GFX12 compared the same way on RADV's null devices (Debian 12's RADV has no GFX12 on the
/// shim; its null hardware and today's no-op drm-shim have): Debian 12's code verified clean,
/// today's with the epilog store gap, every pipeline of the archive new, nothing else changed.
fn gfx12_on_null_devices_lists_only_the_gap_as_new(
    mesas: &[pops_testkit::mesa::Mesa],
    pops: &Path,
    foz: &Path,
    archive: &Path,
    dir: &Path,
) {
    let mut csvs = Vec::new();
    for (k, mesa) in mesas.iter().enumerate() {
        let csv = dir.join(format!("gfx12-mesa{k}.csv"));
        let o = mesa
            .command(pops)
            .args(["replay", "--chip", "gfx1201", "--replayer"])
            .arg(foz.join("fossilize-replay"))
            .arg("--csv")
            .arg(&csv)
            .arg("--reports")
            .arg(dir.join(format!("gfx12-reports{k}")))
            .arg(archive)
            .env("VK_POPS_INTERLOCK_VERIFY_ISA_CACHE", "off")
            .env_remove("VK_ICD_FILENAMES")
            .env_remove("RADV_FORCE_FAMILY")
            .env("VK_LOADER_LAYERS_DISABLE", "~implicit~")
            .output()
            .expect("pops replay runs");
        let gap = mesa.major() >= Some(26);
        assert_eq!(
            o.status.code(),
            Some(gap as i32),
            "{}: {}",
            mesa.label(),
            text(&o)
        );
        csvs.push(csv);
    }
    let o = std::process::Command::new(pops)
        .args(["replay", "--compare"])
        .args(&csvs)
        .output()
        .expect("pops replay --compare runs");
    let out = text(&o);
    let new: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("NEW FINDING"))
        .collect();
    assert_eq!(new.len(), 12, "{out}");
    assert!(
        new.iter().all(|l| l.contains(" as gfx1201: verified")
            && l.ends_with(" isa-ordered-section-open-at-epilog")),
        "{out}"
    );
    assert!(out.contains(", 0 otherwise changed, "), "{out}");
}

/// `pops replay --mesa current` run on the host replays inside today's Mesa root: its navi31 rows
/// are those of `pops replay` run inside the root (`inside`, that run's CSV).
fn the_current_mesa_named_from_the_host_replays_as_inside_it(
    current: &pops_testkit::mesa::Mesa,
    pops: &Path,
    foz: &Path,
    shim: &Path,
    archive: &Path,
    inside: &Path,
) {
    let pops_testkit::mesa::Mesa::Current { root } = current else {
        panic!("the second Mesa is today's");
    };
    let dir = pops_testkit::scratch("pops-replay-current");
    let csv = dir.join("current.csv");
    let o = std::process::Command::new(pops)
        .arg("replay")
        .arg("--amdgpu-shim")
        .arg(shim)
        .args(["--chip", "navi31", "--mesa", "current", "--replayer"])
        .arg(foz.join("fossilize-replay"))
        .arg("--csv")
        .arg(&csv)
        .arg("--reports")
        .arg(dir.join("reports"))
        .arg(archive)
        .env("POPS_MESA_CURRENT", root)
        .env("POPS_MESA_CURRENT_RUNNER", pops_testkit::mesa::run_sh())
        .env("VK_POPS_INTERLOCK_VERIFY_ISA_CACHE", "off")
        .env_remove("VK_ICD_FILENAMES")
        .env("VK_LOADER_LAYERS_DISABLE", "~implicit~")
        .output()
        .expect("pops replay runs");
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    let rows = |p: &Path| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_to_string(p)
            .unwrap_or_default()
            .lines()
            .filter(|l| l.split(',').nth(3) == Some("navi31"))
            .map(|l| l.split(',').skip(1).collect::<Vec<_>>().join(","))
            .collect();
        v.sort();
        v
    };
    let from_host = rows(&csv);
    assert_eq!(from_host.len(), 12, "{out}");
    assert!(from_host[0].contains("radv (Mesa 26."), "{from_host:?}");
    assert_eq!(from_host, rows(inside), "{out}");
}
