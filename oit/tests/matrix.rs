//! `pops-oit --matrix` where CI can run it: the linked-list algorithm renders on
//! lavapipe and is checked against the CPU reference; the interlock pipelines are created and
//! analysed on RADV null hardware through `pops run` and the layer.
//!
//! A missing driver, `pops` binary or layer build is reported as SKIPPED on stderr, and fails the
//! test when CI=true.
#![allow(clippy::too_many_lines)] // test code: each scenario reads top to bottom as one Vulkan sequence

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const LAVAPIPE: &str = "/usr/share/vulkan/icd.d/lvp_icd.json";
const RADV: &str = "/usr/share/vulkan/icd.d/radeon_icd.json";

fn skip(reason: &str) {
    pops_testkit::missing(reason);
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The table row of a combination: `name result …`.
fn row<'a>(out: &'a str, combo: &str) -> Option<&'a str> {
    out.lines()
        .find(|l| l.split_whitespace().next() == Some(combo))
}

/// A run writes an image only where asked: without `--output`, nothing lands in the directory
/// it runs in; with it, the image is written there.
#[test]
fn an_image_is_written_only_where_asked() {
    if !Path::new(LAVAPIPE).is_file() {
        return skip(&format!("lavapipe ({LAVAPIPE}) not installed"));
    }
    let dir = pops_testkit::scratch("oit-no-image");
    let run = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_pops-oit"))
            .args([
                "--algorithm",
                "linkedlist",
                "--width",
                "32",
                "--height",
                "32",
            ])
            .args(extra)
            .current_dir(&dir)
            .env("VK_DRIVER_FILES", LAVAPIPE)
            .env_remove("VK_ICD_FILENAMES")
            .env_remove("RADV_FORCE_FAMILY")
            .output()
            .expect("pops-oit runs")
    };
    let o = run(&[]);
    assert!(o.status.success(), "{}", text(&o));
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
    assert!(left.is_empty(), "written unasked: {left:?}");
    let o = run(&["--output", "asked.png"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(dir.join("asked.png").is_file());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn lavapipe_renders_linked_list_within_tolerance() {
    if !Path::new(LAVAPIPE).is_file() {
        return skip(&format!("lavapipe ({LAVAPIPE}) not installed"));
    }
    let o = Command::new(env!("CARGO_BIN_EXE_pops-oit"))
        .args([
            "--matrix",
            "--width",
            "96",
            "--height",
            "64",
            "--triangles",
            "400",
        ])
        .env("VK_DRIVER_FILES", LAVAPIPE)
        .env_remove("VK_ICD_FILENAMES")
        .env_remove("RADV_FORCE_FAMILY")
        .output()
        .expect("pops-oit runs");
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    assert!(
        out.contains("llvmpipe"),
        "the chosen device is printed: {out}"
    );
    for combo in ["linkedlist_noaa", "linkedlist_msaa4", "linkedlist_ssaa4"] {
        let r = row(&out, combo).unwrap_or_else(|| panic!("no row for {combo}: {out}"));
        assert!(r.contains("PASS"), "{r}");
    }
    // The scene must overflow the A-buffer somewhere, so the tail path is checked too.
    let r = row(&out, "linkedlist_noaa").unwrap_or_default();
    let tail: u64 = r
        .split_whitespace()
        .nth(4)
        .and_then(|t| t.parse().ok())
        .unwrap_or(0);
    assert!(tail > 0, "no pixel with a tail: {r}");
    // lavapipe has no interlock: reported, not failed.
    let r = row(&out, "interlock-pixel-ordered_noaa").unwrap_or_default();
    assert!(r.contains("unsupported"), "{r}");
}

/// Builds `pops` and the layer (cheap when up to date: `cargo test` does not put the layer's
/// cdylib in target/<profile>/) and returns `pops`, or what is missing.
/// The amdgpu shim's library and `pops` with the layer built, where RADV is installed too; else
/// a skip naming what is missing.
fn shim_and_tools() -> Option<(PathBuf, PathBuf)> {
    if !Path::new(RADV).is_file() {
        skip(&format!("RADV ({RADV}) not installed"));
        return None;
    }
    let shim = pops_testkit::shim::library_or_skip()?;
    match built_tools() {
        Ok(pops) => Some((shim, pops)),
        Err(e) => {
            skip(&format!("pops and the layer are needed: {e}"));
            None
        }
    }
}

fn built_tools() -> Result<PathBuf, String> {
    let dir = Path::new(env!("CARGO_BIN_EXE_pops-oit"))
        .parent()
        .ok_or("no target folder")?;
    pops_testkit::built::pops_and_layer(dir)
}

#[test]
fn radv_null_hardware_creates_interlock_pipelines_through_pops_run() {
    if !Path::new(RADV).is_file() {
        return skip(&format!("RADV ({RADV}) not installed"));
    }
    let pops = match built_tools() {
        Ok(p) => p,
        Err(e) => return skip(&format!("pops and the layer are needed: {e}")),
    };
    let report = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("null-matrix.jsonl");
    let o = Command::new(pops)
        .args(["run", "--chip", "navi31", "--report"])
        .arg(&report)
        .arg("--")
        .arg(env!("CARGO_BIN_EXE_pops-oit"))
        .args(["--matrix", "--width", "64", "--height", "48"])
        .env_remove("RADV_FORCE_FAMILY")
        .output()
        .expect("pops runs");
    let out = text(&o);
    if out.contains("interlock device:") {
        return skip(
            "this machine has a real interlock device; the null-hardware path is not taken",
        );
    }
    assert!(o.status.success(), "{out}");
    assert!(out.contains("NOTHING WAS RENDERED"), "{out}");
    for combo in [
        "interlock-pixel-ordered_msaa8",
        "interlock-sample-unordered_ssaa4",
    ] {
        let r = row(&out, combo).unwrap_or_else(|| panic!("no row for {combo}: {out}"));
        assert!(r.contains("created"), "{r}");
    }
    // One colour pipeline per interlock combination (4 + 4 + 2 + 2) uses interlock.
    assert!(
        out.contains("with fragment shader interlock:") && out.contains(" 12 with fragment"),
        "{out}"
    );
    assert!(out.contains("PRIMITIVE_ORDERED_PIXEL_SHADER=1"), "{out}");
    // Every line follows the report schema (schemas/report.schema.json).
    let lines = pops_tests::read_report(&report);
    assert!(lines.len() >= 12, "{lines:?}");
}

/// The main job without an interlock GPU: `pops run --amdgpu-shim` runs the matrix on stock
/// RADV over the amdgpu kernel-interface shim, shows each combination's draws with their sample
/// counts and POPS fields, and says for the chip that RADV programmed every draw record's
/// decided fields at the draws it submitted — on every POPS chip of the shim, with the Mesa of
/// the host (25.0.7) and today's (26.x), each result naming its Mesa.
#[test]
fn pops_run_on_the_amdgpu_shim_shows_each_combinations_draws_checked_against_radv() {
    let Some((shim, pops)) = shim_and_tools() else {
        return;
    };
    for mesa in pops_testkit::mesa::all_or_skip() {
        for chip in pops_testkit::shim::chips_for(&mesa) {
            let at = format!("{} {chip}", mesa.label());
            let out = shim_matrix(&mesa, &pops, &shim, chip, &at);
            check_shim_matrix(&mesa, chip, &at, &out);
            check_report_of_shim_run(&pops, chip, &at, &out);
        }
    }
}

/// Every way RADV compiles pops-oit's fragment shaders — pipelines,
/// colour blending set at draw time, pipelines linked from libraries, shader objects — under
/// `pops run --amdgpu-shim
/// --verify-isa`, on every POPS chip of the shim with both Mesa versions. GFX11: "The overlapping
/// waves are resumed when the wave performs the last export (with the done flag). The same
/// requirements for awaiting the memory access counters as on GFX9–10.3 still apply." With RADV
/// 26 on GFX11, GFX11.5 and GFX12 every interlocked object compiled with a PS epilog (dynamic
/// blending, libraries, shader objects) carries `isa-ordered-section-open-at-epilog`, named as the known
/// defect; everything else is verified clean; nothing is left unverified; every draw record is
/// what RADV programmed.
#[test]
fn every_compile_mode_is_verified_on_the_shim_with_the_epilog_gap_where_known() {
    let Some((shim, pops)) = shim_and_tools() else {
        return;
    };
    for mesa in pops_testkit::mesa::all_or_skip() {
        for chip in pops_testkit::shim::chips_for(&mesa) {
            let level = pm4::Family::parse(chip).unwrap().gfx_level();
            for mode in [
                None,
                Some("--dynamic-blend"),
                Some("--libraries"),
                Some("--shader-objects"),
            ] {
                let at = format!("{} {chip} {}", mesa.label(), mode.unwrap_or("pipelines"));
                let report = pops_testkit::scratch("modes").join("report.jsonl");
                let o = shim_command(&mesa, &pops, &shim, chip, &report, &["--verify-isa"])
                    .args(mode)
                    .env("VK_POPS_INTERLOCK_VERIFY_ISA_CACHE", "off")
                    .output()
                    .expect("pops runs");
                let out = text(&o);
                assert_eq!(o.status.code(), Some(3), "{at}: {out}");
                let n = if mode == Some("--shader-objects") {
                    8
                } else {
                    12
                };
                assert!(
                    out.contains(&format!("{chip}: {n} of {n} interlocked draws: RADV programmed every POPS register field")),
                    "{at}: {out}"
                );
                let verdicts = out
                    .lines()
                    .find(|l| {
                        l.starts_with(&format!(
                            "pops run: verify_isa on {chip} with radv (Mesa {}",
                            mesa.version()
                        ))
                    })
                    .unwrap_or_else(|| panic!("{at}: no verify_isa line: {out}"));
                let gap =
                    mesa.major() >= Some(26) && level >= pm4::GfxLevel::Gfx11 && mode.is_some();
                let expected = if gap {
                    format!("{n} interlocked pipeline(s), librar(ies) and shader object(s): 0 verified clean, {n} with isa-ordered-section-open-at-epilog")
                } else {
                    format!("{n} interlocked pipeline(s), librar(ies) and shader object(s): {n} verified clean")
                };
                assert!(verdicts.ends_with(&expected), "{at}: {verdicts}");
                assert_eq!(
                    out.contains("known defect aco-epilog-store-gap"),
                    gap,
                    "{at}: {out}"
                );
                assert!(
                    !out.contains("not verified") && !out.contains("NEW"),
                    "{at}: {out}"
                );
            }
        }
    }
}

/// Today's lavapipe executes interlocked fragment shaders, so each way
/// pops-oit compiles them — pipelines, the sample count or the colour blending set at draw time,
/// pipelines linked from libraries, shader objects — renders every combination it supports under
/// the layer, each image matching the CPU reference (shader objects cannot shade per sample).
#[test]
fn every_compile_mode_renders_on_todays_lavapipe_under_the_layer() {
    let pops = match built_tools() {
        Ok(p) => p,
        Err(e) => return skip(&format!("pops and the layer are needed: {e}")),
    };
    for mesa in pops_testkit::mesa::all_or_skip() {
        if mesa.major() < Some(26) {
            continue; // Debian 12's lavapipe has no interlock.
        }
        for mode in [
            None,
            Some("--dynamic"),
            Some("--dynamic-blend"),
            Some("--libraries"),
            Some("--shader-objects"),
        ] {
            let at = format!("{} lavapipe {}", mesa.label(), mode.unwrap_or("pipelines"));
            let report = pops_testkit::scratch("lavapipe-modes").join("report.jsonl");
            let o = mesa
                .command(&pops)
                .arg("run")
                .arg("--report")
                .arg(&report)
                .arg("--")
                .arg(env!("CARGO_BIN_EXE_pops-oit"))
                .args([
                    "--matrix",
                    "--width",
                    "96",
                    "--height",
                    "64",
                    "--triangles",
                    "60",
                ])
                .args(mode)
                .env("VK_DRIVER_FILES", LAVAPIPE)
                .env_remove("VK_ICD_FILENAMES")
                .env_remove("RADV_FORCE_FAMILY")
                .env("VK_LOADER_LAYERS_DISABLE", "~implicit~")
                .output()
                .expect("pops runs");
            let out = text(&o);
            assert!(o.status.success(), "{at}: {out}");
            let expected = if mode == Some("--shader-objects") {
                "summary: 11 pass, 0 fail, 0 error, 5 unsupported"
            } else {
                "summary: 16 pass, 0 fail, 0 error, 0 unsupported"
            };
            assert!(out.contains(expected), "{at}: {out}");
            assert!(
                out.contains("with fragment shader interlock"),
                "{at}: the layer's table: {out}"
            );
        }
    }
}

/// The hardware run (`scripts/hardware-run.sh`, what the hardware workflow runs
/// on each AMD generation) runs the product with `POPS_OIT`: pops-oit's matrix in every compile
/// mode under `pops run --verify-isa`, and the driver defects found named from the known-defect
/// table — on the shim here, with both Mesa versions: the epilog store gap with today's RADV on
/// GFX11 and GFX12, the drain left on with RADV 25.0.x on VEGA10, nothing on navi31 with 25.0.7;
/// a known defect is no failure of the step.
#[test]
fn the_hardware_run_runs_the_product_and_names_known_defects() {
    let Some((shim, pops)) = shim_and_tools() else {
        return;
    };
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/hardware-run.sh");
    for mesa in pops_testkit::mesa::all_or_skip() {
        let today = mesa.major() >= Some(26);
        let cases: &[(&str, &str)] = if today {
            &[
                ("navi31", "aco-epilog-store-gap"),
                ("gfx1201", "aco-epilog-store-gap"),
            ]
        } else {
            &[
                ("vega10", "radv-pops-drain-left-on"),
                ("navi31", "driver defects found: none"),
            ]
        };
        for (chip, expected) in cases {
            let at = format!("{} {chip}", mesa.label());
            let out = pops_testkit::scratch(&format!("hardware-run-{chip}"));
            let o = mesa
                .command("bash")
                .arg(&script)
                .arg(&out)
                .env("POPS", &pops)
                .env("POPS_OIT", env!("CARGO_BIN_EXE_pops-oit"))
                .env("SHIM", &shim)
                .env("SHIM_CHIP", chip)
                .env("DRAW_RUNS", "1")
                .env("OIT_ARGS", "--width 64 --height 48 --triangles 30")
                .env("RACE_ARGS", "--width 16 --height 16 --primitives 4")
                .env_remove("RADV_FORCE_FAMILY")
                .env_remove("VK_ICD_FILENAMES")
                .env("VK_LOADER_LAYERS_DISABLE", "~implicit~")
                .output()
                .expect("the hardware run runs");
            let log = text(&o);
            let steps = std::fs::read_to_string(out.join("steps.txt")).unwrap_or_default();
            assert!(
                steps.lines().any(|l| l == "oit-modes 0"),
                "{at}: {steps}\n{log}"
            );
            let found = std::fs::read_to_string(out.join("known-defects.txt")).unwrap();
            assert!(found.contains(expected), "{at}: {found}");
            assert!(!found.contains("NEW"), "{at}: {found}");
            // The race test ran in every mode: on the shim its draws are submitted (and checked
            // against the records) but no shader runs, so it measures nothing.
            assert!(steps.lines().any(|l| l == "race 0"), "{at}: {steps}\n{log}");
            assert!(
                !steps.contains("compare"),
                "{at}: no GPU time on the shim: {steps}"
            );
            for mode in ["pipelines", "dynamic-blend", "libraries", "shader-objects"] {
                assert!(
                    out.join(format!("oit/{mode}.html")).is_file(),
                    "{at}: {mode}"
                );
                let race = std::fs::read_to_string(out.join(format!("race/{mode}.log")))
                    .unwrap_or_default();
                assert!(
                    race.contains("race pixel-ordered_noaa_buffer: submitted and completed, but no shader wrote anything")
                        && race.contains("interlocked draws: RADV programmed every POPS register field"),
                    "{at}: {mode}: {race}"
                );
                assert!(
                    found.contains(&format!("race {mode}: race: the control was not measured")),
                    "{at}: {found}"
                );
            }
        }
    }
}

/// `pops report` of a run on the shim (its recorded IBs beside the report) gives the chip's
/// verdict in `pops run`'s words, and its page carries it.
fn check_report_of_shim_run(pops: &Path, chip: &str, at: &str, run_out: &str) {
    let report = shim_report(chip);
    let page = report.with_extension("html");
    let o = std::process::Command::new(pops)
        .args(["report", "--html"])
        .arg(&page)
        .arg(&report)
        .output()
        .expect("pops report runs");
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{at}: {text}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let verdict = |who: &str, t: &str| {
        t.lines()
            .find(|l| l.starts_with(&format!("{who}: {chip}: 12 of 12 interlocked draws")))
            .map(|l| l.split_once(": ").map_or("", |x| x.1).to_string())
    };
    assert!(
        text.contains(
            "pops report: NOTHING WAS RENDERED: these records come from a drm-shim device"
        ),
        "{at}: the report does not say that nothing was rendered: {text}"
    );
    let said = verdict("pops run", run_out).unwrap_or_else(|| panic!("{at}: {run_out}"));
    assert_eq!(
        verdict("pops report", &text).as_deref(),
        Some(said.as_str()),
        "{at}: {text}"
    );
    let html = std::fs::read_to_string(&page).unwrap();
    let sentence = said.split_once(": ").map_or("", |x| x.1);
    assert!(
        html.contains(sentence),
        "{at}: the page lacks the verdict {sentence:?}"
    );
    std::fs::remove_file(&page).unwrap();
}

/// `pops run --amdgpu-shim SHIM --chip CHIP --report REPORT [pops_args] -- pops-oit --matrix`
/// (a small scene: nothing renders on the shim) under `mesa`, without RADV_FORCE_FAMILY or
/// implicit layers; callers add pops-oit's mode.
fn shim_command(
    mesa: &pops_testkit::mesa::Mesa,
    pops: &Path,
    shim: &Path,
    chip: &str,
    report: &Path,
    pops_args: &[&str],
) -> Command {
    let mut c = mesa.command(pops);
    c.arg("run")
        .args(pops_args)
        .arg("--amdgpu-shim")
        .arg(shim)
        .args(["--chip", chip, "--report"])
        .arg(report)
        .arg("--")
        .arg(env!("CARGO_BIN_EXE_pops-oit"))
        .args([
            "--matrix",
            "--width",
            "64",
            "--height",
            "48",
            "--triangles",
            "30",
        ])
        .env_remove("RADV_FORCE_FAMILY")
        .env_remove("VK_ICD_FILENAMES")
        .env("VK_LOADER_LAYERS_DISABLE", "~implicit~");
    c
}

/// Where [`shim_matrix`] has the layer write its report for `chip`.
fn shim_report(chip: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("shim-{chip}.jsonl"))
}

/// `pops run --amdgpu-shim --chip CHIP -- pops-oit --matrix` (small) under `mesa`: its output.
fn shim_matrix(
    mesa: &pops_testkit::mesa::Mesa,
    pops: &Path,
    shim: &Path,
    chip: &str,
    at: &str,
) -> String {
    let report = shim_report(chip);
    let o = shim_command(mesa, pops, shim, chip, &report, &[])
        .output()
        .expect("pops runs");
    let out = text(&o);
    // pops-oit's own verdict: every combination submitted, no shader ran.
    assert_eq!(o.status.code(), Some(3), "{at}: {out}");
    out
}

/// What every chip's run must show: 12 of 12 records as RADV programmed them, counts equal, no
/// shim complaint; the article's missed-overlap drain on the chips that need it; and the drain
/// left on for later non-POPS draws found where RADV 25.0.x leaves it so.
fn check_shim_matrix(mesa: &pops_testkit::mesa::Mesa, chip: &str, at: &str, out: &str) {
    let draw = out
        .lines()
        .find(|l| {
            l.trim_start()
                .starts_with("'interlock-pixel-ordered_msaa8/colour'")
        })
        .unwrap_or_else(|| panic!("{at}: no draw row: {out}"));
    let cells: Vec<&str> = draw.split_whitespace().collect();
    assert!(
        cells.windows(2).any(|w| w == ["8", "pixel"]),
        "{at}: 8 samples at pixel rate: {draw}"
    );
    assert!(draw.contains("the same ("), "{at}: {draw}");
    assert!(
        draw.contains("PRIMITIVE_ORDERED_PIXEL_SHADER=1"),
        "{at}: {draw}"
    );
    let family = pm4::Family::parse(chip).unwrap();
    let missed_overlap = family.quirks().pops_missed_overlap;
    if missed_overlap {
        assert!(draw.contains("POPS_DRAIN_PS_ON_OVERLAP=1"), "{at}: {draw}");
    }
    assert!(
        out.contains(&format!(
            "{chip}: 12 of 12 interlocked draws: RADV programmed every POPS register field as pops derives it from the article"
        )),
        "{at}: {out}"
    );
    assert!(
        out.contains("RADV submitted exactly the 12 POPS draw(s) the records count. Shaders do not run on the amdgpu shim, so nothing was rendered."),
        "{at}: {out}"
    );
    assert!(
        !out.contains("DIFFERENT") && !out.contains("the amdgpu shim:"),
        "{at}: {out}"
    );
    // Each mark in the table has its note, and each note is on this chip's level.
    for n in 1..=3 {
        let mark = format!(" [{n}]");
        if out
            .lines()
            .any(|l| l.contains("the same (") && l.contains(&mark))
        {
            assert!(
                out.contains(&format!("\n  [{n}] ")),
                "{at}: mark {mark} without its note: {out}"
            );
        }
    }
    if !chip.starts_with("gfx12") {
        assert!(
            !out.contains("unconfirmed on GFX12"),
            "{at}: a GFX12 note on {chip}: {out}"
        );
    }
    let left_on = out.contains("finding pops-drain-left-on");
    assert_eq!(
        left_on,
        missed_overlap && mesa.major() == Some(25),
        "{at}: the drain bit is left on after a POPS draw by RADV 25.0.x only: {out}"
    );
}

/// `--dynamic` (the rasterization sample count set at draw time) and `--shader-objects` (shader
/// objects, every state set in the command buffer) render exactly the image of the static
/// pipeline path, without AA and at 4× MSAA on lavapipe.
#[test]
fn dynamic_samples_and_shader_objects_render_the_same_image_on_lavapipe() {
    if !Path::new(LAVAPIPE).is_file() {
        return skip(&format!("lavapipe ({LAVAPIPE}) not installed"));
    }
    let dir = pops_testkit::scratch("oit-dynamic");
    std::fs::create_dir_all(&dir).unwrap();
    let render = |aa: &str, path: Option<&str>| {
        let png = dir.join(format!("{aa}-{}.png", path.unwrap_or("static")));
        let mut c = Command::new(env!("CARGO_BIN_EXE_pops-oit"));
        c.args([
            "--algorithm",
            "linkedlist",
            "--aa",
            aa,
            "--width",
            "96",
            "--height",
            "64",
            "--triangles",
            "60",
        ])
        .arg("--output")
        .arg(&png)
        .env("VK_DRIVER_FILES", LAVAPIPE)
        .env_remove("VK_ICD_FILENAMES")
        .env_remove("RADV_FORCE_FAMILY");
        if let Some(flag) = path {
            c.arg(flag);
        }
        let o = c.output().expect("pops-oit runs");
        assert!(o.status.success(), "{aa} {path:?}: {}", text(&o));
        std::fs::read(&png).unwrap()
    };
    for aa in ["noaa", "msaa4"] {
        let a = render(aa, None);
        assert!(!a.is_empty());
        for flag in ["--dynamic", "--shader-objects"] {
            assert!(a == render(aa, Some(flag)), "{flag} changed the {aa} image");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `pops compare` end to end on lavapipe: both sides run alternately with the layer's timing
/// (one report each, every line following the report schema, a timing line per submission with
/// lavapipe's GPU time), the experiment is refused where the device has no interlock and the
/// comparison says so, and the image the program writes is hashed after every run: the same
/// on both sides. Bad arguments are refused with a message naming them.
#[test]
fn pops_compare_alternates_runs_and_compares_outputs_on_lavapipe() {
    if !Path::new(LAVAPIPE).is_file() {
        return skip(&format!("lavapipe ({LAVAPIPE}) not installed"));
    }
    let pops = match built_tools() {
        Ok(p) => p,
        Err(e) => return skip(&format!("pops and the layer are needed: {e}")),
    };
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("compare");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let png = dir.join("out.png");
    let reports = dir.join("reports");
    let html = dir.join("compare.html");
    let o = Command::new(&pops)
        .args([
            "compare",
            "--experiment",
            "no-interlock",
            "--runs",
            "2",
            "--image",
        ])
        .arg(&png)
        .arg("--reports")
        .arg(&reports)
        .arg("--html")
        .arg(&html)
        .arg("--")
        .arg(env!("CARGO_BIN_EXE_pops-oit"))
        .args([
            "--algorithm",
            "linkedlist",
            "--frames",
            "2",
            "--width",
            "64",
            "--height",
            "48",
        ])
        .arg("--output")
        .arg(&png)
        .env("VK_DRIVER_FILES", LAVAPIPE)
        .env_remove("VK_ICD_FILENAMES")
        .env_remove("RADV_FORCE_FAMILY")
        .output()
        .expect("pops compare runs");
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    // Alternately: each run's report was last written in this order (progress lines are for
    // terminals only, and this one is a pipe).
    assert!(!out.contains("run 1 of"), "{out}");
    let order: Vec<std::time::SystemTime> =
        ["none_1", "no-interlock_1", "none_2", "no-interlock_2"]
            .iter()
            .map(|n| {
                std::fs::metadata(reports.join(format!("{n}.jsonl")))
                    .and_then(|m| m.modified())
                    .unwrap_or_else(|e| panic!("{n}: {e}"))
            })
            .collect();
    assert!(
        order.windows(2).all(|w| w[0] <= w[1]),
        "alternately: {order:?}"
    );
    // The same comparison as a page.
    let page = std::fs::read_to_string(&html).expect("the page");
    for want in [
        "all interlocked work, per run",
        "with no-interlock",
        "identical with and without no-interlock",
    ] {
        assert!(page.contains(want), "the page lacks {want:?}");
    }
    assert!(!page.contains("<script") && !page.contains("https://"));
    assert!(out.contains("no-interlock changed no shader"), "{out}");
    assert!(out.contains("no interlocked draw was timed"), "{out}");
    assert!(out.contains("all interlocked work, per run"), "{out}");
    assert!(
        out.contains("Output (1 file(s)): identical with and without no-interlock"),
        "{out}"
    );
    for name in ["none_1", "none_2", "no-interlock_1", "no-interlock_2"] {
        let lines = pops_tests::read_report(&reports.join(format!("{name}.jsonl")));
        let timing: Vec<_> = lines.iter().filter(|l| l["kind"] == "timing").collect();
        // pops-oit submits its uploads, then one command buffer per frame.
        assert!(timing.len() >= 2, "{name}: {lines:?}");
        assert!(
            timing
                .iter()
                .all(|t| t["scope"] == "submission" && t["gpu_ns"].as_u64().is_some()),
            "{name}: {timing:?}"
        );
    }
    compare_runs_of_other_programs(&pops, &dir);
}

/// `pops compare --experiment no-interlock --runs 1` of programs that are not Vulkan: one that
/// fails still counts its runs and reports the statuses; an unknown experiment and a missing
/// program are refused by name.
fn compare_runs_of_other_programs(pops: &Path, dir: &Path) {
    // `pops compare --experiment no-interlock --runs 1` of a program that is not Vulkan.
    let once = |reports: &str, program: &str| {
        Command::new(pops)
            .args([
                "compare",
                "--experiment",
                "no-interlock",
                "--runs",
                "1",
                "--reports",
            ])
            .arg(dir.join(reports))
            .args(["--", program])
            .env("VK_DRIVER_FILES", LAVAPIPE)
            .output()
            .expect("pops runs")
    };
    // A program that fails (as one checking its own output may under an experiment): the runs
    // still count and the statuses are reported.
    let failing = once("r-false", "false");
    assert!(failing.status.success(), "{}", text(&failing));
    assert!(
        text(&failing).contains("Exit status: 1 of 1 run(s) failed without the experiment (1), 1 of 1 with no-interlock (1)"),
        "{}",
        text(&failing)
    );
    let bad = Command::new(pops)
        .args(["compare", "--experiment", "faster", "--", "true"])
        .output()
        .expect("pops runs");
    assert!(!bad.status.success());
    assert!(
        text(&bad).contains("--experiment faster: not one of"),
        "{}",
        text(&bad)
    );
    let missing = once("r2", "/nonexistent/program");
    assert!(!missing.status.success());
    assert!(
        text(&missing).contains("program '/nonexistent/program' not found"),
        "{}",
        text(&missing)
    );
}
