//! The layer in the real Vulkan loader's chain, never hurting the application: lavapipe's frame
//! byte-identical with and without it, other layers above and below, threads, malformed SPIR-V,
//! several instances and devices, settings from every source, the installed manifests, debug
//! messengers, a panic contained, a dying application's records kept.
#![allow(clippy::too_many_lines)] // test code: each scenario reads top to bottom as one Vulkan sequence

mod common;

use common::*;

#[test]
fn lavapipe_frame_is_byte_identical_with_and_without_the_layer() {
    if !have_icd(LVP_ICD) {
        return;
    }
    let dir = pops_testkit::scratch("lavapipe");
    let without = dir.join("without.rgba");
    let with = dir.join("with.rgba");
    let out = Scenario::new(BIN, "render", LVP_ICD)
        .env("POPS_SCENARIO_OUT", &without)
        .run();
    if !check_ok(&out, "render on lavapipe") {
        return;
    }
    let report = dir.join("report.jsonl");
    let out = Scenario::new(BIN, "render", LVP_ICD)
        .with_layers(&[LAYER])
        .env("POPS_SCENARIO_OUT", &with)
        .env("VK_POPS_INTERLOCK_REPORT", &report)
        .env("VK_POPS_INTERLOCK_REPORT_ALL", "1")
        .run();
    assert!(check_ok(&out, "render on lavapipe with the layer"));
    let a = std::fs::read(&without).expect("frame without layer");
    let b = std::fs::read(&with).expect("frame with layer");
    assert_eq!(a.len(), 64 * 64 * 4);
    assert!(
        a.iter().any(|&x| x != 0 && x != 255),
        "the frame has content"
    );
    assert!(a == b, "frames differ with the layer");
    // The layer did see the pipeline.
    let rec = records(&report);
    assert_eq!(rec.len(), 1, "{rec:?}");
    assert!(rec[0].device.contains("llvmpipe"));
    assert_eq!(rec[0].chip, None, "lavapipe is not an AMD device");

    // A non-AMD device gets the chosen target chip when the chip setting names one.
    let report = dir.join("report-chip.jsonl");
    let out = Scenario::new(BIN, "render", LVP_ICD)
        .with_layers(&[LAYER])
        .env("POPS_SCENARIO_OUT", &with)
        .env("VK_POPS_INTERLOCK_REPORT", &report)
        .env("VK_POPS_INTERLOCK_REPORT_ALL", "1")
        .env("VK_POPS_INTERLOCK_CHIP", "navi21")
        .run();
    assert!(check_ok(&out, "render on lavapipe with a target chip"));
    let rec = records(&report);
    assert_eq!(rec[0].chip.as_deref(), Some("navi21"));
    assert_eq!(std::fs::read(&with).expect("frame"), a);

    // With the timing setting the frame is still the same, and its one submission has a
    // timing line with the GPU time lavapipe's timestamps measured (no interlock on lavapipe:
    // no ranges).
    let report = dir.join("report-timing.jsonl");
    let out = Scenario::new(BIN, "render", LVP_ICD)
        .with_layers(&[LAYER])
        .env("POPS_SCENARIO_OUT", &with)
        .env("VK_POPS_INTERLOCK_REPORT", &report)
        .env("VK_POPS_INTERLOCK_TIMING", "1")
        .run();
    assert!(check_ok(&out, "render on lavapipe with timing"));
    assert_eq!(
        std::fs::read(&with).expect("frame"),
        a,
        "timing changes nothing drawn"
    );
    let timing = timings(&report);
    assert_eq!(timing.len(), 1, "{timing:?}");
    assert_eq!(timing[0].scope, pops_report::TimingScope::Submission);
    assert_eq!(timing[0].index, Some(0));
    assert!(timing[0].gpu_ns.is_some_and(|n| n > 0), "{timing:?}");
    assert_eq!(timing[0].ranges, 0);
}

