//! `pops verify-isa` as a program: ACO's real assembly (stock RADV's "Assembly" of an
//! interlocked shader that discards before and after its ordered section, `tests/data/`) is
//! clean with status 0; a broken copy names the rule, the instruction and a path with status 1;
//! text that is not code is status 2; standard input and JSON work.

use std::io::Write;
use std::process::{Command, Stdio};

fn data(name: &str) -> String {
    format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn pops(args: &[&str], stdin: Option<&str>) -> (Option<i32>, String, String) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_pops"))
        .arg("verify-isa")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(s) = stdin {
        c.stdin.take().unwrap().write_all(s.as_bytes()).unwrap();
    }
    drop(c.stdin.take());
    let o = c.wait_with_output().unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// `pops verify-isa ARGS`, which must exit 0 and say the code is clean; its standard output.
fn clean(args: &[&str]) -> String {
    let (code, out, err) = pops(args, None);
    assert_eq!(code, Some(0), "{args:?}: {out}{err}");
    assert!(
        out.contains("clean: every rule holds on every path"),
        "{out}"
    );
    out
}

#[test]
fn acos_code_is_clean_on_each_level() {
    for (chip, file) in [
        ("vega10", "aco-vega10-discards.txt"),
        ("navi21", "aco-navi21-discards.txt"),
        ("navi31", "aco-navi31-discards.txt"),
        ("navi21", "aco-navi21-epilog.txt"),
    ] {
        let out = clean(&["--chip", chip, &data(file)]);
        assert!(out.contains("model: the entry sequence"), "{out}");
    }
    let (_, out, _) = pops(&["--chip", "navi21", &data("aco-navi21-epilog.txt")], None);
    assert!(out.contains("1 jump(s) into a PS epilog"), "{out}");
    assert!(
        out.contains("exports of paths that jump into the PS epilog are the epilog's"),
        "{out}"
    );
}

/// The done message of the ordered section removed: every exit after the packer setup misses
/// it; the finding names the rule's sentence, the instruction and a path.
#[test]
fn a_missing_done_is_named_with_its_path() {
    let text = std::fs::read_to_string(data("aco-navi21-discards.txt")).unwrap();
    let broken = text.replacen(
        "\ts_sendmsg sendmsg(MSG_ORDERED_PS_DONE)                      ; bf900007",
        "\ts_nop 0 ; bf800000",
        1,
    );
    assert_ne!(broken, text);
    let (code, out, _) = pops(&["--chip", "navi21", "-"], Some(&broken));
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("ordered-ps-done-missing: s_endpgm after the packer register was set"),
        "{out}"
    );
    assert!(out.contains("path: 0x0000 -> "), "{out}");
    assert!(
        out.contains("must not execute s_endpgm without having sent ORDERED_PS_DONE once"),
        "{out}"
    );
    let (code, json, _) = pops(&["--chip", "navi21", "--json", "-"], Some(&broken));
    assert_eq!(code, Some(1));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["chip"], "navi21");
    assert_eq!(v["input"], "RADV/ACO assembly");
    assert!(v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .all(|f| f["rule"] == "ordered-ps-done-missing" && f["path"][0] == 0));
    assert!(v["model"]["runs"].as_u64().unwrap() > 0);
}

#[test]
fn input_that_is_not_code_is_status_2() {
    let (code, _, err) = pops(&["--chip", "navi21", "-"], Some("hello, shader\n"));
    assert_eq!(code, Some(2));
    assert!(err.contains("not navi21 code"), "{err}");
    let (code, _, err) = pops(&["--chip", "navi21", "/nonexistent.s"], None);
    assert_eq!(code, Some(2));
    assert!(err.contains("cannot read /nonexistent.s"), "{err}");
    let (code, _, err) = pops(&["--chip", "gfx42", "-"], Some(""));
    assert_eq!(code, Some(2));
    assert!(err.contains("--chip"), "{err}");
}

/// Raw code words read as the assembly does.
#[test]
fn raw_words_verify_like_the_assembly() {
    let text = std::fs::read_to_string(data("aco-vega10-discards.txt")).unwrap();
    let words: String = text
        .lines()
        .filter_map(|l| l.rsplit_once(';').map(|(_, w)| w.trim().to_string()))
        .collect::<Vec<_>>()
        .join("\n");
    let (code, out, err) = pops(&["--chip", "vega10", "-"], Some(&words));
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("raw code words: 38 instructions"), "{out}");
}

