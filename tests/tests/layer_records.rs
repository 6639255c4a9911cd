//! What the layer records of every interlocked pipeline, library and shader object, through the
//! real Vulkan loader: every way RADV compiles them, on every chip of each Mesa (RADV null hardware
//! and the amdgpu shim), the named entry point of multi-entry modules, and only the create-info
//! members the Vulkan specification makes valid are read.
#![allow(clippy::too_many_lines)] // test code: each scenario reads top to bottom as one Vulkan sequence

mod common;

use common::*;

/// RADV without its GPU as users of today's Mesa get it: Mesa 26 has no RADV_FORCE_FAMILY, so the
/// device is Mesa's own no-op drm-shim of the chip (package mesa-drm-shim), with the host's Mesa
/// (25.0.7) and today's. The layer places every chip by its PCI id — gfx1150 too, which Mesa 26
/// names "AMD Radeon 890M Graphics (RADV STRIX1)" — and every object of every creation path has
/// its record, as on RADV's null hardware.
#[test]
fn radv_on_a_drm_shim_places_every_chip_with_each_mesa() {
    if !have_icd(RADV_ICD) {
        return;
    }
    for mesa in pops_testkit::mesa::all_or_skip() {
        for family in FAMILIES.iter().copied().chain(["gfx1150"]) {
            let at = format!("{} {family}", mesa.label());
            let dir = pops_testkit::scratch(&format!("shim-{family}"));
            let report_path = dir.join("report.jsonl");
            let out = Scenario::on(
                mesa.command_preloaded(BIN, mesa.noop_shim()),
                "pipelines",
                RADV_ICD,
            )
            .with_layers(&[LAYER])
            .env("AMDGPU_GPU_ID", mesa.shim_chip_name(family))
            .env("VK_POPS_INTERLOCK_REPORT", &report_path)
            .env("VK_POPS_INTERLOCK_REPORT_ALL", "1")
            .run();
            assert!(check_ok(&out, &at), "{at}");
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(
                stderr.contains(&format!(": chip {family} (PciId)")),
                "{at}: the layer places the chip by its PCI id: {stderr}"
            );
            check_every_way(&at, family, &out, &report_path);
            std::fs::remove_dir_all(&dir).unwrap();
        }
    }
}

