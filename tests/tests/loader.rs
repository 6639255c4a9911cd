//! The layer through the real Vulkan loader (Debian libvulkan1): RADV null hardware for five
//! chips, lavapipe rendering, other layers above and below, threads, malformed SPIR-V, several
//! instances and devices, settings from every source. Each scenario runs in a child process.
#![allow(clippy::too_many_lines)] // test code: each scenario reads top to bottom as one Vulkan sequence

use pops_testkit::mesa::Mesa;
use pops_tests::*;
use serde_json::Value;
use std::path::Path;

const BIN: &str = env!("CARGO_BIN_EXE_pops-vk-scenario");
const LAYER: &str = "VK_LAYER_POPS_interlock";

/// The RADV families item 8 of issue 5 names.
const FAMILIES: [&str; 5] = ["vega10", "raven", "navi10", "navi21", "navi31"];

fn radv(scenario: &str, family: &str) -> Scenario {
    Scenario::new(BIN, scenario, RADV_ICD).env("RADV_FORCE_FAMILY", family)
}

/// `scenario` on RADV without its GPU as `family`, under `mesa`: the host's Mesa 25.0.7 on its
/// null hardware (`RADV_FORCE_FAMILY`), today's on Mesa's own no-op drm-shim of the chip, since
/// Mesa 26 has no null hardware of its own.
fn radv_with(mesa: &Mesa, scenario: &str, family: &str) -> Scenario {
    match mesa {
        Mesa::Host => radv(scenario, family),
        Mesa::Current { .. } => Scenario::on(
            mesa.command_preloaded(BIN, mesa.noop_shim()),
            scenario,
            RADV_ICD,
        )
        .env("AMDGPU_GPU_ID", mesa.shim_chip_name(family)),
    }
}

fn check_ok(out: &std::process::Output, what: &str) -> bool {
    let stderr = String::from_utf8_lossy(&out.stderr);
    if out.status.code() == Some(2) {
        skip(&format!("{what}: {}", stderr.trim()));
        return false;
    }
    let tail = |s: &str| {
        s.chars()
            .rev()
            .take(4000)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect::<String>()
    };
    assert!(
        out.status.success(),
        "{what} failed ({:?})\nstdout:\n{}\nstderr:\n{}",
        out.status,
        tail(&String::from_utf8_lossy(&out.stdout)),
        tail(&stderr)
    );
    true
}

/// Created objects the scenario printed (`{"way", "kind", "handle", "shader", "samples"}`).
fn made(out: &std::process::Output) -> Vec<Value> {
    json_lines(&out.stdout)
        .into_iter()
        .filter(|v| v.get("way").is_some() && v.get("handle").is_some())
        .collect()
}

/// Pairs each created object with its report record, in creation order (handles may be reused
/// after destruction, so the search only moves forward).
fn pair<'a>(made: &'a [Value], report: &'a [Value]) -> Vec<(&'a Value, &'a Value)> {
    let mut cursor = 0;
    let mut out = Vec::new();
    for m in made {
        let pos = report[cursor..]
            .iter()
            .position(|r| r["handle"] == m["handle"] && r["kind"] == m["kind"])
            .unwrap_or_else(|| panic!("no report record for {m} after record {cursor}"));
        out.push((m, &report[cursor + pos]));
        cursor += pos + 1;
    }
    out
}