/// A RADV pipeline binary's data (`vkGetPipelineBinaryDataKHR` of the fragment shader, RADV
/// 25.0.7, navi21) verifies as the "Assembly" of the same pipeline does: the same instructions.
#[test]
fn a_radv_pipeline_binary_verifies_like_its_assembly() {
    let from_text = clean(&["--chip", "navi21", &data("radv-navi21-pixel-interlock.txt")]);
    let from_binary = clean(&[
        "--chip",
        "navi21",
        &data("radv-navi21-pixel-interlock.binary"),
    ]);
    let count = |out: &str| {
        out.split_once(" instructions")
            .map(|(a, _)| a.rsplit(' ').next().unwrap().to_string())
            .unwrap()
    };
    assert!(
        from_binary.contains("RADV shader binary: "),
        "{from_binary}"
    );
    assert_eq!(
        count(&from_binary),
        count(&from_text),
        "{from_binary}\n{from_text}"
    );
}

/// Today's ACO's epilog store gap (RADV 26.2.6, gfx1150, blending dynamic: the fragment shader
/// jumps into a PS epilog with its last store outstanding) is found in the pipeline binary as in
/// its "Assembly": the same rule at the same jump, named from its encoding.
#[test]
fn the_epilog_store_gap_is_found_in_a_binary() {
    let finding = |file: &str| {
        let (code, out, err) = pops(&["--chip", "gfx1150", &data(file)], None);
        assert_eq!(code, Some(1), "{file}: {out}{err}");
        let at = out
            .lines()
            .find(|l| l.trim_start().starts_with("at 0x"))
            .unwrap_or_else(|| panic!("{out}"))
            .trim()
            .to_string();
        assert!(out.contains("ordered-section-open-at-epilog"), "{out}");
        at
    };
    let from_binary = finding("radv26-gfx1150-oit-dynamic-blend.binary");
    let from_text = finding("radv26-gfx1150-oit-dynamic-blend.txt");
    assert_eq!(from_binary, "at 0x01d0: s_setpc_b64 [be804804]");
    assert!(
        from_text.starts_with("at 0x01d0: s_setpc_b64"),
        "{from_text}"
    );
}

/// ACO's program listing (RADV without a disassembler for the chip: no encodings) verifies as
/// the encoded assembly of the same shader does; its done message removed names the same rule.
#[test]
fn acos_program_listing_verifies_like_its_assembly() {
    for (chip, file) in [
        ("navi21", "aco-listing-navi21-discards.txt"),
        ("navi31", "aco-listing-navi31-discards.txt"),
    ] {
        let out = clean(&["--chip", chip, &data(file)]);
        assert!(
            out.contains("RADV/ACO program listing (no encodings)"),
            "{out}"
        );
        assert!(out.contains("model: the entry sequence"), "{out}");
    }
    // GFX11.5's scalar float instructions (s_cvt_f32_i32, s_cvt_f32_u32,
    // s_floor_f32, s_ceil_f32, s_mul_f32, s_add_f32, s_cvt_pk_rtz_f16_f32), in RADV 25.0.7's
    // listing of a shader converting push constants, are read: every rule holds.
    let out = clean(&[
        "--chip",
        "gfx1150",
        &data("aco-listing-gfx1150-salu-float.txt"),
    ]);
    assert!(
        out.contains("RADV/ACO program listing (no encodings)"),
        "{out}"
    );
    let text = std::fs::read_to_string(data("aco-listing-navi21-discards.txt")).unwrap();
    let broken = text.replacen("\ts_sendmsg sendmsg(ordered_ps_done)", "\ts_nop", 1);
    assert_ne!(broken, text);
    let (code, out, _) = pops(&["--chip", "navi21", "-"], Some(&broken));
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("ordered-ps-done-missing: s_endpgm after the packer register was set"),
        "{out}"
    );
    // An instruction pops cannot assemble is named with its line: not code (status 2).
    let unknown = text.replacen("s_bitcmp1_b32", "s_bitcmp7_b32", 1);
    let (code, _, err) = pops(&["--chip", "navi21", "-"], Some(&unknown));
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("`s_bitcmp7_b32`"), "{err}");
}