/// Every object the `pipelines` scenario made on RADV as `family` (its output `out`, the
/// layer's report at `report_path`) has its record: source, samples, interlock, findings,
/// register state and PM4 as `pops state` derives them, the stage hash `pops inspect` prints,
/// and PM4 the IB validator passes. `at` names the run in messages.
fn check_every_way(at: &str, family: &str, out: &std::process::Output, report_path: &Path) {
    let made = made(out);
    let ways: std::collections::BTreeSet<&str> =
        made.iter().filter_map(|m| m["way"].as_str()).collect();
    for way in ["module", "inline", "gpl", "identifier", "shader_object"] {
        if !ways.contains(way) {
            skip(&format!(
                "RADV {family} created no pipeline by way of '{way}'"
            ));
        }
    }
    let report = records(report_path);
    // Every record has its own id, even where the driver recycles handles.
    let mut ids: Vec<u64> = report.iter().map(|r| r.id).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), report.len(), "{at}: record ids are unique");
    for (m, r) in pair(&made, &report) {
        let ctx = format!("{at} {m} -> {r:?}");
        assert_eq!(r.chip.as_deref(), Some(family), "{ctx}");
        assert!(r.device.contains("RADV"), "{ctx}");
        assert_eq!(r.app, "pops-scenario-pipelines", "{ctx}");
        assert_eq!(r.entry_point, "main", "{ctx}");
        let source = match (m["way"].as_str(), m["kind"].as_str()) {
            (Some("module"), _) => Source::ShaderModule,
            (Some("inline"), _) => Source::InlineCreateInfo,
            (Some("gpl"), Some("library")) => Source::ShaderModule,
            (Some("gpl"), Some("pipeline")) => Source::Library,
            (Some("identifier"), _) => Source::ModuleIdentifier,
            (Some("shader_object"), _) => Source::ShaderObjectSpirv,
            _ => panic!("unexpected {ctx}"),
        };
        assert_eq!(r.source, source, "{ctx}");
        // Shader objects have dynamic samples.
        let samples = m["samples"]
            .as_u64()
            .filter(|_| m["kind"] != "shader_object");
        assert_eq!(r.samples.map(u64::from), samples, "{ctx}");
        if m["way"] == "identifier" {
            assert_eq!(r.interlock.name(), "unknown", "{ctx}");
            assert!(codes(r).contains(&"interlock-unknown"), "{ctx}");
            continue;
        }
        let shader = m["shader"].as_str().unwrap_or_default();
        let exp = expected(shader);
        let mode = exp["interlock"].as_str();
        assert_eq!(r.interlock.name(), mode, "{ctx}");
        assert_eq!(r.begin_count.to_string(), exp["begin"], "{ctx}");
        if mode == "none" {
            continue;
        }
        assert_eq!(r.end_count.to_string(), exp["end"], "{ctx}");
        assert_eq!(r.per_sample.to_string(), exp["per_sample"], "{ctx}");
        let c = codes(r);
        let samples = m["samples"].as_u64().unwrap_or(1);
        let is_so = m["kind"] == "shader_object";
        // Article: pixel interlock with MSAA orders invocations along shared edges.
        assert_eq!(
            c.contains(&"pixel-interlock-with-msaa"),
            mode.starts_with("pixel") && samples > 1 && !is_so,
            "{ctx}"
        );
        // Article: VEGA10 and RAVEN need the drain workaround at 8 or more samples.
        assert_eq!(
            c.contains(&"pops-missed-overlap-workaround"),
            matches!(family, "vega10" | "raven") && samples >= 8 && !is_so,
            "{ctx}"
        );
        assert_eq!(
            c.contains(&"no-color-output"),
            exp["color"] == "false",
            "{ctx}"
        );
        assert_eq!(
            c.contains(&"interlock-without-memory-access"),
            exp["accesses_memory"] == "false",
            "{ctx}"
        );
        assert!(!c.contains(&"interlock-feature-not-enabled"), "{ctx}");
        // The register state and PM4 are pops state's for the same inputs (shader objects:
        // the sample count is dynamic and assumed 1).
        let n = if is_so { 1 } else { samples as u32 };
        let state = pops_state(family, shader, n);
        assert_eq!(r.registers, Some(registers_of(&state)), "{ctx}");
        assert_eq!(*r.pm4, *pm4::pops::emit(&state), "{ctx}");
        // The stage hash is the one `pops inspect` prints for the module and entry point
        // (no specialization constants in these pipelines); unknown only without SPIR-V.
        let words = shaders::corpus::get(shader).expect("corpus shader").words();
        let want = shaders::spirv::stage_hash(&words, "main", None);
        if r.source != Source::ModuleIdentifier && r.source != Source::ShaderObjectBinary {
            assert_eq!(r.stage_hash.as_deref(), Some(want.as_str()), "{ctx}");
        }
        // The report's PM4, read back from the report itself, passes the IB validator.
        let report = pm4::validate::validate(state.level, &r.pm4);
        assert!(report.is_ok(), "{ctx}: {:#?}", report.violations);
    }
}

#[test]
fn radv_null_hardware_every_way_every_family() {
    if !have_icd(RADV_ICD) {
        return;
    }
    for family in FAMILIES {
        let dir = pops_testkit::scratch(&format!("radv-{family}"));
        let report_path = dir.join("report.jsonl");
        let out = radv("pipelines", family)
            .with_layers(&[LAYER])
            .env("VK_POPS_INTERLOCK_REPORT", &report_path)
            .env("VK_POPS_INTERLOCK_REPORT_ALL", "1")
            .run();
        if !check_ok(&out, &format!("pipelines on RADV {family}")) {
            continue;
        }
        check_every_way(
            &format!("RADV null hardware {family}"),
            family,
            &out,
            &report_path,
        );
    }
}

/// The corpus modules with several entry points (the layer picks the fragment entry point by
/// the stage's `pName`).
const MULTI_ENTRY_MODULES: [&str; 2] = ["multi_entry_linked.link", "divergent_interlock.spvasm"];

/// What the `entries` scenario printed for each attempt, in order: (module, entry, way) and the
/// kind of object created or the driver's error.
type Outcome = ((String, String, String), String);

fn outcomes(out: &std::process::Output) -> Vec<Outcome> {
    json_lines(&out.stdout)
        .into_iter()
        .filter(|v| v.get("entry").is_some())
        .map(|v| {
            let s = |k: &str| v[k].as_str().unwrap_or_default().to_string();
            let outcome = match v.get("error") {
                Some(e) => format!("error {e}"),
                None => format!("created {}", s("kind")),
            };
            ((s("module"), s("entry"), s("way")), outcome)
        })
        .collect()
}

