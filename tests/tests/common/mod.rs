//! What the layer's loader tests share: the scenario binary, RADV and the oracle, the report's
//! records paired with what the scenario made, the states pops derives for them.
#![allow(dead_code, unused_imports)] // each test binary uses its own part

pub use pops_report::{Interlock, Kind, Record, Source};
pub use pops_testkit::mesa::Mesa;
pub use pops_tests::*;
pub use serde_json::Value;
pub use std::path::Path;

pub const BIN: &str = env!("CARGO_BIN_EXE_pops-vk-scenario");
pub const LAYER: &str = "VK_LAYER_POPS_interlock";

/// The RADV families the null-hardware runs cover: GFX9 (two), GFX10, GFX10.3, GFX11.
pub const FAMILIES: [&str; 5] = ["vega10", "raven", "navi10", "navi21", "navi31"];

pub fn radv(scenario: &str, family: &str) -> Scenario {
    Scenario::new(BIN, scenario, RADV_ICD).env("RADV_FORCE_FAMILY", family)
}

/// `scenario` on RADV without its GPU as `family`, under `mesa`: the host's Mesa 25.0.7 on its
/// null hardware (`RADV_FORCE_FAMILY`), today's on Mesa's own no-op drm-shim of the chip, since
/// Mesa 26 has no null hardware of its own.
pub fn radv_with(mesa: &Mesa, scenario: &str, family: &str) -> Scenario {
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

pub fn check_ok(out: &std::process::Output, what: &str) -> bool {
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
pub fn made(out: &std::process::Output) -> Vec<Value> {
    json_lines(&out.stdout)
        .into_iter()
        .filter(|v| v.get("way").is_some() && v.get("handle").is_some())
        .collect()
}

/// Pairs each created object with its report record, in creation order (handles may be reused
/// after destruction, so the search only moves forward).
pub fn pair<'a>(made: &'a [Value], report: &'a [Record]) -> Vec<(&'a Value, &'a Record)> {
    let mut cursor = 0;
    let mut out = Vec::new();
    for m in made {
        let pos = report[cursor..]
            .iter()
            .position(|r| m["handle"] == r.handle.as_str() && m["kind"] == r.kind.name())
            .unwrap_or_else(|| panic!("no report record for {m} after record {cursor}"));
        out.push((m, &report[cursor + pos]));
        cursor += pos + 1;
    }
    out
}

/// The `expect` comments of a corpus source, one per entry point, as
/// `shaders/tests/spirv_corpus.rs` reads them: `expect[NAME]: key=value ...` after `//`, `;` or
/// `#`; a plain `expect:` is for `main`.
pub fn expectations(shader: &str) -> Vec<(String, std::collections::HashMap<String, String>)> {
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
pub fn expected(shader: &str) -> std::collections::HashMap<String, String> {
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
pub fn pops_state(family: &str, shader: &str, samples: u32) -> pm4::pops::PopsState {
    pops_state_with(family, shader, samples, 1)
}

/// The registers of a state as the report writes them.
pub fn registers_of(state: &pm4::pops::PopsState) -> pops_report::Registers {
    pops_report::registers(state)
}

/// [`pops_state`] with `targets` colour attachments (0: none, the null export).
pub fn pops_state_with(
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

/// The RADV that really records command buffers on null hardware (shared/tools/radv-oracle,
/// built by the test command into target/radv-oracle).
pub fn oracle_icd() -> Option<std::path::PathBuf> {
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
pub fn values_at_draws(
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
pub struct OracleRun {
    pub made: Value,
    pub draws: Vec<Record>,
    /// Every record, creation records included.
    pub records: Vec<Record>,
    pub at: Vec<std::collections::HashMap<u32, u32>>,
    /// The command buffer RADV recorded, as dwords.
    pub ib: Vec<u32>,
    /// Every primary command buffer RADV recorded, in the order they ended.
    pub ibs: Vec<Vec<u32>>,
}

pub fn run_on_oracle(icd: &Path, family: &str, scenario: &str) -> OracleRun {
    run_on_oracle_with(icd, family, scenario, &[])
}

/// [`run_on_oracle`] with more environment (layer settings).
pub fn run_on_oracle_with(
    icd: &Path,
    family: &str,
    scenario: &str,
    env: &[(&str, &str)],
) -> OracleRun {
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
    let records = pops_tests::records(&report_path);
    let draws = records
        .iter()
        .filter(|r| r.kind == Kind::Draw)
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
pub fn agrees_with_radv(
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

/// Validates every IB the shim recorded in `dir` (`ib-*.bin`) as `level` code: each passes, with
/// register writes. The number of IBs.
pub fn lint_recorded_ibs(dir: &Path, level: pm4::GfxLevel, at: &str) -> usize {
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

/// The validation findings a run printed (VK_LAYER_KHRONOS_validation logs to standard output
/// by default; standard error is read too).
pub fn vuids(out: &std::process::Output) -> std::collections::BTreeSet<String> {
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

/// Whether the host's VK_LAYER_KHRONOS_validation is installed; reports SKIPPED otherwise.
pub fn have_validation_layer() -> bool {
    let manifest = Path::new("/usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json");
    if !manifest.is_file() {
        skip("VK_LAYER_KHRONOS_validation not installed (vulkan-validationlayers)");
    }
    manifest.is_file()
}

/// A pipeline record whose fragment shader uses interlock (ordered or unordered).
pub fn is_interlocked_pipeline(r: &Record) -> bool {
    r.kind == Kind::Pipeline && matches!(r.interlock, Interlock::Mode(_))
}

/// The chips whose compiled code the tests of the driver's code read under `mesa`: one of each
/// generation RADV's disassembly covers there (GFX11.5 and GFX12 with today's Mesa).
pub fn code_families(mesa: &Mesa) -> &'static [&'static str] {
    match mesa {
        Mesa::Host => &["vega10", "navi21", "navi31"],
        Mesa::Current { .. } => &["vega10", "navi21", "navi31", "gfx1150", "gfx1201"],
    }
}

/// The bytes of the words each instruction line lists after its last `;`; a line
/// "(then repeated N times)" repeats the instruction before it N times.
pub fn code_of(assembly: &str) -> Vec<u8> {
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
pub fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}

/// The name of the experiment a record says was applied.
pub fn experiment_name(r: &Record) -> Option<&'static str> {
    r.experiment.as_ref().map(|e| e.name.name())
}

/// The changes of the experiment a record says was applied, as the report writes them
/// (comma-separated; empty where none was applied).
pub fn experiment_changes(r: &Record) -> String {
    r.experiment
        .as_ref()
        .map_or(String::new(), |e| e.changes_text())
}

/// The record's verdicts on the driver's machine code (`isa-` codes), by name.
pub fn isa_codes(r: &Record) -> Vec<&'static str> {
    r.diagnostics
        .iter()
        .filter(|d| matches!(d.code, pops_report::Code::Isa(_)))
        .map(|d| d.code.name())
        .collect()
}