/// `--compile`: a SPIR-V module compiled by the installed RADV for the chip (null hardware) and
/// its code verified — clean for the corpus's OIT shader, with its exports in a PS epilog where
/// blending is dynamic, and on GFX11.5 (read from ACO's program listing); a module without the
/// fragment entry point, or not SPIR-V, is status 2 with the reason.
#[test]
fn a_spirv_module_is_compiled_by_radv_and_verified() {
    if !std::path::Path::new("/usr/share/vulkan/icd.d/radeon_icd.json").exists() {
        pops_testkit::missing("RADV (mesa-vulkan-drivers) not installed");
        return;
    }
    let dir = pops_testkit::scratch("verify-compile");
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str| {
        let s = shaders::corpus::get(name).unwrap();
        let p = dir.join(format!("{name}.spv"));
        std::fs::write(&p, s.spirv).unwrap();
        p.to_string_lossy().into_owned()
    };
    let oit = write("oit_interlock.frag");
    for chip in ["vega10", "navi21", "navi31"] {
        clean(&["--chip", chip, "--compile", &oit]);
    }
    let out = clean(&["--chip", "gfx1150", "--compile", &oit]);
    assert!(out.contains("RADV/ACO program listing"), "{out}");
    // A driver chosen with VK_DRIVER_FILES is used: the RADV built without LLVM gives the listing.
    let oracle = format!(
        "{}/../target/radv-oracle/radeon_oracle_icd.json",
        env!("CARGO_MANIFEST_DIR")
    );
    if std::path::Path::new(&oracle).is_file() {
        let o = Command::new(env!("CARGO_BIN_EXE_pops"))
            .args(["verify-isa", "--chip", "navi21", "--compile", &oit])
            .env("VK_DRIVER_FILES", &oracle)
            .output()
            .unwrap();
        let out = String::from_utf8_lossy(&o.stdout);
        assert_eq!(o.status.code(), Some(0), "{out}");
        assert!(
            out.contains("navi21 (gfx10.3), RADV/ACO program listing"),
            "{out}"
        );
    } else {
        pops_testkit::missing("the RADV oracle is not built (target/radv-oracle)");
    }
    let (code, out, err) = pops(
        &[
            "--chip",
            "navi21",
            "--compile",
            "--dynamic-blend",
            "--samples",
            "4",
            &oit,
        ],
        None,
    );
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("1 jump(s) into a PS epilog"), "{out}");
    let (code, _, err) = pops(
        &["--chip", "navi21", "--compile", "--entry", "other", &oit],
        None,
    );
    assert_eq!(code, Some(2));
    assert!(
        err.contains("no fragment entry point named \"other\""),
        "{err}"
    );
    assert!(err.contains("[\"main\"]"), "{err}");
    let (code, _, err) = pops(
        &["--chip", "navi21", "--compile", "--samples", "3", &oit],
        None,
    );
    assert_eq!(code, Some(2));
    assert!(err.contains("3 samples"), "{err}");
    let vert = write("fullscreen.vert");
    let (code, _, err) = pops(&["--chip", "navi21", "--compile", &vert], None);
    assert_eq!(code, Some(2));
    assert!(err.contains("no fragment entry point"), "{err}");
    let (code, _, err) = pops(&["--chip", "navi21", "--compile", "-"], Some("hello"));
    assert_eq!(code, Some(2));
    assert!(err.contains("not SPIR-V"), "{err}");
}

/// `pops verify-isa --chip CHIP --compile MODULE` under `mesa`, with the installed RADV and no
/// RADV_FORCE_FAMILY.
fn compile_on(
    mesa: &pops_testkit::mesa::Mesa,
    chip: &str,
    module: &std::path::Path,
) -> std::process::Output {
    mesa.command(env!("CARGO_BIN_EXE_pops"))
        .args(["verify-isa", "--chip", chip, "--compile"])
        .arg(module)
        .env_remove("RADV_FORCE_FAMILY")
        .env_remove("VK_DRIVER_FILES")
        .env_remove("VK_ICD_FILENAMES")
        .output()
        .unwrap()
}