fn codes(r: &Value) -> Vec<String> {
    r["diagnostics"]
        .as_array()
        .map(|d| {
            d.iter()
                .filter_map(|d| d["code"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The `expect` comments of a corpus source, one per entry point, as
/// `shaders/tests/spirv_corpus.rs` reads them: `expect[NAME]: key=value ...` after `//`, `;` or
/// `#`; a plain `expect:` is for `main`.
fn expectations(shader: &str) -> Vec<(String, std::collections::HashMap<String, String>)> {
    let src = shaders::corpus::get(shader)
        .unwrap_or_else(|| panic!("{shader} not in the corpus"))
        .source;
    src.lines()
        .filter_map(|l| {
            let l = l
                .trim_start()
                .trim_start_matches(['/', ';', '#'])
                .trim_start();
            let rest = l.strip_prefix("expect")?;
            let (entry, kv) = match rest.strip_prefix('[') {
                Some(r) => r.split_once("]:")?,
                None => ("main", rest.strip_prefix(':')?),
            };
            let kv = kv
                .split_whitespace()
                .filter_map(|kv| kv.split_once('='))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            Some((entry.to_string(), kv))
        })
        .collect()
}

/// What the corpus source's `// expect:` line says of its fragment entry point.
fn expected(shader: &str) -> std::collections::HashMap<String, String> {
    if shader == "color.frag" {
        return [("interlock", "none"), ("begin", "0")]
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
    }
    expectations(shader)
        .into_iter()
        .find(|(_, e)| e.get("model").is_some_and(|m| m == "Fragment"))
        .map(|(_, e)| e)
        .unwrap_or_else(|| panic!("{shader} has no expect line"))
}

/// The state `pops state` gives for the scenario's pipelines: one RGBA8 target without blending,
/// no depth/stencil, strict order, no VRS; sample-rate shading where the shader reads the sample
/// ID or position.
fn pops_state(family: &str, shader: &str, samples: u32) -> pm4::pops::PopsState {
    pops_state_with(family, shader, samples, 1)
}

/// [`pops_state`] with `targets` colour attachments (0: none, the null export).
/// The registers of a state as the report writes them (pops_report::registers).
fn registers_of(state: &pm4::pops::PopsState) -> Value {
    serde_json::to_value(pops_report::registers(state)).expect("registers serialise")
}

fn pops_state_with(
    family: &str,
    shader: &str,
    samples: u32,
    targets: usize,
) -> pm4::pops::PopsState {
    use pm4::pops;
    let sh = shaders::corpus::get(shader).expect("corpus shader");
    let info = shaders::spirv::analyze(&sh.words()).expect("analysis");
    let e = info
        .entry_points
        .iter()
        .find(|e| e.execution_model == shaders::spirv::ExecutionModel::Fragment)
        .expect("fragment entry point");
    let desc = pops::InterlockDesc {
        mode: e.interlock,
        resolves_intrawave: false,
        has_color_output: e.has_color_output,
        writes_memory: e.writes_memory,
        reads_sample_mask: e.reads_sample_mask,
    };
    let mut draw = pops::DrawState {
        rasterization_samples: samples,
        sample_shading: e.per_sample,
        ..pops::DrawState::default()
    };
    for t in draw.color_targets.iter_mut().skip(targets) {
        *t = None;
    }
    let f = pm4::Family::parse(family).expect("family");
    pops::derive(f, &desc, &draw, &pops::Experiments::default()).expect("derive")
}

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
    let report = read_report(report_path);
    // Every record has its own id, even where the driver recycles handles.
    let mut ids: Vec<u64> = report.iter().map(|r| r["id"].as_u64().unwrap()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), report.len(), "{at}: record ids are unique");
    for (m, r) in pair(&made, &report) {
        let ctx = format!("{at} {m} -> {r}");
        assert_eq!(r["chip"], family, "{ctx}");
        assert!(
            r["device"].as_str().is_some_and(|d| d.contains("RADV")),
            "{ctx}"
        );
        assert_eq!(r["app"], "pops-scenario-pipelines", "{ctx}");
        assert_eq!(r["entry_point"], "main", "{ctx}");
        let source = match (m["way"].as_str(), m["kind"].as_str()) {
            (Some("module"), _) => "shader_module",
            (Some("inline"), _) => "inline_create_info",
            (Some("gpl"), Some("library")) => "shader_module",
            (Some("gpl"), Some("pipeline")) => "library",
            (Some("identifier"), _) => "module_identifier",
            (Some("shader_object"), _) => "shader_object_spirv",
            _ => panic!("unexpected {ctx}"),
        };
        assert_eq!(r["source"], source, "{ctx}");
        if m["kind"] == "shader_object" {
            assert_eq!(
                r["samples"],
                Value::Null,
                "shader objects have dynamic samples: {ctx}"
            );
        } else {
            assert_eq!(r["samples"], m["samples"], "{ctx}");
        }
        if m["way"] == "identifier" {
            assert_eq!(r["interlock"], "unknown", "{ctx}");
            assert!(codes(r).contains(&"interlock-unknown".to_string()), "{ctx}");
            continue;
        }
        let shader = m["shader"].as_str().unwrap_or_default();
        let exp = expected(shader);
        let mode = exp["interlock"].as_str();
        assert_eq!(r["interlock"], mode, "{ctx}");
        assert_eq!(r["begin_count"].to_string(), exp["begin"], "{ctx}");
        if mode == "none" {
            continue;
        }
        assert_eq!(r["end_count"].to_string(), exp["end"], "{ctx}");
        assert_eq!(r["per_sample"].to_string(), exp["per_sample"], "{ctx}");
        let c = codes(r);
        let samples = m["samples"].as_u64().unwrap_or(1);
        let is_so = m["kind"] == "shader_object";
        // Article: pixel interlock with MSAA orders invocations along shared edges.
        assert_eq!(
            c.contains(&"pixel-interlock-with-msaa".to_string()),
            mode.starts_with("pixel") && samples > 1 && !is_so,
            "{ctx}"
        );
        // Article: VEGA10 and RAVEN need the drain workaround at 8 or more samples.
        assert_eq!(
            c.contains(&"pops-missed-overlap-workaround".to_string()),
            matches!(family, "vega10" | "raven") && samples >= 8 && !is_so,
            "{ctx}"
        );
        assert_eq!(
            c.contains(&"no-color-output".to_string()),
            exp["color"] == "false",
            "{ctx}"
        );
        assert_eq!(
            c.contains(&"interlock-without-memory-access".to_string()),
            exp["accesses_memory"] == "false",
            "{ctx}"
        );
        assert!(
            !c.contains(&"interlock-feature-not-enabled".to_string()),
            "{ctx}"
        );
        // The register state and PM4 are pops state's for the same inputs (shader objects:
        // the sample count is dynamic and assumed 1).
        let n = if is_so { 1 } else { samples as u32 };
        let state = pops_state(family, shader, n);
        assert_eq!(r["registers"], registers_of(&state), "{ctx}");
        assert!(
            r["registers"]["DB_SHADER_CONTROL"]["fields"].is_object(),
            "{ctx}"
        );
        assert_eq!(
            r["pm4"],
            serde_json::json!(pm4::pops::emit(&state)),
            "{ctx}"
        );
        // The stage hash is the one `pops inspect` prints for the module and entry point
        // (no specialization constants in these pipelines); unknown only without SPIR-V.
        let words = shaders::corpus::get(shader).expect("corpus shader").words();
        let want = shaders::spirv::stage_hash(&words, "main", None);
        if r["source"] != "module_identifier" && r["source"] != "shader_object_binary" {
            assert_eq!(r["stage_hash"], want.as_str(), "{ctx}");
        }
        // The report's PM4, read back from the report itself, passes the IB validator.
        let dwords: Vec<u32> = r["pm4"]
            .as_array()
            .expect("pm4 array")
            .iter()
            .map(|v| v.as_u64().expect("dword") as u32)
            .collect();
        let report = pm4::validate::validate(state.level, &dwords);
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

/// The corpus modules with several entry points (issue 5: the layer picks the fragment entry
/// point by the stage's `pName`).
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
    // Every fragment entry point the corpus states, in module order.
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
        let report = read_report(&report_path);
        // Objects are destroyed right after creation, so handles repeat: pair strictly in order,
        // one record per created object.
        let report: Vec<&Value> = report.iter().filter(|r| r["handle"] != "0x0").collect();
        assert_eq!(
            report.len(),
            made.len(),
            "RADV {family_at}: one record per object"
        );
        for (m, r) in made.iter().zip(report) {
            let ctx = format!("{family_at} {m} -> {r}");
            assert_eq!(r["handle"], m["handle"], "{ctx}");
            assert_eq!(r["kind"], m["kind"], "{ctx}");
            assert_eq!(r["chip"], family, "{ctx}");
            let name = m["entry"].as_str().unwrap_or_default();
            let exp = &entries
                .iter()
                .find(|(module, n, _)| m["module"] == *module && n == name)
                .unwrap_or_else(|| panic!("unexpected entry {ctx}"))
                .2;
            assert_eq!(r["entry_point"], name, "{ctx}");
            let source = match (m["way"].as_str(), m["kind"].as_str()) {
                (Some("module"), _) | (Some("gpl"), Some("library")) => "shader_module",
                (Some("inline"), _) => "inline_create_info",
                (Some("gpl"), Some("pipeline")) => "library",
                (Some("shader_object"), _) => "shader_object_spirv",
                _ => panic!("unexpected {ctx}"),
            };
            assert_eq!(r["source"], source, "{ctx}");
            let mode = exp["interlock"].as_str();
            assert_eq!(r["interlock"], mode, "{ctx}");
            assert_eq!(r["begin_count"].to_string(), exp["begin"], "{ctx}");
            assert_eq!(r["end_count"].to_string(), exp["end"], "{ctx}");
            assert_eq!(r["per_sample"].to_string(), exp["per_sample"], "{ctx}");
            if mode == "none" {
                assert_eq!(codes(r), Vec::<String>::new(), "{ctx}");
                continue;
            }
            // The diagnostics that follow from the entry point's own analysis.
            let c = codes(r);
            let has = |code: &str| c.iter().any(|x| x == code);
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
                assert_eq!(r["samples"], samples, "{ctx}");
                // Article: pixel interlock with MSAA orders invocations along shared edges.
                assert_eq!(
                    has("pixel-interlock-with-msaa"),
                    mode.starts_with("pixel"),
                    "{ctx}"
                );
            }
        }
    }
}

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
    let rec = read_report(&report);
    assert_eq!(rec.len(), 1, "{rec:?}");
    assert!(rec[0]["device"]
        .as_str()
        .is_some_and(|d| d.contains("llvmpipe")));
    assert_eq!(rec[0]["chip"], Value::Null, "lavapipe is not an AMD device");

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
    let rec = read_report(&report);
    assert_eq!(rec[0]["chip"], "navi21");
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
    let timing: Vec<Value> = read_report(&report)
        .into_iter()
        .filter(|r| r["kind"] == "timing")
        .collect();
    assert_eq!(timing.len(), 1, "{timing:?}");
    assert_eq!(timing[0]["scope"], "submission");
    assert_eq!(timing[0]["index"], 0);
    assert!(
        timing[0]["gpu_ns"].as_u64().is_some_and(|n| n > 0),
        "{timing:?}"
    );
    assert_eq!(timing[0]["ranges"], 0);
}

/// The validation findings a run printed (VK_LAYER_KHRONOS_validation logs to standard output
/// by default; standard error is read too).
fn vuids(out: &std::process::Output) -> std::collections::BTreeSet<String> {
    let s = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    s.split(|c: char| c.is_whitespace() || c == '[' || c == ']' || c == '"')
        .filter(|w| w.starts_with("VUID-") || w.starts_with("UNASSIGNED-"))
        .map(str::to_string)
        .collect()
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
        let rec = read_report(&report);
        if stack.first() == Some(&LAYER) || !stack.contains(&"VK_LAYER_KHRONOS_validation") {
            assert_eq!(pair(&made, &rec).len(), made.len(), "{at}: {stack:?}");
        } else {
            // Validation wraps the handles it passes up where the loader places it nearer
            // the application (which end of VK_INSTANCE_LAYERS that is changed between the
            // host's loader and today's): the records follow the objects in order and kind.
            let mut records = rec.iter();
            for m in &made {
                assert!(
                    records.any(|r| r["kind"] == m["kind"] && r["samples"] == m["samples"]),
                    "{at}: {stack:?}: no record for {m} in order"
                );
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
    std::fs::remove_dir_all(&layers_dir).unwrap();
}

/// Whether the host's VK_LAYER_KHRONOS_validation is installed; reports SKIPPED otherwise.
fn have_validation_layer() -> bool {
    let manifest = Path::new("/usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json");
    if !manifest.is_file() {
        skip("VK_LAYER_KHRONOS_validation not installed (vulkan-validationlayers)");
    }
    manifest.is_file()
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
        let rec = read_report(&report);
        assert_eq!(rec.len(), 64, "{at}: one record per pipeline");
        assert!(
            rec.iter()
                .all(|r| r["kind"] == "pipeline" && r["chip"] == "navi21"),
            "{at}"
        );
        // With verify_isa: sixteen threads' pipelines through one verifier thread and one
        // outbox, every record written once, each interlocked one with its verdict.
        let (out, report) = run("verified.jsonl", "1");
        assert!(check_ok(&out, &format!("{at}, verify_isa")));
        let rec = read_report(&report);
        assert_eq!(rec.len(), 64, "{at}, verify_isa: one record per pipeline");
        let interlocked: Vec<&Value> = rec.iter().filter(|r| r["interlock"] != "none").collect();
        assert!(interlocked.len() >= 16, "{at}, verify_isa: {rec:?}");
        for r in interlocked {
            let isa: Vec<&str> = r["diagnostics"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|d| d["code"].as_str().filter(|c| c.starts_with("isa-")))
                .collect();
            assert_eq!(isa, ["isa-verified"], "{at}, verify_isa: {r}");
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
        let rec = read_report(&report);
        let apps: std::collections::BTreeSet<String> = rec
            .iter()
            .filter_map(|r| r["app"].as_str().map(str::to_string))
            .collect();
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
        let paired = pair(&created, &read_report(&report)).len();
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
        let records = read_report(&report);
        assert_eq!(pair(&created, &records).len(), created.len(), "{at}");
        let verified = records
            .iter()
            .filter(|r| r["kind"] == "pipeline")
            .filter(|r| r["diagnostics"].to_string().contains("\"isa-verified\""))
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
    let run = |env_chip: Option<&str>, file: Option<&str>, api: Option<&str>| -> Vec<Value> {
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
        read_report(&report)
    };
    let chip = |rec: Vec<Value>| rec.first().map(|r| r["chip"].clone());
    assert_eq!(
        chip(run(None, None, None)),
        Some(Value::from("navi31")),
        "{at}"
    );
    assert_eq!(
        chip(run(None, None, Some("vega10"))),
        Some(Value::from("vega10")),
        "{at}"
    );
    assert_eq!(
        chip(run(None, Some("raven"), Some("vega10"))),
        Some(Value::from("raven")),
        "{at}"
    );
    assert_eq!(
        chip(run(Some("navi10"), Some("raven"), Some("vega10"))),
        Some(Value::from("navi10")),
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
    assert!(!read_report(&api_report).is_empty(), "{at}");
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
        read_report(&report).len()
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
            read_report(&report_path).len(),
            created,
            "{what}: {report}\n{}",
            String::from_utf8_lossy(&layered.stderr)
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// The RADV that really records command buffers on null hardware (shared/tools/radv-oracle,
/// built by the test command into target/radv-oracle).
fn oracle_icd() -> Option<std::path::PathBuf> {
    let icd = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../target/radv-oracle/radeon_oracle_icd.json");
    if icd.is_file() {
        Some(icd)
    } else {
        skip(&format!(
            "{} not built (bash ../shared/tools/radv-oracle/build.sh target/radv-oracle)",
            icd.display()
        ));
        None
    }
}

/// Register values in effect at each draw packet of a recorded command buffer: the device
/// preamble's, then the command buffer's writes in order (CLEAR_STATE's 0 where neither wrote).
fn values_at_draws(
    level: pm4::GfxLevel,
    preamble: &[u32],
    ib: &[u32],
) -> Vec<std::collections::HashMap<u32, u32>> {
    let mut regs = std::collections::HashMap::new();
    for w in pm4::decode(level, preamble).writes() {
        regs.insert(w.address, w.value);
    }
    let d = pm4::decode(level, ib);
    assert!(d.is_ok(), "RADV's command buffer decodes: {:?}", d.error);
    let mut at = Vec::new();
    for p in &d.packets {
        for w in &p.writes {
            regs.insert(w.address, w.value);
        }
        if p.opcode.name().starts_with("DRAW_") {
            at.push(regs.clone());
        }
    }
    at
}

/// What a scenario run on the RADV oracle gave: the scenario's own line, the layer's `draw`
/// records, and the register values RADV recorded at each draw packet.
struct OracleRun {
    made: Value,
    draws: Vec<Value>,
    /// Every record, creation records included.
    records: Vec<Value>,
    at: Vec<std::collections::HashMap<u32, u32>>,
    /// The command buffer RADV recorded, as dwords.
    ib: Vec<u32>,
    /// Every primary command buffer RADV recorded, in the order they ended.
    ibs: Vec<Vec<u32>>,
}

fn run_on_oracle(icd: &Path, family: &str, scenario: &str) -> OracleRun {
    run_on_oracle_with(icd, family, scenario, &[])
}

/// [`run_on_oracle`] with more environment (layer settings).
fn run_on_oracle_with(icd: &Path, family: &str, scenario: &str, env: &[(&str, &str)]) -> OracleRun {
    let dir = pops_testkit::scratch(&format!("{scenario}-{family}"));
    let report_path = dir.join("report.jsonl");
    let ibs = dir.join("ib");
    std::fs::create_dir_all(&ibs).unwrap();
    let mut sc = Scenario::new(BIN, scenario, icd.to_str().unwrap())
        .env("RADV_FORCE_FAMILY", family)
        .env("RADV_DUMP_IB_DIR", &ibs)
        .env("MESA_SHADER_CACHE_DISABLE", "true")
        .with_layers(&[LAYER])
        .env("VK_POPS_INTERLOCK_REPORT", &report_path);
    for (k, v) in env {
        sc = sc.env(k, v);
    }
    let out = sc.run();
    assert!(
        check_ok(&out, &format!("{scenario} on the RADV oracle {family}")),
        "{family}"
    );
    let made = json_lines(&out.stdout).remove(0);
    let records = read_report(&report_path);
    let draws = records
        .iter()
        .filter(|r| r["kind"] == "draw")
        .cloned()
        .collect();
    let mut files: Vec<_> = std::fs::read_dir(&ibs)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let read = |prefix: &str| {
        let p = files
            .iter()
            .find(|p| p.file_name().unwrap().to_string_lossy().starts_with(prefix))
            .unwrap_or_else(|| panic!("{family}: no {prefix}* in {}", ibs.display()));
        pops_tests::read_dwords(p)
    };
    let level = pm4::Family::parse(family).unwrap().gfx_level();
    let ib = read("ib-");
    let at = values_at_draws(level, &read("preamble-"), &ib);
    // ib-<pid>-<n>.bin, n counting the command buffers in the order they ended.
    let mut ibs: Vec<(u64, &std::path::PathBuf)> = files
        .iter()
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?;
            let n = name
                .strip_prefix("ib-")?
                .strip_suffix(".bin")?
                .rsplit('-')
                .next()?;
            Some((n.parse().ok()?, p))
        })
        .collect();
    ibs.sort();
    let ibs = ibs
        .into_iter()
        .map(|(_, p)| pops_tests::read_dwords(p))
        .collect();
    OracleRun {
        made,
        draws,
        records,
        at,
        ib,
        ibs,
    }
}

/// Every field `state` decides holds RADV's value in `regs`, or pm4::pops::radv lists why not.
/// Returns how many fields were compared.
fn agrees_with_radv(
    state: &pm4::pops::PopsState,
    regs: &std::collections::HashMap<u32, u32>,
    what: &str,
) -> usize {
    let mut compared = 0;
    for reg in &state.registers {
        for (field, ours) in state.decided_fields(reg.reg()) {
            let desc = reg.desc.field(field).unwrap();
            let theirs = desc.extract(regs.get(&reg.desc.address).copied().unwrap_or(0));
            compared += 1;
            if ours != theirs {
                assert!(
                    pm4::pops::radv::find(state, reg.reg(), field).is_some(),
                    "{what}: {}.{field}: layer {ours}, RADV {theirs}",
                    reg.reg()
                );
            }
        }
    }
    compared
}

/// Per draw, the layer's `draw` record holds the register state of the draw's real inputs (a
/// dynamic rasterization sample count set in the command buffer), and every field pm4::pops
/// decides agrees with what RADV recorded for that draw, but for pm4::pops::radv's listed
/// differences.
#[test]
fn draw_records_agree_with_radv_command_buffers() {
    let Some(icd) = oracle_icd() else {
        return;
    };
    for family in ["vega10", "navi10", "navi21", "navi31"] {
        let run = run_on_oracle(&icd, family, "draws");
        let shader = run.made["shader"].as_str().unwrap();
        // One record per distinct sample count, in order of first use, with the draw counts.
        let got: Vec<(u64, u64)> = run
            .draws
            .iter()
            .map(|r| (r["samples"].as_u64().unwrap(), r["draws"].as_u64().unwrap()))
            .collect();
        assert_eq!(got, [(1, 1), (4, 2), (8, 1)], "{family}");
        for r in &run.draws {
            assert_eq!(r["command_buffer"], run.made["command_buffer"]);
            assert_eq!(r["handle"], run.made["pipeline"]);
            assert_eq!(r["bound"], "pipeline");
            // The name the application gave the pipeline with vkSetDebugUtilsObjectNameEXT,
            // and the one it gave the fragment shader module.
            assert_eq!(r["name"], "oit colour pass");
            assert_eq!(r["module_name"], "oit.frag");
        }
        assert_eq!(run.at.len(), 4, "{family}: RADV recorded 4 draws");
        let mut compared = 0;
        for (k, samples) in [(0usize, 1u32), (1, 4), (3, 8)] {
            // Dynamic rendering without attachments: no colour target.
            let state = pops_state_with(family, shader, samples, 0);
            let rec = run.draws.iter().find(|r| r["samples"] == samples).unwrap();
            assert_eq!(
                rec["registers"],
                registers_of(&state),
                "{family} {samples}x"
            );
            compared += agrees_with_radv(&state, &run.at[k], &format!("{family} draw {k}"));
        }
        assert!(compared > 30, "{family}: {compared}");
    }
}

/// Six colour attachments of different formats, two blending with source alpha: the layer's
/// `draw` record gives each target the export format its format and blending call for, and
/// every decided field agrees with the SPI_SHADER_COL_FORMAT (and the rest) RADV recorded for
/// the draw, on chips with and without RB+.
#[test]
fn draw_records_export_each_attachment_format_as_radv_does() {
    use pm4::pops::{self, BlendTarget, ColorFormat};
    let Some(icd) = oracle_icd() else {
        return;
    };
    // What the scenario renders to (its MIXED_TARGETS), and the export format each needs on
    // a chip without RB+ (VEGA10, NAVI10) and with it (NAVI21, NAVI31).
    let targets = [
        (
            "R8G8B8A8_UNORM",
            false,
            "SPI_SHADER_FP16_ABGR",
            "SPI_SHADER_FP16_ABGR",
        ),
        (
            "R16G16B16A16_SFLOAT",
            true,
            "SPI_SHADER_FP16_ABGR",
            "SPI_SHADER_FP16_ABGR",
        ),
        ("R32_UINT", false, "SPI_SHADER_32_R", "SPI_SHADER_32_R"),
        ("R8_UNORM", false, "SPI_SHADER_32_R", "SPI_SHADER_FP16_ABGR"),
        (
            "R16G16B16A16_UNORM",
            true,
            "SPI_SHADER_32_ABGR",
            "SPI_SHADER_32_ABGR",
        ),
        (
            "R32G32_SFLOAT",
            false,
            "SPI_SHADER_32_GR",
            "SPI_SHADER_32_GR",
        ),
    ];
    let db: Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../shared/reference/registers/gfx11.json"),
        )
        .expect("the register database in shared/reference"),
    )
    .unwrap();
    let export_formats: std::collections::HashMap<String, u32> = db["enums"]
        ["SPI_SHADER_EX_FORMAT"]["entries"]
        .as_array()
        .expect("SPI_SHADER_EX_FORMAT in the register database")
        .iter()
        .map(|e| {
            (
                e["name"].as_str().unwrap().to_string(),
                e["value"].as_u64().unwrap() as u32,
            )
        })
        .collect();
    for family in ["vega10", "navi10", "navi21", "navi31"] {
        let run = run_on_oracle(&icd, family, "draws-formats");
        assert_eq!(run.draws.len(), 1, "{family}: one draw record");
        assert_eq!(run.at.len(), 1, "{family}: RADV recorded one draw");
        let f = pm4::Family::parse(family).unwrap();
        let mut draw = pops::DrawState::default();
        for (i, (format, over, ..)) in targets.iter().enumerate() {
            draw.color_formats[i] = ColorFormat::parse(format).unwrap();
            draw.color_targets[i] = Some(if *over {
                BlendTarget::ALPHA
            } else {
                BlendTarget::OPAQUE
            });
        }
        let desc = pops::InterlockDesc {
            mode: Some(pm4::InterlockMode::new(
                pm4::Granularity::Pixel,
                pm4::Ordering::Ordered,
            )),
            resolves_intrawave: false,
            has_color_output: true,
            writes_memory: false,
            reads_sample_mask: false,
        };
        let state = pops::derive(f, &desc, &draw, &pops::Experiments::default()).unwrap();
        assert_eq!(run.draws[0]["registers"], registers_of(&state), "{family}");
        assert!(agrees_with_radv(&state, &run.at[0], family) > 10);
        // RADV's own export formats, read from its command buffer at SPI_SHADER_COL_FORMAT
        // (0x28714, four bits per target) and named by the register database's
        // SPI_SHADER_EX_FORMAT: the expectations above.
        let value = run.at[0].get(&0x28714).copied().unwrap_or(0);
        let rb_plus = matches!(family, "navi21" | "navi31");
        for (i, (format, _, without, with)) in targets.iter().enumerate() {
            let got = (value >> (4 * i)) & 0xf;
            let want = if rb_plus { with } else { without };
            assert_eq!(
                export_formats.get(*want),
                Some(&got),
                "{family} COL{i} ({format}): RADV exports {got}, expected {want}"
            );
        }
    }
}

/// A pipeline linked from graphics pipeline libraries, its fragment output library declaring a
/// 1-sample RGBA16F colour attachment beside 4 rasterization and depth samples
/// (VK_AMD_mixed_attachment_samples): the two draws give one record of the linked pipeline with
/// the libraries' state and the bound attachments, and every decided field agrees with RADV.
#[test]
fn library_draw_records_with_mixed_samples_agree_with_radv() {
    use pm4::pops::{self, BlendTarget, ColorFormat, CompareOp};
    let Some(icd) = oracle_icd() else {
        return;
    };
    for family in ["vega10", "navi10", "navi21", "navi31"] {
        let run = run_on_oracle(&icd, family, "draws-libraries");
        assert_eq!(run.draws.len(), 1, "{family}: one draw record");
        let rec = &run.draws[0];
        assert_eq!(
            rec["handle"], run.made["pipeline"],
            "{family}: the linked pipeline"
        );
        assert_eq!(rec["command_buffer"], run.made["command_buffer"]);
        assert_eq!(rec["draws"], 2);
        assert_eq!(rec["samples"], 4);
        assert_eq!(run.at.len(), 2, "{family}: RADV recorded two draws");
        let shader = run.made["shader"].as_str().unwrap();
        let mut expected = pops_state_with(family, shader, 4, 1);
        let mut draw = pops::DrawState {
            rasterization_samples: 4,
            depth_stencil_samples: 4,
            ..pops::DrawState::default()
        };
        draw.color_targets = [None; pops::MAX_COLOR_TARGETS];
        draw.color_targets[0] = Some(BlendTarget::OPAQUE);
        draw.color_formats[0] = ColorFormat::parse("R16G16B16A16_SFLOAT").unwrap();
        draw.depth_stencil.depth_test = true;
        draw.depth_stencil.depth_write = true;
        draw.depth_stencil.depth_compare = CompareOp::Less;
        expected = pops::derive(
            expected.family,
            &expected.interlock,
            &draw,
            &pops::Experiments::default(),
        )
        .unwrap();
        assert_eq!(rec["registers"], registers_of(&expected), "{family}");
        for (k, at) in run.at.iter().enumerate() {
            assert!(agrees_with_radv(&expected, at, &format!("{family} draw {k}")) > 10);
        }
    }
}

/// The draw scenarios on each Mesa's stock RADV over the amdgpu kernel-interface shim, every
/// command buffer submitted through libdrm and the kernel's checks: each draw record's decided
/// fields hold what RADV submitted at one of its POPS draws, each POPS draw RADV submitted has
/// its record, and the records count the draws submitted. This is the per-draw check on today's
/// Mesa, whose RADV has no null hardware that records command buffers (the RADV oracle is Mesa
/// 25.0.7); a submission that runs a secondary command buffer through an IB2 (RADV 26 does so
/// even without IB chaining) is not recorded by the shim, and is named, not compared.
#[test]
fn draw_records_agree_with_what_radv_submits_with_each_mesa() {
    if !have_icd(RADV_ICD) {
        return;
    }
    let Some(shim) = pops_testkit::shim::library_or_skip() else {
        return;
    };
    const SCENARIOS: [&str; 7] = [
        "draws",
        "draws-depth",
        "draws-formats",
        "draws-libraries",
        // Issue 41, item 6: a sample count set at draw time for a pipeline linked from libraries
        // that made it dynamic is the draw's.
        "draws-libraries-dynamic",
        "draws-shader-objects",
        "draws-interleaved",
    ];
    for mesa in pops_testkit::mesa::all_or_skip() {
        // GFX12 on today's Mesa only (RADV 25.0.7's GFX12 support is young: the shim's README).
        let gfx12 = pops_testkit::shim::chips_for(&mesa)
            .into_iter()
            .filter(|c| pops_testkit::shim::gfx12_chips().contains(c));
        for chip in ["vega10", "navi10", "navi21", "navi31", "gfx1150"]
            .into_iter()
            .chain(gfx12)
        {
            let level = pm4::Family::parse(chip).unwrap().gfx_level();
            for scenario in SCENARIOS {
                let at = format!("{} {chip} {scenario}", mesa.label());
                let dir = pops_testkit::scratch(&format!("submit-{chip}-{scenario}"));
                let report = dir.join("report.jsonl");
                let cmd = pops_testkit::shim::on(mesa.command(BIN), &shim, chip, &dir);
                let out = Scenario::on(cmd, scenario, RADV_ICD)
                    .with_layers(&[LAYER])
                    .env("RADV_DEBUG", compare::launch::SHIM_RADV_DEBUG)
                    .env("POPS_SCENARIO_SUBMIT", "1")
                    .env("VK_POPS_INTERLOCK_REPORT", &report)
                    .run();
                assert!(check_ok(&out, &at), "{at}");
                let events = pops_testkit::shim::events(&dir);
                assert!(events.is_empty(), "{at}: {events:?}");
                let draws: Vec<Value> = read_report(&report)
                    .into_iter()
                    .filter(|r| r["kind"] == "draw")
                    .collect();
                assert!(!draws.is_empty(), "{at}: no draw record");
                if scenario == "draws-libraries-dynamic" {
                    for r in &draws {
                        assert_eq!(
                            r["samples"], 4,
                            "{at}: the sample count set at the draw: {r}"
                        );
                    }
                }
                let recording = pops_tests::submitted::draws_but_chained(&dir, level);
                let submitted: Vec<_> = recording.draws.iter().filter(|d| d.pops()).collect();
                let chained = !recording.chained.is_empty();
                assert!(
                    !chained || (scenario == "draws-depth" && mesa.major() >= Some(26)),
                    "{at}: only RADV 26's secondary command buffer chains: {:?}",
                    recording.chained
                );
                let recorded: u64 = draws.iter().map(|r| r["draws"].as_u64().unwrap()).sum();
                if !chained {
                    assert_eq!(recorded, submitted.len() as u64, "{at}: draws counted");
                }
                let agree = |r: &Value, d: &pops_tests::submitted::Draw| {
                    pops_tests::submitted::agrees(r, d, level)
                };
                let mut compared = 0;
                for r in &draws {
                    let best = submitted.iter().filter_map(|d| agree(r, d).ok()).max();
                    match best {
                        Some(n) => compared += n,
                        // A record whose draws all ran in the unrecorded secondary (the
                        // primary's own draws, before it, are compared).
                        None if chained => {}
                        None => panic!(
                            "{at}: no submitted draw has the record's fields: {:?}\n{r}",
                            submitted
                                .iter()
                                .map(|d| agree(r, d).unwrap_err())
                                .collect::<Vec<_>>()
                        ),
                    }
                }
                for d in &submitted {
                    assert!(
                        draws.iter().any(|r| agree(r, d).is_ok()),
                        "{at}: submission {}'s POPS draw has no record",
                        d.submission
                    );
                }
                assert!(compared > 8, "{at}: {compared} fields compared");
                // `pops lint`'s validator refuses nothing RADV submitted: every IB of the run,
                // checked against the register database's tables of the chip's level.
                let ibs = lint_recorded_ibs(&dir, level, &at);
                assert!(ibs > 0, "{at}: no IB recorded");
                eprintln!(
                    "{at}: {} draw record(s), {} POPS draw(s) submitted, {compared} fields compared{}",
                    draws.len(),
                    submitted.len(),
                    if chained { " (a secondary ran in an unrecorded IB)" } else { "" }
                );
                std::fs::remove_dir_all(&dir).unwrap();
            }
        }
    }
}

/// Validates every IB the shim recorded in `dir` (`ib-*.bin`) as `level` code: each passes, with
/// register writes. The number of IBs.
fn lint_recorded_ibs(dir: &Path, level: pm4::GfxLevel, at: &str) -> usize {
    let mut n = 0;
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !(name.starts_with("ib-") && name.ends_with(".bin")) {
            continue;
        }
        let bytes = std::fs::read(e.path()).unwrap();
        let dwords: Vec<u32> = bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let r = pm4::validate::validate(level, &dwords);
        assert!(r.is_ok(), "{at}: {name}: {:#?}", r.violations);
        n += 1;
    }
    n
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
    let run = |messages: Option<&str>| {
        let mut sc = Scenario::new(BIN, "messenger", icd.to_str().unwrap())
            .env("RADV_FORCE_FAMILY", "navi31")
            .env("MESA_SHADER_CACHE_DISABLE", "true")
            .with_layers(&[LAYER]);
        if let Some(v) = messages {
            sc = sc.env("VK_POPS_INTERLOCK_DEBUG_MESSAGES", v);
        }
        let out = sc.run();
        assert!(check_ok(&out, "messenger on the RADV oracle navi31"));
        json_lines(&out.stdout).remove(0)
    };
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
    let records = read_report(&report_path);
    let apps = |app: &str| records.iter().filter(|r| r["app"] == app).count();
    assert_eq!(
        apps("pops-scenario-fault-a"),
        0,
        "the faulty instance reports nothing"
    );
    assert!(
        apps("pops-scenario-fault-b") >= 1,
        "the other instance still reports"
    );
    assert!(records.iter().any(|r| r["handle"] == made["healthy"]));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.matches("internal error in vkCreateShaderModule: fault injected")
            .count(),
        1,
        "{err}"
    );
}

