//! `pops state` end to end: the JSON document for every family, interlock mode and sample count,
//! the PM4 decoded by `pm4::decode` against the registers, and the refusals.

use pm4::{Family, GfxLevel, InterlockMode};
use serde_json::Value;
use std::process::{Command, Output};

fn pops(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pops"))
        .arg("state")
        .args(args)
        .output()
        .expect("run pops")
}

fn json(args: &[&str]) -> Value {
    let mut a = args.to_vec();
    a.push("--json");
    let out = pops(&a);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("well-formed JSON")
}

/// Decodes the PM4 with `pm4::decode` (what `pops decode` prints) and returns (byte address,
/// value) per written register.
fn decoded_writes(level: GfxLevel, words: &[u32]) -> Vec<(u32, u32)> {
    let d = pm4::decode::decode(level, words);
    assert!(d.is_ok(), "pm4 decodes: {:?}", d.error);
    for p in &d.packets {
        assert!(
            p.opcode.name().starts_with("SET_") && p.opcode.name().ends_with("_REG"),
            "only SET_*_REG packets, got {}",
            p.opcode.name()
        );
    }
    d.writes()
        .map(|w| {
            assert!(w.desc.is_some(), "{:#x} is a known register", w.address);
            (w.address, w.value)
        })
        .collect()
}

fn check_document(doc: &Value, family: Family, mode: &str, samples: u32) {
    assert_eq!(doc["chip"], family.name());
    assert_eq!(doc["gfx_level"], family.gfx_level().name());
    assert_eq!(doc["interlock"], mode);
    assert_eq!(doc["samples"], samples);
    let level = GfxLevel::parse(doc["gfx_level"].as_str().unwrap()).unwrap();
    let regs = doc["registers"].as_object().expect("registers object");
    assert!(regs.contains_key("DB_SHADER_CONTROL"));
    let mut expected = Vec::new();
    for (name, r) in regs {
        let addr = r["address"].as_u64().unwrap() as u32;
        let value = r["value"].as_u64().unwrap() as u32;
        let desc = level
            .register_at(addr)
            .unwrap_or_else(|| panic!("{name} @ {addr:#x} does not exist on {level}"));
        assert_eq!(desc.name(), name, "{level}");
        let fields = r["fields"].as_object().unwrap();
        assert_eq!(
            fields.len(),
            desc.fields.len(),
            "{name}: every field listed"
        );
        let mut composed = 0u32;
        for f in desc.fields {
            let v = fields[f.field.name()].as_u64().unwrap() as u32;
            composed |= v << f.lo;
        }
        assert_eq!(composed, value, "{name}: fields compose the value");
        expected.push((addr, value));
    }
    expected.sort();
    let pm4: Vec<u32> = doc["pm4"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_u64().unwrap() as u32)
        .collect();
    let mut written = decoded_writes(level, &pm4);
    written.sort();
    assert_eq!(written, expected, "pm4 writes exactly the registers");
    for k in [
        "fragmentShaderPixelInterlock",
        "fragmentShaderSampleInterlock",
        "fragmentShaderShadingRateInterlock",
        "fragmentShadingRateWithFragmentShaderInterlock",
    ] {
        assert!(doc["features"][k].is_boolean(), "{k}");
    }
    for d in doc["diagnostics"].as_array().unwrap() {
        assert!(matches!(
            d["severity"].as_str(),
            Some("error" | "warning" | "info")
        ));
        assert!(d["code"].is_string() && d["message"].is_string());
    }
}

