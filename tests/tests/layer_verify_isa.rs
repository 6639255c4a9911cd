//! The layer's `verify_isa` setting through the loader: verdicts kept by the driver's key, the
//! code capture changing no machine code, shader objects' code read, another layer above, and the
//! verdicts on the driver's code on every chip of each Mesa.
#![allow(clippy::too_many_lines)] // test code: each scenario reads top to bottom as one Vulkan sequence

mod common;

use common::*;

/// The `verify_isa` setting keeps each verdict under the driver's key of the pipeline's create
/// info (VK_KHR_pipeline_binary: equal keys promise the same binaries), in a file of the
/// `verify_isa_cache` directory named for the driver build, the pops build and the chip. A later
/// run whose pipelines have keys verified before creates them as the application asked — the
/// driver is not asked to keep its code — and gives their records the kept verdict: shown by
/// planting a verdict of our own in the file, which the next run reports for exactly the keyed
/// pipelines (linked pipelines, whose capture follows their libraries', are verified anew). With
/// the setting off nothing is written. On both Mesa versions' RADV.
#[test]
fn verify_isa_keeps_verdicts_by_the_drivers_key() {
    for mesa in pops_testkit::mesa::all_or_skip() {
        let at = mesa.label();
        let dir = pops_testkit::scratch("verify-isa-kept");
        let cache = dir.join("cache");
        // Each interlocked pipeline's source and `isa-` codes, in creation order, and how many
        // pipelines took a kept verdict.
        let run = |name: &str, cache: &std::ffi::OsStr| {
            let report = dir.join(format!("{name}.jsonl"));
            let out = radv_with(&mesa, "pipelines", "navi31")
                .with_layers(&[LAYER])
                .env("VK_POPS_INTERLOCK_REPORT", &report)
                .env("VK_POPS_INTERLOCK_VERIFY_ISA", "1")
                .env("VK_POPS_INTERLOCK_VERIFY_ISA_CACHE", cache)
                .env("VK_POPS_INTERLOCK_LOG", "debug")
                .run();
            assert!(check_ok(&out, &format!("{name} on {at}")));
            let interlocked: Vec<(Source, Vec<&str>)> = records(&report)
                .iter()
                .filter(|r| is_interlocked_pipeline(r))
                .map(|r| (r.source, isa_codes(r)))
                .collect();
            let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
            (
                interlocked,
                stderr.matches("verified before").count(),
                stderr,
            )
        };
        let files = || -> Vec<std::path::PathBuf> {
            std::fs::read_dir(&cache)
                .map(|d| d.map(|e| e.unwrap().path()).collect())
                .unwrap_or_default()
        };
        // Off: every pipeline verified, nothing kept anywhere.
        let (off, _, _) = run("off", "off".as_ref());
        assert!(off.iter().all(|(_, c)| c.len() == 1), "{at}: {off:?}");
        assert!(files().is_empty(), "{at}: {:?}", files());
        // The first run with a directory: the same verdicts, one line per key written down.
        let (first, _, said) = run("first", cache.as_os_str());
        assert_eq!(first, off, "{at}");
        // What a kept verdict rests on: the code is read from the pipeline's binaries, asked
        // for with VK_PIPELINE_CREATE_2_CAPTURE_DATA_BIT_KHR, and both RADV versions give a
        // create info the same key with and without that flag (the same binaries, by the
        // specification), and the layer says so. (RADV 26's key changes with the capture of
        // the printed code, which the layer asks for only where it cannot read binaries.)
        let same = said.contains(
            "the same key with and without the capture of its code (VK_PIPELINE_CREATE_2_CAPTURE_DATA_BIT_KHR)",
        );
        let changes = said.contains("key of a pipeline changes with the capture");
        assert!(same && !changes, "{at}: {said}");
        assert!(
            !said.contains("not code the layer can read"),
            "{at}: {said}"
        );
        let kept = files();
        assert_eq!(kept.len(), 1, "{at}: {kept:?}");
        let name = kept[0].file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            name.starts_with("verify-isa-navi31-") && name.ends_with(".jsonl"),
            "{name}"
        );
        let text = std::fs::read_to_string(&kept[0]).unwrap();
        let keyed = first.iter().filter(|(s, _)| *s != Source::Library).count();
        assert!(
            keyed >= 2,
            "{at}: a module's and an inline stage's pipeline: {first:?}"
        );
        let lines = text.lines().count();
        assert!(
            (1..=keyed).contains(&lines),
            "{at}: {lines} verdicts for {keyed} pipelines"
        );
        // Plant a verdict of our own under every kept key (a rule no run here breaks).
        let planted: String = text
            .lines()
            .map(|l| {
                let mut v: Value = serde_json::from_str(l).unwrap();
                v["diagnostics"] = serde_json::json!([
                    {"severity": "error", "code": "isa-wait-without-sleep", "message": "planted"}
                ]);
                format!("{v}\n")
            })
            .collect();
        std::fs::write(&kept[0], &planted).unwrap();
        let (second, reused, _) = run("second", cache.as_os_str());
        assert_eq!(second.len(), first.len(), "{at}");
        for ((source, codes), (_, before)) in second.iter().zip(&first) {
            if *source == Source::Library {
                assert_eq!(codes, before, "{at}: a linked pipeline is verified anew");
            } else {
                assert_eq!(codes, &["isa-wait-without-sleep"], "{at}: {source:?}");
            }
        }
        assert!(
            reused >= keyed,
            "{at}: {reused} pipelines took a kept verdict, {keyed} keyed"
        );
        assert_eq!(
            std::fs::read_to_string(&kept[0]).unwrap(),
            planted,
            "{at}: nothing new written"
        );
    }
}