/// The `pixel-to-sample` experiment: the application's pixel-ordered shader reaches RADV as
/// sample-ordered. Every draw record says so (interlock, `experiment` with its change) and holds
/// the registers of sample interlock at the draw's sample count — and RADV, which compiled the
/// rewritten shader, programs exactly those decided fields; without the setting nothing changes.
#[test]
fn pixel_to_sample_experiment_reaches_the_driver() {
    use pm4::pops;
    let Some(icd) = oracle_icd() else {
        return;
    };
    for family in ["vega10", "navi31"] {
        let run = run_on_oracle_with(
            &icd,
            family,
            "draws",
            &[("VK_POPS_INTERLOCK_EXPERIMENT", "pixel-to-sample")],
        );
        assert_eq!(run.made["shader"], "pixel_interlock_ordered.frag");
        assert_eq!(run.draws.len(), 3, "{family}");
        let f = pm4::Family::parse(family).unwrap();
        for (k, samples) in [(0usize, 1u32), (1, 4), (3, 8)] {
            let rec = run.draws.iter().find(|r| r["samples"] == samples).unwrap();
            assert_eq!(rec["interlock"], "sample-ordered", "{family} {samples}x");
            assert_eq!(rec["experiment"]["name"], "pixel-to-sample");
            assert_eq!(
                rec["experiment"]["changes"],
                serde_json::json!(["pixel-ordered -> sample-ordered"])
            );
            let desc = pops::InterlockDesc {
                mode: Some(pm4::InterlockMode::new(
                    pm4::Granularity::Sample,
                    pm4::Ordering::Ordered,
                )),
                resolves_intrawave: false,
                has_color_output: true,
                writes_memory: true,
                reads_sample_mask: false,
            };
            let mut draw = pops::DrawState {
                rasterization_samples: samples,
                ..pops::DrawState::default()
            };
            draw.color_targets = [None; pops::MAX_COLOR_TARGETS];
            let base = pops_state_with(family, "pixel_interlock_ordered.frag", samples, 0);
            let state = pops::derive(
                f,
                &pops::InterlockDesc {
                    writes_memory: base.interlock.writes_memory,
                    has_color_output: base.interlock.has_color_output,
                    ..desc
                },
                &pops::DrawState {
                    sample_shading: base.draw.sample_shading,
                    ..draw
                },
                &pops::Experiments::default(),
            )
            .unwrap();
            assert_eq!(
                rec["registers"],
                registers_of(&state),
                "{family} {samples}x"
            );
            agrees_with_radv(
                &state,
                &run.at[k],
                &format!("{family} draw {k} (experiment)"),
            );
        }
    }
    // no-interlock: the pipeline reaches the driver without interlock, and its record (reported
    // although it no longer uses interlock) says what was removed; POPS is off at every draw.
    let run = run_on_oracle_with(
        &icd,
        "navi31",
        "draws",
        &[("VK_POPS_INTERLOCK_EXPERIMENT", "no-interlock")],
    );
    let created: Vec<&Value> = run
        .records
        .iter()
        .filter(|r| r["kind"] == "pipeline")
        .collect();
    assert_eq!(created.len(), 1, "{:?}", run.records);
    assert_eq!(created[0]["interlock"], "none");
    assert_eq!(
        created[0]["experiment"]["changes"],
        serde_json::json!(["pixel-ordered -> none"])
    );
    // Its draws are still followed (timed and compared as the application's interlocked
    // work), each record saying what was removed.
    assert_eq!(run.draws.len(), 3, "{:?}", run.draws);
    assert!(run.draws.iter().all(|r| r["interlock"] == "none"
        && r["experiment"]["changes"] == serde_json::json!(["pixel-ordered -> none"])));
    // DB_SHADER_CONTROL (0x2880C on GFX11): PRIMITIVE_ORDERED_PIXEL_SHADER (bit 16) clear.
    assert_eq!(run.at.len(), 4, "RADV recorded the four draws");
    assert!(run
        .at
        .iter()
        .all(|regs| regs.get(&0x2880C).copied().unwrap_or(0) & (1 << 16) == 0));
    // An application that enabled pixel interlock only: the layer enables sample interlock in a
    // copy of its device create info, and the experiment runs (no refusal).
    let run = run_on_oracle_with(
        &icd,
        "navi31",
        "draws",
        &[
            ("VK_POPS_INTERLOCK_EXPERIMENT", "pixel-to-sample"),
            ("POPS_SCENARIO_PIXEL_INTERLOCK_ONLY", "1"),
        ],
    );
    assert!(
        run.draws.iter().all(|r| r["interlock"] == "sample-ordered"),
        "{:?}",
        run.draws
    );
    // Without the setting: the application's own pixel interlock.
    let plain = run_on_oracle(&icd, "navi31", "draws");
    assert!(plain
        .draws
        .iter()
        .all(|r| r["interlock"] == "pixel-ordered" && r.get("experiment").is_none()));
    // Limited by targets: the stage hash (in any case), or the application's name of the
    // fragment module ("oit.frag", given after the module's creation and before the
    // pipeline's): RADV then programs at the 8-sample draw the DB_SHADER_CONTROL of the
    // experiment run on every shader, not the application's; another name changes nothing.
    let all = run_on_oracle_with(
        &icd,
        "navi31",
        "draws",
        &[("VK_POPS_INTERLOCK_EXPERIMENT", "pixel-to-sample")],
    );
    let dsc = |r: &OracleRun| r.at[3].get(&0x2880C).copied().unwrap_or(0);
    assert_ne!(
        dsc(&all),
        dsc(&plain),
        "8 samples: sample and pixel interlock differ"
    );
    let hash = plain.draws[0]["stage_hash"]
        .as_str()
        .unwrap()
        .to_ascii_uppercase();
    for target in [hash.as_str(), "oit.frag"] {
        let run = run_on_oracle_with(
            &icd,
            "navi31",
            "draws",
            &[
                ("VK_POPS_INTERLOCK_EXPERIMENT", "pixel-to-sample"),
                ("VK_POPS_INTERLOCK_EXPERIMENT_TARGETS", target),
            ],
        );
        assert!(
            run.draws.iter().all(|r| r["interlock"] == "sample-ordered"
                && r["experiment"]["name"] == "pixel-to-sample"
                && r["module_name"] == "oit.frag"),
            "{target}: {:?}",
            run.draws
        );
        assert_eq!(dsc(&run), dsc(&all), "{target}");
    }
    let other = run_on_oracle_with(
        &icd,
        "navi31",
        "draws",
        &[
            ("VK_POPS_INTERLOCK_EXPERIMENT", "pixel-to-sample"),
            (
                "VK_POPS_INTERLOCK_EXPERIMENT_TARGETS",
                "other.frag,0123456789abcdef",
            ),
        ],
    );
    assert!(other
        .draws
        .iter()
        .all(|r| r["interlock"] == "pixel-ordered" && r.get("experiment").is_none()));
    assert_eq!(dsc(&other), dsc(&plain));
}

