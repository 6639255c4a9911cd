//! A real client: Mesa's Zink (OpenGL on Vulkan) running piglit's interlock test and the
//! `shader_test` files of `tests/shader_tests/` under `pops run --amdgpu-shim --verify-isa`, on
//! Debian 12's Mesa (bookworm-backports' Zink over RADV 25.0.7) and today's (the sid root built
//! with Zink and piglit), with Zink's default (shader objects where it uses them) and
//! `ZINK_DEBUG=noshobj` (pipelines fast-linked from libraries). Headless: EGL surfaceless with
//! `MESA_LOADER_DRIVER_OVERRIDE=zink`.
//!
//! The expected answer: on RADV 26.x with GFX11, GFX11.5 and GFX12
//! every interlocked fragment stage Zink creates — all of them are compiled with a PS epilog, as
//! shader objects or linked libraries — carries `isa-ordered-section-open-at-epilog` (the known
//! defect aco-epilog-store-gap); everything else is `isa-verified`; nothing is `isa-not-verified`
//! or an `isa-model` error; the draws RADV submitted are exactly what the records say, a
//! multi-sample draw included; the control without interlock is reported as no interlock at all.
//! Shaders do not run on the shim, so piglit's probes fail there: its verdict is not the test's.

use pops_testkit::mesa::Mesa;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const PIGLIT_BIN: &str = "/usr/lib/x86_64-linux-gnu/piglit/bin";

/// The chips the Zink runs cover (one of each generation the bug is or is not on), where the
/// Mesa's RADV runs them on the shim.
const CHIPS: &[&str] = &["vega10", "navi21", "navi31", "gfx1150", "gfx1201"];

/// How Zink compiles: its default, and pipelines linked from libraries.
const MODES: &[(&str, Option<&str>)] = &[("default", None), ("noshobj", Some("noshobj"))];

/// One program run under Zink, and what the layer must say of it.
struct Case {
    name: &'static str,
    program: &'static str,
    args: &'static [&'static str],
    /// The interlock mode of its fragment shader; `None` for the control.
    interlock: Option<&'static str>,
    /// piglit skips it because Zink does not expose the extension (checked, never assumed).
    unsupported: Option<&'static str>,
    /// A draw record of this many samples must be among the records.
    multisample: Option<u64>,
}

fn shader_test(name: &'static str, interlock: Option<&'static str>) -> Case {
    Case {
        name,
        program: "shader_runner",
        args: &["-auto", "-fbo"],
        interlock,
        unsupported: None,
        multisample: None,
    }
}

fn cases() -> Vec<Case> {
    vec![
        // piglit's own: draws into multi-sample images (2 samples first).
        Case {
            name: "arb_fragment_shader_interlock-image-load-store",
            program: "arb_fragment_shader_interlock-image-load-store",
            args: &["-auto", "-fbo"],
            interlock: Some("pixel-ordered"),
            unsupported: None,
            multisample: Some(2),
        },
        shader_test("arb-pixel-ordered", Some("pixel-ordered")),
        shader_test("arb-pixel-unordered", Some("pixel-unordered")),
        shader_test("arb-sample-ordered", Some("sample-ordered")),
        shader_test("arb-sample-unordered", Some("sample-unordered")),
        shader_test("nv-pixel-ordered", Some("pixel-ordered")),
        Case {
            unsupported: Some("GL_INTEL_fragment_shader_ordering"),
            ..shader_test("intel-ordering", Some("pixel-ordered"))
        },
        shader_test("control-no-interlock", None),
    ]
}

/// pops and the layer built, the shim, and piglit and Zink on the host; else a loud skip.
fn tools() -> Option<(PathBuf, PathBuf)> {
    let shim = pops_testkit::shim::library_or_skip()?;
    if !Path::new(PIGLIT_BIN).join("shader_runner").is_file() {
        pops_testkit::missing("piglit is not installed (scripts/install-deps.sh installs it)");
        return None;
    }
    let profile = pops_tests::profile_dir();
    match pops_testkit::built::pops_and_layer(&profile) {
        Ok(pops) => Some((pops, shim)),
        Err(e) => {
            pops_testkit::missing(format!("pops and the layer are needed: {e}"));
            None
        }
    }
}