/// `--compile` without RADV_FORCE_FAMILY, which Mesa 26 removed: the module is compiled on a
/// drm-shim device of the chip (Mesa's own no-op shim, package mesa-drm-shim) by the RADV of
/// the host's Mesa (25.0.7) and of today's (26.x), and the output names the driver and device.
#[test]
fn a_spirv_module_compiles_on_a_drm_shim_device_with_each_mesa() {
    let dir = pops_testkit::scratch("verify-shim");
    std::fs::create_dir_all(&dir).unwrap();
    let oit = dir.join("oit.spv");
    std::fs::write(
        &oit,
        shaders::corpus::get("oit_interlock.frag").unwrap().spirv,
    )
    .unwrap();
    for mesa in pops_testkit::mesa::all_or_skip() {
        for chip in ["vega10", "raven", "navi10", "navi21", "navi31", "gfx1150"] {
            let o = compile_on(&mesa, chip, &oit);
            let (out, err) = (
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr),
            );
            let at = format!("{} {chip}", mesa.label());
            let version = mesa.version();
            assert!(
                err.contains(&format!("compiled by radv (Mesa {version})"))
                    && err.contains(&format!("on a drm-shim device ({})", mesa.noop_shim())),
                "{at}: {err}"
            );
            // Compiled and read as code; whether it is clean is the checker's to say.
            assert!(matches!(o.status.code(), Some(0 | 1)), "{at}: {out}{err}");
            assert!(
                out.contains(&format!("pops verify-isa: {chip} (")),
                "{at}: {out}"
            );
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A shader whose interlock the driver does not offer is refused by name before RADV sees it
/// (RADV on GFX9–GFX11 offers no shading-rate interlock, and crashes when asked for it anyway).
#[test]
fn an_interlock_the_driver_does_not_offer_is_refused() {
    let dir = pops_testkit::scratch("verify-refuse");
    std::fs::create_dir_all(&dir).unwrap();
    for mesa in pops_testkit::mesa::all_or_skip() {
        for name in [
            "shading_rate_interlock_ordered.frag",
            "shading_rate_interlock_unordered.frag",
        ] {
            let p = dir.join(format!("{name}.spv"));
            std::fs::write(&p, shaders::corpus::get(name).unwrap().spirv).unwrap();
            let o = compile_on(&mesa, "navi21", &p);
            let err = String::from_utf8_lossy(&o.stderr);
            let at = format!("{} {name}", mesa.label());
            assert_eq!(o.status.code(), Some(2), "{at}: {err}");
            assert!(
                err.contains("does not offer fragmentShaderShadingRateInterlock"),
                "{at}: {err}"
            );
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A binary file is named as binary data, its bytes never echoed into the message.
#[test]
fn a_binary_file_is_named_not_echoed() {
    let dir = pops_testkit::scratch("verify-binary");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("x.bin");
    std::fs::write(&p, [0x03u8, 0x02, 0x23, 0x07, 0xff, 0xfe, 0x00, 0x01]).unwrap();
    let (code, out, err) = pops(&["--chip", "navi31", p.to_str().unwrap()], None);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(code, Some(2), "{out}{err}");
    assert!(err.contains("8 bytes of binary data, not text"), "{err}");
    assert!(
        !err.contains('\u{fffd}') && !err.contains('\u{1}'),
        "{err:?}"
    );
}

/// Every POPS chip on every Mesa. Mesa 25.0's no-op drm-shim has no navi14,
/// navi23 or navi33 (RX 5500, 6600, 7600), which that RADV compiles for through
/// RADV_FORCE_FAMILY: the fallback says so and compiles. Today's shim has navi33, phoenix,
/// rembrandt and vega20 too: each compiles on it.
#[test]
fn every_chip_compiles_with_each_mesa_through_the_shim_or_the_fallback() {
    let dir = pops_testkit::scratch("verify-fallback");
    let oit = dir.join("oit.spv");
    std::fs::write(
        &oit,
        shaders::corpus::get("oit_interlock.frag").unwrap().spirv,
    )
    .unwrap();
    for mesa in pops_testkit::mesa::all_or_skip() {
        let (chips, how): (&[&str], fn(&str) -> String) = if mesa.major() == Some(25) {
            (&["navi14", "navi23", "navi33"], |c| {
                format!("on RADV's null hardware (RADV_FORCE_FAMILY={c})")
            })
        } else {
            (&["navi33", "phoenix", "rembrandt", "vega20"], |c| {
                format!("as {c}")
            })
        };
        for chip in chips {
            let o = compile_on(&mesa, chip, &oit);
            let (out, err) = (
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr),
            );
            let at = format!("{} {chip}", mesa.label());
            assert!(matches!(o.status.code(), Some(0 | 1)), "{at}: {out}{err}");
            assert!(err.contains(&how(chip)), "{at}: {err}");
            assert!(
                out.contains(&format!("pops verify-isa: {chip} (")),
                "{at}: {out}"
            );
        }
    }
}

/// The cells of a table's row: what two spaces or more stand between.
fn cells_of(line: &str) -> Vec<&str> {
    line.split("  ")
        .filter(|c| !c.is_empty())
        .map(str::trim)
        .collect()
}

/// Several inputs (files or a folder) are verified in parallel: a table with a row each in the
/// order given (input, instructions, verdict), the throughput, and a table of outcomes; the
/// status is the worst of them, an input that is not code is named in its row and never stops
/// the others; options of one input are refused.
#[test]
fn many_inputs_are_verified_in_parallel_with_a_summary() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../shaders/tests/aco");
    let dir = pops_testkit::scratch("batch");
    let junk = dir.join("junk.bin");
    std::fs::write(&junk, [0u8, 159, 146, 150, 0, 1, 2]).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_pops"))
        .args(["verify-isa", "--chip", "navi21", root])
        .arg(&junk)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(2), "{out}");
    let lines: Vec<&str> = out.lines().collect();
    let cells = cells_of;
    assert_eq!(
        cells(lines[0]),
        ["input", "instructions", "verdict"],
        "{out}"
    );
    let first = cells(lines[1]);
    assert!(
        first[0].ends_with("helper_twice_navi21_mesa25.s") && first[2] == "clean",
        "{out}"
    );
    assert!(first[1].parse::<usize>().is_ok_and(|n| n > 10), "{out}");
    assert!(
        lines[2].contains("helper_under_branch_navi21_mesa26.s") && lines[2].ends_with("  clean"),
        "{out}"
    );
    let junk_row = cells(lines[3]);
    assert!(
        junk_row[0].ends_with("junk.bin")
            && junk_row[1] == "-"
            && junk_row[2].starts_with("not read: 7 bytes of binary data"),
        "{out}"
    );
    assert_eq!(lines[4], "", "{out}");
    assert!(
        lines[5].starts_with("pops verify-isa: 3 input(s) as navi21; 2 verified in ")
            && lines[5].ends_with(" per second per thread"),
        "{out}"
    );
    let outcomes: Vec<Vec<&str>> = lines[6..].iter().map(|l| cells(l)).collect();
    assert_eq!(
        outcomes,
        [
            vec!["outcome", "inputs"],
            vec!["clean", "2"],
            vec!["with findings", "0"],
            vec!["not verified", "0"],
            vec!["not read", "1"],
        ],
        "{out}"
    );
    // The same as one JSON document: each input's verification or why it was not read, with
    // its status; the throughput on standard error.
    let o = Command::new(env!("CARGO_BIN_EXE_pops"))
        .args(["verify-isa", "--chip", "navi21", "--json", root])
        .arg(&junk)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    let doc: pops_report::VerifyIsaBatchDocument = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc.chip, "navi21");
    let statuses: Vec<u8> = doc.inputs.iter().map(|i| i.status).collect();
    assert_eq!(statuses, [0, 0, 2], "{doc:?}");
    assert!(
        doc.inputs[0].file.ends_with("helper_twice_navi21_mesa25.s")
            && doc.inputs[0]
                .verification
                .as_ref()
                .is_some_and(|v| v.findings.is_empty() && v.instructions > 10 && v.model.runs > 0),
        "{doc:?}"
    );
    assert!(
        doc.inputs[2].verification.is_none()
            && doc.inputs[2]
                .not_read
                .as_deref()
                .is_some_and(|w| w.contains("7 bytes of binary data")),
        "{doc:?}"
    );
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("3 input(s) as navi21; 2 verified in "),
        "{o:?}"
    );
    let o = Command::new(env!("CARGO_BIN_EXE_pops"))
        .args(["verify-isa", "--chip", "navi21", "--epilog"])
        .arg(&junk)
        .arg(root)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("--epilog verifies one input at a time"),
        "{o:?}"
    );
}