/// The `pixel-to-sample` experiment on shader objects: the SPIR-V fragment shader object goes
/// down rewritten; its draw records say so, and RADV programs the sample-interlock fields.
#[test]
fn pixel_to_sample_experiment_reaches_the_driver_through_shader_objects() {
    use pm4::pops;
    let Some(icd) = oracle_icd() else {
        return;
    };
    let family = "navi31";
    let run = run_on_oracle_with(
        &icd,
        family,
        "draws-shader-objects",
        &[("VK_POPS_INTERLOCK_EXPERIMENT", "pixel-to-sample")],
    );
    assert_eq!(run.made["shader"], "pixel_interlock_ordered.frag");
    assert_eq!(run.draws.len(), 2);
    for (k, samples) in [(0usize, 1u32), (1, 4), (2, 4)] {
        let rec = run.draws.iter().find(|r| r["samples"] == samples).unwrap();
        assert_eq!(rec["bound"], "shader_object");
        assert_eq!(rec["interlock"], "sample-ordered", "{samples}x");
        assert_eq!(rec["experiment"]["name"], "pixel-to-sample");
        let base = pops_state_with(family, "pixel_interlock_ordered.frag", samples, 0);
        let state = pops::derive(
            base.family,
            &pops::InterlockDesc {
                mode: Some(pm4::InterlockMode::new(
                    pm4::Granularity::Sample,
                    pm4::Ordering::Ordered,
                )),
                ..base.interlock
            },
            &base.draw,
            &pops::Experiments::default(),
        )
        .unwrap();
        assert_eq!(rec["registers"], registers_of(&state), "{samples}x");
        agrees_with_radv(
            &state,
            &run.at[k],
            &format!("{family} draw {k} (shader object)"),
        );
    }
}