/// Pipelines (module, inline create info, graphics pipeline library linked) and shader objects
/// from the multi-entry corpus modules, one per fragment entry point chosen by `pName` (one module
/// object serves all of them; the linked module's vertex stage is its own `vs_fullscreen`). Each
/// report record must carry the analysis of *that* entry point, as its `expect[NAME]` comment
/// states: picking another entry (the first, the vertex one) fails. Whatever RADV refuses must be
/// refused identically without the layer (the error passes through unchanged), and then no object
/// is expected in the report. (Mesa 25.0.7 RADV accepts every entry point, divergent ones too.)
#[test]
fn radv_multi_entry_modules_report_the_named_entry_point() {
    if !have_icd(RADV_ICD) {
        return;
    }
    let entries = multi_entry_points();
    let list = entries
        .iter()
        .map(|(m, n, _)| format!("{m}:{n}"))
        .collect::<Vec<_>>()
        .join(",");
    let samples = 4;
    let mesas = pops_testkit::mesa::all_or_skip();
    for (mesa, family) in mesas
        .iter()
        .flat_map(|m| FAMILIES.iter().map(move |f| (m, *f)))
    {
        let base = || {
            radv_with(mesa, "entries", family)
                .env("POPS_SCENARIO_ENTRIES", &list)
                .env("POPS_SCENARIO_SAMPLES", samples.to_string())
        };
        // Every message names the Mesa and the chip.
        let family_at = format!("{family} ({})", mesa.label());
        let plain = base().run();
        if !check_ok(
            &plain,
            &format!("entries on RADV {family_at} without the layer"),
        ) {
            continue;
        }
        let dir = pops_testkit::scratch(&format!("entries-{family}"));
        let report_path = dir.join("report.jsonl");
        let out = base()
            .with_layers(&[LAYER])
            .env("VK_POPS_INTERLOCK_REPORT", &report_path)
            .env("VK_POPS_INTERLOCK_REPORT_ALL", "1")
            .run();
        assert!(check_ok(
            &out,
            &format!("entries on RADV {family_at} with the layer")
        ));

        // The layer changes nothing the driver decides: the same objects are created and the
        // same errors returned, attempt by attempt.
        let with = outcomes(&out);
        assert_eq!(
            with,
            outcomes(&plain),
            "RADV {family_at}: outcomes differ with the layer"
        );
        for (module, name, _) in &entries {
            let key = (module.to_string(), name.clone(), "module".to_string());
            assert!(
                with.iter().any(|(k, _)| *k == key),
                "RADV {family_at}: no attempt for {key:?}"
            );
        }
        for ((module, name, way), outcome) in &with {
            if outcome.starts_with("error") {
                eprintln!("RADV {family_at} refused {module}:{name} by way of {way}: {outcome} (also without the layer)");
            }
        }

        let made: Vec<Value> = json_lines(&out.stdout)
            .into_iter()
            .filter(|v| v.get("entry").is_some() && v.get("handle").is_some())
            .collect();
        assert!(!made.is_empty(), "RADV {family_at} created nothing");
        let report = records(&report_path);
        // Objects are destroyed right after creation, so handles repeat: pair strictly in order,
        // one record per created object.
        let report: Vec<&Record> = report.iter().filter(|r| r.handle != "0x0").collect();
        assert_eq!(
            report.len(),
            made.len(),
            "RADV {family_at}: one record per object"
        );
        for (m, r) in made.iter().zip(report) {
            check_entry_record(
                &format!("{family_at} {m} -> {r:?}"),
                family,
                m,
                r,
                &entries,
                samples,
            );
        }
    }
}