/// What `verify_isa` rests on, held to the driver itself (no layer): the machine code of a
/// pipeline created with its internal representations captured — the code the layer verifies —
/// is the code of the same pipeline created as an application creates it. The application's
/// pipeline's binaries come from VK_KHR_pipeline_binary (created with only
/// VK_PIPELINE_CREATE_2_CAPTURE_DATA_BIT_KHR, which changes nothing but the driver's cache use);
/// the captured one's code is read back from the encodings its "Assembly" lists after each
/// instruction. Every corpus shader, on both Mesa versions: RADV 26.2.6, whose key changes with
/// the capture, and RADV 25.0.7, whose key does not. The host's RADV has no encodings for
/// GFX11.5 and GFX12 (its LLVM predates them); today's does. The reader of the binaries that
/// `verify_isa` uses in place of the capture is held to the same code, and the keys verdicts
/// are kept under to the driver: the same with the binaries flag on both versions, another with
/// the printed representations on RADV 26 only.
#[test]
fn the_capture_changes_no_machine_code() {
    for mesa in pops_testkit::mesa::all_or_skip() {
        let at = mesa.label();
        let families = code_families(&mesa);
        for family in families {
            let out = radv_with(&mesa, "capture-code", family)
                .env("POPS_SCENARIO_CODE_QUERIES", "1")
                .run();
            assert!(check_ok(&out, &format!("capture-code on {at} {family}")));
            let lines = json_lines(&out.stdout);
            // The corpus, and again with blending dynamic (a jump into a PS epilog).
            assert_eq!(lines.len(), 24, "{at} {family}: the corpus, twice");
            for v in &lines {
                let what = format!(
                    "{at} {family} {} x{} dynamic blend {}",
                    v["shader"], v["samples"], v["dynamic_blend"]
                );
                let code = code_of(v["assembly"].as_str().unwrap());
                assert!(code.len() >= 16, "{what}: no encodings listed");
                let binaries: Vec<Vec<u8>> = v["binaries"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|b| unhex(b.as_str().unwrap()))
                    .collect();
                assert!(
                    binaries
                        .iter()
                        .any(|b| b.windows(code.len()).any(|w| w == code)),
                    "{what}: the captured code ({} bytes) is not in the application's binaries",
                    code.len()
                );
                // What the layer reads instead of the capture: the fragment shader's binary is
                // the pipeline's last (no geometry, task or mesh stage), and its instructions,
                // found by their header's sizes, are exactly the captured code.
                // The key a verdict is kept under is the same with the binaries flag (both
                // versions: the layer reads binaries without changing the key); with the
                // printed representations RADV 26's key changes, RADV 25's does not.
                let keys = &v["keys"];
                assert_eq!(keys["plain"], keys["data"], "{what}");
                match mesa {
                    Mesa::Host => assert_eq!(keys["plain"], keys["representations"], "{what}"),
                    Mesa::Current { .. } => {
                        assert_ne!(keys["plain"], keys["representations"], "{what}")
                    }
                }
                let last = binaries.last().unwrap();
                let read = shaders::verify::radv_binary::machine_code(last)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                assert!(
                    read == &code[..],
                    "{what}: the binary's code ({} bytes) is not the captured code ({} bytes)",
                    read.len(),
                    code.len()
                );
            }
        }
    }
}