/// The `pixel-to-sample` experiment on every way of delivering fragment SPIR-V: shader modules,
/// SPIR-V chained inline to the stage, graphics pipeline libraries and shader objects go down
/// as sample interlock and their records say so; a module identifier's SPIR-V is not visible
/// and is left alone.
#[test]
fn pixel_to_sample_experiment_reaches_every_way() {
    if !have_icd(RADV_ICD) {
        return;
    }
    let dir = pops_testkit::scratch("experiment-ways");
    let report_path = dir.join("report.jsonl");
    let out = radv("pipelines", "navi31")
        .with_layers(&[LAYER])
        .env("VK_POPS_INTERLOCK_REPORT", &report_path)
        .env("VK_POPS_INTERLOCK_EXPERIMENT", "pixel-to-sample")
        .env("POPS_SCENARIO_SHADERS", "pixel_interlock_ordered.frag:4")
        .run();
    if !check_ok(&out, "pipelines on RADV navi31 with an experiment") {
        return;
    }
    let made = made(&out);
    let report = read_report(&report_path);
    let mut seen = std::collections::BTreeSet::new();
    for (m, r) in pair(&made, &report) {
        let way = m["way"].as_str().unwrap();
        if way == "identifier" {
            // Left alone, and the record says why.
            assert!(r.get("experiment").is_none(), "{m} -> {r}");
            assert!(
                r["diagnostics"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|d| d["code"] == "experiment-not-applied"),
                "{m} -> {r}"
            );
            seen.insert(way.to_string());
            continue;
        }
        assert_eq!(r["interlock"], "sample-ordered", "{m} -> {r}");
        assert_eq!(r["experiment"]["name"], "pixel-to-sample", "{m} -> {r}");
        seen.insert(way.to_string());
    }
    for way in ["module", "inline", "gpl", "shader_object", "identifier"] {
        assert!(seen.contains(way), "{way}: {seen:?}");
    }
}