/// Our layer above and below VK_LAYER_KHRONOS_validation and VK_LAYER_MESA_overlay, on each
/// Mesa's RADV. Validation must report exactly the same findings with our layer in either
/// position as without it.
#[test]
fn stacked_with_validation_and_overlay() {
    if !have_icd(RADV_ICD) {
        return;
    }
    for mesa in pops_testkit::mesa::all_or_skip() {
        stacked_on(&mesa);
    }
}

/// The host's validation layer where a program under `mesa` finds it: the system's manifest
/// under the host's Mesa; under today's, whose root has no validation layer, a copy of the
/// host's library and a manifest naming it by absolute path in `dir` (the root sees /tmp), to
/// be added to `VK_ADD_LAYER_PATH`. `None` where the host has none.
fn validation_layer_for(mesa: &Mesa, dir: &Path) -> Option<Option<std::path::PathBuf>> {
    let manifest = Path::new("/usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json");
    let text = std::fs::read_to_string(manifest).ok()?;
    if *mesa == Mesa::Host {
        return Some(None);
    }
    let mut json: Value = serde_json::from_str(&text).expect("the validation layer's manifest");
    let name = json["layer"]["library_path"].as_str()?.to_string();
    let lib = Path::new("/usr/lib/x86_64-linux-gnu").join(&name);
    let here = dir.join(Path::new(&name).file_name()?);
    std::fs::copy(&lib, &here).unwrap_or_else(|e| panic!("{}: {e}", lib.display()));
    json["layer"]["library_path"] = Value::from(here.to_string_lossy().into_owned());
    std::fs::write(
        dir.join("VkLayer_khronos_validation.json"),
        json.to_string(),
    )
    .unwrap();
    Some(Some(dir.to_path_buf()))
}

/// Whether `mesa`'s file system has Mesa's overlay layer.
fn has_overlay(mesa: &Mesa) -> bool {
    let system = match mesa {
        Mesa::Host => std::path::PathBuf::from("/"),
        Mesa::Current { root } => root.join("rootfs"),
    };
    system
        .join("usr/share/vulkan/explicit_layer.d/VkLayer_MESA_overlay.json")
        .is_file()
}