/// `pops run --amdgpu-shim SHIM --chip CHIP --verify-isa -- PROGRAM` under `mesa`'s Zink.
fn zink_run(
    mesa: &Mesa,
    tools: &(PathBuf, PathBuf),
    chip: &str,
    mode: Option<&str>,
    case: &Case,
    report: &Path,
) -> Command {
    let (pops, shim) = tools;
    let mut c = mesa.command(pops);
    c.arg("run")
        .arg("--amdgpu-shim")
        .arg(shim)
        .args(["--chip", chip, "--verify-isa", "--report"])
        .arg(report)
        .arg("--")
        .arg(Path::new(PIGLIT_BIN).join(case.program));
    if case.program == "shader_runner" {
        let file = pops_tests::workspace_root()
            .join(format!("tests/shader_tests/{}.shader_test", case.name));
        c.arg(file);
    }
    c.args(case.args)
        .env("PIGLIT_PLATFORM", "surfaceless_egl")
        .env("MESA_LOADER_DRIVER_OVERRIDE", "zink")
        .env("VK_POPS_INTERLOCK_VERIFY_ISA_CACHE", "off")
        // Zink takes a warm shader cache's pipeline instead of compiling a shader object: every
        // run starts cold, so each compiles the same way.
        .env("MESA_SHADER_CACHE_DISABLE", "true")
        .env_remove("RADV_FORCE_FAMILY")
        .env_remove("VK_ICD_FILENAMES")
        .env("VK_LOADER_LAYERS_DISABLE", "~implicit~");
    match mode {
        Some(m) => c.env("ZINK_DEBUG", m),
        None => c.env_remove("ZINK_DEBUG"),
    };
    c
}