/// Thousands of repeated draws in three command buffers recorded in alternation, with a plain
/// pipeline bound for some of them: each command buffer's `draw` records count exactly the
/// interlocked draws it made (the layer counts repeated draws without its lock, per command
/// buffer), and the draws RADV recorded are all the draws made.
#[test]
fn draw_counts_survive_interleaved_recording() {
    let Some(icd) = oracle_icd() else {
        return;
    };
    let dir = pops_testkit::scratch("draws-interleaved");
    let report_path = dir.join("report.jsonl");
    let ibs = dir.join("ib");
    std::fs::create_dir_all(&ibs).unwrap();
    let out = Scenario::new(BIN, "draws-interleaved", icd.to_str().unwrap())
        .env("RADV_FORCE_FAMILY", "navi31")
        .env("RADV_DUMP_IB_DIR", &ibs)
        .env("MESA_SHADER_CACHE_DISABLE", "true")
        .with_layers(&[LAYER])
        .env("VK_POPS_INTERLOCK_REPORT", &report_path)
        .run();
    assert!(check_ok(
        &out,
        "draws-interleaved on the RADV oracle navi31"
    ));
    let made = json_lines(&out.stdout).remove(0);
    // Command buffers recorded with one pipeline and one state add up in one record: the
    // expected draws of each (command buffer, samples) summed per sample count, with the number
    // of command buffers.
    let records = read_report(&report_path);
    let mut got: Vec<(u64, u64, u64)> = records
        .iter()
        .filter(|r| r["kind"] == "draw")
        .map(|r| {
            assert_eq!(r["handle"], made["pipeline"]);
            (
                r["samples"].as_u64().unwrap(),
                r["draws"].as_u64().unwrap(),
                r["command_buffers"].as_u64().unwrap(),
            )
        })
        .collect();
    got.sort();
    let mut expected: std::collections::BTreeMap<u64, (u64, u64)> = Default::default();
    for e in made["expected"].as_array().unwrap() {
        let t = expected.entry(e[1].as_u64().unwrap()).or_default();
        t.0 += e[2].as_u64().unwrap();
        t.1 += 1;
    }
    let expected: Vec<(u64, u64, u64)> =
        expected.into_iter().map(|(s, (d, n))| (s, d, n)).collect();
    assert_eq!(got, expected);
    let cbs: Vec<&str> = records
        .iter()
        .filter(|r| r["kind"] == "draw")
        .map(|r| r["command_buffer"].as_str().unwrap())
        .collect();
    assert!(
        !cbs.iter().any(|cb| made["c"] == *cb),
        "a command buffer with no interlocked stage bound has no record"
    );
    // RADV recorded every draw of the three command buffers: 900 draw packets.
    let mut packets = 0;
    for e in std::fs::read_dir(&ibs).unwrap() {
        let p = e.unwrap().path();
        if p.file_name().unwrap().to_string_lossy().starts_with("ib-") {
            let d = pm4::decode(pm4::GfxLevel::Gfx11, &pops_tests::read_dwords(&p));
            packets += d
                .packets
                .iter()
                .filter(|p| p.opcode.name().starts_with("DRAW_"))
                .count();
        }
    }
    assert_eq!(packets, 900, "RADV's draw packets in {}", ibs.display());
}