/// `--compile` over many modules in one process: each compiled by the RADV of
/// each Mesa one after another (the driver's time said apart), then verified in parallel, a row
/// each; with dynamic blending, the PS epilog each jumps into is verified across the jump:
/// today's Mesa leaves the ordered section open at the epilog on GFX11 (the known defect, named
/// once under the table), Debian 12's does not. `--save-code` keeps each module's code by name.
#[test]
fn many_modules_are_compiled_then_verified_in_parallel_with_each_mesa() {
    let dir = pops_testkit::scratch("batch-compile");
    let modules = dir.join("modules");
    std::fs::create_dir_all(&modules).unwrap();
    for name in ["oit_interlock.frag", "pixel_interlock_ordered.frag"] {
        let s = shaders::corpus::get(name).unwrap();
        std::fs::write(modules.join(format!("{name}.spv")), s.spirv).unwrap();
    }
    for mesa in pops_testkit::mesa::all_or_skip() {
        let saved = dir.join(format!("saved-{}", mesa.major().unwrap_or(0)));
        // The modules compiled by this Mesa's RADV (on a drm-shim of the chip), blending dynamic.
        let compile = |extra: &[&std::ffi::OsStr]| {
            mesa.command(env!("CARGO_BIN_EXE_pops"))
                .args([
                    "verify-isa",
                    "--chip",
                    "navi31",
                    "--compile",
                    "--dynamic-blend",
                ])
                .args(extra)
                .arg(&modules)
                .env_remove("RADV_FORCE_FAMILY")
                .env_remove("VK_DRIVER_FILES")
                .env_remove("VK_ICD_FILENAMES")
                .output()
                .unwrap()
        };
        let o = compile(&["--save-code".as_ref(), saved.as_os_str()]);
        let (out, err) = (
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr),
        );
        let at = mesa.label();
        assert!(
            err.contains(&format!(
                "2 of 2 module(s) compiled by radv (Mesa {}) on a drm-shim device",
                mesa.version()
            )) && err.contains(
                "one after another (the driver's time, apart from the verification below)"
            ),
            "{at}: {err}"
        );
        let gap = mesa.major() >= Some(26);
        let said = if gap {
            "  isa-ordered-section-open-at-epilog"
        } else {
            "  clean"
        };
        let lines: Vec<&str> = out.lines().collect();
        assert!(
            lines[1].contains("oit_interlock.frag.spv")
                && lines[2].contains("pixel_interlock_ordered.frag.spv")
                && lines[1..3].iter().all(|l| l.ends_with(said)),
            "{at}: {out}"
        );
        assert!(
            lines[4].starts_with("pops verify-isa: 2 input(s) as navi31; 2 verified in "),
            "{at}: {out}"
        );
        // What the finding is, said once under the table: the known defect of this Mesa.
        let defect = lines
            .iter()
            .find(|l| l.starts_with("isa-ordered-section-open-at-epilog "));
        match defect {
            Some(l) => assert!(
                gap && l.contains(" 2  known defect aco-epilog-store-gap of RADV ACO"),
                "{at}: {out}"
            ),
            None => assert!(!gap && !out.contains("finding "), "{at}: {out}"),
        }
        assert_eq!(o.status.code(), Some(gap as i32), "{at}: {out}{err}");
        // In JSON, each finding with its code and the known defect that explains it.
        let o = compile(&["--json".as_ref()]);
        let doc: pops_report::VerifyIsaBatchDocument = serde_json::from_slice(&o.stdout)
            .unwrap_or_else(|e| panic!("{at}: {e}: {}", String::from_utf8_lossy(&o.stderr)));
        for input in &doc.inputs {
            let v = input.verification.as_ref().expect("compiled");
            let named: Vec<(&str, Option<&str>)> = v
                .findings
                .iter()
                .map(|f| (f.code.as_str(), f.known_defect.as_deref()))
                .collect();
            let want: &[(&str, Option<&str>)] = if gap {
                &[(
                    "isa-ordered-section-open-at-epilog",
                    Some("aco-epilog-store-gap"),
                )]
            } else {
                &[]
            };
            assert_eq!(named, want, "{at}: {}", input.file);
            assert_eq!(input.status, gap as u8, "{at}: {}", input.file);
        }
        for f in [
            "oit_interlock.frag.fragment.s",
            "oit_interlock.frag.epilog.s",
            "pixel_interlock_ordered.frag.fragment.s",
        ] {
            assert!(saved.join(f).is_file(), "{at}: no {f}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