fn codes(record: &Value) -> Vec<String> {
    record["diagnostics"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|d| d["code"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The records of one run that carry a verdict of the driver's code: pipelines (linked or
/// monolithic) and shader objects, not the libraries they were linked from.
fn verified_objects(records: &[Value]) -> Vec<&Value> {
    records
        .iter()
        .filter(|r| matches!(r["kind"].as_str(), Some("pipeline" | "shader_object")))
        .collect()
}

/// Whether `record` was created while the process exited, after the layer's exit waited for the
/// creations printing their code (Zink compiles on its own threads, and piglit exits without
/// waiting for them): its code is then not printed, so not verified, and the record says so.
fn created_at_exit(record: &Value) -> bool {
    record["diagnostics"].as_array().is_some_and(|a| {
        a.iter().any(|d| {
            d["code"] == "isa-not-verified"
                && d["message"]
                    .as_str()
                    .is_some_and(|m| m.starts_with("created while the process exits"))
        })
    })
}

/// Checks one interlocked case's output and records against the expected answer.
fn check_interlocked(at: &str, out: &str, records: &[Value], case: &Case, chip: &str, gap: bool) {
    let objects: Vec<&Value> = verified_objects(records)
        .into_iter()
        .filter(|r| !created_at_exit(r))
        .collect();
    assert!(
        !objects.is_empty(),
        "{at}: no interlocked pipeline or shader object recorded (and verified): {out}"
    );
    for r in &objects {
        let c = codes(r);
        assert_eq!(r["interlock"].as_str(), case.interlock, "{at}: {r}");
        assert!(
            !c.iter()
                .any(|c| c == "isa-not-verified" || c == "isa-model"),
            "{at}: the code was not verified or the model failed: {r}"
        );
        let has_gap = c.iter().any(|c| c == "isa-ordered-section-open-at-epilog");
        assert_eq!(
            has_gap, gap,
            "{at}: the epilog finding where expected, nowhere else: {r}"
        );
        assert!(gap || c.iter().any(|c| c == "isa-verified"), "{at}: {r}");
        // No other finding of the code, and nothing but what the epilog gap is.
        for code in c.iter().filter(|c| c.starts_with("isa-")) {
            assert!(
                ["isa-verified", "isa-ordered-section-open-at-epilog"].contains(&code.as_str()),
                "{at}: {code}: {r}"
            );
        }
    }
    let draws: Vec<&Value> = records.iter().filter(|r| r["kind"] == "draw").collect();
    assert!(!draws.is_empty(), "{at}: no draw record: {out}");
    let n = draws.len();
    assert!(
        out.contains(&format!(
            "{chip}: {n} of {n} interlocked draws: RADV programmed every POPS register field"
        )) && out.contains("RADV submitted exactly the"),
        "{at}: the draws RADV submitted differ from the records: {out}"
    );
    if let Some(samples) = case.multisample {
        assert!(
            draws.iter().any(|d| d["samples"].as_u64() == Some(samples)),
            "{at}: no draw record of {samples} samples: {out}"
        );
    }
    assert_eq!(
        out.contains("known defect aco-epilog-store-gap"),
        gap,
        "{at}: {out}"
    );
    assert!(!out.contains("NEW"), "{at}: {out}");
}

/// What one object was: a shader object, a pipeline linked from libraries, or a monolithic one.
fn how_compiled(r: &Value) -> &'static str {
    match (r["kind"].as_str(), r["source"].as_str()) {
        (Some("shader_object"), _) => "shader object",
        (_, Some("library")) => "linked pipeline",
        _ => "pipeline",
    }
}

/// Runs one case and checks it; returns what it found for the summary line, and how each
/// interlocked object was compiled.
fn run_case(
    mesa: &Mesa,
    tools: &(PathBuf, PathBuf),
    chip: &str,
    mode: (&str, Option<&str>),
    case: &Case,
) -> (String, Vec<&'static str>) {
    let at = format!("{} {chip} Zink {} {}", mesa.label(), mode.0, case.name);
    let report = pops_testkit::scratch("zink").join("report.jsonl");
    let o = zink_run(mesa, tools, chip, mode.1, case, &report)
        .output()
        .expect("pops runs");
    let out = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    // piglit's probes fail where shaders do not run; a crash is never accepted.
    assert!(o.status.code().is_some(), "{at}: killed by a signal: {out}");
    assert!(!out.contains("crashed"), "{at}: {out}");
    let records = pops_tests::read_report(&report);
    if let Some(ext) = case.unsupported {
        if out.contains(&format!("Test requires unsupported extension {ext}")) {
            assert!(verified_objects(&records).is_empty(), "{at}: {out}");
            return (format!("{}: Zink does not expose {ext}", case.name), vec![]);
        }
    }
    let level = pm4::Family::parse(chip).expect("a POPS chip").gfx_level();
    let gap = mesa.major() >= Some(26) && level >= pm4::GfxLevel::Gfx11;
    match case.interlock {
        None => {
            assert!(verified_objects(&records).is_empty(), "{at}: {out}");
            assert!(
                out.contains("NOTHING CHECKED: the layer recorded no interlocked draw and RADV submitted no draw with POPS on"),
                "{at}: {out}"
            );
            (format!("{}: no interlock, no POPS draw", case.name), vec![])
        }
        Some(_) => {
            check_interlocked(&at, &out, &records, case, chip, gap);
            let how: Vec<&'static str> = verified_objects(&records)
                .into_iter()
                .map(how_compiled)
                .collect();
            let line = format!(
                "{}: {} ({})",
                case.name,
                if gap { "epilog gap" } else { "verified" },
                how.join(", ")
            );
            (line, how)
        }
    }
}

/// Piglit's interlock test and our own interlock shader tests through Zink,
/// both Mesas, Zink's default and `ZINK_DEBUG=noshobj`, every chip the bug is on and one before it.
#[test]
fn zink_interlock_tests_get_the_expected_verdicts_and_draws_on_both_mesas() {
    let Some(tools) = tools() else { return };
    for mesa in pops_testkit::mesa::all_with_zink_or_skip() {
        let chips = pops_testkit::shim::chips_for(&mesa);
        let mut compiled: Vec<(&str, &str)> = Vec::new();
        for chip in CHIPS.iter().filter(|c| chips.contains(c)) {
            for &mode in MODES {
                let (found, how): (Vec<String>, Vec<Vec<&str>>) = cases()
                    .iter()
                    .map(|case| run_case(&mesa, &tools, chip, mode, case))
                    .unzip();
                eprintln!(
                    "{} {chip} Zink {}: {}",
                    mesa.label(),
                    mode.0,
                    found.join("; ")
                );
                compiled.extend(how.into_iter().flatten().map(|h| (mode.0, h)));
            }
        }
        // Both ways Zink compiles were reached: its default's shader objects, and noshobj's
        // linked pipelines, with no shader object there.
        let count = |m: &str, h: &str| compiled.iter().filter(|c| **c == (m, h)).count();
        assert!(
            count("noshobj", "linked pipeline") > 0,
            "{}: {compiled:?}",
            mesa.label()
        );
        assert_eq!(
            count("noshobj", "shader object"),
            0,
            "{}: {compiled:?}",
            mesa.label()
        );
        if mesa.major() >= Some(26) {
            assert!(
                count("default", "shader object") > 0,
                "{}: {compiled:?}",
                mesa.label()
            );
        }
    }
}

/// Zink's ARB interlock tests with `ZINK_DEBUG=noshobj`, captured by the Fossilize layer on the
/// shim as navi31 under `mesa`: the archives written in `dir`.
fn capture_zink(mesa: &Mesa, tools: &(PathBuf, PathBuf), foz: &Path, dir: &Path) -> Vec<PathBuf> {
    for case in cases().iter().filter(|c| c.name.starts_with("arb")) {
        let mut c = pops_testkit::shim::on(
            mesa.command(Path::new(PIGLIT_BIN).join(case.program)),
            &tools.1,
            "navi31",
            &dir.join("shim"),
        );
        if case.program == "shader_runner" {
            c.arg(
                pops_tests::workspace_root()
                    .join(format!("tests/shader_tests/{}.shader_test", case.name)),
            );
        }
        let o = c
            .args(case.args)
            .env("PIGLIT_PLATFORM", "surfaceless_egl")
            .env("MESA_LOADER_DRIVER_OVERRIDE", "zink")
            .env("ZINK_DEBUG", "noshobj")
            .env("MESA_SHADER_CACHE_DISABLE", "true")
            .env("VK_ADD_LAYER_PATH", foz)
            .env("VK_INSTANCE_LAYERS", "VK_LAYER_fossilize")
            .env("FOSSILIZE_DUMP_PATH", dir.join(case.name))
            .env("FOSSILIZE_DUMP_SYNC", "1")
            .env_remove("VK_ICD_FILENAMES")
            .env_remove("RADV_FORCE_FAMILY")
            .output()
            .expect("piglit runs");
        assert!(o.status.code().is_some(), "{}: {o:?}", mesa.label());
    }
    let archives: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "foz"))
        .collect();
    assert!(archives.len() >= 5, "{}: {archives:?}", mesa.label());
    archives
}