/// A 4-sample depth attachment with depth testing, in the primary command buffer, in a
/// secondary that inherits the render pass instance, and through a render pass and framebuffer:
/// each record has the attachment's samples, and agrees with RADV at each of the four draws.
#[test]
fn draw_records_follow_depth_attachments_and_secondaries() {
    let Some(icd) = oracle_icd() else {
        return;
    };
    for family in ["vega10", "navi10", "navi21", "navi31"] {
        let run = run_on_oracle(&icd, family, "draws-depth");
        let shader = run.made["shader"].as_str().unwrap();
        let record = |pipeline: &Value| {
            run.draws
                .iter()
                .find(|r| &r["handle"] == pipeline)
                .unwrap_or_else(|| panic!("{family}: no record for {pipeline}"))
        };
        // The primary and the secondary draw with one pipeline and one state: one record adds
        // up both command buffers (named by the first recorded); the render pass pipeline's
        // draw is a record of its own.
        let pipeline = record(&run.made["pipeline"]);
        let render_pass = record(&run.made["render_pass_pipeline"]);
        assert_eq!(run.draws.len(), 2, "{family}");
        assert_eq!(
            [pipeline, render_pass].map(|r| (r["draws"].as_u64(), r["command_buffers"].as_u64())),
            [(Some(3), Some(2)), (Some(1), Some(1))]
        );
        assert!(
            [&run.made["primary"], &run.made["secondary"]].contains(&&pipeline["command_buffer"]),
            "{family}: {pipeline}"
        );
        assert_eq!(render_pass["command_buffer"], run.made["primary"]);
        let state = {
            use pm4::pops;
            let sh = shaders::corpus::get(shader).unwrap();
            let info = shaders::spirv::analyze(&sh.words()).unwrap();
            let e = info
                .entry_points
                .iter()
                .find(|e| e.execution_model == shaders::spirv::ExecutionModel::Fragment)
                .unwrap();
            let mut draw = pops::DrawState {
                rasterization_samples: 4,
                depth_stencil_samples: 4,
                sample_shading: e.per_sample,
                color_targets: [None; pops::MAX_COLOR_TARGETS],
                ..pops::DrawState::default()
            };
            draw.depth_stencil.depth_test = true;
            draw.depth_stencil.depth_write = true;
            draw.depth_stencil.depth_compare = pops::CompareOp::Less;
            let desc = pops::InterlockDesc {
                mode: e.interlock,
                resolves_intrawave: false,
                has_color_output: e.has_color_output,
                writes_memory: e.writes_memory,
                reads_sample_mask: e.reads_sample_mask,
            };
            pops::derive(
                pm4::Family::parse(family).unwrap(),
                &desc,
                &draw,
                &Default::default(),
            )
            .unwrap()
        };
        for r in [pipeline, render_pass] {
            assert_eq!(r["registers"], registers_of(&state), "{family}");
        }
        assert_eq!(run.at.len(), 4, "{family}: RADV recorded 4 draws");
        for (k, regs) in run.at.iter().enumerate() {
            agrees_with_radv(&state, regs, &format!("{family} draw {k}"));
        }
    }
}

/// Shader objects, whose whole state is dynamic: one record per sample count set in the command
/// buffer (the defect this tracking fixes: every shader-object record said one sample), equal to
/// pops state for those inputs and to what RADV recorded at each draw.
#[test]
fn shader_object_draw_records_agree_with_radv() {
    let Some(icd) = oracle_icd() else {
        return;
    };
    for family in ["vega10", "navi21", "navi31"] {
        let run = run_on_oracle(&icd, family, "draws-shader-objects");
        let shader = run.made["shader"].as_str().unwrap();
        let got: Vec<(u64, u64)> = run
            .draws
            .iter()
            .map(|r| (r["samples"].as_u64().unwrap(), r["draws"].as_u64().unwrap()))
            .collect();
        assert_eq!(got, [(1, 1), (4, 2)], "{family}");
        for r in &run.draws {
            assert_eq!(r["bound"], "shader_object");
            assert_eq!(r["handle"], run.made["fragment"]);
            assert_eq!(r["command_buffer"], run.made["command_buffer"]);
        }
        assert_eq!(run.at.len(), 3, "{family}: RADV recorded 3 draws");
        for (k, samples) in [(0usize, 1u32), (1, 4), (2, 4)] {
            let state = pops_state_with(family, shader, samples, 0);
            let rec = run.draws.iter().find(|r| r["samples"] == samples).unwrap();
            assert_eq!(
                rec["registers"],
                registers_of(&state),
                "{family} {samples}x"
            );
            agrees_with_radv(&state, &run.at[k], &format!("{family} draw {k}"));
        }
    }
}

/// A type-3 packet of a raw PM4 stream: its opcode and dwords (header first). Walked from the
/// packet headers alone (type in bits 31:30, dword count − 2 in bits 29:16, opcode in bits
/// 15:8), independently of pm4's decoder.
fn raw_packets(ib: &[u32]) -> Vec<(u32, &[u32])> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < ib.len() {
        let h = ib[i];
        if h >> 30 == 3 {
            let n = (((h >> 16) & 0x3fff) + 2) as usize;
            out.push(((h >> 8) & 0xff, &ib[i..(i + n).min(ib.len())]));
            i += n;
        } else {
            i += 1;
        }
    }
    out
}

/// The timing-related packets of a recorded command buffer and its draws, in order, read from
/// the packets' own fields (Mesa's sid.h): `Fill(bytes)` — DMA_DATA with SRC_SEL data (the
/// query reset); `Clock(offset)` — COPY_DATA of the GPU clock (SRC_SEL 9); `Bottom(offset)` —
/// RELEASE_MEM at BOTTOM_OF_PIPE_TS (event 0x28) writing the timestamp (DATA_SEL 3); `Draw` —
/// the DRAW_* opcodes of shared/reference/pm4.json. Offsets are from the first 64-query fill's
/// destination (the layer's first slice); RADV's own timestamps into other memory are left out.
#[derive(Debug, PartialEq)]
enum Stamp {
    Fill(u64),
    Clock(u64),
    Bottom(u64),
    Draw,
}

fn stamps(ib: &[u32]) -> Vec<Stamp> {
    let addr = |lo: u32, hi: u32| u64::from(lo) | (u64::from(hi & 0xffff) << 32);
    let packets = raw_packets(ib);
    let base = packets.iter().find_map(|(op, w)| {
        (*op == 0x50 && w.len() >= 7 && (w[1] >> 29) & 3 == 2 && w[6] & 0x3ff_ffff == 64 * 8)
            .then(|| addr(w[4], w[5]))
    });
    let slice = |a: u64| {
        base.filter(|b| (*b..*b + 64 * 8).contains(&a))
            .map(|b| a - b)
    };
    let mut out = Vec::new();
    for (op, w) in packets {
        match op {
            0x50 if w.len() >= 7 && (w[1] >> 29) & 3 == 2 => {
                out.push(Stamp::Fill(u64::from(w[6] & 0x3ff_ffff)))
            }
            // COPY_DATA: control, source (2 dwords), destination (2 dwords).
            0x40 if w.len() >= 6 && w[1] & 0xf == 9 => {
                if let Some(o) = slice(addr(w[4], w[5])) {
                    out.push(Stamp::Clock(o))
                }
            }
            0x49 if w.len() >= 5 && w[1] & 0x3f == 0x28 && w[2] >> 29 == 3 => {
                if let Some(o) = slice(addr(w[3], w[4])) {
                    out.push(Stamp::Bottom(o))
                }
            }
            0x24 | 0x25 | 0x27 | 0x2c | 0x2d | 0x2e | 0x30 | 0x35 | 0x38 => out.push(Stamp::Draw),
            _ => {}
        }
    }
    out
}

/// [`stamps`] without the fills that are not the layer's 64-query slices (RADV's own).
fn layer_stamps(ib: &[u32]) -> Vec<Stamp> {
    stamps(ib)
        .into_iter()
        .filter(|s| !matches!(s, Stamp::Fill(n) if *n != 512))
        .collect()
}

/// With the `timing` setting, the layer's timestamps bracket the interlocked draws in the
/// command buffer RADV really records: the 64-query slice is reset (DMA_DATA fill of 512 bytes)
/// before any timestamp; the GPU clock goes into its first query at the buffer's start; the
/// range's bottom-of-pipe timestamps go into the next queries before the first and after the
/// last of the four draws (one range: one pipeline), and the buffer's end into the next.
/// Without the setting none of these packets is there, and the draw records are the same.
#[test]
fn timing_timestamps_bracket_the_interlocked_draws_radv_records() {
    use Stamp::*;
    let Some(icd) = oracle_icd() else { return };
    for family in ["vega10", "navi31"] {
        let timed = run_on_oracle_with(&icd, family, "draws", &[("VK_POPS_INTERLOCK_TIMING", "1")]);
        let plain = run_on_oracle(&icd, family, "draws");
        assert!(
            !stamps(&plain.ib).contains(&Fill(512)),
            "{family}: no slice without the setting"
        );
        assert_eq!(
            layer_stamps(&timed.ib),
            [
                Fill(512),
                Clock(0),
                Bottom(8),
                Draw,
                Draw,
                Draw,
                Draw,
                Bottom(16),
                Bottom(24)
            ],
            "{family}"
        );
        // The draw records are what they are without timing.
        let fields = |r: &[Value]| -> Vec<(Value, Value, Value)> {
            r.iter()
                .map(|d| {
                    (
                        d["draws"].clone(),
                        d["samples"].clone(),
                        d["registers"].clone(),
                    )
                })
                .collect()
        };
        assert_eq!(fields(&timed.draws), fields(&plain.draws), "{family}");
    }
}