/// The Vulkan specification's ignored members, pointing to an inaccessible page: a render pass
/// subpass and dynamic rendering without depth/stencil (pDepthStencilState), dynamic rendering
/// without attachments (pColorBlendState), blend enable/equation/write mask dynamic
/// (pAttachments). The application survives with the layer, with the same results as without,
/// and every pipeline is still reported.
#[test]
fn ignored_create_info_members_are_never_read() {
    // (what, the Mesa of a RADV run): RADV with each Mesa, then lavapipe.
    let mut drivers: Vec<(String, Option<Mesa>)> = Vec::new();
    if have_icd(RADV_ICD) {
        for mesa in pops_testkit::mesa::all_or_skip() {
            drivers.push((format!("RADV navi21 ({})", mesa.label()), Some(mesa)));
        }
    }
    if have_icd(LVP_ICD) {
        drivers.push(("lavapipe".into(), None));
    }
    for (what, mesa) in drivers {
        let scenario = |layer: bool, report: Option<&std::path::Path>| {
            let mut s = match &mesa {
                Some(m) => radv_with(m, "poison", "navi21"),
                None => Scenario::new(BIN, "poison", LVP_ICD),
            };
            if layer {
                s = s.with_layers(&[LAYER]);
            }
            if let Some(r) = report {
                s = s
                    .env("VK_POPS_INTERLOCK_REPORT", r)
                    .env("VK_POPS_INTERLOCK_REPORT_ALL", "1");
            }
            s.run()
        };
        let plain = scenario(false, None);
        if !check_ok(&plain, &format!("poison without the layer on {what}")) {
            continue;
        }
        let dir = pops_testkit::scratch("poison");
        let report_path = dir.join("report.jsonl");
        let layered = scenario(true, Some(&report_path));
        assert!(
            check_ok(&layered, &format!("poison with the layer on {what}")),
            "{what}: the application must survive"
        );
        let cases = json_lines(&plain.stdout);
        assert_eq!(cases.len(), 4, "{what}: {cases:?}");
        assert_eq!(
            json_lines(&layered.stdout),
            cases,
            "{what}: same results with the layer"
        );
        let created = cases.iter().filter(|c| c["result"] == "created").count();
        let report = std::fs::read_to_string(&report_path).unwrap_or_default();
        assert_eq!(
            records(&report_path).len(),
            created,
            "{what}: {report}\n{}",
            String::from_utf8_lossy(&layered.stderr)
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

type Expectation = std::collections::HashMap<String, String>;

/// Every fragment entry point the corpus states of the multi-entry modules, in module order.
fn multi_entry_points() -> Vec<(&'static str, String, Expectation)> {
    let mut entries = Vec::new();
    for module in MULTI_ENTRY_MODULES {
        let exp: Vec<_> = expectations(module)
            .into_iter()
            .filter(|(_, e)| e["model"] == "Fragment")
            .collect();
        assert!(exp.len() >= 2, "{module}: several fragment entry points");
        // The test can only catch a wrong pick if the entries' analyses differ.
        let keys = |e: &std::collections::HashMap<String, String>| {
            ["interlock", "begin", "end", "per_sample"].map(|k| e[k].clone())
        };
        assert!(
            exp.iter().any(|(_, e)| keys(e) != keys(&exp[0].1)),
            "{module}: every entry analyses alike"
        );
        for (name, e) in exp {
            entries.push((module, name, e));
        }
    }
    entries
}

/// One record of the entries scenario against the corpus's `expect[NAME]` of its entry point.
fn check_entry_record(
    ctx: &str,
    family: &str,
    m: &Value,
    r: &Record,
    entries: &[(&'static str, String, Expectation)],
    samples: u32,
) {
    assert_eq!(m["handle"], r.handle.as_str(), "{ctx}");
    assert_eq!(m["kind"], r.kind.name(), "{ctx}");
    assert_eq!(r.chip.as_deref(), Some(family), "{ctx}");
    let name = m["entry"].as_str().unwrap_or_default();
    let exp = &entries
        .iter()
        .find(|(module, n, _)| m["module"] == *module && n == name)
        .unwrap_or_else(|| panic!("unexpected entry {ctx}"))
        .2;
    assert_eq!(r.entry_point, name, "{ctx}");
    let source = match (m["way"].as_str(), m["kind"].as_str()) {
        (Some("module"), _) | (Some("gpl"), Some("library")) => Source::ShaderModule,
        (Some("inline"), _) => Source::InlineCreateInfo,
        (Some("gpl"), Some("pipeline")) => Source::Library,
        (Some("shader_object"), _) => Source::ShaderObjectSpirv,
        _ => panic!("unexpected {ctx}"),
    };
    assert_eq!(r.source, source, "{ctx}");
    let mode = exp["interlock"].as_str();
    assert_eq!(r.interlock.name(), mode, "{ctx}");
    assert_eq!(r.begin_count.to_string(), exp["begin"], "{ctx}");
    assert_eq!(r.end_count.to_string(), exp["end"], "{ctx}");
    assert_eq!(r.per_sample.to_string(), exp["per_sample"], "{ctx}");
    if mode == "none" {
        assert_eq!(codes(r), Vec::<&str>::new(), "{ctx}");
        return;
    }
    // The diagnostics that follow from the entry point's own analysis.
    let c = codes(r);
    let has = |code: &str| c.contains(&code);
    assert_eq!(
        has("multiple-interlock-pairs"),
        exp["begin"] != "1" || exp["end"] != "1",
        "{ctx}"
    );
    assert_eq!(
        has("divergent-interlock-begin"),
        exp["begin_divergent"] == "true",
        "{ctx}"
    );
    assert_eq!(has("no-color-output"), exp["color"] == "false", "{ctx}");
    assert_eq!(
        has("interlock-without-memory-access"),
        exp["accesses_memory"] == "false",
        "{ctx}"
    );
    if m["kind"] == "pipeline" {
        assert_eq!(r.samples, Some(samples), "{ctx}");
        // Article: pixel interlock with MSAA orders invocations along shared edges.
        assert_eq!(
            has("pixel-interlock-with-msaa"),
            mode.starts_with("pixel"),
            "{ctx}"
        );
    }
}