/// The layer reads a fragment shader object's code from its binary data
/// (vkGetShaderBinaryDataEXT), held to the driver with no layer: every corpus shader created as a
/// fragment shader object, its binary data read by `shader_object_shader` and `machine_code`,
/// equals, encoding by encoding, the disassembly RADV prints of the same shader when it compiles
/// it (`RADV_DEBUG=ps,asm`, in a second run), on both Mesa versions, GFX9 to GFX12.
#[test]
fn the_shader_object_reader_reads_the_drivers_code() {
    use shaders::verify::radv_binary::{machine_code, shader_object_shader};
    for mesa in pops_testkit::mesa::all_or_skip() {
        let at = mesa.label();
        let families = code_families(&mesa);
        for family in families {
            let plain = radv_with(&mesa, "shader-object-code", family)
                .env("POPS_SCENARIO_CODE_QUERIES", "1")
                .run();
            if !check_ok(&plain, &format!("shader-object-code on {at} {family}")) {
                continue;
            }
            let printed = radv_with(&mesa, "shader-object-code", family)
                .env("POPS_SCENARIO_CODE_QUERIES", "1")
                .env("RADV_DEBUG", "ps,asm")
                .run();
            assert!(check_ok(
                &printed,
                &format!("shader-object-code on {at} {family} with RADV_DEBUG=ps,asm")
            ));
            // RADV prints each fragment shader as "Pixel Shader", "disasm:", then its code; the
            // constant data after it is not code.
            let stderr = String::from_utf8_lossy(&printed.stderr);
            let blocks: Vec<Vec<u8>> = stderr
                .split("Pixel Shader\ndisasm:\n")
                .skip(1)
                .map(|b| {
                    code_of(
                        b.split("constant data")
                            .next()
                            .unwrap_or(b)
                            .split("\n\n")
                            .next()
                            .unwrap_or(b),
                    )
                })
                .collect();
            let lines = json_lines(&plain.stdout);
            assert_eq!(
                blocks.len(),
                lines.len(),
                "{at} {family}: one disassembly per shader object:\n{stderr}"
            );
            for (v, listed) in lines.iter().zip(&blocks) {
                let what = format!("{at} {family} {}", v["shader"]);
                assert!(listed.len() >= 16, "{what}: no encodings listed");
                let data = unhex(v["data"].as_str().unwrap());
                let shader = shader_object_shader(&data).unwrap_or_else(|e| panic!("{what}: {e}"));
                let read = machine_code(shader).unwrap_or_else(|e| panic!("{what}: {e}"));
                assert!(
                    read == &listed[..],
                    "{what}: the shader object's code ({} bytes) is not what RADV printed ({} bytes)",
                    read.len(),
                    listed.len()
                );
            }
        }
    }
}