/// A primary with its own interlocked draw, a secondary continuing a render pass instance with
/// two (RADV inlines it), then a draw in a render pass: a range around the primary's draw and
/// one around the render pass's, none inside the secondary's draws (secondaries are not timed;
/// the device's closing log line counts their draw state).
#[test]
fn timing_leaves_secondary_command_buffers_alone() {
    use Stamp::*;
    let Some(icd) = oracle_icd() else { return };
    let run = run_on_oracle_with(
        &icd,
        "navi31",
        "draws-depth",
        &[("VK_POPS_INTERLOCK_TIMING", "1")],
    );
    assert_eq!(
        layer_stamps(&run.ib),
        [
            Fill(512),
            Clock(0),
            Bottom(8),
            Draw,
            Bottom(16),
            Draw,
            Draw,
            Bottom(24),
            Draw,
            Bottom(32),
            Bottom(40)
        ]
    );
}

/// "No action or synchronization commands … are allowed between suspending and resuming render
/// pass instances": a dynamic rendering instance suspended in one command buffer and resumed
/// first thing in the next. The first gets its start before the instance, the range around its
/// draw and its last timestamp inside the instance, before vkCmdEndRendering — nothing after
/// the suspension (its end is that last timestamp: no Bottom(32)); the second gets nothing at
/// all (it never leaves the resumed instance before its end, so its queries could not be
/// reset), its draw counted as not timed.
#[test]
fn timing_records_nothing_between_a_suspension_and_its_resumption() {
    use Stamp::*;
    let Some(icd) = oracle_icd() else { return };
    let run = run_on_oracle_with(
        &icd,
        "navi31",
        "suspend",
        &[("VK_POPS_INTERLOCK_TIMING", "1")],
    );
    assert_eq!(run.ibs.len(), 2);
    assert_eq!(
        layer_stamps(&run.ibs[0]),
        [Fill(512), Clock(0), Bottom(8), Draw, Bottom(16), Bottom(24)]
    );
    assert_eq!(layer_stamps(&run.ibs[1]), [Draw]);
}

/// The timing's frames on lavapipe, presenting to a headless surface: an upload, then three
/// frames of one submission and a present each. Frame 0 holds every submission before the
/// first present (two command buffers), frames 1 and 2 one each, all with lavapipe's GPU time;
/// without the setting the layer does not see the presents and writes no timing line.
#[test]
fn timing_frames_are_the_submissions_between_presents_on_lavapipe() {
    if !have_icd(LVP_ICD) {
        return;
    }
    let dir = pops_testkit::scratch("present");
    let report = dir.join("report.jsonl");
    let out = Scenario::new(BIN, "present", LVP_ICD)
        .with_layers(&[LAYER])
        .env("VK_POPS_INTERLOCK_REPORT", &report)
        .env("VK_POPS_INTERLOCK_TIMING", "1")
        .run();
    if !check_ok(&out, "present on lavapipe") {
        return;
    }
    assert_eq!(json_lines(&out.stdout)[0]["submissions"], 4);
    let lines = read_report(&report);
    let frames: Vec<(u64, u64)> = lines
        .iter()
        .filter(|l| l["kind"] == "timing")
        .map(|l| {
            assert_eq!(l["scope"], "frame", "{l}");
            (l["index"].as_u64().unwrap(), l["gpu_ns"].as_u64().unwrap())
        })
        .collect();
    assert_eq!(
        frames.iter().map(|f| f.0).collect::<Vec<_>>(),
        [0, 1, 2],
        "{lines:?}"
    );
    assert!(frames.iter().all(|f| f.1 > 0), "{frames:?}");
    let plain = dir.join("plain.jsonl");
    let out = Scenario::new(BIN, "present", LVP_ICD)
        .with_layers(&[LAYER])
        .env("VK_POPS_INTERLOCK_REPORT", &plain)
        .run();
    assert!(check_ok(&out, "present on lavapipe without timing"));
    assert!(read_report(&plain).iter().all(|l| l["kind"] != "timing"));
}

/// A pipeline record whose fragment shader uses ordered interlock.
fn is_ordered_interlock_pipeline(r: &Value) -> bool {
    r["kind"] == "pipeline"
        && r["interlock"]
            .as_str()
            .is_some_and(|i| i.contains("ordered"))
}

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
            let interlocked: Vec<(String, Vec<String>)> = read_report(&report)
                .iter()
                .filter(|r| is_ordered_interlock_pipeline(r))
                .map(|r| {
                    let codes = r["diagnostics"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|d| d["code"].as_str().unwrap().to_string())
                        .filter(|c| c.starts_with("isa-"))
                        .collect();
                    (r["source"].as_str().unwrap().to_string(), codes)
                })
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
        let keyed = first.iter().filter(|(s, _)| s != "library").count();
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
            if source == "library" {
                assert_eq!(codes, before, "{at}: a linked pipeline is verified anew");
            } else {
                assert_eq!(codes, &["isa-wait-without-sleep"], "{at}: {source}");
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

/// The bytes of the words each instruction line lists after its last `;`; a line
/// "(then repeated N times)" repeats the instruction before it N times.
fn code_of(assembly: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let mut last: Vec<u32> = Vec::new();
    for line in assembly.lines() {
        if let Some(n) = line
            .trim()
            .strip_prefix("(then repeated ")
            .and_then(|r| r.strip_suffix(" times)"))
        {
            for _ in 0..n.parse::<usize>().unwrap() {
                out.extend(last.iter().flat_map(|w| w.to_le_bytes()));
            }
            continue;
        }
        let Some((_, enc)) = line.rsplit_once(';') else {
            continue;
        };
        let words: Vec<u32> = enc
            .split_whitespace()
            .map_while(|t| {
                (t.len() == 8)
                    .then(|| u32::from_str_radix(t, 16).ok())
                    .flatten()
            })
            .collect();
        if !words.is_empty() && words.len() == enc.split_whitespace().count() {
            out.extend(words.iter().flat_map(|w| w.to_le_bytes()));
            last = words;
        }
    }
    out
}
fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}

/// The chips whose compiled code the tests of the driver's code read under `mesa`: one of each
/// generation RADV's disassembly covers there (GFX11.5 and GFX12 with today's Mesa).
fn code_families(mesa: &Mesa) -> &'static [&'static str] {
    match mesa {
        Mesa::Host => &["vega10", "navi21", "navi31"],
        Mesa::Current { .. } => &["vega10", "navi21", "navi31", "gfx1150", "gfx1201"],
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

/// Issue 41, item 1: the layer reads a fragment shader object's code from its binary data
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

/// Issue 41, item 7: an application that dies — by a signal (`abort`) or `_exit`, where no exit
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
        let mut ids: Vec<String> = read_report(&report)
            .iter()
            .filter(|r| r.get("kind").is_some() && r.get("handle").is_some())
            .map(|r| format!("{} {} {}", r["kind"], r["entry_point"], r["interlock"]))
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
    let codes = |r: &Value| -> Vec<String> {
        r["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["code"].as_str().unwrap().to_string())
            .collect()
    };
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
            let records = read_report(&report_path);
            let interlocked: Vec<&Value> = records
                .iter()
                .filter(|r| is_ordered_interlock_pipeline(r))
                .collect();
            assert!(!interlocked.is_empty(), "{family}: {records:?}");
            // Every interlocked pipeline's code keeps every rule: those with their own fragment
            // stage (module, inline) and those linked from graphics pipeline libraries.
            for r in &interlocked {
                let c: Vec<String> = codes(r)
                    .into_iter()
                    .filter(|c| c.starts_with("isa-"))
                    .collect();
                assert_eq!(c, ["isa-verified"], "{family}: {r}");
                let from = if r["source"] == "library" {
                    "RADV/ACO assembly"
                } else {
                    "RADV shader binary"
                };
                assert!(r["diagnostics"].to_string().contains(from), "{family}: {r}");
            }
            assert!(
                interlocked.iter().any(|r| r["source"] == "library"),
                "{family}: a linked pipeline's code verified: {interlocked:?}"
            );
            assert!(
                interlocked
                    .iter()
                    .filter(|r| r["source"] != "library")
                    .count()
                    >= 2,
                "{family}: a module's and an inline stage's code verified"
            );
            // Libraries themselves carry no finding: their code is verified where it is linked.
            assert!(records
                .iter()
                .filter(|r| r["kind"] == "library")
                .all(|r| codes(r).iter().all(|c| !c.starts_with("isa-"))));
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
            let isa: Vec<&Value> = r["diagnostics"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| d["code"].as_str().unwrap().starts_with("isa-"))
                .collect();
            assert_eq!(isa.len(), 1, "{family}: {r}");
            assert_eq!(isa[0]["code"], code, "{family}: {r}");
            assert!(isa[0]["message"].as_str().unwrap().contains(says), "{r}");
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
            assert!(
                !codes(r).iter().any(|c| c.starts_with("isa-")),
                "{family}: {r}"
            );
        }
    }
}