/// Every family in the chip database × every MODE × every sample count: well-formed JSON,
/// registers that exist on the level, PM4 that re-parses to exactly those writes; shading-rate
/// interlock refused with a message and a non-zero exit.
#[test]
fn sweep_every_family_mode_and_sample_count() {
    let modes: Vec<&str> = std::iter::once("none")
        .chain(InterlockMode::ALL.iter().map(|m| m.name()))
        .collect();
    for family in Family::ALL {
        for mode in &modes {
            for samples in [1u32, 2, 4, 8] {
                let s = samples.to_string();
                let args = [
                    "--chip",
                    family.name(),
                    "--interlock",
                    mode,
                    "--samples",
                    &s,
                    "--json",
                ];
                let out = pops(&args);
                if mode.starts_with("shading-rate") {
                    assert!(!out.status.success(), "{family} {mode}");
                    let err = String::from_utf8_lossy(&out.stderr);
                    assert!(err.contains("not available on AMD"), "{err}");
                    assert!(!err.contains("panicked"), "{err}");
                    continue;
                }
                assert!(
                    out.status.success(),
                    "{family} {mode} {samples}: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
                let doc: Value = serde_json::from_slice(&out.stdout).expect("well-formed JSON");
                check_document(&doc, *family, mode, samples);
            }
        }
    }
}

#[test]
fn issue_example_raven_sample_ordered_8x() {
    let doc = json(&[
        "--chip",
        "raven",
        "--interlock",
        "sample-ordered",
        "--samples",
        "8",
    ]);
    assert_eq!(doc["chip"], "raven");
    assert_eq!(doc["gfx_level"], "gfx9");
    let r = &doc["registers"];
    assert_eq!(r["DB_SHADER_CONTROL"]["address"], 0x2880c);
    assert_eq!(
        r["DB_SHADER_CONTROL"]["fields"]["PRIMITIVE_ORDERED_PIXEL_SHADER"],
        1
    );
    assert_eq!(
        r["DB_SHADER_CONTROL"]["fields"]["POPS_OVERLAP_NUM_SAMPLES"],
        3
    );
    assert_eq!(
        r["DB_DFSM_CONTROL"]["fields"]["POPS_DRAIN_PS_ON_OVERLAP"],
        1
    );
    assert_eq!(
        r["PA_SC_SHADER_CONTROL"]["fields"]["LOAD_COLLISION_WAVEID"],
        1
    );
    assert_eq!(
        doc["features"]["fragmentShadingRateWithFragmentShaderInterlock"],
        false
    );
}

#[test]
fn navi10_force_drain_sets_pslc_on_hang_only() {
    let doc = json(&[
        "--chip",
        "navi10",
        "--interlock",
        "pixel-ordered",
        "--samples",
        "4",
        "--force-drain",
    ]);
    let r = &doc["registers"];
    assert_eq!(
        r["DB_DFSM_CONTROL"]["fields"]["POPS_DRAIN_PS_ON_OVERLAP"],
        1
    );
    assert_eq!(
        r["DB_RENDER_OVERRIDE2"]["fields"]["PARTIAL_SQUAD_LAUNCH_CONTROL"],
        1
    );
}

#[test]
fn navi31_sample_interlock_and_no_colour_output() {
    let doc = json(&[
        "--chip",
        "navi31",
        "--interlock",
        "sample-unordered",
        "--samples",
        "4",
        "--no-color-output",
        "--intrawave",
    ]);
    let r = &doc["registers"];
    assert_eq!(
        r["DB_SHADER_CONTROL"]["fields"]["OVERRIDE_INTRINSIC_RATE_ENABLE"],
        1
    );
    assert_eq!(
        r["DB_SHADER_CONTROL"]["fields"]["OVERRIDE_INTRINSIC_RATE"],
        2
    );
    assert_eq!(r["DB_Z_INFO"]["fields"]["NUM_SAMPLES"], 2);
    assert_eq!(
        r["SPI_SHADER_COL_FORMAT"]["fields"]["COL0_EXPORT_FORMAT"],
        1
    );
    assert!(r.get("PA_SC_SHADER_CONTROL").is_none());
    assert!(doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .any(|d| d["code"] == "intrawave-unavailable"));
}

#[test]
fn vega10_relaxed_order_enables_out_of_order_rasterization() {
    let doc = json(&[
        "--chip",
        "vega10",
        "--interlock",
        "pixel-ordered",
        "--relaxed-order",
    ]);
    assert_eq!(
        doc["registers"]["PA_SC_MODE_CNTL_1"]["fields"]["OUT_OF_ORDER_PRIMITIVE_ENABLE"],
        1
    );
    let doc = json(&["--chip", "vega10", "--interlock", "pixel-ordered"]);
    assert_eq!(
        doc["registers"]["PA_SC_MODE_CNTL_1"]["fields"]["OUT_OF_ORDER_PRIMITIVE_ENABLE"],
        0
    );
}

#[test]
fn text_output_shows_fields_and_reasons() {
    let out = pops(&["--chip", "navi21", "--interlock", "pixel-ordered", "--vrs"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("DB_SHADER_CONTROL"));
    assert!(text.contains("PRIMITIVE_ORDERED_PIXEL_SHADER"));
    assert!(text.contains("<- the shader uses fragment shader interlock"));
    assert!(text.contains("SAMPLE_ITER_COMBINER_MODE"));
    assert!(text.contains("pops-forces-vrs-1x1"));
}

fn refused(args: &[&str], needle: &str) {
    let out = pops(args);
    assert_eq!(out.status.code(), Some(1), "{args:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(needle), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(out.stdout.is_empty(), "{args:?}");
}

#[test]
fn refusals_are_clear_messages_with_exit_1() {
    refused(
        &["--chip", "navi99", "--interlock", "pixel-ordered"],
        "unknown chip 'navi99'",
    );
    refused(
        &["--chip", "mi200", "--interlock", "pixel-ordered"],
        "compute-only",
    );
    // The message lists what pops accepts, taken from the chip database.
    refused(
        &["--chip", "navi99", "--interlock", "pixel-ordered"],
        "raphael_mendocino",
    );
    refused(
        &[
            "--chip",
            "navi31",
            "--interlock",
            "pixel-ordered",
            "--depth-test",
        ],
        "--depth-test needs a depth/stencil attachment",
    );
    for s in ["0", "3", "16"] {
        refused(
            &[
                "--chip",
                "raven",
                "--interlock",
                "pixel-ordered",
                "--samples",
                s,
            ],
            &format!("sample count {s} is not supported"),
        );
    }
    refused(
        &[
            "--chip",
            "raven",
            "--interlock",
            "pixel-ordered",
            "--depth-samples",
            "3",
        ],
        "depth/stencil sample count 3",
    );
    refused(
        &["--chip", "navi31", "--interlock", "shading-rate-ordered"],
        "not available on AMD",
    );
    refused(
        &["--chip", "navi31", "--interlock", "pixel"],
        "unknown interlock mode",
    );
    refused(
        &[
            "--chip",
            "navi31",
            "--interlock",
            "pixel-ordered",
            "--targets",
            "9",
        ],
        "at most 8",
    );
}

/// A state that cannot be programmed correctly is printed, but exits 1 with the error on stderr.
#[test]
fn error_diagnostics_exit_1_after_printing() {
    let out = pops(&[
        "--chip",
        "navi31",
        "--interlock",
        "pixel-ordered",
        "--samples",
        "4",
        "--depth-samples",
        "8",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .any(|d| d["severity"] == "error" && d["code"] == "gfx11-depth-samples-mismatch"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("gfx11-depth-samples-mismatch"));
}

/// "`pm4` is exactly those writes as SET_*_REG packets and decodes with `pops decode`": the
/// state's PM4, fed to `pops decode`, gives back every register with the same value and fields.
#[test]
fn pm4_decodes_with_pops_decode() {
    use std::io::Write;
    use std::process::Stdio;
    for (chip, mode, samples) in [
        ("raven", "sample-ordered", "8"),
        ("navi10", "pixel-ordered", "4"),
        ("navi21", "pixel-unordered", "2"),
        ("navi31", "sample-ordered", "4"),
        ("gfx1151", "none", "1"),
    ] {
        let doc = json(&["--chip", chip, "--interlock", mode, "--samples", samples]);
        let text: Vec<String> = doc["pm4"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| format!("{:08x}", w.as_u64().unwrap()))
            .collect();
        let mut child = Command::new(env!("CARGO_BIN_EXE_pops"))
            .args(["decode", "--gfx", chip, "-", "--json"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(text.join(" ").as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{chip}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let dec: Value = serde_json::from_slice(&out.stdout).unwrap();
        let regs = doc["registers"].as_object().unwrap();
        let mut n = 0;
        for p in dec["packets"].as_array().unwrap() {
            for w in p["writes"].as_array().unwrap() {
                let name = w["register"].as_str().unwrap();
                let r = &regs[name];
                assert_eq!(w["address"], r["address"], "{chip} {name}");
                assert_eq!(w["value"], r["value"], "{chip} {name}");
                assert_eq!(w["fields"], r["fields"], "{chip} {name}");
                n += 1;
            }
        }
        assert_eq!(n, regs.len(), "{chip}: every register decoded once");
    }
}

/// Sample-rate shading and mixed colour samples are inputs: PS_ITER_SAMPLE and DB_EQAA's
/// PS_ITER_SAMPLES follow sample shading (as RADV programs them); colour samples below the
/// rasterization samples change no POPS field; colour samples above them are refused.
#[test]
fn sample_shading_and_colour_samples() {
    let base = [
        "--chip",
        "navi31",
        "--interlock",
        "sample-ordered",
        "--samples",
        "4",
    ];
    let plain = json(&base);
    let mut a = base.to_vec();
    a.push("--sample-shading");
    let shaded = json(&a);
    let f = |d: &Value, r: &str, f: &str| d["registers"][r]["fields"][f].as_u64().unwrap();
    assert_eq!(f(&plain, "PA_SC_MODE_CNTL_1", "PS_ITER_SAMPLE"), 0);
    assert_eq!(f(&shaded, "PA_SC_MODE_CNTL_1", "PS_ITER_SAMPLE"), 1);
    assert_eq!(f(&plain, "DB_EQAA", "PS_ITER_SAMPLES"), 0);
    assert_eq!(f(&shaded, "DB_EQAA", "PS_ITER_SAMPLES"), 2);
    assert_eq!(f(&shaded, "PA_CL_VRS_CNTL", "SAMPLE_ITER_COMBINER_MODE"), 1);
    let mut a = base.to_vec();
    a.extend(["--color-samples", "2"]);
    assert_eq!(json(&a)["registers"], plain["registers"]);
    let mut a = base.to_vec();
    a.extend(["--color-samples", "8"]);
    refused(&a, "colour attachment sample count 8 is not supported");
}

/// "However, if PA_SC_VRS_SURFACE_CNTL_1.FORCE_SC_VRS_RATE_FINE_POPS is set, enabling POPS will
/// force 1x1 shading rate." The register is kernel-owned: the flag changes the assumption, the
/// features and the diagnostics, never a register write.
#[test]
fn force_vrs_fine_pops_is_a_kernel_assumption() {
    let base = ["--chip", "navi31", "--interlock", "pixel-ordered", "--vrs"];
    let d = json(&base);
    let mut a = base.to_vec();
    a.push("--force-vrs-fine-pops");
    let k = json(&a);
    assert_eq!(k["registers"], d["registers"]);
    assert_eq!(k["pm4"], d["pm4"]);
    assert_eq!(k["kernel_assumptions"]["force_vrs_rate_fine_pops"], true);
    assert_eq!(d["kernel_assumptions"]["force_vrs_rate_fine_pops"], false);
    assert_eq!(
        k["features"]["fragmentShadingRateWithFragmentShaderInterlock"],
        false
    );
    assert_eq!(
        d["features"]["fragmentShadingRateWithFragmentShaderInterlock"],
        true
    );
    assert!(k["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .any(|x| x["code"] == "pops-forces-vrs-1x1"));
    let text = String::from_utf8_lossy(&pops(&a).stdout).into_owned();
    assert!(text.contains("kernel-owned state assumed"), "{text}");
    assert!(!text.contains("PA_SC_VRS_SURFACE_CNTL_1 @"), "{text}");
    let help = Command::new(env!("CARGO_BIN_EXE_pops"))
        .args(["state", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("kernel-owned"), "{help}");
}

/// Each target's export format follows its attachment format and blending (SPI_SHADER_EX_FORMAT
/// values of the register database: 32_R 1, FP16_ABGR 4, 32_ABGR 9); a format that is not a
/// colour format is refused by name.
#[test]
fn colour_formats_choose_each_targets_export() {
    let doc = json(&[
        "--chip",
        "vega10",
        "--interlock",
        "pixel-ordered",
        "--targets",
        "3",
        "--color-formats",
        "R8_UNORM,R16G16B16A16_SFLOAT,R32G32B32A32_SFLOAT",
    ]);
    let f = &doc["registers"]["SPI_SHADER_COL_FORMAT"]["fields"];
    assert_eq!(f["COL0_EXPORT_FORMAT"], 1, "R8_UNORM without RB+");
    assert_eq!(f["COL1_EXPORT_FORMAT"], 4);
    assert_eq!(f["COL2_EXPORT_FORMAT"], 9);
    assert_eq!(f["COL3_EXPORT_FORMAT"], 0);
    let navi21 = json(&[
        "--chip",
        "navi21",
        "--interlock",
        "pixel-ordered",
        "--color-formats",
        "R8_UNORM",
    ]);
    assert_eq!(
        navi21["registers"]["SPI_SHADER_COL_FORMAT"]["fields"]["COL0_EXPORT_FORMAT"], 4,
        "R8_UNORM with RB+"
    );
    let out = pops(&[
        "--chip",
        "navi21",
        "--interlock",
        "pixel-ordered",
        "--color-formats",
        "D32_SFLOAT",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown colour attachment format \"D32_SFLOAT\""),
        "{err}"
    );
}