/// Above another layer, `verify_isa` does not ask for pipeline keys: a layer that wraps handles
/// and does not know VK_KHR_pipeline_binary (the host's validation layer, 1.3.239) would pass
/// the key query the wrapped handles of the create info, and the driver would crash on them.
/// With the validation layer below ours, every pipeline is verified, nothing is kept, the layer
/// says why, and validation reports exactly what it reports without the setting.
#[test]
fn verify_isa_above_another_layer_asks_for_no_key() {
    if !have_validation_layer() {
        return;
    }
    if !have_icd(RADV_ICD) {
        return;
    }
    let dir = pops_testkit::scratch("verify-isa-stacked");
    let run = |verify: &str| {
        let out = radv("pipelines", "navi31")
            .env("POPS_SCENARIO_BASIC", "1")
            .env(
                "POPS_SCENARIO_SHADERS",
                "pixel_interlock_ordered.frag:4,color.frag:1",
            )
            .with_layers(&[LAYER, "VK_LAYER_KHRONOS_validation"])
            .env("VK_POPS_INTERLOCK_VERIFY_ISA", verify)
            .env("VK_POPS_INTERLOCK_VERIFY_ISA_CACHE", &dir)
            .run();
        assert!(check_ok(
            &out,
            &format!("validation below, verify_isa={verify}")
        ));
        out
    };
    let (off, on) = (run("0"), run("1"));
    assert_eq!(vuids(&on), vuids(&off));
    let stderr = String::from_utf8_lossy(&on.stderr);
    assert!(stderr.contains("another layer lies below"), "{stderr}");
    assert!(
        std::fs::read_dir(&dir).unwrap().next().is_none(),
        "nothing kept"
    );
}

/// The `verify_isa` setting: the layer enables VK_KHR_pipeline_executable_properties, reads the
/// driver's compiled code of each interlocked pipeline, verifies it as `pops verify-isa` does,
/// and says so on the pipeline's records. Stock RADV: every interlocked pipeline's code keeps
/// every rule, linked pipelines' included — a complete pipeline's code read from its pipeline
/// binary, a linked one's from the "Assembly" its libraries were captured with (LLVM prints
/// every instruction's encoding). The RADV that records command buffers (built without LLVM,
/// so its "Assembly" would be ACO's program listing without encodings): every draw record's
/// code is verified from the pipeline binary, and a shader object's from its binary data
/// (vkGetShaderBinaryDataEXT). Without the setting nothing of it appears.
#[test]
fn verify_isa_reports_on_the_drivers_code() {
    if have_icd(RADV_ICD) {
        for family in ["vega10", "navi21", "navi31"] {
            let dir = pops_testkit::scratch(&format!("verify-isa-{family}"));
            let report_path = dir.join("report.jsonl");
            let out = radv("pipelines", family)
                .with_layers(&[LAYER])
                .env("VK_POPS_INTERLOCK_REPORT", &report_path)
                .env("VK_POPS_INTERLOCK_VERIFY_ISA", "1")
                .run();
            assert!(check_ok(
                &out,
                &format!("pipelines on RADV {family} with verify_isa")
            ));
            let records = records(&report_path);
            let interlocked: Vec<&Record> = records
                .iter()
                .filter(|r| is_interlocked_pipeline(r))
                .collect();
            assert!(!interlocked.is_empty(), "{family}: {records:?}");
            // Every interlocked pipeline's code keeps every rule: those with their own fragment
            // stage (module, inline) and those linked from graphics pipeline libraries.
            for r in &interlocked {
                assert_eq!(isa_codes(r), ["isa-verified"], "{family}: {r:?}");
                let from = if r.source == Source::Library {
                    "RADV/ACO assembly"
                } else {
                    "RADV shader binary"
                };
                assert!(
                    r.diagnostics.iter().any(|d| d.message.contains(from)),
                    "{family}: {r:?}"
                );
            }
            assert!(
                interlocked.iter().any(|r| r.source == Source::Library),
                "{family}: a linked pipeline's code verified: {interlocked:?}"
            );
            assert!(
                interlocked
                    .iter()
                    .filter(|r| r.source != Source::Library)
                    .count()
                    >= 2,
                "{family}: a module's and an inline stage's code verified"
            );
            // Libraries themselves carry no finding: their code is verified where it is linked.
            assert!(records
                .iter()
                .filter(|r| r.kind == Kind::Library)
                .all(|r| isa_codes(r).is_empty()));
        }
    }
    let Some(icd) = oracle_icd() else {
        return;
    };
    // Each draw record of `scenario` run with the setting carries one `isa-` diagnostic, of
    // `code`, whose message says `says`.
    let each_draw_says = |family: &str, scenario: &str, code: &str, says: &str| {
        let run = run_on_oracle_with(
            &icd,
            family,
            scenario,
            &[("VK_POPS_INTERLOCK_VERIFY_ISA", "1")],
        );
        assert!(!run.draws.is_empty(), "{family} {scenario}");
        for r in &run.draws {
            let isa: Vec<_> = r
                .diagnostics
                .iter()
                .filter(|d| matches!(d.code, pops_report::Code::Isa(_)))
                .collect();
            assert_eq!(isa.len(), 1, "{family}: {r:?}");
            assert_eq!(isa[0].code.name(), code, "{family}: {r:?}");
            assert!(isa[0].message.contains(says), "{r:?}");
        }
    };
    for family in ["vega10", "navi21", "navi31"] {
        // This RADV (no LLVM) prints only ACO's program listing; the layer reads the code from
        // the pipeline binaries instead.
        each_draw_says(family, "draws", "isa-verified", "RADV shader binary");
        // Shader objects: their code is read from their binary data (vkGetShaderBinaryDataEXT),
        // and their exports are always in a PS epilog.
        each_draw_says(
            family,
            "draws-shader-objects",
            "isa-verified",
            "exports in a PS epilog",
        );
        let plain = run_on_oracle(&icd, family, "draws");
        for r in &plain.draws {
            assert!(isa_codes(r).is_empty(), "{family}: {r:?}");
        }
    }
}