fn stacked_on(mesa: &Mesa) {
    let at = mesa.label();
    let layers_dir = pops_testkit::scratch("stack-layers");
    let validation = validation_layer_for(mesa, &layers_dir);
    let shaders = "pixel_interlock_ordered.frag:4,color.frag:1";
    let base = |stack: &[&str]| {
        let s = radv_with(mesa, "pipelines", "navi31")
            .env("POPS_SCENARIO_SHADERS", shaders)
            .env("POPS_SCENARIO_BASIC", "1")
            .with_layers(stack);
        match &validation {
            Some(Some(extra)) => {
                let ours = layer_manifest_dir();
                s.env(
                    "VK_ADD_LAYER_PATH",
                    format!("{}:{}", ours.display(), extra.display()),
                )
            }
            _ => s,
        }
    };
    let mut stacks: Vec<Vec<&str>> = Vec::new();
    if validation.is_some() {
        let out = base(&["VK_LAYER_KHRONOS_validation"]).run();
        assert!(check_ok(&out, &format!("validation alone on {at}")));
        let alone = vuids(&out);
        for stack in [
            vec!["VK_LAYER_KHRONOS_validation", LAYER],
            vec![LAYER, "VK_LAYER_KHRONOS_validation"],
        ] {
            let out = base(&stack).run();
            assert!(check_ok(&out, &format!("{stack:?} on {at}")));
            assert_eq!(
                vuids(&out),
                alone,
                "{at}: validation findings differ with {stack:?}"
            );
        }
        stacks.push(vec!["VK_LAYER_KHRONOS_validation", LAYER]);
        stacks.push(vec![LAYER, "VK_LAYER_KHRONOS_validation"]);
    } else {
        skip("VK_LAYER_KHRONOS_validation not installed (vulkan-validationlayers)");
    }
    if has_overlay(mesa) {
        stacks.push(vec!["VK_LAYER_MESA_overlay", LAYER]);
        stacks.push(vec![LAYER, "VK_LAYER_MESA_overlay"]);
    } else {
        skip(&format!(
            "VK_LAYER_MESA_overlay not installed with {at} (mesa-vulkan-drivers)"
        ));
    }
    for stack in stacks {
        let dir = pops_testkit::scratch("stack");
        let report = dir.join("r.jsonl");
        let out = base(&stack)
            .env("VK_POPS_INTERLOCK_REPORT", &report)
            .env("VK_POPS_INTERLOCK_REPORT_ALL", "1")
            .run();
        assert!(check_ok(&out, &format!("{stack:?} on {at}")));
        let made = made(&out);
        assert!(!made.is_empty(), "{at}: {stack:?}");
        let rec = records(&report);
        if stack.first() == Some(&LAYER) || !stack.contains(&"VK_LAYER_KHRONOS_validation") {
            assert_eq!(pair(&made, &rec).len(), made.len(), "{at}: {stack:?}");
        } else {
            // Validation wraps the handles it passes up where the loader places it nearer
            // the application (which end of VK_INSTANCE_LAYERS that is changed between the
            // host's loader and today's): the records follow the objects in order and kind.
            let mut records = rec.iter();
            for m in &made {
                assert!(
                    records.any(|r| m["kind"] == r.kind.name()
                        && m["samples"].as_u64() == r.samples.map(u64::from)),
                    "{at}: {stack:?}: no record for {m} in order"
                );
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
    std::fs::remove_dir_all(&layers_dir).unwrap();
}

/// The timing's queries and timestamps are valid usage: VK_LAYER_KHRONOS_validation below our
/// layer reports exactly the same findings with the `timing` setting as without it, on RADV's
/// recorded command buffers (interlocked draws, secondaries, a suspended and resumed render
/// pass instance) and on lavapipe, which also submits and presents them.
#[test]
fn timing_adds_no_validation_findings() {
    if !have_validation_layer() {
        return;
    }
    let stack = [LAYER, "VK_LAYER_KHRONOS_validation"];
    let findings = |sc: Scenario, what: &str| {
        let out = sc.with_layers(&stack).run();
        assert!(check_ok(&out, what), "{what}");
        vuids(&out)
    };
    let mut runs: Vec<(String, Box<dyn Fn() -> Scenario>)> = Vec::new();
    if let Some(icd) = oracle_icd() {
        for scenario in ["draws", "draws-depth", "suspend"] {
            let icd = icd.clone();
            runs.push((
                format!("{scenario} on the RADV oracle"),
                Box::new(move || {
                    Scenario::new(BIN, scenario, icd.to_str().unwrap())
                        .env("RADV_FORCE_FAMILY", "navi31")
                        .env("MESA_SHADER_CACHE_DISABLE", "true")
                }),
            ));
        }
    }
    if have_icd(LVP_ICD) {
        let out = pops_testkit::scratch("validation").join("frame.rgba");
        for scenario in ["render", "present"] {
            let out = out.clone();
            runs.push((
                format!("{scenario} on lavapipe"),
                Box::new(move || {
                    Scenario::new(BIN, scenario, LVP_ICD).env("POPS_SCENARIO_OUT", &out)
                }),
            ));
        }
    }
    for (what, sc) in &runs {
        let plain = findings(sc(), what);
        let timed = findings(sc().env("VK_POPS_INTERLOCK_TIMING", "1"), what);
        assert_eq!(
            timed, plain,
            "{what}: validation findings differ with timing"
        );
        // Validation is really there: RADV's null device lacks features the scenarios' draws
        // use, which validation reports with and without the layer.
        if what.contains("RADV") {
            assert!(!plain.is_empty(), "{what}: no validation output at all");
        }
    }
}

#[test]
fn sixteen_threads_creating_pipelines() {
    if !have_icd(RADV_ICD) {
        return;
    }
    for mesa in pops_testkit::mesa::all_or_skip() {
        let at = format!("threads on {}", mesa.label());
        let dir = pops_testkit::scratch("threads");
        // Sixteen threads creating four pipelines each, the report in `file`, verify_isa as
        // `verify` says.
        let run = |file: &str, verify: &str| {
            let report = dir.join(file);
            let out = radv_with(&mesa, "threads", "navi21")
                .with_layers(&[LAYER])
                .env("POPS_SCENARIO_THREADS", "16")
                .env("POPS_SCENARIO_PER_THREAD", "4")
                .env("VK_POPS_INTERLOCK_REPORT", &report)
                .env("VK_POPS_INTERLOCK_REPORT_ALL", "1")
                .env("VK_POPS_INTERLOCK_VERIFY_ISA", verify)
                .run();
            (out, report)
        };
        let (out, report) = run("r.jsonl", "0");
        assert!(check_ok(&out, &at));
        let summary = json_lines(&out.stdout);
        assert_eq!(
            summary.last().map(|v| v["pipelines"].clone()),
            Some(Value::from(64)),
            "{at}"
        );
        let rec = records(&report);
        assert_eq!(rec.len(), 64, "{at}: one record per pipeline");
        assert!(
            rec.iter()
                .all(|r| r.kind == Kind::Pipeline && r.chip.as_deref() == Some("navi21")),
            "{at}"
        );
        // With verify_isa: sixteen threads' pipelines through one verifier thread and one
        // outbox, every record written once, each interlocked one with its verdict.
        let (out, report) = run("verified.jsonl", "1");
        assert!(check_ok(&out, &format!("{at}, verify_isa")));
        let rec = records(&report);
        assert_eq!(rec.len(), 64, "{at}, verify_isa: one record per pipeline");
        let interlocked: Vec<&Record> = rec
            .iter()
            .filter(|r| r.interlock != Interlock::None)
            .collect();
        assert!(interlocked.len() >= 16, "{at}, verify_isa: {rec:?}");
        for r in interlocked {
            assert_eq!(isa_codes(r), ["isa-verified"], "{at}, verify_isa: {r:?}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn malformed_spirv_and_unknown_handles_do_not_crash() {
    let mut runs: Vec<(String, Scenario)> = Vec::new();
    if have_icd(RADV_ICD) {
        for mesa in pops_testkit::mesa::all_or_skip() {
            let s = radv_with(&mesa, "malformed", "navi10");
            runs.push((format!("RADV navi10 ({})", mesa.label()), s));
        }
    }
    if have_icd(LVP_ICD) {
        runs.push(("lavapipe".into(), Scenario::new(BIN, "malformed", LVP_ICD)));
    }
    for (what, s) in runs {
        let out = s
            .with_layers(&[LAYER])
            .env("VK_POPS_INTERLOCK_LOG", "debug")
            .run();
        assert!(check_ok(&out, &format!("malformed on {what}")));
        let cases = json_lines(&out.stdout);
        assert_eq!(cases.len(), 4, "{what}: {cases:?}");
    }
}

#[test]
fn two_instances_two_devices_and_exit_with_live_device() {
    if !have_icd(RADV_ICD) {
        return;
    }
    for mesa in pops_testkit::mesa::all_or_skip() {
        let at = mesa.label();
        let dir = pops_testkit::scratch("two");
        let report = dir.join("r.jsonl");
        let out = radv_with(&mesa, "two", "navi31")
            .with_layers(&[LAYER])
            .env("VK_POPS_INTERLOCK_REPORT", &report)
            .env("VK_POPS_INTERLOCK_REPORT_ALL", "1")
            .run();
        assert!(check_ok(&out, &format!("two on {at}")));
        let created = made(&out);
        let rec = records(&report);
        let apps: std::collections::BTreeSet<String> = rec.iter().map(|r| r.app.clone()).collect();
        for app in ["a", "b", "c"] {
            let name = format!("pops-scenario-two-{app}");
            assert!(apps.contains(&name), "{at}: {apps:?}");
        }
        assert!(rec.len() >= created.len(), "{at}");

        let report = dir.join("exit.jsonl");
        let out = radv_with(&mesa, "exit-live", "navi31")
            .with_layers(&[LAYER])
            .env("VK_POPS_INTERLOCK_REPORT", &report)
            .env("VK_POPS_INTERLOCK_REPORT_ALL", "1")
            .run();
        assert!(check_ok(&out, &format!("exit with live device on {at}")));
        let created = made(&out);
        let paired = pair(&created, &records(&report)).len();
        assert_eq!(paired, created.len(), "{at}");
        // With verify_isa, the records held back for verdicts reached on the layer's thread
        // are written at exit too, with their verdicts.
        let report = dir.join("exit-verified.jsonl");
        let out = radv_with(&mesa, "exit-live", "navi31")
            .with_layers(&[LAYER])
            .env("VK_POPS_INTERLOCK_REPORT", &report)
            .env("VK_POPS_INTERLOCK_REPORT_ALL", "1")
            .env("VK_POPS_INTERLOCK_VERIFY_ISA", "1")
            .run();
        assert!(check_ok(
            &out,
            &format!("exit with live device, verify_isa, on {at}")
        ));
        let created = made(&out);
        let records = records(&report);
        assert_eq!(pair(&created, &records).len(), created.len(), "{at}");
        let verified = records
            .iter()
            .filter(|r| r.kind == Kind::Pipeline)
            .filter(|r| isa_codes(r).contains(&"isa-verified"))
            .count();
        assert!(verified >= 1, "{at}: {records:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// Settings: environment > vk_layer_settings.txt > VK_EXT_layer_settings.
#[test]
fn settings_precedence_through_the_loader() {
    if !have_icd(RADV_ICD) {
        return;
    }
    for mesa in pops_testkit::mesa::all_or_skip() {
        settings_precedence_through_the_loader_on(&mesa);
    }
}

/// The settings test on one Mesa's RADV.
fn settings_precedence_through_the_loader_on(mesa: &Mesa) {
    let at = mesa.label();
    let dir = pops_testkit::scratch("settings");
    let run = |env_chip: Option<&str>, file: Option<&str>, api: Option<&str>| -> Vec<Record> {
        let report = dir.join("r.jsonl");
        let _ = std::fs::remove_file(&report);
        let settings_file = dir.join("vk_layer_settings.txt");
        let _ = std::fs::remove_file(&settings_file);
        let mut s = radv_with(mesa, "pipelines", "navi31")
            .with_layers(&[LAYER])
            .env("POPS_SCENARIO_SHADERS", "color.frag:1")
            .env("VK_POPS_INTERLOCK_REPORT", &report)
            .env("VK_POPS_INTERLOCK_REPORT_ALL", "1");
        if let Some(c) = env_chip {
            s = s.env("VK_POPS_INTERLOCK_CHIP", c);
        }
        if let Some(c) = file {
            std::fs::write(
                &settings_file,
                format!("# test\npops_interlock.chip = {c}\n"),
            )
            .unwrap();
            s = s.env("VK_LAYER_SETTINGS_PATH", &settings_file);
        }
        if let Some(c) = api {
            s = s.env("POPS_SCENARIO_API_SETTINGS", format!("chip={c}"));
        }
        let out = s.run();
        assert!(check_ok(&out, &format!("settings on {at}")));
        records(&report)
    };
    let chip = |rec: Vec<Record>| rec.first().and_then(|r| r.chip.clone());
    assert_eq!(
        chip(run(None, None, None)),
        Some("navi31".to_string()),
        "{at}"
    );
    assert_eq!(
        chip(run(None, None, Some("vega10"))),
        Some("vega10".to_string()),
        "{at}"
    );
    assert_eq!(
        chip(run(None, Some("raven"), Some("vega10"))),
        Some("raven".to_string()),
        "{at}"
    );
    assert_eq!(
        chip(run(Some("navi10"), Some("raven"), Some("vega10"))),
        Some("navi10".to_string()),
        "{at}"
    );

    // The report path from VK_EXT_layer_settings alone.
    let api_report = dir.join("api.jsonl");
    let out = radv_with(mesa, "pipelines", "navi31")
        .with_layers(&[LAYER])
        .env("POPS_SCENARIO_SHADERS", "color.frag:1")
        .env(
            "POPS_SCENARIO_API_SETTINGS",
            format!("report={};report_all=true", api_report.display()),
        )
        .run();
    assert!(check_ok(&out, &format!("api report on {at}")));
    assert!(!records(&api_report).is_empty(), "{at}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The implicit manifest: off unless VK_POPS_INTERLOCK_ENABLE=1, and
/// VK_POPS_INTERLOCK_DISABLE=1 wins.
#[test]
fn implicit_manifest_enable_and_disable_environment() {
    if !have_icd(RADV_ICD) {
        return;
    }
    for mesa in pops_testkit::mesa::all_or_skip() {
        implicit_manifest_enable_and_disable_environment_on(&mesa);
    }
}

/// The implicit-manifest test on one Mesa's RADV.
fn implicit_manifest_enable_and_disable_environment_on(mesa: &Mesa) {
    let at = mesa.label();
    let implicit = layer_manifest_dir()
        .parent()
        .map(|p| p.join("implicit_layer.d"))
        .expect("profile dir");
    let xdg = pops_testkit::scratch("implicit");
    let vk_dir = xdg.join("vulkan/implicit_layer.d");
    std::fs::create_dir_all(&vk_dir).unwrap();
    std::fs::copy(
        implicit.join("VkLayer_pops_interlock_implicit.json"),
        vk_dir.join("VkLayer_pops_interlock_implicit.json"),
    )
    .unwrap();
    let run = |enable: bool, disable: bool| -> usize {
        let report = xdg.join("r.jsonl");
        let _ = std::fs::remove_file(&report);
        let mut s = radv_with(mesa, "pipelines", "navi31")
            .env("VK_LOADER_LAYERS_DISABLE", "")
            .env("XDG_DATA_HOME", &xdg)
            .env("POPS_SCENARIO_SHADERS", "color.frag:1")
            .env("VK_POPS_INTERLOCK_REPORT", &report)
            .env("VK_POPS_INTERLOCK_REPORT_ALL", "1");
        if enable {
            s = s.env("VK_POPS_INTERLOCK_ENABLE", "1");
        }
        if disable {
            s = s.env("VK_POPS_INTERLOCK_DISABLE", "1");
        }
        let out = s.run();
        assert!(check_ok(&out, &format!("implicit on {at}")));
        records(&report).len()
    };
    assert_eq!(
        run(false, false),
        0,
        "{at}: implicit layer must be off without the enable variable"
    );
    assert!(
        run(true, false) > 0,
        "{at}: VK_POPS_INTERLOCK_ENABLE=1 enables it"
    );
    assert_eq!(run(true, true), 0, "{at}: VK_POPS_INTERLOCK_DISABLE=1 wins");
    std::fs::remove_dir_all(&xdg).unwrap();
}

/// `pops layer install --user` into a temporary HOME puts the layer where the loader finds it
/// with nothing but VK_INSTANCE_LAYERS; `pops layer uninstall --user` removes it again.
#[test]
fn installed_with_pops_layer_install_user() {
    if !have_icd(RADV_ICD) {
        return;
    }
    for mesa in pops_testkit::mesa::all_or_skip() {
        installed_with_pops_layer_install_user_on(&mesa);
    }
}

/// The installed-layer test on one Mesa's RADV.
fn installed_with_pops_layer_install_user_on(mesa: &Mesa) {
    let at = mesa.label();
    let manifests = layer_manifest_dir();
    let lib = manifests
        .parent()
        .expect("profile dir")
        .join("libVkLayer_pops_interlock.so");
    let home = pops_testkit::scratch("install-home");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let pops = |action: &str| {
        let mut c = std::process::Command::new(&cargo);
        c.current_dir(workspace_root())
            .args([
                "run", "--quiet", "-p", "pops-cli", "--", "layer", action, "--user",
            ])
            .env("HOME", &home)
            .env_remove("XDG_DATA_HOME");
        if action == "install" {
            c.arg("--lib").arg(&lib);
        }
        let out = c.output().expect("run pops");
        assert!(
            out.status.success(),
            "pops layer {action}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    pops("install");
    assert!(home
        .join(".local/share/vulkan/explicit_layer.d/VkLayer_pops_interlock.json")
        .is_file());
    let report = home.join("r.jsonl");
    let run = || {
        let out = radv_with(mesa, "pipelines", "navi31")
            .env("HOME", &home)
            .env("POPS_SCENARIO_SHADERS", "pixel_interlock_ordered.frag:1")
            .env("VK_INSTANCE_LAYERS", LAYER)
            .env("VK_POPS_INTERLOCK_REPORT", &report)
            .run();
        let _ = std::fs::remove_file(&report);
        out
    };
    let out = run();
    assert!(check_ok(&out, &format!("installed layer on {at}")));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("pixel-ordered interlock"),
        "{at}: the installed layer logged the pipeline"
    );
    pops("uninstall");
    assert!(!home
        .join(".local/lib/libVkLayer_pops_interlock.so")
        .exists());
    let out = run();
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("pixel-ordered interlock"),
        "{at}: after uninstall the layer is gone"
    );
    std::fs::remove_dir_all(&home).unwrap();
}

/// An application's VK_EXT_debug_utils messenger receives the layer's findings, as the Khronos
/// layers deliver theirs: message id "POPS-<code>" with a stable number (32-bit FNV-1a of the
/// code), the pipeline in pObjects, with the application's name once it has one; the
/// `debug_messages` setting off, nothing.
#[test]
fn debug_utils_messengers_receive_findings_with_message_ids() {
    let Some(icd) = oracle_icd() else {
        return;
    };
    let run_with = |messages: Option<&str>, env: &[(&str, &str)]| {
        let mut sc = Scenario::new(BIN, "messenger", icd.to_str().unwrap())
            .env("RADV_FORCE_FAMILY", "navi31")
            .env("MESA_SHADER_CACHE_DISABLE", "true")
            .with_layers(&[LAYER]);
        if let Some(v) = messages {
            sc = sc.env("VK_POPS_INTERLOCK_DEBUG_MESSAGES", v);
        }
        for (k, v) in env {
            sc = sc.env(k, v);
        }
        let out = sc.run();
        assert!(check_ok(&out, "messenger on the RADV oracle navi31"));
        json_lines(&out.stdout).remove(0)
    };
    let run = |messages: Option<&str>| run_with(messages, &[]);
    let fnv1a = |s: &str| {
        let mut h: u32 = 2166136261;
        for b in s.bytes() {
            h = (h ^ u32::from(b)).wrapping_mul(16777619);
        }
        h as i32
    };
    let made = run(None);
    let got = made["messages"].as_array().unwrap();
    let code = "pixel-interlock-with-msaa";
    let ours: Vec<&Value> = got
        .iter()
        .filter(|m| m["id"].as_str().is_some_and(|id| id.starts_with("POPS-")))
        .collect();
    assert!(!ours.is_empty(), "{made}");
    for m in &ours {
        assert_eq!(m["id"], format!("POPS-{code}"), "{made}");
        assert_eq!(m["number"], fnv1a(code), "{made}");
        assert_eq!(m["handle"], made["pipeline"], "{made}");
    }
    // At creation the pipeline had no name yet; its draw carries the name it was given.
    assert!(
        ours.iter().any(|m| m["name"] == "oit colour pass"),
        "{made}"
    );
    // With verify_isa the verdict is reached on the layer's thread after the pipeline's creation
    // returned, and the record carrying it is written there while the application pauses: its
    // findings still reach the messenger, and only ever on the application's thread.
    let verified = run_with(
        None,
        &[
            ("VK_POPS_INTERLOCK_VERIFY_ISA", "1"),
            ("VK_POPS_INTERLOCK_VERIFY_ISA_CACHE", "off"),
            // Time for the layer's thread to write the record before the next call.
            ("POPS_SCENARIO_PAUSE_MS", "1000"),
        ],
    );
    let all = verified["messages"].as_array().unwrap();
    assert!(
        all.iter().all(|m| m["application_thread"] == true),
        "{verified}"
    );
    for code in ["isa-verified", code] {
        let told = all
            .iter()
            .filter(|m| m["id"] == format!("POPS-{code}"))
            .count();
        // Once per code, object and name: the pipeline's record, written once the verdict was
        // given, already has the name its draw's has.
        assert!(told >= 1, "{code}: {verified}");
    }
    let off = run(Some("0"));
    assert!(
        !off["messages"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["id"].as_str().is_some_and(|id| id.starts_with("POPS-"))),
        "{off}"
    );
}

/// A panic inside the layer's own work degrades only the instance it happened in: that
/// instance's pipelines are created (the application notices nothing) but no longer analysed,
/// while another instance of the same process keeps its analysis; the containment is logged
/// once. (The panic is injected by the debug-build test setting `test_fault`.)
#[test]
fn a_panic_degrades_only_its_instance() {
    if !have_icd(RADV_ICD) {
        return;
    }
    let dir = pops_testkit::scratch("fault-two-instances");
    let report_path = dir.join("report.jsonl");
    let out = radv("fault-two-instances", "navi31")
        .with_layers(&[LAYER])
        .env("VK_POPS_INTERLOCK_REPORT", &report_path)
        .run();
    assert!(check_ok(&out, "fault-two-instances on RADV null navi31"));
    let made = json_lines(&out.stdout).remove(0);
    let records = records(&report_path);
    let apps = |app: &str| records.iter().filter(|r| r.app == app).count();
    assert_eq!(
        apps("pops-scenario-fault-a"),
        0,
        "the faulty instance reports nothing"
    );
    assert!(
        apps("pops-scenario-fault-b") >= 1,
        "the other instance still reports"
    );
    assert!(records.iter().any(|r| made["healthy"] == r.handle.as_str()));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.matches("internal error in vkCreateShaderModule: fault injected")
            .count(),
        1,
        "{err}"
    );
}

/// An application that dies — by a signal (`abort`) or `_exit`, where no exit
/// handler runs — a while after its last pipeline still has every record the layer made in the
/// report: the same records as the run that ends cleanly. (The layer's writer thread writes
/// buffered lines within 50 ms; before it, they waited for the next line or the exit handler.)
#[test]
fn a_dying_application_keeps_every_record() {
    if !have_icd(RADV_ICD) {
        return;
    }
    let dir = pops_testkit::scratch("dying");
    let records = |die: Option<&str>| {
        let report = dir.join(format!("{}.jsonl", die.unwrap_or("clean")));
        let mut sc = radv("pipelines", "navi31")
            .with_layers(&[LAYER])
            .env(
                "POPS_SCENARIO_SHADERS",
                "pixel_interlock_ordered.frag:4,oit_interlock.frag:1",
            )
            .env("VK_POPS_INTERLOCK_REPORT", &report);
        if let Some(how) = die {
            sc = sc.env("POPS_SCENARIO_DIE", how);
        }
        let out = sc.run();
        match die {
            None => assert!(check_ok(&out, "pipelines, ending cleanly")),
            Some(how) => assert!(!out.status.success(), "{how}: the scenario died"),
        }
        let mut ids: Vec<String> = pops_tests::records(&report)
            .iter()
            .map(|r| format!("{} {} {}", r.kind.name(), r.entry_point, r.interlock.name()))
            .collect();
        ids.sort();
        ids
    };
    let clean = records(None);
    assert!(clean.len() >= 4, "{clean:?}");
    for how in ["abort", "exit"] {
        assert_eq!(records(Some(how)), clean, "{how}: records lost");
    }
}