/// Zink's interlock tests captured with the Fossilize layer (ZINK_DEBUG=noshobj:
/// pipeline libraries and the pipelines linked from them; shader objects are never captured) and
/// replayed with `pops replay` get the live runs' verdicts: the epilog gap on today's Mesa on
/// GFX11 and GFX12, verified clean elsewhere.
#[test]
fn zink_captures_replayed_get_the_live_verdicts() {
    let Some(tools) = tools() else { return };
    let foz = std::env::var_os("POPS_FOSSILIZE")
        .map(PathBuf::from)
        .unwrap_or_else(|| pops_tests::workspace_root().join("target/fossilize/bin"));
    if !foz.join("fossilize-replay").is_file() {
        return pops_testkit::missing(
            "Fossilize is not built (scripts/test-all.sh builds ../shared/tools/fossilize)",
        );
    }
    for mesa in pops_testkit::mesa::all_with_zink_or_skip() {
        let dir = pops_testkit::scratch("zink-capture");
        let archives = capture_zink(&mesa, &tools, &foz, &dir);
        let chips = pops_testkit::shim::chips_for(&mesa);
        let chips: Vec<&str> = ["navi21", "navi31", "gfx1201"]
            .into_iter()
            .filter(|c| chips.contains(c))
            .collect();
        let mut cmd = mesa.command(&tools.0);
        cmd.arg("replay").arg("--amdgpu-shim").arg(&tools.1);
        for chip in &chips {
            cmd.args(["--chip", chip]);
        }
        let o = cmd
            .arg("--replayer")
            .arg(foz.join("fossilize-replay"))
            .arg("--reports")
            .arg(dir.join("reports"))
            .args(&archives)
            .env("VK_POPS_INTERLOCK_VERIFY_ISA_CACHE", "off")
            .env_remove("VK_ICD_FILENAMES")
            .env_remove("RADV_FORCE_FAMILY")
            .env("VK_LOADER_LAYERS_DISABLE", "~implicit~")
            .output()
            .expect("pops replay runs");
        let out = format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        for chip in &chips {
            let level = pm4::Family::parse(chip).expect("a POPS chip").gfx_level();
            let gap = mesa.major() >= Some(26) && level >= pm4::GfxLevel::Gfx11;
            let lines: Vec<&str> = out
                .lines()
                .filter(|l| l.contains(&format!(" as {chip} with radv")))
                .collect();
            assert_eq!(
                lines.len(),
                archives.len(),
                "{} {chip}: {out}",
                mesa.label()
            );
            for l in lines {
                // "…: N interlocked pipeline(s): …"
                let n: usize = l
                    .split_once(" interlocked pipeline(s)")
                    .and_then(|(head, _)| head.rsplit(' ').next()?.parse().ok())
                    .unwrap_or(0);
                assert!(
                    n > 0,
                    "{} {chip}: no interlocked pipeline: {l}",
                    mesa.label()
                );
                let want = if gap {
                    format!("{n} interlocked pipeline(s): 0 verified clean, {n} with isa-ordered-section-open-at-epilog")
                } else {
                    format!("{n} interlocked pipeline(s): {n} verified clean")
                };
                assert!(l.ends_with(&want), "{} {chip}: {l}", mesa.label());
            }
        }
        let gap_anywhere = mesa.major() >= Some(26);
        assert_eq!(
            o.status.code(),
            Some(gap_anywhere as i32),
            "{}: {out}",
            mesa.label()
        );
    }
}