/// An application that dies right after creating an interlocked pipeline (as Zink's
/// shader_runner does when it aborts in its teardown) still leaves the pipeline's record, with
/// the verdict on the driver's code, in the report: with `verify_isa` the verdict is reached on
/// the layer's thread after vkCreateGraphicsPipelines returned, and that thread writes the record
/// once it is given — the scenario makes no Vulkan call after the creation, waits until a
/// pipeline record is in the file, and aborts (no exit handler runs).
#[test]
fn records_survive_an_application_that_dies_after_creating() {
    let Some(icd) = oracle_icd() else {
        return;
    };
    for family in ["vega10", "navi31"] {
        let dir = pops_testkit::scratch(&format!("die-after-creating-{family}"));
        let report_path = dir.join("report.jsonl");
        let out = Scenario::new(BIN, "die-after-creating", icd.to_str().unwrap())
            .env("RADV_FORCE_FAMILY", family)
            .env("MESA_SHADER_CACHE_DISABLE", "true")
            .with_layers(&[LAYER])
            .env("VK_POPS_INTERLOCK_REPORT", &report_path)
            .env("VK_POPS_INTERLOCK_VERIFY_ISA", "1")
            // No verdicts from an earlier run: this pipeline's is reached after its creation.
            .env("VK_POPS_INTERLOCK_VERIFY_ISA_CACHE", "off")
            .run();
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(
            out.status.signal(),
            Some(6),
            "{family}: the scenario aborts: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let said = json_lines(&out.stdout);
        assert_eq!(
            said.first()
                .and_then(|v| v["pipeline_record_written"].as_bool()),
            Some(true),
            "{family}: no pipeline record was written without a further call: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let records = records(&report_path);
        let isa: Vec<Vec<&str>> = records
            .iter()
            .filter(|r| r.kind == Kind::Pipeline)
            .map(isa_codes)
            .collect();
        assert_eq!(isa, [["isa-verified"]], "{family}: {records:?}");
    }
}
